"""`tutor search` and `tutor eval retrieval` end to end on the ingested sample course."""

from __future__ import annotations

import json

import pytest
import typer
from typer.testing import CliRunner

from app.cli import search_cmd

pytestmark = pytest.mark.slow


@pytest.fixture
def cli(sample_course, monkeypatch):
    monkeypatch.setenv("TUTOR_DATA_DIR", str(sample_course.data_dir))
    app, eval_app = typer.Typer(), typer.Typer()
    app.add_typer(eval_app, name="eval")
    search_cmd.register(app, eval_app)
    runner = CliRunner()
    return lambda *args: runner.invoke(app, list(args))


def test_search_json_reports_every_stage(cli):
    r = cli("search", "what does BFS keep in its frontier?", "--course", "search", "--k", "4", "--json")
    assert r.exit_code == 0, r.output
    out = json.loads(r.stdout)
    assert out["stages"][-7:] == ["dense", "bm25", "hybrid", "demote", "mmr", "rerank", "boost"]
    assert out["reranker"] == "late-interaction:maxsim"
    assert [h["rank"] for h in out["hits"]] == [1, 2, 3, 4]
    h = out["hits"][0]
    assert set(h) == {"rank", "chunk_id", "source", "page_start", "page_end", "section", "text", "scores"}
    assert {"dense", "bm25", "hybrid", "mmr", "rerank", "boost"} <= set(h["scores"])


def test_search_batch_prints_one_line_per_query(cli, tmp_path):
    q = tmp_path / "q.jsonl"
    q.write_text('{"id": "a", "question": "what is a heuristic"}\n\n{"id": "b", "question": "minimax"}\n')
    r = cli("search", "--queries", str(q), "--course", "search", "--k", "2")
    assert r.exit_code == 0, r.output
    lines = [json.loads(x) for x in r.stdout.splitlines()]
    assert [x["id"] for x in lines] == ["a", "b"] and all(len(x["hits"]) == 2 for x in lines)


def test_search_errors_are_one_line_with_exit_2(cli, tmp_path):
    r = cli("search", "x", "--course", "nope")
    assert r.exit_code == 2 and "unknown course 'nope'" in r.output
    bad = tmp_path / "bad.jsonl"
    bad.write_text("{not json\n")
    r = cli("search", "--queries", str(bad), "--course", "search")
    assert r.exit_code == 2 and f"{bad}:1: not JSON" in r.output


def test_eval_retrieval_ablation_with_report(cli, tmp_path):
    gold = tmp_path / "gold.jsonl"
    rows = [
        {"id": "1", "question": "what data structure does bfs use for the frontier", "intent": "direct",
         "gold": {"source": "search-algorithms.pdf", "pages": [6, 7]}},
        {"id": "2", "question": "why is alpha beta pruning safe", "intent": "conceptual",
         "gold": {"source": "search-algorithms.pdf", "pages": [20, 21]}},
    ]
    gold.write_text("".join(json.dumps(r) + "\n" for r in rows))
    report = tmp_path / "report"
    r = cli("eval", "retrieval", "--course", "search", "--gold", str(gold), "--ablation", "--json",
            "--report", str(report))
    assert r.exit_code == 0, r.output
    out = json.loads(r.stdout)
    assert list(out["configurations"]) == ["bm25", "dense", "hybrid", "hybrid+mmr", "+rerank", "+demote", "full"]
    for conf in out["configurations"].values():
        assert {"recall@1", "recall@3", "recall@8", "mrr@8", "ndcg@8"} <= set(conf["overall"])
        assert set(conf["per_intent"]) == {"direct", "conceptual"}
    assert (report / "report.md").read_text().startswith("# Retrieval evaluation")
    assert (report / "retrieval.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert json.loads((report / "metrics.json").read_text())["k"] == 8
