"""`tutor questions import|list` (the question bank in the service database) and `tutor ratings` (the teacher
view). Wire with `register(app, eval_app)` after `practice_cmd.register`: it adds `import` and `list` to the
`tutor questions` group made there (`register_questions(questions_app)` does just that) and `tutor ratings`.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Annotated

import typer

from app.cli.common import load_settings, print_json, user_errors


def db_session(settings):
    """A session on the configured database, migrated to the head revision first."""
    from app.store.db import make_engine, session_factory, upgrade

    url = settings.sqlalchemy_url()
    upgrade(url)
    return session_factory(make_engine(url))()


def course_row(db, settings, course: str):
    """The course's row; created for a course that so far exists only on disk; UserError for an unknown course."""
    from app.errors import NotFoundError
    from app.store import repo
    from app.store.models import Course
    from indexing import store as index_store

    row = db.get(Course, course)
    if row is not None:
        return row
    if index_store.course_exists(settings.data_dir, course):
        return repo.ensure_course(db, course, title=None, now=datetime.now(UTC))
    raise NotFoundError(f"unknown course {course!r}", hint="create it with `tutor courses create` or the API")


def register_questions(questions_app: typer.Typer) -> None:
    """Add `import` and `list` to the `tutor questions` group."""

    @questions_app.command("import")
    def import_cmd(
        file: Annotated[Path, typer.Argument(help="Question file: JSON lines or CSV (`tutor questions validate`).")],
        course: Annotated[str, typer.Option("--course", help="The course whose bank receives the questions.")],
        as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
    ) -> None:
        """Validate a question file and store its questions in the course's bank (same id = replaced)."""
        from app.practice.questions import load_questions
        from app.store import practice_repo

        settings = load_settings()
        with user_errors(), db_session(settings) as db:
            row = course_row(db, settings, course)
            questions = [q.model_copy(update={"course": row.id}) for q in load_questions(file, default_course=row.id)]
            n = practice_repo.put_questions(db, row.id, questions, now=datetime.now(UTC), origin="teacher")
            db.commit()
        if as_json:
            print_json({"course": course, "imported": n, "ids": [q.id for q in questions]})
        else:
            typer.echo(f"imported {n} question(s) into course {course}")

    @questions_app.command("list")
    def list_cmd(
        course: Annotated[str, typer.Option("--course", help="Course id.")],
        as_json: Annotated[bool, typer.Option("--json", help="Print a JSON list.")] = False,
    ) -> None:
        """The course's question bank, in order (teacher-authored and generated)."""
        from app.store import practice_repo

        settings = load_settings()
        with user_errors(), db_session(settings) as db:
            row = course_row(db, settings, course)
            rows = practice_repo.question_rows(db, row.id)
            items = [{"id": r.qid, "origin": r.origin, "question": r.question, "reference_answer": r.reference_answer,
                      "section": r.section, "pages": [r.page_start, r.page_end] if r.page_start else None}
                     for r in rows]
        if as_json:
            print_json(items)
            return
        for it in items:
            typer.echo(f"{it['id']}\t{it['origin']}\t{it['question']}")
        typer.echo(f"{len(items)} question(s)", err=True)


def register(app: typer.Typer, eval_app: typer.Typer) -> None:
    """`tutor ratings`, and `import`/`list` in the `tutor questions` group (created here if it does not exist)."""
    group = next((g.typer_instance for g in app.registered_groups if g.name == "questions"), None)
    if group is None:
        group = typer.Typer(help="Question bank.", no_args_is_help=True)
        app.add_typer(group, name="questions")
    register_questions(group)

    @app.command("ratings")
    def ratings_cmd(
        course: Annotated[str, typer.Option("--course", help="Course id.")],
        learner: Annotated[str | None, typer.Option("--learner", help="Only this learner's ratings.")] = None,
        as_json: Annotated[bool, typer.Option("--json", help="Print a JSON list.")] = False,
    ) -> None:
        """The teacher view: each rated question with score, hints given (with texts), reasoning and time."""
        from app.api.routes.practice import teacher_rows

        settings = load_settings()
        with user_errors(), db_session(settings) as db:
            row = course_row(db, settings, course)
            rows = teacher_rows(db, row.id, learner)
        if as_json:
            print_json([r.model_dump(mode="json") for r in rows])
            return
        for r in rows:
            took = f", {r.time_seconds:g} s" if r.time_seconds is not None else ""
            typer.echo(f"{r.rated_at:%Y-%m-%d %H:%M} {r.learner} {r.question_id}: {r.score}/10 (quality {r.quality}),"
                       f" {r.hints_given} hint(s){', resolved' if r.resolved else ''}{took}")
            for h in r.hints:
                typer.echo(f"    hint {h['level']}: {h['text']}")
            typer.echo(f"    reasoning: {r.reasoning}")
        typer.echo(f"{len(rows)} rating(s)", err=True)
