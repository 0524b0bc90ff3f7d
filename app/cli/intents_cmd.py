"""`tutor eval intents`: accuracy and confusion matrix of the intent classifier (KITE §3.4.1), rules or `--llm`."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from app.cli.common import load_settings, print_json, user_errors
from app.errors import ConfigError

if TYPE_CHECKING:
    from app.llm import LLM

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
    ) -> None:
        """Classify every labelled question and compare with the gold intents."""
        from app.tutor.intents import IntentClassifier, RuleIntentClassifier
        from app.tutor.intents_llm import LLMIntentClassifier
        from eval.intents import evaluate_intents, format_report, load_labelled

        with user_errors():
            rows = load_labelled(data)
            classifier: IntentClassifier = LLMIntentClassifier(configured_llm()) if use_llm else RuleIntentClassifier()
            report = evaluate_intents(rows, classifier)
        if as_json:
            out = report.to_dict()
            out["classifier"] = "llm" if use_llm else "rules"
            print_json(out)
        else:
            typer.echo(f"data: {data}")
            typer.echo(f"classifier: {'llm' if use_llm else 'rules'}")
            typer.echo(format_report(report))
