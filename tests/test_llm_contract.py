"""One contract for every `LLM`: FakeLLM, FunctionLLM and OpenAICompatibleLLM against the local mock server.

Each backend is driven through a small harness that queues the same replies in its own way. Usage is counted in
words by the fakes and the mock server alike, so the golden token numbers hold for all three.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest
from pydantic import BaseModel, Field

from app.errors import LLMOutputError
from app.llm import (
    LLM,
    CallRecord,
    FakeLLM,
    FunctionLLM,
    Message,
    OpenAICompatibleLLM,
    Request,
    Tool,
    ToolCall,
    Usage,
    allow_model_requests,
)
from app.llm.mock_server import MockLLMServer


class Verdict(BaseModel):
    answer: str
    confidence: int = Field(ge=1, le=5)


@dataclass
class Harness:
    llm: LLM
    queue: Any  # queue(text=..., json=..., tool_calls=...)
    seen: list[list[Message]] = field(default_factory=list)  # messages of each request, oldest first
    records: list[CallRecord] = field(default_factory=list)  # what on_call received


def _fake() -> Iterator[Harness]:
    records: list[CallRecord] = []
    llm = FakeLLM(on_call=records.append)
    harness = Harness(llm, llm.enqueue, records=records)
    yield harness


def _function() -> Iterator[Harness]:
    replies: deque[Any] = deque()
    records: list[CallRecord] = []
    seen: list[list[Message]] = []

    def queue(text: str | None = None, *, json: Any = None, tool_calls: list[dict] | None = None) -> None:
        replies.append(text if text is not None else json if json is not None else tool_calls)

    def reply(messages: list[Message], request: Request) -> Any:
        seen.append(messages)
        return replies.popleft()

    yield Harness(FunctionLLM(reply, on_call=records.append), queue, seen=seen, records=records)


@pytest.fixture(scope="module")
def server() -> Iterator[MockLLMServer]:
    with MockLLMServer() as running:
        yield running


def _openai(server: MockLLMServer) -> Iterator[Harness]:
    records: list[CallRecord] = []
    server.reset()
    with allow_model_requests():
        llm = OpenAICompatibleLLM(server.url, None, "mock-model", timeout=5, max_retries=0, on_call=records.append)
        harness = Harness(llm, server.enqueue, records=records)
        yield harness
        # the mock records wire bodies; turn them back into messages for the shared assertions
        harness.seen[:] = [[Message.model_validate(_from_wire(m)) for m in r["messages"]] for r in server.requests]


def _from_wire(message: dict[str, Any]) -> dict[str, Any]:
    import json

    out = {k: v for k, v in message.items() if k in ("role", "content", "tool_call_id")}
    out["tool_calls"] = [
        {"id": c["id"], "name": c["function"]["name"], "arguments": json.loads(c["function"]["arguments"])}
        for c in message.get("tool_calls") or ()
    ]
    return out


@pytest.fixture(params=["fake", "function", "openai"])
def harness(request: pytest.FixtureRequest, server: MockLLMServer) -> Iterator[Harness]:
    if request.param == "openai":
        yield from _openai(server)
    else:
        yield from {"fake": _fake, "function": _function}[request.param]()


QUESTION = [Message.system("You are a Socratic tutor."), Message.user("What is a derivative?")]  # 5 + 4 words


def test_is_an_llm(harness: Harness) -> None:
    assert isinstance(harness.llm, LLM)


def test_complete_returns_text_usage_and_a_call_record(harness: Harness) -> None:
    harness.queue("What does slope mean to you?")
    completion = harness.llm.complete(QUESTION)
    assert completion.text == "What does slope mean to you?"
    assert completion.tool_calls == ()
    assert completion.usage == Usage(prompt_tokens=9, completion_tokens=6, cached_prompt_tokens=0)
    assert completion.model == harness.llm.model
    assert completion.latency_ms >= 0
    assert len(harness.llm.calls) == 1
    record = harness.llm.calls[0]
    expected = ("complete", completion.usage, harness.llm.model, 1)
    assert (record.kind, record.usage, record.model, record.attempts) == expected
    assert record.latency_ms == completion.latency_ms
    assert harness.records == [record]


def test_tool_calls_round_trip(harness: Harness) -> None:
    lookup = Tool(
        name="lookup",
        description="Look a term up in the course index.",
        parameters={"type": "object", "properties": {"term": {"type": "string"}}, "required": ["term"]},
    )
    harness.queue(tool_calls=[{"id": "call_7", "name": "lookup", "arguments": {"term": "derivative"}}])
    first = harness.llm.complete(QUESTION, tools=[lookup])
    assert first.tool_calls == (ToolCall(id="call_7", name="lookup", arguments={"term": "derivative"}),)
    assert first.finish_reason == "tool_calls"

    harness.queue("A derivative is a rate of change. What changes here?")
    conversation = [*QUESTION, first.as_message(), Message.tool("call_7", "Lecture 3, p. 12: the derivative ...")]
    second = harness.llm.complete(conversation, tools=[lookup])
    assert second.text == "A derivative is a rate of change. What changes here?"
    assert [c.kind for c in harness.llm.calls] == ["complete", "complete"]


def test_structured_valid_on_first_attempt(harness: Harness) -> None:
    harness.queue(json={"answer": "a rate of change", "confidence": 4})
    result = harness.llm.structured(QUESTION, Verdict)
    assert result.value == Verdict(answer="a rate of change", confidence=4)
    assert result.attempts == 1
    assert result.usage == result.completion.usage
    assert [c.kind for c in harness.llm.calls] == ["structured"]


def test_structured_retries_once_with_the_validation_error(harness: Harness) -> None:
    harness.queue("Sure! The answer is a rate of change.")
    harness.queue(json={"answer": "a rate of change", "confidence": 5})
    result = harness.llm.structured(QUESTION, Verdict)
    assert result.value == Verdict(answer="a rate of change", confidence=5)
    assert result.attempts == 2
    assert result.usage == harness.llm.calls[0].usage + harness.llm.calls[1].usage
    assert [c.kind for c in harness.llm.calls] == ["structured", "structured"]


def test_structured_gives_up_after_one_retry_naming_the_problem(harness: Harness) -> None:
    harness.queue(json={"answer": "x", "confidence": 9})
    harness.queue(json={"answer": "x"})
    with pytest.raises(LLMOutputError) as raised:
        harness.llm.structured(QUESTION, Verdict)
    message = str(raised.value)
    assert "Verdict" in message and "confidence: Field required" in message
    assert len(harness.llm.calls) == 2


def test_stream_yields_deltas_and_records_usage_at_the_end(harness: Harness) -> None:
    harness.queue("Think about the slope of a tangent.")
    stream = harness.llm.stream(QUESTION)
    deltas = list(stream)
    assert "".join(deltas) == "Think about the slope of a tangent."
    assert len(deltas) == 7
    assert stream.text == "Think about the slope of a tangent."
    assert stream.usage == Usage(prompt_tokens=9, completion_tokens=7)
    assert [(c.kind, c.usage) for c in harness.llm.calls] == [("stream", stream.usage)]
    assert harness.records == harness.llm.calls


def test_retry_prompt_carries_the_validation_error(server: MockLLMServer) -> None:
    """The conversation of the second attempt ends with the bad reply and a user turn naming what was wrong."""
    for harnesses in (_fake(), _function(), _openai(server)):
        for harness in harnesses:
            harness.queue("not JSON at all")
            harness.queue(json={"answer": "ok", "confidence": 3})
            harness.llm.structured(QUESTION, Verdict)
            if isinstance(harness.llm, FakeLLM):
                harness.seen[:] = [list(r.messages) for r in harness.llm.requests]
        second = harness.seen[1]
        assert second[:2] == QUESTION
        assert second[2] == Message.assistant("not JSON at all")
        assert second[3].role == "user"
        assert "did not match the required JSON schema for Verdict: invalid JSON" in (second[3].content or "")
        assert len(second) == 4
