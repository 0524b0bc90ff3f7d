"""`tutor eval intents`: accuracy and confusion matrix of the rule-based intent classifier (KITE §3.4.1)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from app.cli.common import print_json, user_errors

REPO_ROOT = Path(__file__).resolve().parents[2]
DEFAULT_INTENTS_DATA = REPO_ROOT / "data" / "intents" / "questions.jsonl"


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
    ) -> None:
        """Classify every labelled question with the rule classifier and compare with the gold intents."""
        from app.tutor.intents import RuleIntentClassifier
        from eval.intents import evaluate_intents, format_report, load_labelled

        with user_errors():
            rows = load_labelled(data)
            report = evaluate_intents(rows, RuleIntentClassifier())
        if as_json:
            print_json(report.to_dict())
        else:
            typer.echo(f"data: {data}")
            typer.echo(format_report(report))
