"""What guided practice records, the storage protocol the database implements, an in-memory store, and the
teacher view over it.

Records are frozen: a `HintEvent` per hint (with its text, as the learner saw it after the leak guard), and one
`Rating` per finished question whose `hints` are those events, so the hint count saved always equals the number of
hint events ("Harte Grenzen zählt der Code"). `teacher_view` is a pure function over any `PracticeStore`, so the API
and the CLI list exactly the same rows.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Literal, Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict, computed_field

from app.errors import NotFoundError
from app.learning.scales import quality_from_score
from app.practice.questions import Question

HintTrigger = Literal["request", "wrong_answer", "model"]


class HintEvent(BaseModel):
    """One hint given on one question: level 1..5, the text shown, what the guard did, when."""

    model_config = ConfigDict(frozen=True)

    question_id: str
    level: int
    text: str
    trigger: HintTrigger
    guard: str = "ok"
    at: datetime


class Rating(BaseModel):
    """The saved rating of one question in one session. `score` is the clamped score; `proposed_score` what the
    model (or the grounded grader) proposed before clamping."""

    model_config = ConfigDict(frozen=True)

    session_id: str
    course: str
    learner: str
    question_id: str
    question: str
    score: int
    proposed_score: float
    band: str
    reasoning: str
    hints: tuple[HintEvent, ...]
    resolved: bool
    rated_at: datetime

    @computed_field  # type: ignore[prop-decorator]
    @property
    def hints_given(self) -> int:
        """Number of hint events: the only hint count there is."""
        return len(self.hints)

    @computed_field  # type: ignore[prop-decorator]
    @property
    def quality(self) -> int:
        """The 0-5 quality for spaced repetition (`app.learning.scales`)."""
        return quality_from_score(self.score)


@runtime_checkable
class PracticeStore(Protocol):
    """Persistence for guided practice; the database implements the same methods."""

    def put_questions(self, course: str, questions: Sequence[Question]) -> int:
        """Insert or replace questions of `course` by id; return how many were written."""
        ...

    def get_questions(self, course: str, ids: Sequence[str] | None = None) -> list[Question]:
        """Questions of `course` (all, in insertion order, or `ids` in that order); NotFoundError for unknown ids."""
        ...

    def save_rating(self, rating: Rating) -> None:
        """Store one rating (a session rates each question at most once)."""
        ...

    def list_ratings(self, course: str, learner: str | None = None) -> list[Rating]:
        """Ratings of `course` (optionally one learner's) in the order they were saved."""
        ...

    # Optional: `save_hint(session_id, event)`. A store that has it gets every hint event from
    # `GuidedSession.give_hint` as it is given (the database store writes it into the turn's transaction).


class InMemoryPracticeStore:
    """A `PracticeStore` in dictionaries: for tests, the CLI and as the reference behaviour."""

    def __init__(self) -> None:
        self._questions: dict[str, dict[str, Question]] = {}
        self._ratings: list[Rating] = []

    def put_questions(self, course: str, questions: Sequence[Question]) -> int:
        bank = self._questions.setdefault(course, {})
        for q in questions:
            bank[q.id] = q.model_copy(update={"course": course})
        return len(questions)

    def get_questions(self, course: str, ids: Sequence[str] | None = None) -> list[Question]:
        bank = self._questions.get(course, {})
        if ids is None:
            return list(bank.values())
        unknown = [i for i in ids if i not in bank]
        if unknown:
            raise NotFoundError(f"course {course!r} has no question(s) {', '.join(unknown)}",
                                hint="import them first with `tutor questions import`")
        return [bank[i] for i in ids]

    def save_rating(self, rating: Rating) -> None:
        if any(r.session_id == rating.session_id and r.question_id == rating.question_id for r in self._ratings):
            raise ValueError(f"question {rating.question_id!r} is already rated in session {rating.session_id!r}")
        self._ratings.append(rating)

    def list_ratings(self, course: str, learner: str | None = None) -> list[Rating]:
        return [r for r in self._ratings if r.course == course and (learner is None or r.learner == learner)]


class TeacherViewHint(BaseModel):
    """A hint as the teacher sees it."""

    model_config = ConfigDict(frozen=True)

    level: int
    text: str
    at: datetime


class TeacherViewRow(BaseModel):
    """One rated question: who, which question, score and why, how much help (with the hints' texts), when."""

    model_config = ConfigDict(frozen=True)

    learner: str
    session_id: str
    question_id: str
    question: str
    score: int
    quality: int
    band: str
    hints_given: int
    hints: tuple[TeacherViewHint, ...]
    resolved: bool
    reasoning: str
    rated_at: datetime


def teacher_view(store: PracticeStore, course: str, learner: str | None = None) -> list[TeacherViewRow]:
    """Every rated question of `course` (optionally of one learner), oldest first (ties: learner, question id)."""
    rows = [
        TeacherViewRow(
            learner=r.learner,
            session_id=r.session_id,
            question_id=r.question_id,
            question=r.question,
            score=r.score,
            quality=r.quality,
            band=r.band,
            hints_given=r.hints_given,
            hints=tuple(TeacherViewHint(level=h.level, text=h.text, at=h.at) for h in r.hints),
            resolved=r.resolved,
            reasoning=r.reasoning,
            rated_at=r.rated_at,
        )
        for r in store.list_ratings(course, learner)
    ]
    return sorted(rows, key=lambda row: (row.rated_at, row.learner, row.question_id))
