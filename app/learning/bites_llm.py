"""Learning bites cut by a generative model (the Teacher design's ChunkingService), checked in code.

The model sees the course material section by section (the offline bites, in order, in windows that fit a prompt)
and proposes bites with a title, the original text, a difficulty 1-5 and prerequisites (structured output,
temperature 0.3). Code then decides what is kept: `validate_bites` drops entries without title or content, clamps
difficulty and keeps only prerequisites that name earlier bites; and a bite whose content is not the material's own
text (normalised white space, at least 90% of its words in order within one window) is dropped, because bites are
made of the original text, not the model's paraphrase. If nothing survives, or the model's output stays invalid
after its retry, the offline bites stand (and the log says why).
"""

from __future__ import annotations

import logging
import re
from collections.abc import Sequence
from difflib import SequenceMatcher

from pydantic import BaseModel, Field

from app.learning.bites import LearningBite, bites_from_sections, validate_bites
from app.errors import LLMError
from app.llm.base import LLM, Message
from indexing.models import Chunk

log = logging.getLogger(__name__)
TEMPERATURE = 0.3
WINDOW_CHARS = 12_000

SYSTEM = """You cut course material into learning bites of about 200-500 words each.
Each bite: a short title, `content` = the ORIGINAL text of the material, copied exactly (never summarise or
rephrase), a difficulty from 1 (easy) to 5 (hard), and `prerequisites` = numbers of EARLIER bites a learner must
know first. Number bites in order, continuing from the number given."""


class BiteDraft(BaseModel):
    id: int = Field(ge=1)
    title: str
    content: str
    difficulty: int
    prerequisites: list[int] = Field(default_factory=list)


class BitePlan(BaseModel):
    bites: list[BiteDraft]


def _words(text: str) -> list[str]:
    return re.findall(r"\w+", text.lower())


def _matched_words(content: str, material: str) -> tuple[int, int]:
    words = _words(content)
    m = SequenceMatcher(None, words, _words(material), autojunk=False)
    return sum(b.size for b in m.get_matching_blocks()), len(words)


def is_original_text(content: str, material: str, *, min_share: float = 0.9) -> bool:
    """At least `min_share` of the content's words appear, in order, in the material."""
    matched, total = _matched_words(content, material)
    return total > 0 and matched / total >= min_share


def _pages_of(content: str, window: Sequence[LearningBite]) -> list[int]:
    """Pages of the offline bites the content was copied from (sharing a run of at least 12 words with it)."""
    words = _words(content)
    pages: set[int] = set()
    for b in window:
        other = _words(b.content)
        run = SequenceMatcher(None, words, other, autojunk=False).find_longest_match(0, len(words), 0, len(other))
        if run.size >= min(12, len(words)):
            pages.update(b.source_pages)
    return sorted(pages)


def _windows(bites: Sequence[LearningBite]) -> list[list[LearningBite]]:
    out: list[list[LearningBite]] = [[]]
    size = 0
    for b in bites:
        if out[-1] and size + len(b.content) > WINDOW_CHARS:
            out.append([])
            size = 0
        out[-1].append(b)
        size += len(b.content)
    return [w for w in out if w]


def bites_with_model(llm: LLM, chunks: Sequence[Chunk]) -> list[LearningBite]:
    """Bites proposed by the model over the whole course, validated; the offline bites if none survive."""
    offline = bites_from_sections(chunks)
    proposed: list[dict] = []
    for window in _windows(offline):
        material = "\n\n".join(f"## {b.title}\n{b.content}" for b in window)
        start = len(proposed) + 1
        messages = [
            Message.system(SYSTEM),
            Message.user(f"Number the bites from {start}. Material:\n\n{material}"),
        ]
        try:
            plan = llm.structured(messages, BitePlan, temperature=TEMPERATURE).value
        except LLMError as e:
            log.warning("the model could not cut bites (%s); using the offline bites", e)
            return offline
        for d in plan.bites:
            if not is_original_text(d.content, material):
                log.warning("dropped model bite %r: its content is not the material's own text", d.title)
                continue
            proposed.append({**d.model_dump(), "source_pages": _pages_of(d.content, window), "section": d.title})
    bites = validate_bites(proposed)
    if not bites:
        log.warning("the model proposed no usable bites; using the offline bites")
        return offline
    return bites
