"""Named adaptations of the OpenTelemetry import to agent frameworks that depart from the conventions.

The importer (:mod:`masrl.trace._otel`) reads the OpenTelemetry GenAI conventions and OpenInference.
Some frameworks write spans those conventions do not describe, or put what they say elsewhere;
each such departure is read here by a small function over a span's name and attributes, and none
applies to a span without its framework's own marks. The traces page lists them in a table
(framework, versions recorded, mode, what is read from where), which a test holds to the versions
the recordings in tests/fixtures/otel/ were made with:

* CrewAI: the coworker its delegation tools name (``coworker`` in ``input.value``); the agent's
  role (``crewai.agent.role``) over its internal key; the repeated tool-failure span;
* smolagents: the agent named by its AGENT span's name (``NAME.run``);
* Google ADK: ``transfer_to_agent`` as a handoff; the ``(merged tools)`` span as no call;
* LlamaIndex: ``current_agent_name`` of a ``run_agent_step`` span; the ``handoff`` tool;
  ``_prepare_chat_with_tools`` as no model call;
* Agent Lightning: its reward spans (``agentlightning.annotation``, written by ``emit_reward``)
  carry the run's rewards as ``agentlightning.reward.N.name`` and ``agentlightning.reward.N.value``
  (the first the primary one, named ``primary`` when a single number is emitted); its earlier
  releases wrote one ``reward`` attribute. They become the trace's reward channels.
"""

from __future__ import annotations

import json
import re
from typing import Any

CREWAI_ROLE = "crewai.agent.role"  # CrewAI's own tracing: the readable agent name
CREWAI_EVENT = "crewai.event_name"  # CrewAI's own tracing: the event a span was made from
CREWAI_FAILURE_EVENT = "tool_failure_detected"  # the event of its second span for a failed tool call
# The tools a CrewAI agent hands work to a coworker with, as named in spans and in native tool calls.
CREWAI_DELEGATION_TOOLS = frozenset(
    {"Delegate work to coworker", "Ask question to coworker", "delegate_work_to_coworker", "ask_question_to_coworker"}
)
SMOLAGENTS_PREFIX = "smolagents."  # the attributes only smolagents' agent spans carry
ADK_MERGED_TOOL = "(merged tools)"  # the tool name of ADK's span merging answers of calls made together
ADK_TRANSFER_TOOL = "transfer_to_agent"  # ADK's handoff tool, and its type
ADK_TRANSFER_TYPE = "TransferToAgentTool"
LLAMAINDEX_STEP = ".run_agent_step"  # the AgentWorkflow step whose input names the acting agent
LLAMAINDEX_PREPARE = "._prepare_chat_with_tools"  # an LLM span that sends no request
LLAMAINDEX_HANDOFF_TOOL = "handoff"  # AgentWorkflow's handoff tool (its argument to_agent)
# The tools whose spans may hand the work over (only spans of these are looked at further).
HANDOFF_TOOLS = frozenset({ADK_TRANSFER_TOOL, LLAMAINDEX_HANDOFF_TOOL})
LLAMAINDEX_AGENT = re.compile(r"current_agent_name='([^'\\]+)'")  # as the step's input event is printed

LIGHTNING_ANNOTATION = "agentlightning.annotation"  # the name of Agent Lightning's reward (annotation) spans
LIGHTNING_REWARD = re.compile(r"agentlightning\.reward\.(\d+)\.(name|value)")
LIGHTNING_LEGACY = "reward"  # the one attribute of a reward span before Agent Lightning 0.3
LIGHTNING_PRIMARY = "primary"  # the channel of a reward emitted as a single number

INPUT = "input.value"  # OpenInference: the span's input, often JSON
TOOL_NAME = ("gen_ai.tool.name", "tool.name")  # the tool, by either convention
TOOL_ARGUMENTS = "gen_ai.tool.call.arguments"  # GenAI conventions: a call's arguments, when recorded


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


def lightning_rewards(name: str, attributes: dict[str, Any]) -> dict[str, float] | None:
    """The rewards an Agent Lightning reward span carries, by channel, or None for any other span."""
    found: dict[int, dict[str, Any]] = {}
    for key, value in attributes.items():
        if key.startswith("agentlightning.reward."):
            match = LIGHTNING_REWARD.fullmatch(key)
            if match is not None:
                found.setdefault(int(match.group(1)), {})[match.group(2)] = value
    if found:
        return {
            str(d.get("name") or LIGHTNING_PRIMARY): float(d["value"])
            for _, d in sorted(found.items())
            if isinstance(d.get("value"), (int, float)) and not isinstance(d.get("value"), bool)
        }
    legacy = attributes.get(LIGHTNING_LEGACY)
    if name == LIGHTNING_ANNOTATION and isinstance(legacy, (int, float)) and not isinstance(legacy, bool):
        return {LIGHTNING_PRIMARY: float(legacy)}
    return None


def not_a_call(name: str, attributes: dict[str, Any]) -> str | None:
    """Why a model or tool span of a framework's own shape is not a call of its own, or None.

    Asked of every span, so it looks only at what a few lookups show.
    """
    if attributes.get(CREWAI_EVENT) == CREWAI_FAILURE_EVENT:
        return "CrewAI's second report of the failure of the tool call beside it (tool_failure_detected)"
    if attributes.get(TOOL_NAME[0]) == ADK_MERGED_TOOL:
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
