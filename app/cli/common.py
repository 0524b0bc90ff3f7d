"""What every CLI command shares: settings, JSON printing, and turning `TutorError`s into one line and exit 2."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import typer

from app.errors import TutorError
from app.settings import Settings


def load_settings() -> Settings:
    return Settings()


def print_json(obj: Any) -> None:
    sys.stdout.write(json.dumps(obj, ensure_ascii=False, default=str) + "\n")


def fail(message: str, code: int = 2) -> None:
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(code)


@contextmanager
def user_errors() -> Iterator[None]:
    """Print a TutorError as one line on stderr and exit 2 (1 for anything unexpected is left to Python)."""
    try:
        yield
    except TutorError as e:
        fail(str(e))
