"""The one place where the tutor's errors become HTTP status codes.

    NotFoundError          404   (also for things that exist but are not yours)
    PermissionDeniedError  403
    IngestError            422
    UserError              400
    IndexError_            409   the course index must be rebuilt
    LLMError               502   the model behind the tutor failed
    RetrievalError,
    StoreError, ConfigError 503
"""

from __future__ import annotations

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse

from app.errors import (
    ConfigError,
    IndexError_,
    IngestError,
    LLMError,
    NotFoundError,
    PermissionDeniedError,
    RetrievalError,
    StoreError,
    TutorError,
    UserError,
)
from app.api.logs import get_logger

_log = get_logger("errors")

STATUS: list[tuple[type[TutorError], int]] = [
    (NotFoundError, 404),
    (PermissionDeniedError, 403),
    (IngestError, 422),
    (UserError, 400),
    (IndexError_, 409),
    (LLMError, 502),
    (RetrievalError, 503),
    (StoreError, 503),
    (ConfigError, 503),
]


def status_for(e: TutorError) -> int:
    for cls, status in STATUS:
        if isinstance(e, cls):
            return status
    return 500


def error_body(message: str, *, type_: str, hint: str | None = None) -> dict:
    """`detail` for FastAPI-style clients, `error` in OpenAI's shape so the openai client shows the message."""
    return {"detail": message, "error": {"message": message, "type": type_, "hint": hint}}


async def tutor_error_handler(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, TutorError)
    status = status_for(exc)
    if status >= 500:
        _log.error("tutor error", extra={"error": type(exc).__name__, "detail": str(exc), "status": status})
    return JSONResponse(error_body(exc.message, type_=type(exc).__name__, hint=exc.hint), status_code=status)


async def data_error_handler(request: Request, exc: Exception) -> JSONResponse:
    """Values the database refuses (a safety net behind the checks in `app.store.repo`)."""
    _log.warning("database refused a value", extra={"detail": str(exc).splitlines()[0]})
    return JSONResponse(
        error_body("a value in the request cannot be stored", type_="UserError", hint="remove control characters"),
        status_code=400,
    )


def install(app: FastAPI) -> None:
    from sqlalchemy.exc import DataError

    app.add_exception_handler(TutorError, tutor_error_handler)
    app.add_exception_handler(DataError, data_error_handler)
