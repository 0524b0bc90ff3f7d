from indexing.clean import (
    edge_key,
    find_running_lines,
    hyphen_join,
    is_page_number,
    join_lines,
    normalise_text,
    page_label_offset,
    remove_running_lines,
)
from indexing.extract import Line, Page


WORDS = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india", "juliet"]


def page(n: int, *texts: str) -> Page:
    return Page(n, tuple(Line(t, 11.0, False, False, y0=20.0 * i) for i, t in enumerate(texts)))


def test_normalise_text_splits_ligatures_and_folds_space():
    assert normalise_text("e\ufb03cient  \ufb01rst\tsearch\u00ad") == "efficient first search"


def test_edge_key_normalises_arabic_and_roman_numbers():
    assert edge_key("Chapter 2 · Informed Search  13") == "chapter # · informed search #"
    assert edge_key("xiv") == "#"
    assert edge_key("https://ex.edu/ai101 · v1.3") == "https://ex.edu/ai# · v#.#"
    assert edge_key("Civil cdm") == "civil cdm"  # letters that are not a roman numeral stay


def test_is_page_number():
    for t in ["12", "xiv", "- 7 -", "Page 3 of 20", "Seite 4", "iv"]:
        assert is_page_number(t), t
    for t in ["Chapter 2", "BFS", "12 nodes expanded", "vivid"]:
        assert not is_page_number(t), t


def test_hyphen_join_rejoins_broken_words_and_keeps_compounds():
    vocab = {"depth-first", "frontier"}
    assert hyphen_join("uses a fron-", "tier of nodes", vocab) == ""
    assert hyphen_join("a depth-", "first search", vocab) == "-"
    assert hyphen_join("no hyphen here", "next line", vocab) is None
    assert hyphen_join("ends with dash -", "next", vocab) is None
    assert join_lines(["It uses a fron-", "tier. Then depth-", "first search"], vocab) == (
        "It uses a frontier. Then depth-first search"
    )


def test_running_lines_found_by_frequency_with_digits_normalised():
    pages = [
        page(i, "Chapter 1 · Search", f"Body text on {WORDS[i]} search.", f"https://ex.edu · v1.3 · {i}")
        for i in range(1, 6)
    ]
    assert find_running_lines(pages, min_repeats=3) == {"chapter # · search", "https://ex.edu · v#.# · #"}


def test_remove_running_lines_keeps_body_and_counts():
    pages = [
        page(1, "Preface", "A preface line.", "i"),
        page(2),  # blank
        *[
            page(i, "Chapter 1 · Search", f"Heading {WORDS[i]}", f"Body {WORDS[i]}.", f"Other {WORDS[i]}.", str(i - 2))
            for i in range(3, 9)
        ],
    ]
    cleaned, stats = remove_running_lines(pages)
    assert stats.pages == 8 and stats.blank_pages == 1
    # 6 headers + 6 arabic page numbers + 1 roman page number
    assert stats.edge_lines_removed == 13
    assert [ln.text for ln in cleaned[1].lines] == ["Heading delta", "Body delta.", "Other delta."]
    assert [p.number for p in cleaned] == [1, 3, 4, 5, 6, 7, 8]


def test_header_carrying_the_page_number_is_dropped_even_when_rare():
    # section titles in the header change every two pages, too rare for the frequency rule,
    # but each carries the printed page number (physical - 4)
    titles = ["2.1 Greedy", "2.1 Greedy", "2.2 A star", "2.2 A star", "2.3 Heuristics", "2.3 Heuristics"]
    pages = [
        page(i + 5, f"{titles[i]} {i + 1}", f"Body {WORDS[i]}.", "More body.", f"Even {WORDS[i]}.", f"Final {WORDS[i]}.")
        for i in range(6)
    ]
    assert page_label_offset(pages) == 4
    cleaned, stats = remove_running_lines(pages, min_repeats=3)
    assert stats.edge_lines_removed == 6
    assert [ln.text for ln in cleaned[0].lines] == ["Body alpha.", "More body.", "Even alpha.", "Final alpha."]
    assert all(not ln.text.startswith("2.") for p in cleaned for ln in p.lines)
