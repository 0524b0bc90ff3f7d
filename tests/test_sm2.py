"""SM-2 golden sequences, hand-computed from the Teacher design's code (see app/learning/sm2.py).

Each review happens on the previous review's due date, starting 2026-01-01 00:00 UTC.
EF delta per quality: d(q) = 0.1 - (5-q)(0.08 + (5-q)*0.02):
  d(5) = +0.10, d(4) = 0.1 - 1*0.10 = 0.00, d(3) = 0.1 - 2*0.12 = -0.14,
  d(2) = 0.1 - 3*0.14 = -0.32, d(1) = 0.1 - 4*0.16 = -0.54, d(0) = 0.1 - 5*0.18 = -0.80.
"""

from __future__ import annotations

from dataclasses import FrozenInstanceError
from datetime import datetime, timedelta, timezone

import pytest

from app.errors import UserError
from app.learning.sm2 import ReviewState, SM2Scheduler, next_ease, review, round_half_up

T0 = datetime(2026, 1, 1, tzinfo=timezone.utc)


def run(qualities: list[int], state: ReviewState | None = None) -> list[ReviewState]:
    state = state or ReviewState()
    now = T0
    out = []
    for q in qualities:
        state = review(state, q, now)
        out.append(state)
        now = state.due
    return out


def summary(states: list[ReviewState]) -> list[tuple]:
    return [(s.interval, s.repetitions, round(s.ease_factor, 9), s.status, s.due.date().isoformat()) for s in states]


def test_perfect_answers_reach_mastered():
    # r1: reps 0 -> I=1; EF 2.5+0.1=2.6          due 01-02
    # r2: reps 1 -> I=3; EF 2.7                   due 01-05
    # r3: I = round(3 * 2.7 = 8.1) = 8; EF 2.8    due 01-13   (old EF 2.7 is used, then EF is updated)
    # r4: I = round(8 * 2.8 = 22.4) = 22 >= 21 -> mastered; EF 2.9   due 02-04
    assert summary(run([5, 5, 5, 5])) == [
        (1, 1, 2.6, "review", "2026-01-02"),
        (3, 2, 2.7, "review", "2026-01-05"),
        (8, 3, 2.8, "review", "2026-01-13"),
        (22, 4, 2.9, "mastered", "2026-02-04"),
    ]


def test_quality_4_keeps_ease_and_rounds_half_up_and_masters_at_21_days():
    # d(4) = 0, EF stays 2.5.
    # r3: I = 3 * 2.5 = 7.5 -> Math.round -> 8 (not 7 as truncation would give)
    # r4: I = 8 * 2.5 = 20 -> still "review" (20 < 21)
    # r5: I = 20 * 2.5 = 50 -> mastered
    assert summary(run([4, 4, 4, 4, 4])) == [
        (1, 1, 2.5, "review", "2026-01-02"),
        (3, 2, 2.5, "review", "2026-01-05"),
        (8, 3, 2.5, "review", "2026-01-13"),
        (20, 4, 2.5, "review", "2026-02-02"),
        (50, 5, 2.5, "mastered", "2026-03-24"),
    ]


def test_half_rounds_up_where_python_round_would_go_to_even():
    # I = 5 * 2.5 = 12.5 -> 13 (Python's round(12.5) is 12; the design's Math.round gives 13)
    state = review(ReviewState(interval=5, repetitions=2, ease_factor=2.5, status="review"), 4, T0)
    assert state.interval == 13
    assert state.due == datetime(2026, 1, 14, tzinfo=timezone.utc)
    assert [round_half_up(x) for x in (0.5, 2.5, 7.5, 12.5, 12.49, 8.1)] == [1, 3, 8, 13, 12, 8]


def test_exactly_21_days_is_mastered():
    # I = round(7 * 3.0 = 21.0) = 21 -> mastered
    state = review(ReviewState(interval=7, repetitions=3, ease_factor=3.0, status="review"), 4, T0)
    assert (state.interval, state.status) == (21, "mastered")


def test_interval_uses_ease_before_this_review():
    # Quality 3 lowers EF by 0.14 each time: 2.5 -> 2.36 -> 2.22 -> 2.08 -> 1.94 -> 1.80
    # r3: I = round(3 * 2.22 = 6.66) = 7   (with the updated EF 2.08 it would be round(6.24) = 6)
    # r4: I = round(7 * 2.08 = 14.56) = 15 (with 1.94: round(13.58) = 14)
    # r5: I = round(15 * 1.94 = 29.1) = 29 -> mastered
    assert summary(run([3, 3, 3, 3, 3])) == [
        (1, 1, 2.36, "review", "2026-01-02"),
        (3, 2, 2.22, "review", "2026-01-05"),
        (7, 3, 2.08, "review", "2026-01-12"),
        (15, 4, 1.94, "review", "2026-01-27"),
        (29, 5, 1.8, "mastered", "2026-02-25"),
    ]


def test_failure_after_long_interval_resets_and_lowers_ease():
    # After 5,5,5,5: I=22, reps 4, EF 2.9 (mastered), due 02-04.
    # r5 q=1: reps 0, I=1, EF = 2.9 - 0.54 = 2.36 -> "learning", due 02-05 (EF changes on failures too, per the design)
    # r6 q=4: reps 0 -> I=1, EF 2.36;  r7: I=3;  r8: I = round(3 * 2.36 = 7.08) = 7
    states = run([5, 5, 5, 5, 1, 4, 4, 4])
    assert summary(states[4:]) == [
        (1, 0, 2.36, "learning", "2026-02-05"),
        (1, 1, 2.36, "review", "2026-02-06"),
        (3, 2, 2.36, "review", "2026-02-09"),
        (7, 3, 2.36, "review", "2026-02-16"),
    ]


def test_ease_floor_is_1_3():
    # q=0: EF 2.5 - 0.8 = 1.7; again: max(1.3, 1.7 - 0.8 = 0.9) = 1.3; stays 1.3
    # then q=3: max(1.3, 1.3 - 0.14 = 1.16) = 1.3
    assert summary(run([0, 0, 0, 3])) == [
        (1, 0, 1.7, "learning", "2026-01-02"),
        (1, 0, 1.3, "learning", "2026-01-03"),
        (1, 0, 1.3, "learning", "2026-01-04"),
        (1, 1, 1.3, "review", "2026-01-05"),
    ]


def test_ease_deltas_per_quality():
    assert [round(next_ease(2.5, q), 9) for q in range(6)] == [1.7, 1.96, 2.18, 2.36, 2.5, 2.6]


def test_review_is_pure_and_state_is_frozen():
    start = ReviewState()
    after = review(start, 5, T0)
    assert start == ReviewState()
    assert (start.status, start.due, start.last_review) == ("new", None, None)
    assert after.last_review == T0 and after.due == T0 + timedelta(days=1)
    with pytest.raises(FrozenInstanceError):
        after.interval = 99  # type: ignore[misc]


def test_due_keeps_the_time_of_day_and_timezone():
    cet = timezone(timedelta(hours=1))
    now = datetime(2026, 3, 1, 18, 30, tzinfo=cet)
    assert review(ReviewState(), 4, now).due == datetime(2026, 3, 2, 18, 30, tzinfo=cet)


@pytest.mark.parametrize("bad", [-1, 6, 2.5, "4", True, None])
def test_quality_outside_0_to_5_is_a_user_error(bad):
    with pytest.raises(UserError, match="quality must be an integer from 0 to 5"):
        review(ReviewState(), bad, T0)


def test_naive_datetime_is_a_user_error():
    with pytest.raises(UserError, match="timezone-aware"):
        review(ReviewState(), 4, datetime(2026, 1, 1))


def test_invalid_states_are_rejected():
    with pytest.raises(UserError):
        ReviewState(ease_factor=1.0)
    with pytest.raises(UserError):
        ReviewState(status="done")  # type: ignore[arg-type]


def test_dict_round_trip_and_scheduler_wrapper():
    state = run([5, 5, 1])[-1]
    assert ReviewState.from_dict(state.to_dict()) == state
    sched = SM2Scheduler()
    assert sched.review(sched.new_state(), 5, T0) == review(ReviewState(), 5, T0)
