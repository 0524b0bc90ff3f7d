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
    _log_reply(course, reply, latency_ms)
    return Answer(reply, latency_ms)


class StreamedAnswer:
    """A reply streamed in text pieces; `reply` is the final `TutorReply` once the pieces are exhausted.

    Uses the tutor's own `stream(question, history)` when it has one (its result carries `.reply` at the end), else
    answers in one go and cuts the text into pieces. `start()` runs up to the first piece, so that errors before
    any text (unknown course, retrieval, ...) still become a proper HTTP status.
    """

    def __init__(self, services, course: str, question: str, history: list[Turn]) -> None:
        self._tutor = services.tutors.get(course)
        self._course, self._question, self._history = course, question, history
        self._first: str | None = None
        self._source: Iterator[str] | None = None
        self._stream = None
        self.reply: TutorReply | None = None
        self._t0 = time.perf_counter()

    def start(self) -> StreamedAnswer:
        if hasattr(self._tutor, "stream"):
            self._stream = self._tutor.stream(self._question, self._history)
            self._source = iter(self._stream)
        else:
            self.reply = self._tutor.answer(self._question, history=self._history)
            self._source = pieces(self.reply.reply)
        self._first = next(self._source, None)
        return self

    def __iter__(self) -> Iterator[str]:
        assert self._source is not None, "call start() first"
        if self._first is not None:
            yield self._first
            yield from self._source
        if self._stream is not None:
            self.reply = getattr(self._stream, "reply", None)
            if self.reply is None:  # a stream that does not report its reply: ask once more, without streaming
                self.reply = self._tutor.answer(self._question, history=self._history)
        _log_reply(self._course, self.reply, (time.perf_counter() - self._t0) * 1000, streamed=True)


def _log_reply(course: str, reply: TutorReply, latency_ms: float, *, streamed: bool = False) -> None:
    _log.info(
        "tutor answer",
        extra={
            "course": course, "intent": reply.intent, "grounding": reply.grounding, "mode": reply.mode,
            "help_level": reply.help_level, "citations": len(reply.citations), "streamed": streamed,
            "prompt_tokens": reply.usage.prompt_tokens, "completion_tokens": reply.usage.completion_tokens,
            "cached_prompt_tokens": reply.usage.cached_prompt_tokens, "latency_ms": round(latency_ms, 2),
        },
    )


_PIECE = re.compile(r"\S+\s*|\s+")


def pieces(text: str, words_per_piece: int = 4) -> Iterator[str]:
    """Split a reply into small pieces (whitespace kept) whose concatenation is exactly `text`."""
    words = _PIECE.findall(text)
    for i in range(0, len(words), words_per_piece):
        yield "".join(words[i : i + words_per_piece])
