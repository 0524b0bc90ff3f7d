"""`tutor eval intents`: accuracy and confusion matrix of the intent classifier (KITE §3.4.1), rules or `--llm`.

The rules use the labelled-examples fallback (issue #4; "linear" or "knn") under the configured embedder when no
rule fires, as the tutor does, unless `--no-examples` is given or the setting `intent_examples_fallback` is off; the
report says how many questions the fallback decided (`decided_by` in the JSON)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from app.cli.common import load_settings, print_json, user_errors
from app.errors import ConfigError

if TYPE_CHECKING:
    from app.llm import LLM
    from app.settings import Settings
    from app.tutor.intents import IntentClassifier, IntentResult

REPO_ROOT = Path(__file__).resolve().parents[2]
DEFAULT_INTENTS_DATA = REPO_ROOT / "data" / "intents" / "questions.jsonl"


def configured_llm() -> LLM:
    """The model from the settings; a `ConfigError` saying how to configure one when there is none."""
    from app.llm import llm_from_settings

    llm = llm_from_settings(load_settings())
    if llm is None:
        raise ConfigError(
            "--llm needs a configured model, but none is configured",
            hint="set TUTOR_LLM_BASE_URL and TUTOR_LLM_MODEL (and TUTOR_LLM_API_KEY if the server needs one), "
            "or try it without a key against `tutor mock-llm`",
        )
    return llm


class RecordingClassifier:
    """Passes questions on to `inner` and keeps each result, so the report can say which path decided."""

    def __init__(self, inner: IntentClassifier) -> None:
        self.inner = inner
        self.results: list[IntentResult] = []

    def classify(self, question: str) -> IntentResult:
        result = self.inner.classify(question)
        self.results.append(result)
        return result


def rule_classifier(settings: Settings, use_examples: bool) -> tuple[IntentClassifier, str]:
    """The rules, with the examples fallback under the configured embedder when asked and enabled; and its label."""
    from app.tutor.intents import RuleIntentClassifier
    from app.tutor.service import classifier_from_settings, examples_fallback_enabled, examples_method
    from indexing.embedder import load_embedder

    if not (use_examples and examples_fallback_enabled(settings)):
        return RuleIntentClassifier(), "rules"
    return classifier_from_settings(settings, load_embedder(settings.embedder)), f"rules+{examples_method(settings)}"


def register(app: typer.Typer, eval_app: typer.Typer) -> None:
    @eval_app.command("intents")
    def eval_intents(
        data: Annotated[
            Path,
            typer.Option(
                "--data",
                help="JSON-lines file of {\"question\", \"intent\"} rows. Default: data/intents/questions.jsonl in "
                "the repository (the development set); data/intents/heldout.jsonl is the held-out set.",
                show_default=False,
            ),
        ] = DEFAULT_INTENTS_DATA,
        as_json: Annotated[
            bool, typer.Option("--json", help="Print one JSON object: accuracy, per_intent, confusion, predictions.")
        ] = False,
        use_llm: Annotated[
            bool,
            typer.Option("--llm", help="Classify with the configured model (TUTOR_LLM_*) instead of the rules; "
                         "questions the model fails on fall back to the rules."),
        ] = False,
        use_examples: Annotated[
            bool,
            typer.Option("--examples/--no-examples",
                         help="When no rule fires, let the labelled examples decide (the tutor's default)."),
        ] = True,
    ) -> None:
        """Classify every labelled question and compare with the gold intents."""
        from app.tutor.intent_examples import SOURCE
        from app.tutor.intents_llm import LLMIntentClassifier
        from eval.intents import evaluate_intents, format_report, load_labelled

        with user_errors():
            settings = load_settings()
            rows = load_labelled(data)
            llm = configured_llm() if use_llm else None
            rules, label = rule_classifier(settings, use_examples)
            inner: IntentClassifier = LLMIntentClassifier(llm, fallback=rules) if llm is not None else rules
            name = "llm" if use_llm else label
            classifier = RecordingClassifier(inner)
            report = evaluate_intents(rows, classifier)
        decided = [SOURCE if SOURCE in r.matched else ("llm" if "llm" in r.matched else "rules")
                   for r in classifier.results]
        if as_json:
            out = report.to_dict()
            out["classifier"] = name
            out["rules"] = label
            out["decided_by"] = decided
            out["decided_by_examples"] = decided.count(SOURCE)
            print_json(out)
        else:
            typer.echo(f"data: {data}")
            typer.echo(f"classifier: {name}" + (f" (fallback {label})" if use_llm else ""))
            if label != "rules":
                typer.echo(f"decided by the examples fallback (no rule fired): {decided.count(SOURCE)}")
            typer.echo(format_report(report))
