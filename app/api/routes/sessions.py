"""Tutoring sessions: start one in a course, send messages, read the full history.

Every message and tool call is committed as it happens — the learner's message before the tutor runs, the reply
right after — so a crash loses at most the reply being written, and a reload continues the same conversation.
A session idle for longer than `TUTOR_SESSION_IDLE_MINUTES` is expired: readable, but it takes no more messages.
"""

from __future__ import annotations

import time
from dataclasses import asdict

from fastapi import APIRouter, HTTPException, status

from app.api.deps import CurrentUser, DbDep, ServicesDep
from app.api.schemas import (
    MessagePublic,
    SessionCreate,
    SessionDetail,
    SessionMessageCreate,
    SessionPublic,
    SessionReply,
    ToolCallPublic,
    UsageTotals,
    utc,
)
from app.api.tutoring import ask
from app.errors import TutorError
from app.store import repo
from app.store.models import ChatSession, SessionMessage, User
from app.tutor.types import Turn

router = APIRouter(prefix="/v1/sessions", tags=["sessions"])


def session_public(db, s: ChatSession, services) -> SessionPublic:
    expired = repo.is_expired(s, now=services.clock(), idle=services.session_idle)
    owner = db.get(User, s.user_id)
    return SessionPublic(
        id=s.id, course=s.course_id, user=owner.name if owner else "?", status="expired" if expired else "active",
        created=utc(s.created), last_active=utc(s.last_active), expires_at=utc(s.last_active) + services.session_idle,
    )


def message_public(m: SessionMessage) -> MessagePublic:
    return MessagePublic(
        seq=m.seq, role=m.role, content=m.content, intent=m.intent, help_level=m.help_level, grounding=m.grounding,
        mode=m.mode, citations=m.citations or [], prompt_tokens=m.prompt_tokens, completion_tokens=m.completion_tokens,
        latency_ms=m.latency_ms, created=utc(m.created),
    )


@router.post("", response_model=SessionPublic, status_code=status.HTTP_201_CREATED)
def create_session(body: SessionCreate, db: DbDep, services: ServicesDep, user: CurrentUser) -> SessionPublic:
    course = repo.visible_course(db, user, body.course)
    s = repo.create_session(db, course, user, now=services.clock())
    db.commit()
    return session_public(db, s, services)


@router.get("/{session_id}", response_model=SessionDetail)
def read_session(session_id: str, db: DbDep, services: ServicesDep, user: CurrentUser) -> SessionDetail:
    """The whole history: messages, the tool calls behind each reply with their durations, and token usage."""
    s = repo.visible_session(db, user, session_id)
    msgs = repo.session_messages(db, s.id)
    calls = repo.session_tool_calls(db, s.id)
    prompt = sum(m.prompt_tokens for m in msgs)
    completion = sum(m.completion_tokens for m in msgs)
    return SessionDetail(
        **session_public(db, s, services).model_dump(),
        messages=[message_public(m) for m in msgs],
        tool_calls=[
            ToolCallPublic(message_seq=c.message_seq, name=c.name, arguments=c.arguments, result=c.result,
                           duration_ms=c.duration_ms, ok=c.ok, created=utc(c.created))
            for c in calls
        ],
        usage=UsageTotals(prompt_tokens=prompt, completion_tokens=completion, total_tokens=prompt + completion),
    )


@router.post(
    "/{session_id}/messages", response_model=SessionReply, responses={410: {"description": "the session expired"}}
)
def post_message(
    session_id: str, body: SessionMessageCreate, db: DbDep, services: ServicesDep, user: CurrentUser
) -> SessionReply:
    """Send the learner's message; the tutor's reply comes back and both are in the history."""
    s = repo.own_session(db, user, session_id)
    if repo.is_expired(s, now=services.clock(), idle=services.session_idle):
        raise HTTPException(
            status.HTTP_410_GONE,
            f"session {session_id} expired after {services.settings.session_idle_minutes} idle minutes; start a new one",
        )
    history = [
        Turn(role=m.role, content=m.content, intent=m.intent, help_level=m.help_level)  # type: ignore[arg-type]
        for m in repo.session_messages(db, s.id)
        if m.role in ("user", "assistant")
    ]
    user_msg = repo.add_message(db, s, "user", body.content, now=services.clock())
    db.commit()  # the learner's message is safe before the tutor starts

    t0 = time.perf_counter()
    try:
        answer = ask(services, s.course_id, body.content, history)
    except TutorError as e:
        repo.add_tool_call(
            db, s, message_seq=user_msg.seq + 1, name="tutor.answer", arguments={"question": body.content},
            result={"error": type(e).__name__, "detail": str(e)}, duration_ms=(time.perf_counter() - t0) * 1000,
            ok=False, now=services.clock(),
        )
        db.commit()
        raise
    r = answer.reply
    reply_msg = repo.add_message(
        db, s, "assistant", r.reply, now=services.clock(), intent=r.intent, help_level=r.help_level,
        grounding=r.grounding, mode=r.mode, citations=[asdict(c) for c in r.citations],
        prompt_tokens=r.usage.prompt_tokens, completion_tokens=r.usage.completion_tokens,
        cached_prompt_tokens=r.usage.cached_prompt_tokens, latency_ms=round(answer.latency_ms, 3),
    )
    repo.add_tool_call(
        db, s, message_seq=reply_msg.seq, name="tutor.answer", arguments={"question": body.content},
        result={"intent": r.intent, "grounding": r.grounding, "retrieved": list(r.retrieved),
                "citations": len(r.citations)},
        duration_ms=answer.latency_ms, ok=True, now=services.clock(),
    )
    db.commit()
    return SessionReply(session=s.id, user_message=message_public(user_msg), reply=message_public(reply_msg))
