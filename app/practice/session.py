"""The guided session: the state of the Teacher design's agent, kept in code, and its tools as methods.

    NEW ──getContent──► READY ──getNextQuestion──► ASKING ──(correct | resolved)──► rated ──► READY …
                              └─ getNextQuestion on an empty list ─► end marker, FINISHED

The three tools of the design are `get_content` (the material, exactly once, first), `get_next_question` (the next
id of a fixed list, or `END_MARKER`), `save_rating` (score, reasoning, hints). Two more steps the design left to the
prompt are code here: `give_hint` records every hint as an event (leak-guarded, never a sixth) and `resolve` shows
the reference answer after the fifth hint or when the learner gives up. `save_rating` clamps the proposed score into
the band of the hints it counted (`bands.py`) and takes the hint count from the events, never from the caller.

A call in the wrong order, with an unknown question id or on a finished session raises `ToolCallError`; the agent
loop sends its message back to the model and the dialogue goes on. The clock is an argument of every step.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from enum import Enum
from typing import Any

from app.errors import UserError
from app.practice.bands import MAX_HINTS, ScoreBand, band_for, clamp_score
from app.practice.feedback import Feedback, help_reason, transition_text
from app.practice.leak_guard import GuardedHint, guard_hint
from app.practice.questions import Question
from app.practice.store import HintEvent, HintTrigger, PracticeStore, Rating
from indexing.models import Chunk

END_MARKER = "END_OF_QUESTIONS"


class ToolCallError(UserError):
    """A tool call that cannot be executed now (wrong order, unknown id, limit reached); goes back to the model."""


class Phase(str, Enum):
    NEW = "new"
    READY = "ready"
    ASKING = "asking"
    FINISHED = "finished"


@dataclass
class Attempt:
    """One answer to the open question, with the grader's quality if it was graded."""

    text: str
    quality: int | None
    at: datetime


@dataclass
class OpenQuestion:
    """The question being worked on: its hints, attempts and whether it was resolved."""

    question: Question
    asked_at: datetime
    hints: list[HintEvent] = field(default_factory=list)
    attempts: list[Attempt] = field(default_factory=list)
    resolved: bool = False

    @property
    def best_quality(self) -> int:
        """Best graded quality among the attempts (0 if none was graded)."""
        return max((a.quality for a in self.attempts if a.quality is not None), default=0)


@dataclass(frozen=True)
class Resolution:
    """A resolved question: the reference answer to show and the hints it took."""

    question_id: str
    reference_answer: str
    hints_given: int

    def to_tool_result(self) -> dict[str, Any]:
        return {
            "resolved": True,
            "questionId": self.question_id,
            "referenceAnswer": self.reference_answer,
            "hintsGiven": self.hints_given,
            "next": "show the reference answer, then call saveQuestionRating (partial credit band 1-3)",
        }


def material_text(material: Sequence[Chunk] | str) -> tuple[str, str]:
    """(topic, text) of the session's material: chunks joined with their section and pages, or a plain text."""
    if isinstance(material, str):
        first = material.strip().splitlines()[0] if material.strip() else ""
        return first.lstrip("# ").strip(), material
    if not material:
        return "", ""
    topic = material[0].section
    parts = [f"[{c.section} · {c.source} p. {c.page_start}-{c.page_end}]\n{c.text}" for c in material]
    return topic, "\n\n".join(parts)


class GuidedSession:
    """One learner working through a fixed list of questions on some material. Mutable; not thread-safe."""

    def __init__(
        self,
        *,
        session_id: str,
        course: str,
        learner: str,
        questions: Sequence[Question],
        material: Sequence[Chunk] | str,
        store: PracticeStore,
    ) -> None:
        if not questions:
            raise UserError("a guided session needs at least one question", hint="pass a question file or ids")
        ids = [q.id for q in questions]
        if len(set(ids)) != len(ids):
            raise UserError("the question list has duplicate ids", hint="each question may appear once per session")
        self.session_id = session_id
        self.course = course
        self.learner = learner
        self.questions: tuple[Question, ...] = tuple(questions)
        self.material = material
        self.chunks: tuple[Chunk, ...] = () if isinstance(material, str) else tuple(material)
        self.store = store
        self.phase = Phase.NEW
        self.current: OpenQuestion | None = None
        self.answered_count = 0
        self.hint_events: list[HintEvent] = []
        self.ratings: list[Rating] = []
        self._next_index = 0

    # -- queries --------------------------------------------------------------------------------------------------

    @property
    def finished(self) -> bool:
        return self.phase is Phase.FINISHED

    @property
    def remaining(self) -> int:
        """Questions not yet asked."""
        return len(self.questions) - self._next_index

    def peek_next(self) -> Question | None:
        """The question `get_next_question` would return next, without taking it."""
        return self.questions[self._next_index] if self._next_index < len(self.questions) else None

    def _open(self, question_id: str | None = None) -> OpenQuestion:
        if self.phase is Phase.FINISHED:
            raise ToolCallError("the session is finished; there is no open question")
        if self.current is None:
            raise ToolCallError("no question is open; call getNextQuestion first")
        if question_id is not None and question_id != self.current.question.id:
            known = {q.id for q in self.questions}
            what = "is not the open question" if question_id in known else "is not a question of this session"
            raise ToolCallError(
                f"question id {question_id!r} {what}; the open question is {self.current.question.id!r}"
            )
        return self.current

    # -- persistence ------------------------------------------------------------------------------------------------

    def to_state(self) -> dict[str, Any]:
        """The mutable state as JSON-able data (hint events and ratings are stored as records of their own)."""
        cur = self.current
        return {
            "phase": self.phase.value,
            "next_index": self._next_index,
            "answered": self.answered_count,
            "current": None if cur is None else {
                "question_id": cur.question.id,
                "asked_at": cur.asked_at.isoformat(),
                "resolved": cur.resolved,
                "attempts": [{"text": a.text, "quality": a.quality, "at": a.at.isoformat()} for a in cur.attempts],
            },
        }

    def restore(self, state: dict[str, Any], hints: Sequence[HintEvent], ratings: Sequence[Rating]) -> None:
        """Rebuild the state saved by `to_state` with the stored hint events and ratings (after a restart)."""
        self.phase = Phase(state.get("phase", Phase.NEW.value))
        self._next_index = int(state.get("next_index", 0))
        self.answered_count = int(state.get("answered", 0))
        self.hint_events = list(hints)
        self.ratings = list(ratings)
        cur = state.get("current")
        self.current = None
        if cur is not None:
            by_id = {q.id: q for q in self.questions}
            qid = cur["question_id"]
            self.current = OpenQuestion(
                question=by_id[qid],
                asked_at=datetime.fromisoformat(cur["asked_at"]),
                hints=[h for h in hints if h.question_id == qid and not any(r.question_id == qid for r in ratings)],
                attempts=[Attempt(a["text"], a["quality"], datetime.fromisoformat(a["at"])) for a in cur["attempts"]],
                resolved=bool(cur["resolved"]),
            )

    # -- the tools ------------------------------------------------------------------------------------------------

    def get_content(self, now: datetime) -> dict[str, Any]:
        """Tool getContent: the material, once, before anything else."""
        if self.phase is not Phase.NEW:
            raise ToolCallError("getContent was already called; the material is loaded once at the start")
        self.phase = Phase.READY
        topic, text = material_text(self.material)
        return {"topic": topic, "text": text, "questions": len(self.questions), "loadedAt": now.isoformat()}

    def get_next_question(self, now: datetime) -> dict[str, Any]:
        """Tool getNextQuestion: the next question of the fixed list with its reference answer, or the end marker."""
        if self.phase is Phase.NEW:
            raise ToolCallError("call getContent first: the material is loaded before the first question")
        if self.current is not None:
            raise ToolCallError(
                f"question {self.current.question.id!r} is still open; finish it and call saveQuestionRating first"
            )
        if self.phase is Phase.FINISHED or self._next_index >= len(self.questions):
            self.phase = Phase.FINISHED
            return {"end": True, "marker": END_MARKER, "answered": self.answered_count}
        q = self.questions[self._next_index]
        self._next_index += 1
        self.current = OpenQuestion(question=q, asked_at=now)
        self.phase = Phase.ASKING
        return {
            "end": False,
            "questionId": q.id,
            "question": q.question,
            "referenceAnswer": q.reference_answer,
            "where": q.where(),
            "position": self._next_index,
            "total": len(self.questions),
        }

    def give_hint(self, text: str, now: datetime, *, trigger: HintTrigger) -> HintEvent:
        """Record the next hint (level = hints so far + 1) after the leak guard; ToolCallError for a sixth hint or
        on a resolved question. The event holds the text as shown."""
        open_q = self._open()
        if open_q.resolved:
            raise ToolCallError(
                f"question {open_q.question.id!r} is resolved; no more hints — call saveQuestionRating"
            )
        if len(open_q.hints) >= MAX_HINTS:
            raise ToolCallError(
                f"all {MAX_HINTS} hints for question {open_q.question.id!r} are given; resolve the question instead"
            )
        if not text.strip():
            raise ToolCallError("a hint needs text")
        level = len(open_q.hints) + 1
        guarded = guard_hint(text, open_q.question.reference_answer, level=level, question=open_q.question.question)
        event = HintEvent(question_id=open_q.question.id, level=level, text=guarded.text, trigger=trigger,
                          guard=guarded.action, at=now)
        open_q.hints.append(event)
        self.hint_events.append(event)
        record = getattr(self.store, "save_hint", None)  # stores that persist hint events as they happen
        if record is not None:
            record(self.session_id, event)
        return event

    def guard_reply(self, text: str) -> GuardedHint:
        """Guard free tutor text shown while a question is open: as strict as a hint of the current level until the
        fifth hint or the resolution (then the answer may be shown)."""
        if self.current is None or self.current.resolved:
            return guard_hint(text, "", level=5)
        level = len(self.current.hints)
        q = self.current.question
        return guard_hint(text, q.reference_answer, level=min(level, MAX_HINTS), question=q.question)

    def record_answer(self, answer: str, now: datetime, *, quality: int | None = None) -> Attempt:
        """Note an answer to the open question (with the grader's quality, if graded)."""
        open_q = self._open()
        attempt = Attempt(text=answer, quality=quality, at=now)
        open_q.attempts.append(attempt)
        return attempt

    def resolve(self, now: datetime, question_id: str | None = None) -> Resolution:
        """Resolve the open question: the reference answer may now be shown; the rating falls in band 1-3."""
        open_q = self._open(question_id)
        if open_q.resolved:
            raise ToolCallError(f"question {open_q.question.id!r} is already resolved; call saveQuestionRating")
        open_q.resolved = True
        return Resolution(open_q.question.id, open_q.question.reference_answer, len(open_q.hints))

    def save_rating(
        self,
        question_id: str,
        proposed_score: float,
        reasoning: str,
        now: datetime,
        *,
        correct: bool = True,
        good: str = "",
        missing: str = "",
        tip: str = "",
    ) -> tuple[Rating, Feedback]:
        """Tool saveQuestionRating: clamp the proposal into the band of the counted hints (band 1-3 when resolved,
        or when the answer was not correct, which resolves the question), save the rating, close the question.
        Returns the rating and the feedback in its fixed structure."""
        open_q = self._open(question_id)
        if not correct and not open_q.resolved:
            open_q.resolved = True
        hints = len(open_q.hints)
        band = band_for(hints, resolved=open_q.resolved)
        score = clamp_score(proposed_score, band)
        q = open_q.question
        rating = Rating(
            session_id=self.session_id,
            course=self.course,
            learner=self.learner,
            question_id=q.id,
            question=q.question,
            score=score,
            proposed_score=float(proposed_score),
            band=str(band),
            reasoning=reasoning.strip() or "(no reasoning given)",
            hints=tuple(open_q.hints),
            resolved=open_q.resolved,
            rated_at=now,
        )
        self.store.save_rating(rating)
        self.ratings.append(rating)
        self.answered_count += 1
        self.current = None
        self.phase = Phase.READY
        nxt = self.peek_next()
        reason = f"{help_reason(hints, open_q.resolved)} (band {band})"
        if score != clamp_score(proposed_score, ScoreBand(1, 10)):
            reason += f"; proposed {proposed_score:g}, clamped to the band"
        feedback = Feedback(
            score=score,
            reason=reason,
            good=good.strip() or "You stayed with the question.",
            missing=missing.strip() or ("Nothing essential." if not open_q.resolved else "See the reference answer."),
            tip=tip.strip() or f"Reread {q.where()}.",
            transition=transition_text(nxt.question if nxt else None),
        )
        return rating, feedback
