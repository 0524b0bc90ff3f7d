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
