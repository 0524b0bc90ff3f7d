"""Evaluate a short-answer grader against human scores.

Input is a CSV with columns `question,reference_answer,student_answer,score_avg` (score 0–5, may be fractional,
e.g. the mean of two graders as in Mohler, Bunescu & Mihalcea 2011). Metrics, each a small pure function:

- Pearson r between predicted and human scores (the headline figure in the short-answer grading literature);
- RMSE on the continuous 0–5 score;
- quadratic weighted kappa (Cohen 1968) on both scores rounded half up to integers 0–5.

`evaluate_grader` also measures, in the same run, the "cosine only" baseline: 5 · max(0, cos(answer, reference))
with the grader's own embedder, so every report carries its own point of comparison.
"""

from __future__ import annotations

import csv
import inspect
import math
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Sequence

import numpy as np

from app.errors import UserError
from app.grading.grader import Grade, Grader, embed_unique, round_half_up

REQUIRED_COLUMNS = ("question", "reference_answer", "student_answer", "score_avg")
MIN_SCORE, MAX_SCORE = 0, 5


@dataclass(frozen=True)
class ScoredAnswer:
    """One human-scored answer; `line` is its line in the CSV (for messages)."""

    question: str
    reference: str
    answer: str
    score: float
    line: int = 0


@dataclass(frozen=True)
class Metrics:
    pearson: float
    rmse: float
    qwk: float


@dataclass(frozen=True)
class RowResult:
    question: str
    student_answer: str
    score_avg: float
    predicted_quality: int
    predicted_score: float


@dataclass(frozen=True)
class GradingReport:
    n: int
    grader: Metrics
    baseline: Metrics | None  # cosine only, same embedder, same run
    mean_human: float
    mean_predicted: float
    rows: list[RowResult] = field(default_factory=list)

    def to_dict(self) -> dict:
        return asdict(self)


def load_scored_csv(path: str | Path) -> list[ScoredAnswer]:
    """Read a scored-answer CSV. Errors name the file, the line and the column, and say what to fix."""
    path = Path(path)
    if not path.is_file():
        raise UserError(f"{path}: no such file", hint="pass --data with a CSV of scored answers")
    try:
        fh = path.open(newline="", encoding="utf-8-sig")
    except OSError as e:
        raise UserError(f"{path}: cannot read ({e.strerror})") from e
    rows: list[ScoredAnswer] = []
    with fh:
        reader = csv.DictReader(fh)
        header = reader.fieldnames or []
        missing = [c for c in REQUIRED_COLUMNS if c not in header]
        if missing:
            raise UserError(
                f"{path}: line 1: missing column(s) {', '.join(missing)}",
                hint=f"the header must contain {','.join(REQUIRED_COLUMNS)}",
            )
        try:
            for rec in reader:
                line = reader.line_num
                for col in ("question", "reference_answer"):
                    if not (rec.get(col) or "").strip():
                        raise UserError(f"{path}: line {line}: column {col} is empty")
                raw = (rec.get("score_avg") or "").strip()
                try:
                    score = float(raw)
                except ValueError:
                    raise UserError(
                        f"{path}: line {line}: column score_avg: {raw!r} is not a number",
                        hint="use a decimal number with a dot, e.g. 4.5",
                    ) from None
                if math.isnan(score) or not MIN_SCORE <= score <= MAX_SCORE:
                    raise UserError(
                        f"{path}: line {line}: column score_avg: {raw} is outside {MIN_SCORE}–{MAX_SCORE}"
                    )
                rows.append(
                    ScoredAnswer(rec["question"], rec["reference_answer"], rec.get("student_answer") or "", score, line)
                )
        except csv.Error as e:
            raise UserError(f"{path}: line {reader.line_num}: malformed CSV ({e})") from e
    if not rows:
        raise UserError(f"{path}: no answers found", hint="add rows below the header")
    return rows


def pearson_r(x: Sequence[float], y: Sequence[float]) -> float:
    """Pearson product-moment correlation. NaN when either side is constant (r is undefined there)."""
    a, b = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    if a.shape != b.shape or a.size < 2:
        raise ValueError("pearson_r needs two sequences of the same length >= 2")
    da, db = a - a.mean(), b - b.mean()
    denom = math.sqrt(float(da @ da) * float(db @ db))
    return float(da @ db) / denom if denom > 0 else float("nan")


def rmse(pred: Sequence[float], gold: Sequence[float]) -> float:
    """Root mean squared error."""
    a, b = np.asarray(pred, dtype=float), np.asarray(gold, dtype=float)
    if a.shape != b.shape or a.size == 0:
        raise ValueError("rmse needs two non-empty sequences of the same length")
    return float(np.sqrt(np.mean((a - b) ** 2)))


def quadratic_weighted_kappa(a: Sequence[int], b: Sequence[int], *, min_rating: int = 0, max_rating: int = 5) -> float:
    """Cohen's weighted kappa with quadratic weights (Cohen 1968, Psychol. Bull. 70(4)).

    κ_w = 1 − Σ w_ij O_ij / Σ w_ij E_ij with w_ij = (i − j)² / (K − 1)², O the observed confusion matrix and E the
    outer product of the two raters' marginals scaled to the same total. Ratings outside [min, max] are an error.
    Returns 1.0 when both raters agree perfectly on a single category (no disagreement is possible or observed).
    """
    x, y = np.asarray(a, dtype=int), np.asarray(b, dtype=int)
    if x.shape != y.shape or x.size == 0:
        raise ValueError("quadratic_weighted_kappa needs two non-empty sequences of the same length")
    if min(x.min(), y.min()) < min_rating or max(x.max(), y.max()) > max_rating:
        raise ValueError(f"ratings must lie in [{min_rating}, {max_rating}]")
    k = max_rating - min_rating + 1
    observed = np.zeros((k, k))
    np.add.at(observed, (x - min_rating, y - min_rating), 1.0)
    expected = np.outer(observed.sum(axis=1), observed.sum(axis=0)) / x.size
    i, j = np.indices((k, k))
    weights = (i - j) ** 2 / (k - 1) ** 2
    denom = float((weights * expected).sum())
    if denom == 0:
        return 1.0
    return 1.0 - float((weights * observed).sum()) / denom


def metrics(pred: Sequence[float], gold: Sequence[float]) -> Metrics:
    """Pearson r and RMSE on the continuous scores, QWK on both rounded half up to 0–5."""
    return Metrics(
        pearson=pearson_r(pred, gold),
        rmse=rmse(pred, gold),
        qwk=quadratic_weighted_kappa([round_half_up(p) for p in pred], [round_half_up(g) for g in gold]),
    )


def cosine_baseline_scores(
    rows: Sequence[ScoredAnswer], embedder, *, batch_size: int = 64, progress: bool = False,
    table: dict[str, np.ndarray] | None = None,
) -> list[float]:
    """The baseline: 5 · max(0, cos(answer, reference)), a plain linear map of the MiniLM cosine to 0–5.
    Empty answers score 0 (there is nothing to embed). `table` (text → unit vector from the same embedder) is
    reused and completed, so a caller that already embedded the texts does not embed them again."""
    texts = [t for r in rows for t in (r.answer, r.reference) if t.strip()]
    table = embed_unique(embedder, texts, batch_size=batch_size, progress=progress, known=table)
    out = []
    for r in rows:
        if not r.answer.strip():
            out.append(0.0)
        else:
            out.append(5.0 * max(0.0, float(table[r.answer] @ table[r.reference])))
    return out


def evaluate_grader(
    rows: Sequence[ScoredAnswer], grader: Grader, *, embedder=None, progress: bool = False
) -> GradingReport:
    """Grade every row and compare with the human scores. The cosine-only baseline is computed with `embedder`
    (default: the grader's own `.embedder`, if it has one; otherwise no baseline). Graders with `grade_many` are
    used in batch so every distinct text is embedded once."""
    if not rows:
        raise UserError("nothing to evaluate: no scored answers")
    triples = [(r.question, r.reference, r.answer) for r in rows]
    own_embedder = getattr(grader, "embedder", None)
    embedder = embedder if embedder is not None else own_embedder
    # Answers and references are embedded once for the baseline and handed to the grader, which needs them too.
    table = None
    if embedder is not None:
        table = embed_unique(embedder, [t for r in rows for t in (r.answer, r.reference) if t.strip()],
                             progress=progress)
    grade_many = getattr(grader, "grade_many", None)
    if callable(grade_many):
        shares = embedder is own_embedder and "known" in inspect.signature(grade_many).parameters
        grades: list[Grade] = (
            grade_many(triples, progress=progress, known=table) if shares else grade_many(triples, progress=progress)
        )
    else:
        grades = [grader.grade(*t) for t in triples]
    gold = [r.score for r in rows]
    pred = [g.score for g in grades]
    baseline = (
        metrics(cosine_baseline_scores(rows, embedder, table=table), gold) if embedder is not None else None
    )
    return GradingReport(
        n=len(rows),
        grader=metrics(pred, gold),
        baseline=baseline,
        mean_human=float(np.mean(gold)),
        mean_predicted=float(np.mean(pred)),
        rows=[
            RowResult(r.question, r.answer, r.score, g.quality, g.score) for r, g in zip(rows, grades)
        ],
    )


def format_report(report: GradingReport) -> str:
    """A short plain-text table: grader vs cosine-only baseline."""
    lines = [
        f"n = {report.n}   mean human score {report.mean_human:.2f}   mean predicted {report.mean_predicted:.2f}",
        f"{'':<22}{'Pearson r':>10}{'RMSE':>8}{'QWK':>8}",
        f"{'grader':<22}{report.grader.pearson:>10.3f}{report.grader.rmse:>8.3f}{report.grader.qwk:>8.3f}",
    ]
    if report.baseline is not None:
        b = report.baseline
        lines.append(f"{'cosine only (5*cos)':<22}{b.pearson:>10.3f}{b.rmse:>8.3f}{b.qwk:>8.3f}")
    return "\n".join(lines)
