"""Write a retrieval evaluation as Markdown, JSON and a PNG chart."""

from __future__ import annotations

import json
from pathlib import Path

from eval.retrieval import RetrievalReport, format_table


def write_report(
    out: Path, reports: dict[str, RetrievalReport], main: RetrievalReport, *, k: int, course: str, gold: str,
    reranker: str | None,
) -> None:
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    metrics = {n: r.to_dict(questions=False) for n, r in reports.items()}
    (out / "metrics.json").write_text(
        json.dumps({"course": course, "gold": gold, "k": k, "reranker": reranker, "configurations": metrics}, indent=1),
        encoding="utf-8",
    )
    chart = out / "retrieval.png"
    _chart(reports, k, chart)
    lines = [
        f"# Retrieval evaluation: course `{course}`",
        "",
        f"Gold set: `{gold}` ({main.n} questions), k = {k}, reranker: {reranker or 'none'}.",
        "",
        "```",
        format_table({n: r.overall for n, r in reports.items()}, k),
        "```",
        "",
        "Per intent (the main configuration):",
        "",
        "```",
        format_table({"overall": main.overall, **main.per_intent}, k),
        "```",
        "",
        f"![metrics]({chart.name})",
        "",
    ]
    if main.skipped:
        lines += [f"- skipped {s}: {why}" for s, why in main.skipped.items()]
    (out / "report.md").write_text("\n".join(lines) + "\n", encoding="utf-8")


def _chart(reports: dict[str, RetrievalReport], k: int, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = list(reports)
    metrics = ["recall@1", "recall@3", f"mrr@{k}", f"ndcg@{k}"]
    fig, ax = plt.subplots(figsize=(max(6, 1.3 * len(names) + 2), 3.6), dpi=110)
    width = 0.8 / len(metrics)
    for j, m in enumerate(metrics):
        ax.bar([i + j * width for i in range(len(names))], [reports[n].overall[m] for n in names], width, label=m)
    ax.set_xticks([i + 0.4 - width / 2 for i in range(len(names))], names)
    ax.set_ylim(0, 1)
    ax.legend(ncol=4, fontsize=8, loc="lower right")
    ax.set_title("Retrieval quality")
    fig.tight_layout()
    fig.savefig(path, metadata={"Software": None})
    plt.close(fig)
