"""`tutor ingest`, `tutor courses`, `tutor chunks`: building and inspecting course indexes."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from app.cli.common import fail, load_settings, print_json, user_errors


def courses_app(app: typer.Typer) -> typer.Typer:
    """The `tutor courses` sub-group (other modules add commands to it)."""
    for group in app.registered_groups:
        if group.name == "courses":
            return group.typer_instance
    raise LookupError("register ingest first")


def register(app: typer.Typer, eval_app: typer.Typer) -> None:
    courses_app = typer.Typer(help="List, create and grant courses.", invoke_without_command=True, no_args_is_help=False)
    app.add_typer(courses_app, name="courses")

    @app.command("ingest")
    def ingest(
        files: Annotated[list[Path], typer.Argument(help="PDF files to add to the course.", show_default=False)],
        course: Annotated[str, typer.Option("--course", "-c", help="Course id.")],
        source: Annotated[
            str, typer.Option(help="'official' course material (boosted in retrieval) or 'supplementary'.")
        ] = "official",
        create: Annotated[bool, typer.Option("--create", help="Create the course if it does not exist.")] = False,
        force: Annotated[bool, typer.Option("--force", help="Re-ingest files even if unchanged.")] = False,
        as_json: Annotated[bool, typer.Option("--json", help="Print the summary as JSON.")] = False,
    ) -> None:
        """Clean, chunk and embed PDFs into a course index (atomically: a failure leaves the old index)."""
        from tqdm import tqdm

        from indexing.embedder import load_embedder
        from indexing.ingest import ingest_files
        from indexing.store import course_exists, create_course, require_course

        if source not in ("official", "supplementary"):
            fail(f"--source must be 'official' or 'supplementary', not {source!r}")
        settings = load_settings()
        with user_errors():
            if create and not course_exists(settings.data_dir, course):
                create_course(settings.data_dir, course)
            require_course(settings.data_dir, course)  # before loading the model: an unknown course fails fast
            embedder = load_embedder(settings.embedder)
            bar = tqdm(desc="embedding", unit="chunk", disable=None, leave=False, total=0)

            def on_file(r) -> None:
                if r.status == "failed":
                    typer.echo(f"error: {r.reason}", err=True)
                elif r.status == "ingested":
                    bar.total += r.chunks
                    bar.refresh()
                if not as_json:
                    tqdm.write(f"{r.status:>9}  {r.file}  ({r.pages} pages, {r.chunks} chunks)", file=None)

            report = ingest_files(
                files,
                data_dir=settings.data_dir,
                course=course,
                embedder=embedder,
                source_kind=source,  # type: ignore[arg-type]
                target=settings.chunk_chars,
                overlap=settings.chunk_overlap_sentences,
                batch_size=settings.embed_batch_size,
                ann_threshold=settings.ann_threshold,
                force=force,
                on_file=on_file,
                progress=bar.update,
            )
            bar.close()
        d = report.to_dict()
        if as_json:
            print_json(d)
        else:
            t = d["totals"]
            typer.echo(
                f"course {course}: {len(files) - d['failed']} of {len(files)} files ok, {t['pages']} pages "
                f"({t['blank_pages']} blank), {t['header_footer_lines_removed']} header/footer lines removed, "
                f"{t['chunks']} chunks from these files, {d['chunks_total']} in the course, {d['seconds']:.1f} s "
                f"({d['chunks_per_second']:.1f} chunks/s)"
            )
            if d["failed"]:
                typer.echo(f"{d['failed']} file(s) failed (see above); the others were ingested.")
        if report.failed:
            raise typer.Exit(2)

    @courses_app.callback()
    def courses(
        ctx: typer.Context,
        as_json: Annotated[bool, typer.Option("--json", help="Print JSON lines.")] = False,
    ) -> None:
        """List courses with their document and chunk counts and the embedder that built them."""
        if ctx.invoked_subcommand:
            return
        from indexing.store import list_courses

        settings = load_settings()
        rows = list_courses(settings.data_dir)
        if as_json:
            for r in rows:
                print_json(r.to_dict())
            return
        if not rows:
            typer.echo(f"no courses in {settings.data_dir} yet — `tutor courses create ID` makes one")
            return
        typer.echo(f"{'course':<24} {'docs':>5} {'chunks':>7}  embedder")
        for r in rows:
            typer.echo(f"{r.id:<24} {r.documents:>5} {r.chunks:>7}  {r.embedder or '-'}")

    @courses_app.command("create")
    def courses_create(
        course: Annotated[str, typer.Argument(help="New course id (lower case, digits, '-', '_', '.').")],
        title: Annotated[str | None, typer.Option(help="Human-readable title.")] = None,
        as_json: Annotated[bool, typer.Option("--json")] = False,
    ) -> None:
        """Create an empty course."""
        from indexing.store import create_course

        with user_errors():
            info = create_course(load_settings().data_dir, course, title)
        print_json(info.to_dict()) if as_json else typer.echo(f"created course {info.id}")

    @app.command("chunks")
    def chunks(
        course: Annotated[str, typer.Option("--course", "-c", help="Course id.")],
        source: Annotated[str | None, typer.Option(help="Only chunks of this source file name.")] = None,
        page: Annotated[int | None, typer.Option(help="Only chunks whose page range contains this page.")] = None,
        as_json: Annotated[bool, typer.Option("--json", help="JSON lines (the default output).")] = True,
    ) -> None:
        """Print the stored chunks of a course as JSON lines {id, source, page_start, page_end, section, text}."""
        from indexing.store import load_index

        settings = load_settings()
        with user_errors():
            idx = load_index(settings.data_dir, course)
        for c in idx.chunks:
            if source and c.source != source:
                continue
            if page is not None and not (c.page_start <= page <= c.page_end):
                continue
            if as_json:
                print_json(c.public_dict())
            else:
                typer.echo(f"[{c.id}] {c.source} p.{c.page_start}-{c.page_end} § {c.section}\n{c.text}\n")


