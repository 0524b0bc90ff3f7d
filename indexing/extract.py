"""Read a PDF page by page with PyMuPDF, keeping the typography the cleaner and chunker need.

Each page becomes a list of `Line`s in reading order with the font size, boldness and monospace flag of its
spans, so that headings and code listings can be recognised later. Files that cannot be read raise `IngestError`
with the reason and what to do.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from app.errors import IngestError

_MONO_HINTS = ("mono", "courier", "consolas", "menlo", "code")


@dataclass(frozen=True, slots=True)
class Line:
    text: str
    size: float
    bold: bool
    mono: bool
    y0: float = 0.0


@dataclass(frozen=True, slots=True)
class Page:
    number: int  # physical, 1-based
    lines: tuple[Line, ...]
    height: float = 0.0

    @property
    def is_blank(self) -> bool:
        return not any(ln.text.strip() for ln in self.lines)


def check_pdf_file(path: Path) -> None:
    """Fail early, with a teaching message, on files that are not PDFs at all."""
    if not path.exists():
        raise IngestError(str(path), "file not found", hint="check the path")
    if path.is_dir():
        raise IngestError(str(path), "is a directory, not a PDF file", hint="pass the PDF files themselves")
    if path.stat().st_size == 0:
        raise IngestError(str(path), "empty file (0 bytes)", hint="re-export or re-download the PDF")
    with path.open("rb") as f:
        head = f.read(1024)
    if b"%PDF-" not in head:
        raise IngestError(
            str(path),
            "not a PDF (the file does not start with a %PDF header)",
            hint="export the document as PDF first",
        )


def _is_bold(span: dict) -> bool:
    return bool(span.get("flags", 0) & 16) or "bold" in span.get("font", "").lower()


def _is_mono(span: dict) -> bool:
    font = span.get("font", "").lower()
    return bool(span.get("flags", 0) & 8) or any(h in font for h in _MONO_HINTS)


def read_pdf(path: Path) -> list[Page]:
    """Extract every page of `path` as typed lines. Raises IngestError for unreadable files."""
    import pymupdf

    path = Path(path)
    check_pdf_file(path)
    try:
        doc = pymupdf.open(path)
    except Exception as e:  # pymupdf raises FileDataError and friends
        raise IngestError(
            str(path), f"corrupt or unreadable PDF ({e})", hint="repair it (e.g. print to PDF again) and retry"
        ) from e
    with doc:
        if doc.needs_pass or doc.is_encrypted:
            raise IngestError(
                str(path), "the PDF is encrypted (password protected)", hint="remove the password and retry"
            )
        if doc.page_count == 0:
            raise IngestError(str(path), "the PDF has no pages", hint="re-export the document")
        pages: list[Page] = []
        try:
            for i, page in enumerate(doc):
                pages.append(_read_page(page, i + 1))
        except Exception as e:
            raise IngestError(
                str(path), f"corrupt PDF: page {len(pages) + 1} cannot be read ({e})", hint="repair it and retry"
            ) from e
    if all(p.is_blank for p in pages):
        raise IngestError(
            str(path),
            "no text layer (the pages are images or empty)",
            hint="run OCR on it first (e.g. `ocrmypdf in.pdf out.pdf`) and ingest the result",
        )
    return pages


def _read_page(page, number: int) -> Page:
    data = page.get_text("dict", sort=True)
    lines: list[Line] = []
    for block in data.get("blocks", []):
        if block.get("type", 0) != 0:
            continue
        for ln in block.get("lines", []):
            spans = [s for s in ln.get("spans", []) if s.get("text", "").strip()]
            if not spans:
                continue
            text = "".join(s["text"] for s in ln["spans"]).rstrip()
            # the dominant span (most characters) sets the line's typography
            main = max(spans, key=lambda s: len(s["text"].strip()))
            lines.append(
                Line(
                    text=text,
                    size=round(float(main.get("size", 0.0)), 1),
                    bold=all(_is_bold(s) for s in spans),
                    mono=all(_is_mono(s) for s in spans),
                    y0=float(ln["bbox"][1]),
                )
            )
    return Page(number=number, lines=tuple(lines), height=float(page.rect.height))
