"""The learning engine over HTTP: bites, exercises (preview → revise → save), answers, what comes next, progress.

    GET/PUT /v1/courses/{id}/learning                         the course's scheduler ('sm2' default, or 'fsrs')
    POST    /v1/courses/{id}/bites:build?force=               teacher: bites from the course index (model or offline)
    GET     /v1/courses/{id}/bites
    POST    /v1/courses/{id}/bites/{n}/exercises:preview      teacher: a generated exercise, not saved
    POST    /v1/courses/{id}/bites/{n}/exercises:revise       teacher: apply a free instruction (needs a model: 422
                                                              without one)
    POST    /v1/courses/{id}/bites/{n}/exercises              teacher: save (validated by `validate_exercise`)
    GET     /v1/courses/{id}/bites/{n}/exercises              learners see them without the answers
    POST    /v1/exercises/{id}/answers                        graded 0-5, stored, reviews the bite's schedule
    GET     /v1/courses/{id}/next?learner=                    due reviews (most overdue first), then new bites
    GET     /v1/courses/{id}/progress?learner=                new, learning, review, mastered, due today

`?learner=` lets the course's teacher or an admin read a learner's schedule; learners read only their own (403).
"""

from __future__ import annotations

import random
from datetime import datetime
from typing import Any

from fastapi import APIRouter, HTTPException, status
from pydantic import BaseModel, Field

from app.api.deps import CurrentUser, DbDep, ServicesDep
from app.api.schemas import utc
from app.errors import ConfigError, PermissionDeniedError, UserError
from app.learning.answers import grade_exercise, learner_view
from app.learning.bites import bites_from_sections
from app.learning.exercises import EXERCISE_TYPES
from app.learning.generate import generate
from app.learning.next_item import next_items
from app.learning.progress import progress
from app.learning.scheduler import SCHEDULER_NAMES, get_scheduler
from app.store import learning_repo, repo
from app.store.models import BiteRecord, Course, User

router = APIRouter(tags=["learning"])


class LearningSettingsIO(BaseModel):
    scheduler: str = Field(description=f"One of {', '.join(SCHEDULER_NAMES)}.")


class BuildResult(BaseModel):
    course: str
    bites: int
    schedules_reset: int


class BiteOut(BaseModel):
    id: int
    title: str
    content: str
    words: int
    difficulty: int
    difficulty_reason: str
    prerequisites: list[int]
    source: str
    section: str
    source_pages: list[int]
    chunk_ids: list[str]
    exercises: int


class PreviewIn(BaseModel):
    type: str = Field(description=f"One of {', '.join(EXERCISE_TYPES)}.")
    seed: int = Field(0, description="Offline generators pick among candidates with random.Random(seed).")


class ReviseIn(BaseModel):
    exercise: dict[str, Any]
    instruction: str = Field(min_length=1, max_length=2000)


class ExerciseIn(BaseModel):
    exercise: dict[str, Any]


class ExerciseOut(BaseModel):
    id: int | None = Field(None, description="None for a preview (not saved).")
    bite: int
    type: str
    exercise: dict[str, Any]
    generated_by: str | None = None


class AnswerIn(BaseModel):
    answer: str = Field(min_length=1, max_length=20_000)


class AnswerOut(BaseModel):
    id: int
    exercise: int
    bite: int
    quality: int
    is_correct: bool
    feedback: str
    grader: str
    schedule: dict[str, Any]


class NextOut(BaseModel):
    bite: int
    title: str
    kind: str
    due: datetime | None
    overdue_days: float | None
    exercises: list[int]


class ProgressOut(BaseModel):
    course: str
    learner: str
    scheduler: str
    total: int
    new: int
    learning: int
    review: int
    mastered: int
    due_today: int


# ---------------------------------------------------------------- helpers


def _learner(db, user: User, course: Course, name: str | None) -> User:
    """Whose schedule: the caller's own, or (teacher of the course, admin) the named learner's."""
    if name is None or name == user.name:
        return user
    if user.role == "learner":
        raise PermissionDeniedError("learners see only their own schedule and progress")
    target = repo.user_by_name(db, name)
    if target.role == "learner" and not repo.can_see_course(db, target, course):
        raise UserError(f"{name!r} is not enrolled in course {course.id!r}")
    return target


def _bite_out(db, course: str, row) -> BiteOut:
    b = learning_repo.bite_of(row)
    return BiteOut(id=b.id, title=b.title, content=b.content, words=b.word_count, difficulty=b.difficulty,
                   difficulty_reason=b.difficulty_reason, prerequisites=b.prerequisites, source=b.source,
                   section=b.section, source_pages=b.source_pages, chunk_ids=b.chunk_ids,
                   exercises=len(learning_repo.exercise_rows(db, course, row)))


def _unprocessable(message: str) -> HTTPException:
    return HTTPException(422, message)


# ---------------------------------------------------------------- settings and bites


@router.get("/v1/courses/{course_id}/learning", response_model=LearningSettingsIO)
def read_settings(course_id: str, db: DbDep, user: CurrentUser) -> LearningSettingsIO:
    course = repo.visible_course(db, user, course_id)
    return LearningSettingsIO(scheduler=learning_repo.scheduler_name(db, course.id))


@router.put("/v1/courses/{course_id}/learning", response_model=LearningSettingsIO)
def write_settings(course_id: str, body: LearningSettingsIO, db: DbDep, services: ServicesDep,
                   user: CurrentUser) -> LearningSettingsIO:
    course = repo.managed_course(db, user, course_id)
    name = learning_repo.set_scheduler(db, course.id, body.scheduler, now=services.clock())
    db.commit()
    return LearningSettingsIO(scheduler=name)


@router.post("/v1/courses/{course_id}/bites:build", response_model=BuildResult)
def build_bites(course_id: str, db: DbDep, services: ServicesDep, user: CurrentUser,
                force: bool = False) -> BuildResult:
    """Cut the course index into bites of about 200-500 words: by the configured model (checked in code), or
    offline by the section structure."""
    from indexing.store import live_manifest, load_index

    course = repo.managed_course(db, user, course_id)
    if live_manifest(services.settings.data_dir, course.id) is None:
        raise UserError(f"course {course.id!r} has no documents yet",
                        hint=f"upload a PDF: POST /v1/courses/{course.id}/documents")
    chunks = load_index(services.settings.data_dir, course.id).chunks
    if services.llm is not None:
        from app.learning.bites_llm import bites_with_model

        bites = bites_with_model(services.llm, chunks)
    else:
        bites = bites_from_sections(chunks)
    reset = learning_repo.replace_bites(db, course.id, bites, now=services.clock(), force=force)
    db.commit()
    return BuildResult(course=course.id, bites=len(bites), schedules_reset=reset)


@router.get("/v1/courses/{course_id}/bites", response_model=list[BiteOut])
def list_bites(course_id: str, db: DbDep, user: CurrentUser) -> list[BiteOut]:
    course = repo.visible_course(db, user, course_id)
    return [_bite_out(db, course.id, r) for r in learning_repo.bite_rows(db, course.id)]


# ---------------------------------------------------------------- exercises


@router.post("/v1/courses/{course_id}/bites/{number}/exercises:preview", response_model=ExerciseOut)
def preview_exercise(course_id: str, number: int, body: PreviewIn, db: DbDep, services: ServicesDep,
                     user: CurrentUser) -> ExerciseOut:
    """A generated exercise to look at before saving: offline for cloze, flashcard, term definition, ordering and
    multiple choice; by the configured model for the other types (and for every type when a model is configured)."""
    course = repo.managed_course(db, user, course_id)
    bite = learning_repo.bite_of(learning_repo.bite_row(db, course.id, number))
    if body.type not in EXERCISE_TYPES:
        raise UserError(f"unknown exercise type {body.type!r}", hint=f"use one of: {', '.join(EXERCISE_TYPES)}")
    if services.llm is not None:
        from app.learning.authoring import generate_with_model

        ex, by = generate_with_model(services.llm, body.type, bite), "model"
    else:
        others = [b for b in learning_repo.list_bites(db, course.id) if b.id != bite.id]
        try:
            ex, by = generate(body.type, bite, random.Random(body.seed), others=others), "offline"
        except ConfigError as e:
            raise _unprocessable(f"{e.message}; {e.hint}") from None
        except UserError as e:
            raise _unprocessable(str(e)) from None
    return ExerciseOut(bite=bite.id, type=ex.type, exercise=ex.model_dump(mode="json"), generated_by=by)


@router.post("/v1/courses/{course_id}/bites/{number}/exercises:revise", response_model=ExerciseOut)
def revise_exercise(course_id: str, number: int, body: ReviseIn, db: DbDep, services: ServicesDep,
                    user: CurrentUser) -> ExerciseOut:
    """Apply the teacher's free instruction with the configured model. Offline this is a 422: edit the exercise's
    JSON yourself and save it (the save validates it)."""
    course = repo.managed_course(db, user, course_id)
    bite = learning_repo.bite_of(learning_repo.bite_row(db, course.id, number))
    if services.llm is None:
        raise _unprocessable(
            "revising an exercise with a free instruction needs a generative model; configure TUTOR_LLM_BASE_URL "
            "and TUTOR_LLM_MODEL, or edit the exercise JSON yourself and save it with POST "
            f"/v1/courses/{course.id}/bites/{number}/exercises"
        )
    from app.learning.authoring import revise_with_model

    ex = revise_with_model(services.llm, body.exercise, body.instruction, bite)
    return ExerciseOut(bite=bite.id, type=ex.type, exercise=ex.model_dump(mode="json"), generated_by="model")


@router.post("/v1/courses/{course_id}/bites/{number}/exercises", response_model=ExerciseOut,
             status_code=status.HTTP_201_CREATED)
def save_exercise(course_id: str, number: int, body: ExerciseIn, db: DbDep, services: ServicesDep,
                  user: CurrentUser) -> ExerciseOut:
    """Save an exercise after preview and revision; it must pass its type's schema and the stand-alone rule."""
    course = repo.managed_course(db, user, course_id)
    bite = learning_repo.bite_row(db, course.id, number)
    try:
        row = learning_repo.save_exercise(db, course.id, bite, body.exercise, user=user, now=services.clock())
    except UserError as e:
        raise _unprocessable(str(e)) from None
    db.commit()
    return ExerciseOut(id=row.id, bite=bite.number, type=row.type, exercise=row.data)


@router.get("/v1/courses/{course_id}/bites/{number}/exercises", response_model=list[ExerciseOut])
def list_exercises(course_id: str, number: int, db: DbDep, user: CurrentUser) -> list[ExerciseOut]:
    course = repo.visible_course(db, user, course_id)
    bite = learning_repo.bite_row(db, course.id, number)
    hide = user.role == "learner"
    return [ExerciseOut(id=r.id, bite=bite.number, type=r.type, exercise=learner_view(r.data) if hide else r.data)
            for r in learning_repo.exercise_rows(db, course.id, bite)]


@router.post("/v1/exercises/{exercise_id}/answers", response_model=AnswerOut, status_code=status.HTTP_201_CREATED)
def answer_exercise(exercise_id: int, body: AnswerIn, db: DbDep, services: ServicesDep,
                    user: CurrentUser) -> AnswerOut:
    """Grade the answer (rules for single-answer types, the offline grader or the configured model for free text),
    store it with its grade and review the bite in the caller's schedule."""
    row = learning_repo.exercise_row(db, exercise_id)
    course = repo.visible_course(db, user, row.course_id)
    if services.llm is not None:
        from app.grading.llm_grader import LLMGrader

        grader, name = LLMGrader(services.llm), "llm"
    else:
        from app.grading.grader import OfflineGrader

        grader, name = OfflineGrader(services.embedder()), "offline"
    grade = grade_exercise(learning_repo.exercise_of(row), body.answer, grader, grader_name=name)
    now = services.clock()
    ans = learning_repo.add_answer(db, row, user, body.answer, quality=grade.quality, is_correct=grade.is_correct,
                                   feedback=grade.feedback, grader=grade.grader, now=now)
    bite = db.get_one(BiteRecord, row.bite_id)
    scheduler = get_scheduler(learning_repo.scheduler_name(db, course.id))
    state = learning_repo.review(db, user, bite, grade.quality, origin="exercise", ref=str(ans.id), now=now,
                                 scheduler=scheduler)
    db.commit()
    return AnswerOut(id=ans.id, exercise=row.id, bite=bite.number, quality=grade.quality, is_correct=grade.is_correct,
                     feedback=grade.feedback, grader=grade.grader, schedule=state.to_dict())


# ---------------------------------------------------------------- next and progress


@router.get("/v1/courses/{course_id}/next", response_model=list[NextOut])
def what_next(course_id: str, db: DbDep, services: ServicesDep, user: CurrentUser, learner: str | None = None,
              new: int = 1) -> list[NextOut]:
    """Due reviews, most overdue first, then up to `new` bites not yet started whose prerequisites are started."""
    course = repo.visible_course(db, user, course_id)
    who = _learner(db, user, course, learner)
    rows = learning_repo.bite_rows(db, course.id)
    bites = [learning_repo.bite_of(r) for r in rows]
    scheduler = get_scheduler(learning_repo.scheduler_name(db, course.id))
    states = learning_repo.states(db, who, course.id, scheduler)
    by_number = {r.number: r for r in rows}
    out = []
    for item in next_items(bites, states, services.clock(), new_limit=max(0, new)):
        r = by_number[item.bite_id]
        out.append(NextOut(
            bite=item.bite_id, title=r.title, kind=item.kind, due=utc(item.due) if item.due else None,
            overdue_days=round(item.overdue.total_seconds() / 86400, 4) if item.overdue is not None else None,
            exercises=[e.id for e in learning_repo.exercise_rows(db, course.id, r)],
        ))
    return out


@router.get("/v1/courses/{course_id}/progress", response_model=ProgressOut)
def read_progress(course_id: str, db: DbDep, services: ServicesDep, user: CurrentUser,
                  learner: str | None = None) -> ProgressOut:
    course = repo.visible_course(db, user, course_id)
    who = _learner(db, user, course, learner)
    name = learning_repo.scheduler_name(db, course.id)
    bites = learning_repo.list_bites(db, course.id)
    p = progress(bites, learning_repo.states(db, who, course.id, get_scheduler(name)), services.clock())
    return ProgressOut(course=course.id, learner=who.name, scheduler=name, **p.to_dict())

