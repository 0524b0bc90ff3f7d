"""Structured output: the JSON schema we send, how a reply is validated, and what the one retry says.

OpenAI-compatible servers take `response_format={"type": "json_schema", "json_schema": {name, schema, strict}}`
(OpenAI "Structured Outputs" guide; vLLM and llama.cpp accept the same shape and constrain decoding with it).
The reply is validated with pydantic either way, since not every server enforces the schema.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

T = TypeVar("T", bound=BaseModel)


def strict_json_schema(schema: type[BaseModel]) -> tuple[dict[str, Any], bool]:
    """The model's JSON schema made fit for OpenAI structured outputs, and whether `strict` mode can be used.

    Strict mode (OpenAI "Structured Outputs" guide, "Supported schemas") needs every object to list all its
    properties as required and to forbid additional properties. We add `additionalProperties: false` everywhere;
    a field with a default (so not required) makes the schema non-strict, which still works, only unenforced.
    """
    out = schema.model_json_schema()
    strict = True

    def walk(node: Any) -> None:
        nonlocal strict
        if isinstance(node, dict):
            if node.get("type") == "object" or "properties" in node:
                node.setdefault("additionalProperties", False)
                if set(node.get("properties", {})) != set(node.get("required", [])):
                    strict = False
                if node["additionalProperties"] is not False:
                    strict = False
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(out)
    return out, strict


def response_format_for(schema: type[BaseModel]) -> dict[str, Any]:
    """The `response_format` asking an OpenAI-compatible server for JSON matching `schema`."""
    json_schema, strict = strict_json_schema(schema)
    name = re.sub(r"[^a-zA-Z0-9_-]", "_", schema.__name__)[:64]
    return {"type": "json_schema", "json_schema": {"name": name, "schema": json_schema, "strict": strict}}


_FENCE = re.compile(r"^\s*```(?:json)?\s*\n(.*)\n\s*```\s*$", re.DOTALL)


def validate_reply(schema: type[T], text: str | None) -> T:
    """Parse and validate a reply; local models sometimes wrap JSON in a ``` fence, which we accept."""
    if text is None:
        raise ValueError("the reply had no text (tool calls or an empty message instead of JSON)")
    fenced = _FENCE.match(text)
    return schema.model_validate_json(fenced.group(1) if fenced else text)


def describe_invalid(error: ValidationError | ValueError) -> str:
    """One line naming what was wrong with a reply, for the retry prompt and for `LLMOutputError`."""
    if not isinstance(error, ValidationError):
        return str(error)
    parts = []
    for err in error.errors(include_url=False):
        if err["type"] == "json_invalid":
            parts.append(f"invalid JSON ({err['msg'].removeprefix('Invalid JSON: ')})")
        else:
            loc = ".".join(str(p) for p in err["loc"]) or "(root)"
            parts.append(f"{loc}: {err['msg']}")
    return "; ".join(parts)


def retry_prompt(schema: type[BaseModel], problem: str) -> str:
    return (
        f"Your reply did not match the required JSON schema for {schema.__name__}: {problem}. "
        "Answer again with only one JSON object that matches the schema, no other text."
    )


def minimal_instance(schema: Mapping[str, Any], root: Mapping[str, Any] | None = None) -> Any:
    """The smallest value that validates against a JSON schema: required properties only, null where allowed,
    the first enum value or union member, minimum lengths and bounds."""
    root = root if root is not None else schema
    if "$ref" in schema:
        ref = schema["$ref"]
        if not ref.startswith("#/"):
            raise ValueError(f"only local $refs are supported, got {ref}")
        target: Any = root
        for part in ref[2:].split("/"):
            target = target[part]
        return minimal_instance(target, root)
    if "const" in schema:
        return schema["const"]
    if schema.get("enum"):
        return schema["enum"][0]
    for key in ("anyOf", "oneOf"):
        if schema.get(key):
            if any(option.get("type") == "null" for option in schema[key]):
                return None
            return minimal_instance(schema[key][0], root)
    if schema.get("allOf"):
        merged: dict[str, Any] = {}
        for part in schema["allOf"]:
            merged.update(part)
        return minimal_instance(merged, root)
    kind = schema.get("type", "object" if "properties" in schema else "null")
    if isinstance(kind, list):
        kind = "null" if "null" in kind else kind[0]
    if kind == "object":
        properties = schema.get("properties", {})
        return {name: minimal_instance(properties.get(name, {}), root) for name in schema.get("required", [])}
    if kind == "array":
        return [minimal_instance(schema.get("items", {}), root) for _ in range(schema.get("minItems", 0))]
    if kind == "string":
        formats = {"date-time": "1970-01-01T00:00:00Z", "date": "1970-01-01", "time": "00:00:00",
                   "uuid": "00000000-0000-0000-0000-000000000000", "email": "mock@example.com",
                   "uri": "http://example.com/"}
        return formats.get(schema.get("format", ""), "x" * schema.get("minLength", 0))
    if kind in ("integer", "number"):
        if "minimum" in schema:
            value = schema["minimum"]
        elif "exclusiveMinimum" in schema:
            value = schema["exclusiveMinimum"] + 1
        else:
            value = 0
        return int(value) if kind == "integer" else value
    if kind == "boolean":
        return False
    return None
