"""Asking the course's tutor from a request: timing, usage logging, and chunking a reply for streaming."""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from dataclasses import dataclass

from app.api.logs import get_logger
from app.tutor.types import Turn, TutorReply

_log = get_logger("tutor")


@dataclass(frozen=True)
class Answer:
    reply: TutorReply
    latency_ms: float


def ask(services, course: str, question: str, history: list[Turn]) -> Answer:
    """One tutor turn; logs the intent, the model usage and the latency of the call."""
    tutor = services.tutors.get(course)
    t0 = time.perf_counter()
    reply = tutor.answer(question, history=history)
    latency_ms = (time.perf_counter() - t0) * 1000
    _log.info(
        "tutor answer",
        extra={
            "course": course, "intent": reply.intent, "grounding": reply.grounding, "mode": reply.mode,
            "help_level": reply.help_level, "citations": len(reply.citations),
            "prompt_tokens": reply.usage.prompt_tokens, "completion_tokens": reply.usage.completion_tokens,
            "cached_prompt_tokens": reply.usage.cached_prompt_tokens, "latency_ms": round(latency_ms, 2),
        },
    )
    return Answer(reply, latency_ms)


_PIECE = re.compile(r"\S+\s*|\s+")


def pieces(text: str, words_per_piece: int = 4) -> Iterator[str]:
    """Split a reply into small pieces (whitespace kept) whose concatenation is exactly `text`."""
    words = _PIECE.findall(text)
    for i in range(0, len(words), words_per_piece):
        yield "".join(words[i : i + words_per_piece])
