"""Grounded mode: guided practice with no generative model.

Hints come from the ladder in `hints.py` (where to look → key concept → cloze → fewer gaps → nearly complete),
answers are graded by a `Grader` (the offline grader: quality 0-5, correct from 3). The Teacher design's rules:

- a correct answer ends the question; its score is the band of the hints counted, placed within the band by the
  grade (`bands.score_from_quality`);
- a wrong answer earns the next hint; after the fifth hint a wrong answer, a further hint request or giving up
  resolves the question: the reference answer is shown and the score is partial credit (1-3) from the best grade;
- everything the learner sees before the resolution passes the leak guard, the grader's feedback included.
"""

from __future__ import annotations

from datetime import datetime

from app.grading.grader import Grade, Grader
from app.practice.bands import MAX_HINTS, band_for, score_from_quality
from app.practice.hints import grounded_hint
from app.practice.moves import classify_move
from app.practice.session import GuidedSession
from app.practice.turns import TutorTurn


def _concepts(grade: Grade | None, key: str) -> list[str]:
    return list(grade.features.get(key, [])) if grade is not None else []


class GroundedTutor:
    """Drives a `GuidedSession` turn by turn with the grounded hint ladder and a grader."""

    def __init__(self, session: GuidedSession, grader: Grader) -> None:
        self.session = session
        self.grader = grader
        self.last_grade: Grade | None = None

    def start(self, now: datetime) -> TutorTurn:
        """Load the material and ask the first question."""
        self.session.get_content(now)
        return self._ask_next(now, prefix="")

    def _ask_next(self, now: datetime, prefix: str) -> TutorTurn:
        result = self.session.get_next_question(now)
        if result["end"]:
            text = (prefix + "\n\n" if prefix else "") + f"All {self.session.answered_count} questions are done."
            return TutorTurn(text=text, finished=True)
        head = f"Question {result['position']}/{result['total']}: {result['question']}"
        return TutorTurn(text=(prefix + "\n\n" if prefix else "") + head, question_id=result["questionId"],
                         question=result["question"])

    def respond(self, message: str, now: datetime) -> TutorTurn:
        """One learner message → one tutor turn (hint, feedback + next question, or resolution + next question)."""
        s = self.session
        if s.finished or s.current is None:
            return TutorTurn(text="The session is over.", finished=True)
        move = classify_move(message)
        open_q = s.current
        if move == "give_up":
            return self._resolve(now)
        if move == "hint":
            if len(open_q.hints) >= MAX_HINTS:
                return self._resolve(now)
            return self._hint(now, trigger="request", prefix="")
        grade = self.grader.grade(open_q.question.question, open_q.question.reference_answer, message)
        self.last_grade = grade
        s.record_answer(message, now, quality=grade.quality)
        if grade.is_correct:
            return self._rate_correct(grade, now)
        if len(open_q.hints) >= MAX_HINTS:
            return self._resolve(now)
        said = s.guard_reply(grade.feedback).text
        return self._hint(now, trigger="wrong_answer", prefix=said)

    def _hint(self, now: datetime, *, trigger: str, prefix: str) -> TutorTurn:
        s = self.session
        assert s.current is not None
        level = len(s.current.hints) + 1
        hint_text = grounded_hint(s.current.question, level, s.chunks)
        event = s.give_hint(hint_text, now, trigger=trigger)  # type: ignore[arg-type]
        line = f"Hint {event.level}/{MAX_HINTS}: {event.text}"
        text = f"{prefix}\n{line}" if prefix else line
        return TutorTurn(text=text, question_id=s.current.question.id, question=s.current.question.question, hint=event)

    def _rate_correct(self, grade: Grade, now: datetime) -> TutorTurn:
        s = self.session
        assert s.current is not None
        q = s.current.question
        hints = len(s.current.hints)
        band = band_for(hints)
        score = score_from_quality(band, grade.quality)
        covered = _concepts(grade, "covered")
        missing = _concepts(grade, "missing")
        rating, feedback = s.save_rating(
            q.id, score,
            f"Correct (grader quality {grade.quality}/5) after {hints} hint(s); "
            f"score placed in band {band} by the grade.",
            now,
            good=("You covered " + ", ".join(covered) + ".") if covered
            else "Your answer matches the reference in meaning.",
            missing="You could also mention " + ", ".join(missing) + "." if missing else "Nothing essential.",
            tip=f"Compare your answer with the reference: {q.reference_answer}",
        )
        turn = self._ask_next(now, prefix=feedback.render())
        return turn.model_copy(update={"feedback": feedback, "rating": rating})

    def _resolve(self, now: datetime) -> TutorTurn:
        s = self.session
        assert s.current is not None
        q = s.current.question
        resolution = s.resolve(now)
        quality = s.current.best_quality
        band = band_for(len(s.current.hints), resolved=True)
        score = score_from_quality(band, quality)
        covered = _concepts(self.last_grade, "covered") if s.current.attempts else []
        rating, feedback = s.save_rating(
            q.id, score,
            f"Resolved after {resolution.hints_given} hint(s); best grader quality {quality}/5 gives partial credit "
            f"in band {band}.",
            now,
            correct=False,
            good="You got part of it: " + ", ".join(covered) + "." if covered else "You kept working on it.",
            missing=f"The expected answer: {q.reference_answer}",
            tip=f"Reread {q.where()} and try this question again later.",
        )
        turn = self._ask_next(now, prefix=f"The answer: {q.reference_answer}\n\n{feedback.render()}")
        return turn.model_copy(update={"feedback": feedback, "rating": rating, "revealed_answer": q.reference_answer})
