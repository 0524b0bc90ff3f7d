"""Evaluate an intent classifier (KITE §3.4.1) on labelled learner questions.

A labelled file is JSON lines, one `{"question": str, "intent": str}` per line (blank lines are skipped). The report
holds accuracy, per-intent precision and recall (precision = tp / predicted, recall = tp / gold; 0.0 when the
denominator is 0), the confusion matrix indexed gold × predicted, and every prediction, so a wrong one can be read.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from app.errors import UserError
from app.tutor.intents import Intent, IntentClassifier


@dataclass(frozen=True)
class LabelledQuestion:
    """One question with its gold intent; `line` is its 1-based line in the source file."""

    question: str
    intent: Intent
    line: int = 0


@dataclass(frozen=True)
class Prediction:
    question: str
    intent: Intent
    predicted: Intent
    confidence: float


@dataclass(frozen=True)
class IntentScores:
    precision: float
    recall: float
    support: int


@dataclass(frozen=True)
class IntentReport:
    accuracy: float
    per_intent: dict[Intent, IntentScores]
    confusion: dict[Intent, dict[Intent, int]]
    predictions: tuple[Prediction, ...]

    def to_dict(self) -> dict[str, object]:
        """A JSON-ready view (intents as their string values)."""
        return {
            "accuracy": self.accuracy,
            "n": len(self.predictions),
            "per_intent": {
                str(i): {"precision": s.precision, "recall": s.recall, "support": s.support}
                for i, s in self.per_intent.items()
            },
            "confusion": {str(g): {str(p): n for p, n in row.items()} for g, row in self.confusion.items()},
            "predictions": [
                {"question": p.question, "intent": str(p.intent), "predicted": str(p.predicted),
                 "confidence": p.confidence}
                for p in self.predictions
            ],
        }


def load_labelled(path: str | Path) -> list[LabelledQuestion]:
    """Read a JSON-lines file of labelled questions; a bad line raises `UserError` naming the file and line."""
    path = Path(path)
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as e:
        raise UserError(f"{path}: cannot read labelled questions ({e.strerror or e})",
                        hint="pass an existing JSON-lines file with --data") from e
    valid = ", ".join(i.value for i in Intent)
    rows: list[LabelledQuestion] = []
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        where = f"{path}:{number}"
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as e:
            raise UserError(f"{where}: invalid JSON ({e.msg})", hint='each line must be {"question": ..., '
                            '"intent": ...}') from e
        if not isinstance(obj, dict):
            raise UserError(f"{where}: expected a JSON object, got {type(obj).__name__}")
        for key in ("question", "intent"):
            if key not in obj:
                raise UserError(f"{where}: missing field '{key}'")
            if not isinstance(obj[key], str) or not obj[key].strip():
                raise UserError(f"{where}: field '{key}' must be a non-empty string")
        try:
            intent = Intent(obj["intent"].strip().lower())
        except ValueError:
            raise UserError(f"{where}: unknown intent '{obj['intent']}'", hint=f"use one of: {valid}") from None
        rows.append(LabelledQuestion(obj["question"], intent, number))
    if not rows:
        raise UserError(f"{path}: no labelled questions found")
    return rows


def evaluate_intents(rows: list[LabelledQuestion], classifier: IntentClassifier) -> IntentReport:
    """Classify every row and compare with its gold intent."""
    confusion = {g: {p: 0 for p in Intent} for g in Intent}
    predictions: list[Prediction] = []
    for row in rows:
        result = classifier.classify(row.question)
        confusion[row.intent][result.intent] += 1
        predictions.append(Prediction(row.question, row.intent, result.intent, result.confidence))
    per_intent: dict[Intent, IntentScores] = {}
    for intent in Intent:
        tp = confusion[intent][intent]
        predicted = sum(confusion[g][intent] for g in Intent)
        gold = sum(confusion[intent].values())
        per_intent[intent] = IntentScores(
            precision=tp / predicted if predicted else 0.0,
            recall=tp / gold if gold else 0.0,
            support=gold,
        )
    correct = sum(confusion[i][i] for i in Intent)
    accuracy = correct / len(rows) if rows else 0.0
    return IntentReport(accuracy, per_intent, confusion, tuple(predictions))


def format_report(report: IntentReport) -> str:
    """A readable summary: accuracy, per-intent precision/recall, and the gold × predicted confusion matrix."""
    intents = list(Intent)
    n = len(report.predictions)
    correct = sum(report.confusion[i][i] for i in intents)
    width = max(len(i.value) for i in intents)
    lines = [f"accuracy: {report.accuracy:.3f} ({correct}/{n})", ""]
    lines.append(f"{'intent':<{width}}  precision  recall  support")
    for i in intents:
        s = report.per_intent[i]
        lines.append(f"{i.value:<{width}}  {s.precision:>9.3f}  {s.recall:>6.3f}  {s.support:>7d}")
    lines += ["", "confusion (rows = gold, columns = predicted):"]
    abbrev = {i: i.value[:6] for i in intents}
    lines.append(" " * width + "  " + " ".join(f"{abbrev[i]:>6}" for i in intents))
    for g in intents:
        lines.append(f"{g.value:<{width}}  " + " ".join(f"{report.confusion[g][p]:>6d}" for p in intents))
    return "\n".join(lines)
