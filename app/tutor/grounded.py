"""Grounded mode: replies made only of course sentences (each with its citation) and the tutor's templates.

This is the offline default (no generative model configured) and the fallback when the model fails. A reply is

    intro template (names the section the material comes from)
    material sentences, one per line, each ending in its marker "[n]"; citation n is the n-th chunk cited
    the strategy's closing question for the help level

or, when retrieval confidence is below the calibrated threshold (see `calibrate.py`), the "not covered" template.

Confidence is the highest dense cosine between the question and a retrieved chunk (`Hit.scores["dense"]`, which
the KITE pipeline records for every hit). It is bounded and comparable across questions, unlike a rerank score
after boosting, and it is what tells "about this course" from "about something else".
`check_grounded` is the acceptance check: every sentence of a grounded reply is verbatim course text or a template.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

import numpy as np

from app.retrieval.query import expand_query
from app.retrieval.types import Hit
from app.tutor.intents import Intent
from app.tutor.language import Language
from app.tutor.sentences import Sentence, asks_definition, candidates, defines, passage, score_sentences, select
from app.tutor.strategies import NOT_COVERED, NOTHING_QUOTABLE, strategy_for
from app.tutor.types import Citation, Grounding
from indexing.chunk import index_text, split_sentences
from indexing.embedder import Embedder
from indexing.models import Chunk

DEFAULT_MIN_CONFIDENCE = 0.26
"""Answer from the material only when the best retrieved chunk has dense cosine >= this (all-MiniLM-L6-v2).

Measured with `python -m app.tutor.calibrate --data-dir DIR --course search` on the sample course ingested with the
default embedder and retrieved by the KITE pipeline (late-interaction reranker, asking passages demoted), top 8:
the 151 questions of data/gold/retrieval_dev.jsonl and retrieval_heldout.jsonl as covered, the 50 of
data/offtopic.jsonl as not covered. The F2-maximising threshold was 0.257: recall 0.993 and precision 0.926 of
"covered", 76% of the off-topic questions rejected. On the dev set alone the optimum was 0.377 and on the held-out
set alone 0.257 — the F2 curve is flat between them, so both sets together decide. Below the threshold fall mostly
German questions, which score lowest with this English embedder. Re-run it for another embedder, chunker or course.
"""

CONFIDENCE_KEY = "dense"
_MARKER = re.compile(r"\s*\[\d+\]")


@dataclass(frozen=True)
class GroundedReply:
    reply: str
    citations: list[Citation]
    grounding: Grounding
    confidence: float
    lines: list[str] = field(default_factory=list)  # the reply's lines, for streaming in pieces


def confidence(question: str, hits: Sequence[Hit], embedder: Embedder | None = None) -> float:
    """The highest dense cosine of a hit; computed with `embedder` when the retriever recorded none; else the best
    final score (only meaningful for retrievers whose score is a cosine)."""
    if not hits:
        return 0.0
    recorded = [h.scores[CONFIDENCE_KEY] for h in hits if CONFIDENCE_KEY in h.scores]
    if recorded:
        return float(max(recorded))
    if embedder is not None:
        vecs = embedder.embed([question] + [index_text(h.chunk) for h in hits])
        return float(np.max(vecs[1:] @ vecs[0]))
    return float(max(h.score for h in hits))


def not_covered(lang: Language, conf: float) -> GroundedReply:
    lines = list(NOT_COVERED[lang])
    return GroundedReply("\n".join(lines), [], "not_covered", conf, lines)


def compose(
    question: str,
    intent: Intent | str,
    level: int,
    hits: Sequence[Hit],
    *,
    lang: Language = "en",
    embedder: Embedder | None = None,
    min_confidence: float = DEFAULT_MIN_CONFIDENCE,
    prefix_lines: Sequence[str] = (),
) -> GroundedReply:
    """The grounded reply to `question` (see the module docstring). `prefix_lines` are templates put first (e.g.
    the note that the model was unavailable)."""
    hits = list(hits)
    conf = confidence(question, hits, embedder)
    if not hits or conf < min_confidence:
        r = not_covered(lang, conf)
        lines = [*prefix_lines, *r.lines]
        return GroundedReply("\n".join(lines), [], "not_covered", conf, lines)

    strategy = strategy_for(intent)
    scored = score_sentences(
        question,
        candidates(hits, allow_code=strategy.allow_code, allow_worked_results=strategy.allow_worked_results),
        embedder=embedder,
    )
    # a German question names its terms in German: the definition is looked for with their English equivalents too
    asked = expand_query(question) if intent == "direct" and asks_definition(question) else None
    chosen = _choose(scored, strategy.n_sentences(level), strategy.order, asked)
    topic = hits[chosen[0].hit_index].chunk.section if chosen else hits[0].chunk.section
    topic = topic or "this topic"

    citations: list[Citation] = []
    number: dict[str, int] = {}
    body: list[str] = []
    for s in chosen:
        chunk = hits[s.hit_index].chunk
        if chunk.id not in number:
            citations.append(Citation(chunk.id, chunk.source, chunk.page_start, chunk.page_end))
            number[chunk.id] = len(citations)
        body.append(f"{s.text} [{number[chunk.id]}]")

    opening = strategy.intro(level, lang) if body else NOTHING_QUOTABLE[lang]
    lines = [*prefix_lines, opening.format(topic=topic), *body, strategy.question(level, lang)]
    return GroundedReply("\n".join(lines), citations, "material", conf, lines)


def _choose(scored: list[Sentence], n: int | None, order: str, definition_for: str | None = None) -> list[Sentence]:
    if not scored:
        return []
    best = max(scored, key=lambda s: (s.score, -s.hit_index))
    if n is None:  # level 5: the whole most relevant passage, in the order of the notes
        return passage(scored, best.hit_index)
    if order == "position":  # a walk through: the first steps of the most relevant passage
        return passage(scored, best.hit_index)[:n]
    # Lead with the retriever's best passage: its ranking (hybrid, rerank, boost) judges whole passages better
    # than sentence similarity does, so the first citation is the top hit whenever it has a quotable sentence.
    lead = [s for s in scored if s.hit_index == min(x.hit_index for x in scored)]
    if definition_for is not None:
        # "what is X?": a sentence that defines X in one of the three best passages leads, whichever of them won;
        # other direct questions ("which …", "is there …") keep the retriever's best passage first
        top = sorted({s.hit_index for s in scored})[:3]
        definitions = [s for s in scored if s.hit_index in top and defines(s.text, definition_for)]
        lead = definitions or lead
    first = max(lead, key=lambda s: (s.score, -s.position))
    return [first, *select([s for s in scored if s is not first], n - 1, avoid=[first])]


# -- the acceptance check ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class GroundingCheck:
    ok: bool
    violations: list[str]  # sentences that are neither course text nor a template

    def __bool__(self) -> bool:
        return self.ok


def _norm(text: str) -> str:
    return " ".join(text.split())


def _template_pattern(template: str) -> re.Pattern[str]:
    parts = re.split(r"\{\w+\}", _norm(template))
    return re.compile("^" + "(.+?)".join(re.escape(p) for p in parts) + "$")


def check_grounded(reply: str, chunks: Iterable[Chunk], templates: Iterable[str]) -> GroundingCheck:
    """Every line of `reply` (citation markers removed) must be a template (its `{slots}` filled with a section
    heading of the chunks) or consist of sentences that occur verbatim in a chunk."""
    chunks = list(chunks)
    texts = [_norm(c.text) for c in chunks]
    sections = {c.section for c in chunks if c.section} | {"this topic"}
    patterns = [_template_pattern(t) for t in templates]
    violations: list[str] = []
    for raw in reply.split("\n"):
        line = _norm(_MARKER.sub("", raw))
        if not line:
            continue
        if any((m := p.match(line)) and all(g in sections for g in m.groups()) for p in patterns):
            continue
        for sentence in split_sentences(line) if not any(line in t for t in texts) else []:
            if not any(sentence in t for t in texts):
                violations.append(sentence)
    return GroundingCheck(not violations, violations)


__all__ = [
    "CONFIDENCE_KEY",
    "DEFAULT_MIN_CONFIDENCE",
    "GroundedReply",
    "GroundingCheck",
    "check_grounded",
    "compose",
    "confidence",
    "not_covered",
]
