"""Current facts about existing papers, from arXiv, OpenAlex and Crossref (``masrl refresh``).

For each paper the sources are asked in turn: arXiv by id (or, for a paper without one, by
title), OpenAlex by DOI (the paper's, or the one arXiv registers, ``10.48550/arXiv.<id>``), and
Crossref by DOI (https://api.crossref.org/works/<doi>, answering ``{"status": "ok", "message":
{...}}``). :func:`proposals` compares what they say with the record and returns the changes worth
making, each with the source behind it, and :class:`Sources` keeps notes for what a person must
decide:

* ``arxiv`` and ``doi`` when the record has none. A DOI that only OpenAlex gives is taken only
  when Crossref's title for it is the paper's (OpenAlex attaches unrelated DOIs to some works:
  a 2025 data-set DOI to word2vec);
* ``venue`` when the record still names a preprint or a submission and a source names where it
  was published: arXiv's ``journal_ref`` only through the venue registry (:mod:`._venue`; a
  reference the registry does not know becomes a note), Crossref's event or container title and
  its year from ``issued`` (the year the work counts as published), OpenAlex's source. ``year``
  stays the year of first appearance, so it changes only for a record without an arXiv id;
* ``bibtex`` loses a journal or booktitle citing the preprint when the venue moves, as the venue
  (``venues.yaml``) then gives the citation;
* ``authors`` when the version of record lists more of them than the record, or fewer (and
  ``et_al`` then goes): the published version's list from Crossref when the venue (after any
  move) is published, else the latest arXiv version's; a published paper whose published
  authors no source lists is left alone, with a note. Each name is split by nameparser or taken
  from Crossref's given and family names; a name the record already holds, however it is split,
  keeps the record's spelling, and a list that differs only in how names are split is no change;
* ``more_urls`` gains the official code repository a source names (a GitHub URL in the arXiv
  comment).

Tags, summaries, notes and sub-decision evidence are never touched.
"""

from __future__ import annotations

import difflib
import os
import re
import urllib.parse
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from masrl._records import Paper
from masrl._scaffold import TITLE_SIMILARITY, normalise_title
from masrl._venues import Venues
from masrl.living._net import Client, NetworkError, SourceError
from masrl.living._sources import (
    ArxivPage,
    Found,
    arxiv_page,
    code_repository,
    core_doi,
    openalex_doi,
    openalex_work,
    read_json,
    strip_version,
)
from masrl.living._text import clean, from_parts, last_first, person
from masrl.living._venue import DEFAULT_VENUES, VenueName, match_venue, venue_names

CROSSREF_API = "https://api.crossref.org"
ARXIV_BATCH = 50
_PREPRINT = re.compile(r"arxiv|preprint|submission|submitted|under review", re.I)
PUBLISHED_TYPES = ("proceedings-article", "journal-article", "book-chapter")


@dataclass
class Change:
    field: str
    old: Any
    new: Any
    source: str


@dataclass
class Sources:
    """What each source said about one paper, and notes for a person to act on."""

    arxiv: Found | None = None
    arxiv_by_title: bool = False
    openalex: dict[str, Any] | None = None
    crossref: dict[str, Any] | None = None
    doi_from_openalex: str | None = None  # a DOI only OpenAlex gave, which Crossref confirmed
    notes: list[str] = field(default_factory=list)
    failed: bool = False  # a source answered something unusable; the notes say what


def crossref_base() -> str:
    return os.environ.get("MASRL_CROSSREF_API", CROSSREF_API).rstrip("/")


def arxiv_entries(ids: list[str], client: Client) -> dict[str, Found]:
    """arXiv entries by id (without version), fetched in batches."""
    out: dict[str, Found] = {}
    for i in range(0, len(ids), ARXIV_BATCH):
        batch = ids[i : i + ARXIV_BATCH]
        page: ArxivPage = arxiv_page(
            client, {"id_list": ",".join(batch), "max_results": len(batch)}, None, "id_list", paged=False
        )
        for entry in page.entries:
            if entry.arxiv:
                out[strip_version(entry.arxiv)] = entry
    return out


def similar_titles(a: str, b: str) -> bool:
    """True when the titles *a* and *b*, cleaned of markup and normalised, are (nearly) the same."""
    x, y = normalise_title(clean(a)), normalise_title(clean(b))
    return bool(x) and difflib.SequenceMatcher(None, x, y, autojunk=False).ratio() >= TITLE_SIMILARITY


def arxiv_by_title(title: str, client: Client) -> Found | None:
    """The arXiv entry whose title is (nearly) *title*, if the API finds one."""
    words = re.sub(r"[^A-Za-z0-9 ]+", " ", clean(title)).split()
    if not words:
        return None
    page = arxiv_page(client, {"search_query": f'ti:"{" ".join(words)}"', "max_results": 5}, None, "title", paged=False)
    return next((e for e in page.entries if similar_titles(title, e.title)), None)


def read_crossref(answer: Any, doi: str) -> dict[str, Any]:
    message = read_json(answer, "Crossref", f"DOI {doi}", ("message",))["message"]
    if not isinstance(message, dict):
        raise SourceError(f"Crossref answered a message that is not an object for DOI {doi}")
    return message


def crossref_work(doi: str, client: Client) -> dict[str, Any] | None:
    """Crossref's record of *doi*, or None when Crossref does not know it (a 404)."""
    url = f"{crossref_base()}/works/{urllib.parse.quote(doi, safe='/.:')}"
    return client.fetch(
        url,
        "crossref",
        lambda a: read_crossref(a, doi),
        accept="application/json",
        name="Crossref",
        missing=lambda a: None,
    )


def crossref_title(message: dict[str, Any]) -> str:
    return clean(next(iter(message.get("title") or []), ""))


def gather(papers: list[Paper], client: Client) -> Iterator[tuple[Paper, Sources]]:
    """Ask every source about each of *papers*, one paper at a time (so what was gathered before
    a failure can still be shown)."""
    by_id = arxiv_entries([strip_version(p.arxiv) for p in papers if p.arxiv], client)
    for p in papers:
        try:
            yield p, sources_of(p, by_id, client)
        except (NetworkError, SourceError) as exc:
            if isinstance(exc, NetworkError) and exc.transient:
                raise  # the service is down or limiting: the next papers would fail the same way
            yield p, Sources(notes=[str(exc)], failed=True)


def sources_of(p: Paper, by_id: dict[str, Found], client: Client) -> Sources:
    s = Sources()
    if p.arxiv:
        s.arxiv = by_id.get(strip_version(p.arxiv))
    else:
        s.arxiv = arxiv_by_title(p.title, client)
        s.arxiv_by_title = s.arxiv is not None
    arxiv = p.arxiv or (s.arxiv.arxiv if s.arxiv else None)
    doi = p.doi or (s.arxiv.doi if s.arxiv else None)
    lookup = doi or (f"10.48550/arXiv.{strip_version(arxiv)}" if arxiv else core_doi(p))
    if lookup:
        s.openalex = openalex_work(lookup, client)
    if not doi and s.openalex:
        offered = _published_doi(s.openalex)
        if offered:
            message = crossref_work(offered, client)
            if message is not None and similar_titles(p.title, crossref_title(message)):
                doi, s.doi_from_openalex, s.crossref = offered, offered, message
            else:
                said = (
                    f"Crossref's title for it is {crossref_title(message)!r}"
                    if message
                    else "Crossref does not know it"
                )
                s.notes.append(f"OpenAlex gives DOI {offered}, but {said}; left out")
            return s
    if doi:
        s.crossref = crossref_work(doi, client)
    return s


def _published_doi(work: dict[str, Any]) -> str | None:
    doi = openalex_doi(work)
    return doi if doi and not doi.startswith("10.48550/") else None


def crossref_authors(message: dict[str, Any]) -> list[str]:
    out = []
    for a in message.get("author") or []:
        if isinstance(a, dict):
            name = from_parts(a.get("given"), a.get("family"), a.get("suffix"), a.get("name"))
            if name:
                out.append(name)
    return out


def issued_year(message: dict[str, Any]) -> int | None:
    """The year Crossref's ``issued`` gives (the earliest of print and online); None when unknown."""
    parts = ((message.get("issued") or {}).get("date-parts") or [[None]])[0] or [None]
    return parts[0] if isinstance(parts[0], int) else None


def _venues(s: Sources, registry: Iterable[VenueName]) -> Iterator[tuple[str, int | None, str]]:
    """(venue, year, source) in order of trust; a journal_ref the registry does not know becomes a note."""
    registry = tuple(registry)
    if s.arxiv and s.arxiv.journal_ref and not _PREPRINT.search(s.arxiv.journal_ref):
        match = match_venue(s.arxiv.journal_ref, registry)
        if match:
            yield match.venue, match.year, "arXiv journal_ref"
        else:
            s.notes.append(
                f"arXiv journal_ref {s.arxiv.journal_ref!r} names no venue of the registry; set venue by hand if it is one"
            )
    c = s.crossref
    if c and c.get("type") in PUBLISHED_TYPES:
        names = [
            clean(str((c.get("event") or {}).get("name") or "")),
            clean(next(iter(c.get("container-title") or []), "")),
        ]
        year = issued_year(c)
        for name in filter(None, names):
            match = match_venue(f"{name} {year or ''}", registry)
            if match:
                yield match.venue, match.year or year, "Crossref"
                break
        else:
            if names[1] and c.get("type") == "journal-article":
                yield names[1], year, "Crossref"
    w = s.openalex
    if w:
        source = (w.get("primary_location") or {}).get("source") or {}
        name = clean(str(source.get("display_name") or ""))
        if source.get("type") in ("conference", "journal") and name:
            year = w.get("publication_year")
            year = year if isinstance(year, int) else None
            match = match_venue(f"{name} {year or ''}", registry)
            if match:
                yield match.venue, match.year or year, "OpenAlex"
            elif source.get("type") == "journal":
                yield name, year, "OpenAlex"


def merged_authors(record: list[str], found: list[str]) -> list[str]:
    """*found*, with the record's own spelling kept for every person the record already names."""
    mine = {person(a): a for a in record}
    return [mine.get(person(a), a) for a in found]


def _published(venue: str, venues: Venues | None) -> bool:
    """Whether *venue* names a published version: by the registry when there is one."""
    if venues is not None:
        placed = venues.place(venue)
        return placed is not None and placed.venue.published
    return not _PREPRINT.search(venue)


def proposals(p: Paper, s: Sources, venues: Venues | None = None) -> list[Change]:
    """The changes the sources support for *p*, in the record's field order.

    *venues* is the corpus's registry (``venues.yaml``): venues are read from sources through it
    (else through :data:`DEFAULT_VENUES`) and it says which venues are published.
    """
    registry: Iterable[VenueName] = venue_names(venues) if venues is not None else DEFAULT_VENUES
    changes: list[Change] = []
    if not p.arxiv and s.arxiv and s.arxiv.arxiv:
        changes.append(Change("arxiv", None, s.arxiv.arxiv, "arXiv title search" if s.arxiv_by_title else "arXiv"))
    if not p.doi:
        if s.arxiv and s.arxiv.doi:
            changes.append(Change("doi", None, s.arxiv.doi, "arXiv"))
        elif s.doi_from_openalex:
            changes.append(Change("doi", None, s.doi_from_openalex, "OpenAlex, title confirmed by Crossref"))
    venue_now = p.venue
    if not _published(p.venue, venues) and _PREPRINT.search(p.venue):
        for venue, year, source in _venues(s, registry):
            if venue != p.venue and not _PREPRINT.search(venue):
                changes.append(Change("venue", p.venue, venue, source))
                venue_now = venue
                if year and year != p.year and not p.arxiv and not (s.arxiv and s.arxiv.arxiv):
                    changes.append(Change("year", p.year, year, source))
                cited = [k for k in ("journal", "booktitle") if _PREPRINT.search(p.bibtex.get(k, ""))]
                if cited:  # the preprint's citation goes with the move; the venue gives the new one
                    rest = {k: v for k, v in p.bibtex.items() if k not in cited}
                    changes.append(Change("bibtex", dict(p.bibtex), rest or None, source))
                break
    record = _version_of_record(s, venue_now, venues)
    if record is not None and p.authors != ("Anonymous",):
        best, source = record
        new = merged_authors(list(p.authors), best)
        if new != list(p.authors) and len(new) != len(p.authors):
            changes.append(Change("authors", list(p.authors), new, source))
            if p.et_al:
                changes.append(Change("et_al", True, None, source))
    repo = code_repository(s.arxiv.comment) if s.arxiv else None
    if repo and all(repo.lower().rstrip("/") != u.lower().rstrip("/") for u in p.urls):
        changes.append(Change("more_urls", list(p.more_urls) or None, [*p.more_urls, repo], "arXiv comment"))
    order = ("authors", "et_al", "year", "arxiv", "doi", "venue", "more_urls", "bibtex")  # the record's field order
    return sorted(changes, key=lambda c: order.index(c.field))


def _version_of_record(s: Sources, venue: str, venues: Venues | None) -> tuple[list[str], str] | None:
    """The author list of the version of record and where it was read: the published version's
    (Crossref) when *venue* is published, else the latest arXiv version's. None, with a note,
    when no source lists the published version's authors."""
    if _published(venue, venues):
        names = crossref_authors(s.crossref) if s.crossref and s.crossref.get("type") in PUBLISHED_TYPES else []
        if names:
            return names, "Crossref, the published version"
        if s.arxiv and s.arxiv.authors:
            s.notes.append(
                f"authors not compared: {venue} is the version of record, and Crossref lists no authors for it"
            )
        return None
    names = [last_first(a) for a in s.arxiv.authors] if s.arxiv else []
    return (names, "arXiv, the latest version") if names else None
