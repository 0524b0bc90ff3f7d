"""Differences between two run directories: configuration, aggregate metrics and per-item outcomes."""

from __future__ import annotations

import math
from typing import Any

from app.errors import UserError
from eval.runs import RunDir


def flatten(d: Any, prefix: str = "") -> dict[str, Any]:
    """Nested dicts to dotted keys (`overall.improvement_rate`), leaves kept as they are."""
    if not isinstance(d, dict):
        return {prefix: d}
    out: dict[str, Any] = {}
    for k in sorted(d):
        out.update(flatten(d[k], f"{prefix}.{k}" if prefix else str(k)))
    return out


def _num(x: Any) -> float | None:
    if isinstance(x, bool) or x is None:
        return None
    if isinstance(x, int | float) and not (isinstance(x, float) and math.isnan(x)):
        return float(x)
    return None


def _item_outcome(kind: str, t: dict[str, Any]) -> Any:
    if kind == "simulate":
        return f"{t['initial']['quality']}->{t['final']['quality']}"
    return {k: (None if v is None else round(float(v), 3)) for k, v in sorted(t["scores"].items())}


def compare_runs(a: RunDir, b: RunDir) -> dict[str, Any]:
    ca, cb = a.config(), b.config()
    if ca.get("kind") != cb.get("kind"):
        raise UserError(f"cannot compare a {ca.get('kind')} run with a {cb.get('kind')} run",
                        hint="compare two simulate runs or two ragas runs")
    fa, fb = flatten({k: v for k, v in ca.items() if k != "packages"}), flatten({k: v for k, v in cb.items()
                                                                               if k != "packages"})
    config = {k: [fa.get(k), fb.get(k)] for k in sorted(set(fa) | set(fb)) if fa.get(k) != fb.get(k)}
    pa, pb = ca.get("packages") or {}, cb.get("packages") or {}
    packages = {k: [pa.get(k), pb.get(k)] for k in sorted(set(pa) | set(pb)) if pa.get(k) != pb.get(k)}
    ma, mb = flatten(a.metrics()), flatten(b.metrics())
    metrics = {}
    for k in sorted(set(ma) | set(mb)):
        x, y = ma.get(k), mb.get(k)
        if x == y:
            continue
        nx, ny = _num(x), _num(y)
        metrics[k] = {"a": x, "b": y, "delta": round(ny - nx, 4) if nx is not None and ny is not None else None}
    kind = ca["kind"]
    ta = {t["id"]: _item_outcome(kind, t) for t in a.transcripts()}
    tb = {t["id"]: _item_outcome(kind, t) for t in b.transcripts()}
    items = {i: [ta.get(i), tb.get(i)] for i in sorted(set(ta) | set(tb)) if ta.get(i) != tb.get(i)}
    return {"kind": kind, "a": str(a.path), "b": str(b.path), "config": config, "packages": packages,
            "metrics": metrics, "items": items}


def format_comparison(diff: dict[str, Any]) -> str:
    lines = [f"{diff['kind']} runs: A = {diff['a']}, B = {diff['b']}"]
    if diff["config"]:
        lines.append("configuration:")
        lines += [f"  {k}: {v[0]!r} -> {v[1]!r}" for k, v in diff["config"].items()]
    if diff["packages"]:
        lines.append("packages:")
        lines += [f"  {k}: {v[0]} -> {v[1]}" for k, v in diff["packages"].items()]
    if diff["metrics"]:
        lines.append("metrics (A -> B, delta):")
        for k, v in diff["metrics"].items():
            delta = "" if v["delta"] is None else f" ({v['delta']:+.4f})"
            lines.append(f"  {k}: {v['a']} -> {v['b']}{delta}")
    else:
        lines.append("metrics: identical")
    if diff["items"]:
        lines.append(f"items that differ ({len(diff['items'])}):")
        lines += [f"  {k}: {v[0]} -> {v[1]}" for k, v in diff["items"].items()]
    return "\n".join(lines)
