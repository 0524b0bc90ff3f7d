"""Expert review of the tutor's replies (KITE: 93.2% of replies rated positive for scaffolding quality).

`export_review(run)` writes `review_sheet.csv` into the run directory: one row per tutor reply (per problem and turn
of a simulation, per question of a RAGAs run) with the learner's message, the intent, the retrieved passages, the
reply, and empty rating columns:

    scaffolding_quality   1-5 (5 = guides the learner without doing the work for them)
    correct               yes/no: what the reply says is correct
    gives_answer_away     yes/no: the reply hands out the solution
    grounded              yes/no: the reply is supported by the retrieved passages

`import_review(run, sheets)` summarises filled sheets: per rater the share rated positive (scaffolding quality 4 or
5, the top two points of the scale) and the yes-shares; with two raters, agreement on the rows both rated —
percent agreement and Cohen's kappa (1960) for each yes/no column and for positive/not positive, and the
quadratic-weighted kappa (Cohen 1968) on the 1-5 scale. The summary is also saved as `review.json`.
"""

from __future__ import annotations

import csv
from pathlib import Path
from typing import Any

from app.errors import UserError
from eval.runs import RunDir, dump_json

SHEET = "review_sheet.csv"
SUMMARY = "review.json"
RATING_COLUMNS = ("scaffolding_quality", "correct", "gives_answer_away", "grounded")
YES_NO = ("correct", "gives_answer_away", "grounded")
COLUMNS = ("row_id", "item_id", "turn", "question", "intent", "retrieved_passages", "reply", *RATING_COLUMNS,
           "comment")
POSITIVE_MIN = 4
MAX_PASSAGE_CHARS = 600


def _passages(passages: list[dict[str, Any]]) -> str:
    out = []
    for i, p in enumerate(passages, 1):
        pages = f"p. {p['page_start']}" if p["page_start"] == p["page_end"] else f"pp. {p['page_start']}-{p['page_end']}"
        out.append(f"[{i}] {p['source']}, {pages}: {p['text'][:MAX_PASSAGE_CHARS]}")
    return "\n\n".join(out)


def review_rows(run: RunDir) -> list[dict[str, str]]:
    kind = run.config().get("kind")
    rows = []
    for t in sorted(run.transcripts(), key=lambda t: t["id"]):
        turns = t["turns"] if kind == "simulate" else [{"turn": 1, "message": t["question"], **t["tutor"]}]
        for turn in turns:
            rows.append({
                "row_id": f"{t['id']}#{turn['turn']}", "item_id": str(t["id"]), "turn": str(turn["turn"]),
                "question": turn["message"], "intent": turn["intent"],
                "retrieved_passages": _passages(turn.get("passages", [])), "reply": turn["reply"],
                **{c: "" for c in RATING_COLUMNS}, "comment": "",
            })
    return rows


def export_review(run: RunDir, path: Path | None = None) -> Path:
    rows = review_rows(run)
    if not rows:
        raise UserError(f"{run.path}: the run has no transcripts to review", hint="run tutor eval simulate/ragas first")
    path = Path(path) if path else run.path / SHEET
    with open(path, "w", encoding="utf-8", newline="") as f:
        w = csv.DictWriter(f, fieldnames=COLUMNS)
        w.writeheader()
        w.writerows(rows)
    return path


def parse_yes_no(value: str) -> bool | None:
    v = value.strip().lower()
    if not v:
        return None
    if v in ("y", "yes", "1", "true", "x", "ja", "j"):
        return True
    if v in ("n", "no", "0", "false", "nein"):
        return False
    raise ValueError(f"{value!r} is not yes/no")


def read_sheet(path: Path) -> dict[str, dict[str, Any]]:
    """Ratings by row id from one filled sheet; unrated rows are skipped, bad values named with their row."""
    path = Path(path)
    if not path.exists():
        raise UserError(f"{path}: review sheet not found", hint="export one with tutor eval export-review RUN_DIR")
    out: dict[str, dict[str, Any]] = {}
    with open(path, encoding="utf-8", newline="") as f:
        reader = csv.DictReader(f)
        missing = [c for c in ("row_id", *RATING_COLUMNS) if c not in (reader.fieldnames or [])]
        if missing:
            raise UserError(f"{path}: missing columns {', '.join(missing)}", hint="fill the exported sheet as it is")
        for n, row in enumerate(reader, 2):
            try:
                q = row["scaffolding_quality"].strip()
                quality = int(q) if q else None
                if quality is not None and not 1 <= quality <= 5:
                    raise ValueError(f"scaffolding_quality {quality} is not in 1-5")
                rating = {"scaffolding_quality": quality, **{c: parse_yes_no(row[c] or "") for c in YES_NO}}
            except ValueError as e:
                raise UserError(f"{path}:{n}: {e}", hint="scaffolding_quality 1-5; yes/no columns: yes or no") from e
            if any(v is not None for v in rating.values()):
                out[row["row_id"]] = rating
    return out


def _share(values: list[bool]) -> float | None:
    return round(sum(values) / len(values), 4) if values else None


def rater_summary(ratings: dict[str, dict[str, Any]]) -> dict[str, Any]:
    qualities = [r["scaffolding_quality"] for r in ratings.values() if r["scaffolding_quality"] is not None]
    out: dict[str, Any] = {
        "rows_rated": len(ratings),
        "share_positive": _share([q >= POSITIVE_MIN for q in qualities]),
        "mean_scaffolding_quality": round(sum(qualities) / len(qualities), 4) if qualities else None,
    }
    for c in YES_NO:
        out[f"share_{c}"] = _share([r[c] for r in ratings.values() if r[c] is not None])
    return out


def cohen_kappa(a: list[Any], b: list[Any], *, weights: str | None = None) -> float | None:
    """Cohen's kappa via scikit-learn; None when undefined (fewer than two items, or one category only)."""
    if len(a) < 2:
        return None
    if len(set(a) | set(b)) < 2:
        return None  # both raters used one category: chance agreement is 1, kappa is 0/0
    from sklearn.metrics import cohen_kappa_score

    return round(float(cohen_kappa_score(a, b, weights=weights)), 4)


def agreement(r1: dict[str, dict[str, Any]], r2: dict[str, dict[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    both = sorted(set(r1) & set(r2))
    for c in ("scaffolding_quality", *YES_NO):
        rows = [i for i in both if r1[i][c] is not None and r2[i][c] is not None]
        a, b = [r1[i][c] for i in rows], [r2[i][c] for i in rows]
        entry: dict[str, Any] = {"rows": len(rows),
                                 "percent_agreement": _share([x == y for x, y in zip(a, b)])}
        if c == "scaffolding_quality":
            pa, pb = [x >= POSITIVE_MIN for x in a], [y >= POSITIVE_MIN for y in b]
            entry["positive_percent_agreement"] = _share([x == y for x, y in zip(pa, pb)])
            entry["positive_kappa"] = cohen_kappa(pa, pb)
            entry["quadratic_weighted_kappa"] = cohen_kappa(a, b, weights="quadratic")
        else:
            entry["kappa"] = cohen_kappa(a, b)
        out[c] = entry
    return out


def import_review(run: RunDir, sheets: list[Path]) -> dict[str, Any]:
    if not 1 <= len(sheets) <= 2:
        raise UserError("import-review takes one or two filled sheets", hint="tutor eval import-review RUN A.csv B.csv")
    known = {r["row_id"] for r in review_rows(run)}
    raters = []
    for path in sheets:
        ratings = read_sheet(path)
        unknown = sorted(set(ratings) - known)
        if unknown:
            raise UserError(f"{path}: rows {', '.join(unknown[:3])} are not in this run",
                            hint="import sheets exported from the same run directory")
        raters.append(ratings)
    summary: dict[str, Any] = {
        "rows_in_run": len(known),
        "positive_definition": f"scaffolding_quality >= {POSITIVE_MIN}",
        "raters": [{"sheet": Path(p).name, **rater_summary(r)} for p, r in zip(sheets, raters)],
    }
    if len(raters) == 2:
        summary["agreement"] = agreement(raters[0], raters[1])
    (run.path / SUMMARY).write_text(dump_json(summary), encoding="utf-8")
    return summary
