"""Courses: list what you may see, create (teachers, admins), grant ownership or enrolment."""

from __future__ import annotations

from fastapi import APIRouter, status
from sqlalchemy.orm import Session

from app.api.deps import CurrentUser, DbDep, ServicesDep
from app.api.schemas import CoursePublic, GrantCreate, GrantPublic
from app.api.schemas import CourseCreate
from app.errors import PermissionDeniedError
from app.store import repo
from app.store.models import Course, User
from indexing import store as index_store

router = APIRouter(prefix="/v1/courses", tags=["courses"])


def course_public(db: Session, course: Course, data_dir) -> CoursePublic:
    manifest = index_store.live_manifest(data_dir, course.id) if index_store.course_exists(data_dir, course.id) else None
    owner = db.get(User, course.owner_id) if course.owner_id else None
    return CoursePublic(
        id=course.id,
        title=course.title,
        owner=owner.name if owner else None,
        documents=len(manifest["documents"]) if manifest else 0,
        chunks=manifest["chunks"] if manifest else 0,
    )


@router.get("", response_model=list[CoursePublic])
def list_courses(db: DbDep, services: ServicesDep, user: CurrentUser) -> list[CoursePublic]:
    return [course_public(db, c, services.settings.data_dir) for c in repo.visible_courses(db, user)]


@router.post("", response_model=CoursePublic, status_code=status.HTTP_201_CREATED)
def create_course(body: CourseCreate, db: DbDep, services: ServicesDep, user: CurrentUser) -> CoursePublic:
    """Create an empty course; a teacher who creates it owns it."""
    index_store.validate_course_id(body.id)
    course = repo.create_course(db, body.id, title=body.title, owner=user, now=services.clock())
    if not index_store.course_exists(services.settings.data_dir, body.id):
        index_store.create_course(services.settings.data_dir, body.id, body.title)
    db.commit()
    return course_public(db, course, services.settings.data_dir)


@router.get("/{course_id}", response_model=CoursePublic)
def read_course(course_id: str, db: DbDep, services: ServicesDep, user: CurrentUser) -> CoursePublic:
    return course_public(db, repo.visible_course(db, user, course_id), services.settings.data_dir)


@router.post("/{course_id}/grants", response_model=GrantPublic, status_code=status.HTTP_201_CREATED)
def grant(course_id: str, body: GrantCreate, db: DbDep, services: ServicesDep, user: CurrentUser) -> GrantPublic:
    """Enrol a learner (the course's teacher or an admin) or make a teacher the owner (admins only)."""
    course = repo.managed_course(db, user, course_id)
    target = repo.user_by_name(db, body.user)
    if target.role == "teacher" and user.role != "admin":
        raise PermissionDeniedError("only admins can hand a course to a teacher")
    granted = repo.grant(db, course, target, now=services.clock())
    db.commit()
    return GrantPublic(course=course.id, user=target.name, granted=granted)  # type: ignore[arg-type]
