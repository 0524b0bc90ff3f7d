"""OpenAI-compatible chat: `POST /v1/chat/completions` with `model` = course id, and `GET /v1/models`.

The tutor's extras (`intent`, `citations`, `grounding`, `help_level`, `mode`) are additional top-level fields of the
completion and of the last stream chunk; OpenAI clients keep unknown fields, so `completion.citations` (or
`model_extra`) reads them. Streaming follows OpenAI's server-sent events: `chat.completion.chunk` objects, the first
with the assistant role, then content deltas, then one with `finish_reason: "stop"`, then `data: [DONE]`.

The conversation comes in `messages` (stateless, like OpenAI): the last user message is the question, earlier user
and assistant messages are the history; system messages are ignored (the tutor has its own instructions).
"""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Iterator
from dataclasses import asdict

from fastapi import APIRouter
from fastapi.responses import StreamingResponse

from app.api.deps import CurrentUser, DbDep, ServicesDep
from app.api.schemas import (
    ChatChoice,
    ChatCompletion,
    ChatCompletionMessage,
    ChatCompletionRequest,
    ChatUsage,
    CitationPublic,
    ModelList,
    ModelPublic,
    utc,
)
from app.api.handlers import error_body
from app.api.logs import get_logger
from app.api.tutoring import StreamedAnswer, ask
from app.errors import TutorError, UserError
from app.store import repo
from app.tutor.types import Turn, TutorReply

router = APIRouter(prefix="/v1", tags=["chat"])
_log = get_logger("chat")


def split_conversation(body: ChatCompletionRequest) -> tuple[str, list[Turn]]:
    turns = [(m.role, m.text()) for m in body.messages if m.role in ("user", "assistant")]
    if not turns or turns[-1][0] != "user" or not turns[-1][1].strip():
        raise UserError("the last message must be the learner's (role 'user') and not empty")
    history = [Turn(role=role, content=text) for role, text in turns[:-1]]  # type: ignore[arg-type]
    return turns[-1][1], history


def extras(reply: TutorReply) -> dict:
    return {
        "intent": reply.intent,
        "citations": [asdict(c) for c in reply.citations],
        "grounding": reply.grounding,
        "help_level": reply.help_level,
        "mode": reply.mode,
    }


def usage(reply: TutorReply) -> dict:
    u = reply.usage
    return {"prompt_tokens": u.prompt_tokens, "completion_tokens": u.completion_tokens, "total_tokens": u.total_tokens}


def sse_chunks(completion_id: str, created: int, model: str, answer: StreamedAnswer) -> Iterator[str]:
    def chunk(delta: dict, finish: str | None, **more) -> str:
        body = {
            "id": completion_id, "object": "chat.completion.chunk", "created": created, "model": model,
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}], **more,
        }
        return f"data: {json.dumps(body, ensure_ascii=False)}\n\n"

    yield chunk({"role": "assistant", "content": ""}, None)
    try:
        for piece in answer:
            if piece:
                yield chunk({"content": piece}, None)
    except TutorError as e:  # the status line is sent already: report the error the way OpenAI streams do
        _log.warning("stream failed", extra={"error": type(e).__name__, "detail": str(e)})
        body = error_body(e.message, type_=type(e).__name__, hint=e.hint)
        yield f"data: {json.dumps(body, ensure_ascii=False)}\n\n"
        return
    reply = answer.reply
    assert reply is not None
    yield chunk({}, "stop", usage=usage(reply), **extras(reply))
    yield "data: [DONE]\n\n"


@router.post(
    "/chat/completions",
    response_model=ChatCompletion,
    responses={200: {"content": {"text/event-stream": {}}, "description": "JSON, or SSE chunks with stream=true"}},
)
def chat_completions(body: ChatCompletionRequest, db: DbDep, services: ServicesDep, user: CurrentUser):
    """Ask the tutor of course `model`, OpenAI style; `stream: true` answers with server-sent events."""
    course = repo.visible_course(db, user, body.model)
    db.close()  # nothing more to read; do not hold a connection while the tutor thinks
    question, history = split_conversation(body)
    completion_id, created = f"chatcmpl-{uuid.uuid4().hex}", int(time.time())
    if body.stream:
        streamed = StreamedAnswer(services, course.id, question, history).start()
        return StreamingResponse(
            sse_chunks(completion_id, created, course.id, streamed),
            media_type="text/event-stream",
            headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"},
        )
    reply = ask(services, course.id, question, history).reply
    return ChatCompletion(
        id=completion_id, created=created, model=course.id,
        choices=[ChatChoice(message=ChatCompletionMessage(content=reply.reply))], usage=ChatUsage(**usage(reply)),
        intent=reply.intent, citations=[CitationPublic(**asdict(c)) for c in reply.citations],
        grounding=reply.grounding, help_level=reply.help_level, mode=reply.mode,
    )


@router.get("/models", response_model=ModelList)
def list_models(db: DbDep, user: CurrentUser) -> ModelList:
    """The courses you can chat with, as OpenAI models (`model` = course id)."""
    return ModelList(
        data=[
            ModelPublic(id=c.id, created=int(utc(c.created).timestamp()), owned_by="socratic-tutor")
            for c in repo.visible_courses(db, user)
        ]
    )
