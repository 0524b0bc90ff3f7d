"""Hybrid fusion of dense and BM25 scores (KITE §3.3): 0.7 · dense + 0.3 · BM25, each min-max normalised per query
over the union of both candidate lists."""

from __future__ import annotations

import numpy as np


def minmax(x: np.ndarray) -> np.ndarray:
    """Scale to [0, 1]; a constant vector maps to ones (every candidate equally good), an empty one stays empty."""
    x = np.asarray(x, dtype=np.float32)
    if x.size == 0:
        return x
    lo, hi = float(x.min()), float(x.max())
    if hi - lo < 1e-12:
        return np.ones_like(x)
    return (x - lo) / (hi - lo)


def hybrid_scores(dense: np.ndarray, bm25: np.ndarray, *, dense_weight: float = 0.7) -> np.ndarray:
    """Weighted sum of the min-max normalised scores of the same candidates (aligned arrays)."""
    d = minmax(dense)
    b = minmax(bm25) if np.any(bm25 > 0) else np.zeros_like(d)
    return dense_weight * d + (1.0 - dense_weight) * b
