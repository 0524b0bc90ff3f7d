"""The question bank: a teacher's questions with reference answers and the material they belong to.

A question file is JSON lines (one object per line) or CSV (a header row naming the fields). Fields:

    id                 unique within the file (required)
    question           the question as the learner sees it; must stand on its own (required)
    reference_answer   the model answer the tutor grades against and reveals on resolution (required)
    course             the course id (optional; `default_course` fills it)
    section            the section of the material that answers it, e.g. "1.4 Breadth-First Search"
    source             the document, e.g. "search-algorithms.pdf"
    page_start/page_end  physical 1-based PDF pages of the cited passage (page_end defaults to page_start)
    key_concept        the one idea the answer turns on (the second hint of the grounded ladder)
    chunk_ids          chunks of the course index it belongs to (JSON list, or ';'-separated in CSV)

Errors name the file, the line and the field, and say how to fix it ("Ein korrektes JSON-Format ist noch keine
brauchbare Übung": a question must be non-empty text that stands alone, not just valid JSON).
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from app.errors import UserError

REQUIRED_FIELDS = ("id", "question", "reference_answer")
MIN_QUESTION_CHARS = 8


class Question(BaseModel):
    """One teacher-authored question with its reference answer and where in the material it is answered."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str = Field(min_length=1, max_length=200)
    course: str = Field(min_length=1)
    question: str
    reference_answer: str
    section: str = ""
    source: str = ""
    page_start: int | None = Field(None, ge=1)
    page_end: int | None = Field(None, ge=1)
    key_concept: str = ""
    chunk_ids: tuple[str, ...] = ()

    @field_validator("id", "question", "reference_answer", "section", "source", "key_concept", mode="before")
    @classmethod
    def _strip(cls, v: Any) -> Any:
        return v.strip() if isinstance(v, str) else v

    @field_validator("question")
    @classmethod
    def _stands_alone(cls, v: str) -> str:
        if len(v) < MIN_QUESTION_CHARS:
            raise ValueError(f"must be a question that stands on its own (at least {MIN_QUESTION_CHARS} characters)")
        return v

    @field_validator("reference_answer")
    @classmethod
    def _non_empty(cls, v: str) -> str:
        if not v:
            raise ValueError("must not be empty: the tutor grades against it and shows it on resolution")
        return v

    @model_validator(mode="after")
    def _pages(self) -> Question:
        if self.page_end is not None and self.page_start is None:
            raise ValueError("page_end given without page_start")
        if self.page_start is not None and self.page_end is not None and self.page_end < self.page_start:
            raise ValueError(f"page_end {self.page_end} is before page_start {self.page_start}")
        return self

    @property
    def pages(self) -> tuple[int, int] | None:
        """(first, last) physical page of the cited passage, if known."""
        if self.page_start is None:
            return None
        return self.page_start, self.page_end or self.page_start

    def where(self) -> str:
        """Human-readable location of the cited passage, e.g. 'section 1.4 Breadth-First Search (pages 6-7)'."""
        parts = []
        if self.section:
            parts.append(f"section {self.section}")
        if self.pages:
            a, b = self.pages
            parts.append(f"page {a}" if a == b else f"pages {a}-{b}")
        if self.source:
            parts.append(f"of {self.source}")
        if not parts:
            return "the course material"
        if self.section and self.pages:
            return f"{parts[0]} ({' '.join(parts[1:])})"
        return " ".join(parts)


@dataclass(frozen=True)
class QuestionFileReport:
    """What `check_questions` found: the valid questions and one message per problem (file:line: field: what)."""

    path: str
    questions: tuple[Question, ...]
    errors: tuple[str, ...]

    @property
    def ok(self) -> bool:
        return not self.errors and bool(self.questions)

    def to_dict(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "ok": self.ok,
            "questions": len(self.questions),
            "errors": list(self.errors),
            "ids": [q.id for q in self.questions],
        }


def _describe(error: ValidationError) -> list[str]:
    out = []
    for e in error.errors():
        loc = ".".join(str(p) for p in e["loc"]) or "record"
        msg = e["msg"].removeprefix("Value error, ")
        out.append(f"field {loc}: {msg}")
    return out


def _coerce_csv_row(row: dict[str, Any]) -> dict[str, Any]:
    """CSV cells are strings: empty optional cells are dropped, pages become ints, chunk ids split on ';'."""
    out: dict[str, Any] = {}
    for key, value in row.items():
        if key is None:
            raise ValueError("the row has more cells than the header has columns")
        key = key.strip()
        value = (value or "").strip()
        if value == "" and key not in REQUIRED_FIELDS:
            continue
        if key in ("page_start", "page_end"):
            if not value.isdigit():
                raise ValueError(f"field {key}: {value!r} is not a page number")
            out[key] = int(value)
        elif key == "chunk_ids":
            out[key] = tuple(p.strip() for p in value.split(";") if p.strip())
        else:
            out[key] = value
    return out


def _records(path: str, text: str) -> Iterable[tuple[int, dict[str, Any] | str]]:
    """(line number, record or error message) for each record of a JSON-lines or CSV text."""
    if path.lower().endswith(".csv"):
        reader = csv.DictReader(io.StringIO(text))
        missing = [f for f in REQUIRED_FIELDS if f not in (reader.fieldnames or [])]
        if missing:
            yield 1, f"header lacks column(s) {', '.join(missing)}; the header must name {', '.join(REQUIRED_FIELDS)}"
            return
        for row in reader:
            try:
                yield reader.line_num, _coerce_csv_row(row)
            except ValueError as e:
                yield reader.line_num, str(e)
        return
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as e:
            yield number, f"not valid JSON ({e.msg} at column {e.colno})"
            continue
        if not isinstance(obj, dict):
            yield number, f"expected a JSON object, got {type(obj).__name__}"
            continue
        yield number, obj


def parse_questions(text: str, *, path: str = "<questions>", default_course: str = "default") -> QuestionFileReport:
    """Parse a question file's text (JSON lines, or CSV when `path` ends in .csv), collecting every problem."""
    questions: list[Question] = []
    errors: list[str] = []
    seen: dict[str, int] = {}
    for number, record in _records(path, text):
        if isinstance(record, str):
            errors.append(f"{path}:{number}: {record}")
            continue
        record = dict(record)
        record.setdefault("course", default_course)
        try:
            q = Question.model_validate(record)
        except ValidationError as e:
            errors.extend(f"{path}:{number}: {m}" for m in _describe(e))
            continue
        if q.id in seen:
            errors.append(
                f"{path}:{number}: field id: {q.id!r} is already used on line {seen[q.id]}; ids must be unique"
            )
            continue
        seen[q.id] = number
        questions.append(q)
    if not questions and not errors:
        errors.append(f"{path}: no questions found; write one JSON object per line (or a CSV with a header row)")
    return QuestionFileReport(path=path, questions=tuple(questions), errors=tuple(errors))


def check_questions(path: str | Path, *, default_course: str = "default") -> QuestionFileReport:
    """Read and validate a question file without raising on bad records (for `tutor questions validate`)."""
    p = Path(path)
    if not p.is_file():
        raise UserError(f"question file {str(p)!r} does not exist", hint="pass a .jsonl or .csv file")
    try:
        text = p.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError:
        raise UserError(f"{p}: not UTF-8 text", hint="save the question file as UTF-8") from None
    return parse_questions(text, path=str(p), default_course=default_course)


def load_questions(path: str | Path, *, default_course: str = "default") -> list[Question]:
    """Read a question file; UserError naming the first problems if any record is invalid."""
    report = check_questions(path, default_course=default_course)
    if report.errors:
        shown = "; ".join(report.errors[:3])
        more = f" (and {len(report.errors) - 3} more)" if len(report.errors) > 3 else ""
        raise UserError(f"{shown}{more}", hint=f"run `tutor questions validate {path}` to see every problem")
    return list(report.questions)


def select_questions(questions: Sequence[Question], ids: Sequence[str] | None) -> list[Question]:
    """The fixed list of a session: `ids` in the given order (all questions when None). Unknown ids are an error."""
    if ids is None:
        return list(questions)
    by_id = {q.id: q for q in questions}
    unknown = [i for i in ids if i not in by_id]
    if unknown:
        raise UserError(f"unknown question id(s): {', '.join(unknown)}", hint="list the bank's ids first")
    return [by_id[i] for i in ids]
