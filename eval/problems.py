"""Evaluation data files: simulation problems and RAGAs questions (JSON lines, every bad line named).

Simulation problem (data/eval/simulate_sample.jsonl):
    {"id", "kind": tracing|verification|debugging, "problem", "reference",
     "misconception"?, "wrong_answer"?, "cues"?: [phrases that show feedback addressed the misconception]}

RAGAs question (data/eval/ragas_sample.jsonl):
    {"id", "question", "intent"?, "reference"?, "gold"?: {"source", "pages": [..]}, "reference_contexts"?: [..]}
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from app.errors import UserError
from app.jsonl import read_jsonl

KINDS = ("tracing", "verification", "debugging")


@dataclass(frozen=True)
class Problem:
    id: str
    kind: str
    problem: str
    reference: str
    misconception: str = ""
    wrong_answer: str = ""
    cues: tuple[str, ...] = ()


@dataclass(frozen=True)
class RagasQuestion:
    id: str
    question: str
    intent: str = ""
    reference: str | None = None
    source: str | None = None
    pages: tuple[int, ...] = ()
    reference_contexts: tuple[str, ...] = field(default_factory=tuple)


def _unique(path: Path, ids: list[str]) -> None:
    seen: set[str] = set()
    for i in ids:
        if i in seen:
            raise UserError(f"{path}: id {i!r} occurs twice", hint="ids must be unique (resuming relies on them)")
        seen.add(i)


def load_problems(path: Path) -> list[Problem]:
    out = []
    for n, d in read_jsonl(path, what="problem"):
        try:
            kind = str(d["kind"])
            if kind not in KINDS:
                raise ValueError(f"kind {kind!r} is not one of {', '.join(KINDS)}")
            p = Problem(str(d["id"]), kind, str(d["problem"]), str(d["reference"]), str(d.get("misconception", "")),
                        str(d.get("wrong_answer", "")), tuple(str(c) for c in d.get("cues", ())))
            if not p.problem.strip() or not p.reference.strip():
                raise ValueError("problem and reference must not be empty")
        except (KeyError, TypeError, ValueError) as e:
            raise UserError(f"{path}:{n}: bad problem ({type(e).__name__}: {e})",
                            hint='each line needs {"id","kind","problem","reference"}') from e
        out.append(p)
    _unique(Path(path), [p.id for p in out])
    return out


def load_ragas_questions(path: Path) -> list[RagasQuestion]:
    out = []
    for n, d in read_jsonl(path, what="question"):
        try:
            gold = d.get("gold") or {}
            q = RagasQuestion(
                str(d["id"]), str(d["question"]), str(d.get("intent", "")),
                str(d["reference"]) if d.get("reference") else None,
                str(gold["source"]) if gold.get("source") else None,
                tuple(int(p) for p in gold.get("pages", ())),
                tuple(str(c) for c in d.get("reference_contexts", ())),
            )
            if not q.question.strip():
                raise ValueError("the question is empty")
        except (KeyError, TypeError, ValueError) as e:
            raise UserError(f"{path}:{n}: bad question ({type(e).__name__}: {e})",
                            hint='each line needs {"id","question"}; optional "reference", "gold":{"source","pages"}') from e
        out.append(q)
    _unique(Path(path), [q.id for q in out])
    return out
