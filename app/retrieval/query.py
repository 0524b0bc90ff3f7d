"""Query preparation: cross-lingual expansion for German questions about English material.

The packaged embedder (MiniLM) and the BM25 vocabulary are English; a German question ("warum ist die heuristik
zulässig?") shares few words and little embedding space with English notes. When a question reads as German, the
English equivalents of the course-vocabulary words it contains (a plain lexicon, `data/lexicon/de_en_cs.tsv`) are
appended to it. English questions pass unchanged.

Matching (both sides folded by `fold`, so "zulässig", "zulaessig" and "zulassig" are one word):
- a lexicon stem of 5+ letters matches any word it begins ("knoten" → "knotens");
- a stem of 4 letters or fewer matches only the whole word, since short stems begin too many everyday words
  ("weg" must not fire on "wegen", "rand" not on "random"); the lexicon lists their inflected forms;
- a stem of 4+ letters also matches the end of a compound whose head has 4+ letters and is not a particle
  ("suchbaum" → "baum"; but "versuche" is not a "suche", "beispiel" not a "spiel", "untersuchen" not "suchen");
- a term of several words matches consecutive words, each by the rules above ("schlimmst fall" matches
  "im schlimmsten fall").
"""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path

DEFAULT_LEXICON = Path(__file__).resolve().parents[2] / "data/lexicon/de_en_cs.tsv"

_WORD = re.compile(r"[^\W\d_]+", re.UNICODE)
_DE = frozenset(
    "der die das und ist nicht ich ein eine einen wie warum wieso weshalb was wann wird bei mit auf für von zu "
    "den dem des sich auch noch mein meine meinem hab habe oder aber wenn dann doch kann muss man schon im am vom "
    "zum zur einem einer eines welche welcher welches eigentlich gibt sind hat haben nur mal dass weil also nach "
    "über unter durch gegen ohne wir ihr du mir mich dir dich es sie er nicht kein keine bitte stimmt "
    # the same written without umlauts, as on an English keyboard
    "fuer ueber fur uber waere koennte muesste".split()
)
_EN = frozenset(
    "the and is not a an how why what when will with on for of to it my i have or but if then can must you this "
    "that does do".split()
)

_UMLAUT = str.maketrans({"ä": "a", "ö": "o", "ü": "u", "ß": "ss"})
_DIGRAPH = re.compile(r"(?<=[aou])e")
# Longer heads that make a derived word or an adverb rather than a compound noun: miss+erfolg, unter+suchen,
# letzt+endlich. Heads of three letters or fewer never count (be+suche, ver+suche, bei+spiel, auf+wand, ein+satz).
_PARTICLES = frozenset(
    "miss nach uber unter durch wider wieder gegen hinter zuruck zusammen heraus voraus vorbei letzt schluss".split()
)


def fold(text: str) -> str:
    """Lower case with umlauts folded to their base vowel, written ä, ae or a alike (ß → ss).

    Folding "ae/oe/ue" also touches words without umlauts ("neue" → "neu"); that is harmless because the lexicon
    and the question are folded by the same function."""
    return _DIGRAPH.sub("", text.lower().translate(_UMLAUT))


def is_german(text: str) -> bool:
    """More German function words than English ones, or German letters with no English function word."""
    words = [w.lower() for w in _WORD.findall(text)]
    de = sum(w in _DE for w in words)
    en = sum(w in _EN for w in words)
    if de > en:
        return True
    return de > 0 and de == en and bool(re.search(r"[äöüß]", text.lower()))


@lru_cache(maxsize=4)
def load_lexicon(path: Path = DEFAULT_LEXICON) -> tuple[tuple[str, str], ...]:
    """(german, english) pairs of a `german<TAB>english` file, longest German term first; `#` starts a comment."""
    entries = []
    for line in Path(path).read_text(encoding="utf-8").splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        de, _, en = line.partition("\t")
        if en.strip():
            entries.append((de.strip().lower(), en.strip()))
    # longest first, so "suchbaum" is tried before "baum"
    return tuple(sorted(entries, key=lambda e: -len(e[0])))


def expand_query(query: str, lexicon: tuple[tuple[str, str], ...] | None = None) -> str:
    """The query with English equivalents of its German course words appended (unchanged if not German)."""
    if not is_german(query):
        return query
    lexicon = load_lexicon() if lexicon is None else lexicon
    words = _WORD.findall(fold(query))
    blockers = _suffix_blockers(lexicon)
    found: list[str] = []
    for de, en in lexicon:
        parts = de.split()
        if len(parts) == 1:
            hit = any(matches(de, w) and not any(w.endswith(b) for b in blockers.get(de, ())) for w in words)
        else:
            hit = any(
                all(matches(p, w) for p, w in zip(parts, words[i : i + len(parts)]))
                for i in range(len(words) - len(parts) + 1)
            )
        if hit and en not in found:
            found.append(en)
    return f"{query} ({' '.join(found)})" if found else query


def _compound_head(head: str) -> bool:
    return len(head) >= 4 and head not in _PARTICLES


@lru_cache(maxsize=4)
def _suffix_blockers(lexicon: tuple[tuple[str, str], ...]) -> dict[str, tuple[str, ...]]:
    """For each stem, the longer lexicon words that end in it without being a compound of it ("schlange" for
    "länge", folded "lange": "sch" is no word), so "warteschlange" does not also read as "länge"."""
    stems = {fold(de) for de, _ in lexicon if " " not in de}
    blockers: dict[str, tuple[str, ...]] = {}
    for de, _ in lexicon:
        short = fold(de)
        if " " in de:
            continue
        longer = tuple(
            t for t in stems if len(t) > len(short) and t.endswith(short) and not _compound_head(t[: -len(short)])
        )
        if longer:
            blockers[de] = longer
    return blockers


@lru_cache(maxsize=8192)
def _stem(stem: str) -> tuple[str, int]:
    return fold(stem), len(stem.lower().translate(_UMLAUT))


def matches(stem: str, word: str) -> bool:
    """Whether a lexicon stem matches a folded word of the question (rules in the module docstring).

    The stem's length is counted in letters as written (ä one letter), before folding drops the e of "ae/oe/ue",
    so "bauer" stays a five-letter stem that also matches "bauern"."""
    stem, letters = _stem(stem)
    if word == stem:
        return True
    if letters >= 5 and word.startswith(stem):
        return True
    return letters >= 4 and word.endswith(stem) and _compound_head(word[: -len(stem)])
