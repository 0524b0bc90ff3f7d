"""Rule-based classification of a learner's question into one of five pedagogical intents (KITE §3.4.1).

KITE classifies every incoming query with a keyword and pattern matcher before choosing how to answer:

    direct        what is X, a fact, a definition                       "what is A*?", "was ist eine Heuristik"
    conceptual    why / how does it work / compare / when to use         "why does BFS find shortest paths?"
    verification  here is my trace, answer or code: is it right?         "i got A B D C, right?", "stimmt das?"
    debugging     my code or output is wrong, help me find the bug       "RecursionError in my fib", "Fehler"
    tracing       walk me through a run of an algorithm, step by step    "trace merge sort on [5,2,4,1]"

How a question is scored (pure; same input, same result):

1. Normalise: lower-case, German umlauts transliterated (ä→ae, ö→oe, ü→ue, ß→ss) so "prüfen" and "pruefen" are
   one word, and each word of 6+ letters that is one dropped, doubled or swapped letter away from a cue word is
   replaced by it ("corect", "infinte", "funktoniert", "korretk"; rapidfuzz Indel and Damerau-Levenshtein).
   Substitutions are not corrected, because they are mostly other real words ("wichtig"/"richtig",
   "aufgabe"/"ausgabe"); shorter cues list their usual misspellings in the pattern instead ("right" is one letter
   from "might").
2. Detect pasted material on the original text: `code` (≥ 2 code-like lines or tokens: `def f(`, `return`,
   `for x in`, `while ...:`, assignments, fences) and `trace` (a run of ≥ 3 single capital letters such as
   "A B D C" or "S-A-D-G", the visiting order a student reports). The wording rules below read only the prose
   lines (code lines removed), so `return 0` inside a snippet is not "returns 0".
3. Fire rules. Each rule is a named small pattern with one intent and a weight; an intent's score is the sum of the
   weights of its rules that fired. The rules, by intent (EN and DE in the same pattern):

   direct
     what_is            what is / whats / wat is / what are / was ist / was sind / was bedeutet / was heisst
     define             define, definition, meaning of, stands for, was versteht man unter, wofuer steht
     fact_which         which / who / how many / welche(r) / wie viele / wie nennt man: asking for a named fact
     fact_property      is X stable/complete/optimal/..., default, complexity / runtime / Laufzeit / big O
   conceptual
     why                why, how come, warum, wieso, weshalb, wozu
     how_it_works       how does X work / achieve / relate, under the hood, what makes, wie funktioniert
     compare            difference, compare, vs, pros and cons, (dis)advantages, trade-off, rather than, better than,
                        Unterschied, Vergleich, Vorteil
     when_to_use        when should I use, when would, in which situations, wann nimmt/benutzt man
     intuition          intuition, the point of, help me understand, explain why, think recursively, erklaeren
     relation           how two concepts relate: the other way round, implies, is every/all X ..., confused,
                        umgekehrt, folgt daraus, Zusammenhang
     what_if            what happens (to X) if, does it matter, what changes, was passiert wenn
   verification (the learner states a result, claim or trace of their own and asks for confirmation)
     check_request      is this right/correct, can you check/confirm, double check, look ok, is it true that,
                        who is right, is this how you ..., or am I ..., stimmt das, ist das richtig, passt das,
                        pruefen, kontrollier, liege ich richtig, drueber schauen, oder irre ich mich
     tag_question       a confirmation tag at the end: "right?", "correct?", "true or not?", ", yes?", ", is it?",
                        "isn't it?", "richtig?", "oder?", "stimmt's?", ", gell?", "nicht wahr?"
     conclusion_question  a conclusion drawn and then questioned: "..., so its fine?", "so B gets expanded
                        before C?", "dann ist es zulaessig?"
     own_answer         my answer/solution, final answer, claim:, i got, i computed/counted, i think, i believe,
                        pretty sure, ich glaube, ich komme auf, meine Loesung, ... raus, als Ergebnis
     code_for_review    pasted code together with a check request or an own-answer phrase
     trace_pasted       a pasted visiting order (trace, see 2.)
   debugging (the learner's code or algorithm misbehaves, with or without an error word or code)
     error_message      a Python-style `SomethingError`, exception, traceback, segfault, error, Fehler(meldung)
     wrong_output       wrong output/result, instead of <value>, expected ... got, returns None, falsche Ausgabe
     not_working        doesn't work, never terminates/finds, keeps ..., funktioniert nicht, kaputt, findet nie
     hangs_or_crashes   infinite loop, loops forever, hangs, crashes, endlos, stuerzt ab, haengt
     find_bug           bug, what's wrong, where is the mistake, is that the problem, liegt es daran,
                        was mache ich falsch
     code_with_symptom  pasted code together with an error or wrong-behaviour phrase
     behaviour_report   the learner reports what THEIR program does when it runs: "my X <returns|picks|expands|
                        prunes|explores|keeps|...>", "mein X <gibt|findet|besucht|...>", "my X is wrong", "when I run
                        it", "my output"; people and course material ("my professor says", "my notes") are excluded
     bad_behaviour      a run verb followed by a sign the output is bad without an error word (suboptimal, worst,
                        way more, twice, nothing, backwards, every time, much longer, jedes mal, doppelt), or
                        never/barely + run verb ("barely prunes"); not in a why-question with no my/I in it, which
                        asks about an algorithm in general ("why does A* never expand a node twice")
     expected_differs   the learner already knows the right value: but the optimal/correct is, should ... but,
                        than it should, supposed to, even though, sollte aber, richtig waere, muesste, obwohl
     implementation_detail  the learner describes how they coded it: "i use/do/test/mark/push ...", "ich markiere",
                        or an inline `code` span
   tracing
     step_by_step       step by step, any "<unit> by <unit>" (node by node, round by round, level by level),
                        one step at a time, after each, Schritt fuer Schritt, Knoten fuer Knoten, nach jedem
     walk_through       walk me through, go/work/play through, trace X, dry run, simulate, show me how, show the
                        steps, fuehr/geh/spiel ... durch, durchspielen, durchrechnen, rechne ... vor, wie laeuft
                        ... ab, zeig mir den Ablauf
     what_next          what happens next, what's the next step, which node comes next, then what, wie geht es
                        weiter, was passiert als naechstes (a bare "next move" inside a report is not tracing)
     state_each_step    in what order, what does the queue/stack/frontier contain/look like, after the third
                        iteration, wie sieht ... aus, wie veraendert sich, nach dem dritten Schritt

   Precedence follows from the weights: a confirmation request (check_request 2.5, tag 1.5) on a stated claim is
   verification, even when the claim describes what an algorithm returns; a wrong output the learner already
   knows is wrong (expected_differs, bad_behaviour, behaviour_report, 2.0 each, and they add up) is debugging even
   with "is that the problem?" at the end, which is itself a debugging cue (find_bug).

4. Decide: the intent with the highest score wins. Confidence is its softmax probability over the five scores
   at temperature `SOFTMAX_TEMPERATURE` = 0.5, so one 1.0-weight rule against nothing gives 0.65 and one 2.5-weight
   rule 0.97. No rule fired, or a tie at the top, falls back to `direct` with
   `FALLBACK_CONFIDENCE`, because a plain explanation is the least harmful answer to a question we did not
   understand.

`IntentClassifier` is the seam: `RuleIntentClassifier` implements it here; `app.tutor.intents_llm.LLMIntentClassifier`
implements it with a model and falls back to these rules when the model fails.

Measured with `tutor eval intents --data FILE` (rules tuned on the first three files only; the last two were never
read, only their aggregate accuracy was run, before and after this rule set):

    data/intents/questions.jsonl       1.000    (was 1.000)
    data/intents/heldout.jsonl         1.000    (was 0.957)
    data/gold/retrieval_dev.jsonl      1.000    (was 0.831)
    data/intents/heldout_b.jsonl       0.875    (was 0.850)   still below the 0.90 target
    data/gold/retrieval_heldout.jsonl  0.775    (was 0.738)   still below the 0.90 target
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

# Cue words long enough to correct typos safely (see module docstring, step 1).
CUE_WORDS: tuple[str, ...] = (
    "correct", "correctly", "korrekt", "richtig", "stimmt", "pruefen", "ueberpruefen", "kontrollier",
    "confirm", "double", "solution", "loesung", "answer", "ergebnis",
    "infinite", "forever", "output", "ausgabe", "crashes", "crashing", "terminate", "terminates", "endless",
    "endlos", "endlosschleife", "funktioniert", "fehlermeldung", "exception", "traceback", "instead",
    "difference", "unterschied", "compare", "vergleich", "intuition", "intuitively", "definition", "explain",
    "erklaeren", "understand", "verstehe", "situations", "advantage", "vorteil", "through", "schritt",
    "simulate", "simuliere", "iteration", "happens", "complexity", "laufzeit", "because",
)
_CUE_SET = frozenset(CUE_WORDS)
_WORD = re.compile(r"[a-z]+")
_EMPHASIS = re.compile(r"[*_]{1,2}(\w[^*_\n]*?)[*_]{1,2}")  # *think* -> think


def _fix_typo(match: re.Match[str]) -> str:
    word = match.group(0)
    if len(word) < 6 or word in _CUE_SET or any(word.startswith(c) for c in CUE_WORDS):
        return word  # a cue itself or an inflection of one ("simulated"), not a typo
    # One dropped or doubled letter ("corect", "crashs") ...
    best = process.extractOne(word, CUE_WORDS, scorer=Indel.distance, score_cutoff=1)
    if best is not None:
        return best[0]
    # ... or two neighbours swapped ("rigth", "korretk"); substitutions are left alone, since those are mostly
    # other real words ("wichtig"/"richtig", "aufgabe"/"ausgabe").
    best = process.extractOne(word, CUE_WORDS, scorer=DamerauLevenshtein.distance, score_cutoff=1)
    if best is not None and sorted(best[0]) == sorted(word):
        return best[0]
    return word


def normalise(text: str) -> str:
    """Lower-case, transliterate umlauts, collapse whitespace, correct typos of cue words."""
    lowered = " ".join(_EMPHASIS.sub(r"\1", text).lower().translate(_TRANSLIT).split())
    return _WORD.sub(_fix_typo, lowered)


_CODE_MARKERS = re.compile(
    r"```|^\s*def \w+\s*\(|\breturn\b|^\s*(for|while|if|elif)\b.*:\s*$|\bfor \w+(, ?\w+)? in\b.*:|"
    r"^\s*\w+(\[[^\]]*\])?\s*[-+*/]?=\s*\S|\w+\(.*\)\s*:|\bheappush\(|\bappend\(|;\s*\w|^\s{2,}\S|"
    r"\bselect\b.+\bfrom\b",
    re.MULTILINE | re.IGNORECASE,
)
_TRACE = re.compile(r"(?<![\w-])[A-Z](?![\w(])(?:\s*(?:->|-|–|,)?\s*[A-Z](?![\w(])){2,}")


def has_code(raw: str) -> bool:
    """True when at least two code-like markers appear (a pasted snippet, not a formula like f(n)=g(n)+h(n))."""
    return len(_CODE_MARKERS.findall(raw)) >= 2


def has_trace(raw: str) -> bool:
    """True when a run of three or more single capital letters appears, e.g. "A B D C" or "S-A-D-G"."""
    return _TRACE.search(raw) is not None


_CODE_LINE = re.compile(
    r"^\s*(```|def \w+\s*\(|return\b|(for|while|if|elif|else|try|except)\b.*:\s*$|"
    r"\w+(\[[^\]]*\])?(, ?\w+)*\s*[-+*/]?=\s*\S|[\w.]+\(.*\)\s*$)|^\s{2,}\S",
)


def prose(raw: str) -> str:
    """The question without its pasted code lines, so `return 0` in a snippet is not read as "returns 0"."""
    lines, in_fence = [], False
    for line in raw.splitlines():
        if line.strip().startswith("```"):
            in_fence = not in_fence
            continue
        if not in_fence and not _CODE_LINE.match(line):
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


def _rx_unless(name: str, intent: Intent, weight: float, unless: str, pattern: str) -> Rule:
    """A pattern rule that does not fire when `unless` matches too."""
    compiled, blocked = re.compile(pattern), re.compile(unless)
    return Rule(name, intent, weight,
                lambda m: compiled.search(m.text) is not None and blocked.search(m.text) is None)


# A why-question about an algorithm in general ("why does A* never expand a node twice") describes behaviour
# without reporting the learner's own run: no "my"/"mein" anywhere.
_GENERAL_WHY = r"^(?!.*\b(my|mein\w*|i|ich)\b).*\b(why|how come|warum|wieso|weshalb)\b"


_CHECK = (
    r"\b(is|does|was) (this|that|it|my \w+( \w+)?) (\w+ )?(right|correct|ok|okay|valid|admissible|sound)\b|"
    r"\b(am i|did i (get|do) (this|that|it) (right|correctly))\b|\bdid i do it\b|\bam i right\b|"
    r"\b(can|could|would) (you|u|someone|anyone) (please |pls )?(check|confirm|verify|double check|look at)\b|"
    r"\bdouble[- ]?check\b|\bcheck (my|this|if|whether)\b|\bconfirm\b|\blooks? (ok|okay|right|good|correct)\b|"
    r"\bstimmt (das|so|meine?|es)\b|\bist (das|dies|meine?) (\S+ )?(so )?(richtig|korrekt|ok)\b|\bgeht das so\b|\bso ok\b|\brichtig so\b|"
    r"\bso (richtig|korrekt)\b|\bpasst (das|die|der|mein|meine?) ?\w*\b|\b(ueber)?pruefen\b|\bkontrollier|"
    r"\bliege ich\b.*\brichtig\b|\bhab(e)? ich (das|es) richtig\b|\bdrueber (schauen|gucken)\b|\bchecken\b|"
    r"\bis (that|this|it) (so )?correct\b|\bcorrect or not\b|\bis (this|that) (how|the (right|correct|proper) way)\b|"
    r"\bwho is right\b|\bis it true that\b|\bstimmt es,? dass\b|\bist es richtig,? dass\b|\bwer hat recht\b|\b(or|oder) (am i|did i|liege ich|irre ich|hab(e)? ich)\b|"
    r"\b(do|did) i (have|understand|get) (this|that|it) (right|correctly)\b|\bcan (i|we) say\b|"
    r"\bkann (man|ich) (das )?so sagen\b|\b(does|do) (this|that|it) (hold|check out|make sense)\b"
)
_OWN_ANSWER = (
    r"\b(my|final) (answer|solution|result|proof|reasoning|trace)\b|^answer\s*:|\bi (got|get|said|wrote|think|"
    r"believe|guess|put)\b|\bpretty sure\b|\bi (computed|calculated|counted|found|came up with|end(ed)? up with)\b|"
    r"\bich (komme|kam) auf\b|\bbei mir kommt\b|\bich hab(e)? \w+( \w+)? (gezaehlt|berechnet|ausgerechnet|bekommen)\b|\bmy understanding\b|\bich (glaube|denke|hab(e)? \w+ \w+ raus)\b|"
    r"\bmeine? (loesung|antwort|ergebnis|rechnung)\b|^claim\b|\bclaim:|\bbehauptung\b|\braus\b|\bals ergebnis\b|\b(so|also) .*\b(basically|just the same|the same as|dasselbe|im grunde)\b|\bhab(e)? (fuer|bei)\b"
)
_SYMPTOM = (
    r"\b\w*(error|exception)\b|\btraceback\b|\bsegmentation fault\b|\bcore dumped\b|\bfehler(meldung)?\b|"
    r"\bwrong\b|\bfalsch\w*\b|\binstead of\b|\bstatt\b|\bexpected\b.*\bgot\b|\bnever\b|\bnie\b|\bcrash\w*|"
    r"\bhangs?\b|\bforever\b|\binfinite\b|\bendlos\w*|\bdoesn'?t work|\bfunktioniert nicht\b|\bbug\b|\bkaputt\b"
)


# What a program or an algorithm does when it runs (EN 3rd person, DE 3rd person): a learner reports these about
# their own implementation, which they only do when it misbehaves or when they ask for a check.
_RUN_VERB_EN = (
    r"(returns?|gives?|outputs?|prints?|picks?|chooses|makes|expands?|explores?|visits?|prunes?|finds?|reaches|"
    r"generates|produces|shows?|thinks|takes|stops|gives up|keeps?|loses|skips|ignores|says|loops|runs|searches|"
    r"fails|puts|adds|pushes|pops|marks|leaves|swaps|sorts|misses|drops|repeats|revisits|overwrites|causes|"
    r"leads to|results in|reconstructs|computes|calculates|evaluates|ends up|never|always|only|"
    r"barely|hardly|just)"
)
_RUN_VERB_DE = (
    r"(gibt|liefert|findet|waehlt|expandiert|besucht|haengt|laeuft|schneidet|macht|zeigt|erzeugt|bricht|sucht|"
    r"nimmt|markiert|berechnet|bewertet|rechnet|spuckt|landet|bleibt|ignoriert|ueberspringt|verliert|immer|nie|"
    r"sorgt|fuehrt|verursacht|vergisst|wiederholt|"
    r"nur|kaum)"
)
# Things of the learner's that are claims to check, not programs that run.
_OWN_CLAIM_NOUN = (
    r"(answer|solution|result|proof|reasoning|trace|understanding|guess|calculation|notes?|lecture|slides?|book|"
    r"textbook|exercise|homework|assignment|friend|teacher|tutor|professor|prof|lecturer|instructor|ta|classmate)"
)
# Signs that an output is bad even though no error word is used.
_ANOMALY = (
    r"\b(suboptimal|non-?optimal|worst|weird|strange|odd|wrong|garbage|nonsense|random|komisch\w*|seltsam\w*|"
    r"falsch\w*|schlechteste\w*)\b|\b(way|far|much|viel|deutlich) (more|mehr|too|zu)\b|\btoo (many|much|few|"
    r"deep|long|slow|often)\b|\b(twice|doppelt|mehrfach|hundertmal|multiple times|several times|every row|"
    r"more than once)\b|\b(nothing|anything|nichts|niemals)\b|\bthe same (\w+ )?(again|twice|over)\b|"
    r"\bsame (cost|value|result|number|path) as\b|\ba different (\w+ )?(value|result|cost|path|answer) than\b|"
    r"\beinen? anderen?\b|\b(unsorted|unchanged|backwards|reversed|in reverse|empty|missing|duplicated?|unsortiert|"
    r"leer|rueckwaerts|verkehrt)\b|\b(much|way|far|viel|deutlich) (longer|shorter|worse|slower|bigger|larger|deeper|"
    r"laenger|schlechter|langsamer|groesser|tiefer)\b|\b(every|each) time\b|\bjedes mal\b"
)

RULES: tuple[Rule, ...] = (
    # direct
    _rx("what_is", Intent.DIRECT, 1.0,
        r"\b(what|wat|wht|whta)( is|'s|s| are| does \w+( \w+)? (mean|stand for))\b|"
        r"\bwas (ist|sind|bedeutet|heisst|genau ist)\b"),
    _rx("define", Intent.DIRECT, 1.0,
        r"\b(define|definition|defintion|meaning of|stands? for|was versteht man unter|wofuer steht|"
        r"begriff|explain|erklaer\w*|tell me about)\b"),
    _rx("fact_which", Intent.DIRECT, 0.75,
        r"^(\w+[,:]? ){0,3}(which|who|how many|how much|welche[rsnm]?|wie nennt man|wie heisst|wie ?viele?)\b"),
    _rx("fact_property", Intent.DIRECT, 0.5,
        r"^is \w+( \w+)? (stable|complete|optimal|in[- ]place|admissible)\b|\bdefault\b|"
        r"\b(time|space) complexity\b|\bruntime\b|\blaufzeit\b|\bbig o\b|\bworst case\b"),
    # conceptual
    _rx("why", Intent.CONCEPTUAL, 1.5, r"\b(why|y|whyy|how come|warum|wieso|weshalb|weswegen|wozu)\b"),
    _rx("how_it_works", Intent.CONCEPTUAL, 1.5,
        r"\bhow (does|do|is|are|can) .*\b(work|works|achieve|relate|related|guarantee|handle|affect|help)\b|"
        r"\bunder the hood\b|\bwhat makes\b|\bwie (funktioniert|funktionieren|haengen|haengt)\b|\bwie kommt man\b|"
        r"\bhow (do|would|can) (i|you|we|one) (come up|think|choose|decide|know)\b"),
    _rx("compare", Intent.CONCEPTUAL, 2.0,
        r"\bdifference\b|\bhow (is|are|does|do) .*\bdiffer\w*|\bcompare\w*|\bcomparison\b|\bvs\.?\b|\bversus\b|"
        r"\bpros and cons\b|\bbetter (than|for)\b|\bor a \w+ better\b|\bunterschied\w*|\bvergleich\w*|"
        r"\bvorteil\w*|\b(dis)?advantages?\b|\bdrawbacks?\b|\btrade-?offs?\b|\brather than\b|\bas opposed to\b|\bnachteil\w*|\bbesser als\b|\bstatt nur\b|\binstead of just\b"),
    _rx("when_to_use", Intent.CONCEPTUAL, 2.0,
        r"\bwhen (should|would|do|to|can) (i |you |we |one )?use\b|\b(what|which) situations?\b|"
        r"\bwann (nimmt|benutzt|verwendet|sollte|braucht|reicht)\b|\bwhen would\b"),
    _rx("intuition", Intent.CONCEPTUAL, 1.5,
        r"\bintuiti\w*|\bthe point of\b|\bwhats the point\b|\bhelp me understand\b|\bexplain (why|how)\b|"
        r"\b(dont|don't|do not) (get|understand) (why|how|the)\b|\bthink recursively\b|\bbenefit\b|"
        r"\b(versteh|verstehe) (ich )?(nicht|nich)\b|\bwhat'?s the (idea|benefit)\b|"
        r"\bwas bringt\b|\bueberhaupt\b"),
    _rx("relation", Intent.CONCEPTUAL, 1.5,
        r"\bthe other way (a)?round\b|\bumgekehrt\b|\b(does|do|is) .*\bimpl(y|ies)\b|\bfolgt (daraus|aus)\b|"
        r"^(is|are|sind|ist) (every|each|all|any|jede[rs]?|alle)\b|\bconfus\w*|\bverwirr\w*|\bdurcheinander\b|"
        r"\bmix(ing)? up\b|\bwhat'?s the (relation|connection|link)\b|\bzusammenhang\b"),
    _rx("what_if", Intent.CONCEPTUAL, 1.5,
        r"\bwhat happens (to [\w* -]{1,30} )?if\b|\bdoes it matter\b|\bwhat changes\b|\bwas passiert,? wenn\b|"
        r"\bwhat if\b|\bwould be fine\b"),
    # verification
    _rx("check_request", Intent.VERIFICATION, 2.5, _CHECK),
    _rx("tag_question", Intent.VERIFICATION, 1.5,
        r"(\bright|\bcorrect|\brichtig|\bkorrekt|\bor not|\boder|\bor false|\bnicht wahr|\bstimmts?|"
        r"\bisn'?t it|\bdoesn'?t it|\bno|,\s*(is|isn'?t|does|doesn'?t|can|can'?t|are|aren'?t) (it|that|this|they)|"
    r"\boder nicht|\bnicht)\s*\?*\s*$|\b(right|correct|richtig|true|oder)\?|"
        r"[,.;:]\s*(yes|ja|ne|gell|ok|okay|fine|true|wahr)\s*\?+\s*$"),
    _rx("conclusion_question", Intent.VERIFICATION, 1.5,
        r"[,.;:]\s*(so|then|thus|hence|therefore|dann|also|daher)\b[^?]*\?+\s*$|(^|[,.;:)]\s*|\b(so|then|thus|hence|therefore|which means|dann|also|daher|d\.h\.) )"
        r"(so|then|thus|hence|therefore|which means|dann|also|daher|d\.h\.)?\s*(it|its|it'?s|that|thats|that'?s|this|"
        r"the|we|i|my|es|das|ist|sind|we get|i get|the answer)\b[^?]*\b(is|are|'s|ist|sind|fine|ok|okay|valid|"
        r"holds?|gilt|works?)\b[^?]*\?+\s*$|\b(so|then|also|dann) (it'?s|its|it is|that'?s|thats|es ist|das ist|"
        r"ist es|ist das) (fine|ok|okay|valid|correct|right|true|admissible|consistent|optimal|richtig|korrekt|"
        r"zulaessig|konsistent|optimal)\b"),
    _rx("own_answer", Intent.VERIFICATION, 1.0, _OWN_ANSWER),
    Rule("code_for_review", Intent.VERIFICATION, 1.0,
         lambda m: m.has_code and re.search(_CHECK + "|" + _OWN_ANSWER + r"|\bmy solution\b|\bhere'?s my\b|"
                                            r"\bhere is my\b", m.text) is not None
         and re.search(_SYMPTOM, m.text) is None),
    Rule("trace_pasted", Intent.VERIFICATION, 1.0, lambda m: m.has_trace),
    # debugging
    _rx("error_message", Intent.DEBUGGING, 2.5,
        r"\b\w+(error|exception)\b|\berror\b|\btraceback\b|\bsegmentation fault\b|\bcore dumped\b|"
        r"\bfehler(meldung)?\b|\bstack overflow\b"),
    _rx("wrong_output", Intent.DEBUGGING, 2.0,
        r"\bwrong (output|result|answer|path|order|value)s?\b|\bfalsche\w* (ausgabe|ergebnis|wert|pfad)\b|"
        r"\b(instead of|statt) ([\[\d\"'(-]|the (number|result|sum|value))|\bexpected\b.*\bgot\b|\bbut got\b|\boutput\b.*\bexpected\b|"
        r"\bbut the (solution|answer|answer key|book|lecture|musterloesung) (says|is|has|gives)\b|"
        r"\b(returns?|gives?|outputs?|prints?|liefert|gibt)\b.*\b(none|nothing|inf|0|backwards|"
        r"negative|leere?|immer)\b|\bkommt\b.*\braus\b.*\b(obwohl|statt)\b|\bkommt\b.*\b(none|nichts|immer|nie|0)\b.*\b(raus|zurueck)\b|\bobwohl\b|\bis not sorted\b|"
        r"\bnot the (shortest|optimal|right)\b|\bno matter what\b|\b(is|are|comes out) (backwards|empty)\b|"
        r"\bmissing the\b|\balways (picks|returns|gives|outputs|prints|chooses|says)\b|\bnicht den (optimalen|kuerzesten)\b|\bloses?\b|"
        r"\bdiffers? from\b|\bprunes? too much\b"),
    _rx("not_working", Intent.DEBUGGING, 2.0,
        r"\b(doesn'?t|does not|isn'?t|won'?t|dont|don'?t|not) (work|terminate|stop|finish|halt|sort)\w*|"
        r"\bnever (terminates|stops|finishes|finds|ends|returns)\b|\bfunktioniert nicht\b|\bgeht nicht\b|"
        r"\bkaputt\b|\bbroken\b|\bfindet\b.*\bnie\b|\bkeeps? \w+ing\b|\bover and over\b|"
        r"\bsomething is off\b|\bsuper slow\b|\bnever finishes\b|\bnicht richtig\b"),
    _rx("hangs_or_crashes", Intent.DEBUGGING, 2.0,
        r"\binfinite loop\b|\bloops? forever\b|\bruns? forever\b|\bhangs?\b|\bhaengt\b|\bstuck\b|\bcrash\w*|"
        r"\bendless\w*|\bendlos\w*|\bstuerzt\b.*\bab\b|\babstuerz\w*|\bfreez\w*"),
    _rx("find_bug", Intent.DEBUGGING, 2.0,
        r"\bbugs?\b|\bdebug\w*|\bwhat('?s|s| is) wrong( here| with (my|this|it|the code|mine)\b|\s*[?.!]*$)|"
        r"\bwhat am i doing wrong\b|"
        r"\b(was|wo) (mache|mach) ich\b.*\bfalsch\b|\bwas (ist|laeuft)\b.*\b(falsch|schief)\b|"
        r"\bwo ist der (fehler|bug)\b|\bwhere (is|could) the (mistake|bug|error)\b|\bmistake\b|"
        r"\b(is|could) (this|that|it) (be )?the (problem|issue|cause|reason|bug|mistake)\b|\bliegt (es|das) (daran|an)\b|"
        r"\bcant find\b|\bcan'?t find the\b|\bhelp,? my\b|\bhilfe,? (mein|meine|bei meinem)\b|\bwhat'?s going on\b|\bany idea\b"),
    Rule("code_with_symptom", Intent.DEBUGGING, 1.0,
         lambda m: m.has_code and re.search(_SYMPTOM, m.text) is not None),
    _rx("behaviour_report", Intent.DEBUGGING, 2.0,
        rf"\bmy (?!{_OWN_CLAIM_NOUN}\b)([\w*-]+ ){{0,3}}?[\w*-]+ {_RUN_VERB_EN}\b|"
        rf"\bmein\w* (?!(loesung|antwort|ergebnis|rechnung|freund|professor|prof|dozent|tutor|buch|mitschrift|folien|"
        rf"vorlesung|uebung|aufgabe)\b)([\w*-]+ ){{0,4}}?[\w*-]+ {_RUN_VERB_DE}\b|"
        r"\b(bei|in|with|for) (meinem|meiner|my) [\w*-]+( [\w*-]+)?\b.*\b(kommt|gets?|comes? out|ends? up)\b|"
        rf"\bmy (\w+ )?(code|program|programm|implementation|function|script|query|bot|algorithm|solver)\b.*\b{_RUN_VERB_EN}\b|"
        rf"\bmein\w* (\w+ )?(code|programm|implementierung|funktion|skript|abfrage|algorithmus)\b.*\b{_RUN_VERB_DE}\b|"
        rf"\b(in|with) my (code|program|implementation|version)\b.*\b{_RUN_VERB_EN}\b|"
        r"\bmy [\w*-]+( [\w*-]+)? (is|seems|looks) (wrong|broken|buggy|incorrect|off)\b|"
        r"\bmein\w* [\w*-]+( [\w*-]+)? (ist|scheint) (falsch|kaputt|fehlerhaft)\b|"
        r"\bwhen i (run|call|execute|start|test) (it|this|them|the|my)\b|"
        r"\bwenn ich (\w+ ){0,3}(aufrufe|ausfuehre|starte|laufen lasse|teste)\b|"
        r"\bmy output\b|\bmeine ausgabe\b"),
    _rx_unless("bad_behaviour", Intent.DEBUGGING, 2.0, _GENERAL_WHY,
        rf"\b{_RUN_VERB_EN}\b( me)?.{{0,60}}({_ANOMALY})|\b{_RUN_VERB_DE}\b( mir)?.{{0,60}}({_ANOMALY})|"
        r"\b(never|barely|hardly|rarely|nie|kaum) (\w+ )?(prunes?|expands?|finds?|reaches|visits?|returns?|stops?|"
        r"terminates|ends?|schneidet|findet|erreicht|terminiert|haelt)\b"),
    _rx("expected_differs", Intent.DEBUGGING, 2.0,
        r"\bbut (the )?(optimal|correct|right|real|actual|expected|true|shortest|cheapest|best|solution|answer)\b|"
        r"\bbut (it )?(should|is supposed|ought)\b|\bthan (it|they|necessary|needed|expected) ?(should|shud)?\b|"
        r"\b(is|are|was) supposed to\b|\bsollten? aber\b|\baber\b.*\bsollten?\b|\bshould\b.*\bbut\b|\baber (richtig|korrekt|eigentlich|optimal|es sollte)\b|"
        r"\b(richtig|korrekt|optimal) waere\b|\beigentlich (sollte|muesste|waere)\b|\bmuesste\b|"
        r"\beven though (there|it|the|i|a)\b|\bobwohl\b|\bshould (be|give|return|output|print) [^?]*\bbut\b"),
    _rx("implementation_detail", Intent.DEBUGGING, 1.0,
        r"\bi (use|do|test|check|mark|push|pop|generate|break|store|set|call|append|initiali[sz]e|only|never|"
        r"always|compute|update|sort|return|pass|add|remove)\b(?! (i|it) )|"
        r"\bich (markiere|benutze|verwende|teste|pruefe|speichere|setze|rufe|nehme|sortiere|aktualisiere|"
        r"berechne|gebe)\b|`[^`]*[=(.\[][^`]*`"),
    # tracing
    _rx("step_by_step", Intent.TRACING, 2.5,
        r"\bstep[- ]by[- ]step\b|\bone step at a time\b|\b(each|every) (step|iteration|swap|call|line|"
        r"recursive call)\b|\bafter each\b|\bschritt fuer schritt\b|\bnach jedem\b|"
        r"\bin jede[rm] (iteration|schritt|schleifendurchlauf)\b|\bjedem (rekursiven|schleifendurchlauf|schritt)\b|"
        r"\b(cell|line|edge|frame|stage|row|zeile|level) (by|fuer|for) (cell|line|edge|frame|stage|row|zeile|"
        r"level)\b|\bat each\b|\bnacheinander\b|"
        r"\b(?!(side|little|day|year|one)\b)(?P<unit>\w+) (by|for|after|fuer|um|nach) (?P=unit)\b"),
    _rx("walk_through", Intent.TRACING, 2.0,
        r"\bwalk (me )?(through|thru)\b|\bgo(es)? (through|thru)\b|\bstep through\b|\bdry run\b|"
        r"(?<!my )(?<!meinen )\btrace\b(?! (check|pruefen))|\bsimulate\b|\bsimuliere\w*|\brun \w+( \w+)? on\b|"
        r"\bfuehr\w*\b.*\bdurch\b|\bgeh\w*\b.*\bdurch\b|\bablauf\b|\bablaeuft\b|\blaeuft\b.*\bab\b|\bdemonstrate\b|"
        r"\bshow (me )?(how|the steps|each|every|which)\b|\bhow would \w+ process\b|\bshow the\b|"
        r"\bzeig\w*\b.*\b(ablauf|wie|schritte)\b|\baufbauen\b|\bgets filled\b|"
        r"\bdurch(spiel|rechn|lauf|gang|exerzier)\w*|\bvor(rechn|mach|fuehr)\w*|\b(spiel|rechne)\w*\b.*\bdurch\b|"
        r"\b(work|play|run) (me )?(through|thru)\b|\b(rechne|mach|fuehr|spiel|zeichne)\w*\b.*\bvor\s*[?.!]*\s*$|\bshow (me )?the (steps|states|values|queue|stack|frontier)\b"),
    _rx("what_next", Intent.TRACING, 2.5,
        r"\bwhat happens next\b|\bnext step\b|\bwhich \w+ comes next\b|\bcomes next\b|\bthen what\b|"
        r"\bwas passiert (als naechstes|dann|danach)\b|\bwie geht es\b.*\bweiter\b|\bnaechste[rn]? schritt\b|"
        r"\bwhat happens (at|after|when)\b|\bwas passiert (bei|nach)\b|"
        r"\b(what|which|wo|welche\w*)\b.{0,30}\bnext (node|step|state|iteration|call|move)\b|"
        r"\bwhat('?s| is) the output of\b|\bwhat (does|would) (this|the|it) \w* ?print\b"),
    _rx("state_each_step", Intent.TRACING, 2.0,
        r"\bin (what|which) order\b|\bin welcher reihenfolge\b|"
        r"\bwhat does the (frontier|queue|stack|open list|fringe|table|heap)\b.*\blook like\b|"
        r"\bhow does the (call )?(stack|queue|table|heap|tree)\b.*\blook\b|\bwie sieht (der|die|das)\b.*\baus\b|"
        r"\bwie (veraendert|entwickelt) sich\b|\bwhat is in the (queue|stack|priority queue|frontier)\b|"
        r"\blist the expanded\b|\bin the order\b|"
        r"\bwhat (does|do|is|are) (in )?the (\w+ )?(frontier|queue|stack|open list|fringe|table|heap|list|set)\b.*"
        r"\b(contain|hold|look like|after|at|when)\b|"
        r"\bafter (the )?(first|second|third|fourth|fifth|\d+(st|nd|rd|th)?|next|last) (\w+ )?(iteration|step|expansion|"
        r"pop|round|call|move|pass)\b|\bnach (dem|der) (ersten|zweiten|dritten|vierten|\d+\.) (\w+ )?(iteration|"
        r"schritt|expansion|runde|aufruf|durchlauf)\b"),
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
    """The keyword-and-pattern classifier of KITE §3.4.1 behind the `IntentClassifier` protocol."""

    def __init__(self, rules: tuple[Rule, ...] = RULES) -> None:
        self._rules = rules

    def classify(self, question: str) -> IntentResult:
        return classify_intent(question, self._rules)
