"""How the tutor answers each pedagogical intent (KITE §3.4.2), in both modes, and the tutor's own sentences.

KITE answers every intent differently, the Socratic way:

    direct        a grounded explanation with citations, then one check-for-understanding question
    conceptual    the explanation plus a question that makes the learner connect or justify
    verification  say what is right, point to the first doubtful step with a guiding question, never the solution
    debugging     guiding questions that lead the learner to the error; no corrected code
    tracing       walk the algorithm's state one step at a time and ask the learner for the next step

A `Strategy` holds what both modes need: the instruction text for the model (LLM mode; part of the stable prompt
prefix, so it must not depend on the question) and, for grounded mode, how much material to quote per help level,
which material to leave out (code, worked results) and the templates — the only sentences the tutor may write
itself in grounded mode. Templates are plain sentences; `{topic}` is filled with the section heading of the quoted
material (itself course text). `all_templates()` lists every one of them for `check_grounded`.

Help levels (1..5, counted in `help_level.py`) change the amount of material and the pointedness of the question;
level 5 nearly reveals: it quotes the most relevant passage in full.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from app.tutor.intents import Intent
from app.tutor.language import Language

MAX_LEVEL = 5
Order = Literal["score", "position"]


@dataclass(frozen=True)
class Wording:
    """The tutor's own sentences for one intent in one language. `questions[i]` closes a reply at level i+1."""

    intro: str  # opens a level-1 reply
    intro_again: str  # opens a reply at levels 2-4 (a follow-up on the same problem)
    intro_full: str  # opens a level-5 reply, which quotes the most relevant passage in full
    questions: tuple[str, str, str, str, str]


@dataclass(frozen=True)
class Strategy:
    intent: Intent
    instructions: str  # for the model (LLM mode), independent of the question so the prompt prefix stays stable
    sentences_per_level: tuple[int, int, int, int, int]  # material sentences quoted at levels 1..4 (5 = full passage)
    order: Order  # "score": best first; "position": in the order of the notes (for step-by-step walks)
    allow_code: bool  # may quote code lines of the material
    allow_worked_results: bool  # may quote sentences that state a worked result (a visiting order, a path)
    wording: dict[Language, Wording]

    def question(self, level: int, lang: Language) -> str:
        return self.wording[lang].questions[_clamp(level) - 1]

    def intro(self, level: int, lang: Language) -> str:
        w = self.wording[lang]
        level = _clamp(level)
        return w.intro if level == 1 else w.intro_full if level == MAX_LEVEL else w.intro_again

    def n_sentences(self, level: int) -> int | None:
        """How many material sentences to quote; None at level 5 (the whole most relevant passage)."""
        level = _clamp(level)
        return None if level == MAX_LEVEL else self.sentences_per_level[level - 1]


def _clamp(level: int) -> int:
    return max(1, min(MAX_LEVEL, level))


STRATEGIES: dict[Intent, Strategy] = {
    Intent.DIRECT: Strategy(
        intent=Intent.DIRECT,
        instructions=(
            "The learner asks a direct question (what is X, a definition or a fact). Explain it briefly and "
            "accurately from the course chunks, citing them, then ask exactly one check-for-understanding question "
            "at the end."
        ),
        sentences_per_level=(2, 3, 4, 5, 0),
        order="score",
        allow_code=False,
        allow_worked_results=True,
        wording={
            "en": Wording(
                intro="Here is what the course notes say about {topic}:",
                intro_again="Let's look at {topic} once more, with a little more of the notes:",
                intro_full="Here is the full passage from the notes on {topic}:",
                questions=(
                    "To check your understanding: can you put this in your own words?",
                    "Which part of the passage above is still unclear to you?",
                    "Try applying this to one small example of your own: what does it tell you there?",
                    "Which single sentence above answers your question most directly, and why?",
                    "Now explain the key idea back to me in one sentence: what is it?",
                ),
            ),
            "de": Wording(
                intro="Das sagen die Kursunterlagen zu {topic}:",
                intro_again="Schauen wir uns {topic} noch einmal an, mit etwas mehr aus den Unterlagen:",
                intro_full="Hier ist der vollständige Abschnitt der Unterlagen zu {topic}:",
                questions=(
                    "Zur Kontrolle: Kannst du das in eigenen Worten sagen?",
                    "Welcher Teil des Abschnitts oben ist dir noch unklar?",
                    "Wende es auf ein kleines eigenes Beispiel an: Was sagt es dort aus?",
                    "Welcher einzelne Satz oben beantwortet deine Frage am direktesten, und warum?",
                    "Erkläre mir jetzt die Kernidee in einem Satz: Was ist sie?",
                ),
            ),
        },
    ),
    Intent.CONCEPTUAL: Strategy(
        intent=Intent.CONCEPTUAL,
        instructions=(
            "The learner asks a conceptual question (why, how does it work, compare, when to use). Give the "
            "explanation from the course chunks, citing them, then ask one question that makes the learner connect "
            "ideas or justify the reasoning themselves."
        ),
        sentences_per_level=(2, 3, 4, 5, 0),
        order="score",
        allow_code=False,
        allow_worked_results=True,
        wording={
            "en": Wording(
                intro="The course notes explain {topic} like this:",
                intro_again="Let's build the argument step by step, with more of the notes on {topic}:",
                intro_full="Here is the full passage from the notes on {topic}; it contains the whole argument:",
                questions=(
                    "Now connect the pieces: why does this follow from what the notes say?",
                    "Which property in the passage above is the reason it works, and what would break without it?",
                    "Compare it with a related method from the course: where does the difference come from?",
                    "Take the first sentence above as the premise: what does it imply for your question?",
                    "Can you restate the argument as a short chain: because ..., therefore ...?",
                ),
            ),
            "de": Wording(
                intro="So erklären die Kursunterlagen {topic}:",
                intro_again="Bauen wir das Argument Schritt für Schritt auf, mit mehr aus den Unterlagen zu {topic}:",
                intro_full="Hier ist der vollständige Abschnitt der Unterlagen zu {topic}; er enthält das ganze "
                "Argument:",
                questions=(
                    "Verbinde jetzt die Teile: Warum folgt das aus dem, was in den Unterlagen steht?",
                    "Welche Eigenschaft im Abschnitt oben ist der Grund dafür, und was ginge ohne sie schief?",
                    "Vergleiche es mit einem verwandten Verfahren aus dem Kurs: Woher kommt der Unterschied?",
                    "Nimm den ersten Satz oben als Voraussetzung: Was folgt daraus für deine Frage?",
                    "Kannst du das Argument als kurze Kette formulieren: weil ..., deshalb ...?",
                ),
            ),
        },
    ),
    Intent.VERIFICATION: Strategy(
        intent=Intent.VERIFICATION,
        instructions=(
            "The learner shows their own answer, trace or code and asks whether it is right. Say what is right "
            "about it, then point to the FIRST doubtful step with a guiding question. Never give the full solution, "
            "the correct trace or corrected code."
        ),
        sentences_per_level=(1, 1, 2, 3, 0),
        order="score",
        allow_code=False,
        allow_worked_results=False,
        wording={
            "en": Wording(
                intro="Good that you wrote your steps out; let's check them against the rule in the notes on {topic}:",
                intro_again="Let's check your steps once more against the notes on {topic}:",
                intro_full="Here is the full rule from the notes on {topic}; check your work against it:",
                questions=(
                    "Go through your answer step by step: which is the first step where this rule does not hold?",
                    "Look at your first few steps again: does each of them follow the rule quoted above?",
                    "Check the order in which you did things: is it the order the notes prescribe?",
                    "Find the first step where your result differs from what the rule predicts: what should happen "
                    "there instead?",
                    "Redo only that first doubtful step with the passage above next to you: what do you get now?",
                ),
            ),
            "de": Wording(
                intro="Gut, dass du deine Schritte aufgeschrieben hast; prüfen wir sie an der Regel aus den "
                "Unterlagen zu {topic}:",
                intro_again="Prüfen wir deine Schritte noch einmal an den Unterlagen zu {topic}:",
                intro_full="Hier ist die vollständige Regel aus den Unterlagen zu {topic}; prüfe deine Arbeit daran:",
                questions=(
                    "Geh deine Lösung Schritt für Schritt durch: Bei welchem Schritt gilt diese Regel zuerst nicht?",
                    "Schau dir deine ersten Schritte noch einmal an: Folgt jeder davon der Regel oben?",
                    "Prüfe die Reihenfolge deiner Schritte: Ist es die Reihenfolge, die die Unterlagen vorgeben?",
                    "Finde den ersten Schritt, an dem dein Ergebnis von der Regel abweicht: Was müsste dort "
                    "stattdessen passieren?",
                    "Mach nur diesen ersten zweifelhaften Schritt mit dem Abschnitt oben noch einmal: Was kommt "
                    "jetzt heraus?",
                ),
            ),
        },
    ),
    Intent.DEBUGGING: Strategy(
        intent=Intent.DEBUGGING,
        instructions=(
            "The learner's code or output is wrong. Do not fix it and do not write any code. Ask guiding questions "
            "that lead the learner to find the error themselves, using what the course chunks say the algorithm "
            "must do."
        ),
        sentences_per_level=(1, 1, 2, 3, 0),
        order="score",
        allow_code=False,
        allow_worked_results=False,
        wording={
            "en": Wording(
                intro="Let's find the bug together; here is what the notes say about {topic}:",
                intro_again="Let's narrow the bug down with more of the notes on {topic}:",
                intro_full="Here is the full passage from the notes on {topic}; compare your code with it:",
                questions=(
                    "What output did you expect, and at which step does your program first do something different?",
                    "Which line of your code corresponds to the rule quoted above, and does it do exactly that?",
                    "Print the state after each iteration: where does it first differ from what the notes describe?",
                    "Check the condition quoted above in your code: is it tested at the same moment as in the notes?",
                    "Compare your code line by line with the passage above: which line differs from it?",
                ),
            ),
            "de": Wording(
                intro="Finden wir den Fehler gemeinsam; das sagen die Unterlagen zu {topic}:",
                intro_again="Grenzen wir den Fehler mit mehr aus den Unterlagen zu {topic} ein:",
                intro_full="Hier ist der vollständige Abschnitt der Unterlagen zu {topic}; vergleiche deinen Code "
                "damit:",
                questions=(
                    "Welche Ausgabe hast du erwartet, und bei welchem Schritt macht dein Programm zuerst etwas "
                    "anderes?",
                    "Welche Zeile deines Codes entspricht der Regel oben, und macht sie genau das?",
                    "Gib den Zustand nach jeder Iteration aus: Wo weicht er zuerst von den Unterlagen ab?",
                    "Prüfe die Bedingung oben in deinem Code: Wird sie im selben Moment geprüft wie in den "
                    "Unterlagen?",
                    "Vergleiche deinen Code Zeile für Zeile mit dem Abschnitt oben: Welche Zeile weicht ab?",
                ),
            ),
        },
    ),
    Intent.TRACING: Strategy(
        intent=Intent.TRACING,
        instructions=(
            "The learner wants to be walked through a run of an algorithm. Show the algorithm's state one step at "
            "a time, starting from the beginning, using the course chunks, and end by asking the learner to do the "
            "next step themselves. Do not run the whole trace for them."
        ),
        sentences_per_level=(2, 3, 4, 5, 0),
        order="position",
        allow_code=False,
        allow_worked_results=True,
        wording={
            "en": Wording(
                intro="Let's walk through {topic} one step at a time, starting where the notes start:",
                intro_again="Let's take the next steps of {topic} from the notes:",
                intro_full="Here is the whole worked passage from the notes on {topic}:",
                questions=(
                    "What happens in the next step? Write down the state after it.",
                    "Using the rule above, what is the next step, and what does the state look like afterwards?",
                    "Which node or value is processed next, and why that one?",
                    "Continue for two more steps on paper: what is the state after each of them?",
                    "Check your own trace against the passage above: at which step would you have done "
                    "something else?",
                ),
            ),
            "de": Wording(
                intro="Gehen wir {topic} Schritt für Schritt durch, dort beginnend, wo die Unterlagen beginnen:",
                intro_again="Nehmen wir die nächsten Schritte von {topic} aus den Unterlagen:",
                intro_full="Hier ist der ganze durchgerechnete Abschnitt der Unterlagen zu {topic}:",
                questions=(
                    "Was passiert im nächsten Schritt? Schreib den Zustand danach auf.",
                    "Was ist mit der Regel oben der nächste Schritt, und wie sieht der Zustand danach aus?",
                    "Welcher Knoten oder Wert wird als Nächstes bearbeitet, und warum gerade dieser?",
                    "Mach auf Papier zwei weitere Schritte: Wie sieht der Zustand nach jedem aus?",
                    "Vergleiche deine eigene Spur mit dem Abschnitt oben: Bei welchem Schritt hättest du etwas "
                    "anderes gemacht?",
                ),
            ),
        },
    ),
}


# Sentences every grounded reply may use besides the per-intent wording.
NOT_COVERED: dict[Language, tuple[str, str]] = {
    "en": (
        "The course material does not seem to cover this question, so I would rather not guess.",
        "Could you rephrase it, or ask about a topic from the course notes?",
    ),
    "de": (
        "Die Kursunterlagen scheinen diese Frage nicht abzudecken, deshalb rate ich lieber nicht.",
        "Kannst du sie anders formulieren oder nach einem Thema aus den Kursunterlagen fragen?",
    ),
}
LLM_FALLBACK: dict[Language, str] = {
    "en": "The language model is not available right now, so this answer is built from the course notes only.",
    "de": "Das Sprachmodell ist gerade nicht erreichbar, deshalb stammt diese Antwort nur aus den Kursunterlagen.",
}
BEYOND_NOTE: dict[Language, str] = {
    "en": "Note: this answer goes beyond the course material; check it against your notes or ask your teacher.",
    "de": "Hinweis: Diese Antwort geht über die Kursunterlagen hinaus; prüfe sie anhand deiner Unterlagen oder "
    "frag deine Lehrkraft.",
}
NOTHING_QUOTABLE: dict[Language, str] = {
    "en": "The notes on {topic} are mostly code or figures, so here is a question to think about instead.",
    "de": "Die Unterlagen zu {topic} bestehen hier vor allem aus Code oder Abbildungen, deshalb eine Frage zum "
    "Nachdenken.",
}


def strategy_for(intent: Intent | str) -> Strategy:
    return STRATEGIES[Intent(intent)]


def all_templates() -> list[str]:
    """Every sentence the tutor may write itself in grounded mode (with `{topic}` slots), for `check_grounded`."""
    out: list[str] = []
    for strategy in STRATEGIES.values():
        for w in strategy.wording.values():
            out += [w.intro, w.intro_again, w.intro_full, *w.questions]
    for lang in ("en", "de"):
        out += [*NOT_COVERED[lang], LLM_FALLBACK[lang], NOTHING_QUOTABLE[lang]]
    return out
