"""Liveness and readiness, unauthenticated (for load balancers and orchestrators)."""

from __future__ import annotations

from fastapi import APIRouter
from fastapi.responses import JSONResponse

from app.api.deps import ServicesDep
from app.store.db import check_ready

router = APIRouter(tags=["health"])


@router.get("/healthz")
def healthz() -> dict[str, str]:
    """The process is up and serving requests."""
    return {"status": "ok"}


@router.get("/readyz", responses={503: {"description": "database unreachable or not migrated"}})
def readyz(services: ServicesDep) -> JSONResponse:
    """The database is reachable and at the latest migration."""
    state = check_ready(services.engine)
    return JSONResponse({"status": "ready" if state["ready"] else "not ready", **state}, status_code=200 if state["ready"] else 503)
