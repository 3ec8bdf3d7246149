"""DBLP, the index of computer science's venues of record, searched by title for ``masrl refresh``.

DBLP's public search API (https://dblp.org/faq/How+to+use+the+dblp+search+API.html) answers
``search/publ/api?q=<words>&format=json&h=<hits>`` with ``{"result": {"hits": {"@total": ..,
"hit": [...]}}}``; each hit's ``info`` holds the title (ending in a full stop, with HTML entities
such as ``&apos;``), ``authors.author`` (a list, or one item alone; each a name or an object with
``@pid`` and ``text``, the name carrying DBLP's disambiguation number, ``Jun Wang 0001``), the
``venue`` (a string, or a list for a work indexed under several), ``year``, ``type``, ``key`` and
``doi``. An answer without hits has no ``hit`` key at all.

:func:`search` turns an answer into :class:`Hit` values; :func:`published_versions` keeps the hits
that are a conference or journal version of a record: the same title and the same people, typed
``Conference and Workshop Papers`` or ``Journal Articles``, never DBLP's CoRR copies of arXiv
(``journals/corr/...``), informal or withdrawn items, and never a workshop held at a conference
(``A-TEST@ESEC/SIGSOFT FSE``). Turning a hit's venue into a venue of the records is the venue
registry's job (:mod:`._venue`).

The endpoint can be pointed elsewhere with ``MASRL_DBLP_API`` (tests serve answers on loopback).
"""

from __future__ import annotations

import os
import re
import urllib.parse
from dataclasses import dataclass
from typing import Any

from masrl.living._net import Answer, Client, SourceError
from masrl.living._sources import read_json
from masrl.living._text import clean, last_first, person

DBLP_API = "https://dblp.org/search/publ/api"
HITS = 10  # hits asked for: a title finds its arXiv copy, its versions and a few namesakes
# The kinds of DBLP record that are a published version of a paper.
PUBLISHED_TYPES = ("Conference and Workshop Papers", "Journal Articles")
CORR_KEY = "journals/corr/"  # DBLP's copies of arXiv preprints
AUTHOR_OVERLAP = 0.5  # share of the shorter author list that must name the same people
_DISAMBIGUATION = re.compile(r"\s+\d{4}$")  # "Jun Wang 0001"


@dataclass(frozen=True)
class Hit:
    """One DBLP record as a search hit describes it."""

    title: str  # cleaned, without DBLP's closing full stop
    authors: tuple[str, ...]  # as the records write them, "Last, First"
    venue: str  # several venues are joined with "; "
    year: int | None
    type: str
    key: str
    doi: str | None

    @property
    def url(self) -> str:
        return f"https://dblp.org/rec/{self.key}" if self.key else ""

    @property
    def informal(self) -> bool:
        """Whether the record is not a published version: a CoRR copy, an informal or withdrawn
        item, a thesis, an editorship, or a workshop held at a conference."""
        return self.type not in PUBLISHED_TYPES or self.key.startswith(CORR_KEY) or "@" in self.venue


def dblp_base() -> str:
    return os.environ.get("MASRL_DBLP_API", DBLP_API)


def query_url(title: str) -> str | None:
    """The search URL for *title*'s words (punctuation left out); None for a title without any."""
    words = re.sub(r"[^\w ]+", " ", clean(title)).split()
    if not words:
        return None
    return f"{dblp_base()}?{urllib.parse.urlencode({'q': ' '.join(words), 'format': 'json', 'h': HITS, 'c': 0})}"


def _listed(value: Any) -> list[Any]:
    """DBLP gives a list of one as the item alone."""
    if value is None:
        return []
    return value if isinstance(value, list) else [value]


def _name(author: Any) -> str:
    text = author.get("text", "") if isinstance(author, dict) else author
    return _DISAMBIGUATION.sub("", clean(str(text or "")))


def _hit(info: dict[str, Any]) -> Hit | None:
    title = clean(str(info.get("title") or "")).removesuffix(".")
    if not title:
        return None
    authors = tuple(last_first(n) for n in map(_name, _listed((info.get("authors") or {}).get("author"))) if n)
    year = str(info.get("year") or "")
    venue = "; ".join(clean(str(v)) for v in _listed(info.get("venue")) if str(v).strip())
    doi = str(info.get("doi") or "").strip().lower() or None
    return Hit(
        title,
        authors,
        venue,
        int(year) if year.isdigit() else None,
        str(info.get("type") or ""),
        str(info.get("key") or ""),
        doi,
    )


def read_hits(answer: Answer) -> list[Hit]:
    """The hits of one DBLP search answer; :class:`SourceError` for an answer of another shape."""
    data = read_json(answer, "DBLP", "a title search", ("result",))
    result = data["result"]
    hits = result.get("hits") if isinstance(result, dict) else None
    if not isinstance(hits, dict):
        raise SourceError("DBLP answered a result without hits for a title search")
    out = []
    for item in _listed(hits.get("hit")):
        info = item.get("info") if isinstance(item, dict) else None
        hit = _hit(info) if isinstance(info, dict) else None
        if hit is not None:
            out.append(hit)
    return out


def search(title: str, client: Client) -> list[Hit]:
    """DBLP's hits for *title*, through *client* (paced, retried, cached once read)."""
    url = query_url(title)
    if url is None:
        return []
    return client.fetch(url, "dblp", read_hits, accept="application/json", name="DBLP")


def _family(name: str) -> str:
    """The family name of a ``Last, First`` (or ``Last, Jr., First``) name, folded for comparison."""
    return " ".join(person(name.split(",", 1)[0]))


def same_people(record: tuple[str, ...] | list[str], found: tuple[str, ...] | list[str]) -> bool:
    """Whether two author lists name the same people: the first author's family name is in the
    other list, and so are at least :data:`AUTHOR_OVERLAP` of the shorter list's family names
    (the record's list may be cut short, with ``et_al``, or lack an author added later)."""
    mine, theirs = [_family(a) for a in record if a.strip()], [_family(a) for a in found if a.strip()]
    if not mine or not theirs:
        return False
    if mine[0] not in theirs and theirs[0] not in mine:
        return False
    shared = len(set(mine) & set(theirs))
    return shared >= AUTHOR_OVERLAP * min(len(set(mine)), len(set(theirs)))


def published_versions(title: str, authors: tuple[str, ...], hits: list[Hit], similar: Any) -> list[Hit]:
    """The *hits* that are a conference or journal version of the work with *title* and *authors*,
    in DBLP's order; *similar* says whether two titles are (nearly) the same."""
    return [h for h in hits if not h.informal and similar(title, h.title) and same_people(authors, h.authors)]
