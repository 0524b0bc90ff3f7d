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
