"""What retrieval returns: ranked hits with the score of every stage that ran, and what was skipped and why."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol

from indexing.models import Chunk


@dataclass(frozen=True, slots=True)
class Hit:
    rank: int  # 1-based
    chunk: Chunk
    score: float  # the final score the ranking follows
    scores: dict[str, float] = field(default_factory=dict)  # per stage: dense, bm25, hybrid, mmr, rerank, boost

    def to_dict(self, *, text: bool = True) -> dict:
        c = self.chunk
        d = {
            "rank": self.rank,
            "chunk_id": c.id,
            "source": c.source,
            "page_start": c.page_start,
            "page_end": c.page_end,
            "section": c.section,
            "scores": {k: round(float(v), 6) for k, v in self.scores.items()},
        }
        if text:
            d["text"] = c.text
        return d


@dataclass(frozen=True)
class RetrievalResult:
    query: str
    hits: list[Hit]
    stages: list[str]  # the stages that ran, in order
    skipped: dict[str, str] = field(default_factory=dict)  # stage -> why it did not run
    timings_ms: dict[str, float] = field(default_factory=dict)


class Retriever(Protocol):
    def search(self, query: str, *, k: int = 8) -> RetrievalResult: ...
