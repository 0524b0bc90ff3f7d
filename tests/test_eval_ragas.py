"""RAGAs scoring: the non-LLM metrics with the network switched off, and `tutor eval ragas` end to end with the
mock OpenAI-compatible server as judge over real HTTP (scripted verdicts, and unscripted replies counted as NaN)."""

from __future__ import annotations

import json
import math
import socket

import pytest
import typer
from test_tutor_fakes import ASTAR, BFS, FixedRetriever
from typer.testing import CliRunner

from app.cli import eval_cmd
from app.llm.guard import allow_model_requests
from app.llm.mock_server import MockLLMServer
from app.tutor.service import TutorService
from eval.ragas_eval import NON_LLM_METRICS, _metric_objects, ragas_metrics, score_sample
from indexing.embedder import HashEmbedder


@pytest.fixture
def no_network(monkeypatch):
    def refuse(self, address):  # noqa: ANN001
        raise OSError(f"network is off in this test (connect to {address})")

    monkeypatch.setattr(socket.socket, "connect", refuse)


def sample(**kw):
    base = {"question": "Which data structure does BFS use?", "answer": "BFS uses a FIFO queue.",
            "contexts": [ASTAR.text, BFS.text], "reference": "BFS uses a FIFO queue.",
            "reference_contexts": [BFS.text]}
    return {**base, **kw}


def test_non_llm_metrics_run_with_no_network(no_network):
    scores, errors = score_sample(sample(), _metric_objects(NON_LLM_METRICS, None))
    assert errors == {}
    # the relevant passage is ranked second: average precision = precision@2 = 1/2; the one reference is found
    assert {k: round(v, 4) for k, v in scores.items()} == {
        "non_llm_context_precision": 0.5, "non_llm_context_recall": 1.0, "string_similarity": 1.0, "rouge_l": 1.0}


def test_metrics_without_a_reference_are_not_applicable_not_nan(no_network):
    scores, _ = score_sample(sample(reference=None, reference_contexts=[]), _metric_objects(NON_LLM_METRICS, None))
    assert scores == dict.fromkeys(NON_LLM_METRICS)


def test_aggregates_count_undetermined_and_not_applicable():
    rows = [{"id": "a", "scores": {"faithfulness": 1.0}, "tutor": {"intent": "direct"}},
            {"id": "b", "scores": {"faithfulness": math.nan}, "tutor": {"intent": "direct"}},
            {"id": "c", "scores": {"faithfulness": None}, "tutor": {"intent": "conceptual"}},
            {"id": "d", "scores": {"faithfulness": 0.5}, "tutor": {"intent": "direct"}}]
    m = ragas_metrics(rows)
    assert m["metrics"] == {"faithfulness": {"mean": 0.75, "determined": 2, "undetermined": 1, "not_applicable": 1}}
    assert m["tutor_intents"] == {"conceptual": 1, "direct": 3}


@pytest.fixture
def cli(monkeypatch, tmp_path):
    monkeypatch.setattr(eval_cmd, "build_tutor",
                        lambda settings, course: TutorService(FixedRetriever(), embedder=HashEmbedder()))
    app, eval_app = typer.Typer(), typer.Typer()
    app.add_typer(eval_app, name="eval")
    eval_cmd.register(app, eval_app)
    data = tmp_path / "ragas.jsonl"
    data.write_text(
        json.dumps({"id": "r1", "question": "what is breadth-first search?", "reference": "BFS expands the "
                    "shallowest node first using a FIFO queue.", "reference_contexts": [BFS.text]}) + "\n"
        + json.dumps({"id": "r2", "question": "what is A* search?"}) + "\n")
    return app, data


def test_ragas_cli_without_judge_scores_non_llm_metrics_offline(cli, tmp_path, no_network):
    app, data = cli
    out = tmp_path / "run"
    result = CliRunner().invoke(app, ["eval", "ragas", "--course", "c", "--data", str(data), "--report", str(out),
                                      "--json", "--no-progress"])
    assert result.exit_code == 0, result.output
    m = json.loads(result.stdout)
    assert list(m["metrics"]) == list(NON_LLM_METRICS)
    assert m["metrics"]["non_llm_context_recall"] == {"mean": 1.0, "determined": 1, "undetermined": 0,
                                                       "not_applicable": 1}
    assert (out / "report.md").exists() and (out / "charts/metrics.png").exists()


def test_ragas_cli_with_the_mock_server_as_judge(cli, tmp_path):
    app, data = cli
    with MockLLMServer() as server, allow_model_requests():
        for _ in range(2):  # two questions: string similarity needs no model; faithfulness 2 calls, relevance 2
            server.enqueue(json={"statements": ["BFS expands the shallowest node."]})
            server.enqueue(json={"statements": [{"statement": "BFS expands the shallowest node.",
                                                 "reason": "stated in the context", "verdict": 1}]})
            server.enqueue(json={"rating": 2})
            server.enqueue(json={"rating": 1})
        result = CliRunner().invoke(app, [
            "eval", "ragas", "--course", "c", "--data", str(data), "--judge", "mock-model", "--base-url",
            server.url, "--metrics", "string_similarity,faithfulness,context_relevance", "--json", "--report",
            str(tmp_path / "run"), "--no-progress"])
        assert result.exit_code == 0, result.output
        assert server.pending == 0
        assert len(server.requests) == 8  # real HTTP requests, one per judge call
    m = json.loads(result.stdout)["metrics"]
    assert m["faithfulness"] == {"mean": 1.0, "determined": 2, "undetermined": 0, "not_applicable": 0}
    assert m["context_relevance"] == {"mean": 0.75, "determined": 2, "undetermined": 0, "not_applicable": 0}
    assert m["string_similarity"]["not_applicable"] == 1


def test_unparseable_judge_output_is_counted_as_nan(cli, tmp_path):
    app, data = cli
    with MockLLMServer() as server, allow_model_requests():  # no script: every reply is '{}' for a JSON request
        result = CliRunner().invoke(app, [
            "eval", "ragas", "--course", "c", "--data", str(data), "--judge", "mock-model", "--base-url",
            server.url, "--metrics", "faithfulness,context_relevance", "--json", "--report",
            str(tmp_path / "run"), "--no-progress"])
    assert result.exit_code == 0, result.output
    m = json.loads(result.stdout)["metrics"]
    assert m["faithfulness"] == {"mean": None, "determined": 0, "undetermined": 2, "not_applicable": 0}
    assert m["context_relevance"]["undetermined"] == 2
    transcript = [json.loads(line) for line in (tmp_path / "run/transcripts.jsonl").read_text().splitlines()]
    assert "faithfulness" in transcript[0]["errors"]


def test_llm_metrics_need_a_judge(cli):
    app, data = cli
    result = CliRunner().invoke(app, ["eval", "ragas", "--course", "c", "--data", str(data), "--metrics",
                                      "faithfulness"])
    assert result.exit_code == 2
    assert result.stderr.strip() == "error: metric 'faithfulness' needs a judge model — pass --judge MODEL"
