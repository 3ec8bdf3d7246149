"""Reading a trace file: a fast path for good files, a careful path that explains bad ones.

The fast path decodes the bytes straight into the structs of :mod:`._model` with msgspec, which
checks every type, enum, bound, required and unknown field while it parses. A file it accepts
conforms to the published schema; nothing else is needed.

When the fast path refuses a file, the careful path finds out why, precisely:

1. the bytes must be UTF-8 and JSON (a leading byte-order mark is allowed), with no ``NaN`` or
   ``Infinity`` literal, no number too large for a 64-bit float and no string holding a lone
   surrogate (JSON Schema allows these three, but nothing could compute with or print them; the
   fast path refuses them too);
2. the top level must be an object;
3. the document is checked with ``jsonschema`` against the published schema, so messages name the
   JSON Pointer of each fault. To stay quick on large files the top level is checked on its own
   and each event, edge and attribution is first tried with msgspec; only the items msgspec
   refuses go through ``jsonschema`` (a document is valid exactly when its top level and every item
   are), and the report stops after :data:`MAX_BAD_ITEMS` faulty items.

A trace that declares ``schema_version`` is decoded into :class:`~._model.Trace`; one without it
into :class:`~._model.OriginalTrace`, the survey's original format. In the latter, an event key
this version types (``tokens``, ``cost``, ``end``, ``stage``, ``attributes`` ...) holding a value
of another shape is moved, whole, to ``metadata.opaque`` under its JSON Pointer, with a warning:
the original format left those keys open, so such a trace stays valid.

Nothing here raises on bad input or prints; problems come back as :class:`TraceProblem` values.
"""

from __future__ import annotations

import copy
import json
import math
import mmap
from collections.abc import Callable, Iterator
from functools import cache
from pathlib import Path
from typing import Any

import msgspec

from masrl.base._problems import did_you_mean, one_of
from masrl.trace import _model as m
from masrl.trace._problems import TraceProblem, pointer, show

MAX_BYTES = 256 * 1024 * 1024  # about 1.4 million events; larger files are refused, not read
BOM = b"\xef\xbb\xbf"
_MAP_FROM = 1024 * 1024  # files from this size are memory-mapped rather than read
MAX_BAD_ITEMS = 100  # items explained one by one; past this the report stops (a systematic fault)
_FLOAT_DIGITS = 308  # an integer with at most this many digits fits a 64-bit float
_INT_DIGITS = 4300  # Python reads no longer integer (sys.get_int_max_str_digits)
# Where a trace holds free-form JSON: (first step, third step) of their pointers.
_FREE_FORM = {("metadata", None), ("events", "attributes")}

# Arrays of the top level whose items have a definition of their own, with the item type; one
# table per profile (this version, and the original format).
_ITEMS: dict[str, tuple[str, Any]] = {
    "events": ("event", m.AnyEvent),
    "edges": ("edge", m.Edge),
    "attributions": ("attribution", m.Attribution),
}
_ORIGINAL_ITEMS: dict[str, tuple[str, Any]] = {
    "events": ("original_event", m.AnyOriginalEvent),
    "edges": ("original_edge", m.OriginalEdge),
    "attributions": ("attribution", m.Attribution),
}
_VERSION_KEY = b'"schema_version"'
_ENDS = 4096  # bytes at each end of a file looked at for _VERSION_KEY
OPAQUE = "opaque"  # the metadata key that keeps values of a shape this version does not read


@cache
def _decoder() -> msgspec.json.Decoder[m.Trace]:
    return msgspec.json.Decoder(m.Trace)


@cache
def _original_decoder() -> msgspec.json.Decoder[m.OriginalTrace]:
    return msgspec.json.Decoder(m.OriginalTrace)


@cache
def _added_fields() -> dict[str, Any]:
    """Event keys this version adds to the original format, with the type it reads them as."""
    return {
        f.encode_name: f.type for f in msgspec.structs.fields(m.Event) if f.encode_name not in m.ORIGINAL_EVENT_KEYS
    }


def read_trace(
    path: Path, shown: str, on_map: Callable[[mmap.mmap], None] | None = None
) -> tuple[m.AnyTrace | None, list[TraceProblem]]:
    """The trace in *path* (named *shown* in messages), or None and the reasons it is not one.

    A large file is memory-mapped rather than read, which saves a copy; msgspec copies out every
    string it keeps. *on_map*, when given, is called with the mapping before it is decoded.
    """
    try:
        size = path.stat().st_size
        if size > MAX_BYTES:
            return None, [
                TraceProblem(shown, "", f"file is {size:,} bytes; traces must be at most {MAX_BYTES:,} bytes")
            ]
        if size < _MAP_FROM:  # mapping costs more than it saves on a small file
            return decode(path.read_bytes(), shown)
        with path.open("rb") as handle, mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ) as mapped:
            if on_map is not None:
                on_map(mapped)
            trace = decode_fast(mapped)
            if trace is not None:
                return trace, []
            raw = mapped[:]
    except (OSError, ValueError) as exc:
        return None, [TraceProblem(shown, "", f"cannot read file: {getattr(exc, 'strerror', None) or exc}")]
    return decode(raw, shown)


def decode(raw: bytes, shown: str) -> tuple[m.AnyTrace | None, list[TraceProblem]]:
    """Decode *raw* bytes; see the module docstring for the two paths."""
    trace = decode_fast(raw)
    if trace is not None:
        return trace, []
    return _careful(raw[len(BOM) :] if raw.startswith(BOM) else raw, shown)


def decode_fast(raw: bytes | mmap.mmap) -> m.AnyTrace | None:
    """Only the fast path: the trace, or None if msgspec refuses the bytes (a leading BOM is skipped).

    A trace that declares ``schema_version`` is decoded as this version, one without it as the
    original format. Writers put that key first or last, so both ends of the file are looked at
    to choose which to try first (scanning all of a large file would cost more); if the first try
    fails, the other is tried, so the choice only saves time and never changes the answer.
    """
    if raw[: len(BOM)] == BOM:
        raw = raw[len(BOM) :]
    decoders: tuple[msgspec.json.Decoder[Any], ...] = (_original_decoder(), _decoder())
    if _VERSION_KEY in raw[:_ENDS] or _VERSION_KEY in raw[-_ENDS:]:
        decoders = decoders[::-1]
    for decoder in decoders:
        try:
            trace: m.AnyTrace = decoder.decode(raw)
        except (msgspec.MsgspecError, RecursionError):
            continue
        return trace
    return None


# ---------------------------------------------------------------------------------------------
# The careful path


class _Literal:
    """Stands in for a number a 64-bit float cannot hold (NaN, Infinity, 1e999, 10**400).

    *value* is the integer itself when it is one Python can read: free-form fields (attributes,
    metadata) may hold any JSON, so there the integer is put back, as the fast path keeps it.
    """

    def __init__(self, text: str, value: int | None = None) -> None:
        self.text = text
        self.value = value


def _parse_constant(text: str) -> _Literal:
    return _Literal(text)


def _parse_float(text: str) -> float | _Literal:
    value = float(text)
    return value if math.isfinite(value) else _Literal(text)


def _parse_int(text: str) -> int | _Literal:
    if len(text.lstrip("-")) <= _FLOAT_DIGITS:
        return int(text)
    if len(text.lstrip("-")) > _INT_DIGITS:
        return _Literal(text)
    value = int(text)
    try:
        float(value)
    except OverflowError:
        return _Literal(text, value)
    return value


def _careful(raw: bytes, shown: str) -> tuple[m.AnyTrace | None, list[TraceProblem]]:
    def whole(message: str, where: str = "") -> tuple[None, list[TraceProblem]]:
        return None, [TraceProblem(shown, where, message)]

    if not raw.strip():
        return whole("file is empty; a trace is one JSON object with trace_id, events and edges")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        column = exc.start - (raw.rfind(b"\n", 0, exc.start) + 1) + 1
        return whole(
            f"file must be UTF-8: byte 0x{raw[exc.start]:02x} is not valid UTF-8", f"line {line} column {column}"
        )
    try:
        data = json.loads(text, parse_constant=_parse_constant, parse_float=_parse_float, parse_int=_parse_int)
    except json.JSONDecodeError as exc:
        return whole(f"not valid JSON: {exc.msg}", f"line {exc.lineno} column {exc.colno}")
    except RecursionError:
        return whole("JSON nests too deeply to read; a trace nests only a few levels")
    unreadable = [TraceProblem(shown, where, message) for where, message in _unreadable(data)]
    if unreadable:
        return None, unreadable
    if not isinstance(data, dict):
        return whole(f"a trace must be a JSON object with trace_id, events and edges, not {_what(data)}")
    kept = [TraceProblem(shown, where, message, warning=True) for where, message in set_aside(data)]
    problems = [TraceProblem(shown, where, message) for where, message in schema_problems(data)]
    if problems:
        return None, problems
    try:
        if "schema_version" in data:
            return msgspec.convert(data, m.Trace), kept
        return msgspec.convert(data, m.OriginalTrace), kept
    except msgspec.ValidationError as exc:  # pragma: no cover - the schema and the model disagree
        return whole(f"does not match the trace format: {exc}")


# What this version reads in the event keys it adds, for the warning about a value of another shape.
_SHAPES = {
    "end": "a number at least 0",
    "duration": "a number at least 0",
    "parent": "a non-empty string",
    "stage": "a non-empty string",
    "tokens": "an object of whole input and output counts",
    "cost": "an object of numbers at least 0",
    "attributes": "an object",
}


def set_aside(data: dict[str, Any]) -> list[tuple[str, str]]:
    """In a trace of the original format, move event values of a shape this version does not read.

    Each such value goes, whole, to ``metadata.opaque`` under its JSON Pointer; a warning says so.
    Traces that declare ``schema_version``, and values of the right shape, are left alone.
    """
    events = data.get("events")
    if "schema_version" in data or not isinstance(events, list):
        return []
    added = _added_fields()
    found: list[tuple[str, str]] = []
    opaque: dict[str, Any] = {}
    for i, event in enumerate(events):
        if not isinstance(event, dict):
            continue
        for key in added.keys() & event.keys():
            try:
                msgspec.convert(event[key], added[key])
            except msgspec.ValidationError as exc:
                where = pointer("events", i, key)
                opaque[where] = event.pop(key)
                expected = _SHAPES.get(key, str(exc))
                found.append(
                    (
                        where,
                        f"{key} holds {_what(opaque[where])}, while this version reads {key} as {expected}; "
                        f"the value is kept unread in /metadata/{OPAQUE}, as the original format allows any value",
                    )
                )
    if opaque:
        metadata = data.setdefault("metadata", {})
        held = metadata.setdefault(OPAQUE, {}) if isinstance(metadata, dict) else None
        if isinstance(held, dict):
            held.update(opaque)
    return found


def _cut(text: str, limit: int = 60) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _unreadable(data: Any) -> Iterator[tuple[str, str]]:
    """Numbers a 64-bit float cannot hold and text that is not Unicode, with their pointers.

    These are valid JSON Schema instances, but nothing downstream could compute with or print
    them, so the validator refuses them (the fast path already does). A large integer in a
    free-form field is put back in place instead (see :class:`_Literal`). The walk is iterative,
    as the data may nest deeply.
    """
    stack: list[tuple[tuple[str | int, ...], Any, Any]] = [((), data, None)]
    while stack:
        steps, value, holder = stack.pop()
        if isinstance(value, _Literal):
            free = (steps[0], steps[2] if len(steps) > 2 and steps[0] == "events" else None) in _FREE_FORM
            if free and value.value is not None:
                holder[steps[-1]] = value.value
            elif value.text.lstrip("-") in ("NaN", "Infinity"):
                yield pointer(*steps), f"{value.text} is not valid JSON; numbers must be finite"
            else:
                yield pointer(*steps), f"{_cut(value.text)} is too large for a 64-bit float; numbers must be finite"
        elif isinstance(value, str):
            yield from _lone_surrogate(value, steps)
        elif isinstance(value, dict):
            for k, v in value.items():
                yield from _lone_surrogate(k, (*steps, k))
                stack.append(((*steps, k), v, value))
        elif isinstance(value, list):
            stack.extend(((*steps, i), v, value) for i, v in enumerate(value))


def _lone_surrogate(text: str, steps: tuple[str | int, ...]) -> Iterator[tuple[str, str]]:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        code = ord(text[exc.start])
        yield (
            pointer(*steps).encode("utf-8", "backslashreplace").decode("ascii"),
            f"text holds a lone surrogate \\u{code:04x}, which is not a character; strings must be valid Unicode",
        )


# ---------------------------------------------------------------------------------------------
# jsonschema, with messages in the project's words


@cache
def _validators() -> tuple[Any, dict[str, Any]]:
    """A validator for the top level alone (items left out), and one per item definition."""
    import jsonschema

    from masrl.trace._schema import ORIGINAL_TRACE_DEF, TRACE_DEF, trace_schema

    schema = trace_schema()
    top = copy.deepcopy(schema)
    for definition in (TRACE_DEF, ORIGINAL_TRACE_DEF):
        for name in _ITEMS:
            top["$defs"][definition]["properties"][name]["items"] = True
    items = {
        definition: jsonschema.Draft202012Validator(
            {"$schema": schema["$schema"], "$defs": schema["$defs"], "$ref": f"#/$defs/{definition}"}
        )
        for definition, _ in [*_ITEMS.values(), *_ORIGINAL_ITEMS.values()]
    }
    return jsonschema.Draft202012Validator(top), items


def schema_problems(data: dict[str, Any]) -> list[tuple[str, str]]:
    """(pointer, message) for every way *data* breaks the published schema.

    For a trace of the original format, call :func:`set_aside` first: the schema accepts any value
    in the keys it sets aside, but the structs do not.
    """
    top, items = _validators()
    found = [msg for error in top.iter_errors(data) for msg in _messages(error, ())]
    failed = 0
    table = _ITEMS if "schema_version" in data else _ORIGINAL_ITEMS
    for name, (definition, kind) in table.items():
        values = data.get(name)
        if not isinstance(values, list):
            continue
        for i, item in enumerate(values):
            try:
                msgspec.convert(item, kind)
                continue
            except msgspec.ValidationError as exc:
                refused = str(exc)
            failed += 1
            if failed > MAX_BAD_ITEMS:
                found.append(("", f"stopped after {MAX_BAD_ITEMS} events, edges and attributions with problems"))
                return sorted(set(found))
            errors = list(items[definition].iter_errors(item))
            messages = [msg for error in errors for msg in _messages(error, (name, i))]
            found.extend(
                messages or [(pointer(name, i), f"{_ITEM_NAMES[name]} does not match the trace format: {refused}")]
            )
    return sorted(set(found))


_JSON_TYPES = {
    "string": "a string",
    "number": "a number",
    "integer": "a whole number",
    "object": "an object",
    "array": "an array",
    "boolean": "true or false",
}


def _what(value: Any) -> str:
    if isinstance(value, bool) or value is None:
        return show(value)
    if isinstance(value, str):
        return f"the string {show(value)}"
    if isinstance(value, (int, float)):
        return f"the number {show(value)}"
    return show(value)


_ITEM_NAMES = {"events": "event", "edges": "edge", "attributions": "attribution"}


def _name(steps: tuple[str | int, ...]) -> str:
    """What a message calls the value at *steps*: its key, or 'event' for an item of events."""
    if not steps:
        return "trace"
    last = steps[-1]
    if isinstance(last, int):
        return _ITEM_NAMES.get(str(steps[-2]), "item") if len(steps) > 1 else "item"
    return last


def _messages(error: Any, prefix: tuple[str | int, ...]) -> Iterator[tuple[str, str]]:
    """Turn one jsonschema error into (pointer, message) pairs phrased as 'X must ...'."""
    steps = (*prefix, *error.absolute_path)
    where, name = pointer(*steps), _name(steps)
    instance, expected, kind = error.instance, error.validator_value, error.validator
    if kind == "type":
        yield where, f"{name} must be {_JSON_TYPES.get(expected, expected)}, not {_what(instance)}"
    elif kind == "enum":
        allowed = [str(x) for x in expected]
        hint = did_you_mean(instance, allowed) if isinstance(instance, str) else ""
        yield where, f"{name} must be one of {one_of(allowed)}, not {_what(instance)}{hint}"
    elif kind == "required":
        when = ""
        if list(error.schema_path)[-2:-1] == ["then"] and isinstance(instance.get("type"), str):
            when = f" for {instance['type']} events"
        properties = error.schema.get("properties") or _event_properties()
        for missing in (p for p in expected if p not in instance):
            about = properties.get(missing, {}).get("description", "")
            yield pointer(*steps, missing), f"{missing} is required{when}" + (f": {about}" if about else "")
    elif kind == "additionalProperties" and expected is False:
        allowed = list(error.schema.get("properties", {}))
        for extra in (k for k in instance if k not in allowed):
            yield (
                pointer(*steps, extra),
                f"{name} has an unknown field {extra!r}{did_you_mean(extra, allowed)}; "
                f"allowed fields are {', '.join(allowed)}",
            )
    elif kind == "minimum":
        yield where, f"{name} must be at least {expected}, not {show(instance)}"
    elif kind == "minLength":
        yield where, f"{name} must not be empty"
    elif kind == "minItems":
        yield where, f"{name} must hold at least {expected} item{'s' if expected != 1 else ''}"
    else:  # pragma: no cover - the schema uses no other keyword
        yield where, error.message


@cache
def _event_properties() -> dict[str, Any]:
    """The event definition's properties: descriptions for fields an event type requires."""
    from masrl.trace._schema import trace_schema

    return dict(trace_schema()["$defs"]["event"]["properties"])
