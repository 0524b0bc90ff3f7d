"""LLM mode: the model phrases the reply; the code decides what counts as a citation and marks ungrounded replies.

The model answers with `LLMReply` (structured output). Then the code, not the model:

- keeps only citations of chunks it actually gave the model (others are dropped and logged at WARNING), in the
  order the model listed them, each once, resolved to `Citation`s with source and pages;
- marks a "beyond" reply to the learner with a visible note (`strategies.BEYOND_NOTE`);
- treats a "material" reply whose citations were all dropped as "beyond": nothing vouches for it.

Streaming uses plain text with inline `[chunk-id]` markers (`prompts.STREAM_FORMAT`) that are resolved the same way
once the stream is over.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Literal

from pydantic import BaseModel, Field

from app.llm.base import LLM, Message, Usage
from app.retrieval.types import Hit
from app.tutor.language import Language
from app.tutor.strategies import BEYOND_NOTE
from app.tutor.types import Citation, Grounding

log = logging.getLogger(__name__)


class LLMReply(BaseModel):
    """What the model must return in LLM mode."""

    reply: str = Field(description="the text for the learner")
    citations: list[str] = Field(default_factory=list, description="ids of the course chunks the reply uses")
    grounding: Literal["material", "beyond"] = Field(description="material: rests on the chunks; beyond: does not")


@dataclass(frozen=True)
class LLMAnswer:
    reply: str
    citations: list[Citation]
    grounding: Grounding
    usage: Usage
    dropped: list[str]


def resolve_citations(cited: Sequence[str], hits: Sequence[Hit]) -> tuple[list[Citation], list[str]]:
    """Citations of provided chunks (each once, in the cited order) and the ids that were not provided."""
    provided = {h.chunk.id: h.chunk for h in hits}
    out: list[Citation] = []
    dropped: list[str] = []
    seen: set[str] = set()
    for cid in cited:
        cid = cid.strip()
        if cid not in provided:
            dropped.append(cid)
            continue
        if cid in seen:
            continue
        seen.add(cid)
        c = provided[cid]
        out.append(Citation(c.id, c.source, c.page_start, c.page_end))
    if dropped:
        log.warning("dropped %d citation(s) of chunks the model was not given: %s", len(dropped), ", ".join(dropped))
    return out, dropped


def finish(
    text: str, cited: Sequence[str], grounding: str, hits: Sequence[Hit], lang: Language, usage: Usage
) -> LLMAnswer:
    citations, dropped = resolve_citations(cited, hits)
    final: Grounding = "beyond" if grounding == "beyond" or not citations else "material"
    reply = text.strip()
    if final == "beyond":
        reply = f"{reply}\n\n{BEYOND_NOTE[lang]}"
    return LLMAnswer(reply, citations, final, usage, dropped)


def answer(llm: LLM, messages: Sequence[Message], hits: Sequence[Hit], lang: Language) -> LLMAnswer:
    """One structured call (with the seam's one corrective retry); raises `LLMError` if the model fails."""
    result = llm.structured(messages, LLMReply)
    v = result.value
    return finish(v.reply, v.citations, v.grounding, hits, lang, result.usage)


_INLINE = re.compile(r"\[([A-Za-z0-9_.:-]+)\]")


def inline_citations(text: str) -> list[str]:
    """The `[chunk-id]` markers of a streamed reply, in order."""
    return _INLINE.findall(text)


def stream_answer(
    llm: LLM, messages: Sequence[Message], hits: Sequence[Hit], lang: Language
) -> Iterator[str | LLMAnswer]:
    """Text deltas as they come, then the final `LLMAnswer` (whose reply may add the "beyond" note)."""
    stream = llm.stream(messages)
    for delta in stream:
        yield delta
    text = stream.text
    cited = inline_citations(text)
    ans = finish(text, cited, "material" if cited else "beyond", hits, lang, stream.usage or Usage())
    if ans.grounding == "beyond":
        yield f"\n\n{BEYOND_NOTE[lang]}"
    yield ans
