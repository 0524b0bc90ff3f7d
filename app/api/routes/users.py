"""Users and their API tokens. Admins create users; everyone can ask who they are."""

from __future__ import annotations

from fastapi import APIRouter, status

from app.api.deps import Admin, CurrentUser, DbDep, ServicesDep
from app.api.schemas import UserCreate, UserPublic, UserWithToken
from app.store import repo

router = APIRouter(prefix="/v1/users", tags=["users"])


@router.get("/me", response_model=UserPublic)
def read_me(user: CurrentUser) -> UserPublic:
    return UserPublic(id=user.id, name=user.name, role=user.role)


@router.get("", response_model=list[UserPublic])
def list_users(db: DbDep, _admin: Admin) -> list[UserPublic]:
    return [UserPublic(id=u.id, name=u.name, role=u.role) for u in repo.list_users(db)]


@router.post("", response_model=UserWithToken, status_code=status.HTTP_201_CREATED)
def create_user(body: UserCreate, db: DbDep, services: ServicesDep, _admin: Admin) -> UserWithToken:
    """Create a user. The token is in this response only; store it."""
    user, token = repo.create_user(db, body.name, body.role, now=services.clock())
    db.commit()
    return UserWithToken(id=user.id, name=user.name, role=user.role, token=token)
