from __future__ import annotations

import pytest

from app.errors import UserError
from app.learning.bites import (
    LearningBite,
    bites_from_sections,
    chapter_of,
    clamp_difficulty,
    estimate_difficulty,
    strip_overlap,
    validate_bites,
)
from indexing.chunk import Unit, _join, pack_units
from indexing.models import Chunk

# --- validate_bites --------------------------------------------------------------------------------------------


def test_validate_drops_entries_without_title_or_content():
    raw = [
        {"title": "Sets", "content": "A set is a collection.", "difficulty": 2},
        {"title": "", "content": "orphan text"},
        {"title": "No content", "content": "   "},
        "not an object",
        {"title": "Maps", "content": "A map pairs keys with values.", "difficulty": 3},
    ]
    bites = validate_bites(raw)
    # ids default to the 1-based position in the raw list
    assert [(b.id, b.title) for b in bites] == [(1, "Sets"), (5, "Maps")]


@pytest.mark.parametrize(
    ("given", "clamped"),
    [(0, 1), (-3, 1), (1, 1), (3, 3), (5, 5), (9, 5), (2.5, 3), (4.49, 4), ("4", 4), ("hard", 3), (None, 3), (True, 3)],
)
def test_difficulty_is_clamped(given, clamped):
    assert clamp_difficulty(given) == clamped
    assert validate_bites([{"title": "t", "content": "c", "difficulty": given}])[0].difficulty == clamped


def test_prerequisites_keep_only_earlier_existing_bites():
    raw = [
        {"id": 1, "title": "A", "content": "a", "prerequisites": [2]},  # forward reference: dropped
        {"id": 2, "title": "B", "content": "b", "prerequisites": [1, 1, "1", 2]},  # repeat and self: dropped
        {"id": 3, "title": "", "content": "dropped entry"},
        {"id": 4, "title": "D", "content": "d", "prerequisites": [3, 2, "x", 99, None, 1.0]},  # 3 was dropped
        {"id": 2, "title": "B again", "content": "duplicate id"},  # duplicate id: dropped
        {"id": 6, "title": "F", "content": "f", "prerequisites": "1"},  # not a list
    ]
    bites = validate_bites(raw)
    assert [(b.id, b.prerequisites) for b in bites] == [(1, []), (2, [1]), (4, [2, 1]), (6, [])]


def test_validate_rejects_non_list_and_keeps_pages():
    with pytest.raises(UserError, match="list"):
        validate_bites({"title": "x"})  # type: ignore[arg-type]
    bite = validate_bites([{"title": "t", "content": "c", "source_pages": [3, "2", 0, -1, "x", 3]}])[0]
    assert bite.source_pages == [2, 3]


# --- overlap and chapters --------------------------------------------------------------------------------------


def test_strip_overlap_removes_repeated_sentences_only():
    assert strip_overlap("A b c. D e f. G h i.", "D e f. G h i. J k l.") == "J k l."
    # a repeated last word is not an overlap of whole sentences
    assert strip_overlap("Take the value of x.", "x. Then more.") == "x. Then more."
    assert strip_overlap("One. Two.", "Three. Four.") == "Three. Four."


def test_chapter_of():
    assert [chapter_of(s) for s in ("3.2 Insertion sort", "Chapter 4 Graphs", "2 Basics", "Introduction", "")] == [
        "3", "4", "2", None, None,
    ]


# --- bites_from_sections ---------------------------------------------------------------------------------------


def sentences(tag: str, n: int, words: int = 10) -> list[str]:
    """n distinct sentences of `words` words each, e.g. 'Alpha3 w1 w2 ... w9.'"""
    return [" ".join([f"{tag}{i}"] + [f"w{j}" for j in range(1, words)]) + "." for i in range(n)]


def make_chunks(sections: list[tuple[str, list[str]]], source: str = "book.pdf") -> list[Chunk]:
    """Chunks as indexing.chunk packs them: ~500 characters, two sentences of overlap inside a section."""
    units = [Unit(s, 1 + k // 8, name) for name, sents in sections for k, s in enumerate(sents)]
    groups = pack_units(units, target=500, overlap_sentences=2)
    return [
        Chunk(f"c{i:03d}", "course", source, "official", min(u.page for u in g), max(u.page for u in g), g[0].section, _join(g))
        for i, g in enumerate(groups)
    ]


def test_long_section_is_split_and_overlap_removed():
    sents = sentences("Sort", 90)  # 900 words
    chunks = make_chunks([("2 Sorting", sents)])
    k = chunks[0].text.count(".")  # sentences in the first chunk
    assert len(chunks) == 8 and chunks[1].text.startswith(" ".join(sents[k - 2 : k]))  # two sentences of overlap
    bites = bites_from_sections(chunks)
    assert [b.title for b in bites] == ["2 Sorting (part 1 of 2)", "2 Sorting (part 2 of 2)"]
    assert all(200 <= b.word_count <= 500 for b in bites)
    # joined back, the parts are exactly the original text: no sentence lost, none repeated
    assert " ".join(b.content for b in bites) == " ".join(sents)
    assert [b.prerequisites for b in bites] == [[], [1]]
    assert bites[0].chunk_ids[0] == "c000" and bites[1].chunk_ids[-1] == chunks[-1].id


def test_small_sections_merge_within_a_chapter_only():
    chunks = make_chunks(
        [
            ("1 Introduction", sentences("Intro", 6)),  # 60 words
            ("1.1 Motivation", sentences("Motiv", 8)),  # 80 words
            ("1.2 Scope", sentences("Scope", 10)),  # 100 words
            ("2 Basics", sentences("Basic", 25)),  # 250 words, another chapter
            ("2.1 Terms", sentences("Term", 5)),  # 50 words, small last section: joins 2 Basics
        ]
    )
    bites = bites_from_sections(chunks)
    assert [b.title for b in bites] == ["1 Introduction / 1.1 Motivation / 1.2 Scope", "2 Basics / 2.1 Terms"]
    assert [b.word_count for b in bites] == [60 + 2 + 80 + 2 + 100, 250 + 2 + 50]  # + the merged headings' words
    assert bites[0].content.startswith("Intro0 w1")
    assert "\n\n1.1 Motivation\nMotiv0 w1" in bites[0].content
    assert [b.prerequisites for b in bites] == [[], []]  # chapter 2 does not depend on chapter 1
    assert [b.id for b in bites] == [1, 2]


def test_prerequisite_is_previous_bite_in_same_chapter():
    chunks = make_chunks([("3.1 Lists", sentences("List", 30)), ("3.2 Arrays", sentences("Arr", 30)), ("4 Trees", sentences("Tree", 30))])
    bites = bites_from_sections(chunks)
    assert [(b.id, b.title, b.prerequisites) for b in bites] == [
        (1, "3.1 Lists", []), (2, "3.2 Arrays", [1]), (3, "4 Trees", []),
    ]
    assert bites[0].source_pages == [1, 2, 3, 4]


def test_different_sources_never_merge():
    a = make_chunks([("Intro", sentences("A", 3))], source="a.pdf")
    b = make_chunks([("Intro", sentences("B", 3))], source="b.pdf")
    bites = bites_from_sections(a + b)
    assert [(b.source, b.prerequisites) for b in bites] == [("a.pdf", []), ("b.pdf", [])]


def test_untitled_section_gets_page_title_and_empty_input():
    chunks = make_chunks([("", sentences("X", 3))])
    assert bites_from_sections(chunks)[0].title == "book.pdf p. 1"
    assert bites_from_sections([]) == []
    with pytest.raises(UserError):
        bites_from_sections(chunks, min_words=300, max_words=200)


def test_difficulty_formula_golden():
    # 2 sentences of 10 plain words: avg 10 -> 0.00; no technical tokens -> 0.00; first of 5 -> 0.00 -> 1 + 0 = 1
    plain = "The cat sat on the mat and then it slept. The dog ran in the park and then it slept."
    assert estimate_difficulty(plain, 0, 5)[0] == 1
    # same text, last of 5: 0.4 * 1.0 = 0.4 -> 1 + round(1.6) = 3
    diff, reason = estimate_difficulty(plain, 4, 5)
    assert diff == 3
    assert reason == (
        "position 5/5 -> 1.00; 10.0 words per sentence -> 0.00; technical tokens 0% -> 0.00; "
        "score 0.4*1.00 + 0.3*0.00 + 0.3*0.00 = 0.40 -> difficulty 3"
    )
    # one 20-word sentence, 5 technical tokens of 20 (25 % -> 1.0): 0.3*0.5 + 0.3*1.0 = 0.45 -> 1 + round(1.8) = 3
    tech = "We set x_i = a[i] + 1 for every index i and then the loop computes the sum again quickly"
    assert estimate_difficulty(tech, 0, 1)[0] == 3
    assert "technical tokens 25% -> 1.00" in estimate_difficulty(tech, 0, 1)[1]


def test_bites_carry_their_difficulty_reason():
    bites = bites_from_sections(make_chunks([("1 A", sentences("A", 25)), ("2 B", sentences("B", 25))]))
    assert all(b.difficulty_reason.endswith(f"difficulty {b.difficulty}") for b in bites)
    assert isinstance(bites[0], LearningBite)


def test_unnumbered_heading_belongs_to_the_chapter_before_it():
    chunks = make_chunks(
        [("3 Trees", sentences("Tree", 25)), ("Worked example", sentences("Ex", 25)), ("4 Graphs", sentences("G", 25))]
    )
    bites = bites_from_sections(chunks)
    assert [(b.title, b.prerequisites) for b in bites] == [
        ("3 Trees", []), ("Worked example", [1]), ("4 Graphs", []),
    ]
