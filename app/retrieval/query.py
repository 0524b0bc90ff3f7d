"""Query preparation: cross-lingual expansion for German questions about English material.

The packaged embedder (MiniLM) and the BM25 vocabulary are English; a German question ("warum ist die heuristik
zulässig?") shares few words and little embedding space with English notes. When a question reads as German, the
English equivalents of the course-vocabulary words it contains (a plain lexicon, `data/lexicon/de_en_cs.tsv`) are
appended to it. English questions pass unchanged.
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
    "über unter durch gegen ohne wir ihr du mir mich dir dich es sie er nicht kein keine bitte stimmt".split()
)
_EN = frozenset(
    "the and is not a an how why what when will with on for of to it my i have or but if then can must you this "
    "that does do".split()
)


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
    low = query.lower()
    words = _WORD.findall(low)
    found: list[str] = []
    for de, en in lexicon:
        if " " in de:
            hit = de in low
        else:
            hit = any(w.startswith(de) or (len(de) >= 4 and w.endswith(de)) for w in words)
        if hit and en not in found:
            found.append(en)
    return f"{query} ({' '.join(found)})" if found else query
