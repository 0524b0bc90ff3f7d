"""Passages that ask instead of explain.

Textbooks end their chapters with review questions and practice problems. Those passages repeat the words of the
very questions students ask ("Why does the order of moves matter for alpha-beta?") without answering them, so
both dense and BM25 scoring rank them first for exactly the questions they cannot answer. A passage is *asking*
by the share of its sentences that are questions or exercise tasks (a numbered item or a sentence opening with an
imperative such as "Explain", "Show that", "Berechne"); asking passages are demoted unless the learner's question
refers to an exercise itself ("exercise 3", "Aufgabe 5", "the practice problems"), where the task is the context.

The share itself is a passage feature computed at ingestion (`indexing.asking`); this module decides when the
question makes the demotion moot and which exercise numbers it names. Pure functions.
"""

from __future__ import annotations

import re

_EXERCISE_REFERENCE = re.compile(
    r"\b(?:exercises?|problems?|review questions?|practice problems?|homework|assignments?|worksheet|"
    r"aufgaben?|übung(?:en|saufgaben?|sblatt)?|hausaufgaben?|übungsblatt)\s*(?:#|nr\.?|no\.?)?\s*\d+"
    r"|\b(?:the|in den|aus den|die)\s+(?:exercises|practice problems|review questions|übungen|übungsaufgaben)\b",
    re.IGNORECASE,
)


_NUMBERED = re.compile(
    r"\b(?:exercises?|problems?|(?:review |practice )?questions?|aufgaben?|übung(?:saufgaben?)?|fragen?)"
    r"\s*(?:#|nr\.?|no\.?)?\s*(\d{1,3})\b",
    re.IGNORECASE,
)


def exercise_numbers(text: str) -> frozenset[str]:
    """The numbers of the exercises a text names ("exercise 3", "Problem 5 (a minimal UCS)", "Aufgabe 2")."""
    return frozenset(m.group(1) for m in _NUMBERED.finditer(text))


def refers_to_exercise(query: str) -> bool:
    """The learner asks about an exercise itself ("exercise 3", "Aufgabe 5", "the practice problems")."""
    return bool(_EXERCISE_REFERENCE.search(query))
