"""Every exercise type: one valid example, known-bad examples each rejected with its reason; offline generation."""

from __future__ import annotations

import random

import pytest

from app.errors import ConfigError, UserError
from app.learning.bites import LearningBite
from app.learning.exercises import EXERCISE_TYPES, validate_exercise
from app.learning.generate import (
    MODEL_TYPES,
    OFFLINE_TYPES,
    find_definitions,
    find_steps,
    generate,
    generate_offline,
)

CLOZE_TEXT = "Insertion sort takes ___ time in the worst case and ___ extra memory."
ERROR_TEXT = "Binary search needs a sorted array and runs in linear time; each step halves the search range."

VALID: dict[str, dict] = {
    "multiple_choice": {
        "question": "What is the worst-case time complexity of binary search on a sorted array of n elements?",
        "options": ["O(1)", "O(log n)", "O(n)", "O(n log n)"],
        "correct_index": 1,
    },
    "cloze": {"question": f"Fill in the gaps about insertion sort: {CLOZE_TEXT}", "text": CLOZE_TEXT,
              "answers": ["quadratic", "constant"]},
    "open_question": {"question": "Why is insertion sort fast on nearly sorted input?",
                      "expected_answer": "Each element moves only a few positions, so the inner loop ends early."},
    "summary": {"question": "Summarise in three sentences how a hash table resolves collisions by chaining.",
                "key_points": ["buckets hold lists", "colliding keys share a bucket list"], "max_words": 80},
    "flashcard": {"question": "What does LIFO stand for in the context of stacks?", "answer": "Last in, first out."},
    "ordering": {
        "question": "Order the phases of a TCP connection: data transfer; three-way handshake; connection teardown.",
        "items": ["data transfer", "three-way handshake", "connection teardown"],
        "correct_order": [1, 0, 2],
    },
    "teach_back": {"question": "Explain recursion to a classmate who has never programmed, using your own words.",
                   "concept": "recursion", "key_points": ["a function calls itself", "a base case stops it"]},
    "error_finding": {
        "question": f"Find the error in this statement about binary search: {ERROR_TEXT}",
        "text": ERROR_TEXT,
        "errors": [{"wrong": "linear time", "correct": "logarithmic time", "explanation": "halving gives log n steps"}],
    },
    "analogy": {"question": "Find an everyday analogy for a queue data structure and explain where it fits.",
                "concept": "queue", "expected_answer": "People waiting in line at a bakery: first come, first served."},
    "micro_scenario": {
        "question": "A web shop's product search takes 4 seconds on 2 million rows and filters by category. "
                    "What would you change first, and why?",
        "scenario": "A web shop's product search takes 4 seconds on 2 million rows and filters by category.",
        "expected_answer": "Add an index on the category column so the filter does not scan the whole table.",
    },
    "term_definition": {"question": "Define the term “deadlock” in operating systems.", "term": "deadlock",
                        "definition": "A state in which each process waits for a resource held by another."},
}

# (type, fields overriding the valid example, expected fragment of the reason)
INVALID: list[tuple[str, dict, str]] = [
    ("multiple_choice", {"question": "Which of the following is the complexity of binary search?"},
     "question points at options it does not contain"),
    ("multiple_choice", {"correct_index": 4}, "correct_index 4 is not an index into 4 options"),
    ("multiple_choice", {"options": ["O(n)", "O(n)"], "correct_index": 0}, "options must be distinct"),
    ("multiple_choice", {"question": "What does the text above say about complexity?"}, "the learner cannot see"),
    ("cloze", {"question": "Fill in the gaps in the text below, please."}, "must contain the gapped text"),
    ("cloze", {"answers": ["quadratic"]}, "text has 2 gaps but 1 answers"),
    ("cloze", {"text": "No gaps here at all.", "question": "Complete this: No gaps here at all."}, "text has no gaps"),
    ("open_question", {"question": "What does the author say in this section?"}, "'this section'"),
    ("open_question", {"question": "Why?"}, "at least 4 words"),
    ("summary", {"question": "Summarise the passage in three sentences."}, "'the passage'"),
    ("summary", {"key_points": []}, "key_points"),
    ("flashcard", {"question": "Last in, first out. What does LIFO stand for?"}, "gives the answer away"),
    ("ordering", {"question": "Put the phases in the correct order."}, "question must list every item"),
    ("ordering", {"correct_order": [0, 0, 2]}, "permutation of 0..2"),
    ("teach_back", {"question": "Explain this concept to a classmate in your own words."}, "must name the concept"),
    ("error_finding", {"question": "Find the error in the text about binary search."},
     "question must contain the text with the errors"),
    ("error_finding", {"errors": [{"wrong": "constant time", "correct": "logarithmic time"}]},
     "'constant time' does not occur in the text"),
    ("analogy", {"question": "Find an everyday analogy for this idea and explain it."}, "must name the concept"),
    ("micro_scenario", {"question": "What would you change first in the scenario?"}, "must contain the scenario"),
    ("term_definition", {"question": "Define the following term in your own words."}, "must contain the term"),
    ("term_definition",
     {"question": "Define deadlock: A state in which each process waits for a resource held by another."},
     "gives the definition away"),
]


def test_the_eleven_types_are_covered():
    assert set(VALID) == set(EXERCISE_TYPES) and len(EXERCISE_TYPES) == 11
    assert set(OFFLINE_TYPES) | set(MODEL_TYPES) == set(EXERCISE_TYPES)
    assert {t for t, _, _ in INVALID} == set(EXERCISE_TYPES)


@pytest.mark.parametrize("kind", EXERCISE_TYPES)
def test_valid_example(kind):
    ex = validate_exercise({"type": kind, **VALID[kind]})
    assert ex.type == kind
    assert type(ex).__name__ != "_Exercise"


@pytest.mark.parametrize(("kind", "override", "reason"), INVALID, ids=[f"{t}-{i}" for i, (t, _, _) in enumerate(INVALID)])
def test_bad_example_is_rejected_with_reason(kind, override, reason):
    with pytest.raises(UserError) as info:
        validate_exercise({"type": kind, **VALID[kind], **override})
    assert str(info.value).startswith(f"{kind} exercise rejected: ")
    assert reason in str(info.value)


def test_mc_pointing_at_options_is_fine_when_it_lists_them():
    ex = validate_exercise({
        "type": "multiple_choice",
        "question": "Which of the following is a stable sort: quicksort, heapsort or merge sort?",
        "options": ["quicksort", "heapsort", "merge sort"],
        "correct_index": 2,
    })
    assert ex.options[ex.correct_index] == "merge sort"


def test_unknown_or_missing_type_and_non_object():
    with pytest.raises(UserError, match="unknown exercise type 'quiz'"):
        validate_exercise({"type": "quiz", "question": "What is a quiz about here?"})
    with pytest.raises(UserError, match="unknown exercise type None"):
        validate_exercise({"question": "What is a quiz about here?"})
    with pytest.raises(UserError, match="JSON object"):
        validate_exercise(["cloze"])  # type: ignore[arg-type]


def test_missing_type_specific_field_is_named():
    with pytest.raises(UserError, match="cloze exercise rejected: answers: Field required"):
        validate_exercise({"type": "cloze", "question": f"Fill in: {CLOZE_TEXT}", "text": CLOZE_TEXT})


# --- offline generation ----------------------------------------------------------------------------------------

SORT = LearningBite(
    id=1, title="Insertion sort", difficulty=2,
    content=(
        "Insertion sort is a sorting algorithm that builds the sorted array one element at a time. "
        "It works as follows: 1. Take the next element from the unsorted part. 2. Compare it with the sorted "
        "elements from right to left. 3. Shift every larger element one position to the right. 4. Insert the "
        "element into the gap. The algorithm is stable and needs quadratic time in the worst case."
    ),
)
STACK = LearningBite(id=2, title="Stacks", difficulty=2,
                     content="A stack is a collection that follows the last-in first-out principle. Push adds on top.")
QUEUE = LearningBite(id=3, title="Queues", difficulty=2,
                     content="A queue is a collection that serves elements in first-in first-out order.")
HEAP = LearningBite(id=4, title="Heaps", difficulty=3,
                    content="A heap is a tree in which every parent is at most as large as its children.")
CODE = LearningBite(id=5, title="Linear search in pseudocode", difficulty=2, content=(
    "Linear search checks every element in turn until it finds the key.\n"
    "    for i from 0 to n - 1:\n        if a[i] == key: return i\n    return -1"
))
NOTHING = LearningBite(id=6, title="Motivation", difficulty=1,
                       content="Why should we care about any of it today? Because it matters a lot for everyone.")


def test_find_definitions_and_steps():
    assert find_definitions(SORT.content) == [
        ("Insertion sort", "Insertion sort is a sorting algorithm that builds the sorted array one element at a time.")
    ]
    assert find_steps(SORT.content) == [
        "Take the next element from the unsorted part.",
        "Compare it with the sorted elements from right to left.",
        "Shift every larger element one position to the right.",
        "Insert the element into the gap.",
    ]
    assert find_steps(CODE.content) == ["for i from 0 to n - 1:", "if a[i] == key: return i", "return -1"]
    assert find_definitions("Unter einem Deadlock versteht man eine zyklische Wartesituation.") == [
        ("Deadlock", "Unter einem Deadlock versteht man eine zyklische Wartesituation.")
    ]
    assert find_definitions("It is a common mistake to forget the base case.") == []


def test_every_offline_exercise_validates_and_is_deterministic():
    others = [SORT, STACK, QUEUE, HEAP, CODE, NOTHING]
    for bite in others:
        first = generate_offline(bite, random.Random(7), others=others)
        again = generate_offline(bite, random.Random(7), others=others)
        assert first == again
        for ex in first:
            assert validate_exercise(ex.model_dump()) == ex  # round trip through the validator
            assert ex.bite_id == bite.id
    kinds = [ex.type for ex in generate_offline(SORT, random.Random(7), others=others)]
    assert kinds == ["cloze", "flashcard", "term_definition", "ordering", "multiple_choice"]


def test_generated_ordering_and_mc_are_answerable():
    order = generate("ordering", SORT, random.Random(3))
    assert [order.items[i] for i in order.correct_order] == find_steps(SORT.content)
    assert order.items != find_steps(SORT.content)  # shown shuffled
    mc = generate("multiple_choice", SORT, random.Random(3), others=[STACK, QUEUE, HEAP])
    assert mc.options[mc.correct_index] == "Insertion sort"
    assert sorted(mc.options) == ["Insertion sort", "heap", "queue", "stack"]
    assert "Insertion sort" not in mc.question.split("Options:")[0]  # the term is blanked in the stem
    cloze = generate("cloze", STACK, random.Random(3))
    assert cloze.answers == ["stack"] and cloze.text.startswith("A ___ is a collection")


def test_mc_without_definition_asks_for_the_topic():
    mc = generate("multiple_choice", NOTHING, random.Random(1), others=[SORT, STACK, QUEUE])
    assert mc.options[mc.correct_index] == "Motivation"
    assert mc.question.startswith("Which topic does this statement belong to:")


def test_missing_material_and_model_only_types():
    with pytest.raises(UserError, match="no definition sentence"):
        generate("flashcard", NOTHING, random.Random(0))
    with pytest.raises(UserError, match="no numbered steps"):
        generate("ordering", STACK, random.Random(0))
    with pytest.raises(UserError, match="at least two distractors"):
        generate("multiple_choice", STACK, random.Random(0), others=[QUEUE])
    for kind in MODEL_TYPES:
        with pytest.raises(ConfigError, match=f"exercise type '{kind}' needs a generative model"):
            generate(kind, SORT, random.Random(0))
    with pytest.raises(UserError, match="unknown exercise type"):
        generate("crossword", SORT, random.Random(0))


def test_definition_terms_are_noun_phrases_not_sentence_openers():
    text = ("In practice memory is the bigger problem. Every search strategy is a way to pick the next node. "
            "A heuristic is a function that estimates the remaining cost.")
    assert [t for t, _ in find_definitions(text)] == ["heuristic"]
