"""`tutor search` and `tutor eval retrieval`: the retrieval pipeline from the terminal."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from app.cli.common import fail, load_settings, print_json, user_errors


def _read_queries(path: Path) -> list[dict]:
    from app.errors import UserError
    from app.jsonl import read_jsonl

    out = []
    for n, d in read_jsonl(path, what="queries", option="--queries"):
        if "question" not in d:
            raise UserError(f"{path}:{n}: no question", hint='each line needs {"id": ..., "question": ...}')
        out.append({"id": d.get("id", str(n)), "question": str(d["question"])})
    return out


def _print_table(result, reranker_name: str | None) -> None:
    stages = " → ".join(result.stages)
    typer.echo(f"stages: {stages}" + (f" (rerank: {reranker_name})" if reranker_name and "rerank" in result.stages else ""))
    for stage, why in result.skipped.items():
        typer.echo(f"skipped {stage}: {why}")
    for h in result.hits:
        c = h.chunk
        pages = f"p.{c.page_start}" if c.page_start == c.page_end else f"p.{c.page_start}-{c.page_end}"
        scores = " ".join(f"{k}={v:.3f}" for k, v in h.scores.items())
        typer.echo(f"\n{h.rank}. {c.source} {pages} · {c.section}\n   [{scores}]")
        text = c.text.replace("\n", " ")
        typer.echo(f"   {text[:300]}{'…' if len(text) > 300 else ''}")


def register(app: typer.Typer, eval_app: typer.Typer) -> None:
    @app.command("search")
    def search(
        question: Annotated[str | None, typer.Argument(help="The question (omit with --queries).")] = None,
        course: Annotated[str, typer.Option("--course", "-c", help="Course id.")] = ...,
        k: Annotated[int, typer.Option("--k", help="How many passages.")] = 8,
        queries: Annotated[
            Path | None, typer.Option(help="JSON lines with id and question: one JSON line out per query.")
        ] = None,
        as_json: Annotated[bool, typer.Option("--json", help="JSON output.")] = False,
    ) -> None:
        """Retrieve the best passages of a course for a question (dense + BM25 hybrid, MMR, rerank, boost)."""
        from app.retrieval.pipeline import open_retriever

        if (question is None) == (queries is None):
            fail("give either a QUESTION or --queries FILE")
        settings = load_settings()
        with user_errors():
            retriever = open_retriever(settings, course)
            name = retriever.reranker.name if retriever.reranker else None
            if queries is not None:
                for q in _read_queries(queries):
                    res = retriever.search(q["question"], k=k)
                    print_json({"id": q["id"], "hits": [h.to_dict() for h in res.hits]})
                return
            res = retriever.search(question, k=k)
        if as_json:
            print_json(
                {
                    "query": question,
                    "stages": res.stages,
                    "skipped": res.skipped,
                    "reranker": name,
                    "timings_ms": {k2: round(v, 2) for k2, v in res.timings_ms.items()},
                    "hits": [h.to_dict() for h in res.hits],
                }
            )
        else:
            _print_table(res, name)

    @eval_app.command("retrieval")
    def eval_retrieval(
        course: Annotated[str, typer.Option("--course", "-c", help="Course id.")],
        gold: Annotated[Path, typer.Option(help="Gold JSON lines: id, question, intent, gold.source, gold.pages.")],
        k: Annotated[int, typer.Option("--k")] = 8,
        ablation: Annotated[
            bool, typer.Option("--ablation", help="BM25, dense, hybrid, +MMR, +rerank and the full pipeline.")
        ] = False,
        as_json: Annotated[bool, typer.Option("--json")] = False,
        report: Annotated[Path | None, typer.Option(help="Write report.md, metrics.json and a PNG chart here.")] = None,
    ) -> None:
        """Recall@1/@3/@k, MRR@k and nDCG@k on a gold set, overall and per intent."""
        from tqdm import tqdm

        from app.retrieval.pipeline import ABLATIONS, open_retriever
        from eval.retrieval import evaluate_retrieval, format_table, load_gold
        from eval.retrieval_report import write_report

        settings = load_settings()
        with user_errors():
            questions = load_gold(gold)
            retriever = open_retriever(settings, course)
            configs = ABLATIONS if ablation else {"pipeline": None}
            reports = {}
            bar = tqdm(total=len(questions) * len(configs), desc="evaluating", unit="q", disable=None, leave=False)
            for name, stages in configs.items():
                reports[name] = evaluate_retrieval(
                    questions, lambda q, st=stages: retriever.search(q, k=k, stages=st), retriever.index.chunks,
                    k=k, progress=lambda: bar.update(1),
                )
            bar.close()
        reranker = retriever.reranker.name if retriever.reranker else None
        main = reports["full" if ablation else "pipeline"]
        if report:
            write_report(report, reports, main, k=k, course=course, gold=str(gold), reranker=reranker)
        if as_json:
            print_json(
                {
                    "course": course,
                    "gold": str(gold),
                    "k": k,
                    "reranker": reranker,
                    "configurations": {n: r.to_dict(questions=False) for n, r in reports.items()},
                    "questions": main.to_dict()["questions"],
                }
            )
            return
        if ablation:
            typer.echo(format_table({n: r.overall for n, r in reports.items()}, k))
            typer.echo("")
        typer.echo(f"stages: {' → '.join(main.stages)}" + (f" (rerank: {reranker})" if reranker else ""))
        for stage, why in main.skipped.items():
            typer.echo(f"skipped {stage}: {why}")
        typer.echo(format_table({"overall": main.overall, **main.per_intent}, k))
        if report:
            typer.echo(f"\nreport written to {report}/report.md")
