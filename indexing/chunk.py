"""Section-aware chunking (KITE §3.1).

Cleaned pages become a stream of units — sentences of running text and whole code listings — each remembering its
page and the section heading above it. Units are packed into chunks of about `target` characters; a new section
always starts a new chunk; the next chunk repeats the last two sentences of the previous one (the overlap).
Headings are recognised by typography (larger than the body font, or bold) and travel with their chunks as the
`section` field, which is also embedded and indexed with the text.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

from indexing.clean import document_vocabulary, join_lines, normalise_text
from indexing.extract import Line, Page
from indexing.models import Chunk, SourceKind

CHUNKER_VERSION = 2
"""Bumped whenever the same PDF would be cut into different chunks; ingestion re-chunks documents chunked by an
older version (2: sentences keep the page they end on, bullets start sentences)."""

_ABBREV = re.compile(r"\b(?:e\.g|i\.e|etc|vs|cf|fig|eq|sec|ch|no|approx|resp|bzw|z\.b|d\.h|u\.a|usw|vgl|ca|dr|prof)\.$", re.I)
_LIST_MARKER = re.compile(r"^(?:\(?\d{1,3}[.)]|[a-h][.)])$")
_SENT_END = re.compile(r"(?<=[.!?:])[\"')\]]*\s+(?=[\"'(\[]?[A-ZÄÖÜ0-9•▪◦‣])")


@dataclass(frozen=True, slots=True)
class Unit:
    """A sentence (or a whole code listing) with the page it starts on, its section, and the page it ends on when
    it runs across a page break (0: the same page)."""

    text: str
    page: int
    section: str
    code: bool = False
    last_page: int = 0

    @property
    def end_page(self) -> int:
        return max(self.page, self.last_page)


def body_font_size(pages: list[Page]) -> float:
    """The size most characters are set in."""
    sizes: Counter[float] = Counter()
    for p in pages:
        for ln in p.lines:
            sizes[ln.size] += len(ln.text)
    return sizes.most_common(1)[0][0] if sizes else 0.0


def is_heading(line: Line, body_size: float) -> bool:
    text = line.text.strip()
    if line.mono or not text or len(text) > 120 or not re.search(r"[A-Za-zÄÖÜäöü]", text):
        return False
    first_letter = re.search(r"[^\W\d_]", text)
    if first_letter and first_letter.group(0).islower() and not re.match(r"^[\d.]+\s", text):
        return False  # headings start with a capital or a number ("afterwards" is a wrapped table header)
    larger = body_size > 0 and line.size >= body_size * 1.12
    return larger or (line.bold and not text.endswith((".", ",", ";")))


def split_sentences(text: str) -> list[str]:
    """Split running text at sentence ends, not after common abbreviations ('e.g.', 'z.B.')."""
    parts: list[str] = []
    start = 0
    for m in _SENT_END.finditer(text):
        candidate = text[start : m.start()].strip()
        if _ABBREV.search(candidate):
            continue
        if candidate:
            parts.append(candidate)
        start = m.end()
    tail = text[start:].strip()
    if tail:
        parts.append(tail)
    # a list marker ("4.", "(2)") belongs to the sentence after it, not to the one before
    merged: list[str] = []
    pending = ""
    for part in parts:
        if _LIST_MARKER.match(part):
            pending = f"{pending} {part}".strip()
            continue
        merged.append(f"{pending} {part}" if pending else part)
        pending = ""
    if pending:
        if merged:
            merged[-1] = f"{merged[-1]} {pending}"
        else:
            merged.append(pending)
    return merged


def pages_to_units(pages: list[Page]) -> list[Unit]:
    """Turn cleaned pages into sentence and code units, tracking the current section heading."""
    body = body_font_size(pages)
    vocab = document_vocabulary(pages)
    units: list[Unit] = []
    section = ""
    prose: list[tuple[str, int]] = []  # lines of running text not yet split, with their pages
    code: list[str] = []
    code_page = 0
    heading_parts: list[str] = []
    heading_size = 0.0
    stack: list[tuple[float, str]] = []  # (font size, heading): the path from chapter to current section

    def flush_prose() -> None:
        if not prose:
            return
        # re-join words broken at line ends, split into sentences, each keeping the page it starts on
        text, offsets = "", []
        page_lines: list[tuple[list[str], int]] = []
        for t, p in prose:
            if page_lines and page_lines[-1][1] == p:
                page_lines[-1][0].append(t)
            else:
                page_lines.append(([t], p))
        all_lines = [t for t, _ in prose]
        joined = join_lines(all_lines, vocab)
        # map character offsets back to pages by re-joining page by page
        pos = 0
        for lines, p in page_lines:
            part = join_lines(lines, vocab)
            offsets.append((pos, p))
            pos += len(part) + 1
        text = joined
        pos = 0
        def page_at(i: int) -> int:
            return next((p for off, p in reversed(offsets) if off <= max(i, 0)), offsets[0][1])

        for sent in split_sentences(text):
            idx = text.find(sent, pos)
            pos = idx + len(sent) if idx >= 0 else pos
            page, last = page_at(idx), page_at(idx + len(sent) - 1 if idx >= 0 else idx)
            units.append(Unit(sent, page, section, last_page=last if last != page else 0))
        prose.clear()

    def flush_code() -> None:
        nonlocal code_page
        body_lines = [c.rstrip() for c in code if c.strip()]
        if body_lines:
            units.append(Unit("\n".join(body_lines), code_page, section, code=True))
        code.clear()

    def flush_heading() -> None:
        nonlocal section, heading_size
        if heading_parts:
            title = normalise_text(" ".join(heading_parts))
            while stack and stack[-1][0] <= heading_size + 0.05:
                stack.pop()  # a sibling or a larger heading closes the deeper ones
            stack.append((heading_size, title))
            section = " › ".join(t for _, t in stack[-2:])
            heading_parts.clear()

    for page in pages:
        shared_rows = _shared_rows(page)
        for ln in page.lines:
            if ln.mono:
                flush_prose()
                flush_heading()
                if code and code_page != page.number:
                    flush_code()
                if not code:
                    code_page = page.number
                code.append(normalise_text(ln.text) if not ln.text.startswith(" ") else ln.text.replace("\t", "    "))
                continue
            flush_code()
            if is_heading(ln, body) and round(ln.y0) not in shared_rows:  # a bold table header row is no heading
                flush_prose()
                if heading_parts and abs(ln.size - heading_size) > 0.05:
                    flush_heading()  # a change of size starts the next heading level
                heading_parts.append(ln.text.strip())
                heading_size = ln.size
                continue
            flush_heading()
            prose.append((ln.text, page.number))
    flush_prose()
    flush_code()
    return units


def _shared_rows(page: Page) -> set[int]:
    """Baselines (rounded) that hold more than one line, as table rows and multi-column layouts do."""
    counts = Counter(round(ln.y0) for ln in page.lines)
    return {y for y, c in counts.items() if c > 1}


def _split_long(unit: Unit, limit: int) -> list[Unit]:
    """A sentence or listing longer than `limit` is cut at white space (code at line breaks)."""
    if len(unit.text) <= limit:
        return [unit]
    sep = "\n" if unit.code else " "
    pieces, cur = [], ""
    for token in unit.text.split(sep):
        if cur and len(cur) + 1 + len(token) > limit:
            pieces.append(cur)
            cur = token
        else:
            cur = f"{cur}{sep}{token}" if cur else token
    if cur:
        pieces.append(cur)
    # without character offsets per page, every piece of a sentence that crosses a page break keeps its whole range
    return [Unit(p, unit.page, unit.section, unit.code, unit.last_page) for p in pieces]


def _join(units: list[Unit]) -> str:
    out = ""
    for u in units:
        if not out:
            out = u.text
        else:
            out += ("" if out.endswith("\n") else "\n" if u.code else " ") + u.text
        if u.code:
            out += "\n"
    return out.strip()


def pack_units(units: list[Unit], *, target: int = 500, overlap_sentences: int = 2) -> list[list[Unit]]:
    """Pack units into chunks of about `target` characters; a new section starts a new chunk; each chunk after
    the first of a section begins with the last `overlap_sentences` sentences of the previous chunk (never a code
    listing, and never more than half a chunk)."""
    expanded = [piece for u in units for piece in _split_long(u, int(target * 1.5))]
    groups: list[list[Unit]] = []
    cur: list[Unit] = []
    fresh = 0  # units in `cur` that are not overlap
    for u in expanded:
        if cur and u.section != cur[-1].section:
            groups.append(cur)
            cur, fresh = [], 0
        if cur and fresh and len(_join(cur + [u])) > target:
            groups.append(cur)
            tail: list[Unit] = []
            for prev in reversed(cur[-overlap_sentences:] if overlap_sentences else []):
                if prev.code or len(_join([prev, *tail])) > target // 2:
                    break
                tail.insert(0, prev)
            cur, fresh = tail, 0
        cur.append(u)
        fresh += 1
    if cur:
        groups.append(cur)
    return groups


def chunk_pages(
    pages: list[Page],
    *,
    course: str,
    source: str,
    source_kind: SourceKind,
    doc_hash: str,
    target: int = 500,
    overlap_sentences: int = 2,
) -> list[Chunk]:
    """Cleaned pages → chunks with provenance. Ids are `<first 12 hex of the file's sha256>-<position>`, stable
    across re-ingests of the same file."""
    groups = pack_units(pages_to_units(pages), target=target, overlap_sentences=overlap_sentences)
    chunks = []
    for i, g in enumerate(groups):
        chunks.append(
            Chunk(
                id=f"{doc_hash[:12]}-{i:04d}",
                course=course,
                source=source,
                source_kind=source_kind,
                page_start=min(u.page for u in g),
                page_end=max(u.end_page for u in g),
                section=g[0].section,
                text=_join(g),
            )
        )
    return chunks


def index_text(chunk: Chunk) -> str:
    """What is embedded and BM25-indexed for a chunk: its heading with its text."""
    return f"{chunk.section}\n{chunk.text}" if chunk.section else chunk.text
