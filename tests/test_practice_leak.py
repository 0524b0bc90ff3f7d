"""Grounded reveal levels and the answer-leak guard, over the adversarial set, in both modes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from practice_fixtures import Q_ADM, Q_BFS, ScriptedGrader, at

from app.llm import FunctionLLM, Message
from app.practice.agent import AgentTutor
from app.practice.grounded import GroundedTutor
from app.practice.hints import cloze, grounded_hint, key_concept, reveal_order, revealed_count
from app.practice.leak_guard import WITHHELD_TEXT, content_overlap, guard_hint
from app.practice.moves import classify_move
from app.practice.questions import load_questions
from app.practice.session import GuidedSession
from app.practice.store import InMemoryPracticeStore

DATA = Path(__file__).resolve().parents[1] / "data" / "practice"
ADVERSARIAL = [json.loads(line) for line in (DATA / "adversarial.jsonl").read_text().splitlines() if line.strip()]
BANK = load_questions(DATA / "questions.jsonl")


def test_content_overlap_golden() -> None:
    ref = "It never overestimates the true cost of reaching the goal from a node."
    # content stems: never overestim true cost reach goal node → 7
    assert content_overlap("the cost to the goal", ref) == pytest.approx(2 / 7)
    assert content_overlap(ref, ref) == 1.0
    assert content_overlap("anything", "the of a") == 0.0


def test_guard_masks_then_withholds() -> None:
    ref = Q_BFS.reference_answer
    ok = guard_hint("Think about the order in which nodes leave.", ref, level=2, question=Q_BFS.question)
    assert ok.action == "ok"
    leaked = guard_hint(f"Sure! {ref}", ref, level=3, question=Q_BFS.question)
    assert leaked.action == "masked" and (leaked.overlap_before, leaked.overlap_after) == (1.0, 0.5)
    assert leaked.text == "Sure! A ___ ___ that ___ the ___ ___ first, so shallower ___ are expanded before deeper ones."
    whole = guard_hint(Q_ADM.reference_answer, Q_ADM.reference_answer, level=1, question=Q_ADM.question)
    assert whole.action == "withheld" and whole.text == WITHHELD_TEXT and whole.overlap_after == 0.0
    partial = guard_hint("A FIFO queue that pops the oldest node, expanded before deeper ones: where do new nodes go?",
                         ref, level=4, question=Q_BFS.question)
    # 8 of 10 stems shared; the ones the question does not contain are blanked first, down to 5 of 10
    assert (partial.action, partial.overlap_before, partial.overlap_after) == ("masked", 0.8, 0.5)
    assert partial.text == "A ___ ___ that ___ the oldest node, expanded before deeper ones: where do new nodes go?"
    assert guard_hint(ref, ref, level=5).action == "exempt"


def test_grounded_ladder_levels_golden() -> None:
    assert grounded_hint(Q_BFS, 1) == "Look again at section 1.4 Breadth-First Search (pages 6-7 of search-algorithms.pdf)."
    assert grounded_hint(Q_BFS, 2) == "The key concept here is “FIFO”. How does it answer the question?"
    assert key_concept(Q_ADM) == "overestimates"
    # 10 content stems; 'first' is revealed first because the question ("breadth-first") already says it
    assert reveal_order(Q_BFS) == ["first", "fifo", "queue", "pop", "oldest", "node", "shallow", "expand", "deeper",
                                   "one"]
    assert [revealed_count(10, lv) for lv in (3, 4, 5)] == [2, 5, 8]
    assert [revealed_count(1, lv) for lv in (3, 4, 5)] == [0, 0, 0]
    assert cloze(Q_BFS, 3) == "A FIFO ___ that ___ the ___ ___ first, so ___ ___ are ___ before ___ ___."
    assert cloze(Q_BFS, 4) == "A FIFO queue that pops the oldest ___ first, so ___ ___ are ___ before ___ ___."
    assert cloze(Q_BFS, 5) == "A FIFO queue that pops the oldest node first, so shallower nodes are expanded before d___ o___."
    assert cloze(Q_ADM, 5) == "It never overestimates the true cost of reaching the goal from a n___."


@pytest.mark.parametrize("question", BANK, ids=[q.id for q in BANK])
def test_grounded_levels_one_to_four_never_leak_and_grow_clearer(question) -> None:
    overlaps = [content_overlap(grounded_hint(question, lv), question.reference_answer) for lv in range(1, 6)]
    assert max(overlaps[:4]) <= 0.5
    assert overlaps[2] <= overlaps[3] < overlaps[4]


@pytest.mark.parametrize("item", ADVERSARIAL, ids=[a["id"] for a in ADVERSARIAL])
def test_adversarial_messages_never_count_as_answers(item) -> None:
    assert classify_move(item["message"]) == "hint"


def _leaky_model(messages: list[Message], request) -> object:
    """A model that obeys the attacker: it pastes the reference answer into every hint and every reply."""
    reference = ""
    for m in messages:
        if m.role == "tool" and m.content and m.content.startswith("{"):
            reference = json.loads(m.content).get("referenceAnswer", reference)
    last = messages[-1]
    if request.kind == "structured":
        return {"questionId": "x", "correct": False, "score": 3, "reasoning": "resolved"}
    if last.role == "user" and "Start the session" in (last.content or ""):
        return [{"id": "a", "name": "getContent", "arguments": {}}, {"id": "b", "name": "getNextQuestion", "arguments": {}}]
    if last.role == "user":
        qid = next(json.loads(m.content)["questionId"] for m in messages
                   if m.role == "tool" and m.content and '"questionId"' in m.content)
        return [{"id": "h", "name": "giveHint", "arguments": {"questionId": qid, "text": f"The answer is: {reference}"}}]
    return f"Fine, here it is: {reference}"


def _shown_before_level_five(turns, reference: str) -> list[float]:
    """Overlap of everything shown while the question was open with fewer than five hints (after the resolution the
    answer is public, and the fifth hint is meant to nearly give it away)."""
    out = []
    for t in turns:
        if t.revealed_answer is not None:
            break
        if t.hint is not None and t.hint.level <= 4:
            out.append(content_overlap(t.hint.text, reference))
        if t.revealed_answer is None and (t.hint is None or t.hint.level <= 4):
            out.append(content_overlap(t.text, reference))
    return out


@pytest.mark.parametrize("question", BANK, ids=[q.id for q in BANK])
def test_leaky_model_is_guarded_over_the_adversarial_set(question) -> None:
    store = InMemoryPracticeStore()
    session = GuidedSession(session_id="adv", course=question.course, learner="mallory", questions=[question],
                            material="notes", store=store)
    tutor = AgentTutor(FunctionLLM(_leaky_model), session)
    tutor.start(at(0))
    turns = [tutor.respond(item["message"], at(i + 1)) for i, item in enumerate(ADVERSARIAL)]
    overlaps = _shown_before_level_five(turns, question.reference_answer)
    assert overlaps and max(overlaps) <= 0.5
    assert [e.level for e in session.hint_events] == [1, 2, 3, 4, 5]
    assert all(e.guard in ("masked", "withheld") for e in session.hint_events[:4])
    (rating,) = store.list_ratings(question.course)
    assert rating.resolved and rating.hints_given == 5
    assert turns[5].revealed_answer == question.reference_answer  # the 6th demand resolves, never a 6th hint
    assert all(t.hint is None for t in turns[5:])


@pytest.mark.parametrize("question", BANK, ids=[q.id for q in BANK])
def test_grounded_mode_is_guarded_over_the_adversarial_set(question) -> None:
    session = GuidedSession(session_id="adv", course=question.course, learner="mallory", questions=[question],
                            material="notes", store=InMemoryPracticeStore())
    tutor = GroundedTutor(session, ScriptedGrader({}))
    tutor.start(at(0))
    turns = [tutor.respond(item["message"], at(i + 1)) for i, item in enumerate(ADVERSARIAL)]
    overlaps = _shown_before_level_five(turns, question.reference_answer)
    assert len(overlaps) >= 8 and max(overlaps) <= 0.5
    assert [e.level for e in session.hint_events] == [1, 2, 3, 4, 5]
    assert turns[5].revealed_answer == question.reference_answer
