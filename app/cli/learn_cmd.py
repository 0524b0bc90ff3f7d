"""`tutor learn next` and `tutor learn progress` (with `--report DIR`: a PNG chart and a Markdown file), read from
the service database. Wire with `register(app, eval_app)`.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Annotated

import typer

from app.cli.common import load_settings, print_json, user_errors
from app.cli.questions_cmd import course_row, db_session

STATUS_ORDER = ("new", "learning", "review", "mastered")


def _at(value: str | None) -> datetime:
    """`--at` as an aware datetime (UTC when no offset is given), or now."""
    if value is None:
        return datetime.now(UTC)
    from app.errors import UserError

    try:
        when = datetime.fromisoformat(value)
    except ValueError:
        raise UserError(f"--at {value!r} is not an ISO date or time", hint="e.g. 2026-03-02T08:00") from None
    return when if when.tzinfo else when.replace(tzinfo=UTC)


def _learner_state(db, course: str, learner: str):
    from app.learning.scheduler import get_scheduler
    from app.store import learning_repo, repo

    user = repo.user_by_name(db, learner)
    name = learning_repo.scheduler_name(db, course)
    rows = learning_repo.bite_rows(db, course)
    bites = [learning_repo.bite_of(r) for r in rows]
    return user, name, rows, bites, learning_repo.states(db, user, course, get_scheduler(name))


def write_report(directory: Path, course: str, learner: str, counts: dict, scheduler: str, now: datetime) -> list[Path]:
    """`progress-<course>-<learner>.png` (a bar chart of the status counts) and `.md` (the table and the chart)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    directory.mkdir(parents=True, exist_ok=True)
    stem = f"progress-{course}-{learner}"
    png, md = directory / f"{stem}.png", directory / f"{stem}.md"
    labels = [*STATUS_ORDER, "due today"]
    values = [counts["new"], counts["learning"], counts["review"], counts["mastered"], counts["due_today"]]
    fig, ax = plt.subplots(figsize=(6, 3.2), dpi=100)
    bars = ax.bar(labels, values, color=["#9e9e9e", "#ef6c00", "#1e88e5", "#43a047", "#8e24aa"])
    ax.bar_label(bars)
    ax.set_ylabel("bites")
    ax.set_title(f"{learner} in {course}: {counts['total']} bites ({scheduler})")
    ax.set_ylim(0, max(values + [1]) * 1.2)
    fig.tight_layout()
    fig.savefig(png)
    plt.close(fig)
    rows = "\n".join(f"| {label} | {v} |" for label, v in zip(labels, values))
    md.write_text(
        f"# Progress of {learner} in {course}\n\nAs of {now:%Y-%m-%d %H:%M} UTC, scheduler {scheduler}, "
        f"{counts['total']} bites.\n\n| status | bites |\n|---|---|\n{rows}\n\n![status counts]({png.name})\n",
        encoding="utf-8",
    )
    return [png, md]


def register(app: typer.Typer, eval_app: typer.Typer) -> None:
    learn_app = typer.Typer(help="The learning engine: what comes next, progress.", no_args_is_help=True)
    app.add_typer(learn_app, name="learn")

    @learn_app.command("next")
    def next_cmd(
        course: Annotated[str, typer.Option("--course", help="Course id.")],
        learner: Annotated[str, typer.Option("--learner", help="Learner name.")],
        new: Annotated[int, typer.Option("--new", help="How many new bites to list after the due reviews.")] = 1,
        at: Annotated[str | None, typer.Option("--at", help="Evaluate at this ISO time (default: now).")] = None,
        as_json: Annotated[bool, typer.Option("--json", help="Print a JSON list.")] = False,
    ) -> None:
        """Due reviews (most overdue first), then the next new bites whose prerequisites are started."""
        from app.learning.next_item import next_items

        settings = load_settings()
        with user_errors(), db_session(settings) as db:
            now = _at(at)
            row = course_row(db, settings, course)
            _user, _name, rows, bites, states = _learner_state(db, row.id, learner)
            titles = {r.number: r.title for r in rows}
            items = [{"bite": i.bite_id, "title": titles[i.bite_id], "kind": i.kind,
                      "due": i.due.isoformat() if i.due else None,
                      "overdue_days": round(i.overdue.total_seconds() / 86400, 4) if i.overdue is not None else None}
                     for i in next_items(bites, states, now, new_limit=max(0, new))]
        if as_json:
            print_json(items)
            return
        if not items:
            typer.echo("nothing due and no new bite available")
        for it in items:
            extra = f" (overdue {it['overdue_days']:.1f} days)" if it["kind"] == "review" else ""
            typer.echo(f"{it['kind']:6} bite {it['bite']}: {it['title']}{extra}")

    @learn_app.command("progress")
    def progress_cmd(
        course: Annotated[str, typer.Option("--course", help="Course id.")],
        learner: Annotated[str, typer.Option("--learner", help="Learner name.")],
        as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
        report: Annotated[Path | None, typer.Option("--report", help="Write a PNG chart and a Markdown file here.")]
        = None,
        at: Annotated[str | None, typer.Option("--at", help="Evaluate at this ISO time (default: now).")] = None,
    ) -> None:
        """New, learning, review and mastered bites and how many are due today."""
        from app.learning.progress import progress

        settings = load_settings()
        with user_errors(), db_session(settings) as db:
            now = _at(at)
            row = course_row(db, settings, course)
            _user, name, _rows, bites, states = _learner_state(db, row.id, learner)
            counts = progress(bites, states, now).to_dict()
        out = {"course": course, "learner": learner, "scheduler": name, **counts}
        if report is not None:
            out["report"] = [str(p) for p in write_report(report, course, learner, counts, name, now)]
        if as_json:
            print_json(out)
            return
        typer.echo(f"{learner} in {course} ({name}): {counts['total']} bites — new {counts['new']}, learning "
                   f"{counts['learning']}, review {counts['review']}, mastered {counts['mastered']}; due today "
                   f"{counts['due_today']}")
        for p in out.get("report", []):
            typer.echo(f"wrote {p}")
