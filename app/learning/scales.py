"""The one mapping from the guided-practice score (1-10) to the scheduler's answer quality (0-5).

Why one table: the Teacher design's dialog tutor scores 1-10 and its learning engine grades 0-5 because SM-2 needs
that scale; "Skalen früh vereinheitlichen" (lessons learned) asks for one unambiguous mapping so the tutor's ratings
can feed the review schedule. The score bands are the design's ("Pädagogik im Prompt"), tied to the hints given:

    score  tutor band (hints given)                      quality  SM-2 meaning (Wozniak 1990)             pass?
    10     correct without help                          5        perfect response                        yes
    8-9    correct after one hint                        4        correct after a hesitation              yes
    6-7    correct after two or three hints              3        correct with serious difficulty         yes
    4-5    correct only after four or five hints         2        incorrect; correct one seemed easy      no
    2-3    partial credit after the full five hints      1        incorrect; correct one remembered       no
    1      nothing right even after full help            0        complete blackout                       no

Which bands pass (quality >= 3, SM-2's threshold): up to three hints the learner still produced the answer from
memory, with more effort per hint, so the item is recalled and its interval grows. From the fourth hint on the tutor
is close to giving the answer away (the fifth "verrät fast die Lösung"), so the learner recognised rather than
recalled it: SM-2 must restart the item (interval 1 day) — quality 2 says exactly that ("seemed easy once shown").
Partial credit after full help is quality 1, and a score of 1 (the lowest the tutor may save) is a blackout, 0.
"""

from __future__ import annotations

from app.errors import UserError
from app.learning.quality import PASS_QUALITY, check_quality

MIN_SCORE = 1
MAX_SCORE = 10

SCORE_TO_QUALITY: dict[int, int] = {
    10: 5,
    9: 4,
    8: 4,
    7: 3,
    6: 3,
    5: 2,
    4: 2,
    3: 1,
    2: 1,
    1: 0,
}


def quality_from_score(score: int) -> int:
    """The 0-5 quality for a tutor score 1-10 (module table). UserError outside 1..10 or for non-integers."""
    if isinstance(score, bool) or not isinstance(score, int) or score not in SCORE_TO_QUALITY:
        raise UserError(f"score must be an integer from {MIN_SCORE} to {MAX_SCORE}, got {score!r}")
    return SCORE_TO_QUALITY[score]


def score_range(quality: int) -> tuple[int, int]:
    """The (lowest, highest) tutor scores that map to `quality`, e.g. 4 -> (8, 9): the inverse view of the table."""
    q = check_quality(quality)
    scores = [s for s, qq in SCORE_TO_QUALITY.items() if qq == q]
    return min(scores), max(scores)


def score_passes(score: int) -> bool:
    """Whether a tutor score counts as recalled for scheduling (quality >= 3, i.e. score >= 6)."""
    return quality_from_score(score) >= PASS_QUALITY
