"""Passages that ask instead of explain: the share of a passage's sentences that are questions or exercise tasks.

Textbooks end their chapters with review questions and practice problems. Those passages repeat the words of the
very questions students ask without answering them; retrieval demotes them (`app.retrieval.asking`). The share is
computed once per chunk at ingestion and stored with the index (`asking.npy`), so the query path only reads it.
A sentence asks when it ends in "?" or is a task: a numbered item or a sentence opening with an imperative such as
"Explain", "Show that", "Berechne".
"""

from __future__ import annotations

import re
from collections.abc import Iterable

import numpy as np

from indexing.chunk import split_sentences
from indexing.models import Chunk

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
# a cheap pre-check: a passage without a question mark and without a task verb after a sentence start asks nothing
_SENTENCE_START = re.compile(r"(?:^|[.!:)]\s+)(\w+)")
_VERBS = frozenset(f"{_TASK_VERBS_EN}|{_TASK_VERBS_DE}".split("|"))


def is_asking(sentence: str) -> bool:
    """A question or an exercise task rather than a statement."""
    s = sentence.strip()
    return s.endswith("?") or bool(_TASK.match(s))


def asking_share(text: str) -> float:
    """Share of a passage's sentences that ask (questions, numbered or imperative tasks); 0 for empty text."""
    if "?" not in text and not _VERBS.intersection(w.lower() for w in _SENTENCE_START.findall(text)):
        return 0.0
    sentences = [s for s in split_sentences(" ".join(text.split())) if not _ITEM_ONLY.match(s)]
    if not sentences:
        return 0.0
    return sum(is_asking(s) for s in sentences) / len(sentences)


def asking_shares(chunks: Iterable[Chunk]) -> np.ndarray:
    """`asking_share` of every chunk, row-aligned (float32), as the index stores it."""
    return np.array([asking_share(c.text) for c in chunks], np.float32)
