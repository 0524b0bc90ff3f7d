"""The block switch: tests forbid real model requests unless they opt in.

`tests/conftest.py` sets `ALLOW_MODEL_REQUESTS = False` for the whole session (as pydantic-ai's test suite does),
so a test that forgot to pass a fake fails with `ModelRequestsBlocked` instead of calling a paid endpoint. Tests
that talk to the local mock server wrap the calls in `allow_model_requests()`.

Only `OpenAICompatibleLLM` checks the flag (before every HTTP request); the fakes never leave the process.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from app.errors import ModelRequestsBlocked

ALLOW_MODEL_REQUESTS = True


def check_model_requests_allowed(endpoint: str) -> None:
    """Raise `ModelRequestsBlocked` when requests are switched off. Reads the flag at call time."""
    if not ALLOW_MODEL_REQUESTS:
        raise ModelRequestsBlocked(
            f"a real model request to {endpoint} was attempted while model requests are blocked",
            hint="use app.llm.FakeLLM / FunctionLLM, or wrap a call to the local mock server in "
            "app.llm.guard.allow_model_requests()",
        )


@contextmanager
def allow_model_requests(allow: bool = True) -> Iterator[None]:
    """Temporarily set the switch (default: allow), restoring the previous value on exit."""
    global ALLOW_MODEL_REQUESTS
    previous = ALLOW_MODEL_REQUESTS
    ALLOW_MODEL_REQUESTS = allow
    try:
        yield
    finally:
        ALLOW_MODEL_REQUESTS = previous
