"""Where candidates come from: the arXiv API, OpenAlex citation links, and lists made by hand.

* :func:`search_arxiv` runs one query family's ``arxiv_query`` through the arXiv API
  (https://info.arxiv.org/help/api/user-manual.html): an Atom feed, paged with ``start`` and
  ``max_results`` up to ``opensearch:totalResults``. The API sometimes answers an empty page in
  the middle of a result set (its manual says so, and the arXiv client library retries them);
  such a page is asked for again, up to :data:`EMPTY_PAGE_RETRIES` times, and never cached.
  Feeds are parsed with defusedxml, and an answer that is not an Atom feed (an HTML page) is refused.
* :func:`snowball_openalex` finds, for each core paper, its OpenAlex work (by DOI, or by the DOI
  arXiv gives every paper, ``10.48550/arXiv.<id>``), then the works citing it (``filter=cites:``)
  and the works it cites (``referenced_works``), paging with ``cursor`` until ``meta.next_cursor``
  is null (https://docs.openalex.org/how-to-use-the-api/get-lists-of-entities/paging), asking only
  for the fields used (``select=``).
* :func:`read_manual` reads a YAML list of candidates found by hand on public arXiv listings.

Every loop is bounded: a cap (:data:`ARXIV_MAX`, :data:`OPENALEX_MAX_PAGES`) that cuts a search
adds a note saying so, and so does a page that does not move the search on. Both services are
asked for a date window, and the window is enforced again here on each work's own date. Titles,
venues and URLs are cleaned of markup and entities; a work without a title is left out with a note.

Endpoints: ``MASRL_ARXIV_API`` and ``MASRL_OPENALEX_API`` (tests serve recorded answers on loopback);
``MASRL_OPENALEX_KEY``, if set, is sent to OpenAlex as ``api_key``.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import urllib.parse
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from masrl.base._problems import Problem, did_you_mean
from masrl.corpus._load import display_path
from masrl.corpus._records import Paper
from masrl.corpus._schema import ARXIV_PATTERN, DATE_PATTERN, DOI_PATTERN, URL_PATTERN
from masrl.corpus._yaml import YamlError, load_path
from masrl.living import _net
from masrl.living._net import Answer, Client, SourceError, looks_like_html, one_line, service_text
from masrl.living._protocol import Protocol, QueryFamily
from masrl.living._text import arxiv_id, clean, clean_url, last_first, slug

__all__ = ["Found", "SourceError"]

ARXIV_API = "https://export.arxiv.org/api/query"
OPENALEX_API = "https://api.openalex.org"
ARXIV_PAGE = 100  # entries per arXiv request
ARXIV_MAX = 2000  # entries per query family and run, at most
EMPTY_PAGE_RETRIES = 3  # a spurious empty arXiv page is asked for again this many times
EMPTY_PAGE_WAIT_S = 3.0
OPENALEX_PAGE = 100
OPENALEX_MAX_PAGES = 20  # pages per core paper and direction, at most
# The fields of an OpenAlex work that are read (select=); the core work also needs its references.
OPENALEX_FIELDS = (
    "id",
    "doi",
    "display_name",
    "authorships",
    "publication_date",
    "publication_year",
    "abstract_inverted_index",
    "primary_location",
    "locations",
    "type",
)
OPENALEX_CORE_FIELDS = (*OPENALEX_FIELDS, "referenced_works")
_ATOM = "{http://www.w3.org/2005/Atom}"
_NS = {
    "atom": "http://www.w3.org/2005/Atom",
    "arxiv": "http://arxiv.org/schemas/atom",
    "opensearch": "http://a9.com/-/spec/opensearch/1.1/",
}
_ARXIV_DOI = re.compile(r"^10\.48550/arxiv\.(.+)$", re.I)
_GITHUB = re.compile(r"https?://(?:www\.)?github\.com/[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+[A-Za-z0-9_-]")
MANUAL_MAX_BYTES = 50_000_000  # a hand-made list, or a generated one for the benchmark
MANUAL_FIELDS = ("arxiv", "doi", "title", "authors", "published", "abstract", "url", "query_family", "query")
TITLE_ID_MAX = 60  # characters of a title-made queue id before its digest


class EmptyPage(SourceError):
    """An arXiv page that is empty although the result set goes on (asked for again, never cached)."""

    def __init__(self, start: int, total: int) -> None:
        super().__init__(f"the arXiv API sent an empty page at start {start} of {total} results")
        self.start, self.total = start, total


@dataclass
class Found:
    """One candidate as a source describes it."""

    source: str  # arxiv, openalex or manual
    query_family: str | None
    query: str
    title: str
    authors: list[str]
    published: str  # YYYY-MM-DD
    abstract: str
    url: str
    arxiv: str | None = None  # without version
    doi: str | None = None  # lower case
    comment: str = ""
    journal_ref: str = ""
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def ident(self) -> str:
        """The queue id: the arXiv id, else ``doi-`` and the DOI with unsafe characters replaced,
        else ``title-`` and the title's ASCII words; a digest of the whole title is added when
        those words do not hold all of it (a cut, accents, another script), so no two titles
        share an id."""
        if self.arxiv:
            return self.arxiv.replace("/", "_")
        if self.doi:
            return "doi-" + re.sub(r"[^A-Za-z0-9.-]+", "_", self.doi)
        words = slug(self.title, limit=10_000)
        if self.title.isascii() and 0 < len(words) <= TITLE_ID_MAX:
            return "title-" + words
        digest = hashlib.sha256(" ".join(self.title.split()).encode("utf-8")).hexdigest()[:10]
        short = words[: TITLE_ID_MAX - 11].strip("-")
        return f"title-{short}-{digest}" if short else f"title-{digest}"


def code_repository(*texts: str) -> str | None:
    """The first GitHub repository URL named in *texts* (an arXiv comment, say)."""
    for text in texts:
        match = _GITHUB.search(text or "")
        if match:
            return match.group(0).removesuffix(".git")
    return None


def strip_version(arxiv: str) -> str:
    return re.sub(r"v\d+$", "", arxiv.strip())


def in_window(published: str, since: str, until: str) -> bool:
    """True when the date *published* (YYYY-MM-DD) lies in [*since*, *until*]; an unknown date is kept."""
    return not published or since <= published[:10] <= until


# ---------------------------------------------------------------------------------------------
# arXiv


@dataclass
class ArxivPage:
    """One page of an arXiv API answer."""

    entries: list[Found]
    total: int
    start: int
    left_out: list[str] = field(default_factory=list)  # why entries were left out


def _text(node: Any) -> str:
    return " ".join((node.text or "").split()) if node is not None else ""


def _int(root: Any, path: str, what: str) -> int:
    text = _text(root.find(path, _NS))
    if not text.isdigit():
        raise SourceError(f"the arXiv API answer has no {what} ({path.split(':')[-1]} is {text or 'missing'!r})")
    return int(text)


def parse_arxiv_feed(
    data: bytes, family: str | None, query: str, *, content_type: str = "", start: int | None = None
) -> ArxivPage:
    """The entries of one arXiv API page, with its ``totalResults`` and ``startIndex``.

    Raises :class:`SourceError` for anything but an Atom feed of the API (an HTML page, broken
    XML, an error entry) and, when the page asked for began at *start*, :class:`EmptyPage` for an
    empty page inside the result set.
    """
    from defusedxml import ElementTree as DET  # type: ignore[import-untyped]
    from defusedxml.common import DefusedXmlException  # type: ignore[import-untyped]

    answer = Answer("", 200, content_type, data, False)
    if looks_like_html(answer):
        raise SourceError(f"the arXiv API answered a web page instead of an Atom feed ({service_text(answer)!r})")
    try:
        root = DET.fromstring(data)
    except (DefusedXmlException, SyntaxError) as exc:  # ParseError is a SyntaxError
        raise SourceError(f"the arXiv API answer is not safe, valid XML ({exc})") from None
    if root.tag != _ATOM + "feed":
        raise SourceError(f"the arXiv API answer is not an Atom feed (its root element is <{root.tag}>)")
    out: list[Found] = []
    left_out: list[str] = []
    for entry in root.findall("atom:entry", _NS):
        entry_id = _text(entry.find("atom:id", _NS))
        found_id = arxiv_id(entry_id) if "/abs/" in entry_id else None
        if not found_id:  # the API reports errors as an entry whose id is not an abstract page
            summary = _text(entry.find("atom:summary", _NS))
            raise SourceError(f"the arXiv API refused the query {query!r}: {summary or entry_id}")
        title = clean(_text(entry.find("atom:title", _NS)))
        if not title:
            left_out.append(f"arXiv {found_id} has no title; left out")
            continue
        doi = _text(entry.find("arxiv:doi", _NS)).lower() or None
        out.append(
            Found(
                source="arxiv",
                query_family=family,
                query=query,
                title=title,
                authors=[clean(_text(a.find("atom:name", _NS))) for a in entry.findall("atom:author", _NS)],
                published=_text(entry.find("atom:published", _NS))[:10],
                abstract=clean(_text(entry.find("atom:summary", _NS))),
                url=f"https://arxiv.org/abs/{found_id}",
                arxiv=found_id,
                doi=doi,
                comment=_text(entry.find("arxiv:comment", _NS)),
                journal_ref=clean(_text(entry.find("arxiv:journal_ref", _NS))),
            )
        )
    total = _int(root, "opensearch:totalResults", "result count")
    first = _int(root, "opensearch:startIndex", "start index")
    if start is not None and not out and not left_out and start < total:
        raise EmptyPage(start, total)
    return ArxivPage(out, total, first, left_out)


def arxiv_base() -> str:
    return os.environ.get("MASRL_ARXIV_API", ARXIV_API)


def arxiv_page(client: Client, params: dict[str, Any], family: str | None, query: str, *, paged: bool) -> ArxivPage:
    """One page of the arXiv API for *params*; with *paged*, an empty page inside the result set
    is asked for again, up to :data:`EMPTY_PAGE_RETRIES` times, before :class:`EmptyPage` is raised."""
    url = f"{arxiv_base()}?{urllib.parse.urlencode(params)}"
    start = int(params.get("start", 0)) if paged else None

    def read(answer: Answer) -> ArxivPage:
        return parse_arxiv_feed(answer.body, family, query, content_type=answer.content_type, start=start)

    for attempt in range(EMPTY_PAGE_RETRIES + 1):
        try:
            return client.fetch(url, "arxiv", read, accept="application/atom+xml")
        except EmptyPage:
            if attempt == EMPTY_PAGE_RETRIES:
                raise
            _net.wait(EMPTY_PAGE_WAIT_S, f"arXiv sent an empty page at start {start}; asking again")
    raise AssertionError("unreachable")


def arxiv_paged(
    client: Client,
    params: dict[str, Any],
    what: str,
    notes: list[str],
    *,
    page_size: int,
    limit: int,
    family: str | None = None,
    query: str = "",
    cap_hint: str = "",
) -> Iterator[Found]:
    """Every entry of one arXiv API result set (*params* without ``start`` and ``max_results``),
    page by page from ``start`` 0 up to ``totalResults``, reading at most *limit* entries.

    A spurious empty page inside the result set is asked for again (:func:`arxiv_page`, as the
    arXiv client library does) before the paging ends. What cuts the set short is added to
    *notes*, each starting with *what*: a page that stays empty (how far the paging got), a page
    that does not move on, the cap *limit* (with *cap_hint* saying what to do), and entries left
    out for having no title.
    """
    start, total = 0, None
    for _ in range(limit // max(page_size, 1) + 2):  # every page moves start on, so this bound is never the cause
        if total is not None and start >= min(total, limit):
            break
        asked = {**params, "start": start, "max_results": page_size}
        try:
            page = arxiv_page(client, asked, family, query, paged=True)
        except EmptyPage as exc:
            notes.append(
                f"{what}: {exc}, {EMPTY_PAGE_RETRIES + 1} times; the search stopped after {start} of "
                f"{exc.total}; run again later for the rest"
            )
            return
        notes.extend(page.left_out)
        if page.start != start:
            notes.append(f"{what}: asked for start {start}, the page says {page.start}; the search stopped")
            return
        if total is None:
            total = page.total
            if total > limit:
                notes.append(f"{what}: {total} results, only the first {limit} read{cap_hint}")
        if not page.entries and not page.left_out:
            break  # an empty page at or past the end: nothing more
        start += len(page.entries) + len(page.left_out)
        yield from page.entries


def search_arxiv(family: QueryFamily, since: str, until: str, client: Client, notes: list[str]) -> Iterator[Found]:
    """Every arXiv entry submitted in [*since*, *until*] that the query of *family* finds.

    What cuts the search short (the cap, empty pages that stay empty, a page that does not move on)
    is added to *notes*.
    """
    if not family.arxiv_query:
        return
    window = f"submittedDate:[{since.replace('-', '')}0000 TO {until.replace('-', '')}2359]"
    query = f"({family.arxiv_query}) AND {window}"
    params = {"search_query": query, "sortBy": "submittedDate", "sortOrder": "descending"}
    seen: set[str | None] = set()
    entries = arxiv_paged(
        client,
        params,
        f"arXiv, family {family.id}",
        notes,
        page_size=ARXIV_PAGE,
        limit=ARXIV_MAX,
        family=family.id,
        query=family.arxiv_query,
        cap_hint=" (ARXIV_MAX); narrow the window with --since and --until",
    )
    for entry in entries:
        if entry.arxiv in seen or not in_window(entry.published, since, until):
            continue
        seen.add(entry.arxiv)
        yield entry


# ---------------------------------------------------------------------------------------------
# OpenAlex


def openalex_base() -> str:
    return os.environ.get("MASRL_OPENALEX_API", OPENALEX_API).rstrip("/")


def _openalex_key() -> dict[str, str]:
    """The ``api_key`` parameter when ``MASRL_OPENALEX_KEY`` holds one (OpenAlex may require it)."""
    key = os.environ.get("MASRL_OPENALEX_KEY", "").strip()
    return {"api_key": key} if key else {}


def read_json(answer: Answer, service: str, what: str, keys: tuple[str, ...]) -> dict[str, Any]:
    """The JSON object in *answer*, which must hold *keys*; :class:`SourceError` otherwise."""
    if looks_like_html(answer):
        raise SourceError(f"{service} answered a web page instead of JSON for {what} ({service_text(answer)!r})")
    try:
        data = json.loads(answer.body)
    except (ValueError, UnicodeDecodeError) as exc:
        raise SourceError(f"{service} answered something that is not complete JSON for {what} ({exc})") from None
    if not isinstance(data, dict):
        raise SourceError(f"{service} answered JSON that is not an object for {what}")
    missing = [k for k in keys if k not in data]
    if missing:
        raise SourceError(
            f"{service} answered without {', '.join(missing)} for {what} ({one_line(json.dumps(data), 120)})"
        )
    return data


def abstract_of(inverted: dict[str, list[int]] | None) -> str:
    """Plain text from OpenAlex's ``abstract_inverted_index`` (word -> positions)."""
    if not inverted or not isinstance(inverted, dict):
        return ""
    words: dict[int, str] = {}
    for word, positions in inverted.items():
        for pos in positions if isinstance(positions, list) else []:
            if isinstance(pos, int):
                words[pos] = word
    return clean(" ".join(words[i] for i in sorted(words)))


def openalex_doi(work: dict[str, Any]) -> str | None:
    """The DOI an OpenAlex work gives, lower case, without the resolver."""
    doi = str(work.get("doi") or "").strip().lower()
    return re.sub(r"^https?://(dx\.)?doi\.org/", "", doi) or None


def work_found(work: dict[str, Any], family: str | None, query: str) -> Found | None:
    """A candidate from one OpenAlex work object; None for a work without a title."""
    title = clean(str(work.get("display_name") or work.get("title") or ""))
    if not title:
        return None
    doi = openalex_doi(work)
    arxiv = None
    match = _ARXIV_DOI.match(doi or "")
    if match:
        arxiv = strip_version(match.group(1))
    for loc in work.get("locations") or []:
        landing = clean_url((loc or {}).get("landing_page_url"))
        if "arxiv.org/" in landing and not arxiv:
            arxiv = arxiv_id(landing)
    authors = [
        last_first(str((a.get("author") or {}).get("display_name") or ""))
        for a in work.get("authorships") or []
        if isinstance(a, dict) and (a.get("author") or {}).get("display_name")
    ]
    primary = work.get("primary_location") or {}
    url = f"https://doi.org/{doi}" if doi else clean_url(primary.get("landing_page_url") or work.get("id"))
    if arxiv:
        url = f"https://arxiv.org/abs/{arxiv}"
    venue = clean(str(((primary.get("source") or {}).get("display_name")) or ""))
    return Found(
        source="openalex",
        query_family=family,
        query=query,
        title=title,
        authors=authors,
        published=str(work.get("publication_date") or "")[:10],
        abstract=abstract_of(work.get("abstract_inverted_index")),
        url=url,
        arxiv=arxiv,
        doi=None if doi and _ARXIV_DOI.match(doi) else doi,
        extra={"openalex": work.get("id"), "venue": venue, "year": work.get("publication_year")},
    )


def openalex_work(doi: str, client: Client) -> dict[str, Any] | None:
    """The OpenAlex work with *doi* (with its references), or None when OpenAlex does not know it."""
    params = {"select": ",".join(OPENALEX_CORE_FIELDS), **_openalex_key()}
    url = f"{openalex_base()}/works/doi:{urllib.parse.quote(doi, safe='/.:')}?{urllib.parse.urlencode(params)}"
    return client.fetch(
        url,
        "openalex",
        lambda a: read_json(a, "OpenAlex", f"DOI {doi}", ("id",)),
        accept="application/json",
        name="OpenAlex",
        missing=lambda a: None,
    )


def _pages(base_params: dict[str, str], client: Client, what: str, notes: list[str]) -> Iterator[dict[str, Any]]:
    """Every work of an OpenAlex list, page by page with the cursor, at most OPENALEX_MAX_PAGES pages."""
    cursor: Any = "*"
    seen: set[str] = set()
    for _ in range(OPENALEX_MAX_PAGES):
        params = {
            **base_params,
            "select": ",".join(OPENALEX_FIELDS),
            "per_page": str(OPENALEX_PAGE),
            "cursor": cursor,
            **_openalex_key(),
        }
        url = f"{openalex_base()}/works?{urllib.parse.urlencode(params)}"
        page = client.fetch(
            url,
            "openalex",
            lambda a: read_json(a, "OpenAlex", what, ("results", "meta")),
            accept="application/json",
            name="OpenAlex",
        )
        results = page["results"]
        if not isinstance(results, list) or not isinstance(page["meta"], dict):
            raise SourceError(f"OpenAlex answered a results list of the wrong shape for {what}")
        yield from (w for w in results if isinstance(w, dict))
        seen.add(str(cursor))
        cursor = page["meta"].get("next_cursor")
        if not cursor or not results:
            return
        if str(cursor) in seen:
            notes.append(f"OpenAlex, {what}: the cursor did not move on; stopped")
            return
    count = page["meta"].get("count")
    notes.append(
        f"OpenAlex, {what}: only the first {OPENALEX_MAX_PAGES} pages of {OPENALEX_PAGE} read "
        f"(OPENALEX_MAX_PAGES){f' of {count} works' if isinstance(count, int) else ''}"
    )


def core_doi(paper: Paper) -> str | None:
    """The DOI OpenAlex knows *paper* by: its own, else the one arXiv registers for it."""
    if paper.doi:
        return paper.doi
    if paper.arxiv:
        return f"10.48550/arXiv.{strip_version(paper.arxiv)}"
    return None


def snowball_openalex(paper: Paper, since: str, until: str, client: Client, notes: list[str]) -> Iterator[Found]:
    """Works published in [*since*, *until*] that cite, or are cited by, the core *paper*."""
    window = f"from_publication_date:{since},to_publication_date:{until}"
    doi = core_doi(paper)
    work = openalex_work(doi, client) if doi else None
    short = str((work or {}).get("id", "")).rsplit("/", 1)[-1]
    if work is None or not short:
        return

    def found(works: Iterator[dict[str, Any]], query: str) -> Iterator[Found]:
        for w in works:
            candidate = work_found(w, None, query)
            if candidate is None:
                notes.append(f"OpenAlex {str(w.get('id', '')).rsplit('/', 1)[-1]} ({query}) has no title; left out")
            elif in_window(candidate.published, since, until):
                yield candidate

    yield from found(
        _pages({"filter": f"cites:{short},{window}"}, client, f"works citing {paper.key}", notes), f"cites {paper.key}"
    )
    refs = [str(r).rsplit("/", 1)[-1] for r in work.get("referenced_works") or []]
    for i in range(0, len(refs), 50):
        ids = "|".join(refs[i : i + 50])
        pages = _pages({"filter": f"openalex:{ids},{window}"}, client, f"works cited by {paper.key}", notes)
        yield from found(pages, f"cited by {paper.key}")


# ---------------------------------------------------------------------------------------------
# By hand


def read_manual(path: Path, protocol: Protocol) -> tuple[list[Found], list[Problem]]:
    """Candidates from a YAML list made by hand; every problem names its line."""
    shown = display_path(path)
    try:
        doc = load_path(path, MANUAL_MAX_BYTES, allow_list=True)
    except YamlError as exc:
        return [], [Problem(shown, exc.line, exc.column, "", exc.message)]
    if not isinstance(doc.data, list):
        return [], [Problem(shown, 1, 1, "", "the file must be a list of candidates ('- title: ...' items)")]
    families = [f.id for f in protocol.query_families]
    found: list[Found] = []
    problems: list[Problem] = []
    for i, item in enumerate(doc.data):

        def bad(name: str, message: str, i: int = i) -> None:
            mark = doc.mark((i, name))
            problems.append(Problem(shown, mark.line, mark.column, f"[{i}].{name}", message))

        if not isinstance(item, dict):
            mark = doc.mark((i,))
            problems.append(Problem(shown, mark.line, mark.column, f"[{i}]", "each candidate must be a mapping"))
            continue
        before = len(problems)
        for name in item:
            if name not in MANUAL_FIELDS:
                bad(
                    name,
                    f"unknown field{did_you_mean(name, MANUAL_FIELDS)}; allowed fields are {', '.join(MANUAL_FIELDS)}",
                )
        for name in ("title", "url", "query_family"):
            if not isinstance(item.get(name), str) or not item[name].strip():
                bad(name, f"{name} is required and must be text")
        # The first version's date may be left out when no source shows it (a listing that gives
        # only the month): the candidate is then kept whatever the window, as in_window keeps it.
        if "published" in item and not isinstance(item["published"], str):
            bad("published", f"published must be a date written YYYY-MM-DD, not {item['published']!r}")
        # Without an arXiv id or DOI (documentation, a company blog) the url identifies the
        # candidate: it is matched against the corpus's urls, and its queue id is made from the title.
        arxiv, doi = item.get("arxiv"), item.get("doi")
        if arxiv is not None and not (isinstance(arxiv, str) and re.match(ARXIV_PATTERN, arxiv)):
            bad("arxiv", f'arxiv must be an arXiv id such as "2508.04652" (quoted), not {arxiv!r}')
        if doi is not None and not (isinstance(doi, str) and re.match(DOI_PATTERN, doi)):
            bad("doi", f"doi must look like 10.1234/abc, not {doi!r}")
        if isinstance(item.get("published"), str) and not re.match(DATE_PATTERN, item["published"]):
            bad("published", f"published must be a date written YYYY-MM-DD, not {item['published']!r}")
        if isinstance(item.get("url"), str) and not re.match(URL_PATTERN, item["url"]):
            bad("url", f"url must be an http(s) URL, not {item['url']!r}")
        if isinstance(item.get("query_family"), str) and item["query_family"] not in families:
            bad(
                "query_family",
                f"query_family must be one of {', '.join(families)}, not {item['query_family']!r}"
                + did_you_mean(item["query_family"], families),
            )
        authors = item.get("authors", [])
        if not isinstance(authors, list) or not all(isinstance(a, str) for a in authors):
            bad("authors", "authors must be a list of names")
        for name in ("abstract", "query"):
            if name in item and not isinstance(item[name], str):
                bad(name, f"{name} must be text")
        if len(problems) > before:
            continue
        found.append(
            Found(
                source="manual",
                query_family=item["query_family"],
                query=str(item.get("query") or "by hand"),
                title=" ".join(item["title"].split()),
                authors=list(authors),
                published=item.get("published") or "",
                abstract=" ".join(str(item.get("abstract") or "").split()),
                url=item["url"],
                arxiv=strip_version(arxiv) if arxiv else None,
                doi=doi.lower() if doi else None,
            )
        )
    return found, problems
