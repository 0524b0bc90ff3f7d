"""Passages that ask instead of explain.

Textbooks end their chapters with review questions and practice problems. Those passages repeat the words of the
very questions students ask ("Why does the order of moves matter for alpha-beta?") without answering them, so
both dense and BM25 scoring rank them first for exactly the questions they cannot answer. A passage is *asking*
by the share of its sentences that are questions or exercise tasks (a numbered item or a sentence opening with an
imperative such as "Explain", "Show that", "Berechne"); asking passages are demoted unless the learner's question
refers to an exercise itself ("exercise 3", "Aufgabe 5", "the practice problems"), where the task is the context.

Pure functions; the pipeline caches the share per chunk.
"""

from __future__ import annotations

import re

from indexing.chunk import split_sentences

_TASK_VERBS_EN = (
    "add|answer|apply|calculate|compare|complete|compute|construct|define|derive|describe|determine|draw|estimate|"
    "explain|extend|find|give|implement|justify|list|modify|name|prove|redo|repeat|replace|run|show|simulate|sketch|"
    "solve|state|trace|write"
)
_TASK_VERBS_DE = (
    "begründe|berechne|beschreibe|bestimme|beweise|definiere|erkläre|ergänze|erläutere|finde|führe|gib|"
    "implementiere|nenne|schreibe|simuliere|skizziere|vergleiche|wende|zeichne|zeige"
)
_ITEM = r"(?:\(?\d{1,3}[.)]|\(?[a-h]\)|(?:problem|exercise|aufgabe|übung)\s+\d+(?:\s*\([^)]{0,60}\))?[.:])"
_TASK = re.compile(
    rf"^\s*(?:{_ITEM}\s*)?(?:{_TASK_VERBS_EN}|{_TASK_VERBS_DE})\b(?!-)",
    re.IGNORECASE,
)
_ITEM_ONLY = re.compile(rf"^\s*{_ITEM}\s*$", re.IGNORECASE)
_EXERCISE_REFERENCE = re.compile(
    r"\b(?:exercises?|problems?|review questions?|practice problems?|homework|assignments?|worksheet|"
    r"aufgaben?|übung(?:en|saufgaben?|sblatt)?|hausaufgaben?|übungsblatt)\s*(?:#|nr\.?|no\.?)?\s*\d+"
    r"|\b(?:the|in den|aus den|die)\s+(?:exercises|practice problems|review questions|übungen|übungsaufgaben)\b",
    re.IGNORECASE,
)


def is_asking(sentence: str) -> bool:
    """A question or an exercise task rather than a statement."""
    s = sentence.strip()
    return s.endswith("?") or bool(_TASK.match(s))


def asking_share(text: str) -> float:
    """Share of a passage's sentences that ask (questions, numbered or imperative tasks); 0 for empty text."""
    sentences = [s for s in split_sentences(" ".join(text.split())) if not _ITEM_ONLY.match(s)]
    if not sentences:
        return 0.0
    return sum(is_asking(s) for s in sentences) / len(sentences)


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
