"""The comparison notebook runs (nbclient, a real kernel) on two tiny run directories made here, and its table
holds their improvement rates."""

from __future__ import annotations

import json
import os
from pathlib import Path

import nbformat
from nbclient import NotebookClient
from test_eval_simulate import persona_run

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOK = ROOT / "notebooks/compare_runs.ipynb"


def test_notebook_loads_runs_and_plots_the_comparison(tmp_path, monkeypatch):
    a, _, _ = persona_run(tmp_path, "receptive")
    b, _, _ = persona_run(tmp_path, "stubborn")
    monkeypatch.setenv("EVAL_RUN_DIRS", f"{a.path}:{b.path}")
    monkeypatch.setenv("PYTHONPATH", str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    nb = nbformat.read(NOTEBOOK, as_version=4)
    NotebookClient(nb, timeout=120, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}}).execute()
    printed = "".join(o.get("text", "") for o in nb.cells[-1].outputs if o.get("name") == "stdout")
    rows = {r["run"]: r for r in json.loads(printed)}
    assert rows["run-receptive"]["improvement_rate"] == 0.3333
    assert rows["run-stubborn"]["improvement_rate"] == 0.0
    assert rows["run-receptive"]["rate_tracing"] == 1.0
    assert (tmp_path / "simulate_comparison.png").exists()
