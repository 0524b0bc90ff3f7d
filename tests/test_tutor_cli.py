"""`tutor ask` and `tutor chat` through Typer's CliRunner, with the fixed retriever standing in for a course index."""

from __future__ import annotations

import json

import pytest
import typer
from test_tutor_fakes import BFS, FixedRetriever
from typer.testing import CliRunner

from app.cli import tutor_cmd
from app.errors import NotFoundError
from app.tutor.service import TutorService


@pytest.fixture
def cli(monkeypatch):
    built: list[str] = []

    def build(settings, course):
        if course == "missing":
            raise NotFoundError(f"course {course!r} does not exist", hint="create it with `tutor courses create`")
        built.append(course)
        return TutorService(FixedRetriever())

    monkeypatch.setattr(tutor_cmd, "build_service", build)
    app, eval_app = typer.Typer(), typer.Typer()
    app.add_typer(eval_app, name="eval")
    tutor_cmd.register(app, eval_app)
    return app, built


def test_ask_json_has_the_documented_shape(cli):
    app, built = cli
    result = CliRunner().invoke(app, ["ask", "what is breadth-first search?", "--course", "search", "--json"])
    assert result.exit_code == 0, result.output
    out = json.loads(result.stdout)
    assert set(out) == {"intent", "reply", "citations", "grounding", "help_level", "mode", "usage"}
    assert (out["intent"], out["grounding"], out["help_level"], out["mode"]) == ("direct", "material", 1, "grounded")
    assert out["citations"][0] == {"chunk_id": BFS.id, "source": "search-algorithms.pdf", "page_start": 6,
                                   "page_end": 7}
    assert out["usage"] == {"prompt_tokens": 0, "completion_tokens": 0, "cached_prompt_tokens": 0}
    assert built == ["search"]


def test_ask_human_output_lists_numbered_sources(cli):
    app, _ = cli
    result = CliRunner().invoke(app, ["ask", "what is breadth-first search?", "--course", "search"])
    assert result.exit_code == 0
    assert "Sources:\n  [1] search-algorithms.pdf, pp. 6-7" in result.stdout
    assert "(direct, help level 1, grounded mode)" in result.stdout


def test_ask_user_errors_are_one_line_and_exit_2(cli):
    app, _ = cli
    result = CliRunner().invoke(app, ["ask", "what is bfs", "--course", "missing"])
    assert result.exit_code == 2
    assert result.stderr.strip() == (
        "error: course 'missing' does not exist — create it with `tutor courses create`"
    )
    empty = CliRunner().invoke(app, ["ask", "  ", "--course", "search"])
    assert empty.exit_code == 2 and "the question is empty" in empty.stderr


def test_chat_keeps_history_so_help_rises_and_new_resets(cli):
    app, _ = cli
    session = "\n".join([
        "why is BFS optimal when all actions have the same cost?",
        "I still don't get it",
        "another hint please",
        "/new",
        "I still don't get it",
        "/quit",
        "never read",
    ]) + "\n"
    result = CliRunner().invoke(app, ["chat", "--course", "search"], input=session)
    assert result.exit_code == 0, result.output
    levels = [line for line in result.stdout.split("\n") if "help level" in line]
    assert levels == [
        "(conceptual, help level 1, grounded mode)",
        "(conceptual, help level 2, grounded mode)",
        "(conceptual, help level 3, grounded mode)",
        "(direct, help level 1, grounded mode)",
    ]
    assert "(new problem: help starts again at level 1)" in result.stdout
    assert result.stdout.rstrip().endswith("bye")


def test_chat_ends_cleanly_on_end_of_input(cli):
    app, _ = cli
    result = CliRunner().invoke(app, ["chat", "--course", "search"], input="what is breadth-first search?\n")
    assert result.exit_code == 0
    assert "Sources:" in result.stdout and result.stdout.rstrip().endswith("bye")
