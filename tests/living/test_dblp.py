"""DBLP as a source of `masrl refresh`: its search answers read, its published versions told from
its CoRR copies, informal, withdrawn and workshop items, and the venue moves they bring.

The answers are the fixtures ``tests/fixtures/living/dblp-*.json``: made-up works in the shapes of
real DBLP answers recorded by public client libraries' tests (their README names each source).
"""

from __future__ import annotations

import dataclasses
import json
import urllib.parse
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from test_living_services import EMPTY_ARXIV, Loopback, Reply, _record, needs_recordings, recorded

from conftest import FIXTURES, REPO

SYNTHETIC = FIXTURES / "living"
VERSIONS = (SYNTHETIC / "dblp-versions.json").read_bytes()
JOURNAL = (SYNTHETIC / "dblp-journal.json").read_bytes()
EMPTY = (SYNTHETIC / "dblp-empty.json").read_bytes()
TITLE = "Orchestrators Learn to Delegate to Frozen Agent Teams"
AUTHORS = ("Example, Ada", "Sample, Bo", "Placeholder, Cy")


def _hits(body: bytes) -> Any:
    from masrl.living._dblp import read_hits
    from masrl.living._net import Answer

    return read_hits(Answer("", 200, "application/json", body, False))


def _registry() -> Any:
    from masrl.corpus._venues import read_venues
    from masrl.corpus._vocab import load_taxonomy

    return read_venues(REPO, load_taxonomy(REPO))[0]


# ---------------------------------------------------------------------------------------------
# Reading an answer


def test_every_hit_of_an_answer_is_read_in_dblps_order() -> None:
    hits = _hits(VERSIONS)
    assert [(h.key, h.venue, h.year, h.type, h.informal) for h in hits] == [
        ("journals/corr/abs-2609-44441", "CoRR", 2026, "Informal and Other Publications", True),
        ("conf/icml/ExampleSP26w", "ICML Workshop@ICML", 2026, "Conference and Workshop Papers", True),
        ("conf/icml/ExampleSPN26", "ICML", 2026, "Conference and Workshop Papers", False),
        ("journals/stvr/Namesake26", "Softw. Test., Verif. Reliab.", 2026, "Journal Articles", False),
    ]
    # titles lose DBLP's full stop; names lose DBLP's disambiguation number and are written Last, First
    assert hits[2].title == TITLE
    assert hits[2].authors == (*AUTHORS, "Newcomer, Di")
    assert hits[3].authors == ("Namesake, Ed",)  # one author: an object alone, not a list
    assert (hits[0].doi, hits[2].doi, hits[2].url) == (
        "10.48550/arxiv.2609.44441",
        None,
        "https://dblp.org/rec/conf/icml/ExampleSPN26",
    )


def test_the_older_answer_shape_with_bare_names_and_entities_is_read() -> None:
    hits = _hits(JOURNAL)
    assert [(h.title, h.authors, h.venue, h.type, h.informal) for h in hits] == [
        ("Credit Assignment in Agent Committees & Their Critics", ("Lee, Kim", "Park, Min"),
         "Trans. Mach. Learn. Res.", "Journal Articles", False),
        ("Credit Assignment in Agent Committees & Their Critics", ("Lee, Kim", "Park, Min"), "", "Withdrawn Items", True),
        ("Credit assignment in agent committees. (L'attribution du mérite dans les comités d'agents)", ("Lee, Kim",),
         "", "Books and Theses", True),
    ]  # fmt: skip


def test_an_answer_without_hits_has_none() -> None:
    assert _hits(EMPTY) == []


@pytest.mark.parametrize(
    ("body", "message"),
    [
        # synthetic: JSON of another shape
        (b'{"result": {"query": "x"}}', "DBLP answered a result without hits for a title search"),
        (b'{"hits": []}', 'DBLP answered without result for a title search ({"hits": []})'),
        # synthetic: an answer cut off in transit
        (VERSIONS[:200], "DBLP answered something that is not complete JSON for a title search"),
    ],
)
def test_an_answer_of_another_shape_is_an_error(body: bytes, message: str) -> None:
    from masrl.living._net import SourceError

    with pytest.raises(SourceError) as caught:
        _hits(body)
    assert str(caught.value).startswith(message)


@pytest.mark.parametrize(
    ("title", "q"),
    [
        (TITLE, TITLE),
        ("MAS-GPT: Training LLMs to Build <i>LLM-based</i> Multi-Agent Systems", "MAS GPT Training LLMs to Build LLM based Multi Agent Systems"),
        ("¿?", None),  # no word to search for: no request
    ],
)  # fmt: skip
def test_the_query_is_the_titles_words(title: str, q: str | None) -> None:
    from masrl.living._dblp import query_url

    url = query_url(title)
    if q is None:
        assert url is None
        return
    assert url is not None
    assert dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(url).query)) == {
        "q": q,
        "format": "json",
        "h": "10",
        "c": "0",
    }


# ---------------------------------------------------------------------------------------------
# Which hits are a published version of the record


@pytest.mark.parametrize(
    ("record", "found", "same"),
    [
        (AUTHORS, (*AUTHORS, "Newcomer, Di"), True),  # an author added in the published version
        (AUTHORS[:1], AUTHORS, True),  # a list cut short (et_al)
        (("Del Maestro, Adrian",), ("Maestro, Adrian Del",), False),  # another family name: not the same
        (AUTHORS, ("Namesake, Ed",), False),  # another person with the same title
        (AUTHORS, ("Example, Ada", "Other, Ann", "Someone, Sam", "Else, Eve"), False),  # one of four is too few
        (("OpenAI",), ("OpenAI",), True),  # a team name
        ((), AUTHORS, False),
    ],
)
def test_the_same_people_share_the_first_author_and_half_the_names(
    record: tuple[str, ...], found: tuple[str, ...], same: bool
) -> None:
    from masrl.living._dblp import same_people

    assert same_people(record, found) is same


def test_only_a_conference_or_journal_version_by_the_same_people_counts() -> None:
    from masrl.living._dblp import published_versions
    from masrl.living._facts import similar_titles

    versions = published_versions(TITLE, AUTHORS, _hits(VERSIONS), similar_titles)
    # the CoRR copy, the workshop at ICML and a namesake's journal article are left out
    assert [h.key for h in versions] == ["conf/icml/ExampleSPN26"]
    assert published_versions("Another Title Entirely", AUTHORS, _hits(VERSIONS), similar_titles) == []


# ---------------------------------------------------------------------------------------------
# What refresh proposes from DBLP


def _paper(**changes: Any) -> Any:
    from masrl.corpus._records import Paper

    base = Paper(
        key="orchestrators2026", title=TITLE, authors=AUTHORS, et_al=False, affiliation="unknown", year=2026,
        arxiv="2609.44441", doi=None, venue="arXiv", url="https://arxiv.org/abs/2609.44441", more_urls=(),
        bibtex={}, tags={}, added="2026-12-01", changes=(), strict_credit=False, subdecisions=None,
        summary="A summary.", notes=None, exceptions={}, path="papers/orchestrators2026.yaml",
    )  # fmt: skip
    return dataclasses.replace(base, **changes)


@pytest.mark.parametrize(
    ("paper", "body", "changes", "notes"),
    [
        # a conference version: the venue moves, and its authors are the version of record's
        (
            _paper(),
            VERSIONS,
            [
                ("authors", [*AUTHORS, "Newcomer, Di"], "DBLP conf/icml/ExampleSPN26, the published version"),
                ("venue", "ICML 2026", "DBLP conf/icml/ExampleSPN26"),
            ],
            [],
        ),
        # a journal version, its DBLP abbreviation read through the registry's aliases
        (
            _paper(title="Credit Assignment in Agent Committees & Their Critics", authors=("Lee, Kim", "Park, Min"), year=2024),
            JOURNAL,
            [("venue", "TMLR 2025", "DBLP journals/tmlr/LeeP25")],
            [],
        ),
        # a version in a venue the registry does not know: named in a note, never proposed
        (
            _paper(authors=("Namesake, Ed",)),
            VERSIONS,
            [],
            [
                "DBLP journals/stvr/Namesake26 places it in the journal 'Softw. Test., Verif. Reliab.' (2026), which "
                "names no venue of the registry; if that is the version of record, add the venue to venues.yaml and "
                "set venue by hand"
            ],
        ),
        # a published record is not moved, whatever DBLP lists
        (_paper(venue="ICLR 2026"), VERSIONS, [], ["authors not compared: ICLR 2026 is the version of record, and neither Crossref nor DBLP lists its authors"]),
    ],
)  # fmt: skip
def test_refresh_proposes_the_dblp_version(
    paper: Any, body: bytes, changes: list[tuple[str, Any, str]], notes: list[str]
) -> None:
    from masrl.living._dblp import published_versions
    from masrl.living._facts import Sources, proposals, similar_titles
    from masrl.living._sources import Found

    arxiv = Found("arxiv", None, "", paper.title, ["Ada Example"], "2026-09-14", "", paper.url, arxiv=paper.arxiv)
    sources = Sources(arxiv=arxiv, dblp=published_versions(paper.title, paper.authors, _hits(body), similar_titles))
    found = proposals(paper, sources, _registry())
    assert [(c.field, c.new, c.source) for c in found] == changes
    assert sources.notes == notes


# ---------------------------------------------------------------------------------------------
# Through the command line, on loopback


@pytest.fixture
def loop(monkeypatch: pytest.MonkeyPatch) -> Iterator[Loopback]:
    server = Loopback()
    for name, path in (("ARXIV", "arxiv/query"), ("OPENALEX", "openalex"), ("CROSSREF", "crossref")):
        monkeypatch.setenv(f"MASRL_{name}_API", f"{server.base}/{path}")
    monkeypatch.setenv("MASRL_DBLP_API", f"{server.base}/dblp/search/publ/api")
    yield server
    server.close()


@pytest.fixture
def quick(monkeypatch: pytest.MonkeyPatch) -> None:
    from masrl.living import _net

    monkeypatch.setattr(_net, "PACE_S", dict.fromkeys(_net.PACE_S, 0.0))
    monkeypatch.setattr(_net, "wait", lambda seconds, why: None)


@needs_recordings
def test_refresh_moves_a_preprint_to_its_dblp_venue_and_writes_it(
    small: Path, run_cli: Any, loop: Loopback, quick: None
) -> None:
    # Arrange: a preprint DBLP lists at ICML 2026 (arXiv has no entry for the made-up id)
    _record(small, "orchestrators2026", TITLE, list(AUTHORS), arxiv='arxiv: "2609.44441"', year="year: 2026")
    loop.route("/arxiv/", Reply(200, recorded(EMPTY_ARXIV), "application/atom+xml"))
    loop.route("/dblp/", Reply(200, VERSIONS))
    # Act
    shown = run_cli("refresh", "orchestrators2026")
    written = run_cli("refresh", "orchestrators2026", "--write")
    # Assert
    assert shown.exit_code == 0, shown.output
    assert shown.stdout == (
        "papers/orchestrators2026.yaml\n"
        "  authors: 3 -> 4 names  (DBLP conf/icml/ExampleSPN26, the published version)\n"
        "    + Newcomer, Di\n"
        "  venue: arXiv -> ICML 2026  (DBLP conf/icml/ExampleSPN26)\n"
        "    BibTeX: @article, journal 'arXiv preprint arXiv:2609.44441', year 2026 -> @inproceedings, booktitle "
        "'Proceedings of the International Conference on Machine Learning (ICML)', year 2026\n"
    )
    asked = loop.asked("/dblp/")[0]
    assert (asked["q"], asked["format"]) == (TITLE, "json")
    assert written.exit_code == 0, written.output
    assert run_cli("validate", "papers/orchestrators2026.yaml").exit_code == 0
    from masrl.corpus._yaml import load_path

    data = load_path(small / "papers" / "orchestrators2026.yaml").data
    assert (data["venue"], data["authors"][-1]) == ("ICML 2026", "Newcomer, Di")
    assert run_cli("refresh", "orchestrators2026").stdout == ""  # DBLP is not asked about a published record


@needs_recordings
@pytest.mark.parametrize(
    ("reply", "note"),
    [
        # synthetic: an HTML error page, as a proxy in front of DBLP sends it
        (
            Reply(500, b"<html><head><title>dblp: internal error</title></head></html>", "text/html"),
            "DBLP not compared: DBLP answered 500 Internal Server Error for {url}: dblp: internal error",
        ),
        # synthetic: a 200 that is not DBLP's JSON
        (Reply(200, b'{"result": {}}'), "DBLP not compared: DBLP answered a result without hits for a title search"),
    ],
)
def test_a_dblp_answer_that_cannot_be_used_is_noted_and_the_rest_still_compared(
    small: Path, run_cli: Any, loop: Loopback, quick: None, reply: Reply, note: str
) -> None:
    _record(small, "orchestrators2026", TITLE, list(AUTHORS[:1]), arxiv='arxiv: "2609.44441"', year="year: 2026")
    feed = recorded("arxiv/id_1605.08386_s0_m100_199195aa31ad.xml").replace(b"1605.08386", b"2609.44441")
    loop.route("/arxiv/", Reply(200, feed, "application/atom+xml"))  # real feed, its id changed: two authors
    loop.route("/dblp/", reply)
    result = run_cli("refresh", "orchestrators2026")
    url = f"{loop.base}/dblp/search/publ/api?" + urllib.parse.urlencode({"q": TITLE, "format": "json", "h": 10, "c": 0})
    assert result.exit_code == 1
    assert result.stdout.startswith(
        "papers/orchestrators2026.yaml\n  authors: 1 -> 2 names  (arXiv, the latest version)"
    )
    assert result.stderr.splitlines() == [
        f"papers/orchestrators2026.yaml: note: {note.format(url=url)}",
        "1 of 1 records would change",
        "Error: 1 of 1 records could not be compared in full: a source answered something unusable (see the notes "
        "above); run again later",
    ]


def test_the_dblp_fixtures_are_json() -> None:
    for path in SYNTHETIC.glob("dblp-*.json"):
        assert isinstance(json.loads(path.read_bytes())["result"]["hits"], dict), path
