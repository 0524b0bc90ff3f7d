"""RAGAs evaluation of the tutor's answers (KITE RQ1: faithfulness 0.85, context relevance 0.94 in the paper).

For each question the tutor answers as it would a learner; we keep the answer, the passages it was given (the
retrieved contexts) and, when the data line has them, the reference answer and gold pages. Then ragas 0.4 scores:

    always (no model, no network)
      non_llm_context_precision   ragas NonLLMContextPrecisionWithReference: retrieved vs reference contexts by
      non_llm_context_recall      ragas NonLLMContextRecall               string similarity (Levenshtein, 0.5)
      string_similarity           ragas NonLLMStringSimilarity: answer vs reference (1 - normalised Levenshtein)
      rouge_l                     ragas RougeScore (ROUGE-L F1): answer vs reference
    with a judge (any OpenAI-compatible endpoint, given to ragas as an AsyncOpenAI client)
      faithfulness, answer_relevancy (needs embeddings: the local MiniLM), context_precision (LLM, with
      reference), context_recall (LLM), context_relevance (KITE's "context relevance")

Reference contexts come from the line's "reference_contexts", else from the course's chunks on the gold pages.
Metrics that need a reference are *not applicable* (null) for lines without one. A metric that ran but gave no
number (the judge's output did not validate, a NaN from ragas) is *undetermined*: stored as NaN in the transcript,
counted per metric in the metrics, and left out of the mean — never silently dropped.

The LLM metrics come from `ragas.metrics.collections` (ragas' current API). The two non-LLM context metrics exist
only in the older `ragas.metrics` module in 0.4; they are used through the same one function below.
"""

from __future__ import annotations

import asyncio
import math
import os
import sys
import warnings
from collections.abc import Callable, Iterable
from typing import Any

from tqdm import tqdm

from eval.harness import RecordingRetriever, turn_record
from eval.problems import RagasQuestion

NON_LLM_METRICS = ("non_llm_context_precision", "non_llm_context_recall", "string_similarity", "rouge_l")
LLM_METRICS = ("faithfulness", "answer_relevancy", "context_precision", "context_recall", "context_relevance")
NEEDS_REFERENCE = {"string_similarity", "rouge_l", "context_precision", "context_recall"}
NEEDS_REFERENCE_CONTEXTS = {"non_llm_context_precision", "non_llm_context_recall"}


def telemetry_off() -> None:
    """ragas sends usage analytics unless told not to (it reads the variable at call time)."""
    os.environ["RAGAS_DO_NOT_TRACK"] = "true"


class MiniLMEmbeddings:
    """The local embedder as ragas' modern embedding interface (for answer relevancy)."""

    def __new__(cls, embedder):  # noqa: ANN001, ANN204 - subclassing lazily keeps ragas out of import time
        from ragas.embeddings.base import BaseRagasEmbedding

        class _Embeddings(BaseRagasEmbedding):
            def __init__(self, inner) -> None:  # noqa: ANN001
                super().__init__()
                self.inner = inner

            def embed_text(self, text: str, **kwargs: Any) -> list[float]:
                return [float(x) for x in self.inner.embed([text])[0]]

            async def aembed_text(self, text: str, **kwargs: Any) -> list[float]:
                return self.embed_text(text)

            def embed_texts(self, texts: list[str], **kwargs: Any) -> list[list[float]]:
                return [[float(x) for x in row] for row in self.inner.embed(list(texts))]

            async def aembed_texts(self, texts: list[str], **kwargs: Any) -> list[list[float]]:
                return self.embed_texts(texts)

        return _Embeddings(embedder)


class Judge:
    """An OpenAI-compatible model given to ragas: `llm_factory(model, client=AsyncOpenAI(base_url=...))`."""

    def __init__(self, model: str, base_url: str, api_key: str | None = None, *, embedder=None,  # noqa: ANN001
                 timeout: float = 60.0) -> None:
        from openai import AsyncOpenAI
        from ragas.llms import llm_factory

        from app.llm import guard

        guard.check_model_requests_allowed(base_url)  # tests opt in for the local mock server, as for the tutor
        telemetry_off()
        self.model = model
        self.base_url = base_url
        self.client = AsyncOpenAI(base_url=base_url, api_key=api_key or "not-needed", timeout=timeout, max_retries=1)
        self.llm = llm_factory(model, client=self.client, temperature=0.0)
        self.embeddings = MiniLMEmbeddings(embedder) if embedder is not None else None


def _nan_if_bad(x: Any) -> float:
    try:
        v = float(x)
    except (TypeError, ValueError):
        return math.nan
    return v if math.isfinite(v) else math.nan


def _metric_objects(names: Iterable[str], judge: Judge | None) -> dict[str, Any]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        from ragas.metrics import NonLLMContextPrecisionWithReference, NonLLMContextRecall
    from ragas.metrics.collections import (
        AnswerRelevancy,
        ContextPrecisionWithReference,
        ContextRecall,
        ContextRelevance,
        Faithfulness,
        NonLLMStringSimilarity,
        RougeScore,
    )

    out: dict[str, Any] = {}
    for name in names:
        if name == "non_llm_context_precision":
            out[name] = NonLLMContextPrecisionWithReference()
        elif name == "non_llm_context_recall":
            out[name] = NonLLMContextRecall()
        elif name == "string_similarity":
            out[name] = NonLLMStringSimilarity()
        elif name == "rouge_l":
            out[name] = RougeScore(rouge_type="rougeL", mode="fmeasure")
        elif judge is None:
            continue
        elif name == "faithfulness":
            out[name] = Faithfulness(llm=judge.llm)
        elif name == "answer_relevancy":
            if judge.embeddings is None:
                continue
            out[name] = AnswerRelevancy(llm=judge.llm, embeddings=judge.embeddings)
        elif name == "context_precision":
            out[name] = ContextPrecisionWithReference(llm=judge.llm)
        elif name == "context_recall":
            out[name] = ContextRecall(llm=judge.llm)
        elif name == "context_relevance":
            out[name] = ContextRelevance(llm=judge.llm)
    return out


async def _score_one(name: str, metric: Any, s: dict[str, Any]) -> float:
    from ragas.dataset_schema import SingleTurnSample

    if name in ("non_llm_context_precision", "non_llm_context_recall"):
        sample = SingleTurnSample(retrieved_contexts=s["contexts"], reference_contexts=s["reference_contexts"])
        return _nan_if_bad(await metric.single_turn_ascore(sample))
    kwargs: dict[str, Any]
    if name in ("string_similarity", "rouge_l"):
        kwargs = {"reference": s["reference"], "response": s["answer"]}
    elif name == "faithfulness":
        kwargs = {"user_input": s["question"], "response": s["answer"], "retrieved_contexts": s["contexts"]}
    elif name == "answer_relevancy":
        kwargs = {"user_input": s["question"], "response": s["answer"]}
    elif name == "context_precision":
        kwargs = {"user_input": s["question"], "reference": s["reference"], "retrieved_contexts": s["contexts"]}
    elif name == "context_recall":
        kwargs = {"user_input": s["question"], "retrieved_contexts": s["contexts"], "reference": s["reference"]}
    else:  # context_relevance
        kwargs = {"user_input": s["question"], "retrieved_contexts": s["contexts"]}
    result = await metric.ascore(**kwargs)
    return _nan_if_bad(getattr(result, "value", result))


def applicable(name: str, sample: dict[str, Any]) -> bool:
    if name in NEEDS_REFERENCE and not sample.get("reference"):
        return False
    if name in NEEDS_REFERENCE_CONTEXTS and not sample.get("reference_contexts"):
        return False
    if not sample.get("contexts") and name not in ("string_similarity", "rouge_l", "answer_relevancy"):
        return False
    return True


def score_sample(
    sample: dict[str, Any], metrics: dict[str, Any], loop: asyncio.AbstractEventLoop | None = None
) -> tuple[dict[str, float | None], dict[str, str]]:
    """Scores of one sample: a number, NaN (ran, undetermined) or None (not applicable); and why each NaN.

    Pass one `loop` for a whole run: the judge's async HTTP client keeps connections bound to the loop it first
    ran on, and a fresh loop per sample would break them."""
    scores: dict[str, float | None] = {}
    errors: dict[str, str] = {}

    async def run() -> None:
        for name, metric in metrics.items():
            if not applicable(name, sample):
                scores[name] = None
                continue
            try:
                scores[name] = await _score_one(name, metric, sample)
            except Exception as e:  # noqa: BLE001 - any judge failure makes the score undetermined, not the run fail
                scores[name] = math.nan
                errors[name] = f"{type(e).__name__}: {str(e).splitlines()[0][:200] if str(e) else ''}"

    telemetry_off()
    if loop is None:
        asyncio.run(run())
    else:
        loop.run_until_complete(run())
    return scores, errors


def collect_sample(tutor, question: RagasQuestion,  # noqa: ANN001 - a TutorService on a RecordingRetriever
                   reference_contexts: Callable[[str | None, tuple[int, ...]], list[str]] | None) -> dict[str, Any]:
    """Run the tutor on one question and gather what ragas needs."""
    reply = tutor.answer(question.question)
    record = turn_record(reply, tutor.retriever.passages(reply.retrieved))
    refs = list(question.reference_contexts)
    if not refs and question.pages and reference_contexts is not None:
        refs = reference_contexts(question.source, question.pages)
    return {
        "id": question.id, "question": question.question, "intent_label": question.intent,
        "answer": reply.reply, "contexts": [p["text"] for p in record["passages"]],
        "reference": question.reference, "reference_contexts": refs,
        "gold": {"source": question.source, "pages": list(question.pages)}, "tutor": record,
    }


def run_ragas(
    questions: Iterable[RagasQuestion],
    tutor,  # noqa: ANN001
    run,  # noqa: ANN001 - eval.runs.RunDir
    *,
    judge: Judge | None = None,
    metric_names: Iterable[str] | None = None,
    reference_contexts: Callable[[str | None, tuple[int, ...]], list[str]] | None = None,
    progress: bool = True,
) -> dict[str, Any]:
    """Answer and score every question not yet in the run's transcripts (resume); write and return the metrics."""
    if not isinstance(tutor.retriever, RecordingRetriever):
        tutor.retriever = RecordingRetriever(tutor.retriever)
    names = list(metric_names or (NON_LLM_METRICS + (LLM_METRICS if judge is not None else ())))
    metrics = _metric_objects(names, judge)
    done = run.done_ids()
    todo = [q for q in questions if q.id not in done]
    loop = asyncio.new_event_loop()
    try:
        for q in tqdm(todo, desc="ragas", unit="question", file=sys.stderr, disable=not progress):
            sample = collect_sample(tutor, q, reference_contexts)
            sample["scores"], sample["errors"] = score_sample(sample, metrics, loop)
            run.append_transcript(sample)
    finally:
        loop.close()
    result = ragas_metrics(run.transcripts(), list(metrics))
    run.write_metrics(result)
    return result


def ragas_metrics(transcripts: list[dict[str, Any]], names: list[str] | None = None) -> dict[str, Any]:
    """Per metric: mean over determined scores, and how many were determined, undetermined (NaN), not applicable."""
    items = sorted(transcripts, key=lambda t: t["id"])
    if names is None:
        names = sorted({k for t in items for k in t["scores"]}, key=lambda n: (NON_LLM_METRICS + LLM_METRICS).index(n)
                       if n in NON_LLM_METRICS + LLM_METRICS else 99)
    per_metric: dict[str, Any] = {}
    for name in names:
        vals = [t["scores"].get(name, None) for t in items]
        determined = [float(v) for v in vals if v is not None and not math.isnan(float(v))]
        per_metric[name] = {
            "mean": round(sum(determined) / len(determined), 4) if determined else None,
            "determined": len(determined),
            "undetermined": sum(1 for v in vals if v is not None and math.isnan(float(v))),
            "not_applicable": sum(1 for v in vals if v is None),
        }
    intents: dict[str, int] = {}
    for t in items:
        intents[t["tutor"]["intent"]] = intents.get(t["tutor"]["intent"], 0) + 1
    return {"kind": "ragas", "n": len(items), "metrics": per_metric, "tutor_intents": dict(sorted(intents.items()))}
