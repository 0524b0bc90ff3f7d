from indexing.chunk import Unit, chunk_pages, is_heading, pack_units, pages_to_units, split_sentences
from indexing.extract import Line, Page


def test_split_sentences_respects_abbreviations():
    text = "BFS uses a queue, e.g. a FIFO list. DFS uses a stack. Is A* optimal? Yes, z.B. mit h=0."
    assert split_sentences(text) == [
        "BFS uses a queue, e.g. a FIFO list.",
        "DFS uses a stack.",
        "Is A* optimal?",
        "Yes, z.B. mit h=0.",
    ]


def test_heading_by_size_or_bold():
    assert is_heading(Line("2.3 A* Search", 15.0, True, False), 11.0)
    assert is_heading(Line("Admissibility", 11.0, True, False), 11.0)
    assert not is_heading(Line("A bold sentence that ends.", 11.0, True, False), 11.0)
    assert not is_heading(Line("frontier <- queue()", 15.0, False, True), 11.0)
    assert not is_heading(Line("plain body", 11.0, False, False), 11.0)


def _units(n: int, section: str = "S", length: int = 90) -> list[Unit]:
    return [Unit(f"Sentence {i} " + "x" * (length - 12) + ".", page=1 + i // 4, section=section) for i in range(n)]


def test_pack_units_target_and_two_sentence_overlap():
    groups = pack_units(_units(10), target=400, overlap_sentences=2)
    texts = [[u.text for u in g] for g in groups]
    # 4 sentences of 90 chars fit in 400; each next chunk starts with the previous chunk's last two sentences
    assert [len(t) for t in texts] == [4, 4, 4, 4]
    for prev, nxt in zip(texts, texts[1:]):
        assert nxt[:2] == prev[-2:]
    assert texts[-1][-1].startswith("Sentence 9")


def test_overlap_never_exceeds_half_a_chunk():
    groups = pack_units(_units(6), target=300, overlap_sentences=2)
    # two sentences (181 chars) would be more than half of 300: only one is repeated
    assert [len(g) for g in groups] == [3, 3, 2]
    assert groups[1][0] == groups[0][-1]


def test_new_section_starts_new_chunk_without_overlap():
    units = _units(2, "A") + _units(2, "B")
    groups = pack_units(units, target=1000)
    assert [[u.section for u in g] for g in groups] == [["A", "A"], ["B", "B"]]


def test_code_listing_stays_whole_and_is_never_overlap():
    code = Unit("function BFS(p)\n  q <- queue()\n  return fail", 2, "S", code=True)
    units = [*_units(2), code, *_units(3)]
    groups = pack_units(units, target=250)
    assert any(code in g for g in groups)
    for g in groups[1:]:
        assert g[0] is not code or g == groups[groups.index(g)]
    assert sum(g.count(code) for g in groups) == 1


def test_chunk_pages_provenance_and_stable_ids():
    def pg(n: int, *lines: tuple[str, float, bool]) -> Page:
        return Page(n, tuple(Line(t, s, b, False, y0=15.0 * i) for i, (t, s, b) in enumerate(lines)))

    pages = [
        pg(3, ("1 Uninformed Search", 16.0, True), ("Breadth-first search expands the shallowest node.", 11.0, False)),
        pg(4, ("It uses a FIFO queue. It is complete.", 11.0, False), ("1.2 Depth-first", 14.0, True),
           ("Depth-first search uses a stack.", 11.0, False)),
    ]
    chunks = chunk_pages(pages, course="ai", source="n.pdf", source_kind="official", doc_hash="f" * 64)
    assert [(c.id, c.section, c.page_start, c.page_end) for c in chunks] == [
        ("ffffffffffff-0000", "1 Uninformed Search", 3, 4),
        ("ffffffffffff-0001", "1 Uninformed Search › 1.2 Depth-first", 4, 4),
    ]
    assert chunks[0].text == "Breadth-first search expands the shallowest node. It uses a FIFO queue. It is complete."
    assert pages_to_units(pages)[1].page == 4


def test_a_sentence_across_a_page_break_ends_the_chunk_on_the_later_page():
    def pg(n: int, *texts: str) -> Page:
        return Page(n, tuple(Line(t, 11.0, False, False, y0=15.0 * i) for i, t in enumerate(texts)))

    pages = [
        pg(25, "• Frontier: the set of generated but not yet expanded nodes. The glossary goes on with"),
        pg(26, "the remaining terms of the chapter. • Ply: one move by one player."),
    ]
    units = pages_to_units(pages)
    assert [(u.text, u.page, u.end_page) for u in units] == [
        ("• Frontier: the set of generated but not yet expanded nodes.", 25, 25),
        ("The glossary goes on with the remaining terms of the chapter.", 25, 26),
        ("• Ply: one move by one player.", 26, 26),
    ]
    chunks = chunk_pages(pages, course="ai", source="g.pdf", source_kind="official", doc_hash="e" * 64)
    assert [(c.page_start, c.page_end) for c in chunks] == [(25, 26)]


def test_bullets_start_new_sentences():
    assert split_sentences("Ply: one move. • Quiescent position: a calm one. ▪ Horizon effect: a delay.") == [
        "Ply: one move.",
        "• Quiescent position: a calm one.",
        "▪ Horizon effect: a delay.",
    ]
