"""Which language a learner writes in, so the tutor's own sentences (the templates) can answer in kind.

Only English and German are supported, and the decision is deliberately simple: count frequent function words of
each language (and umlauts/ß, which only German uses); German wins when it has strictly more evidence. The course
material itself is quoted as it is, whatever its language.
"""

from __future__ import annotations

import re
from typing import Literal

Language = Literal["en", "de"]

_WORD = re.compile(r"[a-zäöüß']+")

_DE = frozenset(
    """
    ich du er sie es wir ihr mein meine meinen dein deine ist sind bin bist war hat habe haben wird werden kann
    können koennen muss was wie warum wieso weshalb wozu welche welcher welches wann wo der die das dem den des ein
    eine einer einen einem und oder aber nicht kein keine noch schon auch mit für fuer von zu zum zur bei nach auf
    im ins beim dass weil wenn ob stimmt richtig falsch funktioniert erklär erklaer erkläre erklaere bitte schritt
    mal gibt heißt heisst bedeutet unterschied zwischen versteh verstehe verstehs versteh's hilfe tipp hinweis
    diese dieser dieses man sich uns euch immer nie warum ergebnis lösung loesung algorithmus suche
    """.split()
)
_EN = frozenset(
    """
    i you he she it we they my your is are am was were has have had will would can could should must what how why
    which when where who the a an of and or but not no yet also with for from to at by on in into that because if
    whether right wrong correct works work explain please step does do did this these those there here get got
    does doesn't don't isn't i'm it's what's mean means difference between help hint still stuck search algorithm
    """.split()
)


def detect_language(text: str) -> Language:
    """'de' when the text carries more German than English evidence, else 'en' (the default)."""
    words = _WORD.findall(text.lower())
    de = sum(w in _DE for w in words) + 2 * sum(ch in "äöüß" for ch in text.lower())
    en = sum(w in _EN for w in words)
    return "de" if de > en else "en"
