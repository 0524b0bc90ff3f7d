"""The fixed feedback structure of the Teacher design: score with its reason, what was good, what was missing, a
learning tip, and the transition to the next question ("Punktzahl mit Begründung, was gut war, was fehlte, ein
Lernhinweis und die Überleitung zur nächsten Frage"). Whoever fills it (model or grounded grader), it renders the
same five parts in the same order.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

SECTION_TITLES = ("Score", "What was good", "What was missing", "Learning tip", "Next")


class Feedback(BaseModel):
    """Feedback on one finished question; `score` is the saved (clamped) score."""

    model_config = ConfigDict(frozen=True)

    score: int = Field(ge=1, le=10)
    reason: str
    good: str
    missing: str
    tip: str
    transition: str

    def sections(self) -> list[tuple[str, str]]:
        """The five (title, text) parts in their fixed order."""
        return list(zip(SECTION_TITLES, (f"{self.score}/10 — {self.reason}", self.good, self.missing, self.tip,
                                         self.transition)))

    def render(self) -> str:
        """Plain text, one part per line: 'Score: 7/10 — …', 'What was good: …', …, 'Next: …'."""
        return "\n".join(f"{title}: {text}" for title, text in self.sections())


def transition_text(next_question: str | None) -> str:
    """The last part: on to the next question, or the end of the session."""
    if next_question is None:
        return "That was the last question — well done for working through all of them."
    return f"Next question: {next_question}"


def help_reason(hints: int, resolved: bool) -> str:
    """The help part of the score's reason, from the counted hints."""
    if resolved:
        return f"the answer was resolved after {hints} hint{'s' if hints != 1 else ''}"
    if hints == 0:
        return "answered without any hint"
    return f"answered after {hints} hint{'s' if hints != 1 else ''}"
