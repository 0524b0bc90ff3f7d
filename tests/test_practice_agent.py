"""The tool-calling loop with scripted models: tools run against the session, failures go back as tool errors."""

from __future__ import annotations

import json

from practice_fixtures import Q_ADM, Q_BFS, at, new_session

from app.llm import FakeLLM, FunctionLLM, Message
from app.practice.agent import TOOLS, AgentTutor, Assessment
from app.practice.store import InMemoryPracticeStore


def call(name: str, id_: str, **arguments) -> dict:
    return {"id": id_, "name": name, "arguments": arguments}


def test_tools_schemas_come_from_pydantic_and_rating_has_no_hint_count() -> None:
    names = [t.name for t in TOOLS]
    assert names == ["getContent", "getNextQuestion", "giveHint", "resolveQuestion", "saveQuestionRating"]
    rating = TOOLS[-1].parameters
    assert rating == Assessment.model_json_schema()
    assert "hintsGiven" not in rating["properties"]
    assert rating["properties"]["score"]["minimum"] == 1 and rating["properties"]["score"]["maximum"] == 10


def test_loop_runs_tools_and_a_failed_call_goes_back_as_an_error() -> None:
    store = InMemoryPracticeStore()
    llm = FakeLLM()
    # start: wrong order first (getNextQuestion before getContent) → error message, then the right order
    llm.enqueue(tool_calls=[call("getNextQuestion", "c1")])
    llm.enqueue(tool_calls=[call("getContent", "c2"), call("getNextQuestion", "c3")])
    llm.enqueue(text="First question: which data structure does BFS use?")
    tutor = AgentTutor(llm, new_session(store=store))
    turn = tutor.start(at(0))
    assert [(log.name, log.ok) for log in turn.tool_calls] == [
        ("getNextQuestion", False), ("getContent", True), ("getNextQuestion", True)]
    error = llm.requests[1].messages[-1]
    assert error.role == "tool" and error.tool_call_id == "c1"
    assert error.content.startswith("Error executing tool getNextQuestion: call getContent first")
    assert json.loads(llm.requests[2].messages[-1].content)["questionId"] == Q_BFS.id
    assert turn.question_id == Q_BFS.id and turn.text == "First question: which data structure does BFS use?"

    # a wrong answer: bad arguments (unknown id, score out of range) come back as errors, the dialogue continues
    llm.enqueue(tool_calls=[call("giveHint", "c4", questionId="q-nope", text="Think about order.")])
    llm.enqueue(tool_calls=[call("giveHint", "c5", questionId=Q_BFS.id, text="Think about the order nodes leave.")])
    llm.enqueue(text="Here is a hint: think about the order nodes leave.")
    turn = tutor.respond("a stack", at(1))
    assert [(log.name, log.ok) for log in turn.tool_calls] == [("giveHint", False), ("giveHint", True)]
    assert "not a question of this session" in turn.tool_calls[0].result
    assert turn.hint.level == 1 and turn.hint.trigger == "model"

    # a correct answer: the model proposes 10 with 1 hint; bad score first, then a valid one → saved as 9
    llm.enqueue(tool_calls=[call("saveQuestionRating", "c6", questionId=Q_BFS.id, correct=True, score=11,
                                 reasoning="great")])
    llm.enqueue(tool_calls=[call("saveQuestionRating", "c7", questionId=Q_BFS.id, correct=True, score=10,
                                 reasoning="Correct: FIFO queue.", good="Named the FIFO queue.", missing="",
                                 tip="Trace BFS once.")])
    llm.enqueue(tool_calls=[call("getNextQuestion", "c8")])
    llm.enqueue(text="Next: what does admissible mean?")
    turn = tutor.respond("a FIFO queue, oldest node first", at(2))
    assert turn.tool_calls[0].ok is False and "invalid arguments (score:" in turn.tool_calls[0].result
    assert turn.rating.score == 9 and turn.rating.proposed_score == 10 and turn.rating.hints_given == 1
    assert turn.feedback.good == "Named the FIFO queue." and turn.feedback.transition.endswith(Q_ADM.question)
    assert turn.text.startswith(turn.feedback.render())
    assert turn.question_id == Q_ADM.id

    # an unknown tool is an error too; then the model rates without hints, fetches the end marker
    llm.enqueue(tool_calls=[call("deleteDatabase", "c9")])
    llm.enqueue(tool_calls=[call("saveQuestionRating", "c10", questionId=Q_ADM.id, correct=True, score=10,
                                 reasoning="Exact.")])
    llm.enqueue(tool_calls=[call("getNextQuestion", "c11")])
    llm.enqueue(text="That was all. Well done!")
    turn = tutor.respond("it never overestimates the cost to the goal", at(3))
    assert "unknown tool 'deleteDatabase'" in turn.tool_calls[0].result
    assert json.loads(turn.tool_calls[-1].result) == {"end": True, "marker": "END_OF_QUESTIONS", "answered": 2}
    assert turn.finished and turn.rating.score == 10
    assert [r.score for r in store.list_ratings("search")] == [9, 10]
    assert llm.pending == 0


def test_sixth_hint_request_resolves_in_code_and_the_rating_is_made_mandatory() -> None:
    store = InMemoryPracticeStore()
    hints_seen: list[str] = []

    def model(messages: list[Message], request) -> object:
        last = messages[-1]
        if request.kind == "structured":
            return {"questionId": "whatever", "correct": False, "score": 10, "reasoning": "Needed all the help."}
        if last.role == "tool":
            return "OK."
        if "Start the session" in (last.content or ""):
            return [call("getContent", "a"), call("getNextQuestion", "b")]
        hints_seen.append(last.content or "")
        return [call("giveHint", f"h{len(hints_seen)}", questionId=Q_BFS.id, text="Think about the order.")]

    tutor = AgentTutor(FunctionLLM(model), new_session(questions=[Q_BFS], store=store))
    tutor.start(at(0))
    turns = [tutor.respond("give me a hint", at(i + 1)) for i in range(6)]
    assert [t.hint.level if t.hint else None for t in turns] == [1, 2, 3, 4, 5, None]
    last = turns[5]
    assert last.revealed_answer == Q_BFS.reference_answer
    assert last.text.startswith(f"The answer: {Q_BFS.reference_answer}")
    # the model still tried a sixth giveHint: it came back as an error, and the code rated the question itself
    assert last.tool_calls[0].ok is False and "resolved" in last.tool_calls[0].result
    (rating,) = store.list_ratings("search")
    assert rating.resolved and rating.hints_given == 5 and rating.score == 3 and rating.proposed_score == 10
    assert len(tutor.session.hint_events) == 5


def test_model_giving_a_sixth_hint_itself_gets_the_question_resolved() -> None:
    llm = FakeLLM()
    llm.enqueue(tool_calls=[call("getContent", "a"), call("getNextQuestion", "b")]).enqueue(text="Q1?")
    tutor = AgentTutor(llm, new_session(questions=[Q_BFS]))
    tutor.start(at(0))
    for i in range(5):
        llm.enqueue(tool_calls=[call("giveHint", f"h{i}", questionId=Q_BFS.id, text=f"Hint about ordering {i}.")])
        llm.enqueue(text="hint given")
        tutor.respond("a stack?", at(i + 1))
    llm.enqueue(tool_calls=[call("giveHint", "h6", questionId=Q_BFS.id, text="Another hint.")])
    llm.enqueue(tool_calls=[call("saveQuestionRating", "r", questionId=Q_BFS.id, correct=False, score=2,
                                 reasoning="Resolved.")])
    llm.enqueue(text="The answer was shown.")
    turn = tutor.respond("still a stack", at(7))
    result = json.loads(turn.tool_calls[0].result)
    assert result["hintGiven"] is False and result["resolved"] is True
    assert turn.revealed_answer == Q_BFS.reference_answer
    assert turn.rating.score == 2 and turn.rating.hints_given == 5
    assert llm.pending == 0
