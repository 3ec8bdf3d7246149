"""The record specs, their JSON Schemas, and the proof that both accept the same records."""

from __future__ import annotations

import copy
import datetime as dt
import json
from pathlib import Path
from typing import Any

import jsonschema
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from conftest import REPO, value_paths
from masrl.corpus._load import record_files
from masrl.corpus._schema import RECORD_KINDS, check_record, json_schema, next_year, specs
from masrl.corpus._vocab import load_taxonomy
from masrl.corpus._yaml import Document, load_path
from masrl.publish._schemas import render_schemas

TAXONOMY = load_taxonomy(REPO)
VALIDATORS = {
    kind: jsonschema.Draft202012Validator(
        json_schema(kind, TAXONOMY), format_checker=jsonschema.FormatChecker(formats=["date"])
    )
    for kind in RECORD_KINDS
}
REAL = [(kind, load_path(path).data) for kind, path in record_files(REPO)]
# Real records leave most optional fields out, so each kind also gets one seed that sets every
# field its spec allows: mutations then reach et_al, doi, more_urls, every bibtex key, all five
# sub-decisions, notes and every convention under exceptions.
FULL_PAPER = {
    **next(data for kind, data in REAL if kind == "paper" and data["key"] == "magrpo"),
    "et_al": True,
    "doi": "10.1000/xyz123",
    "more_urls": ["https://example.org/a", "https://example.org/b"],
    "bibtex": {
        name: "Some value"
        for name in ("journal", "booktitle", "volume", "number", "pages", "publisher", "institution", "howpublished")
    },
    "subdecisions": {
        o: {"code": "learned", "basis": "abstract", "evidence": "The abstract says so."}
        for o in ("O1", "O2", "O3", "O4", "O5")
    },
    "notes": "Line one.\nLine two.",
    "changes": [{"date": "2026-06-01", "note": "Venue updated."}, {"date": "2026-07-01", "note": "Authors completed!"}],
    "exceptions": {c.id: "Because it is special." for c in TAXONOMY.conventions},
}
FULL_AUDIT = {**next(data for kind, data in REAL if kind == "audit"), "note": "A note on the row."}
SEEDS = {kind: [data for k, data in REAL if k == kind] for kind in RECORD_KINDS}
SEEDS["paper"] += [FULL_PAPER] * 40  # drawn as often as a fifth of the real papers together
SEEDS["audit"] += [FULL_AUDIT] * 8


def test_schemas_are_valid_2020_12() -> None:
    for kind in RECORD_KINDS:
        jsonschema.Draft202012Validator.check_schema(json_schema(kind, TAXONOMY))


def test_schema_files_are_current() -> None:
    # A taxonomy of its own: specs are cached per taxonomy, and these must be rendered afresh.
    for rel, text in render_schemas(load_taxonomy(REPO)).items():
        assert (REPO / rel).read_text(encoding="utf-8") == text, f"{rel} is stale: run masrl schema"


def test_every_record_matches_its_published_schema() -> None:
    # One test over every record, not one test a record: at nine thousand records the per-test
    # overhead alone was minutes of the suite. A failure names each record the published schema or
    # the validator's spec refuses, with every error.
    failures = []
    for kind, data in REAL:
        errors = [error.message for error in VALIDATORS[kind].iter_errors(data)]
        errors += [str(problem) for problem in check_record(kind, Document(data, {}), "r.yaml", TAXONOMY)]
        if errors:
            failures.append(f"{kind} {data.get('key', data.get('id'))}: " + "; ".join(errors))
    assert failures == []
    assert {kind for kind, _ in REAL} == set(RECORD_KINDS)  # papers, exclusions and audits were all read


def test_every_record_file_points_editors_at_its_schema() -> None:
    for kind, path in record_files(REPO):
        first = path.read_text(encoding="utf-8").splitlines()[0]
        assert first == f"# yaml-language-server: $schema=../schemas/{kind}.schema.json", path


# -- Property: random mutations are either accepted or cleanly rejected, and the spec agrees with
#    the JSON Schema on which. The year's upper bound and future dates are the known exceptions
#    (they move with the calendar), so mutations that hit them are set aside.

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(10**6), 10**6) | st.floats(allow_nan=False) | st.text(max_size=30),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3),
    max_leaves=6,
)


def _vocab_words(kind: str) -> list[str]:
    words: list[str] = []
    for field in TAXONOMY.fields.values():
        words.extend(field.ids)
    return words


@st.composite
def mutated(draw: st.DrawFn) -> tuple[str, Any]:
    kind = draw(st.sampled_from(sorted(RECORD_KINDS)))
    data = copy.deepcopy(draw(st.sampled_from(SEEDS[kind])))
    for _ in range(draw(st.integers(1, 3))):
        paths = value_paths(data)
        action = draw(st.sampled_from(["set", "delete", "add", "word", "text"]))
        if action == "add" or not paths:
            target = data
            if paths and draw(st.booleans()):
                parent = draw(st.sampled_from(paths))
                candidate = _get(data, parent)
                target = candidate if isinstance(candidate, dict) else data
            target[draw(st.text(min_size=1, max_size=10))] = draw(json_values)
            continue
        path = draw(st.sampled_from(paths))
        parent, last = _get(data, path[:-1]), path[-1]
        if action == "delete":
            del parent[last]
        elif action == "word":
            parent[last] = draw(st.sampled_from(_vocab_words(kind)))
        elif action == "text":
            parent[last] = draw(st.text(max_size=250))
        else:
            parent[last] = draw(json_values)
    return kind, data


def _get(data: Any, path: tuple[Any, ...]) -> Any:
    for part in path:
        data = data[part]
    return data


def _calendar_exception(data: Any) -> bool:
    if not isinstance(data, dict):
        return False
    year = data.get("year")
    if isinstance(year, (int, float)) and not isinstance(year, bool) and year > next_year():
        return True
    days = [data.get("date_screened"), data.get("added")]
    if isinstance(data.get("changes"), list):
        days += [c.get("date") for c in data["changes"] if isinstance(c, dict)]
    for day in days:
        if isinstance(day, str):
            try:
                if dt.date.fromisoformat(day) > dt.date.today():
                    return True
            except ValueError:
                pass
    return False


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutated())
def test_spec_and_schema_agree_on_mutated_records(case: tuple[str, Any]) -> None:
    kind, data = case
    assume(not _calendar_exception(data))
    problems = list(check_record(kind, Document(data, {}), "r.yaml", TAXONOMY))
    for problem in problems:
        assert problem.message
        assert problem.line >= 1
    schema_ok = VALIDATORS[kind].is_valid(data)
    assert (not problems) == schema_ok, (problems, list(VALIDATORS[kind].iter_errors(data))[:3])


def test_full_seeds_are_valid() -> None:
    for kind, data in (("paper", FULL_PAPER), ("audit", FULL_AUDIT)):
        assert not list(check_record(kind, Document(data, {}), "r.yaml", TAXONOMY))
        VALIDATORS[kind].validate(data)


def test_fixed_field_names_are_reserved_for_tag_fields() -> None:
    """A tag field named like a fixed field would shadow it; taxonomy.yaml may not declare one."""
    from masrl.corpus._vocab import RESERVED_NAMES

    for kind in ("paper", "exclusion"):
        tags = {f.name for f in TAXONOMY.tag_fields(kind)}
        fixed = {spec.name for spec in specs(kind, TAXONOMY)} - tags
        assert fixed <= RESERVED_NAMES, fixed - RESERVED_NAMES


def test_schema_directory_holds_only_generated_files() -> None:
    generated = set(render_schemas(TAXONOMY))
    on_disk = {f"schemas/{p.name}" for p in (REPO / "schemas").glob("*.json")}
    assert on_disk - generated <= {"schemas/trace.schema.json"}
    for rel in generated:
        json.loads(Path(REPO / rel).read_text(encoding="utf-8"))
