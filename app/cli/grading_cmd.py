"""`tutor eval grading --data FILE.csv [--json]`: the offline grader against human-scored answers."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Annotated

import typer

from app.errors import TutorError

# Above this many rows a progress bar goes to stderr.
PROGRESS_MIN_ROWS = 200


def _finite(x: float | None) -> float | None:
    return None if x is None or (isinstance(x, float) and math.isnan(x)) else x


def register(app: typer.Typer, eval_app: typer.Typer) -> None:
    """Add `eval grading` to the `tutor eval` group (`app` is unused: grading has no top-level command)."""

    @eval_app.command("grading")
    def eval_grading(
        data: Annotated[Path, typer.Option("--data", help="CSV: question,reference_answer,student_answer,score_avg")],
        as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object with metrics and rows.")] = False,
        embedder_name: Annotated[
            str | None, typer.Option("--embedder", help="Embedder name (default: the configured one).")
        ] = None,
    ) -> None:
        """Grade every answer offline and print Pearson r, RMSE and QWK against the human scores, next to the
        cosine-only baseline measured in the same run."""
        from app.grading.grader import OfflineGrader
        from app.settings import Settings
        from eval.grading import evaluate_grader, format_report, load_scored_csv
        from indexing.embedder import load_embedder

        try:
            rows = load_scored_csv(data)
            embedder = load_embedder(embedder_name or Settings().embedder)
            report = evaluate_grader(rows, OfflineGrader(embedder), progress=len(rows) >= PROGRESS_MIN_ROWS)
        except TutorError as e:
            typer.echo(str(e), err=True)
            raise typer.Exit(2) from None

        if as_json:
            d = report.to_dict()
            out = {
                "n": d["n"],
                "pearson": _finite(d["grader"]["pearson"]),
                "rmse": d["grader"]["rmse"],
                "qwk": _finite(d["grader"]["qwk"]),
                "baseline_cosine": (
                    {k: _finite(v) for k, v in d["baseline"].items()} if d["baseline"] is not None else None
                ),
                "mean_human": d["mean_human"],
                "mean_predicted": d["mean_predicted"],
                "rows": d["rows"],
            }
            typer.echo(json.dumps(out, ensure_ascii=False))
        else:
            typer.echo(format_report(report))
