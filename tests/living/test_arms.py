"""The search arms of a round: the sightings ledger, the candidate register, each candidate's fate,
the capture-recapture estimate over the records, the stopping rule, and `masrl coverage --estimate`."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path
from typing import Any

import pytest

from masrl.corpus._load import load_corpus
from masrl.living._arms import (
    arms_report,
    dump_found_by,
    dump_register,
    parse_found_by,
    parse_register,
)
from masrl.living._protocol import build
from masrl.living._queue import dump_entry

REPO = Path(__file__).resolve().parents[2]

# A protocol with the three arms, a stopping rule that looks at the last 3 screened, and a round
# run by the arms whose population is every rl_method and benchmark paper from 2023 on.
PROTOCOL_YAML = textwrap.dedent(
    """\
    version: 1
    sources:
      - {id: arxiv, label: arXiv, discover: arxiv}
      - {id: snowballing, label: Snowballing}
      - {id: curated_lists, label: Curated lists}
    query_families:
      - {id: multi_agent_llm_rl, label: Multi-agent LLM RL, terms: [multi-agent LLM]}
    inclusion:
      - {id: 1, text: It trains an LLM team.}
    exclusion:
      - {id: 1, text: A prompted framework., reasons: [no_rl]}
    stages: [abstract_screen]
    arms:
      - {id: search, label: Search, prisma: databases, sources: [arxiv]}
      - {id: citations, label: Citations, prisma: other, sources: [snowballing]}
      - {id: lists, label: Curated lists, prisma: other, sources: [curated_lists]}
    stopping: {recall_lower_bound: 0.9, window: 3, max_includes: 1}
    rounds:
      - id: round-1
        label: Survey snapshot
        start: "2026-04-26"
        end: "2026-05-04"
        cutoff: "2026-05-04"
        origin: survey
      - id: field
        label: Field search
        start: "2023-01-01"
        end: "2026-12-01"
        cutoff: "2026-12-01"
        origin: discovery
        membership: named
        population: {categories: [rl_method, benchmark], since: "2023-01-01"}
        sources:
          - {source: arxiv, name: mirror, date: "2026-12-02"}
        searches:
          - query_family: multi_agent_llm_rl
            date: "2026-12-02"
            listing: mirror
            hits: {"2025-01": 3, "2025-02": 0}
    """
)


def _protocol() -> Any:
    import yaml

    return build(yaml.safe_load(PROTOCOL_YAML))


# ---------------------------------------------------------------------------------------------
# The sightings ledger

GOOD_ROW = "2501.00001,field,search,q 2025-01,abs query,2026-12-02"


@pytest.mark.parametrize(
    ("rows", "expected"),
    [
        # the header is checked first
        (
            ["candidate,arm"],
            ["found_by.csv:1:1: (record): the header must be candidate,round,arm,via,detail,date, not candidate,arm"],
        ),
        ([], ["found_by.csv:1:1: (record): the header must be candidate,round,arm,via,detail,date; the file is empty"]),
        # each field of a row
        (
            ["candidate,round,arm,via,detail,date", "a,field,search,q,d"],
            ["found_by.csv:2:1: (record): a row must have 6 fields, not 5"],
        ),
        (
            ["candidate,round,arm,via,detail,date", ",field,search,,d,2026-12-02"],
            [
                "found_by.csv:2:1: candidate: candidate must not be empty",
                "found_by.csv:2:4: via: via must not be empty",
            ],
        ),
        (
            ["candidate,round,arm,via,detail,date", "a,field,serch,q,d,2026-12-02"],
            [
                "found_by.csv:2:3: arm: arm must be one of search, citations, lists, not 'serch' (did you mean 'search'?)"
            ],
        ),
        (
            ["candidate,round,arm,via,detail,date", "a,round-1,search,q,d,2026-12-02"],
            ["found_by.csv:2:2: round: round must be a round run by arms (field), not 'round-1'"],
        ),
        (
            ["candidate,round,arm,via,detail,date", "a,field,search,q,d,2 Dec 2026"],
            ["found_by.csv:2:6: date: date must be a real date written YYYY-MM-DD, not '2 Dec 2026'"],
        ),
        # the same sighting twice
        (
            ["candidate,round,arm,via,detail,date", GOOD_ROW, GOOD_ROW],
            ["found_by.csv:3:1: candidate: the same sighting is already on line 2"],
        ),
    ],
)
def test_every_bad_sighting_is_named_with_its_line(rows: list[str], expected: list[str]) -> None:
    text = "\n".join(rows) + ("\n" if rows else "")
    _, problems = parse_found_by(text, "found_by.csv", _protocol())
    assert [str(p) for p in problems] == expected


def test_the_ledger_is_written_sorted_once_per_sighting() -> None:
    text = "candidate,round,arm,via,detail,date\n" + "\n".join(
        ["b,field,lists,o/l,README.md:3,2026-12-02", GOOD_ROW, "b,field,lists,o/l,README.md:3,2026-12-02"]
    )
    # a duplicate is a problem when read, and written once
    rows, problems = parse_found_by(text + "\n", "found_by.csv", _protocol())
    assert len(problems) == 1
    assert dump_found_by(rows).splitlines() == [
        "candidate,round,arm,via,detail,date",
        GOOD_ROW,
        "b,field,lists,o/l,README.md:3,2026-12-02",
    ]


# ---------------------------------------------------------------------------------------------
# The candidate register

HEAD = "round,candidate,title,first,abstract,rank,score"


@pytest.mark.parametrize(
    ("rows", "expected"),
    [
        (["round,candidate"], ["candidates.csv:1:1: (record): the header must be round,candidate,title,first,abstract,rank,score, not round,candidate"]),
        ([HEAD, "field,a,T,2025,listing,1,0.5"], ["candidates.csv:2:4: first: first must be a month written YYYY-MM, or empty when unknown, not '2025'"]),
        ([HEAD, "field,a,T,2025-01,listing,one,0.5"], ["candidates.csv:2:6: rank: rank must be a whole number from 1, or empty when not ranked, not 'one'"]),
        ([HEAD, "field,a,T,2025-01,,1,0.5"], ["candidates.csv:2:5: abstract: a ranked candidate says where the text it was ranked on was read"]),
        ([HEAD, "field,a,T,2025-01,listing,1,1.5"], ["candidates.csv:2:7: score: score must be a number from 0 to 1, not '1.5'"]),
        ([HEAD, "field,a,T,2025-01,listing,1,"], ["candidates.csv:2:7: score: a ranked candidate has a score, and a score goes with a rank"]),
        (
            [HEAD, "field,a,T,2025-01,listing,1,0.9", "field,b,T,2025-01,listing,1,0.8"],
            ["candidates.csv:3:6: rank: rank 1 is already given on line 2"],
        ),
        (
            [HEAD, "field,a,T,2025-01,listing,1,0.9", "field,a,T,2025-01,,,"],
            ["candidates.csv:3:2: candidate: candidate 'a' is already registered for round field on line 2"],
        ),
        (
            [HEAD, "field,a,T,2025-01,listing,1,0.9", "field,b,T,2025-01,listing,3,0.8"],
            ["candidates.csv:1:1: rank: round field's ranks must run 1 to 2 without gaps; missing 2"],
        ),
        ([HEAD, "nowhere,a,T,2025-01,,,"], ["candidates.csv:2:1: round: round must be a round run by arms (field), not 'nowhere'"]),
    ],
)  # fmt: skip
def test_every_bad_register_row_is_named_with_its_line(rows: list[str], expected: list[str]) -> None:
    _, problems = parse_register("\n".join(rows) + "\n", "candidates.csv", _protocol())
    assert [str(p) for p in problems] == expected


def test_the_register_is_written_ranked_first_then_by_name() -> None:
    text = "\n".join(
        [HEAD, "field,z,Z,,,,", "field,b,B,2025-02,listing,2,0.4", 'field,a,"A, too",2025-01,listing,1,0.9']
    )
    rows, problems = parse_register(text + "\n", "candidates.csv", _protocol())
    assert problems == []
    assert dump_register(rows).splitlines() == [
        HEAD,
        'field,a,"A, too",2025-01,listing,1,0.9000',
        "field,b,B,2025-02,listing,2,0.4000",
        "field,z,Z,,,,",
    ]


# ---------------------------------------------------------------------------------------------
# A round's flow, estimate and stopping rule over records


def _paper(root: Path, key: str, arxiv: str, category: str = "rl_method", year: int = 2025) -> None:
    text = (root / "papers" / "alpha.yaml").read_text("utf-8")
    text = (
        text.replace("key: alpha", f"key: {key}")
        .replace('"2501.00001"', f'"{arxiv}"')
        .replace("abs/2501.00001", f"abs/{arxiv}")
        .replace("Alpha | pipes", f"{key.title()} | pipes")
        .replace("origin: survey", "origin: discovery\nround: field")
        .replace('added: "2026-05-04"', 'added: "2026-12-02"')
        .replace("category: rl_method", f"category: {category}")
        .replace("year: 2025", f"year: {year}")
    )
    (root / "papers" / f"{key}.yaml").write_text(text, "utf-8")


def _queue(root: Path, ident: str, status: str, **decision: Any) -> None:
    data = {
        "id": ident,
        "status": status,
        "source": "manual",
        "query_family": "multi_agent_llm_rl",
        "query": "field search",
        "round": "field",
        "title": f"Title {ident}",
        "authors": ["Doe, Jane"],
        "published": "2025-01-02",
        "arxiv": ident,
        "url": f"https://arxiv.org/abs/{ident}",
        "found": "2026-12-02",
        "abstract": f"Abstract of {ident}.",
    }
    if decision:
        data["decision"] = {"date": "2026-12-02", **decision}
    (root / "screening").mkdir(exist_ok=True)
    (root / "screening" / f"{ident}.yaml").write_text(dump_entry(data), "utf-8")


@pytest.fixture
def arms_corpus(small: Path) -> Path:
    """The small corpus, with a round run by the arms: three papers and one exclusion decided in
    it, two candidates ranked below the stop, one awaiting an abstract, one outside the window."""
    (small / "protocol.yaml").write_text(PROTOCOL_YAML, "utf-8")
    for key, arxiv in (("eta", "2502.00011"), ("theta", "2503.00012"), ("iota", "2504.00013")):
        _paper(small, key, arxiv)
        _queue(small, arxiv, "included", key=key)
    excl = (small / "exclusions" / "E001.yaml").read_text("utf-8")
    excl = (
        excl.replace("id: E001", "id: E003")
        .replace("2305.00009", "2505.00014")
        .replace("origin: survey", "origin: discovery\nround: field")
        .replace('added: "2026-05-04"', 'added: "2026-12-02"')
    )
    (small / "exclusions" / "E003.yaml").write_text(excl, "utf-8")
    _queue(small, "2505.00014", "excluded", exclusion="E003", stage="abstract_screen", reasons=["no_rl"], note="n")
    register = [
        HEAD,
        "field,2502.00011,Eta,2025-02,listing,1,0.9",
        "field,2503.00012,Theta,2025-03,listing,2,0.8",
        "field,2505.00014,Excl,2025-05,listing,3,0.7",
        "field,2504.00013,Iota,2025-04,listing,4,0.6",
        "field,2506.00015,Low one,2025-06,listing,5,0.2",
        "field,2506.00016,Low two,2025-06,listing,6,0.1",
        "field,title-no-abstract,No abstract,,,,",
        "field,2201.00017,Old,2022-01,listing,,",
    ]
    (small / "screening" / "candidates.csv").write_text("\n".join(register) + "\n", "utf-8")
    rows = ["candidate,round,arm,via,detail,date"]
    found = {
        # the corpus before the round (alpha 2025 rl_method, beta 2024 rl_method, gamma 2023 benchmark)
        "alpha": ("search", "lists", "citations"),
        "beta": ("search", "lists"),
        "gamma": ("lists",),
        # the round's own
        "2502.00011": ("search", "lists"),
        "2503.00012": ("search",),
        "2504.00013": ("lists", "citations"),
        "2505.00014": ("search",),
        "2506.00015": ("search",),
        "2506.00016": ("lists",),
        "title-no-abstract": ("lists",),
        "2201.00017": ("citations",),
    }
    for name, arms in found.items():
        rows += [f"{name},field,{arm},{arm}-source,,2026-12-02" for arm in arms]
    (small / "screening" / "found_by.csv").write_text("\n".join(rows) + "\n", "utf-8")
    return small


def _report(root: Path) -> dict[str, Any]:
    from masrl.living._protocol import load_protocol

    loaded = load_corpus(root)
    assert loaded.ok, loaded.problems
    protocol = load_protocol(root, loaded.corpus.taxonomy)
    report, problems = arms_report(root, protocol, loaded.corpus)
    assert problems == []
    return dict(report["field"])


def test_each_arm_identifies_its_candidates_and_each_candidate_has_one_fate(arms_corpus: Path) -> None:
    flow = _report(arms_corpus)["flow"]
    assert flow["distinct"] == 11
    assert {k: flow[k] for k in ("known", "outside", "included", "excluded", "waiting", "unscreened", "awaiting")} == {
        "known": 3,
        "outside": 1,
        "included": 3,
        "excluded": 1,
        "waiting": 0,
        "unscreened": 2,
        "awaiting": 1,
    }
    assert flow["screened"] == 4
    search = flow["identified"]["search"]
    assert (search["candidates"], search["rows"], search["known"], search["included"], search["unscreened"]) == (
        6,
        6,
        2,
        2,
        1,
    )
    assert flow["identified"]["citations"]["outside"] == 1
    assert flow["overlap"]["search+lists"] == 2  # beta and eta
    assert sum(flow["overlap"].values()) == 11


def test_the_estimate_counts_the_population_with_the_corpus_before_the_round_as_a_source(arms_corpus: Path) -> None:
    est = _report(arms_corpus)["estimate"]
    assert est["sources"] == ["search", "citations", "lists", "prior"]
    # alpha, beta (prior), eta, theta, iota (the round's); gamma 2023 benchmark found by lists
    assert est["histories"] == {
        "0011": 1,  # gamma: lists, prior
        "0110": 1,  # iota: citations, lists
        "1000": 1,  # theta: search
        "1010": 1,  # eta: search, lists
        "1011": 1,  # beta
        "1111": 1,  # alpha
    }
    assert est["observed"] == 6
    assert est["population"] >= 6


def test_the_stopping_rule_reads_the_last_screened_in_ranked_order(arms_corpus: Path) -> None:
    stop = _report(arms_corpus)["stopping"]
    last = stop["last_screened"]
    # ranks 1-4 decided: eta, theta, excluded, iota -> the last three hold two includes (at most one)
    assert (last["screened"], last["includes"], last["deepest_rank"], last["ranked"], last["skipped"]) == (
        3,
        2,
        4,
        6,
        [],
    )
    assert last["holds"] is False
    assert stop["closes"] is False


def test_a_ranked_candidate_left_above_the_deepest_decision_is_skipped(arms_corpus: Path) -> None:
    _queue(
        arms_corpus, "2506.00016", "excluded", exclusion="E004", stage="abstract_screen", reasons=["no_rl"], note="n"
    )
    # rank 6 decided while rank 5 was never screened
    stop = _report(arms_corpus)["stopping"]
    assert stop["last_screened"]["skipped"] == ["2506.00015"]
    assert stop["last_screened"]["holds"] is False


def test_a_ranked_candidate_first_out_before_the_window_is_not_skipped(arms_corpus: Path) -> None:
    # rank 5 turns out to be first out in 2022, before the round's window: no candidate of the
    # round's population, so leaving it undecided above rank 6 skips nothing
    register = arms_corpus / "screening" / "candidates.csv"
    text = register.read_text("utf-8")
    register.write_text(text.replace("2506.00015,Low one,2025-06,", "2506.00015,Low one,2022-11,"), "utf-8")
    _queue(
        arms_corpus, "2506.00016", "excluded", exclusion="E004", stage="abstract_screen", reasons=["no_rl"], note="n"
    )
    stop = _report(arms_corpus)["stopping"]
    assert stop["last_screened"]["skipped"] == []
    assert stop["last_screened"]["deepest_rank"] == 6


def test_a_candidate_read_and_left_waiting_is_not_skipped(arms_corpus: Path) -> None:
    # rank 5 was read and waits for its abstract; rank 6 decided below it
    _queue(arms_corpus, "2506.00015", "pending")
    _queue(
        arms_corpus, "2506.00016", "excluded", exclusion="E004", stage="abstract_screen", reasons=["no_rl"], note="n"
    )
    stop = _report(arms_corpus)["stopping"]
    assert stop["last_screened"]["skipped"] == []
    assert stop["last_screened"]["deepest_rank"] == 6


def test_coverage_estimate_prints_each_arm_the_estimate_and_the_stopping_rule(arms_corpus: Path, run_cli: Any) -> None:
    result = run_cli("coverage", "--estimate")
    assert result.exit_code == 0, result.output
    out = result.output.splitlines()
    assert out[0] == "round field (Field search)"
    assert out[1] == "  candidates found: 11 distinct (search 6, citations 3, lists 7)"
    assert out[2] == (
        "  3 already in the corpus before the round, 1 first out before its window; 4 screened in the round "
        "(3 included, 1 excluded), 0 waiting in screening/, 2 ranked below where screening stopped, 1 awaiting an abstract"
    )
    assert out[3].startswith("  in-scope papers found: 6; estimated to exist: ")
    assert out[4].startswith("  recall of the corpus: ")
    assert [line.split()[0] for line in out[5:9]] == ["search", "citations", "lists", "prior"]
    assert "the round stays open" in out[-1]
    doc = json.loads(run_cli("coverage", "--estimate", "--json").output)
    assert doc["rounds"]["field"]["estimate"]["observed"] == 6


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--estimate", "README.md"), "Error: --estimate reads the records, not lists: give no FILE with it"),
        ((), "Error: give the curated lists to compare (FILE...), or --estimate"),
    ],
)
def test_coverage_refuses_what_it_cannot_do(
    arms_corpus: Path, run_cli: Any, args: tuple[str, ...], message: str
) -> None:
    result = run_cli("coverage", *args)
    assert result.exit_code == 1
    assert message in result.output


def test_validate_names_a_sighting_of_nothing(arms_corpus: Path, run_cli: Any) -> None:
    with (arms_corpus / "screening" / "found_by.csv").open("a", encoding="utf-8") as fh:
        fh.write("2599.99999,field,lists,x,,2026-12-02\n")
    result = run_cli("validate")
    assert result.exit_code == 1
    assert result.output.splitlines()[0] == (
        "screening/found_by.csv:18:1: candidate: candidate '2599.99999' names no file in screening/, no record in "
        "papers/ or exclusions/ and no row of screening/candidates.csv"
    )


def test_without_a_round_run_by_arms_the_estimate_says_so(small: Path, run_cli: Any) -> None:
    (small / "protocol.yaml").write_text(PROTOCOL_YAML.split("  - id: field")[0], "utf-8")
    result = run_cli("coverage", "--estimate")
    assert result.exit_code == 0
    assert result.output == "no round of protocol.yaml is run by the arms (none sets population:)\n"


def test_the_screening_page_shows_each_arm_the_estimate_and_the_stopping_rule(arms_corpus: Path, run_cli: Any) -> None:
    result = run_cli("build")
    assert result.exit_code == 0, result.output
    page = (arms_corpus / "site" / "docs" / "screening.md").read_text("utf-8")
    assert "## Search arms: Field search" in page
    assert "](figures/screening-arms-field.svg#only-light)" in page
    assert (arms_corpus / "site" / "docs" / "figures" / "screening-arms-field.svg").is_file()
    assert "| Search | databases | 6 | 6 | 2 | 0 | 2 | 1 | 1 | 0 |" in page
    assert "| **all arms, distinct** | | 11 | | 3 | 1 | 3 | 1 | 2 | 1 |" in page
    assert (
        "| includes among the last 3 screened in ranked order | at most 1 | 2 of 3 (screened to rank 4 of 6) | no |"
        in page
    )
    assert "The round stays open." in page
    assert "| Multi-agent LLM RL | mirror | 2026-12-02 | 2 | 3 |" in page


def test_stats_show_the_round_run_by_the_arms(arms_corpus: Path, run_cli: Any) -> None:
    result = run_cli("stats")
    assert result.exit_code == 0, result.output
    lines = result.output.split("\nsearch arms, round field\n", 1)[1].splitlines()
    assert lines[0] == "  candidates  11 distinct (search 6, citations 3, lists 7); 4 screened in the round"
    assert lines[1].startswith("  estimate    6 in-scope papers found of ")
    assert lines[2] == "  stopping    the round stays open"
    doc = json.loads(run_cli("stats", "--json").output)
    assert doc["screening"]["arms"]["field"]["flow"]["distinct"] == 11
