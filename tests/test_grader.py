"""Golden behaviour of the offline short-answer grader (app/grading)."""

from __future__ import annotations

import os

import pytest

from app.grading import Grade, Grader, OfflineGrader, grade_answer
from app.grading.concepts import analyse, detect_language, is_non_answer
from app.grading.grader import embed_unique, evidence_to_score, ramp, round_half_up
from app.grading.concepts import tokens
from indexing.embedder import HashEmbedder

os.environ.setdefault("HF_HUB_OFFLINE", "1")

STACK_Q = "What is a stack and in what order are its elements removed?"
STACK_R = (
    "A stack is a collection where elements are added and removed at the same end, the top, so the last element "
    "pushed is the first one popped (LIFO, last in first out)."
)
STACK_PARAPHRASE = (
    "You can only push onto and pop from the top of a stack, so the item pushed most recently is the first to "
    "come off: last in, first out."
)
STACK_WRONG = (
    "Elements are pushed at the top and popped from the bottom, so the first element pushed is the first one "
    "popped (FIFO)."
)

QUEUE_Q = "What is a queue and in what order does it remove elements?"
QUEUE_R = (
    "A queue is a collection where elements are added at the back and removed from the front, so the first element "
    "inserted is the first one removed (FIFO, first in first out)."
)


def _norm(s: str) -> str:
    return " ".join(tokens(s))


# --- pure parts -------------------------------------------------------------------------------------------------


def test_evidence_to_score_golden_table():
    got = [round(evidence_to_score(e), 6) for e in (0.0, 0.1, 0.2, 0.3, 0.4, 0.55, 0.8, 1.0, -1.0, 2.0)]
    # 4.75 at evidence 0.55 (FULL_CREDIT_EVIDENCE, the median evidence of the sample's full-mark answers), concave
    # below it, linear to 5 above it.
    assert got == [0.0, 1.570248, 2.826446, 3.768595, 4.396694, 4.75, 4.888889, 5.0, 0.0, 5.0]


def test_evidence_to_score_is_strictly_increasing_on_0_1():
    xs = [i / 200 for i in range(201)]
    ys = [evidence_to_score(x) for x in xs]
    assert all(b > a for a, b in zip(ys, ys[1:]))


def test_ramp_and_rounding():
    assert ramp(0.2, 0.2, 0.85) == 0.0
    assert ramp(0.85, 0.2, 0.85) == 1.0
    assert ramp(0.525, 0.2, 0.85) == pytest.approx(0.5)
    assert [round_half_up(x) for x in (0.49, 0.5, 2.5, 4.5, 5.0)] == [0, 1, 3, 5, 5]


def test_question_demoting_removes_question_words_from_concepts():
    a = analyse(STACK_Q, STACK_R, "It is LIFO.")
    stems = [c.stem for c in a.concepts]
    assert stems == ["collect", "add", "end", "top", "last", "push", "first", "pop", "lifo"]
    assert "stack" not in stems and "remov" not in stems and "element" not in stems


def test_non_answers():
    for text in ("", "   ", "?", "I don't know", "dont know", "no idea, sorry", "keine Ahnung", "Pass."):
        assert is_non_answer(text), text
    for text in ("it passed the test", "nothing has to be shifted", "O(log n)"):
        assert not is_non_answer(text), text


def test_language_detection_picks_german_for_german_text():
    assert detect_language("Der Basisfall liefert das Ergebnis direkt, damit die Rekursion endet.") == "de"
    assert detect_language("The base case returns directly so the recursion ends.") == "en"


# --- contract with a fast stand-in embedder -----------------------------------------------------------------


def test_offline_grader_is_a_grader_and_batch_equals_single():
    g = OfflineGrader(HashEmbedder(64))
    assert isinstance(g, Grader)
    triples = [(STACK_Q, STACK_R, a) for a in (STACK_PARAPHRASE, STACK_WRONG, "", STACK_Q, "It is LIFO.")]
    many = g.grade_many(triples)
    single = [g.grade(*t) for t in triples]
    assert [x.score for x in many] == pytest.approx([x.score for x in single])
    assert [x.feedback for x in many] == [x.feedback for x in single]
    for x in many:
        assert isinstance(x, Grade)
        assert 0.0 <= x.score <= 5.0 and x.quality in range(6) and x.is_correct == (x.quality >= 3)


class _CountingEmbedder(HashEmbedder):
    def __init__(self) -> None:
        super().__init__(32)
        self.calls: list[list[str]] = []

    def embed(self, texts, *, batch_size=32, progress=False):
        self.calls.append(list(texts))
        return super().embed(texts, batch_size=batch_size, progress=progress)


def test_embed_unique_embeds_new_distinct_texts_in_one_call_and_reuses_known():
    emb = _CountingEmbedder()
    table = embed_unique(emb, ["a b", "c", "a b", "d e f"], batch_size=2)
    assert emb.calls == [["a b", "c", "d e f"]]
    more = embed_unique(emb, ["c", "g"], known=table)
    assert emb.calls[1] == ["g"]
    assert set(more) == {"a b", "c", "d e f", "g"} and set(table) == {"a b", "c", "d e f"}
    assert embed_unique(emb, ["c"], known=more) == more and len(emb.calls) == 2


def test_grade_many_with_known_table_matches_without():
    triples = [(STACK_Q, STACK_R, a) for a in (STACK_PARAPHRASE, STACK_WRONG, "It is LIFO.")]
    emb = _CountingEmbedder()
    plain = OfflineGrader(emb).grade_many(triples)
    known = embed_unique(emb, [STACK_R, STACK_PARAPHRASE])
    reused = OfflineGrader(emb).grade_many(triples, known=known)
    assert [g.score for g in reused] == [g.score for g in plain]
    assert STACK_R not in emb.calls[-1] and STACK_PARAPHRASE not in emb.calls[-1]


# --- golden behaviour with the real MiniLM ----------------------------------------------------------------------


@pytest.fixture(scope="module")
def minilm():
    from indexing.embedder import load_embedder

    return load_embedder()


@pytest.mark.slow
def test_correct_paraphrase_scores_at_least_4(minilm):
    g = grade_answer(STACK_Q, STACK_R, STACK_PARAPHRASE, embedder=minilm)
    assert g.score >= 4.0 and g.quality >= 4 and g.is_correct


@pytest.mark.slow
def test_copy_of_question_scores_at_most_1(minilm):
    for copy in (STACK_Q, "A stack is a stack and its elements are removed in an order."):
        g = grade_answer(STACK_Q, STACK_R, copy, embedder=minilm)
        assert g.score <= 1.0 and not g.is_correct
        assert g.features["restatement"] is True
        assert "restates the question" in g.feedback


@pytest.mark.slow
def test_empty_and_dont_know_score_0(minilm):
    for empty in ("", "  ", "I don't know"):
        g = grade_answer(STACK_Q, STACK_R, empty, embedder=minilm)
        assert (g.quality, g.score, g.is_correct) == (0, 0.0, False)
        assert g.features["non_answer"] is True


@pytest.mark.slow
def test_wrong_answer_with_right_words_scores_below_paraphrase(minilm):
    right = grade_answer(STACK_Q, STACK_R, STACK_PARAPHRASE, embedder=minilm)
    wrong = grade_answer(STACK_Q, STACK_R, STACK_WRONG, embedder=minilm)
    assert wrong.score < right.score


@pytest.mark.slow
@pytest.mark.xfail(strict=True, reason="known limitation: a wrong answer built from the reference's own words "
                   "('added at the front') outscores a paraphrase in other words; no bag/embedding signal sees it")
def test_known_limitation_queue_wrong_words_vs_paraphrase(minilm):
    para = "Elements are inserted at the rear and taken out at the front, so the oldest element leaves first."
    wrong = ("Elements are added at the front and removed from the front, so the last element inserted is the "
             "first one removed (LIFO).")
    assert grade_answer(QUEUE_Q, QUEUE_R, wrong, embedder=minilm).score < grade_answer(
        QUEUE_Q, QUEUE_R, para, embedder=minilm).score


@pytest.mark.slow
def test_feedback_lists_covered_and_missing_concepts(minilm):
    g = grade_answer(STACK_Q, STACK_R, "It is LIFO.", embedder=minilm)
    assert "lifo" in g.features["covered"]
    assert {"top", "pushed", "popped"} <= set(g.features["missing"])
    assert "You covered: lifo." in g.feedback
    assert "Think about: collection, added, end, top, last (and 3 more)." in g.feedback


@pytest.mark.slow
def test_feedback_never_contains_the_reference(minilm):
    answers = ["", STACK_Q, STACK_R, STACK_PARAPHRASE, STACK_WRONG, "It is LIFO.", "A queue."]
    for a in answers:
        g = grade_answer(STACK_Q, STACK_R, a, embedder=minilm)
        assert _norm(STACK_R) not in _norm(g.feedback)
    # A one-concept reference: naming the missing concept would give the answer away.
    g = grade_answer("Which data structure gives last-in-first-out order?", "A stack", "A queue", embedder=minilm)
    assert g.features["missing"] == ["stack"]
    assert "stack" not in g.feedback.lower()
    assert "1 key idea(s) of the expected answer are missing." in g.feedback


@pytest.mark.slow
def test_german_answer_does_not_crash(minilm):
    g = grade_answer(
        "Was ist der Basisfall einer rekursiven Funktion?",
        "Der Basisfall liefert das Ergebnis direkt ohne weiteren Aufruf, damit die Rekursion endet.",
        "Der Fall, in dem die Funktion sich nicht mehr selbst aufruft, sodass die Rekursion stoppt.",
        embedder=minilm,
    )
    assert g.features["language"] == "de"
    assert 0.0 <= g.score <= 5.0 and g.quality in range(6)
