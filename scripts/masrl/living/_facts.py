"""Current facts about existing papers, from arXiv, OpenAlex, Crossref and DBLP (``masrl refresh``).

For each paper the sources are asked in turn: arXiv by id (or, for a paper without one, by
title), OpenAlex by DOI (the paper's, or the one arXiv registers, ``10.48550/arXiv.<id>``),
DBLP by title for a paper still on arXiv or under submission (:mod:`._dblp`: its conference and
journal versions whose title and authors match), and Crossref by DOI
(https://api.crossref.org/works/<doi>, answering ``{"status": "ok", "message": {...}}``). :func:`proposals` compares what they say with the record and returns the changes worth
making, each with the source behind it, and :class:`Sources` keeps notes for what a person must
decide:

* ``arxiv`` and ``doi`` when the record has none. A DOI that only OpenAlex gives is taken only
  when Crossref's title for it is the paper's (OpenAlex attaches unrelated DOIs to some works:
  a 2025 data-set DOI to word2vec); a DOI Crossref does not know is a note with Crossref's own
  404 text (``Resource not found.``);
* ``venue`` when the record still names a preprint or a submission and a source names where it
  was published, always through the venue registry (:mod:`._venue`): arXiv's ``journal_ref``,
  Crossref's event or container title and its year from ``issued`` (the year the work counts as
  published), DBLP's venue and year (the source names the DBLP record), OpenAlex's source. A venue the registry does not know (a journal, a workshop's
  proceedings) becomes a note naming it, entities unescaped (``Big Data & Society``), for a
  person to add to ``venues.yaml``. ``year`` stays the year of first appearance, so it changes
  only for a record without an arXiv id;
* ``bibtex`` loses a journal or booktitle citing the preprint when the venue moves, as the venue
  (``venues.yaml``) then gives the citation;
* ``authors`` when the version of record lists more of them than the record, or fewer (and
  ``et_al`` then goes), or gives a name a suffix (``Jr.``) the record's spelling lacks: the
  published version's list from Crossref (else from the DBLP record of that venue) when the venue
  (after any move) is published, else the latest arXiv version's; a published paper whose published authors no source lists is left
  alone, with a note. Each name is split by nameparser or taken from Crossref's given, family
  and suffix parts; a name the record already holds, however it is split, keeps the record's
  spelling, and a list that differs only in how names are split is no change;
* ``more_urls`` gains the official code repository a source names (a GitHub URL in the arXiv
  comment).

arXiv's answers are paged up to their ``totalResults``; a spurious empty page is asked for again
before the paging ends, and a paper whose entry stayed unread is compared with the other sources
and noted as not compared in full. Tags, summaries, notes and sub-decision evidence are never touched.
"""

from __future__ import annotations

import os
import re
import urllib.parse
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from masrl.corpus._records import Paper
from masrl.corpus._venues import Venues
from masrl.living import _dblp
from masrl.living._net import Answer, Client, NetworkError, SourceError, service_text
from masrl.living._scaffold import nearly_same_titles, normalise_title
from masrl.living._sources import (
    Found,
    arxiv_page,
    arxiv_paged,
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
    dblp: list[_dblp.Hit] = field(default_factory=list)  # DBLP's conference and journal versions
    doi_from_openalex: str | None = None  # a DOI only OpenAlex gave, which Crossref confirmed
    notes: list[str] = field(default_factory=list)
    failed: bool = False  # a source answered something unusable; the notes say what


def crossref_base() -> str:
    return os.environ.get("MASRL_CROSSREF_API", CROSSREF_API).rstrip("/")


@dataclass
class ArxivFacts:
    """arXiv entries by id (without version), and the ids whose entries could not be read, with why."""

    entries: dict[str, Found] = field(default_factory=dict)
    unread: dict[str, str] = field(default_factory=dict)

    @property
    def notes(self) -> list[str]:
        """Why entries were not read, each once."""
        return list(dict.fromkeys(self.unread.values()))


def arxiv_entries(ids: list[str], client: Client) -> ArxivFacts:
    """arXiv entries by id (without version), fetched in batches of :data:`ARXIV_BATCH`, each paged
    up to its ``totalResults``: a spurious empty page is asked for again before the paging ends, and
    the ids of a batch whose pages stayed empty are listed under ``unread`` with the reason."""
    facts = ArxivFacts()
    for i in range(0, len(ids), ARXIV_BATCH):
        batch = ids[i : i + ARXIV_BATCH]
        what = f"arXiv, ids {batch[0]}" + (f" to {batch[-1]}" if len(batch) > 1 else "")
        notes: list[str] = []
        pages = arxiv_paged(
            client, {"id_list": ",".join(batch)}, what, notes, page_size=len(batch), limit=len(batch), query="id_list"
        )
        for entry in pages:
            if entry.arxiv:
                facts.entries[strip_version(entry.arxiv)] = entry
        for note in notes:
            for arxiv in batch:
                if arxiv not in facts.entries:
                    facts.unread.setdefault(arxiv, note)
    return facts


def similar_titles(a: str, b: str) -> bool:
    """True when the titles *a* and *b*, cleaned of markup and normalised, are (nearly) the same."""
    x, y = normalise_title(clean(a)), normalise_title(clean(b))
    return bool(x) and nearly_same_titles(x, y)


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


@dataclass(frozen=True)
class NotFound:
    """A service's 404 for what was asked: it does not know it. *said* is the service's own text
    (Crossref answers ``Resource not found.`` as plain text)."""

    service: str
    said: str

    def __str__(self) -> str:
        return f"{self.service} answered 404" + (f": {self.said}" if self.said else "")


def crossref_work(doi: str, client: Client) -> dict[str, Any] | NotFound:
    """Crossref's record of *doi*, or :class:`NotFound` with Crossref's text when it does not know it."""
    url = f"{crossref_base()}/works/{urllib.parse.quote(doi, safe='/.:')}"

    def read(answer: Answer) -> dict[str, Any] | NotFound:
        return read_crossref(answer, doi)

    def missing(answer: Answer) -> dict[str, Any] | NotFound:
        return NotFound("Crossref", service_text(answer))

    return client.fetch(
        url,
        "crossref",
        read,
        accept="application/json",
        name="Crossref",
        missing=missing,
    )


def crossref_title(message: dict[str, Any]) -> str:
    return clean(next(iter(message.get("title") or []), ""))


def gather(papers: list[Paper], client: Client) -> Iterator[tuple[Paper, Sources]]:
    """Ask every source about each of *papers*, one paper at a time (so what was gathered before
    a failure can still be shown). A paper whose arXiv entry could not be read (its batch's pages
    stayed empty) is compared with the other sources, and its Sources say so and count as failed."""
    facts = arxiv_entries([strip_version(p.arxiv) for p in papers if p.arxiv], client)
    for p in papers:
        try:
            s = sources_of(p, facts.entries, client)
        except (NetworkError, SourceError) as exc:
            if isinstance(exc, NetworkError) and exc.transient:
                raise  # the service is down or limiting: the next papers would fail the same way
            s = Sources(notes=[str(exc)], failed=True)
        unread = facts.unread.get(strip_version(p.arxiv)) if p.arxiv else None
        if unread:
            s.notes.insert(0, f"arXiv facts not compared: {unread}")
            s.failed = True
        yield p, s


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
            if isinstance(message, dict) and similar_titles(p.title, crossref_title(message)):
                doi, s.doi_from_openalex, s.crossref = offered, offered, message
            else:
                said = (
                    f"Crossref's title for it is {crossref_title(message)!r}"
                    if isinstance(message, dict)
                    else f"Crossref does not know it ({message})"
                )
                s.notes.append(f"OpenAlex gives DOI {offered}, but {said}; left out")
            return s
    if _PREPRINT.search(p.venue):
        _ask_dblp(p, s, client)
    if doi:
        message = crossref_work(doi, client)
        if isinstance(message, NotFound):
            whose = "the record's" if p.doi else "arXiv's"
            s.notes.append(f"Crossref does not know {whose} DOI {doi} ({message}); check the DOI")
        else:
            s.crossref = message
    return s


def _ask_dblp(p: Paper, s: Sources, client: Client) -> None:
    """DBLP's conference and journal versions of *p*, by title, into *s*; a DBLP answer that cannot
    be used is a note (the other sources still count), an outage stops the run as any other."""
    try:
        hits = _dblp.search(p.title, client)
    except (NetworkError, SourceError) as exc:
        if isinstance(exc, NetworkError) and exc.transient:
            raise
        s.notes.append(f"DBLP not compared: {exc}")
        s.failed = True
        return
    s.dblp = _dblp.published_versions(p.title, p.authors, hits, similar_titles)


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


def _unknown_venue(source: str, kind: str, names: list[str], year: int | None) -> str:
    """The note for a venue a source names that no venue of the registry matches."""
    shown = " / ".join(repr(n) for n in dict.fromkeys(names))
    return (
        f"{source} places it in {kind} {shown}{f' ({year})' if year else ''}, which names no venue of the registry; "
        "if that is the version of record, add the venue to venues.yaml and set venue by hand"
    )


def _venues(s: Sources, registry: Iterable[VenueName]) -> Iterator[tuple[str, int | None, str]]:
    """(venue, year, source) in order of trust, each a venue of the registry. A venue a source
    names that the registry does not know (a journal_ref, a Crossref container or event, an
    OpenAlex source) becomes a note naming it, entities unescaped, and is never proposed."""
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
            if any(names):
                kind = {"journal-article": "the journal", "book-chapter": "the book"}.get(str(c.get("type")), "")
                s.notes.append(_unknown_venue("Crossref", kind or "the proceedings", list(filter(None, names)), year))
    for hit in s.dblp:
        match = match_venue(f"{hit.venue} {hit.year or ''}", registry)
        if match:
            yield match.venue, match.year or hit.year, f"DBLP {hit.key}"
        else:
            kind = "the journal" if hit.type == "Journal Articles" else "the conference"
            s.notes.append(_unknown_venue(f"DBLP {hit.key}", kind, [hit.venue], hit.year))
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
            else:
                s.notes.append(_unknown_venue("OpenAlex", f"the {source.get('type')}", [name], year))


def _family_given(name: str) -> str:
    """*name* without the suffix a ``Family, Suffix, Given`` name carries (``Hora, Jr., Donald``)."""
    parts = [x.strip() for x in name.split(",")]
    return f"{parts[0]}, {parts[2]}" if len(parts) == 3 else name


def _suffix(name: str) -> str:
    parts = [x.strip() for x in name.split(",")]
    return parts[1] if len(parts) == 3 else ""


def merged_authors(record: list[str], found: list[str]) -> list[str]:
    """*found*, with the record's own spelling kept for every person the record already names; a
    suffix (``Jr.``) the record's spelling lacks is added to it."""
    mine = {person(_family_given(a)): a for a in record}
    out = []
    for name in found:
        own = mine.get(person(_family_given(name)))
        if own is None:
            out.append(name)
        elif _suffix(name) and not _suffix(own) and "," in own:
            family, given = (x.strip() for x in own.split(",", 1))
            out.append(f"{family}, {_suffix(name)}, {given}")
        else:
            out.append(own)
    return out


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
    record = _version_of_record(s, venue_now, venues, registry)
    if record is not None and p.authors != ("Anonymous",):
        best, source = record
        new = merged_authors(list(p.authors), best)
        gained = any(_suffix(a) and a not in p.authors for a in new)  # a suffix ("Jr.") the record lacks
        if new != list(p.authors) and (len(new) != len(p.authors) or gained):
            changes.append(Change("authors", list(p.authors), new, source))
            if p.et_al:
                changes.append(Change("et_al", True, None, source))
    repo = code_repository(s.arxiv.comment) if s.arxiv else None
    if repo and all(repo.lower().rstrip("/") != u.lower().rstrip("/") for u in p.urls):
        changes.append(Change("more_urls", list(p.more_urls) or None, [*p.more_urls, repo], "arXiv comment"))
    order = ("authors", "et_al", "year", "arxiv", "doi", "venue", "more_urls", "bibtex")  # the record's field order
    return sorted(changes, key=lambda c: order.index(c.field))


def _version_of_record(
    s: Sources, venue: str, venues: Venues | None, registry: Iterable[VenueName]
) -> tuple[list[str], str] | None:
    """The author list of the version of record and where it was read: the published version's
    (Crossref, else the DBLP record of that venue) when *venue* is published, else the latest arXiv
    version's. None, with a note, when no source lists the published version's authors."""
    if _published(venue, venues):
        names = crossref_authors(s.crossref) if s.crossref and s.crossref.get("type") in PUBLISHED_TYPES else []
        if names:
            return names, "Crossref, the published version"
        registry = tuple(registry)
        for hit in s.dblp:
            match = match_venue(f"{hit.venue} {hit.year or ''}", registry)
            if match and match.venue == venue and hit.authors:
                return list(hit.authors), f"DBLP {hit.key}, the published version"
        if s.arxiv and s.arxiv.authors:
            s.notes.append(
                f"authors not compared: {venue} is the version of record, and neither Crossref nor DBLP lists its authors"
            )
        return None
    names = [last_first(a) for a in s.arxiv.authors] if s.arxiv else []
    return (names, "arXiv, the latest version") if names else None


# ---------------------------------------------------------------------------------------------
# Records still on arXiv


UNPUBLISHED_KINDS = ("preprint", "submission")  # venues.yaml kinds of a work not yet published
_NEW_ID = re.compile(r"^(\d{2})(\d{2})\.\d{4,5}")
_OLD_ID = re.compile(r"^[a-z][a-z.-]*(?:\.[A-Z]{2})?/(\d{2})(\d{2})\d{3}")


@dataclass(frozen=True)
class Stale:
    """A record still on arXiv (or under submission) *months* months after it first appeared."""

    paper: Paper
    since: str  # YYYY-MM
    months: int


def first_month(p: Paper) -> tuple[int, int]:
    """The year and month *p* first appeared: its arXiv id's (``2503.01234`` -> 2025-03,
    ``cs/0601001`` -> 2006-01), else January of its ``year`` (the earliest it may have)."""
    arxiv = p.arxiv or ""
    match = _NEW_ID.match(arxiv) or _OLD_ID.match(arxiv)
    if match:
        yy, mm = int(match.group(1)), int(match.group(2))
        year = 2000 + yy if _NEW_ID.match(arxiv) or yy < 91 else 1900 + yy
        if 1 <= mm <= 12:
            return year, mm
    return p.year, 1


def unpublished(p: Paper, venues: Venues | None) -> bool:
    """Whether *p*'s venue is a preprint or a submission: by the registry's kind when there is
    one, else by its name."""
    if venues is not None:
        placed = venues.place(p.venue)
        if placed is not None:
            return placed.venue.kind in UNPUBLISHED_KINDS
    return bool(_PREPRINT.search(p.venue))


def stale(papers: Iterable[Paper], venues: Venues | None, months: int, today: str) -> list[Stale]:
    """The *papers* still on arXiv or under submission whose first appearance lies more than
    *months* whole months before *today* (YYYY-MM-DD), oldest first."""
    year, month = int(today[:4]), int(today[5:7])
    out = []
    for p in papers:
        if not unpublished(p, venues):
            continue
        y, m = first_month(p)
        age = (year - y) * 12 + (month - m)
        if age > months:
            out.append(Stale(p, f"{y:04d}-{m:02d}", age))
    return sorted(out, key=lambda s: (s.since, s.paper.key))
