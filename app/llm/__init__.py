"""The model seam: the `LLM` protocol, the OpenAI-compatible backend, and fakes for tests (re-exports only)."""

from app.llm.base import (
    LLM,
    CallRecord,
    Completion,
    Message,
    Request,
    Structured,
    TextStream,
    Tool,
    ToolCall,
    Usage,
)
from app.llm.fakes import FakeLLM, FunctionLLM, Reply, UnexpectedModelCall
from app.llm.guard import allow_model_requests
from app.llm.openai_compat import OpenAICompatibleLLM, llm_from_settings

__all__ = [
    "LLM",
    "CallRecord",
    "Completion",
    "FakeLLM",
    "FunctionLLM",
    "Message",
    "OpenAICompatibleLLM",
    "Reply",
    "Request",
    "Structured",
    "TextStream",
    "Tool",
    "ToolCall",
    "UnexpectedModelCall",
    "Usage",
    "allow_model_requests",
    "llm_from_settings",
]
