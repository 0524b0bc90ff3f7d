"""`tutor users add`, `tutor courses grant`, `tutor db upgrade` through CliRunner on a local Typer app."""

from __future__ import annotations

import json

import pytest
import typer
from typer.testing import CliRunner

from app.api.testing import DB_BACKENDS, database_url_for
from app.cli.serve_cmd import register, register_courses
from app.store import db as store_db
from app.store import repo
from indexing.store import create_course


@pytest.fixture(params=DB_BACKENDS)
def db_url(request, tmp_path) -> str:
    return database_url_for(request.param, tmp_path)


@pytest.fixture
def cli(tmp_path, db_url):
    app, eval_app, courses_app = typer.Typer(), typer.Typer(), typer.Typer()
    app.add_typer(eval_app, name="eval")
    app.add_typer(courses_app, name="courses")
    register(app, eval_app)
    register_courses(courses_app)
    env = {"TUTOR_DATA_DIR": str(tmp_path / "data"), "TUTOR_DATABASE_URL": db_url}

    def run(*args: str):
        return CliRunner().invoke(app, list(args), env=env)

    return run


def test_users_add_prints_the_token_once_and_stores_its_hash(cli, db_url):
    r = cli("users", "add", "ada", "--role", "teacher", "--json")
    assert r.exit_code == 0, r.output
    out = json.loads(r.stdout)
    assert (out["name"], out["role"]) == ("ada", "teacher") and out["token"].startswith("tt_")
    engine = store_db.make_engine(db_url)
    with store_db.session_factory(engine)() as db:
        assert repo.user_by_token(db, out["token"]).name == "ada"
        assert repo.user_by_name(db, "ada").token_hash == repo.hash_token(out["token"])
    engine.dispose()
    dup = cli("users", "add", "ada", "--role", "learner")
    assert dup.exit_code == 2 and "user 'ada' exists already" in dup.stderr
    bad = cli("users", "add", "eve", "--role", "root")
    assert bad.exit_code == 2 and "unknown role 'root'" in bad.stderr
    listed = cli("users", "list", "--json")
    assert [json.loads(line) for line in listed.stdout.splitlines()] == [{"name": "ada", "role": "teacher"}]


def test_courses_grant_owner_and_enrolment(cli, tmp_path):
    create_course(tmp_path / "data", "algo")
    assert cli("users", "add", "t1", "--role", "teacher").exit_code == 0
    assert cli("users", "add", "la", "--role", "learner").exit_code == 0
    r = cli("courses", "grant", "algo", "t1", "--json")
    assert json.loads(r.stdout) == {"course": "algo", "user": "t1", "granted": "owner"}
    assert cli("courses", "grant", "algo", "la").stdout.strip() == "la is enrolled in algo"
    missing = cli("courses", "grant", "nope", "la")
    assert missing.exit_code == 2 and "unknown course 'nope'" in missing.stderr
    ghost = cli("courses", "grant", "algo", "ghost")
    assert ghost.exit_code == 2 and "unknown user 'ghost'" in ghost.stderr


def test_db_upgrade(cli):
    r = cli("db", "upgrade", "--json")
    assert r.exit_code == 0 and json.loads(r.stdout) == {
        "database": "ok", "revision": store_db.head_revision(), "head": store_db.head_revision(), "ready": True}
