"""The tutor's reply and the conversation it continues: the contract between `app.tutor` and its edges."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Literal, Protocol

from app.llm.base import Usage

Grounding = Literal["material", "beyond", "not_covered"]
Mode = Literal["grounded", "llm"]


@dataclass(frozen=True)
class Citation:
    chunk_id: str
    source: str
    page_start: int
    page_end: int


@dataclass(frozen=True)
class Turn:
    """One message of the conversation so far (the learner's or the tutor's)."""

    role: Literal["user", "assistant"]
    content: str
    intent: str | None = None
    help_level: int | None = None


@dataclass(frozen=True)
class TutorReply:
    intent: str
    reply: str
    citations: list[Citation]
    grounding: Grounding
    help_level: int  # 1..5, raised by one per follow-up on the same problem, counted in code
    mode: Mode
    usage: Usage = field(default_factory=Usage)
    retrieved: list[str] = field(default_factory=list)  # chunk ids given to the tutor, in rank order

    def to_dict(self) -> dict:
        d = asdict(self)
        d["usage"] = {
            "prompt_tokens": self.usage.prompt_tokens,
            "completion_tokens": self.usage.completion_tokens,
            "cached_prompt_tokens": self.usage.cached_prompt_tokens,
        }
        return d


class Tutor(Protocol):
    """Answers a learner's message in the context of the conversation so far."""

    def answer(self, question: str, *, history: list[Turn] | None = None) -> TutorReply: ...
