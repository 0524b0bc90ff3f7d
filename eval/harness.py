"""What the evaluations share: a retriever wrapper that remembers the passages it handed to the tutor, a classifier
that fixes the intent (the problem's kind), and the JSON shape of one tutor turn in a transcript."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from app.retrieval.types import RetrievalResult, Retriever
from app.tutor.intents import Intent, IntentResult
from app.tutor.types import TutorReply
from indexing.models import Chunk


class RecordingRetriever:
    """Delegates to a retriever and keeps every chunk it returned, so transcripts can carry the passages' text."""

    def __init__(self, inner: Retriever) -> None:
        self.inner = inner
        self.seen: dict[str, Chunk] = {}
        self.index = getattr(inner, "index", None)
        self.embedder = getattr(inner, "embedder", None)

    def search(self, query: str, *, k: int = 8) -> RetrievalResult:
        result = self.inner.search(query, k=k)
        for h in result.hits:
            self.seen[h.chunk.id] = h.chunk
        return result

    def passages(self, chunk_ids: list[str]) -> list[dict[str, Any]]:
        out = []
        for cid in chunk_ids:
            c = self.seen.get(cid)
            if c is not None:
                out.append({"chunk_id": c.id, "source": c.source, "page_start": c.page_start,
                            "page_end": c.page_end, "section": c.section, "text": c.text})
        return out


class FixedIntentClassifier:
    """Answers every message with one intent (set `.intent` before each problem): the simulation gives the
    feedback strategy of the problem's kind, not whatever the rules make of a pasted answer."""

    def __init__(self, intent: str = "tracing") -> None:
        self.intent = intent

    def classify(self, question: str) -> IntentResult:  # noqa: ARG002
        intent = Intent(self.intent)
        return IntentResult(intent, 1.0, (f"fixed:{intent.value}",), {intent: 1.0})


def turn_record(reply: TutorReply, passages: list[dict[str, Any]]) -> dict[str, Any]:
    """The tutor's side of one turn, as stored in transcripts."""
    d = reply.to_dict()
    return {
        "intent": d["intent"], "reply": d["reply"], "grounding": d["grounding"], "help_level": d["help_level"],
        "mode": d["mode"], "usage": d["usage"], "citations": d["citations"], "retrieved": d["retrieved"],
        "passages": passages,
    }


def page_chunk_texts(chunks: list[Chunk]) -> Callable[[str | None, tuple[int, ...]], list[str]]:
    """A lookup from (source, gold pages) to the texts of the course chunks on those pages: the reference contexts
    of the non-LLM context precision/recall when a data line gives pages but no reference passages."""

    def lookup(source: str | None, pages: tuple[int, ...]) -> list[str]:
        return [c.text for c in chunks
                if (source is None or c.source == source) and any(c.page_start <= p <= c.page_end for p in pages)]

    return lookup
