"""What one tutor turn hands to the edge (CLI, API): the text to show and what happened in code."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from app.practice.feedback import Feedback
from app.practice.store import HintEvent, Rating


class ToolLog(BaseModel):
    """One executed tool call: its name, arguments, and the result or the error that went back to the model."""

    model_config = ConfigDict(frozen=True)

    name: str
    arguments: dict
    ok: bool
    result: str


class TutorTurn(BaseModel):
    """One reply of the tutor. `hint`, `feedback`, `rating` and `revealed_answer` are set when that happened."""

    model_config = ConfigDict(frozen=True)

    text: str
    question_id: str | None = None
    question: str | None = None
    hint: HintEvent | None = None
    feedback: Feedback | None = None
    rating: Rating | None = None
    revealed_answer: str | None = None
    finished: bool = False
    tool_calls: tuple[ToolLog, ...] = ()
