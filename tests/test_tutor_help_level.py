"""Help levels are counted in code: +1 per follow-up on the same problem, capped at 5, reset by a new problem."""

from __future__ import annotations

import pytest
from test_tutor_fakes import FixedRetriever

from app.tutor.help_level import asks_for_more_help, decide_help_level, problem_question, topic_overlap
from app.tutor.service import TutorService
from app.tutor.types import Turn

Q = "why is BFS optimal when all actions have the same cost?"


def exchange(question: str, intent: str, level: int) -> list[Turn]:
    return [Turn("user", question, intent=intent), Turn("assistant", "…", intent=intent, help_level=level)]


def test_first_message_is_level_one():
    d = decide_help_level([], Q, "conceptual")
    assert (d.level, d.same_problem, d.reason) == (1, False, "first message")


def test_explicit_follow_ups_count_up_to_five_and_stay_there():
    history: list[Turn] = []
    levels = []
    message = Q
    for _ in range(7):
        d = decide_help_level(history, message, "direct" if history else "conceptual")
        levels.append(d.level)
        history += exchange(message, d.previous_intent or "conceptual", d.level)
        message = "I still don't get it"
    assert levels == [1, 2, 3, 4, 5, 5, 5]


def test_same_intent_and_topic_is_a_follow_up():
    history = exchange(Q, "conceptual", 2)
    d = decide_help_level(history, "but why is BFS optimal only when all the actions cost the same?", "conceptual")
    assert (d.level, d.reason) == (3, "same intent and topic")


def test_a_new_problem_resets_to_one():
    history = exchange(Q, "conceptual", 4)
    d = decide_help_level(history, "what is a ply in game search?", "direct")
    assert (d.level, d.same_problem, d.reason) == (1, False, "new problem")
    # same words but another intent is another problem too
    d = decide_help_level(history, "walk me through why BFS is optimal when all actions have the same cost", "tracing")
    assert d.level == 1


@pytest.mark.parametrize(
    "message",
    ["I still don't get it", "still stuck", "can I get another hint?", "I don't understand it", "ich versteh's nicht",
     "Ich verstehe das immer noch nicht", "noch ein Tipp bitte", "i dont get it"],
)
def test_explicit_pleas_for_help(message):
    assert asks_for_more_help(message)


@pytest.mark.parametrize("message", ["what is a ply?", "why does BFS use a queue?", "was ist A*?"])
def test_ordinary_questions_are_not_pleas(message):
    assert not asks_for_more_help(message)


def test_topic_overlap_golden_values():
    assert topic_overlap("BFS queue", "why does BFS use a FIFO queue") == 1.0
    assert topic_overlap("what is a ply", "why does BFS use a queue") == 0.0
    assert topic_overlap("", "anything") == 0.0


def test_problem_question_skips_pleas():
    history = exchange(Q, "conceptual", 1) + exchange("still stuck", "conceptual", 2)
    assert problem_question(history) == Q


def test_service_raises_level_keeps_intent_and_retrieves_for_the_problem():
    retriever = FixedRetriever()
    service = TutorService(retriever)
    history: list[Turn] = []
    first = service.answer(Q)
    assert (first.intent, first.help_level) == ("conceptual", 1)
    history += [Turn("user", Q, intent=first.intent), Turn("assistant", first.reply, first.intent, first.help_level)]
    second = service.answer("ich versteh's nicht", history=history)
    assert (second.intent, second.help_level) == ("conceptual", 2)
    assert retriever.queries[-1] == f"{Q}\nich versteh's nicht"
    history += [Turn("user", "ich versteh's nicht", intent=second.intent),
                Turn("assistant", second.reply, second.intent, second.help_level)]
    third = service.answer("what is a ply?", history=history)
    assert (third.intent, third.help_level) == ("direct", 1)
