"""Retrieval-quality evaluation on a gold set.

Gold lines: `{"id", "question", "intent", "gold": {"source": "file.pdf", "pages": [12, 13]}}`. A retrieved chunk is
relevant when it comes from the gold source and its page range meets a gold page. Metrics (binary relevance):
Recall@n (a relevant chunk within the first n), MRR@k (Voorhees 1999), nDCG@k (Järvelin & Kekäläinen 2002, ideal
DCG over the relevant chunks that exist in the index), overall and per intent.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from app.errors import UserError
from app.jsonl import read_jsonl
from app.retrieval.types import RetrievalResult
from indexing.models import Chunk


@dataclass(frozen=True)
class GoldQuestion:
    id: str
    question: str
    intent: str
    source: str
    pages: tuple[int, ...]

    def relevant(self, chunk: Chunk) -> bool:
        return chunk.source == self.source and any(chunk.page_start <= p <= chunk.page_end for p in self.pages)


def load_gold(path: Path) -> list[GoldQuestion]:
    """Read a gold file; every bad line is named with what is wrong."""
    out = []
    for n, d in read_jsonl(path, what="gold", option="--gold"):
        try:
            g = d["gold"]
            pages = tuple(int(p) for p in g["pages"])
            if not pages:
                raise ValueError("gold.pages is empty")
            out.append(GoldQuestion(str(d["id"]), d["question"], d.get("intent", "unknown"), g["source"], pages))
        except (KeyError, TypeError, ValueError) as e:
            raise UserError(
                f"{path}:{n}: bad gold line ({type(e).__name__}: {e})",
                hint='each line needs {"id","question","intent","gold":{"source":"file.pdf","pages":[12]}}',
            ) from e
    return out


def first_relevant_rank(rels: list[bool]) -> int | None:
    return next((i + 1 for i, r in enumerate(rels) if r), None)


def recall_at(rels: list[bool], n: int) -> float:
    return 1.0 if any(rels[:n]) else 0.0


def mrr_at(rels: list[bool], k: int) -> float:
    r = first_relevant_rank(rels[:k])
    return 1.0 / r if r else 0.0


def ndcg_at(rels: list[bool], k: int, n_relevant: int) -> float:
    dcg = sum(1.0 / math.log2(i + 2) for i, r in enumerate(rels[:k]) if r)
    ideal = sum(1.0 / math.log2(i + 2) for i in range(min(k, n_relevant)))
    return dcg / ideal if ideal else 0.0


@dataclass
class QuestionResult:
    id: str
    intent: str
    rels: list[bool]
    first_rank: int | None
    hits: list[dict] = field(default_factory=list)


@dataclass
class RetrievalReport:
    k: int
    n: int
    overall: dict[str, float]
    per_intent: dict[str, dict[str, float]]
    questions: list[QuestionResult]
    stages: list[str] = field(default_factory=list)
    skipped: dict[str, str] = field(default_factory=dict)

    def to_dict(self, *, questions: bool = True) -> dict:
        d = {
            "k": self.k,
            "n": self.n,
            "overall": self.overall,
            "per_intent": self.per_intent,
            "stages": self.stages,
            "skipped": self.skipped,
        }
        if questions:
            d["questions"] = [
                {"id": q.id, "intent": q.intent, "first_relevant_rank": q.first_rank, "hits": q.hits}
                for q in self.questions
            ]
        return d


def _metrics(items: list[tuple[list[bool], int]], k: int) -> dict[str, float]:
    n = len(items)
    return {
        "recall@1": sum(recall_at(r, 1) for r, _ in items) / n,
        "recall@3": sum(recall_at(r, 3) for r, _ in items) / n,
        f"recall@{k}": sum(recall_at(r, k) for r, _ in items) / n,
        f"mrr@{k}": sum(mrr_at(r, k) for r, _ in items) / n,
        f"ndcg@{k}": sum(ndcg_at(r, k, nr) for r, nr in items) / n,
        "n": n,
    }


def evaluate_retrieval(
    gold: list[GoldQuestion],
    search: Callable[[str], RetrievalResult],
    all_chunks: Iterable[Chunk],
    *,
    k: int = 8,
    progress: Callable[[], None] | None = None,
) -> RetrievalReport:
    chunks = list(all_chunks)
    per_q: list[QuestionResult] = []
    items_by_intent: dict[str, list[tuple[list[bool], int]]] = defaultdict(list)
    items: list[tuple[list[bool], int]] = []
    stages: list[str] = []
    skipped: dict[str, str] = {}
    for g in gold:
        res = search(g.question)
        stages, skipped = res.stages, res.skipped
        rels = [g.relevant(h.chunk) for h in res.hits[:k]]
        n_rel = sum(1 for c in chunks if g.relevant(c))
        items.append((rels, n_rel))
        items_by_intent[g.intent].append((rels, n_rel))
        per_q.append(
            QuestionResult(
                g.id, g.intent, rels, first_relevant_rank(rels),
                [{"chunk_id": h.chunk.id, "pages": [h.chunk.page_start, h.chunk.page_end], "relevant": r}
                 for h, r in zip(res.hits[:k], rels)],
            )
        )
        if progress:
            progress()
    return RetrievalReport(
        k=k,
        n=len(gold),
        overall=_metrics(items, k),
        per_intent={i: _metrics(v, k) for i, v in sorted(items_by_intent.items())},
        questions=per_q,
        stages=stages,
        skipped=skipped,
    )


def format_table(rows: dict[str, dict[str, float]], k: int) -> str:
    """One line per configuration (or intent) with the metrics as columns."""
    cols = ["recall@1", "recall@3", f"recall@{k}", f"mrr@{k}", f"ndcg@{k}", "n"]
    width = max(12, *(len(r) for r in rows)) if rows else 12
    head = f"{'':<{width}} " + " ".join(f"{c:>9}" for c in cols)
    lines = [head]
    for name, m in rows.items():
        lines.append(f"{name:<{width}} " + " ".join(
            f"{int(m[c]):>9d}" if c == "n" else f"{m[c]:>9.3f}" for c in cols))
    return "\n".join(lines)
