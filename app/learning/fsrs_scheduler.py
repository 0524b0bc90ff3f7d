"""FSRS scheduling through the `fsrs` package (open-spaced-repetition/py-fsrs), behind the same interface as SM-2.

Quality 0-5 maps onto FSRS's four buttons by one table, `QUALITY_TO_RATING`:

    quality  SM-2 meaning (Wozniak 1990)                         FSRS rating
    0        complete blackout                                   Again
    1        incorrect; the correct answer remembered on seeing it Again
    2        incorrect; the correct answer seemed easy to recall   Again
    3        correct, recalled with serious difficulty            Hard
    4        correct after a hesitation                           Good
    5        perfect response                                     Easy

Why: SM-2 treats q < 3 as a lapse (repetitions reset to 0) and FSRS's only lapse rating is Again, so 0-2 must all be
Again or the two schedulers would disagree on what counts as forgotten. The three passing grades then map one-to-one
onto FSRS's three passing ratings in the same order of effort ("Hard" is FSRS's "recalled, with serious
difficulty"). Through `app.learning.scales` this also means the tutor's 1-10 score bands with at most three hints pass.

Choices, each overridable in `FSRSScheduler(...)`:

* No learning or relearning steps by default. py-fsrs defaults to 1 and 10 minute steps; this engine plans whole bites
  per day (the design's "heute fällige" queue), so a review goes straight to a day-scale interval, as in SM-2. py-fsrs
  supports empty step lists explicitly.
* No fuzzing: py-fsrs fuzzes with the module-global `random()`, which would make schedules irreproducible.
* desired_retention 0.9 and the package's default parameters.

Status is derived like SM-2's: `learning` after a failed review (or while FSRS is in a learning/relearning step),
`mastered` once the interval reaches 21 days, `review` otherwise. `repetitions` counts consecutive passed reviews.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta, timezone

from fsrs import Card, Rating, State
from fsrs import Scheduler as _FsrsScheduler

from app.errors import UserError
from app.learning.quality import STATUSES, Status, check_aware, check_quality, derive_status, is_pass

QUALITY_TO_RATING: dict[int, Rating] = {
    0: Rating.Again,
    1: Rating.Again,
    2: Rating.Again,
    3: Rating.Hard,
    4: Rating.Good,
    5: Rating.Easy,
}


def rating_for(quality: int) -> Rating:
    """The FSRS rating for a 0-5 quality (see the module table)."""
    return QUALITY_TO_RATING[check_quality(quality)]


@dataclass(frozen=True, slots=True)
class FSRSState:
    """What FSRS knows about one learner and one bite. Immutable: `FSRSScheduler.review` returns a new one.

    `interval` is the whole days from the last review to `due` (0 while in a sub-day learning step).
    `fsrs_state`/`step` are the package's `State` value and learning step; None before the first review.
    """

    interval: int = 0
    repetitions: int = 0
    stability: float | None = None
    difficulty: float | None = None
    status: Status = "new"
    due: datetime | None = None
    last_review: datetime | None = None
    fsrs_state: int | None = None
    step: int | None = None

    def __post_init__(self) -> None:
        if self.status not in STATUSES:
            raise UserError(f"status must be one of {', '.join(STATUSES)}, got {self.status!r}")

    def to_dict(self) -> dict:
        return {
            "interval": self.interval,
            "repetitions": self.repetitions,
            "stability": self.stability,
            "difficulty": self.difficulty,
            "status": self.status,
            "due": self.due.isoformat() if self.due else None,
            "last_review": self.last_review.isoformat() if self.last_review else None,
            "fsrs_state": self.fsrs_state,
            "step": self.step,
        }

    @classmethod
    def from_dict(cls, d: dict) -> "FSRSState":
        return cls(
            interval=int(d["interval"]),
            repetitions=int(d["repetitions"]),
            stability=d.get("stability"),
            difficulty=d.get("difficulty"),
            status=d["status"],
            due=datetime.fromisoformat(d["due"]) if d.get("due") else None,
            last_review=datetime.fromisoformat(d["last_review"]) if d.get("last_review") else None,
            fsrs_state=d.get("fsrs_state"),
            step=d.get("step"),
        )


class FSRSScheduler:
    """FSRS behind the `Scheduler` protocol (see `app.learning.scheduler`)."""

    name = "fsrs"

    def __init__(
        self,
        *,
        desired_retention: float = 0.9,
        learning_steps: tuple[timedelta, ...] = (),
        relearning_steps: tuple[timedelta, ...] = (),
        maximum_interval: int = 36500,
    ) -> None:
        try:
            self._fsrs = _FsrsScheduler(
                desired_retention=desired_retention,
                learning_steps=learning_steps,
                relearning_steps=relearning_steps,
                maximum_interval=maximum_interval,
                enable_fuzzing=False,
            )
        except ValueError as e:  # the package validates its parameters with ValueError
            raise UserError(f"invalid FSRS settings: {e}") from e

    def new_state(self) -> FSRSState:
        return FSRSState()

    def state_from_dict(self, d: dict) -> FSRSState:
        return FSRSState.from_dict(d)

    def review(self, state: FSRSState, quality: int, now: datetime) -> FSRSState:
        """Apply one graded review (quality 0-5) at `now`; `state` is not changed."""
        q = check_quality(quality)
        when = check_aware(now).astimezone(timezone.utc)  # py-fsrs insists on tzinfo == timezone.utc
        card, _log = self._fsrs.review_card(self._to_card(state, when), rating_for(q), when)
        interval = (card.due - when).days
        in_step = card.state in (State.Learning, State.Relearning)
        status: Status = "learning" if in_step else derive_status(q, interval)
        return FSRSState(
            interval=interval,
            repetitions=state.repetitions + 1 if is_pass(q) else 0,
            stability=card.stability,
            difficulty=card.difficulty,
            status=status,
            due=card.due,
            last_review=when,
            fsrs_state=int(card.state),
            step=card.step,
        )

    @staticmethod
    def _to_card(state: FSRSState, now: datetime) -> Card:
        if state.fsrs_state is None:  # never reviewed: a fresh card (card_id fixed: no clock, no sleep)
            return Card(card_id=0, due=now)
        return Card(
            card_id=0,
            state=State(state.fsrs_state),
            step=state.step,
            stability=state.stability,
            difficulty=state.difficulty,
            due=(state.due or now).astimezone(timezone.utc),
            last_review=state.last_review.astimezone(timezone.utc) if state.last_review else None,
        )
