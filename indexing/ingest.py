"""Ingestion: PDF files → cleaned pages → chunks → embeddings → a new version of the course index.

Per file: read (PyMuPDF), remove running headers/footers, chunk. Files that fail are reported and skipped; the
others go in. Re-ingesting a file (same name) replaces its chunks; an unchanged file (same sha256, chunked by the
same chunker version and settings) is skipped without being parsed again; a file chunked by an older chunker is
re-chunked.
Chunks of untouched documents keep their embeddings, so only new text is embedded. The index is then written
atomically (see `indexing.store`).
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np

from app.errors import IngestError, NotFoundError
from indexing.chunk import CHUNKER_VERSION, chunk_pages, index_text
from indexing.clean import remove_running_lines
from indexing.embedder import Embedder
from indexing.extract import read_pdf
from indexing.models import Chunk, SourceKind
from indexing.store import live_manifest, load_index, require_course, write_index


@dataclass
class FileResult:
    file: str
    status: str  # ingested | unchanged | failed
    pages: int = 0
    blank_pages: int = 0
    header_footer_lines_removed: int = 0
    chunks: int = 0
    reason: str | None = None


@dataclass
class IngestReport:
    course: str
    files: list[FileResult] = field(default_factory=list)
    chunks_total: int = 0
    seconds: float = 0.0
    embed_seconds: float = 0.0
    chunks_embedded: int = 0
    version: str | None = None

    @property
    def failed(self) -> list[FileResult]:
        return [f for f in self.files if f.status == "failed"]

    @property
    def chunks_per_second(self) -> float:
        return self.chunks_embedded / self.seconds if self.seconds else 0.0

    def to_dict(self) -> dict:
        d = asdict(self)
        d["chunks_per_second"] = round(self.chunks_per_second, 2)
        d["seconds"] = round(self.seconds, 3)
        d["embed_seconds"] = round(self.embed_seconds, 3)
        totals = {k: sum(getattr(f, k) for f in self.files) for k in ("pages", "blank_pages", "chunks")}
        totals["header_footer_lines_removed"] = sum(f.header_footer_lines_removed for f in self.files)
        d["totals"] = totals
        d["failed"] = len(self.failed)
        return d


def file_sha256(path: Path) -> str:
    h = hashlib.sha256()
    with Path(path).open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def _sha_or_none(path: Path) -> str | None:
    try:
        return file_sha256(path)
    except OSError:
        return None  # process_file names the problem


def process_file(
    path: Path, *, course: str, source_kind: SourceKind, target: int = 500, overlap: int = 2, sha: str | None = None
) -> tuple[list[Chunk], FileResult, str]:
    """One PDF → its chunks, its summary line and its sha256 (`sha` when the caller hashed it already). Raises
    IngestError for unusable files."""
    path = Path(path)
    pages = read_pdf(path)
    sha = sha or file_sha256(path)
    cleaned, stats = remove_running_lines(pages)
    chunks = chunk_pages(
        cleaned, course=course, source=path.name, source_kind=source_kind, doc_hash=sha, target=target,
        overlap_sentences=overlap,
    )
    if not chunks:
        raise IngestError(str(path), "no usable text after cleaning", hint="check that the PDF has a text layer")
    result = FileResult(
        file=str(path),
        status="ingested",
        pages=stats.pages,
        blank_pages=stats.blank_pages,
        header_footer_lines_removed=stats.edge_lines_removed,
        chunks=len(chunks),
    )
    return chunks, result, sha


def ingest_files(
    paths: list[Path],
    *,
    data_dir: Path,
    course: str,
    embedder: Embedder,
    source_kind: SourceKind = "official",
    target: int = 500,
    overlap: int = 2,
    batch_size: int = 32,
    ann_threshold: int = 50_000,
    force: bool = False,
    on_file: Callable[[FileResult], None] | None = None,
    progress: Callable[[int], None] | None = None,
) -> IngestReport:
    """Ingest `paths` into `course`. The course index changes only if at least one file went in."""
    t0 = time.perf_counter()
    require_course(data_dir, course)
    report = IngestReport(course=course)
    manifest = live_manifest(data_dir, course)
    existing = None
    if manifest is not None:
        existing = load_index(data_dir, course, embedder_name=embedder.name)
    known = (manifest or {}).get("documents", {})

    new_chunks: list[Chunk] = []
    new_docs: dict[str, dict] = {}
    chunking = {"version": CHUNKER_VERSION, "target": target, "overlap": overlap}
    for path in paths:
        path = Path(path)
        try:
            doc = known.get(path.name, {})
            sha = _sha_or_none(path)
            same = doc.get("sha256") == sha and doc.get("chunking") == chunking
            if not force and path.name not in new_docs and same:
                # the same bytes chunked the same way: nothing to do, and no need to parse the PDF again
                result = FileResult(file=str(path), status="unchanged", pages=doc["pages"], chunks=doc["chunks"])
            else:
                chunks, result, sha = process_file(
                    path, course=course, source_kind=source_kind, target=target, overlap=overlap, sha=sha
                )
                new_docs[path.name] = {
                    "sha256": sha,
                    "kind": source_kind,
                    "pages": result.pages,
                    "chunks": result.chunks,
                    "chunking": chunking,
                    "ingested": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                }
                new_chunks = [c for c in new_chunks if c.source != path.name] + chunks
        except IngestError as e:
            result = FileResult(file=str(path), status="failed", reason=str(e))
        report.files.append(result)
        if on_file:
            on_file(result)

    if not new_docs:
        report.chunks_total = manifest["chunks"] if manifest else 0
        report.seconds = time.perf_counter() - t0
        return report

    te = time.perf_counter()
    texts = [index_text(c) for c in new_chunks]
    vecs = []
    for start in range(0, len(texts), batch_size):
        vecs.append(embedder.embed(texts[start : start + batch_size], batch_size=batch_size))
        if progress:
            progress(min(batch_size, len(texts) - start))
    new_emb = np.concatenate(vecs) if vecs else np.zeros((0, embedder.dim), np.float32)
    report.embed_seconds = time.perf_counter() - te
    report.chunks_embedded = len(new_chunks)

    keep_rows = [] if existing is None else [i for i, c in enumerate(existing.chunks) if c.source not in new_docs]
    kept_chunks = [existing.chunks[i] for i in keep_rows] if existing else []
    kept_emb = existing.embeddings[keep_rows] if existing else np.zeros((0, embedder.dim), np.float32)
    all_chunks = kept_chunks + new_chunks
    documents = {k: v for k, v in known.items() if k not in new_docs} | new_docs
    report.version = write_index(
        data_dir,
        course,
        chunks=all_chunks,
        embeddings=np.concatenate([kept_emb, new_emb]),
        index_texts=[index_text(c) for c in all_chunks],
        documents=documents,
        embedder_name=embedder.name,
        ann_threshold=ann_threshold,
    )
    report.chunks_total = len(all_chunks)
    report.seconds = time.perf_counter() - t0
    return report


def remove_document(
    *, data_dir: Path, course: str, source: str, embedder_name: str, ann_threshold: int = 50_000
) -> str:
    """Drop one document's chunks and rebuild the course index atomically. Returns the new version."""
    idx = load_index(data_dir, course, embedder_name=embedder_name)
    if source not in idx.manifest["documents"]:
        raise NotFoundError(f"course {course!r} has no document {source!r}", hint="`tutor courses` lists documents")
    rows = [i for i, c in enumerate(idx.chunks) if c.source != source]
    chunks = [idx.chunks[i] for i in rows]
    docs = {k: v for k, v in idx.manifest["documents"].items() if k != source}
    return write_index(
        data_dir,
        course,
        chunks=chunks,
        embeddings=idx.embeddings[rows],
        index_texts=[index_text(c) for c in chunks],
        documents=docs,
        embedder_name=embedder_name,
        ann_threshold=ann_threshold,
    )
