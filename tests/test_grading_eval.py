"""Metrics, CSV loader and `tutor eval grading` (eval/grading.py, app/cli/grading_cmd.py)."""

from __future__ import annotations

import json
import math
import os
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from app.errors import UserError
from app.grading import OfflineGrader
from app.cli.grading_cmd import register
from eval.grading import (
    ScoredAnswer,
    cosine_baseline_scores,
    evaluate_grader,
    format_report,
    load_scored_csv,
    pearson_r,
    quadratic_weighted_kappa,
    rmse,
)
from indexing.embedder import HashEmbedder

os.environ.setdefault("HF_HUB_OFFLINE", "1")
SAMPLE = Path(__file__).resolve().parents[1] / "data" / "grading" / "sample.csv"
HEADER = "question,reference_answer,student_answer,score_avg\n"


# --- metrics against hand-computed values ------------------------------------------------------------------------


def test_pearson_hand_computed():
    # dx = (-1.5, -.5, .5, 1.5), dy = (-3, -1, 0, 4): Σdxdy = 11, Σdx² = 5, Σdy² = 26 → r = 11 / √130
    assert pearson_r([1, 2, 3, 4], [2, 4, 5, 9]) == pytest.approx(11 / math.sqrt(130))
    assert pearson_r([1, 2, 3], [3, 2, 1]) == pytest.approx(-1.0)
    assert math.isnan(pearson_r([1, 1, 1], [1, 2, 3]))


def test_rmse_hand_computed():
    # errors 0, -2, 3 → mean square 13/3
    assert rmse([1, 2, 3], [1, 4, 0]) == pytest.approx(math.sqrt(13 / 3))
    assert rmse([2.5], [2.5]) == 0.0


def test_qwk_hand_computed():
    # K = 3, w_ij = (i-j)²/4. Observed off-diagonal: (1,2) and (2,1) → Σ w·O = 0.5.
    # Marginals (1,1,2) both sides, E = r cᵀ / 4 → Σ w·E = 1.375.  κ = 1 − 0.5/1.375 = 0.636363…
    assert quadratic_weighted_kappa([0, 1, 2, 2], [0, 2, 2, 1], min_rating=0, max_rating=2) == pytest.approx(
        1 - 0.5 / 1.375
    )
    # Independent 2×2: O = E → κ = 0.
    assert quadratic_weighted_kappa([0, 0, 1, 1], [0, 1, 0, 1], min_rating=0, max_rating=1) == pytest.approx(0.0)
    assert quadratic_weighted_kappa([0, 3, 5], [0, 3, 5]) == pytest.approx(1.0)
    with pytest.raises(ValueError):
        quadratic_weighted_kappa([0, 6], [0, 1])


def test_qwk_matches_sklearn_when_installed():
    skm = pytest.importorskip("sklearn.metrics")
    a = [0, 1, 2, 3, 4, 5, 5, 4, 3, 3, 2, 5]
    b = [0, 2, 2, 3, 5, 5, 4, 4, 1, 3, 3, 5]
    assert quadratic_weighted_kappa(a, b) == pytest.approx(
        skm.cohen_kappa_score(a, b, weights="quadratic", labels=list(range(6)))
    )


# --- loader errors -----------------------------------------------------------------------------------------------


def _write(tmp_path: Path, text: str) -> Path:
    p = tmp_path / "scores.csv"
    p.write_text(text, encoding="utf-8")
    return p


def test_loader_reads_sample():
    rows = load_scored_csv(SAMPLE)
    assert len(rows) == 65
    assert len({r.question for r in rows}) == 10
    assert rows[0].line == 2 and 0 <= min(r.score for r in rows) and max(r.score for r in rows) <= 5


def test_loader_missing_column(tmp_path):
    p = _write(tmp_path, "question,reference_answer,score_avg\nq,r,3\n")
    with pytest.raises(UserError) as e:
        load_scored_csv(p)
    assert str(e.value).startswith(f"{p}: line 1: missing column(s) student_answer")


def test_loader_bad_number_names_line_and_column(tmp_path):
    p = _write(tmp_path, HEADER + "q,r,a,4\nq,r,a,four\n")
    with pytest.raises(UserError) as e:
        load_scored_csv(p)
    assert str(e.value).startswith(f"{p}: line 3: column score_avg: 'four' is not a number")


def test_loader_score_out_of_range(tmp_path):
    p = _write(tmp_path, HEADER + '"q, with comma","r\nover two lines",a,5\nq,r,a,5.5\n')
    with pytest.raises(UserError) as e:
        load_scored_csv(p)
    assert str(e.value) == f"{p}: line 4: column score_avg: 5.5 is outside 0–5"


def test_loader_missing_file_and_empty(tmp_path):
    with pytest.raises(UserError, match="no such file"):
        load_scored_csv(tmp_path / "nope.csv")
    with pytest.raises(UserError, match="no answers found"):
        load_scored_csv(_write(tmp_path, HEADER))


# --- evaluate_grader with a fast embedder ---------------------------------------------------------------------


def test_evaluate_grader_reports_grader_and_baseline():
    rows = load_scored_csv(SAMPLE)
    emb = HashEmbedder(64)
    report = evaluate_grader(rows, OfflineGrader(emb))
    assert report.n == 65 and len(report.rows) == 65
    assert report.baseline is not None
    base = cosine_baseline_scores(rows, emb)
    assert report.baseline.rmse == pytest.approx(rmse(base, [r.score for r in rows]))
    assert report.rows[0].student_answer == rows[0].answer
    text = format_report(report)
    assert "Pearson r" in text and "cosine only (5*cos)" in text and "n = 65" in text


class _CountingEmbedder(HashEmbedder):
    def __init__(self) -> None:
        super().__init__(64)
        self.embedded: list[str] = []

    def embed(self, texts, *, batch_size=32, progress=False):
        self.embedded.extend(texts)
        return super().embed(texts, batch_size=batch_size, progress=progress)


def test_evaluate_grader_embeds_each_text_once_and_matches_separate_runs():
    rows = load_scored_csv(SAMPLE)
    emb = _CountingEmbedder()
    report = evaluate_grader(rows, OfflineGrader(emb))
    assert len(emb.embedded) == len(set(emb.embedded))  # answers/references shared by baseline and grader
    alone = OfflineGrader(HashEmbedder(64)).grade_many([(r.question, r.reference, r.answer) for r in rows])
    assert [x.predicted_score for x in report.rows] == [g.score for g in alone]
    assert report.baseline.rmse == pytest.approx(rmse(cosine_baseline_scores(rows, HashEmbedder(64)),
                                                      [r.score for r in rows]))


def test_cosine_baseline_is_linear_map_and_empty_is_zero():
    emb = HashEmbedder(64)
    rows = [ScoredAnswer("q?", "a b c", "a b c", 5.0), ScoredAnswer("q?", "a b c", "", 0.0)]
    assert cosine_baseline_scores(rows, emb) == pytest.approx([5.0, 0.0])


# --- CLI --------------------------------------------------------------------------------------------------------


def _cli() -> typer.Typer:
    app, eval_app = typer.Typer(), typer.Typer()
    app.add_typer(eval_app, name="eval")

    @app.callback()
    def _root() -> None:
        pass

    register(app, eval_app)
    return app


@pytest.mark.slow
def test_cli_json_on_sample():
    result = CliRunner().invoke(_cli(), ["eval", "grading", "--data", str(SAMPLE), "--json"])
    assert result.exit_code == 0, result.output
    out = json.loads(result.stdout)
    assert out["n"] == 65 and len(out["rows"]) == 65
    assert set(out) >= {"pearson", "rmse", "qwk", "baseline_cosine", "rows"}
    assert set(out["baseline_cosine"]) == {"pearson", "rmse", "qwk"}
    assert set(out["rows"][0]) == {"question", "student_answer", "score_avg", "predicted_quality", "predicted_score"}
    # the grader must beat the cosine-only baseline on this set, measured in the same run
    assert out["pearson"] > out["baseline_cosine"]["pearson"]


@pytest.mark.slow
def test_cli_text_on_sample():
    result = CliRunner().invoke(_cli(), ["eval", "grading", "--data", str(SAMPLE)])
    assert result.exit_code == 0, result.output
    assert "cosine only (5*cos)" in result.stdout and "n = 65" in result.stdout


def test_cli_user_error_exits_2(tmp_path):
    bad = _write(tmp_path, "question,score_avg\nq,1\n")
    result = CliRunner().invoke(_cli(), ["eval", "grading", "--data", str(bad)])
    assert result.exit_code == 2
    assert "missing column(s) reference_answer, student_answer" in result.stderr
