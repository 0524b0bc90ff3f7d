"""Which learning bite a guided-practice question belongs to, so its rating can update that bite's schedule.

Matching, strongest evidence first (the first rule that finds a bite decides):

    1. chunk ids    the bite holding most of the question's `chunk_ids` (ties: the earlier bite)
    2. section      the bite whose sections include the question's `section` (the first such bite); a section split
                    into parts is disambiguated by pages when the question has them
    3. pages        the bite of the same source (or any source when the question names none) whose pages overlap the
                    question's pages most (ties: the earlier bite)

A question with none of these, or matching no bite, belongs to no bite (None): its rating changes no schedule.
"""

from __future__ import annotations

from collections.abc import Sequence

from app.learning.bites import LearningBite
from app.practice.questions import Question


def _norm(text: str) -> str:
    return " ".join(text.lower().split())


def _page_overlap(question: Question, bite: LearningBite) -> int:
    if question.pages is None:
        return 0
    a, b = question.pages
    return len(set(range(a, b + 1)) & set(bite.source_pages))


def bite_for_question(question: Question, bites: Sequence[LearningBite]) -> LearningBite | None:
    """The bite `question` belongs to by the rules of the module docstring, or None."""
    if question.chunk_ids:
        wanted = set(question.chunk_ids)
        best = max(bites, key=lambda b: (len(wanted & set(b.chunk_ids)), -b.id), default=None)
        if best is not None and wanted & set(best.chunk_ids):
            return best
    if question.section:
        name = _norm(question.section)
        hits = [b for b in bites if name in {_norm(s) for s in (b.section, *b.title.split(" / "))}
                or _norm(b.section) == name]
        if hits:
            if len(hits) > 1 and question.pages is not None:
                return max(hits, key=lambda b: (_page_overlap(question, b), -b.id))
            return hits[0]
    if question.pages is not None:
        same = [b for b in bites if not question.source or b.source == question.source]
        best = max(same, key=lambda b: (_page_overlap(question, b), -b.id), default=None)
        if best is not None and _page_overlap(question, best) > 0:
            return best
    return None
