"""Named adaptations of the OpenTelemetry import to agent frameworks that depart from the conventions.

The importer (:mod:`masrl.trace._otel`) reads the OpenTelemetry GenAI conventions and OpenInference.
Some frameworks write spans those conventions do not describe, or put what they say elsewhere;
each such departure is read here, by one small function over a span's name and attributes, and
listed in :data:`ADAPTATIONS` (the traces page shows that table, and a test holds it to the
versions the fixtures of tests/fixtures/otel/ were recorded with). Nothing here applies to a span
that does not carry its framework's own marks.
"""

from __future__ import annotations

import json
import re
from typing import Any, NamedTuple

CREWAI_ROLE = "crewai.agent.role"
CREWAI_EVENT = "crewai.event_name"
CREWAI_FAILURE_EVENT = "tool_failure_detected"
CREWAI_DELEGATION_TOOLS = frozenset(
    {"Delegate work to coworker", "Ask question to coworker", "delegate_work_to_coworker", "ask_question_to_coworker"}
)
SMOLAGENTS_PREFIX = "smolagents."
ADK_MERGED_TOOL = "(merged tools)"
ADK_TRANSFER_TOOL = "transfer_to_agent"
ADK_TRANSFER_TYPE = "TransferToAgentTool"
LLAMAINDEX_STEP = ".run_agent_step"
LLAMAINDEX_PREPARE = "._prepare_chat_with_tools"
LLAMAINDEX_HANDOFF_TOOL = "handoff"
LLAMAINDEX_AGENT = re.compile(r"current_agent_name='([^'\\]+)'")

INPUT = "input.value"  # OpenInference: the span's input, often JSON
TOOL_NAME = ("gen_ai.tool.name", "tool.name")
TOOL_ARGUMENTS = "gen_ai.tool.call.arguments"


class Adaptation(NamedTuple):
    """One departure from the conventions, and what the importer reads instead."""

    framework: str
    versions: str  # the versions recorded in tests/fixtures/otel/<folder>/requirements.txt
    folder: str
    mode: str
    reads: str


ADAPTATIONS = [
    Adaptation(
        "CrewAI",
        "crewai 1.15.30, openinference-instrumentation-crewai 1.1.21",
        "crewai",
        "OpenInference (default)",
        "A coworker the delegation tool (`Delegate work to coworker`, `Ask question to coworker`) hands work to "
        "gets no agent span: the tool span's `input.value` names it (`coworker`), and the spans inside the tool "
        "are that coworker's work, spawned by the agent that called the tool.",
    ),
    Adaptation(
        "CrewAI",
        "crewai 1.15.30",
        "crewai",
        "CrewAI's own tracing",
        "`gen_ai.agent.name` holds an internal key: the agent is named by `crewai.agent.role`. The zero-length "
        "`execute_tool` span of event `tool_failure_detected` repeats the failure of the tool call beside it: "
        "it is not a call of its own.",
    ),
    Adaptation(
        "smolagents",
        "smolagents 1.26.0, openinference-instrumentation-smolagents 0.1.43",
        "smolagents",
        "OpenInference",
        "An AGENT span (it carries `smolagents.*` attributes) names no agent: the agent is its span name "
        "without `.run`.",
    ),
    Adaptation(
        "Google ADK",
        "google-adk 2.13.0",
        "google-adk",
        "ADK's own spans (GenAI conventions)",
        "The `execute_tool` span of `transfer_to_agent` is the handoff: to the agent its arguments name, or, when "
        "they are not recorded, to the next agent to act. The `execute_tool (merged)` span (tool `(merged tools)`) "
        "records the answers of calls requested together, merged: not a call of its own.",
    ),
    Adaptation(
        "LlamaIndex",
        "llama-index-core 0.14.25, openinference-instrumentation-llama-index 4.6.1",
        "llamaindex",
        "OpenInference, AgentWorkflow",
        "No span names an agent: the agent of a `run_agent_step` span is the `current_agent_name` of its input. "
        "The `handoff` tool's input names the agent handed to (`to_agent`). An LLM span of "
        "`_prepare_chat_with_tools` only builds a request: it is not a model call.",
    ),
]


def agent_name(name: str, attributes: dict[str, Any]) -> str | None:
    """The agent a span of a framework's own shape names, or None."""
    role = attributes.get(CREWAI_ROLE)
    if isinstance(role, str) and role:
        return role
    if name.endswith(".run") and any(key.startswith(SMOLAGENTS_PREFIX) for key in attributes):
        return name.removesuffix(".run") or None
    if name.endswith(LLAMAINDEX_STEP):
        found = LLAMAINDEX_AGENT.search(str(attributes.get(INPUT, "")))
        return found.group(1) if found else None
    return None


def not_a_call(name: str, attributes: dict[str, Any]) -> str | None:
    """Why a model or tool span of a framework's own shape is not a call of its own, or None."""
    if attributes.get(CREWAI_EVENT) == CREWAI_FAILURE_EVENT:
        return "CrewAI's second report of the failure of the tool call beside it (tool_failure_detected)"
    if _tool(attributes) == ADK_MERGED_TOOL:
        return "ADK's record of the answers of calls requested together, merged: no call of its own"
    if name.endswith(LLAMAINDEX_PREPARE):
        return "LlamaIndex's _prepare_chat_with_tools builds a request and sends none: no model call"
    return None


def handoff(attributes: dict[str, Any]) -> tuple[bool, str | None]:
    """Whether a tool span hands the work over to another agent, and to whom (None: the next to act)."""
    tool = _tool(attributes)
    if tool == ADK_TRANSFER_TOOL and attributes.get("gen_ai.tool.type") in (ADK_TRANSFER_TYPE, None):
        return True, _argument(attributes.get(TOOL_ARGUMENTS), "agent_name")
    if tool == LLAMAINDEX_HANDOFF_TOOL:
        found = _argument(attributes.get(INPUT), "to_agent")
        return found is not None, found
    return False, None


def coworker(attributes: dict[str, Any]) -> str | None:
    """The coworker a CrewAI delegation tool span hands work to, or None."""
    if _tool(attributes) not in CREWAI_DELEGATION_TOOLS:
        return None
    return _argument(attributes.get(INPUT), "coworker")


def _tool(attributes: dict[str, Any]) -> str | None:
    for key in TOOL_NAME:
        value = attributes.get(key)
        if isinstance(value, str):
            return value
    return None


def _argument(raw: Any, key: str) -> str | None:
    """*key* of a JSON object (or of its ``kwargs``), when it is a non-empty string."""
    if not isinstance(raw, str) or key not in raw:
        return None
    try:
        data = json.loads(raw)
    except ValueError:
        return None
    if isinstance(data, dict) and isinstance(data.get("kwargs"), dict):
        data = data["kwargs"]
    value = data.get(key) if isinstance(data, dict) else None
    return value if isinstance(value, str) and value else None
