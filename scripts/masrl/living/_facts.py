"""Current facts about existing papers, from arXiv, OpenAlex and Crossref (``masrl refresh``).

For each paper the sources are asked in turn: arXiv by id (or, for a paper without one, by
title), OpenAlex by DOI (the paper's, or the one arXiv registers, ``10.48550/arXiv.<id>``), and
Crossref by the paper's DOI (https://api.crossref.org/works/<doi>, answering
``{"status": "ok", "message": {...}}``). :func:`proposals` compares what they say with the record
and returns the changes worth making, each with the source behind it:

* ``arxiv`` and ``doi`` when the record has none;
* ``venue`` when the record still names a preprint or a submission and a source names where it
  was published, written as ``venues.yaml`` writes it (``year`` stays: it is the year of first
  appearance; the BibTeX year follows the venue);
* ``authors`` when the version of record lists another number of them than the record (and
  ``et_al`` then goes): the published version's list, from Crossref, for a published venue, else
  the latest arXiv version's;
* ``more_urls`` gains the official code repository a source names (a GitHub URL in the arXiv
  comment).

Tags, summaries, notes and sub-decision evidence are never touched.
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

from masrl._records import Paper
from masrl._scaffold import TITLE_SIMILARITY, normalise_title
from masrl._venues import Venues
from masrl.living._net import NetworkError, get
from masrl.living._sources import (
    Found,
    arxiv_base,
    code_repository,
    core_doi,
    openalex_work,
    parse_arxiv_feed,
    strip_version,
)

CROSSREF_API = "https://api.crossref.org"
ARXIV_BATCH = 50
_PREPRINT = re.compile(r"arxiv|preprint|submission|under review", re.I)
_YEAR = re.compile(r"\b(19|20)\d{2}\b")


@dataclass
class Change:
    field: str
    old: Any
    new: Any
    source: str


@dataclass
class Sources:
    """What each source said about one paper."""

    arxiv: Found | None = None
    arxiv_by_title: bool = False
    openalex: dict[str, Any] | None = None
    crossref: dict[str, Any] | None = None
    notes: list[str] = field(default_factory=list)
    left: list[str] = field(default_factory=list)  # what could not be proposed, and why


def crossref_base() -> str:
    return os.environ.get("MASRL_CROSSREF_API", CROSSREF_API).rstrip("/")


def arxiv_entries(ids: list[str], cache: Path | None) -> dict[str, Found]:
    """arXiv entries by id (without version), fetched in batches."""
    out: dict[str, Found] = {}
    for i in range(0, len(ids), ARXIV_BATCH):
        batch = ids[i : i + ARXIV_BATCH]
        params = {"id_list": ",".join(batch), "max_results": len(batch)}
        url = f"{arxiv_base()}?{urllib.parse.urlencode(params)}"
        entries, _, _ = parse_arxiv_feed(get(url, "arxiv", cache), None, "id_list")
        for entry in entries:
            if entry.arxiv:
                out[strip_version(entry.arxiv)] = entry
    return out


def arxiv_by_title(title: str, cache: Path | None) -> Found | None:
    """The arXiv entry whose title is (nearly) *title*, if the API finds one."""
    import difflib

    words = re.sub(r"[^A-Za-z0-9 ]+", " ", title).split()
    if not words:
        return None
    params = {"search_query": f'ti:"{" ".join(words)}"', "max_results": 5}
    url = f"{arxiv_base()}?{urllib.parse.urlencode(params)}"
    entries, _, _ = parse_arxiv_feed(get(url, "arxiv", cache), None, "title")
    wanted = normalise_title(title)
    for entry in entries:
        if difflib.SequenceMatcher(None, wanted, normalise_title(entry.title)).ratio() >= TITLE_SIMILARITY:
            return entry
    return None


def crossref_work(doi: str, cache: Path | None) -> dict[str, Any] | None:
    url = f"{crossref_base()}/works/{urllib.parse.quote(doi, safe='/.:')}"
    try:
        data = json.loads(get(url, "crossref", cache, accept="application/json"))
    except NetworkError as exc:
        if " 404 " in str(exc):
            return None
        raise
    except ValueError:
        return None
    message = data.get("message") if isinstance(data, dict) else None
    return message if isinstance(message, dict) else None


def gather(papers: list[Paper], cache: Path | None) -> dict[str, Sources]:
    """Ask every source about each of *papers*; keyed by paper key."""
    out = {p.key: Sources() for p in papers}
    by_id = arxiv_entries([strip_version(p.arxiv) for p in papers if p.arxiv], cache)
    for p in papers:
        s = out[p.key]
        if p.arxiv:
            s.arxiv = by_id.get(strip_version(p.arxiv))
        else:
            s.arxiv = arxiv_by_title(p.title, cache)
            s.arxiv_by_title = s.arxiv is not None
        arxiv_id = p.arxiv or (s.arxiv.arxiv if s.arxiv else None)
        doi = p.doi or (s.arxiv.doi if s.arxiv else None)
        lookup = doi or (f"10.48550/arXiv.{strip_version(arxiv_id)}" if arxiv_id else core_doi(p))
        if lookup:
            s.openalex = openalex_work(lookup, cache)
        if not doi and s.openalex:
            doi = _published_doi(s.openalex)
        if doi:
            s.crossref = crossref_work(doi, cache)
    return out


def _published_doi(work: dict[str, Any]) -> str | None:
    doi = str(work.get("doi") or "").removeprefix("https://doi.org/").lower()
    return doi if doi and not doi.startswith("10.48550/") else None


def _crossref_authors(message: dict[str, Any]) -> list[str]:
    out = []
    for a in message.get("author") or []:
        family, given = str(a.get("family") or "").strip(), str(a.get("given") or "").strip()
        if family:
            out.append(f"{family}, {given}" if given else family)
        elif a.get("name"):
            out.append(str(a["name"]))
    return out


def _last_first(name: str) -> str:
    parts = name.split()
    return name if "," in name or len(parts) < 2 else f"{parts[-1]}, {' '.join(parts[:-1])}"


def _venues(s: Sources) -> Iterator[tuple[str, int | None, str]]:
    """(venue, year, source) in order of trust."""
    if s.arxiv and s.arxiv.journal_ref and not _PREPRINT.search(s.arxiv.journal_ref):
        year = _YEAR.search(s.arxiv.journal_ref)
        yield s.arxiv.journal_ref, int(year.group(0)) if year else None, "arXiv journal_ref"
    c = s.crossref
    if c and c.get("type") in ("proceedings-article", "journal-article", "book-chapter"):
        name = str((c.get("event") or {}).get("name") or "") or next(iter(c.get("container-title") or []), "")
        parts = ((c.get("published") or c.get("issued") or {}).get("date-parts") or [[None]])[0]
        if name:
            yield " ".join(str(name).split()), parts[0] if parts and isinstance(parts[0], int) else None, "Crossref"
    w = s.openalex
    if w:
        source = (w.get("primary_location") or {}).get("source") or {}
        if source.get("type") in ("conference", "journal") and source.get("display_name"):
            year = w.get("publication_year")
            yield str(source["display_name"]), year if isinstance(year, int) else None, "OpenAlex"


def proposals(p: Paper, s: Sources, venues: Venues) -> list[Change]:
    """The changes the sources support for *p*, in the record's field order; what could not be
    proposed (a venue the registry lacks, authors of a published version no source lists) is
    added to ``s.left``."""
    changes: list[Change] = []
    if not p.arxiv and s.arxiv and s.arxiv.arxiv:
        changes.append(Change("arxiv", None, s.arxiv.arxiv, "arXiv title search" if s.arxiv_by_title else "arXiv"))
    if not p.doi:
        doi = (s.arxiv.doi if s.arxiv else None) or (_published_doi(s.openalex) if s.openalex else None)
        if doi:
            changes.append(Change("doi", None, doi, "arXiv" if s.arxiv and s.arxiv.doi else "OpenAlex"))
    placed = venues.place(p.venue)
    venue_now = p.venue
    if placed is None or not placed.venue.published:
        for name, year, source in _venues(s):
            if _PREPRINT.search(name):
                continue
            house = venues.house_venue(name, year)
            if house is None:
                s.left.append(f"venue {name!r} ({source}) is not in venues.yaml; add it there to propose the move")
                break
            if house != p.venue:
                changes.append(Change("venue", p.venue, house, source))
                venue_now = house
                cited = [k for k in ("journal", "booktitle") if k in p.bibtex and _PREPRINT.search(p.bibtex[k])]
                if cited:  # the preprint's citation goes with the move; the venue gives the new one
                    rest = {k: val for k, val in p.bibtex.items() if k not in cited}
                    changes.append(Change("bibtex", dict(p.bibtex), rest or None, source))
            break
    record = _version_of_record(p, s, venues, venue_now)
    if record is not None:
        names, source = record
        if len(names) != len(p.authors) and p.authors != ("Anonymous",):
            changes.append(Change("authors", list(p.authors), names, source))
            if p.et_al:
                changes.append(Change("et_al", True, None, source))
    repo = code_repository(s.arxiv.comment) if s.arxiv else None
    if repo and all(repo.lower().rstrip("/") != u.lower().rstrip("/") for u in p.urls):
        changes.append(Change("more_urls", list(p.more_urls) or None, [*p.more_urls, repo], "arXiv comment"))
    order = ("authors", "et_al", "year", "arxiv", "doi", "venue", "more_urls", "bibtex")  # the record's field order
    return sorted(changes, key=lambda c: order.index(c.field))


def _version_of_record(p: Paper, s: Sources, venues: Venues, venue: str) -> tuple[list[str], str] | None:
    """The author list of the version of record and where it was read: the published version's
    (Crossref) when *venue* is published, else the latest arXiv version's; None, with a note in
    ``s.left``, when no source lists that version's authors."""
    placed = venues.place(venue)
    if placed is not None and placed.venue.published:
        names = _crossref_authors(s.crossref) if s.crossref else []
        if names:
            return names, "Crossref, the published version"
        if s.arxiv and s.arxiv.authors:
            s.left.append(
                f"authors not compared: {venue} is the version of record, and Crossref lists no authors for it"
            )
        return None
    names = [_last_first(a) for a in s.arxiv.authors] if s.arxiv else []
    return (names, "arXiv, the latest version") if names else None
