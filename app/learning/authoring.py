"""Exercises written or revised by a generative model, held to the same schemas as everything else.

The model answers in the exercise type's own pydantic schema (structured output, temperature 0.3); the schema's
validators (the stand-alone rule included) run on the reply, and one invalid reply is sent back once with the
reason (`LLM.structured`). A teacher's free instruction ("make the distractors harder", "use a German example") is
applied the same way: the current exercise and the instruction go in, a validated exercise of the same type comes
out. Without a model there is no revision (the edge says so); offline generation is `app.learning.generate`.
"""

from __future__ import annotations

import json

from pydantic import BaseModel

from app.errors import UserError
from app.learning.bites import LearningBite
from app.learning.exercises import (
    Analogy,
    Cloze,
    ErrorFinding,
    Exercise,
    Flashcard,
    MicroScenario,
    MultipleChoice,
    OpenQuestion,
    Ordering,
    Summary,
    TeachBack,
    TermDefinition,
    validate_exercise,
)
from app.llm.base import LLM, Message

TEMPERATURE = 0.3
EXERCISE_MODELS: dict[str, type[BaseModel]] = {
    cls.model_fields["type"].default: cls
    for cls in (MultipleChoice, Cloze, OpenQuestion, Summary, Flashcard, Ordering, TeachBack, ErrorFinding, Analogy,
                MicroScenario, TermDefinition)
}

SYSTEM = """You write exercises for learners from a piece of course material (a learning bite).
The `question` field is all the learner sees: it must stand on its own. Put the gapped text into a cloze question,
every item into an ordering question, the text with the errors into an error-finding question, the scenario into a
micro-scenario question, and never refer to "the text above" or "this section". Never put the answer into the
question. Write in the language of the material."""


def _model_for(kind: str) -> type[BaseModel]:
    if kind not in EXERCISE_MODELS:
        raise UserError(f"unknown exercise type {kind!r}", hint=f"use one of: {', '.join(EXERCISE_MODELS)}")
    return EXERCISE_MODELS[kind]


def _material(bite: LearningBite) -> str:
    return f"Learning bite {bite.id}: {bite.title}\n\n{bite.content}"


def generate_with_model(llm: LLM, kind: str, bite: LearningBite) -> Exercise:
    """One `kind` exercise for `bite`, written by the model and validated."""
    schema = _model_for(kind)
    messages = [Message.system(SYSTEM), Message.user(f"{_material(bite)}\n\nWrite one {kind} exercise.")]
    value = llm.structured(messages, schema, temperature=TEMPERATURE).value
    return validate_exercise({**value.model_dump(mode="json"), "bite_id": bite.id})


def revise_with_model(llm: LLM, exercise: dict, instruction: str, bite: LearningBite) -> Exercise:
    """`exercise` revised by the model following the teacher's `instruction`; the type stays the same."""
    current = validate_exercise(exercise)
    if not instruction.strip():
        raise UserError("the revision instruction is empty", hint="say what to change")
    schema = _model_for(current.type)
    messages = [
        Message.system(SYSTEM),
        Message.user(
            f"{_material(bite)}\n\nThe current {current.type} exercise:\n"
            f"{json.dumps(current.model_dump(mode='json'), ensure_ascii=False)}\n\n"
            f"Revise it following the teacher's instruction, keeping the type {current.type}:\n{instruction.strip()}"
        ),
    ]
    value = llm.structured(messages, schema, temperature=TEMPERATURE).value
    return validate_exercise({**value.model_dump(mode="json"), "type": current.type, "bite_id": bite.id})
