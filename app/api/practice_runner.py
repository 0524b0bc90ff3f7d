"""Guided practice behind the API: build the tutor for a stored session, run one turn, store what happened.

Nothing lives only in memory between requests: each request rebuilds the `GuidedSession` from its row (the state
saved by `GuidedSession.to_state`, the hint events and ratings of their own tables, and in agent mode the model
conversation), runs one turn, and commits the new state, the transcript, every hint event and every rating in one
transaction. A restarted server therefore continues exactly where the last committed turn left off.

Mode: `agent` (`AgentTutor`) when a model is configured (or injected into `create_app`), `grounded`
(`GroundedTutor` with the offline grader) otherwise. A rating whose question belongs to a learning bite
(`app.learning.links`) also reviews that bite in the learner's schedule, with the 1-10 score mapped to 0-5
(`app.learning.scales`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from sqlalchemy.orm import Session

from app.errors import UserError
from app.learning.links import bite_for_question
from app.learning.scheduler import get_scheduler
from app.llm.base import Message
from app.practice.agent import AgentTutor
from app.practice.grounded import GroundedTutor
from app.practice.questions import Question
from app.practice.session import GuidedSession
from app.practice.turns import TutorTurn
from app.store import learning_repo, practice_repo
from app.store.models import Course, PracticeSession, User
from indexing.models import Chunk

if TYPE_CHECKING:
    from app.api.main import Services

MAX_MATERIAL_CHUNKS = 12


def material_for(services: Services, course: str, questions: list[Question]) -> list[Chunk]:
    """The chunks the questions cite (by chunk id, else by section), in course order; none without an index."""
    from indexing.store import live_manifest, load_index

    if live_manifest(services.settings.data_dir, course) is None:
        return []
    chunks = load_index(services.settings.data_dir, course).chunks
    ids = {i for q in questions for i in q.chunk_ids}
    sections = {q.section.casefold() for q in questions if q.section}
    picked = [c for c in chunks if c.id in ids or (c.section or "").casefold() in sections]
    return picked[:MAX_MATERIAL_CHUNKS]


@dataclass
class Built:
    row: PracticeSession
    session: GuidedSession
    tutor: GroundedTutor | AgentTutor
    store: practice_repo.SqlPracticeStore
    schedule_updates: list[dict[str, Any]] = field(default_factory=list)


def _asked_at(session: GuidedSession):
    def asked(qid: str):
        cur = session.current
        return cur.asked_at if cur is not None and cur.question.id == qid else None

    return asked


def build(services: Services, db: Session, row: PracticeSession, learner: User, *, fresh: bool) -> Built:
    """The session and its tutor for `row`; restored from the stored state unless `fresh`."""
    questions = practice_repo.session_questions(row)
    material = [Chunk.from_dict(c) for c in (row.state or {}).get("material", [])]
    store = practice_repo.SqlPracticeStore(db, now=services.clock)
    session = GuidedSession(session_id=row.id, course=row.course_id, learner=learner.name, questions=questions,
                            material=material, store=store)
    store.asked_at = _asked_at(session)
    if not fresh:
        ratings = [r for r, _ in practice_repo.session_ratings(db, row)]
        session.restore(row.state.get("session", {}), practice_repo.session_hints(db, row.id), ratings)
    if row.mode == "agent":
        if services.llm is None:
            raise UserError("this practice session was started with a model, and no model is configured now",
                            hint="configure TUTOR_LLM_BASE_URL and TUTOR_LLM_MODEL again, or start a new session")
        tutor: GroundedTutor | AgentTutor = AgentTutor(services.llm, session)
        if not fresh:
            tutor.messages = [Message.model_validate(m) for m in row.agent_messages]
    else:
        from app.grading.grader import OfflineGrader

        tutor = GroundedTutor(session, OfflineGrader(services.embedder()))
    return Built(row, session, tutor, store)


def start(
    services: Services, db: Session, course: str, user: User, question_ids: list[str] | None
) -> tuple[Built, TutorTurn]:
    questions = practice_repo.get_questions(db, course, question_ids)
    if not questions:
        raise UserError(f"course {course!r} has no practice questions yet",
                        hint=f"a teacher adds them: POST /v1/courses/{course}/questions or "
                        f"POST /v1/courses/{course}/questions:generate")
    mode = "agent" if services.llm is not None else "grounded"
    row = practice_repo.create_session(db, db.get_one(Course, course), user, mode=mode, questions=questions,
                                       now=services.clock())
    row.state = {"material": [c.to_dict() for c in material_for(services, course, questions)]}
    built = build(services, db, row, user, fresh=True)
    turn = built.tutor.start(services.clock())
    finish_turn(services, db, built, user, turn)
    return built, turn


def respond(
    services: Services, db: Session, row: PracticeSession, user: User, content: str
) -> tuple[Built, TutorTurn]:
    row = practice_repo.lock_session(db, row)
    if row.finished:
        raise UserError(f"practice session {row.id} is finished", hint="POST /v1/practice starts a new one")
    current = ((row.state or {}).get("session") or {}).get("current") or {}
    practice_repo.add_message(db, row, "user", content, now=services.clock(), question_id=current.get("question_id"))
    built = build(services, db, row, user, fresh=False)
    turn = built.tutor.respond(content, services.clock())
    finish_turn(services, db, built, user, turn)
    return built, turn


def finish_turn(services: Services, db: Session, built: Built, user: User, turn: TutorTurn) -> None:
    """Store the new state and the tutor's message; review the bites of newly rated questions."""
    row, session = built.row, built.session
    now = services.clock()
    row.state = {**(row.state or {}), "session": session.to_state()}
    if isinstance(built.tutor, AgentTutor):
        row.agent_messages = [m.model_dump(mode="json") for m in built.tutor.messages]
    row.finished = session.finished
    practice_repo.add_message(
        db, row, "assistant", turn.text, now=now, question_id=turn.question_id,
        tool_calls=[t.model_dump(mode="json") for t in turn.tool_calls],
    )
    if built.store.saved:
        bites = learning_repo.list_bites(db, row.course_id)
        scheduler = get_scheduler(learning_repo.scheduler_name(db, row.course_id))
        by_id = {q.id: q for q in session.questions}
        for rating, rating_id in built.store.saved:
            bite = bite_for_question(by_id[rating.question_id], bites)
            if bite is None:
                continue
            state = learning_repo.review(
                db, user, learning_repo.bite_row(db, row.course_id, bite.id), rating.quality, origin="practice",
                ref=str(rating_id), now=now, scheduler=scheduler,
            )
            built.schedule_updates.append({"bite": bite.id, "question_id": rating.question_id, "score": rating.score,
                                           "quality": rating.quality, "schedule": state.to_dict()})
    db.flush()
