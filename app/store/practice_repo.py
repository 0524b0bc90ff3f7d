"""Guided practice in the database: the question bank, sessions with their transcript, hint events and ratings.

`SqlPracticeStore` implements `app.practice.store.PracticeStore` (plus `save_hint`, which `GuidedSession.give_hint`
calls for every hint), so the domain code writes hint events and ratings straight into the caller's transaction;
the API commits once per turn, so a turn is stored whole or not at all. Access rules follow `app.store.repo`:

    question bank   the course's teacher and admins write; everyone who sees the course may list it
    sessions        their learner, the course's teacher and admins read; only the learner continues
    ratings         the course's teacher and admins (the teacher view); never other teachers
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import delete, func, select
from sqlalchemy.orm import Session

from app.errors import NotFoundError, PermissionDeniedError, UserError
from app.practice.questions import Question
from app.practice.store import HintEvent, Rating
from app.store.models import (
    Course,
    PracticeHint,
    PracticeMessage,
    PracticeQuestion,
    PracticeRating,
    PracticeSession,
    User,
)
from app.store.repo import check_text

_HEX_ID = re.compile(r"^[0-9a-f]{32}$")


def _utc(dt: datetime) -> datetime:
    """SQLite hands back naive datetimes; everything stored is UTC."""
    return dt if dt.tzinfo else dt.replace(tzinfo=UTC)


# ---------------------------------------------------------------- question bank


def question_of(row: PracticeQuestion) -> Question:
    return Question(
        id=row.qid, course=row.course_id, question=row.question, reference_answer=row.reference_answer,
        section=row.section or "", source=row.source or "", page_start=row.page_start, page_end=row.page_end,
        key_concept=row.key_concept or "", chunk_ids=tuple(row.chunk_ids or ()),
    )


def put_questions(
    db: Session, course: str, questions: Sequence[Question], *, now: datetime, origin: str = "teacher",
    bite_numbers: Sequence[int | None] | None = None,
) -> int:
    """Insert or replace questions of `course` by id (a replaced question keeps its place in the bank)."""
    if origin not in ("teacher", "generated"):
        raise UserError(f"unknown question origin {origin!r}")
    for i, q in enumerate(questions):
        for value, what in ((q.id, "the id"), (q.question, "the question"), (q.reference_answer, "the answer")):
            check_text(value, what)
        row = db.scalar(select(PracticeQuestion).where(PracticeQuestion.course_id == course,
                                                       PracticeQuestion.qid == q.id))
        if row is None:
            row = PracticeQuestion(course_id=course, qid=q.id, created=now)
            db.add(row)
        row.question, row.reference_answer = q.question, q.reference_answer
        row.section, row.source, row.key_concept = q.section, q.source, q.key_concept
        row.page_start, row.page_end, row.chunk_ids = q.page_start, q.page_end, list(q.chunk_ids)
        row.origin = origin
        row.bite_number = bite_numbers[i] if bite_numbers is not None else None
    db.flush()
    return len(questions)


def question_rows(db: Session, course: str, *, origin: str | None = None) -> list[PracticeQuestion]:
    q = select(PracticeQuestion).where(PracticeQuestion.course_id == course)
    if origin is not None:
        q = q.where(PracticeQuestion.origin == origin)
    return list(db.scalars(q.order_by(PracticeQuestion.id)))


def get_questions(db: Session, course: str, ids: Sequence[str] | None = None) -> list[Question]:
    """The bank in order, or `ids` in the given order; NotFoundError naming unknown ids."""
    bank = {r.qid: question_of(r) for r in question_rows(db, course)}
    if ids is None:
        return list(bank.values())
    unknown = [i for i in ids if i not in bank]
    if unknown:
        raise NotFoundError(f"course {course!r} has no question(s) {', '.join(unknown)}",
                            hint=f"GET /v1/courses/{course}/questions lists the bank")
    return [bank[i] for i in ids]


def delete_question(db: Session, course: str, qid: str) -> None:
    n = db.execute(delete(PracticeQuestion).where(PracticeQuestion.course_id == course,
                                                  PracticeQuestion.qid == qid)).rowcount
    if not n:
        raise NotFoundError(f"course {course!r} has no question {qid!r}")
    db.flush()


# ---------------------------------------------------------------- the PracticeStore over the database


def _hint_of(row: PracticeHint) -> HintEvent:
    return HintEvent(question_id=row.question_id, level=row.level, text=row.text,
                     trigger=row.trigger,  # type: ignore[arg-type]
                     guard=row.guard, at=_utc(row.at))


def _rating_of(row: PracticeRating, learner: str) -> Rating:
    return Rating(
        session_id=row.session_id, course=row.course_id, learner=learner, question_id=row.question_id,
        question=row.question, score=row.score, proposed_score=row.proposed_score, band=row.band,
        reasoning=row.reasoning, hints=tuple(HintEvent.model_validate(h) for h in row.hints or ()),
        resolved=row.resolved, rated_at=_utc(row.rated_at),
    )


class SqlPracticeStore:
    """`PracticeStore` on a SQLAlchemy session; the caller commits. `asked_at(question_id)` gives the time a
    question was asked, stored with its rating (the teacher view shows how long it took)."""

    def __init__(self, db: Session, *, now: Callable[[], datetime],
                 asked_at: Callable[[str], datetime | None] = lambda _qid: None) -> None:
        self.db = db
        self.now = now
        self.asked_at = asked_at
        self.saved: list[tuple[Rating, int]] = []  # ratings written through this store, with their row ids

    def put_questions(self, course: str, questions: Sequence[Question]) -> int:
        return put_questions(self.db, course, questions, now=self.now())

    def get_questions(self, course: str, ids: Sequence[str] | None = None) -> list[Question]:
        return get_questions(self.db, course, ids)

    def save_hint(self, session_id: str, event: HintEvent) -> None:
        self.db.add(PracticeHint(session_id=session_id, question_id=event.question_id, level=event.level,
                                 text=event.text, trigger=event.trigger, guard=event.guard, at=event.at))
        self.db.flush()

    def save_rating(self, rating: Rating) -> None:
        user = self.db.scalar(select(User).where(User.name == rating.learner))
        if user is None:
            raise NotFoundError(f"unknown learner {rating.learner!r}")
        exists = self.db.scalar(select(PracticeRating.id).where(PracticeRating.session_id == rating.session_id,
                                                                PracticeRating.question_id == rating.question_id))
        if exists is not None:
            raise ValueError(f"question {rating.question_id!r} is already rated in session {rating.session_id!r}")
        row = PracticeRating(
            session_id=rating.session_id, course_id=rating.course, user_id=user.id, question_id=rating.question_id,
            question=rating.question, score=rating.score, proposed_score=rating.proposed_score, band=rating.band,
            reasoning=rating.reasoning, hints=[h.model_dump(mode="json") for h in rating.hints],
            resolved=rating.resolved, asked_at=self.asked_at(rating.question_id), rated_at=rating.rated_at,
        )
        self.db.add(row)
        self.db.flush()
        self.saved.append((rating, row.id))

    def list_ratings(self, course: str, learner: str | None = None) -> list[Rating]:
        return [r for r, _row in rating_rows(self.db, course, learner)]


def rating_rows(db: Session, course: str, learner: str | None = None) -> list[tuple[Rating, PracticeRating]]:
    """Ratings of `course` (optionally of one learner by name) in the order they were saved, with their rows."""
    q = (select(PracticeRating, User.name).join(User, User.id == PracticeRating.user_id)
         .where(PracticeRating.course_id == course))
    if learner is not None:
        q = q.where(User.name == learner)
    return [(_rating_of(row, name), row) for row, name in db.execute(q.order_by(PracticeRating.id))]


def time_spent_seconds(row: PracticeRating) -> float | None:
    """Seconds from asking the question to saving its rating."""
    if row.asked_at is None:
        return None
    return round((_utc(row.rated_at) - _utc(row.asked_at)).total_seconds(), 3)


# ---------------------------------------------------------------- sessions


def create_session(
    db: Session, course: Course, user: User, *, mode: str, questions: Sequence[Question], now: datetime
) -> PracticeSession:
    s = PracticeSession(
        id=uuid.uuid4().hex, course_id=course.id, user_id=user.id, mode=mode,
        questions=[q.model_dump(mode="json") for q in questions], state={}, agent_messages=[], finished=False,
        created=now, last_active=now,
    )
    db.add(s)
    db.flush()
    return s


def session_questions(s: PracticeSession) -> list[Question]:
    return [Question.model_validate(q) for q in s.questions]


def visible_session(db: Session, user: User, session_id: str) -> PracticeSession:
    """A guided session its learner, the course's teacher or an admin may read; 404 for everyone else."""
    s = db.get(PracticeSession, session_id) if _HEX_ID.match(session_id) else None
    if s is not None and user.role != "admin" and s.user_id != user.id:
        course = db.get(Course, s.course_id)
        if not (user.role == "teacher" and course is not None and course.owner_id == user.id):
            s = None
    if s is None:
        raise NotFoundError(f"unknown practice session {session_id!r}", hint="POST /v1/practice starts one")
    return s


def own_session(db: Session, user: User, session_id: str) -> PracticeSession:
    s = visible_session(db, user, session_id)
    if s.user_id != user.id:
        raise PermissionDeniedError("only the session's own learner can answer in it")
    return s


def lock_session(db: Session, s: PracticeSession) -> PracticeSession:
    """Re-read the session row FOR UPDATE (PostgreSQL), so two concurrent messages are handled one after the other."""
    return db.scalars(select(PracticeSession).where(PracticeSession.id == s.id)
                      .with_for_update().execution_options(populate_existing=True)).one()


def session_hints(db: Session, session_id: str) -> list[HintEvent]:
    rows = db.scalars(select(PracticeHint).where(PracticeHint.session_id == session_id).order_by(PracticeHint.id))
    return [_hint_of(r) for r in rows]


def session_hint_count(db: Session, session_id: str, question_id: str) -> int:
    return db.scalar(select(func.count()).select_from(PracticeHint).where(
        PracticeHint.session_id == session_id, PracticeHint.question_id == question_id)) or 0


def session_ratings(db: Session, s: PracticeSession) -> list[tuple[Rating, PracticeRating]]:
    learner = db.get(User, s.user_id)
    rows = db.scalars(select(PracticeRating).where(PracticeRating.session_id == s.id).order_by(PracticeRating.id))
    return [(_rating_of(r, learner.name if learner else "?"), r) for r in rows]


def add_message(
    db: Session, s: PracticeSession, role: str, content: str, *, now: datetime, question_id: str | None = None,
    tool_calls: list[dict[str, Any]] | None = None,
) -> PracticeMessage:
    check_text(content, "the message")
    seq = (db.scalar(select(func.max(PracticeMessage.seq)).where(PracticeMessage.session_id == s.id)) or 0) + 1
    msg = PracticeMessage(session_id=s.id, seq=seq, role=role, content=content, question_id=question_id,
                          tool_calls=tool_calls or [], created=now)
    db.add(msg)
    s.last_active = now
    db.flush()
    return msg


def session_messages(db: Session, session_id: str) -> list[PracticeMessage]:
    return list(db.scalars(select(PracticeMessage).where(PracticeMessage.session_id == session_id)
                           .order_by(PracticeMessage.seq)))
