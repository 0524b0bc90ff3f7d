"""Guided practice over HTTP: the course's question bank, guided sessions, and the teacher view of ratings.

    POST   /v1/courses/{id}/questions             teacher: add or replace questions (JSON list)
    POST   /v1/courses/{id}/questions:generate    teacher: one generated question per learning bite
    GET    /v1/courses/{id}/questions             everyone who sees the course (learners without reference answers)
    DELETE /v1/courses/{id}/questions/{qid}       teacher
    POST   /v1/practice                           start a session: the first question
    POST   /v1/practice/{id}/messages             the learner's message → the tutor's turn
    GET    /v1/practice/{id}                      state, transcript, hints, ratings
    GET    /v1/courses/{id}/ratings?learner=      teacher/admin: each rated question with hints, reasoning, time
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any, Literal

from fastapi import APIRouter, Response, status
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from app.api import practice_runner
from app.api.deps import CurrentUser, DbDep, ServicesDep
from app.api.schemas import utc
from app.errors import PermissionDeniedError, UserError
from app.practice.from_bites import questions_from_bites
from app.practice.questions import Question
from app.practice.store import teacher_view
from app.practice.turns import TutorTurn
from app.store import learning_repo, practice_repo, repo
from app.store.models import PracticeSession, User

router = APIRouter(tags=["practice"])


# ---------------------------------------------------------------- bodies


class QuestionIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: str = Field(min_length=1, max_length=200)
    question: str
    reference_answer: str
    section: str = ""
    source: str = ""
    page_start: int | None = Field(None, ge=1)
    page_end: int | None = Field(None, ge=1)
    key_concept: str = ""
    chunk_ids: list[str] = Field(default_factory=list)


class QuestionOut(BaseModel):
    id: str
    question: str
    reference_answer: str | None = Field(None, description="Hidden from learners.")
    section: str
    source: str
    page_start: int | None
    page_end: int | None
    key_concept: str | None
    chunk_ids: list[str]
    origin: Literal["teacher", "generated"]
    bite: int | None


class Written(BaseModel):
    course: str
    written: int
    ids: list[str]


class PracticeCreate(BaseModel):
    course: str = Field(min_length=1, max_length=64)
    question_ids: list[str] | None = Field(None, description="The fixed list, in order; default: the whole bank.")


class PracticeMessageIn(BaseModel):
    content: str = Field(min_length=1, max_length=20_000)


class HintOut(BaseModel):
    question_id: str
    level: int
    text: str
    trigger: str
    guard: str
    at: datetime


class RatingOut(BaseModel):
    question_id: str
    question: str
    score: int
    proposed_score: float
    band: str
    quality: int
    reasoning: str
    resolved: bool
    hints_given: int
    hints: list[HintOut]
    rated_at: datetime


class TurnOut(BaseModel):
    kind: Literal["question", "hint", "feedback", "resolution", "end", "message"] = Field(
        description="question: a new question; hint: a hint on the open one; feedback: the last question was rated "
        "(the next follows in the text); resolution: the answer was revealed and rated; end: no question is left")
    text: str
    question_id: str | None
    question: str | None
    hint: HintOut | None
    rating: RatingOut | None
    revealed_answer: str | None
    finished: bool
    schedule_updates: list[dict[str, Any]]


class PracticeOut(BaseModel):
    id: str
    course: str
    learner: str
    mode: Literal["grounded", "agent"]
    finished: bool
    questions: list[str]
    answered: int
    current_question: str | None
    created: datetime
    last_active: datetime
    turn: TurnOut | None = None


class TranscriptLine(BaseModel):
    seq: int
    role: str
    content: str
    question_id: str | None
    created: datetime


class PracticeDetail(PracticeOut):
    messages: list[TranscriptLine]
    hints: list[HintOut]
    ratings: list[RatingOut]


class TeacherRow(BaseModel):
    learner: str
    session_id: str
    question_id: str
    question: str
    score: int
    quality: int
    band: str
    hints_given: int
    hints: list[dict[str, Any]]
    resolved: bool
    reasoning: str
    asked_at: datetime | None
    rated_at: datetime
    time_seconds: float | None


# ---------------------------------------------------------------- helpers


def _question_out(row, *, hide_answer: bool) -> QuestionOut:
    return QuestionOut(
        id=row.qid, question=row.question, reference_answer=None if hide_answer else row.reference_answer,
        section=row.section, source=row.source, page_start=row.page_start, page_end=row.page_end,
        key_concept=None if hide_answer else row.key_concept, chunk_ids=list(row.chunk_ids or []),
        origin=row.origin, bite=row.bite_number,
    )


def _hint_out(h) -> HintOut:
    return HintOut(question_id=h.question_id, level=h.level, text=h.text, trigger=h.trigger, guard=h.guard,
                   at=utc(h.at))


def _rating_out(r) -> RatingOut:
    return RatingOut(
        question_id=r.question_id, question=r.question, score=r.score, proposed_score=r.proposed_score, band=r.band,
        quality=r.quality, reasoning=r.reasoning, resolved=r.resolved, hints_given=r.hints_given,
        hints=[_hint_out(h) for h in r.hints], rated_at=utc(r.rated_at),
    )


def _turn_kind(turn: TutorTurn) -> str:
    if turn.revealed_answer is not None and turn.rating is not None:
        return "resolution"
    if turn.rating is not None:
        return "feedback"
    if turn.hint is not None:
        return "hint"
    if turn.finished:
        return "end"
    return "question" if turn.question_id else "message"


def _turn_out(turn: TutorTurn, updates: list[dict[str, Any]]) -> TurnOut:
    return TurnOut(
        kind=_turn_kind(turn),  # type: ignore[arg-type]
        text=turn.text, question_id=turn.question_id, question=turn.question,
        hint=_hint_out(turn.hint) if turn.hint else None, rating=_rating_out(turn.rating) if turn.rating else None,
        revealed_answer=turn.revealed_answer, finished=turn.finished, schedule_updates=updates,
    )


def _practice_out(db, row: PracticeSession) -> PracticeOut:
    learner = db.get(User, row.user_id)
    state = (row.state or {}).get("session") or {}
    return PracticeOut(
        id=row.id, course=row.course_id, learner=learner.name if learner else "?",
        mode=row.mode,  # type: ignore[arg-type]
        finished=row.finished, questions=[q["id"] for q in row.questions], answered=int(state.get("answered", 0)),
        current_question=(state.get("current") or {}).get("question_id"), created=utc(row.created),
        last_active=utc(row.last_active),
    )


# ---------------------------------------------------------------- question bank


@router.post("/v1/courses/{course_id}/questions", response_model=Written, status_code=status.HTTP_201_CREATED)
def add_questions(
    course_id: str, body: list[QuestionIn], db: DbDep, services: ServicesDep, user: CurrentUser
) -> Written:
    """Add questions to the bank (an existing id is replaced). Each must stand on its own and have an answer."""
    course = repo.managed_course(db, user, course_id)
    questions = []
    for i, q in enumerate(body):
        try:
            questions.append(Question.model_validate({**q.model_dump(), "course": course.id}))
        except ValidationError as e:
            problems = "; ".join(f"{'.'.join(map(str, x['loc']))}: {x['msg'].removeprefix('Value error, ')}"
                                 for x in e.errors())
            raise UserError(f"question {i + 1} ({q.id!r}) is invalid: {problems}") from None
    if len({q.id for q in questions}) != len(questions):
        raise UserError("the list has duplicate question ids", hint="each id may appear once")
    practice_repo.put_questions(db, course.id, questions, now=services.clock(), origin="teacher")
    db.commit()
    return Written(course=course.id, written=len(questions), ids=[q.id for q in questions])


@router.post("/v1/courses/{course_id}/questions:generate", response_model=Written, status_code=status.HTTP_201_CREATED)
def generate_questions(course_id: str, db: DbDep, services: ServicesDep, user: CurrentUser) -> Written:
    """One question per learning bite, made from the bite's text without a model (`app.practice.from_bites`)."""
    course = repo.managed_course(db, user, course_id)
    bites = learning_repo.list_bites(db, course.id)
    if not bites:
        raise UserError(f"course {course.id!r} has no learning bites yet",
                        hint=f"build them first: POST /v1/courses/{course.id}/bites:build")
    questions = questions_from_bites(bites, course.id)
    practice_repo.put_questions(db, course.id, questions, now=services.clock(), origin="generated",
                                bite_numbers=[b.id for b in bites])
    db.commit()
    return Written(course=course.id, written=len(questions), ids=[q.id for q in questions])


@router.get("/v1/courses/{course_id}/questions", response_model=list[QuestionOut])
def list_questions(course_id: str, db: DbDep, user: CurrentUser,
                   origin: Literal["teacher", "generated"] | None = None) -> list[QuestionOut]:
    course = repo.visible_course(db, user, course_id)
    hide = user.role == "learner"
    return [_question_out(r, hide_answer=hide) for r in practice_repo.question_rows(db, course.id, origin=origin)]


@router.delete("/v1/courses/{course_id}/questions/{qid}", status_code=status.HTTP_204_NO_CONTENT)
def delete_question(course_id: str, qid: str, db: DbDep, user: CurrentUser) -> Response:
    course = repo.managed_course(db, user, course_id)
    practice_repo.delete_question(db, course.id, qid)
    db.commit()
    return Response(status_code=status.HTTP_204_NO_CONTENT)


# ---------------------------------------------------------------- sessions


@router.post("/v1/practice", response_model=PracticeOut, status_code=status.HTTP_201_CREATED)
def start_practice(body: PracticeCreate, db: DbDep, services: ServicesDep, user: CurrentUser) -> PracticeOut:
    """Start a guided session over the course's questions (or `question_ids`, in that order): the first question."""
    course = repo.visible_course(db, user, body.course)
    built, turn = practice_runner.start(services, db, course.id, user, body.question_ids)
    db.commit()
    return _practice_out(db, built.row).model_copy(update={"turn": _turn_out(turn, built.schedule_updates)})


@router.post("/v1/practice/{session_id}/messages", response_model=PracticeOut)
def practice_message(session_id: str, body: PracticeMessageIn, db: DbDep, services: ServicesDep,
                     user: CurrentUser) -> PracticeOut:
    """The learner's message (an answer, a hint request, giving up) → the tutor's turn, stored before it returns."""
    row = practice_repo.own_session(db, user, session_id)
    built, turn = practice_runner.respond(services, db, row, user, body.content)
    db.commit()
    return _practice_out(db, built.row).model_copy(update={"turn": _turn_out(turn, built.schedule_updates)})


@router.get("/v1/practice/{session_id}", response_model=PracticeDetail)
def read_practice(session_id: str, db: DbDep, user: CurrentUser) -> PracticeDetail:
    row = practice_repo.visible_session(db, user, session_id)
    return PracticeDetail(
        **_practice_out(db, row).model_dump(),
        messages=[TranscriptLine(seq=m.seq, role=m.role, content=m.content, question_id=m.question_id,
                                 created=utc(m.created)) for m in practice_repo.session_messages(db, row.id)],
        hints=[_hint_out(h) for h in practice_repo.session_hints(db, row.id)],
        ratings=[_rating_out(r) for r, _ in practice_repo.session_ratings(db, row)],
    )


# ---------------------------------------------------------------- teacher view


def teacher_rows(db, course: str, learner: str | None) -> list[TeacherRow]:
    """`app.practice.store.teacher_view` over the database, with when each question was asked and the time taken."""
    pairs = practice_repo.rating_rows(db, course, learner)
    extra = {(r.session_id, r.question_id): row for r, row in pairs}
    store = practice_repo.SqlPracticeStore(db, now=lambda: datetime.now(UTC))  # read-only here
    out = []
    for v in teacher_view(store, course, learner):
        row = extra[(v.session_id, v.question_id)]
        out.append(TeacherRow(
            **v.model_dump(exclude={"hints"}), hints=[h.model_dump(mode="json") for h in v.hints],
            asked_at=utc(row.asked_at) if row.asked_at else None, time_seconds=practice_repo.time_spent_seconds(row),
        ))
    return out


@router.get("/v1/courses/{course_id}/ratings", response_model=list[TeacherRow])
def list_ratings(course_id: str, db: DbDep, user: CurrentUser, learner: str | None = None) -> list[TeacherRow]:
    """Every rated question of the course (optionally one learner's): score, hints with texts, reasoning, time."""
    course = repo.visible_course(db, user, course_id)
    if user.role == "learner":
        raise PermissionDeniedError("only the course's teacher and admins read ratings",
                                    hint="your own ratings are in GET /v1/practice/{id}")
    return teacher_rows(db, course.id, learner)
