"""`tutor serve`, `tutor users add`, `tutor db upgrade` and `tutor courses grant`: running and administering the
HTTP service. Wire with `register(app, eval_app)` and `register_courses(courses_app)`.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Annotated

import typer

from app.cli.common import load_settings, print_json, user_errors


def _db_session(settings):
    from app.store.db import make_engine, session_factory, upgrade

    url = settings.sqlalchemy_url()
    upgrade(url)
    return session_factory(make_engine(url))()


def register(app: typer.Typer, eval_app: typer.Typer) -> None:
    users_app = typer.Typer(help="Users of the HTTP service and their API tokens.", no_args_is_help=True)
    db_app = typer.Typer(help="The service database.", no_args_is_help=True)
    app.add_typer(users_app, name="users")
    app.add_typer(db_app, name="db")

    @app.command("serve")
    def serve(
        host: Annotated[str, typer.Option(help="Interface to listen on.")] = "127.0.0.1",
        port: Annotated[int, typer.Option(help="TCP port.")] = 8000,
    ) -> None:
        """Serve the tutor over HTTP (OpenAPI docs at /docs). Migrates the database first."""
        import uvicorn

        from app.api import create_app

        settings = load_settings()
        with user_errors():
            api = create_app(settings)
        typer.echo(f"serving on http://{host}:{port}  (docs: http://{host}:{port}/docs)", err=True)
        uvicorn.run(api, host=host, port=port, log_level=settings.log_level.lower(), access_log=False)

    @users_app.command("add")
    def users_add(
        name: Annotated[str, typer.Argument(help="User name (unique).")],
        role: Annotated[str, typer.Option("--role", "-r", help="admin, teacher or learner.")],
        as_json: Annotated[bool, typer.Option("--json", help="Print {name, role, token} as JSON.")] = False,
    ) -> None:
        """Create a user and print their API token (shown once; only its hash is stored)."""
        from app.store import repo

        with user_errors(), _db_session(load_settings()) as db:
            user, token = repo.create_user(db, name, role, now=datetime.now(UTC))
            db.commit()
        if as_json:
            print_json({"name": user.name, "role": user.role, "token": token})
        else:
            typer.echo(f"created {user.role} {user.name}; token (shown once): {token}")

    @users_app.command("list")
    def users_list(as_json: Annotated[bool, typer.Option("--json", help="JSON lines.")] = False) -> None:
        """List users and their roles (never tokens)."""
        from app.store import repo

        with user_errors(), _db_session(load_settings()) as db:
            rows = [(u.name, u.role) for u in repo.list_users(db)]
        for name, role in rows:
            print_json({"name": name, "role": role}) if as_json else typer.echo(f"{name:<24} {role}")

    @db_app.command("upgrade")
    def db_upgrade(as_json: Annotated[bool, typer.Option("--json")] = False) -> None:
        """Migrate the database (TUTOR_DATABASE_URL, or SQLite in the data directory) to the latest revision."""
        from app.store.db import check_ready, make_engine, upgrade

        settings = load_settings()
        with user_errors():
            url = settings.sqlalchemy_url()
            upgrade(url)
            engine = make_engine(url)
            state = check_ready(engine)
            engine.dispose()
        if as_json:
            print_json(state)
        else:
            typer.echo(f"database at revision {state.get('revision')} (head {state.get('head')})")


def register_courses(courses_app: typer.Typer) -> None:
    @courses_app.command("grant")
    def courses_grant(
        course: Annotated[str, typer.Argument(help="Course id.")],
        user: Annotated[str, typer.Argument(help="A teacher (becomes the owner) or a learner (is enrolled).")],
        as_json: Annotated[bool, typer.Option("--json")] = False,
    ) -> None:
        """Make a teacher the course's owner, or enrol a learner in it."""
        from app.store import repo
        from indexing.store import course_exists, require_course

        settings = load_settings()
        with user_errors(), _db_session(settings) as db:
            if course_exists(settings.data_dir, course):
                repo.ensure_course(db, course, title=None, now=datetime.now(UTC))
            elif db.get(repo.Course, course) is None:
                require_course(settings.data_dir, course)  # raises NotFoundError with the known courses
            target = repo.user_by_name(db, user)
            granted = repo.grant(db, db.get(repo.Course, course), target, now=datetime.now(UTC))
            db.commit()
        if as_json:
            print_json({"course": course, "user": user, "granted": granted})
        else:
            typer.echo(f"{user} {'owns' if granted == 'owner' else 'is enrolled in'} {course}")
