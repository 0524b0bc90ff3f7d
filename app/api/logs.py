"""Structured logs: one JSON object per line on stderr, each carrying the request id of the request it belongs to.

The request id comes from the client's `X-Request-ID` header (or is made up) and is echoed back in the response,
so a learner's bug report can be matched to the server's log lines.
"""

from __future__ import annotations

import json
import logging
import sys
import time
import uuid
from collections.abc import Awaitable, Callable
from contextvars import ContextVar
from datetime import UTC, datetime

from fastapi import Request, Response

LOGGER_NAME = "tutor"
request_id_var: ContextVar[str | None] = ContextVar("request_id", default=None)
_RESERVED = set(logging.LogRecord("", 0, "", 0, "", None, None).__dict__) | {"message", "asctime"}


class JsonFormatter(logging.Formatter):
    """`{"ts", "level", "logger", "msg", "request_id", ...extra}` — the extras given with `extra={...}`."""

    def format(self, record: logging.LogRecord) -> str:
        out = {
            "ts": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "msg": record.getMessage(),
        }
        rid = getattr(record, "request_id", None) or request_id_var.get()
        if rid:
            out["request_id"] = rid
        for k, v in record.__dict__.items():
            if k not in _RESERVED and k not in out and not k.startswith("_"):
                out[k] = v
        if record.exc_info:
            out["exc"] = self.formatException(record.exc_info)
        return json.dumps(out, ensure_ascii=False, default=str)


def configure_logging(level: str = "INFO") -> logging.Logger:
    """Give the `tutor` logger one JSON handler on stderr (idempotent)."""
    logger = logging.getLogger(LOGGER_NAME)
    logger.setLevel(level)
    if not any(getattr(h, "_tutor_json", False) for h in logger.handlers):
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(JsonFormatter())
        handler._tutor_json = True  # type: ignore[attr-defined]
        logger.addHandler(handler)
    logger.propagate = False
    return logger


def get_logger(name: str) -> logging.Logger:
    return logging.getLogger(f"{LOGGER_NAME}.{name}")


_access = get_logger("access")


def _clean_request_id(value: str | None) -> str:
    if value and 0 < len(value) <= 128 and value.isascii() and value.isprintable():
        return value
    return uuid.uuid4().hex


async def request_id_middleware(request: Request, call_next: Callable[[Request], Awaitable[Response]]) -> Response:
    """Set the request id for everything logged while handling the request; log one access line per request."""
    rid = _clean_request_id(request.headers.get("x-request-id"))
    token = request_id_var.set(rid)
    t0 = time.perf_counter()
    try:
        response = await call_next(request)
    except Exception:
        _access.exception("unhandled error", extra={"method": request.method, "path": request.url.path})
        raise
    finally:
        request_id_var.reset(token)
    response.headers["X-Request-ID"] = rid
    _access.info(
        "request",
        extra={
            "request_id": rid,
            "method": request.method,
            "path": request.url.path,
            "status": response.status_code,
            "latency_ms": round((time.perf_counter() - t0) * 1000, 2),
        },
    )
    return response
