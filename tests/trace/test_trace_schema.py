"""The trace schema: generated, documented, in step with the taxonomy, and equal to the fast path.

The fast reader decodes into msgspec structs instead of running jsonschema; the property tests
below show that it accepts and rejects exactly the documents the published schema does.
"""

from __future__ import annotations

import copy
import hashlib
import json
from typing import Any

import jsonschema
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from trace_cases import TRACES, encode, load, valid_traces

from conftest import REPO, value_paths
from masrl.corpus._vocab import load_taxonomy
from masrl.trace import _model as m
from masrl.trace._read import decode, decode_fast, schema_problems, set_aside
from masrl.trace._schema import SCHEMA_PATH, schema_text, trace_schema

SCHEMA = json.loads((REPO / SCHEMA_PATH).read_text(encoding="utf-8"))
VALIDATOR = jsonschema.Draft202012Validator(SCHEMA)


def test_schema_file_is_generated_and_current() -> None:
    assert (REPO / SCHEMA_PATH).read_text(encoding="utf-8") == schema_text(), "stale: run masrl trace schema"


def test_schema_is_valid_2020_12() -> None:
    assert SCHEMA["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    jsonschema.Draft202012Validator.check_schema(SCHEMA)


def _properties(schema: Any, path: str = "") -> list[tuple[str, Any]]:
    out = []
    if isinstance(schema, dict):
        for name, value in schema.get("properties", {}).items():
            out.append((f"{path}/{name}", value))
        for key, value in schema.items():
            if key != "properties":
                out.extend(_properties(value, f"{path}/{key}"))
        for name, value in schema.get("properties", {}).items():
            out.extend(_properties(value, f"{path}/{name}"))
    elif isinstance(schema, list):
        for i, value in enumerate(schema):
            out.extend(_properties(value, f"{path}/{i}"))
    return out


def test_every_property_is_described() -> None:
    found = [(path, p) for path, p in _properties(SCHEMA) if "/if/" not in path]
    assert len(found) > 40
    undocumented = [path for path, p in found if not str(p.get("description", "")).strip()]
    assert undocumented == []


def test_vocabularies_match_the_taxonomy() -> None:
    taxonomy = load_taxonomy(REPO)
    assert tuple(i for i in taxonomy.ids("credit_unit") if i != "NA") == m.CREDIT_UNITS
    assert set(m.TOPOLOGIES) == set(taxonomy.ids("topology"))
    assert tuple(SCHEMA["$defs"]["event"]["properties"]["type"]["enum"]) == m.EVENT_TYPES
    assert set(m.EVENT_MEANINGS) == set(m.EVENT_TYPES)
    assert set(m.EDGE_MEANINGS) == set(m.EDGE_TYPES)


def test_event_types_require_their_fields() -> None:
    rules = {r["if"]["properties"]["type"]["const"]: r["then"]["required"] for r in SCHEMA["$defs"]["event"]["allOf"]}
    assert rules == {
        "spawn": ["to"],
        "despawn": ["to"],
        "message": ["to"],
        "tool_call": ["tool"],
        "tool_result": ["tool"],
        "return": ["to"],
    }


@pytest.mark.parametrize("path", sorted(TRACES.glob("*.json")), ids=lambda p: p.name)
def test_example_traces_match_the_published_schema(path: Any) -> None:
    data = load(path)
    assert list(VALIDATOR.iter_errors(data)) == []
    assert decode_fast(path.read_bytes()) is not None


# SHA-256 of example_trace.json as published with the survey artifact (CC0).
REFERENCE_EXAMPLE_SHA256 = "1f131592addcf0eecf89171cf14c31d9d7814636af0593e5eea932dbf70f18ba"


def test_reference_example_is_the_survey_artifact_unchanged() -> None:
    digest = hashlib.sha256((TRACES / "reference-example.json").read_bytes()).hexdigest()
    assert digest == REFERENCE_EXAMPLE_SHA256


# -- Properties: the fast path and the published schema agree ----------------------------------

json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(10**6), 10**6)
    | st.floats(allow_nan=False, allow_infinity=False, width=64)
    | st.text(max_size=12),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3),
    max_leaves=6,
)
# Values that hit the schema's edges: every enum word, empty and whole numbers, negatives, null.
edge_values = st.sampled_from(
    [
        *m.EVENT_TYPES,
        *m.ORIGINAL_EDGE_TYPES,
        *m.CREDIT_UNITS,
        *m.ORIGINAL_TOPOLOGIES,
        "1.0",
        "1.1",
        "",
        0,
        -1,
        3.0,
        3.5,
        -0.0,
        None,
    ]
)
field_names = st.sampled_from(
    ["id", "t", "type", "agent", "to", "from", "tool", "end", "duration", "tokens", "input", "output", "cost",
     "unit", "ref", "index", "value", "channel", "src", "dst", "events", "edges", "trace_id", "schema_version",
     "rewards", "costs", "attributions", "metadata", "attributes", "stage", "parent", "trusted", "x"]
)  # fmt: skip


def _at(data: Any, path: tuple[Any, ...]) -> Any:
    for step in path:
        data = data[step]
    return data


@st.composite
def mutated_traces(draw: st.DrawFn) -> Any:
    """A valid trace with one to three random edits: set, delete or add anywhere."""
    data = copy.deepcopy(draw(valid_traces()))
    for _ in range(draw(st.integers(1, 3))):
        paths = value_paths(data)
        action = draw(st.sampled_from(["set", "edge", "delete", "add"]))
        if action == "add" or not paths:
            holders = [p for p in paths if isinstance(_at(data, p), dict)]
            target = _at(data, draw(st.sampled_from(holders))) if holders and draw(st.booleans()) else data
            target[draw(field_names)] = draw(json_values | edge_values)
            continue
        path = draw(st.sampled_from(paths))
        parent, last = _at(data, path[:-1]), path[-1]
        if action == "delete":
            del parent[last]
        else:
            parent[last] = draw(edge_values if action == "edge" else json_values)
    return data


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(valid_traces())
def test_random_valid_traces_match_the_schema_and_decode(trace: dict[str, Any]) -> None:
    assert list(VALIDATOR.iter_errors(trace)) == []
    assert decode_fast(encode(trace)) is not None


def _set_aside(data: Any) -> bool:
    """Whether *data* is a trace of the original format with a value the reader keeps as opaque data."""
    return isinstance(data, dict) and bool(set_aside(copy.deepcopy(data)))


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutated_traces())
def test_fast_path_accepts_exactly_what_the_schema_accepts(data: Any) -> None:
    """Both profiles. In a trace without schema_version, a key this version adds may hold any value
    (the schema says anyOf its shape or anything); the fast path refuses another shape and the
    careful path keeps it as opaque data, so there the whole reader is what equals the schema."""
    schema_ok = VALIDATOR.is_valid(data)
    fast_ok = decode_fast(encode(data)) is not None
    if _set_aside(data):
        assert not fast_ok
    else:
        assert fast_ok == schema_ok, list(VALIDATOR.iter_errors(data))[:3]
    assert (decode(encode(data), "t.json")[0] is not None) == schema_ok
    if isinstance(data, dict):
        # The careful path finds a reason exactly when the schema does.
        data = copy.deepcopy(data)
        set_aside(data)
        assert (schema_problems(data) == []) == schema_ok


@settings(max_examples=200, deadline=None)
@given(json_values)
def test_any_json_value_is_judged_alike(data: Any) -> None:
    assert (decode_fast(encode(data)) is not None) == VALIDATOR.is_valid(data)


def test_generated_schema_equals_published() -> None:
    assert trace_schema() == SCHEMA
