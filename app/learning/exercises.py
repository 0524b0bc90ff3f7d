"""The eleven exercise types of the Teacher design, each its own model, and the stand-alone rule in code.

Types (design, "Inhalte aufbereiten"): multiple choice, cloze, open question, summary, flashcard, ordering,
teach-back, error finding, analogy, micro-scenario, term definition. Each has its own fields; `type` discriminates.

The stand-alone rule ("Das Fragefeld muss für sich allein verständlich sein"): the design keeps it in the prompt
and learned that "a correct JSON format is not yet a usable exercise". Here it is code: the `question` is what the
learner sees, so

* a cloze question contains the gapped text, an ordering question lists every item, an error-finding question
  contains the text with the errors, a micro-scenario question contains the scenario;
* a multiple-choice question that points at its options ("which of the following") must contain them;
* no question may lean on context the learner does not see ("the text above", "this section", "fill in the gaps"
  without gaps, "im obigen Text", ...), unless that material is embedded in the question itself;
* answers must not be given away (a flashcard's back or a definition is not inside its question).

`validate_exercise(raw)` returns the typed exercise or raises `UserError` naming the type and the reason.
"""

from __future__ import annotations

import re
from typing import Annotated, Literal, Union

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError, field_validator, model_validator

from app.errors import UserError

EXERCISE_TYPES: tuple[str, ...] = (
    "multiple_choice",
    "cloze",
    "open_question",
    "summary",
    "flashcard",
    "ordering",
    "teach_back",
    "error_finding",
    "analogy",
    "micro_scenario",
    "term_definition",
)

GAP = re.compile(r"_{3,}")  # a cloze gap is three or more underscores
MIN_QUESTION_WORDS = 4

# Phrases that point at material the learner cannot see (English and German).
_CONTEXT_REFS = re.compile(
    r"\b(?:the|this|that|these)\s+(?:text|passage|paragraph|section|excerpt|chapter|bite|material|reading|lecture|"
    r"article|document|slide)s?\b"
    r"|\b(?:this|these)\s+(?:concept|topic|term|idea)s?\b"
    r"|\b(?:as|see|shown|listed|given|mentioned|described|stated|explained)\s+(?:above|below)\b"
    r"|\b(?:above|below)\s*[.:?!]?$|\bthe following\b|\bfill in the (?:gaps?|blanks?)\b"
    r"|\b(?:im|dem|den|der|dieser|diesem|obigen|folgenden)\s+(?:obigen\s+|folgenden\s+)?(?:text|abschnitt|absatz|kapitel)\b"
    r"|\bf(?:ü|ue)lle die l(?:ü|ue)cken\b|\bfolgenden?\b|\bdieses? (?:konzept|begriff|thema)\b"
    r"|\b(?:wie|siehe)\s+(?:oben|unten)\b|\boben genannt",
    re.I,
)
_POINTS_AT_OPTIONS = re.compile(
    r"\bwhich of the(?:se| following)\b|\bthe following\b|\b(?:options?|choices?|answers?) (?:below|above|given)\b"
    r"|\bwelche[rsnm]? der folgenden\b|\bfolgenden?\b|\bsiehe unten\b",
    re.I,
)


def _norm(text: str) -> str:
    return " ".join(text.split()).casefold()


def _contains(haystack: str, needle: str) -> bool:
    return _norm(needle) in _norm(haystack)


def _no_context_refs(question: str, what: str) -> None:
    m = _CONTEXT_REFS.search(question)
    if m:
        raise ValueError(
            f"question refers to {m.group(0)!r}, which the learner cannot see; {what}"
        )


class _Exercise(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True, str_strip_whitespace=True)

    question: str = Field(min_length=1)
    bite_id: int | None = None
    explanation: str = ""

    @field_validator("question")
    @classmethod
    def _long_enough(cls, v: str) -> str:
        if len(v.split()) < MIN_QUESTION_WORDS:
            raise ValueError(f"question must be a full sentence of at least {MIN_QUESTION_WORDS} words, got {v!r}")
        return v


def _nonempty_unique(values: list[str], what: str) -> list[str]:
    cleaned = [v.strip() for v in values]
    if any(not v for v in cleaned):
        raise ValueError(f"{what} must not be empty")
    if len({_norm(v) for v in cleaned}) != len(cleaned):
        raise ValueError(f"{what} must be distinct")
    return cleaned


class MultipleChoice(_Exercise):
    type: Literal["multiple_choice"] = "multiple_choice"
    options: list[str] = Field(min_length=2, max_length=6)
    correct_index: int

    @model_validator(mode="after")
    def _check(self) -> "MultipleChoice":
        _nonempty_unique(self.options, "options")
        if not 0 <= self.correct_index < len(self.options):
            raise ValueError(f"correct_index {self.correct_index} is not an index into {len(self.options)} options")
        missing = [o for o in self.options if not _contains(self.question, o)]
        if _POINTS_AT_OPTIONS.search(self.question) and missing:
            raise ValueError(
                f"question points at options it does not contain (missing {missing[0]!r}); list the options in the "
                "question or ask without 'which of the following'"
            )
        if missing:  # options are not in the question: it must stand without them
            _no_context_refs(self.question, "name the subject in the question itself")
        return self


class Cloze(_Exercise):
    type: Literal["cloze"] = "cloze"
    text: str = Field(min_length=1, description="the text with gaps written as ___")
    answers: list[str] = Field(min_length=1)

    @model_validator(mode="after")
    def _check(self) -> "Cloze":
        gaps = len(GAP.findall(self.text))
        if gaps == 0:
            raise ValueError("text has no gaps; mark each gap with ___")
        if gaps != len(self.answers):
            raise ValueError(f"text has {gaps} gaps but {len(self.answers)} answers")
        if any(not a.strip() for a in self.answers):
            raise ValueError("answers must not be empty")
        if not _contains(self.question, self.text):
            raise ValueError("question must contain the gapped text itself, not just ask to fill in gaps")
        return self


class OpenQuestion(_Exercise):
    type: Literal["open_question"] = "open_question"
    expected_answer: str = Field(min_length=1)

    @model_validator(mode="after")
    def _check(self) -> "OpenQuestion":
        _no_context_refs(self.question, "ask about the subject by name")
        return self


class Summary(_Exercise):
    type: Literal["summary"] = "summary"
    key_points: list[str] = Field(min_length=1)
    max_words: int | None = Field(None, ge=10)

    @model_validator(mode="after")
    def _check(self) -> "Summary":
        _nonempty_unique(self.key_points, "key_points")
        _no_context_refs(self.question, "say which topic to summarise")
        return self


class Flashcard(_Exercise):
    type: Literal["flashcard"] = "flashcard"
    answer: str = Field(min_length=1, description="the back of the card; `question` is the front")

    @model_validator(mode="after")
    def _check(self) -> "Flashcard":
        _no_context_refs(self.question, "the front must name what it asks about")
        if _contains(self.question, self.answer):
            raise ValueError("the front gives the answer away: the back is contained in the question")
        return self


class Ordering(_Exercise):
    type: Literal["ordering"] = "ordering"
    items: list[str] = Field(min_length=2, description="the items in the order shown to the learner")
    correct_order: list[int] = Field(description="indices into `items`, in the correct sequence")

    @model_validator(mode="after")
    def _check(self) -> "Ordering":
        _nonempty_unique(self.items, "items")
        if sorted(self.correct_order) != list(range(len(self.items))):
            raise ValueError(f"correct_order must be a permutation of 0..{len(self.items) - 1}, got {self.correct_order}")
        missing = [i for i in self.items if not _contains(self.question, i)]
        if missing:
            raise ValueError(f"question must list every item to order; missing {missing[0]!r}")
        return self


class TeachBack(_Exercise):
    type: Literal["teach_back"] = "teach_back"
    concept: str = Field(min_length=1)
    key_points: list[str] = Field(min_length=1)

    @model_validator(mode="after")
    def _check(self) -> "TeachBack":
        _nonempty_unique(self.key_points, "key_points")
        if not _contains(self.question, self.concept):
            raise ValueError(f"question must name the concept to explain ({self.concept!r})")
        _no_context_refs(self.question, "name the concept instead")
        return self


class PlantedError(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True, str_strip_whitespace=True)

    wrong: str = Field(min_length=1, description="the wrong passage as it appears in the text")
    correct: str = Field(min_length=1)
    explanation: str = ""


class ErrorFinding(_Exercise):
    type: Literal["error_finding"] = "error_finding"
    text: str = Field(min_length=1, description="the text with the planted errors")
    errors: list[PlantedError] = Field(min_length=1)

    @model_validator(mode="after")
    def _check(self) -> "ErrorFinding":
        for e in self.errors:
            if not _contains(self.text, e.wrong):
                raise ValueError(f"planted error {e.wrong!r} does not occur in the text")
            if _norm(e.wrong) == _norm(e.correct):
                raise ValueError(f"planted error {e.wrong!r} equals its correction")
        if not _contains(self.question, self.text):
            raise ValueError("question must contain the text with the errors")
        return self


class Analogy(_Exercise):
    type: Literal["analogy"] = "analogy"
    concept: str = Field(min_length=1)
    expected_answer: str = Field(min_length=1)

    @model_validator(mode="after")
    def _check(self) -> "Analogy":
        if not _contains(self.question, self.concept):
            raise ValueError(f"question must name the concept the analogy is for ({self.concept!r})")
        _no_context_refs(self.question, "name the concept instead")
        return self


class MicroScenario(_Exercise):
    type: Literal["micro_scenario"] = "micro_scenario"
    scenario: str = Field(min_length=1)
    expected_answer: str = Field(min_length=1)

    @model_validator(mode="after")
    def _check(self) -> "MicroScenario":
        if not _contains(self.question, self.scenario):
            raise ValueError("question must contain the scenario itself")
        return self


class TermDefinition(_Exercise):
    type: Literal["term_definition"] = "term_definition"
    term: str = Field(min_length=1)
    definition: str = Field(min_length=1)

    @model_validator(mode="after")
    def _check(self) -> "TermDefinition":
        if not _contains(self.question, self.term):
            raise ValueError(f"question must contain the term to define ({self.term!r})")
        if _contains(self.question, self.definition):
            raise ValueError("question gives the definition away")
        _no_context_refs(self.question, "name the subject area instead")
        return self


Exercise = Annotated[
    Union[
        MultipleChoice, Cloze, OpenQuestion, Summary, Flashcard, Ordering, TeachBack, ErrorFinding, Analogy,
        MicroScenario, TermDefinition,
    ],
    Field(discriminator="type"),
]
_ADAPTER: TypeAdapter = TypeAdapter(Exercise)


def _reason(err: ValidationError) -> str:
    parts = []
    for e in err.errors():
        msg = e["msg"].removeprefix("Value error, ")
        loc = ".".join(str(x) for x in e["loc"][1:])  # drop the union tag
        parts.append(f"{loc}: {msg}" if loc else msg)
    return "; ".join(parts)


def validate_exercise(raw: dict) -> Exercise:
    """The typed exercise for `raw`, or UserError("<type> exercise rejected: <reason>")."""
    if not isinstance(raw, dict):
        raise UserError(f"an exercise must be a JSON object, got {type(raw).__name__}")
    kind = raw.get("type")
    if kind not in EXERCISE_TYPES:
        raise UserError(f"unknown exercise type {kind!r}", hint=f"use one of: {', '.join(EXERCISE_TYPES)}")
    try:
        return _ADAPTER.validate_python(raw)
    except ValidationError as e:
        raise UserError(f"{kind} exercise rejected: {_reason(e)}") from None
