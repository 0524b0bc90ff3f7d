"""Maximal Marginal Relevance (Carbonell & Goldstein 1998): re-order candidates so that each next pick balances
relevance against similarity to what was already picked:

    MMR = argmax_{d ∈ R \\ S} [ λ · rel(d) − (1 − λ) · max_{s ∈ S} sim(d, s) ]

with `rel` the hybrid score (already in [0, 1]) and `sim` the cosine of the chunk embeddings.
"""

from __future__ import annotations

import numpy as np


def mmr_order(relevance: np.ndarray, embeddings: np.ndarray, *, lam: float = 0.7, top_n: int | None = None) -> list[int]:
    """Indices into `relevance`/`embeddings` in MMR order (the first `top_n`, default all)."""
    n = len(relevance)
    top_n = n if top_n is None else min(top_n, n)
    if n == 0:
        return []
    sims = embeddings @ embeddings.T
    selected: list[int] = [int(np.argmax(relevance))]
    max_sim = sims[selected[0]].copy()
    remaining = np.ones(n, dtype=bool)
    remaining[selected[0]] = False
    while len(selected) < top_n:
        mmr = lam * relevance - (1.0 - lam) * max_sim
        mmr[~remaining] = -np.inf
        nxt = int(np.argmax(mmr))
        selected.append(nxt)
        remaining[nxt] = False
        max_sim = np.maximum(max_sim, sims[nxt])
    return selected
