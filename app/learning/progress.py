"""Course progress for one learner (Teacher design: "neue, lernende, wiederholende und gemeisterte Häppchen sowie
die Zahl der heute fälligen")."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from datetime import datetime, time, timedelta

from app.learning.bites import LearningBite
from app.learning.next_item import is_started
from app.learning.quality import check_aware
from app.learning.scheduler import ScheduleState


@dataclass(frozen=True, slots=True)
class Progress:
    total: int
    new: int
    learning: int
    review: int
    mastered: int
    due_today: int

    def to_dict(self) -> dict:
        return asdict(self)


def end_of_day(now: datetime) -> datetime:
    """Midnight after `now`, in `now`'s own time zone: "today" is the learner's calendar day."""
    return datetime.combine(now.date() + timedelta(days=1), time(0), tzinfo=now.tzinfo)


def progress(bites: Sequence[LearningBite], states: Mapping[int, ScheduleState], now: datetime) -> Progress:
    """Counts over the course's bites: a bite without a (started) state is new; `due_today` counts started bites
    due before the end of `now`'s day, overdue ones included. States of bites not in the course are ignored."""
    check_aware(now)
    counts = {"new": 0, "learning": 0, "review": 0, "mastered": 0}
    due_today = 0
    cutoff = end_of_day(now)
    for b in bites:
        state = states.get(b.id)
        if not is_started(state):
            counts["new"] += 1
            continue
        counts[state.status] += 1  # type: ignore[union-attr]
        if state.due < cutoff:  # type: ignore[union-attr,operator]
            due_today += 1
    return Progress(total=len(bites), due_today=due_today, **counts)
