"""Guided practice: question bank, hint ladder, score bands, leak guard, the guided session and its agent loop
(re-exports only)."""

from app.practice.agent import TOOLS, AgentTutor, Assessment
from app.practice.bands import MAX_HINTS, ScoreBand, band_for, clamp_score, score_from_quality
from app.practice.feedback import Feedback
from app.practice.grounded import GroundedTutor
from app.practice.hints import cloze, grounded_hint
from app.practice.leak_guard import GuardedHint, content_overlap, guard_hint
from app.practice.moves import classify_move
from app.practice.questions import Question, QuestionFileReport, check_questions, load_questions, parse_questions
from app.practice.session import END_MARKER, GuidedSession, ToolCallError
from app.practice.store import HintEvent, InMemoryPracticeStore, PracticeStore, Rating, TeacherViewRow, teacher_view
from app.practice.turns import ToolLog, TutorTurn

__all__ = [
    "END_MARKER", "MAX_HINTS", "TOOLS", "AgentTutor", "Assessment", "Feedback", "GroundedTutor", "GuardedHint",
    "GuidedSession", "HintEvent", "InMemoryPracticeStore", "PracticeStore", "Question", "QuestionFileReport", "Rating",
    "ScoreBand", "TeacherViewRow", "ToolCallError", "ToolLog", "TutorTurn", "band_for", "check_questions",
    "clamp_score", "classify_move", "cloze", "content_overlap", "grounded_hint", "guard_hint", "load_questions",
    "parse_questions", "score_from_quality", "teacher_view",
]
