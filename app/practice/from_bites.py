"""Practice questions made from the material without a model: one per learning bite, marked `generated`.

    bite with a definition sentence ("X is a ...")   "What is meant by “X” in <bite title>?"
                                                      reference: the definition sentence; key concept: X
    any other bite                                    "Explain the main idea of <bite title> in your own words."
                                                      reference: the bite's first prose sentences (up to about
                                                      REFERENCE_WORDS words), so the grader and the hint ladder
                                                      work from the original text

Each question cites the bite's section, source, pages and chunk ids, so its rating finds the bite again
(`app.learning.links.bite_for_question`). Ids are `gen-b<bite>`: regenerating replaces, never duplicates.
"""

from __future__ import annotations

from collections.abc import Sequence

from app.learning.bites import LearningBite
from app.learning.generate import find_definitions, prose_sentences
from app.practice.questions import Question

REFERENCE_WORDS = 60


def _reference(bite: LearningBite) -> str:
    out: list[str] = []
    for s in prose_sentences(bite.content) or [" ".join(bite.content.split())]:
        if out and len(" ".join(out).split()) + len(s.split()) > REFERENCE_WORDS:
            break
        out.append(s)
    return " ".join(out)


def question_for_bite(bite: LearningBite, course: str) -> Question:
    """The generated question of one bite (module table)."""
    defs = find_definitions(bite.content)
    where = {
        "section": bite.section, "source": bite.source, "chunk_ids": tuple(bite.chunk_ids),
        "page_start": min(bite.source_pages) if bite.source_pages else None,
        "page_end": max(bite.source_pages) if bite.source_pages else None,
    }
    if defs:
        term, sentence = defs[0]
        return Question(id=f"gen-b{bite.id}", course=course, question=f"What is meant by \u201c{term}\u201d in "
                        f"{bite.title}?", reference_answer=sentence, key_concept=term, **where)
    return Question(id=f"gen-b{bite.id}", course=course,
                    question=f"Explain the main idea of {bite.title} in your own words.",
                    reference_answer=_reference(bite), **where)


def questions_from_bites(bites: Sequence[LearningBite], course: str) -> list[Question]:
    """One generated question per bite, in course order."""
    return [question_for_bite(b, course) for b in bites]
