"""arXiv metadata for ``masrl add --arxiv``: one request to the arXiv API, parsed into a candidate.

The API answers an Atom feed (https://info.arxiv.org/help/api/user-manual.html). The base URL can
be pointed elsewhere with ``MASRL_ARXIV_API`` (the tests serve a recorded response from loopback).
"""

from __future__ import annotations

import os
import re
import urllib.parse
import xml.etree.ElementTree as ET

from masrl._scaffold import Candidate

API = "https://export.arxiv.org/api/query"
_NS = {"atom": "http://www.w3.org/2005/Atom", "arxiv": "http://arxiv.org/schemas/atom"}


class ArxivError(Exception):
    """The metadata could not be fetched or read; the message says what to do."""


def fetch(arxiv_id: str) -> bytes:
    """The API's Atom answer for *arxiv_id*, fetched now (never from a cache: facts may have changed)."""
    from masrl.living._net import NetworkError, get

    base = os.environ.get("MASRL_ARXIV_API", API)
    url = f"{base}?{urllib.parse.urlencode({'id_list': arxiv_id, 'max_results': 1})}"
    try:
        return get(
            url,
            "arxiv",
            None,
            name="the arXiv API",
            instead="paste the paper's BibTeX into `masrl add --bib -` instead",
        )
    except NetworkError as exc:
        raise ArxivError(str(exc)) from None


def _text(node: ET.Element | None) -> str:
    return " ".join((node.text or "").split()) if node is not None else ""


def _last_first(name: str) -> str:
    """``Jane Q. Doe`` -> ``Doe, Jane Q.``; arXiv gives names in display order."""
    parts = name.split()
    return name if len(parts) < 2 else f"{parts[-1]}, {' '.join(parts[:-1])}"


def parse(feed: bytes, arxiv_id: str) -> Candidate:
    """The candidate described by the Atom *feed* for *arxiv_id*."""
    try:
        root = ET.fromstring(feed)
    except ET.ParseError as exc:
        raise ArxivError(f"the arXiv API answer is not valid XML ({exc})") from None
    entry = root.find("atom:entry", _NS)
    if entry is None:
        raise ArxivError(f"arXiv has no paper {arxiv_id}")
    entry_id = _text(entry.find("atom:id", _NS))
    title = _text(entry.find("atom:title", _NS))
    if not entry_id or title.lower() == "error":
        summary = _text(entry.find("atom:summary", _NS))
        raise ArxivError(f"arXiv has no paper {arxiv_id}" + (f" ({summary})" if summary else ""))
    match = re.search(r"abs/([^v]+?)(v\d+)?$", entry_id)
    found = match.group(1) if match else arxiv_id
    published = _text(entry.find("atom:published", _NS))
    authors = [_last_first(_text(a.find("atom:name", _NS))) for a in entry.findall("atom:author", _NS)]
    doi = _text(entry.find("arxiv:doi", _NS)) or None
    journal_ref = _text(entry.find("arxiv:journal_ref", _NS))
    return Candidate(
        title=title,
        authors=authors,
        et_al=False,
        year=int(published[:4]) if published[:4].isdigit() else None,
        venue=journal_ref or "arXiv",
        url=f"https://arxiv.org/abs/{found}",
        arxiv=found,
        doi=doi,
        source=f"arXiv {found}",
    )
