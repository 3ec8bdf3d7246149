"""What is new in the corpus: dated additions and corrections, as a page and an Atom feed.

:func:`news` reads every record's ``added`` date, ``origin`` and ``changes`` and returns the dated
items, newest first. The survey's own records arrived together at its cutoff, so they form one item
(the snapshot), not 116. :func:`atom_feed` writes them as an Atom 1.0 feed (RFC 4287) that the site
serves at its root as ``feed.xml``; :mod:`masrl.publish._site` renders the page.
"""

from __future__ import annotations

import datetime as dt
import os
import re
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path

from masrl.corpus import _vocab as v
from masrl.corpus._records import Corpus, Exclusion, Paper
from masrl.publish._log import exclusion_anchor, exclusion_log_pages

FEED_PATH = "site/docs/feed.xml"
PAGE_PATH = "site/docs/whats-new.md"
MKDOCS = "site/mkdocs.yml"
FALLBACK_URL = "https://masrl.github.io/masrl/"  # where the feed points when mkdocs.yml names no site_url
FEED_ENTRIES = 50  # the newest items the feed carries; the page lists them all
EXCLUSIONS_LISTED = 20  # a day's exclusions beyond this are summed up on the page, not listed
ATOM = "http://www.w3.org/2005/Atom"


@dataclass(frozen=True)
class Item:
    """One dated event: a record added or corrected, or the survey snapshot as a whole."""

    date: str
    action: str  # "added", "changed" or "snapshot"
    kind: str  # "paper", "exclusion" or "snapshot"
    name: str  # paper key, exclusion id, or the snapshot's origin
    title: str
    note: str
    origin: str
    page: str  # the site page the item links to, relative to the site root

    @property
    def ident(self) -> str:
        """A name unique among the feed's entries."""
        return f"{self.kind}/{self.name}/{self.action}/{self.date}"


def _record_items(
    record: Paper | Exclusion, kind: str, name: str, title: str, added_note: str, page: str
) -> list[Item]:
    items = []
    if record.origin != v.SURVEY:
        items.append(Item(record.added, "added", kind, name, title, added_note, record.origin, page))
    for i, change in enumerate(record.changes):
        action = "changed" if i == 0 else f"changed-{i + 1}"
        items.append(Item(change.date, action, kind, name, title, change.note, record.origin, page))
    return items


def news(corpus: Corpus) -> list[Item]:
    """Every dated item of *corpus*, newest first (ties: papers before exclusions, then by name)."""
    items: list[Item] = []
    snapshot = corpus.snapshot()
    if snapshot.papers or snapshot.exclusions:
        day = max([p.added for p in snapshot.papers] + [e.added for e in snapshot.exclusions])
        items.append(
            Item(
                day,
                "snapshot",
                "snapshot",
                v.SURVEY,
                "The survey snapshot",
                f"The survey's own tables: {len(snapshot.papers)} retained entries and "
                f"{len(snapshot.exclusions)} screened-out records.",
                v.SURVEY,
                "screening/",
            )
        )
    for p in corpus.papers:
        items += _record_items(p, "paper", p.key, p.title, p.summary, f"papers/{p.key}/")
    for n, records in enumerate(exclusion_log_pages(corpus), start=1):
        for e in records:
            page = f"exclusion-log/{n}/#{exclusion_anchor(e.id)}"
            items += _record_items(e, "exclusion", e.id, e.label, e.note, page)
    order = {"paper": 0, "exclusion": 1, "snapshot": 2}
    items.sort(key=lambda it: it.name)
    items.sort(key=lambda it: (it.date, -order[it.kind]), reverse=True)  # stable: names stay in order
    return items


def atom_feed(items: list[Item], site_url: str, title: str) -> str:
    """An Atom 1.0 document of the newest :data:`FEED_ENTRIES` *items*; links are absolute under *site_url*."""
    base = site_url.rstrip("/") + "/"
    ET.register_namespace("", ATOM)

    def sub(parent: ET.Element, tag: str, text: str | None = None, **attrs: str) -> ET.Element:
        node = ET.SubElement(parent, f"{{{ATOM}}}{tag}", attrs)
        if text is not None:
            node.text = text
        return node

    feed = ET.Element(f"{{{ATOM}}}feed")
    sub(feed, "id", base + "feed.xml")
    sub(feed, "title", title)
    sub(feed, "subtitle", "Papers added to the corpus and corrections to its records.")
    sub(feed, "updated", _stamp(items[0].date) if items else _stamp("1970-01-01"))
    sub(feed, "link", rel="self", type="application/atom+xml", href=base + "feed.xml")
    sub(feed, "link", rel="alternate", type="text/html", href=base + "whats-new/")
    author = sub(feed, "author")
    sub(author, "name", "The masrl contributors")
    for item in items[:FEED_ENTRIES]:
        entry = sub(feed, "entry")
        # The id names the item, not the page of the log it sits on (that moves as the log grows).
        home = "screening/" if item.kind == "exclusion" else item.page.partition("#")[0]
        sub(entry, "id", f"{base}{home}#{item.ident}")
        sub(entry, "title", _entry_title(item))
        sub(entry, "updated", _stamp(item.date))
        sub(entry, "link", rel="alternate", type="text/html", href=base + item.page)
        sub(entry, "category", term=item.origin)
        sub(entry, "summary", item.note)
    ET.indent(feed)
    return '<?xml version="1.0" encoding="utf-8"?>\n' + ET.tostring(feed, encoding="unicode") + "\n"


def _md_page(page: str) -> str:
    """The Markdown source an item's site page comes from, as a link from the What's new page."""
    path, _, anchor = page.partition("#")
    path = path.rstrip("/") + ".md" if path.rstrip("/") else "index.md"
    return path + (f"#{anchor}" if anchor else "")


def _entry_title(item: Item) -> str:
    if item.kind == "snapshot":
        return item.title
    what = "Paper" if item.kind == "paper" else f"Exclusion {item.name}"
    verb = "added" if item.action == "added" else "corrected"
    return f"{what} {verb}: {item.title}"


def _stamp(day: str) -> str:
    """RFC 3339 timestamp for the start of *day* (UTC), as Atom requires."""
    return dt.date.fromisoformat(day).isoformat() + "T00:00:00Z"


# `site_url: https://...` or `site_url: !ENV [NAME, "https://..."]` in mkdocs.yml.
_SITE_URL = re.compile(r"""^site_url:\s*(?:!ENV\s*\[\s*(\w+)\s*,\s*["']?([^"'\]]*)["']?\s*\]|["']?([^"'\s#]+))""", re.M)


def site_url(root: Path) -> str:
    """The published site's address as mkdocs.yml gives it (its environment variable honoured)."""
    try:
        text = (root / MKDOCS).read_text("utf-8")
    except OSError:
        return FALLBACK_URL
    match = _SITE_URL.search(text)
    if not match:
        return FALLBACK_URL
    env, default, plain = match.groups()
    url = (os.environ.get(env) or default) if env else plain
    return url or FALLBACK_URL


def render(corpus: Corpus, root: Path, site_title: str = "masrl: what is new") -> dict[str, str]:
    """The What's new page and the feed, keyed by path relative to the repository root."""
    from masrl.publish._site import front_matter, html, site_environment

    items = news(corpus)
    page = site_environment().get_template("site/whats-new.md.j2")
    return {
        PAGE_PATH: page.render(
            items=items,
            front_matter=front_matter,
            html=html,
            feed_entries=FEED_ENTRIES,
            listed=EXCLUSIONS_LISTED,
            md_page=_md_page,
        ),
        FEED_PATH: atom_feed(items, site_url(root), site_title),
    }
