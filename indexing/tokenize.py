"""The word tokenizer shared by the BM25 index and its queries.

Lower case, words of two or more letters/digits, English and German stop words removed, English Snowball stems
(PyStemmer). The index records `TOKENIZER_VERSION`, so a change here is caught as an incompatible index rather
than silently mismatched tokens.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

TOKENIZER_VERSION = "words-en-de-stop-snowball-en-1"

_WORD = re.compile(r"\w\w+", re.UNICODE)

_STOP_EN = """a about above after again against all am an and any are as at be because been before being below
between both but by can could did do does doing down during each few for from further had has have having he her
here hers herself him himself his how i if in into is it its itself just me more most my myself no nor not now of
off on once only or other our ours ourselves out over own same she should so some such than that the their theirs
them themselves then there these they this those through to too under until up very was we were what when where
which while who whom why will with would you your yours yourself yourselves im ive dont doesnt isnt its u ur pls
please thx thanks hi hey""".split()
_STOP_DE = """aber alle allem allen aller alles als also am an ander andere anderem anderen anderer anderes auch auf
aus bei bin bis bist da damit dann das dass dein deine dem den denn der des dich die dies diese diesem diesen dieser
dieses dir doch dort du durch ein eine einem einen einer eines er es etwas euch euer für hab habe haben hat hatte
hier hin ich ihr im in ist ja jede jedem jeden jeder jedes kann kein keine mein meine mich mir mit muss nach nicht
nichts noch nun nur ob oder ohne sehr sein seine sich sie sind so soll über um und uns unser unter viel vom von vor
war warum was weil welche wenn wer werden wie wieso wir wird wo zu zum zur""".split()
STOPWORDS = frozenset(_STOP_EN) | frozenset(_STOP_DE)


@lru_cache(maxsize=1)
def _stemmer():
    try:
        import Stemmer  # PyStemmer
    except ImportError:  # pragma: no cover - a declared dependency
        return None
    return Stemmer.Stemmer("english")


def tokenize(text: str) -> list[str]:
    """Text → BM25 tokens."""
    text = unicodedata.normalize("NFKC", text).lower()
    words = [w for w in _WORD.findall(text) if w not in STOPWORDS]
    stem = _stemmer()
    return stem.stemWords(words) if stem else words
