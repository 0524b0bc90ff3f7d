"""Grounded mode: per-intent strategies, citations, not-covered, level 5, and the check_grounded acceptance check."""

from __future__ import annotations

import re

import pytest
from test_tutor_fakes import ALL, ASTAR, BFS, BFS_CODE, BFS_TRACE, FixedRetriever

from app.tutor.calibrate import choose_threshold
from app.tutor.grounded import DEFAULT_MIN_CONFIDENCE, check_grounded, compose
from app.tutor.intents import Intent
from app.tutor.language import detect_language
from app.tutor.sentences import bm25_scores, chunk_sentences, looks_like_code
from app.tutor.service import TutorService
from app.tutor.strategies import NOT_COVERED, STRATEGIES, all_templates, strategy_for
from app.tutor.types import Turn

QUESTIONS = {
    Intent.DIRECT: "what is breadth-first search?",
    Intent.CONCEPTUAL: "why is BFS optimal when all actions have the same cost?",
    Intent.VERIFICATION: "I got the expansion order S, A, C, B, D for BFS, is that right?",
    Intent.DEBUGGING: "my BFS code never terminates, it loops forever on the campus map",
    Intent.TRACING: "walk me through BFS on the campus map step by step",
}
MARKER = re.compile(r" \[(\d+)\]$")


def tutor(dense: float = 0.62) -> TutorService:
    return TutorService(FixedRetriever(dense=dense))


def material_lines(reply: str, intent: Intent, level: int = 1, lang: str = "en") -> list[str]:
    """The reply's lines without the strategy's intro and question (those are templates)."""
    lines = reply.split("\n")
    s = strategy_for(intent)
    assert lines[-1] == s.question(level, lang)
    return lines[1:-1]


@pytest.mark.parametrize("intent", list(Intent))
def test_each_intent_ends_with_its_question_and_cites_every_material_sentence(intent):
    reply = tutor().answer(QUESTIONS[intent])
    assert reply.intent == intent.value
    assert reply.mode == "grounded" and reply.grounding == "material" and reply.help_level == 1
    body = material_lines(reply.reply, intent)
    assert body, "a grounded reply quotes the material"
    assert len(body) == strategy_for(intent).n_sentences(1)
    for line in body:
        m = MARKER.search(line)
        assert m, f"material sentence without citation: {line!r}"
        assert 1 <= int(m.group(1)) <= len(reply.citations)
    assert check_grounded(reply.reply, ALL, all_templates()).ok
    assert reply.retrieved == [c.id for c in ALL]


def test_direct_cites_the_definition_first():
    reply = tutor().answer(QUESTIONS[Intent.DIRECT])
    assert reply.citations[0].chunk_id == BFS.id
    assert (reply.citations[0].page_start, reply.citations[0].page_end) == (6, 7)
    assert reply.reply.split("\n")[0] == "Here is what the course notes say about 1.3 Breadth-First Search:"
    assert "Breadth-first search (BFS) expands the shallowest node of the frontier first. [1]" in reply.reply


def _at_level(service: TutorService, question: str, level: int):
    history: list[Turn] = []
    reply = service.answer(question)
    for _ in range(level - 1):
        history += [Turn("user", question, intent=reply.intent), Turn("assistant", reply.reply, reply.intent, reply.help_level)]
        reply = service.answer("I still don't get it", history=history)
    assert reply.help_level == level
    return reply


@pytest.mark.parametrize("level", [1, 2, 3, 4, 5])
def test_verification_never_contains_the_worked_solution(level):
    reply = _at_level(tutor(), QUESTIONS[Intent.VERIFICATION], level)
    assert reply.intent == "verification"
    assert "S, A, B, C, D" not in reply.reply
    assert "S-A-D-G" not in reply.reply
    assert reply.reply.split("\n")[-1] == STRATEGIES[Intent.VERIFICATION].question(level, "en")


@pytest.mark.parametrize("level", [1, 3, 5])
def test_debugging_contains_no_code(level):
    reply = _at_level(tutor(), QUESTIONS[Intent.DEBUGGING], level)
    assert reply.intent == "debugging"
    assert "```" not in reply.reply and "←" not in reply.reply
    assert not any(looks_like_code(line) for line in reply.reply.split("\n"))
    assert reply.reply.endswith("?")


def test_tracing_walks_the_passage_in_the_order_of_the_notes():
    reply = tutor().answer(QUESTIONS[Intent.TRACING])
    body = [MARKER.sub("", line) for line in material_lines(reply.reply, Intent.TRACING)]
    source = next(c for c in ALL if body[0] in c.text)
    positions = [source.text.index(s) for s in body]
    assert positions == sorted(positions) and all(s in source.text for s in body)
    assert reply.reply.split("\n")[-1] == "What happens in the next step? Write down the state after it."


def test_level_five_quotes_the_most_relevant_passage_in_full():
    reply = _at_level(tutor(), QUESTIONS[Intent.DIRECT], 5)
    assert reply.reply.split("\n")[0] == "Here is the full passage from the notes on 1.3 Breadth-First Search:"
    for sentence in chunk_sentences(BFS.text):
        assert sentence in reply.reply
    assert check_grounded(reply.reply, ALL, all_templates()).ok


def test_more_help_quotes_more_material():
    service = tutor()
    counts = [len(material_lines(_at_level(service, QUESTIONS[Intent.DIRECT], lv).reply, Intent.DIRECT, lv))
              for lv in (1, 2, 3)]
    assert counts == [2, 3, 4]


def test_german_question_gets_german_templates():
    reply = tutor().answer("was ist eine Breitensuche? erklär bitte")
    lines = reply.reply.split("\n")
    assert lines[0] == "Das sagen die Kursunterlagen zu 1.3 Breadth-First Search:"
    assert lines[-1] == "Zur Kontrolle: Kannst du das in eigenen Worten sagen?"
    assert check_grounded(reply.reply, ALL, all_templates()).ok


def test_below_the_threshold_the_tutor_says_the_material_does_not_cover_it():
    reply = tutor(dense=DEFAULT_MIN_CONFIDENCE - 0.01).answer("how does quicksort choose its pivot?")
    assert reply.grounding == "not_covered"
    assert reply.citations == []
    assert reply.reply == "\n".join(NOT_COVERED["en"])
    de = tutor(dense=0.1).answer("wie funktioniert bubblesort?")
    assert de.reply == "\n".join(NOT_COVERED["de"])


def test_at_the_threshold_the_tutor_answers():
    reply = tutor(dense=DEFAULT_MIN_CONFIDENCE).answer(QUESTIONS[Intent.DIRECT])
    assert reply.grounding == "material"


def test_compose_without_hits_is_not_covered():
    g = compose("what is bfs", Intent.DIRECT, 1, [], lang="en")
    assert g.grounding == "not_covered" and g.confidence == 0.0


def test_check_grounded_flags_invented_sentences():
    reply = tutor().answer(QUESTIONS[Intent.DIRECT]).reply
    bad = reply + "\nBFS is always the fastest algorithm. [1]"
    check = check_grounded(bad, ALL, all_templates())
    assert not check.ok
    assert check.violations == ["BFS is always the fastest algorithm."]
    # a template whose slot is filled with something other than a section heading is not a template
    forged = "Here is what the course notes say about quantum computing:"
    assert check_grounded(forged, ALL, all_templates()).violations == [forged]


def test_check_grounded_accepts_templates_and_verbatim_sentences_only():
    text = "\n".join([
        "Here is what the course notes say about 2.3 A* Search:",
        "A* is optimal when the heuristic is admissible. [1]",
        "To check your understanding: can you put this in your own words?",
    ])
    assert check_grounded(text, [ASTAR], all_templates()).ok
    assert not check_grounded(text, [BFS], all_templates()).ok


def test_code_lines_are_not_quoted_as_prose():
    assert all(looks_like_code(line) for line in BFS_CODE.text.strip().split("\n")[1:])
    assert not looks_like_code("The frontier is a FIFO queue, so nodes are expanded in the order of generation.")
    assert chunk_sentences(BFS_TRACE.text)[0] == "The table shows the frontier after each expansion."


def test_bm25_golden_values():
    # two docs, query term in the first only: idf = ln(1 + (2 - 1 + 0.5) / (1 + 0.5)) = ln 2;
    # tf 1, dl = avgdl = 2: 1 * 2.2 / (1 + 1.2) = 1 → score ln 2
    scores = bm25_scores(["bfs"], [["bfs", "queue"], ["dfs", "stack"]])
    assert scores[0] == pytest.approx(0.693147, abs=1e-6)
    assert scores[1] == 0.0


@pytest.mark.parametrize(
    ("text", "lang"),
    [
        ("what is breadth-first search?", "en"),
        ("was ist eine Breitensuche?", "de"),
        ("warum ist A* optimal, wenn die Heuristik zulässig ist?", "de"),
        ("I still don't get it", "en"),
        ("ich versteh's nicht", "de"),
    ],
)
def test_language_detection(text, lang):
    assert detect_language(text) == lang


def test_choose_threshold_golden():
    covered, off = [0.9, 0.8, 0.5, 0.3], [0.1, 0.35, 0.2]
    f1 = choose_threshold(covered, off, beta=1.0)
    # t = 0.4 (between 0.35 and 0.5): P 1.0, R 0.5, F1 0.667; t = 0.325: P 0.75, R 0.75, F1 0.75;
    # t = 0.25 (between 0.2 and 0.3): P 0.8, R 1.0, F1 0.889 -> best
    assert (f1.threshold, f1.precision, f1.recall) == (0.25, 0.8, 1.0)
    assert f1.f_beta == pytest.approx(0.888889, abs=1e-6)
    assert f1.offtopic_rejected == pytest.approx(2 / 3)
    with pytest.raises(ValueError):
        choose_threshold([], off)
