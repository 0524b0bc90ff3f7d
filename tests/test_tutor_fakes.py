"""A fixed retriever over hand-written chunks of the sample course, for the tutor tests (a fake of a swappable part)."""

from __future__ import annotations

from app.retrieval.types import Hit, RetrievalResult
from indexing.models import Chunk


def chunk(cid: str, pages: tuple[int, int], section: str, text: str) -> Chunk:
    return Chunk(cid, "search", "search-algorithms.pdf", "official", pages[0], pages[1], section, text)


BFS = chunk(
    "c-bfs",
    (6, 7),
    "1.3 Breadth-First Search",
    "Breadth-first search (BFS) expands the shallowest node of the frontier first. The frontier is a FIFO queue, "
    "so nodes are expanded in the order in which they were generated. BFS applies the goal test when a node is "
    "generated rather than when it is expanded. It is complete whenever the branching factor is finite. BFS is "
    "optimal when all actions have the same cost, because then the fewest steps also means the cheapest path.",
)
BFS_TRACE = chunk(
    "c-bfs-trace",
    (7, 7),
    "Worked trace: BFS on the campus map",
    "The table shows the frontier after each expansion. In step 1, BFS expands the start node and generates its "
    "two children. In step 2, it expands the first child and appends its new children to the queue. "
    "The expansion order is S, A, B, C, D and BFS returns the path S-A-D-G.",
)
BFS_CODE = chunk(
    "c-bfs-code",
    (6, 6),
    "1.3 Breadth-First Search",
    "function BREADTH-FIRST-SEARCH(problem)\n"
    "  node ← NODE(problem.INITIAL)\n"
    "  frontier ← a FIFO queue with node as its only element\n"
    "  while not IS-EMPTY(frontier) do\n"
    "    node ← POP(frontier)\n",
)
ASTAR = chunk(
    "c-astar",
    (12, 13),
    "2.3 A* Search",
    "A* search expands the node with the lowest f(n) = g(n) + h(n). A* is optimal when the heuristic is "
    "admissible. A heuristic is admissible if it never overestimates the cost to reach a goal.",
)
ALL = [BFS, BFS_TRACE, BFS_CODE, ASTAR]


class FixedRetriever:
    """Returns the same chunks for every query, in order, with a given dense cosine for the best one."""

    def __init__(self, chunks: list[Chunk] = ALL, *, dense: float = 0.62) -> None:
        self.chunks = list(chunks)
        self.dense = dense
        self.queries: list[str] = []

    def search(self, query: str, *, k: int = 8) -> RetrievalResult:
        self.queries.append(query)
        hits = [
            Hit(rank=i + 1, chunk=c, score=1.0 / (i + 1), scores={"dense": self.dense - 0.05 * i})
            for i, c in enumerate(self.chunks[:k])
        ]
        return RetrievalResult(query=query, hits=hits, stages=["fake"])


def test_fixed_retriever_returns_ranked_hits_with_dense_scores():
    r = FixedRetriever(dense=0.5)
    result = r.search("what is bfs", k=2)
    assert [h.rank for h in result.hits] == [1, 2]
    assert [h.chunk.id for h in result.hits] == ["c-bfs", "c-bfs-trace"]
    assert [round(h.scores["dense"], 2) for h in result.hits] == [0.5, 0.45]
    assert r.queries == ["what is bfs"]
