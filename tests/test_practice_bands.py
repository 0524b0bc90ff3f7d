"""Score bands follow the counted hints; proposals are clamped; grounded scores are placed by the grade."""

from __future__ import annotations

import pytest

from app.errors import UserError
from app.practice.bands import RESOLVED_BAND, ScoreBand, band_for, clamp_score, score_from_quality


@pytest.mark.parametrize(
    ("hints", "band"),
    [(0, ScoreBand(10, 10)), (1, ScoreBand(8, 9)), (2, ScoreBand(6, 7)), (3, ScoreBand(6, 7)),
     (4, ScoreBand(4, 5)), (5, ScoreBand(4, 5))],
)
def test_band_per_hint_count(hints: int, band: ScoreBand) -> None:
    assert band_for(hints) == band


def test_resolved_is_partial_credit_whatever_the_hints() -> None:
    assert band_for(0, resolved=True) == RESOLVED_BAND == ScoreBand(1, 3)
    assert band_for(5, resolved=True) == ScoreBand(1, 3)


@pytest.mark.parametrize("bad", [-1, 6, 2.0, True, "3"])
def test_band_rejects_impossible_hint_counts(bad) -> None:
    with pytest.raises(UserError):
        band_for(bad)


@pytest.mark.parametrize(
    ("proposed", "hints", "saved"),
    [(10, 3, 7), (10, 1, 9), (2, 1, 8), (6.5, 2, 7), (6.4, 3, 6), (9, 0, 10), (10, 5, 5), (1, 4, 4)],
)
def test_clamp_into_band(proposed: float, hints: int, saved: int) -> None:
    assert clamp_score(proposed, band_for(hints)) == saved


def test_clamp_rejects_non_numbers() -> None:
    with pytest.raises(UserError):
        clamp_score(float("nan"), band_for(0))


@pytest.mark.parametrize(
    ("hints", "quality", "score"),
    [(0, 5, 10), (1, 3, 8), (1, 4, 9), (1, 5, 9), (2, 3, 6), (2, 4, 7), (4, 5, 5), (4, 3, 4)],
)
def test_grounded_score_placed_in_band_by_quality(hints: int, quality: int, score: int) -> None:
    assert score_from_quality(band_for(hints), quality) == score


@pytest.mark.parametrize(("quality", "score"), [(0, 1), (1, 1), (2, 2), (3, 2), (4, 3), (5, 3)])
def test_partial_credit_from_best_quality(quality: int, score: int) -> None:
    # 1 + round_half_up(2 * q / 5): 0→1, 0.4→1, 0.8→2, 1.2→2, 1.6→3, 2→3
    assert score_from_quality(RESOLVED_BAND, quality) == score
