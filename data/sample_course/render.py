"""Render the bundled sample course (notes.md) into search-algorithms.pdf.

The PDF is a fixture for the ingestion pipeline, so it deliberately looks like a real course reader and carries
the noise a cleaner has to remove: a title page and a table of contents numbered i, ii, ... in the footer, a blank
page after the front matter, chapters that each start on a new page, a running header
with the chapter title, a running footer with the course URL, version string and an arabic page number that
restarts at 1 on the first body page, soft-hyphen line breaks, and a ligature character (U+FB01) in the text.

Rendering is reproducible: the same notes.md gives byte-identical PDFs (fixed metadata dates, no random /ID).

Usage:
    .venv/bin/python data/sample_course/render.py [--notes PATH] [--out PATH] [--page-map]
"""

from __future__ import annotations

import argparse
import html
import io
import json
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pymupdf
from markdown_it import MarkdownIt

HERE = Path(__file__).resolve().parent
DEFAULT_NOTES = HERE / "notes.md"
DEFAULT_OUT = HERE / "search-algorithms.pdf"

COURSE_TITLE = "Search Algorithms in Artificial Intelligence"
COURSE_SUBTITLE = "AI 101 · Course Reader, Part I"
COURSE_AUTHOR = "AI 101 teaching team"
FOOTER_TEXT = "https://example.edu/ai101 · v1.3 · Winter 2026"
FIXED_DATE = "D:20260112090000+01'00'"  # metadata date: fixed so that renders are byte-identical

PAGE = pymupdf.paper_rect("a4")  # 595 x 842 pt
MARGIN_X = 62.0
BODY_TOP = 76.0
BODY_BOTTOM = PAGE.height - 70.0
HEADER_Y = 48.0
FOOTER_Y = PAGE.height - 38.0

# Break points for a few long words (inserted as soft hyphens, U+00AD). MuPDF's layout engine breaks at soft
# hyphens and draws a visible hyphen there, which gives the extracted text real "word-\nbreak" line ends.
HYPHENATION = {
    "admissibility": "ad-mis-si-bil-i-ty",
    "implementation": "im-ple-men-ta-tion",
    "implementations": "im-ple-men-ta-tions",
    "alphabetically": "al-pha-bet-i-cal-ly",
    "abstraction": "ab-strac-tion",
    "consistency": "con-sis-ten-cy",
    "optimality": "op-ti-mal-i-ty",
    "environment": "en-vi-ron-ment",
    "completeness": "com-plete-ness",
    "complexity": "com-plex-i-ty",
    "evaluation": "eval-u-a-tion",
    "exploration": "ex-plo-ra-tion",
    "information": "in-for-ma-tion",
    "probability": "prob-a-bil-i-ty",
    "heuristics": "heu-ris-tics",
    "experimentally": "ex-per-i-men-tal-ly",
    "transposition": "trans-po-si-tion",
    "transpositions": "trans-po-si-tions",
    "configuration": "con-fig-u-ra-tion",
    "computation": "com-pu-ta-tion",
    "combinations": "com-bi-na-tions",
    "particularly": "par-tic-u-lar-ly",
    "systematically": "sys-tem-at-i-cal-ly",
    "bookkeeping": "book-keep-ing",
}

CSS = """
body { font-family: serif; font-size: 10pt; line-height: 1.32; text-align: justify; }
p { margin-top: 0; margin-bottom: 5pt; }
h1 { font-family: sans-serif; font-size: 22pt; font-weight: bold; margin-top: 36pt; margin-bottom: 20pt; }
h1 .chapno { font-size: 13pt; font-weight: normal; }
h2 { font-family: sans-serif; font-size: 14pt; font-weight: bold; margin-top: 14pt; margin-bottom: 6pt; }
h3 { font-family: sans-serif; font-size: 11.5pt; font-weight: bold; margin-top: 10pt; margin-bottom: 4pt; }
pre { font-family: monospace; font-size: 8.6pt; line-height: 1.22; margin-top: 4pt; margin-bottom: 8pt;
      margin-left: 8pt; text-align: left; }
code { font-family: monospace; font-size: 9.4pt; }
table { border-collapse: collapse; margin-top: 4pt; margin-bottom: 9pt; }
th { font-family: sans-serif; font-size: 9pt; font-weight: bold; text-align: left;
     border-bottom: 0.8pt solid black; padding: 2pt 5pt; }
td { font-size: 9.5pt; text-align: left; border-bottom: 0.4pt solid #999999; padding: 2pt 5pt; }
ul, ol { margin-top: 0; margin-bottom: 6pt; }
li { margin-bottom: 2pt; }
blockquote { margin-left: 18pt; margin-right: 18pt; font-style: italic; }
.toc td { border-bottom: none; font-size: 10.5pt; padding: 3pt 4pt; }
.toc td.chap { font-family: sans-serif; font-weight: bold; padding-top: 10pt; }
.toc td.num { text-align: right; }
"""


@dataclass
class Chapter:
    """One `#` chapter of notes.md: its number, title, and rendered body pages (relative arabic numbers)."""

    number: int
    title: str
    markdown: str
    first_page: int = 0  # arabic page number of the chapter's first page
    page_count: int = 0
    sections: list[tuple[str, int]] = field(default_factory=list)  # (section title, arabic page number)
    pdf: bytes = b""

    @property
    def header(self) -> str:
        return f"Chapter {self.number} · {self.title}"


def split_chapters(markdown_text: str) -> list[Chapter]:
    """Split notes.md on top-level `# ` headings that are outside fenced code blocks."""
    chapters: list[Chapter] = []
    in_fence = False
    for line in markdown_text.splitlines():
        if line.startswith("```"):
            in_fence = not in_fence
        if not in_fence and line.startswith("# "):
            chapters.append(Chapter(number=len(chapters) + 1, title=line[2:].strip(), markdown=""))
        elif chapters:
            chapters[-1].markdown += line + "\n"
    return chapters


def _hyphenate_text(text: str) -> str:
    def repl(match: re.Match[str]) -> str:
        word = match.group(0)
        pattern = HYPHENATION.get(word.lower())
        if pattern is None:
            return word
        out, i = [], 0
        for part in pattern.split("-"):
            out.append(word[i : i + len(part)])
            i += len(part)
        return "\u00ad".join(out)

    return re.sub(r"[A-Za-z]+", repl, text)


def _hyphenate_html(body: str) -> str:
    """Insert soft hyphens into prose only: not inside tags, <pre> or <code>."""
    parts = re.split(r"(<pre>.*?</pre>|<code>.*?</code>|<[^>]+>)", body, flags=re.S)
    return "".join(p if p.startswith("<") else _hyphenate_text(p) for p in parts)


def chapter_html(chapter: Chapter, md: MarkdownIt) -> str:
    body = md.render(chapter.markdown)
    counter = 0

    def add_id(match: re.Match[str]) -> str:
        nonlocal counter
        counter += 1
        return f'<h2 id="c{chapter.number}s{counter}">'

    body = re.sub(r"<h2>", add_id, body)
    body = _hyphenate_html(body)
    title = html.escape(chapter.title)
    return f'<h1 id="c{chapter.number}"><span class="chapno">Chapter {chapter.number}</span><br/>{title}</h1>{body}'


def _story_pdf(html_text: str, rect: pymupdf.Rect, positions: list | None = None) -> bytes:
    """Lay out HTML into as many pages as needed; return the PDF bytes."""
    story = pymupdf.Story(html_text, user_css=CSS)
    buf = io.BytesIO()
    writer = pymupdf.DocumentWriter(buf)

    def rectfn(rect_num: int, filled: pymupdf.Rect) -> tuple:
        return PAGE, rect, None

    if positions is None:
        story.write(writer, rectfn)
    else:
        story.write(writer, rectfn, positionfn=positions.append)
    writer.close()
    return buf.getvalue()


def render_chapters(chapters: list[Chapter]) -> None:
    """Render every chapter, each starting on a new page; record section start pages (arabic numbers)."""
    md = MarkdownIt("commonmark", {"html": False}).enable("table")
    body_rect = pymupdf.Rect(MARGIN_X, BODY_TOP, PAGE.width - MARGIN_X, BODY_BOTTOM)
    next_page = 1
    for chapter in chapters:
        positions: list = []
        chapter.pdf = _story_pdf(chapter_html(chapter, md), body_rect, positions)
        chapter.page_count = pymupdf.open("pdf", chapter.pdf).page_count
        chapter.first_page = next_page
        chapter.sections = [
            (p.text, next_page + p.page_num - 1)
            for p in positions
            if p.heading == 2 and p.open_close & 1 and p.text
        ]
        next_page += chapter.page_count


def title_html() -> str:
    return f"""
<div style="text-align:center">
<p style="margin-top:150pt; font-family:sans-serif; font-size:12pt">{html.escape(COURSE_SUBTITLE)}</p>
<p style="margin-top:24pt; font-family:sans-serif; font-size:26pt; font-weight:bold; line-height:1.2">
{html.escape(COURSE_TITLE)}</p>
<p style="margin-top:24pt; font-size:13pt">Uninformed search · Informed search · Adversarial search</p>
<p style="margin-top:150pt; font-size:11pt">{html.escape(COURSE_AUTHOR)}</p>
<p style="font-size:11pt">Version 1.3 · Winter term 2026</p>
</div>"""


def toc_html(chapters: list[Chapter]) -> str:
    rows = []
    for ch in chapters:
        rows.append(
            f'<tr><td class="chap">{ch.number}</td><td class="chap">{html.escape(ch.title)}</td>'
            f'<td class="chap num">{ch.first_page}</td></tr>'
        )
        for title, page in ch.sections:
            number, _, rest = title.partition(" ")
            rows.append(f'<tr><td></td><td>{html.escape(number)}  {html.escape(rest)}</td><td class="num">{page}</td></tr>')
    return (
        '<h1 style="margin-top:0">Contents</h1>'
        '<table class="toc" style="width:100%">' + "".join(rows) + "</table>"
    )


def _stamp(page: pymupdf.Page, header: str | None, footer_number: str) -> None:
    """Draw the running header (chapter title, rule) and footer (course URL + version, page number)."""
    left, right = MARGIN_X, PAGE.width - MARGIN_X
    if header:
        page.insert_text((left, HEADER_Y), header, fontname="helv", fontsize=9)
        page.draw_line((left, HEADER_Y + 6), (right, HEADER_Y + 6), width=0.5)
    page.draw_line((left, FOOTER_Y - 12), (right, FOOTER_Y - 12), width=0.5)
    page.insert_text((left, FOOTER_Y), FOOTER_TEXT, fontname="helv", fontsize=8)
    width = pymupdf.get_text_length(footer_number, fontname="helv", fontsize=9)
    page.insert_text((right - width, FOOTER_Y), footer_number, fontname="helv", fontsize=9)


def _roman(n: int) -> str:
    numerals = [(10, "x"), (9, "ix"), (5, "v"), (4, "iv"), (1, "i")]
    out = ""
    for value, letters in numerals:
        while n >= value:
            out += letters
            n -= value
    return out


@dataclass
class PageInfo:
    """What one physical page of the rendered PDF is (for the page map)."""

    physical: int
    label: str
    kind: str  # "title", "toc", "blank", "body"
    chapter: str = ""
    sections: list[str] = field(default_factory=list)


def render(notes_path: Path = DEFAULT_NOTES, out_path: Path = DEFAULT_OUT) -> list[PageInfo]:
    """Render notes_path into out_path; return the page map (one PageInfo per physical page)."""
    chapters = split_chapters(notes_path.read_text(encoding="utf-8"))
    if not chapters:
        raise ValueError(f"{notes_path} has no '# ' chapter headings: start each chapter with a '# Title' line")
    render_chapters(chapters)

    front_rect = pymupdf.Rect(MARGIN_X, 72, PAGE.width - MARGIN_X, BODY_BOTTOM)
    doc = pymupdf.open()
    pages: list[PageInfo] = []

    doc.insert_pdf(pymupdf.open("pdf", _story_pdf(title_html(), front_rect)))
    toc = pymupdf.open("pdf", _story_pdf(toc_html(chapters), front_rect))
    doc.insert_pdf(toc)
    pages.append(PageInfo(1, "i", "title"))
    for i in range(toc.page_count):
        pages.append(PageInfo(len(pages) + 1, _roman(len(pages) + 1), "toc"))
    for i, info in enumerate(pages):
        _stamp(doc[i], None, info.label)
    # One blank page closes the front matter (no header, no footer).
    doc.new_page(width=PAGE.width, height=PAGE.height)
    pages.append(PageInfo(len(pages) + 1, _roman(len(pages) + 1), "blank"))
    body_start = len(pages)  # 0-based index of arabic page 1

    outline = [[1, "Contents", 2]]
    for ch in chapters:
        doc.insert_pdf(pymupdf.open("pdf", ch.pdf))
        for k in range(ch.page_count):
            number = ch.first_page + k
            physical = body_start + number
            _stamp(doc[physical - 1], ch.header, str(number))
            sections = [t for t, p in ch.sections if p == number]
            pages.append(PageInfo(physical, str(number), "body", ch.header, sections))
        outline.append([1, ch.header, body_start + ch.first_page])
        outline.extend([2, t, body_start + p] for t, p in ch.sections)

    doc.set_page_labels(
        [
            {"startpage": 0, "prefix": "", "style": "r", "firstpagenum": 1},
            {"startpage": body_start, "prefix": "", "style": "D", "firstpagenum": 1},
        ]
    )
    doc.set_toc(outline)
    doc.set_metadata(
        {
            "title": COURSE_TITLE,
            "author": COURSE_AUTHOR,
            "subject": "AI 101 course reader: uninformed, informed and adversarial search",
            "keywords": "BFS, DFS, IDS, UCS, A*, heuristics, minimax, alpha-beta",
            "creator": "data/sample_course/render.py",
            "producer": f"PyMuPDF {pymupdf.VersionBind}",
            "creationDate": FIXED_DATE,
            "modDate": FIXED_DATE,
        }
    )
    doc.subset_fonts()  # keep the committed fixture small
    out_path.parent.mkdir(parents=True, exist_ok=True)
    doc.save(out_path, garbage=4, deflate=True, no_new_id=True)
    return pages


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Render the sample course notes.md into a PDF (reproducibly).")
    parser.add_argument("--notes", type=Path, default=DEFAULT_NOTES, help=f"markdown source (default: {DEFAULT_NOTES})")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help=f"PDF to write (default: {DEFAULT_OUT})")
    parser.add_argument("--page-map", action="store_true", help="print the page map as JSON lines")
    args = parser.parse_args(argv)
    if not args.notes.is_file():
        print(f"error: notes file not found: {args.notes}", file=sys.stderr)
        return 2
    try:
        pages = render(args.notes, args.out)
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if args.page_map:
        for info in pages:
            print(json.dumps(info.__dict__, ensure_ascii=False))
    print(f"wrote {args.out} ({len(pages)} pages)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
