"""Repository functions: everything the API and the CLI do with the database, one small function each.

Each function takes the SQLAlchemy `Session` and, when it writes a time, `now`; the caller commits. Access rules
live here too (who may see a course or a session), so the API and the CLI cannot disagree:

    admin    sees and does everything
    teacher  sees the courses they own, their jobs and the sessions held in them
    learner  sees the courses they are enrolled in and only their own sessions
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
import uuid
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from app.errors import NotFoundError, PermissionDeniedError, UserError
from app.store.models import (
    ROLES,
    ChatSession,
    Course,
    Enrollment,
    Job,
    SessionMessage,
    ToolCallRecord,
    User,
)

_HEX_ID = re.compile(r"^[0-9a-f]{32}$")
_COURSE_ID = re.compile(r"^[a-z0-9][a-z0-9_.-]{0,63}$")  # as indexing.store.validate_course_id


def check_text(value: str, what: str) -> str:
    """Text the database can store: PostgreSQL refuses NUL characters, so they are refused here for every backend."""
    if "\x00" in value:
        raise UserError(f"{what} contains a NUL character", hint="remove the \\0 character and send it again")
    return value

# ---------------------------------------------------------------- users and tokens


def hash_token(token: str) -> str:
    """sha256 hex of a bearer token: tokens are 256-bit random, so a fast hash without salt is enough."""
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def new_token() -> str:
    return "tt_" + secrets.token_urlsafe(32)


def create_user(db: Session, name: str, role: str, *, now: datetime, token: str | None = None) -> tuple[User, str]:
    """Create a user; returns it with its bearer token, which is shown once and stored only hashed."""
    name = (name or "").strip()
    if not name or len(name) > 64 or not name.isprintable():
        raise UserError(f"invalid user name {name!r}", hint="use 1-64 characters")
    if role not in ROLES:
        raise UserError(f"unknown role {role!r}", hint=f"use one of {', '.join(ROLES)}")
    if db.scalar(select(User).where(User.name == name)) is not None:
        raise UserError(f"user {name!r} exists already", hint="pick another name")
    token = token or new_token()
    user = User(name=name, role=role, token_hash=hash_token(token), created=now)
    db.add(user)
    db.flush()
    return user, token


def user_by_token(db: Session, token: str) -> User | None:
    """The user holding `token`, or None. The final comparison is constant-time."""
    if "\x00" in token:
        return None
    digest = hash_token(token)
    user = db.scalar(select(User).where(User.token_hash == digest))
    if user is None or not hmac.compare_digest(user.token_hash, digest):
        return None
    return user


def user_by_name(db: Session, name: str) -> User:
    user = None if "\x00" in name else db.scalar(select(User).where(User.name == name))
    if user is None:
        raise NotFoundError(f"unknown user {name!r}", hint="create it with `tutor users add NAME --role ROLE`")
    return user


def list_users(db: Session) -> list[User]:
    return list(db.scalars(select(User).order_by(User.id)))


# ---------------------------------------------------------------- courses


def ensure_course(db: Session, course_id: str, *, title: str | None, now: datetime) -> Course:
    """The course row, created (without an owner) if the course so far exists only on disk."""
    course = db.get(Course, course_id)
    if course is None:
        course = Course(id=course_id, title=title or course_id, owner_id=None, created=now)
        db.add(course)
        db.flush()
    return course


def create_course(db: Session, course_id: str, *, title: str | None, owner: User, now: datetime) -> Course:
    if owner.role not in ("admin", "teacher"):
        raise PermissionDeniedError("only teachers and admins create courses")
    check_text(title or "", "the title")
    if db.get(Course, course_id) is not None:
        raise UserError(f"course {course_id!r} exists already", hint="pick another id")
    course = Course(
        id=course_id, title=title or course_id, owner_id=owner.id if owner.role == "teacher" else None, created=now
    )
    db.add(course)
    db.flush()
    return course


def can_see_course(db: Session, user: User, course: Course) -> bool:
    if user.role == "admin":
        return True
    if user.role == "teacher":
        return course.owner_id == user.id
    return db.get(Enrollment, (course.id, user.id)) is not None


def visible_course(db: Session, user: User, course_id: str) -> Course:
    """The course if `user` may see it; otherwise NotFound, exactly as for a course that does not exist."""
    course = db.get(Course, course_id) if _COURSE_ID.match(course_id) else None
    if course is None or not can_see_course(db, user, course):
        raise NotFoundError(f"unknown course {course_id!r}", hint="GET /v1/courses lists the courses you can use")
    return course


def managed_course(db: Session, user: User, course_id: str) -> Course:
    """A course `user` may change (upload, delete, enrol): 404 if invisible, 403 if visible but read-only."""
    course = visible_course(db, user, course_id)
    if user.role == "learner":
        raise PermissionDeniedError(
            f"learners cannot change course {course_id!r}", hint="ask the course's teacher to upload material"
        )
    return course


def visible_courses(db: Session, user: User) -> list[Course]:
    q = select(Course).order_by(Course.id)
    if user.role == "teacher":
        q = q.where(Course.owner_id == user.id)
    elif user.role == "learner":
        q = q.join(Enrollment, Enrollment.course_id == Course.id).where(Enrollment.user_id == user.id)
    return list(db.scalars(q))


def grant(db: Session, course: Course, user: User, *, now: datetime) -> str:
    """Make a teacher the course's owner or enrol a learner. Returns 'owner' or 'enrolled'."""
    if user.role == "teacher":
        course.owner_id = user.id
        db.flush()
        return "owner"
    if user.role == "learner":
        if db.get(Enrollment, (course.id, user.id)) is None:
            db.add(Enrollment(course_id=course.id, user_id=user.id, created=now))
            db.flush()
        return "enrolled"
    raise UserError(f"{user.name!r} is an admin and sees every course already", hint="grant a teacher or a learner")


# ---------------------------------------------------------------- ingestion jobs


def create_job(db: Session, course: Course, user: User, filename: str, *, now: datetime) -> Job:
    job = Job(
        id=uuid.uuid4().hex, course_id=course.id, user_id=user.id, filename=filename, status="queued",
        progress=0.0, reason=None, chunks=0, created=now, updated=now,
    )
    db.add(job)
    db.flush()
    return job


def update_job(db: Session, job_id: str, *, now: datetime, **fields: Any) -> Job:
    job = db.get(Job, job_id)
    if job is None:
        raise NotFoundError(f"unknown job {job_id!r}")
    for k, v in fields.items():
        setattr(job, k, v)
    job.updated = now
    db.flush()
    return job


def visible_job(db: Session, user: User, job_id: str) -> Job:
    job = db.get(Job, job_id) if _HEX_ID.match(job_id) else None
    if job is None:
        raise NotFoundError(f"unknown job {job_id!r}")
    course = db.get(Course, job.course_id)
    if user.role != "admin" and job.user_id != user.id and not (course and can_see_course(db, user, course)):
        raise NotFoundError(f"unknown job {job_id!r}")
    if user.role == "learner" and job.user_id != user.id:
        raise NotFoundError(f"unknown job {job_id!r}")
    return job


def fail_interrupted_jobs(db: Session, *, now: datetime) -> int:
    """Jobs still queued or running when the process died can never finish: mark them failed with the reason."""
    jobs = list(db.scalars(select(Job).where(Job.status.in_(("queued", "running")))))
    for job in jobs:
        job.status, job.reason, job.updated = "failed", "interrupted by a server restart; upload the file again", now
    db.flush()
    return len(jobs)


# ---------------------------------------------------------------- tutoring sessions


def create_session(db: Session, course: Course, user: User, *, now: datetime) -> ChatSession:
    s = ChatSession(id=uuid.uuid4().hex, course_id=course.id, user_id=user.id, created=now, last_active=now)
    db.add(s)
    db.flush()
    return s


def visible_session(db: Session, user: User, session_id: str) -> ChatSession:
    """A session its learner, the course's teacher or an admin may read; 404 for everyone else."""
    s = db.get(ChatSession, session_id) if _HEX_ID.match(session_id) else None
    if s is not None and user.role != "admin" and s.user_id != user.id:
        course = db.get(Course, s.course_id)
        if not (user.role == "teacher" and course is not None and course.owner_id == user.id):
            s = None
    if s is None:
        raise NotFoundError(f"unknown session {session_id!r}", hint="POST /v1/sessions starts one")
    return s


def own_session(db: Session, user: User, session_id: str) -> ChatSession:
    """A session `user` may continue: only its own learner (others who may read it get 403)."""
    s = visible_session(db, user, session_id)
    if s.user_id != user.id:
        raise PermissionDeniedError("only the session's own learner can continue it")
    return s


def is_expired(s: ChatSession, *, now: datetime, idle: timedelta) -> bool:
    last = s.last_active if s.last_active.tzinfo else s.last_active.replace(tzinfo=now.tzinfo)
    return now - last > idle


def _next_seq(db: Session, session_id: str) -> int:
    return (db.scalar(select(func.max(SessionMessage.seq)).where(SessionMessage.session_id == session_id)) or 0) + 1


def add_message(db: Session, s: ChatSession, role: str, content: str, *, now: datetime, **extra: Any) -> SessionMessage:
    """Append a message (its position is the next free `seq`) and mark the session active."""
    check_text(content, "the message")
    for attempt in range(3):
        msg = SessionMessage(session_id=s.id, seq=_next_seq(db, s.id), role=role, content=content, created=now, **extra)
        try:
            with db.begin_nested():
                db.add(msg)
        except IntegrityError:  # a concurrent writer took the seq; take the next one
            if attempt == 2:
                raise
            continue
        break
    s.last_active = now
    db.flush()
    return msg


def add_tool_call(
    db: Session, s: ChatSession, *, message_seq: int, name: str, arguments: dict, result: dict, duration_ms: float,
    ok: bool, now: datetime,
) -> ToolCallRecord:
    rec = ToolCallRecord(
        session_id=s.id, message_seq=message_seq, name=name, arguments=arguments, result=result,
        duration_ms=round(duration_ms, 3), ok=ok, created=now,
    )
    db.add(rec)
    db.flush()
    return rec


def session_messages(db: Session, session_id: str) -> list[SessionMessage]:
    return list(db.scalars(select(SessionMessage).where(SessionMessage.session_id == session_id).order_by(SessionMessage.seq)))


def session_tool_calls(db: Session, session_id: str) -> list[ToolCallRecord]:
    return list(db.scalars(select(ToolCallRecord).where(ToolCallRecord.session_id == session_id).order_by(ToolCallRecord.id)))
