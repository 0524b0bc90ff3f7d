"""Lexical retrieval with BM25 (Robertson & Zaragoza 2009) through `bm25s` (Lù 2024), Lucene's variant.

`bm25_scores` scores every chunk of the course at once (a few sparse columns, so it is cheap even at 100k chunks);
`top_rows` picks the best of them.
"""

from __future__ import annotations

import numpy as np

from indexing.tokenize import tokenize


def bm25_scores(bm25, query: str, n_docs: int) -> np.ndarray:
    """BM25 score of every chunk for `query` (zeros when no query word is in the vocabulary)."""
    tokens = [t for t in tokenize(query) if t in bm25.vocab_dict] if bm25 is not None else []
    if not tokens:
        return np.zeros(n_docs, np.float32)
    return np.asarray(bm25.get_scores(tokens), dtype=np.float32)


def top_rows(scores: np.ndarray, top_n: int) -> tuple[np.ndarray, np.ndarray]:
    """Rows of the `top_n` highest positive scores, best first (ties by row for determinism)."""
    positive = np.flatnonzero(scores > 0)
    if len(positive) == 0:
        return np.zeros(0, np.int64), np.zeros(0, np.float32)
    if len(positive) > top_n:
        part = np.argpartition(-scores[positive], top_n - 1)[:top_n]
        positive = positive[part]
    order = np.lexsort((positive, -scores[positive]))
    rows = positive[order]
    return rows, scores[rows]
