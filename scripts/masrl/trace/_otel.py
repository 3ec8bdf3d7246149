"""Import OpenTelemetry spans of agent frameworks (OTLP/JSON) as orchestration traces.

Input: the OTLP/JSON shape, ``resourceSpans -> scopeSpans -> spans``, each span with ``traceId``,
``spanId``, ``parentSpanId``, ``name``, ``startTimeUnixNano``, ``endTimeUnixNano``,
``attributes`` as ``{key, value: {stringValue | intValue | doubleValue | boolValue | ...}}``
(64-bit integers may be written as strings, as the protobuf JSON mapping does), and optionally
``status`` and ``events``. A file may hold one export, or one export per line (JSON Lines, as the
OpenTelemetry Collector's file exporter writes); an export may hold many traces.

Two attribute conventions are read, span by span:

* the OpenTelemetry semantic conventions for generative AI, by ``gen_ai.operation.name``:
  ``invoke_agent`` (agent from ``gen_ai.agent.name``, else ``gen_ai.agent.id``), ``create_agent``,
  ``execute_tool`` (``gen_ai.tool.name``), ``chat`` / ``text_completion`` / ``generate_content``
  (a model call; ``gen_ai.request.model``), and ``agent_handoff`` / ``handoff``
  (``gen_ai.handoff.to_agent``); tokens from ``gen_ai.usage.input_tokens`` / ``output_tokens``;
* OpenInference, by ``openinference.span.kind``: ``AGENT`` (``agent.name``; one that names no
  agent while agents inside it do is a workflow span, like an unnamed ``invoke_agent``), ``TOOL``
  (``tool.name``), ``LLM`` (``llm.model_name``; tokens from ``llm.token_count.prompt`` /
  ``completion``); a ``CHAIN`` span starts an agent's work when it names an agent other than the
  one already acting (``agent.name``, ``graph.node.name`` / ``graph.node.id``, or the outermost
  LangGraph node of its ``metadata``).

Mapping:

* an agent span inside another agent's work: a ``spawn`` by that agent at its start (a
  ``message`` delegating new work when the agent is already known) and a ``return`` to it at the
  end; ``create_agent``: a ``spawn``;
* the agent spans of the top level (no mapped span above them, such as the agents of a workflow
  or swarm span that names no agent): the first opens with an ``orchestrator_decision``. Each
  later step follows every earlier step that is over when it starts and that no step followed yet
  (steps run side by side all lead to the next); when it is another agent's, it is handed over by
  a ``spawn`` (or ``message``): from a handoff span, else from a tool call that hands the work
  over, else by the agent OpenInference names as the graph node before it
  (``graph.node.parent_id``), else, with a warning, by the agent whose step ended last. A step
  that starts while every open step still runs goes alongside them (an agent not met yet counted
  as spawned by the node it names, else by the root, with a warning). Each top-level agent that no
  step follows closes with an ``aggregate``;
* a tool span: a ``tool_call`` by the acting agent, lasting the span, and a ``tool_result`` by the
  tool at its end; a model call: a ``message`` from the acting agent to the model, with its tokens.
  A call whose span holds other mapped spans (a tool that runs a sub-agent) gets no ``end``: its
  time is that of the events inside it, so no time is counted twice. An agent span that runs
  wholly inside a sibling tool span (a delegation whose span context was not passed on) is moved
  into it first;
* a model or tool span outside any agent's work is credited to the agent it names, else to the
  agent acting at the top level when it starts (a workflow's step between agent spans), else to
  the service (``service.name``), with a warning: a lone chat span is a one-agent trace.

Framework departures from these conventions are read by the named adaptations of
:mod:`masrl.trace._otel_frameworks` (which agent a span names, which spans are no call, which tool
calls hand the work over or to a coworker).

An agent span's own usage is kept only when no span inside it reports usage, so nothing is counted
twice. A span with status ERROR or an ``exception`` event marks its event (the tool result, the
model message, the return or aggregate) with ``status: error`` and the message in ``error``.
Times become seconds from the trace's earliest span; a span lasts at least until its last event
(a streamed answer's first token may come after the span closed). Parent and child spans become
``parent`` links and edges: from a span's first event to each child that starts it off, from each
child to the next sibling that starts after it ends (a sibling that starts while the ones before
it still run, such as the calls one model turn asks for at once, follows what the latest of them
followed), and from the last children to the span's closing event. A child that starts before its
parent or ends after it (clock skew) is moved inside it.

Every span that maps to no event (another operation or kind, no agent to act, a missing time) is
kept, with its reason, in ``metadata.unmapped_spans`` and reported; its mapped descendants attach
to its nearest mapped ancestor.
"""

from __future__ import annotations

import heapq
import json
import math
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import msgspec
from msgspec import UNSET

from masrl.trace import _content
from masrl.trace import _model as m
from masrl.trace import _otel_frameworks as fw
from masrl.trace._problems import pointer

OPERATION = "gen_ai.operation.name"
AGENT_NAME = "gen_ai.agent.name"
AGENT_ID = "gen_ai.agent.id"
TOOL_NAME = "gen_ai.tool.name"
TOOL_CALL_ID = "gen_ai.tool.call.id"
INPUT_TOKENS = "gen_ai.usage.input_tokens"
OUTPUT_TOKENS = "gen_ai.usage.output_tokens"
REQUEST_MODEL = "gen_ai.request.model"
RESPONSE_MODEL = "gen_ai.response.model"
HANDOFF_TO = "gen_ai.handoff.to_agent"
PROVIDER = ("gen_ai.provider.name", "gen_ai.system")  # the newer name first
SERVICE_NAME = "service.name"

OI_KIND = "openinference.span.kind"
OI_AGENT = "agent.name"
OI_NODE = ("graph.node.name", "graph.node.id")
OI_TOOL = "tool.name"
OI_MODEL = "llm.model_name"
OI_TOKENS = ("llm.token_count.prompt", "llm.token_count.completion")
OI_METADATA = "metadata"
OI_NODE_ID, OI_PARENT_NODE = "graph.node.id", "graph.node.parent_id"  # a graph's node, and the one before it

INVOKE_AGENT = "invoke_agent"
CREATE_AGENT = "create_agent"
EXECUTE_TOOL = "execute_tool"
MODEL_CALLS = ("chat", "text_completion", "generate_content")  # drawn as messages to the model
HANDOFFS = ("agent_handoff", "handoff")
KEPT = (OPERATION, REQUEST_MODEL, TOOL_CALL_ID, AGENT_ID, OI_KIND)  # attributes copied to the events
GEN_AI_SOURCE = "OpenTelemetry OTLP/JSON, GenAI semantic conventions"
OI_SOURCE = "OpenTelemetry OTLP/JSON, OpenInference semantic conventions"

_NS = 1_000_000_000
_ERROR_CODES = (2, "STATUS_CODE_ERROR", "ERROR")


class OtelError(Exception):
    """The file is not an OTLP/JSON trace export that can be imported at all."""

    def __init__(self, where: str, message: str) -> None:
        super().__init__(message)
        self.where = where
        self.message = message


@dataclass(slots=True)
class Span:
    """One span as read from the export."""

    place: tuple[str, int, int, int]  # prefix ("line N: " in JSON Lines) and resourceSpans, scopeSpans, spans indexes
    trace_id: str
    span_id: str
    parent_id: str
    name: str
    start: int  # nanoseconds
    end: int
    attributes: dict[str, Any]
    error: str | None = None  # the error message when the span failed
    failed: bool = False
    children: list[Span] = field(default_factory=list)
    parent: Span | None = None
    usage_below: bool | None = None  # whether a span inside this one reports usage (computed once)
    events: Any = None  # the span's events as read (message content may be there)

    @property
    def where(self) -> str:
        """JSON Pointer of the span in the file (after ``line N: `` in JSON Lines)."""
        prefix, r, s, k = self.place
        return prefix + pointer("resourceSpans", r, "scopeSpans", s, "spans", k)

    @property
    def operation(self) -> Any:
        return self.attributes.get(OPERATION)

    @property
    def label(self) -> str | None:
        """What kind of span this is, as its convention says (for reports)."""
        op = self.attributes.get(OPERATION)
        if isinstance(op, str):
            return op
        kind = self.attributes.get(OI_KIND)
        return f"openinference {kind}" if isinstance(kind, str) else None


@dataclass
class Unmapped:
    """A span the importer could not turn into events, and why."""

    where: str
    span_id: str
    name: str
    operation: str | None
    reason: str

    def as_json(self) -> dict[str, Any]:
        return {"span_id": self.span_id, "name": self.name, "operation": self.operation, "reason": self.reason}


@dataclass
class Imported:
    """The result of an import: the trace, what could not be mapped, and what was guessed."""

    trace: m.Trace
    unmapped: list[Unmapped]
    spans: int
    adjusted: int
    warnings: list[str] = field(default_factory=list)
    content: dict[str, dict[str, Any]] = field(default_factory=dict)  # content_ref -> a model call's messages


@dataclass
class Skipped:
    """A trace of the export that maps to no event at all, and why."""

    trace_id: str
    spans: int
    unmapped: list[Unmapped]


# ---------------------------------------------------------------------------------------------
# Reading the export


def _value(any_value: Any) -> Any:
    """The Python value of an OTLP ``AnyValue``; raises ValueError when it is malformed."""
    if not isinstance(any_value, dict) or len(any_value) != 1:
        raise ValueError("an attribute value must be an object with exactly one of stringValue, intValue, ...")
    ((kind, raw),) = any_value.items()
    if kind == "stringValue" and isinstance(raw, str):
        return raw
    if kind == "boolValue" and isinstance(raw, bool):
        return raw
    if kind == "intValue" and (_whole(raw) or isinstance(raw, int)) and not isinstance(raw, bool):
        return int(raw)
    if kind == "doubleValue" and isinstance(raw, (int, float, str)) and not isinstance(raw, bool):
        number = float(raw)
        if not math.isfinite(number):
            raise ValueError("doubleValue must be finite")
        return number
    if kind == "arrayValue" and isinstance(raw, dict):
        return [_value(v) for v in raw.get("values", [])]
    if kind == "kvlistValue" and isinstance(raw, dict):
        return {kv["key"]: _value(kv.get("value")) for kv in raw.get("values", [])}
    if kind == "bytesValue" and isinstance(raw, str):
        return raw
    raise ValueError(f"{kind} does not hold a value of the right kind")


def _attributes(raw: Any) -> dict[str, Any]:
    """The attributes of a span, event or resource as a dict; raises ValueError when malformed."""
    if raw is None:
        return {}
    if not isinstance(raw, list):
        raise ValueError("attributes must be an array of {key, value}")
    out: dict[str, Any] = {}
    for k, item in enumerate(raw):
        if not isinstance(item, dict) or not isinstance(item.get("key"), str):
            raise ValueError(f"attribute {k} must be an object with a string key")
        value = item.get("value")
        if type(value) is dict and len(value) == 1:  # the common cases, without a call
            text = value.get("stringValue")
            if type(text) is str:
                out[item["key"]] = text
                continue
            number = value.get("intValue")
            if type(number) is int or (type(number) is str and _whole(number)):
                out[item["key"]] = int(number)
                continue
        try:
            out[item["key"]] = _value(value)
        except (ValueError, TypeError, KeyError) as exc:
            raise ValueError(f"attribute {item['key']!r}: {exc}") from None
    return out


def _whole(raw: Any) -> bool:
    """A whole number written as a string, as the protobuf JSON mapping writes 64-bit integers."""
    return isinstance(raw, str) and raw.removeprefix("-").isdigit() and len(raw) < 40


def _nanos(raw: Any) -> int:
    if type(raw) is str and raw.isascii() and raw.isdigit() and len(raw) < 40:  # as the protobuf JSON mapping writes
        return int(raw)
    if isinstance(raw, bool) or not (isinstance(raw, int) or _whole(raw)):
        raise ValueError("must be a whole number of nanoseconds since the Unix epoch")
    value = int(raw)
    if value < 0:
        raise ValueError("must not be negative")
    return value


def read_spans(
    data: Any, *, prefix: str = "", problems: list[tuple[str, str]] | None = None
) -> tuple[list[Span], list[Unmapped], dict[str, Any]]:
    """Every span of the export, the spans that could not be read, and the resource attributes.

    A part of the export that is not shaped as OTLP/JSON raises :class:`OtelError`; with
    *problems* given, it is listed there as (place, message) instead and the rest is read.
    *prefix* is put before every place (``line 3: `` in JSON Lines).
    """
    spans: list[Span] = []
    broken: list[Unmapped] = []
    resource: dict[str, Any] = {}

    def fail(where: str, message: str) -> None:
        if problems is None:
            raise OtelError(prefix + where, message)
        problems.append((prefix + (where or "(file)"), message))

    if not isinstance(data, dict) or not isinstance(data.get("resourceSpans"), list):
        fail("", "an OTLP/JSON trace export is an object with a resourceSpans array")
        return spans, broken, resource
    for r, resource_spans in enumerate(data["resourceSpans"]):
        if not isinstance(resource_spans, dict):
            fail(pointer("resourceSpans", r), "each resourceSpans item must be an object")
            continue
        try:
            resource.update(_attributes((resource_spans.get("resource") or {}).get("attributes")))
        except (ValueError, AttributeError):
            fail(pointer("resourceSpans", r, "resource"), "resource attributes are malformed")
            continue
        scopes = resource_spans.get("scopeSpans", [])
        if not isinstance(scopes, list):
            fail(pointer("resourceSpans", r, "scopeSpans"), "scopeSpans must be an array")
            continue
        for s, scope in enumerate(scopes):
            items = scope.get("spans", []) if isinstance(scope, dict) else None
            if not isinstance(items, list):
                fail(pointer("resourceSpans", r, "scopeSpans", s), "a scopeSpans item holds a spans array")
                continue
            for k, raw in enumerate(items):
                span = _span(raw, (prefix, r, s, k), broken)
                if span is not None:
                    spans.append(span)
    return spans, broken, resource


def _span(raw: Any, place: tuple[str, int, int, int], broken: list[Unmapped]) -> Span | None:
    def where() -> str:
        prefix, r, s, k = place
        return prefix + pointer("resourceSpans", r, "scopeSpans", s, "spans", k)

    if not isinstance(raw, dict):
        broken.append(Unmapped(where(), "", "", None, "a span must be an object"))
        return None
    span_id, name = raw.get("spanId"), raw.get("name")
    shown_id = span_id if isinstance(span_id, str) else ""
    shown_name = name if isinstance(name, str) else ""
    try:
        if not isinstance(span_id, str) or not span_id:
            raise ValueError("spanId must be a non-empty string")
        trace_id = raw.get("traceId")
        if not isinstance(trace_id, str) or not trace_id:
            raise ValueError("traceId must be a non-empty string")
        parent = raw.get("parentSpanId") or ""
        if not isinstance(parent, str):
            raise ValueError("parentSpanId must be a string")
        try:
            start = _nanos(raw.get("startTimeUnixNano"))
            end = _nanos(raw.get("endTimeUnixNano"))
        except ValueError as exc:
            raise ValueError(f"startTimeUnixNano and endTimeUnixNano {exc}") from None
        attributes = _attributes(raw.get("attributes"))
    except ValueError as exc:
        broken.append(Unmapped(where(), shown_id, shown_name, None, str(exc)))
        return None
    operation = attributes.get(OPERATION)
    if operation is not None and not isinstance(operation, str):
        broken.append(Unmapped(where(), span_id, shown_name, None, f"{OPERATION} must be a string"))
        return None
    span = Span(place, trace_id, span_id, parent, shown_name, start, max(start, end), attributes)
    span.events = raw.get("events")
    _outcome(span, raw.get("status"), raw.get("events"))
    return span


def _outcome(span: Span, status: Any, events: Any) -> None:
    """Whether *span* failed (status ERROR, or an exception event), and its error message.

    A span lasts at least until its last event: an event recorded after the span's end (the first
    token of a streamed answer, when the span closed as the stream was handed over) moves the end.
    """
    message = None
    if isinstance(status, dict) and status.get("code") in _ERROR_CODES:
        span.failed = True
        text = status.get("message")
        message = text if isinstance(text, str) and text else None
    if isinstance(events, list):
        for event in events:
            if not isinstance(event, dict):
                continue
            at = event.get("timeUnixNano")
            if (type(at) is str and at.isascii() and at.isdigit() and len(at) < 40) or type(at) is int:
                span.end = max(span.end, int(at))
            if event.get("name") != "exception":
                continue
            try:
                details = _attributes(event.get("attributes"))
            except ValueError:
                details = {}
            kind, text = details.get("exception.type"), details.get("exception.message")
            parts = [str(p) for p in (kind, text) if isinstance(p, str) and p]
            span.failed = True
            message = message or ": ".join(parts) or "exception"
    if span.failed:
        span.error = message or "the span's status is ERROR"


def read_export(
    raw: bytes, *, keep_going: bool = False
) -> tuple[list[Span], list[Unmapped], dict[str, Any], list[tuple[str, str]]]:
    """The spans of a file holding one OTLP/JSON export, or one per line (JSON Lines).

    Returns the spans, the spans that could not be read, the resource attributes and the problems
    skipped (only with *keep_going*; otherwise the first one raises :class:`OtelError`).
    """
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise OtelError("(file)", f"not an OTLP/JSON export: {exc}") from None
    problems: list[tuple[str, str]] = []
    kept = problems if keep_going else None
    try:
        data = msgspec.json.decode(text)
    except msgspec.DecodeError:
        try:  # the standard library's message says where and what, and tells JSON Lines apart
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            if exc.msg != "Extra data":
                raise OtelError("(file)", f"not an OTLP/JSON export: {exc}") from None
            return _read_lines(text, kept, problems)
    spans, broken, resource = read_spans(data, problems=kept)
    return spans, broken, resource, problems


def _read_lines(
    text: str, kept: list[tuple[str, str]] | None, problems: list[tuple[str, str]]
) -> tuple[list[Span], list[Unmapped], dict[str, Any], list[tuple[str, str]]]:
    spans: list[Span] = []
    broken: list[Unmapped] = []
    resource: dict[str, Any] = {}
    for n, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            data = msgspec.json.decode(line)
        except msgspec.DecodeError:
            data = None
        try:
            data = json.loads(line) if data is None else data
        except json.JSONDecodeError as exc:
            if kept is None:
                raise OtelError(f"line {n}", f"not an OTLP/JSON export: {exc}") from None
            kept.append((f"line {n}", f"not an OTLP/JSON export: {exc}"))
            continue
        more, bad, res = read_spans(data, prefix=f"line {n}: ", problems=kept)
        spans += more
        broken += bad
        resource.update(res)
    return spans, broken, resource, problems


# ---------------------------------------------------------------------------------------------
# What a span is


@dataclass
class _Role:
    """What one span stands for: kind is agent, create, tool, model or handoff; or None and why not."""

    kind: str | None
    name: str | None = None
    reason: str = ""


def _text(span: Span, *keys: str) -> str | None:
    for key in keys:
        value = span.attributes.get(key)
        if isinstance(value, str) and value:
            return value
    return None


def _graph_node(span: Span) -> str | None:
    """The agent an OpenInference span works for, if it says: agent.name, a graph node, a LangGraph node."""
    named = _text(span, OI_AGENT, *OI_NODE)
    if named:
        return named
    meta = span.attributes.get(OI_METADATA)
    if isinstance(meta, str) and "langgraph_checkpoint_ns" in meta:
        try:
            found = json.loads(meta).get("langgraph_checkpoint_ns")
        except (ValueError, AttributeError):
            return None
        if isinstance(found, str) and found:
            return found.split("|", 1)[0].split(":", 1)[0] or None
    return None


def _role(span: Span, acting: str | None) -> _Role:
    not_a_call = fw.not_a_call(span.name, span.attributes)
    if not_a_call is not None:
        return _Role(None, reason=not_a_call)
    op = span.operation
    if op is not None:
        if op == INVOKE_AGENT:
            name = fw.agent_name(span.name, span.attributes) or _text(span, AGENT_NAME, AGENT_ID)
            return (
                _Role("agent", name)
                if name
                else _Role(None, reason=f"invoke_agent span names no agent ({AGENT_NAME} or {AGENT_ID})")
            )
        if op == CREATE_AGENT:
            name = fw.agent_name(span.name, span.attributes) or _text(span, AGENT_NAME, AGENT_ID)
            return (
                _Role("create", name)
                if name
                else _Role(None, reason=f"create_agent span names no agent ({AGENT_NAME} or {AGENT_ID})")
            )
        if op == EXECUTE_TOOL:
            name = _text(span, TOOL_NAME)
            return _Role("tool", name) if name else _Role(None, reason=f"execute_tool span names no tool ({TOOL_NAME})")
        if op in MODEL_CALLS:
            return _Role("model", _model_of(span))
        if op in HANDOFFS:
            name = _text(span, HANDOFF_TO)
            return _Role("handoff", name) if name else _Role(None, reason=f"{op} span names no target ({HANDOFF_TO})")
        return _Role(None, reason=f"operation {op!r} has no counterpart in an orchestration trace")
    kind = span.attributes.get(OI_KIND)
    if not isinstance(kind, str):
        return _Role(None, reason=f"no {OPERATION} or {OI_KIND} attribute")
    kind = kind.upper()
    if kind == "AGENT":
        named = _graph_node(span) or fw.agent_name(span.name, span.attributes)
        if named is None and _names_agents_below(span):
            return _Role(None, reason="OpenInference AGENT span names no agent, and agents that do run inside it")
        return _Role("agent", named or span.name or None)
    if kind == "TOOL":
        return _Role("tool", _text(span, OI_TOOL) or span.name or None)
    if kind == "LLM":
        return _Role("model", _model_of(span))
    node = _graph_node(span) or fw.agent_name(span.name, span.attributes)
    if node is not None and node != acting:
        return _Role("agent", node)
    return _Role(None, reason=f"OpenInference {kind} span has no counterpart in an orchestration trace")


def _names_agents_below(span: Span) -> bool:
    """Whether a span inside *span* names its agent (so *span* is a workflow around agents)."""
    stack = list(span.children)
    while stack:
        s = stack.pop()
        if _text(s, AGENT_NAME, OI_AGENT, *OI_NODE):
            return True
        stack.extend(s.children)
    return False


def _model_of(span: Span) -> str:
    model = _text(span, REQUEST_MODEL, RESPONSE_MODEL, OI_MODEL, *PROVIDER)
    return model or "model"


def _count(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None


def _tokens(span: Span) -> m.Tokens | None:
    values = {}
    for keys, name in (((INPUT_TOKENS, OI_TOKENS[0]), "input"), ((OUTPUT_TOKENS, OI_TOKENS[1]), "output")):
        for key in keys:
            value = _count(span.attributes.get(key))
            if value is not None:
                values[name] = value
                break
    return m.Tokens(**values) if values else None


def _reports_usage(span: Span) -> bool:
    """Whether a span inside *span* reports usage (computed bottom-up once per span)."""
    if span.usage_below is None:
        stack, order = [span], []
        while stack:
            s = stack.pop()
            if s.usage_below is None:
                order.append(s)
                stack.extend(s.children)
        for s in reversed(order):
            s.usage_below = any(_tokens(c) is not None or bool(c.usage_below) for c in s.children)
    return bool(span.usage_below)


def _kept(span: Span) -> dict[str, Any]:
    kept: dict[str, Any] = {"otel.span_id": span.span_id, "otel.name": span.name}
    kept.update({k: span.attributes[k] for k in KEPT if k in span.attributes})
    return kept


# ---------------------------------------------------------------------------------------------
# Building the trace


@dataclass
class _Node:
    """A mapped span: the events that open and close it, and who acts inside it."""

    span: Span
    first: m.Event
    last: m.Event | None
    actor: str  # the agent whose work the span's children are
    link: str  # edge type from `first` to the children it starts off
    children: list[_Node] = field(default_factory=list)  # nearest mapped spans inside this one
    agent: bool = False  # an agent's work (its closing event comes from the run's end at the top level)
    leads: list[m.Event] = field(default_factory=list)  # events the next step depends on (top level)
    until: float | None = None  # the span's end, for top-level agents whose closing event comes later
    inner: _Node | None = None  # the work of an agent a tool hands work to, when no span of its own shows it

    @property
    def closing(self) -> m.Event:
        return self.last if self.last is not None else self.first

    @property
    def done(self) -> float:
        """When the span's work is over: its closing event's end, or its time; the span's end at the top level."""
        if self.until is not None:
            return self.until
        last = self.closing
        return float(last.t if last.end is UNSET else last.end)


@dataclass
class _Handoff:
    """A tool call that hands the work over: by whom, to whom (None: the next agent to act)."""

    by: str
    to: str | None
    call: _Node


class _Builder:
    """Collects events and edges while the span tree is walked."""

    def __init__(self, t0: int, fallback: str, content: bool = False) -> None:
        self.t0 = t0
        self.content: dict[str, dict[str, Any]] | None = {} if content else None  # content_ref -> messages
        self.fallback = fallback  # who acts in a model or tool span outside any agent's work
        self.events: list[m.Event] = []
        self.made = 0  # events made, for their temporary ids
        self.edges: list[tuple[m.Event, m.Event, str]] = []
        self.known: dict[str, float] = {}  # agents spawned or acting as roots, and since when
        self.handoffs: dict[str, m.Event] = {}  # handoff events whose target has not started yet
        self.tops: list[_Node] = []  # mapped spans of the top level, in the order they start
        # Top-level steps no later step has followed yet, by when they are over (a heap).
        self.open: list[tuple[float, int, _Node]] = []
        self.frontier: list[m.Event] = []  # what the latest step of the top level followed
        self.evidence: list[_Handoff] = []  # tool calls that hand the work over, not yet used
        self.node_ids: dict[str, str] = {}  # OpenInference graph node ids of the agents met
        self.closings: dict[int, dict[str, Any]] = {}  # fields of each top-level agent's closing event
        self.unmapped: list[Unmapped] = []
        self.rewards: list[tuple[int, dict[str, float]]] = []  # reward spans met: (start, channel -> value)
        self.warnings: list[str] = []
        self.adjusted = 0
        self.conventions: set[str] = set()

    def knows(self, agent: str, t: float) -> bool:
        """Whether *agent* is spawned or acting as a root by time *t*."""
        return self.known.get(agent, math.inf) <= t

    def meet(self, agent: str, t: float) -> None:
        """Note that *agent* is spawned (or acts as a root) at time *t*."""
        self.known[agent] = min(self.known.get(agent, math.inf), t)

    def seconds(self, ns: int) -> float:
        return (ns - self.t0) / _NS

    def add(self, kind: type[m.Event], **fields: Any) -> m.Event:
        self.made += 1
        event = kind(id=f"tmp{self.made}", **fields)
        self.events.append(event)
        return event

    def skip(self, span: Span, reason: str) -> None:
        self.unmapped.append(Unmapped(span.where, span.span_id, span.name, span.label, reason))

    def link(self, src: m.Event, dst: m.Event, kind: str) -> None:
        """An edge, unless *dst* starts before *src* is over (then it cannot depend on it)."""
        if src is not dst and (src.t if src.end is UNSET else src.end) <= dst.t:
            self.edges.append((src, dst, kind))


def group(spans: list[Span]) -> dict[str, list[Span]]:
    """The spans of each trace, by trace id, in sorted order of the ids."""
    by_trace: dict[str, list[Span]] = {}
    for s in spans:
        by_trace.setdefault(s.trace_id, []).append(s)
    return dict(sorted(by_trace.items()))


def convert(
    spans: list[Span],
    *,
    trace_id: str | None = None,
    system: str | None = None,
    content: bool = False,
    task: str | None = None,
    rewards: dict[str, float] | None = None,
) -> Imported:
    """The orchestration trace for *spans* (all of one OpenTelemetry trace; see *trace_id*); with
    *content*, the model calls' messages too (:attr:`Imported.content`)."""
    traces = group(spans)
    if not traces:
        raise OtelError("", "the export holds no span that can be read")
    ids = list(traces)
    if trace_id is None:
        if len(ids) > 1:
            raise OtelError(
                "",
                f"the export holds {len(ids)} traces ({_listed(ids)}); choose one with --trace-id, or write all with -o DIR/",
            )
        trace_id = ids[0]
    elif trace_id not in traces:
        raise OtelError("", f"no span has traceId {trace_id!r}; the export holds {_listed(ids)}")
    result = convert_trace(trace_id, traces[trace_id], system=system, content=content, task=task, rewards=rewards)
    if isinstance(result, Skipped):
        raise OtelError("", f"trace {trace_id} holds no span that maps to an event ({_reasons(result.unmapped)})")
    return result


def _listed(ids: list[str], most: int = 8) -> str:
    return ", ".join(ids[:most]) + (f" and {len(ids) - most} more" if len(ids) > most else "")


def _reasons(unmapped: list[Unmapped]) -> str:
    counts = Counter(u.reason for u in unmapped)
    return "; ".join(f"{n} x {reason}" if n > 1 else reason for reason, n in counts.most_common(3))


def convert_all(spans: list[Span], *, system: str | None = None) -> Iterator[Imported | Skipped]:
    """Every trace of the export, in order of trace id: imported, or skipped when no span maps."""
    for trace_id, members in group(spans).items():
        yield convert_trace(trace_id, members, system=system)


def convert_trace(
    trace_id: str,
    spans: list[Span],
    *,
    system: str | None = None,
    content: bool = False,
    task: str | None = None,
    rewards: dict[str, float] | None = None,
) -> Imported | Skipped:
    """The orchestration trace of one OpenTelemetry trace (*spans* all carry *trace_id*).

    *task* becomes its ``task_id``; *rewards* its rewards, over those of reward spans."""
    for s in spans:
        s.children, s.parent, s.usage_below = [], None, None
    by_id = {s.span_id: s for s in spans}
    roots = []
    for s in sorted(spans, key=lambda s: (s.start, -s.end, s.span_id)):
        parent = by_id.get(s.parent_id) if s.parent_id else None
        if parent is not None and parent is not s and not _inside(parent, s):
            s.parent = parent
            parent.children.append(s)
        else:
            roots.append(s)
    for s in spans:
        if len(s.children) > 1:
            _adopt(s)
    b = _Builder(min(s.start for s in spans), system or "agent", content)
    _walk(roots, b)
    if not b.events:
        return Skipped(trace_id, len(spans), b.unmapped)
    _close_run(b)
    return Imported(
        _finish(b, trace_id, system, len(spans), task, rewards),
        b.unmapped,
        len(spans),
        b.adjusted,
        b.warnings,
        b.content or {},
    )


def _is_agent_span(span: Span) -> bool:
    op = span.attributes.get(OPERATION)
    return op == INVOKE_AGENT or (op is None and span.attributes.get(OI_KIND) == "AGENT")


def _is_tool_span(span: Span) -> bool:
    op = span.attributes.get(OPERATION)
    return op == EXECUTE_TOOL or (op is None and span.attributes.get(OI_KIND) == "TOOL")


def _adopt(parent: Span) -> None:
    """Move each agent span that runs wholly within a sibling tool span into it.

    A tool that hands a task to an agent runs that agent inside its call; when the framework does
    not pass its span on (Agno's delegation to team members), the agent's span sits beside the tool's.
    """
    agents = [c for c in parent.children if _is_agent_span(c)]
    tools = [c for c in parent.children if _is_tool_span(c)] if agents else None
    if not tools:
        return
    for child in agents:
        holders = [
            t
            for t in tools
            if t.start <= child.start and child.end <= t.end and (t.start, t.end) != (child.start, child.end)
        ]
        if holders:
            holder = max(holders, key=lambda t: (t.start, -t.end))
            parent.children.remove(child)
            holder.children.append(child)
            child.parent = holder


def _inside(span: Span, ancestor: Span) -> bool:
    """Whether *ancestor* is already above *span* (a parentSpanId loop)."""
    while span.parent is not None:
        if span.parent is ancestor:
            return True
        span = span.parent
    return False


def _clamp(span: Span, within: Span | None, builder: _Builder) -> None:
    """Keep *span* inside the span that encloses it (clocks of different processes disagree)."""
    if within is None:
        return
    start = min(max(span.start, within.start), within.end)
    end = max(min(span.end, within.end), start)
    if (start, end) != (span.start, span.end):
        span.start, span.end = start, end
        builder.adjusted += 1


def _walk(roots: list[Span], b: _Builder) -> None:
    """Map the spans of the top level in the order they start, wherever they sit under unmapped spans."""
    heap = [(s.start, -s.end, k, s) for k, s in enumerate(roots)]
    heapq.heapify(heap)
    count = len(heap)
    while heap:
        span = heapq.heappop(heap)[3]
        node = _events(span, None, b)
        if node is None:
            for child in span.children:
                _clamp(child, span, b)
                heapq.heappush(heap, (child.start, -child.end, count, child))
                count += 1
            continue
        for child in span.children:
            _map(child, node.inner or node, b)
        _link_all(node, b)
        heapq.heappush(b.open, (node.done, len(b.tops), node))  # over at its end (known once linked)


def _map(span: Span, enclosing: _Node | None, b: _Builder) -> None:
    """Map *span* and everything inside it; *enclosing* is its nearest mapped ancestor."""
    _clamp(span, span.parent, b)
    node = _events(span, enclosing, b)
    if node is not None and enclosing is not None:
        enclosing.children.append(node)
    holder = (node.inner or node) if node is not None else enclosing
    for child in span.children:
        _map(child, holder, b)
    if node is not None:
        _link_all(node, b)


def _link_all(node: _Node, b: _Builder) -> None:
    if node.inner is not None:
        _link(node.inner, b)
    _link(node, b)


def _convention(span: Span, b: _Builder) -> None:
    b.conventions.add(GEN_AI_SOURCE if span.operation is not None else OI_SOURCE)


def _failure(span: Span) -> dict[str, Any]:
    return {"status": "error", "error": span.error} if span.failed and span.error else {}


def _events(span: Span, enclosing: _Node | None, b: _Builder) -> _Node | None:
    """The events of one span, or None (and a note of why) when it maps to none."""
    rewards = fw.lightning_rewards(span.name, span.attributes)
    if rewards is not None:
        b.rewards.append((span.start, rewards))
        b.skip(span, "an Agent Lightning reward span: its rewards are the trace's reward channels")
        return None
    role = _role(span, enclosing.actor if enclosing else None)
    if role.kind is None:
        b.skip(span, role.reason)
        return None
    _convention(span, b)
    start, end = b.seconds(span.start), b.seconds(span.end)
    common: dict[str, Any] = {"attributes": _kept(span)}
    if enclosing is not None:
        common["parent"] = enclosing.first.id
    if role.kind == "agent":
        assert role.name is not None
        return _agent_span(span, role.name, enclosing, b, start, end, common)
    if role.kind == "create":
        if enclosing is None:
            b.skip(span, "create_agent outside any agent's span: no agent to credit with the spawn")
            return None
        assert role.name is not None
        if role.name == enclosing.actor or b.knows(role.name, start):
            b.skip(span, f"create_agent of {role.name!r}, which is already acting")
            return None
        spawn = b.add(m.Spawn, t=start, agent=enclosing.actor, to=role.name, **common)
        b.meet(role.name, start)
        return _Node(span, spawn, None, enclosing.actor, "causal")
    actor = enclosing.actor if enclosing else _own_actor(span, role, b)
    if actor is None:
        return None
    if role.kind == "handoff":
        assert role.name is not None
        if role.name == actor:
            b.skip(span, f"{actor!r} hands off to itself")
            return None
        kind: type[m.Event] = m.Message if b.knows(role.name, start) else m.Spawn
        handoff = b.add(kind, t=start, agent=actor, to=role.name, **common, **_failure(span))
        b.meet(role.name, start)
        b.handoffs[role.name] = handoff
        node = _Node(span, handoff, None, actor, "delegate")
    elif role.kind == "tool":
        assert role.name is not None
        call = b.add(m.ToolCall, t=start, end=end, agent=actor, tool=role.name, **common)
        result = b.add(
            m.ToolResult,
            t=end,
            agent=role.name,
            tool=role.name,
            parent=call.id,
            attributes=_kept(span),
            **_failure(span),
        )
        node = _Node(span, call, result, actor, "causal")
        if role.name in fw.CREWAI_DELEGATION_TOOLS:
            coworker = fw.coworker(span.attributes)
            if coworker is not None and coworker != actor and not _holds_agent_span(span):
                node.inner = _delegated(span, coworker, node, b)
        if role.name in fw.HANDOFF_TOOLS:
            hands_over, to = fw.handoff(span.attributes)
            if hands_over and to != actor:
                b.evidence.append(_Handoff(actor, to, node))
    else:
        assert role.name is not None
        usage = _tokens(span)
        extra: dict[str, Any] = {"tokens": usage} if usage is not None else {}
        if b.content is not None:
            record = _content.call_content(span.attributes, span.events)
            if record is not None:
                ref = _content.ref_of(record)
                b.content[ref] = record
                extra["content_ref"] = ref
        message = b.add(m.Message, t=start, end=end, agent=actor, to=role.name, **common, **extra, **_failure(span))
        node = _Node(span, message, None, actor, "causal")
    if enclosing is None:
        _top(node, b)
    return node


def _holds_agent_span(span: Span) -> bool:
    stack = list(span.children)
    while stack:
        s = stack.pop()
        if _is_agent_span(s):
            return True
        stack.extend(s.children)
    return False


def _delegated(span: Span, agent: str, call: _Node, b: _Builder) -> _Node:
    """The work of *agent*, to whom the tool of *call* hands a task, when no agent span shows it.

    A spawn (or, for an agent already at work, a delegating message) by the caller when the tool
    starts, and a return to it when the tool ends; the spans inside the tool are the agent's.
    """
    start, end = b.seconds(span.start), b.seconds(span.end)
    attributes = {**_kept(span), "otel.delegated_to": agent}
    if b.knows(agent, start):
        first = b.add(m.Message, t=start, agent=call.actor, to=agent, parent=call.first.id, attributes=attributes)
        link = "delegate"
    else:
        first = b.add(m.Spawn, t=start, agent=call.actor, to=agent, parent=call.first.id, attributes=attributes)
        b.meet(agent, start)
        link = "spawn"
    last = b.add(m.Return, t=end, agent=agent, to=call.actor, parent=first.id, attributes=attributes)
    inner = _Node(span, first, last, agent, link)
    call.children.append(inner)
    return inner


def _own_actor(span: Span, role: _Role, b: _Builder) -> str | None:
    """Who acts in a model, tool or handoff span outside any agent's work."""
    named = _text(span, AGENT_NAME, AGENT_ID) or _graph_node(span)
    if role.kind == "handoff":
        named = _text(span, "gen_ai.handoff.from_agent") or named
    if named:
        return named
    if b.tops:  # the agent acting at the top level when it starts (a workflow's step between agent spans)
        return b.tops[-1].actor
    if role.kind == "tool":
        b.skip(span, "tool span is outside any agent's span, names no agent, and no agent is acting yet")
        return None
    b.warnings.append(
        f"{span.where}: span {span.name!r} is outside any agent's span and names no agent; credited to {b.fallback!r}"
    )
    return b.fallback


def _arrive(actor: str, start: float, span: Span, b: _Builder) -> tuple[m.Event | None, str, list[m.Event]]:
    """How the next step of the top level joins the run.

    A step follows every earlier step that is over when it starts and that no step has followed
    yet (steps run side by side join there); a step that starts while all those still run goes
    alongside them, from what the latest step followed. Returns the event that hands the work to
    *actor* (None when it needs none: the run's first step, or an agent going on), the edge type
    from it, and the events to link from. An OpenInference graph node names the node before it
    (``graph.node.parent_id``): that agent is the one who starts it off or hands it the work.
    """
    if not b.tops:
        b.meet(actor, start)
        return None, "causal", []
    root = b.tops[0]
    parent_id = span.attributes.get(OI_PARENT_NODE)
    parent = b.node_ids.get(parent_id) if isinstance(parent_id, str) else None
    done = []
    while b.open and b.open[0][0] <= start:
        done.append(heapq.heappop(b.open)[2])
    if not done:  # runs alongside the steps still at work
        if b.knows(actor, start):
            return None, "causal", list(b.frontier or [root.first])
        if actor == root.actor:  # the root, in a span that starts before the one first met
            b.meet(actor, start)
            return None, "causal", []
        starter = next((n for n in reversed(b.tops) if n.actor == parent != actor), None)
        recorded = starter is not None
        by = starter or root
        spawn = b.add(m.Spawn, t=start, agent=by.actor, to=actor, attributes={"otel.inferred": "spawn"})
        b.meet(actor, start)
        b.link(by.first, spawn, "causal")
        if not recorded:
            b.warnings.append(
                f"{span.where}: {actor!r} starts while {b.tops[-1].actor!r} still works; "
                f"counted as spawned by {root.actor!r}"
            )
        return spawn, "spawn", []
    leads = [e for n in done for e in (n.leads or [n.closing])]
    b.frontier = leads
    if actor in {n.actor for n in done}:
        return None, "causal", leads
    named = [n for n in done if n.actor == parent]
    before = max(named or done, key=lambda n: n.done)  # the step named before it, or the one that ends last
    joined = max(n.done for n in done)  # the handoff waits for every step it follows
    handoff = b.handoffs.pop(actor, None)
    if handoff is None or handoff.t > start:
        handoff = _handed_by_tool(actor, start, joined, b)
        if handoff is None:
            kind: type[m.Event] = m.Message if b.knows(actor, joined) else m.Spawn
            handoff = b.add(kind, t=joined, agent=before.actor, to=actor, attributes={"otel.inferred": "handoff"})
            if not named:
                b.warnings.append(
                    f"{span.where}: no handoff span names {actor!r}; counted as handed off by {before.actor!r}, "
                    "whose work ends before it starts"
                )
        for event in leads:
            b.link(event, handoff, "causal")
    b.meet(actor, handoff.t)
    return handoff, "delegate", []


def _handed_by_tool(actor: str, start: float, joined: float, b: _Builder) -> m.Event | None:
    """The handoff to *actor* made by the latest tool call that hands the work over to it (or to
    whoever acts next) and ends before it starts, once the steps it follows (until *joined*) are
    over; None when there is none."""
    for k in range(len(b.evidence) - 1, -1, -1):
        found = b.evidence[k]
        result = found.call.closing
        if found.by == actor or found.to not in (actor, None) or result.t > start:
            continue
        del b.evidence[k]
        at = max(result.t, joined)
        kind: type[m.Event] = m.Message if b.knows(actor, at) else m.Spawn
        handoff = b.add(
            kind,
            t=at,
            agent=found.by,
            to=actor,
            parent=found.call.first.id,
            attributes={**_kept(found.call.span), "otel.handoff": "tool"},
        )
        b.link(result, handoff, "causal")
        return handoff
    return None


def _top(node: _Node, b: _Builder) -> None:
    """Join a model, tool or handoff span of the top level to the run."""
    opening, link, leads = _arrive(node.actor, node.first.t, node.span, b)
    if opening is not None:
        b.link(opening, node.first, link)
    for event in leads:
        b.link(event, node.first, "causal")
    b.tops.append(node)


def _agent_span(
    span: Span, agent: str, enclosing: _Node | None, b: _Builder, start: float, end: float, common: dict[str, Any]
) -> _Node | None:
    node_id = span.attributes.get(OI_NODE_ID)
    if isinstance(node_id, str):
        b.node_ids[node_id] = agent
    usage = _tokens(span) if not _reports_usage(span) else None
    closing: dict[str, Any] = {"attributes": _kept(span), **_failure(span)}
    if usage is not None:
        closing["tokens"] = usage
    if enclosing is None:
        opening, link, leads = _arrive(agent, start, span, b)
        if opening is None:
            opening = b.add(m.OrchestratorDecision, t=start, agent=agent, **common)
        for event in leads:
            b.link(event, opening, "causal")
        node = _Node(span, opening, None, agent, link, agent=True, until=end)
        b.closings[id(node)] = closing
        b.tops.append(node)
        return node
    if agent == enclosing.actor:
        b.skip(span, f"{agent!r} invokes itself; its work stays in the enclosing invocation")
        return None
    if b.knows(agent, start):
        first = b.add(m.Message, t=start, agent=enclosing.actor, to=agent, **common)
        link = "delegate"
    else:
        first = b.add(m.Spawn, t=start, agent=enclosing.actor, to=agent, **common)
        b.meet(agent, start)
        link = "spawn"
    last = b.add(m.Return, t=end, agent=agent, to=enclosing.actor, parent=first.id, **closing)
    return _Node(span, first, last, agent, link)


def _link(node: _Node, b: _Builder) -> None:
    """Edges between *node*'s events and those of the mapped spans directly inside it.

    A child starts off from the siblings that finished before it began, or, when none did, from
    the node's first event. Children nothing came after lead to the node's closing event; at the
    top level, where the closing event waits for the end of the run, they lead to the next step.
    """
    if node.children and node.first.end is not UNSET:
        # A call whose span holds other mapped spans (a tool running a sub-agent): its time is
        # the time of the events inside it, so it keeps none of its own and nothing counts twice.
        node.until = float(node.first.end) if node.last is None else None
        node.first.end = UNSET
    waiting: list[_Node] = []  # children no later sibling depends on yet
    frontier = [(node.first, node.link)]  # what the latest child followed
    for child in sorted(node.children, key=lambda n: (n.first.t, n.done)):
        before = [p for p in waiting if p.done <= child.first.t]
        if before:
            frontier = [(p.closing, "return" if isinstance(p.closing, m.Return) else "causal") for p in before]
            for p in before:
                waiting.remove(p)
        for event, kind in frontier:
            b.link(event, child.first, kind)
        waiting.append(child)
    if node.agent and node.last is None:  # a top-level agent: closed (or handed on) later
        node.leads = [p.closing for p in waiting] or [node.first]
        return
    if node.last is None:
        return
    if isinstance(node.first, m.ToolCall) or not node.children:
        b.link(node.first, node.last, "return" if isinstance(node.first, m.ToolCall) else node.link)
    for p in waiting:
        kind = "aggregate" if isinstance(node.last, m.Aggregate) else "return"
        b.link(p.closing, node.last, kind if isinstance(p.closing, m.Return) else "causal")


def _close_run(b: _Builder) -> None:
    """Close the top-level agents' work: each one no later step follows ends in an aggregate."""
    for _, _, node in sorted(b.open, key=lambda item: item[1]):
        if not node.agent:
            continue
        end = b.seconds(node.span.end)
        last = b.add(m.Aggregate, t=end, agent=node.actor, parent=node.first.id, **b.closings.get(id(node), {}))
        for event in node.leads or [node.first]:
            b.link(event, last, "aggregate" if isinstance(event, m.Return) else "causal")
        node.last = last


def _finish(
    b: _Builder, trace_id: str, system: str | None, spans: int, task: str | None, rewards: dict[str, float] | None
) -> m.Trace:
    """Number the events in time order and assemble the trace.

    A reward span's channels are the run's rewards, the latest span's value of each channel
    winning (the final reward, as Agent Lightning reads it); every reward span is listed, with its
    time, in ``metadata.reward_spans``. *rewards* given on the command line win over them.
    """
    order = sorted(range(len(b.events)), key=lambda k: (b.events[k].t, k))
    renamed = {b.events[k].id: f"e{n}" for n, k in enumerate(order, start=1)}
    events = [b.events[k] for k in order]
    for e in events:
        e.id = renamed[e.id]
        if e.parent is not UNSET:
            e.parent = renamed[e.parent]
    position = {e.id: n for n, e in enumerate(events)}
    edges = sorted(
        {(src.id, dst.id, kind) for src, dst, kind in b.edges},
        key=lambda e: (position[e[1]], position[e[0]], e[2]),
    )
    metadata: dict[str, Any] = {
        "source": " + ".join(sorted(b.conventions, key=lambda c: c != GEN_AI_SOURCE)) or GEN_AI_SOURCE,
        "otel_trace_id": trace_id,
        "spans": spans,
        "unmapped_spans": [u.as_json() for u in b.unmapped],
        "adjusted_spans": b.adjusted,
    }
    if b.warnings:
        metadata["warnings"] = b.warnings
    fields: dict[str, Any] = {"system": system} if system else {}
    channels: dict[str, float] = {}
    for _, found in sorted(b.rewards, key=lambda r: r[0]):
        channels.update(found)
    if b.rewards:
        metadata["reward_spans"] = [{"t": b.seconds(start), "rewards": found} for start, found in b.rewards]
    channels.update(rewards or {})
    if channels:
        fields["rewards"] = channels
    if task:
        fields["task_id"] = task
    return m.Trace(
        schema_version="1.0",
        trace_id=trace_id,
        events=events,  # type: ignore[arg-type]
        edges=[m.Edge(src=s, dst=d, type=k) for s, d, k in edges],  # type: ignore[arg-type]
        metadata=metadata,
        **fields,
    )
