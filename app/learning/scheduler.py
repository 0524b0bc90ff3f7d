"""The scheduler seam: SM-2 (the Teacher design's algorithm) and FSRS behind one protocol.

    scheduler = get_scheduler("sm2")          # or "fsrs"
    state = scheduler.new_state()
    state = scheduler.review(state, quality=4, now=datetime(2026, 1, 1, tzinfo=timezone.utc))

Every state has `interval` (days), `repetitions`, `status`, `due` and `last_review`; `next_item` and `progress`
read only those, so they work with either scheduler.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal, Protocol, runtime_checkable

from app.errors import UserError
from app.learning.fsrs_scheduler import FSRSScheduler
from app.learning.quality import Status
from app.learning.sm2 import SM2Scheduler

SchedulerName = Literal["sm2", "fsrs"]
SCHEDULER_NAMES: tuple[SchedulerName, ...] = ("sm2", "fsrs")


@runtime_checkable
class ScheduleState(Protocol):
    """What every scheduler's state exposes."""

    @property
    def interval(self) -> int: ...
    @property
    def repetitions(self) -> int: ...
    @property
    def status(self) -> Status: ...
    @property
    def due(self) -> datetime | None: ...
    @property
    def last_review(self) -> datetime | None: ...
    def to_dict(self) -> dict: ...


@runtime_checkable
class Scheduler(Protocol):
    """A pure spaced-repetition scheduler: `review` returns a new state and never reads a clock."""

    name: str

    def new_state(self) -> Any: ...
    def review(self, state: Any, quality: int, now: datetime) -> Any: ...
    def state_from_dict(self, d: dict) -> Any: ...


def get_scheduler(name: str) -> Scheduler:
    """The scheduler called `name` ("sm2" or "fsrs"), with default settings."""
    if name == "sm2":
        return SM2Scheduler()
    if name == "fsrs":
        return FSRSScheduler()
    raise UserError(f"unknown scheduler {name!r}", hint=f"use one of: {', '.join(SCHEDULER_NAMES)}")


def simulate(scheduler: Scheduler, qualities: list[int], start: datetime) -> list[dict]:
    """Review one new bite with `qualities` in turn, each review on the previous review's due date (the first at
    `start`). One row per review: review number, review time, quality, then the resulting schedule."""
    state = scheduler.new_state()
    now = start
    rows = []
    for n, q in enumerate(qualities, start=1):
        state = scheduler.review(state, q, now)
        row = {
            "review": n,
            "date": now.isoformat(),
            "quality": q,
            "interval": state.interval,
            "repetitions": state.repetitions,
            "ease": round(state.ease_factor, 4) if hasattr(state, "ease_factor") else None,
            "status": state.status,
            "due": state.due.isoformat(),
        }
        if hasattr(state, "stability"):
            row["stability"] = round(state.stability, 4)
            row["difficulty"] = round(state.difficulty, 4)
        rows.append(row)
        now = state.due
    return rows
