"""Test-wide guards: no hub downloads, no real model requests, no stray data directories."""

from __future__ import annotations

import os

os.environ["HF_HUB_OFFLINE"] = "1"
os.environ["TRANSFORMERS_OFFLINE"] = "1"
os.environ["RAGAS_DO_NOT_TRACK"] = "true"
for var in [k for k in os.environ if k.startswith("TUTOR_") and not k.startswith("TUTOR_TEST_")]:
    del os.environ[var]  # tests build their settings explicitly

import app.llm.guard  # noqa: E402

# Any real model request in the tests fails; tests that talk to the local mock server opt in with
# `app.llm.guard.allow_model_requests()`.
app.llm.guard.ALLOW_MODEL_REQUESTS = False

from pathlib import Path  # noqa: E402

import pytest  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
SAMPLE_PDF = ROOT / "data/sample_course/search-algorithms.pdf"


@pytest.fixture(scope="session")
def sample_course(tmp_path_factory):
    """The bundled sample course ingested once per test session with the real MiniLM embedder.

    Returns the `Settings` whose data dir holds it (course id "search")."""
    from app.settings import Settings
    from indexing.embedder import load_embedder
    from indexing.ingest import ingest_files
    from indexing.store import create_course

    data_dir = tmp_path_factory.mktemp("sample-course")
    create_course(data_dir, "search")
    report = ingest_files([SAMPLE_PDF], data_dir=data_dir, course="search", embedder=load_embedder())
    assert report.chunks_total > 50 and not report.failed
    return Settings(data_dir=data_dir)
