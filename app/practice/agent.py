"""The tool-calling loop of the Teacher design's agent, with the rules in code.

Loop (as in the design): call the model with the tools; run every tool call it makes against the `GuidedSession`;
answer each with a tool message (the JSON result, or "Error executing tool …" when the arguments are invalid, the
order is wrong or the id unknown — the dialogue continues); repeat until a reply without tool calls.

What the prompt cannot make certain is code here ("Pflichtschritte gehören in den Code"):
- tool arguments are pydantic models; their JSON schemas are what the model sees;
- hints go through `giveHint`, which counts them, guards them against leaking the answer and refuses a sixth;
- a learner who gives up, or asks for a hint after the fifth, gets the question resolved by the code before the
  model is called;
- the final text shown while a question is open passes the leak guard;
- a resolved question the model did not rate is rated by the code from a structured `Assessment` it requests;
- `saveQuestionRating` takes no hint count: the code counts, clamps into the band and saves.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import datetime
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from app.errors import LLMOutputError
from app.llm.base import LLM, Message, Tool, ToolCall
from app.practice.bands import MAX_HINTS
from app.practice.feedback import Feedback
from app.practice.moves import classify_move
from app.practice.session import GuidedSession, ToolCallError
from app.practice.store import HintEvent, Rating
from app.practice.turns import ToolLog, TutorTurn

MAX_TOOL_ROUNDS = 8
TEMPERATURE = 0.3


class GetContentArgs(BaseModel):
    """getContent takes no arguments."""

    model_config = ConfigDict(extra="forbid")


class GetNextQuestionArgs(BaseModel):
    """getNextQuestion takes no arguments."""

    model_config = ConfigDict(extra="forbid")


class GiveHintArgs(BaseModel):
    """One hint for the open question; the code numbers it and refuses a sixth."""

    model_config = ConfigDict(extra="forbid")

    questionId: str = Field(description="The ID of the open question")  # noqa: N815 - the design's wire names
    text: str = Field(min_length=1, description="The hint, without giving the answer away")


class ResolveQuestionArgs(BaseModel):
    """Resolve the open question (after the fifth hint or when the learner gives up)."""

    model_config = ConfigDict(extra="forbid")

    questionId: str = Field(description="The ID of the open question")  # noqa: N815


class Assessment(BaseModel):
    """The model's structured judgement of a finished question. The code clamps `score` into the band of the
    hints it counted; there is deliberately no hint count here."""

    model_config = ConfigDict(extra="forbid")

    questionId: str = Field(description="The ID of the question being rated")  # noqa: N815
    correct: bool = Field(description="Whether the learner's final answer is correct in meaning")
    score: int = Field(ge=1, le=10, description="Score from 1-10")
    reasoning: str = Field(min_length=1, description="Detailed reasoning for the score")
    good: str = Field("", description="What was good in the answer")
    missing: str = Field("", description="What was missing")
    tip: str = Field("", description="A learning tip")


TOOLS: tuple[Tool, ...] = (
    Tool.from_model("getContent", "Load the learning material of this session. Call once, first.", GetContentArgs),
    Tool.from_model("getNextQuestion", "Take the next question (with its reference answer); returns an end marker "
                    "when no question is left.", GetNextQuestionArgs),
    Tool.from_model("giveHint", f"Give the learner the next hint (at most {MAX_HINTS} per question, subtle first).",
                    GiveHintArgs),
    Tool.from_model("resolveQuestion", "Resolve the open question and show the reference answer.", ResolveQuestionArgs),
    Tool.from_model("saveQuestionRating", "Save the rating of the finished question (the system clamps the score to "
                    "the hints it counted).", Assessment),
)

SYSTEM_PROMPT = f"""You are a patient Socratic tutor running a guided practice session.
Call getContent once at the start, then getNextQuestion and ask the question in your own words.
If the answer is fully correct: praise it and call saveQuestionRating. If it is partly correct: acknowledge the right
parts and point at what is missing. If it is wrong: call giveHint with one hint, subtle first, clearer each time; at
most {MAX_HINTS} per question, the fifth nearly gives the answer away. Never state the reference answer before the
question is resolved, whatever the learner asks or claims. After the fifth hint, or when the learner gives up, call
resolveQuestion, show the reference answer and call saveQuestionRating.
Scores: 10 without hints, 8-9 with one, 6-7 with two or three, 4-5 with four or five, 1-3 for partial credit after
full help. Meaningfully correct answers count. When getNextQuestion returns the end marker, close the session."""


class AgentTutor:
    """A guided session run by a model through tools, with the rules enforced by the code (module docstring)."""

    def __init__(self, llm: LLM, session: GuidedSession, *, system_prompt: str = SYSTEM_PROMPT,
                 max_rounds: int = MAX_TOOL_ROUNDS) -> None:
        self.llm = llm
        self.session = session
        self.messages: list[Message] = [Message.system(system_prompt)]
        self.max_rounds = max_rounds
        self._handlers: dict[str, tuple[type[BaseModel], Callable[[Any, datetime], dict[str, Any]]]] = {
            "getContent": (GetContentArgs, lambda a, now: self.session.get_content(now)),
            "getNextQuestion": (GetNextQuestionArgs, lambda a, now: self.session.get_next_question(now)),
            "giveHint": (GiveHintArgs, self._give_hint),
            "resolveQuestion": (ResolveQuestionArgs, self._resolve),
            "saveQuestionRating": (Assessment, self._save),
        }
        self._turn_hint: HintEvent | None = None
        self._turn_rating: tuple[Rating, Feedback] | None = None
        self._turn_revealed: str | None = None

    # -- tool handlers ----------------------------------------------------------------------------------------------

    def _give_hint(self, args: GiveHintArgs, now: datetime) -> dict[str, Any]:
        open_q = self.session._open(args.questionId)
        if len(open_q.hints) >= MAX_HINTS and not open_q.resolved:
            # Never a sixth hint: the code resolves instead and tells the model so.
            resolution = self.session.resolve(now, args.questionId)
            self._turn_revealed = resolution.reference_answer
            return {"hintGiven": False, "reason": f"all {MAX_HINTS} hints were given", **resolution.to_tool_result()}
        event = self.session.give_hint(args.text, now, trigger="model")
        self._turn_hint = event
        return {"hintGiven": True, "level": event.level, "shownText": event.text, "guard": event.guard,
                "hintsLeft": MAX_HINTS - event.level}

    def _resolve(self, args: ResolveQuestionArgs, now: datetime) -> dict[str, Any]:
        resolution = self.session.resolve(now, args.questionId)
        self._turn_revealed = resolution.reference_answer
        return resolution.to_tool_result()

    def _save(self, args: Assessment, now: datetime) -> dict[str, Any]:
        rating, feedback = self.session.save_rating(
            args.questionId, args.score, args.reasoning, now,
            correct=args.correct, good=args.good, missing=args.missing, tip=args.tip,
        )
        self._turn_rating = (rating, feedback)
        return {"saved": True, "score": rating.score, "proposedScore": args.score, "band": rating.band,
                "hintsGiven": rating.hints_given, "feedback": feedback.render()}

    def execute(self, call: ToolCall, now: datetime) -> ToolLog:
        """Run one tool call; any failure becomes an error result for the model instead of an exception."""
        handler = self._handlers.get(call.name)
        try:
            if handler is None:
                raise ToolCallError(f"unknown tool {call.name!r}; the tools are {', '.join(self._handlers)}")
            schema, fn = handler
            args = schema.model_validate(call.arguments)
            result = json.dumps(fn(args, now), ensure_ascii=False)
            return ToolLog(name=call.name, arguments=dict(call.arguments), ok=True, result=result)
        except ValidationError as e:
            problems = "; ".join(f"{'.'.join(map(str, x['loc'])) or 'arguments'}: {x['msg']}" for x in e.errors())
            return ToolLog(name=call.name, arguments=dict(call.arguments), ok=False,
                           result=f"Error executing tool {call.name}: invalid arguments ({problems})")
        except ToolCallError as e:
            return ToolLog(name=call.name, arguments=dict(call.arguments), ok=False,
                           result=f"Error executing tool {call.name}: {e}")

    # -- the loop ---------------------------------------------------------------------------------------------------

    def _loop(self, now: datetime) -> tuple[str, list[ToolLog]]:
        logs: list[ToolLog] = []
        for _ in range(self.max_rounds):
            completion = self.llm.complete(self.messages, tools=TOOLS, temperature=TEMPERATURE)
            self.messages.append(completion.as_message())
            if not completion.tool_calls:
                return completion.text or "", logs
            for call in completion.tool_calls:
                log = self.execute(call, now)
                logs.append(log)
                self.messages.append(Message.tool(call.id, log.result))
        raise LLMOutputError(
            f"model {self.llm.model!r} was still calling tools after {self.max_rounds} rounds",
            hint="use a model that follows tool-calling instructions, or raise max_rounds",
        )

    def _rate_if_needed(self, now: datetime) -> None:
        """Mandatory step: a resolved question gets rated in this turn, by a structured assessment if the model
        did not call saveQuestionRating itself."""
        open_q = self.session.current
        if open_q is None or not open_q.resolved:
            return
        ask = Message.user(
            f"[system] Question {open_q.question.id!r} is resolved after {len(open_q.hints)} hint(s). "
            "Give your assessment of the learner's work on it (partial credit band 1-3)."
        )
        value = self.llm.structured([*self.messages, ask], Assessment, temperature=TEMPERATURE).value
        self._save(value.model_copy(update={"questionId": open_q.question.id}), now)

    def _turn(self, user_text: str, now: datetime) -> TutorTurn:
        self._turn_hint, self._turn_rating, self._turn_revealed = None, None, None
        self.messages.append(Message.user(user_text))
        text, logs = self._loop(now)
        shown = self.session.guard_reply(text).text
        self._rate_if_needed(now)
        parts = []
        if self._turn_revealed:
            parts.append(f"The answer: {self._turn_revealed}")
        if self._turn_rating is not None:
            parts.append(self._turn_rating[1].render())
        if shown:
            parts.append(shown)
        current = self.session.current
        return TutorTurn(
            text="\n\n".join(parts),
            question_id=current.question.id if current else None,
            question=current.question.question if current else None,
            hint=self._turn_hint,
            feedback=self._turn_rating[1] if self._turn_rating else None,
            rating=self._turn_rating[0] if self._turn_rating else None,
            revealed_answer=self._turn_revealed,
            finished=self.session.finished,
            tool_calls=tuple(logs),
        )

    def start(self, now: datetime) -> TutorTurn:
        """Open the session: the model is expected to load the material and ask the first question."""
        return self._turn("[system] The learner is ready. Start the session.", now)

    def respond(self, message: str, now: datetime) -> TutorTurn:
        """One learner message → one tutor turn. Giving up, or asking for a hint after the fifth, resolves the
        question in code before the model sees the message."""
        open_q = self.session.current
        note, revealed = "", None
        if open_q is not None and not open_q.resolved:
            move = classify_move(message)
            if move == "give_up" or (move == "hint" and len(open_q.hints) >= MAX_HINTS):
                revealed = self.session.resolve(now).reference_answer
                why = "the learner gave up" if move == "give_up" else f"all {MAX_HINTS} hints were given"
                note = (f"\n\n[system] The question is resolved ({why}); reference answer: {revealed}. "
                        "Show it and call saveQuestionRating.")
        turn = self._turn(message + note, now)
        if revealed is not None:
            text = f"The answer: {revealed}\n\n{turn.text}" if turn.text else f"The answer: {revealed}"
            turn = turn.model_copy(update={"revealed_answer": revealed, "text": text})
        return turn
