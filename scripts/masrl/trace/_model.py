"""The shape of a trace, as typed msgspec structs: the one definition of the trace format.

:class:`Trace` and the structs it holds say which fields exist, their types, their bounds and what
each one means (the ``description`` of its :class:`msgspec.Meta`). Two things are made from them:

* the fast reader decodes a file straight into these structs (``msgspec.json.Decoder(Trace)``), so
  types, enums, bounds, required fields and unknown fields are all checked in one C pass; and
* :mod:`masrl.trace._schema` walks them with :mod:`msgspec.inspect` and writes the published JSON
  Schema 2020-12, ``schemas/trace.schema.json``.

Events form a tagged union on ``type``: one struct per event type, each listing the fields that
type requires (a spawn must say whom it spawns). Optional fields default to ``UNSET`` rather than
``None``, so an explicit ``null`` is refused exactly as the schema refuses it.

Numbers are 64-bit floats; whole numbers (token counts) are floats held to multiples of 1, because
JSON Schema counts ``3.0`` as an integer and so must we.

Two profiles. A trace that declares ``schema_version`` follows :class:`Trace` and every rule of
this version. A trace without it is read as the survey's original format (``trace-format-v0``) and
follows :class:`OriginalTrace`: the original's edge types (``temporal``, ``safety_flow``) and
topologies (``mixed``, ``unknown``), events open to extra keys, ``role``, ``from``, ``to``, ``tool``
and ``content_ref`` optional for every type and possibly empty, ``system`` possibly empty; the
additions of this version (durations, tokens, costs, stages, attributions ...) are accepted too.
The graph rules the original never checked are warnings there (see :mod:`._graph`).
"""

from __future__ import annotations

from typing import Annotated, Any, ClassVar, Literal, get_args

import msgspec
from msgspec import UNSET, Meta, Struct, UnsetType

SCHEMA_VERSION = "1.0"

# Event types, with what each records. The order is the order of the schema's enum.
EventType = Literal[
    "orchestrator_decision",
    "spawn",
    "despawn",
    "message",
    "tool_call",
    "tool_result",
    "return",
    "aggregate",
    "human_intervention",
    "safety_event",
]
EVENT_TYPES: tuple[str, ...] = get_args(EventType)
EVENT_MEANINGS: dict[str, str] = {
    "orchestrator_decision": "an orchestrating agent decides what to do next (split, spawn, route, stop)",
    "spawn": "`agent` creates the sub-agent named in `to`",
    "despawn": "`agent` stops the agent named in `to` (it may stop itself)",
    "message": "`agent` sends a message to `to`; also a call to a model, with `to` naming the model",
    "tool_call": "`agent` calls the tool named in `tool`",
    "tool_result": "a tool's answer; `agent` may be the tool itself, which needs no spawn",
    "return": "`agent` hands its result back to `to`, the agent that spawned it or delegated to it",
    "aggregate": "`agent` combines results into one answer",
    "human_intervention": "a person steps in: approves, corrects or stops something",
    "safety_event": "a guard, filter or monitor flags or blocks something",
}

# Edge types: why the later event depends on the earlier one.
EdgeType = Literal["spawn", "delegate", "causal", "message", "tool_dependency", "return", "aggregate"]
EDGE_TYPES: tuple[str, ...] = get_args(EdgeType)
EDGE_MEANINGS: dict[str, str] = {
    "spawn": "the earlier event created the agent that acts in the later one",
    "delegate": "the earlier event's agent handed work to the later event's agent (counts as delegation for returns)",
    "causal": "the later event used the outcome of the earlier one",
    "message": "the later event read a message sent in the earlier one",
    "tool_dependency": "the later event is a tool call that needs the earlier event",
    "return": "the later event receives a result produced in the earlier one",
    "aggregate": "the later event combines the earlier one with other results",
}

# Edge types of the survey's original format that this version does not use; a trace without
# schema_version may still carry them.
ORIGINAL_EDGE_MEANINGS: dict[str, str] = {
    "temporal": "the later event follows the earlier one in time, with no stronger dependency claimed (original format)",
    "safety_flow": "a safety signal of the earlier event reaches the later one (original format)",
}
OriginalEdgeType = Literal[
    "spawn", "delegate", "causal", "message", "tool_dependency", "return", "aggregate", "temporal", "safety_flow"
]  # fmt: skip
ORIGINAL_EDGE_TYPES: tuple[str, ...] = get_args(OriginalEdgeType)

# Units that can carry reward or credit, fine to coarse; the ids of taxonomy.yaml's credit_unit
# field except NA (tests hold the two lists together).
CreditUnit = Literal["token", "turn", "message", "tool", "agent", "role", "orchestrator", "team"]
CREDIT_UNITS: tuple[str, ...] = get_args(CreditUnit)
# Units whose `ref` names an event, and the event types each accepts (None: any type).
EVENT_UNITS: dict[str, tuple[str, ...] | None] = {
    "token": None,
    "turn": None,
    "message": ("message",),
    "tool": ("tool_call", "tool_result"),
}
# Units whose `ref` names an agent (an `agent` value of some event).
AGENT_UNITS = ("agent", "orchestrator")

# Orchestration forms; the ids of taxonomy.yaml's topology field.
Topology = Literal["centralized", "planner_executor_critic", "debate", "swarm", "hierarchical", "harness", "NA"]
TOPOLOGIES: tuple[str, ...] = get_args(Topology)
# The original format's topologies: the taxonomy's without NA, plus mixed and unknown.
OriginalTopology = Literal[
    "centralized", "planner_executor_critic", "debate", "swarm", "hierarchical", "harness", "NA", "mixed", "unknown"
]  # fmt: skip
ORIGINAL_TOPOLOGIES: tuple[str, ...] = get_args(OriginalTopology)

# Every enum of the format, in its published order.
ENUMS: tuple[tuple[str, ...], ...] = (
    EVENT_TYPES,
    EDGE_TYPES,
    ORIGINAL_EDGE_TYPES,
    CREDIT_UNITS,
    TOPOLOGIES,
    ORIGINAL_TOPOLOGIES,
    (SCHEMA_VERSION,),
)

Text = Annotated[str, Meta(min_length=1)]
# Numbers decode as 64-bit floats, so one too large for a float (1e999, or an integer of 400
# digits) is refused like NaN: every number of a trace is finite. A whole number is a float
# held to multiples of 1, as JSON Schema's "integer" counts 3.0 as whole.
Number = float
NonNegative = Annotated[float, Meta(ge=0)]
Count = Annotated[float, Meta(ge=0, multiple_of=1)]


def _doc(text: str, **extra: Any) -> Meta:
    return Meta(description=text, extra=extra or None)


class Tokens(Struct, kw_only=True, forbid_unknown_fields=True, gc=False):
    """Tokens an event consumed and produced."""

    input: Annotated[Count, _doc("Tokens read: prompt and context.")] | UnsetType = UNSET
    output: Annotated[Count, _doc("Tokens written: completion, including any reasoning tokens.")] | UnsetType = UNSET


class Event(Struct, kw_only=True, forbid_unknown_fields=True, gc=False, tag_field="type", omit_defaults=True):
    """One timed action of one agent."""

    kind: ClassVar[str]

    id: Annotated[Text, _doc("Event id, unique within the trace; edges and references use it.")]
    t: Annotated[NonNegative, _doc("Start time, in seconds from any fixed origin (the run's start, or Unix time).")]
    agent: Annotated[
        Text,
        _doc("Who acts: an agent's name, or a tool's name for a tool answering a call (`tool_result`)."),
    ]
    role: Annotated[Text, _doc("The acting agent's role, such as lead, planner, executor or critic.")] | UnsetType = (
        UNSET
    )
    content_ref: (
        Annotated[Text, _doc("A reference to the content (a hash, file or URL), kept out of the trace itself.")]
        | UnsetType
    ) = UNSET
    from_: Annotated[Text, _doc("Sender of a message or return; when given it must equal `agent`.")] | UnsetType = (
        msgspec.field(default=UNSET, name="from")
    )
    to: (
        Annotated[
            Text,
            _doc(
                "Receiving agent: the one spawned (spawn), stopped (despawn), addressed (message; "
                "or the model called) or returned to (return). Required for those four types."
            ),
        ]
        | UnsetType
    ) = UNSET
    tool: (
        Annotated[Text, _doc("Tool name, such as browser.search. Required for tool_call and tool_result.")] | UnsetType
    ) = UNSET
    trusted: (
        Annotated[bool, _doc("Whether the content comes from a trusted source (false for web pages and tool output).")]
        | UnsetType
    ) = UNSET
    end: Annotated[NonNegative, _doc("End time, on the same clock as `t`; not before `t`.")] | UnsetType = UNSET
    duration: (
        Annotated[
            NonNegative, _doc("How long the event took, in seconds; if `end` is also given, `t + duration = end`.")
        ]
        | UnsetType
    ) = UNSET
    parent: (
        Annotated[
            Text,
            _doc(
                "Id of the enclosing event (an agent's invocation around its tool calls); starts no later than this one."
            ),
        ]
        | UnsetType
    ) = UNSET
    stage: (
        Annotated[
            Text,
            _doc(
                "Stage id: the round of orchestration the event belongs to; critical steps are also counted per stage."
            ),
        ]
        | UnsetType
    ) = UNSET
    tokens: Annotated[Tokens, _doc("Tokens this event consumed and produced.")] | UnsetType = UNSET
    status: (
        Annotated[
            Literal["ok", "error"],
            _doc(
                "How the action ended: ok, or error when it failed (such as an OpenTelemetry span with status "
                "ERROR or an exception event). Not given: not recorded."
            ),
        ]
        | UnsetType
    ) = UNSET
    error: (
        Annotated[Text, _doc("What went wrong, when the action failed: the error or exception message.")] | UnsetType
    ) = UNSET
    cost: (
        Annotated[
            dict[str, NonNegative],
            _doc(
                "Costs of this event by name, non-negative, such as usd or wall_clock_s.",
                keys={"usd": "Money spent, in US dollars.", "wall_clock_s": "Seconds of wall-clock time."},
            ),
        ]
        | UnsetType
    ) = UNSET
    attributes: (
        Annotated[dict[str, Any], _doc("Free-form details kept from the source, such as OpenTelemetry span ids.")]
        | UnsetType
    ) = UNSET


class OrchestratorDecision(Event, tag="orchestrator_decision"):
    kind = "orchestrator_decision"


class Spawn(Event, tag="spawn"):
    kind = "spawn"
    to: Text


class Despawn(Event, tag="despawn"):
    kind = "despawn"
    to: Text


class Message(Event, tag="message"):
    kind = "message"
    to: Text


class ToolCall(Event, tag="tool_call"):
    kind = "tool_call"
    tool: Text


class ToolResult(Event, tag="tool_result"):
    kind = "tool_result"
    tool: Text


class Return(Event, tag="return"):
    kind = "return"
    to: Text


class Aggregate(Event, tag="aggregate"):
    kind = "aggregate"


class HumanIntervention(Event, tag="human_intervention"):
    kind = "human_intervention"


class SafetyEvent(Event, tag="safety_event"):
    kind = "safety_event"


# Events an actor that is never spawned may record after the trace starts: tool results (a tool
# answering a call) and the events of people and monitors outside the team.
UNSPAWNED_KINDS: frozenset[type[Event]] = frozenset({ToolResult, HumanIntervention, SafetyEvent})

AnyEvent = (
    OrchestratorDecision
    | Spawn
    | Despawn
    | Message
    | ToolCall
    | ToolResult
    | Return
    | Aggregate
    | HumanIntervention
    | SafetyEvent
)
EVENT_CLASSES: tuple[type[Event], ...] = get_args(AnyEvent)


class Edge(Struct, kw_only=True, forbid_unknown_fields=True, gc=False):
    """A dependency between two events: `dst` could not happen without `src`."""

    src: Annotated[Text, _doc("Id of the earlier event.")]
    dst: Annotated[Text, _doc("Id of the later event; it starts no earlier than `src`.")]
    type: Annotated[EdgeType, _doc("Why `dst` depends on `src`.", meanings=EDGE_MEANINGS)]


class Attribution(Struct, kw_only=True, forbid_unknown_fields=True, gc=False):
    """A share of a reward channel given to one unit of the run, from a single token up to the team."""

    unit: Annotated[CreditUnit, _doc("The unit that receives the reward, fine to coarse.")]
    ref: (
        Annotated[
            Text,
            _doc(
                "Which unit: an event id for token, turn, message (a message event) and tool (a tool_call or "
                "tool_result event); an agent name for agent and orchestrator; a role for role. "
                "Required for every unit except team."
            ),
        ]
        | UnsetType
    ) = UNSET
    index: Annotated[Count, _doc("For unit token: the token's position in the event's output, from 0.")] | UnsetType = (
        UNSET
    )
    channel: Annotated[Text, _doc("The reward channel this share belongs to, as named in `rewards`.")]
    value: Annotated[Number, _doc("The reward given to the unit; any finite number.")]
    method: (
        Annotated[
            Text,
            _doc(
                "How the value was computed, such as a method of `masrl trace credit` (broadcast, split, "
                "discounted, critical-path, group, leave-one-out, shapley); not given: not recorded."
            ),
        ]
        | UnsetType
    ) = UNSET


class Ablation(Struct, kw_only=True, forbid_unknown_fields=True, gc=False, omit_defaults=True):
    """What this run leaves out of the team: a counterfactual run of the same task, to measure what the rest adds."""

    agents: (
        Annotated[
            list[Text],
            Meta(min_length=1),
            _doc("Agents of the full team that this run leaves out; none of them may act in it."),
        ]
        | UnsetType
    ) = UNSET
    roles: (
        Annotated[
            list[Text],
            Meta(min_length=1),
            _doc("Roles of the full team that this run leaves out; no event of the run may carry one of them."),
        ]
        | UnsetType
    ) = UNSET


_ABLATION_DOC = (
    "Marks a counterfactual run: the same task_id as the full team's runs, with the agents or roles named "
    "here left out. Leave-one-out and Shapley credit compare such runs with the full team's; a run without "
    "ablation is a run of the full team."
)


class Trace(Struct, kw_only=True, forbid_unknown_fields=True, gc=False, omit_defaults=True):
    """One run of a team of agents: timed events, the edges between them, its rewards and costs."""

    schema_version: (
        Annotated[
            Literal["1.0"],
            _doc("Version of this schema the trace follows; traces without it are read as version 1.0."),
        ]
        | UnsetType
    ) = UNSET
    trace_id: Annotated[Text, _doc("Id of this trace.")]
    task_id: Annotated[Text, _doc("Id of the task the run attempted.")] | UnsetType = UNSET
    system: Annotated[Text, _doc("The system or framework that produced the run.")] | UnsetType = UNSET
    topology: Annotated[Topology, _doc("Orchestration form of the team, as in the corpus taxonomy.")] | UnsetType = (
        UNSET
    )
    events: Annotated[list[AnyEvent], Meta(min_length=1), _doc("The events of the run; at least one.")]
    edges: Annotated[
        list[Edge], _doc("Dependencies between events; together with the events a directed acyclic graph.")
    ]
    rewards: (
        Annotated[
            dict[str, Number],
            _doc(
                "Reward of the run by channel (any name), each a finite number.",
                keys={
                    "team": "Shared outcome reward of the whole team.",
                    "orchestration": "Reward for how work was spawned, split, parallelised and aggregated.",
                    "tool": "Reward for tool use.",
                },
            ),
        ]
        | UnsetType
    ) = UNSET
    costs: (
        Annotated[
            dict[str, NonNegative],
            _doc(
                "Totals the run recorded for itself, by name, each non-negative.",
                keys={
                    "tokens": "Tokens used by all agents.",
                    "wall_clock_s": "Wall-clock duration of the run, in seconds.",
                    "tool_calls": "Number of tool calls.",
                    "messages": "Number of messages between agents.",
                    "usd": "Money spent, in US dollars.",
                },
            ),
        ]
        | UnsetType
    ) = UNSET
    metrics: (
        Annotated[dict[str, Number], _doc("Outcome measures the run recorded, by name, such as task_success.")]
        | UnsetType
    ) = UNSET
    ablation: Annotated[Ablation, _doc(_ABLATION_DOC)] | UnsetType = UNSET
    attributions: (
        Annotated[list[Attribution], _doc("Rewards attributed to units of the run (token, turn, ..., team).")]
        | UnsetType
    ) = UNSET
    metadata: (
        Annotated[dict[str, Any], _doc("Free-form notes about the trace, such as what an importer could not map.")]
        | UnsetType
    ) = UNSET


# ---------------------------------------------------------------------------------------------
# The original format: traces without schema_version

# The event keys of the original format; every other event field is an addition of this version.
ORIGINAL_EVENT_KEYS = frozenset({"id", "t", "type", "agent", "role", "from", "to", "tool", "content_ref", "trusted"})
Loose = str  # text that may be empty


class OriginalEvent(Event, forbid_unknown_fields=False):
    """One timed action of one agent, as the original format allows it: extra keys carry no rules."""

    role: Annotated[Loose, _doc("The acting agent's role; may be empty.")] | UnsetType = UNSET
    content_ref: Annotated[Loose, _doc("A reference to the content; may be empty.")] | UnsetType = UNSET
    from_: Annotated[Loose, _doc("Sender of a message or return; may be empty.")] | UnsetType = msgspec.field(
        default=UNSET, name="from"
    )
    to: Annotated[Loose, _doc("Receiving agent; optional for every type, may be empty.")] | UnsetType = UNSET
    tool: Annotated[Loose, _doc("Tool name; optional for every type, may be empty.")] | UnsetType = UNSET


class OriginalOrchestratorDecision(OriginalEvent, tag="orchestrator_decision"):
    kind = "orchestrator_decision"


class OriginalSpawn(OriginalEvent, tag="spawn"):
    kind = "spawn"


class OriginalDespawn(OriginalEvent, tag="despawn"):
    kind = "despawn"


class OriginalMessage(OriginalEvent, tag="message"):
    kind = "message"


class OriginalToolCall(OriginalEvent, tag="tool_call"):
    kind = "tool_call"


class OriginalToolResult(OriginalEvent, tag="tool_result"):
    kind = "tool_result"


class OriginalReturn(OriginalEvent, tag="return"):
    kind = "return"


class OriginalAggregate(OriginalEvent, tag="aggregate"):
    kind = "aggregate"


class OriginalHumanIntervention(OriginalEvent, tag="human_intervention"):
    kind = "human_intervention"


class OriginalSafetyEvent(OriginalEvent, tag="safety_event"):
    kind = "safety_event"


AnyOriginalEvent = (
    OriginalOrchestratorDecision
    | OriginalSpawn
    | OriginalDespawn
    | OriginalMessage
    | OriginalToolCall
    | OriginalToolResult
    | OriginalReturn
    | OriginalAggregate
    | OriginalHumanIntervention
    | OriginalSafetyEvent
)
ORIGINAL_EVENT_CLASSES: tuple[type[Event], ...] = get_args(AnyOriginalEvent)
# Each event class of either profile -> the class of this version that the checks and metrics use.
CANONICAL: dict[type, type[Event]] = {
    **{cls: cls for cls in EVENT_CLASSES},
    **dict(zip(ORIGINAL_EVENT_CLASSES, EVENT_CLASSES, strict=True)),
}


class OriginalEdge(Struct, kw_only=True, forbid_unknown_fields=True, gc=False):
    """A dependency between two events, with the original format's edge types too."""

    src: Annotated[Text, _doc("Id of the earlier event.")]
    dst: Annotated[Text, _doc("Id of the later event.")]
    type: Annotated[
        OriginalEdgeType,
        _doc("Why `dst` depends on `src`.", meanings={**EDGE_MEANINGS, **ORIGINAL_EDGE_MEANINGS}),
    ]


class OriginalTrace(Struct, kw_only=True, forbid_unknown_fields=True, gc=False, omit_defaults=True):
    """A trace without schema_version: the survey's original format, with this version's additions allowed."""

    trace_id: Annotated[Text, _doc("Id of this trace.")]
    task_id: Annotated[Text, _doc("Id of the task the run attempted.")] | UnsetType = UNSET
    system: Annotated[Loose, _doc("The system or framework that produced the run; may be empty.")] | UnsetType = UNSET
    topology: (
        Annotated[OriginalTopology, _doc("Orchestration form of the team, with the original's mixed and unknown.")]
        | UnsetType
    ) = UNSET
    events: Annotated[list[AnyOriginalEvent], Meta(min_length=1), _doc("The events of the run; at least one.")]
    edges: Annotated[list[OriginalEdge], _doc("Dependencies between events.")]
    rewards: Annotated[dict[str, Number], _doc("Reward of the run by channel (any name).")] | UnsetType = UNSET
    costs: (
        Annotated[dict[str, NonNegative], _doc("Totals the run recorded, by name, each non-negative.")] | UnsetType
    ) = UNSET
    metrics: Annotated[dict[str, Number], _doc("Outcome measures the run recorded, by name.")] | UnsetType = UNSET
    ablation: Annotated[Ablation, _doc(_ABLATION_DOC)] | UnsetType = UNSET
    attributions: (
        Annotated[list[Attribution], _doc("Rewards attributed to units of the run (token, turn, ..., team).")]
        | UnsetType
    ) = UNSET
    metadata: (
        Annotated[
            dict[str, Any],
            _doc(
                "Free-form notes; `opaque` keeps, by JSON Pointer, event values of a shape this version does not read."
            ),
        ]
        | UnsetType
    ) = UNSET


AnyTrace = Trace | OriginalTrace


def is_original(trace: AnyTrace) -> bool:
    """Whether *trace* is read under the original format's rules (it declares no schema_version)."""
    return isinstance(trace, OriginalTrace) or trace.schema_version is UNSET
