"""Dependencies shared by the routers, as `Annotated` aliases: `ServicesDep`, `DbDep`, `CurrentUser`, `Teacher`."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Annotated

from fastapi import Depends, HTTPException, Request, status
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from sqlalchemy.orm import Session

from app.store import repo
from app.store.models import User

if TYPE_CHECKING:
    from app.api.main import Services

bearer = HTTPBearer(auto_error=False, description="An API token from `tutor users add NAME --role ROLE`.")


def get_services(request: Request) -> Services:
    return request.app.state.services


ServicesDep = Annotated["Services", Depends(get_services)]


def get_db(services: ServicesDep) -> Iterator[Session]:
    with services.sessions() as db:
        yield db


DbDep = Annotated[Session, Depends(get_db)]


def _unauthorized(message: str) -> HTTPException:
    return HTTPException(
        status_code=status.HTTP_401_UNAUTHORIZED,
        detail=message,
        headers={"WWW-Authenticate": "Bearer"},
    )


def get_current_user(db: DbDep, credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(bearer)]) -> User:
    if credentials is None or credentials.scheme.lower() != "bearer" or not credentials.credentials:
        raise _unauthorized("missing bearer token: send 'Authorization: Bearer <token>'")
    user = repo.user_by_token(db, credentials.credentials)
    if user is None:
        raise _unauthorized("invalid token: ask an admin for a new one (`tutor users add`)")
    return user


CurrentUser = Annotated[User, Depends(get_current_user)]


def get_admin(user: CurrentUser) -> User:
    if user.role != "admin":
        raise HTTPException(status_code=status.HTTP_403_FORBIDDEN, detail="only admins may do this")
    return user


Admin = Annotated[User, Depends(get_admin)]
