"""A reranker built from what is installed: late interaction (ColBERT's MaxSim, Khattab & Zaharia 2020) over the
token vectors of the course's own sentence-transformers embedder.

    maxsim(q, d) = (1/|q|) · Σ_{i ∈ q} max_{j ∈ d} cos(q_i, d_j)

MiniLM was not trained for token-level matching, so MaxSim alone is a weak ranker; fused with the first stage's
score it re-orders the top candidates by how well each query word is matched somewhere in the passage — the signal
a cross-encoder would add. The ablation in the README measures what it earns. Scores are in [0, 1]:
    rerank = (1 − w) · first_stage + w · minmax(maxsim)    over the reranked candidates.
Token vectors of passages are cached per chunk text (they do not change between queries).
"""

from __future__ import annotations

from collections import OrderedDict

import numpy as np

from app.retrieval.fusion import minmax


class LateInteractionReranker:
    """MaxSim over the embedder's token vectors, fused with the first-stage relevance."""

    name = "late-interaction:maxsim"

    def __init__(self, embedder, *, weight: float = 0.5, cache_size: int = 4096) -> None:
        model = getattr(embedder, "model", None)
        if model is None:
            raise TypeError("late interaction needs a sentence-transformers embedder (token vectors)")
        self._model = model
        self.weight = weight
        self._cache: OrderedDict[str, np.ndarray] = OrderedDict()
        self._cache_size = cache_size

    def _tokens(self, texts: list[str]) -> list[np.ndarray]:
        import torch

        out = self._model.encode(texts, output_value="token_embeddings", convert_to_numpy=False, batch_size=32)
        vecs = []
        for t in out:
            t = torch.nn.functional.normalize(t.float(), dim=-1).cpu().numpy()
            vecs.append(t[1:-1] if len(t) > 2 else t)  # without [CLS] and [SEP]
        return vecs

    def _passage_tokens(self, passages: list[str]) -> list[np.ndarray]:
        missing = [p for p in dict.fromkeys(passages) if p not in self._cache]
        for p, v in zip(missing, self._tokens(missing) if missing else []):
            self._cache[p] = v.astype(np.float16)
            if len(self._cache) > self._cache_size:
                self._cache.popitem(last=False)
        for p in passages:
            self._cache.move_to_end(p)
        return [self._cache[p].astype(np.float32) for p in passages]

    def maxsim(self, query: str, passages: list[str]) -> np.ndarray:
        if not passages:
            return np.zeros(0, np.float32)
        q = self._tokens([query])[0]
        return np.array([float((q @ d.T).max(axis=1).mean()) for d in self._passage_tokens(passages)], np.float32)

    def rerank(self, query: str, passages: list[str], first_stage: np.ndarray) -> np.ndarray:
        """Fused scores in [0, 1] for the candidates, aligned with `passages`."""
        ms = minmax(self.maxsim(query, passages))
        return (1.0 - self.weight) * minmax(np.asarray(first_stage, np.float32)) + self.weight * ms
