from __future__ import annotations

import json

import typer
from typer.testing import CliRunner

from app.cli.srs import register

runner = CliRunner()


def make_app() -> typer.Typer:
    app = typer.Typer()
    eval_app = typer.Typer()
    app.add_typer(eval_app, name="eval")
    register(app, eval_app)
    return app


def test_simulate_sm2_json():
    result = runner.invoke(make_app(), ["srs", "simulate", "--qualities", "5,5,5,5,1", "--json"])
    assert result.exit_code == 0, result.output
    out = json.loads(result.stdout)
    assert out["scheduler"] == "sm2" and out["start"] == "2026-01-01T00:00:00+00:00"
    # the golden SM-2 sequence of tests/test_sm2.py, each review on its due date
    assert [(r["review"], r["date"][:10], r["quality"], r["interval"], r["repetitions"], r["ease"], r["status"],
             r["due"][:10]) for r in out["reviews"]] == [
        (1, "2026-01-01", 5, 1, 1, 2.6, "review", "2026-01-02"),
        (2, "2026-01-02", 5, 3, 2, 2.7, "review", "2026-01-05"),
        (3, "2026-01-05", 5, 8, 3, 2.8, "review", "2026-01-13"),
        (4, "2026-01-13", 5, 22, 4, 2.9, "mastered", "2026-02-04"),
        (5, "2026-02-04", 1, 1, 0, 2.36, "learning", "2026-02-05"),
    ]


def test_simulate_table():
    result = runner.invoke(make_app(), ["srs", "simulate", "-q", "4,4,4", "--start", "2026-05-01"])
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0].split() == ["#", "date", "q", "interval", "reps", "ease", "status", "due"]
    assert lines[2].split() == ["1", "2026-05-01", "4", "1", "1", "2.50", "review", "2026-05-02"]
    assert lines[4].split() == ["3", "2026-05-05", "4", "8", "3", "2.50", "review", "2026-05-13"]


def test_simulate_fsrs():
    result = runner.invoke(make_app(), ["srs", "simulate", "-q", "4,4,4,1", "--scheduler", "fsrs", "--json"])
    assert result.exit_code == 0, result.output
    reviews = json.loads(result.stdout)["reviews"]
    assert [r["interval"] for r in reviews] == [2, 11, 46, 3]
    assert [r["status"] for r in reviews] == ["review", "review", "mastered", "learning"]
    assert reviews[0]["stability"] == 2.3065 and reviews[0]["ease"] is None
    table = runner.invoke(make_app(), ["srs", "simulate", "-q", "4", "--scheduler", "fsrs"])
    assert table.stdout.splitlines()[0].split()[5] == "difficulty"


def test_user_errors_exit_2_with_one_line():
    for args, message in [
        (["-q", "5,7"], "--qualities: '7' is not a quality 0-5"),
        (["-q", ","], "--qualities is empty"),
        (["-q", "5", "--scheduler", "leitner"], "unknown scheduler 'leitner'"),
        (["-q", "5", "--start", "yesterday"], "--start: 'yesterday' is not a date"),
    ]:
        result = runner.invoke(make_app(), ["srs", "simulate", *args])
        assert result.exit_code == 2
        assert result.stderr.count("\n") == 1 and message in result.stderr
