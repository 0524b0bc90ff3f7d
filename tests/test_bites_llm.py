"""Model-made learning bites: the model proposes, the code keeps only valid bites of the original text."""

from __future__ import annotations

from app.learning.bites_llm import BitePlan, bites_with_model, is_original_text
from app.llm import FunctionLLM
from indexing.models import Chunk

BFS = ("Breadth-first search expands the shallowest node first. It keeps the frontier in a FIFO queue, so nodes "
       "are expanded level by level. ") * 12
DFS = ("Depth-first search expands the deepest node first. Its frontier is a LIFO stack, and it needs memory only "
       "for the current path and its siblings. ") * 12


def chunks() -> list[Chunk]:
    return [
        Chunk("a-0", "c", "n.pdf", "official", 3, 3, "1.1 BFS", BFS),
        Chunk("a-1", "c", "n.pdf", "official", 5, 5, "1.2 DFS", DFS),
    ]


def test_original_text_check():
    assert is_original_text(BFS[:300], BFS + DFS)
    assert not is_original_text("BFS is a search that goes wide before it goes deep, using a queue.", BFS + DFS)


def test_model_bites_are_validated_in_code():
    requests = []

    def model(messages, request):
        requests.append(request)
        return BitePlan.model_validate({"bites": [
            {"id": 1, "title": "BFS", "content": BFS.strip(), "difficulty": 9, "prerequisites": [1, 7]},
            {"id": 2, "title": "A paraphrase", "content": "DFS goes deep first and uses a stack.", "difficulty": 2},
            {"id": 3, "title": "DFS", "content": DFS.strip(), "difficulty": 0, "prerequisites": [1, 3]},
            {"id": 4, "title": "", "content": DFS.strip(), "difficulty": 3},
        ]})

    bites = bites_with_model(FunctionLLM(model), chunks())
    assert [(b.id, b.title, b.difficulty, b.prerequisites) for b in bites] == [
        (1, "BFS", 5, []),  # clamped; no self or unknown prerequisite
        (3, "DFS", 1, [1]),  # the paraphrase and the untitled entry are dropped
    ]
    assert bites[0].source_pages == [3] and bites[1].source_pages == [5]
    assert requests[0].temperature == 0.3


def test_offline_bites_stand_when_nothing_survives():
    bites = bites_with_model(FunctionLLM(lambda m, r: BitePlan(bites=[])), chunks())
    assert [b.title for b in bites] and all(b.content for b in bites)


def test_invalid_model_output_falls_back_to_offline_bites():
    bites = bites_with_model(FunctionLLM(lambda m, r: {"not": "bites"}), chunks())
    assert [b.content for b in bites] and bites[0].title.endswith("BFS")
