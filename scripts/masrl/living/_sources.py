"""Where candidates come from: the arXiv API, OpenAlex citation links, and lists made by hand.

* :func:`search_arxiv` runs one query family's ``arxiv_query`` through the arXiv API
  (https://info.arxiv.org/help/api/user-manual.html): an Atom feed, paged with ``start`` and
  ``max_results`` until ``opensearch:startIndex`` + the entries reach ``opensearch:totalResults``.
  Feeds are parsed with defusedxml.
* :func:`snowball_openalex` finds, for each core paper, its OpenAlex work (by DOI, or by the DOI
  arXiv gives every paper, ``10.48550/arXiv.<id>``), then the works citing it (``filter=cites:``)
  and the works it cites (``referenced_works``), paging with ``cursor`` until ``meta.next_cursor``
  is null (https://docs.openalex.org/how-to-use-the-api/get-lists-of-entities/paging).
* :func:`read_manual` reads a YAML list of candidates found by hand on public arXiv listings.

Endpoints: ``MASRL_ARXIV_API`` and ``MASRL_OPENALEX_API`` (tests serve recorded answers on loopback);
``MASRL_OPENALEX_KEY``, if set, is sent to OpenAlex as ``api_key``.
"""

from __future__ import annotations

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
from masrl.living._net import get
from masrl.living._protocol import Protocol, QueryFamily

ARXIV_API = "https://export.arxiv.org/api/query"
OPENALEX_API = "https://api.openalex.org"
ARXIV_PAGE = 100  # entries per arXiv request
ARXIV_MAX = 2000  # entries per query family and run, at most
OPENALEX_PAGE = 100
OPENALEX_MAX_PAGES = 20  # pages per core paper and direction, at most
_NS = {
    "atom": "http://www.w3.org/2005/Atom",
    "arxiv": "http://arxiv.org/schemas/atom",
    "opensearch": "http://a9.com/-/spec/opensearch/1.1/",
}
_ABS = re.compile(r"arxiv\.org/abs/([^\s?#]+?)(v\d+)?$")
_ARXIV_DOI = re.compile(r"^10\.48550/arxiv\.(.+)$", re.I)
_GITHUB = re.compile(r"https?://(?:www\.)?github\.com/[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+[A-Za-z0-9_-]")
MANUAL_MAX_BYTES = 50_000_000  # a hand-made list, or a generated one for the benchmark
MANUAL_FIELDS = ("arxiv", "doi", "title", "authors", "published", "abstract", "url", "query_family", "query")


class SourceError(Exception):
    """A source answered something that cannot be read; the message is one line."""


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
        """The queue id: the arXiv id, else ``doi-`` and the DOI with unsafe characters replaced."""
        if self.arxiv:
            return self.arxiv.replace("/", "_")
        if self.doi:
            return "doi-" + re.sub(r"[^A-Za-z0-9.-]+", "_", self.doi)
        return "title-" + re.sub(r"[^a-z0-9]+", "-", self.title.lower()).strip("-")[:60]


def code_repository(*texts: str) -> str | None:
    """The first GitHub repository URL named in *texts* (an arXiv comment, say)."""
    for text in texts:
        match = _GITHUB.search(text or "")
        if match:
            return match.group(0).removesuffix(".git")
    return None


def strip_version(arxiv_id: str) -> str:
    return re.sub(r"v\d+$", "", arxiv_id.strip())


# ---------------------------------------------------------------------------------------------
# arXiv


def _text(node: Any) -> str:
    return " ".join((node.text or "").split()) if node is not None else ""


def parse_arxiv_feed(data: bytes, family: str | None, query: str) -> tuple[list[Found], int, int]:
    """The entries of one arXiv API page, with its ``totalResults`` and ``startIndex``."""
    from defusedxml import ElementTree as DET  # type: ignore[import-untyped]
    from defusedxml.common import DefusedXmlException  # type: ignore[import-untyped]

    try:
        root = DET.fromstring(data)
    except (DefusedXmlException, SyntaxError) as exc:  # ParseError is a SyntaxError
        raise SourceError(f"the arXiv API answer is not safe, valid XML ({exc})") from None
    total = int(_text(root.find("opensearch:totalResults", _NS)) or 0)
    start = int(_text(root.find("opensearch:startIndex", _NS)) or 0)
    out = []
    for entry in root.findall("atom:entry", _NS):
        entry_id = _text(entry.find("atom:id", _NS))
        match = _ABS.search(entry_id)
        if not match:  # the API reports errors as an entry whose id is not an abstract page
            summary = _text(entry.find("atom:summary", _NS))
            raise SourceError(f"the arXiv API refused the query {query!r}: {summary or entry_id}")
        arxiv_id = match.group(1)
        doi = _text(entry.find("arxiv:doi", _NS)).lower() or None
        out.append(
            Found(
                source="arxiv",
                query_family=family,
                query=query,
                title=_text(entry.find("atom:title", _NS)),
                authors=[_text(a.find("atom:name", _NS)) for a in entry.findall("atom:author", _NS)],
                published=_text(entry.find("atom:published", _NS))[:10],
                abstract=_text(entry.find("atom:summary", _NS)),
                url=f"https://arxiv.org/abs/{arxiv_id}",
                arxiv=arxiv_id,
                doi=doi,
                comment=_text(entry.find("arxiv:comment", _NS)),
                journal_ref=_text(entry.find("arxiv:journal_ref", _NS)),
            )
        )
    return out, total, start


def arxiv_base() -> str:
    return os.environ.get("MASRL_ARXIV_API", ARXIV_API)


def search_arxiv(family: QueryFamily, since: str, until: str, cache: Path | None) -> Iterator[Found]:
    """Every arXiv entry submitted in [*since*, *until*] that the query of *family* finds."""
    window = f"submittedDate:[{since.replace('-', '')}0000 TO {until.replace('-', '')}2359]"
    if family.arxiv_query:
        query = f"({family.arxiv_query}) AND {window}"
        start = 0
        while start < ARXIV_MAX:
            params = {
                "search_query": query,
                "start": start,
                "max_results": ARXIV_PAGE,
                "sortBy": "submittedDate",
                "sortOrder": "descending",
            }
            url = f"{arxiv_base()}?{urllib.parse.urlencode(params)}"
            entries, total, first = parse_arxiv_feed(get(url, "arxiv", cache), family.id, family.arxiv_query)
            yield from entries
            start = first + len(entries)
            if not entries or start >= total:
                break


# ---------------------------------------------------------------------------------------------
# OpenAlex


def openalex_base() -> str:
    return os.environ.get("MASRL_OPENALEX_API", OPENALEX_API).rstrip("/")


def _openalex_key() -> dict[str, str]:
    """The ``api_key`` parameter when ``MASRL_OPENALEX_KEY`` holds one (OpenAlex may require it)."""
    key = os.environ.get("MASRL_OPENALEX_KEY", "").strip()
    return {"api_key": key} if key else {}


def _json(data: bytes, what: str) -> Any:
    try:
        return json.loads(data)
    except (ValueError, UnicodeDecodeError) as exc:
        raise SourceError(f"OpenAlex answered something that is not JSON for {what} ({exc})") from None


def abstract_of(inverted: dict[str, list[int]] | None) -> str:
    """Plain text from OpenAlex's ``abstract_inverted_index`` (word -> positions)."""
    if not inverted:
        return ""
    words: dict[int, str] = {}
    for word, positions in inverted.items():
        for pos in positions:
            words[pos] = word
    return " ".join(words[i] for i in sorted(words))


def work_found(work: dict[str, Any], family: str | None, query: str) -> Found:
    """A candidate from one OpenAlex work object."""
    doi = str(work.get("doi") or "").removeprefix("https://doi.org/").lower() or None
    arxiv = None
    match = _ARXIV_DOI.match(doi or "")
    if match:
        arxiv = match.group(1)
    for loc in work.get("locations") or []:
        landing = str((loc or {}).get("landing_page_url") or "")
        m = _ABS.search(landing)
        if m and not arxiv:
            arxiv = m.group(1)
    authors = [
        str((a.get("author") or {}).get("display_name") or "")
        for a in work.get("authorships") or []
        if (a.get("author") or {}).get("display_name")
    ]
    primary = work.get("primary_location") or {}
    url = f"https://doi.org/{doi}" if doi else str(primary.get("landing_page_url") or work.get("id") or "")
    if arxiv:
        url = f"https://arxiv.org/abs/{arxiv}"
    venue = str(((primary.get("source") or {}).get("display_name")) or "")
    return Found(
        source="openalex",
        query_family=family,
        query=query,
        title=" ".join(str(work.get("display_name") or work.get("title") or "").split()),
        authors=authors,
        published=str(work.get("publication_date") or "")[:10],
        abstract=abstract_of(work.get("abstract_inverted_index")),
        url=url,
        arxiv=arxiv,
        doi=None if doi and _ARXIV_DOI.match(doi) else doi,
        extra={"openalex": work.get("id"), "venue": venue, "year": work.get("publication_year")},
    )


def openalex_work(doi: str, cache: Path | None) -> dict[str, Any] | None:
    """The OpenAlex work with *doi*, or None when OpenAlex does not know it."""
    from masrl.living._net import NetworkError

    url = f"{openalex_base()}/works/doi:{urllib.parse.quote(doi, safe='/.:')}"
    if _openalex_key():
        url += "?" + urllib.parse.urlencode(_openalex_key())
    try:
        work = _json(get(url, "openalex", cache, accept="application/json"), doi)
    except NetworkError as exc:
        if " 404 " in str(exc):
            return None
        raise
    return work if isinstance(work, dict) else None


def _pages(base_params: dict[str, str], cache: Path | None, what: str) -> Iterator[dict[str, Any]]:
    cursor: Any = "*"
    for _ in range(OPENALEX_MAX_PAGES):
        params = {**base_params, "per_page": str(OPENALEX_PAGE), "cursor": cursor, **_openalex_key()}
        url = f"{openalex_base()}/works?{urllib.parse.urlencode(params)}"
        page = _json(get(url, "openalex", cache, accept="application/json"), what)
        if not isinstance(page, dict) or not isinstance(page.get("results"), list):
            raise SourceError(f"OpenAlex answered without a results list for {what}")
        yield from (w for w in page["results"] if isinstance(w, dict))
        cursor = (page.get("meta") or {}).get("next_cursor")
        if not cursor or not page["results"]:
            return


def core_doi(paper: Paper) -> str | None:
    """The DOI OpenAlex knows *paper* by: its own, else the one arXiv registers for it."""
    if paper.doi:
        return paper.doi
    if paper.arxiv:
        return f"10.48550/arXiv.{strip_version(paper.arxiv)}"
    return None


def snowball_openalex(paper: Paper, since: str, until: str, cache: Path | None) -> Iterator[Found]:
    """Works published in [*since*, *until*] that cite, or are cited by, the core *paper*."""
    window = f"from_publication_date:{since},to_publication_date:{until}"
    doi = core_doi(paper)
    work = openalex_work(doi, cache) if doi else None
    short = str((work or {}).get("id", "")).rsplit("/", 1)[-1]
    if work is not None and short:
        for cited_by in _pages({"filter": f"cites:{short},{window}"}, cache, f"works citing {paper.key}"):
            yield work_found(cited_by, None, f"cites {paper.key}")
        refs = [str(r).rsplit("/", 1)[-1] for r in work.get("referenced_works") or []]
        for i in range(0, len(refs), 50):
            ids = "|".join(refs[i : i + 50])
            for cited in _pages({"filter": f"openalex:{ids},{window}"}, cache, f"works cited by {paper.key}"):
                yield work_found(cited, None, f"cited by {paper.key}")


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
        for name in ("title", "published", "url", "query_family"):
            if not isinstance(item.get(name), str) or not item[name].strip():
                bad(name, f"{name} is required and must be text")
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
                published=item["published"],
                abstract=" ".join(str(item.get("abstract") or "").split()),
                url=item["url"],
                arxiv=strip_version(arxiv) if arxiv else None,
                doi=doi.lower() if doi else None,
            )
        )
    return found, problems
