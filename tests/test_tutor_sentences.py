"""Sentence choice in grounded mode: definitions lead direct answers, cut-off sentence tails are never quoted."""

import pytest

from app.retrieval.types import Hit
from app.tutor.grounded import compose
from app.tutor.sentences import asks_definition, defines, is_readable
from indexing.models import Chunk


@pytest.mark.parametrize(
    ("sentence", "question", "expected"),
    [
        ("A heuristic is admissible if it never overestimates the cost to reach a goal.",
         "what does it mean for a heuristic to be admissible again", True),
        ("The horizon effect is the problem that a loss is pushed beyond the search depth.",
         "what is the horizon effect", True),
        ("Eine Heuristik heißt konsistent, wenn für jede Kante h(n) ≤ c + h(n') gilt.",
         "was heißt konsistent bei heuristiken", True),
        ("The sum of admissible heuristics is in general not admissible.",
         "what does it mean for a heuristic to be admissible", False),
        ("A heuristic is admissible if it never overestimates the cost to reach a goal.",
         "what is the horizon effect", False),  # defines something, but not what was asked
        ("The running example for this chapter is the small weighted graph in Figure 1.1.",
         "whats the heuristic value of node B in the campus map example", False),  # a wider term than asked
    ],
)
def test_defines(sentence, question, expected):
    assert defines(sentence, question) is expected


def test_the_tail_of_a_cut_sentence_is_not_quotable():
    assert not is_readable("which is admissible (each component is), consistent if all components are.")
    assert not is_readable("and therefore A* never re-opens a state it has popped.")
    assert is_readable("Which heuristic dominates depends on the problem at hand.")


def _hit(rank: int, cid: str, page: int, text: str) -> Hit:
    chunk = Chunk(cid, "ai", "n.pdf", "official", page, page, "2.4 Heuristics", text)
    return Hit(rank=rank, chunk=chunk, score=1.0 / rank, scores={"dense": 0.6})


def test_a_direct_question_is_answered_by_the_definition_in_the_second_passage():
    hits = [
        _hit(1, "c-15", 15, "The sum of admissible heuristics is in general not admissible. "
                            "The maximum of admissible heuristics is admissible."),
        _hit(2, "c-14", 14, "A heuristic is admissible if it never overestimates the cost to reach a goal. "
                            "Admissible heuristics are optimistic."),
    ]
    question = "what does it mean for a heuristic to be admissible"
    direct = compose(question, "direct", 1, hits)
    assert direct.citations[0].chunk_id == "c-14"
    assert direct.lines[1] == "A heuristic is admissible if it never overestimates the cost to reach a goal. [1]"
    # other intents keep leading with the retriever's best passage
    conceptual = compose(question, "conceptual", 1, hits)
    assert conceptual.citations[0].chunk_id == "c-15"


def test_a_german_direct_question_finds_the_english_definition_in_the_third_passage():
    hits = [
        _hit(1, "c-15", 15, "The sum of admissible heuristics is in general not admissible. "
                            "The maximum of admissible heuristics is admissible."),
        _hit(2, "c-16", 16, "Where do good heuristics come from? The relaxed problem is the most productive recipe."),
        _hit(3, "c-14", 14, "A heuristic is admissible if it never overestimates the cost to reach a goal. "
                            "Admissible heuristics are optimistic."),
    ]
    reply = compose("was ist eine zulässige heuristik?", "direct", 1, hits, lang="de")
    assert reply.citations[0].chunk_id == "c-14"
    assert reply.lines[1] == "A heuristic is admissible if it never overestimates the cost to reach a goal. [1]"


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("what does it mean for a heuristic to be admissible again", True),
        ("whats a ply", True),
        ("was ist eine konsistente heuristik? definition bitte", True),
        ("what do b, d and m stand for", True),
        ("is there a summary table of complete/optimal/time/space for bfs ucs dfs", False),
        ("which frontier structure gives which algorithm again", False),
    ],
)
def test_asks_definition(question, expected):
    assert asks_definition(question) is expected
