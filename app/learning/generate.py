"""Exercises generated from a bite's text without a model: cloze, flashcard, term definition, ordering and
multiple choice. The other six types (open question, summary, teach-back, error finding, analogy, micro-scenario)
need a generative model to be worth asking and raise `ConfigError`.

Everything here is deterministic given the `random.Random` passed in, and every exercise goes through
`validate_exercise`, so the stand-alone rule holds for generated exercises too. When a bite offers no material for a
type (no definition sentence, no enumerated steps) the generator raises `UserError` saying so.

What counts as material:
* a definition sentence: "X is a/an/the ...", "X is defined as ...", "X refers to ...", "X denotes ...",
  "Unter X versteht man ...", "X ist ein/eine ...", "X bezeichnet ..." (X: up to five words, not a pronoun);
* steps: an inline or line-wise enumeration "1. ... 2. ... 3. ..." / "Step 1: ..." numbered from 1, or a code
  listing of at least three distinct lines (the steps of the pseudocode).
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Sequence

from app.errors import ConfigError, UserError
from app.learning.bites import LearningBite
from app.learning.exercises import Exercise, validate_exercise
from indexing.chunk import split_sentences

OFFLINE_TYPES: tuple[str, ...] = ("cloze", "flashcard", "term_definition", "ordering", "multiple_choice")
MODEL_TYPES: tuple[str, ...] = (
    "open_question", "summary", "teach_back", "error_finding", "analogy", "micro_scenario",
)
MAX_ORDER_ITEMS = 8
MC_DISTRACTORS = 3

_PRONOUNS = {
    "it", "this", "that", "there", "these", "those", "they", "he", "she", "which", "what", "here", "each", "one",
    "es", "das", "dies", "er", "sie", "was", "hier", "such", "its", "our", "we", "you", "i",
}
# A term does not start with a preposition, quantifier or question word, and holds no function words
# ("In practice memory is ...", "Every search strategy is ...", "The running example for this chapter is ...").
_NOT_TERM_START = {
    "in", "on", "at", "for", "from", "with", "by", "to", "of", "as", "if", "when", "why", "how", "where", "who",
    "every", "all", "some", "any", "no", "most", "many", "both", "another", "other", "first", "then", "so",
    "im", "in", "für", "mit", "bei", "wenn", "warum", "wie", "jeder", "jede", "alle",
}
_FUNCTION_WORDS = {"in", "of", "for", "the", "this", "that", "on", "at", "to", "with", "by", "and", "or", "a", "an",
                   "der", "die", "das", "und", "oder", "von", "für", "mit"}
_TERM = r"([A-Za-zÄÖÜäöüß][\w\-]*(?:\s+[\w\-]+){0,4}?)"
_DEFINITION_PATTERNS = [
    re.compile(r"^(?:An?|The)\s+" + _TERM + r"\s+(?:is|are)\s+(?:an?|the)\s+\S.*$"),
    re.compile(r"^" + _TERM + r"\s+(?:is|are)\s+(?:an?|the)\s+\S.*$"),
    re.compile(r"^(?:An?|The)?\s*" + _TERM + r"\s+(?:is defined as|refers to|denotes|means)\s+\S.*$"),
    re.compile(r"^Unter\s+(?:einem|einer|dem|der)?\s*" + _TERM + r"\s+versteht man\s+\S.*$"),
    re.compile(r"^(?:Ein|Eine|Der|Die|Das)?\s*" + _TERM + r"\s+(?:ist|sind)\s+(?:ein|eine|der|die|das)\s+\S.*$"),
    re.compile(r"^(?:Der|Die|Das)?\s*" + _TERM + r"\s+bezeichnet\s+\S.*$"),
]
_STEP = re.compile(r"(?:^|\s)(?:Step\s+|Schritt\s+)?(\d{1,2})[.):]\s+")


def prose_sentences(text: str) -> list[str]:
    """Complete sentences of running text: code-listing lines, table rows and lists of numbers left out, and
    sentences that open with a pronoun ("It ...", "This ...") dropped because they cannot stand alone."""
    prose = " ".join(line for line in text.split("\n") if not _looks_like_code(line))
    out = []
    for s in split_sentences(" ".join(prose.split())):
        words = s.split()
        numeric = sum(1 for w in words if re.search(r"\d", w))
        if (
            len(words) >= 4
            and s[-1] in ".!?"
            and s[0].isupper()
            and numeric / len(words) < 0.2
            and words[0].casefold().strip(",") not in _PRONOUNS
        ):
            out.append(s)
    return out


def _looks_like_code(line: str) -> bool:
    s = line.strip()
    return bool(s) and (
        line.startswith((" ", "\t"))
        or bool(re.search(r"[;{}]$|^\s*(?:def|for|while|if|return|else|end|function|class)\b|:=|←|==", s))
    )


def find_definitions(text: str) -> list[tuple[str, str]]:
    """(term, definition sentence) pairs in text order, one per term."""
    found: dict[str, tuple[str, str]] = {}
    for sent in prose_sentences(text):
        for pat in _DEFINITION_PATTERNS:
            m = pat.match(sent)
            if not m:
                continue
            term = m.group(1).strip()
            words = [w.casefold() for w in term.split()]
            if words[0] in _PRONOUNS or words[0] in _NOT_TERM_START or set(words) & _FUNCTION_WORDS or len(term) < 2:
                break
            found.setdefault(term.casefold(), (term, sent))
            break
    return list(found.values())


def find_steps(text: str) -> list[str]:
    """An enumeration numbered 1, 2, 3, ... (inline or one per line), else the distinct lines of a code listing."""
    flat = " ".join(text.split())
    marks = list(_STEP.finditer(flat))
    steps: list[str] = []
    expected = 1
    for i, m in enumerate(marks):
        if int(m.group(1)) != expected:
            if steps:
                break
            continue
        end = marks[i + 1].start() if i + 1 < len(marks) else len(flat)
        item = flat[m.end() : end].strip()
        if int(m.group(1)) == 1 and steps:
            break
        steps.append(item)
        expected += 1
    if len(steps) >= 3:
        steps[-1] = split_sentences(steps[-1])[0]  # the last step ends at its sentence; running text follows
        return steps[:MAX_ORDER_ITEMS]
    code = [" ".join(ln.split()) for ln in text.split("\n") if _looks_like_code(ln)]
    if len(code) >= 3 and len(set(code)) == len(code):
        return code[:MAX_ORDER_ITEMS]
    return []


def _quote(text: str) -> str:
    return f"\u201c{text}\u201d"


def _definition_body(term: str, sentence: str) -> str:
    """The definition sentence with the term blanked, so it can be asked about."""
    return re.sub(re.escape(term), "___", sentence, count=1, flags=re.I)


def _need_definitions(bite: LearningBite, kind: str) -> list[tuple[str, str]]:
    defs = find_definitions(bite.content)
    if not defs:
        raise UserError(f"bite {bite.id} ({bite.title}) has no definition sentence to build a {kind} exercise from")
    return defs


def cloze(bite: LearningBite, rng: random.Random) -> Exercise:
    """Blank the defined term in a definition sentence, else the longest word of a random sentence."""
    defs = find_definitions(bite.content)
    if defs:
        term, sentence = rng.choice(defs)
    else:
        candidates = [s for s in prose_sentences(bite.content) if 6 <= len(s.split()) <= 40]
        if not candidates:
            raise UserError(f"bite {bite.id} ({bite.title}) has no sentence suitable for a cloze")
        sentence = rng.choice(candidates)
        words = [w.strip(".,;:!?()\"'") for w in sentence.split()]
        term = max(words, key=lambda w: (len(w), -words.index(w)))
    text = _definition_body(term, sentence)
    return validate_exercise({
        "type": "cloze",
        "bite_id": bite.id,
        "question": f"Fill in the gap ({bite.title}): {text}",
        "text": text,
        "answers": [term],
    })


def flashcard(bite: LearningBite, rng: random.Random) -> Exercise:
    term, sentence = rng.choice(_need_definitions(bite, "flashcard"))
    return validate_exercise({
        "type": "flashcard",
        "bite_id": bite.id,
        "question": f"What is meant by {_quote(term)} in {bite.title}?",
        "answer": sentence,
    })


def term_definition(bite: LearningBite, rng: random.Random) -> Exercise:
    term, sentence = rng.choice(_need_definitions(bite, "term_definition"))
    return validate_exercise({
        "type": "term_definition",
        "bite_id": bite.id,
        "question": f"Define the term {_quote(term)} as it is used in {bite.title}.",
        "term": term,
        "definition": sentence,
    })


def ordering(bite: LearningBite, rng: random.Random) -> Exercise:
    steps = find_steps(bite.content)
    if not steps:
        raise UserError(f"bite {bite.id} ({bite.title}) has no numbered steps or code listing to order")
    if len({s.casefold() for s in steps}) != len(steps):
        raise UserError(f"bite {bite.id} ({bite.title}) has repeated steps; they cannot be ordered unambiguously")
    shown = steps[:]
    while shown == steps:
        rng.shuffle(shown)
    letters = "ABCDEFGH"
    listing = "\n".join(f"{letters[i]}) {item}" for i, item in enumerate(shown))
    return validate_exercise({
        "type": "ordering",
        "bite_id": bite.id,
        "question": f"Put these steps from {bite.title} in the correct order:\n{listing}",
        "items": shown,
        "correct_order": [shown.index(s) for s in steps],
    })


def multiple_choice(bite: LearningBite, rng: random.Random, others: Sequence[LearningBite] = ()) -> Exercise:
    """Which term a definition describes, with terms defined in other bites as distractors; without a definition
    here, which topic a sentence belongs to, with other bites' titles as distractors."""
    defs = find_definitions(bite.content)
    other_bites = [o for o in others if o.id != bite.id]
    if defs:
        term, sentence = rng.choice(defs)
        pool = sorted({t for o in other_bites for t, _ in find_definitions(o.content) if t.casefold() != term.casefold()})
        stem = f"Which term is described here: {_quote(_definition_body(term, sentence))}?"
        correct = term
    else:
        sentences = [s for s in prose_sentences(bite.content) if 6 <= len(s.split()) <= 40]
        if not sentences:
            raise UserError(f"bite {bite.id} ({bite.title}) has no sentence to ask about")
        pool = sorted({o.title for o in other_bites if o.title.casefold() != bite.title.casefold()})
        stem = f"Which topic does this statement belong to: {_quote(rng.choice(sentences))}?"
        correct = bite.title
    if len(pool) < 2:
        raise UserError(
            f"multiple choice for bite {bite.id} needs at least two distractors from other bites, found {len(pool)}",
            hint="pass the course's other bites as `others`",
        )
    options = rng.sample(pool, min(MC_DISTRACTORS, len(pool)))
    index = rng.randrange(len(options) + 1)
    options.insert(index, correct)
    listing = "; ".join(f"{'ABCD'[i]}) {o}" for i, o in enumerate(options))
    return validate_exercise({
        "type": "multiple_choice",
        "bite_id": bite.id,
        "question": f"{stem} Options: {listing}",
        "options": options,
        "correct_index": index,
    })


_GENERATORS: dict[str, Callable[[LearningBite, random.Random], Exercise]] = {
    "cloze": cloze,
    "flashcard": flashcard,
    "term_definition": term_definition,
    "ordering": ordering,
}


def generate(kind: str, bite: LearningBite, rng: random.Random, *, others: Sequence[LearningBite] = ()) -> Exercise:
    """One exercise of type `kind` for `bite`. ConfigError for the types that need a generative model."""
    if kind in MODEL_TYPES:
        raise ConfigError(
            f"exercise type {kind!r} needs a generative model",
            hint=f"configure TUTOR_LLM_BASE_URL and TUTOR_LLM_MODEL, or use one of: {', '.join(OFFLINE_TYPES)}",
        )
    if kind == "multiple_choice":
        return multiple_choice(bite, rng, others)
    if kind not in _GENERATORS:
        raise UserError(f"unknown exercise type {kind!r}", hint=f"offline types: {', '.join(OFFLINE_TYPES)}")
    return _GENERATORS[kind](bite, rng)


def generate_offline(bite: LearningBite, rng: random.Random, *, others: Sequence[LearningBite] = ()) -> list[Exercise]:
    """Every offline type the bite has material for, in `OFFLINE_TYPES` order (types without material are skipped)."""
    out = []
    for kind in OFFLINE_TYPES:
        try:
            out.append(generate(kind, bite, rng, others=others))
        except UserError:
            continue
    return out
