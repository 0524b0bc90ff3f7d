"""The multi-stage retrieval pipeline (KITE §3.3), composed of the pure stages in this package:

    query ─► dense (FAISS, top 50) ─┐
          └► BM25 (bm25s, top 50) ──┴► hybrid 0.7·dense + 0.3·BM25 (min-max per query, over the union)
             ─► demote asking passages (+ exercise bonus) ─► MMR (λ 0.7)
             ─► rerank (cross-encoder, top 20) ─► source boost ─► top k (8)

Every stage can be switched off (settings, or a `Stages` for ablations); each hit carries the score of every stage
that ran, and the result names the stages that were skipped and why.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from app.retrieval.asking import exercise_numbers, refers_to_exercise
from app.retrieval.bm25 import bm25_scores, top_rows
from app.retrieval.boost import source_boost
from app.retrieval.dense import cosine_to_rows, dense_search
from app.retrieval.fusion import hybrid_scores, minmax
from app.retrieval.late_interaction import LateInteractionReranker
from app.retrieval.query import expand_query
from app.retrieval.mmr import mmr_order
from app.retrieval.rerank import Reranker, find_reranker
from app.retrieval.types import Hit, RetrievalResult
from app.settings import Settings
from indexing.chunk import index_text
from indexing.embedder import Embedder, load_embedder
from indexing.store import CourseIndex, load_index


@dataclass(frozen=True)
class Stages:
    dense: bool = True
    bm25: bool = True
    mmr: bool = True
    rerank: bool = True
    boost: bool = True
    demote: bool = True

    @classmethod
    def from_settings(cls, s: Settings) -> "Stages":
        return cls(mmr=s.mmr_enabled, rerank=s.rerank_enabled, demote=s.asking_demotion > 0)


ABLATIONS: dict[str, Stages] = {
    "bm25": Stages(dense=False, mmr=False, rerank=False, boost=False, demote=False),
    "dense": Stages(bm25=False, mmr=False, rerank=False, boost=False, demote=False),
    "hybrid": Stages(mmr=False, rerank=False, boost=False, demote=False),
    "hybrid+mmr": Stages(rerank=False, boost=False, demote=False),
    "+rerank": Stages(boost=False, demote=False),
    "+demote": Stages(boost=False),
    "full": Stages(),
}


class RetrievalPipeline:
    """Retrieval over one course index. Build once (models load once), then `search` many times."""

    def __init__(
        self,
        index: CourseIndex,
        embedder: Embedder,
        *,
        settings: Settings | None = None,
        reranker: Reranker | None = None,
        reranker_missing: str | None = None,
    ) -> None:
        if embedder.name != index.embedder_name:
            from app.errors import CourseIndexError

            raise CourseIndexError(
                f"course {index.course!r} was indexed with {index.embedder_name!r}, not {embedder.name!r}",
                hint=f"set TUTOR_EMBEDDER={index.embedder_name} or re-ingest the course",
            )
        self.index = index
        self.embedder = embedder
        self.settings = settings or Settings()
        self.reranker = reranker
        self.reranker_missing = reranker_missing or ("no reranker configured" if reranker is None else None)
        self.default_stages = Stages.from_settings(self.settings)
        self.mmr_pool = 30
        self.rerank_top_n = 20
        self._numbers: dict[int, frozenset[str]] = {}

    def _asking_penalty(self, row: int) -> float:
        """Demotion of a passage that asks rather than explains: none up to half asking sentences, then rising
        linearly to the full `asking_demotion` for a passage of nothing but questions and tasks (the share is stored
        with the index, `indexing.asking`)."""
        return self.settings.asking_demotion * max(0.0, 2.0 * float(self.index.asking[row]) - 1.0)

    def _exercise_numbers(self, row: int) -> frozenset[str]:
        if row not in self._numbers:
            self._numbers[row] = exercise_numbers(self.index.chunks[row].text)
        return self._numbers[row]

    def embed_query(self, query: str) -> np.ndarray:
        return self.embedder.embed([query])[0]

    def search(self, query: str, *, k: int | None = None, stages: Stages | None = None) -> RetrievalResult:
        t0 = time.perf_counter()
        expanded = expand_query(query) if self.settings.query_expansion else query
        qvec = self.embed_query(expanded) if (stages or self.default_stages).dense else None
        embed_ms = (time.perf_counter() - t0) * 1000
        result = self.search_vector(expanded, qvec, k=k, stages=stages)
        result.timings_ms["embed"] = embed_ms
        if expanded != query:
            result.stages.insert(0, "expand")
        return result

    def search_vector(
        self, query: str, qvec: np.ndarray | None, *, k: int | None = None, stages: Stages | None = None
    ) -> RetrievalResult:
        """Everything after embedding the query (what the latency budget is about)."""
        s = self.settings
        st = stages or self.default_stages
        k = k or s.final_k
        idx = self.index
        timings: dict[str, float] = {}
        skipped: dict[str, str] = {}
        ran: list[str] = []
        n = len(idx)
        if n == 0:
            return RetrievalResult(query, [], [], {"all": "the course has no chunks"}, timings)

        t = time.perf_counter()
        dense_rows = np.zeros(0, np.int64)
        if st.dense:
            dense_rows, _ = dense_search(idx.faiss_index, qvec, s.dense_top_n)
            ran.append("dense")
        timings["dense"] = _ms(t)

        t = time.perf_counter()
        bm25_rows = np.zeros(0, np.int64)
        all_bm25 = None
        if st.bm25:
            all_bm25 = bm25_scores(idx.bm25, query, n)
            bm25_rows, _ = top_rows(all_bm25, s.bm25_top_n)
            ran.append("bm25")
        timings["bm25"] = _ms(t)

        t = time.perf_counter()
        cand = np.unique(np.concatenate([dense_rows, bm25_rows])).astype(np.int64)
        dense_sc = cosine_to_rows(idx.embeddings, qvec, cand) if qvec is not None else np.zeros(len(cand))
        bm25_sc = all_bm25[cand] if all_bm25 is not None else np.zeros(len(cand), np.float32)
        scores: list[dict[str, float]] = [{} for _ in cand]
        for i in range(len(cand)):
            if st.dense:
                scores[i]["dense"] = float(dense_sc[i])
            if st.bm25:
                scores[i]["bm25"] = float(bm25_sc[i])
        if st.dense and st.bm25:
            rel = hybrid_scores(dense_sc, bm25_sc, dense_weight=s.hybrid_dense_weight)
            ran.append("hybrid")
            for i in range(len(cand)):
                scores[i]["hybrid"] = float(rel[i])
        else:
            rel = np.asarray(dense_sc if st.dense else bm25_sc, np.float32)
        timings["hybrid"] = _ms(t)

        t = time.perf_counter()
        if st.demote and s.asking_demotion > 0 and not refers_to_exercise(query):
            penalty = np.array([self._asking_penalty(int(r)) for r in cand], np.float32)
            rel = np.asarray(rel, np.float32) - penalty
            for i in np.flatnonzero(penalty):
                scores[i]["demote"] = -float(penalty[i])
            ran.append("demote")
        elif st.demote and s.asking_demotion > 0:
            skipped["demote"] = "the question refers to an exercise"
        numbers = exercise_numbers(query) if st.demote else frozenset()
        if numbers:
            # "exercise 3, can someone check": the passages about that numbered exercise (its text, its solution)
            rel = np.array(rel, np.float32)
            for i, r in enumerate(cand):
                if numbers & self._exercise_numbers(int(r)):
                    rel[i] += s.exercise_match_bonus
                    scores[i]["exercise"] = s.exercise_match_bonus
        order = list(np.lexsort((cand, -rel)))  # best first, ties by row
        final = {int(i): float(rel[i]) for i in order}
        timings["demote"] = _ms(t)

        t = time.perf_counter()
        if st.mmr and len(order) > 1:
            pool = order[: self.mmr_pool]
            pool_rel = minmax(rel[pool])
            picked = mmr_order(pool_rel, idx.embeddings[cand[pool]], lam=s.mmr_lambda)
            new_pool = [pool[j] for j in picked]
            for rank, i in enumerate(new_pool):
                scores[i]["mmr"] = float(len(new_pool) - rank) / len(new_pool)
                final[i] = scores[i]["mmr"]
            order = new_pool + order[self.mmr_pool :]
            ran.append("mmr")
        elif st.mmr:
            ran.append("mmr")
        timings["mmr"] = _ms(t)

        t = time.perf_counter()
        reranked = False
        if st.rerank and self.reranker is not None:
            top = order[: self.rerank_top_n]
            texts = [index_text(idx.chunks[int(cand[i])]) for i in top]
            if hasattr(self.reranker, "rerank"):  # fuses with the first stage itself (late interaction)
                rr = self.reranker.rerank(query, texts, np.array([rel[i] for i in top]))
            else:
                rr = self.reranker.score(query, texts)
            for i, r in zip(top, rr):
                scores[i]["rerank"] = float(r)
                final[i] = float(r)
            order = sorted(top, key=lambda i: (-final[i], int(cand[i]))) + order[self.rerank_top_n :]
            reranked = True
            ran.append("rerank")
        elif st.rerank:
            skipped["rerank"] = self.reranker_missing or "no reranker"
        timings["rerank"] = _ms(t)

        if st.boost and reranked:
            top = order[: self.rerank_top_n]
            for i in top:
                b = source_boost(
                    scores[i]["rerank"], idx.chunks[int(cand[i])].source_kind, boost=s.source_boost,
                    min_rerank=s.source_boost_min_rerank,
                )
                scores[i]["boost"] = b
                final[i] = scores[i]["rerank"] + b
            order = sorted(top, key=lambda i: (-final[i], int(cand[i]))) + order[self.rerank_top_n :]
            ran.append("boost")
        elif st.boost:
            skipped["boost"] = "needs rerank scores (the rule boosts official chunks whose rerank score > 0.6)"

        hits = [
            Hit(rank=r + 1, chunk=idx.chunks[int(cand[i])], score=final[i], scores=scores[i])
            for r, i in enumerate(order[:k])
        ]
        timings["total"] = sum(v for key, v in timings.items())
        return RetrievalResult(query, hits, ran, skipped, timings)


def _ms(t: float) -> float:
    return (time.perf_counter() - t) * 1000.0


def open_retriever(settings: Settings, course: str, *, embedder: Embedder | None = None) -> RetrievalPipeline:
    """Load the course index, its embedder and the reranker (if any) once."""
    index = load_index(settings.data_dir, course)
    embedder = embedder or load_embedder(settings.embedder)
    reranker, missing = (None, "disabled by TUTOR_RERANK_ENABLED=false")
    if settings.rerank_enabled:
        reranker, missing = find_reranker(settings.reranker)
        if reranker is None and settings.late_interaction_fallback and hasattr(embedder, "model"):
            reranker = LateInteractionReranker(embedder, weight=settings.late_interaction_weight)
            missing = None
    return RetrievalPipeline(index, embedder, settings=settings, reranker=reranker, reranker_missing=missing)

