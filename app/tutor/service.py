"""The tutor: classify → retrieve → help level → strategy → reply (KITE §3.4), in grounded or LLM mode.

`TutorService` implements the `Tutor` protocol. It is built once per course with its parts passed in (retriever,
classifier, model, embedder); nothing is loaded at import time.

    grounded mode   no model: `grounded.compose` quotes course sentences with citations inside per-intent templates
    LLM mode        a model: `prompts.build_messages` (stable prefix first) and `llm_mode.answer` (structured)

Without a classifier passed in, the service classifies with the rules and, when no rule fires, with the labelled
examples under its embedder (`classifier_from_settings`; issue #4): a linear model on their embeddings by default,
the nearest-examples vote with `intent_examples_method = "knn"`; `intent_examples_fallback = False` switches it off.

When the model fails (`LLMError`: unreachable, invalid output after the retry, blocked in tests) the service answers
in grounded mode and the reply says so in its first line.

An explicit plea for more help ("still stuck") keeps the previous problem's intent and retrieves for the previous
question together with the new message, since "I don't get it" alone retrieves nothing useful.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from dataclasses import dataclass

from app.errors import LLMError, UserError
from app.llm.base import LLM, Usage
from app.retrieval.types import Hit, Retriever
from app.settings import Settings
from app.tutor import grounded, llm_mode
from app.tutor.help_level import HelpDecision, decide_help_level
from app.tutor.intent_examples import examples_fallback
from app.tutor.intents import Intent, IntentClassifier, RuleIntentClassifier
from app.tutor.language import Language, detect_language
from app.tutor.prompts import build_messages
from app.tutor.strategies import LLM_FALLBACK
from app.tutor.types import Turn, TutorReply
from indexing.embedder import Embedder

log = logging.getLogger(__name__)

TOP_K = 8  # KITE §3.3: the generator sees the top eight chunks


def examples_fallback_enabled(settings: Settings | None) -> bool:
    """Whether the examples fallback is on (`TUTOR_INTENT_EXAMPLES_FALLBACK`)."""
    return bool(settings.intent_examples_fallback) if settings is not None else True


DEFAULT_EXAMPLES_METHOD = "linear"
"""The linear model, not the vote: on the questions no rule fires on in sets the rules were not tuned on, it gets 27
of 34 right against the vote's 19, moving as few `direct` ones (1); see `app.tutor.intent_examples`."""


def examples_method(settings: Settings | None) -> str:
    """"linear" or "knn" (`TUTOR_INTENT_EXAMPLES_METHOD`)."""
    return settings.intent_examples_method if settings is not None else DEFAULT_EXAMPLES_METHOD


def classifier_from_settings(
    settings: Settings | None, embedder: Embedder | None, *, cache: bool = True
) -> RuleIntentClassifier:
    """The rules, with the labelled-examples fallback under `embedder` when it is enabled and there is an embedder.

    The example matrix is cached under `<data_dir>/cache` when `settings` are given, `cache` is true and the data
    dir exists; otherwise nothing is written (a cache alone never creates a data dir, e.g. `var/` in the cwd).
    Example sets that cannot be read (an install without the repository's `data/`) leave the rules alone, with a
    warning: the tutor still answers."""
    if embedder is None or not examples_fallback_enabled(settings):
        return RuleIntentClassifier()
    use_cache = cache and settings is not None and settings.data_dir.is_dir()
    cache_dir = settings.data_dir / "cache" if use_cache and settings is not None else None
    try:
        fallback = examples_fallback(embedder, cache_dir=cache_dir, method=examples_method(settings))
    except UserError as e:
        log.warning("intent examples unavailable, classifying with the rules alone: %s", e)
        return RuleIntentClassifier()
    return RuleIntentClassifier(fallback=fallback)


@dataclass(frozen=True)
class Plan:
    """Everything decided before the reply is written."""

    question: str
    intent: Intent
    decision: HelpDecision
    query: str  # what was retrieved for
    hits: list[Hit]
    lang: Language


class ReplyStream(Iterator[str]):
    """Text pieces of a reply as they are produced; `reply` holds the final `TutorReply` once exhausted."""

    def __init__(self, pieces: Iterator[str | TutorReply]) -> None:
        self._pieces = pieces
        self.reply: TutorReply | None = None

    def __iter__(self) -> ReplyStream:
        return self

    def __next__(self) -> str:
        for piece in self._pieces:
            if isinstance(piece, TutorReply):
                self.reply = piece
                continue
            return piece
        raise StopIteration


class TutorService:
    """Answers learners' questions about one course (see the module docstring)."""

    def __init__(
        self,
        retriever: Retriever,
        *,
        classifier: IntentClassifier | None = None,
        llm: LLM | None = None,
        embedder: Embedder | None = None,
        settings: Settings | None = None,
        min_confidence: float | None = None,
    ) -> None:
        self.retriever = retriever
        self.classifier = classifier or classifier_from_settings(
            settings, embedder if embedder is not None else getattr(retriever, "embedder", None)
        )
        self.llm = llm
        self.embedder = embedder
        self.settings = settings or Settings()
        configured = getattr(self.settings, "tutor_min_confidence", None)
        self.min_confidence = (
            min_confidence if min_confidence is not None
            else configured if configured is not None
            else grounded.DEFAULT_MIN_CONFIDENCE
        )
        self.top_k = getattr(self.settings, "final_k", TOP_K) or TOP_K

    # -- the steps ------------------------------------------------------------------------------------------------

    def plan(self, question: str, history: list[Turn] | None = None) -> Plan:
        """Classify, decide the help level, retrieve."""
        history = list(history or [])
        intent = self.classifier.classify(question).intent
        decision = decide_help_level(history, question, intent)
        query = question
        if decision.reason == "explicit follow-up":
            if decision.previous_intent:
                intent = Intent(decision.previous_intent)
            if decision.previous_question and decision.previous_question != question:
                query = f"{decision.previous_question}\n{question}"
        hits = list(self.retriever.search(query, k=self.top_k).hits)
        return Plan(question, intent, decision, query, hits, detect_language(question))

    def _grounded(self, plan: Plan, *, fallback: bool = False) -> TutorReply:
        g = grounded.compose(
            plan.query,
            plan.intent,
            plan.decision.level,
            plan.hits,
            lang=plan.lang,
            embedder=self.embedder,
            min_confidence=self.min_confidence,
            prefix_lines=[LLM_FALLBACK[plan.lang]] if fallback else (),
        )
        return self._reply(plan, g.reply, g.citations, g.grounding, "grounded", Usage())

    def _reply(self, plan: Plan, text: str, citations, grounding, mode, usage: Usage) -> TutorReply:  # noqa: ANN001
        return TutorReply(
            intent=plan.intent.value,
            reply=text,
            citations=list(citations),
            grounding=grounding,
            help_level=plan.decision.level,
            mode=mode,
            usage=usage,
            retrieved=[h.chunk.id for h in plan.hits],
        )

    # -- the Tutor protocol -----------------------------------------------------------------------------------------

    def answer(self, question: str, *, history: list[Turn] | None = None) -> TutorReply:
        plan = self.plan(question, history)
        if self.llm is None:
            return self._grounded(plan)
        messages = build_messages(
            plan.intent, question, plan.hits, help_level=plan.decision.level, history=history or []
        )
        try:
            ans = llm_mode.answer(self.llm, messages, plan.hits, plan.lang)
        except LLMError as e:
            log.warning("model failed, answering in grounded mode: %s", e)
            return self._grounded(plan, fallback=True)
        return self._reply(plan, ans.reply, ans.citations, ans.grounding, "llm", ans.usage)

    def stream(self, question: str, history: list[Turn] | None = None) -> ReplyStream:
        """The reply in text pieces (model deltas in LLM mode, lines in grounded mode); `.reply` at the end."""
        return ReplyStream(self._stream(question, list(history or [])))

    def _stream(self, question: str, history: list[Turn]) -> Iterator[str | TutorReply]:
        plan = self.plan(question, history)
        if self.llm is not None:
            messages = build_messages(
                plan.intent, question, plan.hits, help_level=plan.decision.level, history=history, streaming=True
            )
            started = False
            try:
                for piece in llm_mode.stream_answer(self.llm, messages, plan.hits, plan.lang):
                    if isinstance(piece, llm_mode.LLMAnswer):
                        yield self._reply(plan, piece.reply, piece.citations, piece.grounding, "llm", piece.usage)
                        return
                    started = True
                    yield piece
            except LLMError as e:
                log.warning("model failed while streaming, answering in grounded mode: %s", e)
                if started:
                    yield "\n\n"
            reply = self._grounded(plan, fallback=True)
        else:
            reply = self._grounded(plan)
        lines = reply.reply.split("\n")
        for i, line in enumerate(lines):
            yield line + ("\n" if i < len(lines) - 1 else "")
        yield reply
