"""The prompt of LLM mode, laid out so that providers' prompt caching applies.

Providers cache the longest prompt prefix they have seen before (OpenAI: automatic above 1024 tokens; vLLM,
llama.cpp: prefix caching). So everything that does not change between turns comes first and is byte-identical
from call to call:

    1. system   SYSTEM_PROMPT + the strategy's instructions for the intent     (stable per intent)
    2. the conversation so far, as chat turns                                 (stable within a conversation)
    3. user     the retrieved chunks, the help level and the learner's message (new every turn)

Nothing in 1 depends on the question, the chunks or the clock.
"""

from __future__ import annotations

from collections.abc import Sequence

from app.llm.base import Message
from app.retrieval.types import Hit
from app.tutor.intents import Intent
from app.tutor.strategies import MAX_LEVEL, strategy_for
from app.tutor.types import Turn

SYSTEM_PROMPT = """You are a Socratic tutor for a university course. You help the learner think, you do not do
their work. Ground everything you say in the course chunks given with each message, cite the chunk ids you used,
and prefer guiding questions over answers. Answer in the language the learner writes in.

Help levels run from 1 (a nudge) to 5 (nearly reveal: quote the most relevant passage in full and explain it).
Give exactly as much help as the level asks for.

Reply with a JSON object: {"reply": the text for the learner, "citations": [ids of the chunks you used],
"grounding": "material" if the reply rests on the chunks, "beyond" if it needs knowledge they do not contain}."""

STREAM_FORMAT = """Write the reply for the learner as plain text (no JSON). After each statement taken from a chunk,
put its id in square brackets, e.g. [chunk-id]."""


def prefix(intent: Intent | str) -> list[Message]:
    """The stable head of every prompt for this intent."""
    return [Message.system(f"{SYSTEM_PROMPT}\n\nStrategy ({Intent(intent).value}): {strategy_for(intent).instructions}")]


def chunks_block(hits: Sequence[Hit]) -> str:
    lines = ["Course chunks:"]
    for hit in hits:
        c = hit.chunk
        pages = f"p. {c.page_start}" if c.page_start == c.page_end else f"pp. {c.page_start}-{c.page_end}"
        lines.append(f"[{c.id}] ({c.source}, {pages}, section: {c.section or '-'})\n{c.text}")
    return "\n\n".join(lines)


def build_messages(
    intent: Intent | str,
    question: str,
    hits: Sequence[Hit],
    *,
    help_level: int,
    history: Sequence[Turn] = (),
    streaming: bool = False,
) -> list[Message]:
    """The full prompt: stable prefix, the conversation, then this turn's chunks and message."""
    messages = prefix(intent)
    for turn in history:
        messages.append(Message.user(turn.content) if turn.role == "user" else Message.assistant(turn.content))
    turn_text = (
        f"{chunks_block(hits)}\n\nHelp level: {help_level} of {MAX_LEVEL}\n\nLearner: {question}"
        + (f"\n\n{STREAM_FORMAT}" if streaming else "")
    )
    messages.append(Message.user(turn_text))
    return messages
