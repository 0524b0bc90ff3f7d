"""Next-item order and progress counts with a fixed clock (2026-03-10 12:00 UTC)."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from app.errors import UserError
from app.learning.bites import LearningBite
from app.learning.fsrs_scheduler import FSRSScheduler
from app.learning.next_item import NextItem, next_items
from app.learning.progress import Progress, end_of_day, progress
from app.learning.sm2 import ReviewState

NOW = datetime(2026, 3, 10, 12, 0, tzinfo=timezone.utc)


def bite(i: int, prereqs: list[int] | None = None) -> LearningBite:
    return LearningBite(id=i, title=f"Bite {i}", content=f"text {i}", difficulty=2, prerequisites=prereqs or [])


BITES = [bite(1), bite(2, [1]), bite(3, [2]), bite(4), bite(5, [4]), bite(6, [3, 5])]


def state(status: str, due: datetime, interval: int = 1) -> ReviewState:
    return ReviewState(interval=interval, repetitions=1, status=status, due=due, last_review=due - timedelta(days=interval))  # type: ignore[arg-type]


def test_due_reviews_most_overdue_first_then_next_new_bite():
    states = {
        1: state("review", NOW - timedelta(days=1)),          # overdue 1 day
        2: state("learning", NOW - timedelta(days=3)),        # overdue 3 days: first
        4: state("mastered", NOW + timedelta(days=20), 25),   # not due
        3: ReviewState(),                                     # status new: not started
    }
    assert next_items(BITES, states, NOW) == [
        NextItem(2, "review", NOW - timedelta(days=3), timedelta(days=3)),
        NextItem(1, "review", NOW - timedelta(days=1), timedelta(days=1)),
        # 3 is the first unstarted bite and its prerequisite 2 is started
        NextItem(3, "new"),
    ]


def test_new_bite_waits_for_its_prerequisites():
    # 1 started, not due. 2 is next (prereq 1 started). With a limit of 3: 2, then 4 (3 waits for 2), 5 waits for 4.
    states = {1: state("review", NOW + timedelta(days=2))}
    assert next_items(BITES, states, NOW, new_limit=3) == [NextItem(2, "new"), NextItem(4, "new")]


def test_empty_history_starts_at_the_first_bite():
    assert next_items(BITES, {}, NOW) == [NextItem(1, "new")]
    assert next_items([], {}, NOW) == []


def test_due_exactly_now_is_due_and_ties_keep_course_order():
    states = {4: state("review", NOW), 1: state("review", NOW)}
    assert [(i.bite_id, i.kind) for i in next_items(BITES, states, NOW)] == [(1, "review"), (4, "review"), (2, "new")]


def test_everything_started_and_nothing_due():
    states = {b.id: state("review", NOW + timedelta(hours=1)) for b in BITES}
    assert next_items(BITES, states, NOW) == []


def test_works_with_fsrs_states_and_ignores_unknown_bites():
    fsrs = FSRSScheduler()
    s = fsrs.review(fsrs.new_state(), 4, NOW - timedelta(days=5))  # interval 2 days: due 3 days ago
    assert next_items(BITES, {1: s, 99: s}, NOW)[0] == NextItem(1, "review", NOW - timedelta(days=3), timedelta(days=3))


def test_progress_counts():
    states = {
        1: state("review", NOW - timedelta(days=2)),               # due (overdue)
        2: state("learning", datetime(2026, 3, 10, 23, 59, tzinfo=timezone.utc)),  # due later today
        3: state("review", datetime(2026, 3, 11, 0, 0, tzinfo=timezone.utc)),     # tomorrow: not today
        4: state("mastered", NOW + timedelta(days=30), 30),
        5: ReviewState(),                                          # new
        42: state("review", NOW),                                  # not in the course
    }
    assert progress(BITES, states, NOW) == Progress(total=6, new=2, learning=1, review=2, mastered=1, due_today=2)
    assert progress(BITES, {}, NOW).to_dict() == {
        "total": 6, "new": 6, "learning": 0, "review": 0, "mastered": 0, "due_today": 0,
    }


def test_today_is_the_learners_calendar_day():
    cet = timezone(timedelta(hours=1))
    now = datetime(2026, 3, 10, 23, 30, tzinfo=cet)  # 22:30 UTC
    assert end_of_day(now) == datetime(2026, 3, 11, 0, 0, tzinfo=cet)
    due_0030_cet = datetime(2026, 3, 10, 23, 30, tzinfo=timezone.utc)  # 00:30 on the 11th in CET
    assert progress(BITES, {1: state("review", due_0030_cet)}, now).due_today == 0


def test_naive_clock_is_rejected():
    with pytest.raises(UserError, match="timezone-aware"):
        next_items(BITES, {}, datetime(2026, 3, 10))
    with pytest.raises(UserError, match="timezone-aware"):
        progress(BITES, {}, datetime(2026, 3, 10))
