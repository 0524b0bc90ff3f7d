"""Passages that ask instead of explain (review questions, exercise tasks) are demoted in retrieval."""

import pytest

from app.retrieval.asking import exercise_numbers, refers_to_exercise
from app.retrieval.pipeline import RetrievalPipeline, Stages
from app.settings import Settings
from indexing.asking import asking_share, is_asking
from indexing.chunk import index_text
from indexing.embedder import HashEmbedder
from indexing.models import Chunk
from indexing.store import CourseIndex, build_bm25, build_faiss

REVIEW = (
    "9. Explain in your own words why alpha-beta never changes the root's minimax value. "
    "10. Why does the order in which moves are examined matter for alpha-beta but not for minimax?"
)
EXPLANATION = (
    "Alpha-beta prunes more when the best moves are examined first. With perfect ordering it examines about "
    "b^(m/2) nodes, so the order in which moves are examined decides how much alpha-beta saves."
)


@pytest.mark.parametrize(
    ("sentence", "asking"),
    [
        ("Why is the Manhattan distance admissible?", True),
        ("3. Explain the difference between the frontier and the reached set.", True),
        ("Problem 1 (uninformed search). Add an edge B–E with cost 1.", True),
        ("Implement BFS, UCS and A* in Python.", True),
        ("Berechne h1 und h2 für den Startzustand.", True),
        ("A* expands the node with the lowest f = g + h.", False),
        ("Showing that A* is optimal needs an admissible heuristic.", False),
        ("Run-time grows with the branching factor.", False),
    ],
)
def test_is_asking(sentence, asking):
    assert is_asking(sentence) is asking


def test_asking_share_counts_questions_and_tasks_not_item_numbers():
    assert asking_share(REVIEW) == 1.0
    assert asking_share(EXPLANATION) == 0.0
    # five sentences ("A checklist:" is one), two of them questions; "Use it." is advice, not a task verb
    assert asking_share("A checklist: Is it zero at the goal? Is it cheap? It should dominate. Use it.") == 0.4
    assert asking_share("") == 0.0


@pytest.mark.parametrize(
    ("query", "refers"),
    [
        ("exercise 3 with start 2 _ 3: can someone check my h2", True),
        ("kannst du die lösung zu aufgabe 5 durchspielen", True),
        ("practice problem 2 changes h(D) to 3, still consistent?", True),
        ("i'm stuck on the practice problems", True),
        ("why does the order of moves matter for alpha beta", False),
        ("what problem does A* solve", False),
    ],
)
def test_refers_to_exercise(query, refers):
    assert refers_to_exercise(query) is refers


def _pipeline(asking_demotion: float) -> RetrievalPipeline:
    emb = HashEmbedder()
    chunks = [
        Chunk("c-0000", "ai", "n.pdf", "official", 24, 24, "4.1 Review Questions", REVIEW),
        Chunk("c-0001", "ai", "n.pdf", "official", 21, 21, "3.3 Move Ordering", EXPLANATION),
        Chunk("c-0002", "ai", "n.pdf", "official", 6, 6, "1.2 BFS", "Breadth-first search uses a FIFO queue."),
    ]
    texts = [index_text(c) for c in chunks]
    vecs = emb.embed(texts)
    index = CourseIndex("ai", {"embedder": emb.name}, chunks, vecs, build_faiss(vecs, ann_threshold=10), build_bm25(texts))
    return RetrievalPipeline(index, emb, settings=Settings(asking_demotion=asking_demotion))


STAGES = Stages(mmr=False, rerank=False, boost=False)
QUESTION = "why does the order in which moves are examined matter for alpha-beta but not for minimax?"


def test_review_question_is_demoted_below_the_explanation():
    plain = _pipeline(0.0).search(QUESTION, stages=STAGES)
    assert plain.hits[0].chunk.id == "c-0000"  # the review question repeats the learner's words
    assert "demote" not in plain.stages

    demoted = _pipeline(0.5).search(QUESTION, stages=STAGES)
    assert [h.chunk.id for h in demoted.hits[:2]] == ["c-0001", "c-0000"]
    assert "demote" in demoted.stages
    by_id = {h.chunk.id: h for h in demoted.hits}
    assert by_id["c-0000"].scores["demote"] == pytest.approx(-0.5)
    assert "demote" not in by_id["c-0001"].scores
    assert by_id["c-0000"].score == pytest.approx(by_id["c-0000"].scores["hybrid"] - 0.5)


def test_no_demotion_when_the_learner_asks_about_an_exercise():
    res = _pipeline(0.5).search("review question 10: " + QUESTION, stages=STAGES)
    assert res.skipped["demote"] == "the question refers to an exercise"
    assert all("demote" not in h.scores for h in res.hits)


@pytest.mark.parametrize(
    ("text", "numbers"),
    [
        ("practice problem 3 (start 2 _ 3 / 1 5 6): i got h1 = 5, can someone check?", {"3"}),
        ("kannst du die lösung zu aufgabe 5 durchspielen", {"5"}),
        ("Problem 3. Tiles 1, 2, 4, 7 and 8 are misplaced. Problem 5 (a minimal UCS).", {"3", "5"}),
        ("Review question 8. Solve 1 + b + b^2 = 62.", {"8"}),
        ("why does A* need 62 nodes at depth 5", set()),
    ],
)
def test_exercise_numbers(text, numbers):
    assert exercise_numbers(text) == numbers


def test_passages_naming_the_asked_exercise_get_the_bonus():
    emb = HashEmbedder()
    chunks = [
        Chunk("c-0000", "ai", "n.pdf", "official", 16, 16, "2.6 Heuristics",
              "The Manhattan distance h2 sums the distances of the tiles from their goal squares."),
        Chunk("c-0001", "ai", "n.pdf", "official", 25, 25, "4.3 Solutions",
              "Problem 3. Tiles 1, 2, 4, 7 and 8 are misplaced, so h1 = 5."),
    ]
    texts = [index_text(c) for c in chunks]
    vecs = emb.embed(texts)
    index = CourseIndex("ai", {"embedder": emb.name}, chunks, vecs, build_faiss(vecs, ann_threshold=10), build_bm25(texts))
    question = "exercise 3: i have h1 = 5 and the manhattan distance h2 = 6, can someone check"
    res = RetrievalPipeline(index, emb, settings=Settings(exercise_match_bonus=0.3)).search(question, stages=STAGES)
    base = RetrievalPipeline(index, emb, settings=Settings(exercise_match_bonus=0.0)).search(question, stages=STAGES)
    by_id = {h.chunk.id: h for h in res.hits}
    base_score = {h.chunk.id: h.score for h in base.hits}
    assert by_id["c-0001"].scores["exercise"] == 0.3 and "exercise" not in by_id["c-0000"].scores
    assert by_id["c-0001"].score == pytest.approx(base_score["c-0001"] + 0.3)
    assert by_id["c-0000"].score == pytest.approx(base_score["c-0000"])


def test_the_asking_share_is_stored_with_the_index_and_read_back(tmp_path):
    from indexing.store import create_course, load_index, write_index

    emb = HashEmbedder()
    chunks = [
        Chunk("c-0000", "ai", "n.pdf", "official", 24, 24, "4.1 Review Questions", REVIEW),
        Chunk("c-0001", "ai", "n.pdf", "official", 21, 21, "3.3 Move Ordering", EXPLANATION),
    ]
    texts = [index_text(c) for c in chunks]
    create_course(tmp_path, "ai")
    version = write_index(tmp_path, "ai", chunks=chunks, embeddings=emb.embed(texts), index_texts=texts,
                          documents={}, embedder_name=emb.name, ann_threshold=10)
    stored = tmp_path / "courses/ai/versions" / version / "asking.npy"
    assert stored.exists()
    assert load_index(tmp_path, "ai").asking.tolist() == [1.0, 0.0]
    stored.unlink()  # an index written before the file existed: computed on load instead
    assert load_index(tmp_path, "ai").asking.tolist() == [1.0, 0.0]
