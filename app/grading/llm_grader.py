"""The `Grader` backed by a configured generative model: a structured judgement at temperature 0.3.

The model proposes quality 0-5, is-correct and feedback; the code keeps them consistent (is-correct from quality
>= 3, the SM-2 pass threshold, whatever the model said) so a schedule never depends on the model contradicting
itself.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from app.grading.grader import Grade
from app.llm.base import LLM, Message

TEMPERATURE = 0.3
PASS_QUALITY = 3

SYSTEM = """You grade a learner's short answer against a reference answer.
Quality scale (SM-2): 5 perfect, 4 correct after hesitation or with a small omission, 3 correct in the essentials
with difficulty, 2 wrong but close, 1 wrong with a fragment of the idea, 0 nothing relevant.
Judge meaning, not wording; words copied from the question earn nothing. Feedback: one or two sentences for the
learner, naming what was right and what was missing, without quoting the reference answer in full."""


class LLMGrade(BaseModel):
    """The model's judgement of one answer."""

    model_config = ConfigDict(extra="forbid")

    quality: int = Field(ge=0, le=5, description="0-5, SM-2 scale")
    is_correct: bool = Field(description="whether the answer is correct in meaning")
    feedback: str = Field(min_length=1, description="one or two sentences for the learner")


class LLMGrader:
    """Grades with `llm.structured(..., LLMGrade)`; raises `LLMError` when the model fails (no silent fallback)."""

    def __init__(self, llm: LLM) -> None:
        self.llm = llm

    def grade(self, question: str, reference: str, answer: str) -> Grade:
        messages = [
            Message.system(SYSTEM),
            Message.user(f"Question: {question}\nReference answer: {reference}\nLearner's answer: {answer}"),
        ]
        value = self.llm.structured(messages, LLMGrade, temperature=TEMPERATURE).value
        return Grade(quality=value.quality, score=float(value.quality), is_correct=value.quality >= PASS_QUALITY,
                     feedback=value.feedback.strip(),
                     features={"grader": "llm", "model_says_correct": value.is_correct})
