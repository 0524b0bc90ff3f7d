"""What the fakes promise beyond the contract (loud failure, recorded requests, scripted errors); base helpers."""

from __future__ import annotations

import pytest
from pydantic import BaseModel, ValidationError

from app.errors import LLMError, LLMUnavailableError
from app.llm import Completion, FakeLLM, FunctionLLM, Message, Reply, Request, ToolCall, UnexpectedModelCall, Usage
from app.llm.structured import describe_invalid, response_format_for, strict_json_schema
from app.llm.fakes import split_deltas, to_reply


class Answer(BaseModel):
    text: str
    score: int


ASK = [Message.user("Is 7 prime?")]


def test_an_empty_fake_fails_loudly_and_is_not_an_llm_error() -> None:
    llm = FakeLLM()
    with pytest.raises(UnexpectedModelCall) as raised:
        llm.complete(ASK)
    assert isinstance(raised.value, AssertionError)
    assert not isinstance(raised.value, LLMError)  # graceful-degradation code catching LLMError cannot hide it
    expected = "FakeLLM got a complete() call (last user message: 'Is 7 prime?') but no reply is queued"
    assert expected in str(raised.value)
    assert "llm.enqueue(text=...)" in str(raised.value)
    with pytest.raises(UnexpectedModelCall):
        list(llm.stream(ASK))
    with pytest.raises(UnexpectedModelCall):
        llm.structured(ASK, Answer)


def test_a_fake_records_every_request() -> None:
    llm = FakeLLM().enqueue("Yes.").enqueue(json=Answer(text="yes", score=3))
    llm.complete(ASK, temperature=0.1, max_tokens=20)
    llm.structured(ASK, Answer)
    assert [r.kind for r in llm.requests] == ["complete", "structured"]
    assert llm.requests[0] == Request("complete", tuple(ASK), (), 0.1, 20, None)
    assert llm.requests[1].schema == response_format_for(Answer)["json_schema"]["schema"]
    assert llm.pending == 0


def test_a_fake_raises_a_queued_error_and_takes_given_usage() -> None:
    down = LLMUnavailableError("endpoint down")
    llm = FakeLLM().enqueue(error=down).enqueue("ok", usage=Usage(prompt_tokens=100, completion_tokens=1))
    with pytest.raises(LLMUnavailableError) as raised:
        llm.complete(ASK)
    assert raised.value is down
    assert llm.complete(ASK).usage == Usage(prompt_tokens=100, completion_tokens=1)
    assert [c.usage.prompt_tokens for c in llm.calls] == [100]  # the failed call is not recorded


@pytest.mark.parametrize(
    ("kwargs", "problem"),
    [
        ({}, "needs text=, json=, tool_calls= or error="),
        ({"text": "a", "json": {}}, "either text= or json="),
        ({"text": "a", "error": ValueError()}, "an error reply carries no text"),
    ],
)
def test_enqueue_rejects_ambiguous_replies(kwargs: dict, problem: str) -> None:
    with pytest.raises(ValueError, match=problem):
        FakeLLM().enqueue(**kwargs)


def test_streaming_a_tool_call_reply_is_a_test_bug() -> None:
    llm = FakeLLM().enqueue(tool_calls=[{"name": "f"}])
    with pytest.raises(UnexpectedModelCall, match="stream\\(\\) only carries text"):
        list(llm.stream(ASK))


def test_function_llm_sees_messages_and_request() -> None:
    seen: list[tuple[list[Message], Request]] = []

    def tutor(messages: list[Message], request: Request) -> str:
        seen.append((messages, request))
        return f"You asked {len(messages)} thing(s)."

    llm = FunctionLLM(tutor)
    assert llm.model == "function:tutor"
    assert llm.complete(ASK, temperature=0.0).text == "You asked 1 thing(s)."
    assert seen[0][0] == ASK and seen[0][1].temperature == 0.0


def test_function_llm_stream_fn() -> None:
    llm = FunctionLLM(lambda m, r: "unused", stream_fn=lambda m, r: iter(["Is ", "it ", "odd?"]))
    stream = llm.stream(ASK)
    assert list(stream) == ["Is ", "it ", "odd?"]
    assert stream.usage == Usage(prompt_tokens=3, completion_tokens=3)


def test_to_reply_accepts_the_usual_shapes() -> None:
    assert to_reply("hi") == Reply(text="hi")
    assert to_reply({"a": 1}) == Reply(text='{"a": 1}')
    assert to_reply(Answer(text="t", score=1)) == Reply(text='{"text":"t","score":1}')
    assert to_reply([{"name": "f", "arguments": {"x": 1}}]) == Reply(
        tool_calls=(ToolCall(id="call_0", name="f", arguments={"x": 1}),)
    )
    assert to_reply(Completion(text="c")) == Reply(text="c")
    with pytest.raises(TypeError, match="returned int"):
        to_reply(3)  # type: ignore[arg-type]


def test_split_deltas_join_back_exactly() -> None:
    for text in ["one two  three", "  lead", "trail ", "x", ""]:
        assert "".join(split_deltas(text)) == text
    assert split_deltas("a b c") == ["a", " b", " c"]


def test_strict_json_schema() -> None:
    schema, strict = strict_json_schema(Answer)
    assert strict is True
    assert schema == {
        "title": "Answer", "type": "object", "additionalProperties": False, "required": ["text", "score"],
        "properties": {"text": {"title": "Text", "type": "string"}, "score": {"title": "Score", "type": "integer"}},
    }

    class WithDefault(BaseModel):
        text: str = ""

    assert strict_json_schema(WithDefault)[1] is False


def test_describe_invalid() -> None:
    with pytest.raises(ValidationError) as bad_json:
        Answer.model_validate_json('{"text": ')
    assert describe_invalid(bad_json.value).startswith("invalid JSON (")
    with pytest.raises(ValidationError) as bad_field:
        Answer.model_validate_json('{"text": "t", "score": "many"}')
    expected = "score: Input should be a valid integer, unable to parse string as an integer"
    assert describe_invalid(bad_field.value) == expected


def test_a_fenced_json_reply_is_accepted() -> None:
    llm = FakeLLM().enqueue('```json\n{"text": "t", "score": 2}\n```')
    assert llm.structured(ASK, Answer).value == Answer(text="t", score=2)


def test_message_shapes_are_checked() -> None:
    with pytest.raises(ValidationError, match="tool_call_id"):
        Message(role="tool", content="x")
    with pytest.raises(ValidationError, match="only assistant messages carry tool_calls"):
        Message(role="user", content="x", tool_calls=(ToolCall(id="1", name="f"),))
    assert Completion(tool_calls=(ToolCall(id="1", name="f"),)).as_message() == Message(
        role="assistant", content=None, tool_calls=(ToolCall(id="1", name="f"),)
    )
