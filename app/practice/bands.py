"""Score bands: the 1-10 rating follows the help the code counted, not the model's say-so.

The Teacher design ("Pädagogik im Prompt") ties the score to the hints given:

    hints counted by code        band     meaning
    0                            10       correct without help
    1                            8-9      correct after one hint
    2 or 3                       6-7      correct after two or three hints
    4 or 5                       4-5      correct only after four or five hints
    resolved (reveal/give up)    1-3      partial credit after full help or a reveal

The model (or the offline grader) only places the score *within* the band; `clamp_score` moves any proposal into it,
so a model proposing 10 after three hints is saved as 7. The 1-10 → 0-5 mapping for spaced repetition lives in
`app.learning.scales` (one scale, one table).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from app.errors import UserError

MAX_HINTS = 5


@dataclass(frozen=True)
class ScoreBand:
    """The inclusive range of scores a rating may take."""

    low: int
    high: int

    def __contains__(self, score: object) -> bool:
        return isinstance(score, int) and self.low <= score <= self.high

    def __str__(self) -> str:
        return str(self.low) if self.low == self.high else f"{self.low}-{self.high}"


RESOLVED_BAND = ScoreBand(1, 3)


def band_for(hints: int, *, resolved: bool = False) -> ScoreBand:
    """The band for a question answered after `hints` hints (0..5), or the partial-credit band if it was resolved."""
    if isinstance(hints, bool) or not isinstance(hints, int) or not 0 <= hints <= MAX_HINTS:
        raise UserError(f"hints must be an integer from 0 to {MAX_HINTS}, got {hints!r}")
    if resolved:
        return RESOLVED_BAND
    if hints == 0:
        return ScoreBand(10, 10)
    if hints == 1:
        return ScoreBand(8, 9)
    if hints <= 3:
        return ScoreBand(6, 7)
    return ScoreBand(4, 5)


def clamp_score(proposed: float, band: ScoreBand) -> int:
    """`proposed` rounded half up and moved into `band` (a 10 proposed in band 6-7 becomes 7)."""
    if isinstance(proposed, bool) or not isinstance(proposed, int | float) or math.isnan(proposed):
        raise UserError(f"a proposed score must be a number, got {proposed!r}")
    rounded = int(math.floor(proposed + 0.5))
    return max(band.low, min(band.high, rounded))


def score_from_quality(band: ScoreBand, quality: int) -> int:
    """Grounded mode: place a grade (quality 0-5 from the offline grader) within the band.

    For a correct answer (quality 3-5) the position in the band is (quality − 3) / 2: a barely correct answer gets
    the band's low end, a perfect one its high end. In the partial-credit band the position is quality / 5 (a
    blank answer earns 1, half the ideas 2, most of them 3). Rounded half up.
    """
    if isinstance(quality, bool) or not isinstance(quality, int) or not 0 <= quality <= 5:
        raise UserError(f"quality must be an integer from 0 to 5, got {quality!r}")
    if band == RESOLVED_BAND:
        position = quality / 5
    else:
        position = max(0.0, min(1.0, (quality - 3) / 2))
    return band.low + int(math.floor((band.high - band.low) * position + 0.5))
