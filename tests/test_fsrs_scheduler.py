"""FSRS via the `fsrs` package: the quality mapping, derived status and golden first intervals.

With desired_retention 0.9, FSRS's next interval equals the stability (R(t=S) = 0.9 by construction), rounded to
whole days and at least 1. A new card's stability is the package default parameter w[rating-1]:
Again 0.212 -> 1 day, Hard 1.2931 -> 1 day, Good 2.3065 -> 2 days, Easy 8.2956 -> 8 days.
"""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest
from fsrs import Rating, State

from app.errors import UserError
from app.learning.fsrs_scheduler import QUALITY_TO_RATING, FSRSScheduler, FSRSState, rating_for
from app.learning.scheduler import ScheduleState, Scheduler, get_scheduler
from app.learning.sm2 import ReviewState

T0 = datetime(2026, 1, 1, tzinfo=timezone.utc)


def run(qualities: list[int]) -> list[FSRSState]:
    sched = FSRSScheduler()
    state, now, out = sched.new_state(), T0, []
    for q in qualities:
        state = sched.review(state, q, now)
        out.append(state)
        now = state.due
    return out


def test_quality_to_rating_table():
    assert QUALITY_TO_RATING == {
        0: Rating.Again, 1: Rating.Again, 2: Rating.Again, 3: Rating.Hard, 4: Rating.Good, 5: Rating.Easy,
    }
    with pytest.raises(UserError):
        rating_for(6)


@pytest.mark.parametrize(
    ("quality", "stability", "interval", "status"),
    [(0, 0.212, 1, "learning"), (2, 0.212, 1, "learning"), (3, 1.2931, 1, "review"),
     (4, 2.3065, 2, "review"), (5, 8.2956, 8, "review")],
)
def test_first_review_golden(quality, stability, interval, status):
    state = FSRSScheduler().review(FSRSState(), quality, T0)
    assert state.stability == pytest.approx(stability)
    assert state.interval == interval
    assert state.due == T0 + timedelta(days=interval)
    assert state.status == status
    assert state.repetitions == (1 if quality >= 3 else 0)
    assert state.fsrs_state == State.Review  # no sub-day learning steps by default
    assert state.last_review == T0


def test_sequence_grows_then_lapses_to_learning():
    states = run([4, 4, 4, 1, 4])
    intervals = [s.interval for s in states]
    # Good, Good, Good: intervals grow; the third passes 21 days -> mastered.
    assert intervals[0] == 2 and intervals[0] < intervals[1] < intervals[2]
    assert [s.status for s in states] == ["review", "review", "mastered", "learning", "review"]
    assert [s.repetitions for s in states] == [1, 2, 3, 0, 1]
    # a lapse cuts stability and raises difficulty
    assert states[3].stability < states[2].stability
    assert states[3].difficulty > states[2].difficulty
    # golden regression values for fsrs 6.x default parameters, no fuzz
    assert intervals == [2, 11, 46, 3, 8]


def test_review_is_pure():
    start = FSRSState()
    FSRSScheduler().review(start, 5, T0)
    assert start == FSRSState()


def test_with_learning_steps_a_new_card_stays_learning_same_day():
    sched = FSRSScheduler(learning_steps=(timedelta(minutes=1), timedelta(minutes=10)))
    state = sched.review(sched.new_state(), 4, T0)
    assert (state.status, state.interval, state.due) == ("learning", 0, T0 + timedelta(minutes=10))


def test_other_timezones_are_converted_to_utc():
    cet = timezone(timedelta(hours=1))
    state = FSRSScheduler().review(FSRSState(), 4, datetime(2026, 1, 1, 1, 0, tzinfo=cet))
    assert state.last_review == T0
    assert state.due == T0 + timedelta(days=2)


def test_errors():
    with pytest.raises(UserError, match="timezone-aware"):
        FSRSScheduler().review(FSRSState(), 4, datetime(2026, 1, 1))
    with pytest.raises(UserError, match="quality"):
        FSRSScheduler().review(FSRSState(), 7, T0)
    with pytest.raises(UserError, match="unknown scheduler"):
        get_scheduler("leitner")


def test_dict_round_trip():
    state = run([4, 1])[-1]
    assert FSRSState.from_dict(state.to_dict()) == state


@pytest.mark.parametrize("name", ["sm2", "fsrs"])
def test_scheduler_contract(name):
    """Both schedulers: pure review, protocol-shaped states, fail -> learning, due = now + interval days."""
    sched = get_scheduler(name)
    assert isinstance(sched, Scheduler) and sched.name == name
    state = sched.new_state()
    assert isinstance(state, ScheduleState) and state.status == "new" and state.due is None
    passed = sched.review(state, 5, T0)
    assert passed.status == "review" and passed.repetitions == 1
    assert passed.due == T0 + timedelta(days=passed.interval)
    failed = sched.review(passed, 0, passed.due)
    assert failed.status == "learning" and failed.repetitions == 0 and failed.interval >= 1
    assert sched.state_from_dict(failed.to_dict()) == failed
    assert isinstance(get_scheduler("sm2").new_state(), ReviewState)
