from __future__ import annotations

import pytest

from app.errors import UserError
from app.learning.scales import SCORE_TO_QUALITY, quality_from_score, score_passes, score_range


def test_table_follows_the_hint_bands():
    assert [quality_from_score(s) for s in range(1, 11)] == [0, 1, 1, 2, 2, 3, 3, 4, 4, 5]
    assert sorted(SCORE_TO_QUALITY) == list(range(1, 11))


def test_pass_means_at_most_three_hints():
    assert [s for s in range(1, 11) if score_passes(s)] == [6, 7, 8, 9, 10]


def test_inverse_ranges():
    assert [score_range(q) for q in range(6)] == [(1, 1), (2, 3), (4, 5), (6, 7), (8, 9), (10, 10)]


@pytest.mark.parametrize("bad", [0, 11, 5.5, "7", True])
def test_scores_outside_1_to_10_are_rejected(bad):
    with pytest.raises(UserError, match="score must be an integer from 1 to 10"):
        quality_from_score(bad)
