"""The living corpus against the services as they really answer: failures, quirks and facts.

Real answers are replayed from the recordings beside the clone (``../shared/reference/
api-recordings/``: arXiv, OpenAlex and Crossref answers recorded by public client libraries' test
suites, sources in that folder's README); answers no one recorded (arXiv's 429 and 503, an HTML
page with status 200, a truncated body, a spurious empty page) are the synthetic fixtures of
``tests/fixtures/living/`` or are made from a real answer in the test, each marked so. Each test
names the defect of the living-corpus issue it holds fixed (1 to 13).
"""

from __future__ import annotations

import dataclasses
import http.server
import json
import threading
import urllib.parse
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from conftest import FIXTURES, REPO

RECORDINGS = REPO.parent / "shared" / "reference" / "api-recordings"
SYNTHETIC = FIXTURES / "living"
needs_recordings = pytest.mark.skipif(
    not RECORDINGS.is_dir(), reason=f"the recorded service answers are not beside the clone ({RECORDINGS})"
)
ATOM = "application/atom+xml; charset=utf-8"
JSON = "application/json"


def recorded(name: str) -> bytes:
    return (RECORDINGS / name).read_bytes()


def recorded_work(page: str, work_id: str) -> dict[str, Any]:
    """One work of a recorded OpenAlex list page."""
    works = json.loads(recorded(page))["results"]
    return next(w for w in works if w["id"].endswith("/" + work_id))


@dataclass
class Reply:
    status: int
    body: bytes
    content_type: str = JSON
    headers: dict[str, str] = field(default_factory=dict)


class Loopback:
    """A loopback server that answers each request with the next reply of the first route whose
    prefix the path starts with (the last reply repeats), else with its fallback for that prefix;
    records every path asked."""

    def __init__(self) -> None:
        self.routes: list[tuple[str, list[Reply]]] = []
        self.fallback: dict[str, Reply] = {}
        self.requests: list[str] = []
        loop = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                loop.requests.append(self.path)
                reply = loop.reply(urllib.parse.unquote(self.path))
                self.send_response(reply.status)
                self.send_header("Content-Type", reply.content_type)
                for name, value in reply.headers.items():
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(reply.body)))
                self.end_headers()
                self.wfile.write(reply.body)

            def log_message(self, *args: Any) -> None:
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.base = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def route(self, prefix: str, *replies: Reply) -> None:
        self.routes.append((prefix, list(replies)))

    def reply(self, path: str) -> Reply:
        for prefix, replies in self.routes:
            if path.startswith(prefix):
                return replies.pop(0) if len(replies) > 1 else replies[0]
        for prefix, reply in self.fallback.items():
            if path.startswith(prefix):
                return reply
        return Reply(404, b"Resource not found.", "text/plain")

    def asked(self, prefix: str) -> list[dict[str, str]]:
        """The query parameters of every request whose path starts with *prefix*."""
        return [
            dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(r).query))
            for r in self.requests
            if urllib.parse.unquote(r).startswith(prefix)
        ]

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def loop(monkeypatch: pytest.MonkeyPatch) -> Iterator[Loopback]:
    server = Loopback()
    monkeypatch.setenv("MASRL_ARXIV_API", f"{server.base}/arxiv/query")
    monkeypatch.setenv("MASRL_OPENALEX_API", f"{server.base}/openalex")
    monkeypatch.setenv("MASRL_CROSSREF_API", f"{server.base}/crossref")
    monkeypatch.setenv("MASRL_DBLP_API", f"{server.base}/dblp/search/publ/api")
    server.fallback["/dblp/"] = Reply(200, (SYNTHETIC / "dblp-empty.json").read_bytes())  # DBLP knows no title
    yield server
    server.close()


@pytest.fixture
def waits(monkeypatch: pytest.MonkeyPatch) -> list[tuple[float, str]]:
    """Every pause the network layer takes, instead of sleeping."""
    from masrl.living import _net

    taken: list[tuple[float, str]] = []
    monkeypatch.setattr(_net, "wait", lambda seconds, why: taken.append((round(seconds, 1), why)))
    return taken


@pytest.fixture
def client(tmp_path: Path) -> Iterator[Any]:
    from masrl.living._net import Client

    with Client(tmp_path / "cache") as c:
        yield c


def _paper(root: Path, key: str, **changes: Any) -> Any:
    from masrl.corpus._load import load_corpus

    paper = next(p for p in load_corpus(root).corpus.papers if p.key == key)
    return dataclasses.replace(paper, **changes)


def _feed(entries: str, total: int, start: int = 0) -> bytes:
    """An arXiv API page in the shape of the real ones (synthetic)."""
    return f"""<?xml version='1.0' encoding='UTF-8'?>
<feed xmlns:opensearch="http://a9.com/-/spec/opensearch/1.1/" xmlns:arxiv="http://arxiv.org/schemas/atom" xmlns="http://www.w3.org/2005/Atom">
  <id>https://arxiv.org/api/synthetic</id>
  <title>arXiv Query: synthetic</title>
  <opensearch:itemsPerPage>10</opensearch:itemsPerPage>
  <opensearch:totalResults>{total}</opensearch:totalResults>
  <opensearch:startIndex>{start}</opensearch:startIndex>
{entries}</feed>
""".encode()


def _entry(arxiv: str, title: str, published: str = "2026-06-01", authors: tuple[str, ...] = ("Ada Example",)) -> str:
    names = "".join(f"<author><name>{a}</name></author>" for a in authors)
    return (
        f"<entry><id>http://arxiv.org/abs/{arxiv}</id><title>{title}</title>"
        f"<published>{published}T00:00:00Z</published><summary>An abstract.</summary>{names}</entry>\n"
    )


# ---------------------------------------------------------------------------------------------
# 1. Only answers that were read are cached; `masrl cache clear`; stale-cache hints


def _feed_reader(answer: Any) -> Any:
    from masrl.living._sources import parse_arxiv_feed

    return parse_arxiv_feed(answer.body, None, "q", content_type=answer.content_type)


@pytest.mark.parametrize(
    ("bad", "message"),
    [
        # synthetic: an HTML page with status 200, as a proxy or a maintenance page sends
        (
            Reply(200, (SYNTHETIC / "html-200.html").read_bytes(), "text/html"),
            "answered a web page instead of an Atom feed",
        ),
        # synthetic: a real feed's first 300 bytes, a body cut off in transit
        (Reply(200, (FIXTURES / "arxiv" / "2410.08115.xml").read_bytes()[:300], ATOM), "is not safe, valid XML"),
    ],
)
def test_an_answer_that_does_not_read_is_not_cached(loop: Loopback, client: Any, bad: Reply, message: str) -> None:
    from masrl.living._net import SourceError

    good = (FIXTURES / "arxiv" / "2410.08115.xml").read_bytes()
    loop.route("/arxiv/", bad, Reply(200, good, ATOM))
    url = f"{loop.base}/arxiv/query?id_list=2410.08115"
    # Act
    with pytest.raises(SourceError, match=message):
        client.fetch(url, "arxiv", _feed_reader)
    first = client.fetch(url, "arxiv", _feed_reader)  # asked again: the bad answer was not kept
    again = client.fetch(url, "arxiv", _feed_reader)  # now from the cache
    # Assert
    assert len(loop.requests) == 2
    assert first.entries[0].arxiv == again.entries[0].arxiv == "2410.08115"
    assert client.from_cache == 1


def test_a_cached_answer_that_no_longer_reads_says_to_clear_the_cache(loop: Loopback, client: Any) -> None:
    from masrl.living._net import SourceError

    loop.route("/arxiv/", Reply(200, (FIXTURES / "arxiv" / "2410.08115.xml").read_bytes(), ATOM))
    url = f"{loop.base}/arxiv/query?id_list=2410.08115"
    client.fetch(url, "arxiv", _feed_reader)

    def stricter(answer: Any) -> Any:
        raise SourceError("the answer lacks a field this version reads")

    with pytest.raises(SourceError) as caught:
        client.fetch(url, "arxiv", stricter)
    assert str(caught.value) == (
        "the answer lacks a field this version reads (an answer kept from an earlier run: "
        "run `masrl cache clear` to drop the answers kept in .masrl-cache/)"
    )


def test_cache_clear_empties_the_cache(small: Path, run_cli: Any, loop: Loopback) -> None:
    from masrl.living._net import CACHE_DIR, Client

    loop.route("/arxiv/", Reply(200, (FIXTURES / "arxiv" / "2410.08115.xml").read_bytes(), ATOM))
    with Client(small / CACHE_DIR) as c:
        c.fetch(f"{loop.base}/arxiv/query?id_list=2410.08115", "arxiv", _feed_reader)
    # Act
    cleared = run_cli("cache", "clear")
    again = run_cli("cache", "clear")
    # Assert
    assert cleared.exit_code == 0, cleared.output
    assert cleared.stdout.startswith("removed .masrl-cache/ (1 files, ")
    assert not (small / CACHE_DIR).exists()
    assert again.stdout == ".masrl-cache/ holds nothing; nothing to clear\n"


# ---------------------------------------------------------------------------------------------
# 2. Only an Atom feed of the API counts as a feed


@pytest.mark.parametrize(
    ("body", "content_type", "message"),
    [
        # synthetic: an HTML page with status 200
        (
            (SYNTHETIC / "html-200.html").read_bytes(),
            "text/html",
            "the arXiv API answered a web page instead of an Atom feed ('arXiv is down for maintenance')",
        ),
        # synthetic: well-formed XML that is not an Atom feed
        (
            b"<?xml version='1.0'?><rss><channel/></rss>",
            "application/xml",
            "the arXiv API answer is not an Atom feed (its root element is <rss>)",
        ),
        # synthetic: an Atom feed without the API's result count
        (
            b"<feed xmlns='http://www.w3.org/2005/Atom'></feed>",
            ATOM,
            "the arXiv API answer has no result count (totalResults is 'missing')",
        ),
    ],
)
def test_only_an_atom_feed_of_the_api_is_read(body: bytes, content_type: str, message: str) -> None:
    from masrl.living._sources import SourceError, parse_arxiv_feed

    with pytest.raises(SourceError) as caught:
        parse_arxiv_feed(body, None, "q", content_type=content_type)
    assert str(caught.value) == message


def test_add_says_the_api_sent_a_web_page_not_that_the_paper_is_missing(
    small: Path, run_cli: Any, loop: Loopback
) -> None:
    loop.route("/arxiv/", Reply(200, (SYNTHETIC / "html-200.html").read_bytes(), "text/html; charset=utf-8"))
    result = run_cli("add", "--arxiv", "2410.08115")
    assert (result.exit_code, result.stderr) == (
        1,
        "Error: the arXiv API answered a web page instead of an Atom feed ('arXiv is down for maintenance')\n",
    )


# ---------------------------------------------------------------------------------------------
# 3. Searches go on past spurious empty pages up to totalResults, and say when a cap cuts them


def _family(query: str = "testing") -> Any:
    from masrl.living._protocol import QueryFamily

    return QueryFamily("fam", "A family", ("testing",), query)


@needs_recordings
def test_a_spurious_empty_page_is_asked_again_and_the_search_goes_on(
    loop: Loopback, client: Any, waits: list[tuple[float, str]], monkeypatch: pytest.MonkeyPatch
) -> None:
    from masrl.living import _sources

    monkeypatch.setattr(_sources, "ARXIV_PAGE", 10)
    monkeypatch.setattr(_sources, "ARXIV_MAX", 20)
    # real pages of the search "testing" (totalResults 214,881), and between them a spurious empty
    # page, synthetic: the real page's header with no entry
    first, second = (
        recorded("arxiv/q_testing_s0_m10_bc5a6c384fe9.xml"),
        recorded("arxiv/q_testing_s10_m10_34e56e15aaac.xml"),
    )
    empty = _feed("", 214881, 10)
    loop.route(
        "/arxiv/", Reply(200, first, ATOM), Reply(200, empty, ATOM), Reply(200, empty, ATOM), Reply(200, second, ATOM)
    )
    notes: list[str] = []
    # Act
    found = list(_sources.search_arxiv(_family(), "1990-01-01", "2030-12-31", client, notes))
    # Assert
    assert [q["start"] for q in loop.asked("/arxiv/")] == ["0", "10", "10", "10"]
    assert len(found) == 20
    assert [w[0] for w in waits] == [3.0, 3.0]
    assert notes == [
        "arXiv, family fam: 214881 results, only the first 20 read (ARXIV_MAX); narrow the window with --since and --until"
    ]


@needs_recordings
def test_empty_pages_that_stay_empty_end_the_search_with_a_note(
    loop: Loopback, client: Any, waits: list[tuple[float, str]], monkeypatch: pytest.MonkeyPatch
) -> None:
    from masrl.living import _sources

    monkeypatch.setattr(_sources, "ARXIV_PAGE", 10)
    loop.route(
        "/arxiv/",
        Reply(200, recorded("arxiv/q_testing_s0_m10_bc5a6c384fe9.xml"), ATOM),
        Reply(200, _feed("", 214881, 10), ATOM),
    )
    notes: list[str] = []
    found = list(_sources.search_arxiv(_family(), "1990-01-01", "2030-12-31", client, notes))
    assert len(found) == 10
    assert len(loop.requests) == 1 + _sources.EMPTY_PAGE_RETRIES + 1
    assert notes[-1] == (
        "arXiv, family fam: the arXiv API sent an empty page at start 10 of 214881 results, 4 times; "
        "the search stopped after 10 of 214881; run again later for the rest"
    )


@needs_recordings
def test_cursor_paging_ends_on_the_empty_page_with_a_null_cursor(
    loop: Loopback, client: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    from masrl.living._sources import _pages

    # real: a page of two works with a cursor, then the empty page with next_cursor null
    loop.route(
        "/openalex/works",
        Reply(200, recorded("openalex/openalexPro/pro_snowball-3.json")),
        Reply(200, recorded("openalex/openalexPro/pro_snowball-4.json")),
    )
    notes: list[str] = []
    works = list(_pages({"filter": "openalex:W3045921891|W3046863325"}, client, "works cited by x", notes))
    assert len(works) == 2
    cursors = [q["cursor"] for q in loop.asked("/openalex/works")]
    assert cursors == ["*", json.loads(recorded("openalex/openalexPro/pro_snowball-3.json"))["meta"]["next_cursor"]]
    assert notes == []


@needs_recordings
def test_the_openalex_page_cap_is_noted(loop: Loopback, client: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    from masrl.living import _sources

    monkeypatch.setattr(_sources, "OPENALEX_MAX_PAGES", 1)
    loop.route("/openalex/works", Reply(200, recorded("openalex/openalexPro/oa_snowball-3.json")))
    notes: list[str] = []
    works = list(_sources._pages({"filter": "cites:W1"}, client, "works citing x", notes))
    assert len(works) == 5
    assert notes == ["OpenAlex, works citing x: only the first 1 pages of 100 read (OPENALEX_MAX_PAGES) of 5 works"]


# ---------------------------------------------------------------------------------------------
# 4. 429 and 503 are retried, as long as Retry-After says; what was gathered is kept


RATE_EXCEEDED = (SYNTHETIC / "arxiv-429.txt").read_bytes()  # synthetic: arXiv's 429 body as issues quote it


def test_a_503_is_retried_after_the_wait_the_service_asks(
    loop: Loopback, client: Any, waits: list[tuple[float, str]]
) -> None:
    good = (FIXTURES / "arxiv" / "2410.08115.xml").read_bytes()
    loop.route(
        "/arxiv/",
        Reply(503, RATE_EXCEEDED, "text/plain", {"Retry-After": "7"}),
        Reply(429, RATE_EXCEEDED, "text/plain"),
        Reply(200, good, ATOM),
    )
    page = client.fetch(f"{loop.base}/arxiv/query?id_list=2410.08115", "arxiv", _feed_reader)
    assert page.entries[0].arxiv == "2410.08115"
    assert waits == [(7.0, "answered 503 (try 1 of 5)"), (2.0, "answered 429 (try 2 of 5)")]


def test_a_429_that_outlasts_the_retries_says_when_to_run_again(
    loop: Loopback, client: Any, waits: list[tuple[float, str]]
) -> None:
    from masrl.living._net import RETRIES, NetworkError

    loop.route("/arxiv/", Reply(429, RATE_EXCEEDED, "text/plain", {"Retry-After": "30"}))
    with pytest.raises(NetworkError) as caught:
        client.fetch(f"{loop.base}/arxiv/query?id_list=1", "arxiv", _feed_reader, name="arXiv")
    message = str(caught.value)
    assert message.startswith(
        f"arXiv answered 429 Too Many Requests for {loop.base}/arxiv/query?id_list=1: Rate exceeded. (after 5 tries); run again after "
    )
    assert message.endswith(" UTC")
    assert caught.value.transient
    assert len(loop.requests) == RETRIES + 1
    assert [w[0] for w in waits] == [30.0] * RETRIES


def test_a_retry_after_longer_than_the_bound_is_not_waited_for(
    loop: Loopback, client: Any, waits: list[tuple[float, str]]
) -> None:
    from masrl.living._net import NetworkError

    loop.route(
        "/crossref/", Reply(429, (SYNTHETIC / "crossref-429.html").read_bytes(), "text/html", {"Retry-After": "3600"})
    )
    with pytest.raises(NetworkError) as caught:
        client.fetch(f"{loop.base}/crossref/works/10.1/x", "crossref", lambda a: a, name="Crossref")
    assert "Crossref answered 429 Too Many Requests" in str(caught.value)
    assert ": Too Many Requests - Crossref (after 1 tries); run again after " in str(caught.value)
    assert (len(loop.requests), waits) == (1, [])


# ---------------------------------------------------------------------------------------------
# 5 and 6. Every error shows the service's own text; a Crossref answer that is not JSON is said


@needs_recordings
@pytest.mark.parametrize(
    ("prefix", "reply", "fetch", "message"),
    [
        # real: arXiv's HTTP 400 with an error entry
        (
            "/arxiv/",
            lambda: Reply(400, recorded("arxiv/id_abc_s0_m100_b79c8dcf6bc3.xml"), ATOM),
            "arxiv",
            "arXiv answered 400 Bad Request for {base}/arxiv/query?id_list=abc: incorrect id format for abc",
        ),
        # real: OpenAlex's 400 naming the bad field (cut to one line)
        (
            "/openalex/",
            lambda: Reply(400, recorded("openalex/openalexPro/pro_snowball-0.json")),
            "openalex",
            "OpenAlex answered 400 Bad Request for {base}/openalex/works?filter=DOESNTEXIST:1: Invalid query parameters "
            "error.: DOESNTEXIST is not a valid field. Valid fields are underscore or hyphenated versions of: "
            "abstract.search, abstract.search.no_stem, apc_list.currency, apc_list.provenance, apc_list.value, apc_list.value_usd,…",
        ),
        # real: OpenAlex's 401
        (
            "/openalex/",
            lambda: Reply(401, recorded("openalex/openalexPro/pro_rate_limit_status_401-0.json")),
            "openalex",
            "OpenAlex answered 401 Unauthorized for {base}/openalex/works?filter=DOESNTEXIST:1: Invalid or missing API "
            "key: API key not found; OpenAlex may ask for a free API key: set MASRL_OPENALEX_KEY",
        ),
        # real: Crossref's 404 as plain text (an error where a 404 is not expected)
        (
            "/crossref/",
            lambda: Reply(404, recorded("crossref/test_works_bad_id_warn-0.txt"), "text/plain"),
            "crossref",
            "Crossref answered 404 Not Found for {base}/crossref/works/10.1371/notarealdoi: Resource not found.",
        ),
    ],
)
def test_errors_carry_the_services_own_text(
    loop: Loopback, client: Any, prefix: str, reply: Callable[[], Reply], fetch: str, message: str
) -> None:
    from masrl.living._net import NetworkError

    loop.route(prefix, reply())
    path = {
        "arxiv": "/arxiv/query?id_list=abc",
        "openalex": "/openalex/works?filter=DOESNTEXIST:1",
        "crossref": "/crossref/works/10.1371/notarealdoi",
    }[fetch]
    name = {"arxiv": "arXiv", "openalex": "OpenAlex", "crossref": "Crossref"}[fetch]
    with pytest.raises(NetworkError) as caught:
        client.fetch(loop.base + path, fetch, lambda a: a, name=name)
    assert str(caught.value) == message.format(base=loop.base)
    assert not caught.value.transient


@needs_recordings
def test_a_crossref_404_means_crossref_does_not_know_the_doi(loop: Loopback, client: Any) -> None:
    from masrl.living._facts import crossref_work

    loop.route("/crossref/", Reply(404, recorded("crossref/test_works_bad_id_warn-0.txt"), "text/plain"))
    missing = crossref_work("10.1371/notarealdoi", client)
    assert str(missing) == "Crossref answered 404: Resource not found."


@pytest.mark.parametrize(
    ("reply", "message"),
    [
        # synthetic: an HTML page with status 200
        (
            Reply(200, (SYNTHETIC / "html-200.html").read_bytes(), "text/html"),
            "Crossref answered a web page instead of JSON for DOI 10.1/x ('arXiv is down for maintenance')",
        ),
        # synthetic: a JSON body cut off in transit
        (
            Reply(200, b'{"status": "ok", "message": {"DOI": "10.1/x", "tit'),
            "Crossref answered something that is not complete JSON for DOI 10.1/x (Unterminated string",
        ),
        # synthetic: JSON of another shape
        (Reply(200, b'{"status": "ok"}'), 'Crossref answered without message for DOI 10.1/x ({"status": "ok"})'),
    ],
)
def test_a_crossref_answer_that_is_not_its_json_is_an_error(
    loop: Loopback, client: Any, reply: Reply, message: str
) -> None:
    from masrl.living._facts import crossref_work
    from masrl.living._net import SourceError

    loop.route("/crossref/", reply)
    with pytest.raises(SourceError) as caught:
        crossref_work("10.1/x", client)
    assert str(caught.value).startswith(message)


# ---------------------------------------------------------------------------------------------
# 7. Names keep their particles and suffixes; a different split is no change


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        # particles (the first is a real arXiv author; the others as the issue lists them)
        ("Adrian Del Maestro", "Del Maestro, Adrian"),
        ("Peter H. N. de With", "de With, Peter H. N."),
        ("Tim van der Putten", "van der Putten, Tim"),
        ("Marcos de Oliveira Neves", "de Oliveira Neves, Marcos"),
        # suffixes, in BibTeX's order
        ("Donald Hora Jr.", "Hora, Jr., Donald"),
        ("Mark Smith III", "Smith, III, Mark"),
        # left as they are
        ("Del Maestro, Adrian", "Del Maestro, Adrian"),
        ("OpenAI", "OpenAI"),
    ],
)
def test_names_are_split_with_their_particles_and_suffixes(name: str, expected: str) -> None:
    from masrl.living._text import last_first

    assert last_first(name) == expected


@needs_recordings
def test_crossref_given_family_and_suffix_make_the_name() -> None:
    from masrl.living._facts import crossref_authors

    jr = json.loads(recorded("crossref/test_works_with_many_ids-1.json"))["message"]  # real: "Jr."
    family_only = json.loads(recorded("crossref/test_works_with_many_ids-4.json"))["message"]  # real: family only
    assert "Hora, Jr., Donald" in crossref_authors(jr)
    assert crossref_authors(family_only) == ["Stravopodis"]


@needs_recordings
def test_refresh_proposes_nothing_when_only_the_split_differs(small: Path) -> None:
    from masrl.living._facts import Sources, proposals
    from masrl.living._sources import parse_arxiv_feed

    # real: an arXiv entry by Adrian Del Maestro (author search for "del_maestro", old API format)
    page = parse_arxiv_feed(recorded("arxiv-2016/search_query=au_del_maestro.xml"), None, "au")
    entry = page.entries[0]
    split_wrong = [f"{n.split()[-1]}, {' '.join(n.split()[:-1])}" for n in entry.authors]  # "Maestro, Adrian Del"
    paper = _paper(small, "gamma", authors=tuple(split_wrong), arxiv=entry.arxiv, doi=entry.doi, venue="Workshop")
    # Act
    changes = proposals(paper, Sources(arxiv=dataclasses.replace(entry, comment="")))
    # Assert
    assert "Adrian Del Maestro" in entry.authors
    assert [c.field for c in changes] == []


def test_a_longer_list_keeps_the_records_spelling_of_people_it_names(small: Path) -> None:
    from masrl.living._facts import Sources, proposals
    from masrl.living._sources import Found

    entry = Found(
        "arxiv", None, "q", "T", ["Adrian Del Maestro", "Ann Other"], "2026-01-01", "", "u", arxiv="2601.00001"
    )
    # a preprint, so the latest arXiv version is the version of record
    paper = _paper(small, "gamma", authors=("Maestro, Adrian Del",), arxiv="2601.00001", venue="arXiv")
    changes = proposals(paper, Sources(arxiv=entry))
    assert [(c.field, c.new) for c in changes] == [("authors", ["Maestro, Adrian Del", "Other, Ann"])]


# ---------------------------------------------------------------------------------------------
# 8. journal_ref goes through the venue registry, or becomes a note


@pytest.mark.parametrize(
    ("journal_ref", "venue"),
    [
        ("Phys. Rev. B 85, 115117 (2012)", None),  # real (arXiv 1111.2011): no registry venue
        ("Accepted at ICML 2024", "ICML 2024"),
        ("Proceedings of the 41st International Conference on Machine Learning, PMLR 235, 2024", "ICML 2024"),
        ("Findings of the Association for Computational Linguistics: ACL 2024", "Findings of ACL 2024"),
        ("Transactions on Machine Learning Research (2025)", "TMLR"),
        ("ICML 2024 Workshop on Agents", None),  # a workshop is not the conference
        ("Nature Machine Intelligence 5, 2023", None),  # another journal than Nature
        ("Submitted to ICLR 2026", None),
        ("ICML", None),  # no year
    ],
)
def test_a_journal_reference_maps_to_a_registry_venue_or_to_nothing(journal_ref: str, venue: str | None) -> None:
    from masrl.living._venue import match_venue

    match = match_venue(journal_ref)
    assert (match.venue if match else None) == venue


def test_the_registry_is_an_input() -> None:
    from masrl.living._venue import VenueName, match_venue

    registry = [VenueName("PRB", ("Phys. Rev. B", "Physical Review B"), dated=False)]
    assert match_venue("Phys. Rev. B 85, 115117 (2012)", registry) is not None
    assert match_venue("Accepted at ICML 2024", registry) is None


@needs_recordings
def test_refresh_never_copies_a_journal_reference_into_venue(small: Path) -> None:
    from masrl.living._facts import Sources, proposals
    from masrl.living._sources import parse_arxiv_feed

    entry = parse_arxiv_feed(recorded("arxiv-2016/id_list=1111.2011v2.xml"), None, "id_list").entries[0]
    paper = _paper(small, "alpha", arxiv=entry.arxiv, doi="10.1103/physrevb.85.115117")
    sources = Sources(arxiv=entry)
    changes = proposals(paper, sources)
    assert entry.journal_ref == "Phys. Rev. B 85, 115117 (2012)"
    assert "venue" not in [c.field for c in changes]
    assert sources.notes == [
        "arXiv journal_ref 'Phys. Rev. B 85, 115117 (2012)' names no venue of the registry; set venue by hand if it is one"
    ]


@needs_recordings
def test_add_keeps_arxiv_as_venue_and_notes_an_unknown_journal_reference(
    small: Path, run_cli: Any, loop: Loopback
) -> None:
    loop.route("/arxiv/", Reply(200, recorded("arxiv-2016/id_list=1111.2011v2.xml"), ATOM))
    result = run_cli("add", "--arxiv", "1111.2011", "--dry-run")
    assert result.exit_code == 0, result.output
    assert "venue: arXiv" in result.stdout.splitlines()
    assert result.stderr.startswith(
        "note: arXiv 1111.2011: journal_ref 'Phys. Rev. B 85, 115117 (2012)' names no venue"
    )


# ---------------------------------------------------------------------------------------------
# 9. Markup and entities are stripped from titles, venues and URLs


@needs_recordings
def test_titles_and_urls_lose_their_markup_and_entities() -> None:
    from masrl.living._sources import work_found

    markup = work_found(recorded_work("openalex/openalexPro/oa_snowball-5.json", "W2091406001"), None, "q")
    amp = recorded_work("openalex/openalexPro/oa_snowball-5.json", "W618607536")  # real: &amp; in its landing page
    landing = [amp["primary_location"]["landing_page_url"]]
    amp["doi"] = None  # so that the landing page is the work's URL
    cleaned = work_found(amp, None, "q")
    assert markup is not None
    assert cleaned is not None
    assert markup.title.startswith("Tests for departure from normality. Empirical results for the distributions of b2 ")
    assert "&amp;" in landing[0]
    assert cleaned.url == landing[0].replace("&amp;", "&")


@needs_recordings
def test_a_crossref_title_with_jats_markup_matches_the_plain_title() -> None:
    from masrl.living._facts import crossref_title, similar_titles

    message = json.loads(recorded("crossref/test_workscontainer_with_two_ids-0.json"))["message"]  # real: <i>KRAS</i>
    title = crossref_title(message)
    assert "<i>" not in title
    assert "KRAS" in title
    assert similar_titles(message["title"][0], title)


@pytest.mark.parametrize(
    ("raw", "clean"),
    [
        ("Big Data &amp; Society", "Big Data & Society"),  # synthetic, as the issue quotes it
        ("Big Data &amp;amp; Society", "Big Data & Society"),  # escaped twice
        ("<jats:title>E. <jats:italic>coli</jats:italic></jats:title>", "E. coli"),
        ("a x<y formula", "a x<y formula"),  # a bare "<" is not markup
    ],
)
def test_clean_strips_markup_and_entities(raw: str, clean: str) -> None:
    from masrl.living._text import clean as clean_text

    assert clean_text(raw) == clean


def test_a_venue_the_registry_does_not_know_is_named_clean_in_a_note(small: Path) -> None:
    from masrl.living._facts import Sources, proposals

    # synthetic: Crossref's container title with an escaped ampersand, as the issue quotes it
    crossref = {
        "type": "journal-article",
        "container-title": ["Big Data &amp; Society"],
        "issued": {"date-parts": [[2024, 2]]},
    }
    paper = _paper(small, "gamma", venue="arXiv")
    sources = Sources(crossref=crossref)
    changes = proposals(paper, sources)
    assert [c.field for c in changes if c.field == "venue"] == []
    assert sources.notes == [
        "Crossref places it in the journal 'Big Data & Society' (2024), which names no venue of the registry; "
        "if that is the version of record, add the venue to venues.yaml and set venue by hand"
    ]


# ---------------------------------------------------------------------------------------------
# 10. An OpenAlex DOI is taken only when Crossref agrees on the title


@needs_recordings
@pytest.mark.parametrize("agrees", [False, True])
def test_an_openalex_doi_needs_crossrefs_title(small: Path, loop: Loopback, client: Any, agrees: bool) -> None:
    from masrl.living._facts import proposals, sources_of

    # real: OpenAlex's word2vec work, which carries an unrelated 2025 data-set DOI
    word2vec = recorded_work("openalex/openalexPro/oa_snowball-5.json", "W2153579005")
    loop.route("/openalex/works/", Reply(200, json.dumps(word2vec).encode()))
    if agrees:  # synthetic: a Crossref record whose title is the paper's
        loop.route(
            "/crossref/",
            Reply(200, json.dumps({"status": "ok", "message": {"title": [word2vec["display_name"]]}}).encode()),
        )
    else:  # real: Crossref's 404 for a DOI it does not know
        loop.route("/crossref/", Reply(404, recorded("crossref/test_works_bad_id_warn-0.txt"), "text/plain"))
    paper = _paper(small, "gamma", title=word2vec["display_name"], arxiv="1310.4546", doi=None)
    # Act
    sources = sources_of(paper, {}, client)
    changes = proposals(paper, sources)
    # Assert
    dois = [c.new for c in changes if c.field == "doi"]
    assert dois == (["10.57702/kcdhx0zi"] if agrees else [])
    if not agrees:
        assert sources.notes == [
            "OpenAlex gives DOI 10.57702/kcdhx0zi, but Crossref does not know it (Crossref answered 404: "
            "Resource not found.); left out"
        ]


# ---------------------------------------------------------------------------------------------
# 11. Every loop is bounded: a feed whose startIndex never moves on


def test_a_feed_whose_start_index_never_moves_on_stops(
    loop: Loopback, client: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    from masrl.living import _sources

    monkeypatch.setattr(_sources, "ARXIV_PAGE", 2)
    # synthetic: every page says startIndex 0 and holds the same two entries, of 100 results
    page = _feed(_entry("2606.00001v1", "One") + _entry("2606.00002v1", "Two"), 100, 0)
    loop.route("/arxiv/", Reply(200, page, ATOM))
    notes: list[str] = []
    found = list(_sources.search_arxiv(_family(), "2026-01-01", "2026-12-31", client, notes))
    assert [f.arxiv for f in found] == ["2606.00001", "2606.00002"]
    assert len(loop.requests) == 2
    assert notes == ["arXiv, family fam: asked for start 2, the page says 0; the search stopped"]


# ---------------------------------------------------------------------------------------------
# 12. Empty titles are refused; queue ids never collide


@needs_recordings
def test_works_without_a_title_are_left_out_with_a_note(loop: Loopback, client: Any) -> None:
    from masrl.living._sources import parse_arxiv_feed, work_found

    empty = recorded_work("openalex/openalexPro/oa_snowball-5.json", "W2963341956")  # real: display_name ""
    none = json.loads(recorded("openalex/openalexPro/api_call_200-0.json"))  # real: display_name null
    zero = parse_arxiv_feed(recorded("arxiv/id_2104.12255v1_s0_m100_6ae69987ffe1.xml"), None, "q")  # real: title "0"
    untitled = parse_arxiv_feed(_feed(_entry("2606.00003v1", " "), 1), None, "q")  # synthetic
    assert (work_found(empty, None, "q"), work_found(none, None, "q")) == (None, None)
    assert [e.title for e in zero.entries] == ["0"]
    assert (untitled.entries, untitled.left_out) == ([], ["arXiv 2606.00003 has no title; left out"])


@pytest.mark.parametrize(
    ("title", "ident"),
    [
        (
            "Multi-agent sessions in the Example Agents documentation",
            "title-multi-agent-sessions-in-the-example-agents-documentation",
        ),
        ("深度强化学习的多智能体", "title-"),  # no ASCII letter: a digest
        ("Équipes d'agents", "title-equipes-d-agents-"),  # accents folded, a digest for what folding lost
        ("A" * 80, "title-" + "a" * 49 + "-"),  # cut: a digest for the rest
    ],
)
def test_title_queue_ids_are_file_names_with_a_digest_where_words_lose_something(title: str, ident: str) -> None:
    from masrl.living._sources import Found

    made = Found("manual", None, "q", title, [], "2026-01-01", "", "https://x.org").ident
    assert made.startswith(ident)
    assert len(made) <= 6 + 60
    assert made == made.strip("-")
    assert all(c.isascii() and (c.isalnum() or c == "-") for c in made)


@given(st.lists(st.text(min_size=1, max_size=90), min_size=2, max_size=12, unique_by=lambda t: " ".join(t.split())))
def test_distinct_titles_never_share_a_queue_id(titles: list[str]) -> None:
    from masrl.living._sources import Found
    from masrl.living._text import slug

    by_id: dict[str, str] = {}
    for title in titles:
        ident = Found("manual", None, "q", title, [], "2026-01-01", "", "https://x.org").ident
        other = by_id.setdefault(ident, title)
        # Two titles share an id only when both are ASCII and differ in nothing but punctuation,
        # case or spacing, which the duplicate check also takes for one title.
        assert other == title or (title.isascii() and other.isascii() and slug(title) == slug(other)), (title, other)


# ---------------------------------------------------------------------------------------------
# 13. Old-style ids lose their version in the id and the URL


@needs_recordings
@pytest.mark.parametrize(
    ("recording", "arxiv"),
    [
        ("arxiv/id_quant-ph_0201082v1_s0_m100_86989fe779ef.xml", "quant-ph/0201082"),
        ("arxiv/id_hep-ex_0406020v1_s0_m100_84b15d66c0ce.xml", "hep-ex/0406020"),
        ("arxiv/id_astro-ph_0601001_s0_m100_3150dca9dc76.xml", "astro-ph/0601001"),
    ],
)
def test_old_style_ids_lose_their_version(recording: str, arxiv: str) -> None:
    from masrl.living._arxiv import parse

    candidate = parse(recorded(recording), arxiv)
    assert (candidate.arxiv, candidate.url) == (arxiv, f"https://arxiv.org/abs/{arxiv}")


def test_an_old_style_id_with_a_v_in_its_archive_loses_its_version() -> None:
    from masrl.living._arxiv import parse

    # synthetic: solv-int, an archive whose name holds a "v"
    candidate = parse(_feed(_entry("solv-int/9901001v2", "Solitons"), 1), "solv-int/9901001")
    assert (candidate.arxiv, candidate.url) == ("solv-int/9901001", "https://arxiv.org/abs/solv-int/9901001")


# ---------------------------------------------------------------------------------------------
# Facts: the date window, select=, the year from issued


def test_the_date_window_is_enforced_on_each_works_own_date(loop: Loopback, client: Any) -> None:
    from masrl.living._sources import search_arxiv

    # synthetic: a service that ignores the window and sends a work from 2025
    page = _feed(_entry("2606.00001v1", "In", "2026-06-01") + _entry("2501.00009v1", "Out", "2025-01-09"), 2)
    loop.route("/arxiv/", Reply(200, page, ATOM))
    found = list(search_arxiv(_family(), "2026-05-04", "2026-12-01", client, []))
    assert [f.arxiv for f in found] == ["2606.00001"]


@needs_recordings
def test_openalex_is_asked_only_for_the_fields_used(loop: Loopback, client: Any) -> None:
    from masrl.living._sources import OPENALEX_CORE_FIELDS, OPENALEX_FIELDS, _pages, openalex_work

    loop.route("/openalex/works/", Reply(200, recorded("openalex/b-vitamins-W2741809807.json")))
    loop.route("/openalex/works", Reply(200, recorded("openalex/openalexPro/pro_snowball-4.json")))
    openalex_work("10.7717/peerj.4375", client)
    list(_pages({"filter": "cites:W1"}, client, "x", []))
    selects = [q.get("select") for q in loop.asked("/openalex/works")]
    assert selects == [",".join(OPENALEX_CORE_FIELDS), ",".join(OPENALEX_FIELDS)]


@needs_recordings
@pytest.mark.parametrize(
    ("recording", "year"),
    [
        ("crossref/test_workscontainer_with_two_ids-0.json", 2020),  # real: online 2020, print 2021
        ("crossref/test_works_with_many_ids-3.json", None),  # real: issued [[null]], no published
        ("crossref/test_works_with_many_ids-1.json", 1997),
    ],
)
def test_the_year_comes_from_crossrefs_issued(recording: str, year: int | None) -> None:
    from masrl.living._facts import issued_year

    assert issued_year(json.loads(recorded(recording))["message"]) == year


# ---------------------------------------------------------------------------------------------
# Facts of record (issue 32): the four defects `masrl refresh` still had on real answers

EMPTY_ARXIV = "arxiv/id_0000.0000_s0_m100_8b51d9633a68.xml"  # real: an id arXiv does not have, totalResults 0


def _record(root: Path, key: str, title: str, authors: list[str], **lines: str) -> None:
    """A paper record in *root* (synthetic, from the minimal paper of conftest) with *title*,
    *authors* and the top-level *lines* given (``arxiv="..."``; None-like "" removes a line)."""
    from conftest import PAPER_TEXT, replace_line

    text = PAPER_TEXT.replace("key: x\n", f"key: {key}\n")
    text = replace_line(text, "title", f"title: {title}")
    text = replace_line(text, "authors", "authors:\n" + "".join(f"  - {a}\n" for a in authors))
    text = text.replace("  - Doe, Jane\n", "", 1)
    for name, value in {"arxiv": "", "url": "url: https://example.org/" + key, **lines}.items():
        text = (
            replace_line(text, name, value or None)
            if f"\n{name}:" in text
            else text.replace("venue:", f"{value}\nvenue:", 1)
        )
    (root / "papers" / f"{key}.yaml").write_text(text, "utf-8")


@needs_recordings
@pytest.mark.parametrize(
    ("recording", "doi", "note"),
    [
        # real: a journal article in a journal venues.yaml does not list
        (
            "crossref/test_works_with_many_ids-1.json",
            "10.1002/jor.1100150407",
            "Crossref places it in the journal 'Journal of Orthopaedic Research' (1997), which names no venue of "
            "the registry; if that is the version of record, add the venue to venues.yaml and set venue by hand",
        ),
        # real: a workshop's proceedings (its event and its container), issued [[null]]
        (
            "crossref/test_works_with_many_ids-3.json",
            "10.1109/icdcsw.2003.1203662",
            "Crossref places it in the proceedings '23rd International Conference on Distributed Computing Systems "
            "Workshops, 2003.' / '23rd International Conference on Distributed Computing Systems Workshops, 2003. "
            "Proceedings.', which names no venue of the registry; if that is the version of record, add the venue "
            "to venues.yaml and set venue by hand",
        ),
    ],
)
def test_refresh_names_a_crossref_venue_the_registry_does_not_know(
    small: Path, run_cli: Any, loop: Loopback, recording: str, doi: str, note: str
) -> None:
    message = json.loads(recorded(recording))["message"]
    submitted = "venue: OpenReview (a submission)"  # a record without an arXiv id, not yet published
    _record(
        small, "published", message["title"][0], ["Doe, Jane"], doi=f'doi: "{doi}"', year="year: 1997", venue=submitted
    )
    loop.route("/arxiv/", Reply(200, recorded(EMPTY_ARXIV), ATOM))  # the title search finds nothing
    loop.route(f"/crossref/works/{doi}", Reply(200, recorded(recording)))
    # Act
    result = run_cli("refresh", "published")
    # Assert
    assert result.exit_code == 0, result.output
    assert result.stderr.splitlines() == [f"papers/published.yaml: note: {note}", "0 of 1 records would change"]
    assert result.stdout == ""


HEAT_BATH = "arxiv/id_1605.08386_s0_m100_199195aa31ad.xml"  # real: one entry, by two authors


def _emptied(feed: bytes) -> bytes:
    """A spurious empty page (synthetic): the real *feed*'s header, its entries cut out."""
    head, _, rest = feed.partition(b"<entry>")
    return head + rest.rpartition(b"</entry>")[2] if rest else feed


@needs_recordings
def test_refresh_asks_again_for_an_empty_arxiv_page_before_its_paging_ends(
    small: Path, run_cli: Any, loop: Loopback, waits: list[tuple[float, str]]
) -> None:
    # Arrange: the record lists one of the two authors; arXiv first sends the page without its entry
    _record(
        small,
        "heat-bath",
        "Heat-bath random walks with Markov bases",
        ["Stanley, Caprice"],
        arxiv='arxiv: "1605.08386"',
    )
    real = recorded(HEAT_BATH)
    loop.route("/arxiv/", Reply(200, _emptied(real), ATOM), Reply(200, real, ATOM))
    # Act
    result = run_cli("refresh", "heat-bath")
    # Assert
    assert result.exit_code == 0, result.output
    assert [q["start"] for q in loop.asked("/arxiv/")] == ["0", "0"]
    assert waits == [(3.0, "arXiv sent an empty page at start 0; asking again")]
    assert result.stdout == (
        "papers/heat-bath.yaml\n  authors: 1 -> 2 names  (arXiv, the latest version)\n    + Windisch, Tobias\n"
    )


@needs_recordings
def test_refresh_says_which_records_an_arxiv_page_that_stays_empty_left_uncompared(
    small: Path, run_cli: Any, loop: Loopback, waits: list[tuple[float, str]]
) -> None:
    from masrl.living._sources import EMPTY_PAGE_RETRIES

    _record(
        small,
        "heat-bath",
        "Heat-bath random walks with Markov bases",
        ["Stanley, Caprice"],
        arxiv='arxiv: "1605.08386"',
    )
    loop.route("/arxiv/", Reply(200, _emptied(recorded(HEAT_BATH)), ATOM))
    # Act
    result = run_cli("refresh", "heat-bath")
    # Assert
    assert len(loop.asked("/arxiv/")) == EMPTY_PAGE_RETRIES + 1
    assert (result.exit_code, result.stdout) == (1, "")
    assert result.stderr.splitlines() == [
        "papers/heat-bath.yaml: note: arXiv facts not compared: arXiv, ids 1605.08386: the arXiv API sent an "
        "empty page at start 0 of 1 results, 4 times; the search stopped after 0 of 1; run again later for the rest",
        "0 of 1 records would change",
        "Error: 1 of 1 records could not be compared in full: a source answered something unusable (see the notes "
        "above); run again later",
    ]


@needs_recordings
def test_refresh_shows_crossrefs_404_text_for_a_doi_it_does_not_know(small: Path, run_cli: Any, loop: Loopback) -> None:
    _record(
        small, "unknown-doi", "A paper with a mistyped DOI", ["Doe, Jane"], doi='doi: "10.1371/notarealdoi"',
        venue="venue: OpenReview (a submission)",
    )  # fmt: skip
    loop.route("/arxiv/", Reply(200, recorded(EMPTY_ARXIV), ATOM))
    loop.route("/crossref/", Reply(404, recorded("crossref/test_works_bad_id_warn-0.txt"), "text/plain"))  # real
    result = run_cli("refresh", "unknown-doi")
    assert result.exit_code == 0, result.output
    assert result.stderr.splitlines() == [
        "papers/unknown-doi.yaml: note: Crossref does not know the record's DOI 10.1371/notarealdoi (Crossref "
        "answered 404: Resource not found.); check the DOI",
        "0 of 1 records would change",
    ]


JOR = """\
  - id: jor
    name: Journal of Orthopaedic Research
    kind: journal
    forms: ["Journal of Orthopaedic Research {year}"]
    entry_type: article
    journal: Journal of Orthopaedic Research
    aliases: [Journal of Orthopaedic Research]
"""


@needs_recordings
def test_refresh_keeps_a_suffix_crossref_gives_in_the_author_name(small: Path, run_cli: Any, loop: Loopback) -> None:
    # Arrange: a record at the journal (added to this corpus's registry) whose author list spells
    # every name as Crossref does, but one without its suffix
    message = json.loads(recorded("crossref/test_works_with_many_ids-1.json"))["message"]  # real: "Jr."
    registry = small / "venues.yaml"
    registry.write_text(registry.read_text("utf-8").replace("  # Journals\n", "  # Journals\n" + JOR), "utf-8")
    names = [f"{a['family']}, {a['given']}" for a in message["author"]]
    _record(
        small, "remobilization", message["title"][0], names, doi='doi: "10.1002/jor.1100150407"',
        year="year: 1997", venue="venue: Journal of Orthopaedic Research 1997",
    )  # fmt: skip
    loop.route("/arxiv/", Reply(200, recorded(EMPTY_ARXIV), ATOM))
    loop.route("/crossref/", Reply(200, recorded("crossref/test_works_with_many_ids-1.json")))
    # Act
    shown = run_cli("refresh", "remobilization")
    written = run_cli("refresh", "remobilization", "--write")
    # Assert
    assert shown.exit_code == 0, shown.output
    assert shown.stdout == (
        "papers/remobilization.yaml\n  authors: 12 -> 12 names  (Crossref, the published version)\n"
        "    + Hora, Jr., Donald\n    - Hora, Donald\n"
    )
    assert written.exit_code == 0, written.output
    from masrl.corpus._yaml import load_path

    assert load_path(small / "papers" / "remobilization.yaml").data["authors"][8] == "Hora, Jr., Donald"
    assert run_cli("validate", "papers/remobilization.yaml").exit_code == 0
    assert run_cli("refresh", "remobilization").stdout == ""  # nothing left to change


@pytest.mark.parametrize(
    ("record", "found", "merged"),
    [
        (["Hora, Donald"], ["Hora, Jr., Donald"], ["Hora, Jr., Donald"]),  # the suffix is added
        (["Hora, Jr., Donald"], ["Hora, Donald"], ["Hora, Jr., Donald"]),  # and never taken away
        (["Hora, D."], ["Hora, Jr., Donald"], ["Hora, Jr., Donald"]),  # another spelling: the source's
        (["Del Maestro, Adrian"], ["Maestro, Adrian Del"], ["Del Maestro, Adrian"]),  # the record's split
        (["OpenAI"], ["OpenAI", "Doe, Jane"], ["OpenAI", "Doe, Jane"]),  # a team name stays
    ],
)
def test_merged_authors_keep_the_records_spelling_and_gain_suffixes(
    record: list[str], found: list[str], merged: list[str]
) -> None:
    from masrl.living._facts import merged_authors

    assert merged_authors(record, found) == merged
