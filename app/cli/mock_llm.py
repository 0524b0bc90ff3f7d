"""`tutor mock-llm`: run the mock OpenAI-compatible server to try LLM mode without a model."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from app.cli.common import print_json, user_errors

MOCK_MODEL = "mock-model"


def env_for(base_url: str, model: str = MOCK_MODEL) -> dict[str, str]:
    """The settings that point the tutor at a server."""
    return {"TUTOR_LLM_BASE_URL": base_url, "TUTOR_LLM_MODEL": model, "TUTOR_LLM_API_KEY": "mock"}


def register(app: typer.Typer, eval_app: typer.Typer) -> None:
    @app.command("mock-llm")
    def mock_llm(
        port: Annotated[int, typer.Option("--port", help="Port to listen on (0: any free port).")] = 8787,
        host: Annotated[str, typer.Option("--host", help="Address to bind; keep it on loopback.")] = "127.0.0.1",
        script: Annotated[
            Path | None,
            typer.Option(
                "--script",
                help='Replies to play in order: a JSON list or JSON lines of {"text"}, {"json"}, {"tool_calls"} or '
                '{"fault": 500|"timeout"|"invalid_json"}. Afterwards (or without a script) it echoes, or answers '
                "a minimal instance of the requested JSON schema.",
                show_default=False,
            ),
        ] = None,
        as_json: Annotated[
            bool, typer.Option("--json", help="Print {base_url, env} as one JSON object before serving.")
        ] = False,
    ) -> None:
        """Serve a scripted OpenAI-compatible API (POST /v1/chat/completions, GET /v1/models) until Ctrl-C."""
        from app.llm.mock_server import MockLLMServer

        def announce(url: str) -> None:
            env = env_for(url)
            if as_json:
                print_json({"base_url": url, "env": env, "scripted_replies": server.pending})
                return
            typer.echo(f"mock LLM server on {url} ({server.pending} scripted replies); Ctrl-C stops it")
            typer.echo("to try LLM mode, in another shell:")
            for name, value in env.items():
                typer.echo(f"  export {name}={value}")

        with user_errors():
            server = MockLLMServer(script, host=host, port=port, model=MOCK_MODEL)
            server.serve(on_ready=announce)
