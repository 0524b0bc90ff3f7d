"""OpenAICompatibleLLM with the real `openai` client over HTTP against the local mock server (127.0.0.1 only).

Retries sleep through an injected recorder, so no test waits on backoff; the timeout test uses a 0.25 s timeout.
"""

from __future__ import annotations

import json
import random
import socket
from collections.abc import Iterator

import pytest
from pydantic import BaseModel, Field

from app.errors import ConfigError, LLMError, LLMOutputError, LLMUnavailableError, ModelRequestsBlocked
from app.llm import (
    CallRecord,
    Message,
    OpenAICompatibleLLM,
    Tool,
    ToolCall,
    Usage,
    allow_model_requests,
    llm_from_settings,
)
from app.llm.guard import check_model_requests_allowed
from app.llm.mock_server import INVALID_JSON, MockLLMServer
from app.settings import Settings


class Hint(BaseModel):
    hint: str
    level: int = Field(ge=1, le=3)


class Loose(BaseModel):
    hint: str
    level: int = 1


@pytest.fixture(scope="module")
def server() -> Iterator[MockLLMServer]:
    with MockLLMServer() as running:
        yield running


@pytest.fixture
def mock(server: MockLLMServer) -> Iterator[MockLLMServer]:
    server.reset()
    with allow_model_requests():
        yield server
    assert server.pending == 0, "a scripted reply was never asked for"


@pytest.fixture
def sleeps() -> list[float]:
    return []


def make_llm(mock: MockLLMServer, sleeps: list[float], **kwargs: object) -> OpenAICompatibleLLM:
    options: dict = {"timeout": 5.0, "max_retries": 2, "sleep": sleeps.append, "rng": random.Random(0)}
    options.update(kwargs)
    return OpenAICompatibleLLM(mock.url, "sk-test", "mock-model", **options)


ASK = [Message.system("You are a Socratic tutor for calculus."), Message.user("Give me a hint.")]


def test_structured_output_sends_a_strict_json_schema(mock: MockLLMServer, sleeps: list[float]) -> None:
    mock.enqueue(json={"hint": "Think of the slope.", "level": 2})
    result = make_llm(mock, sleeps).structured(ASK, Hint)
    assert result.value == Hint(hint="Think of the slope.", level=2)
    response_format = mock.requests[0]["response_format"]
    assert response_format["type"] == "json_schema"
    assert response_format["json_schema"]["name"] == "Hint"
    assert response_format["json_schema"]["strict"] is True
    schema = response_format["json_schema"]["schema"]
    assert schema["additionalProperties"] is False
    assert schema["required"] == ["hint", "level"]


def test_a_schema_with_defaults_is_sent_non_strict(mock: MockLLMServer, sleeps: list[float]) -> None:
    result = make_llm(mock, sleeps).structured(ASK, Loose)  # script empty: the mock answers a minimal instance
    assert result.value == Loose(hint="", level=1)
    assert mock.requests[0]["response_format"]["json_schema"]["strict"] is False


def test_invalid_json_gets_one_retry_then_a_clear_error(mock: MockLLMServer, sleeps: list[float]) -> None:
    mock.enqueue(fault="invalid_json").enqueue(fault="invalid_json")
    llm = make_llm(mock, sleeps)
    with pytest.raises(LLMOutputError) as raised:
        llm.structured(ASK, Hint)
    assert "'mock-model' returned output that does not match Hint even after a retry: invalid JSON" in str(raised.value)
    assert len(mock.requests) == 2
    retry_turns = mock.requests[1]["messages"][-2:]
    assert retry_turns[0] == {"role": "assistant", "content": INVALID_JSON}
    assert retry_turns[1]["role"] == "user" and "invalid JSON" in retry_turns[1]["content"]
    assert sleeps == []  # a bad answer is not a transport failure: no backoff


def test_invalid_json_then_valid_succeeds_on_the_retry(mock: MockLLMServer, sleeps: list[float]) -> None:
    mock.enqueue(fault="invalid_json").enqueue(json={"hint": "Draw it.", "level": 1})
    result = make_llm(mock, sleeps).structured(ASK, Hint)
    assert (result.value, result.attempts) == (Hint(hint="Draw it.", level=1), 2)


def test_stream_asks_for_usage_and_collects_it(mock: MockLLMServer, sleeps: list[float]) -> None:
    mock.enqueue("What is the slope between two close points?")
    llm = make_llm(mock, sleeps)
    stream = llm.stream(ASK, temperature=0.2, max_tokens=50)
    deltas = list(stream)
    assert deltas == ["What", " is", " the", " slope", " between", " two", " close", " points?"]
    assert stream.usage == Usage(prompt_tokens=11, completion_tokens=8, cached_prompt_tokens=0)
    body = mock.requests[0]
    assert (body["stream"], body["stream_options"], body["temperature"], body["max_tokens"]) == (
        True, {"include_usage": True}, 0.2, 50,
    )
    assert llm.calls[0].kind == "stream" and llm.calls[0].usage == stream.usage


def test_stream_without_usage_support_still_records_a_call(mock: MockLLMServer, sleeps: list[float]) -> None:
    mock.enqueue("One two three.")
    llm = make_llm(mock, sleeps, stream_usage=False)
    stream = llm.stream(ASK)
    assert "".join(stream) == "One two three."
    assert "stream_options" not in mock.requests[0]
    assert stream.usage == Usage()
    assert len(llm.calls) == 1


def test_retries_after_a_5xx_with_exponential_backoff(mock: MockLLMServer, sleeps: list[float]) -> None:
    mock.enqueue(fault=500).enqueue(fault=503).enqueue("Recovered.")
    llm = make_llm(mock, sleeps)
    completion = llm.complete(ASK)
    assert completion.text == "Recovered."
    # min(8, 0.5 * 2**k) * (1 + u_k) with u = random.Random(0): 0.8444218515250481, 0.7579544029403025
    assert sleeps == [0.9222109257625241, 1.7579544029403025]
    assert llm.calls[0].attempts == 3
    assert len(mock.requests) == 3


def test_retries_after_a_429(mock: MockLLMServer, sleeps: list[float]) -> None:
    mock.enqueue(fault=429).enqueue("ok")
    assert make_llm(mock, sleeps).complete(ASK).text == "ok"
    assert len(sleeps) == 1


def test_retries_after_a_timeout(mock: MockLLMServer, sleeps: list[float]) -> None:
    mock.enqueue(fault="timeout", delay=5).enqueue("After the timeout.")
    llm = make_llm(mock, sleeps, timeout=0.25)
    assert llm.complete(ASK).text == "After the timeout."
    assert llm.calls[0].attempts == 2
    assert len(sleeps) == 1


def test_gives_up_after_the_last_retry_naming_the_endpoint(mock: MockLLMServer, sleeps: list[float]) -> None:
    mock.enqueue(fault=502).enqueue(fault=502).enqueue(fault=502)
    llm = make_llm(mock, sleeps)
    with pytest.raises(LLMUnavailableError) as raised:
        llm.complete(ASK)
    message = str(raised.value)
    assert f"model endpoint {mock.url} (model 'mock-model') failed after 3 attempts: HTTP 502" in message
    assert "TUTOR_LLM_BASE_URL" in message
    assert len(sleeps) == 2
    assert llm.calls == []  # a failed call is not a completed call


def test_connection_refused_is_unavailable(sleeps: list[float]) -> None:
    with socket.socket() as probe:  # a port that was free a moment ago: nothing listens there
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    llm = OpenAICompatibleLLM(f"http://127.0.0.1:{port}/v1", None, "m", timeout=1, max_retries=1, sleep=sleeps.append)
    with allow_model_requests(), pytest.raises(LLMUnavailableError, match="connection failed"):
        llm.complete(ASK)
    assert len(sleeps) == 1


def test_client_errors_are_not_retried(mock: MockLLMServer, sleeps: list[float]) -> None:
    mock.enqueue(fault=404)
    with pytest.raises(LLMError) as raised:
        make_llm(mock, sleeps).complete(ASK)
    assert not isinstance(raised.value, LLMUnavailableError)
    assert "HTTP 404" in str(raised.value) and "TUTOR_LLM_MODEL" in str(raised.value)
    assert sleeps == []


def test_tool_calls_round_trip_on_the_wire(mock: MockLLMServer, sleeps: list[float]) -> None:
    lookup = Tool(name="lookup", description="Search the course.", parameters={
        "type": "object", "properties": {"term": {"type": "string"}}, "required": ["term"]})
    mock.enqueue(tool_calls=[{"id": "call_1", "name": "lookup", "arguments": {"term": "chain rule"}}])
    mock.enqueue("The chain rule composes rates.")
    llm = make_llm(mock, sleeps)
    first = llm.complete(ASK, tools=[lookup])
    assert first.tool_calls == (ToolCall(id="call_1", name="lookup", arguments={"term": "chain rule"}),)
    second = llm.complete([*ASK, first.as_message(), Message.tool("call_1", "p. 40: chain rule")], tools=[lookup])
    assert second.text == "The chain rule composes rates."
    assert mock.requests[0]["tools"] == [{"type": "function", "function": {
        "name": "lookup", "description": "Search the course.", "parameters": lookup.parameters}}]
    sent = mock.requests[1]["messages"]
    assert sent[2] == {"role": "assistant", "content": None, "tool_calls": [
        {"id": "call_1", "type": "function", "function": {"name": "lookup", "arguments": '{"term": "chain rule"}'}}]}
    assert sent[3] == {"role": "tool", "content": "p. 40: chain rule", "tool_call_id": "call_1"}


def test_usage_latency_and_cached_tokens_are_recorded(mock: MockLLMServer, sleeps: list[float]) -> None:
    records: list[CallRecord] = []
    llm = make_llm(mock, sleeps, on_call=records.append)
    mock.enqueue("First.").enqueue("Second.")
    system = Message.system("You are a Socratic tutor for linear algebra.")  # 8 words
    llm.complete([system, Message.user("What is a matrix?")])
    second = llm.complete([system, Message.user("What is a vector?")])
    # the shared prefix is the system prompt plus "What is a": 8 + 3 words
    assert second.usage == Usage(prompt_tokens=12, completion_tokens=1, cached_prompt_tokens=11)
    assert [r.usage.cached_prompt_tokens for r in records] == [0, 11]
    assert records == llm.calls
    assert all(r.latency_ms > 0 and r.model == "mock-model" and r.kind == "complete" for r in records)


def test_the_block_switch_stops_requests_before_they_leave(server: MockLLMServer, sleeps: list[float]) -> None:
    server.reset()
    llm = make_llm(server, sleeps)
    with allow_model_requests(False):
        with pytest.raises(ModelRequestsBlocked, match="allow_model_requests"):
            llm.complete(ASK)
        with pytest.raises(ModelRequestsBlocked):
            list(llm.stream(ASK))
        with pytest.raises(ModelRequestsBlocked):
            llm.structured(ASK, Hint)
        with allow_model_requests():
            check_model_requests_allowed("x")  # the inner block re-allows
        with pytest.raises(ModelRequestsBlocked):
            check_model_requests_allowed("x")  # and the outer setting is restored
    assert server.requests == []


def test_llm_from_settings() -> None:
    assert llm_from_settings(Settings(llm_base_url=None, llm_model=None)) is None
    settings = Settings(llm_base_url="http://127.0.0.1:9/v1", llm_model="qwen2.5", llm_timeout=7, llm_max_retries=1)
    llm = llm_from_settings(settings)
    assert isinstance(llm, OpenAICompatibleLLM)
    assert (llm.base_url, llm.model, llm.timeout, llm.max_retries) == ("http://127.0.0.1:9/v1", "qwen2.5", 7, 1)
    with pytest.raises(ConfigError, match="TUTOR_LLM_BASE_URL is not"):
        llm_from_settings(Settings(llm_base_url=None, llm_model="qwen2.5"))
    with pytest.raises(ConfigError, match="TUTOR_LLM_MODEL is not"):
        llm_from_settings(Settings(llm_base_url="http://127.0.0.1:9/v1", llm_model=None))


def test_tool_arguments_that_are_not_json_are_an_output_error() -> None:
    from types import SimpleNamespace

    from app.llm.openai_compat import _tool_call_from_wire

    call = SimpleNamespace(id="c", function=SimpleNamespace(name="lookup", arguments='{"term": '))
    with pytest.raises(LLMOutputError, match="lookup"):
        _tool_call_from_wire(call)
    assert json.loads('{"term": "x"}') == _tool_call_from_wire(
        SimpleNamespace(id="c", function=SimpleNamespace(name="lookup", arguments='{"term": "x"}'))
    ).arguments
