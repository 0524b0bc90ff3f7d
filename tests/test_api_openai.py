"""Against a real uvicorn server on 127.0.0.1: the official `openai` client (plain and `stream=True`), and
schemathesis over `/openapi.json` with an admin token finding no 5xx. The tutor is the `FakeTutor`; the end-to-end
run with the real tutor is in test_api_e2e.py.
"""

from __future__ import annotations

import time
from datetime import UTC, datetime

import httpx
import openai
import pytest
from pdf_factory import FakePage, make_pdf

from app.api import create_app
from app.api.testing import DB_BACKENDS, FakeTutorFactory, database_url_for, serve_in_thread
from app.settings import Settings
from app.store import db as store_db
from app.store import repo
from indexing.embedder import HashEmbedder

T0 = datetime(2026, 3, 2, 8, 0, tzinfo=UTC)
PAGES = [FakePage(body=["# Binary search", "Binary search halves the search interval of a sorted list each step.",
                        "It needs logarithmically many comparisons."])]


@pytest.fixture(params=DB_BACKENDS)
def db_url(request, tmp_path) -> str:
    return database_url_for(request.param, tmp_path)


def seed(db_url: str) -> dict[str, str]:
    store_db.upgrade(db_url)
    engine = store_db.make_engine(db_url)
    with store_db.session_factory(engine)() as db:
        tokens = {n: repo.create_user(db, n, r, now=T0)[1] for n, r in
                  [("root", "admin"), ("t1", "teacher"), ("t2", "teacher"), ("la", "learner")]}
        db.commit()
    engine.dispose()
    return tokens


@pytest.fixture
def served(tmp_path, db_url):
    """A running server: t1 owns 'algo' with one document, la is enrolled; t2 owns nothing."""
    settings = Settings(data_dir=tmp_path / "data", database_url=db_url, rerank_enabled=False, max_upload_mb=1)
    tokens = seed(db_url)
    app = create_app(settings, tutor_factory=FakeTutorFactory(), embedder=HashEmbedder())
    with serve_in_thread(app) as base:
        t1 = {"Authorization": f"Bearer {tokens['t1']}"}
        with httpx.Client(base_url=base, headers=t1, timeout=30) as http:
            assert http.post("/v1/courses", json={"id": "algo"}).status_code == 201
            assert http.post("/v1/courses/algo/grants", json={"user": "la"}).status_code == 201
            pdf = make_pdf(tmp_path / "search.pdf", PAGES)
            job = http.post("/v1/courses/algo/documents", files={"file": ("search.pdf", pdf.read_bytes())}).json()
            for _ in range(600):
                job = http.get(f"/v1/jobs/{job['id']}").json()
                if job["status"] in ("succeeded", "failed"):
                    break
                time.sleep(0.05)
            assert job["status"] == "succeeded", job
        yield base, tokens


def test_openai_client_plain_and_streamed(served):
    base, tokens = served
    client = openai.OpenAI(base_url=f"{base}/v1", api_key=tokens["la"], max_retries=0)
    messages = [{"role": "user", "content": "how does binary search work?"}]

    completion = client.chat.completions.create(model="algo", messages=messages)
    text = "[algo] What does the material say about: how does binary search work??"
    assert completion.choices[0].message.content == text
    assert completion.choices[0].finish_reason == "stop"
    assert completion.usage.total_tokens == 19
    extra = completion.model_extra
    assert extra["citations"] == [{"chunk_id": "c-1", "source": "notes.pdf", "page_start": 2, "page_end": 3}]
    assert (extra["intent"], extra["grounding"]) == ("concept_question", "material")

    chunks = list(client.chat.completions.create(model="algo", messages=messages, stream=True))
    assert chunks[0].choices[0].delta.role == "assistant"
    assert "".join(c.choices[0].delta.content or "" for c in chunks) == text
    assert len(chunks) > 3  # really in pieces
    last = chunks[-1]
    assert last.choices[0].finish_reason == "stop"
    assert last.model_extra["citations"] == extra["citations"]
    assert last.model_extra["intent"] == "concept_question"
    assert {c.id for c in chunks} == {chunks[0].id} and chunks[0].object == "chat.completion.chunk"

    assert [m.id for m in client.models.list()] == ["algo"]


def test_openai_client_sees_our_errors(served):
    base, tokens = served
    with pytest.raises(openai.AuthenticationError):
        openai.OpenAI(base_url=f"{base}/v1", api_key="tt_wrong", max_retries=0).chat.completions.create(
            model="algo", messages=[{"role": "user", "content": "hi"}])
    other = openai.OpenAI(base_url=f"{base}/v1", api_key=tokens["t2"], max_retries=0)
    with pytest.raises(openai.NotFoundError, match="unknown course 'algo'"):
        other.chat.completions.create(model="algo", messages=[{"role": "user", "content": "hi"}])
    with pytest.raises(openai.NotFoundError):
        other.chat.completions.create(model="algo", messages=[{"role": "user", "content": "hi"}], stream=True)


def test_schemathesis_finds_no_server_errors(served):
    """Every operation, a bounded number of derandomised examples, authenticated as admin: no 5xx."""
    import schemathesis
    from hypothesis import HealthCheck, given, settings

    base, tokens = served
    headers = {"Authorization": f"Bearer {tokens['root']}"}
    schema = schemathesis.openapi.from_url(f"{base}/openapi.json")
    failures: list[str] = []
    operations = [result.ok() for result in schema.get_all_operations()]
    assert len(operations) >= 15

    for op in operations:

        @settings(max_examples=12, deadline=None, derandomize=True, database=None,
                  suppress_health_check=list(HealthCheck))
        @given(case=op.as_strategy())
        def run(case) -> None:
            response = case.call(base_url=base, headers=headers, timeout=30)
            if response.status_code >= 500:
                failures.append(f"{case.method} {case.formatted_path} -> {response.status_code}: {response.text[:200]}")

        run()
    assert failures == []
