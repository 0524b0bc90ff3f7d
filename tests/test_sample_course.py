"""The bundled sample course PDF and the retrieval development gold set.

The committed PDF must be what data/sample_course/render.py makes from notes.md (same pages, same text), rendering
must be reproducible, the PDF must carry the front matter / running header / footer noise the cleaner is tested
against, and every gold page must exist and hold text.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pymupdf
import pytest

ROOT = Path(__file__).resolve().parents[1]
COURSE = ROOT / "data" / "sample_course"
PDF = COURSE / "search-algorithms.pdf"
RENDER = COURSE / "render.py"
GOLD = ROOT / "data" / "gold" / "retrieval_dev.jsonl"
INTENTS = {"direct", "conceptual", "verification", "debugging", "tracing"}
FOOTER = "https://example.edu/ai101 · v1.3 · Winter 2026"


def _render(out: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(RENDER), "--out", str(out), *extra],
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )


@pytest.fixture(scope="module")
def rendered(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """Two fresh renders of notes.md into a temporary folder."""
    folder = tmp_path_factory.mktemp("render")
    first, second = folder / "first.pdf", folder / "second.pdf"
    for out in (first, second):
        result = _render(out)
        assert result.returncode == 0, result.stderr
    return first, second


@pytest.fixture(scope="module")
def committed() -> pymupdf.Document:
    assert PDF.is_file(), f"{PDF} is missing: run .venv/bin/python data/sample_course/render.py"
    return pymupdf.open(PDF)


def _gold() -> list[dict]:
    return [json.loads(line) for line in GOLD.read_text(encoding="utf-8").splitlines() if line.strip()]


def test_committed_pdf_has_at_least_15_pages(committed: pymupdf.Document) -> None:
    assert committed.page_count >= 15


def test_committed_pdf_matches_a_fresh_render_page_by_page(
    committed: pymupdf.Document, rendered: tuple[Path, Path]
) -> None:
    fresh = pymupdf.open(rendered[0])
    assert fresh.page_count == committed.page_count
    for number in range(committed.page_count):
        assert fresh[number].get_text() == committed[number].get_text(), f"page {number + 1} differs"


def test_rendering_twice_gives_identical_bytes(rendered: tuple[Path, Path]) -> None:
    first, second = rendered
    assert first.read_bytes() == second.read_bytes()


def test_front_matter_is_roman_numbered_and_followed_by_a_blank_page(committed: pymupdf.Document) -> None:
    labels = [page.get_label() for page in committed]
    assert labels[:4] == ["i", "ii", "iii", "1"]
    title, toc, blank = (committed[i].get_text() for i in range(3))
    assert "Search Algorithms in Arti" in title
    assert title.rstrip().splitlines()[-1] == "i"
    assert toc.startswith("Contents") and toc.rstrip().splitlines()[-1] == "ii"
    assert blank.strip() == ""
    assert committed[0].get_text().count(FOOTER) == 1


def test_body_pages_carry_chapter_header_footer_and_arabic_number(committed: pymupdf.Document) -> None:
    headers = Counter()
    for index in range(3, committed.page_count):
        page = committed[index]
        lines = page.get_text().rstrip().splitlines()
        assert lines[-1] == page.get_label() == str(index - 2)
        assert lines[-2] == FOOTER
        header = lines[-3]
        assert re.fullmatch(r"Chapter \d · .+", header), header
        headers[header] += 1
    assert set(headers) == {
        "Chapter 1 · Uninformed Search",
        "Chapter 2 · Informed Search",
        "Chapter 3 · Adversarial Search",
        "Chapter 4 · Exercises and Review",
    }
    assert min(headers.values()) >= 2  # every chapter header repeats over several pages
    assert sum(headers.values()) >= 15  # at least 15 pages of body text


def test_pdf_text_has_ligatures_and_line_end_hyphens(committed: pymupdf.Document) -> None:
    text = "".join(page.get_text() for page in committed)
    assert "\ufb01" in text  # "ﬁ", so NFKC normalisation has work to do
    assert re.search(r"[a-z]-\n[a-z]", text)  # a word broken across a line end


def test_pseudocode_is_set_in_a_monospace_font(committed: pymupdf.Document) -> None:
    page = committed[5]  # physical page 6 holds the BFS pseudocode
    spans = [
        span
        for block in page.get_text("dict")["blocks"]
        for line in block.get("lines", [])
        for span in line["spans"]
        if "BREADTH-FIRST-SEARCH(problem)" in span["text"]
    ]
    assert spans and all("Mono" in span["font"] for span in spans)


def test_render_cli_help_and_missing_notes(tmp_path: Path) -> None:
    help_run = subprocess.run([sys.executable, str(RENDER), "--help"], capture_output=True, text=True, check=False)
    assert help_run.returncode == 0 and "--out" in help_run.stdout
    missing = _render(tmp_path / "x.pdf", "--notes", str(tmp_path / "nope.md"))
    assert missing.returncode == 2
    assert "notes file not found" in missing.stderr
    assert not (tmp_path / "x.pdf").exists()
    flat = tmp_path / "flat.md"
    flat.write_text("## only a section\n\nno chapter heading here\n", encoding="utf-8")
    no_chapters = _render(tmp_path / "y.pdf", "--notes", str(flat))
    assert no_chapters.returncode == 2
    assert "chapter headings" in no_chapters.stderr


def test_gold_file_parses_with_required_fields() -> None:
    records = _gold()
    ids = [r["id"] for r in records]
    assert len(ids) == len(set(ids)) >= 66
    for record in records:
        assert set(record) == {"id", "question", "intent", "gold"}
        assert re.fullmatch(r"q\d{3}", record["id"])
        assert record["question"].strip()
        assert record["intent"] in INTENTS
        assert record["gold"]["source"] == PDF.name
        pages = record["gold"]["pages"]
        assert pages and pages == sorted(set(pages)) and all(isinstance(p, int) for p in pages)


def test_gold_has_at_least_12_questions_per_intent() -> None:
    counts = Counter(r["intent"] for r in _gold())
    assert set(counts) == INTENTS
    assert min(counts.values()) >= 12, counts


def test_every_gold_page_exists_and_has_body_text(committed: pymupdf.Document) -> None:
    for record in _gold():
        for page_number in record["gold"]["pages"]:
            assert 1 <= page_number <= committed.page_count, record["id"]
            text = committed[page_number - 1].get_text()
            assert text.replace(FOOTER, "").strip(), f"{record['id']}: page {page_number} is empty"
            assert committed[page_number - 1].get_label().isdigit(), f"{record['id']}: gold page is front matter"
