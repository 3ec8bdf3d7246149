"""Checking a parsed YAML document against a generated JSON Schema, with messages for people.

The data files that are not records (``protocol.yaml``, ``venues.yaml``) each publish a JSON Schema
for editors. :func:`schema_problems` walks that schema itself and reports what JSON Schema
validation would, at the file, line and column of each value, so the check agrees with the
published schema by construction without loading jsonschema (``masrl validate`` stays light);
tests compare the two. Only the keywords these schemas use are interpreted: type, properties,
required, additionalProperties, items, enum, pattern, minLength, minItems, uniqueItems, minimum.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping
from typing import Any

from masrl.base._problems import Problem, did_you_mean
from masrl.corpus._yaml import Document

_JSON_TYPES = {
    "object": "a mapping",
    "array": "a list",
    "string": "text",
    "integer": "a whole number",
    "number": "a number",
}


def dotted(path: tuple[str | int, ...]) -> str:
    """``('rounds', 0, 'id')`` as ``rounds[0].id``."""
    out = ""
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else part)
    return out


def schema_problems(
    doc: Document, schema: dict[str, Any], shown: str, pattern_hints: Mapping[str, str] | None = None
) -> Iterator[Problem]:
    """The problems JSON Schema validation of *doc* against *schema* would report.

    *pattern_hints* say what a string pattern asks for (``a date written YYYY-MM-DD``); a pattern
    without one is described as one line of text without surrounding spaces.
    """
    for path, message in _walk(schema, doc.data, (), pattern_hints or {}):
        mark = doc.mark(path)
        yield Problem(shown, mark.line, mark.column, dotted(path), message)


def _has_type(value: Any, json_type: str) -> bool:
    match json_type:
        case "object":
            return isinstance(value, dict)
        case "array":
            return isinstance(value, list)
        case "string":
            return isinstance(value, str)
        case "integer":
            return not isinstance(value, bool) and (
                isinstance(value, int) or (isinstance(value, float) and value.is_integer())
            )
        case "number":
            return not isinstance(value, bool) and isinstance(value, int | float)
    raise ValueError(f"the schema uses type {json_type!r}, which this check does not know")


def _walk(
    schema: dict[str, Any], value: Any, path: tuple[str | int, ...], hints: Mapping[str, str]
) -> Iterator[tuple[tuple[str | int, ...], str]]:
    """(path, message) for every way *value* breaks *schema*."""
    name = next((str(p) for p in reversed(path) if isinstance(p, str)), "value")
    if "enum" in schema and not (isinstance(value, str) and value in schema["enum"]):
        choices = ", ".join(f"'{x}'" for x in schema["enum"])
        shown = repr(value) if isinstance(value, str) else kind_of(value)
        hint = did_you_mean(value, list(schema["enum"])) if isinstance(value, str) else ""
        yield path, f"{name} must be one of {choices}, not {shown}{hint}"
        return
    json_type = schema.get("type")
    if json_type is not None and not _has_type(value, json_type):
        number = isinstance(value, float) and json_type == "integer"  # 2026.5 where a whole number belongs
        yield path, f"{name} must be {_JSON_TYPES[json_type]}, not " + (f"{value!r}" if number else kind_of(value))
        return
    if json_type == "object":
        props = schema.get("properties", {})
        if len(value) < schema.get("minProperties", 0):
            yield path, f"{name} must not be empty"
        for field in schema.get("required", ()):
            if field not in value:
                yield (*path, field), f"{field} is required"
        names = schema.get("propertyNames")
        extra = schema.get("additionalProperties")
        for key, item in value.items():
            if names is not None:
                yield from _walk({**names, "type": "string"}, key, (*path, key), hints)
            if key in props:
                yield from _walk(props[key], item, (*path, key), hints)
            elif extra is False:
                fields = list(props)
                yield (*path, key), f"unknown field{did_you_mean(key, fields)}; allowed fields are {', '.join(fields)}"
            elif isinstance(extra, dict):
                yield from _walk(extra, item, (*path, key), hints)
    elif json_type == "array":
        if len(value) < schema.get("minItems", 0):
            yield path, f"{name} must list at least one item"
        if schema.get("uniqueItems") and len({json.dumps(v, sort_keys=True) for v in value}) < len(value):
            yield path, f"{name} must not repeat an item"
        for i, item in enumerate(value):
            yield from _walk(schema.get("items", {}), item, (*path, i), hints)
    elif json_type == "string":
        if len(value) < schema.get("minLength", 0):
            yield path, f"{name} must not be empty"
        elif "pattern" in schema and not re.search(schema["pattern"], value):
            wanted = hints.get(schema["pattern"], "one line of text without surrounding spaces")
            yield path, f"{name} must be {wanted}, not {value!r}"
    elif json_type in ("integer", "number"):
        if "minimum" in schema and value < schema["minimum"]:
            yield path, f"{name} must be at least {schema['minimum']}, not {value}"
        elif "exclusiveMinimum" in schema and value <= schema["exclusiveMinimum"]:
            yield path, f"{name} must be more than {schema['exclusiveMinimum']}, not {value}"
        elif "maximum" in schema and value > schema["maximum"]:
            yield path, f"{name} must be at most {schema['maximum']}, not {value}"


def kind_of(value: Any) -> str:
    """What a value is, for messages: ``text``, ``a list``, ``empty``."""
    if value is None:
        return "empty"
    if isinstance(value, bool):
        return "true/false"
    return {str: "text", int: "a number", float: "a number", list: "a list", dict: "a mapping"}.get(
        type(value), type(value).__name__
    )
