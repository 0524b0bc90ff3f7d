"""The model seam: message types, the `LLM` protocol and the behaviour every backend shares.

One wire format (OpenAI chat completions) is the common ground: OpenAI, vLLM, Ollama and the llama.cpp server all
speak it, so the types here mirror it closely (roles system/user/assistant/tool, tool calls with JSON arguments).

Every backend (the real `OpenAICompatibleLLM`, the test doubles `FakeLLM` and `FunctionLLM`) subclasses `BaseLLM`,
which implements the parts that must behave identically everywhere:

- `structured()`: JSON-schema output validated with pydantic; on invalid JSON or a schema violation ONE retry with
  the validation error appended to the conversation, then `LLMOutputError` naming what was wrong.
- `stream()`: a `TextStream` of text deltas whose usage is known once it is exhausted.
- a `CallRecord` for every request, kept in `calls` and passed to the optional `on_call` callback.

A backend only implements `_request()` (one completion) and `_request_stream()` (text deltas, then one `Usage`).
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Generic, Literal, Protocol, TypeVar, runtime_checkable

from pydantic import BaseModel, ConfigDict, ValidationError, model_validator

from app.errors import LLMOutputError
from app.llm.structured import describe_invalid, response_format_for, retry_prompt, validate_reply

Role = Literal["system", "user", "assistant", "tool"]
CallKind = Literal["complete", "stream", "structured"]
T = TypeVar("T", bound=BaseModel)


class ToolCall(BaseModel):
    """A function call the model asked for. `arguments` is the decoded JSON object."""

    model_config = ConfigDict(frozen=True)

    id: str
    name: str
    arguments: dict[str, Any] = {}


class Message(BaseModel):
    """One chat message. A `tool` message answers the assistant's tool call named by `tool_call_id`."""

    model_config = ConfigDict(frozen=True)

    role: Role
    content: str | None = None
    tool_call_id: str | None = None
    tool_calls: tuple[ToolCall, ...] = ()

    @model_validator(mode="after")
    def _check_shape(self) -> Message:
        if self.role == "tool" and not self.tool_call_id:
            raise ValueError("a tool message needs the tool_call_id it answers")
        if self.tool_calls and self.role != "assistant":
            raise ValueError("only assistant messages carry tool_calls")
        if self.content is None and not self.tool_calls:
            raise ValueError(f"a {self.role} message needs content")
        return self

    @classmethod
    def system(cls, content: str) -> Message:
        return cls(role="system", content=content)

    @classmethod
    def user(cls, content: str) -> Message:
        return cls(role="user", content=content)

    @classmethod
    def assistant(cls, content: str | None = None, tool_calls: Sequence[ToolCall] = ()) -> Message:
        return cls(role="assistant", content=content, tool_calls=tuple(tool_calls))

    @classmethod
    def tool(cls, tool_call_id: str, content: str) -> Message:
        return cls(role="tool", tool_call_id=tool_call_id, content=content)


class Tool(BaseModel):
    """A function the model may call: name, description and a JSON schema of its arguments."""

    model_config = ConfigDict(frozen=True)

    name: str
    description: str = ""
    parameters: dict[str, Any] = {"type": "object", "properties": {}}

    @classmethod
    def from_model(cls, name: str, description: str, arguments: type[BaseModel]) -> Tool:
        """A tool whose arguments are described by a pydantic model."""
        return cls(name=name, description=description, parameters=arguments.model_json_schema())


class Usage(BaseModel):
    """Token counts of one request (or a sum of several). Cached tokens are part of `prompt_tokens`."""

    model_config = ConfigDict(frozen=True)

    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached_prompt_tokens: int = 0

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            prompt_tokens=self.prompt_tokens + other.prompt_tokens,
            completion_tokens=self.completion_tokens + other.completion_tokens,
            cached_prompt_tokens=self.cached_prompt_tokens + other.cached_prompt_tokens,
        )


class Completion(BaseModel):
    """A model's reply: text and/or tool calls, with what it cost."""

    model_config = ConfigDict(frozen=True)

    text: str | None = None
    tool_calls: tuple[ToolCall, ...] = ()
    usage: Usage = Usage()
    latency_ms: float = 0.0
    model: str = ""
    finish_reason: str | None = None

    def as_message(self) -> Message:
        """The assistant message to append to the conversation before answering its tool calls."""
        return Message.assistant(self.text if self.text is not None or self.tool_calls else "", self.tool_calls)


class CallRecord(BaseModel):
    """One request to a model, for logs and the usage ledger. `attempts` counts transport retries + 1."""

    model_config = ConfigDict(frozen=True)

    model: str
    usage: Usage
    latency_ms: float
    kind: CallKind
    attempts: int = 1


@dataclass(frozen=True)
class Structured(Generic[T]):
    """A validated structured reply. `usage` sums every attempt; `attempts` is 1, or 2 after the one retry."""

    value: T
    completion: Completion
    usage: Usage
    attempts: int


@dataclass(frozen=True)
class Request:
    """What a backend was asked: kept by the fakes (`FakeLLM.requests`) and handed to `FunctionLLM`'s function."""

    kind: CallKind
    messages: tuple[Message, ...]
    tools: tuple[Tool, ...] = ()
    temperature: float | None = None
    max_tokens: int | None = None
    response_format: dict[str, Any] | None = None

    @property
    def schema(self) -> dict[str, Any] | None:
        """The JSON schema a structured request asks for, if any."""
        if self.response_format and self.response_format.get("type") == "json_schema":
            return self.response_format["json_schema"]["schema"]
        return None


@runtime_checkable
class LLM(Protocol):
    """What the tutor needs from a generative model."""

    model: str
    calls: list[CallRecord]

    def complete(
        self,
        messages: Sequence[Message],
        *,
        tools: Sequence[Tool] | None = None,
        temperature: float | None = None,
        max_tokens: int | None = None,
    ) -> Completion: ...

    def stream(
        self,
        messages: Sequence[Message],
        *,
        temperature: float | None = None,
        max_tokens: int | None = None,
    ) -> TextStream: ...

    def structured(
        self,
        messages: Sequence[Message],
        schema: type[T],
        *,
        temperature: float | None = None,
        max_tokens: int | None = None,
    ) -> Structured[T]: ...


class TextStream(Iterator[str]):
    """Text deltas of a streamed reply. `text`, `usage` and `latency_ms` are complete once it is exhausted."""

    def __init__(
        self, chunks: Iterator[str | Usage], on_done: Callable[[TextStream], None], clock: Callable[[], float]
    ) -> None:
        self._chunks = chunks
        self._on_done = on_done
        self._clock = clock
        self._start = clock()
        self._parts: list[str] = []
        self.usage: Usage | None = None
        self.latency_ms: float | None = None
        self.done = False

    @property
    def text(self) -> str:
        return "".join(self._parts)

    def __iter__(self) -> TextStream:
        return self

    def __next__(self) -> str:
        if self.done:
            raise StopIteration
        for chunk in self._chunks:
            if isinstance(chunk, Usage):
                self.usage = chunk
                continue
            self._parts.append(chunk)
            return chunk
        self.done = True
        self.latency_ms = (self._clock() - self._start) * 1000.0
        if self.usage is None:
            self.usage = Usage()
        self._on_done(self)
        raise StopIteration


def rough_token_count(text: str | None) -> int:
    """Whitespace-separated words: a stand-in for tokens where no tokenizer is at hand (fakes, mock server)."""
    return len(text.split()) if text else 0


class BaseLLM:
    """Shared behaviour of every backend; subclasses implement `_request` and `_request_stream`."""

    def __init__(
        self,
        model: str,
        *,
        on_call: Callable[[CallRecord], None] | None = None,
        clock: Callable[[], float] = time.perf_counter,
    ) -> None:
        self.model = model
        self.calls: list[CallRecord] = []
        self.on_call = on_call
        self._clock = clock

    # -- what a backend implements ------------------------------------------------------------------------------

    def _request(self, request: Request) -> tuple[Completion, int]:
        """Run one request; return the completion (usage, model filled in) and the number of attempts it took."""
        raise NotImplementedError

    def _request_stream(self, request: Request) -> Iterator[str | Usage]:
        """Yield text deltas, then (at most) one `Usage`."""
        raise NotImplementedError

    # -- the protocol ---------------------------------------------------------------------------------------------

    def complete(
        self,
        messages: Sequence[Message],
        *,
        tools: Sequence[Tool] | None = None,
        temperature: float | None = None,
        max_tokens: int | None = None,
    ) -> Completion:
        """One reply: text and/or tool calls."""
        request = Request("complete", tuple(messages), tuple(tools or ()), temperature, max_tokens)
        return self._timed(request)

    def stream(
        self,
        messages: Sequence[Message],
        *,
        temperature: float | None = None,
        max_tokens: int | None = None,
    ) -> TextStream:
        """Text deltas as they arrive; the call is recorded when the stream is exhausted."""
        request = Request("stream", tuple(messages), (), temperature, max_tokens)

        def done(stream: TextStream) -> None:
            assert stream.usage is not None and stream.latency_ms is not None
            self._record(CallRecord(model=self.model, usage=stream.usage, latency_ms=stream.latency_ms, kind="stream"))

        return TextStream(self._request_stream(request), done, self._clock)

    def structured(
        self,
        messages: Sequence[Message],
        schema: type[T],
        *,
        temperature: float | None = None,
        max_tokens: int | None = None,
    ) -> Structured[T]:
        """A reply validated into `schema`, with one corrective retry (see the module docstring)."""
        conversation = list(messages)
        response_format = response_format_for(schema)
        usage = Usage()
        problem = ""
        for attempt in (1, 2):
            request = Request("structured", tuple(conversation), (), temperature, max_tokens, response_format)
            completion = self._timed(request)
            usage = usage + completion.usage
            try:
                value = validate_reply(schema, completion.text)
            except (ValidationError, ValueError) as error:
                problem = describe_invalid(error)
                conversation += [
                    Message.assistant(completion.text or ""),
                    Message.user(retry_prompt(schema, problem)),
                ]
                continue
            return Structured(value=value, completion=completion, usage=usage, attempts=attempt)
        raise LLMOutputError(
            f"model {self.model!r} returned output that does not match {schema.__name__} even after a retry: {problem}",
            hint="try a larger or instruction-tuned model, or one whose server supports json_schema response_format",
        )

    # -- bookkeeping ----------------------------------------------------------------------------------------------

    def _timed(self, request: Request) -> Completion:
        start = self._clock()
        completion, attempts = self._request(request)
        latency_ms = (self._clock() - start) * 1000.0
        completion = completion.model_copy(update={"latency_ms": latency_ms})
        self._record(
            CallRecord(
                model=completion.model or self.model,
                usage=completion.usage,
                latency_ms=latency_ms,
                kind=request.kind,
                attempts=attempts,
            )
        )
        return completion

    def _record(self, record: CallRecord) -> None:
        self.calls.append(record)
        if self.on_call is not None:
            self.on_call(record)


def reply_text_of(value: Any) -> str:
    """JSON text for a structured reply given as a pydantic model or a plain JSON-able value."""
    if isinstance(value, BaseModel):
        return value.model_dump_json()
    return json.dumps(value)


__all__ = [
    "LLM",
    "BaseLLM",
    "CallKind",
    "CallRecord",
    "Completion",
    "Message",
    "Request",
    "Role",
    "Structured",
    "TextStream",
    "Tool",
    "ToolCall",
    "Usage",
    "reply_text_of",
    "rough_token_count",
]
