"""Dense retrieval: inner product of L2-normalised vectors (= cosine) through FAISS."""

from __future__ import annotations

import numpy as np


def dense_search(faiss_index, query_vec: np.ndarray, top_n: int) -> tuple[np.ndarray, np.ndarray]:
    """Top `top_n` rows by cosine similarity. Returns (rows, scores), best first; rows < 0 (FAISS padding) dropped."""
    n = min(top_n, faiss_index.ntotal)
    if n <= 0:
        return np.zeros(0, np.int64), np.zeros(0, np.float32)
    q = np.ascontiguousarray(query_vec, dtype=np.float32).reshape(1, -1)
    scores, rows = faiss_index.search(q, n)
    keep = rows[0] >= 0
    return rows[0][keep], scores[0][keep]


def cosine_to_rows(embeddings: np.ndarray, query_vec: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """Exact cosine of the query to the given rows (the vectors are L2-normalised)."""
    if len(rows) == 0:
        return np.zeros(0, np.float32)
    return embeddings[rows] @ np.asarray(query_vec, dtype=np.float32).reshape(-1)
