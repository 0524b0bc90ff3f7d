"""The HTTP service through FastAPI's TestClient, on SQLite and PostgreSQL: authentication, who sees what,
uploads as background jobs (good and bad files), sessions with their stored history and expiry, deleting documents.

The tutor is the `FakeTutor` (the swappable part behind `tutor_factory`); ingestion is real, with `HashEmbedder`.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from pdf_factory import FakePage, make_pdf

from app.api import create_app
from app.api.testing import DB_BACKENDS, FakeTutorFactory, database_url_for
from app.settings import Settings
from app.store import db as store_db
from app.store import repo
from indexing.embedder import HashEmbedder

T0 = datetime(2026, 3, 2, 8, 0, tzinfo=UTC)
SORTING = [
    FakePage(body=["# Merge sort", "Merge sort splits the list into halves, sorts each half and merges them.",
                   "The merge step walks both halves once, so merging costs linear time."]),
    FakePage(body=["# Quick sort", "Quick sort picks a pivot and partitions the list around it.",
                   "A bad pivot makes quick sort quadratic."]),
]
HASHING = [FakePage(body=["# Hash tables", "A hash table maps keys to buckets with a hash function.",
                          "Collisions are resolved by chaining or open addressing."])]


class Clock:
    def __init__(self, now: datetime) -> None:
        self.now = now

    def __call__(self) -> datetime:
        return self.now


@dataclass
class World:
    client: TestClient
    tokens: dict[str, str]
    tutors: FakeTutorFactory
    clock: Clock
    settings: Settings
    tmp: Path

    def h(self, who: str) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.tokens[who]}"}

    def upload(self, who: str, course: str, path: Path, name: str | None = None):
        with path.open("rb") as f:
            return self.client.post(
                f"/v1/courses/{course}/documents", files={"file": (name or path.name, f, "application/pdf")},
                headers=self.h(who),
            )

    def wait(self, who: str, job_id: str) -> dict:
        for _ in range(1200):
            job = self.client.get(f"/v1/jobs/{job_id}", headers=self.h(who)).json()
            if job["status"] in ("succeeded", "failed"):
                return job
            time.sleep(0.05)
        raise AssertionError(f"job {job_id} did not finish: {job}")


@pytest.fixture(params=DB_BACKENDS)
def db_url(request, tmp_path) -> str:
    return database_url_for(request.param, tmp_path)


def make_settings(tmp_path: Path, db_url: str, **over) -> Settings:
    return Settings(data_dir=tmp_path / "data", database_url=db_url, rerank_enabled=False, **over)


def seed_users(db_url: str) -> dict[str, str]:
    store_db.upgrade(db_url)
    engine = store_db.make_engine(db_url)
    tokens = {}
    with store_db.session_factory(engine)() as db:
        for name, role in [("root", "admin"), ("t1", "teacher"), ("t2", "teacher"), ("la", "learner"),
                           ("lb", "learner")]:
            tokens[name] = repo.create_user(db, name, role, now=T0)[1]
        db.commit()
    engine.dispose()
    return tokens


@pytest.fixture
def world(tmp_path, db_url):
    """t1 owns 'algo' (one document, la and lb enrolled); t2 owns 'dbs' (empty)."""
    settings = make_settings(tmp_path, db_url, session_idle_minutes=30, max_upload_mb=1, max_upload_pages=3)
    tokens = seed_users(db_url)
    tutors, clock = FakeTutorFactory(), Clock(T0)
    app = create_app(settings, tutor_factory=tutors, embedder=HashEmbedder(), clock=clock)
    with TestClient(app) as client:
        w = World(client, tokens, tutors, clock, settings, tmp_path)
        assert client.post("/v1/courses", json={"id": "algo", "title": "Algorithms"}, headers=w.h("t1")).status_code == 201
        assert client.post("/v1/courses", json={"id": "dbs"}, headers=w.h("t2")).status_code == 201
        for learner in ("la", "lb"):
            r = client.post("/v1/courses/algo/grants", json={"user": learner}, headers=w.h("t1"))
            assert r.json() == {"course": "algo", "user": learner, "granted": "enrolled"}
        job = w.wait("t1", w.upload("t1", "algo", make_pdf(tmp_path / "sorting.pdf", SORTING)).json()["id"])
        assert job["status"] == "succeeded", job
        yield w


# ------------------------------------------------------------------------------------------- health and auth


def test_health_ready_and_request_id(world):
    c = world.client
    assert c.get("/healthz").json() == {"status": "ok"}
    ready = c.get("/readyz")
    assert (ready.status_code, ready.json()["status"], ready.json()["revision"]) == (200, "ready", store_db.head_revision())
    r = c.get("/healthz", headers={"X-Request-ID": "req-42"})
    assert r.headers["X-Request-ID"] == "req-42"
    assert len(c.get("/healthz").headers["X-Request-ID"]) == 32  # made up when the client sends none
    assert c.get("/docs").status_code == 200
    assert "/v1/chat/completions" in c.get("/openapi.json").json()["paths"]


@pytest.mark.parametrize("headers", [{}, {"Authorization": "Bearer tt_not-a-token"}, {"Authorization": "Basic eDp5"}])
def test_missing_or_bad_token_is_401(world, headers):
    for method, path in [("get", "/v1/courses"), ("get", "/v1/users/me"), ("post", "/v1/sessions")]:
        r = getattr(world.client, method)(path, headers=headers)
        assert r.status_code == 401, (path, r.text)
        assert r.headers["WWW-Authenticate"] == "Bearer"


def test_whoami_and_user_admin(world):
    c = world.client
    assert c.get("/v1/users/me", headers=world.h("la")).json()["role"] == "learner"
    assert c.post("/v1/users", json={"name": "x", "role": "learner"}, headers=world.h("t1")).status_code == 403
    made = c.post("/v1/users", json={"name": "lc", "role": "learner"}, headers=world.h("root"))
    assert made.status_code == 201 and made.json()["name"] == "lc"
    assert c.get("/v1/users/me", headers={"Authorization": f"Bearer {made.json()['token']}"}).json()["name"] == "lc"
    dup = c.post("/v1/users", json={"name": "lc", "role": "learner"}, headers=world.h("root"))
    assert dup.status_code == 400 and "exists already" in dup.json()["detail"]


# ------------------------------------------------------------------------------------------- who sees what


def test_courses_by_role(world):
    c = world.client

    def ids(who):
        return [x["id"] for x in c.get("/v1/courses", headers=world.h(who)).json()]

    assert ids("root") == ["algo", "dbs"]
    assert (ids("t1"), ids("t2"), ids("la")) == (["algo"], ["dbs"], ["algo"])
    algo = c.get("/v1/courses/algo", headers=world.h("la")).json()
    assert algo == {"id": "algo", "title": "Algorithms", "owner": "t1", "documents": 1, "chunks": algo["chunks"]}
    assert algo["chunks"] >= 2


def test_teacher_cannot_see_another_teachers_course(world):
    c = world.client
    assert c.get("/v1/courses/algo", headers=world.h("t2")).status_code == 404
    assert c.get("/v1/courses/algo/documents", headers=world.h("t2")).status_code == 404
    assert world.upload("t2", "algo", world.tmp / "sorting.pdf").status_code == 404
    assert c.post("/v1/sessions", json={"course": "algo"}, headers=world.h("t2")).status_code == 404
    r = c.post("/v1/chat/completions", json={"model": "algo", "messages": [{"role": "user", "content": "hi"}]},
               headers=world.h("t2"))
    assert r.status_code == 404
    assert r.json()["detail"] == c.get("/v1/courses/nope", headers=world.h("t2")).json()["detail"].replace("nope", "algo")


def test_learner_uploading_a_pdf_is_403(world):
    r = world.upload("la", "algo", world.tmp / "sorting.pdf")
    assert r.status_code == 403 and "learners cannot change" in r.json()["detail"]
    assert world.client.delete("/v1/courses/algo/documents/sorting.pdf", headers=world.h("la")).status_code == 403
    assert world.client.post("/v1/courses", json={"id": "mine"}, headers=world.h("la")).status_code == 403


def test_grants_through_the_api(world):
    c = world.client
    assert c.post("/v1/courses/algo/grants", json={"user": "t2"}, headers=world.h("t1")).status_code == 403
    assert c.post("/v1/courses/algo/grants", json={"user": "lb"}, headers=world.h("la")).status_code == 403
    assert c.post("/v1/courses/algo/grants", json={"user": "ghost"}, headers=world.h("t1")).status_code == 404
    r = c.post("/v1/courses/dbs/grants", json={"user": "t1"}, headers=world.h("root"))
    assert r.json() == {"course": "dbs", "user": "t1", "granted": "owner"}
    assert [x["id"] for x in c.get("/v1/courses", headers=world.h("t1")).json()] == ["algo", "dbs"]
    assert c.get("/v1/courses", headers=world.h("t2")).json() == []


# ------------------------------------------------------------------------------------------- sessions


def test_session_history_is_stored_as_it_happens(world):
    c, la = world.client, world.h("la")
    s = c.post("/v1/sessions", json={"course": "algo"}, headers=la).json()
    assert (s["course"], s["user"], s["status"]) == ("algo", "la", "active")
    first = c.post(f"/v1/sessions/{s['id']}/messages", json={"content": "what is merge sort?"}, headers=la).json()
    assert first["reply"]["content"] == "[algo] What does the material say about: what is merge sort??"
    assert (first["user_message"]["seq"], first["reply"]["seq"], first["reply"]["help_level"]) == (1, 2, 1)
    second = c.post(f"/v1/sessions/{s['id']}/messages", json={"content": "still stuck"}, headers=la).json()
    assert second["reply"]["help_level"] == 2  # the fake counts the tutor's earlier turns it was given
    question, history = world.tutors.tutors["algo"].calls[-1]
    assert question == "still stuck"
    assert [(t.role, t.content) for t in history] == [
        ("user", "what is merge sort?"), ("assistant", first["reply"]["content"])]

    detail = c.get(f"/v1/sessions/{s['id']}", headers=la).json()
    assert [(m["seq"], m["role"]) for m in detail["messages"]] == [(1, "user"), (2, "assistant"), (3, "user"),
                                                                    (4, "assistant")]
    assert detail["messages"][1]["citations"] == [{"chunk_id": "c-1", "source": "notes.pdf", "page_start": 2,
                                                   "page_end": 3}]
    assert detail["usage"] == {"prompt_tokens": 24, "completion_tokens": 14, "total_tokens": 38}
    calls = detail["tool_calls"]
    assert [(t["name"], t["message_seq"], t["ok"]) for t in calls] == [("tutor.answer", 2, True), ("tutor.answer", 4, True)]
    assert calls[0]["arguments"] == {"question": "what is merge sort?"}
    assert calls[0]["result"]["retrieved"] == ["c-1"] and calls[0]["duration_ms"] >= 0


def test_learner_a_reading_learner_bs_session_is_404(world):
    c = world.client
    s = c.post("/v1/sessions", json={"course": "algo"}, headers=world.h("lb")).json()
    c.post(f"/v1/sessions/{s['id']}/messages", json={"content": "private question"}, headers=world.h("lb"))
    for who in ("la", "t2"):
        r = c.get(f"/v1/sessions/{s['id']}", headers=world.h(who))
        assert r.status_code == 404 and r.json()["detail"] == f"unknown session {s['id']!r}"
        assert c.post(f"/v1/sessions/{s['id']}/messages", json={"content": "x"}, headers=world.h(who)).status_code == 404
    assert c.get(f"/v1/sessions/{s['id']}", headers=world.h("t1")).status_code == 200  # the course's teacher
    assert c.post(f"/v1/sessions/{s['id']}/messages", json={"content": "x"}, headers=world.h("t1")).status_code == 403
    assert c.get("/v1/sessions/does-not-exist", headers=world.h("la")).status_code == 404


def test_idle_sessions_expire(world):
    c, la = world.client, world.h("la")
    s = c.post("/v1/sessions", json={"course": "algo"}, headers=la).json()
    world.clock.now = T0 + timedelta(minutes=10)
    assert c.post(f"/v1/sessions/{s['id']}/messages", json={"content": "hi"}, headers=la).status_code == 200
    world.clock.now = T0 + timedelta(minutes=40)  # 30 idle minutes after the last message: still active
    assert c.get(f"/v1/sessions/{s['id']}", headers=la).json()["status"] == "active"
    world.clock.now = T0 + timedelta(minutes=40, seconds=1)
    detail = c.get(f"/v1/sessions/{s['id']}", headers=la).json()
    assert detail["status"] == "expired" and len(detail["messages"]) == 2
    r = c.post(f"/v1/sessions/{s['id']}/messages", json={"content": "again"}, headers=la)
    assert r.status_code == 410 and "expired after 30 idle minutes" in r.json()["detail"]


def test_session_on_a_course_without_documents(world):
    s = world.client.post("/v1/sessions", json={"course": "dbs"}, headers=world.h("t2")).json()
    r = world.client.post(f"/v1/sessions/{s['id']}/messages", json={"content": "hi"}, headers=world.h("t2"))
    assert r.status_code == 400 and "has no documents yet" in r.json()["detail"]


# ------------------------------------------------------------------------------------------- chat (TestClient)


def test_chat_completion_shape_and_errors(world):
    c, la = world.client, world.h("la")
    body = {"model": "algo", "temperature": 0.2, "messages": [
        {"role": "system", "content": "be nice"}, {"role": "user", "content": "what is merge sort?"},
        {"role": "assistant", "content": "What do you know?"},
        {"role": "user", "content": [{"type": "text", "text": "it splits"}]}]}
    r = c.post("/v1/chat/completions", json=body, headers=la).json()
    assert r["object"] == "chat.completion" and r["model"] == "algo" and r["id"].startswith("chatcmpl-")
    assert r["choices"] == [{"index": 0, "message": {"role": "assistant",
                             "content": "[algo] What does the material say about: it splits?"}, "finish_reason": "stop"}]
    assert (r["intent"], r["grounding"], r["help_level"], r["mode"]) == ("concept_question", "material", 2, "grounded")
    assert r["usage"] == {"prompt_tokens": 12, "completion_tokens": 7, "total_tokens": 19}
    assert [(t.role, t.content) for t in world.tutors.tutors["algo"].calls[-1][1]] == [
        ("user", "what is merge sort?"), ("assistant", "What do you know?")]
    bad = c.post("/v1/chat/completions", headers=la,
                 json={"model": "algo", "messages": [{"role": "assistant", "content": "hi"}]})
    assert bad.status_code == 400 and bad.json()["error"]["message"].startswith("the last message must be")
    assert c.post("/v1/chat/completions", headers=la, json={"model": "algo", "messages": []}).status_code == 422
    models = c.get("/v1/models", headers=la).json()
    assert [m["id"] for m in models["data"]] == ["algo"]


# ------------------------------------------------------------------------------------------- documents


def _encrypted(path: Path, src: Path) -> Path:
    import pymupdf

    with pymupdf.open(src) as doc:
        doc.save(path, encryption=pymupdf.PDF_ENCRYPT_AES_256, owner_pw="o", user_pw="secret")
    return path


def _search(world, query: str) -> list[tuple[str, float]]:
    from app.retrieval.pipeline import open_retriever

    hits = open_retriever(world.settings, "algo", embedder=HashEmbedder()).search(query, k=5).hits
    return [(h.chunk.id, round(h.score, 6)) for h in hits]


def test_bad_uploads_fail_their_job_and_leave_the_course_unchanged(world):
    from indexing.store import live_manifest

    before_version = live_manifest(world.settings.data_dir, "algo")["version"]
    before = [_search(world, q) for q in ("merge sort halves", "quick sort pivot")]
    tmp = world.tmp
    (tmp / "notes.txt").write_text("just some text, not a PDF\n")
    whole = make_pdf(tmp / "whole.pdf", HASHING).read_bytes()
    (tmp / "corrupt.pdf").write_bytes(whole[: len(whole) // 2])  # truncated mid-file
    cases = {
        "notes.txt": (tmp / "notes.txt", "not a PDF"),
        "corrupt.pdf": (tmp / "corrupt.pdf", "corrupt or unreadable PDF"),
        "locked.pdf": (_encrypted(tmp / "locked.pdf", make_pdf(tmp / "src.pdf", HASHING)), "encrypted"),
    }
    for name, (path, reason) in cases.items():
        r = world.upload("t1", "algo", path, name=name)
        assert r.status_code == 202 and r.json()["status"] == "queued"
        job = world.wait("t1", r.json()["id"])
        assert job["status"] == "failed", job
        assert reason in job["reason"] and job["reason"].startswith(name), job["reason"]
        assert str(world.settings.data_dir) not in job["reason"]  # no server paths leak
    assert live_manifest(world.settings.data_dir, "algo")["version"] == before_version
    assert [_search(world, q) for q in ("merge sort halves", "quick sort pivot")] == before
    assert [d["name"] for d in world.client.get("/v1/courses/algo/documents", headers=world.h("t1")).json()] == [
        "sorting.pdf"]


def test_upload_limits(world):
    big = world.tmp / "big.pdf"
    big.write_bytes(b"%PDF-1.7\n" + b"0" * (1024 * 1024 + 10))
    r = world.upload("t1", "algo", big)
    assert r.status_code == 413 and "larger than 1 MB" in r.json()["detail"]
    long_pdf = make_pdf(world.tmp / "long.pdf", SORTING + SORTING)  # 4 pages, the limit is 3
    job = world.wait("t1", world.upload("t1", "algo", long_pdf).json()["id"])
    assert job["status"] == "failed"
    assert job["reason"].startswith("long.pdf: 4 pages, more than the limit of 3")


def test_upload_progress_and_delete_document(world):
    c, t1 = world.client, world.h("t1")
    job = world.wait("t1", world.upload("t1", "algo", make_pdf(world.tmp / "hashing.pdf", HASHING)).json()["id"])
    assert (job["status"], job["progress"], job["reason"]) == ("succeeded", 1.0, None) and job["chunks"] >= 1
    docs = c.get("/v1/courses/algo/documents", headers=t1).json()
    assert [d["name"] for d in docs] == ["hashing.pdf", "sorting.pdf"] and docs[1]["pages"] == 2
    assert world.client.get(f"/v1/jobs/{job['id']}", headers=world.h("la")).status_code == 404
    assert c.delete("/v1/courses/algo/documents/nope.pdf", headers=t1).status_code == 404
    r = c.delete("/v1/courses/algo/documents/sorting.pdf", headers=t1)
    assert r.status_code == 200 and r.json()["deleted"] == "sorting.pdf"
    assert [d["name"] for d in c.get("/v1/courses/algo/documents", headers=t1).json()] == ["hashing.pdf"]
    assert {cid.split(":")[0] for cid, _ in _search(world, "merge sort halves")} == {
        cid.split(":")[0] for cid, _ in _search(world, "hash table buckets")}
    from indexing.store import load_index

    assert {ch.source for ch in load_index(world.settings.data_dir, "algo").chunks} == {"hashing.pdf"}
    last = c.delete("/v1/courses/algo/documents/hashing.pdf", headers=t1)
    assert last.status_code == 400 and "only document" in last.json()["detail"]


def test_logs_are_json_lines_with_request_id_and_tutor_usage(world):
    import io
    import json as jsonlib
    import logging

    from app.api.logs import JsonFormatter

    buf = io.StringIO()
    handler = logging.StreamHandler(buf)
    handler.setFormatter(JsonFormatter())
    logger = logging.getLogger("tutor")
    logger.addHandler(handler)
    try:
        world.client.post("/v1/chat/completions", headers={**world.h("la"), "X-Request-ID": "trace-7"},
                          json={"model": "algo", "messages": [{"role": "user", "content": "merge sort?"}]})
    finally:
        logger.removeHandler(handler)
    lines = [jsonlib.loads(line) for line in buf.getvalue().splitlines()]
    answer = next(x for x in lines if x["msg"] == "tutor answer")
    assert answer["request_id"] == "trace-7"
    assert (answer["course"], answer["prompt_tokens"], answer["completion_tokens"]) == ("algo", 12, 7)
    assert answer["latency_ms"] >= 0
    access = next(x for x in lines if x["msg"] == "request")
    assert (access["request_id"], access["path"], access["status"]) == ("trace-7", "/v1/chat/completions", 200)
