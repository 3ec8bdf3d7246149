"""arXiv metadata for ``masrl add --arxiv``: one request to the arXiv API, parsed into a candidate.

The API answers an Atom feed (https://info.arxiv.org/help/api/user-manual.html), read by the same
parser as ``masrl discover`` (:func:`masrl.living._sources.parse_arxiv_feed`): an HTML page, a
broken feed or the API's error entry become one-line errors with the API's own text, titles lose
their markup, names are split with their particles and suffixes, and old-style ids
(``solv-int/9901001v2``) lose their version like new ones. A ``journal_ref`` becomes the venue
only when it names a venue of the registry; otherwise the venue stays arXiv and the reference is
shown as a note. The base URL can be pointed elsewhere with ``MASRL_ARXIV_API`` (the tests serve
recorded responses from loopback).
"""

from __future__ import annotations

import os
import urllib.parse

from masrl._scaffold import Candidate
from masrl._venues import Venues

API = "https://export.arxiv.org/api/query"


class ArxivError(Exception):
    """The metadata could not be fetched or read; the message says what to do."""


def fetch(arxiv_id: str) -> bytes:
    """The API's Atom answer for *arxiv_id*, fetched now (never from a cache: facts may have changed)."""
    from masrl.living._net import Client, NetworkError

    base = os.environ.get("MASRL_ARXIV_API", API)
    url = f"{base}?{urllib.parse.urlencode({'id_list': arxiv_id, 'max_results': 1})}"
    try:
        with Client(None) as client:
            return client.fetch(
                url,
                "arxiv",
                lambda answer: answer.body,
                name="the arXiv API",
                instead="paste the paper's BibTeX into `masrl add --bib -` instead",
            )
    except NetworkError as exc:
        raise ArxivError(str(exc)) from None


def parse(feed: bytes, arxiv_id: str, notes: list[str] | None = None, venues: Venues | None = None) -> Candidate:
    """The candidate described by the Atom *feed* for *arxiv_id*; a journal reference that names
    no venue of the registry (*venues*, the corpus's ``venues.yaml``) is added to *notes*."""
    from masrl.living._sources import SourceError, parse_arxiv_feed
    from masrl.living._text import last_first
    from masrl.living._venue import DEFAULT_VENUES, match_venue, venue_names

    try:
        page = parse_arxiv_feed(feed, None, arxiv_id)
    except SourceError as exc:
        raise ArxivError(str(exc)) from None
    if not page.entries:
        reason = f" ({'; '.join(page.left_out)})" if page.left_out else ""
        raise ArxivError(f"arXiv has no paper {arxiv_id}{reason}")
    entry = page.entries[0]
    found = entry.arxiv or arxiv_id
    registry = venue_names(venues) if venues is not None else DEFAULT_VENUES
    venue = match_venue(entry.journal_ref, registry) if entry.journal_ref else None
    if entry.journal_ref and venue is None and notes is not None:
        notes.append(
            f"arXiv {found}: journal_ref {entry.journal_ref!r} names no venue of the registry; "
            "the venue stays arXiv, set it by hand if the paper was published"
        )
    year = int(entry.published[:4]) if entry.published[:4].isdigit() else None
    return Candidate(
        title=entry.title,
        authors=[last_first(a) for a in entry.authors],
        et_al=False,
        year=year,
        venue=venue.venue if venue else "arXiv",
        url=f"https://arxiv.org/abs/{found}",
        arxiv=found,
        doi=entry.doi,
        source=f"arXiv {found}",
    )
