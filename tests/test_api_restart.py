"""SIGKILL the server in the middle of a conversation, start it again: the history is intact and the conversation
continues. The server is a real `uvicorn` subprocess with the real tutor (grounded mode, hash embedder)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

import httpx
import pytest
from pdf_factory import FakePage, make_pdf

from app.api.testing import DB_BACKENDS, database_url_for, free_port
from app.store import db as store_db
from app.store import repo
from indexing.embedder import HashEmbedder
from indexing.ingest import ingest_files
from indexing.store import create_course

ROOT = Path(__file__).resolve().parents[1]
PAGES = [
    FakePage(body=["# Stacks", "A stack is a last-in first-out collection.",
                   "Push adds an element on top and pop removes the top element."]),
    FakePage(body=["# Queues", "A queue is a first-in first-out collection.",
                   "Enqueue adds at the back and dequeue removes from the front."]),
]


@pytest.fixture(params=DB_BACKENDS)
def db_url(request, tmp_path) -> str:
    return database_url_for(request.param, tmp_path)


def start_server(env: dict[str, str], port: int) -> subprocess.Popen:
    proc = subprocess.Popen(
        [sys.executable, "-m", "uvicorn", "--factory", "app.api.main:app_from_env", "--host", "127.0.0.1",
         "--port", str(port), "--log-level", "warning"],
        cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
    )
    for _ in range(600):
        if proc.poll() is not None:
            raise AssertionError(f"server exited: {proc.stderr.read().decode()[-2000:]}")
        try:
            if httpx.get(f"http://127.0.0.1:{port}/readyz", timeout=1).status_code == 200:
                return proc
        except httpx.TransportError:
            pass
        time.sleep(0.1)
    proc.kill()
    raise AssertionError("server did not become ready")


def test_sigkill_mid_conversation_keeps_history_and_continues(tmp_path, db_url):
    data = tmp_path / "data"
    create_course(data, "ds")
    ingest_files([make_pdf(tmp_path / "ds.pdf", PAGES)], data_dir=data, course="ds", embedder=HashEmbedder(64))
    store_db.upgrade(db_url)
    engine = store_db.make_engine(db_url)
    now = datetime.now(UTC)
    with store_db.session_factory(engine)() as db:
        learner, token = repo.create_user(db, "la", "learner", now=now)
        repo.grant(db, repo.ensure_course(db, "ds", title=None, now=now), learner, now=now)
        db.commit()
    engine.dispose()

    env = {k: v for k, v in os.environ.items() if not k.startswith("TUTOR_")} | {
        "TUTOR_DATA_DIR": str(data), "TUTOR_DATABASE_URL": db_url, "TUTOR_EMBEDDER": "hash-embedder-64",
        "TUTOR_RERANK_ENABLED": "false", "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1",
    }
    port = free_port()
    auth = {"Authorization": f"Bearer {token}"}
    proc = start_server(env, port)
    try:
        with httpx.Client(base_url=f"http://127.0.0.1:{port}", headers=auth, timeout=60) as http:
            sid = http.post("/v1/sessions", json={"course": "ds"}).json()["id"]
            first = http.post(f"/v1/sessions/{sid}/messages", json={"content": "What is a stack?"})
            assert first.status_code == 200, first.text
            reply1 = first.json()["reply"]
            assert reply1["role"] == "assistant" and reply1["content"]
            before = http.get(f"/v1/sessions/{sid}").json()
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait(30)
    assert proc.returncode == -signal.SIGKILL

    proc = start_server(env, port)
    try:
        with httpx.Client(base_url=f"http://127.0.0.1:{port}", headers=auth, timeout=60) as http:
            after = http.get(f"/v1/sessions/{sid}").json()
            assert after["messages"] == before["messages"]
            assert after["tool_calls"] == before["tool_calls"]
            assert [m["content"] for m in after["messages"]] == ["What is a stack?", reply1["content"]]
            second = http.post(f"/v1/sessions/{sid}/messages", json={"content": "And what does pop do?"})
            assert second.status_code == 200, second.text
            final = http.get(f"/v1/sessions/{sid}").json()
            assert [(m["seq"], m["role"]) for m in final["messages"]] == [
                (1, "user"), (2, "assistant"), (3, "user"), (4, "assistant")]
            assert final["messages"][:2] == before["messages"]
            assert [c["message_seq"] for c in final["tool_calls"]] == [2, 4]
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(30)
