"""A paper and its venue: the citation the registry gives it, and every way it disagrees with it.

:func:`citation` gives a record's BibTeX from its venue: the entry type, the booktitle or journal
(the record's own when it gives a more exact one), and the year, which is the venue's year (the
published version's) when the form has one, else the record's ``year`` (the year of first
appearance).

:func:`venue_problems` holds each record to its venue: an unknown venue (with a did-you-mean), a
published venue whose ``bibtex:`` still cites the preprint, and a booktitle or journal that names
another venue are errors that name both fields. The registry itself is :mod:`masrl.corpus._venues`.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from masrl.base._problems import Problem
from masrl.corpus._records import Paper
from masrl.corpus._schema_walk import dotted
from masrl.corpus._venues import CONTAINERS, VENUES_FILE, YEAR, Citation, Placed, Venues, bare_arxiv
from masrl.corpus._yaml import Document


def citation(paper: Paper, placed: Placed) -> Citation:
    """The BibTeX a record gets from its venue: entry type, year, then the booktitle or journal
    (the record's own, else the registry's) and the record's other extra fields."""
    venue = placed.venue
    fields: list[tuple[str, str]] = []
    container = venue.container
    if container:
        own = paper.bibtex.get(container)
        name = own or (venue.names or "").replace("{arxiv}", bare_arxiv(paper.arxiv))
        if name:
            fields.append((container, name))
    fields += [(k, val) for k, val in paper.bibtex.items() if k != container]
    return Citation(venue.entry_type, placed.year or paper.year, tuple(fields))


def _line(doc: Document, path: tuple[str | int, ...]) -> int:
    return doc.mark(path).line


class _Where:
    """Where a record writes its venue, as messages say it: "venue (line 9) is 'ICLR 2025'". The
    line is found only when a message is written (finding it may read the record again)."""

    def __init__(self, paper: Paper, doc: Document) -> None:
        self.paper, self.doc = paper, doc

    def __str__(self) -> str:
        return f"venue (line {_line(self.doc, ('venue',))}) is {self.paper.venue!r}"


def venue_problems(paper: Paper, venues: Venues, doc: Document) -> Iterator[Problem]:
    """Every way *paper* disagrees with its venue in the registry."""

    def at(path: tuple[str | int, ...], message: str) -> Problem:
        mark = doc.mark(path)
        return Problem(paper.path, mark.line, mark.column, dotted(path), message)

    placed = venues.place(paper.venue)
    if placed is None:
        near = venues.suggestion(paper.venue, paper.year)
        hint = f" (did you mean '{near}'?)" if near else ""
        yield at(
            ("venue",),
            f"venue {paper.venue!r} is not in {VENUES_FILE}{hint}; write one of its forms, or add the venue there",
        )
        return
    venue = placed.venue
    where = _Where(paper, doc)
    if placed.year is not None and placed.year < paper.year:
        yield at(
            ("year",),
            f"year {paper.year} is later than the venue's year ({where}); year is the year of first appearance, "
            "never after the published version",
        )
    if venue.container and "{arxiv}" in (venue.names or "") and not paper.arxiv and venue.container not in paper.bibtex:
        yield at(("venue",), f"venue {paper.venue!r} is cited by its arXiv id: set arxiv, or name another venue")
    if venue.kind == "workshop" and not venue.names and "booktitle" not in paper.bibtex:
        yield at(
            ("venue",),
            f"venue {paper.venue!r} is a workshop: give its own name in bibtex.booktitle",
        )
    for name in CONTAINERS:
        text = paper.bibtex.get(name)
        if text is None:
            continue
        path = ("bibtex", name)
        named = venues.named_in(text)
        if venue.published and named is not None and named.kind == "preprint":
            given = f" cites it with {venue.container} {venue.names!r}" if venue.names else ""
            yield at(
                path,
                f"bibtex.{name} {text!r} cites the preprint, but {where}, a published {venue.kind}: "
                f"remove bibtex.{name} ({VENUES_FILE}{given})",
            )
            continue
        if name != venue.container:
            takes = f"which names it in {venue.container}" if venue.container else "which names no venue"
            yield at(
                path,
                f"bibtex.{name} {text!r} does not fit: {where}, cited as @{venue.entry_type}, {takes}; "
                f"remove bibtex.{name}",
            )
            continue
        scores = venues.scores(text)
        if named is None or named.id == venue.id or scores.get(venue.id, 0) >= scores[named.id]:
            yield from _year_named(paper, placed, text, path, where, at)
            continue
        yield at(
            path,
            f"bibtex.{name} {text!r} names {named.name}, but {where} ({venue.name}): correct the one that is wrong",
        )


def _year_named(
    paper: Paper, placed: Placed, text: str, path: tuple[str, str], where: _Where, at: Any
) -> Iterator[Problem]:
    """A booktitle naming the record's venue in another year than the venue's."""
    years = {int(y) for y in YEAR.findall(text)}
    if placed.year is not None and years and placed.year not in years:
        shown = ", ".join(str(y) for y in sorted(years))
        yield at(path, f"bibtex.{path[1]} {text!r} names the year {shown}, but {where}: correct the one that is wrong")
