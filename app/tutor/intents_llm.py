"""An intent classifier backed by a generative model, behind the same `IntentClassifier` seam (KITE §3.4.1).

The model reads the question with a short description of the five intents and answers with structured output
`{intent, reason}` (`IntentChoice`, validated by pydantic through `llm.structured`, which already retries once on
invalid JSON). The code, not the prompt, decides what happens when the model fails: any `LLMError` (unreachable,
5xx after retries, output that does not validate) falls back to the rule classifier, and the result says so in
`reason`. `ModelRequestsBlocked` is the one `LLMError` that is re-raised: it means a test reached a real endpoint by
mistake, and degrading silently would hide exactly that.

The model states no probability, so a model decision carries the fixed `LLM_CONFIDENCE`.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from app.errors import LLMError, ModelRequestsBlocked
from app.llm.base import LLM, Message
from app.tutor.intents import Intent, IntentClassifier, IntentResult, RuleIntentClassifier

LLM_CONFIDENCE = 0.9
"""Confidence reported for a model decision: the model gives a label, not a probability."""

SYSTEM_PROMPT = """\
You classify a learner's message to a tutor for an algorithms course into exactly one intent.
The message may be English or German, informal, with typos, pasted code or a pasted trace.

- direct: asks for a fact or a definition: what is X, define X, how many, which data structure, what complexity.
- conceptual: asks why or how something works, a comparison, when to use what, how two ideas relate.
- verification: the learner states their own answer, claim, trace or code and asks whether it is right
  (right?, correct?, can you check, true or not?, stimmt das?, oder?).
- debugging: the learner's own program or algorithm misbehaves: an error, a crash, a hang, or a wrong or
  suspicious output (a suboptimal path, the worst move, too many nodes, a value they know is wrong),
  with or without code and even without the word "error".
- tracing: asks to walk through a run of an algorithm step by step, show the states, or say what happens next.

Precedence: a stated claim followed by a request for confirmation is verification; an output the learner already
knows is wrong, or a report of what their own code does, is debugging.
Answer with the intent and a short reason (one sentence)."""


class IntentChoice(BaseModel):
    """The structured reply the model must give."""

    intent: Literal["direct", "conceptual", "verification", "debugging", "tracing"]
    reason: str = Field(max_length=300, description="one short sentence: why this intent")


def intent_messages(question: str) -> list[Message]:
    """The prompt: a stable system prefix (cacheable), then the question."""
    return [Message.system(SYSTEM_PROMPT), Message.user(question)]


class LLMIntentClassifier:
    """Classify with `llm.structured(...)`; fall back to `fallback` (the rules by default) on `LLMError`."""

    def __init__(self, llm: LLM, fallback: IntentClassifier | None = None) -> None:
        self._llm = llm
        self._fallback = fallback if fallback is not None else RuleIntentClassifier()

    def classify(self, question: str) -> IntentResult:
        try:
            reply = self._llm.structured(intent_messages(question), IntentChoice, temperature=0.0)
        except ModelRequestsBlocked:
            raise
        except LLMError as e:
            result = self._fallback.classify(question)
            return IntentResult(result.intent, result.confidence, result.matched, result.scores,
                                reason=f"rule fallback, the model failed: {e}")
        choice = reply.value
        return IntentResult(Intent(choice.intent), LLM_CONFIDENCE, ("llm",), {}, reason=choice.reason)
