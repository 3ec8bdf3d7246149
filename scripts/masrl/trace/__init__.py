"""Orchestration traces: the schema, a validator that checks the event graph, metrics, diagrams, importers,
credit assignment (``masrl trace credit``) and training data (``masrl trace export``).

A trace records one run of a team of agents as timed events (decisions, spawns, messages, tool calls
and results, returns, aggregation, human and safety events) joined by typed edges, with the rewards
and costs of the run. ``schemas/trace.schema.json`` publishes the shape; ``masrl trace`` checks,
measures, draws and imports traces. Heavy libraries are imported inside functions, so loading the
``masrl`` command stays fast.

From Python: ``from masrl.trace import load, validate, metrics`` (see :mod:`masrl.trace.api`).

May import: :mod:`masrl.base` only. The toolkit stands alone: it reads traces, not the corpus.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from masrl.trace.api import (
        AgentMetrics,
        Loaded,
        Metrics,
        Problem,
        TokenCounts,
        TraceError,
        load,
        metrics,
        validate,
    )

__all__ = ["AgentMetrics", "Loaded", "Metrics", "Problem", "TokenCounts", "TraceError", "load", "metrics", "validate"]


def __getattr__(name: str) -> Any:
    """The Python API of :mod:`masrl.trace.api`, imported on first use (the command line never pays for it)."""
    if name in __all__:
        from masrl.trace import api

        return getattr(api, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
