"""Per-course index files and their atomic replacement.

    <data_dir>/courses/<course>/
        course.json                 id, title, created
        CURRENT                     the name of the live version directory
        versions/<version>/
            manifest.json           embedder, dims, tokenizer, documents (sha256, pages, chunks), faiss kind
            chunks.jsonl            one `Chunk` per line, row i ↔ embedding i ↔ BM25 document i
            embeddings.npy          float32, L2-normalised
            asking.npy              float32 per chunk: share of sentences that ask (indexing.asking)
            dense.faiss             exact inner product, or HNSW above the configured size
            bm25/                   bm25s files

A write builds a complete new version directory beside the live one and then swaps `CURRENT` with `os.replace`
(atomic on POSIX). A failure or a kill at any moment therefore leaves the previous version live and loadable;
leftover temporary directories are removed by the next write.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import time
import uuid
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np

from app.errors import CourseIndexError, NotFoundError, UserError
from indexing.asking import asking_shares
from indexing.models import Chunk
from indexing.tokenize import TOKENIZER_VERSION, tokenize

FORMAT_VERSION = 1
_COURSE_ID = re.compile(r"^[a-z0-9][a-z0-9_.-]{0,63}$")


def validate_course_id(course: str) -> str:
    if not _COURSE_ID.match(course or ""):
        raise UserError(
            f"invalid course id {course!r}",
            hint="use 1-64 lower-case letters, digits, '.', '_' or '-', starting with a letter or digit",
        )
    return course


def course_dir(data_dir: Path, course: str) -> Path:
    return Path(data_dir) / "courses" / validate_course_id(course)


@dataclass(frozen=True)
class CourseInfo:
    id: str
    title: str
    created: str
    documents: int = 0
    chunks: int = 0
    embedder: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


def _write_json_atomic(path: Path, data: Any) -> None:
    tmp = path.with_name(f".{path.name}.{uuid.uuid4().hex}.tmp")
    with tmp.open("w", encoding="utf-8") as f:
        json.dump(data, f, ensure_ascii=False, indent=1)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)
    _fsync_dir(path.parent)


def _fsync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def create_course(data_dir: Path, course: str, title: str | None = None) -> CourseInfo:
    d = course_dir(data_dir, course)
    if (d / "course.json").exists():
        raise UserError(f"course {course!r} exists already", hint="pick another id, or ingest into it")
    d.mkdir(parents=True, exist_ok=True)
    info = {"id": course, "title": title or course, "created": datetime.now(UTC).isoformat(timespec="seconds")}
    _write_json_atomic(d / "course.json", info)
    return CourseInfo(**info)


def course_exists(data_dir: Path, course: str) -> bool:
    return (course_dir(data_dir, course) / "course.json").exists()


def require_course(data_dir: Path, course: str) -> None:
    if not course_exists(data_dir, course):
        known = ", ".join(c.id for c in list_courses(data_dir)) or "none yet"
        raise NotFoundError(
            f"unknown course {course!r} (known: {known})",
            hint=f"create it with `tutor courses create {course}` or pass --create",
        )


def list_courses(data_dir: Path) -> list[CourseInfo]:
    root = Path(data_dir) / "courses"
    out = []
    for d in sorted(root.glob("*/course.json")) if root.exists() else []:
        meta = json.loads(d.read_text(encoding="utf-8"))
        manifest = _read_manifest(d.parent)
        out.append(
            CourseInfo(
                id=meta["id"],
                title=meta.get("title", meta["id"]),
                created=meta.get("created", ""),
                documents=len(manifest["documents"]) if manifest else 0,
                chunks=manifest["chunks"] if manifest else 0,
                embedder=manifest["embedder"] if manifest else None,
            )
        )
    return out


def _live_version(cdir: Path) -> Path | None:
    cur = cdir / "CURRENT"
    if not cur.exists():
        return None
    v = cdir / "versions" / cur.read_text(encoding="utf-8").strip()
    return v if v.is_dir() else None


def _read_manifest(cdir: Path) -> dict | None:
    v = _live_version(cdir)
    if v is None:
        return None
    return json.loads((v / "manifest.json").read_text(encoding="utf-8"))


@dataclass
class CourseIndex:
    """A loaded course index: chunks, their embeddings, the FAISS index and the BM25 index, row-aligned."""

    course: str
    manifest: dict
    chunks: list[Chunk]
    embeddings: np.ndarray
    faiss_index: Any
    bm25: Any
    version: str = ""
    asking: np.ndarray | None = None  # per chunk: share of sentences that ask (indexing.asking); None: computed
    _by_id: dict[str, int] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        self._by_id = {c.id: i for i, c in enumerate(self.chunks)}
        if self.asking is None:  # built in memory, or read from an index written before asking.npy existed
            self.asking = asking_shares(self.chunks)

    @property
    def embedder_name(self) -> str:
        return self.manifest["embedder"]

    def row_of(self, chunk_id: str) -> int:
        return self._by_id[chunk_id]

    def chunk(self, chunk_id: str) -> Chunk:
        return self.chunks[self._by_id[chunk_id]]

    def __len__(self) -> int:
        return len(self.chunks)


def build_faiss(embeddings: np.ndarray, *, ann_threshold: int, hnsw_m: int = 32):
    """Exact inner-product search up to `ann_threshold` vectors, HNSW (Malkov & Yashunin 2018) above."""
    import faiss

    dim = embeddings.shape[1]
    if len(embeddings) > ann_threshold:
        index = faiss.IndexHNSWFlat(dim, hnsw_m, faiss.METRIC_INNER_PRODUCT)
        index.hnsw.efConstruction = 80
        index.hnsw.efSearch = 128
    else:
        index = faiss.IndexFlatIP(dim)
    if len(embeddings):
        index.add(np.ascontiguousarray(embeddings, dtype=np.float32))
    return index


def build_bm25(texts: list[str]):
    import bm25s

    bm25 = bm25s.BM25()
    corpus = [tokenize(t) or ["\u2205"] for t in texts]
    bm25.index(corpus, show_progress=False)
    return bm25


def write_index(
    data_dir: Path,
    course: str,
    *,
    chunks: list[Chunk],
    embeddings: np.ndarray,
    index_texts: list[str],
    documents: dict[str, dict],
    embedder_name: str,
    ann_threshold: int,
) -> str:
    """Write a complete new version of the course index and make it live atomically. Returns the version."""
    import faiss

    if len(chunks) != len(embeddings) or len(chunks) != len(index_texts):
        raise ValueError("chunks, embeddings and index texts must be row-aligned")
    cdir = course_dir(data_dir, course)
    vroot = cdir / "versions"
    vroot.mkdir(parents=True, exist_ok=True)
    for stale in vroot.glob(".tmp-*"):
        shutil.rmtree(stale, ignore_errors=True)

    version = f"{time.strftime('%Y%m%dT%H%M%S')}-{uuid.uuid4().hex[:8]}"
    tmp = vroot / f".tmp-{version}"
    tmp.mkdir()
    emb = np.ascontiguousarray(embeddings, dtype=np.float32)
    if emb.ndim != 2:
        raise ValueError("embeddings must be a 2-d array (rows × dimensions), even when empty")
    with (tmp / "chunks.jsonl").open("w", encoding="utf-8") as f:
        for c in chunks:
            f.write(json.dumps(c.to_dict(), ensure_ascii=False) + "\n")
    np.save(tmp / "embeddings.npy", emb)
    np.save(tmp / "asking.npy", asking_shares(chunks))
    findex = build_faiss(emb, ann_threshold=ann_threshold)
    faiss.write_index(findex, str(tmp / "dense.faiss"))
    if index_texts:
        build_bm25(index_texts).save(str(tmp / "bm25"), show_progress=False)
    manifest = {
        "format": FORMAT_VERSION,
        "course": course,
        "version": version,
        "created": datetime.now(UTC).isoformat(timespec="seconds"),
        "embedder": embedder_name,
        "dim": int(emb.shape[1]) if emb.size else 0,
        "tokenizer": TOKENIZER_VERSION,
        "faiss": "hnsw" if len(chunks) > ann_threshold else "flat",
        "chunks": len(chunks),
        "documents": documents,
    }
    (tmp / "manifest.json").write_text(json.dumps(manifest, ensure_ascii=False, indent=1), encoding="utf-8")
    for p in tmp.iterdir():
        if p.is_file():
            with p.open("rb") as f:
                os.fsync(f.fileno())
    final = vroot / version
    os.rename(tmp, final)
    _fsync_dir(vroot)

    old = _live_version(cdir)
    cur_tmp = cdir / f".CURRENT.{uuid.uuid4().hex}.tmp"
    with cur_tmp.open("w", encoding="utf-8") as f:
        f.write(version)
        f.flush()
        os.fsync(f.fileno())
    os.replace(cur_tmp, cdir / "CURRENT")  # the commit point
    _fsync_dir(cdir)
    for v in vroot.iterdir():
        if v.is_dir() and v.name not in {version} and not v.name.startswith(".tmp-") and v != old:
            shutil.rmtree(v, ignore_errors=True)
    return version  # the previous version stays one generation, for readers that opened it just before


def load_index(data_dir: Path, course: str, *, embedder_name: str | None = None) -> CourseIndex:
    """Load the live index of `course`. With `embedder_name`, refuse an index built by another embedder."""
    import bm25s
    import faiss

    require_course(data_dir, course)
    cdir = course_dir(data_dir, course)
    v = _live_version(cdir)
    if v is None:
        raise NotFoundError(
            f"course {course!r} has no documents yet", hint=f"ingest some: `tutor ingest FILE.pdf --course {course}`"
        )
    try:
        manifest = json.loads((v / "manifest.json").read_text(encoding="utf-8"))
        if manifest.get("format") != FORMAT_VERSION or manifest.get("tokenizer") != TOKENIZER_VERSION:
            raise CourseIndexError(
                f"the index of course {course!r} was written by another version of the tutor",
                hint="re-ingest the course's documents",
            )
        if embedder_name and manifest["embedder"] != embedder_name:
            raise CourseIndexError(
                f"the index of course {course!r} was built with embedder {manifest['embedder']!r}, "
                f"but {embedder_name!r} is configured",
                hint=f"set TUTOR_EMBEDDER={manifest['embedder']} or re-ingest the course with the new embedder",
            )
        with (v / "chunks.jsonl").open(encoding="utf-8") as f:
            chunks = [Chunk.from_dict(json.loads(line)) for line in f if line.strip()]
        embeddings = np.load(v / "embeddings.npy")
        asking_file = v / "asking.npy"  # absent in indexes written before it existed: CourseIndex computes it
        asking = np.load(asking_file) if asking_file.exists() else None
        findex = faiss.read_index(str(v / "dense.faiss"))
        bm25 = bm25s.BM25.load(str(v / "bm25"), show_progress=False) if chunks else None
    except CourseIndexError:
        raise
    except Exception as e:
        raise CourseIndexError(
            f"the index of course {course!r} cannot be read ({type(e).__name__}: {e})",
            hint="re-ingest the course's documents",
        ) from e
    if not (len(chunks) == len(embeddings) == findex.ntotal) or (asking is not None and len(asking) != len(chunks)):
        raise CourseIndexError(f"the index of course {course!r} is inconsistent", hint="re-ingest the course")
    return CourseIndex(course, manifest, chunks, embeddings, findex, bm25, version=v.name, asking=asking)


def live_manifest(data_dir: Path, course: str) -> dict | None:
    """The live manifest of a course, or None before its first ingest."""
    return _read_manifest(course_dir(data_dir, course))
