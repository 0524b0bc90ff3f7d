"""The learning engine through the HTTP API with a fixed clock, on SQLite and PostgreSQL: bites from the course
index, exercises previewed, revised and saved, answers graded and scheduled, what comes next, progress, guided
practice ratings feeding the schedule, access rules, and `tutor learn next|progress`.

The course is a three-section PDF ingested with `HashEmbedder`: bites 1 "1.1 Queues" and 2 "1.2 Breadth-first
search" (chapter 1, so bite 2 requires bite 1) and 3 "2.1 Heuristics" (no prerequisite).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
import typer
from fastapi.testclient import TestClient
from pdf_factory import FakePage, make_pdf
from typer.testing import CliRunner

from app.api import create_app
from app.api.testing import DB_BACKENDS, database_url_for
from app.cli import learn_cmd
from app.llm import FunctionLLM
from app.settings import Settings
from app.store import db as store_db
from app.store import repo
from indexing.embedder import HashEmbedder
from indexing.ingest import ingest_files
from indexing.store import create_course

T0 = datetime(2026, 3, 2, 8, 0, tzinfo=UTC)
DAY = timedelta(days=1)
WORDS = ("nodes edges paths levels order memory frontier goal start cost depth width branch search tree graph "
         "visit expand store remove insert compare measure count").split()
DEFINITIONS = {
    "1.1 Queues": "A queue is a data structure that removes the oldest element first.",
    "1.2 Breadth-first search": "Breadth-first search is an algorithm that expands the shallowest node first.",
    "2.1 Heuristics": "A heuristic is a function that estimates the cost from a node to the goal.",
}


def section_page(heading: str, topic: str) -> FakePage:
    lines = [f"# {heading}", DEFINITIONS[heading]]
    for i in range(17):
        w = [WORDS[(i * 7 + k * 3) % len(WORDS)] for k in range(6)]
        lines.append(f"In {topic} the learner can {w[0]} {w[1]} and {w[2]} with {w[3]} before {w[4]} {w[5]}.")
    return FakePage(body=lines)


class Clock:
    def __init__(self, now: datetime) -> None:
        self.now = now

    def __call__(self) -> datetime:
        return self.now


@dataclass
class World:
    client: TestClient
    tokens: dict[str, str]
    clock: Clock
    settings: Settings
    db_url: str

    def h(self, who: str) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.tokens[who]}"}

    def call(self, method: str, who: str, path: str, body=None, expect: int = 200):
        r = self.client.request(method, path, json=body, headers=self.h(who))
        assert r.status_code == expect, (path, r.status_code, r.text)
        return r.json() if r.content else None

    def save(self, bite: int, kind: str) -> dict:
        ex = self.call("POST", "t1", f"/v1/courses/algo/bites/{bite}/exercises:preview", {"type": kind})["exercise"]
        return self.call("POST", "t1", f"/v1/courses/algo/bites/{bite}/exercises", {"exercise": ex}, expect=201)

    def next(self, who: str = "la", **params) -> list[tuple[int, str]]:
        query = "&".join(f"{k}={v}" for k, v in {"new": 3, **params}.items())
        return [(i["bite"], i["kind"]) for i in self.call("GET", who, f"/v1/courses/algo/next?{query}")]

    def progress(self, who: str = "la", **params) -> dict:
        query = "&".join(f"{k}={v}" for k, v in params.items())
        p = self.call("GET", who, f"/v1/courses/algo/progress?{query}")
        return {k: p[k] for k in ("total", "new", "learning", "review", "mastered", "due_today")}


@pytest.fixture(scope="module")
def course_pdf(tmp_path_factory) -> Path:
    d = tmp_path_factory.mktemp("pdf")
    return make_pdf(d / "search.pdf", [section_page("1.1 Queues", "queues"),
                                       section_page("1.2 Breadth-first search", "breadth-first search"),
                                       section_page("2.1 Heuristics", "heuristics")])


@pytest.fixture(params=DB_BACKENDS)
def db_url(request, tmp_path) -> str:
    return database_url_for(request.param, tmp_path)


def start(tmp_path: Path, db_url: str, course_pdf: Path, *, llm=None, built: bool = True):
    data = tmp_path / "data"
    create_course(data, "algo", "Search")
    ingest_files([course_pdf], data_dir=data, course="algo", embedder=HashEmbedder())
    store_db.upgrade(db_url)
    engine = store_db.make_engine(db_url)
    tokens = {}
    with store_db.session_factory(engine)() as db:
        for name, role in [("root", "admin"), ("t1", "teacher"), ("t2", "teacher"), ("la", "learner"),
                           ("lb", "learner")]:
            tokens[name] = repo.create_user(db, name, role, now=T0)[1]
        db.commit()
    engine.dispose()
    settings = Settings(data_dir=data, database_url=db_url, rerank_enabled=False)
    clock = Clock(T0)
    client = TestClient(create_app(settings, embedder=HashEmbedder(), clock=clock, llm=llm))
    w = World(client, tokens, clock, settings, db_url)
    client.__enter__()
    w.call("POST", "root", "/v1/courses/algo/grants", {"user": "t1"}, expect=201)
    for learner in ("la", "lb"):
        w.call("POST", "t1", "/v1/courses/algo/grants", {"user": learner}, expect=201)
    if built:
        assert w.call("POST", "t1", "/v1/courses/algo/bites:build") == {"course": "algo", "bites": 3,
                                                                         "schedules_reset": 0}
    return w


@pytest.fixture
def world(tmp_path, db_url, course_pdf):
    w = start(tmp_path, db_url, course_pdf)
    yield w
    w.client.__exit__(None, None, None)


# ------------------------------------------------------------------------------------------- bites and exercises


def test_bites_are_built_by_the_teacher_only(tmp_path, db_url, course_pdf):
    w = start(tmp_path, db_url, course_pdf, built=False)
    try:
        w.call("POST", "la", "/v1/courses/algo/bites:build", expect=403)
        w.call("POST", "t2", "/v1/courses/algo/bites:build", expect=404)
        assert w.call("GET", "la", "/v1/courses/algo/bites") == []
        assert w.call("POST", "t1", "/v1/courses/algo/bites:build")["bites"] == 3
        bites = w.call("GET", "la", "/v1/courses/algo/bites")
        assert [(b["id"], b["title"], b["prerequisites"], b["source_pages"]) for b in bites] == [
            (1, "1.1 Queues", [], [1]), (2, "1.2 Breadth-first search", [1], [2]), (3, "2.1 Heuristics", [], [3])]
        assert all(200 <= b["words"] <= 500 and 1 <= b["difficulty"] <= 5 for b in bites)
    finally:
        w.client.__exit__(None, None, None)


def test_exercises_preview_then_save_and_access(world):
    w = world
    w.call("POST", "la", "/v1/courses/algo/bites/1/exercises:preview", {"type": "flashcard"}, expect=403)
    w.call("POST", "t2", "/v1/courses/algo/bites/1/exercises:preview", {"type": "flashcard"}, expect=404)
    preview = w.call("POST", "t1", "/v1/courses/algo/bites/1/exercises:preview", {"type": "flashcard"})
    assert preview["id"] is None and preview["generated_by"] == "offline"
    assert preview["exercise"]["answer"] == DEFINITIONS["1.1 Queues"]
    assert w.call("GET", "t1", "/v1/courses/algo/bites/1/exercises") == []  # a preview is not saved
    for kind in ("open_question", "teach_back"):
        r = w.call("POST", "t1", "/v1/courses/algo/bites/1/exercises:preview", {"type": kind}, expect=422)
        assert "needs a generative model" in r["detail"]
    r = w.call("POST", "t1", "/v1/courses/algo/bites/1/exercises:revise",
               {"exercise": preview["exercise"], "instruction": "Make it harder."}, expect=422)
    assert r["detail"].startswith("revising an exercise with a free instruction needs a generative model")
    bad = {"type": "cloze", "question": "Fill in the gaps of the text about queues.", "text": "A queue is FIFO.",
           "answers": ["FIFO"]}
    r = w.call("POST", "t1", "/v1/courses/algo/bites/1/exercises", {"exercise": bad}, expect=422)
    assert r["detail"].startswith("cloze exercise rejected: text has no gaps")
    w.call("POST", "la", "/v1/courses/algo/bites/1/exercises", {"exercise": preview["exercise"]}, expect=403)
    saved = w.call("POST", "t1", "/v1/courses/algo/bites/1/exercises", {"exercise": preview["exercise"]}, expect=201)
    assert saved["id"] >= 1 and saved["exercise"]["bite_id"] == 1
    (seen,) = w.call("GET", "la", "/v1/courses/algo/bites/1/exercises")
    assert seen["exercise"]["question"] == preview["exercise"]["question"] and "answer" not in seen["exercise"]


def test_revision_with_a_model_is_validated(tmp_path, db_url, course_pdf):
    replies = iter([
        {"type": "flashcard", "question": "In one sentence: what is a queue?", "answer": "A queue is a data "
         "structure that removes the oldest element first."},
        {"type": "flashcard", "question": "What is a queue?", "answer": "What is a queue?"},  # gives it away
        {"type": "flashcard", "question": "What is a queue?", "answer": "What is a queue?"},
    ])
    def model(messages, request):
        if (request.schema or {}).get("title") == "BitePlan":
            return {"bites": []}  # building the bites at start-up: nothing usable, so the offline bites stand
        return next(replies)

    w = start(tmp_path, db_url, course_pdf, llm=FunctionLLM(model))
    try:
        draft = {"type": "flashcard", "question": "What is meant by a queue in computing?", "answer": "FIFO storage."}
        revised = w.call("POST", "t1", "/v1/courses/algo/bites/1/exercises:revise",
                         {"exercise": draft, "instruction": "Ask for one sentence."})
        assert revised["generated_by"] == "model" and revised["exercise"]["question"].startswith("In one sentence")
        r = w.call("POST", "t1", "/v1/courses/algo/bites/1/exercises:revise",
                   {"exercise": draft, "instruction": "Shorter."}, expect=502)
        assert "even after a retry" in r["detail"] and "gives the answer away" in r["detail"]
    finally:
        w.client.__exit__(None, None, None)


# ------------------------------------------------------------------------------------------- answers, next, progress


def test_answers_update_schedules_next_order_and_progress(world):
    w = world
    mc = w.save(1, "multiple_choice")
    card = w.save(2, "flashcard")
    cloze = w.save(3, "cloze")
    assert w.next() == [(1, "new"), (3, "new")]  # bite 2 waits for bite 1
    assert w.progress() == {"total": 3, "new": 3, "learning": 0, "review": 0, "mastered": 0, "due_today": 0}

    right = mc["exercise"]["options"][mc["exercise"]["correct_index"]]
    a = w.call("POST", "la", f"/v1/exercises/{mc['id']}/answers", {"answer": right}, expect=201)
    assert (a["quality"], a["is_correct"], a["grader"], a["bite"]) == (5, True, "rule", 1)
    assert (a["schedule"]["interval"], a["schedule"]["repetitions"], a["schedule"]["status"]) == (1, 1, "review")
    assert a["schedule"]["due"] == (T0 + DAY).isoformat()
    assert w.next() == [(2, "new"), (3, "new")]

    w.clock.now = T0 + timedelta(hours=1)
    a = w.call("POST", "la", f"/v1/exercises/{cloze['id']}/answers",
               {"answer": "; ".join("wrong" for _ in cloze["exercise"]["answers"])}, expect=201)
    assert (a["quality"], a["is_correct"], a["schedule"]["status"]) == (0, False, "learning")

    w.clock.now = T0 + 3 * DAY
    items = w.call("GET", "la", "/v1/courses/algo/next?new=3")
    assert [(i["bite"], i["kind"]) for i in items] == [(1, "review"), (3, "review"), (2, "new")]
    assert items[0]["overdue_days"] == 2.0 and items[1]["overdue_days"] == pytest.approx(2 - 1 / 24, abs=1e-4)
    assert items[2]["exercises"] == [card["id"]]
    assert w.progress() == {"total": 3, "new": 1, "learning": 1, "review": 1, "mastered": 0, "due_today": 2}

    a = w.call("POST", "la", f"/v1/exercises/{card['id']}/answers", {"answer": DEFINITIONS["1.2 Breadth-first search"]},
               expect=201)
    assert a["grader"] == "offline" and a["is_correct"] and a["schedule"]["due"] == (T0 + 4 * DAY).isoformat()
    assert w.progress()["new"] == 0 and w.progress()["due_today"] == 2

    # learners see only their own schedule; the course's teacher and admins may read any enrolled learner's
    assert w.progress("lb") == {"total": 3, "new": 3, "learning": 0, "review": 0, "mastered": 0, "due_today": 0}
    w.call("GET", "lb", "/v1/courses/algo/progress?learner=la", expect=403)
    w.call("GET", "lb", "/v1/courses/algo/next?learner=la", expect=403)
    assert w.progress("t1", learner="la") == w.progress("la")
    assert w.next("root", learner="la") == [(1, "review"), (3, "review")]
    w.call("GET", "t2", "/v1/courses/algo/progress?learner=la", expect=404)
    r = w.call("POST", "t1", "/v1/courses/algo/bites:build", expect=400)
    assert "would reset them" in r["detail"]


def test_fsrs_is_a_course_setting(world):
    w = world
    assert w.call("GET", "la", "/v1/courses/algo/learning") == {"scheduler": "sm2"}
    w.call("PUT", "la", "/v1/courses/algo/learning", {"scheduler": "fsrs"}, expect=403)
    w.call("PUT", "t1", "/v1/courses/algo/learning", {"scheduler": "leitner"}, expect=400)
    assert w.call("PUT", "t1", "/v1/courses/algo/learning", {"scheduler": "fsrs"}) == {"scheduler": "fsrs"}
    mc = w.save(1, "multiple_choice")
    right = mc["exercise"]["options"][mc["exercise"]["correct_index"]]
    a = w.call("POST", "la", f"/v1/exercises/{mc['id']}/answers", {"answer": right}, expect=201)
    assert a["schedule"]["stability"] > 0 and a["schedule"]["fsrs_state"] == 2  # FSRS Review state
    assert w.call("GET", "la", "/v1/courses/algo/progress")["scheduler"] == "fsrs"


# ------------------------------------------------------------------------------------------- practice → schedule


def test_practice_ratings_update_the_schedule_of_their_bite(world):
    w = world
    made = w.call("POST", "t1", "/v1/courses/algo/questions:generate", expect=201)
    assert made == {"course": "algo", "written": 3, "ids": ["gen-b1", "gen-b2", "gen-b3"]}
    bank = w.call("GET", "t1", "/v1/courses/algo/questions?origin=generated")
    assert bank[0]["question"] == "What is meant by \u201cqueue\u201d in 1.1 Queues?"
    assert bank[0]["reference_answer"] == DEFINITIONS["1.1 Queues"] and bank[0]["bite"] == 1

    sid = w.call("POST", "la", "/v1/practice", {"course": "algo", "question_ids": ["gen-b1", "gen-b3"]},
                 expect=201)["id"]
    turn = w.call("POST", "la", f"/v1/practice/{sid}/messages", {"content": DEFINITIONS["1.1 Queues"]})["turn"]
    assert turn["rating"]["score"] == 10
    (update,) = turn["schedule_updates"]
    assert (update["bite"], update["score"], update["quality"]) == (1, 10, 5)
    assert (update["schedule"]["interval"], update["schedule"]["status"]) == (1, "review")

    for _ in range(5):
        w.call("POST", "la", f"/v1/practice/{sid}/messages", {"content": "hint"})
    turn = w.call("POST", "la", f"/v1/practice/{sid}/messages", {"content": "I give up"})["turn"]
    assert turn["kind"] == "resolution" and turn["rating"]["hints_given"] == 5
    (update,) = turn["schedule_updates"]
    assert update["bite"] == 3 and update["quality"] == {1: 0, 2: 1, 3: 1}[turn["rating"]["score"]]
    assert update["schedule"]["status"] == "learning"
    assert w.progress() == {"total": 3, "new": 1, "learning": 1, "review": 1, "mastered": 0, "due_today": 0}
    assert w.next() == [(2, "new")]


# ------------------------------------------------------------------------------------------- CLI


def test_cli_learn_next_and_progress_report(world, tmp_path, monkeypatch):
    w = world
    mc = w.save(1, "multiple_choice")
    right = mc["exercise"]["options"][mc["exercise"]["correct_index"]]
    w.call("POST", "la", f"/v1/exercises/{mc['id']}/answers", {"answer": right}, expect=201)
    monkeypatch.setenv("TUTOR_DATA_DIR", str(w.settings.data_dir))
    monkeypatch.setenv("TUTOR_DATABASE_URL", w.db_url)
    app, eval_app = typer.Typer(), typer.Typer()
    learn_cmd.register(app, eval_app)
    runner = CliRunner()
    at = (T0 + 2 * DAY).isoformat()

    r = runner.invoke(app, ["learn", "next", "--course", "algo", "--learner", "la", "--at", at, "--new", "2",
                            "--json"])
    assert r.exit_code == 0, r.output
    assert [(i["bite"], i["kind"], i["overdue_days"]) for i in json.loads(r.stdout)] == [
        (1, "review", 1.0), (2, "new", None), (3, "new", None)]
    r = runner.invoke(app, ["learn", "next", "--course", "algo", "--learner", "la", "--at", at])
    assert r.stdout.splitlines()[0] == "review bite 1: 1.1 Queues (overdue 1.0 days)"

    out = tmp_path / "report"
    r = runner.invoke(app, ["learn", "progress", "--course", "algo", "--learner", "la", "--at", at, "--json",
                            "--report", str(out)])
    p = json.loads(r.stdout)
    assert {k: p[k] for k in ("total", "new", "learning", "review", "mastered", "due_today")} == {
        "total": 3, "new": 2, "learning": 0, "review": 1, "mastered": 0, "due_today": 1}
    png, md = (Path(x) for x in p["report"])
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "| review | 1 |" in md.read_text() and f"![status counts]({png.name})" in md.read_text()
    r = runner.invoke(app, ["learn", "progress", "--course", "algo", "--learner", "nobody"])
    assert r.exit_code == 2 and "unknown user 'nobody'" in r.stderr
    r = runner.invoke(app, ["learn", "next", "--course", "algo", "--learner", "la", "--at", "tomorrow"])
    assert r.exit_code == 2 and "not an ISO date" in r.stderr


# ------------------------------------------------------------------------------------------- migration 0002


def test_migration_0002_matches_the_models_and_downgrades(db_url):
    from alembic import command
    from alembic.autogenerate import compare_metadata
    from alembic.runtime.migration import MigrationContext
    from sqlalchemy import inspect

    from app.store.models import Base

    new_tables = {"practice_questions", "practice_sessions", "practice_messages", "practice_hints",
                  "practice_ratings", "learning_settings", "bites", "exercises", "schedules", "reviews", "answers"}
    store_db.upgrade(db_url)
    engine = store_db.make_engine(db_url)
    try:
        assert store_db.current_revision(engine) == "0002" == store_db.head_revision()
        assert new_tables <= set(inspect(engine).get_table_names())
        with engine.connect() as conn:
            assert compare_metadata(MigrationContext.configure(conn), Base.metadata) == []
        command.downgrade(store_db.alembic_config(db_url), "0001")
        assert not new_tables & set(inspect(engine).get_table_names())
        assert store_db.current_revision(engine) == "0001"
    finally:
        engine.dispose()
