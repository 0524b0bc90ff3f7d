"""Guided practice through the HTTP API, on SQLite and PostgreSQL: the question bank, sessions with the mock model
(a scripted `FunctionLLM` injected through `create_app(llm=...)`) and in grounded mode, restarts, the teacher view,
access rules, and the `tutor questions import|list` and `tutor ratings` commands.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
import typer
from fastapi.testclient import TestClient
from sqlalchemy import func, select
from typer.testing import CliRunner

from app.api import create_app
from app.api.testing import DB_BACKENDS, database_url_for
from app.cli import questions_cmd
from app.llm import FunctionLLM, Message
from app.settings import Settings
from app.store import db as store_db
from app.store import repo
from app.store.models import PracticeHint, PracticeRating
from indexing.embedder import HashEmbedder

T0 = datetime(2026, 3, 2, 8, 0, tzinfo=UTC)
Q_BFS = {"id": "q-bfs", "question": "Which data structure does breadth-first search use for its frontier?",
         "reference_answer": "A FIFO queue that removes the oldest node first.", "section": "1.2 Breadth-first search",
         "page_start": 2, "key_concept": "FIFO queue"}
Q_H = {"id": "q-h", "question": "What does an admissible heuristic never do?",
       "reference_answer": "It never overestimates the true cost to reach the goal.", "section": "2.1 Heuristics"}


class Clock:
    def __init__(self, now: datetime) -> None:
        self.now = now

    def __call__(self) -> datetime:
        return self.now

    def tick(self, minutes: float = 1) -> None:
        self.now += timedelta(minutes=minutes)


def call(name: str, id_: str, **arguments) -> dict:
    return {"id": id_, "name": name, "arguments": arguments}


def open_question_id(messages: list[Message]) -> str:
    """The id of the last question getNextQuestion handed out (from the tool results in the conversation)."""
    for m in reversed(messages):
        if m.role == "tool" and m.content and m.content.startswith("{"):
            data = json.loads(m.content)
            if "questionId" in data and "question" in data:
                return data["questionId"]
    raise AssertionError("no question was asked")


class ScriptedTeacher:
    """The mock model: loads the material and asks, gives a hint for every hint request, rates a learner's answer
    with the score it is told to propose, and proposes 10 in any structured assessment."""

    def __init__(self) -> None:
        self.propose = 10
        self.calls = 0

    def __call__(self, messages: list[Message], request) -> object:
        self.calls += 1
        last = messages[-1]
        if request.kind == "structured":
            return {"questionId": "x", "correct": False, "score": 10, "reasoning": "Needed the whole ladder."}
        if last.role == "tool":
            result = json.loads(last.content) if last.content.startswith("{") else {}
            if result.get("saved"):
                return [call("getNextQuestion", f"n{self.calls}")]
            if "question" in result:
                return f"Question: {result['question']}"
            return "Go on."
        text = last.content or ""
        if "Start the session" in text:
            return [call("getContent", "c0"), call("getNextQuestion", "c1")]
        qid = open_question_id(messages)
        if "hint" in text.lower():
            text = f"Think about the order, step {self.calls}."
            return [call("giveHint", f"h{self.calls}", questionId=qid, text=text)]
        return [call("saveQuestionRating", f"r{self.calls}", questionId=qid, correct=True, score=self.propose,
                     reasoning="The answer names the FIFO queue.", good="Named the queue.")]


@dataclass
class World:
    client: TestClient
    tokens: dict[str, str]
    clock: Clock
    settings: Settings
    db_url: str
    model: ScriptedTeacher

    def h(self, who: str) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.tokens[who]}"}

    def post(self, who: str, path: str, body) -> dict:
        r = self.client.post(path, json=body, headers=self.h(who))
        assert r.status_code in (200, 201), (path, r.status_code, r.text)
        return r.json()

    def say(self, session: str, text: str, who: str = "la") -> dict:
        self.clock.tick()
        return self.post(who, f"/v1/practice/{session}/messages", {"content": text})["turn"]

    def count(self, model, **where) -> int:
        engine = store_db.make_engine(self.db_url)
        try:
            with store_db.session_factory(engine)() as db:
                q = select(func.count()).select_from(model)
                for k, v in where.items():
                    q = q.where(getattr(model, k) == v)
                return db.scalar(q)
        finally:
            engine.dispose()


@pytest.fixture(params=DB_BACKENDS)
def db_url(request, tmp_path) -> str:
    return database_url_for(request.param, tmp_path)


def seed(db_url: str) -> dict[str, str]:
    store_db.upgrade(db_url)
    engine = store_db.make_engine(db_url)
    tokens = {}
    with store_db.session_factory(engine)() as db:
        for name, role in [("root", "admin"), ("t1", "teacher"), ("t2", "teacher"), ("la", "learner"),
                           ("lb", "learner")]:
            tokens[name] = repo.create_user(db, name, role, now=T0)[1]
        db.commit()
    engine.dispose()
    return tokens


def open_world(settings: Settings, tokens, clock: Clock, model: ScriptedTeacher | None, db_url: str):
    app = create_app(settings, embedder=HashEmbedder(), clock=clock, llm=FunctionLLM(model) if model else None)
    return World(TestClient(app), tokens, clock, settings, db_url, model or ScriptedTeacher())


def make_world(tmp_path: Path, db_url: str, *, with_model: bool):
    settings = Settings(data_dir=tmp_path / "data", database_url=db_url, rerank_enabled=False)
    tokens = seed(db_url)
    w = open_world(settings, tokens, Clock(T0), ScriptedTeacher() if with_model else None, db_url)
    w.client.__enter__()
    assert w.client.post("/v1/courses", json={"id": "algo"}, headers=w.h("t1")).status_code == 201
    assert w.client.post("/v1/courses", json={"id": "dbs"}, headers=w.h("t2")).status_code == 201
    for learner in ("la", "lb"):
        w.post("t1", "/v1/courses/algo/grants", {"user": learner})
    w.post("t1", "/v1/courses/algo/questions", [Q_BFS, Q_H])
    return w


@pytest.fixture
def agent_world(tmp_path, db_url):
    w = make_world(tmp_path, db_url, with_model=True)
    yield w
    w.client.__exit__(None, None, None)


@pytest.fixture
def grounded_world(tmp_path, db_url):
    w = make_world(tmp_path, db_url, with_model=False)
    yield w
    w.client.__exit__(None, None, None)


# ------------------------------------------------------------------------------------------- acceptance (mock model)


def test_six_hint_requests_yield_five_hints_then_the_resolution(agent_world):
    w = agent_world
    started = w.post("la", "/v1/practice", {"course": "algo", "question_ids": ["q-bfs"]})
    assert started["mode"] == "agent" and started["turn"]["kind"] == "question"
    assert started["turn"]["question_id"] == "q-bfs"
    sid = started["id"]
    turns = [w.say(sid, "give me a hint") for _ in range(6)]
    assert [t["kind"] for t in turns] == ["hint"] * 5 + ["resolution"]
    assert [t["hint"]["level"] for t in turns[:5]] == [1, 2, 3, 4, 5]
    last = turns[5]
    assert last["revealed_answer"] == Q_BFS["reference_answer"] and last["hint"] is None
    rating = last["rating"]
    hint_events = w.count(PracticeHint, session_id=sid, question_id="q-bfs")
    assert hint_events == 5 and rating["hints_given"] == hint_events and len(rating["hints"]) == 5
    assert rating["resolved"] and rating["proposed_score"] == 10 and rating["score"] <= 3
    detail = w.client.get(f"/v1/practice/{sid}", headers=w.h("la")).json()
    assert [h["level"] for h in detail["hints"]] == [1, 2, 3, 4, 5]
    assert detail["ratings"][0]["hints_given"] == 5 and detail["finished"] is False
    assert [m["role"] for m in detail["messages"]] == ["assistant"] + ["user", "assistant"] * 6


def test_model_proposing_ten_after_three_hints_is_saved_as_seven_and_the_teacher_sees_it(agent_world):
    w = agent_world
    sid = w.post("la", "/v1/practice", {"course": "algo", "question_ids": ["q-bfs", "q-h"]})["id"]
    hints = [w.say(sid, "a hint please") for _ in range(3)]
    assert [t["hint"]["level"] for t in hints] == [1, 2, 3]
    w.clock.tick(4)
    turn = w.say(sid, "a FIFO queue, oldest node first")
    assert turn["kind"] == "feedback" and turn["question_id"] == "q-h"
    assert turn["rating"]["proposed_score"] == 10 and turn["rating"]["score"] == 7 and turn["rating"]["band"] == "6-7"
    assert w.count(PracticeRating, session_id=sid) == 1

    rows = w.client.get("/v1/courses/algo/ratings", headers=w.h("t1")).json()
    (row,) = rows
    assert (row["learner"], row["question_id"], row["score"], row["quality"], row["hints_given"]) == (
        "la", "q-bfs", 7, 3, 3)
    assert [h["text"] for h in row["hints"]] == [h["hint"]["text"] for h in hints]
    assert row["reasoning"] == "The answer names the FIFO queue."
    assert row["time_seconds"] == 8 * 60  # asked at T0, three hints a minute apart, four more minutes, one more


def test_agent_session_survives_a_restart(agent_world, tmp_path):
    w = agent_world
    sid = w.post("la", "/v1/practice", {"course": "algo", "question_ids": ["q-bfs"]})["id"]
    assert [w.say(sid, "hint")["hint"]["level"] for _ in range(2)] == [1, 2]
    w.client.__exit__(None, None, None)  # the server stops; nothing is kept in memory

    w2 = open_world(w.settings, w.tokens, w.clock, ScriptedTeacher(), w.db_url)
    with w2.client:
        assert [w2.say(sid, "hint")["hint"]["level"] for _ in range(3)] == [3, 4, 5]
        last = w2.say(sid, "hint")
        assert last["kind"] == "resolution" and last["rating"]["hints_given"] == 5
        assert w2.count(PracticeHint, session_id=sid) == 5
    w.client.__enter__()  # so the fixture's teardown has something to close


# ------------------------------------------------------------------------------------------- grounded mode


def test_grounded_session_hints_grades_and_restarts(grounded_world):
    w = grounded_world
    started = w.post("la", "/v1/practice", {"course": "algo"})
    assert started["mode"] == "grounded" and started["questions"] == ["q-bfs", "q-h"]
    sid = started["id"]
    first = w.say(sid, "hint")
    assert first["kind"] == "hint" and first["hint"]["level"] == 1
    w.client.__exit__(None, None, None)
    w2 = open_world(w.settings, w.tokens, w.clock, None, w.db_url)
    with w2.client:
        second = w2.say(sid, "another hint please")
        assert second["hint"]["level"] == 2 and "FIFO queue" in second["hint"]["text"]  # the key concept
        done = w2.say(sid, Q_BFS["reference_answer"])
        assert done["kind"] == "feedback" and done["rating"]["hints_given"] == 2
        assert 6 <= done["rating"]["score"] <= 7 and done["question_id"] == "q-h"
        gave_up = w2.say(sid, "I give up")
        assert gave_up["kind"] == "resolution" and gave_up["finished"] and gave_up["rating"]["score"] <= 3
        r = w2.client.post(f"/v1/practice/{sid}/messages", json={"content": "more?"}, headers=w2.h("la"))
        assert r.status_code == 400 and "finished" in r.json()["detail"]
    w.client.__enter__()


# ------------------------------------------------------------------------------------------- bank and access


def test_question_bank_and_access_rules(grounded_world):
    w = grounded_world
    c = w.client
    as_learner = c.get("/v1/courses/algo/questions", headers=w.h("la")).json()
    assert [q["id"] for q in as_learner] == ["q-bfs", "q-h"] and as_learner[0]["reference_answer"] is None
    as_teacher = c.get("/v1/courses/algo/questions", headers=w.h("t1")).json()
    assert as_teacher[0]["reference_answer"] == Q_BFS["reference_answer"] and as_teacher[0]["origin"] == "teacher"
    assert c.post("/v1/courses/algo/questions", json=[Q_BFS], headers=w.h("la")).status_code == 403
    assert c.post("/v1/courses/algo/questions", json=[Q_BFS], headers=w.h("t2")).status_code == 404
    bad = c.post("/v1/courses/algo/questions", json=[{**Q_BFS, "id": "q-x", "question": "Why?"}], headers=w.h("t1"))
    assert bad.status_code == 400 and "stands on its own" in bad.json()["detail"]
    assert c.delete("/v1/courses/algo/questions/q-h", headers=w.h("t1")).status_code == 204
    assert c.delete("/v1/courses/algo/questions/q-h", headers=w.h("t1")).status_code == 404
    r = c.post("/v1/practice", json={"course": "algo", "question_ids": ["q-h"]}, headers=w.h("la"))
    assert r.status_code == 404 and "q-h" in r.json()["detail"]
    assert c.post("/v1/courses/algo/questions:generate", headers=w.h("t1")).status_code == 400  # no bites yet

    sid = w.post("la", "/v1/practice", {"course": "algo"})["id"]
    assert c.post(f"/v1/practice/{sid}/messages", json={"content": "x"}, headers=w.h("lb")).status_code == 404
    assert c.get(f"/v1/practice/{sid}", headers=w.h("t1")).status_code == 200
    assert c.post(f"/v1/practice/{sid}/messages", json={"content": "x"}, headers=w.h("t1")).status_code == 403
    assert c.get(f"/v1/practice/{sid}", headers=w.h("t2")).status_code == 404

    w.say(sid, Q_BFS["reference_answer"])
    assert c.get("/v1/courses/algo/ratings", headers=w.h("la")).status_code == 403
    assert c.get("/v1/courses/algo/ratings", headers=w.h("t2")).status_code == 404
    assert len(c.get("/v1/courses/algo/ratings", headers=w.h("root")).json()) == 1
    assert c.get("/v1/courses/algo/ratings?learner=lb", headers=w.h("t1")).json() == []
    (row,) = c.get("/v1/courses/algo/ratings?learner=la", headers=w.h("t1")).json()
    assert (row["question_id"], row["score"], row["hints_given"], row["hints"]) == ("q-bfs", 10, 0, [])


# ------------------------------------------------------------------------------------------- CLI


def test_cli_questions_import_list_and_ratings(grounded_world, tmp_path, monkeypatch):
    w = grounded_world
    monkeypatch.setenv("TUTOR_DATA_DIR", str(w.settings.data_dir))
    monkeypatch.setenv("TUTOR_DATABASE_URL", w.db_url)
    app, eval_app = typer.Typer(), typer.Typer()
    questions_app = typer.Typer()
    app.add_typer(questions_app, name="questions")
    questions_cmd.register(app, eval_app)
    runner = CliRunner()

    good = tmp_path / "qs.csv"
    good.write_text("id,question,reference_answer,section\n"
                    "q-dfs,Which data structure does depth-first search use?,A LIFO stack.,1.3 DFS\n", encoding="utf-8")
    r = runner.invoke(app, ["questions", "import", str(good), "--course", "algo", "--json"])
    assert r.exit_code == 0, r.output
    assert json.loads(r.stdout) == {"course": "algo", "imported": 1, "ids": ["q-dfs"]}
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": "q1", "question": "Why?", "reference_answer": "x"}\n', encoding="utf-8")
    r = runner.invoke(app, ["questions", "import", str(bad), "--course", "algo"])
    assert r.exit_code == 2 and "bad.jsonl:1: field question" in r.stderr
    r = runner.invoke(app, ["questions", "import", str(good), "--course", "nope"])
    assert r.exit_code == 2 and "unknown course 'nope'" in r.stderr
    r = runner.invoke(app, ["questions", "list", "--course", "algo", "--json"])
    assert [q["id"] for q in json.loads(r.stdout)] == ["q-bfs", "q-h", "q-dfs"]

    sid = w.post("la", "/v1/practice", {"course": "algo", "question_ids": ["q-dfs"]})["id"]
    hint = w.say(sid, "hint")["hint"]["text"]
    w.say(sid, "A LIFO stack.")
    r = runner.invoke(app, ["ratings", "--course", "algo", "--learner", "la", "--json"])
    (row,) = json.loads(r.stdout)
    assert (row["question_id"], row["hints_given"], row["hints"][0]["text"], row["score"]) == ("q-dfs", 1, hint, 9)
    r = runner.invoke(app, ["ratings", "--course", "algo"])
    assert r.exit_code == 0 and "la q-dfs: 9/10 (quality 4), 1 hint(s), 120 s" in r.stdout
    assert f"hint 1: {hint}" in r.stdout
