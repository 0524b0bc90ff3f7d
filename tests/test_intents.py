"""Intent classification (KITE §3.4.1): golden cases per intent in English and German, general phrasing rules
(issue #4) with their precedence, the fallback, accuracy floors on the six development sets, the LLM classifier
with its rule fallback, the loader's error messages, and `tutor eval intents`."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

import app.tutor.intents as intents_module
from app.cli import intents_cmd
from app.errors import UserError
from app.errors import LLMUnavailableError, ModelRequestsBlocked
from app.llm import FakeLLM, FunctionLLM, Message, Request
from app.tutor.intents_llm import LLM_CONFIDENCE, IntentChoice, LLMIntentClassifier
from app.tutor.intents import (
    FALLBACK_CONFIDENCE,
    RULES,
    Intent,
    IntentClassifier,
    IntentResult,
    Rule,
    RuleIntentClassifier,
    classify_intent,
    has_code,
    has_trace,
    normalise,
    prose,
)
from eval.intents import LabelledQuestion, evaluate_intents, format_report, load_labelled

REPO = Path(__file__).resolve().parents[1]
DEV = REPO / "data" / "intents" / "questions.jsonl"
HELDOUT = REPO / "data" / "intents" / "heldout.jsonl"
RETRIEVAL_DEV = REPO / "data" / "gold" / "retrieval_dev.jsonl"
# Development sets of issue #4 (studied by error category; dev_c written before any rule changed). The blind
# data/intents/heldout_c.jsonl is measured by the lead and deliberately not referenced here.
HELDOUT_B = REPO / "data" / "intents" / "heldout_b.jsonl"
RETRIEVAL_HELDOUT = REPO / "data" / "gold" / "retrieval_heldout.jsonl"
DEV_C = REPO / "data" / "intents" / "dev_c.jsonl"

FIB_CODE = "def f(n):\n    return n * f(n - 1)\n"

# Not taken from either data file: fresh phrasings, lower/upper case, typos, pasted code and traces.
GOLDEN: list[tuple[str, Intent]] = [
    ("whats the definiton of a heuristic function", Intent.DIRECT),
    ("WHAT IS A MINIMAX TREE", Intent.DIRECT),
    ("was ist ein zyklus in einem graphen?", Intent.DIRECT),
    ("Was bedeutet 'vollständig' bei Suchalgorithmen", Intent.DIRECT),
    ("why does dfs not always find the shortest path", Intent.CONCEPTUAL),
    ("how does memoization actually help, whats the intuition", Intent.CONCEPTUAL),
    ("wieso braucht A* eine zulässige heuristik", Intent.CONCEPTUAL),
    ("Was ist der Unterschied zwischen Greedy und A*?", Intent.CONCEPTUAL),
    ("i got S A B G for the ucs order, is that corect", Intent.VERIFICATION),
    ("def f(n):\n    return 1 if n == 0 else n * f(n - 1)\nis this right?", Intent.VERIFICATION),
    ("ich hab bei DFS die Reihenfolge A C F G raus, stimmt das?", Intent.VERIFICATION),
    ("def bfs(g, s):\n    q = [s]\n    seen = set()\nstimmt das so?", Intent.VERIFICATION),
    (FIB_CODE + "this crashes with an error, why", Intent.DEBUGGING),
    ("my sort gives wrong output: [2,1,3]", Intent.DEBUGGING),
    ("my search loops forever on this graph", Intent.DEBUGGING),
    (FIB_CODE + "da kommt ein Fehler", Intent.DEBUGGING),
    ("mein code liefert die falsche ausgabe bei leeren listen", Intent.DEBUGGING),
    ("my programm crashs when i run it", Intent.DEBUGGING),
    ("can you trace dfs on the graph from slide 4 step by step", Intent.TRACING),
    ("walk me through what minimax does on this tree", Intent.TRACING),
    ("zeig mir schritt für schritt wie dijkstra hier läuft", Intent.TRACING),
    ("was passiert als nächstes im A* beispiel", Intent.TRACING),
    # Wrong behaviour described without any error word, with or without "my", EN and DE.
    ("my a* returns a suboptimal path on the grid", Intent.DEBUGGING),
    ("alpha-beta never prunes anything in my implementation", Intent.DEBUGGING),
    ("my minimax picks the worst move", Intent.DEBUGGING),
    ("my ids explores way more nodes than it should", Intent.DEBUGGING),
    ("ucs gibt mir kosten 9 raus aber richtig wäre 6", Intent.DEBUGGING),
    ("bubble sort in my code leaves the last two elements unsorted", Intent.DEBUGGING),
    ("die funktion gibt bei n=5 den wert 24 zurück, es sollten aber 120 sein", Intent.DEBUGGING),
    ("meine tiefensuche findet einen viel längeren weg als nötig", Intent.DEBUGGING),
    ("wenn ich die funktion aufrufe kommt immer None zurück", Intent.DEBUGGING),
    # A claim of one's own plus any form of asking for confirmation, also without code.
    ("bfs is complete but not optimal with varying step costs, yes?", Intent.VERIFICATION),
    ("the heuristic h(n)=0 is admissible, true or not?", Intent.VERIFICATION),
    ("h2 dominiert h1, weil h2 immer größer ist, oder?", Intent.VERIFICATION),
    ("i computed f(B)=g+h=3+4=7, so B gets expanded before C?", Intent.VERIFICATION),
    ("is it true that ucs and dijkstra are the same thing?", Intent.VERIFICATION),
    ("so greedy is not complete on infinite graphs, is it?", Intent.VERIFICATION),
    ("ich komme auf 4 expandierte knoten, passt das?", Intent.VERIFICATION),
    # Conceptual (why / difference / when / relation) against direct (what is / define / how many).
    ("what makes a heuristic consistent rather than just admissible", Intent.CONCEPTUAL),
    ("what are the advantages of graph search over tree search", Intent.CONCEPTUAL),
    ("is every consistent heuristic admissible or the other way round", Intent.CONCEPTUAL),
    ("wann sollte man greedy statt a* nehmen", Intent.CONCEPTUAL),
    ("how many nodes does a binary tree of depth 3 have", Intent.DIRECT),
    ("wie viele knoten hat ein vollständiger binärbaum der tiefe 4", Intent.DIRECT),
    # Tracing: any "<unit> by <unit>", show the steps, durch-/vor- verbs, the state after a given step.
    ("explain minimax on figure 3.1 level by level", Intent.TRACING),
    ("show the steps of alpha-beta on the example tree", Intent.TRACING),
    ("rechne mir bitte A* auf dem beispiel vor", Intent.TRACING),
    ("spiel mal iterative deepening auf dem baum durch", Intent.TRACING),
    ("what does the queue contain after the third iteration of bfs", Intent.TRACING),
]


@pytest.mark.parametrize(("question", "expected"), GOLDEN, ids=[q[:40] for q, _ in GOLDEN])
def test_golden_cases(question: str, expected: Intent) -> None:
    result = classify_intent(question)
    assert result.intent == expected
    assert result.confidence > FALLBACK_CONFIDENCE
    assert result.matched  # explainable: at least one named rule fired


def test_golden_cases_cover_every_intent_in_both_languages() -> None:
    german = re.compile(r"\b(ist|das|mein|der|die|zeig|wieso|was|hab|da)\b", re.IGNORECASE)
    for intent in Intent:
        questions = [q for q, i in GOLDEN if i == intent]
        assert any(german.search(q) for q in questions), intent
        assert any(not german.search(q) for q in questions), intent


def test_result_exposes_rules_scores_and_softmax_confidence() -> None:
    result = classify_intent("what is A*?")
    assert result == IntentResult(
        Intent.DIRECT, 0.6488, ("what_is",), {i: (1.0 if i == Intent.DIRECT else 0.0) for i in Intent}
    )  # e^(1/0.5) / (e^2 + 4) = 0.6488


def test_code_with_check_is_verification_and_code_with_symptom_is_debugging() -> None:
    checked = classify_intent(FIB_CODE + "is this right")
    broken = classify_intent(FIB_CODE + "wrong output for n=3")
    assert (checked.intent, broken.intent) == (Intent.VERIFICATION, Intent.DEBUGGING)
    assert "code_for_review" in checked.matched and "code_with_symptom" in broken.matched


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        # A claim about what an algorithm returns, then "is it right": verification.
        ("a* found S-A-G with cost 5, thats optimal right", Intent.VERIFICATION),
        ("my friend says bfs always finds the cheapest path. true?", Intent.VERIFICATION),
        # A wrong output the learner already knows is wrong, even ending in a question: debugging.
        ("a* returns S-B-G with cost 9 but the optimal is 8. is my heuristic the problem?", Intent.DEBUGGING),
        ("my dijkstra says the distance to E is 7 but by hand I get 5", Intent.DEBUGGING),
        # People and course material are not programs that misbehave.
        ("my professor says A* is optimal with an admissible heuristic, why is that", Intent.CONCEPTUAL),
        ("my textbook says dfs is not complete, what does complete mean", Intent.DIRECT),
        # Behaviour of an algorithm in general, asked with why: conceptual, not a bug report.
        ("why does A* never expand a node twice with a consistent heuristic", Intent.CONCEPTUAL),
    ],
)
def test_precedence_between_claims_reports_and_general_questions(question: str, expected: Intent) -> None:
    assert classify_intent(question).intent == expected


# --- general phrasing rules (issue #4) ----------------------------------------------------------------------------
# Fresh phrasings, none taken from a data file: each names the rule that must fire and the intent that must win.
PHRASINGS: list[tuple[str, str, Intent]] = [
    # conceptual
    ("how does alpha beta know it may skip a subtree", "how_question", Intent.CONCEPTUAL),
    ("how is that not slower than plain bfs", "why", Intent.CONCEPTUAL),
    ("what do we gain and what do we pay with a closed list", "compare", Intent.CONCEPTUAL),
    ("which sorting method should i pick if memory is tight", "when_to_use", Intent.CONCEPTUAL),
    ("when does greedy best first fail to find a solution", "when_to_use", Intent.CONCEPTUAL),
    ("Wann ist eine bidirektionale Suche sinnvoll und wann nicht?", "when_to_use", Intent.CONCEPTUAL),
    ("does the order of the children matter for dfs", "what_if", Intent.CONCEPTUAL),
    ("what would happen to dijkstra with a negative edge", "what_if", Intent.CONCEPTUAL),
    ("in what sense is a relaxed problem easier", "intuition", Intent.CONCEPTUAL),
    ("Was ist eigentlich der Sinn von einer closed list?", "intuition", Intent.CONCEPTUAL),
    ("does a bigger heuristic always mean fewer expansions?", "relation", Intent.CONCEPTUAL),
    ("warum hängt so viel von der Sortierung der Züge ab?", "why", Intent.CONCEPTUAL),
    # direct
    ("how is the branching factor defined", "define", Intent.DIRECT),
    ("welche Datenstruktur nimmt man für UCS", "fact_which", Intent.DIRECT),
    # verification
    ("insertion sort on 3 1 2, my passes: 1 3 2 / 1 2 3. pls check", "check_request", Intent.VERIFICATION),
    ("ist meine Rekursionsgleichung T(n) = 2T(n/2) + 1 richtig?", "check_request", Intent.VERIFICATION),
    ("does this colouring satisfy all the constraints: A=red B=blue", "check_request", Intent.VERIFICATION),
    ("so bubble sort needs exactly n-1 passes?", "conclusion_question", Intent.VERIFICATION),
    ("T(n) = 8T(n/2) + n -> case 1 so O(n^3)? not 100% sure", "conclusion_question", Intent.VERIFICATION),
    ("the heuristic is consistent, I checked every edge", "own_answer", Intent.VERIFICATION),
    ("ich hab die Kosten verglichen, h ist überall kleiner, also ja?", "tag_question", Intent.VERIFICATION),
    ("got 7 expansions for greedy on the sheet, matches?", "tag_question", Intent.VERIFICATION),
    # debugging
    ("my sudoku solver has been running for 30 minutes on the hard puzzle", "hangs_or_crashes", Intent.DEBUGGING),
    ("python says 'int' object is not subscriptable in my expand step", "error_message", Intent.DEBUGGING),
    ("my heapsort works on short lists but on long ones it drops elements", "not_working", Intent.DEBUGGING),
    ("irgendwas stimmt da nicht, mein dfs besucht alles doppelt", "not_working", Intent.DEBUGGING),
    ("the chess bot ignores free captures", "behaviour_report", Intent.DEBUGGING),
    ("my 8 puzzle solver with two heuristics sometimes returns plans longer than optimal", "behaviour_report",
     Intent.DEBUGGING),
    ("my LCS table has 5 in the corner but the strings only share 4 letters", "contradiction_report",
     Intent.DEBUGGING),
    ("def s(a):\n    for i in range(len(a)):\n        a[i] = a[0]\n    return a\nthis returns the same number everywhere",
     "code_behaviour", Intent.DEBUGGING),
    # tracing
    ("how does heapsort build the heap from [3,9,2,7]", "run_on_instance", Intent.TRACING),
    ("Können wir einmal UCS auf der Karte aus der Übung machen?", "run_on_instance", Intent.TRACING),
    ("what is the result of dfs on this graph: S->A, A->G", "run_on_instance", Intent.TRACING),
    ("show me one full iteration of mcts here", "walk_through", Intent.TRACING),
    ("kannst du die werte an jedem knoten durchgehen", "walk_through", Intent.TRACING),
    ("list every move of hanoi(2) in order", "walk_through", Intent.TRACING),
    ("what's on the call stack when fact(2) reaches the base case", "state_each_step", Intent.TRACING),
    ("which child does selection pick with these visit counts", "state_each_step", Intent.TRACING),
    ("what goes into the frontier after expanding S", "state_each_step", Intent.TRACING),
    ("Welche Knoten expandiert BFS der Reihe nach?", "state_each_step", Intent.TRACING),
    ("what do i do with the next leaf when alpha is 3", "what_next", Intent.TRACING),
    # found by later fresh probes
    ("which one is faster on nearly sorted input, insertion sort or heapsort", "compare", Intent.CONCEPTUAL),
    ("ucs or bfs for a road map with distances?", "compare", Intent.CONCEPTUAL),
    ("Mir ist nicht klar, wie Minimax ohne vollständigen Baum auskommt", "intuition", Intent.CONCEPTUAL),
    ("why am i getting 'list index out of range' in my partition", "error_message", Intent.DEBUGGING),
    ("my memo table doesn't seem to do anything, it is just as slow as before", "not_working", Intent.DEBUGGING),
    ("Wenn ich meinen Solver auf das große Rätsel loslasse, passiert einfach nichts", "not_working", Intent.DEBUGGING),
    ("my sort is printing every number twice", "behaviour_report", Intent.DEBUGGING),
    ("Ergebnis von mir: 6 Knoten expandiert. Kommt das hin?", "check_request", Intent.VERIFICATION),
    ("i got root 5 but my partner got 4, which of us made a mistake?", "check_request", Intent.VERIFICATION),
    ("can you describe how quicksort partitions [4,2,7,1] with the last pivot", "run_on_instance", Intent.TRACING),
    ("Rechne mir bitte die Werte für den Baum in Abbildung 3 aus", "run_on_instance", Intent.TRACING),
    ("let's do bfs on the graph from the sheet together: S first, then?", "what_next", Intent.TRACING),
    ("is a consistent heuristic a stronger condition than an admissible one? how so", "why", Intent.CONCEPTUAL),
    ("Welchen Einfluss hat die Zugreihenfolge auf Alpha-Beta?", "what_if", Intent.CONCEPTUAL),
    ("my merge sort is quadratic in practice, i think slicing is the problem", "find_bug", Intent.DEBUGGING),
    ("can u look over my pseudocode and tell me if the goal test is in the right place", "check_request",
     Intent.VERIFICATION),
    ("in the pruning example, which leaves are never looked at?", "state_each_step", Intent.TRACING),
    ("def count(n):\n    if n == 0:\n        return\n    print(n)\n    count(n - 1)\nwhat does count(2) print?",
     "what_next", Intent.TRACING),
]


@pytest.mark.parametrize(("question", "rule", "expected"), PHRASINGS, ids=[q[:40] for q, _, _ in PHRASINGS])
def test_general_phrasing_rules(question: str, rule: str, expected: Intent) -> None:
    result = classify_intent(question)
    assert rule in result.matched
    assert result.intent == expected


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        # A stated mismatch with a reference outweighs "is this right?".
        ("is this right? it prints 12 but the answer key says 10", Intent.DEBUGGING),
        # A learner who says it works and asks who is right wants a review, even with "wrong" in the objection.
        ("this works for me but my tutor says it's wrong to mark nodes on pop. who's right?", Intent.VERIFICATION),
        # Symptoms in a general question are about an algorithm, not a bug ...
        ("how come greedy can get stuck in loops but a* cannot", Intent.CONCEPTUAL),
        ("which python function removes duplicate entries from a list?", Intent.DIRECT),
        # ... but a program noun makes it the learner's own run.
        ("merge sort implementation drops the last element every time, can't see why", Intent.DEBUGGING),
        # A how-question on a named instance is a run; the same in general is conceptual.
        ("how does bfs run on the campus map", Intent.TRACING),
        ("how do you come up with a heuristic for the campus map in general", Intent.CONCEPTUAL),
        # "every iteration" inside a description is not a request for a trace.
        ("whats the point of ids if it redoes the work every iteration", Intent.CONCEPTUAL),
        # Broad cues stay out of plain questions: "the output of" a concept, "when is X a bad idea", "does X change".
        ("what's the output of a heuristic function, a number?", Intent.DIRECT),
        ("when is dfs a bad idea", Intent.CONCEPTUAL),
        ("does memoization change the result of a recursive function or only its speed?", Intent.CONCEPTUAL),
        ("what is the problem formulation for the vacuum world", Intent.DIRECT),
        # "goes through" describes a path; "go through it with me" asks for a trace.
        ("the path my a* returns goes through a wall in the grid", Intent.DEBUGGING),
    ],
)
def test_precedence_of_the_general_rules(question: str, expected: Intent) -> None:
    assert classify_intent(question).intent == expected


def test_tag_counts_once_and_not_in_an_open_question() -> None:
    checked = classify_intent("is this right?")
    assert "check_request" in checked.matched and "tag_question" not in checked.matched
    assert "tag_question" not in classify_intent("wann ist das sinnvoll und wann nicht?").matched
    assert "tag_question" in classify_intent("bfs is complete, right?").matched


def test_own_answer_ignores_i_get_that() -> None:
    assert "own_answer" not in classify_intent("I get that memo stores results, but how is it linear?").matched
    assert "own_answer" in classify_intent("I get 7 for the root").matched


def test_wrong_behaviour_rules_fire_without_error_words() -> None:
    assert {"behaviour_report", "bad_behaviour"} <= set(classify_intent("my minimax picks the worst move").matched)
    assert "expected_differs" in classify_intent("ucs gibt mir kosten 9 raus aber richtig wäre 6").matched
    assert "implementation_detail" in classify_intent("my bfs is slow, i use `q.pop(0)`").matched


def test_words_inside_pasted_code_do_not_count_as_prose() -> None:
    # `return 0` in a snippet is not the complaint "it returns 0".
    assert prose("is this ok?\ndef f(n):\n    return 0\n```\nx = 1\n```") == "is this ok?"
    assert "wrong_output" not in classify_intent("def f(n):\n    return 0\nis this ok?").matched


def test_no_match_falls_back_to_direct_with_low_confidence() -> None:
    for question in ("hello", "", "   ", "A*"):
        result = classify_intent(question)
        assert (result.intent, result.confidence, result.matched) == (Intent.DIRECT, FALLBACK_CONFIDENCE, ())


def test_tie_falls_back_to_direct_with_low_confidence() -> None:
    rules = (
        Rule("always_v", Intent.VERIFICATION, 1.0, lambda m: True),
        Rule("always_b", Intent.DEBUGGING, 1.0, lambda m: True),
    )
    result = classify_intent("anything", rules)
    assert (result.intent, result.confidence, result.matched) == (
        Intent.DIRECT, FALLBACK_CONFIDENCE, ("always_v", "always_b"))
    assert result.scores[Intent.VERIFICATION] == result.scores[Intent.DEBUGGING] == 1.0


def test_normalise_lowercases_transliterates_and_fixes_cue_typos() -> None:
    assert normalise("Stimmt das?  Größe   BITTE") == "stimmt das? groesse bitte"
    assert normalise("is this corect, infinte loop, funktoniert nicht") == (
        "is this correct, infinite loop, funktioniert nicht")
    # Inflections of a cue and short words are left alone ("simulated annealing" is not "simulate").
    assert normalise("simulated annealing, might") == "simulated annealing, might"
    # A stem of a cue is not a typo of it: "happen" stays, so "what would happen" is still read.
    assert normalise("what would happen") == "what would happen"
    # Short cues are one letter from other words, so their frequent misspellings are listed, not guessed.
    assert normalise("wat happens next, rite?") == "what happens next, right?"
    # Swapped and doubled/dropped letters are typos; substitutions are usually other real words and stay.
    assert normalise("korretk, crashs, wichtig, aufgabe") == "korrekt, crashes, wichtig, aufgabe"
    assert classify_intent("warum ist die reihenfolge so wichtig?").intent == Intent.CONCEPTUAL


def test_code_and_trace_detectors() -> None:
    assert has_code(FIB_CODE)
    assert not has_code("in f(n) = g(n) + h(n) what is g")
    assert has_trace("i got A B D C") and has_trace("path S-A-D-G")
    assert not has_trace("WHAT IS A MINIMAX TREE") and not has_trace("A* vs BFS")
    # An adjacency list runs over lines; a visiting order stays on one.
    assert not has_trace("A: B, C\nB: D\nC: D, E")


def test_every_rule_is_named_once_and_documented_in_the_module_docstring() -> None:
    names = [rule.name for rule in RULES]
    assert len(names) == len(set(names))
    doc = intents_module.__doc__ or ""
    missing = [name for name in names if not re.search(rf"\b{name}\b", doc)]
    assert missing == []


def test_rule_classifier_satisfies_the_protocol() -> None:
    classifier: IntentClassifier = RuleIntentClassifier()
    assert classifier.classify("warum ist BFS optimal?") == classify_intent("warum ist BFS optimal?")


# --- accuracy on the data files ---------------------------------------------------------------------------------
# Tuning files (measured with `tutor eval intents --data F`): dev 188/188 = 1.000, held-out 70/70 = 1.000,
# retrieval_dev 71/71 = 1.000; floors leave a margin of about two questions.


def test_dev_set_shape() -> None:
    rows = load_labelled(DEV)
    assert len(rows) >= 180
    counts = {i: sum(r.intent == i for r in rows) for i in Intent}
    assert min(counts.values()) >= 35


def test_accuracy_floor_on_dev_set() -> None:
    report = evaluate_intents(load_labelled(DEV), RuleIntentClassifier())
    assert report.accuracy >= 0.98


def test_accuracy_floor_on_heldout_set() -> None:
    rows = load_labelled(HELDOUT)
    assert len(rows) >= 60
    report = evaluate_intents(rows, RuleIntentClassifier())
    assert report.accuracy >= 0.97


def test_accuracy_floor_on_retrieval_dev_set() -> None:
    report = evaluate_intents(load_labelled(RETRIEVAL_DEV), RuleIntentClassifier())
    assert report.accuracy >= 0.97


# Issue #4 development sets, measured with `tutor eval intents --data F`: heldout_b 120/120 = 1.000 (was 0.875),
# retrieval_heldout 79/80 = 0.988 (was 0.775), dev_c 55/55 = 1.000 (was 0.855). Floors: measured minus ~0.02.
ISSUE_4_FLOORS = {HELDOUT_B: 0.98, RETRIEVAL_HELDOUT: 0.96, DEV_C: 0.98}


@pytest.mark.parametrize("path", list(ISSUE_4_FLOORS), ids=lambda p: p.name)
def test_accuracy_floor_on_issue_4_development_sets(path: Path) -> None:
    report = evaluate_intents(load_labelled(path), RuleIntentClassifier())
    assert report.accuracy >= ISSUE_4_FLOORS[path]


def test_dev_c_shape() -> None:
    rows = load_labelled(DEV_C)
    assert len(rows) >= 40
    assert min(sum(r.intent == i for r in rows) for i in Intent) >= 8
    german = re.compile(r"\b(ist|das|mein\w*|der|die|wie|was|warum|wieso|ich|bei|für)\b", re.IGNORECASE)
    assert sum(bool(german.search(r.question)) for r in rows) >= len(rows) // 5


# --- LLM classifier -------------------------------------------------------------------------------------------------


def test_llm_classifier_returns_the_models_choice_and_sends_the_schema() -> None:
    llm = FakeLLM().enqueue(json={"intent": "debugging", "reason": "their search returns a wrong path"})
    result = LLMIntentClassifier(llm).classify("my bfs returns weird paths")
    assert result == IntentResult(Intent.DEBUGGING, LLM_CONFIDENCE, ("llm",), {},
                                  reason="their search returns a wrong path")
    (request,) = llm.requests
    assert request.kind == "structured" and request.temperature == 0.0
    assert request.schema is not None
    assert request.schema["properties"]["intent"]["enum"] == [i.value for i in Intent]
    assert set(request.schema["required"]) == {"intent", "reason"}
    assert [m.role for m in request.messages] == ["system", "user"]
    assert request.messages[1].content == "my bfs returns weird paths"
    assert llm.pending == 0


def test_llm_classifier_falls_back_to_the_rules_when_the_model_is_unavailable() -> None:
    llm = FakeLLM().enqueue(error=LLMUnavailableError("connection refused"))
    result = LLMIntentClassifier(llm).classify("what is A*?")
    rules = classify_intent("what is A*?")
    assert (result.intent, result.confidence, result.matched, result.scores) == (
        rules.intent, rules.confidence, rules.matched, rules.scores)
    assert result.reason == "rule fallback, the model failed: connection refused"


def test_llm_classifier_falls_back_after_invalid_json_twice() -> None:
    llm = FakeLLM().enqueue("not json").enqueue(json={"intent": "clarify", "reason": "?"})
    result = LLMIntentClassifier(llm).classify("warum ist BFS optimal?")
    assert result.intent == Intent.CONCEPTUAL and result.matched == ("why",)
    assert result.reason.startswith("rule fallback, the model failed: ")
    assert len(llm.requests) == 2  # the one structured-output retry, then the fallback


def test_llm_classifier_does_not_hide_blocked_model_requests() -> None:
    llm = FakeLLM().enqueue(error=ModelRequestsBlocked("blocked"))
    with pytest.raises(ModelRequestsBlocked):
        LLMIntentClassifier(llm).classify("what is A*?")


def _keyword_model(messages: list[Message], request: Request) -> IntentChoice:
    question = (messages[-1].content or "").lower()
    intent = "tracing" if "step" in question else "direct"
    return IntentChoice(intent=intent, reason=f"keyword model on {question[:10]!r}")


def test_llm_classifier_satisfies_the_protocol_and_evaluates_like_the_rules() -> None:
    classifier: IntentClassifier = LLMIntentClassifier(FunctionLLM(_keyword_model))
    rows = [LabelledQuestion("bfs step by step", Intent.TRACING), LabelledQuestion("why bfs", Intent.CONCEPTUAL)]
    report = evaluate_intents(rows, classifier)
    assert report.accuracy == 0.5
    assert [p.predicted for p in report.predictions] == [Intent.TRACING, Intent.DIRECT]


# --- evaluation ---------------------------------------------------------------------------------------------------


class _Scripted:
    """A classifier that answers from a dict, to test the metrics with hand-computed values."""

    def __init__(self, answers: dict[str, Intent]) -> None:
        self.answers = answers

    def classify(self, question: str) -> IntentResult:
        return IntentResult(self.answers[question], 0.5, (), {})


def test_evaluate_intents_metrics_by_hand() -> None:
    rows = [
        LabelledQuestion("q1", Intent.DIRECT),
        LabelledQuestion("q2", Intent.DIRECT),
        LabelledQuestion("q3", Intent.DEBUGGING),
        LabelledQuestion("q4", Intent.TRACING),
    ]
    predicted = {"q1": Intent.DIRECT, "q2": Intent.DEBUGGING, "q3": Intent.DEBUGGING, "q4": Intent.DIRECT}
    report = evaluate_intents(rows, _Scripted(predicted))
    assert report.accuracy == 0.5
    assert report.confusion[Intent.DIRECT][Intent.DEBUGGING] == 1
    assert report.confusion[Intent.TRACING][Intent.DIRECT] == 1
    assert (report.per_intent[Intent.DIRECT].precision, report.per_intent[Intent.DIRECT].recall) == (0.5, 0.5)
    assert (report.per_intent[Intent.DEBUGGING].precision, report.per_intent[Intent.DEBUGGING].recall) == (0.5, 1.0)
    assert (report.per_intent[Intent.TRACING].precision, report.per_intent[Intent.TRACING].recall) == (0.0, 0.0)
    assert report.per_intent[Intent.CONCEPTUAL].support == 0
    assert [p.predicted for p in report.predictions] == [predicted[q] for q in ("q1", "q2", "q3", "q4")]
    text = format_report(report)
    assert "accuracy: 0.500 (2/4)" in text
    assert "direct            0.500   0.500        2" in text


def _write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "qs.jsonl"
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('{"question": "q", "intent": "direct"}\n{"question": "q",\n', r"qs\.jsonl:2: invalid JSON"),
        ('{"question": "q"}\n', r"qs\.jsonl:1: missing field 'intent'"),
        ('\n{"intent": "direct"}\n', r"qs\.jsonl:2: missing field 'question'"),
        ('{"question": "q", "intent": "clarify"}\n', r"qs\.jsonl:1: unknown intent 'clarify' — use one of: direct, "),
        ('["q", "direct"]\n', r"qs\.jsonl:1: expected a JSON object"),
        ('{"question": "", "intent": "direct"}\n', r"qs\.jsonl:1: field 'question' must be a non-empty string"),
        ("\n\n", r"qs\.jsonl: no labelled questions"),
    ],
)
def test_load_labelled_errors_name_file_and_line(tmp_path: Path, text: str, message: str) -> None:
    with pytest.raises(UserError, match=message):
        load_labelled(_write(tmp_path, text))


def test_load_labelled_reads_rows_with_line_numbers(tmp_path: Path) -> None:
    path = _write(tmp_path, '{"question": "was ist BFS", "intent": "direct"}\n\n{"question": "why", "intent": "Conceptual"}\n')
    assert load_labelled(path) == [
        LabelledQuestion("was ist BFS", Intent.DIRECT, 1),
        LabelledQuestion("why", Intent.CONCEPTUAL, 3),
    ]


def test_load_labelled_missing_file(tmp_path: Path) -> None:
    with pytest.raises(UserError, match=r"nope\.jsonl: cannot read labelled questions"):
        load_labelled(tmp_path / "nope.jsonl")


# --- CLI ----------------------------------------------------------------------------------------------------------


def _cli() -> typer.Typer:
    app = typer.Typer()
    eval_app = typer.Typer()
    app.add_typer(eval_app, name="eval")
    intents_cmd.register(app, eval_app)
    return app


def test_cli_json_output(tmp_path: Path) -> None:
    path = _write(tmp_path, '{"question": "what is A*?", "intent": "direct"}\n'
                            '{"question": "i got A B D C, right?", "intent": "tracing"}\n')
    result = CliRunner().invoke(_cli(), ["eval", "intents", "--data", str(path), "--json"])
    assert result.exit_code == 0
    out = json.loads(result.stdout)
    assert out["accuracy"] == 0.5
    assert set(out["per_intent"]) == {i.value for i in Intent}
    assert out["confusion"]["tracing"]["verification"] == 1
    assert out["predictions"] == [
        {"question": "what is A*?", "intent": "direct", "predicted": "direct", "confidence": 0.6488},
        {"question": "i got A B D C, right?", "intent": "tracing", "predicted": "verification",
         "confidence": out["predictions"][1]["confidence"]},
    ]
    assert 0.9 < out["predictions"][1]["confidence"] <= 1.0


def test_cli_table_on_default_dev_set() -> None:
    result = CliRunner().invoke(_cli(), ["eval", "intents"])
    assert result.exit_code == 0
    assert "accuracy: 1.000 (188/188)" in result.stdout
    assert "confusion (rows = gold, columns = predicted):" in result.stdout


def test_cli_llm_without_a_configured_model_is_one_clear_line(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("TUTOR_LLM_BASE_URL", "TUTOR_LLM_MODEL", "TUTOR_LLM_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    result = CliRunner().invoke(_cli(), ["eval", "intents", "--llm"])
    assert result.exit_code == 2
    assert result.stderr.strip().splitlines() == [
        "error: --llm needs a configured model, but none is configured — set TUTOR_LLM_BASE_URL and "
        "TUTOR_LLM_MODEL (and TUTOR_LLM_API_KEY if the server needs one), or try it without a key against "
        "`tutor mock-llm`"]


def test_cli_llm_evaluates_the_configured_model(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(intents_cmd, "configured_llm", lambda: FunctionLLM(_keyword_model))
    path = _write(tmp_path, '{"question": "bfs step by step", "intent": "tracing"}\n'
                            '{"question": "why is bfs optimal", "intent": "conceptual"}\n')
    result = CliRunner().invoke(_cli(), ["eval", "intents", "--data", str(path), "--llm", "--json"])
    assert result.exit_code == 0
    out = json.loads(result.stdout)
    assert (out["classifier"], out["accuracy"]) == ("llm", 0.5)
    assert [p["predicted"] for p in out["predictions"]] == ["tracing", "direct"]
    assert [p["confidence"] for p in out["predictions"]] == [LLM_CONFIDENCE, LLM_CONFIDENCE]


def test_cli_help_names_the_default_data_file() -> None:
    result = CliRunner().invoke(_cli(), ["eval", "intents", "--help"])
    assert result.exit_code == 0
    assert "data/intents/questions.jsonl" in re.sub(r"\s*│\s*", "", result.stdout)


def test_cli_bad_file_is_one_line_on_stderr_and_exit_2(tmp_path: Path) -> None:
    path = _write(tmp_path, '{"question": "q", "intent": "nonsense"}\n')
    result = CliRunner().invoke(_cli(), ["eval", "intents", "--data", str(path)])
    assert result.exit_code == 2
    assert result.stderr.strip().startswith("error: ")
    assert "qs.jsonl:1: unknown intent 'nonsense'" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
