"""Shared builders for the practice tests: questions, a scripted grader, a fixed clock."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

from app.grading.grader import Grade
from app.practice.questions import Question
from app.practice.session import GuidedSession
from app.practice.store import InMemoryPracticeStore

T0 = datetime(2026, 1, 5, 9, 0, tzinfo=timezone.utc)


def at(minutes: int) -> datetime:
    return T0 + timedelta(minutes=minutes)


Q_BFS = Question(
    id="q-bfs", course="search", question="Which data structure does breadth-first search use for its frontier?",
    reference_answer="A FIFO queue that pops the oldest node first, so shallower nodes are expanded before deeper ones.",
    section="1.4 Breadth-First Search", source="search-algorithms.pdf", page_start=6, page_end=7, key_concept="FIFO",
)
Q_ADM = Question(
    id="q-adm", course="search", question="What does it mean for a heuristic to be admissible?",
    reference_answer="It never overestimates the true cost of reaching the goal from a node.",
    section="2.4 Admissible and Consistent Heuristics", source="search-algorithms.pdf", page_start=14,
)


class ScriptedGrader:
    """A `Grader` whose quality per answer text is given; unknown answers get quality 1."""

    def __init__(self, qualities: dict[str, int]) -> None:
        self.qualities = qualities
        self.calls: list[tuple[str, str, str]] = []

    def grade(self, question: str, reference: str, answer: str) -> Grade:
        self.calls.append((question, reference, answer))
        q = self.qualities.get(answer, 1)
        return Grade(quality=q, score=float(q), is_correct=q >= 3, feedback="Partly off.",
                     features={"covered": ["queue"] if q >= 2 else [], "missing": ["oldest"]})


def new_session(questions=(Q_BFS, Q_ADM), store=None, session_id="s1", learner="ada") -> GuidedSession:
    return GuidedSession(session_id=session_id, course="search", learner=learner, questions=list(questions),
                         material="# Search\nBFS uses a FIFO queue.", store=store or InMemoryPracticeStore())
