"""The repository functions on SQLite and PostgreSQL: tokens, access rules, jobs, sessions, migrations."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import inspect

from app.api.testing import DB_BACKENDS, database_url_for
from app.errors import NotFoundError, PermissionDeniedError, UserError
from app.store import db as store_db
from app.store import repo

T0 = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)


@pytest.fixture(params=DB_BACKENDS)
def db_url(request, tmp_path) -> str:
    return database_url_for(request.param, tmp_path)


@pytest.fixture
def db(db_url):
    store_db.upgrade(db_url)
    engine = store_db.make_engine(db_url)
    with store_db.session_factory(engine)() as session:
        yield session
    engine.dispose()


def test_migration_creates_every_table_and_is_current(db_url):
    store_db.upgrade(db_url)
    store_db.upgrade(db_url)  # idempotent
    engine = store_db.make_engine(db_url)
    assert set(inspect(engine).get_table_names()) >= {
        "users", "courses", "enrollments", "jobs", "sessions", "messages", "tool_calls", "alembic_version"
    }
    assert store_db.check_ready(engine) == {"database": "ok", "revision": store_db.head_revision(), "head": store_db.head_revision(), "ready": True}
    engine.dispose()


def test_sqlite_runs_in_wal_mode(tmp_path):
    engine = store_db.make_engine(f"sqlite:///{tmp_path / 'x.db'}")
    with engine.connect() as conn:
        assert conn.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"
        assert conn.exec_driver_sql("PRAGMA foreign_keys").scalar() == 1
    engine.dispose()


def test_postgres_urls_use_psycopg3():
    assert store_db.normalise_url("postgresql://u:p@h/d") == "postgresql+psycopg://u:p@h/d"
    assert store_db.normalise_url("postgres://u@h/d") == "postgresql+psycopg://u@h/d"
    assert store_db.normalise_url("sqlite:///x.db") == "sqlite:///x.db"


def test_tokens_are_stored_hashed_and_found_again(db):
    user, token = repo.create_user(db, "ada", "learner", now=T0, token="tt_secret")
    db.commit()
    assert user.token_hash == repo.hash_token("tt_secret")
    assert "tt_secret" not in user.token_hash
    assert repo.user_by_token(db, "tt_secret").name == "ada"
    assert repo.user_by_token(db, "tt_wrong") is None
    _, generated = repo.create_user(db, "bob", "teacher", now=T0)
    assert generated.startswith("tt_") and len(generated) > 40


def test_hash_token_is_sha256_hex():
    # sha256("abc") from FIPS 180-2, appendix B.1
    assert repo.hash_token("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"


def test_user_validation(db):
    repo.create_user(db, "ada", "learner", now=T0)
    with pytest.raises(UserError, match="exists already"):
        repo.create_user(db, "ada", "teacher", now=T0)
    with pytest.raises(UserError, match="unknown role"):
        repo.create_user(db, "eve", "root", now=T0)
    with pytest.raises(NotFoundError, match="unknown user"):
        repo.user_by_name(db, "nobody")


def test_course_visibility_by_role(db):
    admin, _ = repo.create_user(db, "root", "admin", now=T0)
    t1, _ = repo.create_user(db, "t1", "teacher", now=T0)
    t2, _ = repo.create_user(db, "t2", "teacher", now=T0)
    la, _ = repo.create_user(db, "la", "learner", now=T0)
    lb, _ = repo.create_user(db, "lb", "learner", now=T0)
    c1 = repo.create_course(db, "algo", title="Algorithms", owner=t1, now=T0)
    repo.create_course(db, "db", title=None, owner=t2, now=T0)
    assert repo.grant(db, c1, la, now=T0) == "enrolled"
    assert repo.grant(db, c1, la, now=T0) == "enrolled"  # idempotent
    db.commit()
    assert [c.id for c in repo.visible_courses(db, admin)] == ["algo", "db"]
    assert [c.id for c in repo.visible_courses(db, t1)] == ["algo"]
    assert [c.id for c in repo.visible_courses(db, t2)] == ["db"]
    assert [c.id for c in repo.visible_courses(db, la)] == ["algo"]
    assert repo.visible_courses(db, lb) == []
    with pytest.raises(NotFoundError):
        repo.visible_course(db, t1, "db")  # another teacher's course: invisible
    with pytest.raises(PermissionDeniedError):
        repo.managed_course(db, la, "algo")  # visible, but read-only for a learner
    with pytest.raises(PermissionDeniedError):
        repo.create_course(db, "x", title=None, owner=la, now=T0)
    assert repo.grant(db, c1, t2, now=T0) == "owner"
    assert [c.id for c in repo.visible_courses(db, t1)] == []
    with pytest.raises(UserError, match="admin"):
        repo.grant(db, c1, admin, now=T0)


def test_sessions_messages_and_expiry(db):
    t1, _ = repo.create_user(db, "t1", "teacher", now=T0)
    t2, _ = repo.create_user(db, "t2", "teacher", now=T0)
    la, _ = repo.create_user(db, "la", "learner", now=T0)
    lb, _ = repo.create_user(db, "lb", "learner", now=T0)
    course = repo.create_course(db, "algo", title=None, owner=t1, now=T0)
    s = repo.create_session(db, course, la, now=T0)
    m1 = repo.add_message(db, s, "user", "what is a heap?", now=T0 + timedelta(minutes=1))
    m2 = repo.add_message(db, s, "assistant", "What do you know?", now=T0 + timedelta(minutes=2), intent="concept",
                          citations=[{"chunk_id": "c1", "source": "a.pdf", "page_start": 1, "page_end": 1}],
                          prompt_tokens=10, completion_tokens=4)
    repo.add_tool_call(db, s, message_seq=m2.seq, name="tutor.answer", arguments={"question": "q"},
                       result={"intent": "concept"}, duration_ms=12.3456, ok=True, now=T0)
    db.commit()
    assert (m1.seq, m2.seq) == (1, 2)
    assert [m.content for m in repo.session_messages(db, s.id)] == ["what is a heap?", "What do you know?"]
    assert repo.session_messages(db, s.id)[1].citations[0]["source"] == "a.pdf"
    (call,) = repo.session_tool_calls(db, s.id)
    assert (call.name, call.duration_ms, call.message_seq) == ("tutor.answer", 12.346, 2)
    assert repo.visible_session(db, la, s.id).id == s.id
    assert repo.visible_session(db, t1, s.id).id == s.id  # the course's teacher may read
    for outsider in (lb, t2):
        with pytest.raises(NotFoundError):
            repo.visible_session(db, outsider, s.id)
    with pytest.raises(PermissionDeniedError):
        repo.own_session(db, t1, s.id)
    idle = timedelta(minutes=30)
    fresh = repo.visible_session(db, la, s.id)
    assert not repo.is_expired(fresh, now=T0 + timedelta(minutes=32), idle=idle)  # last active at minute 2
    assert repo.is_expired(fresh, now=T0 + timedelta(minutes=32, seconds=1), idle=idle)


def test_jobs_and_interrupted_jobs(db):
    t1, _ = repo.create_user(db, "t1", "teacher", now=T0)
    la, _ = repo.create_user(db, "la", "learner", now=T0)
    course = repo.create_course(db, "algo", title=None, owner=t1, now=T0)
    repo.grant(db, course, la, now=T0)
    j1 = repo.create_job(db, course, t1, "a.pdf", now=T0)
    j2 = repo.create_job(db, course, t1, "b.pdf", now=T0)
    repo.update_job(db, j2.id, now=T0, status="succeeded", progress=1.0, chunks=3)
    db.commit()
    assert repo.visible_job(db, t1, j1.id).status == "queued"
    with pytest.raises(NotFoundError):
        repo.visible_job(db, la, j1.id)  # learners see only their own jobs
    assert repo.fail_interrupted_jobs(db, now=T0 + timedelta(hours=1)) == 1
    db.commit()
    assert repo.visible_job(db, t1, j1.id).status == "failed"
    assert "restart" in repo.visible_job(db, t1, j1.id).reason
    assert repo.visible_job(db, t1, j2.id).status == "succeeded"
