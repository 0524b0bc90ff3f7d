"""Course documents: upload a PDF (→ a background ingestion job), follow the job, list and delete documents."""

from __future__ import annotations

import re
import tempfile
from pathlib import Path
from typing import Annotated

from fastapi import APIRouter, File, HTTPException, Request, UploadFile, status

from app.api.deps import CurrentUser, DbDep, ServicesDep
from app.api.schemas import DocumentDeleted, DocumentPublic, JobPublic, utc
from app.errors import NotFoundError, UserError
from app.store import repo
from app.store.models import Job
from indexing import store as index_store

router = APIRouter(prefix="/v1", tags=["documents"])
_UNSAFE = re.compile(r"[^A-Za-z0-9._ -]+")


def safe_filename(name: str | None) -> str:
    """The upload's base name with anything unusual replaced; it names the document in citations."""
    base = Path((name or "").replace("\\", "/")).name
    base = _UNSAFE.sub("_", base).strip(" .") or "upload.pdf"
    return base[:200]


def job_public(job: Job) -> JobPublic:
    return JobPublic(
        id=job.id, course=job.course_id, filename=job.filename, status=job.status,  # type: ignore[arg-type]
        progress=job.progress, reason=job.reason, chunks=job.chunks, created=utc(job.created), updated=utc(job.updated),
    )


@router.get("/courses/{course_id}/documents", response_model=list[DocumentPublic])
def list_documents(course_id: str, db: DbDep, services: ServicesDep, user: CurrentUser) -> list[DocumentPublic]:
    repo.visible_course(db, user, course_id)
    manifest = index_store.live_manifest(services.settings.data_dir, course_id)
    docs = (manifest or {}).get("documents", {})
    return [
        DocumentPublic(name=n, pages=d.get("pages", 0), chunks=d.get("chunks", 0), sha256=d.get("sha256", ""),
                       ingested=d.get("ingested"))
        for n, d in sorted(docs.items())
    ]


@router.post(
    "/courses/{course_id}/documents",
    response_model=JobPublic,
    status_code=status.HTTP_202_ACCEPTED,
    responses={413: {"description": "the file is larger than TUTOR_MAX_UPLOAD_MB"}},
)
def upload_document(
    course_id: str,
    file: Annotated[UploadFile, File(description="A PDF file.")],
    request: Request,
    db: DbDep,
    services: ServicesDep,
    user: CurrentUser,
) -> JobPublic:
    """Queue a PDF for ingestion. Poll `GET /v1/jobs/{id}`; a bad file ends in a failed job with the reason."""
    course = repo.managed_course(db, user, course_id)
    limit = services.settings.max_upload_mb * 1024 * 1024
    too_large = HTTPException(
        status.HTTP_413_CONTENT_TOO_LARGE, f"file larger than {services.settings.max_upload_mb} MB (TUTOR_MAX_UPLOAD_MB)"
    )
    if int(request.headers.get("content-length") or 0) > limit + 64 * 1024:
        raise too_large
    if not index_store.course_exists(services.settings.data_dir, course.id):
        index_store.create_course(services.settings.data_dir, course.id, course.title)
    name = safe_filename(file.filename)
    upload_root = services.settings.data_dir / "uploads"
    upload_root.mkdir(parents=True, exist_ok=True)
    folder = Path(tempfile.mkdtemp(prefix="job-", dir=upload_root))
    size = 0
    with (folder / name).open("wb") as out:
        while block := file.file.read(1 << 20):
            size += len(block)
            if size > limit:
                out.close()
                import shutil

                shutil.rmtree(folder, ignore_errors=True)
                raise too_large
            out.write(block)
    job = repo.create_job(db, course, user, name, now=services.clock())
    db.commit()
    services.jobs.submit(job.id, course.id, folder / name)
    return job_public(job)


@router.get("/jobs/{job_id}", response_model=JobPublic)
def read_job(job_id: str, db: DbDep, user: CurrentUser) -> JobPublic:
    return job_public(repo.visible_job(db, user, job_id))


@router.delete("/courses/{course_id}/documents/{name}", response_model=DocumentDeleted)
def delete_document(course_id: str, name: str, db: DbDep, services: ServicesDep, user: CurrentUser) -> DocumentDeleted:
    """Remove a document; the course index is rebuilt without it and swapped in atomically."""
    from indexing.ingest import remove_document

    course = repo.managed_course(db, user, course_id)
    manifest = index_store.live_manifest(services.settings.data_dir, course.id)
    if not manifest or name not in manifest.get("documents", {}):
        raise NotFoundError(f"course {course_id!r} has no document {name!r}", hint=f"GET /v1/courses/{course_id}/documents")
    if len(manifest["documents"]) == 1:
        # indexing.store.write_index cannot write an index without chunks yet
        raise UserError(
            f"{name!r} is the only document of course {course_id!r} and cannot be deleted",
            hint="upload its replacement first (same file name replaces it), then delete",
        )
    with services.jobs.course_lock(course.id):
        version = remove_document(
            data_dir=services.settings.data_dir, course=course.id, source=name,
            embedder_name=manifest["embedder"], ann_threshold=services.settings.ann_threshold,
        )
    return DocumentDeleted(course=course.id, deleted=name, version=version)
