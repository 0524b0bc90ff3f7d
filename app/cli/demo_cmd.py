"""`tutor demo`: the main job on the bundled sample course, from nothing to a running tutor.

1. ingest `data/sample_course/search-algorithms.pdf` into course `search-101` (skipped when unchanged);
2. show a search and a grounded Socratic reply;
3. create (or re-key) a demo teacher and a demo learner, grant them the course;
4. serve the HTTP API and print the URL, the docs URL and both tokens.

Idempotent: run it again and it reuses the index, issues fresh demo tokens and serves again.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Annotated

import typer

from app.cli.common import load_settings, user_errors

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "data/sample_course/search-algorithms.pdf"
COURSE = "search-101"
DEMO_QUESTION = "why does A* need an admissible heuristic?"


def _demo_users(settings) -> dict[str, str]:
    """Demo teacher and learner with fresh tokens (only hashes are stored, so a re-run re-keys them)."""
    from app.store import repo
    from app.store.db import make_engine, session_factory, upgrade

    url = settings.sqlalchemy_url()
    upgrade(url)
    engine = make_engine(url)
    tokens = {}
    now = datetime.now(UTC)
    with session_factory(engine)() as db:
        repo.ensure_course(db, COURSE, title="Search Algorithms in AI (sample course)", now=now)
        for name, role in (("demo-teacher", "teacher"), ("demo-learner", "learner")):
            try:
                user = repo.user_by_name(db, name)
                token = repo.new_token()
                user.token_hash = repo.hash_token(token)
            except Exception:
                user, token = repo.create_user(db, name, role, now=now)
            repo.grant(db, db.get(repo.Course, COURSE), user, now=now)
            tokens[role] = token
        db.commit()
    engine.dispose()
    return tokens


def register(app: typer.Typer, eval_app: typer.Typer) -> None:
    @app.command("demo")
    def demo(
        port: Annotated[int, typer.Option(help="Port for the HTTP API.")] = 8000,
        host: Annotated[str, typer.Option(help="Interface to listen on.")] = "127.0.0.1",
        serve: Annotated[bool, typer.Option("--serve/--no-serve", help="Start the HTTP API at the end.")] = True,
    ) -> None:
        """Ingest the sample course, show retrieval and a Socratic reply, then serve the tutor with demo tokens."""
        from app.cli.tutor_cmd import build_service
        from indexing.embedder import load_embedder
        from indexing.ingest import ingest_files
        from indexing.store import course_exists, create_course

        settings = load_settings()
        typer.secho(f"1. ingesting the sample course into {settings.data_dir}/courses/{COURSE}", bold=True)
        with user_errors():
            if not course_exists(settings.data_dir, COURSE):
                create_course(settings.data_dir, COURSE, "Search Algorithms in AI (sample course)")
            report = ingest_files(
                [SAMPLE], data_dir=settings.data_dir, course=COURSE, embedder=load_embedder(settings.embedder),
                target=settings.chunk_chars, overlap=settings.chunk_overlap_sentences, ann_threshold=settings.ann_threshold,
            )
        f = report.files[0]
        typer.echo(
            f"   {f.status}: {f.pages} pages ({f.blank_pages} blank), {f.header_footer_lines_removed} running "
            f"header/footer lines removed, {report.chunks_total} chunks"
            + (f", {report.chunks_per_second:.1f} chunks/s" if f.status == "ingested" else "")
        )

        typer.secho(f"\n2. retrieval and a Socratic reply for: {DEMO_QUESTION!r}", bold=True)
        with user_errors():
            service = build_service(settings, COURSE)
            res = service.retriever.search(DEMO_QUESTION, k=3)
            for h in res.hits:
                c = h.chunk
                pages = f"p.{c.page_start}" + (f"-{c.page_end}" if c.page_end != c.page_start else "")
                typer.echo(f"   {h.rank}. {pages} {c.section}  (score {h.score:.3f})")
            typer.echo(f"   stages: {' → '.join(res.stages)}; skipped: {res.skipped or 'none'}")
            reply = service.answer(DEMO_QUESTION)
        typer.echo(f"\n   intent: {reply.intent}, mode: {reply.mode}, help level {reply.help_level}\n")
        for line in reply.reply.splitlines():
            typer.echo(f"   {line}")

        typer.secho("\n3. demo users", bold=True)
        with user_errors():
            tokens = _demo_users(settings)
        base = f"http://{host}:{port}"
        typer.echo(f"   teacher token: {tokens['teacher']}")
        typer.echo(f"   learner token: {tokens['learner']}")
        typer.secho("\n4. the tutor over HTTP", bold=True)
        typer.echo(f"   URL:  {base}\n   docs: {base}/docs")
        typer.echo(
            "   try it with the official openai client:\n"
            f"     from openai import OpenAI\n"
            f"     c = OpenAI(base_url='{base}/v1', api_key='{tokens['learner']}')\n"
            f"     r = c.chat.completions.create(model='{COURSE}', messages=[{{'role': 'user', 'content': 'what is bfs?'}}])"
        )
        if not serve:
            return
        import uvicorn

        from app.api import create_app

        with user_errors():
            api = create_app(settings)
        typer.echo("\n   serving — Ctrl-C stops")
        uvicorn.run(api, host=host, port=port, log_level="warning", access_log=False)
