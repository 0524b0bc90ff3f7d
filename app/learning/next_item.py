"""What a learner should do next (Teacher design, "Bewertung und SM-2"): due reviews first, then new material.

    "Bei der Frage, was als Nächstes drankommt, haben fällige Wiederholungen Vorrang; erst danach folgt das nächste
    noch nicht begonnene Häppchen in Kursreihenfolge."

Pure: bites in course order, the learner's schedule states by bite id (any scheduler's, see
`app.learning.scheduler.ScheduleState`), and `now`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Literal

from app.learning.bites import LearningBite
from app.learning.quality import check_aware
from app.learning.scheduler import ScheduleState


@dataclass(frozen=True, slots=True)
class NextItem:
    """A bite to work on: a due `review` (with how long it is overdue) or a `new` bite."""

    bite_id: int
    kind: Literal["review", "new"]
    due: datetime | None = None
    overdue: timedelta | None = None


def is_started(state: ScheduleState | None) -> bool:
    """A bite is started once it has been reviewed at least once."""
    return state is not None and state.status != "new" and state.due is not None


def due_reviews(
    bites: Sequence[LearningBite], states: Mapping[int, ScheduleState], now: datetime
) -> list[NextItem]:
    """Started bites due at or before `now`, most overdue first (ties in course order)."""
    check_aware(now)
    order = {b.id: i for i, b in enumerate(bites)}
    due = [
        (states[b.id].due, order[b.id], b.id)
        for b in bites
        if is_started(states.get(b.id)) and states[b.id].due <= now  # type: ignore[operator]
    ]
    due.sort()
    return [NextItem(bite_id, "review", when, now - when) for when, _, bite_id in due]


def next_new(
    bites: Sequence[LearningBite], states: Mapping[int, ScheduleState], *, limit: int = 1
) -> list[NextItem]:
    """The first `limit` bites in course order that are not started and whose prerequisites all are."""
    out: list[NextItem] = []
    for b in bites:
        if len(out) >= limit:
            break
        if is_started(states.get(b.id)):
            continue
        if all(is_started(states.get(p)) for p in b.prerequisites):
            out.append(NextItem(b.id, "new"))
    return out


def next_items(
    bites: Sequence[LearningBite],
    states: Mapping[int, ScheduleState],
    now: datetime,
    *,
    new_limit: int = 1,
) -> list[NextItem]:
    """Due reviews (most overdue first), then up to `new_limit` new bites in course order.

    States for bites not in `bites` are ignored. A new bite is offered only when every prerequisite has been
    started; a prerequisite id that names no bite in the course can never be started and so blocks its bite —
    `validate_bites` and `bites_from_sections` never produce one.
    """
    return due_reviews(bites, states, now) + next_new(bites, states, limit=new_limit)
