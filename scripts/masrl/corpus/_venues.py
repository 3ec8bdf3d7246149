"""``venues.yaml``: where works appear, and the forms, entry types and names each venue is cited by.

Each venue of the registry lists the *forms* a record writes it in (``ICLR {year}``), its kind,
its BibTeX entry type and its booktitle or journal, and the *aliases* a booktitle or journal calls
it by. A record's ``venue`` is looked up here (:meth:`Venues.place`); what the result makes of a
paper, its citation and the rules that hold it to its venue, is :mod:`masrl.corpus._citation`.

:func:`redundant` is what ``masrl fmt`` drops: a retired ``entry_type`` field and a booktitle or
journal the registry gives word for word.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from masrl.base._problems import Problem
from masrl.corpus import _vocab as v
from masrl.corpus._schema import SINGLE_LINE_PATTERN
from masrl.corpus._schema_walk import dotted, schema_problems
from masrl.corpus._vocab import Taxonomy
from masrl.corpus._yaml import Document, YamlError, load_path

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
YEAR = re.compile(r"\b(?:19|20)\d\d\b")
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
    # Each form as (its text before the first slot, its pattern), compiled only when a record's
    # venue starts with that text: a run meets a few dozen of the registry's forms, not all of them.
    _forms: list[tuple[str, str, Venue]] = field(default_factory=list, repr=False)
    _compiled: dict[str, re.Pattern[str]] = field(default_factory=dict, repr=False)
    _aliases: list[tuple[str, str, Venue]] = field(default_factory=list, repr=False)
    _placed: dict[str, Placed | None] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        for venue in self.venues:
            for form in venue.forms:
                pattern = re.escape(form)
                for slot, group in _FORM_SLOTS.items():
                    pattern = pattern.replace(re.escape(slot), group)
                literal = form.split("{", 1)[0]
                self._forms.append((literal, f"^{pattern}$", venue))

    def _alias_patterns(self, text: str) -> Iterator[tuple[re.Pattern[str], str, Venue]]:
        """The aliases that could be named in *text* (their first word is in it), as patterns;
        each is compiled the first time a text holds its first word."""
        if not self._aliases:
            for venue in self.venues:
                for alias in venue.aliases:
                    head = re.findall(r"[^\W_]+", alias)[:1]
                    self._aliases.append((head[0].lower() if head else "", alias, venue))
        lowered = text.lower()
        for first, alias, venue in self._aliases:
            if first not in lowered:
                continue
            pattern = self._compiled.get(alias)
            if pattern is None:
                # Words in order, with any punctuation or space between them: "Linguistics: ACL"
                # also matches "Linguistics, {ACL}" as DBLP writes it.
                joined = r"[\W_]+".join(re.escape(w) for w in re.findall(r"[^\W_]+", alias))
                pattern = self._compiled[alias] = re.compile(rf"(?<![\w-]){joined}(?![\w-])", re.I)
            yield pattern, alias, venue

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
        for literal, source, venue in self._forms:
            if not text.startswith(literal):
                continue
            pattern = self._compiled.get(source)
            if pattern is None:
                pattern = self._compiled[source] = re.compile(source)
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
        found = YEAR.search(text)
        when = int(found.group()) if found else year
        bare = YEAR.sub("", text).split()
        written = [fill_form(form, when) for venue in self.venues for form in venue.forms if "{note}" not in form]
        # Compared without the year, so 'ICML' finds 'ICML {year}' and 'ICRL 2025' finds 'ICLR 2025'.
        by_words = {" ".join(YEAR.sub("", w).split()).lower(): w for w in written}
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
        for pattern, alias, venue in self._alias_patterns(text):
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
        found = YEAR.findall(text)
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


def bare_arxiv(arxiv: str | None) -> str:
    return re.sub(r"v\d+$", "", arxiv or "")


def redundant(data: Mapping[str, Any], venues: Venues) -> dict[str, Any]:
    """The changes that drop from raw record *data* what its venue already gives: a retired
    ``entry_type`` equal to the venue's, and a booktitle or journal equal to the registry's.

    Returned as changes for :func:`masrl.corpus._format.format_record` (None removes a field); empty when
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
        given = venue.names.replace("{arxiv}", bare_arxiv(arxiv if isinstance(arxiv, str) else None))
        if bib.get(venue.container) == given:
            rest = {k: val for k, val in bib.items() if k != venue.container}
            changes["bibtex"] = rest or None
    return changes
