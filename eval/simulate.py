"""Simulated-student evaluation of the tutor's feedback (KITE RQ2).

For each problem (tracing, verification or debugging, with a reference answer):

    student.initial(problem)                         -> answer_0, graded
    for turn in 1..turns:
        tutor.answer(problem + "My answer: answer_{t-1}", history)   the tutor's normal feedback for the problem's
                                                                     kind (intent fixed to the kind; help level
                                                                     rises per turn as in a real conversation)
        student.revise(problem, answer_{t-1}, feedback) -> answer_t, graded

Bands of the 0-5 quality (SM-2 scale, as the graders use it): wrong 0-2, partial 3-4, correct 5. An item is
*improved* when the final quality is higher than the initial one. The headline figure is KITE's: the improvement
rate among initially wrong or partial answers, overall and per kind. Answers that got worse are counted too.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Iterable
from typing import Any

from tqdm import tqdm

from app.grading.grader import Grader
from app.tutor.types import Turn
from eval.harness import FixedIntentClassifier, RecordingRetriever, turn_record
from eval.problems import KINDS, Problem
from eval.students import Student

FIRST_MESSAGE = "{problem}\n\nMy answer: {answer}"
REVISED_MESSAGE = "{problem}\n\nMy revised answer: {answer}"


def band(quality: int) -> str:
    """wrong 0-2, partial 3-4, correct 5."""
    return "correct" if quality >= 5 else "partial" if quality >= 3 else "wrong"


def _graded(grader: Grader, problem: Problem, answer: str) -> dict[str, Any]:
    g = grader.grade(problem.problem, problem.reference, answer)
    return {"answer": answer, "quality": int(g.quality), "score": round(float(g.score), 4), "band": band(g.quality)}


def simulate_problem(
    problem: Problem,
    student: Student,
    tutor,  # noqa: ANN001 - a TutorService built on a RecordingRetriever with a FixedIntentClassifier
    grader: Grader,
    *,
    turns: int = 2,
    clock: Callable[[], float] = time.perf_counter,
) -> dict[str, Any]:
    """One problem's full transcript (see the module docstring)."""
    t0 = clock()
    tutor.classifier.intent = problem.kind
    answer = student.initial(problem)
    initial = _graded(grader, problem, answer)
    history: list[Turn] = []
    records = []
    for turn in range(1, turns + 1):
        template = FIRST_MESSAGE if turn == 1 else REVISED_MESSAGE
        message = template.format(problem=problem.problem, answer=answer)
        reply = tutor.answer(message, history=history)
        record = {"turn": turn, "message": message, **turn_record(reply, tutor.retriever.passages(reply.retrieved))}
        history += [
            Turn("user", message, intent=reply.intent, help_level=reply.help_level),
            Turn("assistant", reply.reply, intent=reply.intent, help_level=reply.help_level),
        ]
        answer = student.revise(problem, answer, reply.reply, turn)
        record["revised"] = _graded(grader, problem, answer)
        records.append(record)
    final = records[-1]["revised"] if records else initial
    return {
        "id": problem.id, "kind": problem.kind, "problem": problem.problem, "reference": problem.reference,
        "misconception": problem.misconception, "student": student.name, "initial": initial, "turns": records,
        "final": final, "improved": final["quality"] > initial["quality"],
        "regressed": final["quality"] < initial["quality"], "seconds": round(clock() - t0, 3),
    }


def prepare_tutor(tutor):  # noqa: ANN001, ANN201
    """Wrap a TutorService's retriever to record passages and fix its intent per problem (in place; returned)."""
    if not isinstance(tutor.retriever, RecordingRetriever):
        tutor.retriever = RecordingRetriever(tutor.retriever)
    tutor.classifier = FixedIntentClassifier()
    return tutor


def run_simulation(
    problems: Iterable[Problem],
    student: Student,
    tutor,  # noqa: ANN001
    grader: Grader,
    run,  # noqa: ANN001 - eval.runs.RunDir
    *,
    turns: int = 2,
    progress: bool = True,
) -> dict[str, Any]:
    """Simulate every problem not yet in the run's transcripts (resume), then recompute and write the metrics."""
    prepare_tutor(tutor)
    done = run.done_ids()
    todo = [p for p in problems if p.id not in done]
    for problem in tqdm(todo, desc="simulate", unit="problem", file=sys.stderr, disable=not progress):
        run.append_transcript(simulate_problem(problem, student, tutor, grader, turns=turns))
    metrics = simulation_metrics(run.transcripts())
    run.write_metrics(metrics)
    return metrics


def _rate(k: int, n: int) -> float | None:
    return round(k / n, 4) if n else None


def _summary(items: list[dict[str, Any]]) -> dict[str, Any]:
    eligible = [t for t in items if t["initial"]["band"] != "correct"]
    improved = [t for t in eligible if t["improved"]]
    n = len(items)
    return {
        "n": n,
        "initial_bands": {b: sum(t["initial"]["band"] == b for t in items) for b in ("wrong", "partial", "correct")},
        "final_bands": {b: sum(t["final"]["band"] == b for t in items) for b in ("wrong", "partial", "correct")},
        "eligible": len(eligible),
        "improved": len(improved),
        "improvement_rate": _rate(len(improved), len(eligible)),
        "regressed": sum(t["regressed"] for t in items),
        "mean_quality_initial": round(sum(t["initial"]["quality"] for t in items) / n, 4) if n else None,
        "mean_quality_final": round(sum(t["final"]["quality"] for t in items) / n, 4) if n else None,
    }


def simulation_metrics(transcripts: list[dict[str, Any]]) -> dict[str, Any]:
    """Aggregates over all transcripts, overall and per kind (pure: the report and `compare` rebuild them)."""
    items = sorted(transcripts, key=lambda t: t["id"])
    per_kind = {k: _summary([t for t in items if t["kind"] == k]) for k in KINDS if any(t["kind"] == k for t in items)}
    modes: dict[str, int] = {}
    for t in items:
        for turn in t["turns"]:
            modes[turn["mode"]] = modes.get(turn["mode"], 0) + 1
    return {
        "kind": "simulate",
        "overall": _summary(items),
        "per_kind": per_kind,
        "tutor_modes": dict(sorted(modes.items())),
        "seconds_total": round(sum(t.get("seconds", 0.0) for t in items), 3),
    }
