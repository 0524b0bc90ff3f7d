"""`OpenAICompatibleLLM`: the one real backend, on the official `openai` client.

OpenAI, vLLM, Ollama (`http://localhost:11434/v1`) and the llama.cpp server (`http://localhost:8080/v1`) all speak
the chat-completions wire format; only `base_url` differs. The client's own retries are switched off
(`max_retries=0`) and we retry here, so every retry is logged and tests can inject the sleep and the jitter:

    attempt k (0-based) failed with 429 / 5xx / timeout / connection error
        -> sleep  min(backoff_max, backoff_base * 2**k) * (1 + jitter),  jitter ~ U[0, 1)   ("exponential backoff
           with jitter", AWS Architecture Blog, 2015), or the server's Retry-After if that is longer
    after `max_retries` retries -> LLMUnavailableError naming the endpoint and what to check.

Other HTTP errors (400, 401, 404, ...) are not retried: they become `LLMError` at once, with a hint.
"""

from __future__ import annotations

import json
import logging
import random
import time
from collections.abc import Callable, Iterator
from typing import Any, TypeVar

import openai

from app.errors import ConfigError, LLMError, LLMOutputError, LLMUnavailableError
from app.llm import guard
from app.llm.base import BaseLLM, CallRecord, Completion, Message, Request, Tool, ToolCall, Usage
from app.settings import Settings

log = logging.getLogger(__name__)
R = TypeVar("R")

_RETRYABLE_HINT = (
    "check that the server is running and reachable at TUTOR_LLM_BASE_URL, that TUTOR_LLM_MODEL names a model it "
    "serves, or unset TUTOR_LLM_MODEL to run in grounded mode"
)
_STATUS_HINTS = {
    401: "check TUTOR_LLM_API_KEY",
    403: "check TUTOR_LLM_API_KEY and that the key may use this model",
    404: "check TUTOR_LLM_MODEL (the server does not serve it) and that TUTOR_LLM_BASE_URL ends in /v1",
}


def to_wire(message: Message) -> dict[str, Any]:
    """A message in the chat-completions wire format."""
    out: dict[str, Any] = {"role": message.role, "content": message.content}
    if message.tool_calls:
        out["tool_calls"] = [
            {"id": c.id, "type": "function", "function": {"name": c.name, "arguments": json.dumps(c.arguments)}}
            for c in message.tool_calls
        ]
    if message.tool_call_id:
        out["tool_call_id"] = message.tool_call_id
    return out


def tool_to_wire(tool: Tool) -> dict[str, Any]:
    return {
        "type": "function",
        "function": {"name": tool.name, "description": tool.description, "parameters": tool.parameters},
    }


def usage_from_wire(usage: Any) -> Usage:
    """`Usage` from the response's usage object; cached tokens from `prompt_tokens_details.cached_tokens`."""
    if usage is None:
        return Usage()
    details = getattr(usage, "prompt_tokens_details", None)
    cached = getattr(details, "cached_tokens", None) if details is not None else None
    return Usage(
        prompt_tokens=usage.prompt_tokens or 0,
        completion_tokens=usage.completion_tokens or 0,
        cached_prompt_tokens=cached or 0,
    )


def _tool_call_from_wire(call: Any) -> ToolCall:
    raw = call.function.arguments or "{}"
    try:
        arguments = json.loads(raw)
    except json.JSONDecodeError as error:
        raise LLMOutputError(
            f"the model called tool {call.function.name!r} with arguments that are not JSON: {error}: {raw[:200]!r}",
            hint="try a model with reliable tool calling",
        ) from error
    if not isinstance(arguments, dict):
        raise LLMOutputError(f"the model called tool {call.function.name!r} with non-object arguments: {raw[:200]!r}")
    return ToolCall(id=call.id, name=call.function.name, arguments=arguments)


class OpenAICompatibleLLM(BaseLLM):
    """A chat-completions endpoint. `sleep` and `rng` are injectable so tests run the retry loop instantly."""

    def __init__(
        self,
        base_url: str,
        api_key: str | None,
        model: str,
        timeout: float = 60.0,
        max_retries: int = 3,
        *,
        backoff_base: float = 0.5,
        backoff_max: float = 8.0,
        sleep: Callable[[float], None] = time.sleep,
        rng: random.Random | None = None,
        stream_usage: bool = True,
        on_call: Callable[[CallRecord], None] | None = None,
    ) -> None:
        super().__init__(model, on_call=on_call)
        self.base_url = base_url.rstrip("/")
        self.timeout = timeout
        self.max_retries = max_retries
        self.backoff_base = backoff_base
        self.backoff_max = backoff_max
        self.stream_usage = stream_usage
        self._sleep = sleep
        self._rng = rng or random.Random()
        # Local servers ignore the key, but the client insists on one.
        self.client = openai.OpenAI(
            base_url=self.base_url, api_key=api_key or "not-needed", timeout=timeout, max_retries=0
        )

    def __repr__(self) -> str:
        return f"OpenAICompatibleLLM(base_url={self.base_url!r}, model={self.model!r})"

    # -- the retry loop -------------------------------------------------------------------------------------------

    def backoff(self, attempt: int, retry_after: float | None = None) -> float:
        """Seconds to wait after failed attempt `attempt` (0-based); see the module docstring."""
        delay = min(self.backoff_max, self.backoff_base * 2**attempt) * (1.0 + self._rng.random())
        if retry_after is not None:
            delay = max(delay, min(retry_after, self.backoff_max))
        return delay

    def _with_retries(self, send: Callable[[], R]) -> tuple[R, int]:
        """Run `send` until it succeeds, retrying transient failures; return its result and the attempts used."""
        last: Exception | None = None
        for attempt in range(self.max_retries + 1):
            guard.check_model_requests_allowed(self.base_url)
            retry_after: float | None = None
            try:
                return send(), attempt + 1
            except openai.APITimeoutError as error:
                last = error
                reason = f"timed out after {self.timeout:g}s"
            except openai.APIConnectionError as error:
                last = error
                reason = f"connection failed ({error.__cause__ or error})"
            except openai.APIStatusError as error:
                if error.status_code != 429 and error.status_code < 500:
                    raise self._status_error(error) from error
                last = error
                reason = f"HTTP {error.status_code}"
                retry_after = _retry_after(error)
            if attempt == self.max_retries:
                break
            delay = self.backoff(attempt, retry_after)
            log.warning(
                "model request to %s %s (attempt %d of %d); retrying in %.2fs",
                self.base_url, reason, attempt + 1, self.max_retries + 1, delay,
            )
            self._sleep(delay)
        raise LLMUnavailableError(
            f"model endpoint {self.base_url} (model {self.model!r}) failed after {self.max_retries + 1} attempts: "
            f"{reason}",
            hint=_RETRYABLE_HINT,
        ) from last

    def _status_error(self, error: openai.APIStatusError) -> LLMError:
        message = f"model endpoint {self.base_url} rejected the request (HTTP {error.status_code}): {error.message}"
        hint = _STATUS_HINTS.get(error.status_code, "check the model settings (TUTOR_LLM_*)")
        return LLMError(message, hint=hint)

    # -- requests -------------------------------------------------------------------------------------------------

    def _params(self, request: Request) -> dict[str, Any]:
        params: dict[str, Any] = {"model": self.model, "messages": [to_wire(m) for m in request.messages]}
        if request.tools:
            params["tools"] = [tool_to_wire(t) for t in request.tools]
        if request.temperature is not None:
            params["temperature"] = request.temperature
        if request.max_tokens is not None:
            params["max_tokens"] = request.max_tokens  # max_completion_tokens is OpenAI-only; vLLM/Ollama use this
        if request.response_format is not None:
            params["response_format"] = request.response_format
        return params

    def _request(self, request: Request) -> tuple[Completion, int]:
        params = self._params(request)
        response, attempts = self._with_retries(lambda: self.client.chat.completions.create(**params))
        if not response.choices:
            raise LLMOutputError(f"model endpoint {self.base_url} returned no choices")
        choice = response.choices[0]
        completion = Completion(
            text=choice.message.content,
            tool_calls=tuple(_tool_call_from_wire(c) for c in choice.message.tool_calls or ()),
            usage=usage_from_wire(response.usage),
            model=response.model or self.model,
            finish_reason=choice.finish_reason,
        )
        return completion, attempts

    def _request_stream(self, request: Request) -> Iterator[str | Usage]:
        params = self._params(request)
        params["stream"] = True
        if self.stream_usage:
            params["stream_options"] = {"include_usage": True}
        # Retries cover opening the stream; a stream that breaks half-way is not replayed.
        chunks, _ = self._with_retries(lambda: self.client.chat.completions.create(**params))
        usage: Usage | None = None
        try:
            for chunk in chunks:
                if chunk.usage is not None:
                    usage = usage_from_wire(chunk.usage)
                for choice in chunk.choices:
                    if choice.delta.content:
                        yield choice.delta.content
        except (openai.APITimeoutError, openai.APIConnectionError) as error:
            raise LLMUnavailableError(
                f"the stream from model endpoint {self.base_url} broke off: {error}", hint=_RETRYABLE_HINT
            ) from error
        finally:
            chunks.close()
        if usage is None:
            log.info("model endpoint %s sent no usage for a stream (no stream_options support?)", self.base_url)
        yield usage or Usage()


def _retry_after(error: openai.APIStatusError) -> float | None:
    value = error.response.headers.get("retry-after") if error.response is not None else None
    try:
        return float(value) if value is not None else None
    except ValueError:
        return None


def llm_from_settings(
    settings: Settings, *, on_call: Callable[[CallRecord], None] | None = None
) -> OpenAICompatibleLLM | None:
    """The configured model, or None when no model is configured (the tutor then runs in grounded mode).

    A half configuration (a model without a base URL or the reverse) is a `ConfigError` rather than a silent fall
    back to grounded mode.
    """
    base_url, model = settings.llm_base_url, settings.llm_model
    if not base_url and not model:
        return None
    if not model:
        raise ConfigError(
            f"TUTOR_LLM_BASE_URL is set ({base_url}) but TUTOR_LLM_MODEL is not",
            hint="set TUTOR_LLM_MODEL to a model the server serves (see GET <base_url>/models), or unset "
            "TUTOR_LLM_BASE_URL for grounded mode",
        )
    if not base_url:
        raise ConfigError(
            f"TUTOR_LLM_MODEL is set ({model}) but TUTOR_LLM_BASE_URL is not",
            hint="set TUTOR_LLM_BASE_URL, e.g. https://api.openai.com/v1, http://localhost:11434/v1 (Ollama) or "
            "http://localhost:8000/v1 (vLLM)",
        )
    return OpenAICompatibleLLM(
        base_url=base_url,
        api_key=settings.llm_api_key,
        model=model,
        timeout=settings.llm_timeout,
        max_retries=settings.llm_max_retries,
        on_call=on_call,
    )
