"""Extractive selection: the sentences of the retrieved chunks that best answer a question.

Grounded mode may only say what the material says, so an answer is a selection of verbatim sentences. A sentence's
score mixes three signals (weights in `SentenceWeights`):

    dense      cosine between the question and the sentence embeddings (the course embedder), when one is given
    lexical    BM25 of the question's terms against the candidate sentences (each with its chunk's heading, which
               is context every sentence of the section shares) as the collection
               (Robertson & Zaragoza 2009, "The Probabilistic Relevance Framework: BM25 and Beyond", k1=1.2, b=0.75),
               divided by the best sentence's BM25 so it lies in [0, 1]
    prior      the retriever's judgement of the chunk (1 / rank) plus a small bonus for early sentences in a chunk,
               where definitions and topic sentences usually stand

Redundancy: the same sentence appears in two chunks when chunks overlap; it is kept once (from the better-ranked
chunk). During selection a sentence whose token set overlaps an already chosen one by more than `max_overlap`
(Jaccard) is skipped, in the spirit of MMR (Carbonell & Goldstein 1998).

Only sentences a learner can read in prose are candidates: code lines, ASCII figures and fragments are dropped,
and strategies that must not reveal a worked result (verification, debugging) also drop sentences stating a
visiting order or a path (a run of three or more node letters, see `intents.has_trace`).
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from app.retrieval.types import Hit
from app.tutor.intents import has_trace
from indexing.chunk import split_sentences
from indexing.embedder import Embedder
from indexing.tokenize import tokenize

BM25_K1 = 1.2
BM25_B = 0.75


@dataclass(frozen=True)
class SentenceWeights:
    dense: float = 0.55
    lexical: float = 0.30
    prior: float = 0.15
    position_bonus: float = 0.03  # added for a chunk's first sentence, decaying as 1/(1+position)
    dangling_factor: float = 0.85  # a sentence ending in ':' loses what it introduces


@dataclass(frozen=True)
class Sentence:
    text: str  # verbatim from the chunk (a substring of chunk.text)
    hit_index: int  # index into the hits list
    position: int  # 0-based order of the sentence in its chunk
    score: float = 0.0
    section: str = ""  # the chunk's heading: counts as context for the lexical score


_CODE_START = re.compile(
    r"^\s*(```|def |class |return\b|for |while |if |elif |else\b|function |procedure |loop\b|repeat\b|until\b|"
    r"import |from \w+ import)",  # case-sensitive: prose starts "For b = 10 ...", pseudocode "for depth = 0 ..."
)
_CODE_TOKENS = re.compile(r"←|:=|==|!=|<=|>=|\+=|-=|\w\(\)|\)\s*:$|^\s*#|;\s*$|\[\s*\]|\{|\}")
_LETTER_WORD = re.compile(r"[A-Za-zÄÖÜäöüß]{2,}")


def looks_like_code(line: str) -> bool:
    """A code line or an ASCII-figure line: indented, a code keyword at the start, or code operators."""
    if line.startswith(("  ", "\t")) or _CODE_START.match(line):
        return True
    if _CODE_TOKENS.search(line):
        return True
    symbols = sum(not (ch.isalnum() or ch.isspace() or ch in ".,;:'\"()-?!*") for ch in line)
    return symbols > 0.15 * max(1, len(line))


_EXERCISE = re.compile(
    r"^\s*(\d+[.)]|\(?[a-z]\))\s+(show|give|state|explain|prove|compute|draw|trace|run|add|describe|compare|find|"
    r"write|apply|use|implement|construct|determine|list|name|suppose|consider)\b",
    re.IGNORECASE,
)


# a sentence that opens with one of these words continues one cut off before it: quoted alone it misleads
_CONTINUATION = re.compile(
    r"^(?:which|whose|whereas|where|while|and|or|but|so|because|that|then|thus|hence|"
    r"welche[rsm]?|wobei|und|oder|aber|sondern|weil|dann|also)\b"
)


def is_readable(sentence: str) -> bool:
    """Prose a learner can read: at least four words with letters, not code, not the tail of a cut sentence."""
    words = _LETTER_WORD.findall(sentence)
    return len(words) >= 4 and not looks_like_code(sentence) and not _CONTINUATION.match(sentence.strip())


# "A heuristic is admissible if ...", "Ein Knoten heißt expandiert, wenn ..."
_DEFINES_PROPERTY = re.compile(
    r"\b(?:is|are|is called|are called|heißt|heissen|heißen|ist|sind)\s+(?P<term>[\w-]+),?\s+"
    r"(?:if|iff|when|whenever|wenn|falls|sofern)\b",
    re.IGNORECASE,
)
# "Iterative deepening is a ...", "A frontier is the set of ...", "Ein Heuristik ist eine ..."
_DEFINES_NOUN = re.compile(
    r"^(?:•\s*)?(?:(?:a|an|the|ein|eine|der|die|das)\s+)?(?P<term>[\w*-]+(?:\s+[\w*-]+){0,4}?)\s+"
    r"(?:is|are|is called|is defined as|means|refers to|ist|sind|bezeichnet|nennt man)\s+"
    r"(?:a|an|the|one|ein|eine|einen|der|die|das|defined|called)\b",
    re.IGNORECASE,
)


# the learner asks what a term means, not some other fact ("is there a summary table of ...")
_ASKS_DEFINITION = re.compile(
    r"\b(?:what(?:'s|s|\s+(?:is|are|was|were))\b|what does .{1,60}\bmean|stands? for|meaning of|define|"
    r"definition|was (?:ist|sind|bedeutet|heißt|heisst|war)|was versteht man|bedeutung)",
    re.IGNORECASE,
)


def asks_definition(question: str) -> bool:
    """The question asks what something is or means ("what is X", "what does X mean", "was ist X", "define X")."""
    return bool(_ASKS_DEFINITION.search(question))


def defines(sentence: str, question: str) -> bool:
    """The sentence defines a term the question names (a property "X is P if ...", or a noun "X is a ...")."""
    asked = set(tokenize(question))
    for pattern in (_DEFINES_PROPERTY, _DEFINES_NOUN):
        m = pattern.search(sentence.strip())
        term = set(tokenize(m.group("term"))) if m else set()
        if term and term <= asked:  # every word of the defined term is asked about ("running example" ≠ "example")
            return True
    return False


def is_statement(sentence: str) -> bool:
    """Not a question or a numbered exercise task: those are the notes asking, not the notes explaining."""
    return not sentence.rstrip().endswith("?") and not _EXERCISE.match(sentence)


def chunk_sentences(text: str) -> list[str]:
    """Split a chunk into verbatim sentences: line by line (code and figures keep their own lines), then at
    sentence ends."""
    out: list[str] = []
    for line in text.split("\n"):
        if not line.strip():
            continue
        if looks_like_code(line):
            out.append(line)
            continue
        out += split_sentences(line)
    return out


def candidates(hits: list[Hit], *, allow_code: bool = False, allow_worked_results: bool = True) -> list[Sentence]:
    """The quotable sentences of the hits, each once (from the best-ranked chunk that holds it)."""
    seen: set[str] = set()
    out: list[Sentence] = []
    for i, hit in enumerate(hits):
        for pos, s in enumerate(chunk_sentences(hit.chunk.text)):
            key = " ".join(s.split()).lower()
            if key in seen:
                continue
            if not (is_readable(s) or (allow_code and s.strip())) or not is_statement(s):
                continue
            if not allow_worked_results and has_trace(s):
                continue
            seen.add(key)
            out.append(Sentence(text=s.strip(), hit_index=i, position=pos, section=hit.chunk.section))
    return out


def bm25_scores(query_terms: list[str], docs: list[list[str]]) -> np.ndarray:
    """Okapi BM25 of one query against each doc, with the docs themselves as the collection (IDF with +1 inside
    the log so it stays positive; Robertson & Zaragoza 2009)."""
    n = len(docs)
    if n == 0:
        return np.zeros(0)
    avgdl = sum(len(d) for d in docs) / n or 1.0
    df = Counter(t for d in docs for t in set(d))
    out = np.zeros(n)
    for j, doc in enumerate(docs):
        tf = Counter(doc)
        dl = len(doc)
        for t in set(query_terms):
            if t not in tf:
                continue
            idf = math.log(1 + (n - df[t] + 0.5) / (df[t] + 0.5))
            out[j] += idf * tf[t] * (BM25_K1 + 1) / (tf[t] + BM25_K1 * (1 - BM25_B + BM25_B * dl / avgdl))
    return out


def score_sentences(
    question: str,
    sentences: list[Sentence],
    *,
    embedder: Embedder | None = None,
    weights: SentenceWeights = SentenceWeights(),
) -> list[Sentence]:
    """The sentences with their scores (see the module docstring), in the input order."""
    if not sentences:
        return []
    lexical = bm25_scores(tokenize(question), [tokenize(f"{s.section}\n{s.text}") for s in sentences])
    if lexical.max() > 0:
        lexical = lexical / lexical.max()
    w_dense = weights.dense if embedder is not None else 0.0
    dense = np.zeros(len(sentences))
    if embedder is not None:
        vecs = embedder.embed([question] + [s.text for s in sentences])
        dense = np.clip(vecs[1:] @ vecs[0], 0.0, 1.0)
    total = w_dense + weights.lexical + weights.prior
    out = []
    for j, s in enumerate(sentences):
        prior = 1.0 / (s.hit_index + 1)
        value = (w_dense * dense[j] + weights.lexical * lexical[j] + weights.prior * prior) / total
        value += weights.position_bonus / (1 + s.position)
        if s.text.endswith(":"):  # introduces a list or formula that is not quoted with it
            value *= weights.dangling_factor
        out.append(Sentence(s.text, s.hit_index, s.position, float(value), s.section))
    return out


def _tokens(text: str) -> set[str]:
    return set(tokenize(text))


def select(
    scored: list[Sentence], n: int, *, max_overlap: float = 0.6, avoid: Sequence[Sentence] = ()
) -> list[Sentence]:
    """The `n` best sentences, skipping near-duplicates of ones already chosen (or of `avoid`); best first."""
    chosen: list[Sentence] = []
    chosen_tokens: list[set[str]] = [_tokens(s.text) for s in avoid]
    for s in sorted(scored, key=lambda s: (-s.score, s.hit_index, s.position)):
        if len(chosen) >= n:
            break
        toks = _tokens(s.text)
        if any(len(toks & c) / max(1, len(toks | c)) > max_overlap for c in chosen_tokens):
            continue
        chosen.append(s)
        chosen_tokens.append(toks)
    return chosen


def passage(scored: list[Sentence], hit_index: int) -> list[Sentence]:
    """Every candidate sentence of one chunk, in the order of the notes (level 5: the whole passage)."""
    return sorted((s for s in scored if s.hit_index == hit_index), key=lambda s: s.position)
