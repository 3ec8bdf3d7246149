"""``protocol.yaml``: the search and screening protocol as data, its schema, checks and rounds.

The file lists the sources searched, the query families (their terms and the arXiv query that runs
each), the inclusion rules, the exclusion rules mapped to the taxonomy's reason codes, the
boundary rules that settle recurring edge cases (each with its precedents), the screening stages
and the search rounds. :func:`protocol_schema` is its JSON Schema (generated from the taxonomy,
since stages and reason codes are taxonomy ids); :func:`check_protocol` yields the schema's
problems and the rules a schema cannot say (unique ids, a window that ends after it starts,
rounds of one origin that do not overlap, a boundary case that names the rule it decides under,
the keys of a round's audit draws sorted and each drawn once). :func:`corpus_problems` checks what
the protocol and the records say of each other: precedents that name records, drawn keys that name
a paper and its audit, and the ``round`` and ``rule`` a record names. :func:`round_of` and
:func:`round_counts` say which round owns a record and what each round found.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from masrl.base._problems import Problem, Severity, did_you_mean, one_of
from masrl.corpus import _vocab as v
from masrl.corpus._load import display_path
from masrl.corpus._records import AUDITS_DIR, PAPERS_DIR, Corpus, Exclusion, Handle, Loaded, Paper
from masrl.corpus._schema import (
    DATE_PATTERN,
    KEY_PATTERN,
    PROTOCOL_ID_PATTERN,
    SINGLE_LINE_PATTERN,
    URL_PATTERN,
)
from masrl.corpus._schema_walk import dotted as _dotted
from masrl.corpus._schema_walk import schema_problems
from masrl.corpus._vocab import Taxonomy
from masrl.corpus._yaml import Document, YamlError, load_path

Path_ = tuple[str | int, ...]
PROTOCOL_FILE = "protocol.yaml"
SCHEMA_PATH = "schemas/protocol.schema.json"
ID_PATTERN = PROTOCOL_ID_PATTERN
BOUNDARY_ID_PATTERN = r"^B[1-9][0-9]*(?!\n)$"
# A precedent names a record: a paper key or an exclusion id.
PRECEDENT_PATTERN = r"^([a-z0-9]+(-[a-z0-9]+)*|E[0-9]{3,})(?!\n)$"
DISCOVER_SOURCES = ("arxiv", "openalex", "list")  # the sources `masrl discover` can read itself
CONTRIBUTIONS = "contributions"  # the "round" of records a contributor added outside any round
ROUND_ORIGINS = ("survey", "discovery")  # origins a round can own; contributor records belong to none
DECISIONS = ("include", "exclude")  # what a boundary case decides
# How a round owns records: those of its origin added inside its window (survey: all of them),
# or only the records that name it with `round:`. A round of named records may overlap others.
MEMBERSHIPS = ("window", "named")
# Where an arm's records enter a PRISMA 2020 flow: identification via databases and registers, or
# via other methods (websites, organisations, citation searching).
PRISMA_ROUTES = ("databases", "other")
MONTH_PATTERN = r"^[0-9]{4}-(0[1-9]|1[0-2])(?!\n)$"


class ProtocolError(Exception):
    """protocol.yaml is missing or broken; carries every problem found."""

    def __init__(self, problems: list[Problem]) -> None:
        super().__init__("\n".join(map(str, problems)))
        self.problems = problems


@dataclass(frozen=True)
class Source:
    id: str
    label: str
    discover: str | None


@dataclass(frozen=True)
class QueryFamily:
    id: str
    label: str
    terms: tuple[str, ...]
    arxiv_query: str | None


@dataclass(frozen=True)
class Rule:
    id: int
    text: str
    reasons: tuple[str, ...] = ()


@dataclass(frozen=True)
class Case:
    """One outcome of a boundary rule: what is decided, under which rule, when, and the precedents."""

    decision: str  # include or exclude
    when: str
    inclusion: int | None = None  # the inclusion rule an include case decides under
    reasons: tuple[str, ...] = ()  # the reason codes an exclude case records
    precedents: tuple[str, ...] = ()  # paper keys and exclusion ids


@dataclass(frozen=True)
class BoundaryRule:
    """A written clarification of a recurring edge case, so that the same kind of paper always
    gets the same decision."""

    id: str
    title: str
    why: str
    cases: tuple[Case, ...]

    @property
    def decision(self) -> str:
        """The rule's headline decision: its first case's."""
        return self.cases[0].decision

    def decides(self, decision: str) -> bool:
        return any(c.decision == decision for c in self.cases)


@dataclass(frozen=True)
class RoundSource:
    """One source a round searched: what it is (a protocol source), its name and when it was read."""

    source: str
    name: str
    date: str
    url: str | None = None
    version: str | None = None  # the commit or dated version read, for a list kept elsewhere
    query_family: str | None = None
    start: str | None = None  # the publication period a listing query covered
    end: str | None = None
    note: str | None = None


@dataclass(frozen=True)
class Arm:
    """One independent way of finding candidates (search, citations, lists): every candidate
    records each arm that found it in ``screening/found_by.csv``, and the overlap between arms gives
    the capture-recapture estimate of what is still missing."""

    id: str
    label: str
    prisma: str  # one of PRISMA_ROUTES
    sources: tuple[str, ...]  # the protocol sources the arm reads
    description: str = ""


@dataclass(frozen=True)
class Stopping:
    """When a round run by arms may close: the estimated recall's lower bound reaches
    *recall_lower_bound*, and the last *window* candidates screened in ranked order held at most
    *max_includes* includes."""

    recall_lower_bound: float
    window: int
    max_includes: int


@dataclass(frozen=True)
class Population:
    """The retained papers a round's estimate counts: of these categories, first out in the year of
    *since* or later (a record keeps the year of first appearance, not the day)."""

    categories: tuple[str, ...]
    since: str


@dataclass(frozen=True)
class Search:
    """One query of the search arm run over a listing, month by month: the hits of each month."""

    query_family: str
    date: str
    listing: str  # the listing searched, as the round's sources name it
    hits: tuple[tuple[str, int], ...]  # (YYYY-MM, hits) in month order

    @property
    def total(self) -> int:
        return sum(n for _, n in self.hits)


@dataclass(frozen=True)
class AuditDraw:
    """One random draw of papers for the blind second reading: ``random.Random(seed).sample``
    over the pool *drawn_from* describes, its keys sorted."""

    seed: int
    drawn_from: str
    keys: tuple[str, ...]


@dataclass(frozen=True)
class Round:
    id: str
    label: str
    start: str
    end: str
    cutoff: str
    origin: str
    reported: dict[str, int] | None
    membership: str = "window"
    sources: tuple[RoundSource, ...] = ()
    audit_draws: tuple[AuditDraw, ...] = ()  # the draws of the round's blind second reading
    population: Population | None = None  # set for a round run by arms: what its estimate counts
    searches: tuple[Search, ...] = ()  # the search arm's queries, month by month

    @property
    def by_arms(self) -> bool:
        """Whether the round was run by the protocol's arms (its estimate and stopping rule apply)."""
        return self.population is not None

    def contains(self, day: str) -> bool:
        return self.start <= day <= self.end

    @property
    def named(self) -> bool:
        """Whether the round owns only the records that name it."""
        return self.membership == "named"


@dataclass(frozen=True)
class Protocol:
    version: int
    sources: tuple[Source, ...]
    query_families: tuple[QueryFamily, ...]
    inclusion: tuple[Rule, ...]
    exclusion: tuple[Rule, ...]
    stages: tuple[str, ...]
    rounds: tuple[Round, ...]
    boundary_rules: tuple[BoundaryRule, ...] = ()
    arms: tuple[Arm, ...] = ()
    stopping: Stopping | None = None
    doc: Document | None = field(default=None, compare=False, repr=False)  # where each value stands

    def arm(self, arm_id: str) -> Arm:
        for a in self.arms:
            if a.id == arm_id:
                return a
        raise KeyError(arm_id)

    def family(self, family_id: str) -> QueryFamily:
        for f in self.query_families:
            if f.id == family_id:
                return f
        raise KeyError(family_id)

    @property
    def terms(self) -> tuple[str, ...]:
        """Every query term of every family, once each, in order."""
        return tuple(dict.fromkeys(t for f in self.query_families for t in f.terms))

    def rules_for(self, reason: str) -> tuple[Rule, ...]:
        """The exclusion rules recorded by reason code *reason*."""
        return tuple(r for r in self.exclusion if reason in r.reasons)

    def round(self, round_id: str) -> Round:
        for r in self.rounds:
            if r.id == round_id:
                return r
        raise KeyError(round_id)

    def discovery_round_error(self, round_id: str) -> str | None:
        """Why *round_id* cannot name the round of discovered records, or None when it can."""
        rounds = [r.id for r in self.rounds if r.origin == "discovery"]
        if round_id in rounds:
            return None
        return f"--round must be a discovery round of protocol.yaml ({', '.join(rounds)}), not {round_id!r}"

    def boundary(self, rule_id: str) -> BoundaryRule:
        for b in self.boundary_rules:
            if b.id == rule_id:
                return b
        raise KeyError(rule_id)

    def rule_refs(self, decision: str) -> tuple[str, ...]:
        """Every value a record of *decision* (include or exclude) may give as its ``rule``."""
        kind, rules = ("inclusion", self.inclusion) if decision == "include" else ("exclusion", self.exclusion)
        own = tuple(b.id for b in self.boundary_rules if b.decides(decision))
        return (*own, *(f"{kind} {r.id}" for r in rules))

    def last_closed_round(self, today: str) -> Round | None:
        """The latest round whose cutoff lies before *today*: a new search starts at its cutoff."""
        closed = [r for r in self.rounds if r.cutoff < today]
        return max(closed, key=lambda r: r.cutoff) if closed else None


# ---------------------------------------------------------------------------------------------
# Schema


def _text(description: str) -> dict[str, Any]:
    return {"description": description, "type": "string", "minLength": 1, "pattern": SINGLE_LINE_PATTERN}


def _date(description: str) -> dict[str, Any]:
    return {"description": description, "type": "string", "pattern": DATE_PATTERN, "format": "date"}


def _object(properties: dict[str, Any], required: list[str], description: str = "") -> dict[str, Any]:
    out: dict[str, Any] = {"type": "object", "properties": properties, "required": required}
    out["additionalProperties"] = False
    if description:
        out["description"] = description
    return out


def _list(items: dict[str, Any], description: str, unique: bool = False) -> dict[str, Any]:
    out = {"description": description, "type": "array", "items": items, "minItems": 1}
    if unique:
        out["uniqueItems"] = True
    return out


def _ids(taxonomy: Taxonomy, name: str) -> dict[str, Any]:
    f = taxonomy[name]
    return {"enum": list(f.ids), "markdownEnumDescriptions": [f"**{x.label}**: {x.definition}" for x in f.values]}


def protocol_schema(taxonomy: Taxonomy) -> dict[str, Any]:
    """The JSON Schema 2020-12 document for ``protocol.yaml``."""
    ident = {"type": "string", "pattern": ID_PATTERN, "description": "Lower-case id: letters, digits, _ or -."}
    rule_id = {"type": "integer", "minimum": 1, "description": "The rule's number."}
    source = _object(
        {
            "id": ident,
            "label": _text("The source as the protocol names it."),
            "discover": {
                "description": "The `masrl discover` source that searches it, if any.",
                "enum": list(DISCOVER_SOURCES),
            },
        },
        ["id", "label"],
    )
    family = _object(
        {
            "id": ident,
            "label": _text("The family's name."),
            "terms": _list(_text("A search term."), "The terms the family stands for.", unique=True),
            "arxiv_query": _text("The arXiv API search_query that runs the family."),
        },
        ["id", "label", "terms"],
    )
    inclusion = _object({"id": rule_id, "text": _text("The rule, one sentence.")}, ["id", "text"])
    exclusion = _object(
        {
            "id": rule_id,
            "text": _text("What an excluded entry is only, one sentence."),
            "reasons": _list(_ids(taxonomy, v.EXCLUSION_REASON), "Reason codes that record the rule.", unique=True),
        },
        ["id", "text", "reasons"],
    )
    boundary = _object(
        {
            "id": {
                "type": "string",
                "pattern": BOUNDARY_ID_PATTERN,
                "description": "B and a number, e.g. B3; records cite it in `rule:`.",
            },
            "title": _text("The edge case, in a few words."),
            "why": _text("Why the cases are decided as they are, in a sentence or two."),
            "cases": _list(
                _object(
                    {
                        "decision": {"description": "What the case decides.", "enum": list(DECISIONS)},
                        "inclusion": {**rule_id, "description": "An include case: the inclusion rule it holds under."},
                        "reasons": _list(
                            _ids(taxonomy, v.EXCLUSION_REASON),
                            "An exclude case: the reason codes recorded.",
                            unique=True,
                        ),
                        "when": _text("When the case applies, one sentence."),
                        "precedents": _list(
                            {
                                "type": "string",
                                "pattern": PRECEDENT_PATTERN,
                                "description": "A paper key or an exclusion id.",
                            },
                            "The records decided this way that set the precedent.",
                            unique=True,
                        ),
                    },
                    ["decision", "when"],
                ),
                "The outcomes, headline decision first.",
            ),
        },
        ["id", "title", "why", "cases"],
    )
    round_source = _object(
        {
            "source": {**ident, "description": "The id of one of the protocol's sources."},
            "name": _text("The source as searched: a list's repository and file, a survey, a query."),
            "date": _date("The day it was searched or read, YYYY-MM-DD."),
            "url": {"description": "Where it is (http or https).", "type": "string", "pattern": URL_PATTERN},
            "version": _text("The version read: a commit id, a release, or the date of the list."),
            "query_family": {**ident, "description": "The query family a listing query ran."},
            "start": _date("First day of the publication period searched."),
            "end": _date("Last day of the publication period searched."),
            "note": _text("What was read and how, one sentence."),
        },
        ["source", "name", "date"],
    )
    count = {"type": "integer", "minimum": 0}
    audit_draw = _object(
        {
            "seed": {
                "type": "integer",
                "minimum": 0,
                "description": "The seed of random.Random(seed).sample, a whole number.",
            },
            "drawn_from": _text("The pool drawn from, one sentence: which papers, how many, how many drawn."),
            "keys": _list(
                {
                    "type": "string",
                    "pattern": KEY_PATTERN,
                    "description": "A paper key; audits/<key>.yaml holds its reading.",
                },
                "The keys drawn, sorted; each paper is drawn once.",
            ),
        },
        ["seed", "drawn_from", "keys"],
    )
    month = {"type": "string", "pattern": MONTH_PATTERN, "description": "A month, YYYY-MM."}
    search = _object(
        {
            "query_family": {**ident, "description": "The query family run (its arxiv_query)."},
            "date": _date("The day the query was run, YYYY-MM-DD."),
            "listing": _text("The listing searched: the name of one of the round's sources."),
            "hits": {
                "description": "Hits per month of first appearance (YYYY-MM), every month searched, zeros kept.",
                "type": "object",
                "propertyNames": month,
                "additionalProperties": count,
                "minProperties": 1,
            },
        },
        ["query_family", "date", "listing", "hits"],
    )
    population = _object(
        {
            "categories": _list(_ids(taxonomy, v.CATEGORY), "The categories of retained papers counted.", unique=True),
            "since": _date("Papers first out on or after this day are counted."),
        },
        ["categories", "since"],
        "The retained papers the round's capture-recapture estimate counts.",
    )
    round_ = _object(
        {
            "id": ident,
            "label": _text("The round's name."),
            "start": _date("First day of the search window, YYYY-MM-DD."),
            "end": _date("Last day of the search window, YYYY-MM-DD."),
            "cutoff": _date("The round's cutoff: nothing published later is in it."),
            "origin": {
                "description": "The records it owns: all of that origin (survey), or those added in its window (discovery).",
                "enum": list(ROUND_ORIGINS),
            },
            "reported": _object(
                {"identified": count, "retained": count, "excluded": count},
                ["identified", "retained", "excluded"],
                "The counts the round's report published.",
            ),
            "membership": {
                "description": "window (default): it owns the records of its origin added in its window; named: only the records that name it with `round:`.",
                "enum": list(MEMBERSHIPS),
            },
            "sources": _list(round_source, "What the round searched, each named and dated."),
            "audit_draws": _list(
                audit_draw, "The random draws of papers for the blind second reading (`masrl audit --draw`)."
            ),
            "population": population,
            "searches": _list(search, "The search arm's queries, each run month by month over a listing."),
        },
        ["id", "label", "start", "end", "cutoff", "origin"],
    )
    arm = _object(
        {
            "id": ident,
            "label": _text("The arm's name."),
            "prisma": {
                "description": "Where its records enter a PRISMA 2020 flow: databases (and registers), or other methods.",
                "enum": list(PRISMA_ROUTES),
            },
            "sources": _list({**ident, "description": "A protocol source."}, "The sources the arm reads.", unique=True),
            "description": _text("How the arm searches, one sentence."),
        },
        ["id", "label", "prisma", "sources"],
    )
    stopping = _object(
        {
            "recall_lower_bound": {
                "type": "number",
                "exclusiveMinimum": 0,
                "maximum": 1,
                "description": "The estimated recall's 95% lower bound a round must reach to close.",
            },
            "window": {
                "type": "integer",
                "minimum": 1,
                "description": "How many of the last candidates screened in ranked order are looked at.",
            },
            "max_includes": {
                "type": "integer",
                "minimum": 0,
                "description": "At most this many of them may have been included.",
            },
        },
        ["recall_lower_bound", "window", "max_includes"],
        "When a round run by the arms may close: both criteria must hold.",
    )
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "urn:masrl:schema:protocol",
        "title": "Search and screening protocol",
        "description": f"Generated from taxonomy.yaml by `masrl build`; do not edit. Taxonomy version {taxonomy.version}.",
        **_object(
            {
                "version": {"type": "integer", "minimum": 1, "description": "Version of the protocol file's layout."},
                "sources": _list(source, "Where candidates are looked for."),
                "query_families": _list(family, "The query families."),
                "inclusion": _list(inclusion, "An entry is kept if at least one holds."),
                "exclusion": _list(exclusion, "An entry is dropped when it is only one of these."),
                "boundary_rules": _list(
                    boundary, "Written decisions for recurring edge cases, each with its precedents."
                ),
                "stages": _list(_ids(taxonomy, v.SCREENING_STAGE), "The screening stages, in order.", unique=True),
                "arms": _list(arm, "The independent search arms; each candidate records every arm that found it."),
                "stopping": stopping,
                "rounds": _list(round_, "The search rounds, oldest first."),
            },
            ["version", "sources", "query_families", "inclusion", "exclusion", "stages", "rounds"],
        ),
    }


# ---------------------------------------------------------------------------------------------
# Checking


def _schema_problems(doc: Document, schema: dict[str, Any], shown: str) -> Iterator[Problem]:
    """The problems JSON Schema validation of *doc* against *schema* would report
    (:func:`masrl.corpus._schema_walk.schema_problems`, with the protocol's pattern messages)."""
    return schema_problems(doc, schema, shown, _PATTERN_HINTS)


# What each pattern of the protocol schema asks for, in messages.
_PATTERN_HINTS = {
    DATE_PATTERN: "a date written YYYY-MM-DD",
    ID_PATTERN: "a lower-case id (letters, digits, _ or -)",
    MONTH_PATTERN: "a month written YYYY-MM",
    BOUNDARY_ID_PATTERN: "B and a number, e.g. 'B3'",
    PRECEDENT_PATTERN: "a paper key or an exclusion id such as 'E032'",
    URL_PATTERN: "an http(s) URL with no spaces",
    KEY_PATTERN: "a paper key such as 'at-grpo2025'",
}


def _rule_problems(data: dict[str, Any], doc: Document, shown: str) -> Iterator[Problem]:
    """The rules a schema cannot express; run only on a document the schema accepts."""

    def at(path: Path_, message: str) -> Problem:
        mark = doc.mark(path)
        return Problem(shown, mark.line, mark.column, _dotted(path), message)

    for section in ("sources", "query_families", "inclusion", "exclusion", "boundary_rules", "arms", "rounds"):
        seen: dict[Any, int] = {}
        for i, item in enumerate(data.get(section, ())):
            if item["id"] in seen:
                yield at((section, i, "id"), f"id {item['id']!r} is already used by {section}[{seen[item['id']]}]")
            else:
                seen[item["id"]] = i
    for i, item in enumerate(data["rounds"]):
        days: dict[str, dt.date] = {}
        for name in ("start", "end", "cutoff"):
            try:
                days[name] = dt.date.fromisoformat(item[name])
            except ValueError:
                yield at(("rounds", i, name), f"{name} must be a real date, not {item[name]!r}")
        if len(days) < 3:
            continue
        if days["end"] < days["start"]:
            yield at(("rounds", i, "end"), f"end {item['end']} must not be before start {item['start']}")
        if not days["start"] <= days["cutoff"] <= days["end"]:
            yield at(
                ("rounds", i, "cutoff"),
                f"cutoff {item['cutoff']} must lie in the window {item['start']} to {item['end']}",
            )
        for j, other in enumerate(data["rounds"][:i]):
            named = "named" in (other.get("membership"), item.get("membership"))
            if other["cutoff"] > item["cutoff"] or (other["cutoff"] == item["cutoff"] and not named):
                yield at(
                    ("rounds", i, "cutoff"),
                    f"rounds must be listed oldest first: cutoff {item['cutoff']} is not after rounds[{j}]'s {other['cutoff']}",
                )
            elif (
                other["origin"] == item["origin"] == "discovery"
                and not named
                and other["end"] >= item["start"]
                and other["end"] != item["start"]
            ):
                yield at(
                    ("rounds", i, "start"),
                    f"the window overlaps rounds[{j}] ({other['start']} to {other['end']}); a discovery record must belong to one round",
                )
    survey = [i for i, r in enumerate(data["rounds"]) if r["origin"] == "survey"]
    for i in survey[1:]:
        yield at(("rounds", i, "origin"), "only one round can own the survey's records (origin survey)")
    yield from _round_source_problems(data, at)
    yield from _arm_problems(data, at)
    yield from _boundary_problems(data, at)
    yield from _audit_draw_problems(data, at)


def _round_source_problems(data: dict[str, Any], at: Callable[[Path_, str], Problem]) -> Iterator[Problem]:
    """A round's sources name protocol sources and query families, on real dates in order."""
    sources = list(dict.fromkeys(s["id"] for s in data["sources"]))
    families = list(dict.fromkeys(f["id"] for f in data["query_families"]))
    for i, item in enumerate(data["rounds"]):
        if item.get("membership") == "named" and item["origin"] != "discovery":
            yield at(("rounds", i, "membership"), "only a discovery round can own the records that name it")
        for j, src in enumerate(item.get("sources", ())):
            where: Path_ = ("rounds", i, "sources", j)
            if src["source"] not in sources:
                yield at(
                    (*where, "source"),
                    f"source must be one of the protocol's sources ({', '.join(sources)}), not {src['source']!r}"
                    + did_you_mean(src["source"], sources),
                )
            family = src.get("query_family")
            if family is not None and family not in families:
                yield at(
                    (*where, "query_family"),
                    f"query_family must be one of {', '.join(families)}, not {family!r}"
                    + did_you_mean(family, families),
                )
            days: dict[str, dt.date] = {}
            for name in ("date", "start", "end"):
                if name in src:
                    try:
                        days[name] = dt.date.fromisoformat(src[name])
                    except ValueError:
                        yield at((*where, name), f"{name} must be a real date, not {src[name]!r}")
            if "start" in days and "end" in days and days["end"] < days["start"]:
                yield at((*where, "end"), f"end {src['end']} must not be before start {src['start']}")


def _arm_problems(data: dict[str, Any], at: Callable[[Path_, str], Problem]) -> Iterator[Problem]:
    """Arms read protocol sources; a round run by arms needs arms and a stopping rule; its
    searches run query families over one of its sources, in months inside its window."""
    sources = list(dict.fromkeys(s["id"] for s in data["sources"]))
    families = list(dict.fromkeys(f["id"] for f in data["query_families"]))
    for i, arm in enumerate(data.get("arms", ())):
        for j, source in enumerate(arm["sources"]):
            if source not in sources:
                yield at(
                    ("arms", i, "sources", j),
                    f"source must be one of the protocol's sources ({', '.join(sources)}), not {source!r}"
                    + did_you_mean(source, sources),
                )
    for i, item in enumerate(data["rounds"]):
        if "population" in item:
            if not data.get("arms"):
                yield at(("rounds", i, "population"), "a round run by arms needs the protocol's arms (arms: [...])")
            if "stopping" not in data:
                yield at(
                    ("rounds", i, "population"), "a round run by arms needs the protocol's stopping rule (stopping:)"
                )
        if item.get("searches") and "population" not in item:
            yield at(("rounds", i, "searches"), "only a round run by arms records searches; give its population")
        names = [s["name"] for s in item.get("sources", ())]
        first, last = item["start"][:7], item["end"][:7]
        for j, search in enumerate(item.get("searches", ())):
            where: Path_ = ("rounds", i, "searches", j)
            if search["query_family"] not in families:
                yield at(
                    (*where, "query_family"),
                    f"query_family must be one of {', '.join(families)}, not {search['query_family']!r}"
                    + did_you_mean(search["query_family"], families),
                )
            if search["listing"] not in names:
                yield at(
                    (*where, "listing"),
                    f"listing must name one of the round's sources, not {search['listing']!r}"
                    + did_you_mean(search["listing"], names),
                )
            months = list(search["hits"])
            for k, m in enumerate(months):
                if not first <= m <= last:
                    yield at((*where, "hits", m), f"month {m} lies outside the round's window ({first} to {last})")
                elif k and m <= months[k - 1]:
                    yield at((*where, "hits", m), f"months must be in order: {m} is listed after {months[k - 1]}")


def _boundary_problems(data: dict[str, Any], at: Callable[[Path_, str], Problem]) -> Iterator[Problem]:
    """Each boundary case names what it decides under: an include case its inclusion rule, an
    exclude case its reason codes."""
    inclusion = [r["id"] for r in data["inclusion"]]
    for i, rule in enumerate(data.get("boundary_rules", ())):
        for j, case in enumerate(rule["cases"]):
            where: Path_ = ("boundary_rules", i, "cases", j)
            if case["decision"] == "include":
                if "inclusion" not in case:
                    yield at(
                        (*where, "decision"), "an include case names the inclusion rule it holds under (inclusion: N)"
                    )
                elif case["inclusion"] not in inclusion:
                    yield at(
                        (*where, "inclusion"),
                        f"inclusion must be the number of an inclusion rule ({', '.join(map(str, inclusion))}), not {case['inclusion']}",
                    )
                if "reasons" in case:
                    yield at(
                        (*where, "reasons"), "an include case records no reason codes; they belong to exclude cases"
                    )
            else:
                if "reasons" not in case:
                    yield at((*where, "decision"), "an exclude case lists the reason codes it records (reasons: [...])")
                if "inclusion" in case:
                    yield at((*where, "inclusion"), "an exclude case holds under no inclusion rule; give its reasons")


def _audit_draw_problems(data: dict[str, Any], at: Callable[[Path_, str], Problem]) -> Iterator[Problem]:
    """A draw lists its keys sorted, as `masrl audit --draw` prints them, and no paper is drawn
    twice, in one draw or across the draws of every round."""
    first: dict[str, Path_] = {}
    for i, item in enumerate(data["rounds"]):
        for j, draw in enumerate(item.get("audit_draws", ())):
            keys = draw["keys"]
            for k, key in enumerate(keys):
                where: Path_ = ("rounds", i, "audit_draws", j, "keys", k)
                if k and key < keys[k - 1]:
                    yield at(where, f"keys must be sorted: {key!r} is listed after {keys[k - 1]!r}")
                if key in first:
                    yield at(
                        where,
                        f"{key!r} is drawn twice (first at {_dotted(first[key])}); a paper gets one second reading",
                    )
                else:
                    first[key] = where


def check_protocol(doc: Document, shown: str, taxonomy: Taxonomy) -> list[Problem]:
    """Every problem in the parsed protocol *doc*: schema first, then the rules across items."""
    problems = list(_schema_problems(doc, protocol_schema(taxonomy), shown))
    if not problems:
        problems.extend(_rule_problems(doc.data, doc, shown))
    return sorted(problems)


def read_protocol(root: Path, taxonomy: Taxonomy) -> tuple[Protocol | None, list[Problem]]:
    """Load ``protocol.yaml`` under *root*: the protocol (None if it has errors) and its problems."""
    path = root / PROTOCOL_FILE
    shown = display_path(path)
    try:
        doc = load_path(path)
    except YamlError as exc:
        return None, [Problem(shown, exc.line, exc.column, "", exc.message)]
    problems = check_protocol(doc, shown, taxonomy)
    if problems:
        return None, problems
    return build(doc.data, doc), []


def load_protocol(root: Path, taxonomy: Taxonomy) -> Protocol:
    """The protocol under *root*, or :class:`ProtocolError` with every problem."""
    if not (root / PROTOCOL_FILE).is_file():
        raise ProtocolError([Problem(PROTOCOL_FILE, 1, 1, "", f"{PROTOCOL_FILE} not found in {root}")])
    protocol, problems = read_protocol(root, taxonomy)
    if protocol is None:
        raise ProtocolError(problems)
    return protocol


def _case(data: dict[str, Any]) -> Case:
    return Case(
        data["decision"],
        data["when"],
        data.get("inclusion"),
        tuple(data.get("reasons", ())),
        tuple(data.get("precedents", ())),
    )


def _round_source(data: dict[str, Any]) -> RoundSource:
    return RoundSource(
        data["source"],
        data["name"],
        data["date"],
        data.get("url"),
        data.get("version"),
        data.get("query_family"),
        data.get("start"),
        data.get("end"),
        data.get("note"),
    )


def _population(data: dict[str, Any] | None) -> Population | None:
    return None if data is None else Population(tuple(data["categories"]), data["since"])


def build(data: dict[str, Any], doc: Document | None = None) -> Protocol:
    """A :class:`Protocol` from data that passed :func:`check_protocol` (*doc*: where it stands)."""
    return Protocol(
        version=data["version"],
        sources=tuple(Source(s["id"], s["label"], s.get("discover")) for s in data["sources"]),
        query_families=tuple(
            QueryFamily(f["id"], f["label"], tuple(f["terms"]), f.get("arxiv_query")) for f in data["query_families"]
        ),
        inclusion=tuple(Rule(r["id"], r["text"]) for r in data["inclusion"]),
        exclusion=tuple(Rule(r["id"], r["text"], tuple(r["reasons"])) for r in data["exclusion"]),
        stages=tuple(data["stages"]),
        rounds=tuple(
            Round(
                r["id"],
                r["label"],
                r["start"],
                r["end"],
                r["cutoff"],
                r["origin"],
                dict(r["reported"]) if "reported" in r else None,
                r.get("membership", "window"),
                tuple(_round_source(x) for x in r.get("sources", ())),
                tuple(AuditDraw(int(d["seed"]), d["drawn_from"], tuple(d["keys"])) for d in r.get("audit_draws", ())),
                _population(r.get("population")),
                tuple(
                    Search(x["query_family"], x["date"], x["listing"], tuple((m, int(n)) for m, n in x["hits"].items()))
                    for x in r.get("searches", ())
                ),
            )
            for r in data["rounds"]
        ),
        arms=tuple(
            Arm(a["id"], a["label"], a["prisma"], tuple(a["sources"]), a.get("description", ""))
            for a in data.get("arms", ())
        ),
        stopping=(
            Stopping(float(x["recall_lower_bound"]), int(x["window"]), int(x["max_includes"]))
            if (x := data.get("stopping"))
            else None
        ),
        boundary_rules=tuple(
            BoundaryRule(b["id"], b["title"], b["why"], tuple(_case(c) for c in b["cases"]))
            for b in data.get("boundary_rules", ())
        ),
        doc=doc,
    )


# ---------------------------------------------------------------------------------------------
# Rounds


def round_of(record: Paper | Exclusion, protocol: Protocol) -> str | None:
    """The id of the round that owns *record*, :data:`CONTRIBUTIONS` for a contributor's record,
    or None for a discovery record added outside every round's window.

    A record that names its round (``round:``) belongs to it; the others belong to the round of
    their origin whose window holds the day they were added (the survey's round holds all of the
    survey's records). A round of named records (``membership: named``) owns no other record.
    """
    if record.round is not None:
        return record.round
    origin = record.origin
    if origin not in ROUND_ORIGINS:
        return CONTRIBUTIONS
    for r in protocol.rounds:
        if r.named:
            continue
        if r.origin == origin and (origin == "survey" or r.contains(record.added)):
            return r.id
    return None


def round_counts(corpus: Corpus, protocol: Protocol) -> dict[str, dict[str, Any]]:
    """PRISMA-style counts per round, in protocol order, then contributions and unassigned records.

    Each entry: ``identified`` (retained + excluded), ``excluded`` with ``by_stage`` (every
    screening stage of the taxonomy, zeros included), and ``retained``.
    """
    stages = corpus.taxonomy.ids(v.SCREENING_STAGE)
    keys = [r.id for r in protocol.rounds] + [CONTRIBUTIONS, "unassigned"]
    out: dict[str, dict[str, Any]] = {
        k: {"identified": 0, "excluded": 0, "by_stage": dict.fromkeys(stages, 0), "retained": 0} for k in keys
    }
    for p in corpus.papers:
        counts = out.get(round_of(p, protocol) or "unassigned", out["unassigned"])
        counts["retained"] += 1
        counts["identified"] += 1
    for e in corpus.exclusions:
        counts = out.get(round_of(e, protocol) or "unassigned", out["unassigned"])
        counts["excluded"] += 1
        counts["identified"] += 1
        counts["by_stage"][e.stage] += 1
    return out


# ---------------------------------------------------------------------------------------------
# The protocol and the records


def corpus_problems(protocol: Protocol, shown: str, corpus: Corpus, handles: list[Handle]) -> Iterator[Problem]:
    """What the protocol and the records say of each other that cannot hold.

    * every precedent of a boundary rule names a record (an error at its line in *shown*, the
      protocol file); one decided the other way than its case is a warning: re-decide the
      record or move the precedent;
    * every key of a round's audit draws names a paper and that paper's audit record;
    * a record's ``round`` is a round of the protocol that can own it (same origin);
    * a record's ``rule`` exists and decides the way the record went: a paper cites a boundary
      rule with an include case or an inclusion rule, an exclusion one with an exclude case or an
      exclusion rule; and an exclusion's rule records one of its reasons (:func:`reason_misfit`).

    *handles* stand for every parsed record (records with other errors too), so a precedent that
    names a broken record is not reported as missing.
    """
    kinds = {h.name: h.kind for h in handles if h.name and h.kind in ("paper", "exclusion")}
    doc = protocol.doc
    for i, rule in enumerate(protocol.boundary_rules):
        for j, case in enumerate(rule.cases):
            for k, name in enumerate(case.precedents):
                mark = doc.mark(("boundary_rules", i, "cases", j, "precedents", k)) if doc else None
                line, column = (mark.line, mark.column) if mark else (1, 1)
                field_ = f"boundary_rules[{i}].cases[{j}].precedents[{k}]"
                kind = kinds.get(name)
                if kind is None:
                    where = "exclusions/" if name.startswith("E") and name[1:].isdigit() else "papers/"
                    yield Problem(shown, line, column, field_, f"precedent {name!r} names no record in {where}")
                elif (kind == "paper") != (case.decision == "include"):
                    now = "retained" if kind == "paper" else "excluded"
                    yield Problem(
                        shown,
                        line,
                        column,
                        field_,
                        f"precedent {name!r} is {now}, but this case of {rule.id} decides {case.decision}; "
                        "re-decide the record or move the precedent",
                        Severity.WARNING,
                    )
    yield from _drawn_key_problems(protocol, shown, handles)
    docs = {h.shown: h.doc for h in handles}
    rounds = {r.id: r for r in protocol.rounds}
    refs = {d: protocol.rule_refs(d) for d in DECISIONS}
    records: list[Paper | Exclusion] = [*corpus.papers, *corpus.exclusions]
    for record in records:
        rec_doc = docs.get(record.path)
        decision = "include" if isinstance(record, Paper) else "exclude"

        def at(name: str, message: str, record: Paper | Exclusion = record, rec_doc: Any = rec_doc) -> Problem:
            mark = rec_doc.mark((name,)) if rec_doc else None
            return Problem(record.path, mark.line if mark else 1, mark.column if mark else 1, name, message)

        if record.round is not None:
            owner = rounds.get(record.round)
            if owner is None:
                ids = list(rounds)
                yield at(
                    "round",
                    f"round must be one of the rounds of {PROTOCOL_FILE} ({', '.join(ids)}), not {record.round!r}"
                    + did_you_mean(record.round, ids),
                )
            elif owner.origin != record.origin:
                yield at(
                    "round",
                    f"round {owner.id!r} owns records of origin {owner.origin}; this record's origin is {record.origin}",
                )
        if record.rule is not None:
            allowed = refs[decision]
            if record.rule not in allowed:
                other = refs["exclude" if decision == "include" else "include"]
                kind = "an excluded" if decision == "exclude" else "a retained"
                hint = (
                    f" ({record.rule} decides only the other way)"
                    if record.rule in other
                    else did_you_mean(record.rule, list(allowed))
                )
                yield at("rule", f"rule must be one of {one_of(allowed)} for {kind} record, not {record.rule!r}{hint}")
            elif isinstance(record, Exclusion):
                misfit = reason_misfit(protocol, record.rule, record.reasons)
                if misfit:
                    yield at("rule", misfit)


def reason_misfit(protocol: Protocol, rule: str, reasons: tuple[str, ...]) -> str | None:
    """Why an exclusion with *reasons* cannot rest on *rule* (a boundary rule or ``exclusion N``
    that exists and excludes), or None when the rule records one of those reasons: a boundary rule
    needs an exclude case with one of them, an exclusion rule must list one of them."""
    mine = set(reasons)
    shown = ", ".join(reasons)
    if rule.startswith("exclusion "):
        listed = next(r.reasons for r in protocol.exclusion if f"exclusion {r.id}" == rule)
        if mine & set(listed):
            return None
        return (
            f"rule {rule!r} must list one of the record's reasons ({shown}); it lists {one_of(listed)}: "
            "cite the rule that fits, or correct reasons"
        )
    try:
        boundary = protocol.boundary(rule)
    except KeyError:
        return None
    cases = [c for c in boundary.cases if c.decision == "exclude"]
    if any(mine & set(c.reasons) for c in cases):
        return None
    recorded = list(dict.fromkeys(r for c in cases for r in c.reasons))
    return (
        f"rule {rule} must have an exclude case with one of the record's reasons ({shown}); its exclude cases "
        f"record {one_of(recorded)}: cite the rule that fits, or correct reasons"
    )


def _drawn_key_problems(protocol: Protocol, shown: str, handles: list[Handle]) -> Iterator[Problem]:
    """Each key drawn for a second reading names a paper, and the paper has its audit record."""
    papers = {h.name for h in handles if h.kind == "paper" and h.name}
    audits = {h.name for h in handles if h.kind == "audit" and h.name}
    doc = protocol.doc
    for i, round_ in enumerate(protocol.rounds):
        for j, draw in enumerate(round_.audit_draws):
            for k, key in enumerate(draw.keys):
                path: Path_ = ("rounds", i, "audit_draws", j, "keys", k)
                mark = doc.mark(path) if doc else None
                line, column = (mark.line, mark.column) if mark else (1, 1)
                if key not in papers:
                    message = f"{key!r} names no record in {PAPERS_DIR}/"
                elif key not in audits:
                    message = f"{key!r} was drawn for a second reading but {AUDITS_DIR}/{key}.yaml is missing"
                else:
                    continue
                yield Problem(shown, line, column, _dotted(path), message)


def check_with_records(root: Path, loaded: Loaded) -> tuple[Protocol | None, list[Problem]]:
    """The protocol under *root* (None if missing or broken) and every problem of it and of what
    it and the records say of each other (:func:`corpus_problems`). Without protocol.yaml, the
    records that name a round or a rule cannot be checked: one problem says so, naming them."""
    path = root / PROTOCOL_FILE
    if not path.is_file():
        records: list[Paper | Exclusion] = [*loaded.corpus.papers, *loaded.corpus.exclusions]
        citing = sorted(r.path for r in records if r.round is not None or r.rule is not None)
        if not citing:
            return None, []
        shown = ", ".join(citing[:3]) + (f" and {len(citing) - 3} more" if len(citing) > 3 else "")
        message = (
            f"{PROTOCOL_FILE} not found in {display_path(root)}, so the rounds and rules named by "
            f"{len(citing)} record{'s' if len(citing) != 1 else ''} cannot be checked ({shown})"
        )
        return None, [Problem(PROTOCOL_FILE, 1, 1, "", message)]
    protocol, problems = read_protocol(root, loaded.corpus.taxonomy)
    if protocol is None:
        return None, problems
    return protocol, sorted(corpus_problems(protocol, display_path(path), loaded.corpus, loaded.handles))
