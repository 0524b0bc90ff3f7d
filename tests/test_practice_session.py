"""The guided session in grounded mode: hint ladder limits, counted hints, bands, end marker, feedback, teacher view."""

from __future__ import annotations

import pytest
from practice_fixtures import Q_ADM, Q_BFS, ScriptedGrader, at, new_session

from app.grading.grader import OfflineGrader
from app.practice.feedback import SECTION_TITLES
from app.practice.grounded import GroundedTutor
from app.practice.session import END_MARKER, ToolCallError
from app.practice.store import InMemoryPracticeStore, teacher_view
from indexing.embedder import HashEmbedder


def test_six_hint_requests_give_exactly_five_hints_then_the_resolution() -> None:
    store = InMemoryPracticeStore()
    tutor = GroundedTutor(new_session(store=store), ScriptedGrader({}))
    tutor.start(at(0))
    turns = [tutor.respond("hint please", at(i + 1)) for i in range(6)]
    assert [t.hint.level for t in turns[:5]] == [1, 2, 3, 4, 5]
    assert turns[5].hint is None
    assert turns[5].revealed_answer == Q_BFS.reference_answer
    assert turns[5].rating is not None and turns[5].rating.resolved
    (rating,) = store.list_ratings("search")
    assert rating.hints_given == 5 == len(tutor.session.hint_events)
    assert [h.text for h in rating.hints] == [t.hint.text for t in turns[:5]]
    assert rating.score == 1  # nothing graded: partial credit 1
    assert turns[5].question_id == Q_ADM.id  # moved on


def test_sixth_hint_is_refused_by_the_session_itself() -> None:
    s = new_session()
    s.get_content(at(0))
    s.get_next_question(at(0))
    for i in range(5):
        s.give_hint(f"hint {i}", at(i), trigger="request")
    with pytest.raises(ToolCallError, match="all 5 hints"):
        s.give_hint("one more", at(6), trigger="request")
    assert len(s.hint_events) == 5


def test_wrong_answers_earn_hints_and_correct_answer_is_scored_in_the_band() -> None:
    store = InMemoryPracticeStore()
    grader = ScriptedGrader({"a stack": 1, "a queue": 2, "a FIFO queue, oldest first": 4})
    tutor = GroundedTutor(new_session(store=store), grader)
    tutor.start(at(0))
    t1 = tutor.respond("a stack", at(1))
    t2 = tutor.respond("a queue", at(2))
    t3 = tutor.respond("hint", at(3))
    assert (t1.hint.trigger, t2.hint.trigger, t3.hint.trigger) == ("wrong_answer", "wrong_answer", "request")
    done = tutor.respond("a FIFO queue, oldest first", at(4))
    rating = done.rating
    assert rating.hints_given == 3 == len(tutor.session.hint_events)
    assert rating.band == "6-7" and rating.score == 7  # quality 4 → upper half of 6-7
    assert rating.quality == 3
    assert rating.rated_at == at(4)
    assert done.question_id == Q_ADM.id


def test_wrong_answer_after_five_hints_resolves_with_partial_credit() -> None:
    tutor = GroundedTutor(new_session(), ScriptedGrader({"a queue": 2}))
    tutor.start(at(0))
    for i in range(5):
        tutor.respond("hint", at(i + 1))
    turn = tutor.respond("a queue", at(7))
    assert turn.revealed_answer == Q_BFS.reference_answer
    assert turn.rating.resolved and turn.rating.score == 2 and turn.rating.hints_given == 5


def test_give_up_resolves_at_once() -> None:
    tutor = GroundedTutor(new_session(), ScriptedGrader({}))
    tutor.start(at(0))
    tutor.respond("hint", at(1))
    turn = tutor.respond("ich gebe auf", at(2))
    assert turn.rating.resolved and turn.rating.hints_given == 1 and turn.rating.band == "1-3"


def test_end_marker_and_finish() -> None:
    tutor = GroundedTutor(new_session(questions=[Q_ADM]), ScriptedGrader({"never overestimates": 5}))
    first = tutor.start(at(0))
    assert first.question_id == Q_ADM.id and not first.finished
    last = tutor.respond("never overestimates", at(1))
    assert last.finished and last.rating.score == 10
    assert tutor.session.get_next_question(at(2)) == {"end": True, "marker": END_MARKER, "answered": 1}
    assert tutor.respond("anything", at(3)).text == "The session is over."


def test_feedback_keeps_the_fixed_structure() -> None:
    tutor = GroundedTutor(new_session(), ScriptedGrader({"right": 5}))
    tutor.start(at(0))
    tutor.respond("hint", at(1))
    turn = tutor.respond("right", at(2))
    fb = turn.feedback
    assert [title for title, _ in fb.sections()] == list(SECTION_TITLES)
    lines = fb.render().splitlines()
    assert [line.split(":")[0] for line in lines] == ["Score", "What was good", "What was missing", "Learning tip", "Next"]
    assert lines[0] == "Score: 9/10 — answered after 1 hint (band 8-9)"
    assert lines[4] == f"Next: Next question: {Q_ADM.question}"
    assert turn.text.startswith(fb.render())


def test_tool_order_and_unknown_ids_are_errors() -> None:
    s = new_session()
    with pytest.raises(ToolCallError, match="getContent first"):
        s.get_next_question(at(0))
    s.get_content(at(0))
    with pytest.raises(ToolCallError, match="already called"):
        s.get_content(at(0))
    with pytest.raises(ToolCallError, match="no question is open"):
        s.save_rating("q-bfs", 10, "ok", at(1))
    s.get_next_question(at(1))
    with pytest.raises(ToolCallError, match="still open"):
        s.get_next_question(at(2))
    with pytest.raises(ToolCallError, match="not a question of this session"):
        s.save_rating("q-nope", 10, "ok", at(2))
    with pytest.raises(ToolCallError, match="not the open question"):
        s.save_rating("q-adm", 10, "ok", at(2))


def test_proposed_ten_after_three_hints_is_saved_as_at_most_seven() -> None:
    store = InMemoryPracticeStore()
    s = new_session(store=store)
    s.get_content(at(0))
    s.get_next_question(at(0))
    for i in range(3):
        s.give_hint(f"think about hint number {i}", at(i + 1), trigger="model")
    rating, feedback = s.save_rating("q-bfs", 10, "Correct in the end.", at(5))
    assert rating.score == 7 and rating.proposed_score == 10 and rating.hints_given == 3
    assert "clamped" in feedback.reason
    assert store.list_ratings("search")[0].score == 7


def test_not_correct_rating_falls_in_partial_credit_band() -> None:
    s = new_session()
    s.get_content(at(0))
    s.get_next_question(at(0))
    rating, _ = s.save_rating("q-bfs", 9, "wrong", at(1), correct=False)
    assert rating.resolved and rating.score == 3


def test_teacher_view_lists_ratings_with_hint_texts_and_times() -> None:
    store = InMemoryPracticeStore()
    for learner, sid, minute in (("bob", "s2", 30), ("ada", "s1", 0)):
        tutor = GroundedTutor(new_session(store=store, session_id=sid, learner=learner), ScriptedGrader({"ok": 5}))
        tutor.start(at(minute))
        tutor.respond("hint", at(minute + 1))
        tutor.respond("ok", at(minute + 2))
    rows = teacher_view(store, "search")
    assert [(r.learner, r.question_id, r.score, r.hints_given) for r in rows] == [("ada", "q-bfs", 9, 1),
                                                                                    ("bob", "q-bfs", 9, 1)]
    assert rows[0].hints[0].text == "Look again at section 1.4 Breadth-First Search (pages 6-7 of search-algorithms.pdf)."
    assert rows[0].hints[0].at == at(1) and rows[0].rated_at == at(2)
    assert "quality 5/5" in rows[0].reasoning
    assert [r.learner for r in teacher_view(store, "search", learner="bob")] == ["bob"]
    assert teacher_view(store, "other") == []


def test_with_the_offline_grader_the_reference_itself_is_correct() -> None:
    tutor = GroundedTutor(new_session(questions=[Q_ADM]), OfflineGrader(HashEmbedder()))
    tutor.start(at(0))
    turn = tutor.respond(Q_ADM.reference_answer, at(1))
    assert turn.rating.score == 10 and turn.finished
