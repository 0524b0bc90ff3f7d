"""End to end with the real tutor: a tiny generated course, embedded with the packaged MiniLM, served by uvicorn
on 127.0.0.1, asked through the official `openai` client, plain and streamed: a grounded reply with citations."""

from __future__ import annotations

import time
from datetime import UTC, datetime

import httpx
import openai
import pytest
from pdf_factory import FakePage, make_pdf

from app.api import create_app
from app.api.testing import serve_in_thread
from app.settings import Settings
from app.store import db as store_db
from app.store import repo

pytestmark = pytest.mark.slow

PAGES = [
    FakePage(body=["# Stacks", "A stack is a last-in first-out collection.",
                   "Push adds an element on top and pop removes the top element."]),
    FakePage(body=["# Queues", "A queue is a first-in first-out collection.",
                   "Enqueue adds at the back and dequeue removes from the front."]),
]


def test_openai_client_gets_a_grounded_reply_with_citations(tmp_path):
    from indexing.embedder import load_embedder

    embedder = load_embedder()  # the packaged all-MiniLM-L6-v2
    url = f"sqlite:///{tmp_path / 'tutor.db'}"
    settings = Settings(data_dir=tmp_path / "data", database_url=url, rerank_enabled=False)
    store_db.upgrade(url)
    engine = store_db.make_engine(url)
    now = datetime.now(UTC)
    with store_db.session_factory(engine)() as db:
        _, teacher = repo.create_user(db, "t1", "teacher", now=now)
        _, learner = repo.create_user(db, "la", "learner", now=now)
        db.commit()
    engine.dispose()

    with serve_in_thread(create_app(settings, embedder=embedder)) as base:  # the default (real) tutor factory
        with httpx.Client(base_url=base, headers={"Authorization": f"Bearer {teacher}"}, timeout=60) as http:
            assert http.post("/v1/courses", json={"id": "ds"}).status_code == 201
            assert http.post("/v1/courses/ds/grants", json={"user": "la"}).status_code == 201
            pdf = make_pdf(tmp_path / "ds.pdf", PAGES).read_bytes()
            job = http.post("/v1/courses/ds/documents", files={"file": ("ds.pdf", pdf)}).json()
            for _ in range(1200):
                job = http.get(f"/v1/jobs/{job['id']}").json()
                if job["status"] in ("succeeded", "failed"):
                    break
                time.sleep(0.05)
            assert job["status"] == "succeeded", job

        client = openai.OpenAI(base_url=f"{base}/v1", api_key=learner, max_retries=0)
        ask = [{"role": "user", "content": "What is a stack?"}]
        plain = client.chat.completions.create(model="ds", messages=ask)
        extra = plain.model_extra
        assert extra["grounding"] == "material" and extra["mode"] == "grounded"
        assert [(c["source"], c["page_start"]) for c in extra["citations"]] == [("ds.pdf", 1)]
        assert "last-in first-out" in plain.choices[0].message.content

        chunks = list(client.chat.completions.create(
            model="ds", messages=[{"role": "user", "content": "What is a queue?"}], stream=True))
        text = "".join(c.choices[0].delta.content or "" for c in chunks)
        assert "first-in first-out" in text
        assert len([c for c in chunks if c.choices[0].delta.content]) >= 2  # streamed in pieces
        last = chunks[-1].model_extra
        assert chunks[-1].choices[0].finish_reason == "stop"
        assert last["grounding"] == "material"
        assert [(c["source"], c["page_start"]) for c in last["citations"]] == [("ds.pdf", 2)]
