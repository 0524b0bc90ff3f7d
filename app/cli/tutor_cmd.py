"""`tutor ask` (one question) and `tutor chat` (an interactive session as a learner would use it).

Both answer in grounded mode unless a model is configured (TUTOR_LLM_BASE_URL + TUTOR_LLM_MODEL), in which case
they use LLM mode and fall back to grounded mode, saying so, when the model fails.
"""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from app.cli.common import load_settings, print_json, user_errors
from app.settings import Settings
from app.tutor.types import Citation, Turn, TutorReply

CHAT_HELP = "Type your question. /new starts a new problem, /quit (or Ctrl-D) ends the session."


def build_service(settings: Settings, course: str):  # noqa: ANN201 - a TutorService
    """The tutor for one course: the course's retrieval pipeline, its embedder, and the configured model if any."""
    from app.llm import llm_from_settings
    from app.retrieval.pipeline import open_retriever
    from app.tutor.service import TutorService

    retriever = open_retriever(settings, course)
    return TutorService(
        retriever, llm=llm_from_settings(settings), embedder=getattr(retriever, "embedder", None), settings=settings
    )


def reply_json(reply: TutorReply) -> dict:
    """The JSON shape of `tutor ask --json`."""
    d = reply.to_dict()
    return {k: d[k] for k in ("intent", "reply", "citations", "grounding", "help_level", "mode", "usage")}


def format_citations(citations: list[Citation]) -> str:
    lines = []
    for i, c in enumerate(citations, 1):
        pages = f"p. {c.page_start}" if c.page_start == c.page_end else f"pp. {c.page_start}-{c.page_end}"
        lines.append(f"  [{i}] {c.source}, {pages}")
    return "\n".join(lines)


def _footer(reply: TutorReply) -> str:
    parts = [f"({reply.intent}, help level {reply.help_level}, {reply.mode} mode)"]
    if reply.citations:
        parts.insert(0, "Sources:\n" + format_citations(reply.citations))
    return "\n".join(parts)


def register(app: typer.Typer, eval_app: typer.Typer) -> None:  # noqa: ARG001 - no eval command here
    @app.command("ask")
    def ask(
        question: Annotated[str, typer.Argument(help="The learner's question.")],
        course: Annotated[str, typer.Option("--course", help="Course id (as created by `tutor courses create`).")],
        as_json: Annotated[
            bool,
            typer.Option(
                "--json",
                help="Print {intent, reply, citations, grounding, help_level, mode, usage} as one JSON object.",
            ),
        ] = False,
    ) -> None:
        """Answer one question from the course material, the Socratic way."""
        with user_errors():
            if not question.strip():
                from app.errors import UserError

                raise UserError("the question is empty", hint='ask something, e.g. tutor ask "what is A*?" --course ID')
            service = build_service(load_settings(), course)
            reply = service.answer(question)
        if as_json:
            print_json(reply_json(reply))
            return
        typer.echo(reply.reply)
        typer.echo("")
        typer.echo(_footer(reply))

    @app.command("chat")
    def chat(
        course: Annotated[str, typer.Option("--course", help="Course id (as created by `tutor courses create`).")],
    ) -> None:
        """An interactive tutoring session in the terminal: ask, get hints, follow up (help rises), /new, /quit."""
        with user_errors():
            service = build_service(load_settings(), course)
        typer.echo(CHAT_HELP)
        history: list[Turn] = []
        while True:
            typer.echo("you> ", nl=False)
            line = sys.stdin.readline()
            if not line:  # Ctrl-D
                typer.echo("")
                break
            message = line.strip()
            if not message:
                continue
            if message in ("/quit", "/exit", "/q"):
                break
            if message == "/new":
                history = []
                typer.echo("(new problem: help starts again at level 1)")
                continue
            typer.echo("tutor> ", nl=False)
            with user_errors():
                stream = service.stream(message, history)
                for piece in stream:
                    typer.echo(piece, nl=False)
                    sys.stdout.flush()
            reply = stream.reply
            assert reply is not None  # a finished stream always carries its reply
            typer.echo("")
            typer.echo(_footer(reply))
            history += [
                Turn("user", message, intent=reply.intent, help_level=reply.help_level),
                Turn("assistant", reply.reply, intent=reply.intent, help_level=reply.help_level),
            ]
        typer.echo("bye")
