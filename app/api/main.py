"""`create_app(settings)`: the tutor as an HTTP service.

Nothing is built at import time. `create_app` wires the routers and error handlers; its lifespan migrates the
database, opens the engine, the ingestion pool and the tutor cache, and closes them again. Swappable parts come in
as arguments: `tutor_factory(course) -> Tutor` (default: the real tutor, imported lazily), the `embedder` used for
uploads and retrieval, and the `clock` that decides when a session has been idle too long.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from fastapi import FastAPI
from sqlalchemy import Engine
from sqlalchemy.orm import Session, sessionmaker

from app.api import handlers
from app.api.jobs import IngestRunner
from app.api.logs import configure_logging, get_logger, request_id_middleware
from app.api.routes import chat, courses, documents, health, learning, practice, sessions, users
from app.api.tutors import TutorCache, TutorFactory, default_tutor_factory
from app.llm.base import LLM, CallRecord
from app.settings import Settings
from app.store import db as store_db
from app.store import repo
from indexing.embedder import Embedder

_log = get_logger("app")


def utc_now() -> datetime:
    return datetime.now(UTC)


@dataclass
class Services:
    """The object graph of one running app, reached from routes through `deps.ServicesDep`."""

    settings: Settings
    engine: Engine
    sessions: sessionmaker[Session]
    tutors: TutorCache
    jobs: IngestRunner
    clock: Callable[[], datetime]
    embedder: Callable[[], Embedder]
    llm: LLM | None = None  # the generative model for guided practice and exercises; None = grounded mode

    @property
    def session_idle(self) -> timedelta:
        return timedelta(minutes=self.settings.session_idle_minutes)


def log_model_call(record: CallRecord) -> None:
    """Per-call model usage and latency, tagged with the request id by the log formatter."""
    _log.info(
        "model call",
        extra={
            "model": record.model, "kind": record.kind, "prompt_tokens": record.usage.prompt_tokens,
            "completion_tokens": record.usage.completion_tokens,
            "cached_prompt_tokens": record.usage.cached_prompt_tokens, "latency_ms": round(record.latency_ms, 2),
            "attempts": record.attempts,
        },
    )


def _embedder_provider(settings: Settings, embedder: Embedder | None) -> Callable[[], Embedder]:
    def get() -> Embedder:
        if embedder is not None:
            return embedder
        from indexing.embedder import load_embedder

        return load_embedder(settings.embedder)  # cached per process

    return get


def _sync_courses_from_disk(services: Services) -> None:
    """Courses made with `tutor courses create`/`tutor ingest` get a row (no owner yet) so they can be granted."""
    from indexing.store import list_courses

    with services.sessions() as db:
        for info in list_courses(services.settings.data_dir):
            repo.ensure_course(db, info.id, title=info.title, now=services.clock())
        failed = repo.fail_interrupted_jobs(db, now=services.clock())
        db.commit()
    if failed:
        _log.warning("jobs interrupted by a restart marked failed", extra={"jobs": failed})


def create_app(
    settings: Settings,
    *,
    tutor_factory: TutorFactory | None = None,
    embedder: Embedder | None = None,
    clock: Callable[[], datetime] = utc_now,
    llm: LLM | None = None,
) -> FastAPI:
    """The FastAPI app for `settings`. Pass `tutor_factory`/`embedder`/`clock`/`llm` to swap those parts (tests);
    without `llm`, guided practice and exercise authoring use the model configured in `settings`, if any."""
    configure_logging(settings.log_level)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        url = settings.sqlalchemy_url()
        settings.data_dir.mkdir(parents=True, exist_ok=True)
        store_db.upgrade(url)
        engine = store_db.make_engine(url)
        factory = store_db.session_factory(engine)
        get_embedder = _embedder_provider(settings, embedder)
        from app.llm.openai_compat import llm_from_settings
        services = Services(
            settings=settings,
            engine=engine,
            sessions=factory,
            tutors=TutorCache(
                tutor_factory or default_tutor_factory(settings, embedder=embedder, on_call=log_model_call), settings
            ),
            jobs=IngestRunner(settings=settings, sessions=factory, embedder=get_embedder, clock=clock),
            clock=clock,
            embedder=get_embedder,
            llm=llm if llm is not None else llm_from_settings(settings, on_call=log_model_call),
        )
        _sync_courses_from_disk(services)
        app.state.services = services
        _log.info("tutor service started", extra={"database": engine.url.render_as_string(hide_password=True)})
        try:
            yield
        finally:
            services.jobs.shutdown()
            engine.dispose()

    app = FastAPI(
        title="socratic-tutor",
        version="0.1.0",
        summary="A retrieval-augmented Socratic tutor: courses, uploads, tutoring sessions, OpenAI-compatible chat.",
        lifespan=lifespan,
    )
    app.middleware("http")(request_id_middleware)
    handlers.install(app)
    for module in (health, users, courses, documents, sessions, chat, practice, learning):
        app.include_router(module.router)
    return app


def app_from_env() -> Any:
    """For `uvicorn --factory app.api.main:app_from_env`: settings from the environment."""
    return create_app(Settings())
