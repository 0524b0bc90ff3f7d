"""SM-2 spaced repetition exactly as the Teacher design specifies it.

Source: Teacher design doc, section "Bewertung und SM-2" (the learning engine's TypeScript, quoted verbatim):

    if (quality >= 3) {
      if (repetitions === 0) interval = 1;
      else if (repetitions === 1) interval = 3;
      else interval = Math.round(interval * ease_factor);
      repetitions += 1;
    } else {
      repetitions = 0;
      interval = 1;
    }
    ease_factor = Math.max(1.3, ease_factor + (0.1 - (5 - quality) * (0.08 + (5 - quality) * 0.02)));

Two consequences of that code, followed here on purpose:

* the interval is computed with the ease factor *before* this review; the ease factor is updated afterwards;
* the ease factor is updated on every review, failures included (the `ease_factor = ...` line is outside the
  if/else). This differs from Wozniak's original SM-2 ("start repetitions from the beginning without changing the
  E-Factor"); the design is the spec here.

Differences from the design's second interval (3 days, not SM-2's 6) are the design's too. `Math.round` rounds
half up (floor(x + 0.5)), unlike Python's `round`, which rounds half to even; see `round_half_up`.

Status and due date (same section): "learning" after a failure, "review" while repeating, "mastered" once the
interval reaches 21 days; the next review is due `interval` days after this one.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, replace
from datetime import datetime, timedelta

from app.errors import UserError
from app.learning.quality import STATUSES, Status, check_aware, check_quality, derive_status

DEFAULT_EASE = 2.5
MIN_EASE = 1.3


def round_half_up(x: float) -> int:
    """JavaScript's `Math.round` for the non-negative values SM-2 produces: floor(x + 0.5), so 7.5 -> 8, 12.5 -> 13."""
    return math.floor(x + 0.5)


def next_ease(ease_factor: float, quality: int) -> float:
    """EF' = max(1.3, EF + (0.1 - (5 - q)(0.08 + (5 - q) * 0.02))), same operation order as the design's code."""
    q = check_quality(quality)
    return max(MIN_EASE, ease_factor + (0.1 - (5 - q) * (0.08 + (5 - q) * 0.02)))


@dataclass(frozen=True, slots=True)
class ReviewState:
    """What SM-2 knows about one learner and one bite. Immutable: `review` returns a new one.

    `interval` is in whole days; `due` and `last_review` are None until the first review.
    """

    interval: int = 0
    repetitions: int = 0
    ease_factor: float = DEFAULT_EASE
    status: Status = "new"
    due: datetime | None = None
    last_review: datetime | None = None

    def __post_init__(self) -> None:
        if self.interval < 0 or self.repetitions < 0:
            raise UserError(f"interval and repetitions must be >= 0, got {self.interval} and {self.repetitions}")
        if self.ease_factor < MIN_EASE:
            raise UserError(f"ease_factor must be >= {MIN_EASE}, got {self.ease_factor}")
        if self.status not in STATUSES:
            raise UserError(f"status must be one of {', '.join(STATUSES)}, got {self.status!r}")

    def to_dict(self) -> dict:
        d = asdict(self)
        d["due"] = self.due.isoformat() if self.due else None
        d["last_review"] = self.last_review.isoformat() if self.last_review else None
        return d

    @classmethod
    def from_dict(cls, d: dict) -> "ReviewState":
        return cls(
            interval=int(d["interval"]),
            repetitions=int(d["repetitions"]),
            ease_factor=float(d["ease_factor"]),
            status=d["status"],
            due=datetime.fromisoformat(d["due"]) if d.get("due") else None,
            last_review=datetime.fromisoformat(d["last_review"]) if d.get("last_review") else None,
        )


def review(state: ReviewState, quality: int, now: datetime) -> ReviewState:
    """Apply one graded review (quality 0-5) at `now` and return the new state; `state` is not changed.

    Raises UserError for a quality outside 0..5 or a naive `now`.
    """
    q = check_quality(quality)
    check_aware(now)
    if q >= 3:
        if state.repetitions == 0:
            interval = 1
        elif state.repetitions == 1:
            interval = 3
        else:
            interval = round_half_up(state.interval * state.ease_factor)
        repetitions = state.repetitions + 1
    else:
        repetitions = 0
        interval = 1
    return replace(
        state,
        interval=interval,
        repetitions=repetitions,
        ease_factor=next_ease(state.ease_factor, q),
        status=derive_status(q, interval),
        due=now + timedelta(days=interval),
        last_review=now,
    )


class SM2Scheduler:
    """SM-2 behind the `Scheduler` protocol (see `app.learning.scheduler`)."""

    name = "sm2"

    def new_state(self) -> ReviewState:
        return ReviewState()

    def review(self, state: ReviewState, quality: int, now: datetime) -> ReviewState:
        return review(state, quality, now)

    def state_from_dict(self, d: dict) -> ReviewState:
        return ReviewState.from_dict(d)
