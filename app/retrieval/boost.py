"""Source boost (KITE §3.3): official course material wins close calls against supplementary sources.

+`boost` for chunks of `official` sources whose rerank score is above `min_rerank`. The rule reads the rerank
score, so without a reranker the stage does not run (and the result says so).
"""

from __future__ import annotations


def source_boost(rerank_score: float, source_kind: str, *, boost: float = 0.3, min_rerank: float = 0.6) -> float:
    return boost if source_kind == "official" and rerank_score > min_rerank else 0.0
