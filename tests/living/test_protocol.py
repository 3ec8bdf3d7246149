"""protocol.yaml: loading, every kind of mistake, the generated schema, rounds and their counts."""

from __future__ import annotations

import copy
import dataclasses
import functools
import json
import shutil
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import EXCLUSION_TEXT, PAPER_TEXT, REPO, real_corpus, replace_line
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


def _at(needle: str) -> int:
    """The 1-based line of the first *needle* in the repository's protocol.yaml (the lines below
    the boundary rules move whenever a case is written)."""
    return PROTOCOL_TEXT[: PROTOCOL_TEXT.index(needle)].count("\n") + 1


STAGES, START, IDENTIFIED = (
    _at("stages: [abstract_screen,"),
    _at('    start: "2026-04-26"\n'),
    _at("      identified: 116\n"),
)
END, CUTOFF, ORIGIN = _at('    end: "2026-12-01"\n'), _at('    cutoff: "2026-12-01"\n'), _at("    origin: discovery\n")
REASONS, INCLUSION = _at("reasons: [no_rl]"), _at("  - id: 1\n    text: It trains")
PROTOCOL = load_protocol(REPO, TAXONOMY)
FAMILIES = ", ".join(f.id for f in PROTOCOL.query_families)  # every family, in file order


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
    # the survey's seven families come first; the field search round's vocabulary follows them
    assert [f.id for f in PROTOCOL.query_families][:7] == [
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
        ("version: 1\n", "", ["protocol.yaml:31:1: version: version is required"]),
        ("version: 1\n", "version: 1\nextra: 2\n", ["protocol.yaml:31:1: extra: unknown field; allowed fields are version, sources, query_families, inclusion, exclusion, boundary_rules, stages, arms, stopping, rounds"]),
        ("stages: [abstract_screen,", "stages: [abstract_scren,", [f"protocol.yaml:{STAGES}:10: stages[0]: stages must be one of 'abstract_screen', 'full_text_screen', 'artifact_screen', 'duplicate_screen', not 'abstract_scren' (did you mean 'abstract_screen'?)"]),
        ("reasons: [no_rl]", "reasons: [no_rll]", [f"protocol.yaml:{REASONS}:15: exclusion[0].reasons[0]: reasons must be one of 'no_rl', 'single_agent', 'no_mas_mechanism', 'out_of_scope', 'background_only', 'superseded', 'duplicate', 'insufficient_detail', 'no_trace_instrumentation', not 'no_rll' (did you mean 'no_rl'?)"]),
        ("  - id: multi_agent_llm_rl\n", "  - id: Multi Agent\n", ["protocol.yaml:56:5: query_families[0].id: id must be a lower-case id (letters, digits, _ or -), not 'Multi Agent'"]),
        ('    start: "2026-04-26"\n', '    start: 26 April 2026\n', [f"protocol.yaml:{START}:5: rounds[0].start: start must be a date written YYYY-MM-DD, not '26 April 2026'"]),
        ("    discover: arxiv\n", "    discover: arxive\n", ["protocol.yaml:35:5: sources[0].discover: discover must be one of 'arxiv', 'openalex', 'list', not 'arxive' (did you mean 'arxiv'?)"]),
        ("      identified: 116\n", "      identified: many\n", [f"protocol.yaml:{IDENTIFIED}:7: rounds[0].reported.identified: identified must be a whole number, not text"]),
        ("  - id: 1\n    text: It trains", "  - id: 0\n    text: It trains", [f"protocol.yaml:{INCLUSION}:5: inclusion[0].id: id must be at least 1, not 0"]),
        # rules across items
        ("  - id: acl_anthology\n", "  - id: arxiv\n", ["protocol.yaml:36:5: sources[1].id: id 'arxiv' is already used by sources[0]"]),
        ('    end: "2026-12-01"\n', '    end: "2026-05-01"\n', [
            f"protocol.yaml:{END}:5: rounds[1].end: end 2026-05-01 must not be before start 2026-05-04",
            f"protocol.yaml:{CUTOFF}:5: rounds[1].cutoff: cutoff 2026-12-01 must lie in the window 2026-05-04 to 2026-05-01",
        ]),
        ('    cutoff: "2026-12-01"\n', '    cutoff: "2026-02-30"\n', [f"protocol.yaml:{CUTOFF}:5: rounds[1].cutoff: cutoff must be a real date, not '2026-02-30'"]),
        ("    origin: discovery\n", "    origin: survey\n", [f"protocol.yaml:{ORIGIN}:5: rounds[1].origin: only one round can own the survey's records (origin survey)"]),
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
    line = PROTOCOL_TEXT.count("\n") + 5  # the appended round's cutoff
    n = len(PROTOCOL.rounds)
    assert _problems(text) == [
        f"protocol.yaml:{line}:5: rounds[{n}].cutoff: rounds must be listed oldest first: cutoff 2026-02-01 is not after rounds[{i}]'s {r.cutoff}"
        for i, r in enumerate(PROTOCOL.rounds)
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


def test_validate_reports_protocol_problems_with_the_records(small_copy: Path, run_cli: Any) -> None:
    path = small_copy / "protocol.yaml"
    path.write_text(path.read_text("utf-8").replace("stages: [abstract_screen,", "stages: [abstract,"), "utf-8")
    result = run_cli("validate")
    assert result.exit_code == 1
    assert result.stdout.startswith(f"protocol.yaml:{STAGES}:10: stages[0]: stages must be one of")
    assert run_cli("validate", "protocol.yaml").exit_code == 1
    assert run_cli("validate", "papers").exit_code == 0
    assert run_cli("build").exit_code == 1


def test_the_screening_page_renders_the_protocol(small_copy: Path) -> None:
    page = (small_copy / "site" / "docs" / "screening.md").read_text("utf-8")
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
    counts = round_counts(real_corpus(), PROTOCOL)
    first = counts["round-1"]
    assert (first["identified"], first["retained"], first["excluded"]) == (116, 84, 32)
    assert first["by_stage"] == {
        "abstract_screen": 16,
        "full_text_screen": 9,
        "artifact_screen": 6,
        "duplicate_screen": 1,
    }


def test_a_discovery_record_counts_in_its_round(small_copy: Path) -> None:
    before = round_counts(load_corpus(small_copy).corpus, PROTOCOL)
    shutil.copy(small_copy / "exclusions" / "E032.yaml", small_copy / "exclusions" / "E999.yaml")
    path = small_copy / "exclusions" / "E999.yaml"
    text = path.read_text("utf-8").replace("id: E032", "id: E999").replace("2406.18665", "2609.99999")
    text = text.replace("origin: survey", "origin: discovery").replace('added: "2026-05-04"', 'added: "2026-09-01"')
    path.write_text(text.replace('label: "RouteLLM', 'label: "Another router'), "utf-8")
    loaded = load_corpus(small_copy)
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


@functools.cache
def _protocol_walk_inputs() -> tuple[Any, list[tuple[Any, ...]], dict[str, Any]]:
    """protocol.yaml parsed once, every path to a value in it, and its schema (each example copies the
    parsed document rather than parsing some thousands of lines again)."""
    from conftest import value_paths

    doc = load_text(PROTOCOL_TEXT).data
    return doc, value_paths(doc), protocol_schema(TAXONOMY)


@settings(deadline=None)  # the protocol is a few hundred lines; a busy machine can take 200 ms
@given(st.data())
def test_the_hand_walk_of_the_schema_agrees_with_jsonschema(data: Any) -> None:
    from masrl.corpus._yaml import Document
    from masrl.living._protocol import _schema_problems

    doc, paths, schema = _protocol_walk_inputs()
    doc = copy.deepcopy(doc)
    path = data.draw(st.sampled_from(paths))
    value = data.draw(_JSONISH)
    target = doc
    for part in path[:-1]:
        target = target[part]
    target[path[-1]] = value
    ours = list(_schema_problems(Document(doc, {}), schema, "protocol.yaml"))
    assert (not ours) == jsonschema.Draft202012Validator(schema).is_valid(doc), (path, value, ours)


# ---------------------------------------------------------------------------------------------
# boundary rules, named rounds and their sources


def _line_of(text: str, needle: str, after: str = "") -> int:
    """The 1-based line on which *needle* first stands (after the first *after*)."""
    start = text.index(after) if after else 0
    return text[: text.index(needle, start)].count("\n") + 1


B3 = "  - id: B3\n"
BACKFILL = "  - id: backfill\n"


@pytest.mark.parametrize(
    ("old", "new", "expected"),
    [
        # shape (from the schema)
        (B3, "  - id: b3\n", "boundary_rules[2].id: id must be B and a number, e.g. 'B3', not 'b3'"),
        ("      - decision: include\n        inclusion: 1\n        when: The partners", "      - decision: maybe\n        inclusion: 1\n        when: The partners", "boundary_rules[2].cases[0].decision: decision must be one of 'include', 'exclude', not 'maybe'"),
        ("precedents: [searchswarm2026, paramanager, tandem-rl2026]", "precedents: [Search Swarm]", "boundary_rules[2].cases[0].precedents[0]: precedents must be a paper key or an exclusion id such as 'E032', not 'Search Swarm'"),
        ("precedents: [searchswarm2026, paramanager, tandem-rl2026]", "precedents: [paramanager, paramanager]", "boundary_rules[2].cases[0].precedents: precedents must not repeat an item"),
        ("        reasons: [single_agent]\n        when: The partner", "        reasons: [single_agnet]\n        when: The partner", "boundary_rules[2].cases[1].reasons[0]: reasons must be one of 'no_rl', 'single_agent', 'no_mas_mechanism', 'out_of_scope', 'background_only', 'superseded', 'duplicate', 'insufficient_detail', 'no_trace_instrumentation', not 'single_agnet' (did you mean 'single_agent'?)"),
        ("    title: One trained agent with frozen or simulated partners\n", "", "boundary_rules[2].title: title is required"),
        ("    membership: named\n", "    membership: by-name\n", "rounds[2].membership: membership must be one of 'window', 'named', not 'by-name' (did you mean 'named'?)"),
        # what a schema cannot say
        ("  - id: B4\n", "  - id: B3\n", "boundary_rules[3].id: id 'B3' is already used by boundary_rules[2]"),
        ("        inclusion: 1\n        when: The partners", "        when: The partners", "boundary_rules[2].cases[0].decision: an include case names the inclusion rule it holds under (inclusion: N)"),
        ("        inclusion: 1\n        when: The partners", "        inclusion: 9\n        when: The partners", "boundary_rules[2].cases[0].inclusion: inclusion must be the number of an inclusion rule (1, 2, 3, 4, 5), not 9"),
        ("        inclusion: 1\n        when: The partners", "        inclusion: 1\n        reasons: [no_rl]\n        when: The partners", "boundary_rules[2].cases[0].reasons: an include case records no reason codes; they belong to exclude cases"),
        ("        reasons: [single_agent]\n        when: The partner", "        when: The partner", "boundary_rules[2].cases[1].decision: an exclude case lists the reason codes it records (reasons: [...])"),
        ("        reasons: [single_agent]\n        when: The partner", "        reasons: [single_agent]\n        inclusion: 1\n        when: The partner", "boundary_rules[2].cases[1].inclusion: an exclude case holds under no inclusion rule; give its reasons"),
    ],
)  # fmt: skip
def test_every_boundary_rule_mistake_is_named_with_its_line(old: str, new: str, expected: str) -> None:
    assert old in PROTOCOL_TEXT
    text = PROTOCOL_TEXT.replace(old, new, 1)
    field = expected.split(":", 1)[0]
    problems = _problems(text)
    assert [p.split(": ", 1)[1] for p in problems] == [expected]
    # the line is the line of the field named (or of its item, when the field is missing)
    line = int(problems[0].split(":")[1])
    assert text.splitlines()[line - 1].strip().startswith(("-", field.rsplit(".", 1)[-1].split("[")[0]))


def _with_backfill(extra: str) -> str:
    """The repository's protocol, its backfill round (the last) given *extra* lines (its sources) instead of its own."""
    head, backfill = PROTOCOL_TEXT.split(BACKFILL)
    return head + BACKFILL + backfill.split("    sources:\n")[0] + extra


SOURCE = """    sources:
      - source: curated_lists
        name: example/awesome-list, README.md
        date: "2026-12-01"
        url: https://github.com/example/awesome-list
        version: 0123456789abcdef0123456789abcdef01234567
      - source: arxiv
        name: arXiv listing, multi-agent LLM RL
        date: "2026-11-20"
        query_family: multi_agent_llm_rl
        start: "2023-01-01"
        end: "2023-06-30"
"""


@pytest.mark.parametrize(
    ("old", "new", "expected"),
    [
        ("source: curated_lists", "source: github", "rounds[2].sources[0].source: source must be one of the protocol's sources (arxiv, acl_anthology, openreview, snowballing, project_pages, company_reports, classical_marl, curated_lists, surveys), not 'github'"),
        ("query_family: multi_agent_llm_rl", "query_family: multi_agent", f"rounds[2].sources[1].query_family: query_family must be one of {FAMILIES}, not 'multi_agent' (did you mean 'multi_agent_games'?)"),
        ('end: "2023-06-30"', 'end: "2022-06-30"', "rounds[2].sources[1].end: end 2022-06-30 must not be before start 2023-01-01"),
        ('date: "2026-11-20"', 'date: "2026-11-31"', "rounds[2].sources[1].date: date must be a real date, not '2026-11-31'"),
        ("url: https://github.com/example/awesome-list", "url: github.com/example", "rounds[2].sources[0].url: url must be an http(s) URL with no spaces, not 'github.com/example'"),
        ("        name: example/awesome-list, README.md\n", "", "rounds[2].sources[0].name: name is required"),
    ],
)  # fmt: skip
def test_a_rounds_sources_are_checked(old: str, new: str, expected: str) -> None:
    assert _problems(_with_backfill(SOURCE)) == []
    problems = _problems(_with_backfill(SOURCE.replace(old, new)))
    assert [p.split(": ", 1)[1] for p in problems] == [expected]


def test_only_a_round_of_named_records_may_overlap_or_share_a_cutoff() -> None:
    # Arrange: the backfill round (2023-01-01 to 2026-12-01) shares round 2's cutoff; moved to end
    # later, it overlaps round 2's window
    shared = PROTOCOL_TEXT.replace("    membership: named\n", "", 1)  # the backfill round's
    later = PROTOCOL_TEXT.replace(
        'end: "2026-12-01"\n    cutoff: "2026-12-01"\n    origin: discovery\n    membership',
        'end: "2026-12-02"\n    cutoff: "2026-12-02"\n    origin: discovery\n    membership',
    )
    overlapping = later.replace("    membership: named\n", "", 1)
    cutoff = _line_of(shared, '    cutoff: "2026-12-01"', BACKFILL)
    start = _line_of(overlapping, '    start: "2023-01-01"', BACKFILL)
    # Act, Assert
    assert _problems(PROTOCOL_TEXT) == []
    assert _problems(later) == []
    assert _problems(shared) == [
        f"protocol.yaml:{cutoff}:5: rounds[2].cutoff: rounds must be listed oldest first: cutoff 2026-12-01 is not after rounds[1]'s 2026-12-01",
    ]
    assert _problems(overlapping) == [
        f"protocol.yaml:{start}:5: rounds[2].start: the window overlaps rounds[1] (2026-05-04 to 2026-12-01); a discovery record must belong to one round",
    ]
    survey = PROTOCOL_TEXT.replace("    origin: survey\n", "    origin: survey\n    membership: named\n")
    line = _line_of(survey, "    membership: named")
    assert _problems(survey) == [
        f"protocol.yaml:{line}:5: rounds[0].membership: only a discovery round can own the records that name it"
    ]


def test_the_repository_declares_the_boundary_rules_and_the_backfill_round() -> None:
    assert [b.id for b in PROTOCOL.boundary_rules] == [
        "B1",
        "B2",
        "B3",
        "B4",
        "B5",
        "B6",
        "B7",
        "B8",
        "B9",
        "B10",
        "B11",
    ]
    assert [b.decision for b in PROTOCOL.boundary_rules] == ["include"] * 6 + ["exclude"] * 2 + ["include"] * 2 + [
        "exclude"
    ]
    backfill = PROTOCOL.round("backfill")
    assert (backfill.start, backfill.end, backfill.cutoff, backfill.origin, backfill.named) == (
        "2023-01-01",
        "2026-12-01",
        "2026-12-01",
        "discovery",
        True,
    )
    assert PROTOCOL.rule_refs("exclude")[:5] == ("B1", "B2", "B3", "B5", "B6")
    assert "inclusion 1" in PROTOCOL.rule_refs("include")
    assert "exclusion 5" in PROTOCOL.rule_refs("exclude")


@pytest.mark.parametrize(
    ("origin", "added", "named", "expected"),
    [
        ("discovery", "2026-12-01", None, "round-2"),  # the backfill round owns no record by date
        ("discovery", "2026-12-01", "backfill", "backfill"),
        ("discovery", "2027-01-05", "backfill", "backfill"),  # named: the date does not matter
        ("discovery", "2026-06-01", "round-2", "round-2"),
    ],
)
def test_a_record_that_names_its_round_belongs_to_it(origin: str, added: str, named: str | None, expected: str) -> None:
    paper = _paper(origin, added)
    exclusion = _exclusion(origin, added)
    if named:
        paper = dataclasses.replace(paper, round=named)
        exclusion = dataclasses.replace(exclusion, round=named)
    assert round_of(paper, PROTOCOL) == expected
    assert round_of(exclusion, PROTOCOL) == expected


def _discovery_exclusion(root: Path, number: str, extra: str) -> Path:
    """A copy of E032 as discovery record E<number> with *extra* lines after its added date."""
    path = root / "exclusions" / f"E{number}.yaml"
    text = (root / "exclusions" / "E032.yaml").read_text("utf-8")
    text = text.replace("id: E032", f"id: E{number}").replace("2406.18665", f"2609.{number:0>5}")
    text = text.replace("origin: survey", "origin: discovery").replace('label: "RouteLLM', f'label: "Router {number}')
    text = text.replace('added: "2026-05-04"\n', f'added: "2026-12-01"\n{extra}')
    path.write_text(text, "utf-8")
    return path


def test_a_backfill_record_counts_in_its_own_round_flow(small_copy: Path) -> None:
    before = round_counts(load_corpus(small_copy).corpus, PROTOCOL)
    _discovery_exclusion(small_copy, "900", "round: backfill\nrule: B1\n")
    _discovery_exclusion(small_copy, "901", "")
    loaded = load_corpus(small_copy)
    assert loaded.ok, [str(p) for p in loaded.problems]
    counts = round_counts(loaded.corpus, PROTOCOL)
    assert (counts["backfill"]["identified"], counts["backfill"]["excluded"]) == (
        before["backfill"]["identified"] + 1,
        before["backfill"]["excluded"] + 1,
    )
    assert counts["round-2"]["excluded"] == before["round-2"]["excluded"] + 1
    # the JSON export carries what the record names
    from masrl.corpus._export import corpus_json

    exported = {e["id"]: e for e in json.loads(corpus_json(loaded.corpus))["exclusions"]}
    assert (exported["E900"]["round"], exported["E900"]["rule"]) == ("backfill", "B1")
    assert (exported["E901"]["round"], exported["E901"]["rule"]) == (None, None)


@pytest.mark.parametrize(
    ("extra", "expected"),
    [
        ("round: backfil\n", "round: round must be one of the rounds of protocol.yaml (round-1, round-2, backfill, field-search), not 'backfil' (did you mean 'backfill'?)"),
        ("round: round-1\n", "round: round 'round-1' owns records of origin survey; this record's origin is discovery"),
        ("rule: B4\n", "rule: rule must be one of 'B1', 'B2', 'B3', 'B5', 'B6', 'B7', 'B8', 'B9', 'B10', 'B11', 'exclusion 1', 'exclusion 2', 'exclusion 3', 'exclusion 4' or 'exclusion 5' for an excluded record, not 'B4' (B4 decides only the other way)"),
        ("rule: B12\n", "rule: rule must be one of 'B1', 'B2', 'B3', 'B5', 'B6', 'B7', 'B8', 'B9', 'B10', 'B11', 'exclusion 1', 'exclusion 2', 'exclusion 3', 'exclusion 4' or 'exclusion 5' for an excluded record, not 'B12' (did you mean 'B2'?)"),
        ("rule: inclusion 1\n", "rule: rule must be one of 'B1', 'B2', 'B3', 'B5', 'B6', 'B7', 'B8', 'B9', 'B10', 'B11', 'exclusion 1', 'exclusion 2', 'exclusion 3', 'exclusion 4' or 'exclusion 5' for an excluded record, not 'inclusion 1' (inclusion 1 decides only the other way)"),
        ("rule: exclusion 7\n", "rule: rule must be one of 'B1', 'B2', 'B3', 'B5', 'B6', 'B7', 'B8', 'B9', 'B10', 'B11', 'exclusion 1', 'exclusion 2', 'exclusion 3', 'exclusion 4' or 'exclusion 5' for an excluded record, not 'exclusion 7' (did you mean 'exclusion 5'?)"),
        ("rule: b3\n", "rule: rule must be a boundary rule such as 'B3', or 'inclusion 1' or 'exclusion 2', not 'b3'"),
    ],
)  # fmt: skip
def test_a_records_round_and_rule_must_exist_in_the_protocol(
    small_copy: Path, run_cli: Any, extra: str, expected: str
) -> None:
    path = _discovery_exclusion(small_copy, "900", extra)
    line = path.read_text("utf-8").splitlines().index(extra.strip()) + 1
    result = run_cli("validate", "exclusions/E900.yaml")
    assert result.exit_code == 1
    assert result.stdout.splitlines() == [f"exclusions/E900.yaml:{line}:1: {expected}"]
    if extra.startswith("round: backfil"):  # building checks the same (once is enough: it is slow)
        build = run_cli("build")
        assert build.exit_code == 1
        assert f"exclusions/E900.yaml:{line}:1: {expected}" in build.output


def test_a_paper_cites_a_rule_that_includes(small_copy: Path, run_cli: Any) -> None:
    path = small_copy / "papers" / "mae.yaml"
    text = path.read_text("utf-8")
    path.write_text(text.replace('added: "2026-05-04"\n', 'added: "2026-05-04"\nrule: B2\n'), "utf-8")
    assert run_cli("validate", "papers/mae.yaml").exit_code == 0
    path.write_text(text.replace('added: "2026-05-04"\n', 'added: "2026-05-04"\nrule: B7\n'), "utf-8")
    result = run_cli("validate", "papers/mae.yaml")
    assert result.exit_code == 1
    assert "for a retained record, not 'B7' (B7 decides only the other way)" in result.stdout


RULES_BROKEN = [
    "exclusions/E902.yaml:15:1: rule: rule B5 must have an exclude case with one of the record's reasons (no_rl); "
    "its exclude cases record 'single_agent' or 'no_mas_mechanism': cite the rule that fits, or correct reasons",
    "exclusions/E904.yaml:15:1: rule: rule 'exclusion 2' must list one of the record's reasons (out_of_scope); "
    "it lists 'single_agent' or 'background_only': cite the rule that fits, or correct reasons",
    "exclusions/E905.yaml:15:1: rule: rule must be one of 'B1', 'B2', 'B3', 'B5', 'B6', 'B7', 'B8', 'B9', 'B10', 'B11', 'exclusion 1', "
    "'exclusion 2', 'exclusion 3', 'exclusion 4' or 'exclusion 5' for an excluded record, not 'B4' "
    "(B4 decides only the other way)",
    "exclusions/E907.yaml:15:1: rule: rule 'exclusion 1' must list one of the record's reasons (no_mas_mechanism); "
    "it lists 'no_rl': cite the rule that fits, or correct reasons",
    "papers/excluding-rule.yaml:22:1: rule: rule must be one of 'B1', 'B2', 'B3', 'B4', 'B5', 'B6', 'B8', 'B9', 'B10', 'B11', "
    "'inclusion 1', 'inclusion 2', 'inclusion 3', 'inclusion 4' or 'inclusion 5' for a retained record, not 'B7' "
    "(B7 decides only the other way)",
    "papers/inclusion-nine.yaml:22:1: rule: rule must be one of 'B1', 'B2', 'B3', 'B4', 'B5', 'B6', 'B8', 'B9', 'B10', 'B11', "
    "'inclusion 1', 'inclusion 2', 'inclusion 3', 'inclusion 4' or 'inclusion 5' for a retained record, not "
    "'inclusion 9' (did you mean 'inclusion 5'?)",
]


def test_every_misfit_rule_citation_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, run_cli: Any) -> None:
    from conftest import fixture_corpus, protocol_naming_no_records

    # Arrange: the synthetic records of tests/fixtures/rules (its README lists which fit) under
    # the repository's protocol
    root = fixture_corpus("rules", tmp_path, monkeypatch)
    (root / "protocol.yaml").write_text(protocol_naming_no_records(PROTOCOL_TEXT), "utf-8")
    files = lambda: sorted(p.relative_to(root) for p in root.rglob("*") if ".masrl-cache" not in p.parts)  # noqa: E731
    before = files()
    # Act
    result = run_cli("validate")
    build = run_cli("build")
    # Assert
    assert result.stdout.splitlines() == RULES_BROKEN
    assert (result.exit_code, result.stderr) == (1, "6 errors in 11 files\n")
    assert build.exit_code == 1
    assert files() == before  # nothing written (the load cache aside)


@pytest.mark.parametrize(
    ("rule", "reasons", "fits"),
    [
        # boundary rules: an exclude case must record one of the reasons
        ("B5", ("single_agent",), True),
        ("B5", ("no_mas_mechanism", "no_rl"), True),  # one of them is enough
        ("B5", ("no_rl",), False),
        ("B1", ("single_agent",), True),  # B1's first exclude case
        ("B1", ("no_rl",), True),  # B1's second exclude case
        ("B1", ("out_of_scope",), False),
        ("B6", ("out_of_scope",), True),
        # exclusion rules: the rule must list one of the reasons
        ("exclusion 2", ("background_only",), True),
        ("exclusion 2", ("out_of_scope",), False),
        ("exclusion 5", ("no_trace_instrumentation",), True),
        ("exclusion 1", ("single_agent",), False),
    ],
)
def test_an_exclusion_rule_must_record_one_of_the_reasons(rule: str, reasons: tuple[str, ...], fits: bool) -> None:
    from masrl.living._protocol import reason_misfit

    assert (reason_misfit(PROTOCOL, rule, reasons) is None) == fits


@given(
    st.sampled_from(PROTOCOL.rule_refs("exclude")),
    st.sets(st.sampled_from(TAXONOMY.ids("exclusion_reason")), min_size=1),
)
def test_a_rule_fits_exactly_when_it_records_a_reason_of_the_record(rule: str, reasons: set[str]) -> None:
    from masrl.living._protocol import reason_misfit

    if rule.startswith("exclusion "):
        recorded = set(next(r.reasons for r in PROTOCOL.exclusion if f"exclusion {r.id}" == rule))
    else:
        recorded = {x for c in PROTOCOL.boundary(rule).cases if c.decision == "exclude" for x in c.reasons}
    assert (reason_misfit(PROTOCOL, rule, tuple(sorted(reasons))) is None) == bool(recorded & reasons)


def test_precedents_must_name_records(small_copy: Path, run_cli: Any) -> None:
    # Arrange: a precedent that names no record, one that names no exclusion, and one decided the
    # other way (E032 is excluded, B3's first case includes)
    path = small_copy / "protocol.yaml"
    text = path.read_text("utf-8").replace("[puppeteer, uno-orchestra2026,", "[puppeteer, uno-orchestra2099,")
    text = text.replace("precedents: [E032]", "precedents: [E99999]")
    text = text.replace("paramanager, tandem-rl2026]", "paramanager, tandem-rl2026, E032]")
    path.write_text(text, "utf-8")
    missing = _line_of(text, "uno-orchestra2099")
    e999 = _line_of(text, "precedents: [E99999]")
    e032 = _line_of(text, "tandem-rl2026, E032]")
    # Act
    result = run_cli("validate")
    # Assert
    assert result.exit_code == 1
    assert [line for line in result.stdout.splitlines() if line.startswith("protocol.yaml")] == [
        f"protocol.yaml:{missing}:33: boundary_rules[0].cases[0].precedents[1]: precedent 'uno-orchestra2099' names no record in papers/",
        f"protocol.yaml:{e999}:22: boundary_rules[0].cases[2].precedents[0]: precedent 'E99999' names no record in exclusions/",
        f"protocol.yaml:{e032}:67: boundary_rules[2].cases[0].precedents[3]: warning: precedent 'E032' is excluded, but this case of B3 decides include; re-decide the record or move the precedent",
    ]
    assert run_cli("build").exit_code == 1


def test_without_a_protocol_a_named_round_cannot_be_checked(small: Path, run_cli: Any) -> None:
    path = next((small / "exclusions").glob("*.yaml"))
    text = path.read_text("utf-8")
    path.write_text(text.rstrip("\n") + "\nround: backfill\n", "utf-8")
    result = run_cli("validate")
    assert result.exit_code == 1
    assert result.stdout.splitlines() == [
        f"protocol.yaml:1:1: (record): protocol.yaml not found in ., so the rounds and rules named by 1 record "
        f"cannot be checked (exclusions/{path.name})"
    ]


def test_the_screening_page_renders_the_boundary_rules(small_copy: Path) -> None:
    page = (small_copy / "site" / "docs" / "screening.md").read_text("utf-8")
    assert "#### B1: A trained router, topology or orchestrator over frozen agents" in page
    assert (
        "- **Exclude** (`single_agent`; exclusion rule 2): A router hands each query to one model and returns "
        "that model's answer. Precedents: [E032](exclusion-log/1.md#e032)." in page
    )
    assert "Precedents: [mae](papers/mae.md), [sage2026](papers/sage2026.md)" in page
    assert "Backfill round (`backfill`) owns only the records that name it (`round: backfill`)" in page


def test_the_screening_page_lists_what_each_round_searched(small_copy: Path) -> None:
    page = (small_copy / "site" / "docs" / "screening.md").read_text("utf-8")
    section = page.split("#### What Backfill round searched", 1)[1].split("#### What ", 1)[0]
    backfill = PROTOCOL.round("backfill")
    assert backfill.sources  # named and dated in protocol.yaml
    kinds = {x.source for x in backfill.sources}
    assert kinds >= {"curated_lists", "surveys", "arxiv", "snowballing"}
    # one folded table per kind of source, titled with how many; a row per source with the day it was read
    for source in PROTOCOL.sources:
        n = sum(x.source == source.id for x in backfill.sources)
        title = f'??? note "{source.label}: {n} {"source" if n == 1 else "sources"}"\n'
        assert (title in section) == (source.id in kinds), source.id
    rows = [line for line in section.splitlines() if line.startswith("    | ") and "| 20" in line]
    assert len(rows) == len(backfill.sources)
    assert (
        "    | [chen742/Awesome\\_multi-agent-system, README.md](https://github.com/chen742/Awesome_multi-agent-system) "
        "| 2026-12-01 | `82957f2ba7c0` |  |" in section
    )


def test_a_round_with_records_gets_its_own_flow_on_the_screening_page(small_copy: Path, run_cli: Any) -> None:
    # Arrange: one more backfill exclusion
    before = round_counts(load_corpus(small_copy).corpus, PROTOCOL)["backfill"]
    _discovery_exclusion(small_copy, "900", "round: backfill\nrule: B1\n")
    # Act
    result = run_cli("build")
    # Assert
    assert result.exit_code == 0, result.output
    page = (small_copy / "site" / "docs" / "screening.md").read_text("utf-8")
    assert "](figures/screening-flow-backfill.svg#only-light)" in page
    assert (small_copy / "site" / "docs" / "figures" / "screening-flow-backfill.svg").is_file()
    row = next(line for line in page.splitlines() if line.startswith("| Backfill round (`backfill`)"))
    identified, excluded, retained = before["identified"] + 1, before["excluded"] + 1, before["retained"]
    assert row == (
        f"| Backfill round (`backfill`) | 2023-01-01 to 2026-12-01 | 2026-12-01 | {identified} | "
        f"{excluded} (abstract screen {excluded}) | {retained} |  |"
    )


# ---------------------------------------------------------------------------------------------
# the draws of a round's blind second reading

DRAWS = PROTOCOL_TEXT.index("    audit_draws:\n")


def _draw_line(text: str, needle: str) -> int:
    """The line of *needle* among the audit draws (they close the file)."""
    return _line_of(text, needle, "    audit_draws:\n")


def test_the_rounds_list_the_draws_of_every_post_survey_second_reading() -> None:
    backfill = PROTOCOL.round("backfill").audit_draws
    assert [(d.seed, len(d.keys)) for d in backfill] == [(20261201, 28), (20261202, 5), (20261203, 5), (20261204, 6)]
    field = PROTOCOL.round("field-search").audit_draws
    assert [(d.seed, len(d.keys)) for d in field] == [
        (20261202, 110),
        (20261203, 40),
        (20261203, 12),
        (20261208, 8),
        (20261203, 10),
        (20261206, 30),
        (20261209, 12),
        (20261204, 12),
    ]
    assert all(r.audit_draws == () for r in PROTOCOL.rounds if r.id not in ("backfill", "field-search"))
    # every post-survey paper with a second reading was drawn, once, by the round that owns it,
    # and every key drawn has one
    corpus = real_corpus()
    post = {p.key for p in corpus.papers if p.origin == "discovery"}
    drawn = [k for r in PROTOCOL.rounds for d in r.audit_draws for k in d.keys]
    assert sorted(drawn) == sorted({a.key for a in corpus.audits} & post)
    # the field search round drew from its own papers (the backfill's draws predate the rounds' pools)
    by_key = {p.key: p for p in corpus.papers}
    assert [k for d in field for k in d.keys if round_of(by_key[k], PROTOCOL) != "field-search"] == []
    assert all(list(d.keys) == sorted(d.keys) for r in PROTOCOL.rounds for d in r.audit_draws)


@pytest.mark.parametrize(
    ("old", "new", "needle", "expected"),
    [
        # a non-integer seed (the schema)
        ("seed: 20261201", "seed: 2026.5", "seed: 2026.5", ["9: rounds[2].audit_draws[0].seed: seed must be a whole number, not 2026.5"]),
        ("seed: 20261201", 'seed: "20261201"', 'seed: "20261201"', ["9: rounds[2].audit_draws[0].seed: seed must be a whole number, not text"]),
        ("seed: 20261201", "seed: true", "seed: true", ["9: rounds[2].audit_draws[0].seed: seed must be a whole number, not true/false"]),
        ("seed: 20261201", "seed: -1", "seed: -1", ["9: rounds[2].audit_draws[0].seed: seed must be at least 0, not -1"]),
        ("      - seed: 20261202\n", "      - seed:\n", "- seed:\n", ["9: rounds[2].audit_draws[1].seed: seed must be a whole number, not empty"]),
        # shape and fields
        ("keys: [acc-collab2024, cure2025, guardian2025, recursivemas2026, ssp2025]", "keys: []", "keys: []", ["9: rounds[2].audit_draws[1].keys: keys must list at least one item"]),
        ("[acc-collab2024, cure2025,", "[acc-collab2024, Cure2025,", "[acc-collab2024", ["32: rounds[2].audit_draws[1].keys[1]: keys must be a paper key such as 'at-grpo2025', not 'Cure2025'"]),
        ("        drawn_from: \"The 123", "        drawn: 5\n        drawn_from: \"The 123", "drawn: 5", ["9: rounds[2].audit_draws[1].drawn: unknown field (did you mean 'drawn_from'?); allowed fields are seed, drawn_from, keys"]),
        ("        keys: [acc-collab2024, cure2025, guardian2025, recursivemas2026, ssp2025]\n", "", "- seed: 20261202", ["9: rounds[2].audit_draws[1].keys: keys is required"]),
        # a duplicate key, in one draw or across draws (the rules)
        ("[acc-collab2024, cure2025,", "[acc-collab2024, acc-collab2024, cure2025,", "[acc-collab2024", ["32: rounds[2].audit_draws[1].keys[1]: 'acc-collab2024' is drawn twice (first at rounds[2].audit_draws[1].keys[0]); a paper gets one second reading"]),
        ("[acc-collab2024, cure2025,", "[acc-collab2024, aitm2025, cure2025,", "[acc-collab2024", ["32: rounds[2].audit_draws[1].keys[1]: 'aitm2025' is drawn twice (first at rounds[2].audit_draws[0].keys[2]); a paper gets one second reading"]),
        # an unsorted list
        ("[acc-collab2024, cure2025,", "[cure2025, acc-collab2024,", "[cure2025", ["26: rounds[2].audit_draws[1].keys[1]: keys must be sorted: 'acc-collab2024' is listed after 'cure2025'"]),
        # both, each at its key
        ("[acc-collab2024, cure2025,", "[cure2025, acc-collab2024, aitm2025,", "[cure2025", [
            "26: rounds[2].audit_draws[1].keys[1]: keys must be sorted: 'acc-collab2024' is listed after 'cure2025'",
            "42: rounds[2].audit_draws[1].keys[2]: 'aitm2025' is drawn twice (first at rounds[2].audit_draws[0].keys[2]); a paper gets one second reading",
        ]),
    ],
)  # fmt: skip
def test_every_audit_draw_mistake_is_named_with_its_line(old: str, new: str, needle: str, expected: list[str]) -> None:
    # Arrange: the repository's protocol with one mistake among its audit draws
    assert PROTOCOL_TEXT.index(old) > DRAWS
    text = PROTOCOL_TEXT.replace(old, new, 1)
    line = _draw_line(text, needle)
    # Act, Assert: the full list of problems, each at the line and column of its value
    assert _problems(text) == [f"protocol.yaml:{line}:{rest}" for rest in expected]


def test_the_same_key_in_two_rounds_draws_is_drawn_twice() -> None:
    # Arrange: round 2 lists a draw of a paper the backfill round drew too
    draw = '    audit_draws:\n      - seed: 7\n        drawn_from: "Round 2\'s papers."\n        keys: [dac2026]\n'
    text = PROTOCOL_TEXT.replace(
        "    origin: discovery\n  - id: backfill\n", f"    origin: discovery\n{draw}  - id: backfill\n"
    )
    line = _draw_line(text, "dac2026, g-safeguard2025")
    # Act, Assert: the later listing is the one named
    assert _problems(text) == [
        f"protocol.yaml:{line}:33: rounds[2].audit_draws[2].keys[1]: 'dac2026' is drawn twice "
        "(first at rounds[1].audit_draws[0].keys[0]); a paper gets one second reading"
    ]
    from masrl.living._protocol import build

    assert build(load_text(text).data).round("round-2").audit_draws[0].keys == ("dac2026",)


def test_a_key_drawn_must_name_a_paper_and_its_second_reading(small_copy: Path, run_cli: Any) -> None:
    # Arrange: the second reading of dice2026 (fourth draw) is gone, and the first draw names a
    # paper that does not exist (still in sorted order)
    (small_copy / "audits" / "dice2026.yaml").unlink()
    path = small_copy / "protocol.yaml"
    text = path.read_text("utf-8").replace("[agentmonitor2024, agentsnet2025,", "[agentmonitor2024, agentsnet2099,")
    path.write_text(text, "utf-8")
    missing, dice = _draw_line(text, "agentsnet2099"), _draw_line(text, "dice2026")
    before = (small_copy / "site" / "docs" / "statistics.md").read_text("utf-8")
    # Act
    result = run_cli("validate")
    # Assert: the full list, and building writes nothing
    assert result.exit_code == 1
    assert result.stdout.splitlines() == [
        f"protocol.yaml:{missing}:34: rounds[2].audit_draws[0].keys[1]: 'agentsnet2099' names no record in papers/",
        f"protocol.yaml:{dice}:46: rounds[2].audit_draws[3].keys[2]: 'dice2026' was drawn for a second reading "
        "but audits/dice2026.yaml is missing",
    ]
    assert run_cli("build").exit_code == 1
    assert (small_copy / "site" / "docs" / "statistics.md").read_text("utf-8") == before


# ---------------------------------------------------------------------------------------------
# the screening queue is checked by validate, as build and screen read it

QUEUE_FILE = """\
id: "2612.99998"
status: pending
source: manual
query_family: multi_agent_llm_rl
query: field search round
round: field-search
title: A candidate that waits
authors: []
published: ""
arxiv: "2612.99998"
doi:
url: https://arxiv.org/abs/2612.99998
found: "2026-12-03"
abstract: ""
"""


@pytest.mark.parametrize(
    ("old", "new", "expected"),
    [
        (
            "title: A candidate that waits\n",
            "",
            "screening/2612.99998.yaml:1:1: title: title is required and must be text",
        ),
        (
            "url: https://arxiv.org/abs/2612.99998\n",
            "url:\n",
            "screening/2612.99998.yaml:12:1: url: url is required and must be text",
        ),
        ("status: pending\n", "status: maybe\n", "screening/2612.99998.yaml:2:1: status: status must be one of"),
    ],
    ids=["no title", "no url", "unknown status"],
)
def test_validate_names_a_queue_file_that_build_could_not_read(
    small_copy: Path, run_cli: Any, old: str, new: str, expected: str
) -> None:
    path = small_copy / "screening" / "2612.99998.yaml"
    path.write_text(QUEUE_FILE.replace(old, new), "utf-8")
    whole = run_cli("validate")
    named = run_cli("validate", "screening/2612.99998.yaml")
    # Assert: the whole corpus and the file named alone give the one problem, never a paper's fields
    for result in (whole, named):
        assert result.exit_code == 1
        assert (
            [line for line in result.stdout.splitlines() if line.startswith("screening/")]
            == [line for line in result.stdout.splitlines() if line.startswith(expected)]
            != []
        )
    assert "key is required" not in named.stdout
    assert run_cli("build").exit_code == 1  # what validate reports is what build refuses


def test_a_readable_queue_file_named_alone_is_clean(small_copy: Path, run_cli: Any) -> None:
    (small_copy / "screening" / "2612.99998.yaml").write_text(QUEUE_FILE, "utf-8")
    result = run_cli("validate", "screening/2612.99998.yaml")
    assert (result.exit_code, result.stdout, result.stderr) == (0, "", "0 errors in 1 file\n")
