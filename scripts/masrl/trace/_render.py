"""Draw a trace as a Mermaid flowchart, for the site and for README files.

Events are nodes, grouped in one subgraph per agent (in order of each agent's first event); the
node's shape says the event type and its label gives id, type, the agent or tool it concerns and
its time. Edges are drawn with their type as label; spawns are thick, messages dotted.

Everything that comes from the trace is untrusted text. Node and subgraph ids are generated
(``n0``, ``g0``), and every label is quoted with each character outside a small safe set written as
a Mermaid entity code (``#35;`` for ``#``), so no id, name or tool can close a label, start a new
statement, inject HTML or a comment.
"""

from __future__ import annotations

import re

from masrl.trace import _model as m
from masrl.trace._graph import Graph

MAX_EVENTS = 300  # a larger diagram is unreadable; raise the limit explicitly to draw one

_SAFE = re.compile(r"[A-Za-z0-9 _.,:=+()/-]")

# (opening, closing) of the node shape for each event type.
SHAPES: dict[str, tuple[str, str]] = {
    "orchestrator_decision": ("{", "}"),
    "spawn": ("{{", "}}"),
    "despawn": ("{{", "}}"),
    "message": ("([", "])"),
    "tool_call": ("[/", "/]"),
    "tool_result": ("[\\", "\\]"),
    "return": ("(", ")"),
    "aggregate": ("[[", "]]"),
    "human_intervention": ("((", "))"),
    "safety_event": (">", "]"),
}

ARROWS: dict[str, str] = {"spawn": "==>", "message": "-.->"}  # other edge types draw as -->


class TooLarge(Exception):
    """The trace has more events than the diagram may hold."""


def escape(text: str) -> str:
    """*text* safe inside a quoted Mermaid label: unsafe characters become ``#<code>;``."""
    return "".join(ch if _SAFE.match(ch) else f"#{ord(ch)};" for ch in text)


def _number(t: float) -> str:
    return f"{t:g}" if isinstance(t, float) else str(t)


def _label(event: m.Event) -> str:
    words = [event.id, event.kind]
    if event.kind in ("spawn", "despawn") and event.to:
        words.append(str(event.to))
    elif event.kind in ("message", "return") and event.to:
        words += ["to", str(event.to)]
    elif event.tool:
        words.append(event.tool)
    return escape(" ".join(words) + f", t={_number(event.t)}")


def mermaid(trace: m.AnyTrace, g: Graph, *, max_events: int = MAX_EVENTS) -> str:
    """The Mermaid ``flowchart`` source for *trace* (validated, with its graph *g*)."""
    events = trace.events
    if len(events) > max_events:
        raise TooLarge(f"the trace has {len(events):,} events; a diagram holds at most {max_events:,}")
    groups: dict[str, list[int]] = {}
    for i, agent in enumerate(g.agents):
        groups.setdefault(agent, []).append(i)
    lines = ["flowchart LR"]
    for k, (agent, members) in enumerate(groups.items()):
        lines.append(f'  subgraph g{k}["{escape(agent)}"]')
        for i in members:
            opening, closing = SHAPES[events[i].kind]
            lines.append(f'    n{i}{opening}"{_label(events[i])}"{closing}')
        lines.append("  end")
    index = g.index
    for e in trace.edges:
        arrow = ARROWS.get(e.type, "-->")
        lines.append(f"  n{index[e.src]} {arrow}|{escape(e.type)}| n{index[e.dst]}")
    return "\n".join(lines) + "\n"
