"""The mock OpenAI-compatible server on the wire (plain httpx, 127.0.0.1 only), its script files and its CLI."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Literal

import httpx
import pytest
import typer
from pydantic import BaseModel, Field
from typer.testing import CliRunner

from app.cli.mock_llm import register
from app.errors import UserError
from app.llm.mock_server import ECHO_PREFIX, MockLLMServer, load_script
from app.llm.structured import minimal_instance


@pytest.fixture(scope="module")
def running() -> Iterator[MockLLMServer]:
    with MockLLMServer(model="served-model") as server:
        yield server


@pytest.fixture
def server(running: MockLLMServer) -> Iterator[MockLLMServer]:
    running.reset()
    yield running


@pytest.fixture
def http(server: MockLLMServer) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=server.url, timeout=5) as client:
        yield client


def chat(http: httpx.Client, text: str = "hello there", **extra: object) -> httpx.Response:
    return http.post("/chat/completions", json={"model": "m", "messages": [{"role": "user", "content": text}], **extra})


def sse_events(response: httpx.Response) -> list[str]:
    """The `data:` payloads of an SSE body; asserts every event has the exact `data: ...\\n\\n` framing."""
    body = response.text
    assert body.endswith("data: [DONE]\n\n")
    events = body.split("\n\n")[:-1]
    assert all(e.startswith("data: ") for e in events)
    return [e.removeprefix("data: ") for e in events]


def test_binds_loopback_and_lists_its_model(server: MockLLMServer, http: httpx.Client) -> None:
    assert server.url.startswith("http://127.0.0.1:")
    assert http.get("/models").json() == {
        "object": "list", "data": [{"id": "served-model", "object": "model", "created": 0, "owned_by": "mock"}]
    }


def test_plays_the_script_in_order_then_echoes(server: MockLLMServer, http: httpx.Client) -> None:
    server.enqueue("first").enqueue(json={"a": 1})
    replies = [chat(http).json()["choices"][0]["message"]["content"] for _ in range(3)]
    assert replies == ["first", '{"a": 1}', ECHO_PREFIX + "hello there"]
    assert ECHO_PREFIX == "[mock] you said: "
    assert [r["messages"][0]["content"] for r in server.requests] == ["hello there"] * 3


def test_non_streaming_reply_shape_and_word_usage(server: MockLLMServer, http: httpx.Client) -> None:
    server.enqueue("three little words")
    body = chat(http, "one two three four").json()
    assert body["object"] == "chat.completion"
    assert body["model"] == "m"
    assert body["choices"] == [{
        "index": 0, "message": {"role": "assistant", "content": "three little words"},
        "logprobs": None, "finish_reason": "stop",
    }]
    assert body["usage"] == {
        "prompt_tokens": 4, "completion_tokens": 3, "total_tokens": 7, "prompt_tokens_details": {"cached_tokens": 0}
    }


def test_cached_tokens_are_the_prefix_shared_with_the_previous_request(server: MockLLMServer, http: httpx.Client) -> None:
    chat(http, "alpha beta gamma delta")
    assert chat(http, "alpha beta gamma omega").json()["usage"]["prompt_tokens_details"] == {"cached_tokens": 3}
    assert chat(http, "zeta").json()["usage"]["prompt_tokens_details"] == {"cached_tokens": 0}


def test_streams_text_in_openai_chunk_format(server: MockLLMServer, http: httpx.Client) -> None:
    server.enqueue("Let us think step by step.")
    response = chat(http, stream=True, stream_options={"include_usage": True})
    assert response.headers["content-type"].startswith("text/event-stream")
    chunks = [json.loads(e) for e in sse_events(response)[:-1]]
    assert {c["object"] for c in chunks} == {"chat.completion.chunk"}
    assert len({c["id"] for c in chunks}) == 1
    assert chunks[0]["choices"][0]["delta"] == {"role": "assistant", "content": ""}
    pieces = [c["choices"][0]["delta"].get("content") for c in chunks[1:-2]]
    assert pieces == ["Let", " us", " think", " step", " by", " step."]
    assert chunks[-2]["choices"][0] == {"index": 0, "delta": {}, "logprobs": None, "finish_reason": "stop"}
    assert chunks[-1]["choices"] == []
    assert chunks[-1]["usage"]["completion_tokens"] == 6
    assert all(c["usage"] is None for c in chunks[:-1])


def test_streams_without_a_usage_chunk_unless_asked(server: MockLLMServer, http: httpx.Client) -> None:
    chunks = [json.loads(e) for e in sse_events(chat(http, "hi", stream=True))[:-1]]
    assert all("usage" not in c for c in chunks)
    assert "".join(c["choices"][0]["delta"].get("content", "") for c in chunks) == ECHO_PREFIX + "hi"


def test_streams_tool_calls(server: MockLLMServer, http: httpx.Client) -> None:
    server.enqueue(tool_calls=[{"id": "call_9", "name": "lookup", "arguments": {"term": "limit of f"}}])
    chunks = [json.loads(e) for e in sse_events(chat(http, stream=True))[:-1]]
    calls = [c["choices"][0]["delta"]["tool_calls"][0] for c in chunks if "tool_calls" in c["choices"][0]["delta"]]
    assert calls[0] == {"index": 0, "id": "call_9", "type": "function", "function": {"name": "lookup", "arguments": ""}}
    assert "".join(c["function"]["arguments"] for c in calls[1:]) == '{"term": "limit of f"}'
    assert chunks[-1]["choices"][0]["finish_reason"] == "tool_calls"


def test_faults(server: MockLLMServer, http: httpx.Client) -> None:
    server.enqueue(fault=503).enqueue(fault=429).enqueue(fault="invalid_json")
    failed = chat(http)
    assert failed.status_code == 503
    assert failed.json()["error"]["type"] == "server_error"
    limited = chat(http)
    assert (limited.status_code, limited.headers["retry-after"]) == (429, "0")
    content = chat(http).json()["choices"][0]["message"]["content"]
    with pytest.raises(json.JSONDecodeError):
        json.loads(content)


def test_timeout_fault_outlasts_a_short_client_timeout(server: MockLLMServer) -> None:
    server.enqueue(fault="timeout", delay=5)
    with httpx.Client(base_url=server.url, timeout=0.2) as impatient, pytest.raises(httpx.ReadTimeout):
        chat(impatient)
    assert server.pending == 0


def test_bad_requests_get_openai_style_errors(http: httpx.Client) -> None:
    response = http.post("/chat/completions", content=b"{not json")
    assert response.status_code == 400
    assert response.json()["error"]["type"] == "invalid_request_error"
    assert http.post("/chat/completions", json={"model": "m"}).status_code == 400


class Level(BaseModel):
    name: Literal["hint", "nudge"]
    depth: int = Field(ge=1)


class Plan(BaseModel):
    goal: str = Field(min_length=3)
    levels: list[Level] = Field(min_length=2)
    score: float | None
    done: bool
    note: str = "none"


def test_json_schema_requests_get_a_minimal_valid_instance(server: MockLLMServer, http: httpx.Client) -> None:
    schema = Plan.model_json_schema()
    response_format = {"type": "json_schema", "json_schema": {"name": "Plan", "schema": schema}}
    content = chat(http, response_format=response_format).json()["choices"][0]["message"]["content"]
    plan = Plan.model_validate_json(content)
    assert plan == Plan(goal="xxx", levels=[Level(name="hint", depth=1)] * 2, score=None, done=False)
    assert chat(http, response_format={"type": "json_object"}).json()["choices"][0]["message"]["content"] == "{}"


def test_minimal_instance_golden_values() -> None:
    assert minimal_instance({"type": "integer", "exclusiveMinimum": 4}) == 5
    assert minimal_instance({"type": "number", "minimum": 0.5}) == 0.5
    assert minimal_instance({"type": ["null", "string"]}) is None
    assert minimal_instance({"anyOf": [{"type": "string"}, {"type": "integer"}]}) == ""
    assert minimal_instance({"const": "fixed"}) == "fixed"
    assert minimal_instance({"type": "string", "format": "date-time"}) == "1970-01-01T00:00:00Z"
    merged = {"allOf": [{"type": "object", "properties": {"a": {"type": "boolean"}}}, {"required": ["a"]}]}
    assert minimal_instance(merged) == {"a": False}


def test_load_script_json_list_and_json_lines(tmp_path: Path) -> None:
    as_list = tmp_path / "script.json"
    as_list.write_text(json.dumps([{"text": "hi"}, {"fault": 500}]))
    as_lines = tmp_path / "script.jsonl"
    as_lines.write_text('{"json": {"ok": true}}\n\n{"fault": "timeout", "delay": 2}\n')
    assert [(r.text, r.fault) for r in load_script(as_list)] == [("hi", None), (None, 500)]
    replies = load_script(as_lines)
    assert (replies[0].json_value, replies[1].fault, replies[1].delay) == ({"ok": True}, "timeout", 2.0)


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        ('{"text": "a"}\n{"txt": "b"}\n', "line 2: not a mock reply"),
        ('{"text": "a"}\nnot json\n', ":2: not JSON"),
        ('[{"fault": 200}]', "item 1: not a mock reply: Value error, fault status 200 is not an HTTP error status"),
        ('[{"text": "a", "fault": 500}]', "item 1: not a mock reply: Value error, text can only be combined"),
    ],
)
def test_load_script_names_the_bad_line(tmp_path: Path, content: str, expected: str) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text(content)
    with pytest.raises(UserError, match=expected):
        load_script(path)


def cli() -> typer.Typer:
    app, eval_app = typer.Typer(), typer.Typer()
    app.add_typer(eval_app, name="eval")
    register(app, eval_app)
    return app


class StubUvicorn:
    """Stands in for uvicorn.Server so the foreground command returns; records the socket it was handed."""

    bound: list[tuple[str, int]] = []

    def run(self, sockets: list) -> None:
        self.bound.append(sockets[0].getsockname())
        sockets[0].close()


def test_cli_prints_the_url_and_the_env_vars(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(MockLLMServer, "_uvicorn", lambda self: StubUvicorn())
    script = tmp_path / "s.jsonl"
    script.write_text('{"text": "a"}\n{"text": "b"}\n')
    result = CliRunner().invoke(cli(), ["mock-llm", "--port", "0", "--script", str(script)])
    assert result.exit_code == 0, result.output
    host, port = StubUvicorn.bound[-1]
    url = f"http://127.0.0.1:{port}/v1"
    assert host == "127.0.0.1"
    assert f"mock LLM server on {url} (2 scripted replies)" in result.output
    assert f"export TUTOR_LLM_BASE_URL={url}\n" in result.output
    assert "export TUTOR_LLM_MODEL=mock-model\n" in result.output
    assert "export TUTOR_LLM_API_KEY=mock\n" in result.output

    result = CliRunner().invoke(cli(), ["mock-llm", "--port", "0", "--json"])
    assert json.loads(result.output)["env"]["TUTOR_LLM_BASE_URL"] == f"http://127.0.0.1:{StubUvicorn.bound[-1][1]}/v1"


def test_cli_reports_a_bad_script_in_one_line(tmp_path: Path) -> None:
    result = CliRunner().invoke(cli(), ["mock-llm", "--script", str(tmp_path / "missing.jsonl")])
    assert result.exit_code == 2
    assert "error: cannot read the mock script" in result.output
