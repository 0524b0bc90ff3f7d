"""The 0-5 answer quality shared by every scheduler, and the learning status derived from a review.

Quality is SM-2's response grade (Wozniak 1990, "SuperMemo 2"):

    5  perfect response
    4  correct response after a hesitation
    3  correct response recalled with serious difficulty
    2  incorrect response; where the correct one seemed easy to recall
    1  incorrect response; the correct one remembered
    0  complete blackout

A review passes at quality >= 3 (Teacher design, "Bewertung und SM-2": `if (quality >= 3) ... else { repetitions = 0 }`).

Status (Teacher design, same section): "learning" after a failure, "review" while repeating, "mastered" once the
interval reaches 21 days; "new" until the first review.
"""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from app.errors import UserError

Status = Literal["new", "learning", "review", "mastered"]
STATUSES: tuple[Status, ...] = ("new", "learning", "review", "mastered")

MIN_QUALITY = 0
MAX_QUALITY = 5
PASS_QUALITY = 3
MASTERED_INTERVAL_DAYS = 21


def check_quality(quality: object) -> int:
    """Return `quality` if it is an int in 0..5, else raise UserError saying what is allowed."""
    if isinstance(quality, bool) or not isinstance(quality, int) or not MIN_QUALITY <= quality <= MAX_QUALITY:
        raise UserError(
            f"quality must be an integer from {MIN_QUALITY} to {MAX_QUALITY}, got {quality!r}",
            hint="0-2 = failed recall, 3 = hard, 4 = good, 5 = perfect",
        )
    return quality


def is_pass(quality: int) -> bool:
    """A review counts as recalled at quality >= 3 (SM-2)."""
    return check_quality(quality) >= PASS_QUALITY


def derive_status(quality: int, interval_days: int) -> Status:
    """Status after a review: a failure is `learning`, an interval of 21+ days `mastered`, else `review`."""
    if not is_pass(quality):
        return "learning"
    if interval_days >= MASTERED_INTERVAL_DAYS:
        return "mastered"
    return "review"


def check_aware(now: datetime) -> datetime:
    """Schedules are computed on timezone-aware datetimes only, so that due dates compare across servers."""
    if not isinstance(now, datetime) or now.tzinfo is None or now.utcoffset() is None:
        raise UserError(
            f"now must be a timezone-aware datetime, got {now!r}",
            hint="pass e.g. datetime(2026, 1, 1, tzinfo=timezone.utc)",
        )
    return now
