"""Test doubles shipped with the package: `FakeLLM` plays queued replies, `FunctionLLM` calls a function.

Both run every code path of the real backend (structured output with its retry, tool calls, streaming, usage
records) without a network, and both pass the same contract test as `OpenAICompatibleLLM`.

`FakeLLM` fails loudly: a call with nothing queued raises `UnexpectedModelCall`, an `AssertionError` and
deliberately *not* an `LLMError`, so code that degrades gracefully on model errors cannot swallow it.
"""

from __future__ import annotations

import re
from collections import deque
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel

from app.llm.base import (
    BaseLLM,
    CallRecord,
    Completion,
    Message,
    Request,
    ToolCall,
    Usage,
    reply_text_of,
    rough_token_count,
)


class UnexpectedModelCall(AssertionError):
    """A fake model was called with no reply queued (or with a reply of the wrong kind)."""


@dataclass(frozen=True)
class Reply:
    """One scripted reply: text and/or tool calls, or an error to raise. `usage=None` estimates it from words."""

    text: str | None = None
    tool_calls: tuple[ToolCall, ...] = ()
    error: BaseException | None = None
    usage: Usage | None = None


ToolCallLike = ToolCall | Mapping[str, Any]


def _tool_call(value: ToolCallLike, index: int) -> ToolCall:
    if isinstance(value, ToolCall):
        return value
    data = dict(value)
    data.setdefault("id", f"call_{index}")
    return ToolCall.model_validate(data)


def _estimate_usage(request: Request, reply: Reply) -> Usage:
    """Word counts, as the mock server does: plausible numbers for tests, not a tokenizer."""
    prompt = sum(rough_token_count(m.content) for m in request.messages)
    completion = rough_token_count(reply.text) + sum(
        rough_token_count(reply_text_of(c.arguments)) for c in reply.tool_calls
    )
    return Usage(prompt_tokens=prompt, completion_tokens=completion)


def split_deltas(text: str) -> list[str]:
    """Split a reply into word-sized stream deltas that join back to exactly `text`."""
    return re.findall(r"\s*\S+|\s+$", text) or [text]


def _last_user_text(messages: Sequence[Message]) -> str:
    for message in reversed(messages):
        if message.role == "user" and message.content:
            return message.content[:80]
    return ""


class FakeLLM(BaseLLM):
    """Plays replies queued with `enqueue(...)` in order; records every request in `requests`."""

    def __init__(self, model: str = "fake", *, on_call: Callable[[CallRecord], None] | None = None) -> None:
        super().__init__(model, on_call=on_call)
        self.requests: list[Request] = []
        self._queue: deque[Reply] = deque()

    def enqueue(
        self,
        text: str | None = None,
        *,
        json: Any = None,
        tool_calls: Sequence[ToolCallLike] | None = None,
        error: BaseException | None = None,
        usage: Usage | None = None,
    ) -> FakeLLM:
        """Queue one reply: `text`, `json` (a model or JSON-able value, sent as JSON text), `tool_calls`, or an
        `error` to raise. Text may accompany tool calls. Returns self so calls chain."""
        if json is not None:
            if text is not None:
                raise ValueError("enqueue either text= or json=, not both")
            text = reply_text_of(json)
        calls = tuple(_tool_call(c, len(self._queue) + i) for i, c in enumerate(tool_calls or ()))
        if error is not None and (text is not None or calls):
            raise ValueError("an error reply carries no text or tool calls")
        if error is None and text is None and not calls:
            raise ValueError("enqueue needs text=, json=, tool_calls= or error=")
        self._queue.append(Reply(text=text, tool_calls=calls, error=error, usage=usage))
        return self

    @property
    def pending(self) -> int:
        """Replies still queued; assert it is 0 at the end of a test to catch replies nobody asked for."""
        return len(self._queue)

    def _next(self, request: Request) -> Reply:
        self.requests.append(request)
        if not self._queue:
            raise UnexpectedModelCall(
                f"FakeLLM got a {request.kind}() call (last user message: {_last_user_text(request.messages)!r}) "
                f"but no reply is queued ({len(self.requests)} calls so far) — "
                "queue one with llm.enqueue(text=...), enqueue(json=...) or enqueue(tool_calls=[...])"
            )
        reply = self._queue.popleft()
        if reply.error is not None:
            raise reply.error
        return reply

    def _request(self, request: Request) -> tuple[Completion, int]:
        reply = self._next(request)
        return _completion(self.model, request, reply), 1

    def _request_stream(self, request: Request) -> Iterator[str | Usage]:
        reply = self._next(request)
        yield from _stream_reply(request, reply)


def _completion(model: str, request: Request, reply: Reply) -> Completion:
    return Completion(
        text=reply.text,
        tool_calls=reply.tool_calls,
        usage=reply.usage or _estimate_usage(request, reply),
        model=model,
        finish_reason="tool_calls" if reply.tool_calls else "stop",
    )


def _stream_reply(request: Request, reply: Reply) -> Iterator[str | Usage]:
    if reply.text is None:
        raise UnexpectedModelCall("stream() got a tool-call reply; stream() only carries text — queue text=...")
    yield from split_deltas(reply.text)
    yield reply.usage or _estimate_usage(request, reply)


ReplyLike = str | Reply | Completion | BaseModel | Mapping[str, Any] | list[Any]
ReplyFunction = Callable[[list[Message], Request], ReplyLike]


def to_reply(value: ReplyLike) -> Reply:
    """Turn what a `FunctionLLM` function returned into a `Reply`: text, a model/dict (sent as JSON), a list of
    tool calls, a `Completion` or a `Reply`."""
    if isinstance(value, Reply):
        return value
    if isinstance(value, str):
        return Reply(text=value)
    if isinstance(value, Completion):
        usage = value.usage if value.usage.total_tokens else None
        return Reply(text=value.text, tool_calls=value.tool_calls, usage=usage)
    if isinstance(value, list):
        return Reply(tool_calls=tuple(_tool_call(c, i) for i, c in enumerate(value)))
    if isinstance(value, BaseModel | Mapping):
        return Reply(text=reply_text_of(dict(value) if isinstance(value, Mapping) else value))
    raise TypeError(f"FunctionLLM function returned {type(value).__name__}; return str, a model, dict, list or Reply")


class FunctionLLM(BaseLLM):
    """A model whose replies come from `fn(messages, request)`; `stream_fn`, if given, yields the text deltas."""

    def __init__(
        self,
        fn: ReplyFunction,
        *,
        stream_fn: Callable[[list[Message], Request], Iterator[str]] | None = None,
        model: str | None = None,
        on_call: Callable[[CallRecord], None] | None = None,
    ) -> None:
        super().__init__(model or f"function:{getattr(fn, '__name__', 'fn')}", on_call=on_call)
        self.fn = fn
        self.stream_fn = stream_fn

    def _request(self, request: Request) -> tuple[Completion, int]:
        reply = to_reply(self.fn(list(request.messages), request))
        if reply.error is not None:
            raise reply.error
        return _completion(self.model, request, reply), 1

    def _request_stream(self, request: Request) -> Iterator[str | Usage]:
        if self.stream_fn is None:
            reply = to_reply(self.fn(list(request.messages), request))
            if reply.error is not None:
                raise reply.error
            yield from _stream_reply(request, reply)
            return
        parts = []
        for delta in self.stream_fn(list(request.messages), request):
            parts.append(delta)
            yield delta
        yield _estimate_usage(request, Reply(text="".join(parts)))
