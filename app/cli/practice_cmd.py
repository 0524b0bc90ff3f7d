"""`tutor practice` (an interactive guided session in grounded mode) and `tutor questions validate`."""

from __future__ import annotations

import uuid
from datetime import datetime, timezone
from pathlib import Path
from typing import Annotated

import typer

from app.cli.common import print_json, user_errors


def _now() -> datetime:
    return datetime.now(timezone.utc)


def register(app: typer.Typer, eval_app: typer.Typer) -> None:
    """Add `tutor practice` and the `tutor questions` group (`validate`)."""
    questions_app = typer.Typer(help="Question bank: check question files.", no_args_is_help=True)
    app.add_typer(questions_app, name="questions")

    @questions_app.command("validate")
    def validate_cmd(
        file: Annotated[Path, typer.Argument(help="Question file: JSON lines or CSV.")],
        course: Annotated[str, typer.Option("--course", help="Course for rows without one.")] = "default",
        as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
    ) -> None:
        """Check every record of a question file; exit 2 if any is invalid."""
        from app.practice.questions import check_questions

        with user_errors():
            report = check_questions(file, default_course=course)
        if as_json:
            print_json(report.to_dict())
        else:
            for err in report.errors:
                typer.echo(err, err=True)
            typer.echo(f"{len(report.questions)} valid question(s), {len(report.errors)} problem(s) in {file}")
        if not report.ok:
            raise typer.Exit(2)

    @app.command("practice")
    def practice_cmd(
        questions: Annotated[Path, typer.Option("--questions", help="Question file (JSON lines or CSV).")],
        ids: Annotated[str | None, typer.Option("--ids", help="Comma-separated question ids, in order.")] = None,
        material: Annotated[Path | None, typer.Option("--material", help="Text/Markdown of the material.")] = None,
        learner: Annotated[str, typer.Option("--learner", help="Learner name for the ratings.")] = "me",
        hash_embedder: Annotated[bool, typer.Option("--hash-embedder", hidden=True,
                                                    help="Use the hashing test embedder (tests only).")] = False,
        as_json: Annotated[bool, typer.Option("--json", help="Print the teacher view as JSON at the end.")] = False,
    ) -> None:
        """A guided session in the terminal, grounded mode: hints from the material, the offline grader.
        Type 'hint' for a hint, 'I give up' to see the answer, Ctrl-D to stop."""
        from app.grading.grader import OfflineGrader
        from app.practice.grounded import GroundedTutor
        from app.practice.questions import load_questions, select_questions
        from app.practice.session import GuidedSession
        from app.practice.store import InMemoryPracticeStore, teacher_view

        with user_errors():
            qs = load_questions(questions)
            chosen = select_questions(qs, [i.strip() for i in ids.split(",") if i.strip()] if ids else None)
            text = material.read_text(encoding="utf-8") if material else ""
            if hash_embedder:
                from indexing.embedder import HashEmbedder

                embedder = HashEmbedder()
            else:
                from app.cli.common import load_settings
                from indexing.embedder import load_embedder

                embedder = load_embedder(load_settings().embedder)
            store = InMemoryPracticeStore()
            course = chosen[0].course
            session = GuidedSession(session_id=uuid.uuid4().hex[:12], course=course, learner=learner,
                                    questions=chosen, material=text, store=store)
            tutor = GroundedTutor(session, OfflineGrader(embedder))
            turn = tutor.start(_now())
            typer.echo(turn.text)
            while not turn.finished:
                try:
                    message = typer.prompt("you", prompt_suffix="> ")
                except (EOFError, typer.Abort):
                    typer.echo("")
                    break
                turn = tutor.respond(message, _now())
                typer.echo(turn.text)
        rows = teacher_view(store, course)
        if as_json:
            print_json([r.model_dump(mode="json") for r in rows])
        else:
            typer.echo("\nRated questions:")
            for r in rows:
                typer.echo(f"  {r.question_id}: {r.score}/10 (quality {r.quality}), {r.hints_given} hint(s)"
                           f"{', resolved' if r.resolved else ''}")
