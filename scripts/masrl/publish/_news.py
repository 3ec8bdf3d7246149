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
from itertools import groupby
from pathlib import Path

from masrl.corpus import _vocab as v
from masrl.corpus._records import Corpus, Exclusion, Paper
from masrl.publish._log import exclusion_anchor, exclusion_log_pages

FEED_PATH = "site/docs/feed.xml"
PAGE_PATH = "site/docs/whats-new.md"
OLDER_DIR = "site/docs/whats-new"  # pages 2 to n: whats-new/<n>.md
MKDOCS = "site/mkdocs.yml"
FALLBACK_URL = "https://masrl.github.io/masrl/"  # where the feed points when mkdocs.yml names no site_url
FEED_ENTRIES = 50  # the newest items the feed carries; the pages list them all
EXCLUSIONS_LISTED = 20  # a day's exclusions beyond this are summed up on the page, not listed
LINES_PER_PAGE = 150  # list lines a page of What's new holds; older lines go on to whats-new/2.md, ...
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


@dataclass(frozen=True)
class Line:
    """One line of the What's new list: an item, or a day's exclusions summed up in one line."""

    kind: str  # "item", "excluded" (exclusions recorded) or "corrected" (exclusions corrected)
    items: tuple[Item, ...]

    @property
    def item(self) -> Item:
        return self.items[0]


def lines_by_day(items: list[Item], listed: int = EXCLUSIONS_LISTED) -> list[tuple[str, list[Line]]]:
    """The list lines of each day, newest day first: every paper item and the snapshot, and the
    day's exclusion items one by one if there are at most *listed*, else one line each for those
    recorded and those corrected."""
    days = []
    for day, group in groupby(items, key=lambda it: it.date):
        its = list(group)
        excluded = [it for it in its if it.kind == "exclusion"]
        fold = len(excluded) > listed
        lines = [Line("item", (it,)) for it in its if not (fold and it.kind == "exclusion")]
        if fold:
            added = tuple(it for it in excluded if it.action == "added")
            corrected = tuple(it for it in excluded if it.action != "added")
            lines += [Line(kind, its_) for kind, its_ in (("excluded", added), ("corrected", corrected)) if its_]
        days.append((day, lines))
    return days


def pages_of(days: list[tuple[str, list[Line]]], per_page: int = LINES_PER_PAGE) -> list[list[tuple[str, list[Line]]]]:
    """The days cut into pages of at most *per_page* lines, in order; a day longer than the room
    left on a page goes on over the next (it is headed on each page it is on)."""
    pages: list[list[tuple[str, list[Line]]]] = [[]]
    room = per_page
    for day, lines in days:
        while lines:
            if room == 0:
                pages.append([])
                room = per_page
            here, lines = lines[:room], lines[room:]
            pages[-1].append((day, here))
            room -= len(here)
    return pages


def page_path(number: int) -> str:
    """The Markdown file of page *number* (from 1) of What's new, relative to the repository root."""
    return PAGE_PATH if number == 1 else f"{OLDER_DIR}/{number}.md"


def render(corpus: Corpus, root: Path, site_title: str = "masrl: what is new") -> dict[str, str]:
    """The What's new pages and the feed, keyed by path relative to the repository root."""
    from masrl.publish._site import front_matter, html, site_environment

    items = news(corpus)
    template = site_environment().get_template("site/whats-new.md.j2")
    pages = pages_of(lines_by_day(items))
    out: dict[str, str] = {}
    for number, days in enumerate(pages, start=1):
        up = "" if number == 1 else "../"  # from whats-new/<n>.md back to the docs folder

        def link(n: int, up: str = up) -> str:
            """Page *n* as linked from this page: whats-new.md sits beside the docs folder's
            files, and the numbered pages beside each other in whats-new/."""
            if n == 1:
                return f"{up}whats-new.md"
            return f"{n}.md" if up else f"whats-new/{n}.md"

        out[page_path(number)] = template.render(
            days=days,
            continued=number > 1 and bool(days) and pages[number - 2][-1][0] == days[0][0],
            number=number,
            count=len(pages),
            spans=[(n, p[0][0], p[-1][0]) for n, p in enumerate(pages, start=1) if p],
            link=link,
            up=up,
            front_matter=front_matter,
            html=html,
            feed_entries=FEED_ENTRIES,
            md_page=lambda page, up=up: up + _md_page(page),
        )
    out[FEED_PATH] = atom_feed(items, site_url(root), site_title)
    return out
