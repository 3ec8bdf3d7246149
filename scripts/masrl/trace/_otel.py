"""Import OpenTelemetry GenAI spans (an OTLP/JSON export) as an orchestration trace.

Input: the OTLP/JSON shape, ``resourceSpans -> scopeSpans -> spans``, each span with ``traceId``,
``spanId``, ``parentSpanId``, ``name``, ``startTimeUnixNano``, ``endTimeUnixNano`` and
``attributes`` as ``{key, value: {stringValue | intValue | doubleValue | boolValue | ...}}``
(64-bit integers may be written as strings, as the protobuf JSON mapping does). Spans are read with
the OpenTelemetry semantic conventions for generative AI (``gen_ai.*`` attributes).

Mapping, by ``gen_ai.operation.name``:

* ``invoke_agent`` (agent from ``gen_ai.agent.name``, else ``gen_ai.agent.id``): inside another
  agent's span, a ``spawn`` by that agent at the span's start (a ``message`` delegating new work
  if the agent was spawned before) and a ``return`` to it at the end; at the top level, an
  ``orchestrator_decision`` at the start and an ``aggregate`` at the end.
* ``create_agent``: a ``spawn`` by the enclosing agent.
* ``execute_tool`` (tool from ``gen_ai.tool.name``): a ``tool_call`` by the enclosing agent,
  lasting the span, and a ``tool_result`` by the tool at its end.
* ``chat``, ``text_completion``, ``generate_content``: a ``message`` from the enclosing agent to the
  model (``gen_ai.request.model``), lasting the span, with its token usage.

``gen_ai.usage.input_tokens`` and ``gen_ai.usage.output_tokens`` become the event's ``tokens``
(an agent span's usage is kept only when no span inside it reports usage, so nothing is counted
twice). Times become seconds from the earliest span. Parent and child spans become ``parent``
links and edges: from a span's first event to each child that starts it off, from each child to
the next sibling that starts after it ends, and from the last children to the span's closing event.
A child that starts before its parent or ends after it (clock skew) is moved inside it, and counted.

Every span that cannot be mapped (another operation, no operation, no agent to act, a missing
time) is listed with its reason in ``metadata.unmapped_spans`` and reported; none is dropped
silently. Its mapped descendants attach to its nearest mapped ancestor.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from msgspec import UNSET

from masrl.trace import _model as m
from masrl.trace._problems import pointer

OPERATION = "gen_ai.operation.name"
AGENT_NAME = "gen_ai.agent.name"
AGENT_ID = "gen_ai.agent.id"
TOOL_NAME = "gen_ai.tool.name"
TOOL_CALL_ID = "gen_ai.tool.call.id"
INPUT_TOKENS = "gen_ai.usage.input_tokens"
OUTPUT_TOKENS = "gen_ai.usage.output_tokens"
REQUEST_MODEL = "gen_ai.request.model"
PROVIDER = ("gen_ai.provider.name", "gen_ai.system")  # the newer name first
SERVICE_NAME = "service.name"

INVOKE_AGENT = "invoke_agent"
CREATE_AGENT = "create_agent"
EXECUTE_TOOL = "execute_tool"
MODEL_CALLS = ("chat", "text_completion", "generate_content")  # drawn as messages to the model
MAPPED = (INVOKE_AGENT, CREATE_AGENT, EXECUTE_TOOL, *MODEL_CALLS)
KEPT = (OPERATION, REQUEST_MODEL, TOOL_CALL_ID, AGENT_ID)  # attributes copied to the events

_NS = 1_000_000_000


class OtelError(Exception):
    """The file is not an OTLP/JSON trace export that can be imported at all."""

    def __init__(self, where: str, message: str) -> None:
        super().__init__(message)
        self.where = where
        self.message = message


@dataclass
class Span:
    """One span as read from the export."""

    where: str  # JSON Pointer of the span in the file
    trace_id: str
    span_id: str
    parent_id: str
    name: str
    start: int  # nanoseconds
    end: int
    attributes: dict[str, Any]
    children: list[Span] = field(default_factory=list)
    parent: Span | None = None

    @property
    def operation(self) -> Any:
        return self.attributes.get(OPERATION)


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
    """The result of an import: the trace and what could not be mapped."""

    trace: m.Trace
    unmapped: list[Unmapped]
    spans: int
    adjusted: int


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


def _attributes(raw: Any, where: str) -> dict[str, Any]:
    if raw is None:
        return {}
    if not isinstance(raw, list):
        raise ValueError("attributes must be an array of {key, value}")
    out = {}
    for k, item in enumerate(raw):
        if not isinstance(item, dict) or not isinstance(item.get("key"), str):
            raise ValueError(f"attribute {k} must be an object with a string key")
        try:
            out[item["key"]] = _value(item.get("value"))
        except (ValueError, TypeError, KeyError) as exc:
            raise ValueError(f"attribute {item['key']!r}: {exc}") from None
    return out


def _whole(raw: Any) -> bool:
    """A whole number written as a string, as the protobuf JSON mapping writes 64-bit integers."""
    return isinstance(raw, str) and raw.removeprefix("-").isdigit() and len(raw) < 40


def _nanos(raw: Any) -> int:
    if isinstance(raw, bool) or not (isinstance(raw, int) or _whole(raw)):
        raise ValueError("must be a whole number of nanoseconds since the Unix epoch")
    value = int(raw)
    if value < 0:
        raise ValueError("must not be negative")
    return value


def read_spans(data: Any) -> tuple[list[Span], list[Unmapped], dict[str, Any]]:
    """Every span of the export, the spans that could not be read, and the resource attributes."""
    if not isinstance(data, dict) or not isinstance(data.get("resourceSpans"), list):
        raise OtelError("", "an OTLP/JSON trace export is an object with a resourceSpans array")
    spans: list[Span] = []
    broken: list[Unmapped] = []
    resource: dict[str, Any] = {}
    for r, resource_spans in enumerate(data["resourceSpans"]):
        if not isinstance(resource_spans, dict):
            raise OtelError(pointer("resourceSpans", r), "each resourceSpans item must be an object")
        try:
            resource.update(_attributes((resource_spans.get("resource") or {}).get("attributes"), ""))
        except (ValueError, AttributeError):
            raise OtelError(pointer("resourceSpans", r, "resource"), "resource attributes are malformed") from None
        scopes = resource_spans.get("scopeSpans", [])
        if not isinstance(scopes, list):
            raise OtelError(pointer("resourceSpans", r, "scopeSpans"), "scopeSpans must be an array")
        for s, scope in enumerate(scopes):
            items = scope.get("spans", []) if isinstance(scope, dict) else None
            if not isinstance(items, list):
                raise OtelError(pointer("resourceSpans", r, "scopeSpans", s), "a scopeSpans item holds a spans array")
            for k, raw in enumerate(items):
                where = pointer("resourceSpans", r, "scopeSpans", s, "spans", k)
                span = _span(raw, where, broken)
                if span is not None:
                    spans.append(span)
    return spans, broken, resource


def _span(raw: Any, where: str, broken: list[Unmapped]) -> Span | None:
    if not isinstance(raw, dict):
        broken.append(Unmapped(where, "", "", None, "a span must be an object"))
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
        attributes = _attributes(raw.get("attributes"), where)
    except ValueError as exc:
        broken.append(Unmapped(where, shown_id, shown_name, None, str(exc)))
        return None
    operation = attributes.get(OPERATION)
    if operation is not None and not isinstance(operation, str):
        broken.append(Unmapped(where, span_id, shown_name, None, f"{OPERATION} must be a string"))
        return None
    return Span(where, trace_id, span_id, parent, shown_name, start, max(start, end), attributes)


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

    @property
    def closing(self) -> m.Event:
        return self.last if self.last is not None else self.first

    @property
    def done(self) -> float:
        """When the span's work is over: its closing event's end, or its time."""
        last = self.closing
        return float(last.t if last.end is UNSET else last.end)


class _Builder:
    """Collects events and edges while the span tree is walked."""

    def __init__(self, t0: int) -> None:
        self.t0 = t0
        self.events: list[m.Event] = []
        self.edges: list[tuple[m.Event, m.Event, str]] = []
        self.spawned: set[str] = set()
        self.unmapped: list[Unmapped] = []
        self.adjusted = 0

    def seconds(self, ns: int) -> float:
        return (ns - self.t0) / _NS

    def add(self, kind: type[m.Event], **fields: Any) -> m.Event:
        event = kind(id=f"tmp{len(self.events)}", **fields)
        self.events.append(event)
        return event

    def skip(self, span: Span, reason: str) -> None:
        op = span.operation if isinstance(span.operation, str) else None
        self.unmapped.append(Unmapped(span.where, span.span_id, span.name, op, reason))

    def link(self, src: m.Event, dst: m.Event, kind: str) -> None:
        self.edges.append((src, dst, kind))


def _agent_of(span: Span) -> str | None:
    for key in (AGENT_NAME, AGENT_ID):
        value = span.attributes.get(key)
        if isinstance(value, str) and value:
            return value
    return None


def _tokens(span: Span) -> m.Tokens | None:
    values = {}
    for key, name in ((INPUT_TOKENS, "input"), (OUTPUT_TOKENS, "output")):
        value = span.attributes.get(key)
        if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
            values[name] = value
    return m.Tokens(**values) if values else None


def _reports_usage(span: Span) -> bool:
    return any(_tokens(child) is not None or _reports_usage(child) for child in span.children)


def _kept(span: Span) -> dict[str, Any]:
    kept: dict[str, Any] = {"otel.span_id": span.span_id, "otel.name": span.name}
    kept.update({k: span.attributes[k] for k in KEPT if k in span.attributes})
    return kept


def convert(spans: list[Span], *, trace_id: str | None = None, system: str | None = None) -> Imported:
    """The orchestration trace for *spans* (all of one OpenTelemetry trace; see *trace_id*)."""
    ids = sorted({s.trace_id for s in spans})
    if not ids:
        raise OtelError("", "the export holds no span that can be read")
    if trace_id is None:
        if len(ids) > 1:
            raise OtelError("", f"the export holds {len(ids)} traces ({', '.join(ids)}); choose one with --trace-id")
        trace_id = ids[0]
    elif trace_id not in ids:
        raise OtelError("", f"no span has traceId {trace_id!r}; the export holds {', '.join(ids)}")
    spans = [s for s in spans if s.trace_id == trace_id]
    by_id = {s.span_id: s for s in spans}
    roots = []
    for s in sorted(spans, key=lambda s: (s.start, -s.end, s.span_id)):
        parent = by_id.get(s.parent_id) if s.parent_id else None
        if parent is not None and parent is not s and not _inside(parent, s):
            s.parent = parent
            parent.children.append(s)
        else:
            roots.append(s)
    builder = _Builder(min(s.start for s in spans))
    for root in roots:
        _map(root, None, builder)
    return Imported(_finish(builder, trace_id, system, len(spans)), builder.unmapped, len(spans), builder.adjusted)


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


def _map(span: Span, enclosing: _Node | None, b: _Builder) -> None:
    """Map *span* and everything inside it; *enclosing* is its nearest mapped ancestor."""
    _clamp(span, span.parent, b)
    node = _events(span, enclosing, b)
    if node is not None and enclosing is not None:
        enclosing.children.append(node)
    for child in span.children:
        _map(child, node or enclosing, b)
    if node is not None:
        _link(node, b)


def _events(span: Span, enclosing: _Node | None, b: _Builder) -> _Node | None:
    """The events of one span, or None (and a note of why) when it maps to none."""
    op = span.operation
    start, end = b.seconds(span.start), b.seconds(span.end)
    common: dict[str, Any] = {"attributes": _kept(span)}
    if enclosing is not None:
        common["parent"] = enclosing.first.id
    if op is None:
        b.skip(span, f"no {OPERATION} attribute")
        return None
    if op not in MAPPED:
        b.skip(span, f"operation {op!r} has no counterpart in an orchestration trace")
        return None
    if op in (INVOKE_AGENT, CREATE_AGENT):
        return _agent_span(span, op, enclosing, b, start, end, common)
    actor = enclosing.actor if enclosing else _agent_of(span)
    if actor is None:
        b.skip(span, f"{op} span is not inside an agent's span and names no agent")
        return None
    if op == EXECUTE_TOOL:
        tool = span.attributes.get(TOOL_NAME)
        if not isinstance(tool, str) or not tool:
            b.skip(span, f"execute_tool span names no tool ({TOOL_NAME})")
            return None
        call = b.add(m.ToolCall, t=start, end=end, agent=actor, tool=tool, **common)
        result = b.add(m.ToolResult, t=end, agent=tool, tool=tool, parent=call.id, attributes=_kept(span))
        return _Node(span, call, result, actor, "causal")
    model = span.attributes.get(REQUEST_MODEL)
    if not isinstance(model, str) or not model:
        model = next((span.attributes[k] for k in PROVIDER if isinstance(span.attributes.get(k), str)), "model")
    usage = _tokens(span)
    extra = {"tokens": usage} if usage is not None else {}
    message = b.add(m.Message, t=start, end=end, agent=actor, to=model, **common, **extra)
    return _Node(span, message, None, actor, "causal")


def _agent_span(
    span: Span, op: str, enclosing: _Node | None, b: _Builder, start: float, end: float, common: dict[str, Any]
) -> _Node | None:
    agent = _agent_of(span)
    if agent is None:
        b.skip(span, f"{op} span names no agent ({AGENT_NAME} or {AGENT_ID})")
        return None
    if op == CREATE_AGENT:
        if enclosing is None:
            b.skip(span, "create_agent outside any agent's span: no agent to credit with the spawn")
            return None
        spawn = b.add(m.Spawn, t=start, agent=enclosing.actor, to=agent, **common)
        b.spawned.add(agent)
        return _Node(span, spawn, None, enclosing.actor, "causal")
    usage = _tokens(span) if not _reports_usage(span) else None
    closing: dict[str, Any] = {"attributes": _kept(span)}
    if usage is not None:
        closing["tokens"] = usage
    if enclosing is None:
        first = b.add(m.OrchestratorDecision, t=start, agent=agent, **common)
        last = b.add(m.Aggregate, t=end, agent=agent, parent=first.id, **closing)
        return _Node(span, first, last, agent, "causal")
    if agent == enclosing.actor:
        b.skip(span, f"{agent!r} invokes itself; its work stays in the enclosing invocation")
        return None
    if agent in b.spawned:
        first = b.add(m.Message, t=start, agent=enclosing.actor, to=agent, **common)
        link = "delegate"
    else:
        first = b.add(m.Spawn, t=start, agent=enclosing.actor, to=agent, **common)
        b.spawned.add(agent)
        link = "spawn"
    last = b.add(m.Return, t=end, agent=agent, to=enclosing.actor, parent=first.id, **closing)
    return _Node(span, first, last, agent, link)


def _link(node: _Node, b: _Builder) -> None:
    """Edges between *node*'s events and those of the mapped spans directly inside it.

    A child starts off from the siblings that finished before it began, or, when none did, from
    the node's first event. Children nothing came after lead to the node's closing event.
    """
    waiting: list[_Node] = []  # children no later sibling depends on yet
    for child in sorted(node.children, key=lambda n: (n.first.t, n.done)):
        before = [p for p in waiting if p.done <= child.first.t]
        for p in before:
            b.link(p.closing, child.first, "return" if isinstance(p.closing, m.Return) else "causal")
            waiting.remove(p)
        if not before:
            b.link(node.first, child.first, node.link)
        waiting.append(child)
    if node.last is None:
        return
    if isinstance(node.first, m.ToolCall) or not node.children:
        b.link(node.first, node.last, "return" if isinstance(node.first, m.ToolCall) else node.link)
    for p in waiting:
        kind = "aggregate" if isinstance(node.last, m.Aggregate) else "return"
        b.link(p.closing, node.last, kind if isinstance(p.closing, m.Return) else "causal")


def _finish(b: _Builder, trace_id: str, system: str | None, spans: int) -> m.Trace:
    """Number the events in time order and assemble the trace."""
    order = sorted(range(len(b.events)), key=lambda k: (b.events[k].t, k))
    renamed = {b.events[k].id: f"e{n}" for n, k in enumerate(order, start=1)}
    events = [b.events[k] for k in order]
    for e in events:
        e.id = renamed[e.id]
        if e.parent is not UNSET:
            e.parent = renamed[e.parent]
    position = {e.id: n for n, e in enumerate(events)}
    edges = sorted(
        (m.Edge(src=src.id, dst=dst.id, type=kind) for src, dst, kind in b.edges),  # type: ignore[arg-type]
        key=lambda e: (position[e.dst], position[e.src]),
    )
    metadata: dict[str, Any] = {
        "source": "OpenTelemetry OTLP/JSON, GenAI semantic conventions",
        "otel_trace_id": trace_id,
        "spans": spans,
        "unmapped_spans": [u.as_json() for u in b.unmapped],
        "adjusted_spans": b.adjusted,
    }
    fields: dict[str, Any] = {"system": system} if system else {}
    return m.Trace(
        schema_version="1.0",
        trace_id=trace_id,
        events=events,  # type: ignore[arg-type]
        edges=edges,
        metadata=metadata,
        **fields,
    )
