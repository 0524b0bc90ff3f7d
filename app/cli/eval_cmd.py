"""`tutor eval ragas|simulate|export-review|import-review|report|compare`: the research evaluation harness.

Every evaluation writes a run directory (`--report DIR`, default `runs/<kind>-<inputs hash>`), see `eval.runs`.
Models for the harness (judge, student, grader) are OpenAI-compatible endpoints: `--base-url` (default
TUTOR_LLM_BASE_URL) and `--api-key` (default TUTOR_LLM_API_KEY). The tutor itself uses the settings as `tutor ask`
does: grounded mode, or LLM mode when TUTOR_LLM_MODEL is set.
"""

from __future__ import annotations

import platform
from pathlib import Path
from typing import Annotated, Any

import typer

from app.cli.common import load_settings, print_json, user_errors
from app.errors import UserError
from app.settings import Settings

ROOT = Path(__file__).resolve().parents[2]
DEFAULT_PERSONAS = ROOT / "data" / "eval" / "personas.json"
SEED = 0

CourseOpt = Annotated[str, typer.Option("--course", help="Course id (as created by `tutor courses create`).")]
DataOpt = Annotated[Path, typer.Option("--data", help="JSON-lines data file.")]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print the metrics as one JSON object.")]
ReportOpt = Annotated[Path | None, typer.Option("--report", help="Run directory (default runs/<kind>-<hash>).")]
BaseUrlOpt = Annotated[str | None, typer.Option("--base-url", help="OpenAI-compatible endpoint of judge/student "
                                                "models (default TUTOR_LLM_BASE_URL).")]
ApiKeyOpt = Annotated[str | None, typer.Option("--api-key", help="API key (default TUTOR_LLM_API_KEY).")]
ProgressOpt = Annotated[bool, typer.Option("--progress/--no-progress", help="Progress bar on stderr.")]


def build_tutor(settings: Settings, course: str):  # noqa: ANN201 - a TutorService
    """The tutor under evaluation (tests replace this with a tutor on a fixed retriever and a fake model)."""
    from app.cli.tutor_cmd import build_service

    return build_service(settings, course)


def load_grading_embedder(tutor, settings: Settings):  # noqa: ANN001, ANN201
    emb = getattr(tutor, "embedder", None) or getattr(tutor.retriever, "embedder", None)
    if emb is not None:
        return emb
    from indexing.embedder import load_embedder

    return load_embedder(settings.embedder)


def build_grader(spec: str, tutor, settings: Settings, base_url: str | None, api_key: str | None):  # noqa: ANN001, ANN201
    """'offline': the MiniLM grader of the guided-practice issue; anything else names a model for `LLMGrader`."""
    if spec == "offline":
        from app.grading.grader import OfflineGrader

        return OfflineGrader(load_grading_embedder(tutor, settings))
    from app.grading.llm_grader import LLMGrader

    return LLMGrader(_remote_llm(settings, spec, base_url, api_key, "--grader"))


def _endpoint(settings: Settings, base_url: str | None, api_key: str | None, what: str) -> tuple[str, str | None]:
    url = base_url or settings.llm_base_url
    if not url:
        raise UserError(f"{what} needs an OpenAI-compatible endpoint",
                        hint="pass --base-url http://host:port/v1 or set TUTOR_LLM_BASE_URL")
    return url, api_key or settings.llm_api_key


def _remote_llm(settings: Settings, model: str, base_url: str | None, api_key: str | None, what: str):  # noqa: ANN202
    from app.llm import OpenAICompatibleLLM

    url, key = _endpoint(settings, base_url, api_key, what)
    return OpenAICompatibleLLM(url, key, model, timeout=settings.llm_timeout, max_retries=settings.llm_max_retries)


def _config(settings: Settings, tutor, extra: dict[str, Any], per_file: dict[str, str]) -> dict[str, Any]:  # noqa: ANN001
    from eval.runs import package_versions

    tutor_llm = getattr(tutor, "llm", None)
    return {
        **extra,
        "tutor_mode": "llm" if tutor_llm is not None else "grounded",
        "tutor_model": getattr(tutor_llm, "model", None),
        "seed": SEED,
        "python": platform.python_version(),
        "packages": package_versions(),
        "settings": settings.model_dump(mode="json", exclude={"llm_api_key", "database_url"}),
        "input_files": per_file,
    }


def _run_dir(report: Path | None, kind: str, digest: str) -> Path:
    return report if report is not None else Path("runs") / f"{kind}-{digest[:12]}"


def register(app: typer.Typer, eval_app: typer.Typer) -> None:  # noqa: ARG001 - only eval commands here
    @eval_app.command("ragas")
    def ragas_cmd(
        course: CourseOpt,
        data: DataOpt,
        judge: Annotated[str | None, typer.Option("--judge", help="Judge model for the LLM metrics.")] = None,
        metrics: Annotated[str | None, typer.Option("--metrics", help="Comma-separated metric names "
                                                    "(default: all that can run).")] = None,
        base_url: BaseUrlOpt = None,
        api_key: ApiKeyOpt = None,
        as_json: JsonOpt = False,
        report: ReportOpt = None,
        progress: ProgressOpt = True,
    ) -> None:
        """Score the tutor's answers with RAGAs: non-LLM metrics always, LLM metrics with --judge."""
        from eval import ragas_eval
        from eval.harness import page_chunk_texts
        from eval.problems import load_ragas_questions
        from eval.report import write_report
        from eval.runs import inputs_hash, open_run

        with user_errors():
            ragas_eval.telemetry_off()
            questions = load_ragas_questions(data)
            names = [m.strip() for m in metrics.split(",")] if metrics else None
            known = ragas_eval.NON_LLM_METRICS + ragas_eval.LLM_METRICS
            for n in names or ():
                if n not in known:
                    raise UserError(f"unknown metric {n!r}", hint="choose from " + ", ".join(known))
                if n in ragas_eval.LLM_METRICS and not judge:
                    raise UserError(f"metric {n!r} needs a judge model", hint="pass --judge MODEL")
            settings = load_settings()
            tutor = build_tutor(settings, course)
            judge_obj = None
            if judge:
                url, key = _endpoint(settings, base_url, api_key, "--judge")
                judge_obj = ragas_eval.Judge(judge, url, key, embedder=load_grading_embedder(tutor, settings),
                                             timeout=settings.llm_timeout)
            digest, per_file = inputs_hash({"data": data}, {"course": course, "judge": judge, "metrics": names})
            config = _config(settings, tutor, {"course": course, "judge": judge, "judge_base_url":
                                               judge_obj.base_url if judge_obj else None, "metrics": names}, per_file)
            run = open_run(_run_dir(report, "ragas", digest), kind="ragas", config=config, input_hash=digest)
            index = getattr(tutor.retriever, "index", None)
            lookup = page_chunk_texts(index.chunks) if index is not None else None
            result = ragas_eval.run_ragas(questions, tutor, run, judge=judge_obj, metric_names=names,
                                          reference_contexts=lookup, progress=progress)
            write_report(run)
        if as_json:
            print_json({**result, "run_dir": str(run.path)})
            return
        typer.echo(f"{result['n']} questions; run directory {run.path}")
        for name, m in result["metrics"].items():
            mean = "–" if m["mean"] is None else f"{m['mean']:.3f}"
            typer.echo(f"  {name:28s} {mean:>6s}  determined {m['determined']}, NaN {m['undetermined']}, "
                       f"n/a {m['not_applicable']}")

    @eval_app.command("simulate")
    def simulate_cmd(
        course: CourseOpt,
        data: DataOpt,
        student: Annotated[str, typer.Option("--student", help="MODEL (OpenAI-compatible), 'smollm2' (offline) "
                                             "or 'persona:NAME'.")] = "smollm2",
        turns: Annotated[int, typer.Option("--turns", min=1, max=5, help="Feedback rounds.")] = 2,
        grader: Annotated[str, typer.Option("--grader", help="'offline' or a MODEL name.")] = "offline",
        personas: Annotated[Path, typer.Option("--personas", help="Persona file.")] = DEFAULT_PERSONAS,
        threads: Annotated[int | None, typer.Option("--threads", help="CPU threads for smollm2 (default 1).")] = None,
        base_url: BaseUrlOpt = None,
        api_key: ApiKeyOpt = None,
        as_json: JsonOpt = False,
        report: ReportOpt = None,
        progress: ProgressOpt = True,
    ) -> None:
        """Simulated students answer, get the tutor's feedback, revise; report the improvement rate."""
        from eval.problems import load_problems
        from eval.report import write_report
        from eval.runs import inputs_hash, open_run
        from eval.simulate import run_simulation
        from eval.students import LLMStudent, PersonaStudent, load_personas, load_smollm2

        with user_errors():
            problems = load_problems(data)
            settings = load_settings()
            files = {"data": data}
            if student.startswith("persona:"):
                name = student.split(":", 1)[1]
                table = load_personas(personas)
                if name not in table:
                    raise UserError(f"unknown persona {name!r}", hint="choose from " + ", ".join(sorted(table)))
                the_student = PersonaStudent(table[name])
                files["personas"] = personas
            elif student == "smollm2":
                the_student = LLMStudent(load_smollm2(threads=threads), name="smollm2")
            else:
                the_student = LLMStudent(_remote_llm(settings, student, base_url, api_key, "--student"))
            tutor = build_tutor(settings, course)
            the_grader = build_grader(grader, tutor, settings, base_url, api_key)
            digest, per_file = inputs_hash(files, {"course": course, "student": student, "turns": turns,
                                                   "grader": grader})
            config = _config(settings, tutor, {"course": course, "student": the_student.name, "turns": turns,
                                               "grader": grader, "student_base_url": None if student == "smollm2"
                                               or student.startswith("persona:") else _endpoint(
                                                   settings, base_url, api_key, "--student")[0]}, per_file)
            run = open_run(_run_dir(report, "simulate", digest), kind="simulate", config=config, input_hash=digest)
            result = run_simulation(problems, the_student, tutor, the_grader, run, turns=turns, progress=progress)
            write_report(run)
        if as_json:
            print_json({**result, "run_dir": str(run.path)})
            return
        o = result["overall"]
        rate = "–" if o["improvement_rate"] is None else f"{100 * o['improvement_rate']:.1f}%"
        typer.echo(f"{o['n']} problems; improved {o['improved']} of {o['eligible']} initially wrong/partial "
                   f"({rate}); run directory {run.path}")
        for kind, s in result["per_kind"].items():
            r = "–" if s["improvement_rate"] is None else f"{100 * s['improvement_rate']:.1f}%"
            typer.echo(f"  {kind:13s} {s['improved']}/{s['eligible']} ({r})")

    @eval_app.command("export-review")
    def export_review_cmd(
        run_dir: Annotated[Path, typer.Argument(help="Run directory.")],
        out: Annotated[Path | None, typer.Option("--out", help="CSV path (default RUN_DIR/review_sheet.csv).")] = None,
    ) -> None:
        """Write a CSV sheet for expert ratings of every tutor reply in a run."""
        from eval.review import export_review
        from eval.runs import load_run

        with user_errors():
            path = export_review(load_run(run_dir), out)
        typer.echo(str(path))

    @eval_app.command("import-review")
    def import_review_cmd(
        run_dir: Annotated[Path, typer.Argument(help="Run directory.")],
        sheets: Annotated[list[Path], typer.Argument(help="One or two filled sheets (two: inter-rater agreement).")],
        as_json: JsonOpt = False,
    ) -> None:
        """Summarise filled review sheets: share rated positive, agreement between two raters."""
        from eval.review import import_review
        from eval.runs import load_run

        with user_errors():
            summary = import_review(load_run(run_dir), list(sheets))
        if as_json:
            print_json(summary)
            return
        for r in summary["raters"]:
            pos = "–" if r["share_positive"] is None else f"{100 * r['share_positive']:.1f}%"
            typer.echo(f"{r['sheet']}: {r['rows_rated']} rows rated, positive {pos}")
        for col, a in (summary.get("agreement") or {}).items():
            kappa = a.get("kappa", a.get("quadratic_weighted_kappa"))
            typer.echo(f"  {col}: agreement {a['percent_agreement']}, kappa {kappa} over {a['rows']} rows")

    @eval_app.command("report")
    def report_cmd(run_dir: Annotated[Path, typer.Argument(help="Run directory.")]) -> None:
        """Rebuild report.md and its charts from the run directory alone."""
        from eval.report import write_report
        from eval.runs import load_run

        with user_errors():
            path = write_report(load_run(run_dir))
        typer.echo(str(path))

    @eval_app.command("compare")
    def compare_cmd(
        run_a: Annotated[Path, typer.Argument(help="First run directory.")],
        run_b: Annotated[Path, typer.Argument(help="Second run directory.")],
        as_json: JsonOpt = False,
    ) -> None:
        """Print the differences between two runs: configuration, metrics, items."""
        from eval.compare import compare_runs, format_comparison
        from eval.runs import load_run

        with user_errors():
            diff = compare_runs(load_run(run_a), load_run(run_b))
        if as_json:
            print_json(diff)
            return
        typer.echo(format_comparison(diff))


