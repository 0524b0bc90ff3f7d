"""A mock OpenAI-compatible server that plays a script, for tests and for trying LLM mode without a model.

    POST /v1/chat/completions   non-streaming, or SSE (`data: {chunk}\\n\\n` ... `data: [DONE]\\n\\n`) when
                                `stream` is true, in OpenAI's chunk format, text split into word-sized deltas
    GET  /v1/models             the one model it pretends to serve

The script is a list of replies, played in order, one per chat request:

    {"text": "..."}                                      a text reply
    {"json": {...}}                                      a JSON reply (for structured output)
    {"tool_calls": [{"name": "f", "arguments": {...}}]}  a tool-call reply (may also carry "text")
    {"fault": 500}                                       that HTTP status with an OpenAI-style error body
    {"fault": "timeout", "delay": 5}                     wait `delay` seconds before answering
    {"fault": "invalid_json"}                            a reply whose content is broken JSON
    any reply may add "delay": seconds

When the script runs out the server answers by default: a minimal valid instance of the requested json_schema,
or `[mock] you said: <last user message>`.

Usage is counted in whitespace-separated words. `prompt_tokens_details.cached_tokens` is the length of the longest
common prefix (in words, over the concatenated message contents) with the previous request, so prompts that keep
a stable prefix show up as cache-friendly.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import socket
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Mapping
from pathlib import Path
from types import TracebackType
from typing import Any, Literal

import uvicorn
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from app.errors import UserError
from app.llm.fakes import split_deltas
from app.llm.structured import minimal_instance

ECHO_PREFIX = "[mock] you said: "
INVALID_JSON = '{"answer": "this JSON never ends'


class ScriptReply(BaseModel):
    """One scripted reply (see the module docstring)."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    text: str | None = None
    json_value: Any = Field(None, alias="json")
    tool_calls: list[dict[str, Any]] | None = None
    fault: int | Literal["timeout", "invalid_json"] | None = None
    delay: float = Field(0.0, ge=0.0)

    @model_validator(mode="after")
    def _one_kind(self) -> ScriptReply:
        kinds = [k for k in ("json_value", "tool_calls", "fault") if getattr(self, k) is not None]
        if self.text is not None and kinds and kinds != ["tool_calls"]:
            raise ValueError("text can only be combined with tool_calls")
        if len(kinds) > 1:
            raise ValueError(f"give one of json, tool_calls, fault (got {', '.join(kinds)})")
        if self.text is None and not kinds:
            raise ValueError("give text, json, tool_calls or fault")
        if isinstance(self.fault, int) and not 400 <= self.fault <= 599:
            raise ValueError(f"fault status {self.fault} is not an HTTP error status (400-599)")
        if self.fault == "timeout" and not self.delay:
            self.delay = 30.0  # long enough for any client timeout to fire first
        for call in self.tool_calls or ():
            if "name" not in call:
                raise ValueError("every tool call needs a name")
        return self


def load_script(path: str | Path) -> list[ScriptReply]:
    """Read a script: a JSON list of replies, or JSON lines (one reply per line; blank lines skipped)."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as error:
        raise UserError(f"cannot read the mock script {path}: {error.strerror}") from error
    try:
        whole = json.loads(text)
    except json.JSONDecodeError:
        whole = None
    if isinstance(whole, list):
        items = list(enumerate(whole, start=1))
        where = "item"
    else:
        items = []
        for number, line in enumerate(text.splitlines(), start=1):
            if line.strip():
                try:
                    items.append((number, json.loads(line)))
                except json.JSONDecodeError as error:
                    raise UserError(
                        f"{path}:{number}: not JSON ({error.msg})", hint="one JSON object per line"
                    ) from error
        where = "line"
    replies = []
    for number, item in items:
        try:
            replies.append(ScriptReply.model_validate(item))
        except ValidationError as error:
            problem = "; ".join(e["msg"] for e in error.errors(include_url=False))
            raise UserError(
                f"{path} {where} {number}: not a mock reply: {problem}",
                hint='use {"text": ...}, {"json": ...}, {"tool_calls": [...]} '
                'or {"fault": 500|"timeout"|"invalid_json"}',
            ) from error
    return replies


def _content_text(content: Any) -> str:
    """Message content as text; content may be a string or a list of parts."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return " ".join(p.get("text", "") for p in content if isinstance(p, dict))
    return ""


def prompt_words(body: Mapping[str, Any]) -> list[str]:
    """The request's prompt as words: every message's content, tool-call arguments included, in order."""
    words: list[str] = []
    for message in body.get("messages", []):
        words += _content_text(message.get("content")).split()
        for call in message.get("tool_calls") or ():
            words += str(call.get("function", {}).get("arguments", "")).split()
    return words


def common_prefix_length(a: list[str], b: list[str]) -> int:
    n = 0
    for x, y in zip(a, b):
        if x != y:
            break
        n += 1
    return n


def _error_body(status: int, message: str) -> dict[str, Any]:
    kind = "rate_limit_error" if status == 429 else "server_error" if status >= 500 else "invalid_request_error"
    return {"error": {"message": message, "type": kind, "param": None, "code": None}}


class MockLLMServer:
    """The mock server, run on a loopback port in a background thread (`start()`) or in the foreground (`serve()`).

    Thread-safe: tests `enqueue` replies and read `requests` while the server thread answers.
    """

    def __init__(
        self,
        script: Iterable[ScriptReply | Mapping[str, Any]] | str | Path | None = None,
        *,
        host: str = "127.0.0.1",
        port: int = 0,
        model: str = "mock-model",
    ) -> None:
        if isinstance(script, str | Path):
            replies = load_script(script)
        else:
            replies = [r if isinstance(r, ScriptReply) else ScriptReply.model_validate(r) for r in script or ()]
        self.host = host
        self.port = port
        self.model = model
        self.requests: list[dict[str, Any]] = []
        self._script: deque[ScriptReply] = deque(replies)
        self._lock = threading.Lock()
        self._previous_prompt: list[str] = []
        self._ids = itertools.count(1)
        self._stopping = threading.Event()
        self._server: uvicorn.Server | None = None
        self._thread: threading.Thread | None = None
        self.app = Starlette(
            routes=[
                Route("/v1/chat/completions", self._chat, methods=["POST"]),
                Route("/v1/models", self._models, methods=["GET"]),
            ]
        )

    # -- the programmatic API -------------------------------------------------------------------------------------

    @property
    def url(self) -> str:
        """The base URL to give an OpenAI client (ends in /v1)."""
        return f"http://{self.host}:{self.port}/v1"

    def enqueue(self, text: str | None = None, **reply: Any) -> MockLLMServer:
        """Append a reply to the script: `enqueue("hi")`, `enqueue(json={...})`, `enqueue(fault=500)`, ..."""
        if text is not None:
            reply["text"] = text
        item = ScriptReply.model_validate(reply)
        with self._lock:
            self._script.append(item)
        return self

    def reset(self) -> None:
        """Forget the script, the recorded requests and the cache prefix (to share one server across tests)."""
        with self._lock:
            self._script.clear()
            self.requests.clear()
            self._previous_prompt = []

    @property
    def pending(self) -> int:
        """Scripted replies not played yet."""
        with self._lock:
            return len(self._script)

    def _bind(self) -> socket.socket:
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        # Accepted connections inherit this; without it Nagle + delayed ACK add ~40 ms to every reply.
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        try:
            sock.bind((self.host, self.port))
        except OSError as error:
            sock.close()
            raise UserError(
                f"cannot listen on {self.host}:{self.port}: {error.strerror}", hint="pick another --port"
            ) from error
        self.port = sock.getsockname()[1]
        return sock

    def _uvicorn(self) -> uvicorn.Server:
        config = uvicorn.Config(self.app, log_level="warning", lifespan="off", timeout_graceful_shutdown=1)
        return uvicorn.Server(config)

    def start(self, timeout: float = 5.0) -> MockLLMServer:
        """Serve in a daemon thread; returns once the port accepts connections."""
        sock = self._bind()
        self._server = self._uvicorn()
        self._thread = threading.Thread(
            target=self._server.run, kwargs={"sockets": [sock]}, name="mock-llm-server", daemon=True
        )
        self._thread.start()
        deadline = time.monotonic() + timeout
        while not self._server.started:
            if not self._thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError(f"the mock LLM server did not start on {self.url}")
            time.sleep(0.005)
        return self

    def stop(self) -> None:
        """Stop the background server (also ends any reply still sleeping on a delay)."""
        self._stopping.set()
        if self._server is not None:
            self._server.should_exit = True
        if self._thread is not None:
            self._thread.join(timeout=5)
        self._server = self._thread = None

    def serve(self, on_ready: Callable[[str], None] | None = None) -> None:
        """Serve in the foreground until interrupted (the `tutor mock-llm` command). `on_ready(url)` runs once
        the port is bound, so a port of 0 can be reported."""
        sock = self._bind()
        if on_ready is not None:
            on_ready(self.url)
        self._uvicorn().run(sockets=[sock])

    def __enter__(self) -> MockLLMServer:
        return self.start()

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()

    # -- HTTP handlers --------------------------------------------------------------------------------------------

    async def _models(self, request: Request) -> Response:
        return JSONResponse(
            {"object": "list", "data": [{"id": self.model, "object": "model", "created": 0, "owned_by": "mock"}]}
        )

    async def _chat(self, request: Request) -> Response:
        try:
            body = await request.json()
        except json.JSONDecodeError:
            return JSONResponse(_error_body(400, "the request body is not JSON"), status_code=400)
        if not isinstance(body, dict) or not isinstance(body.get("messages"), list):
            return JSONResponse(_error_body(400, "'messages' is required"), status_code=400)
        with self._lock:
            self.requests.append(body)
            reply = self._script.popleft() if self._script else None
            words = prompt_words(body)
            cached = common_prefix_length(self._previous_prompt, words)
            self._previous_prompt = words

        if reply is not None and reply.delay:
            if await self._sleep_unless_gone(request, reply.delay):
                return Response(status_code=499)
        if reply is not None and isinstance(reply.fault, int):
            headers = {"retry-after": "0"} if reply.fault == 429 else None
            return JSONResponse(
                _error_body(reply.fault, f"mock fault: HTTP {reply.fault}"), status_code=reply.fault, headers=headers
            )

        text, tool_calls = self._reply_content(body, reply)
        completion_words = len((text or "").split()) + sum(
            len(json.dumps(c.get("arguments", {})).split()) for c in tool_calls
        )
        usage = {
            "prompt_tokens": len(words),
            "completion_tokens": completion_words,
            "total_tokens": len(words) + completion_words,
            "prompt_tokens_details": {"cached_tokens": cached},
        }
        reply_id = f"chatcmpl-mock-{next(self._ids)}"
        model = body.get("model") or self.model
        wire_calls = [
            {
                "id": c.get("id") or f"call_mock_{i}",
                "type": "function",
                "function": {"name": c["name"], "arguments": json.dumps(c.get("arguments", {}))},
            }
            for i, c in enumerate(tool_calls)
        ]
        finish = "tool_calls" if wire_calls else "stop"
        if body.get("stream"):
            include_usage = bool((body.get("stream_options") or {}).get("include_usage"))
            chunks = _sse_chunks(reply_id, model, text, wire_calls, finish, usage if include_usage else None)
            return StreamingResponse(chunks, media_type="text/event-stream")
        message: dict[str, Any] = {"role": "assistant", "content": text}
        if wire_calls:
            message["tool_calls"] = wire_calls
        return JSONResponse(
            {
                "id": reply_id,
                "object": "chat.completion",
                "created": 0,
                "model": model,
                "choices": [{"index": 0, "message": message, "logprobs": None, "finish_reason": finish}],
                "usage": usage,
            }
        )

    async def _sleep_unless_gone(self, request: Request, seconds: float) -> bool:
        """Wait, but give up early (returning True) when the client hung up or the server is stopping."""
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            if self._stopping.is_set() or await request.is_disconnected():
                return True
            await asyncio.sleep(min(0.02, max(0.0, deadline - time.monotonic())))
        return False

    def _reply_content(self, body: Mapping[str, Any], reply: ScriptReply | None) -> tuple[str | None, list[dict]]:
        if reply is not None and reply.fault == "invalid_json":
            return INVALID_JSON, []
        if reply is not None and reply.fault != "timeout":
            text = reply.text if reply.json_value is None else json.dumps(reply.json_value)
            return text, list(reply.tool_calls or ())
        return default_reply(body), []


def default_reply(body: Mapping[str, Any]) -> str:
    """What the server says when the script has run out: a minimal schema instance, `{}`, or an echo."""
    response_format = body.get("response_format") or {}
    if response_format.get("type") == "json_schema":
        return json.dumps(minimal_instance(response_format["json_schema"].get("schema", {})))
    if response_format.get("type") == "json_object":
        return "{}"
    last_user = next(
        (_content_text(m.get("content")) for m in reversed(body.get("messages", [])) if m.get("role") == "user"), ""
    )
    return ECHO_PREFIX + last_user


def _sse_chunks(
    reply_id: str,
    model: str,
    text: str | None,
    tool_calls: list[dict[str, Any]],
    finish: str,
    usage: dict[str, Any] | None,
) -> Iterator[bytes]:
    """The reply as OpenAI `chat.completion.chunk` events: role, content deltas, tool-call deltas, finish, usage."""

    def event(delta: dict[str, Any] | None, finish_reason: str | None = None, **extra: Any) -> bytes:
        chunk: dict[str, Any] = {"id": reply_id, "object": "chat.completion.chunk", "created": 0, "model": model}
        chunk["choices"] = [] if delta is None else [
            {"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish_reason}
        ]
        if usage is not None:
            chunk["usage"] = extra.get("usage")
        return f"data: {json.dumps(chunk)}\n\n".encode()

    yield event({"role": "assistant", "content": ""})
    for piece in split_deltas(text) if text else ():
        yield event({"content": piece})
    for index, call in enumerate(tool_calls):
        function = {"name": call["function"]["name"], "arguments": ""}
        head = {"index": index, "id": call["id"], "type": "function", "function": function}
        yield event({"tool_calls": [head]})
        for piece in split_deltas(call["function"]["arguments"]):
            yield event({"tool_calls": [{"index": index, "function": {"arguments": piece}}]})
    yield event({}, finish)
    if usage is not None:
        yield event(None, usage=usage)
    yield b"data: [DONE]\n\n"
