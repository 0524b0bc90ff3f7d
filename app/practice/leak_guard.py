"""Answer-leak guard: hints one to four must not give the reference answer away, whoever wrote them.

The measure is lexical and strict: the share of the reference answer's distinct content words (stopwords removed,
Snowball-stemmed as in `app.grading.concepts`) that also occur in the hint,

    overlap(hint, reference) = |stems(reference) ∩ stems(hint)| / |stems(reference)|.

A hint of level 1-4 (and any tutor text shown while a question is still open with fewer than five hints) may share
at most `MAX_OVERLAP` = half of them. Above that the guard first *masks*: it blanks out ("___") the shared words,
those the question does not already contain first, until the overlap is within the limit. When that blanks out more
than half of the hint's own content words, the hint would be mostly holes, so the guard *withholds* it and a
neutral fallback is shown instead. Level 5 ("der fünfte verrät fast die Lösung") and the resolution are exempt.

The check runs in code for grounded hints and model hints alike: a model told (or tricked) into printing the
solution gets it masked here, whatever its prompt said.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from app.grading.concepts import detect_language, is_content, stem, tokens

MAX_OVERLAP = 0.5
MAX_MASKED_SHARE = 0.5
GUARDED_LEVELS = frozenset({0, 1, 2, 3, 4})
MASK = "___"
WITHHELD_TEXT = (
    "I won't hand you the solution yet. Go back to the passage, reread it and tell me in your own words what you "
    "have so far."
)

_WORD_RE = re.compile(r"[^\W_]+(?:'[^\W_]+)*", re.UNICODE)

GuardAction = Literal["ok", "masked", "withheld", "exempt"]


@dataclass(frozen=True)
class GuardedHint:
    """The text that may be shown, what the guard did, and the overlap before and after."""

    text: str
    action: GuardAction
    overlap_before: float
    overlap_after: float


def reference_stems(reference: str) -> list[str]:
    """Distinct content-word stems of the reference answer, in order of first occurrence."""
    lang = detect_language(reference)
    out: list[str] = []
    for t in tokens(reference):
        if is_content(t):
            s = stem(t, lang)
            if s not in out:
                out.append(s)
    return out


def _text_stems(text: str, lang: str) -> set[str]:
    return {stem(t, lang) for t in tokens(text) if is_content(t)}


def content_overlap(text: str, reference: str) -> float:
    """Share of the reference's distinct content stems that occur in `text` (0 for a reference without any)."""
    ref = reference_stems(reference)
    if not ref:
        return 0.0
    found = _text_stems(text, detect_language(reference))
    return sum(s in found for s in ref) / len(ref)


def _mask(text: str, stems_to_mask: set[str], lang: str) -> str:
    def repl(m: re.Match[str]) -> str:
        t = m.group(0).lower()
        return MASK if is_content(t) and stem(t, lang) in stems_to_mask else m.group(0)

    return _WORD_RE.sub(repl, text)


def guard_hint(
    text: str,
    reference: str,
    *,
    level: int,
    question: str = "",
    max_overlap: float = MAX_OVERLAP,
    fallback: str = WITHHELD_TEXT,
) -> GuardedHint:
    """Check (and if needed mask or withhold) one tutor text shown at hint `level` (0 = before any hint)."""
    before = content_overlap(text, reference)
    if level not in GUARDED_LEVELS:
        return GuardedHint(text, "exempt", before, before)
    if before <= max_overlap:
        return GuardedHint(text, "ok", before, before)
    lang = detect_language(reference)
    ref = reference_stems(reference)
    present = _text_stems(text, lang)
    q_stems = _text_stems(question, lang)
    shared = [s for s in ref if s in present]
    # Blank the words the question does not give away first, then (if still needed) the question's own words.
    order = [s for s in shared if s not in q_stems] + [s for s in shared if s in q_stems]
    allowed = int(max_overlap * len(ref))  # at most this many reference stems may stay
    to_mask = set(order[: len(shared) - allowed])
    masked = _mask(text, to_mask, lang)
    after = content_overlap(masked, reference)
    hint_content = [t for t in tokens(text) if is_content(t)]
    masked_share = sum(stem(t, lang) in to_mask for t in hint_content) / len(hint_content) if hint_content else 1.0
    if masked_share > MAX_MASKED_SHARE or after > max_overlap:
        safe = fallback if content_overlap(fallback, reference) <= max_overlap else _mask(fallback, set(ref), lang)
        return GuardedHint(safe, "withheld", before, content_overlap(safe, reference))
    return GuardedHint(masked, "masked", before, after)
