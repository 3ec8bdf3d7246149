"""``venues.yaml``: where works appear, and how a record's venue becomes its BibTeX.

Each venue of the registry lists the *forms* a record writes it in (``ICLR {year}``), its kind,
its BibTeX entry type and its booktitle or journal, and the *aliases* a booktitle or journal calls
it by. A record's ``venue`` is looked up here (:meth:`Venues.place`), and the result gives its
citation (:func:`citation`): the entry type, the booktitle or journal (the record's own when it
gives a more exact one), and the year, which is the venue's year (the published version's) when
the form has one, else the record's ``year`` (the year of first appearance).

:func:`venue_problems` holds each record to its venue: an unknown venue (with a did-you-mean), a
published venue whose ``bibtex:`` still cites the preprint, and a booktitle or journal that names
another venue are errors that name both fields. :func:`redundant` is what ``masrl fmt`` drops: a
retired ``entry_type`` field and a booktitle or journal the registry gives word for word.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from masrl import _vocab as v
from masrl._problems import Problem
from masrl._schema import SINGLE_LINE_PATTERN
from masrl._schema_walk import dotted, schema_problems
from masrl._vocab import Taxonomy
from masrl._yaml import Document, YamlError, load_path

if TYPE_CHECKING:
    from masrl._records import Paper

VENUES_FILE = "venues.yaml"
SCHEMA_PATH = "schemas/venues.schema.json"
ID_PATTERN = r"^[a-z0-9]+(-[a-z0-9]+)*(?!\n)$"

# The kinds of venue, in the order the file lists them. Published kinds are cited as
# @inproceedings or @article naming the venue; a preprint or a submission is not yet published.
KINDS = ("conference", "workshop", "journal", "preprint", "submission", "web")
PUBLISHED = frozenset({"conference", "workshop", "journal"})
# The field that names the venue in each entry type that has one.
CONTAINER = {"inproceedings": "booktitle", "article": "journal"}
CONTAINERS = ("booktitle", "journal")
# The placeholders of forms (a year, free words) and of names (the record's arXiv id).
_FORM_SLOTS = {"{year}": r"(?P<year>(?:19|20)\d\d)", "{note}": r"(?P<note>[^()]*\S)"}
_NAME_SLOTS = ("{arxiv}",)
_YEAR = re.compile(r"\b(?:19|20)\d\d\b")
RETIRED = "entry_type"  # a record field the venue now gives; `masrl fmt` removes it


@dataclass(frozen=True)
class Venue:
    id: str
    name: str
    kind: str
    forms: tuple[str, ...]
    entry_type: str
    booktitle: str | None = None
    journal: str | None = None
    aliases: tuple[str, ...] = ()

    @property
    def published(self) -> bool:
        return self.kind in PUBLISHED

    @property
    def container(self) -> str | None:
        """The BibTeX field that names the venue: booktitle, journal, or None (misc)."""
        return CONTAINER.get(self.entry_type)

    @property
    def names(self) -> str | None:
        """The registry's booktitle or journal, placeholders unfilled."""
        return self.booktitle if self.container == "booktitle" else self.journal

    def example(self, year: int | None = None) -> str:
        """The first form, filled in: ``ICLR 2025``."""
        return fill_form(self.forms[0], year)


def fill_form(form: str, year: int | None) -> str:
    """*form* with its year, or without the year when there is none; ``{note}`` stays as written."""
    text = form.replace("{year}", str(year)) if year else form.replace(" {year}", "").replace("{year}", "")
    return text


@dataclass(frozen=True)
class Placed:
    """A record's venue found in the registry: the venue, the year and the free words written."""

    venue: Venue
    year: int | None
    note: str | None


@dataclass(frozen=True)
class Citation:
    """What a record's venue puts in its BibTeX entry."""

    entry_type: str
    year: int
    fields: tuple[tuple[str, str], ...]  # (name, plain text), the booktitle or journal first


@dataclass(frozen=True, eq=False)
class Venues:
    """The registry: every venue of ``venues.yaml``, in file order."""

    venues: tuple[Venue, ...] = ()
    loaded: bool = True  # False when venues.yaml is missing or broken: records are not checked against it
    _forms: list[tuple[re.Pattern[str], Venue]] = field(default_factory=list, repr=False)
    _aliases: list[tuple[re.Pattern[str], str, Venue]] = field(default_factory=list, repr=False)
    _placed: dict[str, Placed | None] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        for venue in self.venues:
            for form in venue.forms:
                pattern = re.escape(form)
                for slot, group in _FORM_SLOTS.items():
                    pattern = pattern.replace(re.escape(slot), group)
                self._forms.append((re.compile(f"^{pattern}$"), venue))
            for alias in venue.aliases:
                # Words in order, with any punctuation or space between them: "Linguistics: ACL"
                # also matches "Linguistics, {ACL}" as DBLP writes it.
                words = r"[\W_]+".join(re.escape(w) for w in re.findall(r"[^\W_]+", alias))
                self._aliases.append((re.compile(rf"(?<![\w-]){words}(?![\w-])", re.I), alias, venue))

    def by_id(self, venue_id: str) -> Venue:
        for venue in self.venues:
            if venue.id == venue_id:
                return venue
        raise KeyError(venue_id)

    def place(self, text: str) -> Placed | None:
        """The venue a record's *text* (``ICLR 2025``) writes, or None when no form matches."""
        if text in self._placed:
            return self._placed[text]
        found = None
        for pattern, venue in self._forms:
            m = pattern.match(text)
            if m:
                groups = m.groupdict()
                year = int(groups["year"]) if groups.get("year") else None
                found = Placed(venue, year, groups.get("note"))
                break
        self._placed[text] = found
        return found

    def suggestion(self, text: str, year: int | None = None) -> str | None:
        """The form nearest to an unknown *text*, filled in with *text*'s year (else *year*)."""
        found = _YEAR.search(text)
        when = int(found.group()) if found else year
        bare = _YEAR.sub("", text).split()
        written = [fill_form(form, when) for venue in self.venues for form in venue.forms if "{note}" not in form]
        # Compared without the year, so 'ICML' finds 'ICML {year}' and 'ICRL 2025' finds 'ICLR 2025'.
        by_words = {" ".join(_YEAR.sub("", w).split()).lower(): w for w in written}
        key = " ".join(bare).lower()
        near: str | None
        if key in by_words:
            near = by_words[key]
        else:
            # Letters swapped ('ICRL') are the commonest slip, and difflib ranks them no closer
            # than a letter changed ('ICML'): a same-letters match wins.
            swapped = [w for w in by_words if sorted(w) == sorted(key)]
            close = swapped or difflib.get_close_matches(key, list(by_words), n=1, cutoff=0.6)
            near = by_words[close[0]] if close else None
        return near if near != text else None

    def scores(self, text: str) -> dict[str, int]:
        """How strongly *text* (a booktitle or journal) names each venue: the length of its aliases found."""
        out: dict[str, int] = {}
        for pattern, alias, venue in self._aliases:
            if pattern.search(text):
                out[venue.id] = out.get(venue.id, 0) + len(alias)
        return out

    def named_in(self, text: str) -> Venue | None:
        """The venue *text* names most strongly, if it names one."""
        scores = self.scores(text)
        if not scores:
            return None
        best = max(scores.values())
        return next(v for v in self.venues if scores.get(v.id) == best)

    def house_venue(self, text: str, year: int | None) -> str | None:
        """*text* (a booktitle or journal from a citation or a source) as a form of the registry.

        ``Findings of the Association for Computational Linguistics: ACL 2024`` becomes ``Findings of
        ACL 2024``; the year in *text* wins over *year*. None when *text* names no venue, or names
        one whose forms need words the text cannot give (a submission's note).
        """
        venue = self.named_in(text)
        if venue is None:
            return None
        found = _YEAR.findall(text)
        when = int(found[-1]) if found else year
        for form in venue.forms:
            if "{note}" in form or ("{year}" in form) != bool(when):
                continue
            return fill_form(form, when)
        return None


# ---------------------------------------------------------------------------------------------
# Schema and loading


def _text(description: str) -> dict[str, Any]:
    return {"description": description, "type": "string", "minLength": 1, "pattern": SINGLE_LINE_PATTERN}


def venues_schema(taxonomy: Taxonomy) -> dict[str, Any]:
    """The JSON Schema 2020-12 document for ``venues.yaml``."""
    entry_types = taxonomy[v.ENTRY_TYPE]
    venue = {
        "type": "object",
        "properties": {
            "id": {
                "type": "string",
                "pattern": ID_PATTERN,
                "description": "Lower-case id: letters and digits, joined by -.",
            },
            "name": _text("The venue as the corpus names it in messages."),
            "kind": {
                "description": "conference, workshop or journal (published); preprint; submission (under review); web.",
                "enum": list(KINDS),
            },
            "forms": {
                "description": "How a record writes the venue; {year} stands for a year, {note} for free words.",
                "type": "array",
                "items": _text("One form, e.g. 'ICLR {year}'."),
                "minItems": 1,
                "uniqueItems": True,
            },
            "entry_type": {
                "description": "The BibTeX entry type of the venue's works.",
                "enum": list(entry_types.ids),
                "markdownEnumDescriptions": [f"**{x.label}**: {x.definition}" for x in entry_types.values],
            },
            "booktitle": _text("For @inproceedings: the proceedings' name."),
            "journal": _text("For @article: the journal's name; {arxiv} stands for the record's arXiv id."),
            "aliases": {
                "description": "Names a booktitle or journal calls the venue by (whole words, case ignored).",
                "type": "array",
                "items": _text("One name."),
                "minItems": 1,
                "uniqueItems": True,
            },
        },
        "required": ["id", "name", "kind", "forms", "entry_type"],
        "additionalProperties": False,
    }
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "urn:masrl:schema:venues",
        "title": "Venue registry",
        "description": f"Generated from taxonomy.yaml by `masrl build`; do not edit. Taxonomy version {taxonomy.version}.",
        "type": "object",
        "properties": {
            "version": {"type": "integer", "minimum": 1, "description": "Version of the venue file's layout."},
            "venues": {"description": "Every venue, grouped by kind.", "type": "array", "items": venue, "minItems": 1},
        },
        "required": ["version", "venues"],
        "additionalProperties": False,
    }


_PATTERN_HINTS = {ID_PATTERN: "a lower-case id (letters and digits, joined by -)"}


def _rule_problems(data: dict[str, Any], doc: Document, shown: str) -> Iterator[Problem]:
    """The rules a schema cannot express; run only on a document the schema accepts."""

    def at(path: tuple[str | int, ...], message: str) -> Problem:
        mark = doc.mark(path)
        return Problem(shown, mark.line, mark.column, dotted(path), message)

    ids: dict[str, int] = {}
    forms: dict[str, str] = {}
    for i, item in enumerate(data["venues"]):
        if item["id"] in ids:
            yield at(("venues", i, "id"), f"id {item['id']!r} is already used by venues[{ids[item['id']]}]")
        ids.setdefault(item["id"], i)
        for j, form in enumerate(item["forms"]):
            slots = re.findall(r"\{[^}]*\}", form)
            wrong = [s for s in slots if s not in _FORM_SLOTS]
            if wrong or len(set(slots)) != len(slots):
                yield at(
                    ("venues", i, "forms", j),
                    f"a form may hold {{year}} and {{note}} once each, not {', '.join(wrong or slots)}",
                )
            elif form in forms:
                yield at(("venues", i, "forms", j), f"form {form!r} is already a form of {forms[form]!r}")
            forms.setdefault(form, item["id"])
        container = CONTAINER.get(item["entry_type"])
        for name in CONTAINERS:
            if name in item and name != container:
                yield at(
                    ("venues", i, name),
                    f"an @{item['entry_type']} entry has no {name}"
                    + (f"; it names the venue in its {container}" if container else ""),
                )
            elif name in item:
                slots = re.findall(r"\{[^}]*\}", item[name])
                if any(s not in _NAME_SLOTS for s in slots):
                    yield at(("venues", i, name), f"{name} may hold {{arxiv}} only, not {', '.join(slots)}")
        if container and container not in item and item["kind"] != "workshop":
            yield at(
                ("venues", i),
                f"an @{item['entry_type']} venue needs its {container} (only a workshop leaves it to each record)",
            )
        if item["kind"] in PUBLISHED and item["entry_type"] not in CONTAINER:
            yield at(
                ("venues", i, "entry_type"),
                f"a {item['kind']} is published: its works are cited as @inproceedings or @article naming it",
            )


def check_venues(doc: Document, shown: str, taxonomy: Taxonomy) -> list[Problem]:
    """Every problem in the parsed registry *doc*: schema first, then the rules across venues."""
    problems = list(schema_problems(doc, venues_schema(taxonomy), shown, _PATTERN_HINTS))
    if not problems:
        problems.extend(_rule_problems(doc.data, doc, shown))
    return sorted(problems)


def build(data: Mapping[str, Any]) -> Venues:
    """The registry from data that passed :func:`check_venues`."""
    return Venues(
        tuple(
            Venue(
                id=item["id"],
                name=item["name"],
                kind=item["kind"],
                forms=tuple(item["forms"]),
                entry_type=item["entry_type"],
                booktitle=item.get("booktitle"),
                journal=item.get("journal"),
                aliases=tuple(item.get("aliases", ())),
            )
            for item in data["venues"]
        )
    )


NOT_LOADED = Venues((), loaded=False)


def read_venues(root: Path, taxonomy: Taxonomy, shown: str = VENUES_FILE) -> tuple[Venues, list[Problem]]:
    """The registry under *root* and its problems; :data:`NOT_LOADED` when it is missing or broken."""
    path = root / VENUES_FILE
    if not path.is_file():
        return NOT_LOADED, [
            Problem(shown, 1, 1, "", f"{VENUES_FILE} not found in {root}; every paper's venue is looked up there")
        ]
    try:
        doc = load_path(path)
    except YamlError as exc:
        return NOT_LOADED, [Problem(shown, exc.line, exc.column, "", exc.message)]
    problems = check_venues(doc, shown, taxonomy)
    if problems:
        return NOT_LOADED, problems
    return build(doc.data), []


# ---------------------------------------------------------------------------------------------
# A record's citation


def citation(paper: Paper, placed: Placed) -> Citation:
    """The BibTeX a record gets from its venue: entry type, year, then the booktitle or journal
    (the record's own, else the registry's) and the record's other extra fields."""
    venue = placed.venue
    fields: list[tuple[str, str]] = []
    container = venue.container
    if container:
        own = paper.bibtex.get(container)
        name = own or (venue.names or "").replace("{arxiv}", _bare(paper.arxiv))
        if name:
            fields.append((container, name))
    fields += [(k, val) for k, val in paper.bibtex.items() if k != container]
    return Citation(venue.entry_type, placed.year or paper.year, tuple(fields))


def _bare(arxiv: str | None) -> str:
    return re.sub(r"v\d+$", "", arxiv or "")


def redundant(data: Mapping[str, Any], venues: Venues) -> dict[str, Any]:
    """The changes that drop from raw record *data* what its venue already gives: a retired
    ``entry_type`` equal to the venue's, and a booktitle or journal equal to the registry's.

    Returned as changes for :func:`masrl._format.format_record` (None removes a field); empty when
    the venue is unknown or nothing is redundant.
    """
    text = data.get("venue")
    placed = venues.place(text) if isinstance(text, str) else None
    if placed is None:
        return {}
    venue = placed.venue
    changes: dict[str, Any] = {}
    if data.get(RETIRED) == venue.entry_type:
        changes[RETIRED] = None
    bib = data.get("bibtex")
    if isinstance(bib, dict) and venue.container and venue.names:
        arxiv = data.get("arxiv")
        given = venue.names.replace("{arxiv}", _bare(arxiv if isinstance(arxiv, str) else None))
        if bib.get(venue.container) == given:
            rest = {k: val for k, val in bib.items() if k != venue.container}
            changes["bibtex"] = rest or None
    return changes


# ---------------------------------------------------------------------------------------------
# Checking a record against its venue


def _line(doc: Document, path: tuple[str | int, ...]) -> int:
    return doc.mark(path).line


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
    where = f"venue (line {_line(doc, ('venue',))}) is {paper.venue!r}"
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
    paper: Paper, placed: Placed, text: str, path: tuple[str, str], where: str, at: Any
) -> Iterator[Problem]:
    """A booktitle naming the record's venue in another year than the venue's."""
    years = {int(y) for y in _YEAR.findall(text)}
    if placed.year is not None and years and placed.year not in years:
        shown = ", ".join(str(y) for y in sorted(years))
        yield at(path, f"bibtex.{path[1]} {text!r} names the year {shown}, but {where}: correct the one that is wrong")
