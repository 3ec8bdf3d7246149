"""Orchestration traces: the schema, a validator that checks the event graph, metrics, diagrams, importers.

A trace records one run of a team of agents as timed events (decisions, spawns, messages, tool calls
and results, returns, aggregation, human and safety events) joined by typed edges, with the rewards
and costs of the run. ``schemas/trace.schema.json`` publishes the shape; ``masrl trace`` checks,
measures, draws and imports traces. Heavy libraries are imported inside functions, so loading the
``masrl`` command stays fast.
"""
