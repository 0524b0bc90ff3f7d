"""The learning engine in the database: per-course scheduler, bites, exercises, learners' schedules, reviews and
answers. Pure scheduling stays in `app.learning`; this module loads and stores its inputs and outputs.

Access rules (as in `app.store.repo`): the course's teacher and admins build bites and save exercises; everyone
who sees the course reads bites and answers exercises; a learner's schedule and progress are theirs (the course's
teacher and admins may read them).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import delete, func, select
from sqlalchemy.orm import Session

from app.errors import NotFoundError, UserError
from app.learning.bites import LearningBite
from app.learning.exercises import Exercise, validate_exercise
from app.learning.scheduler import SCHEDULER_NAMES, Scheduler, get_scheduler
from app.store.models import (
    AnswerRecord,
    BiteRecord,
    ExerciseRecord,
    LearningSettings,
    ReviewRecord,
    ScheduleRecord,
    User,
)

DEFAULT_SCHEDULER = "sm2"

# ---------------------------------------------------------------- settings


def scheduler_name(db: Session, course: str) -> str:
    row = db.get(LearningSettings, course)
    return row.scheduler if row else DEFAULT_SCHEDULER


def set_scheduler(db: Session, course: str, name: str, *, now: datetime) -> str:
    """Choose the course's scheduler. Existing schedules keep the state of the scheduler that wrote them until the
    next review, which restarts them under the new scheduler (an SM-2 state means nothing to FSRS)."""
    get_scheduler(name)  # UserError for unknown names
    row = db.get(LearningSettings, course)
    if row is None:
        db.add(LearningSettings(course_id=course, scheduler=name, updated=now))
    else:
        row.scheduler, row.updated = name, now
    db.flush()
    return name


# ---------------------------------------------------------------- bites


def bite_of(row: BiteRecord) -> LearningBite:
    return LearningBite(
        id=row.number, title=row.title, content=row.content, difficulty=row.difficulty,
        prerequisites=list(row.prerequisites or []), source_pages=list(row.source_pages or []), source=row.source,
        section=row.section, chunk_ids=list(row.chunk_ids or []), difficulty_reason=row.difficulty_reason,
    )


def bite_rows(db: Session, course: str) -> list[BiteRecord]:
    return list(db.scalars(select(BiteRecord).where(BiteRecord.course_id == course).order_by(BiteRecord.number)))


def list_bites(db: Session, course: str) -> list[LearningBite]:
    return [bite_of(r) for r in bite_rows(db, course)]


def bite_row(db: Session, course: str, number: int) -> BiteRecord:
    row = db.scalar(select(BiteRecord).where(BiteRecord.course_id == course, BiteRecord.number == number))
    if row is None:
        raise NotFoundError(f"course {course!r} has no bite {number}",
                            hint=f"GET /v1/courses/{course}/bites lists them; build them first if there are none")
    return row


def started_schedules(db: Session, course: str) -> int:
    return db.scalar(select(func.count()).select_from(ScheduleRecord).where(ScheduleRecord.course_id == course)) or 0


def replace_bites(db: Session, course: str, bites: Sequence[LearningBite], *, now: datetime, force: bool) -> int:
    """Store `bites` as the course's bites. Replacing bites drops their exercises, schedules and answers, so it is
    refused while learners have schedules unless `force`. Returns how many schedules were dropped."""
    dropped = started_schedules(db, course)
    if dropped and not force:
        raise UserError(
            f"{dropped} learner schedule(s) exist for course {course!r}; rebuilding the bites would reset them",
            hint="pass force=true to rebuild anyway",
        )
    db.execute(delete(BiteRecord).where(BiteRecord.course_id == course))
    for b in bites:
        db.add(BiteRecord(
            course_id=course, number=b.id, title=b.title, content=b.content, difficulty=b.difficulty,
            prerequisites=list(b.prerequisites), source_pages=list(b.source_pages), source=b.source,
            section=b.section, chunk_ids=list(b.chunk_ids), difficulty_reason=b.difficulty_reason, created=now,
        ))
    db.flush()
    return dropped


# ---------------------------------------------------------------- exercises


def save_exercise(db: Session, course: str, bite: BiteRecord, raw: dict[str, Any], *, user: User,
                  now: datetime) -> ExerciseRecord:
    """Validate `raw` (type-specific schema and the stand-alone rule) and store it for `bite`."""
    exercise = validate_exercise({**raw, "bite_id": bite.number})
    row = ExerciseRecord(course_id=course, bite_id=bite.id, type=exercise.type,
                         data=exercise.model_dump(mode="json"), created_by=user.id, created=now)
    db.add(row)
    db.flush()
    return row


def exercise_rows(db: Session, course: str, bite: BiteRecord | None = None) -> list[ExerciseRecord]:
    q = select(ExerciseRecord).where(ExerciseRecord.course_id == course)
    if bite is not None:
        q = q.where(ExerciseRecord.bite_id == bite.id)
    return list(db.scalars(q.order_by(ExerciseRecord.id)))


def exercise_row(db: Session, exercise_id: int) -> ExerciseRecord:
    row = db.get(ExerciseRecord, exercise_id)
    if row is None:
        raise NotFoundError(f"unknown exercise {exercise_id}")
    return row


def exercise_of(row: ExerciseRecord) -> Exercise:
    return validate_exercise(row.data)


# ---------------------------------------------------------------- schedules and reviews


def states(db: Session, user: User, course: str, scheduler: Scheduler) -> dict[int, Any]:
    """The learner's schedule states by bite number. A state written by another scheduler (the course switched)
    counts as started but is read through the scheduler that wrote it."""
    rows = db.execute(
        select(ScheduleRecord, BiteRecord.number).join(BiteRecord, BiteRecord.id == ScheduleRecord.bite_id)
        .where(ScheduleRecord.user_id == user.id, ScheduleRecord.course_id == course)
    )
    out: dict[int, Any] = {}
    for rec, number in rows:
        reader = scheduler if rec.scheduler == scheduler.name else get_scheduler(rec.scheduler)
        out[number] = reader.state_from_dict(rec.state)
    return out


def review(
    db: Session, user: User, bite: BiteRecord, quality: int, *, origin: str, ref: str, now: datetime,
    scheduler: Scheduler,
) -> Any:
    """Apply one review of quality 0-5 to the learner's schedule of `bite`, store the state and the review."""
    rec = db.get(ScheduleRecord, (user.id, bite.id))
    if rec is not None and rec.scheduler == scheduler.name:
        state = scheduler.state_from_dict(rec.state)
    else:
        state = scheduler.new_state()
    state = scheduler.review(state, quality, now)
    data = state.to_dict()
    if rec is None:
        db.add(ScheduleRecord(user_id=user.id, bite_id=bite.id, course_id=bite.course_id, scheduler=scheduler.name,
                              state=data, updated=now))
    else:
        rec.scheduler, rec.state, rec.updated = scheduler.name, data, now
    db.add(ReviewRecord(user_id=user.id, bite_id=bite.id, course_id=bite.course_id, quality=quality, origin=origin,
                        ref=ref, state_after=data, at=now))
    db.flush()
    return state


def reviews_of(db: Session, user: User, course: str) -> list[ReviewRecord]:
    return list(db.scalars(select(ReviewRecord).where(ReviewRecord.user_id == user.id,
                                                      ReviewRecord.course_id == course).order_by(ReviewRecord.id)))


def add_answer(db: Session, exercise: ExerciseRecord, user: User, answer: str, *, quality: int, is_correct: bool,
               feedback: str, grader: str, now: datetime) -> AnswerRecord:
    row = AnswerRecord(exercise_id=exercise.id, user_id=user.id, answer=answer, quality=quality,
                       is_correct=is_correct, feedback=feedback, grader=grader, created=now)
    db.add(row)
    db.flush()
    return row


__all__ = [
    "DEFAULT_SCHEDULER", "SCHEDULER_NAMES", "add_answer", "bite_of", "bite_row", "bite_rows", "exercise_of",
    "exercise_row", "exercise_rows", "list_bites", "replace_bites", "review", "reviews_of", "save_exercise",
    "scheduler_name", "set_scheduler", "started_schedules", "states",
]
