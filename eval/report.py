"""The Markdown report of a run directory, with charts, built from the directory alone.

`write_report(run)` reads config.json, metrics.json and transcripts.jsonl and writes report.md and charts/*.png.
It is a pure function of those files: running it twice, or on a copy of the directory elsewhere, gives the same
bytes. The PNGs are deterministic because Agg rendering is, and the only varying PNG chunk matplotlib writes
(`Software`, with its version) is switched off; the Matplotlib version is recorded in config.json instead.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

from eval.runs import RunDir

PNG_METADATA = {"Software": None}
DPI = 100


def _fmt(x: Any, digits: int = 3) -> str:
    if x is None:
        return "–"
    if isinstance(x, float):
        return "NaN" if math.isnan(x) else f"{x:.{digits}f}"
    return str(x)


def _pct(x: float | None) -> str:
    return "–" if x is None else f"{100 * x:.1f}%"


def _bar_chart(path: Path, labels: list[str], series: dict[str, list[float]], *, title: str, ylabel: str,
               ylim: tuple[float, float]) -> None:
    import matplotlib

    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt

    with matplotlib.rc_context({"font.family": "DejaVu Sans", "font.size": 9, "svg.hashsalt": "report"}):
        fig, ax = plt.subplots(figsize=(6.4, 3.6))
        width = 0.8 / max(1, len(series))
        for i, (name, values) in enumerate(series.items()):
            xs = [j + (i - (len(series) - 1) / 2) * width for j in range(len(labels))]
            ax.bar(xs, [0.0 if v is None or (isinstance(v, float) and math.isnan(v)) else v for v in values],
                   width=width, label=name)
        ax.set_xticks(range(len(labels)), labels, rotation=20 if len(labels) > 4 else 0, ha="right"
                      if len(labels) > 4 else "center")
        ax.set_ylim(*ylim)
        ax.set_ylabel(ylabel)
        ax.set_title(title)
        if len(series) > 1:
            ax.legend(loc="upper right", frameon=False)
        fig.tight_layout()
        path.parent.mkdir(parents=True, exist_ok=True)
        fig.savefig(path, format="png", dpi=DPI, metadata=PNG_METADATA)
        plt.close(fig)


def _config_section(config: dict[str, Any]) -> list[str]:
    lines = ["## Configuration", "", "| setting | value |", "|---|---|"]
    for key in sorted(config):
        if key in ("packages", "input_files", "settings"):
            continue
        lines.append(f"| {key} | `{config[key]}` |")
    lines += ["", "Input files (sha256):", ""]
    for role, digest in sorted((config.get("input_files") or {}).items()):
        lines.append(f"- {role}: `{digest}`")
    lines += ["", "Package versions: " + ", ".join(
        f"{k} {v}" for k, v in sorted((config.get("packages") or {}).items()) if v), ""]
    return lines


def _simulate_report(run: RunDir, config: dict[str, Any], metrics: dict[str, Any],
                     transcripts: list[dict[str, Any]]) -> list[str]:
    o = metrics["overall"]
    kinds = list(metrics["per_kind"])
    lines = [
        "## Result", "",
        f"Improvement rate among initially wrong or partial answers: **{_pct(o['improvement_rate'])}** "
        f"({o['improved']} of {o['eligible']}); {o['regressed']} of {o['n']} answers got worse.", "",
        "| kind | problems | wrong/partial at first | improved | rate | mean quality before → after |",
        "|---|---|---|---|---|---|",
    ]
    for k in kinds + ["overall"]:
        s = o if k == "overall" else metrics["per_kind"][k]
        lines.append(f"| {k} | {s['n']} | {s['eligible']} | {s['improved']} | {_pct(s['improvement_rate'])} | "
                     f"{_fmt(s['mean_quality_initial'], 2)} → {_fmt(s['mean_quality_final'], 2)} |")
    _bar_chart(run.charts_dir / "improvement.png", kinds + ["overall"],
               {"improvement rate": [(metrics["per_kind"][k] if k != "overall" else o)["improvement_rate"]
                                     for k in kinds + ["overall"]]},
               title="Improved among initially wrong or partial", ylabel="share", ylim=(0.0, 1.0))
    _bar_chart(run.charts_dir / "quality.png", kinds + ["overall"],
               {"initial": [(metrics["per_kind"][k] if k != "overall" else o)["mean_quality_initial"]
                            for k in kinds + ["overall"]],
                "final": [(metrics["per_kind"][k] if k != "overall" else o)["mean_quality_final"]
                          for k in kinds + ["overall"]]},
               title="Mean answer quality (0-5)", ylabel="quality", ylim=(0.0, 5.0))
    lines += ["", "![improvement](charts/improvement.png)", "", "![quality](charts/quality.png)", "",
              f"Tutor modes over all turns: {metrics.get('tutor_modes')}. Time over all items: "
              f"{_fmt(metrics.get('seconds_total'), 1)} s.", "",
              "## Transcripts", "", "Every transcript is in `transcripts.jsonl`; one line per problem here.", "",
              "| id | kind | initial | final | improved |", "|---|---|---|---|---|"]
    for t in sorted(transcripts, key=lambda t: t["id"]):
        lines.append(f"| {t['id']} | {t['kind']} | {t['initial']['quality']} ({t['initial']['band']}) | "
                     f"{t['final']['quality']} ({t['final']['band']}) | {'yes' if t['improved'] else 'no'} |")
    return lines


def _ragas_report(run: RunDir, config: dict[str, Any], metrics: dict[str, Any],
                  transcripts: list[dict[str, Any]]) -> list[str]:
    from eval.ragas_eval import LLM_METRICS, NON_LLM_METRICS

    order = NON_LLM_METRICS + LLM_METRICS
    per = dict(sorted(metrics["metrics"].items(), key=lambda kv: (order.index(kv[0]) if kv[0] in order else 99,
                                                                   kv[0])))
    lines = ["## Result", "", f"{metrics['n']} questions. Undetermined (NaN) scores are counted, not hidden; "
             "not applicable means the line had no reference (answer or contexts) for that metric.", "",
             "| metric | mean | determined | undetermined (NaN) | not applicable |", "|---|---|---|---|---|"]
    for name, m in per.items():
        lines.append(f"| {name} | {_fmt(m['mean'])} | {m['determined']} | {m['undetermined']} | "
                     f"{m['not_applicable']} |")
    _bar_chart(run.charts_dir / "metrics.png", list(per), {"mean": [per[n]["mean"] for n in per]},
               title="RAGAs metrics (mean over determined scores)", ylabel="score", ylim=(0.0, 1.0))
    lines += ["", "![metrics](charts/metrics.png)", "", f"Tutor intents: {metrics.get('tutor_intents')}", "",
              "## Transcripts", "", "| id | intent | " + " | ".join(per) + " |",
              "|---|---|" + "---|" * len(per)]
    for t in sorted(transcripts, key=lambda t: t["id"]):
        cells = [_fmt(t["scores"].get(n)) for n in per]
        lines.append(f"| {t['id']} | {t['tutor']['intent']} | " + " | ".join(cells) + " |")
    return lines


def render_report(run: RunDir) -> str:
    """Write the charts and return the report's Markdown text (see the module docstring)."""
    config, metrics, transcripts = run.config(), run.metrics(), run.transcripts()
    kind = config.get("kind")
    lines = [f"# Evaluation run: {kind}", ""]
    if kind == "simulate":
        lines += _simulate_report(run, config, metrics, transcripts)
    elif kind == "ragas":
        lines += _ragas_report(run, config, metrics, transcripts)
    else:
        lines += ["Unknown run kind; metrics:", "", "```", str(metrics), "```"]
    lines += [""] + _config_section(config)
    return "\n".join(lines).rstrip("\n") + "\n"


def write_report(run: RunDir) -> Path:
    text = render_report(run)
    run.report_path.write_text(text, encoding="utf-8")
    return run.report_path
