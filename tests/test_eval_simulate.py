"""Simulated students end to end: scripted personas, a fake tutor model (FunctionLLM in LLM mode) over the fixed
retriever, run directories with resume, and the metrics the report is built from."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from test_tutor_fakes import BFS, FixedRetriever

from app.errors import UserError
from app.grading.grader import Grade
from app.llm import FunctionLLM
from app.tutor.service import TutorService
from eval.problems import load_problems
from eval.runs import inputs_hash, open_run
from eval.simulate import band, run_simulation, simulation_metrics
from eval.students import PersonaStudent, addresses_misconception, load_personas

ROOT = Path(__file__).resolve().parents[1]
PERSONAS = ROOT / "data/eval/personas.json"

PROBLEMS = [
    {"id": "p1", "kind": "tracing", "problem": "Trace BFS on the campus map. Which nodes are expanded?",
     "reference": "S, A, B, C, D", "misconception": "bfs-stack", "wrong_answer": "S, A, C, E", "cues": ["FIFO"]},
    {"id": "p2", "kind": "debugging", "problem": "My BFS uses deque.pop() and expands in the wrong order. Why?",
     "reference": "use popleft", "misconception": "deque-pop", "wrong_answer": "deque is slow",
     "cues": ["popleft"]},
    {"id": "p3", "kind": "verification", "problem": "Is h(S)=7 admissible when the true cost is 8?",
     "reference": "yes, it never overestimates", "misconception": "exact", "wrong_answer": "no, it must be exact",
     "cues": ["never overestimates"]},
]
FEEDBACK = "Look at the frontier again: is it a FIFO queue or a stack? Which node leaves it first? [c-bfs]"


def write_problems(path: Path, problems: list[dict] = PROBLEMS) -> Path:
    path.write_text("".join(json.dumps(p) + "\n" for p in problems), encoding="utf-8")
    return path


class ExactGrader:
    """A fake grader: 5 for the reference answer, 1 for anything else (the grader is a swappable part)."""

    def grade(self, question: str, reference: str, answer: str) -> Grade:
        q = 5 if answer.strip() == reference.strip() else 1
        return Grade(q, float(q), q >= 3, "")


def tutor_model() -> FunctionLLM:
    """The tutor's model in LLM mode: the same Socratic question about the frontier for every message."""
    return FunctionLLM(lambda messages, request: {"reply": FEEDBACK, "citations": [BFS.id], "grounding": "material"},
                       model="fake-tutor")


def fake_tutor(llm=None) -> TutorService:
    return TutorService(FixedRetriever(), llm=llm if llm is not None else tutor_model())


def persona_run(tmp_path: Path, name: str, *, llm=None, turns: int = 2):
    data = write_problems(tmp_path / "problems.jsonl")
    digest, _ = inputs_hash({"data": data}, {"student": name, "turns": turns})
    run = open_run(tmp_path / f"run-{name}", kind="simulate", config={"student": name, "turns": turns},
                   input_hash=digest)
    student = PersonaStudent(load_personas(PERSONAS)[name])
    tutor = fake_tutor(llm)
    metrics = run_simulation(load_problems(data), student, tutor, ExactGrader(), run, turns=turns, progress=False)
    return run, metrics, tutor


def test_bands_follow_the_quality_scale():
    assert [band(q) for q in range(6)] == ["wrong", "wrong", "wrong", "partial", "partial", "correct"]


def test_cues_are_case_insensitive_substrings():
    assert addresses_misconception("Is it a fifo queue?", ["FIFO"])
    assert not addresses_misconception("Is it a queue?", ["FIFO", "popleft"])


def test_receptive_persona_revises_only_where_the_feedback_addressed_the_misconception(tmp_path):
    run, metrics, _ = persona_run(tmp_path, "receptive")
    o = metrics["overall"]
    assert (o["n"], o["eligible"], o["improved"], o["improvement_rate"], o["regressed"]) == (3, 3, 1, 0.3333, 0)
    assert {k: (v["eligible"], v["improved"], v["improvement_rate"]) for k, v in metrics["per_kind"].items()} == {
        "tracing": (1, 1, 1.0), "verification": (1, 0, 0.0), "debugging": (1, 0, 0.0)}
    assert metrics["tutor_modes"] == {"llm": 6}
    p1 = next(t for t in run.transcripts() if t["id"] == "p1")
    assert [p1["initial"]["answer"], p1["turns"][0]["revised"]["answer"]] == ["S, A, C, E", "S, A, B, C, D"]
    assert [t["intent"] for t in p1["turns"]] == ["tracing", "tracing"]  # the problem's kind, not the rules' guess
    assert [t["help_level"] for t in p1["turns"]] == [1, 2]  # the second turn continues the same problem
    assert p1["turns"][0]["message"].endswith("My answer: S, A, C, E")
    assert p1["turns"][1]["message"].endswith("My revised answer: S, A, B, C, D")
    assert p1["turns"][0]["passages"][0]["chunk_id"] == BFS.id and p1["turns"][0]["passages"][0]["text"] == BFS.text


def test_stubborn_and_expert_personas_bound_the_rate(tmp_path):
    _, stubborn, _ = persona_run(tmp_path, "stubborn")
    assert (stubborn["overall"]["eligible"], stubborn["overall"]["improved"]) == (3, 0)
    _, expert, _ = persona_run(tmp_path, "expert")
    assert (expert["overall"]["eligible"], expert["overall"]["improvement_rate"]) == (0, None)
    assert expert["overall"]["final_bands"] == {"wrong": 0, "partial": 0, "correct": 3}


def test_grounded_tutor_without_a_model_runs_the_same_loop(tmp_path):
    tutor = TutorService(FixedRetriever())
    data = write_problems(tmp_path / "problems.jsonl")
    run = open_run(tmp_path / "run", kind="simulate", config={}, input_hash="h")
    metrics = run_simulation(load_problems(data), PersonaStudent(load_personas(PERSONAS)["receptive"]), tutor,
                             ExactGrader(), run, turns=1, progress=False)
    assert metrics["tutor_modes"] == {"grounded": 3}
    assert all(len(t["turns"]) == 1 for t in run.transcripts())


def test_a_resumed_run_skips_finished_items_and_asks_the_tutor_nothing_new(tmp_path):
    llm = tutor_model()
    run, first, _ = persona_run(tmp_path, "receptive", llm=llm)
    calls = len(llm.calls)
    assert calls == 6
    lines = run.transcripts_path.read_text().splitlines()
    run.transcripts_path.write_text("\n".join(lines[:2]) + "\n" + lines[2][:40])  # killed while writing item 3
    _, resumed, _ = persona_run(tmp_path, "receptive", llm=llm)
    assert len(llm.calls) == calls + 2  # only the torn item was simulated again (two turns)
    drop = lambda m: {k: v for k, v in m.items() if k != "seconds_total"}  # noqa: E731 - wall time differs
    assert drop(resumed) == drop(first)
    assert sorted(t["id"] for t in run.transcripts()) == ["p1", "p2", "p3"]


def test_a_run_directory_refuses_other_inputs(tmp_path):
    persona_run(tmp_path, "receptive")
    with pytest.raises(UserError, match="other inputs"):
        open_run(tmp_path / "run-receptive", kind="simulate", config={}, input_hash="different")


def test_metrics_are_recomputed_from_transcripts(tmp_path):
    run, metrics, _ = persona_run(tmp_path, "receptive")
    assert simulation_metrics(list(reversed(run.transcripts()))) == metrics == run.metrics()


def test_bad_problem_lines_are_named(tmp_path):
    path = tmp_path / "bad.jsonl"
    path.write_text(json.dumps({"id": "x", "kind": "essay", "problem": "p", "reference": "r"}) + "\n")
    with pytest.raises(UserError, match=r"bad\.jsonl:1: .*kind 'essay'"):
        load_problems(path)


def test_the_sample_problem_set_has_every_kind_and_cues():
    problems = load_problems(ROOT / "data/eval/simulate_sample.jsonl")
    assert len(problems) >= 20
    assert {p.kind for p in problems} == {"tracing", "verification", "debugging"}
    assert all(p.wrong_answer and p.cues and p.wrong_answer != p.reference for p in problems)
