"""Request and response bodies of the API (pydantic), so `/docs` and `/openapi.json` describe every field."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field


def utc(dt: datetime) -> datetime:
    """SQLite hands back naive datetimes; everything stored is UTC."""
    return dt if dt.tzinfo else dt.replace(tzinfo=UTC)


class Message(BaseModel):
    message: str


class UserCreate(BaseModel):
    name: str = Field(min_length=1, max_length=64)
    role: Literal["admin", "teacher", "learner"]


class UserPublic(BaseModel):
    id: int
    name: str
    role: str


class UserWithToken(UserPublic):
    token: str = Field(description="Shown once; only its hash is stored.")


class CourseCreate(BaseModel):
    id: str = Field(min_length=1, max_length=64, description="Lower-case letters, digits, '.', '_' or '-'.")
    title: str | None = Field(None, max_length=200)


class CoursePublic(BaseModel):
    id: str
    title: str
    owner: str | None
    documents: int
    chunks: int


class GrantCreate(BaseModel):
    user: str = Field(min_length=1, max_length=64, description="A teacher becomes the owner; a learner is enrolled.")


class GrantPublic(BaseModel):
    course: str
    user: str
    granted: Literal["owner", "enrolled"]


class DocumentPublic(BaseModel):
    name: str
    pages: int
    chunks: int
    sha256: str
    ingested: str | None = None


class DocumentDeleted(BaseModel):
    course: str
    deleted: str
    version: str


class JobPublic(BaseModel):
    id: str
    course: str
    filename: str
    status: Literal["queued", "running", "succeeded", "failed"]
    progress: float
    reason: str | None
    chunks: int
    created: datetime
    updated: datetime


class CitationPublic(BaseModel):
    chunk_id: str
    source: str
    page_start: int
    page_end: int


class SessionCreate(BaseModel):
    course: str = Field(min_length=1, max_length=64)


class SessionMessageCreate(BaseModel):
    content: str = Field(min_length=1, max_length=20_000)


class MessagePublic(BaseModel):
    seq: int
    role: str
    content: str
    intent: str | None = None
    help_level: int | None = None
    grounding: str | None = None
    mode: str | None = None
    citations: list[CitationPublic] = []
    prompt_tokens: int = 0
    completion_tokens: int = 0
    latency_ms: float | None = None
    created: datetime


class ToolCallPublic(BaseModel):
    message_seq: int
    name: str
    arguments: dict[str, Any]
    result: dict[str, Any]
    duration_ms: float
    ok: bool
    created: datetime


class UsageTotals(BaseModel):
    prompt_tokens: int
    completion_tokens: int
    total_tokens: int


class SessionPublic(BaseModel):
    id: str
    course: str
    user: str
    status: Literal["active", "expired"]
    created: datetime
    last_active: datetime
    expires_at: datetime


class SessionDetail(SessionPublic):
    messages: list[MessagePublic]
    tool_calls: list[ToolCallPublic]
    usage: UsageTotals


class SessionReply(BaseModel):
    session: str
    user_message: MessagePublic
    reply: MessagePublic


# ------------------------------------------------------------------ OpenAI chat completions


class ChatMessageIn(BaseModel):
    model_config = ConfigDict(extra="allow")

    role: Literal["system", "developer", "user", "assistant", "tool"]
    content: str | list[dict[str, Any]] | None = None

    def text(self) -> str:
        if isinstance(self.content, str):
            return self.content
        if not self.content:
            return ""
        return "".join(str(p.get("text", "")) for p in self.content if isinstance(p, dict) and p.get("type") == "text")


class ChatCompletionRequest(BaseModel):
    """OpenAI's request shape; `model` is the course id. Sampling options are accepted and ignored."""

    model_config = ConfigDict(extra="allow")

    model: str = Field(min_length=1, max_length=64, description="The course id.")
    messages: list[ChatMessageIn] = Field(min_length=1)
    stream: bool = False


class ChatCompletionMessage(BaseModel):
    role: Literal["assistant"] = "assistant"
    content: str


class ChatChoice(BaseModel):
    index: int = 0
    message: ChatCompletionMessage
    finish_reason: Literal["stop"] = "stop"


class ChatUsage(BaseModel):
    prompt_tokens: int
    completion_tokens: int
    total_tokens: int


class ChatCompletion(BaseModel):
    """OpenAI's `chat.completion` plus the tutor's extras as top-level fields."""

    id: str
    object: Literal["chat.completion"] = "chat.completion"
    created: int
    model: str
    choices: list[ChatChoice]
    usage: ChatUsage
    intent: str
    citations: list[CitationPublic]
    grounding: str
    help_level: int
    mode: str


class ModelPublic(BaseModel):
    id: str
    object: Literal["model"] = "model"
    created: int
    owned_by: str


class ModelList(BaseModel):
    object: Literal["list"] = "list"
    data: list[ModelPublic]
