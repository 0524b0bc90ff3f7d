"""Reading JSON-lines input files (gold sets, query files, evaluation data) with errors that name file and line."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from app.errors import UserError


def read_jsonl(path: Path, *, what: str = "input", option: str = "--data") -> list[tuple[int, dict[str, Any]]]:
    """(line number, object) for every non-blank line; a missing file, a non-JSON line, a line that is not an
    object, or a file without any line is a `UserError` naming the file (and line)."""
    path = Path(path)
    if not path.exists():
        raise UserError(f"{path}: {what} file not found", hint=f"pass {option} with a JSON-lines file")
    out = []
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            d = json.loads(line)
        except json.JSONDecodeError as e:
            raise UserError(f"{path}:{n}: not JSON ({e})", hint="one JSON object per line") from e
        if not isinstance(d, dict):
            raise UserError(f"{path}:{n}: expected a JSON object", hint="one JSON object per line")
        out.append((n, d))
    if not out:
        raise UserError(f"{path}: no {what} lines", hint="add one JSON object per line")
    return out
