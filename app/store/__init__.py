"""The service database: SQLAlchemy 2 models, Alembic migrations and repository functions."""

from app.store.db import check_ready, make_engine, session_factory, upgrade
from app.store.models import Base, ChatSession, Course, Enrollment, Job, SessionMessage, ToolCallRecord, User

__all__ = [
    "Base", "ChatSession", "Course", "Enrollment", "Job", "SessionMessage", "ToolCallRecord", "User",
    "check_ready", "make_engine", "session_factory", "upgrade",
]
