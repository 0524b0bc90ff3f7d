"""`tutor eval simulate|report|compare|export-review|import-review` through Typer's CliRunner: the mock server as
the student over real HTTP, personas with a fake tutor model, byte-identical report rebuilds, review sheets."""

from __future__ import annotations

import csv
import json
import shutil

import pytest
import typer
from test_eval_simulate import ExactGrader, tutor_model, write_problems
from test_tutor_fakes import FixedRetriever
from typer.testing import CliRunner

from app.cli import eval_cmd
from app.llm.guard import allow_model_requests
from app.llm.mock_server import ECHO_PREFIX, MockLLMServer
from app.tutor.service import TutorService
from eval.report import PNG_METADATA
from eval.review import cohen_kappa
from indexing.embedder import HashEmbedder


@pytest.fixture
def cli(monkeypatch, tmp_path):
    monkeypatch.setattr(eval_cmd, "build_tutor", lambda settings, course: TutorService(
        FixedRetriever(), llm=tutor_model(), embedder=HashEmbedder()))
    monkeypatch.setattr(eval_cmd, "build_grader", lambda spec, tutor, settings, base_url, api_key: ExactGrader())
    app, eval_app = typer.Typer(), typer.Typer()
    app.add_typer(eval_app, name="eval")
    eval_cmd.register(app, eval_app)
    return app, write_problems(tmp_path / "problems.jsonl")


def invoke(app, *args):
    result = CliRunner().invoke(app, ["eval", *map(str, args)])
    assert result.exit_code == 0, result.output
    return result


def persona(app, data, out, name="receptive", turns=2):
    return invoke(app, "simulate", "--course", "c", "--data", data, "--student", f"persona:{name}", "--turns",
                  turns, "--report", out, "--json", "--no-progress")


def test_simulate_with_the_mock_server_as_student_over_http(cli, tmp_path):
    app, data = cli
    with MockLLMServer(model="weak-student") as server, allow_model_requests():
        result = invoke(app, "simulate", "--course", "c", "--data", data, "--student", "weak-student",
                        "--base-url", server.url, "--turns", 2, "--report", tmp_path / "run", "--json",
                        "--no-progress")
        assert len(server.requests) == 3 * 3  # per problem: the first answer and two revisions
        assert {r["model"] for r in server.requests} == {"weak-student"}
    m = json.loads(result.stdout)
    assert m["overall"]["n"] == 3 and m["tutor_modes"] == {"llm": 6}
    transcripts = [json.loads(line) for line in (tmp_path / "run/transcripts.jsonl").read_text().splitlines()]
    assert all(t["initial"]["answer"].startswith(ECHO_PREFIX) for t in transcripts)
    assert all(t["student"] == "model:weak-student" for t in transcripts)
    config = json.loads((tmp_path / "run/config.json").read_text())
    assert (config["kind"], config["student_base_url"], config["tutor_model"]) == ("simulate", server.url,
                                                                                 "fake-tutor")
    assert config["packages"]["ragas"] and len(config["inputs_sha256"]) == 64


def test_report_is_rebuilt_byte_for_byte_from_the_run_directory(cli, tmp_path):
    app, data = cli
    persona(app, data, tmp_path / "run")
    run = tmp_path / "run"
    before = {p.relative_to(run): p.read_bytes() for p in [run / "report.md", *sorted((run / "charts").glob("*"))]}
    assert set(map(str, before)) == {"report.md", "charts/improvement.png", "charts/quality.png"}
    copy = tmp_path / "elsewhere"
    shutil.copytree(run, copy)
    (copy / "report.md").unlink()
    shutil.rmtree(copy / "charts")
    invoke(app, "report", copy)
    after = {p.relative_to(copy): p.read_bytes() for p in [copy / "report.md", *sorted((copy / "charts").glob("*"))]}
    assert after == before
    assert b"Software" not in before[run.joinpath("charts/quality.png").relative_to(run)]
    assert PNG_METADATA == {"Software": None}
    text = before[run.joinpath("report.md").relative_to(run)].decode()
    assert "Improvement rate among initially wrong or partial answers: **33.3%** (1 of 3)" in text
    assert "| tracing | 1 | 1 | 1 | 100.0% | 1.00 → 5.00 |" in text


def test_compare_prints_metric_and_item_differences(cli, tmp_path):
    app, data = cli
    persona(app, data, tmp_path / "a", "receptive")
    persona(app, data, tmp_path / "b", "stubborn")
    out = invoke(app, "compare", tmp_path / "a", tmp_path / "b").stdout
    assert "overall.improvement_rate: 0.3333 -> 0.0 (-0.3333)" in out
    assert "student: 'persona:receptive' -> 'persona:stubborn'" in out
    assert "p1: 1->5 -> 1->1" in out
    same = invoke(app, "compare", tmp_path / "a", tmp_path / "a").stdout
    assert "metrics: identical" in same


def test_review_sheet_round_trip_with_two_raters(cli, tmp_path):
    app, data = cli
    persona(app, data, tmp_path / "run", turns=2)
    sheet = tmp_path / "run/review_sheet.csv"
    assert invoke(app, "export-review", tmp_path / "run").stdout.strip() == str(sheet)
    rows = list(csv.DictReader(sheet.open(encoding="utf-8")))
    assert [r["row_id"] for r in rows] == ["p1#1", "p1#2", "p2#1", "p2#2", "p3#1", "p3#2"]
    assert rows[0]["intent"] == "tracing" and rows[0]["retrieved_passages"].startswith(
        "[1] search-algorithms.pdf, pp. 6-7: Breadth-first search")
    assert all(r["scaffolding_quality"] == "" and r["grounded"] == "" for r in rows)
    # two raters: quality 5,4,4,2,5,3 and 5,4,3,2,5,4; grounded yes,yes,yes,no,yes,yes and yes,yes,no,no,yes,yes
    q1, q2 = [5, 4, 4, 2, 5, 3], [5, 4, 3, 2, 5, 4]
    g1, g2 = "y y y n y y".split(), "y y n n y y".split()
    for path, qs, gs in ((tmp_path / "r1.csv", q1, g1), (tmp_path / "r2.csv", q2, g2)):
        with path.open("w", encoding="utf-8", newline="") as f:
            w = csv.DictWriter(f, fieldnames=list(rows[0]))
            w.writeheader()
            for r, q, g in zip(rows, qs, gs):
                w.writerow({**r, "scaffolding_quality": q, "grounded": g, "correct": "yes",
                            "gives_answer_away": "no"})
    out = json.loads(invoke(app, "import-review", tmp_path / "run", tmp_path / "r1.csv", tmp_path / "r2.csv",
                            "--json").stdout)
    assert [r["share_positive"] for r in out["raters"]] == [0.6667, 0.6667]  # 4 of 6 rated 4 or 5 by each
    assert out["raters"][0]["share_grounded"] == 0.8333
    g = out["agreement"]["grounded"]
    # 5 of 6 agree; p_o = 5/6, p_e = (5/6)(4/6) + (1/6)(2/6) = 22/36, kappa = (30/36 - 22/36) / (14/36) = 8/14
    assert (g["rows"], g["percent_agreement"], g["kappa"]) == (6, 0.8333, round(8 / 14, 4))
    s = out["agreement"]["scaffolding_quality"]
    assert (s["percent_agreement"], s["positive_percent_agreement"]) == (0.6667, 0.6667)
    assert out["agreement"]["correct"]["kappa"] is None  # both raters said yes everywhere: kappa undefined
    assert json.loads((tmp_path / "run/review.json").read_text()) == out


def test_cohen_kappa_matches_the_textbook_example():
    # Cohen (1960)-style 2x2 table: 20 yes/yes, 5 yes/no, 10 no/yes, 15 no/no -> p_o 0.7, p_e 0.5, kappa 0.4
    a = ["y"] * 25 + ["n"] * 25
    b = ["y"] * 20 + ["n"] * 5 + ["y"] * 10 + ["n"] * 15
    assert cohen_kappa(a, b) == 0.4


def test_import_review_rejects_rows_of_another_run(cli, tmp_path):
    app, data = cli
    persona(app, data, tmp_path / "run")
    bad = tmp_path / "bad.csv"
    bad.write_text("row_id,scaffolding_quality,correct,gives_answer_away,grounded\nzz#1,4,yes,no,yes\n")
    result = CliRunner().invoke(app, ["eval", "import-review", str(tmp_path / "run"), str(bad)])
    assert result.exit_code == 2
    assert "rows zz#1 are not in this run" in result.stderr


def test_unknown_persona_and_missing_run_are_user_errors(cli, tmp_path):
    app, data = cli
    r = CliRunner().invoke(app, ["eval", "simulate", "--course", "c", "--data", str(data), "--student",
                                 "persona:nobody", "--report", str(tmp_path / "x")])
    assert r.exit_code == 2 and "unknown persona 'nobody'" in r.stderr
    r = CliRunner().invoke(app, ["eval", "report", str(tmp_path / "nothing")])
    assert r.exit_code == 2 and "not a run directory" in r.stderr
