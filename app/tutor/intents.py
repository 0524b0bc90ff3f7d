"""Rule-based classification of a learner's question into one of five pedagogical intents (KITE §3.4.1).

KITE classifies every incoming query with a keyword and pattern matcher before choosing how to answer:

    direct        what is X, a fact, a definition                       "what is A*?", "was ist eine Heuristik"
    conceptual    why / how does it work / compare / when to use         "why does BFS find shortest paths?"
    verification  here is my trace, answer or code: is it right?         "i got A B D C, right?", "stimmt das?"
    debugging     my code or output is wrong, help me find the bug       "RecursionError in my fib", "Fehler"
    tracing       walk me through a run of an algorithm, step by step    "trace merge sort on [5,2,4,1]"

How a question is scored (pure; same input, same result):

1. Normalise: lower-case, German umlauts transliterated (ä→ae, ö→oe, ü→ue, ß→ss) so "prüfen" and "pruefen" are
   one word, and each word of 6+ letters that is one dropped, doubled or swapped letter away from a cue word (and
   not its stem, "happen" of "happens") is replaced by it ("corect", "infinte", "funktoniert", "korretk"; rapidfuzz
   Indel and Damerau-Levenshtein). Substitutions are not corrected, because they are mostly other real words
   ("wichtig"/"richtig", "aufgabe"/"ausgabe"); shorter cues are one letter from other words ("right"/"might"), so
   their frequent misspellings are listed instead (`SHORT_TYPOS`: "wat" -> "what", "rite" -> "right").
2. Detect pasted material on the original text: `code` (≥ 2 code-like lines or tokens: `def f(`, `return`,
   `for x in`, `while ...:`, assignments, fences) and `trace` (a run of ≥ 3 single capital letters on one line
   such as "A B D C" or "S-A-D-G", the visiting order a student reports; an adjacency list "A: B, C" is not one).
   The wording rules below read only the prose lines (code lines removed), so `return 0` inside a snippet is not
   "returns 0".
3. Fire rules. Each rule is a named small pattern with one intent and a weight; an intent's score is the sum of the
   weights of its rules that fired. The rules, by intent (EN and DE in the same pattern; the patterns themselves
   live in `app.tutor.intent_patterns`, one constant per rule, named like the rule in upper case):

   direct
     what_is            what is / whats / wat is / what are / was ist / was sind / was bedeutet / was heisst
                        (not "was bedeutet das fuer ...", which asks for a consequence)
     define             define, definition, meaning of, stands for, how is X defined, what's meant by, gemeint, was
                        versteht man unter
     fact_which         which / who / how many / welche(r) / wie viele / wie nennt man: asking for a named fact
     fact_property      is X stable/complete/optimal/..., default, complexity / runtime / Laufzeit / big O
   conceptual
     why                why, how come, how so, warum, wieso, weshalb, wozu; the rhetorical "how is that not ...", "how can
                        that be", "wie kann das sein"
     how_it_works       how does X work / achieve / relate, under the hood, what makes, wie funktioniert; how to go
                        about it: what's the right way to, how should I, wie sollte man
     how_question       any other how-question ("how does alpha-beta know ...", "like how can a function call
                        itself"): weak (0.5), so it decides only when nothing else fired
     compare            difference, compare, vs, pros and cons, (dis)advantages, trade-off, rather than, better than,
                        Unterschied, Vergleich, Vorteil; a trade-off in plain words: what do I gain / pay, downside,
                        worth it, lohnt es sich; which of two is faster / better, "bfs or dfs for a huge maze?",
                        stronger / more general than
     when_to_use        when should I use / pick, which X should I choose if ..., in which situations, wann nimmt man,
                        wann ist X sinnvoll; the conditions of a property or failure ("when does dfs fail to terminate")
     intuition          intuition, the point / use / reason of, the trick behind, what's so special about, help me
                        understand, trying to get why, I don't get X at all, not clear why, how do I spot, explain
                        why, erklaeren wie, der Sinn von, mir ist nicht klar, in what sense, inwiefern
     relation           how two concepts relate: the other way round, implies, is every/all X ..., confused,
                        the link between, umgekehrt, folgt daraus, Zusammenhang; whether a property holds in general
                        ("does a better heuristic always ...?", "are there cases where ...")
     what_if            what happens (to X) if, what would happen / go wrong, does/would X matter, does X affect Y,
                        the effect of, what changes, was passiert wenn, spielt ... eine Rolle, welchen Einfluss,
                        was bedeutet das fuer
   verification (the learner states a result, claim or trace of their own and asks for confirmation)
     check_request      is this right/correct, can you check/confirm, pls check, double check, look ok, is it true
                        that, who's right, is step 4 right, does this satisfy ..., anything wrong?, did I miss ...,
                        or is this fine, does that mean ...?, is that what you get, anything I'm missing, correct me
                        if, sanity check, is it fine to, any issues with this, anything to add, which of us, look
                        over ... and tell me if, give
                        feedback, would X be accepted, stimmt das/die X, ist (meine X) richtig / in Ordnung, passt
                        das, kommt das hin, kann das sein, pruefen, liege ich richtig, drueber schauen, wer von uns,
                        heisst das dann ...?
     tag_question       a confirmation tag at the end: "right?", "correct?", "true or not?", ", yes?", ", is it?",
                        "isn't it?", "richtig?", "oder?", "stimmt's?", ", gell?", "nicht wahr?", "also ja?", ",
                        matches?", ", plausible?", ", good enough?"; not when the
                        last sentence is an open wh-question ("wann ist es sinnvoll und wann nicht?") and not on top
                        of a check_request (same words, counted once)
     conclusion_question  a conclusion drawn and then questioned: "..., so its fine?", "so B gets expanded
                        before C?", "dann ist es zulaessig?", "-> case 3 so O(n log n)?", a message opening
                        "so <claim>?"; a hedge on a result: "not 100% sure about", "nicht ganz sicher"
     own_answer         my (X) answer/solution/trace/passes/steps, final answer, here's my, claim:, i got (not "i get
                        that"), i computed/counted/checked/pruned, i have [..], i think, pretty sure, ich glaube, ich
                        komme auf, bekomme ich, meine Loesung, Ergebnis von mir, hab ... raus, habe ich 12 gezaehlt
     works_claimed      the learner says it works: "this works for me", "runs fine", "tests pass", "tests laufen
                        durch" (not "works on X but on Y ...", which is a bug report)
     code_for_review    pasted code together with a check request or an own-answer phrase
     trace_pasted       a pasted visiting order (trace, see 2.)
   debugging (the learner's code or algorithm misbehaves, with or without an error word or code)
     error_message      a Python-style `SomethingError`, exception, traceback, segfault, error, Fehler(meldung),
                        max recursion depth, Python's messages without the name ("object is not subscriptable",
                        "has no attribute", "out of range")
     wrong_output       wrong output/result, instead of <value>, expected ... got, returns None, falsche Ausgabe,
                        the learner's output set against a reference ("but the answer sheet says 11")
     not_working        doesn't work, never terminates/finds, funktioniert nicht, kaputt, findet nie, something's
                        off, is off, nothing happens, so slow, tests fail, doesn't seem to do anything, still slow,
                        irgendwas stimmt da nicht, terminiert ... nicht, laeuft weiter, passiert nichts, bringt nichts,
                        works on X but (not) on Y
     hangs_or_crashes   infinite loop, loops forever, hangs, crashes, dies with, still running / running for 20
                        minutes, takes forever, out of memory, loops between A and B forever, endlos, stuerzt ab,
                        haengt (not "haengt von ... ab"), dauert ewig
     find_bug           bug, what's wrong, where is the mistake, is that the problem, could that be why, "i think
                        slicing is the problem", liegt es daran, koennte es daran liegen, was mache ich falsch
     code_with_symptom  pasted code together with an error or wrong-behaviour phrase, or a sign of bad output
                        ("the min levels do nothing")
     code_behaviour     pasted code and what "this"/"it" does when run ("this explores deep first not wide, why"),
                        unless the learner says it works or asks for a check
     behaviour_report   the learner reports what THEIR program does when it runs: "my X <returns|picks|expands|
                        prunes|explores|keeps|...>", "mein X <gibt|findet|besucht|...>", "my X is wrong", "when I run
                        it", "my output", "my X is way slower", "my X is printing ..."; a program as subject without
                        "my" ("the mcts bot
                        ignores ..."); people and course material ("my professor says", "my notes") are excluded
     bad_behaviour      a run verb followed by a sign the output is bad without an error word (suboptimal, worst,
                        way more, twice, nothing, backwards, every time, too high, longer than optimal, a different
                        value than, no longer, randomly, half sorted, staendig, keine ... mehr), never/barely + run
                        verb ("barely prunes"), keeps <doing>, over and over; not "says" (people and books say
                        things); see below for general questions
     expected_differs   the learner already knows the right value: but the optimal/correct is, should ... but,
                        than it should, supposed to, even though, sollte aber, richtig waere, muesste, obwohl
     contradiction_report  a statement with no question mark at all in which something of the learner's
                        contradicts expectation: "my table has 5 in the corner but the strings share only 4"
     implementation_detail  the learner describes how they coded it: "i use/do/test/mark/push ...", "ich markiere",
                        or an inline `code` span
   tracing
     step_by_step       step by step, any "<unit> by <unit>" (node by node, round by round, level by level),
                        one <unit> at a time, after/at/for each <unit> (node, step, depth ...), each node you
                        expand, all the steps, Schritt fuer Schritt, Knoten fuer Knoten, an/nach jedem <unit>, der
                        Reihe nach, Zwischenschritte; a bare "every iteration" describes an algorithm
     walk_through       walk me through, go/work/play/talk through, trace X (not "my trace"), dry run, simulate, show me
                        how, show (me one full) iteration, list every, how do I run/apply, fuehr/geh/spiel ... durch,
                        durchgehen, durchrechnen, rechne ... vor, wie laeuft ... ab, zeig mir den Ablauf
     run_on_instance    a how-question about, a request to carry out ("can you do ...", "expand the first three
                        nodes ...", "let's do", "rechne ... aus", "koennen wir ... machen", "wie wuerde X vorgehen"),
                        an embedded "how quicksort partitions", or what a method does / yields, on a concrete instance
                        the learner names: a literal list, number sequence, quoted string or edge list ("S-A 2"),
                        "this/the new tree", a map, "the
                        (romania) example", "the tree from the lecture", figure/slide/Aufgabe/problem N; not with
                        "in general" / "come up with" / "design"
     what_next          what happens next, what's the next step, which node comes next, then what, "A first, then?",
                        what does f(3) print, what's printed first, wie geht es weiter, was passiert als naechstes, und dann? (a bare "next
                        move" inside a report is not tracing)
     state_each_step    in (what) order, what's the order ... visits, which nodes get visited / values get removed,
                        which child does selection pick, how do the values go up / change during, how does the
                        frontier evolve, what values end up at, values at node F / when we reach F, what's on the call
                        stack, what goes into the frontier, after expanding B, after WA=red, what happens in the
                        second iteration, what does the queue/stack/frontier contain/look like, after the third
                        iteration, wie sieht ... aus, wie veraendern sich, welche Knoten expandiert, nach dem
                        dritten Schritt

   The debugging rules not_working, hangs_or_crashes and bad_behaviour do not count in a general why-, which- or
   what-question (no my/I/"bei mir", no program noun such as "implementation", no pasted code): "how come greedy can
   get stuck in loops" asks about an algorithm, and "which SQL keyword removes duplicate rows" for a fact, not
   about a bug.

   Precedence follows from the weights: a confirmation request (check_request 2.5, tag 1.5) on a stated claim is
   verification, even when the claim describes what an algorithm returns; a wrong output the learner already
   knows is wrong (expected_differs, wrong_output, bad_behaviour, behaviour_report, 2.0 each, and they add up) is
   debugging even with "is this right?" or "is that the problem?" around it (the latter is itself a debugging cue,
   find_bug); a learner who says it works (works_claimed) and asks who is right wants a review. Specific cues
   (2.0-2.5) beat generic ones: a how-question on a named instance is tracing (run_on_instance 2.0) over a generic
   how-question (how_question 0.5).

4. Decide: the intent with the highest score wins. Confidence is its softmax probability over the five scores
   at temperature `SOFTMAX_TEMPERATURE` = 0.5, so one 1.0-weight rule against nothing gives 0.65 and one 2.5-weight
   rule 0.97. No rule fired, or a tie at the top, falls back to `direct` with
   `FALLBACK_CONFIDENCE`, because a plain explanation is the least harmful answer to a question we did not
   understand. `RuleIntentClassifier(fallback=...)` hands a question on which no rule fired at all to a fallback
   instead; the service uses the labelled examples under the course embedder (`app.tutor.intent_examples`: a linear
   model by default, the nearest-examples vote as the alternative; issue #4, `python -m eval.intents_fallback`).

`IntentClassifier` is the seam: `RuleIntentClassifier` implements it here; `app.tutor.intents_llm.LLMIntentClassifier`
implements it with a model and falls back to these rules when the model fails.

Measured with `tutor eval intents --data FILE`. Every set below has now been used for development (issue #4 made
heldout_b and the intents of retrieval_heldout development sets, and dev_c was written for it before any rule
changed), so these figures show fit, not generalisation; the blind data/intents/heldout_c.jsonl is measured by the
lead. Before = the rule set of commit 27c5987; the rules were changed by error category, never for one question:

    data/intents/questions.jsonl       1.000  (188)   before 1.000
    data/intents/heldout.jsonl         1.000   (70)   before 1.000
    data/gold/retrieval_dev.jsonl      1.000   (71)   before 1.000
    data/intents/heldout_b.jsonl       1.000  (120)   before 0.875
    data/gold/retrieval_heldout.jsonl  0.988   (80)   before 0.775   "alpha cutoff vs beta cutoff - which one is
                                                                      which??" (direct) is read as a comparison
    data/intents/dev_c.jsonl           1.000   (55)   before 0.855
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Protocol

from rapidfuzz import process
from rapidfuzz.distance import DamerauLevenshtein, Indel

from app.tutor import intent_patterns as P


class Intent(StrEnum):
    """The five pedagogical intents of KITE §3.4.1."""

    DIRECT = "direct"
    CONCEPTUAL = "conceptual"
    VERIFICATION = "verification"
    DEBUGGING = "debugging"
    TRACING = "tracing"


SOFTMAX_TEMPERATURE = 0.5
"""Scores are divided by this before the softmax that turns them into a confidence."""

FALLBACK_CONFIDENCE = 0.2
"""Confidence reported when nothing fired or the top scores tie: no better than a uniform guess over five."""


@dataclass(frozen=True)
class IntentResult:
    """The decision with its evidence: which rules fired and every intent's summed weight."""

    intent: Intent
    confidence: float
    matched: tuple[str, ...]
    scores: dict[Intent, float] = field(default_factory=dict)
    reason: str = ""
    """Why, in words: set by the LLM classifier (the model's reason, or why it fell back to the rules)."""


class IntentClassifier(Protocol):
    """Anything that maps a question to an `IntentResult` (rules here; an LLM classifier later)."""

    def classify(self, question: str) -> IntentResult: ...


@dataclass(frozen=True)
class Message:
    """A question prepared for the rules: normalised text plus what was pasted into it."""

    raw: str
    text: str
    has_code: bool
    has_trace: bool


@dataclass(frozen=True)
class Rule:
    """One named, weighted piece of evidence for one intent."""

    name: str
    intent: Intent
    weight: float
    test: Callable[[Message], bool]


# --- normalisation ---------------------------------------------------------------------------------------------

_TRANSLIT = str.maketrans({"ä": "ae", "ö": "oe", "ü": "ue", "ß": "ss"})

_CUE_SET = frozenset(P.CUE_WORDS)
_WORD = re.compile(r"[a-z]+")
_EMPHASIS = re.compile(r"[*_]{1,2}(\w[^*_\n]*?)[*_]{1,2}")  # *think* -> think


def _fix_typo(match: re.Match[str]) -> str:
    word = match.group(0)
    if word in P.SHORT_TYPOS:
        return P.SHORT_TYPOS[word]
    if len(word) < 6 or word in _CUE_SET or any(word.startswith(c) or c.startswith(word) for c in P.CUE_WORDS):
        return word  # a cue itself, an inflection of one ("simulated") or its stem ("happen"), not a typo
    # One dropped or doubled letter ("corect", "crashs") ...
    best = process.extractOne(word, P.CUE_WORDS, scorer=Indel.distance, score_cutoff=1)
    if best is not None:
        return best[0]
    # ... or two neighbours swapped ("rigth", "korretk"); substitutions are left alone, since those are mostly
    # other real words ("wichtig"/"richtig", "aufgabe"/"ausgabe").
    best = process.extractOne(word, P.CUE_WORDS, scorer=DamerauLevenshtein.distance, score_cutoff=1)
    if best is not None and sorted(best[0]) == sorted(word):
        return best[0]
    return word


def normalise(text: str) -> str:
    """Lower-case, transliterate umlauts, collapse whitespace, correct typos of cue words."""
    lowered = " ".join(_EMPHASIS.sub(r"\1", text).lower().translate(_TRANSLIT).split())
    return _WORD.sub(_fix_typo, lowered)




def has_code(raw: str) -> bool:
    """True when at least two code-like markers appear (a pasted snippet, not a formula like f(n)=g(n)+h(n))."""
    return len(P.CODE_MARKERS.findall(raw)) >= 2


def has_trace(raw: str) -> bool:
    """True when a run of three or more single capital letters appears, e.g. "A B D C" or "S-A-D-G"."""
    return P.TRACE.search(raw) is not None




def prose(raw: str) -> str:
    """The question without its pasted code lines, so `return 0` in a snippet is not read as "returns 0"."""
    lines, in_fence = [], False
    for line in raw.splitlines():
        if line.strip().startswith("```"):
            in_fence = not in_fence
            continue
        if not in_fence and not P.CODE_LINE.match(line):
            lines.append(line)
    return "\n".join(lines)


def prepare(question: str) -> Message:
    """Normalise the prose of a question and detect pasted code and traces."""
    return Message(
        raw=question, text=normalise(prose(question)), has_code=has_code(question), has_trace=has_trace(question)
    )


# --- rules -----------------------------------------------------------------------------------------------------


def _rx(name: str, intent: Intent, weight: float, pattern: str) -> Rule:
    compiled = re.compile(pattern)
    return Rule(name, intent, weight, lambda m: compiled.search(m.text) is not None)


def _symptom(name: str, weight: float, pattern: str) -> Rule:
    """A debugging pattern that does not count in a general why/which/what-question: no my/I and no pasted code, so
    the behaviour described is an algorithm's in general ("how come greedy can get stuck in loops but A* doesn't")."""
    compiled, general = re.compile(pattern), re.compile(P.GENERAL_QUESTION)
    return Rule(name, Intent.DEBUGGING, weight, lambda m: compiled.search(m.text) is not None
                and (m.has_code or general.search(m.text) is None))


def _rx_unless(name: str, intent: Intent, weight: float, unless: str, pattern: str) -> Rule:
    """A pattern rule that does not fire when `unless` matches too."""
    compiled, blocked = re.compile(pattern), re.compile(unless)
    return Rule(name, intent, weight,
                lambda m: compiled.search(m.text) is not None and blocked.search(m.text) is None)


def _search(*patterns: str) -> Callable[[str], bool]:
    """One compiled alternation of several patterns, as a predicate on normalised text."""
    compiled = re.compile("|".join(patterns))
    return lambda text: compiled.search(text) is not None


_reviewable = _search(P.CHECK, P.OWN_ANSWER, r"\bmy solution\b|\bhere'?s my\b|\bhere is my\b")
_symptomatic = _search(P.SYMPTOM)
_symptom_or_anomaly = _search(P.SYMPTOM, P.ANOMALY)
_code_behaviour = _search(P.CODE_BEHAVIOUR)
_works_or_check = _search(P.WORKS_CLAIMED, P.CHECK)
_how_run, _instance, _not_a_run = _search(P.HOW_RUN), _search(P.INSTANCE), _search(P.NOT_A_RUN)


RULES: tuple[Rule, ...] = (
    _rx("what_is", Intent.DIRECT, 1.0, P.WHAT_IS),
    _rx("define", Intent.DIRECT, 1.0, P.DEFINE),
    _rx("fact_which", Intent.DIRECT, 0.75, P.FACT_WHICH),
    _rx("fact_property", Intent.DIRECT, 0.5, P.FACT_PROPERTY),
    _rx("why", Intent.CONCEPTUAL, 1.5, P.WHY),
    _rx("how_it_works", Intent.CONCEPTUAL, 1.5, P.HOW_IT_WORKS),
    _rx_unless("how_question", Intent.CONCEPTUAL, 0.5, P.HOW_IT_WORKS, P.HOW_QUESTION),
    _rx("compare", Intent.CONCEPTUAL, 2.0, P.COMPARE),
    _rx("when_to_use", Intent.CONCEPTUAL, 2.0, P.WHEN_TO_USE),
    _rx("intuition", Intent.CONCEPTUAL, 1.5, P.INTUITION),
    _rx("relation", Intent.CONCEPTUAL, 1.5, P.RELATION),
    _rx("what_if", Intent.CONCEPTUAL, 1.5, P.WHAT_IF),
    _rx("check_request", Intent.VERIFICATION, 2.5, P.CHECK_REQUEST),
    _rx_unless("tag_question", Intent.VERIFICATION, 1.5, P.TAG_NOT_A_CHECK, P.TAG_QUESTION),
    _rx("conclusion_question", Intent.VERIFICATION, 1.5, P.CONCLUSION_QUESTION),
    _rx("own_answer", Intent.VERIFICATION, 1.0, P.OWN_ANSWER),
    _rx("works_claimed", Intent.VERIFICATION, 1.5, P.WORKS_CLAIMED),
    Rule("code_for_review", Intent.VERIFICATION, 1.0,
         lambda m: m.has_code and _reviewable(m.text) and not _symptomatic(m.text)),
    Rule("trace_pasted", Intent.VERIFICATION, 1.0, lambda m: m.has_trace),
    _rx("error_message", Intent.DEBUGGING, 2.5, P.ERROR_MESSAGE),
    _symptom("wrong_output", 2.0, P.WRONG_OUTPUT),
    _symptom("not_working", 2.0, P.NOT_WORKING),
    _symptom("hangs_or_crashes", 2.0, P.HANGS_OR_CRASHES),
    _rx("find_bug", Intent.DEBUGGING, 2.0, P.FIND_BUG),
    Rule("code_with_symptom", Intent.DEBUGGING, 1.0, lambda m: m.has_code and _symptom_or_anomaly(m.text)),
    _rx("behaviour_report", Intent.DEBUGGING, 2.0, P.BEHAVIOUR_REPORT),
    _symptom("bad_behaviour", 2.0, P.BAD_BEHAVIOUR),
    Rule("code_behaviour", Intent.DEBUGGING, 2.0,
         lambda m: m.has_code and _code_behaviour(m.text) and not _works_or_check(m.text)),
    _symptom("expected_differs", 2.0, P.EXPECTED_DIFFERS),
    _rx("contradiction_report", Intent.DEBUGGING, 1.5, P.CONTRADICTION),
    _rx("implementation_detail", Intent.DEBUGGING, 1.0, P.IMPLEMENTATION_DETAIL),
    _rx("step_by_step", Intent.TRACING, 2.5, P.STEP_BY_STEP),
    _rx("walk_through", Intent.TRACING, 2.0, P.WALK_THROUGH),
    Rule("run_on_instance", Intent.TRACING, 2.0,
         lambda m: _how_run(m.text) and _instance(m.text) and not _not_a_run(m.text)),
    _rx("what_next", Intent.TRACING, 2.5, P.WHAT_NEXT),
    _rx("state_each_step", Intent.TRACING, 2.0, P.STATE_EACH_STEP),
)


def score(message: Message, rules: tuple[Rule, ...] = RULES) -> tuple[dict[Intent, float], tuple[str, ...]]:
    """Sum the weights of the rules that fire, per intent; also return the names of those rules in rule order."""
    scores = {intent: 0.0 for intent in Intent}
    matched: list[str] = []
    for rule in rules:
        if rule.test(message):
            scores[rule.intent] += rule.weight
            matched.append(rule.name)
    return scores, tuple(matched)


def _softmax(scores: dict[Intent, float]) -> dict[Intent, float]:
    top = max(scores.values())
    exp = {intent: math.exp((s - top) / SOFTMAX_TEMPERATURE) for intent, s in scores.items()}
    total = sum(exp.values())
    return {intent: e / total for intent, e in exp.items()}


def classify_intent(question: str, rules: tuple[Rule, ...] = RULES) -> IntentResult:
    """Classify one question (KITE §3.4.1); ties and no match fall back to `direct` with low confidence."""
    scores, matched = score(prepare(question), rules)
    best = max(scores.values())
    leaders = [intent for intent, s in scores.items() if s == best]
    if best <= 0.0 or len(leaders) > 1:
        return IntentResult(Intent.DIRECT, FALLBACK_CONFIDENCE, matched, scores)
    winner = leaders[0]
    return IntentResult(winner, round(_softmax(scores)[winner], 4), matched, scores)


class RuleIntentClassifier:
    """The keyword-and-pattern classifier of KITE §3.4.1 behind the `IntentClassifier` protocol.

    `fallback` (e.g. `app.tutor.intent_examples.ExampleIntentClassifier`) decides only when no rule fired at all;
    a tie between rules that did fire still falls back to `direct`. Without a fallback the result is exactly
    `classify_intent`'s."""

    def __init__(self, rules: tuple[Rule, ...] = RULES, fallback: IntentClassifier | None = None) -> None:
        self._rules = rules
        self.fallback = fallback

    def classify(self, question: str) -> IntentResult:
        result = classify_intent(question, self._rules)
        if self.fallback is not None and not result.matched:
            return self.fallback.classify(question)
        return result
