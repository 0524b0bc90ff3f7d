"""Offline short-answer grading: a 0–5 score from a reference answer, with no fitting on any evaluation data.

Three pieces of evidence, each put on [0, 1] and averaged with equal weights:

1. `sim`      — MiniLM cosine of answer vs reference: meaning in other words (alone: Pearson r 0.494 on the
                Mohler/Texas set).
2. `sim_dem`  — the same cosine after *question demoting*: words that occur in the question are removed from both
                texts first, so an answer cannot score by echoing the question (Mohler, Bunescu & Mihalcea 2011,
                §4.3; Sultan, Salazar & Sumner 2016 found the demoted features the strongest of their set).
3. `alignment` — share of the content words of *both* texts that align (Sultan, Salazar & Sumner 2016, §3.1), with
                question words demoted: each reference concept found in the answer (recall side) and each new answer
                word found among the reference concepts (precision side, so wrong additions cost), matched exactly
                (same Snowball stem), with a typo (rapidfuzz ratio) or as a near-synonym (MiniLM word cosine). The
                recall side alone is reported as `coverage` and drives the feedback.

Why equal weights: without data to fit on, unit weights on comparably scaled predictors are nearly as accurate as
fitted ones and far more robust out of sample (Dawes 1979, "The robust beauty of improper linear models"). The two
cosines are put on [0, 1] with the same anchors, read off what MiniLM cosines mean on STS-style data: about 0.2 for
unrelated sentences of the same domain (→ 0), about 0.85 for paraphrases (→ 1).

From evidence e ∈ [0, 1] to the 0–5 scale: concave up to the anchor A = `FULL_CREDIT_EVIDENCE`,
`score = 4.75 · (1 − (1 − e/A)²)`, then linear from 4.75 at A to 5 at e = 1 (`evidence_to_score`).

The anchor `FULL_CREDIT_EVIDENCE` (0.55) is read off our own hand-scored sample (data/grading/sample.csv), never
off an evaluation set: it is the median evidence of the 14 sample answers the teacher gave full marks (0.555). The
three signals never all reach 1 for a correct answer in other words (MiniLM cosines of paraphrases sit around
0.7–0.85, and a correct answer rarely reuses most of the reference's words), so mapping e = 1 to 5 left the
sample's full-mark answers at 3.5 on average — a point and a half too low. With the anchor, evidence that a
full-mark answer typically reaches earns 4.75 (5 less a quarter point, so that stronger evidence still ranks
higher instead of tying at the ceiling), and the concave shape keeps partial evidence high rather than halving
it: a teacher's scale gives most of the credit to an answer that is mostly right.

    e     0     0.1   0.2   0.3   0.4   0.55  0.8   1.0
    score 0     1.57  2.83  3.77  4.40  4.75  4.89  5.0

On the sample this raises Pearson r (0.517 → 0.573) and QWK (0.485 → 0.548) and worsens only RMSE there
(1.78 → 1.99): that sample is built around wrong answers in the right vocabulary (mean score 2.36), the case that
any similarity grader over-scores. Where most answers are mostly right — course short answers — the same map is
what puts right answers near the top of the scale.

Rules that override the evidence, because they are certain rather than noisy:
- an empty, punctuation-only or "I don't know" answer scores 0;
- an answer that adds (almost) nothing beyond the words of the question and covers none of the demoted concepts is
  a restatement: its score is capped at `RESTATEMENT_CAP` (1.0).

Measured on the Mohler/Texas set (2,273 answers; method, checksums and every figure in data/grading/README.md):
Pearson r 0.593, RMSE 1.29, QWK 0.50, against r 0.491 for the cosine alone in the same run; 2¼ minutes on two
shared cores, model load and baseline included.

`quality` is the score rounded half up, `is_correct` is `quality >= 3`. Feedback names covered and missing key
concepts (single words from the reference) and is checked never to contain the reference answer itself.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Iterable, Protocol, runtime_checkable

import numpy as np
from rapidfuzz import fuzz

from app.grading.concepts import RESTATEMENT_MAX_NOVEL_SHARE, Analysis, analyse, content_words, tokens

# Cosine anchors for MiniLM (all-MiniLM-L6-v2): unrelated same-domain sentences ≈ 0.2, paraphrases ≈ 0.85.
COS_LOW = 0.20
COS_HIGH = 0.85
# Word-level soft matching of a concept: a MiniLM cosine between single words below 0.55 is mere relatedness
# ("array"/"list"), above 0.85 it is the same concept (inflection, synonym); credit ramps linearly between.
WORD_COS_LOW = 0.55
WORD_COS_HIGH = 0.85
# A misspelt concept ("recursoin") still counts when rapidfuzz's normalised Indel similarity is at least this.
FUZZY_MIN_RATIO = 85.0
FUZZY_MIN_LEN = 5
# Evidence at which an answer earns full marks: the median evidence of the sample's full-mark answers (see the
# module docstring). Measured on data/grading/sample.csv only.
FULL_CREDIT_EVIDENCE = 0.55
# Score at the anchor: the top of the scale less a quarter point, so that evidence above the median full-mark answer
# still orders answers (a hard ceiling at the anchor tied a paraphrase with a wrong answer in the right words).
ANCHOR_SCORE = 4.75
# Credit at which a concept is reported as covered in the feedback.
COVERED_CREDIT = 0.5
RESTATEMENT_CAP = 1.0
WEIGHTS = {"sim": 1 / 3, "sim_dem": 1 / 3, "alignment": 1 / 3}
MAX_LISTED = 5


@dataclass(frozen=True)
class Grade:
    """One graded answer. `score` is continuous on 0–5, `quality` its rounding, `features` the evidence."""

    quality: int
    score: float
    is_correct: bool
    feedback: str
    features: dict[str, Any] = field(default_factory=dict)


@runtime_checkable
class Grader(Protocol):
    """Anything that grades a short answer against a reference (this offline grader, later an LLM grader)."""

    def grade(self, question: str, reference: str, answer: str) -> Grade: ...


def ramp(x: float, low: float, high: float) -> float:
    """Linear map of [low, high] onto [0, 1], clipped."""
    if high <= low:
        raise ValueError("ramp needs low < high")
    return float(min(1.0, max(0.0, (x - low) / (high - low))))


def evidence_to_score(e: float) -> float:
    """Monotone map of evidence e onto 0–5: concave up to the anchor, 4.75·(1 − (1 − e/A)²) with
    A = FULL_CREDIT_EVIDENCE, then linear from 4.75 at A to 5 at e = 1. Strictly increasing, so two answers with
    different evidence never tie at the ceiling. See the module docstring for the anchor and the shape."""
    e = min(1.0, max(0.0, e))
    a = FULL_CREDIT_EVIDENCE
    if e <= a:
        return ANCHOR_SCORE * (1.0 - (1.0 - e / a) ** 2)
    return ANCHOR_SCORE + (5.0 - ANCHOR_SCORE) * (e - a) / (1.0 - a)


def round_half_up(x: float) -> int:
    return int(math.floor(x + 0.5))


def texts_to_embed(analysis: Analysis, question: str, reference: str, answer: str) -> list[str]:
    """Every text `score_analysis` will look up in the embedder, so a batch can embed them all at once."""
    out = [answer, reference]
    if analysis.answer_demoted_text:
        out.append(analysis.answer_demoted_text)
    if analysis.reference_demoted_text:
        out.append(analysis.reference_demoted_text)
    out.extend(c.surface for c in analysis.concepts)
    out.extend(analysis.answer_words)
    return list(dict.fromkeys(out))


def _word_credit(word: str, word_stem: str, others: list[str], other_stems: frozenset[str],
                 other_mat: np.ndarray | None, vec: dict[str, np.ndarray]) -> float:
    """Credit in [0, 1] for aligning one word to a bag of words: same stem 1, typo (rapidfuzz ratio) ≥ 0.85,
    near-synonym by a ramp on the MiniLM word cosine."""
    if word_stem in other_stems:
        return 1.0
    best = 0.0
    if len(word) >= FUZZY_MIN_LEN:
        for w in others:
            if len(w) >= FUZZY_MIN_LEN:
                r = fuzz.ratio(word, w)
                if r >= FUZZY_MIN_RATIO:
                    best = max(best, r / 100.0)
    if other_mat is not None:
        best = max(best, ramp(float(np.max(other_mat @ vec[word])), WORD_COS_LOW, WORD_COS_HIGH))
    return best


def _concept_credits(analysis: Analysis, vec: dict[str, np.ndarray]) -> list[float]:
    """Credit per reference concept for being found in the answer (recall side of the alignment)."""
    words = list(analysis.answer_words)
    mat = np.stack([vec[w] for w in words]) if words else None
    return [_word_credit(c.surface, c.stem, words, analysis.answer_stems, mat, vec) for c in analysis.concepts]


def _novel_word_credits(analysis: Analysis, vec: dict[str, np.ndarray]) -> list[float]:
    """Credit per new answer word (not from the question) for being found among the reference concepts (precision
    side): words of the answer that align with nothing in the reference, e.g. a wrong "LIFO", lower the alignment."""
    refs = [c.surface for c in analysis.concepts]
    ref_stems = frozenset(c.stem for c in analysis.concepts)
    mat = np.stack([vec[w] for w in refs]) if refs else None
    return [_word_credit(w, s, refs, ref_stems, mat, vec) for w, s in zip(analysis.novel_words, analysis.novel_stems)]


def _feedback(
    analysis: Analysis, credits: list[float], quality: int, *, restatement: bool, reference: str
) -> tuple[str, list[str], list[str]]:
    covered = [c.surface for c, k in zip(analysis.concepts, credits) if k >= COVERED_CREDIT]
    missing = [c.surface for c, k in zip(analysis.concepts, credits) if k < COVERED_CREDIT]
    if analysis.non_answer:
        return "No answer was given. Write down what you do know, even if it is only part of the answer.", [], missing
    if restatement:
        head = "Your answer restates the question without answering it."
    elif quality >= 5:
        head = "Correct."
    elif quality == 4:
        head = "Mostly correct."
    elif quality == 3:
        head = "Partly correct."
    elif quality >= 1:
        head = "Mostly incorrect or incomplete."
    else:
        head = "This does not answer the question."
    parts = [head]
    if covered:
        parts.append("You covered: " + ", ".join(covered[:MAX_LISTED]) + ".")
    shown_missing = missing[:MAX_LISTED]
    # Never hand out the reference: if the missing words would spell the whole reference, only say how many.
    if shown_missing and _would_reveal(shown_missing, reference):
        parts.append(f"{len(missing)} key idea(s) of the expected answer are missing.")
    elif shown_missing:
        more = f" (and {len(missing) - len(shown_missing)} more)" if len(missing) > len(shown_missing) else ""
        parts.append("Think about: " + ", ".join(shown_missing) + more + ".")
    text = " ".join(parts)
    if _contains_reference(text, reference):  # last guard, e.g. a one-word reference
        text = head + f" {len(missing)} key idea(s) of the expected answer are missing." if missing else head
    return text, covered, missing


def _norm(text: str) -> str:
    return " ".join(tokens(text))


def _contains_reference(text: str, reference: str) -> bool:
    ref = _norm(reference)
    return bool(ref) and ref in _norm(text)


def _would_reveal(words: list[str], reference: str) -> bool:
    """True when the listed words are most (>= 80 %) of the reference's content words: listing them would hand
    out the answer (e.g. a one-concept reference such as "A stack")."""
    ref_words = content_words(reference)
    if not ref_words:
        return False
    listed = set(words)
    return sum(w in listed for w in ref_words) / len(ref_words) >= 0.8


def score_analysis(
    analysis: Analysis, question: str, reference: str, answer: str, vec: dict[str, np.ndarray]
) -> Grade:
    """Grade from a precomputed analysis and a text → unit-vector lookup (which must hold `texts_to_embed`)."""
    if analysis.non_answer:
        fb, _, missing = _feedback(analysis, [], 0, restatement=False, reference=reference)
        return Grade(0, 0.0, False, fb, {"non_answer": True, "restatement": False, "missing": missing,
                                         "covered": [], "language": analysis.language})

    sim = float(vec[answer] @ vec[reference])
    if analysis.answer_demoted_text and analysis.reference_demoted_text:
        sim_dem = float(vec[analysis.answer_demoted_text] @ vec[analysis.reference_demoted_text])
    else:
        sim_dem = 0.0  # nothing left of the answer once the question's words are gone
    credits = _concept_credits(analysis, vec)
    coverage = float(np.mean(credits)) if credits else ramp(sim, COS_LOW, COS_HIGH)
    # Sultan et al. 2016 §3.1: proportion of content words of *both* texts that align (question words demoted).
    novel_credits = _novel_word_credits(analysis, vec)
    aligned = sum(credits) + sum(novel_credits)
    n_words = len(credits) + len(novel_credits)
    alignment = aligned / n_words if n_words else 0.0

    parts = {
        "sim": ramp(sim, COS_LOW, COS_HIGH),
        "sim_dem": ramp(sim_dem, COS_LOW, COS_HIGH),
        "alignment": alignment,
    }
    evidence = sum(WEIGHTS[k] * v for k, v in parts.items())
    score = evidence_to_score(evidence)

    restatement = analysis.novel_share <= RESTATEMENT_MAX_NOVEL_SHARE and coverage < COVERED_CREDIT / 2
    if restatement:
        score = min(score, RESTATEMENT_CAP)

    quality = round_half_up(score)
    fb, covered, missing = _feedback(analysis, credits, quality, restatement=restatement, reference=reference)
    features = {
        "cosine": sim,
        "cosine_demoted": sim_dem,
        "coverage": coverage,
        "alignment": alignment,
        "evidence": evidence,
        "novel_share": analysis.novel_share,
        "restatement": restatement,
        "non_answer": False,
        "covered": covered,
        "missing": missing,
        "language": analysis.language,
    }
    return Grade(quality=quality, score=round(score, 4), is_correct=quality >= 3, feedback=fb, features=features)


def embed_unique(
    embedder, texts: Iterable[str], *, batch_size: int = 64, progress: bool = False,
    known: dict[str, np.ndarray] | None = None,
) -> dict[str, np.ndarray]:
    """Embed each distinct text once, skipping those already in `known`; returns `known` plus the new vectors.

    All new texts go to the embedder in one call so that it can sort them by length across the whole set
    (sentence-transformers batches similar lengths together): per-batch calls of 64 padded every batch to its
    longest text and took twice as long on the 6,437 distinct texts of a 2,273-answer set."""
    table: dict[str, np.ndarray] = dict(known or {})
    new = [t for t in dict.fromkeys(texts) if t not in table]
    if new:
        vecs = embedder.embed(new, batch_size=batch_size, progress=progress)
        table.update(zip(new, vecs))
    return table


def grade_answer(question: str, reference: str, answer: str, *, embedder) -> Grade:
    """Grade one short answer against a reference answer on 0–5. Pure apart from the injected embedder, which must
    return L2-normalised rows (`indexing.embedder.Embedder`)."""
    analysis = analyse(question, reference, answer)
    texts = [] if analysis.non_answer else texts_to_embed(analysis, question, reference, answer)
    return score_analysis(analysis, question, reference, answer, embed_unique(embedder, texts))


class OfflineGrader:
    """The `Grader` that needs no generative model: MiniLM similarity + demoted concept coverage."""

    def __init__(self, embedder) -> None:
        self.embedder = embedder

    def grade(self, question: str, reference: str, answer: str) -> Grade:
        return grade_answer(question, reference, answer, embedder=self.embedder)

    def grade_many(
        self, items: Iterable[tuple[str, str, str]], *, batch_size: int = 64, progress: bool = False,
        known: dict[str, np.ndarray] | None = None,
    ) -> list[Grade]:
        """Grade many (question, reference, answer) triples, embedding every distinct text once in one batched
        call (texts already in `known`, a text → unit-vector table from the same embedder, are not embedded
        again)."""
        triples = list(items)
        analyses = [analyse(q, r, a) for q, r, a in triples]
        texts: list[str] = []
        for an, (q, r, a) in zip(analyses, triples):
            if not an.non_answer:
                texts.extend(texts_to_embed(an, q, r, a))
        table = embed_unique(self.embedder, texts, batch_size=batch_size, progress=progress, known=known)
        return [score_analysis(an, q, r, a, table) for an, (q, r, a) in zip(analyses, triples)]
