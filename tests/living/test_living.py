"""masrl discover, screen and refresh against recorded arXiv, OpenAlex and Crossref answers on loopback."""

from __future__ import annotations

import http.server
import json
import shutil
import sys
import threading
import urllib.parse
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from conftest import (
    FIXTURES,
    REPO,
    assert_golden,
    fixture_corpus,
    protocol_naming_no_records,
    protocol_of_the_survey_families,
)
from masrl.corpus._yaml import load_path

RECORDED = FIXTURES / "living"
WINDOW = ("--since", "2026-05-04", "--until", "2026-12-01")


def _route(path: str, query: dict[str, str]) -> tuple[int, str | None]:
    """The recorded answer for one request: (status, fixture file name or None)."""
    if path == "/arxiv/query":
        if "id_list" in query:
            return 200, "arxiv-list-ids.xml" if "2609.44444" in query["id_list"] else "arxiv-ids.xml"
        search = query.get("search_query", "")
        if search.startswith('ti:"Gamma'):
            return 200, "arxiv-title-gamma.xml"
        if search.startswith("ti:"):
            return 200, "arxiv-empty.xml"
        return 200, {"0": "arxiv-page-0.xml", "2": "arxiv-page-2.xml"}.get(query.get("start", ""), "arxiv-empty.xml")
    if path.startswith("/locked/"):
        return 401, None
    if path == "/openalex/works/doi:10.48550/arXiv.2501.00001":
        return 200, "openalex-work.json"
    if path == "/openalex/works":
        flt = query.get("filter", "")
        if flt.startswith("cites:W100"):
            return 200, "openalex-cites-1.json" if query.get("cursor") == "*" else "openalex-cites-2.json"
        if flt.startswith("openalex:W200"):
            return 200, "openalex-refs.json"
    if path == "/crossref/works/10.5555/gamma.2023":
        return 200, "crossref-gamma.json"
    if path == "/dblp/search/publ/api":
        return 200, "dblp-empty.json"
    return 404, None


class Services:
    """A loopback server answering like arXiv, OpenAlex and Crossref; counts the requests."""

    def __init__(self) -> None:
        self.requests: list[str] = []
        services = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                services.requests.append(self.path)
                parts = urllib.parse.urlsplit(self.path)
                query = dict(urllib.parse.parse_qsl(parts.query))
                status, name = _route(urllib.parse.unquote(parts.path), query)
                body = (RECORDED / name).read_bytes() if name else b'{"error": "not found"}'
                self.send_response(status, "Unauthorized" if status == 401 else None)
                self.send_header(
                    "Content-Type", "application/atom+xml" if (name or "").endswith(".xml") else "application/json"
                )
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: Any) -> None:
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.base = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def services(monkeypatch: pytest.MonkeyPatch) -> Iterator[Services]:
    from masrl.living import _net, _sources

    s = Services()
    monkeypatch.setenv("MASRL_ARXIV_API", f"{s.base}/arxiv/query")
    monkeypatch.setenv("MASRL_OPENALEX_API", f"{s.base}/openalex")
    monkeypatch.setenv("MASRL_CROSSREF_API", f"{s.base}/crossref")
    monkeypatch.setenv("MASRL_DBLP_API", f"{s.base}/dblp/search/publ/api")
    monkeypatch.setattr(_net, "PACE_S", dict.fromkeys(_net.PACE_S, 0.0))
    monkeypatch.setattr(_sources, "ARXIV_PAGE", 2)
    yield s
    s.close()


@pytest.fixture
def living(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The small fixture corpus with the repository's protocol.yaml, whose boundary rules keep
    their cases but not their precedents, and whose rounds list no audit draws (records of the
    repository, not of this corpus)."""
    root = fixture_corpus("small", tmp_path, monkeypatch)
    text = (REPO / "protocol.yaml").read_text("utf-8")
    (root / "protocol.yaml").write_text(protocol_naming_no_records(protocol_of_the_survey_families(text)), "utf-8")
    return root


def _discover(run_cli: Any, *args: str) -> Any:
    return run_cli("discover", *args, *WINDOW)


# ---------------------------------------------------------------------------------------------
# discover


def test_discover_flags_the_known_and_the_excluded_and_ranks_the_new(
    living: Path, services: Services, run_cli: Any
) -> None:
    # Act
    result = _discover(run_cli)
    # Assert
    assert result.exit_code == 0, result.output
    assert_golden("discover-table.txt", result.stdout)
    assert result.stderr.splitlines()[-1] == (
        "5 candidates from 2026-05-04 to 2026-12-01: 2 known, 0 already queued, 3 new, 3 written to screening/"
    )
    queued = sorted(p.name for p in (living / "screening").iterdir())
    assert queued == ["2609.11111.yaml", "2610.33333.yaml", "doi-10.1234_teams.2026.yaml"]


def test_discover_json_lists_every_candidate_with_what_it_matches(
    living: Path, services: Services, run_cli: Any
) -> None:
    result = _discover(run_cli, "--json", "--dry-run")
    assert result.exit_code == 0, result.output
    rows = json.loads(result.stdout)
    known = {(r["arxiv"] or r["id"]): r["known"] for r in rows}
    assert known == {
        "2609.11111": None,
        "doi-10.1234_teams.2026": None,
        "2610.33333": None,
        "2610.22222": "E001",
        "2406.00002": "beta",
    }
    assert all(set(r) >= {"arxiv", "title", "score", "known"} for r in rows)
    new = [r for r in rows if r["known"] is None]
    assert new[0]["id"] in ("2609.11111", "doi-10.1234_teams.2026")
    assert new[-1]["id"] == "2610.33333"  # the off-topic one ranks last
    assert not (living / "screening").exists()


def test_a_rerun_is_served_from_the_cache_and_flags_earlier_candidates(
    living: Path, services: Services, run_cli: Any
) -> None:
    assert _discover(run_cli).exit_code == 0
    asked = len(services.requests)
    # Act
    again = _discover(run_cli, "--json")
    # Assert
    assert again.exit_code == 0, again.output
    assert len(services.requests) == asked  # nothing fetched twice
    rows = json.loads(again.stdout)
    assert {r["id"]: r["earlier"] for r in rows if r["known"] is None} == {
        "2609.11111": "2609.11111",
        "doi-10.1234_teams.2026": "doi-10.1234_teams.2026",
        "2610.33333": "2610.33333",
    }


def test_arxiv_pages_are_followed_until_total_results(living: Path, services: Services, run_cli: Any) -> None:
    assert _discover(run_cli, "--source", "arxiv", "--dry-run").exit_code == 0
    starts = [
        dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(r).query)).get("start")
        for r in services.requests
        if r.startswith("/arxiv/")
    ]
    assert starts == ["0", "2"] * 7  # two pages for each of the seven query families


def test_openalex_cursor_paging_stops_at_a_null_cursor(living: Path, services: Services, run_cli: Any) -> None:
    assert _discover(run_cli, "--source", "openalex", "--dry-run").exit_code == 0
    cursors = [
        dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(r).query)).get("cursor")
        for r in services.requests
        if r.startswith("/openalex/works?") and "cites" in urllib.parse.unquote(r)
    ]
    assert cursors == ["*", "Y3Vyc29yLTI="]


MANUAL = """\
- arxiv: "2501.00001v3"
  title: Something else entirely
  published: "2026-06-01"
  url: https://arxiv.org/abs/2501.00001
  query_family: orchestration
- arxiv: "2611.44444"
  title: Training Sub-Agent Spawning with Reinforcement Learning
  authors: [Gil Maker]
  published: "2026-11-02"
  abstract: An orchestrator learns when to spawn sub-agents with multi-agent reinforcement learning.
  url: https://arxiv.org/abs/2611.44444
  query_family: orchestration
  query: arXiv listing cs.MA, November 2026
"""


def test_a_source_without_arxiv_id_or_doi_is_known_by_its_url(living: Path, run_cli: Any) -> None:
    # Arrange: a product page, new, and one whose url a paper already carries.
    alpha_url = load_path(living / "papers" / "alpha.yaml").data["url"]
    (living / "found.yaml").write_text(
        f"""\
- title: Multi-agent sessions in the Example Agents documentation
  published: "2026-06-10"
  url: https://docs.example.com/agents/multi-agent
  query_family: industrial_systems
- title: A page about alpha
  published: "2026-06-11"
  url: {alpha_url}
  query_family: industrial_systems
""",
        "utf-8",
    )
    # Act
    found = run_cli("discover", "--source", "manual", "--from", "found.yaml", "--json")
    excluded = run_cli(
        "screen",
        "title-multi-agent-sessions-in-the-example-agents-documentation",
        "--exclude",
        "insufficient_detail",
        "--stage",
        "artifact_screen",
        "--note",
        "The page lists the feature but no orchestration detail.",
    )
    # Assert
    assert found.exit_code == 0, found.output
    rows = json.loads(found.stdout)
    assert [(r["id"], r["known"]) for r in rows] == [
        ("title-multi-agent-sessions-in-the-example-agents-documentation", None),
        ("title-a-page-about-alpha", "alpha"),
    ]
    assert excluded.exit_code == 0, excluded.output
    written = sorted((living / "exclusions").glob("E*.yaml"))[-1]
    record = load_path(written).data
    assert (record["identifier"], record["url"]) == (
        "https://docs.example.com/agents/multi-agent",
        "https://docs.example.com/agents/multi-agent",
    )


def test_a_list_made_by_hand_goes_through_the_same_checks(living: Path, run_cli: Any) -> None:
    (living / "found.yaml").write_text(MANUAL, "utf-8")
    result = run_cli("discover", "--source", "manual", "--from", "found.yaml", "--json")
    assert result.exit_code == 0, result.output
    rows = json.loads(result.stdout)
    assert [(r["id"], r["known"], r["source"]) for r in rows] == [
        ("2611.44444", None, "manual"),
        ("2501.00001", "alpha", "manual"),
    ]
    entry = load_path(living / "screening" / "2611.44444.yaml").data
    assert entry["query"] == "arXiv listing cs.MA, November 2026"
    assert entry["status"] == "pending"


def test_a_candidate_whose_first_date_was_not_read_is_queued_without_one(living: Path, run_cli: Any) -> None:
    # Arrange: a listing that showed only the month; the date is left out rather than made up
    text = '- arxiv: "2611.55555"\n  title: A Team Trained Together\n  url: https://arxiv.org/abs/2611.55555\n  query_family: orchestration\n'
    (living / "found.yaml").write_text(text, "utf-8")
    # Act
    result = run_cli("discover", "--source", "manual", "--from", "found.yaml", "--since", "2026-11-01", "--json")
    # Assert
    assert result.exit_code == 0, result.output
    assert [r["id"] for r in json.loads(result.stdout)] == ["2611.55555"]
    entry = load_path(living / "screening" / "2611.55555.yaml").data
    assert (entry["status"], entry["published"]) == ("pending", "")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        # shape
        ("title: x\n", "found.yaml:1:1: (record): the file must be a list of candidates ('- title: ...' items)"),
        ("- just text\n", "found.yaml:1:3: [0]: each candidate must be a mapping"),
        # fields
        (
            '- arxiv: "2611.1"\n  title: T\n  published: "2026-11-02"\n  url: https://x.org\n  query_family: orchestration\n',
            "found.yaml:1:3: [0].arxiv: arxiv must be an arXiv id such as \"2508.04652\" (quoted), not '2611.1'",
        ),
        (
            '- arxiv: "2611.44444"\n  title: T\n  published: "2026-11-02"\n  url: https://x.org\n  query_family: orchestrate\n',
            "found.yaml:5:3: [0].query_family: query_family must be one of multi_agent_llm_rl, credit_assignment, "
            "orchestration, tool_software_agents, safety, classical_marl, industrial_systems, not 'orchestrate' "
            "(did you mean 'orchestration'?)",
        ),
        (
            '- arxiv: "2611.44444"\n  title: T\n  published: 2 Nov 2026\n  url: https://x.org\n  query_family: safety\n',
            "found.yaml:3:3: [0].published: published must be a date written YYYY-MM-DD, not '2 Nov 2026'",
        ),
        (
            '- arxiv: "2611.44444"\n  title: T\n  published: 20261102\n  url: https://x.org\n  query_family: safety\n',
            "found.yaml:3:3: [0].published: published must be a date written YYYY-MM-DD, not 20261102",
        ),
        (
            '- arxiv: "2611.44444"\n  titel: T\n  published: "2026-11-02"\n  url: https://x.org\n  query_family: safety\n',
            "found.yaml:2:3: [0].titel: unknown field (did you mean 'title'?); allowed fields are arxiv, doi, "
            "title, authors, published, abstract, url, query_family, query",
        ),
    ],
)
def test_a_bad_list_made_by_hand_is_refused_with_its_line(living: Path, run_cli: Any, text: str, message: str) -> None:
    (living / "found.yaml").write_text(text, "utf-8")
    result = run_cli("discover", "--from", "found.yaml")
    assert result.exit_code == 1
    assert message in result.stdout.splitlines()
    assert result.stderr.endswith("Nothing was written.\n")
    assert not (living / "screening").exists()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--since", "May 4"), "Error: --since must be a date written YYYY-MM-DD, not 'May 4'\n"),
        (("--source", "manual"), "Error: --source manual and --from FILE go together\n"),
        (("--source", "arxiv", "--from", "x.yaml"), "Error: --source manual and --from FILE go together\n"),
        (("--from", "nowhere.yaml"), "Error: cannot read nowhere.yaml: no such file\n"),
    ],
)
def test_discover_refuses_bad_options(living: Path, run_cli: Any, args: tuple[str, ...], message: str) -> None:
    result = run_cli("discover", *args)
    assert (result.exit_code, result.stderr) == (1, message)


def test_offline_discover_says_so_in_one_line(living: Path, run_cli: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    from masrl.living import _net

    monkeypatch.setattr(_net, "PACE_S", dict.fromkeys(_net.PACE_S, 0.0))
    monkeypatch.setenv("MASRL_ARXIV_API", "http://127.0.0.1:9/api/query")  # nothing listens on the discard port
    result = _discover(run_cli, "--source", "arxiv")
    assert result.exit_code == 1
    last = result.stderr.splitlines()[-1]
    assert last.startswith("Error: cannot reach arxiv at http://127.0.0.1:9/api/query (")
    assert "Traceback" not in result.output


def test_discover_without_a_protocol_names_the_file(living: Path, run_cli: Any) -> None:
    (living / "protocol.yaml").unlink()
    result = _discover(run_cli)
    assert result.exit_code == 1
    assert result.stdout.startswith("protocol.yaml:1:1: (record): protocol.yaml not found in ")


# ---------------------------------------------------------------------------------------------
# discover from a curated list


def test_discover_from_a_list_flags_the_known_and_queues_the_rest_with_arxivs_facts(
    living: Path, services: Services, run_cli: Any
) -> None:
    # Arrange
    shutil.copy(RECORDED / "list.md", living / "list.md")
    # Act
    result = run_cli("discover", "--source", "list", "list.md", "--round", "backfill")
    # Assert
    assert result.exit_code == 0, result.output
    known = sorted(" ".join(line.split()) for line in result.stdout.splitlines() if line.startswith("known"))
    assert known == [
        "known 2305.00009 is E001: A prompted debate, listed again",  # by its arXiv id in the text
        "known 2501.00001 is alpha: Alpha teams",  # by its arXiv id, another version
        "known title-gamma-a-benchmark-of-agent-teams is gamma: Gamma, A Benchmark of Agent-Teams!",  # by title
    ]
    assert result.stderr.endswith(
        "6 candidates from list.md: 3 known, 0 already queued, 3 new, 3 written to screening/\n"
    )
    assert sorted(p.name for p in (living / "screening").iterdir()) == [
        "2609.44444.yaml",
        "2609.55555.yaml",
        "title-learning-to-vote-in-agent-committees.yaml",
    ]
    fetched = load_path(living / "screening" / "2609.44444.yaml").data
    assert {k: fetched[k] for k in ("source", "query", "round", "title", "authors", "published", "url")} == {
        "source": "list",
        "query": "list.md:7",
        "round": "backfill",
        "title": "Training Orchestrators to Delegate to Frozen Agent Teams",
        "authors": ["Ada Example", "Bo Sample"],
        "published": "2026-09-14",
        "url": "https://arxiv.org/abs/2609.44444",
    }
    assert fetched["abstract"].startswith("We train an orchestrator with reinforcement learning")
    # not on arXiv (no entry in the answer): the list's own facts
    listed = load_path(living / "screening" / "2609.55555.yaml").data
    assert (listed["title"], listed["abstract"], listed["published"]) == ("An untrained committee of critics", "", "")
    title_only = load_path(living / "screening" / "title-learning-to-vote-in-agent-committees.yaml").data
    assert title_only["url"] == "https://openreview.net/forum?id=vote"
    assert [r for r in services.requests if "id_list" in r] == [
        "/arxiv/query?id_list=2609.44444%2C2609.55555&start=0&max_results=2"
    ]


def test_a_list_candidate_is_screened_with_the_list_named(living: Path, services: Services, run_cli: Any) -> None:
    shutil.copy(RECORDED / "list.md", living / "list.md")
    assert run_cli("discover", "--source", "list", "list.md", "--round", "backfill").exit_code == 0
    result = run_cli(
        "screen", "2609.55555", "--exclude", "no_rl", "--rule", "exclusion 1", "--note", "Prompted critics only."
    )
    assert result.exit_code == 0, result.output
    data = load_path(living / "exclusions" / "E003.yaml").data
    assert (data["source"], data["query_family"], data["round"], data["rule"]) == (
        "curated list",
        "curated list (list.md)",
        "backfill",
        "exclusion 1",
    )


def test_discover_from_a_list_offline_asks_no_service(living: Path, services: Services, run_cli: Any) -> None:
    shutil.copy(RECORDED / "list.md", living / "list.md")
    result = run_cli("discover", "--source", "list", "list.md", "--offline", "--json", "--dry-run")
    assert result.exit_code == 0, result.output
    assert services.requests == []
    new = [c for c in json.loads(result.stdout) if not c["known"]]
    assert sorted((c["id"], c["title"], c["query"]) for c in new) == [
        ("2609.44444", "Orchestrators for frozen teams", "list.md:7"),
        ("2609.55555", "An untrained committee of critics", "list.md:11"),
        ("title-learning-to-vote-in-agent-committees", "Learning to Vote in Agent Committees", "list.md:12"),
    ]
    assert not (living / "screening").exists()


def test_discover_queues_a_work_a_list_names_by_heading_and_code_link(
    living: Path, services: Services, run_cli: Any
) -> None:
    # thinkwee titles its entries by headings; MAPoRL's links its repository only. YsTvT gives one
    # arXiv id to five titles, which discover notes as coverage warns of it.
    for name in ("thinkwee-agentsmeetrl-excerpt.md", "ystvt-awesome-agent-rl-papers-excerpt.md"):
        shutil.copy(FIXTURES / "lists" / name, living / name)
    result = run_cli(
        "discover", "--source", "list", "thinkwee-agentsmeetrl-excerpt.md",
        "ystvt-awesome-agent-rl-papers-excerpt.md", "--offline", "--json", "--dry-run",
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    new = {c["query"]: (c["id"], c["title"], c["url"]) for c in json.loads(result.stdout) if not c["known"]}
    assert new["thinkwee-agentsmeetrl-excerpt.md:9"] == ("2605.22177", "Maestro", "https://arxiv.org/abs/2605.22177")
    assert new["thinkwee-agentsmeetrl-excerpt.md:23"] == (
        "title-maporl",
        "MAPoRL",
        "https://github.com/chanwoo-park-official/MAPoRL",
    )
    assert len(new) == 4 + 11
    assert (
        "note: ystvt-awesome-agent-rl-papers-excerpt.md:6: arXiv 2405.14751 is listed under titles that disagree ("
        in result.stderr
    )


def test_a_listed_paper_with_no_link_is_named_not_queued(living: Path, services: Services, run_cli: Any) -> None:
    (living / "refs.csv").write_text("title\nA Title Nobody Links To Anywhere\n", "utf-8")
    result = run_cli("discover", "--source", "list", "refs.csv", "--offline")
    assert result.exit_code == 0, result.output
    assert (
        "note: refs.csv:2: 'A Title Nobody Links To Anywhere' has no link or identifier, so it cannot be queued\n"
        in result.stderr
    )


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--source", "list"), "Error: --source list and the list FILEs go together: masrl discover --source list FILE...\n"),
        (("list.md",), "Error: --source list and the list FILEs go together: masrl discover --source list FILE...\n"),
        (("--source", "arxiv", "--offline"), "Error: --offline goes with --source list\n"),
        (("--source", "list", "list.md", "--since", "2026-01-01"), "Error: a list has no date window: --since and --until go with the searches\n"),
        (("--source", "list", "nowhere.md"), "Error: nowhere.md: no such file\n"),
        (("--source", "list", "list.md", "--round", "round-1"), "Error: --round must be a discovery round of protocol.yaml (round-2, backfill), not 'round-1'\n"),
    ],
)  # fmt: skip
def test_discover_from_a_list_refuses_bad_options(
    living: Path, services: Services, run_cli: Any, args: tuple[str, ...], message: str
) -> None:
    shutil.copy(RECORDED / "list.md", living / "list.md")
    result = run_cli("discover", *args)
    assert (result.exit_code, result.stderr) == (1, message)
    assert not (living / "screening").exists()


# ---------------------------------------------------------------------------------------------
# screen


@pytest.fixture
def queued(living: Path, services: Services, run_cli: Any) -> Path:
    assert _discover(run_cli).exit_code == 0
    return living


def test_screen_includes_a_candidate_as_a_discovery_scaffold(queued: Path, run_cli: Any) -> None:
    import datetime as dt

    today = dt.date.today().isoformat()
    # Act
    result = run_cli("screen", "2609.11111v1", "--include")
    # Assert
    assert result.exit_code == 0, result.output
    assert result.stdout == (
        "wrote papers/learning-to-delegate2026.yaml (fill in the empty fields); "
        "recorded the decision in screening/2609.11111.yaml\n"
    )
    record = (queued / "papers" / "learning-to-delegate2026.yaml").read_text("utf-8")
    for line in ('arxiv: "2609.11111"', "  - Example, Ada", "origin: discovery", f'added: "{today}"', "venue: arXiv"):
        assert line in record.splitlines(), line
    entry = load_path(queued / "screening" / "2609.11111.yaml").data
    assert entry["status"] == "included"
    assert entry["decision"] == {"date": today, "key": "learning-to-delegate2026"}


def test_screen_excludes_a_candidate_with_stage_reasons_and_note(queued: Path, run_cli: Any) -> None:
    import datetime as dt

    today = dt.date.today().isoformat()
    result = run_cli(
        "screen", "2610.33333", "--exclude", "out_of_scope", "--reason", "single_agent",
        "--stage", "abstract_screen", "--note", "Medical image segmentation, with no LLM agents.",
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert result.stdout == "wrote exclusions/E003.yaml; recorded the decision in screening/2610.33333.yaml\n"
    data = load_path(queued / "exclusions" / "E003.yaml").data
    assert data == {
        "id": "E003",
        "source": "arXiv",
        "query_family": "Multi-agent LLM RL",
        "label": "Segmenting Medical Scans with Convolutional Networks",
        "identifier": "arXiv:2610.33333",
        "url": "https://arxiv.org/abs/2610.33333",
        "date_screened": today,
        "stage": "abstract_screen",
        "reasons": ["out_of_scope", "single_agent"],
        "origin": "discovery",
        "added": today,
        "note": "Medical image segmentation, with no LLM agents.",
    }
    entry = load_path(queued / "screening" / "2610.33333.yaml").data
    assert (entry["status"], entry["decision"]["exclusion"]) == ("excluded", "E003")
    assert run_cli("validate", "exclusions").exit_code == 0


def test_both_decisions_then_validate_sees_only_the_scaffold_to_finish(queued: Path, run_cli: Any) -> None:
    assert run_cli("screen", "10.1234/teams.2026", "--include", "--key", "teams2026").exit_code == 0
    assert run_cli("screen", "2610.33333", "--exclude", "out_of_scope", "--note", "No agents at all.").exit_code == 0
    result = run_cli("validate")
    files = {line.split(":", 1)[0] for line in result.stdout.splitlines()}
    assert files == {"papers/teams2026.yaml"}


def test_an_interrupted_decision_is_completed_on_the_next_run(queued: Path, run_cli: Any) -> None:
    # Arrange: the record was written but the session stopped before the queue file was updated.
    assert run_cli("screen", "2609.11111", "--include").exit_code == 0
    entry_path = queued / "screening" / "2609.11111.yaml"
    text = entry_path.read_text("utf-8")
    entry_path.write_text(text.split("decision:")[0].replace("status: included", "status: pending"), "utf-8")
    # Act
    result = run_cli("screen", "2609.11111", "--include")
    # Assert
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith("2609.11111 is already in the corpus as learning-to-delegate2026;")
    assert sorted(p.name for p in (queued / "papers").glob("learning*")) == ["learning-to-delegate2026.yaml"]
    assert load_path(entry_path).data["status"] == "included"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("2699.00000", "--include"), "Error: no candidate '2699.00000' in screening/ (give its arXiv id or DOI as discover listed it)\n"),
        (("2609.11111",), "Error: give either --include or --exclude REASON\n"),
        (("2609.11111", "--include", "--exclude", "no_rl"), "Error: give either --include or --exclude REASON\n"),
        (("--include",), "Error: give the candidate's ID with --include or --exclude\n"),
        (("2609.11111", "--exclude", "no_rl"), "Error: --exclude needs --note: one sentence of your own, at most 200 characters\n"),
        (("2609.11111", "--exclude", "nope", "--note", "x."), "Error: reason must be one of no_rl, single_agent, no_mas_mechanism, out_of_scope, background_only, superseded, duplicate, insufficient_detail, no_trace_instrumentation, not 'nope'\n"),
        (("2609.11111", "--exclude", "no_rl", "--stage", "later", "--note", "x."), "Error: --stage must be one of abstract_screen, full_text_screen, artifact_screen, duplicate_screen, not 'later'\n"),
        (("2609.11111", "--include", "--key", "Bad Key"), "Error: --key must be lower-case letters and digits joined by '-', e.g. 'rema2025', not 'Bad Key'\n"),
        (("2609.11111", "--include", "--key", "alpha"), "Error: --key 'alpha' is already used by papers/alpha.yaml\n"),
        (("2609.11111", "--include", "--note", "x."), "Error: --reason, --stage and --note go with --exclude\n"),
        (("2609.11111", "--include", "--rule", "B7"), "Error: --rule must be one of B1, B2, B3, B4, B5, B6, B8, B9, B10, B11, inclusion 1, inclusion 2, inclusion 3, inclusion 4, inclusion 5 to include, not 'B7'; B7 decides only the other way\n"),
        (("2609.11111", "--exclude", "no_rl", "--note", "x.", "--rule", "B4"), "Error: --rule must be one of B1, B2, B3, B5, B6, B7, B8, B9, B10, B11, exclusion 1, exclusion 2, exclusion 3, exclusion 4, exclusion 5 to exclude, not 'B4'; B4 decides only the other way\n"),
        (("2609.11111", "--include", "--rule", "B12"), "Error: --rule must be one of B1, B2, B3, B4, B5, B6, B8, B9, B10, B11, inclusion 1, inclusion 2, inclusion 3, inclusion 4, inclusion 5 to include, not 'B12'\n"),
        (("2609.11111", "--include", "--round", "round-1"), "Error: --round must be a discovery round of protocol.yaml (round-2, backfill), not 'round-1'\n"),
        (("2609.11111", "--rules"), "Error: --rules lists the rules and takes no other option\n"),
        (("--rule", "B3"), "Error: give the candidate's ID with --include or --exclude\n"),
    ],
)  # fmt: skip
def test_screen_refuses_bad_decisions_and_writes_nothing(
    queued: Path, run_cli: Any, args: tuple[str, ...], message: str
) -> None:
    before = sorted(p.name for p in (queued / "papers").iterdir()) + sorted(
        p.name for p in (queued / "exclusions").iterdir()
    )
    result = run_cli("screen", *args)
    assert (result.exit_code, result.stderr) == (1, message)
    after = sorted(p.name for p in (queued / "papers").iterdir()) + sorted(
        p.name for p in (queued / "exclusions").iterdir()
    )
    assert after == before


def test_a_note_that_breaks_the_exclusion_rules_is_refused(queued: Path, run_cli: Any) -> None:
    result = run_cli("screen", "2610.33333", "--exclude", "no_rl", "--note", "no full stop")
    assert result.exit_code == 1
    assert result.stderr == "note: note must be one sentence ending with '.'\nNothing was written.\n"
    assert not (queued / "exclusions" / "E003.yaml").exists()


def test_a_decided_candidate_is_not_decided_twice(queued: Path, run_cli: Any) -> None:
    assert run_cli("screen", "2610.33333", "--exclude", "no_rl", "--note", "Not agents.").exit_code == 0
    result = run_cli("screen", "2610.33333", "--include")
    assert result.exit_code == 1
    assert result.stderr.startswith("Error: 2610.33333 is already excluded (E003, ")


def test_the_interactive_walk_shows_why_and_records_each_answer(queued: Path, run_cli: Any) -> None:
    # Act: include the first (citing B3 after asking for the rules in full and one wrong answer),
    # skip the second, exclude the third (reason 4, default stage, no rule), stop.
    result = run_cli("screen", input="i\n?\nB7\nB3\ns\ne\n4\n\n\nNo agents at all.\nq\n")
    # Assert
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert "[1/3] " in out
    assert "why: " in out
    assert "score " in out
    assert "    B1  A trained router, topology or orchestrator over frozen agents\n" in out
    assert "    B7  LLM-assisted classical MARL\n" in out  # offered when excluding, not when including
    assert out.count("    B7  LLM-assisted classical MARL\n") == 1
    assert "      include (inclusion 1): The partners are LLM agents acting in the same episode" in out
    assert (
        "  --rule must be one of B1, B2, B3, B4, B5, B6, B8, B9, B10, B11, inclusion 1, inclusion 2, inclusion 3, inclusion 4, inclusion 5 to include, not 'B7'; B7 decides only the other way\n"
        in out
    )
    entries = {p.stem: load_path(p).data for p in (queued / "screening").glob("*.yaml")}
    assert sorted(e["status"] for e in entries.values()) == ["excluded", "included", "pending"]
    included = next(e for e in entries.values() if e["status"] == "included")
    assert included["decision"]["rule"] == "B3"
    assert "rule: B3" in (queued / "papers" / f"{included['decision']['key']}.yaml").read_text("utf-8").splitlines()
    excluded = next(e for e in entries.values() if e["status"] == "excluded")
    assert "rule" not in excluded["decision"]
    assert result.stderr.endswith("1 included, 1 excluded, 1 skipped\n")


def test_screen_cites_the_rule_and_names_the_round(queued: Path, run_cli: Any) -> None:
    # Act
    included = run_cli("screen", "2609.11111", "--include", "--rule", "B3", "--round", "backfill")
    excluded = run_cli(
        "screen", "2610.33333", "--exclude", "out_of_scope", "--rule", "B7", "--round", "backfill",
        "--note", "An LLM writes rewards for conventional RL agents.",
    )  # fmt: skip
    # Assert
    assert (included.exit_code, excluded.exit_code) == (0, 0), included.output + excluded.output
    paper = (queued / "papers" / "learning-to-delegate2026.yaml").read_text("utf-8").splitlines()
    assert paper[paper.index("origin: discovery") + 2 : paper.index("origin: discovery") + 4] == [
        "round: backfill",
        "rule: B3",
    ]
    data = load_path(queued / "exclusions" / "E003.yaml").data
    assert (data["round"], data["rule"]) == ("backfill", "B7")
    decisions = [load_path(queued / "screening" / f"{i}.yaml").data["decision"] for i in ("2609.11111", "2610.33333")]
    assert [d["rule"] for d in decisions] == ["B3", "B7"]
    assert run_cli("validate", "exclusions").exit_code == 0


def test_a_queue_file_that_names_its_round_passes_it_to_the_record(queued: Path, run_cli: Any) -> None:
    path = queued / "screening" / "2610.33333.yaml"
    path.write_text(path.read_text("utf-8").replace("score:", "round: backfill\nscore:", 1), "utf-8")
    assert run_cli("screen", "2610.33333", "--exclude", "no_rl", "--note", "Not agents.").exit_code == 0
    assert load_path(queued / "exclusions" / "E003.yaml").data["round"] == "backfill"


def test_screen_lists_the_rules(living: Path, run_cli: Any) -> None:
    result = run_cli("screen", "--rules")
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[:2] == [
        "Boundary rules (protocol.yaml boundary_rules; cite one with --rule B<n>):",
        "  B1  A trained router, topology or orchestrator over frozen agents",
    ]
    assert [line.split()[0] for line in lines if line.startswith("  B")] == [f"B{n}" for n in range(1, 12)]
    assert "Inclusion rules (cite one with --rule 'inclusion <n>'):" in lines
    assert "  exclusion 1: A prompted agent framework, with no training. (no_rl)" in lines
    assert any(line.startswith("      exclude (single_agent): A router hands each query to one") for line in lines)


def test_the_rules_name_their_precedents() -> None:
    from masrl.corpus._vocab import load_taxonomy
    from masrl.living._protocol import load_protocol
    from masrl.living.screen import rules_text

    text = rules_text(load_protocol(REPO, load_taxonomy(REPO)), "exclude")
    assert "        answer. [E032]\n" in text
    assert "include (" not in text
    assert "Inclusion rules" not in text


# ---------------------------------------------------------------------------------------------
# refresh


def test_refresh_shows_its_diff_and_writes_nothing(living: Path, services: Services, run_cli: Any) -> None:
    before = {p.name: p.read_text("utf-8") for p in (living / "papers").iterdir()}
    result = run_cli("refresh")
    assert result.exit_code == 0, result.output
    assert_golden("refresh-diff.txt", result.stdout)
    # A published paper's authors are compared with the published version only, never with arXiv's.
    assert result.stderr.splitlines() == [
        "papers/alpha.yaml: note: authors not compared: ICML 2026 is the version of record, and neither "
        "Crossref nor DBLP lists its authors",
        "papers/beta.yaml: note: authors not compared: NeurIPS 2024 is the version of record, and neither "
        "Crossref nor DBLP lists its authors",
        "2 of 4 records would change",
    ]
    assert {p.name: p.read_text("utf-8") for p in (living / "papers").iterdir()} == before


def test_refresh_write_applies_the_diff_keeping_comments_and_tags(
    living: Path, services: Services, run_cli: Any
) -> None:
    path = living / "papers" / "alpha.yaml"
    path.write_text(path.read_text("utf-8").replace("venue: arXiv\n", "# where it appeared\nvenue: arXiv\n"), "utf-8")
    tags_before = {k: v for k, v in load_path(path).data.items() if k not in ("venue", "year", "authors", "more_urls")}
    # Act
    result = run_cli("refresh", "alpha", "--write")
    # Assert
    assert result.exit_code == 0, result.output
    text = path.read_text("utf-8")
    assert "# where it appeared\nvenue: ICML 2026\n" in text
    data = load_path(path).data
    assert (data["year"], data["authors"][-1], data["more_urls"]) == (
        2025,  # the year of first appearance stays: the arXiv preprint's
        "Roe, Richard",  # the published version's authors are not known: the record's stay
        ["https://github.com/example/alpha"],
    )
    assert {k: v for k, v in data.items() if k not in ("venue", "year", "authors", "more_urls")} == tags_before
    assert run_cli("validate", "papers/alpha.yaml").exit_code == 0
    assert run_cli("refresh", "alpha").stdout == ""  # nothing left to change


def test_refresh_of_an_unknown_key_is_refused(living: Path, run_cli: Any) -> None:
    result = run_cli("refresh", "nope")
    assert (result.exit_code, result.stderr) == (1, "Error: no paper with key 'nope' in papers/\n")


def test_refresh_leaves_out_an_id_another_record_holds(living: Path, services: Services, run_cli: Any) -> None:
    # Arrange: the arXiv id the title search finds for gamma is already an exclusion's.
    path = living / "exclusions" / "E002.yaml"
    path.write_text(path.read_text("utf-8").replace("identifier: DOCS-1", "identifier: arXiv:2302.12345"), "utf-8")
    # Act
    result = run_cli("refresh", "gamma")
    # Assert
    assert result.exit_code == 0, result.output
    assert "papers/gamma.yaml: arxiv 2302.12345 left out: E002 already has it" in result.stderr.splitlines()
    assert "arxiv:" not in result.stdout


BOMB = b"""<?xml version="1.0"?>
<!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">]>
<feed xmlns="http://www.w3.org/2005/Atom"><title>&lol2;</title></feed>"""
ERROR_FEED = b"""<?xml version="1.0" encoding="UTF-8"?>
<feed xmlns="http://www.w3.org/2005/Atom" xmlns:opensearch="http://a9.com/-/spec/opensearch/1.1/">
  <opensearch:totalResults>1</opensearch:totalResults>
  <opensearch:startIndex>0</opensearch:startIndex>
  <entry>
    <id>http://arxiv.org/api/errors#incorrect_id_format_for_1234</id>
    <title>Error</title>
    <summary>incorrect id format for 1234</summary>
  </entry>
</feed>"""


@pytest.mark.parametrize(
    ("feed", "message"),
    [
        (b"<feed", "the arXiv API answer is not safe, valid XML"),
        (BOMB, "the arXiv API answer is not safe, valid XML"),
        (ERROR_FEED, "the arXiv API refused the query 'q': incorrect id format for 1234"),
    ],
)
def test_bad_arxiv_answers_become_one_line_errors(feed: bytes, message: str) -> None:
    from masrl.living._sources import SourceError, parse_arxiv_feed

    with pytest.raises(SourceError) as caught:
        parse_arxiv_feed(feed, None, "q")
    assert str(caught.value).startswith(message)
    assert "\n" not in str(caught.value)


def test_discover_without_its_extra_says_how_to_install_it(
    living: Path, run_cli: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    import sys

    monkeypatch.setitem(sys.modules, "sklearn", None)  # what an environment without the extra looks like
    result = _discover(run_cli)
    assert (result.exit_code, result.stderr) == (
        1,
        "Error: masrl discover needs scikit-learn; install it with: pip install 'masrl[discover]'\n",
    )


def test_a_refused_openalex_key_is_named_but_never_printed(
    living: Path, services: Services, run_cli: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MASRL_OPENALEX_API", f"{services.base}/locked")
    monkeypatch.setenv("MASRL_OPENALEX_KEY", "s3cret")
    result = _discover(run_cli, "--source", "openalex")
    assert result.exit_code == 1
    last = result.stderr.splitlines()[-1]
    assert last.startswith("Error: OpenAlex answered 401 Unauthorized for ")
    assert "api_key=..." in last
    assert "; OpenAlex may ask for a free API key: set MASRL_OPENALEX_KEY; the search stopped there" in last
    assert "s3cret" not in result.output


def test_requests_to_one_service_are_paced_and_cached_answers_are_not(
    services: Services, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from masrl.living import _net

    now = [1000.0]
    waits: list[float] = []

    def sleep(seconds: float) -> None:
        waits.append(round(seconds, 3))
        now[0] += seconds

    monkeypatch.setattr(_net, "PACE_S", {"arxiv": 3.0, "crossref": 0.2})
    monkeypatch.setattr(_net, "_last", {})
    monkeypatch.setattr(_net.time, "monotonic", lambda: now[0])
    monkeypatch.setattr(_net.time, "sleep", sleep)
    arxiv = f"{services.base}/arxiv/query?search_query=a"
    body: Any = lambda answer: answer.body  # noqa: E731
    with _net.Client(tmp_path) as client:
        client.fetch(arxiv, "arxiv", body)  # the first request waits for nothing
        now[0] += 1.0
        client.fetch(f"{services.base}/crossref/works/10.5555/gamma.2023", "crossref", body)  # its own pace
        client.fetch(f"{arxiv}b", "arxiv", body)  # 1 s after the last arXiv request: waits the other 2
        client.fetch(arxiv, "arxiv", body)  # cached: no request, no wait
    assert waits == [2.0]
    assert len(services.requests) == 3


def test_refresh_shows_what_it_found_before_a_service_stayed_down(
    living: Path, services: Services, run_cli: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Arrange: Crossref answers 503 for gamma's DOI, every time (synthetic: arXiv's 503 body).
    original = _route

    def route(path: str, query: dict[str, str]) -> tuple[int, str | None]:
        return (503, None) if path.startswith("/crossref/") else original(path, query)

    monkeypatch.setattr(sys.modules[__name__], "_route", route)
    # Act
    result = run_cli("refresh")
    # Assert
    assert result.exit_code == 1
    assert result.stdout.startswith("papers/alpha.yaml\n")  # found before gamma, the last paper in key order
    assert "papers/beta.yaml: note: authors not compared" in result.stderr
    assert "papers/gamma.yaml" not in result.stdout
    last = result.stderr.splitlines()[-1]
    assert last.startswith("Error: Crossref answered 503 Service Unavailable for ")
    assert (
        "(after 5 tries); run again in a few minutes; 1 of 4 records were not compared, the changes above are those found before"
        in last
    )


def test_add_names_the_arxiv_api_and_its_way_round_when_offline(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from masrl.living._arxiv import ArxivError, fetch

    monkeypatch.setenv("MASRL_ARXIV_API", "http://127.0.0.1:9/api/query")
    with pytest.raises(ArxivError, match=r"^cannot reach the arXiv API at .*`masrl add --bib -` instead$"):
        fetch("2501.00001")


# ---------------------------------------------------------------------------------------------
# The weekly run


def test_discover_markdown_is_the_ranked_table_for_a_pull_request(
    living: Path, services: Services, run_cli: Any
) -> None:
    result = _discover(run_cli, "--markdown", "--dry-run")
    assert result.exit_code == 0, result.output
    assert_golden("discover-markdown.md", result.stdout)


def test_the_weekly_run_queues_refreshes_and_writes_the_pull_request_body(
    living: Path, services: Services, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from masrl import weekly

    outputs = tmp_path / "outputs"
    monkeypatch.setenv("GITHUB_OUTPUT", str(outputs))
    # Act: the first run finds everything; the second, the same day, finds nothing new.
    assert weekly.main(["--body", "body.md", "--today", "2026-12-01"]) == 0
    first = (living / "body.md").read_text("utf-8")
    first_outputs = outputs.read_text("utf-8")
    outputs.unlink()
    assert weekly.main(["--body", "body.md", "--today", "2026-12-01"]) == 0
    second_outputs = outputs.read_text("utf-8")
    # Assert
    assert sorted(p.name for p in (living / "screening").iterdir()) == [
        "2609.11111.yaml",
        "2610.33333.yaml",
        "doi-10.1234_teams.2026.yaml",
    ]
    assert load_path(living / "papers" / "alpha.yaml").data["venue"] == "ICML 2026"  # refresh --write
    assert_golden("weekly-body.md", first)
    assert first_outputs == "changed=true\ntitle=Candidates to screen, week of 2026-11-30\nstatus=ok\n"
    assert second_outputs == "changed=false\ntitle=Candidates to screen, week of 2026-11-30\nstatus=ok\n"


def test_the_weekly_run_keeps_what_it_gathered_when_a_service_stays_down(
    living: Path, services: Services, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from masrl import weekly

    original = _route

    def route(path: str, query: dict[str, str]) -> tuple[int, str | None]:  # OpenAlex answers 503 (synthetic)
        return (503, None) if path.startswith("/openalex/") else original(path, query)

    monkeypatch.setattr(sys.modules[__name__], "_route", route)
    outputs = tmp_path / "outputs"
    monkeypatch.setenv("GITHUB_OUTPUT", str(outputs))
    assert weekly.main(["--body", "body.md", "--today", "2026-12-01"]) == 0
    body = (living / "body.md").read_text("utf-8")
    assert sorted(p.name for p in (living / "screening").iterdir()) == ["2609.11111.yaml", "2610.33333.yaml"]
    assert "### This run did not finish" in body
    assert "- `masrl discover`: OpenAlex answered 503 Service Unavailable for " in body
    assert outputs.read_text("utf-8").endswith("status=failed\n")


# ---------------------------------------------------------------------------------------------
# The ranker's evaluation


@pytest.mark.parametrize(
    ("scores", "labels", "auc", "recall", "wss95"),
    [
        # perfect order: both included first
        ([0.9, 0.8, 0.1, 0.2], [1, 1, 0, 0], 1.0, (0.5, 0.5, 1.0), 0.45),
        # worst order: both included last
        ([0.1, 0.2, 0.9, 0.8], [1, 1, 0, 0], 0.0, (0.0, 0.0, 0.0), -0.05),
        # ten works, one included, ranked third: 95% recall needs 3 screened
        (
            [0.5, 0.9, 0.8, 0.1, 0.2, 0.3, 0.4, 0.05, 0.06, 0.07],
            [1, 0, 0, 0, 0, 0, 0, 0, 0, 0],
            7 / 9,
            (0.0, 0.0, 1.0),
            0.65,
        ),
    ],
)
def test_figures_of_a_ranking(
    scores: list[float], labels: list[int], auc: float, recall: tuple[float, ...], wss95: float
) -> None:
    from masrl.living._evaluate import figures

    f = figures(scores, labels)
    assert f.auc == pytest.approx(auc)
    assert f.recall == pytest.approx(recall)
    assert f.wss95 == pytest.approx(wss95)


def test_random_order_figures_are_their_expectations() -> None:
    from masrl.living._evaluate import random_figures

    f = random_figures([1, 1, 0, 0])
    # recall after 1, 1 and 2 of 4; the 2nd of 2 included lies at 2 * 5 / 3 on average
    assert (f.auc, *f.recall, f.wss95) == pytest.approx((0.5, 0.25, 0.25, 0.5, (4 - 10 / 3) / 4 - 0.05))


def _decided(root: Path, n: int) -> None:
    """*n* decided candidates of each class in screening/ (synthetic: made-up titles and abstracts)."""
    from masrl.living._queue import write_entry

    topics = {
        1: "multi-agent reinforcement learning trains LLM agents that delegate and share credit",
        0: "a convolutional network segments medical images without agents",
    }
    for label, text in topics.items():
        for i in range(n):
            ident = f"2607.{label}{i:04d}"
            decision = (
                {"date": "2026-07-01", "key": f"p{label}{i}"}
                if label
                else {"date": "2026-07-01", "exclusion": f"E9{i:02d}"}
            )
            write_entry(root, {
                "id": ident, "status": "included" if label else "excluded", "source": "manual",
                "query_family": "orchestration", "query": "q", "score": 0.5, "terms": [],
                "title": f"Work {i} on {text.split()[0]}", "authors": [], "published": "2026-07-01",
                "arxiv": ident, "doi": None, "url": f"https://arxiv.org/abs/{ident}", "found": "2026-07-01",
                "abstract": f"{text} (variant {i}).", "decision": decision,
            })  # fmt: skip


def test_evaluate_replays_the_decisions_round_by_round_and_by_k_fold(living: Path, run_cli: Any) -> None:
    _decided(living, 5)
    result = run_cli("discover", "--evaluate")
    assert result.exit_code == 0, result.output
    assert_golden("discover-evaluate.txt", result.stdout)


def test_evaluate_says_when_there_are_too_few_decisions_for_k_fold(living: Path, run_cli: Any) -> None:
    _decided(living, 2)
    result = run_cli("discover", "--evaluate")
    assert result.exit_code == 0, result.output
    assert (
        result.stdout.splitlines()[-1] == "  too few screened candidates: 2 included and 2 excluded, 5 of each needed"
    )


# -- what refresh proposes, from what each source says (pure: no network)


def _paper(venue: str, authors: tuple[str, ...], bibtex: dict[str, str] | None = None) -> Any:
    from masrl.corpus._records import Paper

    return Paper(
        key="p",
        title="A paper",
        authors=authors,
        et_al=False,
        affiliation="unknown",
        year=2025,
        arxiv="2501.00001",
        doi=None,
        venue=venue,
        url="https://arxiv.org/abs/2501.00001",
        more_urls=(),
        bibtex=bibtex or {},
        tags={},
        added="2026-05-04",
        changes=(),
        strict_credit=False,
        subdecisions=None,
        summary="A summary.",
        notes=None,
        exceptions={},
        path="papers/p.yaml",
    )


def _arxiv(authors: list[str], journal_ref: str = "") -> Any:
    from masrl.living._sources import Found

    return Found(
        "arxiv", None, "", "A paper", authors, "2025-01-02", "", "https://arxiv.org/abs/2501.00001",
        arxiv="2501.00001", journal_ref=journal_ref,
    )  # fmt: skip


def _crossref(names: list[tuple[str, str]]) -> dict[str, Any]:
    return {"type": "proceedings-article", "author": [{"family": f, "given": g} for f, g in names]}


FIVE = ["Shuo Liu", "Tianle Chen", "Zeyu Liang", "Xueguang Lyu", "Christopher Amato"]
FOUR_CROSSREF = [("Liu", "Shuo"), ("Liang", "Zeyu"), ("Lyu", "Xueguang"), ("Amato", "Christopher")]
TWO = ("Liu, Shuo", "Liang, Zeyu")


@pytest.mark.parametrize(
    ("paper", "sources", "changes", "left"),
    [
        # a preprint: the latest arXiv version is the version of record
        (
            _paper("arXiv", TWO),
            {"arxiv": _arxiv(FIVE)},
            [("authors", 5, "arXiv, the latest version")],
            [],
        ),
        # a published paper: the published version's four authors, though arXiv now lists five
        (
            _paper("AAAI 2026", tuple(f"{f}, {g}" for f, g in [*FOUR_CROSSREF, ("Chen", "Tianle")])),
            {"arxiv": _arxiv(FIVE), "crossref": _crossref(FOUR_CROSSREF)},
            [("authors", 4, "Crossref, the published version")],
            [],
        ),
        # a published paper no source lists the published authors of: left alone, and said so
        (
            _paper("AAAI 2026", TWO),
            {"arxiv": _arxiv(FIVE)},
            [],
            [
                "authors not compared: AAAI 2026 is the version of record, and neither Crossref nor DBLP lists its authors"
            ],
        ),
        # the venue moves with its BibTeX: written as venues.yaml writes it, the preprint's journal
        # dropped; the year stays; the published version's authors then count
        (
            _paper("arXiv", TWO, {"journal": "arXiv preprint arXiv:2501.00001", "pages": "1--9"}),
            {"arxiv": _arxiv(FIVE, "The Thirteenth International Conference on Learning Representations, 2025")},
            [("venue", "ICLR 2025", "arXiv journal_ref"), ("bibtex", {"pages": "1--9"}, "arXiv journal_ref")],
            [
                "authors not compared: ICLR 2025 is the version of record, and neither Crossref nor DBLP lists its authors"
            ],
        ),
        # a submission that was then published
        (
            _paper("arXiv (ICLR 2026 submitted)", TWO),
            {"arxiv": _arxiv(list(TWO), "ICLR 2026")},
            [("venue", "ICLR 2026", "arXiv journal_ref")],
            [
                "authors not compared: ICLR 2026 is the version of record, and neither Crossref nor DBLP lists its authors"
            ],
        ),
        # a venue the registry does not know is not proposed
        (
            _paper("arXiv", TWO),
            {"arxiv": _arxiv(list(TWO), "Journal of Irreproducible Results 12 (2025)")},
            [],
            [
                "arXiv journal_ref 'Journal of Irreproducible Results 12 (2025)' names no venue of the registry; "
                "set venue by hand if it is one"
            ],
        ),
        # a published venue is never moved again
        (
            _paper("ICLR 2025", TWO),
            {"arxiv": _arxiv(list(TWO), "ICML 2026")},
            [],
            [
                "authors not compared: ICLR 2025 is the version of record, and neither Crossref nor DBLP lists its authors"
            ],
        ),
    ],
)
def test_refresh_proposes_the_version_of_record(
    paper: Any, sources: dict[str, Any], changes: list[tuple[str, Any, str]], left: list[str]
) -> None:
    from masrl.corpus._venues import read_venues
    from masrl.corpus._vocab import load_taxonomy
    from masrl.living._facts import Sources, proposals

    venues = read_venues(REPO, load_taxonomy(REPO))[0]
    s = Sources(**sources)
    found = proposals(paper, s, venues)
    assert [(c.field, len(c.new) if c.field == "authors" else c.new, c.source) for c in found] == changes
    assert s.notes == left


def test_refresh_diff_shows_the_bibtex_a_venue_move_brings() -> None:
    from masrl.corpus._venues import read_venues
    from masrl.corpus._vocab import load_taxonomy
    from masrl.living._facts import Sources, proposals
    from masrl.living.refresh import diff_text

    venues = read_venues(REPO, load_taxonomy(REPO))[0]
    paper = _paper("arXiv", TWO, {"journal": "arXiv preprint arXiv:2501.00001", "pages": "1--9"})
    changes = proposals(paper, Sources(arxiv=_arxiv(list(TWO), "ICLR 2025")), venues)
    assert diff_text(paper, changes, venues) == (
        "papers/p.yaml\n"
        "  venue: arXiv -> ICLR 2025  (arXiv journal_ref)\n"
        "    BibTeX: @article, journal 'arXiv preprint arXiv:2501.00001', year 2025 -> @inproceedings, booktitle "
        "'International Conference on Learning Representations (ICLR)', year 2025\n"
    )


@pytest.mark.parametrize("clock", ["2026-12-01", "2026-12-02", "2027-06-30"])
def test_discover_starts_where_the_protocol_stood_on_the_last_day_of_the_window(
    living: Path, services: Services, run_cli: Any, monkeypatch: pytest.MonkeyPatch, clock: str
) -> None:
    # round-2 closes on 2026-12-01: a run for that day (as the weekly job passes --until) starts
    # after round-1, whatever day the machine's clock shows
    import datetime as dt

    from masrl.living import discover

    class Clock(dt.date):
        @classmethod
        def today(cls) -> dt.date:
            return dt.date.fromisoformat(clock)

    import types

    monkeypatch.setattr(discover, "dt", types.SimpleNamespace(date=Clock, datetime=dt.datetime, timedelta=dt.timedelta))
    result = run_cli("discover", "--dry-run", "--until", "2026-12-01")
    assert result.exit_code == 0, result.output
    assert "from 2026-05-04 to 2026-12-01" in result.stderr


# ---------------------------------------------------------------------------------------------
# refresh --stale: the records still on arXiv after some months


@pytest.mark.parametrize(
    ("venue", "arxiv", "year", "today", "months", "listed"),
    [
        # the month of the arXiv id counts
        ("arXiv", "2505.01234", 2025, "2025-12-01", 6, (True, "2025-05", 7)),
        ("arXiv", "2506.01234", 2025, "2025-12-01", 6, (False, "2025-06", 6)),  # exactly six months: not more
        ("arXiv", "2506.01234", 2025, "2025-12-01", 0, (True, "2025-06", 6)),
        # an old-style id, of the 1990s and of the 2000s
        ("arXiv", "cs/9912001", 1999, "2001-01-15", 12, (True, "1999-12", 13)),
        ("arXiv", "cs/0601001", 2006, "2006-06-30", 6, (False, "2006-01", 5)),
        # no arXiv id: January of the year of first appearance
        ("OpenReview (ICLR 2026 submission)", None, 2025, "2025-08-01", 6, (True, "2025-01", 7)),
        # a published venue, a workshop and the web are not on arXiv
        ("ICLR 2025", "2410.01234", 2024, "2026-12-01", 6, None),
        ("ICML 2024 Workshop", "2404.01234", 2024, "2026-12-01", 6, None),
        ("Blog Post", None, 2024, "2026-12-01", 6, None),
    ],
)
def test_a_record_is_stale_when_still_on_arxiv_more_than_months_after_it_appeared(
    venue: str, arxiv: str | None, year: int, today: str, months: int, listed: tuple[bool, str, int] | None
) -> None:
    import dataclasses

    from masrl.corpus._venues import read_venues
    from masrl.corpus._vocab import load_taxonomy
    from masrl.living._facts import first_month, stale

    paper = dataclasses.replace(_paper(venue, TWO), arxiv=arxiv, year=year)
    found = stale([paper], read_venues(REPO, load_taxonomy(REPO))[0], months, today)
    if listed is None:
        assert found == []
        return
    is_stale, since, age = listed
    assert f"{first_month(paper)[0]:04d}-{first_month(paper)[1]:02d}" == since
    assert [(s.since, s.months) for s in found] == ([(since, age)] if is_stale else [])


def _preprint(root: Path, key: str, arxiv: str) -> None:
    """A copy of alpha (synthetic) under *key* with another arXiv id."""
    text = (root / "papers" / "alpha.yaml").read_text("utf-8")
    text = text.replace("key: alpha", f"key: {key}").replace("2501.00001", arxiv).replace("Alpha |", f"{key} |")
    (root / "papers" / f"{key}.yaml").write_text(text, "utf-8")


def test_refresh_stale_list_names_the_records_oldest_first_and_asks_no_service(
    living: Path, run_cli: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Arrange: two more preprints, of May and October 2026; no service is reachable
    _preprint(living, "epsilon", "2605.01234")
    _preprint(living, "zeta", "2610.01234")
    from masrl.living import _net

    def no_client(*args: Any) -> None:
        raise AssertionError("--list must ask no service")

    monkeypatch.setattr(_net, "Client", no_client)
    # Act
    result = run_cli("refresh", "--stale", "6", "--list", "--today", "2026-12-01")
    # Assert
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines() == [
        "papers/alpha.yaml: arXiv since 2025-01, 23 months; never checked",
        "papers/epsilon.yaml: arXiv since 2026-05, 7 months; never checked",
    ]
    assert result.stderr == (
        "2 records still on arXiv or under submission after 6 months (on 2026-12-01); 2 never checked in the proceedings\n"
    )


def test_refresh_stale_rechecks_only_the_stale_records(living: Path, services: Services, run_cli: Any) -> None:
    _preprint(living, "zeta", "2610.01234")  # two months old: not rechecked
    result = run_cli("refresh", "--stale", "6", "--today", "2026-12-01")
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith("papers/alpha.yaml\n  venue: arXiv -> ICML 2026  (arXiv journal_ref)\n")
    assert "zeta" not in result.output
    assert result.stderr.splitlines()[:2] == [
        "papers/alpha.yaml: arXiv since 2025-01, 23 months; never checked: rechecked",
        "1 records still on arXiv or under submission after 6 months (on 2026-12-01); 1 never checked in the proceedings",
    ]
    assert result.stderr.splitlines()[-1] == "1 of 1 records would change"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--list",), "Error: --list lists the records --stale MONTHS selects: give --stale"),
        (("--stale", "6", "--list", "--write"), "Error: --list asks no service, so there is nothing to --write"),
        (("--unchecked-days", "30", "--list"), "Error: --list lists the records --stale MONTHS selects: give --stale"),
        (("--unchecked-days", "30"), "Error: --unchecked-days narrows the records --stale MONTHS selects: give --stale"),
        (("--stale", "6", "--unchecked-days", "-2"), "Error: Invalid value for '--unchecked-days': -2 is not in the range x>=0."),
        (("--stale", "-1"), "Error: Invalid value for '--stale': -1 is not in the range x>=0."),
        (("--stale", "6", "--today", "2026-13-01"), "Error: Invalid value for '--today': '2026-13-01' does not match the format '%Y-%m-%d'."),
    ],
)  # fmt: skip
def test_refresh_stale_refuses_what_it_cannot_do(
    living: Path, run_cli: Any, args: tuple[str, ...], message: str
) -> None:
    result = run_cli("refresh", *args)
    assert result.exit_code == 2
    assert result.stderr.splitlines()[-1] == message


def test_the_weekly_body_lists_the_records_still_on_arxiv() -> None:
    from masrl.weekly import Step, body_text

    done = Step("", "", 0)
    stale = Step("papers/alpha.yaml: arXiv since 2025-01, 23 months\n", "1 records still on arXiv\n", 0)
    body = body_text("2026-11-30", done, done, 0, stale)
    assert body.split("### Still on arXiv", 1)[1] == (
        " after 6 months (`masrl refresh --stale 6 --unchecked-days 90`)\n\n"
        "1 records still cite arXiv or a submission, though this run rechecked them, and no one compared them with "
        "the proceedings in the last 90 days; look for each in the proceedings (ACL Anthology, PMLR, OpenReview, "
        "AAAI, IJCAI) and the journals, and move its venue with a `changes` entry naming the source, or add a row "
        "to venue_checks.csv saying what you compared it with.\n\n"
        "<details><summary>1 records</summary>\n\n```\npapers/alpha.yaml: arXiv since 2025-01, 23 months\n```\n\n"
        "</details>\n"
    )
