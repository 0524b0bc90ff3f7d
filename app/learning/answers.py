"""Grading a learner's answer to a saved exercise on the 0-5 quality scale, and what the learner may see of it.

Types with one right answer are checked in code; free-text types go to a `Grader` (the offline grader, or the
model's when one is configured) against the exercise's reference:

    type              how                                                       quality
    multiple_choice   the option's text, its letter (a, b, ...) or number (1, 2, ...)   5 right, 1 wrong
    cloze             one answer per gap, separated by ';', '|' or new lines;    round_half_up(5 × right gaps / gaps)
                      a gap is right when it equals the answer ignoring case,
                      spacing and punctuation
    ordering          item numbers (1-based, e.g. "2,1,3") or item texts, one per line   5 exact; otherwise
                      round_half_up(2 × pairs in the right order / pairs) — a wrong order is a failed recall (< 3)
    the rest          Grader(question, reference, answer)                        the grader's quality

The reference for free-text types: flashcard `answer`, term definition `definition`, open question / analogy /
micro-scenario `expected_answer`, summary / teach-back the `key_points` joined, error finding each planted error as
"wrong → correct". Correct means quality >= 3 (SM-2's pass threshold).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from itertools import combinations
from typing import Any

from app.errors import UserError
from app.grading.grader import Grader
from app.learning.exercises import Exercise
from app.learning.quality import PASS_QUALITY

# Fields that give the answer away: removed from what a learner sees before answering.
ANSWER_FIELDS: dict[str, tuple[str, ...]] = {
    "multiple_choice": ("correct_index",),
    "cloze": ("answers",),
    "open_question": ("expected_answer",),
    "summary": ("key_points",),
    "flashcard": ("answer",),
    "ordering": ("correct_order",),
    "teach_back": ("key_points",),
    "error_finding": ("errors",),
    "analogy": ("expected_answer",),
    "micro_scenario": ("expected_answer",),
    "term_definition": ("definition",),
}


@dataclass(frozen=True)
class ExerciseGrade:
    quality: int
    is_correct: bool
    feedback: str
    grader: str  # "rule" for code-checked types, else the grader's name


def learner_view(data: dict[str, Any]) -> dict[str, Any]:
    """The exercise without its answer fields and explanation."""
    hidden = set(ANSWER_FIELDS.get(data.get("type", ""), ())) | {"explanation"}
    return {k: v for k, v in data.items() if k not in hidden}


def _norm(text: str) -> str:
    return " ".join(re.sub(r"[^\w\s]", " ", text.lower()).split())


def _round_half_up(x: float) -> int:
    return math.floor(x + 0.5)


def _parts(answer: str) -> list[str]:
    return [p.strip() for p in re.split(r"[;|\n]", answer) if p.strip()]


def _choice(ex: Any, answer: str) -> int | None:
    a = answer.strip()
    for i, option in enumerate(ex.options):
        if _norm(option) == _norm(a):
            return i
    m = re.fullmatch(r"\(?([a-zA-Z])\)?[.)]?", a)
    if m and ord(m.group(1).lower()) - ord("a") < len(ex.options):
        return ord(m.group(1).lower()) - ord("a")
    if a.isdigit() and 1 <= int(a) <= len(ex.options):
        return int(a) - 1
    return None


def _order(ex: Any, answer: str) -> list[int]:
    nums = re.findall(r"\d+", answer)
    if len(nums) == len(ex.items) and all(1 <= int(n) <= len(ex.items) for n in nums) and len(set(nums)) == len(nums):
        return [int(n) - 1 for n in nums]
    by_text = {_norm(item): i for i, item in enumerate(ex.items)}
    order = [by_text.get(_norm(p)) for p in _parts(answer)]
    if len(order) != len(ex.items) or None in order or len(set(order)) != len(order):
        raise UserError(
            f"an ordering answer needs all {len(ex.items)} items once each",
            hint="send the item numbers in order, e.g. '2,1,3', or the item texts one per line",
        )
    return order  # type: ignore[return-value]


def reference_of(ex: Any) -> str:
    """The reference answer a grader compares free text with (module table)."""
    if ex.type == "flashcard":
        return ex.answer
    if ex.type == "term_definition":
        return ex.definition
    if ex.type in ("open_question", "analogy", "micro_scenario"):
        return ex.expected_answer
    if ex.type in ("summary", "teach_back"):
        return "; ".join(ex.key_points)
    if ex.type == "error_finding":
        return "; ".join(f"{e.wrong} → {e.correct}" for e in ex.errors)
    raise UserError(f"exercise type {ex.type!r} is graded by rule, not against a reference")


def grade_exercise(ex: Exercise, answer: str, grader: Grader, *, grader_name: str = "offline") -> ExerciseGrade:
    """Grade `answer` to `ex` by the module table."""
    if not answer.strip():
        raise UserError("the answer is empty", hint="send the answer text")
    if ex.type == "multiple_choice":
        picked = _choice(ex, answer)
        if picked is None:
            raise UserError(f"{answer!r} is none of the {len(ex.options)} options",
                            hint="send the option's text, letter or number")
        right = picked == ex.correct_index
        fb = "Right." if right else f"Not quite: the answer is {ex.options[ex.correct_index]!r}."
        return ExerciseGrade(5 if right else 1, right, f"{fb} {ex.explanation}".strip(), "rule")
    if ex.type == "cloze":
        given = _parts(answer)
        if len(given) != len(ex.answers):
            raise UserError(f"the text has {len(ex.answers)} gap(s) but {len(given)} answer(s) came",
                            hint="separate the gaps' answers with ';'")
        right = [_norm(g) == _norm(a) for g, a in zip(given, ex.answers)]
        quality = _round_half_up(5 * sum(right) / len(right))
        wrong = [f"gap {i + 1}: {a!r}" for i, (ok, a) in enumerate(zip(right, ex.answers)) if not ok]
        fb = "All gaps right." if not wrong else f"{sum(right)}/{len(right)} gaps right; expected " + ", ".join(wrong)
        return ExerciseGrade(quality, quality >= PASS_QUALITY, fb, "rule")
    if ex.type == "ordering":
        order = _order(ex, answer)
        if order == list(ex.correct_order):
            return ExerciseGrade(5, True, "The order is right.", "rule")
        pos = {item: k for k, item in enumerate(order)}
        pairs = list(combinations(ex.correct_order, 2))
        in_order = sum(1 for a, b in pairs if pos[a] < pos[b]) / len(pairs)
        quality = _round_half_up(2 * in_order)
        right = " → ".join(ex.items[i] for i in ex.correct_order)
        return ExerciseGrade(quality, False, f"{in_order:.0%} of the pairs are in order; the right order: {right}",
                             "rule")
    grade = grader.grade(ex.question, reference_of(ex), answer)
    return ExerciseGrade(grade.quality, grade.quality >= PASS_QUALITY, grade.feedback, grader_name)
