"""protocol.yaml: loading, every kind of mistake, the generated schema, rounds and their counts."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from hypothesis import given
from hypothesis import strategies as st

from conftest import EXCLUSION_TEXT, PAPER_TEXT, REPO, replace_line
from masrl.corpus._load import load_corpus
from masrl.corpus._records import Exclusion, Paper
from masrl.corpus._vocab import load_taxonomy
from masrl.corpus._yaml import load_text
from masrl.living._protocol import (
    CONTRIBUTIONS,
    check_protocol,
    load_protocol,
    protocol_schema,
    round_counts,
    round_of,
)

TAXONOMY = load_taxonomy(REPO)
PROTOCOL_TEXT = (REPO / "protocol.yaml").read_text("utf-8")
PROTOCOL = load_protocol(REPO, TAXONOMY)


def _problems(text: str) -> list[str]:
    return [str(p) for p in check_protocol(load_text(text), "protocol.yaml", TAXONOMY)]


def test_the_repository_protocol_is_valid_and_matches_its_published_schema() -> None:
    assert _problems(PROTOCOL_TEXT) == []
    schema = json.loads((REPO / "schemas" / "protocol.schema.json").read_text("utf-8"))
    assert schema == protocol_schema(TAXONOMY)
    jsonschema.Draft202012Validator.check_schema(schema)
    jsonschema.Draft202012Validator(schema).validate(load_text(PROTOCOL_TEXT).data)
    assert PROTOCOL_TEXT.splitlines()[0] == "# yaml-language-server: $schema=schemas/protocol.schema.json"


def test_the_protocol_holds_the_surveys_facts() -> None:
    assert [f.id for f in PROTOCOL.query_families] == [
        "multi_agent_llm_rl",
        "credit_assignment",
        "orchestration",
        "tool_software_agents",
        "safety",
        "classical_marl",
        "industrial_systems",
    ]
    assert [r.id for r in PROTOCOL.inclusion] == [1, 2, 3, 4, 5]
    assert PROTOCOL.stages == TAXONOMY.ids("screening_stage")
    first = PROTOCOL.rounds[0]
    assert (first.origin, first.cutoff, first.reported) == (
        "survey",
        "2026-05-04",
        {"identified": 116, "retained": 84, "excluded": 32},
    )


@pytest.mark.parametrize(
    ("old", "new", "expected"),
    [
        # shape and vocabulary (from the schema)
        ("version: 1\n", "", ["protocol.yaml:21:1: version: version is required"]),
        ("version: 1\n", "version: 1\nextra: 2\n", ["protocol.yaml:21:1: extra: unknown field; allowed fields are version, sources, query_families, inclusion, exclusion, stages, rounds"]),
        ("stages: [abstract_screen,", "stages: [abstract_scren,", ["protocol.yaml:99:10: stages[0]: stages must be one of 'abstract_screen', 'full_text_screen', 'artifact_screen', 'duplicate_screen', not 'abstract_scren' (did you mean 'abstract_screen'?)"]),
        ("reasons: [no_rl]", "reasons: [no_rll]", ["protocol.yaml:85:15: exclusion[0].reasons[0]: reasons must be one of 'no_rl', 'single_agent', 'no_mas_mechanism', 'out_of_scope', 'background_only', 'superseded', 'duplicate', 'insufficient_detail', 'no_trace_instrumentation', not 'no_rll' (did you mean 'no_rl'?)"]),
        ("  - id: multi_agent_llm_rl\n", "  - id: Multi Agent\n", ["protocol.yaml:41:5: query_families[0].id: id must be a lower-case id (letters, digits, _ or -), not 'Multi Agent'"]),
        ('    start: "2026-04-26"\n', '    start: 26 April 2026\n', ["protocol.yaml:104:5: rounds[0].start: start must be a date written YYYY-MM-DD, not '26 April 2026'"]),
        ("    discover: arxiv\n", "    discover: arxive\n", ["protocol.yaml:25:5: sources[0].discover: discover must be one of 'arxiv', 'openalex', not 'arxive' (did you mean 'arxiv'?)"]),
        ("      identified: 116\n", "      identified: many\n", ["protocol.yaml:109:7: rounds[0].reported.identified: identified must be a whole number, not text"]),
        ("  - id: 1\n    text: It trains", "  - id: 0\n    text: It trains", ["protocol.yaml:71:5: inclusion[0].id: id must be at least 1, not 0"]),
        # rules across items
        ("  - id: credit_assignment\n", "  - id: multi_agent_llm_rl\n", ["protocol.yaml:45:5: query_families[1].id: id 'multi_agent_llm_rl' is already used by query_families[0]"]),
        ('    end: "2026-12-01"\n', '    end: "2026-05-01"\n', [
            "protocol.yaml:115:5: rounds[1].end: end 2026-05-01 must not be before start 2026-05-04",
            "protocol.yaml:116:5: rounds[1].cutoff: cutoff 2026-12-01 must lie in the window 2026-05-04 to 2026-05-01",
        ]),
        ('    cutoff: "2026-12-01"\n', '    cutoff: "2026-02-30"\n', ["protocol.yaml:116:5: rounds[1].cutoff: cutoff must be a real date, not '2026-02-30'"]),
        ("    origin: discovery\n", "    origin: survey\n", ["protocol.yaml:117:5: rounds[1].origin: only one round can own the survey's records (origin survey)"]),
    ],
)  # fmt: skip
def test_every_mistake_is_named_with_its_line(old: str, new: str, expected: list[str]) -> None:
    assert old in PROTOCOL_TEXT
    assert _problems(PROTOCOL_TEXT.replace(old, new, 1)) == expected


def test_rounds_out_of_order_are_refused() -> None:
    text = PROTOCOL_TEXT + (
        '  - id: round-0\n    label: Earlier\n    start: "2026-01-01"\n    end: "2026-02-01"\n'
        '    cutoff: "2026-02-01"\n    origin: discovery\n'
    )
    assert _problems(text) == [
        "protocol.yaml:122:5: rounds[2].cutoff: rounds must be listed oldest first: cutoff 2026-02-01 is not after rounds[0]'s 2026-05-04",
        "protocol.yaml:122:5: rounds[2].cutoff: rounds must be listed oldest first: cutoff 2026-02-01 is not after rounds[1]'s 2026-12-01",
    ]


@given(st.sampled_from(["sources", "query_families", "inclusion", "exclusion", "stages", "rounds"]), st.integers(0, 3))
def test_the_checks_accept_only_what_the_schema_accepts(section: str, action: int) -> None:
    # Mutate one section (drop it, empty it, make it text, or a number) and compare the verdicts.
    data = load_text(PROTOCOL_TEXT).data
    mutated = dict(data)
    if action == 0:
        del mutated[section]
    else:
        mutated[section] = [[], "text", 7][action - 1]
    from masrl.corpus._yaml import Document

    problems = check_protocol(Document(mutated, {}), "protocol.yaml", TAXONOMY)
    valid = jsonschema.Draft202012Validator(protocol_schema(TAXONOMY)).is_valid(mutated)
    assert (not problems) == valid
    assert problems


def test_validate_reports_protocol_problems_with_the_records(repo_copy: Path, run_cli: Any) -> None:
    path = repo_copy / "protocol.yaml"
    path.write_text(path.read_text("utf-8").replace("stages: [abstract_screen,", "stages: [abstract,"), "utf-8")
    result = run_cli("validate")
    assert result.exit_code == 1
    assert result.stdout.startswith("protocol.yaml:99:10: stages[0]: stages must be one of")
    assert run_cli("validate", "protocol.yaml").exit_code == 1
    assert run_cli("validate", "papers").exit_code == 0
    assert run_cli("build").exit_code == 1


def test_the_screening_page_renders_the_protocol(repo_copy: Path) -> None:
    page = (repo_copy / "site" / "docs" / "screening.md").read_text("utf-8")
    assert "## Protocol" in page
    assert "| Credit assignment | credit assignment, counterfactual credit, Shapley credit" in page
    assert "| Survey snapshot (`round-1`) | 2026-04-26 to 2026-05-04 | 2026-05-04 |" in page


# ---------------------------------------------------------------------------------------------
# rounds


def _paper(origin: str, added: str) -> Paper:
    data = load_text(
        replace_line(replace_line(PAPER_TEXT, "origin", f"origin: {origin}"), "added", f'added: "{added}"')
    ).data
    return Paper.from_yaml(data, TAXONOMY)


def _exclusion(origin: str, added: str) -> Exclusion:
    text = replace_line(replace_line(EXCLUSION_TEXT, "origin", f"origin: {origin}"), "added", f'added: "{added}"')
    return Exclusion.from_yaml(load_text(text).data, TAXONOMY)


@pytest.mark.parametrize(
    ("origin", "added", "expected"),
    [
        ("survey", "2026-05-04", "round-1"),
        ("survey", "2026-11-30", "round-1"),  # the survey's records are round 1 whatever the date says
        ("discovery", "2026-05-05", "round-2"),
        ("discovery", "2026-12-01", "round-2"),  # the window includes its last day
        ("discovery", "2026-12-02", None),  # after every window: no round yet
        ("discovery", "2026-04-01", None),
        ("contributor", "2026-07-01", CONTRIBUTIONS),
    ],
)
def test_each_record_belongs_to_one_round(origin: str, added: str, expected: str | None) -> None:
    assert round_of(_paper(origin, added), PROTOCOL) == expected
    assert round_of(_exclusion(origin, added), PROTOCOL) == expected


@pytest.mark.parametrize(
    ("today", "since"),
    [
        ("2026-05-04", None),  # round 1 still open
        ("2026-05-05", "2026-05-04"),
        ("2026-12-01", "2026-05-04"),  # round 2 closes today
        ("2026-12-02", "2026-12-01"),
    ],
)
def test_a_new_search_starts_at_the_last_closed_rounds_cutoff(today: str, since: str | None) -> None:
    last = PROTOCOL.last_closed_round(today)
    assert (last.cutoff if last else None) == since


def test_round_one_counts_are_the_surveys(tmp_path: Path) -> None:
    counts = round_counts(load_corpus(REPO).corpus, PROTOCOL)
    first = counts["round-1"]
    assert (first["identified"], first["retained"], first["excluded"]) == (116, 84, 32)
    assert first["by_stage"] == {
        "abstract_screen": 16,
        "full_text_screen": 9,
        "artifact_screen": 6,
        "duplicate_screen": 1,
    }


def test_a_discovery_record_counts_in_its_round(repo_copy: Path) -> None:
    before = round_counts(load_corpus(repo_copy).corpus, PROTOCOL)
    shutil.copy(repo_copy / "exclusions" / "E032.yaml", repo_copy / "exclusions" / "E999.yaml")
    path = repo_copy / "exclusions" / "E999.yaml"
    text = path.read_text("utf-8").replace("id: E032", "id: E999").replace("2406.18665", "2609.99999")
    text = text.replace("origin: survey", "origin: discovery").replace('added: "2026-05-04"', 'added: "2026-09-01"')
    path.write_text(text.replace('label: "RouteLLM', 'label: "Another router'), "utf-8")
    loaded = load_corpus(repo_copy)
    assert loaded.ok, [str(p) for p in loaded.problems]
    counts = round_counts(loaded.corpus, PROTOCOL)
    assert (counts["round-1"]["identified"], counts["round-2"]["excluded"]) == (116, before["round-2"]["excluded"] + 1)
    stage = counts["round-2"]["by_stage"]["abstract_screen"]
    assert stage == before["round-2"]["by_stage"]["abstract_screen"] + 1


_JSONISH = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-3, 3),
    st.sampled_from(["", " x", "arxiv", "no_rl", "2026-05-04", "abstract_screen", "Multi Agent", "a\nb", "ok-id"]),
    st.lists(st.sampled_from(["no_rl", "no_rl", "x", "abstract_screen"]), max_size=3),
    st.dictionaries(st.sampled_from(["id", "label", "text", "extra"]), st.sampled_from(["x", 1]), max_size=2),
)


@given(st.data())
def test_the_hand_walk_of_the_schema_agrees_with_jsonschema(data: Any) -> None:
    from conftest import value_paths
    from masrl.corpus._yaml import Document
    from masrl.living._protocol import _schema_problems

    doc = load_text(PROTOCOL_TEXT).data
    path = data.draw(st.sampled_from(value_paths(doc)))
    value = data.draw(_JSONISH)
    target = doc
    for part in path[:-1]:
        target = target[part]
    target[path[-1]] = value
    schema = protocol_schema(TAXONOMY)
    ours = list(_schema_problems(Document(doc, {}), schema, "protocol.yaml"))
    assert (not ours) == jsonschema.Draft202012Validator(schema).is_valid(doc), (path, value, ours)
