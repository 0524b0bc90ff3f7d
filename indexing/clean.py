"""Cleaning extracted pages (KITE §3.1): Unicode and whitespace normalisation, running header/footer removal,
de-hyphenation.

Running headers and footers are found by frequency, as KITE does: look at the first and last `edge` rows of every
page, normalise digits (and roman page numbers), and drop the lines whose normalised form repeats on at least
`min_repeats` pages. Bare page numbers (arabic or roman, "Page 3 of 9") at the edges are dropped wherever they stand,
and so is an edge line that carries the printed page number (found from the offset between physical and printed
numbers), which catches section titles in headers that repeat on too few pages to count.
Everything here is pure: pages in, pages out, plus counts for the ingest summary.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from dataclasses import dataclass, replace

from indexing.extract import Line, Page

_WS = re.compile(r"\s+")
_DIGITS = re.compile(r"\d+")
_ROMAN = r"(?=[mdclxvi])m{0,4}(?:cm|cd|d?c{0,3})(?:xc|xl|l?x{0,3})(?:ix|iv|v?i{0,3})"
_ROMAN_FULL = re.compile(rf"^{_ROMAN}$")
_WORD_LETTERS = re.compile(r"\b[mdclxvi]+\b")
_PAGE_NUMBER = re.compile(
    rf"^\s*(?:[-–—]\s*)?(?:(?:page|seite|p\.)\s*)?(?:\d+|{_ROMAN})(?:\s*(?:/|of|von)\s*\d+)?(?:\s*[-–—])?\s*$",
    re.IGNORECASE,
)
# a word broken at a line end: letters, a hyphen (or soft hyphen), then the end of the line
_HYPHEN_END = re.compile(r"([A-Za-zÀ-ÖØ-öø-ÿ]{1,})[-\u00ad]$")
_WORD_START = re.compile(r"^([a-zà-öø-ÿß]+)")


def normalise_text(text: str) -> str:
    """NFKC (splits ligatures such as 'ﬁ' into 'fi', full-width forms to ASCII) and collapses white space."""
    text = unicodedata.normalize("NFKC", text).replace("\u00ad", "")
    return _WS.sub(" ", text).strip()


def edge_key(text: str) -> str:
    """The form under which a header/footer line is compared across pages: lower case, digits and roman numerals
    replaced by '#', white space folded."""
    t = normalise_text(text).lower()
    t = _WORD_LETTERS.sub(lambda m: "#" if _ROMAN_FULL.match(m.group(0)) else m.group(0), t)
    t = _DIGITS.sub("#", t)
    return _WS.sub(" ", t).strip()


def is_page_number(text: str) -> bool:
    return bool(_PAGE_NUMBER.match(normalise_text(text)))


def _body_size(pages: list[Page]) -> float:
    sizes: Counter[float] = Counter()
    for p in pages:
        for ln in p.lines:
            sizes[ln.size] += len(ln.text)
    return sizes.most_common(1)[0][0] if sizes else 0.0


def _edge_indices(page: Page, edge: int) -> list[int]:
    """Indices of the lines in the first and last `edge` visual rows of a page (lines sharing a baseline, such as
    a title on the left and a page number on the right, form one row)."""
    rows: list[list[int]] = []
    for i, ln in enumerate(page.lines):
        if rows and abs(page.lines[rows[-1][0]].y0 - ln.y0) < 2.0:
            rows[-1].append(i)
        else:
            rows.append([i])
    picked = rows[:edge] + rows[max(edge, len(rows) - edge) :]
    return sorted({i for row in picked for i in row})


# a number standing alone at the start or end of a line ("12  Chapter 2", "Informed Search  13"), not part of a
# section number ("1.1 Breadth-first") or a version ("v1.3")
_EDGE_NUMBER = re.compile(r"^\s*(\d{1,4})(?=\s)(?!\s*\.)|(?<![.\w])(\d{1,4})\s*$")


def page_label_offset(pages: list[Page], *, edge: int = 2) -> int | None:
    """The offset between physical page numbers and the printed page numbers, if the edges carry them.

    A number at the start or end of an edge line that equals `physical page - offset` for one offset shared by at
    least a third of the pages is a printed page number, even inside a line like 'Chapter 2 · Informed Search 13'.
    """
    votes: Counter[int] = Counter()
    for page in pages:
        offsets = set()
        for i in _edge_indices(page, edge):
            for m in _EDGE_NUMBER.finditer(normalise_text(page.lines[i].text)):
                offsets.add(page.number - int(m.group(1) or m.group(2)))
        votes.update(offsets)
    if not votes:
        return None
    offset, count = votes.most_common(1)[0]
    return offset if count >= max(3, len(pages) // 3) else None


def _carries_page_number(text: str, physical: int, offset: int | None) -> bool:
    if offset is None:
        return False
    return any(int(m.group(1) or m.group(2)) == physical - offset for m in _EDGE_NUMBER.finditer(normalise_text(text)))


def find_running_lines(pages: list[Page], *, edge: int = 2, min_repeats: int = 3) -> set[str]:
    """Edge keys that repeat at the top or bottom `edge` lines of at least `min_repeats` pages."""
    counts: Counter[str] = Counter()
    for page in pages:
        keys = {edge_key(page.lines[i].text) for i in _edge_indices(page, edge)}
        counts.update(k for k in keys if k)
    return {k for k, c in counts.items() if c >= min_repeats}


@dataclass(frozen=True, slots=True)
class CleanStats:
    pages: int
    blank_pages: int
    edge_lines_removed: int


def remove_running_lines(
    pages: list[Page], *, edge: int = 2, min_repeats: int | None = None
) -> tuple[list[Page], CleanStats]:
    """Drop running headers/footers and page numbers from the edges of every page; skip blank pages.

    `min_repeats` defaults to 3, or 2 for short documents, so a chapter title that heads only a few pages still
    counts as running.
    """
    text_pages = [p for p in pages if not p.is_blank]
    if min_repeats is None:
        min_repeats = 2 if len(text_pages) < 8 else 3
    # a bare number is handled by position (outermost rows only), not by frequency: table cells are numbers too
    running = find_running_lines(text_pages, edge=edge, min_repeats=min_repeats) - {"#"}
    offset = page_label_offset(text_pages, edge=edge)
    heading_size = _body_size(text_pages) * 1.12
    removed = 0
    out: list[Page] = []
    for page in text_pages:
        edges = set(_edge_indices(page, edge))
        outermost = set(_edge_indices(page, 1))
        kept: list[Line] = []
        for i, ln in enumerate(page.lines):
            # running lines are set no larger than the body: a large "Chapter 2" is the chapter's heading
            running_like = ln.size < heading_size and (
                edge_key(ln.text) in running or _carries_page_number(ln.text, page.number, offset)
            )
            if i in edges and (running_like or (i in outermost and is_page_number(ln.text))):
                removed += 1
                continue
            kept.append(ln)
        out.append(replace(page, lines=tuple(kept)))
    out = [p for p in out if not p.is_blank]
    return out, CleanStats(pages=len(pages), blank_pages=len(pages) - len(text_pages), edge_lines_removed=removed)


def document_vocabulary(pages: list[Page]) -> set[str]:
    """Lower-case words of the document, hyphenated compounds included, to decide how to join broken words."""
    vocab: set[str] = set()
    for page in pages:
        for ln in page.lines:
            vocab.update(w.lower() for w in re.findall(r"[\w][\w-]*[\w]|\w", normalise_text(ln.text)))
    return vocab


def hyphen_join(first: str, second: str, vocab: set[str]) -> str | None:
    """How to join two lines when `first` ends in a hyphen: `""` re-joins a word broken at the line end
    ('fron-' + 'tier'), `"-"` keeps a real compound ('depth-' + 'first', when the document spells it with a hyphen
    elsewhere and never without), None when `first` does not end in a broken word."""
    m = _HYPHEN_END.search(first.rstrip())
    n = _WORD_START.match(second.lstrip())
    if not m or not n:
        return None
    head, tail = m.group(1).lower(), n.group(1)
    keep_hyphen = f"{head}-{tail}" in vocab and f"{head}{tail}" not in vocab
    return "-" if keep_hyphen else ""


def join_lines(lines: list[str], vocab: set[str]) -> str:
    """Running text from its lines: words broken at line ends re-joined, white space normalised."""
    out = ""
    for i, line in enumerate(lines):
        line = normalise_text(line)
        if not line:
            continue
        out += line
        nxt = lines[i + 1] if i + 1 < len(lines) else ""
        sep = hyphen_join(line, normalise_text(nxt), vocab) if nxt else None
        if sep is None:
            out += " "
        else:
            out = out[: len(out) - 1] + sep  # drop the line-end hyphen
    return out.strip()
