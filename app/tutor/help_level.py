"""Help levels: how much the tutor gives away, counted in code from the conversation (never left to a model).

A learner who keeps asking about the same problem gets one level more help each time, up to 5 (level 5 nearly
reveals); a new problem starts again at 1. The new message continues the previous problem when

- it says so explicitly ("still stuck", "I don't get it", "another hint", "ich versteh's nicht", ...), or
- it has the previous learner message's intent and shares most of its content words: the overlap coefficient
  |A ∩ B| / min(|A|, |B|) of the two stemmed, stop-word-free token sets is at least `SAME_TOPIC_OVERLAP`
  (Szymkiewicz–Simpson; it does not penalise a short follow-up that repeats the key terms of a long question).

The level of the previous problem is read from the last tutor turn (`Turn.help_level`); a history without one
counts as level 1.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from app.tutor.strategies import MAX_LEVEL
from app.tutor.types import Turn
from indexing.tokenize import tokenize

SAME_TOPIC_OVERLAP = 0.5

_STUCK = re.compile(
    r"\b(still (stuck|lost|confused|don'?t (get|see|understand))|i('m| am) (still )?(stuck|lost|confused)|"
    r"i (still )?(don'?t|do not|dont) (get|understand|see) (it|this|that|why|how)|don'?t get it|"
    r"(another|one more|a further|more|a bigger|a better|next) hint|more help|help me more|give me more|"
    r"not clear yet|makes no sense|"
    r"ich versteh'?s nicht|ich versteh(e)? (es|das|den|die)? ?(immer )?noch nicht|ich versteh(e)? (es|das) nicht|"
    r"versteh(e)? ich nicht|(noch )?(ein(en)?|weiteren) (tipp|hinweis)|noch ein tipp|immer noch (nicht|unklar)|"
    r"komme? nicht weiter|kapier(e)? (es|das)? ?nicht|hilf mir (weiter|mehr))\b",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class HelpDecision:
    level: int  # 1..5
    same_problem: bool
    reason: str  # "first message", "explicit follow-up", "same intent and topic", "new problem"
    previous_question: str | None = None  # the learner message that opened or continued the problem
    previous_intent: str | None = None


def asks_for_more_help(message: str) -> bool:
    """An explicit 'still stuck' / 'another hint' / 'ich versteh's nicht'."""
    return _STUCK.search(message.replace("’", "'")) is not None


def topic_overlap(a: str, b: str) -> float:
    """Overlap coefficient of the two messages' content tokens (0 when either has none)."""
    ta, tb = set(tokenize(a)), set(tokenize(b))
    if not ta or not tb:
        return 0.0
    return len(ta & tb) / min(len(ta), len(tb))


def _previous(history: list[Turn]) -> tuple[Turn | None, int]:
    """The last learner turn and the help level of the problem it belongs to."""
    last_user = next((t for t in reversed(history) if t.role == "user"), None)
    level = next((t.help_level for t in reversed(history) if t.help_level is not None), None)
    return last_user, level or 1


def decide_help_level(history: list[Turn], message: str, intent: str) -> HelpDecision:
    """The help level for `message` given the conversation so far (pure; see the module docstring)."""
    last_user, previous_level = _previous(history)
    if last_user is None:
        return HelpDecision(1, False, "first message")
    prev_intent = last_user.intent or next(
        (t.intent for t in reversed(history) if t.role == "assistant" and t.intent), None
    )
    if asks_for_more_help(message):
        reason = "explicit follow-up"
    elif prev_intent == str(intent) and topic_overlap(message, last_user.content) >= SAME_TOPIC_OVERLAP:
        reason = "same intent and topic"
    else:
        return HelpDecision(1, False, "new problem")
    return HelpDecision(
        min(MAX_LEVEL, previous_level + 1),
        True,
        reason,
        previous_question=problem_question(history),
        previous_intent=prev_intent,
    )


def problem_question(history: list[Turn]) -> str | None:
    """The learner message that states the current problem: the last one that is not just a plea for more help."""
    users = [t for t in history if t.role == "user"]
    for turn in reversed(users):
        if not asks_for_more_help(turn.content) or len(tokenize(turn.content)) > 4:
            return turn.content
    return users[-1].content if users else None
