"""The hint ladder of grounded mode: five hints from the reference answer and the material, each clearer.

The Teacher design gives at most five hints per question, "beginnend subtil und zunehmend deutlicher, der fünfte
verrät fast die Lösung". Without a model the ladder is a progressive reveal:

    level 1  where to look: the cited passage (section and pages)
    level 2  the key concept the answer turns on
    level 3  a cloze of the reference answer with most content words hidden (a quarter shown)
    level 4  the cloze with fewer hidden (half shown)
    level 5  nearly complete: four fifths shown, the rest with their first letter

Function words are always shown in a cloze; content words are revealed in a fixed order: words the question already
contains first (they give nothing away), then in the order of the answer. Levels 1-4 also pass the leak guard
(`leak_guard.guard_hint`), so none shares more than half of the answer's content words.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence

from app.grading.concepts import detect_language, is_content, stem, tokens
from app.practice.bands import MAX_HINTS
from app.practice.questions import Question
from indexing.models import Chunk

REVEAL_SHARE = {3: 0.25, 4: 0.5, 5: 0.8}
BLANK = "___"
_WORD_RE = re.compile(r"[^\W_]+(?:'[^\W_]+)*", re.UNICODE)


def locate_passage(question: Question, material: Sequence[Chunk]) -> Chunk | None:
    """The chunk the question cites: one of its `chunk_ids` if present in the material, else the chunk sharing the
    most content words with question + reference (ties: first in material order), or None without material."""
    if not material:
        return None
    by_id = {c.id: c for c in material}
    for cid in question.chunk_ids:
        if cid in by_id:
            return by_id[cid]
    lang = detect_language(question.reference_answer)
    wanted = {stem(t, lang) for t in tokens(f"{question.question} {question.reference_answer}") if is_content(t)}
    best, best_score = None, 0
    for chunk in material:
        score = len(wanted & {stem(t, lang) for t in tokens(chunk.text) if is_content(t)})
        if score > best_score:
            best, best_score = chunk, score
    return best


def where_to_look(question: Question, material: Sequence[Chunk] = ()) -> str:
    """Level 1: the section and pages of the cited passage (from the question, else from the located chunk)."""
    if question.section or question.pages:
        return f"Look again at {question.where()}."
    chunk = locate_passage(question, material)
    if chunk is None:
        return "Look again at the part of the material this question is about."
    a, b = chunk.page_start, chunk.page_end
    pages = f"page {a}" if a == b else f"pages {a}-{b}"
    section = f"section {chunk.section} " if chunk.section else ""
    return f"Look again at {section}({pages} of {chunk.source})."


def key_concept(question: Question) -> str:
    """The concept of level 2: the teacher's `key_concept`, else the longest content word of the answer that the
    question does not contain (first in answer order on ties)."""
    if question.key_concept:
        return question.key_concept
    lang = detect_language(question.reference_answer)
    q_stems = {stem(t, lang) for t in tokens(question.question) if is_content(t)}
    candidates = [t for t in tokens(question.reference_answer) if is_content(t) and stem(t, lang) not in q_stems]
    if not candidates:
        candidates = [t for t in tokens(question.reference_answer) if is_content(t)]
    if not candidates:
        return question.reference_answer.split()[0] if question.reference_answer.split() else ""
    return max(candidates, key=len)  # max() keeps the first of equally long words


def reveal_order(question: Question) -> list[str]:
    """Distinct content stems of the reference in the order the cloze reveals them (question's words first)."""
    lang = detect_language(question.reference_answer)
    q_stems = {stem(t, lang) for t in tokens(question.question) if is_content(t)}
    ref: list[str] = []
    for t in tokens(question.reference_answer):
        if is_content(t) and (s := stem(t, lang)) not in ref:
            ref.append(s)
    return [s for s in ref if s in q_stems] + [s for s in ref if s not in q_stems]


def revealed_count(n_stems: int, level: int) -> int:
    """How many of `n_stems` content stems a cloze of `level` shows: floor(share·n) for 3 and 4; for 5
    ceil(0.8·n) but never all of them."""
    share = REVEAL_SHARE[level]
    if level == 5:
        return min(max(n_stems - 1, 0), math.ceil(share * n_stems))
    return int(math.floor(share * n_stems))


def cloze(question: Question, level: int) -> str:
    """The reference answer with the hidden content words blanked (level 5: first letter kept)."""
    if level not in REVEAL_SHARE:
        raise ValueError(f"a cloze has level 3, 4 or 5, not {level}")
    lang = detect_language(question.reference_answer)
    order = reveal_order(question)
    shown = set(order[: revealed_count(len(order), level)])

    def repl(m: re.Match[str]) -> str:
        word = m.group(0)
        t = word.lower()
        if not is_content(t) or stem(t, lang) in shown:
            return word
        return word[0] + BLANK if level == 5 and len(word) > 1 else BLANK

    return _WORD_RE.sub(repl, question.reference_answer)


def grounded_hint(question: Question, level: int, material: Sequence[Chunk] = ()) -> str:
    """The unguarded text of hint `level` (1..5) for `question`; the session passes it through the leak guard."""
    if not 1 <= level <= MAX_HINTS:
        raise ValueError(f"hint level must be 1..{MAX_HINTS}, got {level}")
    if level == 1:
        return where_to_look(question, material)
    if level == 2:
        return f"The key concept here is “{key_concept(question)}”. How does it answer the question?"
    prefix = {3: "Fill in the gaps:", 4: "Fewer gaps now:", 5: "Nearly the whole answer:"}[level]
    return f"{prefix} {cloze(question, level)}"
