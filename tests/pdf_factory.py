"""Small PDFs made on the fly with PyMuPDF, for tests that need exact control over headers, footers and text."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path


@dataclass
class FakePage:
    body: list[str] = field(default_factory=list)  # lines; a line starting with '# ' is a heading, '    ' is code
    header: str | None = None
    footer: str | None = None
    blank: bool = False


def make_pdf(path: Path, pages: list[FakePage]) -> Path:
    import pymupdf

    doc = pymupdf.open()
    for p in pages:
        page = doc.new_page(width=595, height=842)
        if p.blank:
            continue
        if p.header:
            page.insert_text((72, 40), p.header, fontsize=9, fontname="helv")
        y = 90.0
        for line in p.body:
            if line.startswith("# "):
                y += 8
                page.insert_text((72, y), line[2:], fontsize=15, fontname="hebo")
                y += 24
            elif line.startswith("    "):
                page.insert_text((72, y), line[4:], fontsize=9.5, fontname="cour")
                y += 13
            else:
                page.insert_text((72, y), line, fontsize=11, fontname="helv")
                y += 15
        if p.footer:
            page.insert_text((72, 815), p.footer, fontsize=9, fontname="helv")
    doc.save(path)
    doc.close()
    return path
