"""Short-answer grading (offline: MiniLM similarity + demoted concept coverage)."""

from app.grading.grader import Grade, Grader, OfflineGrader, grade_answer

__all__ = ["Grade", "Grader", "OfflineGrader", "grade_answer"]
