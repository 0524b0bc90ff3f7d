"""Learning bites: self-contained pieces of course text of about 200-500 words (Teacher design, "Inhalte aufbereiten").

Each bite has a title, a difficulty 1-5 and prerequisites (earlier bites that should be understood first); the
original text is kept. Two ways in:

* `validate_bites(raw)` checks what a generative model proposed, as the design does: entries without title or
  content are dropped, difficulty is clamped to 1-5, prerequisites must be numbers — and, stricter than the design,
  must name an *earlier* kept bite, so the prerequisite graph can never have a cycle.
* `bites_from_sections(chunks)` needs no model: it regroups the index's chunks (already split at section headings,
  see `indexing.chunk`) into bites, and estimates difficulty with an explainable formula (`estimate_difficulty`).
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from pydantic import BaseModel, ConfigDict, Field

from app.errors import UserError
from indexing.chunk import split_sentences
from indexing.models import Chunk

MIN_WORDS = 200
MAX_WORDS = 500
DEFAULT_DIFFICULTY = 3


class LearningBite(BaseModel):
    """One bite. `id`s are positive integers in course order; `prerequisites` are ids of earlier bites."""

    model_config = ConfigDict(frozen=True)

    id: int = Field(ge=1)
    title: str = Field(min_length=1)
    content: str = Field(min_length=1)
    difficulty: int = Field(ge=1, le=5)
    prerequisites: list[int] = Field(default_factory=list)
    source_pages: list[int] = Field(default_factory=list)
    source: str = ""
    section: str = ""
    chunk_ids: list[str] = Field(default_factory=list)
    difficulty_reason: str = ""

    @property
    def word_count(self) -> int:
        return len(self.content.split())


# --- validating model output ----------------------------------------------------------------------------------


def _as_int(value: object) -> int | None:
    """An int from an int, an integral float or a digit string; None otherwise (bools are not numbers here)."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, str) and re.fullmatch(r"\s*\d+\s*", value):
        return int(value)
    return None


def clamp_difficulty(value: object) -> int:
    """Difficulty rounded half up and clamped to 1..5; anything non-numeric becomes the middle, 3."""
    if isinstance(value, bool):
        return DEFAULT_DIFFICULTY
    try:
        number = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return DEFAULT_DIFFICULTY
    if math.isnan(number):
        return DEFAULT_DIFFICULTY
    return int(min(5, max(1, math.floor(min(max(number, -1e9), 1e9) + 0.5))))


def validate_bites(raw: list[dict]) -> list[LearningBite]:
    """Check a model's proposed bites (design: "Die Antwort wird geprüft").

    - entries that are not objects, or lack a title or content, are dropped;
    - an entry's id is its integer `id` field, else its 1-based position in `raw`; a repeated id drops the entry;
    - difficulty is clamped to 1..5 (`clamp_difficulty`);
    - prerequisites keep only numbers naming a bite kept *earlier* in the list (no self-loops, no cycles), in order,
      without repeats;
    - source pages keep positive integers only.
    """
    if not isinstance(raw, list):
        raise UserError(f"bites must be a JSON list of objects, got {type(raw).__name__}")
    bites: list[LearningBite] = []
    seen: set[int] = set()
    for position, entry in enumerate(raw, start=1):
        if not isinstance(entry, dict):
            continue
        title = str(entry.get("title") or "").strip()
        content = str(entry.get("content") or "").strip()
        if not title or not content:
            continue
        given = _as_int(entry.get("id"))
        bite_id = given if given is not None and given >= 1 else position
        if bite_id in seen:
            continue
        prereqs_raw = entry.get("prerequisites")
        prerequisites: list[int] = []
        for p in prereqs_raw if isinstance(prereqs_raw, list) else []:
            pid = _as_int(p)
            if pid is not None and pid in seen and pid not in prerequisites:
                prerequisites.append(pid)
        pages_raw = entry.get("source_pages")
        pages = [n for n in (_as_int(p) for p in (pages_raw if isinstance(pages_raw, list) else [])) if n and n > 0]
        bites.append(
            LearningBite(
                id=bite_id,
                title=title,
                content=content,
                difficulty=clamp_difficulty(entry.get("difficulty")),
                prerequisites=prerequisites,
                source_pages=sorted(set(pages)),
                section=str(entry.get("section") or ""),
            )
        )
        seen.add(bite_id)
    return bites


# --- offline bites from the index's chunks ---------------------------------------------------------------------


def strip_overlap(previous: str, following: str) -> str:
    """`following` without the sentences it repeats from the end of `previous`.

    `indexing.chunk` starts each chunk after the first of a section with the last (up to two) sentences of the
    previous chunk. The overlap is the longest prefix of `following` that is also a suffix of `previous`, cut at
    white space on both sides and made of whole sentences (or at least 20 characters long), so an accidental
    short match such as a repeated last word is never removed.
    """
    limit = min(len(previous), len(following))
    for k in range(limit, 0, -1):
        head = following[:k]
        if not previous.endswith(head):
            continue
        ends_at_break = k == len(following) or following[k].isspace()
        starts_at_break = k == len(previous) or previous[-k - 1].isspace()
        before = previous[:-k]
        whole_sentences = head.rstrip()[-1:] in ".!?:" and (
            not before.strip() or before.endswith("\n") or re.search(r"[.!?:][\"')\]]*\s+$", before) is not None
        )
        if ends_at_break and starts_at_break and (whole_sentences or k >= 20):
            return following[k:].lstrip()
    return following


_CHAPTER = re.compile(r"^\s*(?:(?:chapter|kapitel|part|teil)\s+)?(\d+)(?:[.\s)]|$)", re.I)


def chapter_of(section: str) -> str | None:
    """The chapter number of a numbered heading ("3.2 Insertion sort" -> "3", "Chapter 4" -> "4"), else None."""
    m = _CHAPTER.match(section)
    return m.group(1) if m else None


@dataclass
class _Segment:
    """Consecutive chunks of one section (or part of one), before they become a bite."""

    source: str
    sections: list[str]
    chunks: list[Chunk]
    texts: list[str]  # each chunk's text without the overlap with the previous chunk
    part: tuple[int, int] | None = None  # (i, n) when a long section was split
    chapter: str | None = None  # numbered chapter, inherited by the unnumbered headings that follow it
    words: int = field(init=False)

    def __post_init__(self) -> None:
        self.words = sum(len(t.split()) for t in self.texts)


def _sections(chunks: Sequence[Chunk]) -> list[_Segment]:
    segments: list[_Segment] = []
    for c in chunks:
        last = segments[-1] if segments else None
        if last and last.source == c.source and last.sections[-1] == c.section:
            last.chunks.append(c)
            last.texts.append(strip_overlap(last.chunks[-2].text, c.text))
            last.__post_init__()
        else:
            inherited = last.chapter if last and last.source == c.source else None
            chapter = chapter_of(c.section) or inherited
            segments.append(_Segment(c.source, [c.section], [c], [c.text.strip()], chapter=chapter))
    return segments


def _split(seg: _Segment, max_words: int) -> list[_Segment]:
    """Split a long section at chunk boundaries into n balanced parts of at most about `max_words`."""
    if seg.words <= max_words or len(seg.chunks) == 1:
        return [seg]
    n = min(len(seg.chunks), math.ceil(seg.words / max_words))
    target = seg.words / n
    groups: list[list[int]] = [[]]
    acc = 0
    for i, t in enumerate(seg.texts):
        if groups[-1] and acc + len(t.split()) / 2 > target * len(groups) and len(groups) < n:
            groups.append([])
        groups[-1].append(i)
        acc += len(t.split())
    parts = [g for g in groups if g]
    return [
        _Segment(
            seg.source, seg.sections, [seg.chunks[i] for i in g], [seg.texts[i] for i in g], (j + 1, len(parts)),
            seg.chapter,
        )
        for j, g in enumerate(parts)
    ]


def _can_merge(a: _Segment, b: _Segment, max_words: int) -> bool:
    return (
        a.part is None
        and b.part is None
        and a.source == b.source
        and a.chapter == b.chapter
        and a.words + b.words <= max_words
    )


def _merge(a: _Segment, b: _Segment) -> _Segment:
    heading = [b.sections[0]] if b.sections[0] else []
    texts = a.texts + ["\n\n" + "\n".join(heading + [b.texts[0]])] + b.texts[1:]
    return _Segment(a.source, a.sections + b.sections, a.chunks + b.chunks, texts, chapter=a.chapter)


def _merge_small(segments: list[_Segment], min_words: int, max_words: int) -> list[_Segment]:
    out: list[_Segment] = []
    for seg in segments:
        if out and out[-1].words < min_words and _can_merge(out[-1], seg, max_words):
            out[-1] = _merge(out[-1], seg)
        else:
            out.append(seg)
    if len(out) >= 2 and out[-1].words < min_words and _can_merge(out[-2], out[-1], max_words):
        out[-2:] = [_merge(out[-2], out[-1])]
    return out


def _title(seg: _Segment) -> str:
    names = [s for s in seg.sections if s]
    if not names:
        pages = [p for c in seg.chunks for p in (c.page_start, c.page_end)]
        lo, hi = min(pages), max(pages)
        names = [f"{seg.source} p. {lo}" if lo == hi else f"{seg.source} pp. {lo}-{hi}"]
    title = " / ".join(dict.fromkeys(names))
    if seg.part:
        title += f" (part {seg.part[0]} of {seg.part[1]})"
    return title


def _join(texts: list[str]) -> str:
    out = ""
    for t in texts:
        if not out:
            out = t
        elif t.startswith("\n"):
            out += t
        else:
            out += ("\n" if out.endswith("\n") else " ") + t
    return out.strip()


# --- difficulty ------------------------------------------------------------------------------------------------

_TECH_TOKEN = re.compile(
    r"\d|[=<>+*/^_{}\[\]()|\\∑∫√≤≥≠→←∀∃∈λ]|[a-z][A-Z]|^[A-Z]{2,}s?$"  # digits, math/code symbols, camelCase, ACRONYMS
)
POSITION_WEIGHT, SENTENCE_WEIGHT, TECHNICAL_WEIGHT = 0.4, 0.3, 0.3
SENTENCE_EASY, SENTENCE_HARD = 10.0, 30.0  # words per sentence mapped to 0 and 1
TECHNICAL_HARD = 0.2  # a 20 % share of technical tokens counts as fully technical


def estimate_difficulty(text: str, position: int, count: int) -> tuple[int, str]:
    """Difficulty 1-5 from three observable signals, and a one-line explanation of the arithmetic.

        position   = i / (n - 1)                        later in a course builds on more (0 for a single bite)
        sentences  = clamp((words per sentence - 10) / 20)   longer sentences read harder
        technical  = clamp(share of technical tokens / 0.2)  tokens with digits, formula or code symbols,
                                                             camelCase or ACRONYMS
        score      = 0.4 position + 0.3 sentences + 0.3 technical
        difficulty = 1 + round_half_up(4 * score)

    The weights are a plain heuristic, not fitted; the explanation is stored with the bite so a teacher can see
    why and override it.
    """
    position_score = position / (count - 1) if count > 1 else 0.0
    sentences = [s for s in split_sentences(" ".join(text.split())) if s.split()]
    words = text.split()
    avg_len = len(words) / max(1, len(sentences))
    sentence_score = min(1.0, max(0.0, (avg_len - SENTENCE_EASY) / (SENTENCE_HARD - SENTENCE_EASY)))
    technical = sum(1 for w in words if _TECH_TOKEN.search(w.strip(".,;:!?\"'")))
    share = technical / max(1, len(words))
    technical_score = min(1.0, share / TECHNICAL_HARD)
    score = POSITION_WEIGHT * position_score + SENTENCE_WEIGHT * sentence_score + TECHNICAL_WEIGHT * technical_score
    difficulty = 1 + math.floor(4 * score + 0.5)
    reason = (
        f"position {position + 1}/{count} -> {position_score:.2f}; "
        f"{avg_len:.1f} words per sentence -> {sentence_score:.2f}; "
        f"technical tokens {share:.0%} -> {technical_score:.2f}; "
        f"score 0.4*{position_score:.2f} + 0.3*{sentence_score:.2f} + 0.3*{technical_score:.2f} = {score:.2f} "
        f"-> difficulty {difficulty}"
    )
    return difficulty, reason


def bites_from_sections(
    chunks: Sequence[Chunk], *, min_words: int = MIN_WORDS, max_words: int = MAX_WORDS
) -> list[LearningBite]:
    """Regroup chunks (in course order) into bites of about `min_words`-`max_words` words, without a model.

    - consecutive chunks of the same section and source form a section; their overlapping sentences are removed;
    - a section longer than `max_words` is split at chunk boundaries into balanced parts ("Title (part 1 of 2)");
    - a section shorter than `min_words` is merged with the following one(s) of the same source and chapter while
      the result stays within `max_words`; a small last section joins the one before it;
    - title = section heading(s); ids are 1..n in course order;
    - prerequisites = the previous bite if it is in the same source and chapter (numbered headings: "3.1", "3.2"
      share chapter 3; an unnumbered heading belongs to the chapter of the numbered heading before it, or to the
      source's unnumbered front matter when there is none);
    - difficulty by `estimate_difficulty`, its explanation in `difficulty_reason`.
    """
    if min_words < 1 or max_words < min_words:
        raise UserError(f"need 1 <= min_words <= max_words, got {min_words} and {max_words}")
    segments = [part for seg in _sections(chunks) for part in _split(seg, max_words)]
    segments = _merge_small(segments, min_words, max_words)
    bites: list[LearningBite] = []
    for i, seg in enumerate(segments):
        content = _join(seg.texts)
        difficulty, reason = estimate_difficulty(content, i, len(segments))
        prev = segments[i - 1] if i else None
        same_chapter = prev is not None and prev.source == seg.source and prev.chapter == seg.chapter
        bites.append(
            LearningBite(
                id=i + 1,
                title=_title(seg),
                content=content,
                difficulty=difficulty,
                prerequisites=[i] if same_chapter else [],
                source_pages=sorted({p for c in seg.chunks for p in range(c.page_start, c.page_end + 1)}),
                source=seg.source,
                section=seg.sections[0],
                chunk_ids=[c.id for c in seg.chunks],
                difficulty_reason=reason,
            )
        )
    return bites
