"""Question files (JSON lines and CSV) with clear errors, and the CLI commands built on them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from app.cli.practice_cmd import register
from app.errors import UserError
from app.practice.questions import check_questions, load_questions, parse_questions, select_questions

DATA = Path(__file__).resolve().parents[1] / "data" / "practice"


def test_sample_bank_is_valid() -> None:
    qs = load_questions(DATA / "questions.jsonl")
    assert len(qs) == 8 and qs[0].id == "q-frontier" and qs[1].where() == (
        "section 1.4 Breadth-First Search (pages 6-7 of search-algorithms.pdf)")


def test_jsonl_errors_name_line_and_field() -> None:
    text = "\n".join([
        '{"id": "a", "question": "What is a frontier?", "reference_answer": "Generated, unexpanded nodes."}',
        '{"id": "b", "question": "Short", "reference_answer": "x"}',
        'not json',
        '{"id": "a", "question": "What is a frontier again?", "reference_answer": "Same."}',
        '{"id": "c", "question": "What is a ply in games?", "reference_answer": ""}',
        '[1, 2]',
        '{"id": "d", "question": "What is a ply in games?", "reference_answer": "A move.", "page_start": 3, "page_end": 2}',
    ])
    report = parse_questions(text, path="q.jsonl")
    assert [q.id for q in report.questions] == ["a"]
    assert report.errors == (
        "q.jsonl:2: field question: must be a question that stands on its own (at least 8 characters)",
        "q.jsonl:3: not valid JSON (Expecting value at column 1)",
        "q.jsonl:4: field id: 'a' is already used on line 1; ids must be unique",
        "q.jsonl:5: field reference_answer: must not be empty: the tutor grades against it and shows it on resolution",
        "q.jsonl:6: expected a JSON object, got list",
        "q.jsonl:7: field record: page_end 2 is before page_start 3",
    )


def test_csv_with_pages_and_chunk_ids() -> None:
    text = ("id,question,reference_answer,section,page_start,chunk_ids\n"
            "q1,What is a ply in game search?,One move by one player.,3.1 Games,18,c1; c2\n"
            "q2,What is the horizon effect?,Pushing a loss beyond the depth.,,x,\n")
    report = parse_questions(text, path="bank.csv", default_course="ai")
    assert [(q.id, q.course, q.pages, q.chunk_ids) for q in report.questions] == [("q1", "ai", (18, 18), ("c1", "c2"))]
    assert report.errors == ("bank.csv:3: field page_start: 'x' is not a page number",)


def test_csv_header_must_name_required_columns() -> None:
    report = parse_questions("id,question\nq1,What is a ply?\n", path="b.csv")
    assert report.errors == ("b.csv:1: header lacks column(s) reference_answer; the header must name id, question, "
                             "reference_answer",)


def test_load_raises_user_error_and_empty_file_is_an_error(tmp_path: Path) -> None:
    empty = tmp_path / "e.jsonl"
    empty.write_text("\n")
    assert check_questions(empty).errors[0].endswith("no questions found; write one JSON object per line "
                                                     "(or a CSV with a header row)")
    with pytest.raises(UserError, match="no questions found"):
        load_questions(empty)
    with pytest.raises(UserError, match="does not exist"):
        load_questions(tmp_path / "missing.jsonl")


def test_select_questions_keeps_order_and_rejects_unknown_ids() -> None:
    qs = load_questions(DATA / "questions.jsonl")
    assert [q.id for q in select_questions(qs, ["q-astar", "q-frontier"])] == ["q-astar", "q-frontier"]
    with pytest.raises(UserError, match="unknown question id"):
        select_questions(qs, ["nope"])


def _app() -> typer.Typer:
    app, eval_app = typer.Typer(), typer.Typer()
    register(app, eval_app)
    app.add_typer(eval_app, name="eval")
    return app


def test_cli_validate_ok_and_bad(tmp_path: Path) -> None:
    runner = CliRunner()
    ok = runner.invoke(_app(), ["questions", "validate", str(DATA / "questions.jsonl"), "--json"])
    assert ok.exit_code == 0 and json.loads(ok.stdout)["questions"] == 8
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": "x", "question": "Hi"}\n')
    res = runner.invoke(_app(), ["questions", "validate", str(bad)])
    assert res.exit_code == 2
    assert f"{bad}:1: field question: must be a question that stands on its own" in res.output
    missing = runner.invoke(_app(), ["questions", "validate", str(tmp_path / "none.jsonl")])
    assert missing.exit_code == 2 and "does not exist" in missing.output


def test_cli_practice_session_with_scripted_input() -> None:
    runner = CliRunner()
    qs = load_questions(DATA / "questions.jsonl")
    adm = next(q for q in qs if q.id == "q-admissible")
    res = runner.invoke(
        _app(),
        ["practice", "--questions", str(DATA / "questions.jsonl"), "--ids", "q-admissible,q-astar",
         "--hash-embedder", "--json"],
        input=f"hint\n{adm.reference_answer}\nI give up\n",
    )
    assert res.exit_code == 0, res.output
    assert "Question 1/2: What does it mean for a heuristic to be admissible?" in res.stdout
    assert "Hint 1/5: Look again at section 2.4 Admissible and Consistent Heuristics (page 14 of search-algorithms.pdf)." in res.stdout
    rows = json.loads(res.stdout.strip().splitlines()[-1])
    assert [(r["question_id"], r["score"], r["hints_given"], r["resolved"]) for r in rows] == [
        ("q-admissible", 9, 1, False), ("q-astar", 1, 0, True)]


def test_cli_practice_unknown_id_exits_2() -> None:
    res = CliRunner().invoke(_app(), ["practice", "--questions", str(DATA / "questions.jsonl"), "--ids", "zzz",
                                      "--hash-embedder"])
    assert res.exit_code == 2 and "unknown question id(s): zzz" in res.output
