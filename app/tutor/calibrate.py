"""Calibrate grounded mode's "not covered" threshold on data.

Covered questions are ones the course answers (the gold set's questions); off-topic ones are questions a learner
of the course might ask that the notes do not answer (`data/offtopic.jsonl`: other CS topics, chit-chat, other
subjects, EN and DE). Each question is retrieved as the tutor would (top 8) and scored with
`grounded.confidence` (the highest dense cosine among the hits). Treating "confidence >= t" as the prediction
"covered", the threshold is the midpoint between two adjacent observed scores that maximises F-beta of "covered"
(van Rijsbergen 1979; ties: the higher threshold). The default beta = 2 weighs recall twice: in grounded mode a
false "covered" costs little (the reply is still verbatim, cited course text, visibly beside the point), while a
false "not covered" refuses a learner help the notes do contain.

    python -m app.tutor.calibrate --data-dir DIR --course ID [--gold FILE ...] [--offtopic FILE]

prints the chosen threshold with its precision and recall; `grounded.DEFAULT_MIN_CONFIDENCE` holds the value
measured on the sample course.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

from app.retrieval.types import Retriever
from app.tutor.grounded import confidence
from indexing.embedder import Embedder


@dataclass(frozen=True)
class Calibration:
    threshold: float
    precision: float  # of "covered" among the questions at or above the threshold
    recall: float  # share of covered questions at or above the threshold
    f_beta: float
    beta: float
    n_covered: int
    n_offtopic: int
    offtopic_rejected: float  # share of off-topic questions below the threshold


def _prf(covered: Sequence[float], offtopic: Sequence[float], t: float, beta: float) -> tuple[float, float, float]:
    tp = sum(s >= t for s in covered)
    fp = sum(s >= t for s in offtopic)
    precision = tp / (tp + fp) if tp + fp else 1.0
    recall = tp / len(covered) if covered else 0.0
    b2 = beta * beta
    denom = b2 * precision + recall
    return precision, recall, (1 + b2) * precision * recall / denom if denom else 0.0


def choose_threshold(covered: Sequence[float], offtopic: Sequence[float], *, beta: float = 2.0) -> Calibration:
    """The F-beta-maximising threshold over the two score lists (pure)."""
    if not covered or not offtopic:
        raise ValueError("calibration needs at least one covered and one off-topic score")
    values = sorted(set(covered) | set(offtopic))
    cands = [(a + b) / 2 for a, b in zip(values, values[1:])] or [values[0]]
    best = max(cands, key=lambda t: (_prf(covered, offtopic, t, beta)[2], t))
    p, r, f = _prf(covered, offtopic, best, beta)
    rejected = sum(s < best for s in offtopic) / len(offtopic)
    return Calibration(round(best, 4), p, r, f, beta, len(covered), len(offtopic), rejected)


def question_scores(
    questions: Sequence[str], retriever: Retriever, *, k: int = 8, embedder: Embedder | None = None
) -> list[float]:
    return [confidence(q, retriever.search(q, k=k).hits, embedder) for q in questions]


def calibrate(
    covered: Sequence[str], offtopic: Sequence[str], retriever: Retriever, *, k: int = 8,
    embedder: Embedder | None = None, beta: float = 2.0,
) -> Calibration:
    """Retrieve every question, score it, and pick the threshold (see the module docstring)."""
    return choose_threshold(
        question_scores(covered, retriever, k=k, embedder=embedder),
        question_scores(offtopic, retriever, k=k, embedder=embedder),
        beta=beta,
    )


def load_questions(path: Path) -> list[str]:
    return [json.loads(line)["question"] for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def main(argv: Sequence[str] | None = None) -> None:  # pragma: no cover - a measurement script
    root = Path(__file__).resolve().parents[2]
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data-dir", type=Path, required=True)
    ap.add_argument("--course", required=True)
    ap.add_argument(
        "--gold", type=Path, nargs="+",
        default=[root / "data/gold/retrieval_dev.jsonl", root / "data/gold/retrieval_heldout.jsonl"],
    )
    ap.add_argument("--offtopic", type=Path, default=root / "data/offtopic.jsonl")
    ap.add_argument("--beta", type=float, default=2.0)
    args = ap.parse_args(argv)

    from app.retrieval.pipeline import open_retriever
    from app.settings import Settings

    retriever = open_retriever(Settings(data_dir=args.data_dir), args.course)
    covered = [q for path in args.gold for q in load_questions(path)]
    offtopic = load_questions(args.offtopic)
    cov_scores = question_scores(covered, retriever)
    off_scores = question_scores(offtopic, retriever)
    result = choose_threshold(cov_scores, off_scores, beta=args.beta)
    print(json.dumps(asdict(result), indent=2))
    print(f"covered scores: min {min(cov_scores):.3f}  off-topic scores: max {max(off_scores):.3f}")


if __name__ == "__main__":  # pragma: no cover
    main()
