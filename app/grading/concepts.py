"""Lexical side of short-answer grading: tokens, stems, key concepts, question demoting, non-answers.

Everything here is pure (no model). `analyse(question, reference, answer)` returns an `Analysis` holding what the
grader needs: the reference's key concepts with the question's own words removed ("question demoting", Mohler,
Bunescu & Mihalcea 2011, §4.3; Sultan, Salazar & Sumner 2016, §3.1: repeating the question earns nothing), the
answer's words, the demoted texts to embed, and flags for empty / "I don't know" answers and answers that merely
restate the question.

English first. German text does not crash: German stopwords are removed as well, and when a text has more German
than English function words it is stemmed with the German Snowball stemmer instead of the English one.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

import snowballstemmer

# Function words carry no concept. Question words (what, why, how...) and generic verbs of question phrasing
# (describe, explain) are included: they never make an answer right.
EN_STOPWORDS = frozenset(
    """
    a about above after again against all also am an and any are aren't as at be because been before being below
    between both but by can can't cannot could couldn't did didn't do does doesn't doing don't down during each
    either else etc even ever every few for from further had hadn't has hasn't have haven't having he her here hers
    herself him himself his how however i if in into is isn't it it's its itself just let like may me might more
    most much must my myself neither no nor not now of off on once one only or other ought our ours ourselves out
    over own per rather really same shall she should shouldn't so some such than that that's the their theirs them
    themselves then there there's these they this those though through thus to too under until up upon us very via
    was wasn't we were weren't what what's when where which while who whom whose why will with within without won't
    would wouldn't yes yet you your yours yourself yourselves
    e.g eg i.e ie
    describe define explain give name state list called use used uses using thing things something way
    """.split()
)

DE_STOPWORDS = frozenset(
    """
    aber alle allem allen aller alles als also am an ander andere anderen auch auf aus bei bin bis bist da damit
    dann das dass dein deine dem den der des dessen die dies diese diesem diesen dieser dieses doch dort du durch ein
    eine einem einen einer eines er es etwas euer eure für gegen hat hatte hier hin hinter ich ihr ihre im in ist
    ja jede jedem jeden jeder jedes kann kein keine können man mein mit muss nach nicht nichts noch nun nur ob oder
    ohne sehr sein seine sich sie sind so soll über um und uns unser unter viel vom von vor war warum was weil welche
    wenn wer werden wie wieder will wir wird wo zu zum zur zwischen
    """.split()
)

STOPWORDS = EN_STOPWORDS | DE_STOPWORDS

# Phrases that say "I have no answer". An answer that is nothing but these (plus stopwords/punctuation) is a
# non-answer and scores 0, however similar its embedding happens to be to anything.
_NON_ANSWER_PHRASES = (
    "i don't know", "i dont know", "don't know", "dont know", "do not know", "no idea", "not sure", "no clue",
    "idk", "n/a", "na", "pass", "skip", "sorry", "unknown", "none", "nothing", "forgot", "can't remember",
    "cannot remember", "keine ahnung", "weiß nicht", "weiss nicht", "ich weiß es nicht", "ich weiss es nicht",
    "?",
)
_NON_ANSWER_RE = re.compile(
    r"(?<!\w)(?:" + "|".join(re.escape(p) for p in sorted(_NON_ANSWER_PHRASES, key=len, reverse=True)) + r")(?!\w)",
    re.IGNORECASE,
)

# Words: letters/digits, with inner apostrophes (don't). Hyphens and symbols split words (first-in-first-out).
_TOKEN_RE = re.compile(r"[^\W_]+(?:'[^\W_]+)*", re.UNICODE)

# Below this share of new (non-question) content, an answer that also covers none of the reference's concepts is a
# restatement of the question.
RESTATEMENT_MAX_NOVEL_SHARE = 0.25


@dataclass(frozen=True)
class Concept:
    """A key concept of the reference: its stem (for matching) and the word as the reference spells it."""

    stem: str
    surface: str


@dataclass(frozen=True)
class Analysis:
    """Lexical facts about one (question, reference, answer) triple; see `analyse`."""

    language: str
    concepts: tuple[Concept, ...]  # reference concepts after question demoting (falls back to all if none left)
    demoted: bool  # False when every reference concept also appears in the question
    answer_words: tuple[str, ...]  # the answer's content words (surface, lower-case, unique, in order)
    answer_stems: frozenset[str]
    novel_words: tuple[str, ...]  # answer content words whose stem is not in the question
    novel_stems: tuple[str, ...]  # their stems, same order
    answer_demoted_text: str  # the answer with question words removed ("" if nothing is left)
    reference_demoted_text: str
    non_answer: bool  # empty, punctuation only or "I don't know"
    novel_share: float  # share of the answer's content stems that are not in the question (0 if none)


def tokens(text: str) -> list[str]:
    """Lower-cased word tokens in order."""
    return [t.lower() for t in _TOKEN_RE.findall(text or "")]


def detect_language(text: str) -> str:
    """'de' when German function words outnumber English ones, else 'en'. Crude by design; enough to pick a stemmer."""
    toks = tokens(text)
    de = sum(t in DE_STOPWORDS and t not in EN_STOPWORDS for t in toks)
    en = sum(t in EN_STOPWORDS and t not in DE_STOPWORDS for t in toks)
    return "de" if de > en else "en"


@lru_cache(maxsize=4)
def _stemmer(language: str):
    return snowballstemmer.stemmer("german" if language == "de" else "english")


def is_content(token: str) -> bool:
    """A token that can carry a concept: not a stopword, and either two letters or more, or a number."""
    if token in STOPWORDS:
        return False
    return len(token) >= 2 or token.isdigit()


def stem(token: str, language: str = "en") -> str:
    """Snowball stem (Porter 2 for English); stems make 'pushed', 'pushes' and 'push' one concept."""
    return _stemmer(language).stemWord(token)


def content_words(text: str) -> list[str]:
    return [t for t in tokens(text) if is_content(t)]


def is_non_answer(answer: str) -> bool:
    """Empty, punctuation-only, or nothing but 'I don't know'-type phrases and function words."""
    rest = _NON_ANSWER_RE.sub(" ", answer or "")
    return not content_words(rest)


def _demote_text(text: str, question_stems: frozenset[str], language: str) -> str:
    """The text with every content word that also appears in the question removed; function words are kept so the
    remainder still reads as a phrase for the sentence embedder. Empty when no content word is left."""
    kept: list[str] = []
    any_content = False
    for t in tokens(text):
        if is_content(t):
            if stem(t, language) in question_stems:
                continue
            any_content = True
        kept.append(t)
    return " ".join(kept) if any_content else ""


def analyse(question: str, reference: str, answer: str) -> Analysis:
    """Split a triple into what the grader scores. Pure and deterministic."""
    language = detect_language(f"{reference} {answer}")
    q_lang = detect_language(question)
    q_stems = frozenset(stem(t, q_lang) for t in content_words(question)) | frozenset(
        stem(t, language) for t in content_words(question)
    )

    seen: set[str] = set()
    all_concepts: list[Concept] = []
    for w in content_words(reference):
        s = stem(w, language)
        if s not in seen:
            seen.add(s)
            all_concepts.append(Concept(stem=s, surface=w))
    demoted_concepts = [c for c in all_concepts if c.stem not in q_stems]
    demoted = bool(demoted_concepts)
    concepts = tuple(demoted_concepts if demoted else all_concepts)

    a_words: list[str] = []
    a_stems: set[str] = set()
    novel: list[str] = []
    novel_s: list[str] = []
    for w in content_words(answer):
        s = stem(w, language)
        if s in a_stems:
            continue
        a_stems.add(s)
        a_words.append(w)
        if s not in q_stems:
            novel.append(w)
            novel_s.append(s)

    return Analysis(
        language=language,
        concepts=concepts,
        demoted=demoted,
        answer_words=tuple(a_words),
        answer_stems=frozenset(a_stems),
        novel_words=tuple(novel),
        novel_stems=tuple(novel_s),
        answer_demoted_text=_demote_text(answer, q_stems, language),
        reference_demoted_text=_demote_text(reference, q_stems, language) if demoted else reference,
        non_answer=is_non_answer(answer),
        novel_share=(len(novel) / len(a_words)) if a_words else 0.0,
    )
