"""The service's tables: users and their API tokens, course ownership and enrolment, ingestion jobs, and tutoring
sessions with every message and tool call as it happened.

Course *content* (chunks, embeddings) stays in the course index files (`indexing.store`); the database holds who
may see a course and what happened in it. Timestamps are timezone-aware UTC, always passed in by the caller.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from sqlalchemy import JSON, DateTime, Float, ForeignKey, Integer, String, Text, UniqueConstraint
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column, relationship

Role = Literal["admin", "teacher", "learner"]
ROLES: tuple[str, ...] = ("admin", "teacher", "learner")
JobStatus = Literal["queued", "running", "succeeded", "failed"]


class Base(DeclarativeBase):
    type_annotation_map = {datetime: DateTime(timezone=True), dict[str, Any]: JSON, list[Any]: JSON}


class User(Base):
    __tablename__ = "users"

    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str] = mapped_column(String(64), unique=True)
    role: Mapped[str] = mapped_column(String(16))
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)  # sha256 hex of the bearer token
    created: Mapped[datetime]


class Course(Base):
    __tablename__ = "courses"

    id: Mapped[str] = mapped_column(String(64), primary_key=True)  # the course id of the index on disk
    title: Mapped[str] = mapped_column(String(200))
    owner_id: Mapped[int | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))
    created: Mapped[datetime]


class Enrollment(Base):
    __tablename__ = "enrollments"

    course_id: Mapped[str] = mapped_column(ForeignKey("courses.id", ondelete="CASCADE"), primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), primary_key=True)
    created: Mapped[datetime]


class Job(Base):
    """One uploaded file on its way into a course index."""

    __tablename__ = "jobs"

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    course_id: Mapped[str] = mapped_column(ForeignKey("courses.id", ondelete="CASCADE"), index=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    filename: Mapped[str] = mapped_column(String(255))
    status: Mapped[str] = mapped_column(String(16))
    progress: Mapped[float] = mapped_column(Float, default=0.0)
    reason: Mapped[str | None] = mapped_column(Text)
    chunks: Mapped[int] = mapped_column(Integer, default=0)
    created: Mapped[datetime]
    updated: Mapped[datetime]


class ChatSession(Base):
    __tablename__ = "sessions"

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    course_id: Mapped[str] = mapped_column(ForeignKey("courses.id", ondelete="CASCADE"), index=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    created: Mapped[datetime]
    last_active: Mapped[datetime]

    messages: Mapped[list[SessionMessage]] = relationship(order_by="SessionMessage.seq", lazy="selectin")
    tool_calls: Mapped[list[ToolCallRecord]] = relationship(order_by="ToolCallRecord.id", lazy="selectin")


class SessionMessage(Base):
    __tablename__ = "messages"
    __table_args__ = (UniqueConstraint("session_id", "seq"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    session_id: Mapped[str] = mapped_column(ForeignKey("sessions.id", ondelete="CASCADE"), index=True)
    seq: Mapped[int]  # 1-based position in the conversation
    role: Mapped[str] = mapped_column(String(16))  # user | assistant
    content: Mapped[str] = mapped_column(Text)
    intent: Mapped[str | None] = mapped_column(String(64))
    help_level: Mapped[int | None]
    grounding: Mapped[str | None] = mapped_column(String(32))
    mode: Mapped[str | None] = mapped_column(String(16))
    citations: Mapped[list[Any]] = mapped_column(default=list)
    prompt_tokens: Mapped[int] = mapped_column(default=0)
    completion_tokens: Mapped[int] = mapped_column(default=0)
    cached_prompt_tokens: Mapped[int] = mapped_column(default=0)
    latency_ms: Mapped[float | None]
    created: Mapped[datetime]


class ToolCallRecord(Base):
    """A call the tutor made on the learner's behalf (the tutor itself, retrieval, the model), with its duration."""

    __tablename__ = "tool_calls"

    id: Mapped[int] = mapped_column(primary_key=True)
    session_id: Mapped[str] = mapped_column(ForeignKey("sessions.id", ondelete="CASCADE"), index=True)
    message_seq: Mapped[int]  # the assistant message it produced
    name: Mapped[str] = mapped_column(String(64))
    arguments: Mapped[dict[str, Any]] = mapped_column(default=dict)
    result: Mapped[dict[str, Any]] = mapped_column(default=dict)
    duration_ms: Mapped[float]
    ok: Mapped[bool] = mapped_column(default=True)
    created: Mapped[datetime]


# ---------------------------------------------------------------- guided practice (migration 0002)


class PracticeQuestion(Base):
    """One question of a course's bank: teacher-authored (`origin` 'teacher') or made from a bite ('generated')."""

    __tablename__ = "practice_questions"
    __table_args__ = (UniqueConstraint("course_id", "qid"),)

    id: Mapped[int] = mapped_column(primary_key=True)  # insertion order = bank order
    course_id: Mapped[str] = mapped_column(ForeignKey("courses.id", ondelete="CASCADE"), index=True)
    qid: Mapped[str] = mapped_column(String(200))  # the question's id within the course
    question: Mapped[str] = mapped_column(Text)
    reference_answer: Mapped[str] = mapped_column(Text)
    section: Mapped[str] = mapped_column(String(300), default="")
    source: Mapped[str] = mapped_column(String(255), default="")
    page_start: Mapped[int | None]
    page_end: Mapped[int | None]
    key_concept: Mapped[str] = mapped_column(String(300), default="")
    chunk_ids: Mapped[list[Any]] = mapped_column(default=list)
    origin: Mapped[str] = mapped_column(String(16), default="teacher")  # teacher | generated
    bite_number: Mapped[int | None]  # the bite a generated question was made from
    created: Mapped[datetime]


class PracticeSession(Base):
    """A guided session: its fixed question list (a snapshot), the mode, and the state to rebuild it after a
    restart (`state`: GuidedSession.to_state(); `agent_messages`: the model conversation in agent mode)."""

    __tablename__ = "practice_sessions"

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    course_id: Mapped[str] = mapped_column(ForeignKey("courses.id", ondelete="CASCADE"), index=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    mode: Mapped[str] = mapped_column(String(16))  # grounded | agent
    questions: Mapped[list[Any]] = mapped_column(default=list)  # Question.model_dump() snapshots, in order
    state: Mapped[dict[str, Any]] = mapped_column(default=dict)
    agent_messages: Mapped[list[Any]] = mapped_column(default=list)
    finished: Mapped[bool] = mapped_column(default=False)
    created: Mapped[datetime]
    last_active: Mapped[datetime]


class PracticeMessage(Base):
    """The transcript of a guided session: what the learner wrote and what the tutor showed."""

    __tablename__ = "practice_messages"
    __table_args__ = (UniqueConstraint("session_id", "seq"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    session_id: Mapped[str] = mapped_column(ForeignKey("practice_sessions.id", ondelete="CASCADE"), index=True)
    seq: Mapped[int]
    role: Mapped[str] = mapped_column(String(16))  # user | assistant
    content: Mapped[str] = mapped_column(Text)
    question_id: Mapped[str | None] = mapped_column(String(200))
    tool_calls: Mapped[list[Any]] = mapped_column(default=list)
    created: Mapped[datetime]


class PracticeHint(Base):
    """One hint event (level 1..5) as the learner saw it after the leak guard."""

    __tablename__ = "practice_hints"
    __table_args__ = (UniqueConstraint("session_id", "question_id", "level"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    session_id: Mapped[str] = mapped_column(ForeignKey("practice_sessions.id", ondelete="CASCADE"), index=True)
    question_id: Mapped[str] = mapped_column(String(200))
    level: Mapped[int]
    text: Mapped[str] = mapped_column(Text)
    trigger: Mapped[str] = mapped_column(String(16))
    guard: Mapped[str] = mapped_column(String(32), default="ok")
    at: Mapped[datetime]


class PracticeRating(Base):
    """The saved rating of one question in one session; `hints` copies the hint events it counted."""

    __tablename__ = "practice_ratings"
    __table_args__ = (UniqueConstraint("session_id", "question_id"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    session_id: Mapped[str] = mapped_column(ForeignKey("practice_sessions.id", ondelete="CASCADE"), index=True)
    course_id: Mapped[str] = mapped_column(ForeignKey("courses.id", ondelete="CASCADE"), index=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    question_id: Mapped[str] = mapped_column(String(200))
    question: Mapped[str] = mapped_column(Text)
    score: Mapped[int]
    proposed_score: Mapped[float]
    band: Mapped[str] = mapped_column(String(8))
    reasoning: Mapped[str] = mapped_column(Text)
    hints: Mapped[list[Any]] = mapped_column(default=list)
    resolved: Mapped[bool] = mapped_column(default=False)
    asked_at: Mapped[datetime | None]
    rated_at: Mapped[datetime]


# ---------------------------------------------------------------- learning engine (migration 0002)


class LearningSettings(Base):
    """Per-course settings of the learning engine: which scheduler ('sm2' or 'fsrs')."""

    __tablename__ = "learning_settings"

    course_id: Mapped[str] = mapped_column(ForeignKey("courses.id", ondelete="CASCADE"), primary_key=True)
    scheduler: Mapped[str] = mapped_column(String(16), default="sm2")
    updated: Mapped[datetime]


class BiteRecord(Base):
    """A learning bite of a course; `number` is the bite id of `app.learning.bites.LearningBite` (course order)."""

    __tablename__ = "bites"
    __table_args__ = (UniqueConstraint("course_id", "number"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    course_id: Mapped[str] = mapped_column(ForeignKey("courses.id", ondelete="CASCADE"), index=True)
    number: Mapped[int]
    title: Mapped[str] = mapped_column(Text)
    content: Mapped[str] = mapped_column(Text)
    difficulty: Mapped[int]
    prerequisites: Mapped[list[Any]] = mapped_column(default=list)
    source_pages: Mapped[list[Any]] = mapped_column(default=list)
    source: Mapped[str] = mapped_column(String(255), default="")
    section: Mapped[str] = mapped_column(String(300), default="")
    chunk_ids: Mapped[list[Any]] = mapped_column(default=list)
    difficulty_reason: Mapped[str] = mapped_column(Text, default="")
    created: Mapped[datetime]


class ExerciseRecord(Base):
    """A saved exercise (validated by `app.learning.exercises.validate_exercise`) of one bite."""

    __tablename__ = "exercises"

    id: Mapped[int] = mapped_column(primary_key=True)
    course_id: Mapped[str] = mapped_column(ForeignKey("courses.id", ondelete="CASCADE"), index=True)
    bite_id: Mapped[int] = mapped_column(ForeignKey("bites.id", ondelete="CASCADE"), index=True)
    type: Mapped[str] = mapped_column(String(32))
    data: Mapped[dict[str, Any]] = mapped_column(default=dict)
    created_by: Mapped[int | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))
    created: Mapped[datetime]


class ScheduleRecord(Base):
    """One learner's schedule state for one bite, as the course's scheduler wrote it (`state`: to_dict())."""

    __tablename__ = "schedules"

    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), primary_key=True)
    bite_id: Mapped[int] = mapped_column(ForeignKey("bites.id", ondelete="CASCADE"), primary_key=True)
    course_id: Mapped[str] = mapped_column(ForeignKey("courses.id", ondelete="CASCADE"), index=True)
    scheduler: Mapped[str] = mapped_column(String(16))
    state: Mapped[dict[str, Any]] = mapped_column(default=dict)
    updated: Mapped[datetime]


class ReviewRecord(Base):
    """Every review that moved a schedule: from an exercise answer or a guided-practice rating."""

    __tablename__ = "reviews"

    id: Mapped[int] = mapped_column(primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    bite_id: Mapped[int] = mapped_column(ForeignKey("bites.id", ondelete="CASCADE"), index=True)
    course_id: Mapped[str] = mapped_column(ForeignKey("courses.id", ondelete="CASCADE"), index=True)
    quality: Mapped[int]
    origin: Mapped[str] = mapped_column(String(16))  # exercise | practice
    ref: Mapped[str] = mapped_column(String(64))  # answer id or practice rating id
    state_after: Mapped[dict[str, Any]] = mapped_column(default=dict)
    at: Mapped[datetime]


class AnswerRecord(Base):
    """A learner's answer to an exercise, with the grade it got."""

    __tablename__ = "answers"

    id: Mapped[int] = mapped_column(primary_key=True)
    exercise_id: Mapped[int] = mapped_column(ForeignKey("exercises.id", ondelete="CASCADE"), index=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    answer: Mapped[str] = mapped_column(Text)
    quality: Mapped[int]
    is_correct: Mapped[bool]
    feedback: Mapped[str] = mapped_column(Text)
    grader: Mapped[str] = mapped_column(String(32))
    created: Mapped[datetime]
