"""The records the index is made of. Owned by `indexing`; everything downstream reads them."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Literal

SourceKind = Literal["official", "supplementary"]


@dataclass(frozen=True, slots=True)
class Chunk:
    """One retrievable passage with exact provenance.

    `page_start`/`page_end` are physical 1-based pages of the PDF (not the printed page labels).
    `id` is stable: it derives from the source's content hash and the chunk's position, so re-ingesting the same
    file yields the same ids.
    """

    id: str
    course: str
    source: str
    source_kind: SourceKind
    page_start: int
    page_end: int
    section: str
    text: str

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, d: dict) -> "Chunk":
        return cls(**{k: d[k] for k in cls.__dataclass_fields__})

    def public_dict(self) -> dict:
        """The JSON shape of `tutor chunks`."""
        return {
            "id": self.id,
            "source": self.source,
            "page_start": self.page_start,
            "page_end": self.page_end,
            "section": self.section,
            "text": self.text,
        }
