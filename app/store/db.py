"""Engines and migrations.

SQLite (the default, a file in the data directory) runs in WAL mode with foreign keys on, so readers never block
the single writer and a killed process loses nothing that was committed. PostgreSQL is reached with psycopg 3
(`postgresql+psycopg://`). The schema is owned by Alembic (`app/store/migrations`); `upgrade()` brings any database
to the head revision and is what both `tutor db upgrade` and the API's startup call.
"""

from __future__ import annotations

from pathlib import Path

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import Engine, create_engine, event, text
from sqlalchemy.engine import make_url
from sqlalchemy.orm import Session, sessionmaker

from app.errors import ConfigError, StoreError

MIGRATIONS_DIR = Path(__file__).parent / "migrations"


def normalise_url(url: str) -> str:
    """`postgresql://` and `postgres://` mean psycopg 3 here (SQLAlchemy would otherwise pick psycopg2)."""
    for prefix in ("postgres://", "postgresql://"):
        if url.startswith(prefix):
            return "postgresql+psycopg://" + url[len(prefix) :]
    return url


def _ensure_sqlite_dir(url: str) -> None:
    parsed = make_url(url)
    if parsed.get_backend_name() == "sqlite" and parsed.database and parsed.database != ":memory:":
        Path(parsed.database).parent.mkdir(parents=True, exist_ok=True)


def make_engine(url: str) -> Engine:
    """An engine for `url`; SQLite files get their directory created, WAL mode and enforced foreign keys."""
    url = normalise_url(url)
    try:
        parsed = make_url(url)
    except Exception as e:
        raise ConfigError(f"invalid database URL {url!r} ({e})", hint="e.g. sqlite:///var/tutor.db") from e
    if parsed.get_backend_name() == "sqlite":
        _ensure_sqlite_dir(url)
        engine = create_engine(url, connect_args={"check_same_thread": False, "timeout": 30})

        @event.listens_for(engine, "connect")
        def _sqlite_pragmas(dbapi_conn, _record) -> None:  # pragma: no cover - exercised by every sqlite test
            cur = dbapi_conn.cursor()
            cur.execute("PRAGMA journal_mode=WAL")
            cur.execute("PRAGMA synchronous=NORMAL")
            cur.execute("PRAGMA foreign_keys=ON")
            cur.execute("PRAGMA busy_timeout=30000")
            cur.close()

        return engine
    return create_engine(url, pool_pre_ping=True)


def session_factory(engine: Engine) -> sessionmaker[Session]:
    return sessionmaker(engine, expire_on_commit=False)


def alembic_config(url: str) -> Config:
    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS_DIR))
    cfg.set_main_option("sqlalchemy.url", normalise_url(url).replace("%", "%%"))
    return cfg


def upgrade(url: str, revision: str = "head") -> None:
    """Migrate the database at `url` to `revision` (idempotent)."""
    try:
        _ensure_sqlite_dir(normalise_url(url))
        command.upgrade(alembic_config(url), revision)
    except Exception as e:
        raise StoreError(f"cannot migrate the database ({type(e).__name__}: {e})", hint="check TUTOR_DATABASE_URL") from e


def head_revision() -> str:
    return ScriptDirectory.from_config(alembic_config("sqlite://")).get_current_head()


def current_revision(engine: Engine) -> str | None:
    with engine.connect() as conn:
        return MigrationContext.configure(conn).get_current_revision()


def check_ready(engine: Engine) -> dict:
    """Is the database reachable and at the head revision? Never raises: returns what is wrong."""
    try:
        with engine.connect() as conn:
            conn.execute(text("SELECT 1"))
        current = current_revision(engine)
    except Exception as e:
        return {"database": "unreachable", "reason": f"{type(e).__name__}: {e}", "ready": False}
    head = head_revision()
    return {"database": "ok", "revision": current, "head": head, "ready": current == head}
