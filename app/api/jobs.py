"""Background ingestion: an uploaded file becomes a job that a small thread pool runs.

A job moves queued → running → succeeded | failed, with `progress` in [0, 1] and, on failure, the reason. Writes
to one course index are serialised by a per-course lock (deletes take the same lock); the index itself is replaced
atomically by `indexing.ingest`, so a failed job leaves the course exactly as it was.
"""

from __future__ import annotations

import shutil
import threading
from collections import defaultdict
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime
from pathlib import Path

from sqlalchemy.orm import Session, sessionmaker

from app.api.logs import get_logger
from app.errors import TutorError
from app.settings import Settings
from app.store import repo
from indexing.embedder import Embedder

_log = get_logger("jobs")


class IngestRunner:
    def __init__(
        self,
        *,
        settings: Settings,
        sessions: sessionmaker[Session],
        embedder: Callable[[], Embedder],
        clock: Callable[[], datetime],
        workers: int = 2,
    ) -> None:
        self._settings = settings
        self._sessions = sessions
        self._embedder = embedder
        self._clock = clock
        self._pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="ingest")
        self._locks: dict[str, threading.Lock] = defaultdict(threading.Lock)
        self._locks_guard = threading.Lock()

    def course_lock(self, course: str) -> threading.Lock:
        with self._locks_guard:
            return self._locks[course]

    def submit(self, job_id: str, course: str, path: Path):
        return self._pool.submit(self.run, job_id, course, path)

    def shutdown(self) -> None:
        self._pool.shutdown(wait=True, cancel_futures=True)

    def _update(self, job_id: str, **fields) -> None:
        with self._sessions() as db:
            repo.update_job(db, job_id, now=self._clock(), **fields)
            db.commit()

    def run(self, job_id: str, course: str, path: Path) -> None:
        """Run one job to its end state; never raises (the job records what went wrong)."""
        try:
            self._update(job_id, status="running", progress=0.05)
            with self.course_lock(course):
                status, fields = self._ingest(job_id, course, path)
            self._update(job_id, status=status, **fields)
            _log.info("ingest job done", extra={"job": job_id, "course": course, "status": status, **fields})
        except Exception as e:  # a bug, not a bad file: still end the job, and keep the trace in the log
            _log.exception("ingest job crashed", extra={"job": job_id, "course": course})
            try:
                self._update(job_id, status="failed", reason=f"internal error ({type(e).__name__}: {e})")
            except Exception:
                _log.exception("cannot record the job's failure", extra={"job": job_id})
        finally:
            shutil.rmtree(path.parent, ignore_errors=True)

    def _ingest(self, job_id: str, course: str, path: Path) -> tuple[str, dict]:
        from indexing.ingest import ingest_files

        too_many = self._too_many_pages(path)
        if too_many:
            return "failed", {"reason": too_many}
        s = self._settings
        total = {"chunks": 0, "done": 0, "reported": 0.05}

        def on_file(result) -> None:
            total["chunks"] = result.chunks

        def progress(n: int) -> None:
            total["done"] += n
            p = 0.1 + 0.8 * total["done"] / max(total["chunks"], 1)
            if p - total["reported"] >= 0.1:
                total["reported"] = p
                self._update(job_id, progress=round(min(p, 0.9), 3))

        try:
            report = ingest_files(
                [path], data_dir=s.data_dir, course=course, embedder=self._embedder(), target=s.chunk_chars,
                overlap=s.chunk_overlap_sentences, batch_size=s.embed_batch_size, ann_threshold=s.ann_threshold,
                on_file=on_file, progress=progress,
            )
        except TutorError as e:
            return "failed", {"reason": str(e)}
        if report.failed:
            reason = report.failed[0].reason or "the file could not be ingested"
            return "failed", {"reason": reason.replace(str(path), path.name)}
        f = report.files[0]
        return "succeeded", {"progress": 1.0, "chunks": f.chunks, "reason": "unchanged" if f.status == "unchanged" else None}

    def _too_many_pages(self, path: Path) -> str | None:
        import pymupdf

        from indexing.extract import check_pdf_file

        try:
            check_pdf_file(path)
            with pymupdf.open(path) as doc:
                pages = doc.page_count
        except Exception:
            return None  # not readable as a PDF: ingestion reports why
        limit = self._settings.max_upload_pages
        if pages > limit:
            return f"{path.name}: {pages} pages, more than the limit of {limit} — split the document or raise TUTOR_MAX_UPLOAD_PAGES"
        return None
