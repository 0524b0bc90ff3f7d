"""The `tutor` command: one Typer app assembled from the command modules in `app/cli/`."""

from __future__ import annotations

import os

import typer

from app.cli import (
    demo_cmd,
    eval_cmd,
    grading_cmd,
    ingest,
    intents_cmd,
    learn_cmd,
    mock_llm,
    practice_cmd,
    questions_cmd,
    search_cmd,
    serve_cmd,
    srs,
    tutor_cmd,
)


def build_app() -> typer.Typer:
    app = typer.Typer(
        help="socratic-tutor: a retrieval-augmented Socratic tutor for course PDFs.",
        no_args_is_help=True,
        pretty_exceptions_enable=False,
    )
    eval_app = typer.Typer(help="Evaluations: retrieval, intents, grading, RAGAs, simulated students.", no_args_is_help=True)
    app.add_typer(eval_app, name="eval")
    modules = (
        ingest, search_cmd, tutor_cmd, intents_cmd, grading_cmd, mock_llm, srs, practice_cmd, questions_cmd,
        learn_cmd, serve_cmd, demo_cmd, eval_cmd,
    )
    for module in modules:
        module.register(app, eval_app)
    serve_cmd.register_courses(ingest.courses_app(app))
    return app


def main() -> None:
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    build_app()()


if __name__ == "__main__":
    main()
