"""Test helpers shipped with the API: a scripted `FakeTutor`, a real uvicorn server in a thread, database resets.

`FakeTutor` is a legitimate stand-in for the swappable tutor: it follows the `Tutor` protocol, returns fixed,
recognisable replies, and records every question with the history it was given.
"""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

from app.llm.base import Usage
from app.tutor.types import Citation, Turn, TutorReply


@dataclass
class FakeTutor:
    course: str
    citations: list[Citation] = field(default_factory=lambda: [Citation("c-1", "notes.pdf", 2, 3)])
    calls: list[tuple[str, list[Turn]]] = field(default_factory=list)

    def answer(self, question: str, *, history: list[Turn] | None = None) -> TutorReply:
        history = list(history or [])
        self.calls.append((question, history))
        level = min(5, 1 + sum(1 for t in history if t.role == "assistant"))
        return TutorReply(
            intent="concept_question",
            reply=f"[{self.course}] What does the material say about: {question}?",
            citations=list(self.citations),
            grounding="material",
            help_level=level,
            mode="grounded",
            usage=Usage(prompt_tokens=12, completion_tokens=7),
            retrieved=[c.chunk_id for c in self.citations],
        )


    def stream(self, question: str, history: list[Turn] | None = None) -> FakeReplyStream:
        """The same reply, in word pieces, with `.reply` set once exhausted (like `TutorService.stream`)."""
        return FakeReplyStream(self.answer(question, history=history))


class FakeReplyStream:
    def __init__(self, reply: TutorReply) -> None:
        self._final = reply
        self._pieces = iter([w + " " for w in reply.reply.split(" ")[:-1]] + [reply.reply.split(" ")[-1]])
        self.reply: TutorReply | None = None

    def __iter__(self) -> FakeReplyStream:
        return self

    def __next__(self) -> str:
        try:
            return next(self._pieces)
        except StopIteration:
            self.reply = self._final
            raise


class FakeTutorFactory:
    """`tutor_factory` for `create_app`: one FakeTutor per course, kept for inspection."""

    def __init__(self) -> None:
        self.tutors: dict[str, FakeTutor] = {}

    def __call__(self, course: str) -> FakeTutor:
        return self.tutors.setdefault(course, FakeTutor(course))


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextmanager
def serve_in_thread(app, *, port: int | None = None, timeout: float = 30.0) -> Iterator[str]:
    """Run `app` under a real uvicorn server on 127.0.0.1 in a background thread; yields the base URL."""
    import uvicorn

    port = port or free_port()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", lifespan="on"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + timeout
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            raise RuntimeError("uvicorn did not start")
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout)


def reset_database(url: str) -> None:
    """Drop every table of the tutor (and Alembic's version table) so a test starts from an empty database."""
    from sqlalchemy import text

    from app.store.db import make_engine
    from app.store.models import Base

    engine = make_engine(url)
    try:
        Base.metadata.drop_all(engine)
        with engine.begin() as conn:
            conn.execute(text("DROP TABLE IF EXISTS alembic_version"))
    finally:
        engine.dispose()


def postgres_test_url() -> str | None:
    """TUTOR_TEST_POSTGRES_URL, also when tests/conftest.py has cleared the TUTOR_* variables of this process."""
    import os
    from pathlib import Path

    url = os.environ.get("TUTOR_TEST_POSTGRES_URL")
    if url:
        return url
    try:  # the environment the process started with
        for item in Path("/proc/self/environ").read_bytes().split(b"\0"):
            if item.startswith(b"TUTOR_TEST_POSTGRES_URL="):
                return item.split(b"=", 1)[1].decode() or None
    except OSError:
        pass
    return None


DB_BACKENDS = ("sqlite", "postgres")


def database_url_for(backend: str, tmp_path) -> str:
    """A fresh, empty database of `backend` for one test; skips postgres when no server is configured."""
    import pytest

    if backend == "sqlite":
        return f"sqlite:///{tmp_path / 'tutor.db'}"
    url = postgres_test_url()
    if not url:
        pytest.skip("PostgreSQL tests need TUTOR_TEST_POSTGRES_URL; `eval \"$(.ci/postgres.sh)\"` starts a server")
    reset_database(url)
    return url
