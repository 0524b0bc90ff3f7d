"""LLM mode: citations checked in code, "beyond" marked, stable prompt prefix, grounded fallback, streaming, and one
end-to-end run against the mock OpenAI-compatible server through the real `openai` client."""

from __future__ import annotations

import logging

from test_tutor_fakes import ALL, ASTAR, BFS, FixedRetriever

from app.errors import LLMOutputError, LLMUnavailableError
from app.llm import FakeLLM, OpenAICompatibleLLM, Usage, allow_model_requests
from app.llm.mock_server import MockLLMServer
from app.tutor.grounded import check_grounded
from app.tutor.llm_mode import LLMReply, inline_citations
from app.tutor.prompts import SYSTEM_PROMPT, build_messages
from app.tutor.service import TutorService
from app.tutor.strategies import BEYOND_NOTE, LLM_FALLBACK, all_templates, strategy_for
from app.tutor.types import Citation, Turn

Q = "what is breadth-first search?"


def service(llm) -> TutorService:
    return TutorService(FixedRetriever(), llm=llm)


def test_citations_of_chunks_not_provided_are_dropped_and_logged(caplog):
    llm = FakeLLM().enqueue(json={"reply": "BFS expands the shallowest node first. What data structure does that need?",
                                  "citations": [BFS.id, "made-up-7", BFS.id], "grounding": "material"})
    with caplog.at_level(logging.WARNING, logger="app.tutor.llm_mode"):
        reply = service(llm).answer(Q)
    assert reply.mode == "llm" and reply.grounding == "material"
    assert reply.citations == [Citation(BFS.id, "search-algorithms.pdf", 6, 7)]
    assert reply.reply == "BFS expands the shallowest node first. What data structure does that need?"
    assert "made-up-7" in caplog.text
    assert llm.pending == 0


def test_beyond_replies_are_marked_to_the_learner():
    llm = FakeLLM().enqueue(json={"reply": "Quicksort picks a pivot.", "citations": [], "grounding": "beyond"})
    reply = service(llm).answer(Q)
    assert reply.grounding == "beyond"
    assert reply.reply == f"Quicksort picks a pivot.\n\n{BEYOND_NOTE['en']}"


def test_material_claim_without_any_valid_citation_counts_as_beyond():
    llm = FakeLLM().enqueue(json={"reply": "Trust me.", "citations": ["nope"], "grounding": "material"})
    reply = service(llm).answer(Q)
    assert reply.grounding == "beyond" and reply.citations == []
    assert reply.reply.endswith(BEYOND_NOTE["en"])


def test_structured_request_uses_the_reply_schema_and_usage_is_reported():
    usage = Usage(prompt_tokens=120, completion_tokens=9, cached_prompt_tokens=100)
    llm = FakeLLM().enqueue(json={"reply": "ok", "citations": [BFS.id], "grounding": "material"}, usage=usage)
    reply = service(llm).answer(Q)
    schema = llm.requests[0].schema
    assert set(schema["properties"]) == {"reply", "citations", "grounding"}
    assert schema["properties"]["grounding"]["enum"] == ["material", "beyond"]
    assert reply.usage == usage
    assert reply.to_dict()["usage"] == {"prompt_tokens": 120, "completion_tokens": 9, "cached_prompt_tokens": 100}


def test_two_calls_share_the_exact_prompt_prefix():
    llm = FakeLLM()
    for _ in range(3):
        llm.enqueue(json={"reply": "ok", "citations": [], "grounding": "beyond"})
    s = service(llm)
    first = s.answer(Q)
    s.answer("what is a heuristic?")
    history = [Turn("user", Q, intent=first.intent), Turn("assistant", first.reply, first.intent, first.help_level)]
    s.answer("what is an admissible heuristic?", history=history)
    a, b, c = (r.messages for r in llm.requests)
    assert a[0] == b[0] == c[0]
    assert a[0].role == "system" and a[0].content.startswith(SYSTEM_PROMPT)
    assert strategy_for("direct").instructions in a[0].content
    assert Q not in a[0].content and BFS.text not in a[0].content
    # the conversation so far comes before this turn's chunks
    assert [m.content for m in c[1:3]] == [Q, first.reply]
    assert BFS.text in c[-1].content and c[-1].content.endswith("Learner: what is an admissible heuristic?")


def test_prompt_layout_is_prefix_history_then_turn():
    hits = FixedRetriever().search("q").hits
    messages = build_messages("tracing", "trace BFS", hits, help_level=3, history=[Turn("user", "hi")])
    assert [m.role for m in messages] == ["system", "user", "user"]
    assert "Help level: 3 of 5" in messages[-1].content
    assert f"[{ASTAR.id}] (search-algorithms.pdf, pp. 12-13, section: 2.3 A* Search)" in messages[-1].content


def test_model_failure_falls_back_to_grounded_mode_and_says_so():
    llm = FakeLLM().enqueue(error=LLMUnavailableError("connection refused"))
    reply = service(llm).answer(Q)
    assert reply.mode == "grounded" and reply.grounding == "material"
    assert reply.reply.split("\n")[0] == LLM_FALLBACK["en"]
    assert check_grounded(reply.reply, ALL, all_templates()).ok


def test_invalid_output_twice_falls_back_too():
    llm = FakeLLM().enqueue("not json").enqueue('{"reply": 1}')
    reply = service(llm).answer(Q)
    assert reply.mode == "grounded" and reply.reply.startswith(LLM_FALLBACK["en"])
    assert len(llm.requests) == 2  # the seam's one corrective retry, then LLMOutputError


def test_stream_in_llm_mode_yields_deltas_and_resolves_inline_citations():
    llm = FakeLLM().enqueue(f"BFS uses a FIFO queue [{BFS.id}]. What order does that give?")
    stream = service(llm).stream(Q)
    pieces = list(stream)
    assert "".join(pieces) == f"BFS uses a FIFO queue [{BFS.id}]. What order does that give?"
    assert len(pieces) > 3
    assert stream.reply.mode == "llm" and stream.reply.grounding == "material"
    assert [c.chunk_id for c in stream.reply.citations] == [BFS.id]


def test_stream_in_llm_mode_marks_uncited_text_as_beyond():
    llm = FakeLLM().enqueue("No idea where this is from.")
    stream = service(llm).stream(Q)
    text = "".join(stream)
    assert text.endswith(BEYOND_NOTE["en"]) and stream.reply.grounding == "beyond"


def test_stream_falls_back_when_the_model_fails():
    llm = FakeLLM().enqueue(error=LLMOutputError("broken"))
    stream = service(llm).stream(Q)
    text = "".join(stream)
    assert text == stream.reply.reply and stream.reply.mode == "grounded"
    assert text.startswith(LLM_FALLBACK["en"])


def test_stream_in_grounded_mode_joins_to_the_reply():
    s = TutorService(FixedRetriever())
    stream = s.stream(Q)
    pieces = list(stream)
    assert len(pieces) == len(stream.reply.reply.split("\n")) > 2
    assert "".join(pieces) == stream.reply.reply == s.answer(Q).reply


def test_inline_citation_markers():
    assert inline_citations("a [c-1] b [c3b7137ab78e-0010]. [1]") == ["c-1", "c3b7137ab78e-0010", "1"]


def test_end_to_end_against_the_mock_server():
    payload = LLMReply(reply="BFS expands the shallowest node first. Why does a FIFO queue achieve that?",
                       citations=[BFS.id, "ghost"], grounding="material")
    with MockLLMServer() as server, allow_model_requests():
        server.enqueue(json=payload.model_dump())
        server.enqueue(json={"reply": "Outside the notes.", "citations": [], "grounding": "beyond"})
        llm = OpenAICompatibleLLM(base_url=server.url, api_key="test", model="mock-model", max_retries=0)
        s = service(llm)
        first = s.answer(Q)
        second = s.answer("what is a heuristic?")
        requests = list(server.requests)
    assert first.mode == "llm" and first.grounding == "material"
    assert [c.chunk_id for c in first.citations] == [BFS.id]
    assert first.reply == payload.reply
    assert second.grounding == "beyond" and second.reply.endswith(BEYOND_NOTE["en"])
    assert requests[0]["messages"][0] == requests[1]["messages"][0]
    assert requests[0]["response_format"]["type"] == "json_schema"
    assert second.usage.cached_prompt_tokens > 0  # the mock counts the shared prefix as cached
