"""`tutor srs simulate`: print the schedule a sequence of answer qualities produces (SM-2 or FSRS)."""

from __future__ import annotations

from datetime import date, datetime, timezone
from typing import Annotated

import typer

from app.cli.common import print_json, user_errors
from app.errors import UserError


def parse_qualities(text: str) -> list[int]:
    """'5,4,3' -> [5, 4, 3]; each must be an integer 0..5."""
    parts = [p.strip() for p in text.split(",") if p.strip()]
    if not parts:
        raise UserError("--qualities is empty", hint="give comma-separated qualities 0-5, e.g. --qualities 5,4,3")
    out = []
    for p in parts:
        if not p.isdigit() or not 0 <= int(p) <= 5:
            raise UserError(f"--qualities: {p!r} is not a quality 0-5", hint="e.g. --qualities 5,4,3,1,4")
        out.append(int(p))
    return out


def parse_start(text: str) -> datetime:
    """A date (midnight UTC) or an ISO datetime (UTC if it has no offset)."""
    try:
        if len(text) == 10:
            return datetime.combine(date.fromisoformat(text), datetime.min.time(), tzinfo=timezone.utc)
        when = datetime.fromisoformat(text)
    except ValueError:
        raise UserError(f"--start: {text!r} is not a date", hint="use YYYY-MM-DD or an ISO datetime") from None
    return when if when.tzinfo else when.replace(tzinfo=timezone.utc)


def render_table(rows: list[dict], scheduler: str) -> str:
    third = "difficulty" if scheduler == "fsrs" else "ease"
    header = f"{'#':>3}  {'date':<10}  {'q':>1}  {'interval':>8}  {'reps':>4}  {third:>10}  {'status':<8}  due"
    lines = [header, "-" * len(header)]
    for r in rows:
        value = r["difficulty"] if scheduler == "fsrs" else r["ease"]
        lines.append(
            f"{r['review']:>3}  {r['date'][:10]:<10}  {r['quality']:>1}  {r['interval']:>8}  {r['repetitions']:>4}  "
            f"{value:>10.2f}  {r['status']:<8}  {r['due'][:10]}"
        )
    return "\n".join(lines)


def register(app: typer.Typer, eval_app: typer.Typer) -> None:
    srs_app = typer.Typer(help="Spaced repetition: try the schedulers.", no_args_is_help=True)
    app.add_typer(srs_app, name="srs")

    @srs_app.command("simulate")
    def simulate_cmd(
        qualities: Annotated[str, typer.Option("--qualities", "-q", help="Comma-separated answer qualities 0-5.")],
        scheduler: Annotated[str, typer.Option("--scheduler", help="sm2 (the Teacher design) or fsrs.")] = "sm2",
        start: Annotated[str, typer.Option("--start", help="Date of the first review (UTC).")] = "2026-01-01",
        as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
    ) -> None:
        """Review one new bite with the given qualities, each review on the day it falls due, and print the schedule."""
        from app.learning.scheduler import get_scheduler, simulate

        with user_errors():
            sched = get_scheduler(scheduler)
            rows = simulate(sched, parse_qualities(qualities), parse_start(start))
        if as_json:
            print_json({"scheduler": scheduler, "start": parse_start(start).isoformat(), "reviews": rows})
        else:
            typer.echo(render_table(rows, scheduler))
