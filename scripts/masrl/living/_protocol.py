"""``protocol.yaml``: the search and screening protocol as data, its schema, checks and rounds.

The file lists the sources searched, the query families (their terms and the arXiv query that runs
each), the inclusion rules, the exclusion rules mapped to the taxonomy's reason codes, the
screening stages and the search rounds. :func:`protocol_schema` is its JSON Schema (generated from
the taxonomy, since stages and reason codes are taxonomy ids); :func:`check_protocol` yields the
schema's problems and the rules a schema cannot say (unique ids, a window that ends after it
starts, rounds of one origin that do not overlap). :func:`round_of` and :func:`round_counts` say
which round owns a record and what each round found.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from masrl import _vocab as v
from masrl._problems import Problem
from masrl._records import Corpus, Exclusion, Paper, display_path
from masrl._schema import DATE_PATTERN, SINGLE_LINE_PATTERN
from masrl._schema_walk import dotted as _dotted
from masrl._schema_walk import schema_problems
from masrl._vocab import Taxonomy
from masrl._yaml import Document, YamlError, load_path

PROTOCOL_FILE = "protocol.yaml"
SCHEMA_PATH = "schemas/protocol.schema.json"
ID_PATTERN = r"^[a-z0-9]+([_-][a-z0-9]+)*(?!\n)$"
DISCOVER_SOURCES = ("arxiv", "openalex")  # the sources `masrl discover` can search itself
CONTRIBUTIONS = "contributions"  # the "round" of records a contributor added outside any round
ROUND_ORIGINS = ("survey", "discovery")  # origins a round can own; contributor records belong to none


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
class Round:
    id: str
    label: str
    start: str
    end: str
    cutoff: str
    origin: str
    reported: dict[str, int] | None

    def contains(self, day: str) -> bool:
        return self.start <= day <= self.end


@dataclass(frozen=True)
class Protocol:
    version: int
    sources: tuple[Source, ...]
    query_families: tuple[QueryFamily, ...]
    inclusion: tuple[Rule, ...]
    exclusion: tuple[Rule, ...]
    stages: tuple[str, ...]
    rounds: tuple[Round, ...]

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
    count = {"type": "integer", "minimum": 0}
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
        },
        ["id", "label", "start", "end", "cutoff", "origin"],
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
                "stages": _list(_ids(taxonomy, v.SCREENING_STAGE), "The screening stages, in order.", unique=True),
                "rounds": _list(round_, "The search rounds, oldest first."),
            },
            ["version", "sources", "query_families", "inclusion", "exclusion", "stages", "rounds"],
        ),
    }


# ---------------------------------------------------------------------------------------------
# Checking


def _schema_problems(doc: Document, schema: dict[str, Any], shown: str) -> Iterator[Problem]:
    """The problems JSON Schema validation of *doc* against *schema* would report
    (:func:`masrl._schema_walk.schema_problems`, with the protocol's pattern messages)."""
    return schema_problems(doc, schema, shown, _PATTERN_HINTS)


# What each pattern of the protocol schema asks for, in messages.
_PATTERN_HINTS = {DATE_PATTERN: "a date written YYYY-MM-DD", ID_PATTERN: "a lower-case id (letters, digits, _ or -)"}


def _rule_problems(data: dict[str, Any], doc: Document, shown: str) -> Iterator[Problem]:
    """The rules a schema cannot express; run only on a document the schema accepts."""

    def at(path: tuple[str | int, ...], message: str) -> Problem:
        mark = doc.mark(path)
        return Problem(shown, mark.line, mark.column, _dotted(path), message)

    for section in ("sources", "query_families", "inclusion", "exclusion", "rounds"):
        seen: dict[Any, int] = {}
        for i, item in enumerate(data[section]):
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
            if other["cutoff"] >= item["cutoff"]:
                yield at(
                    ("rounds", i, "cutoff"),
                    f"rounds must be listed oldest first: cutoff {item['cutoff']} is not after rounds[{j}]'s {other['cutoff']}",
                )
            elif (
                other["origin"] == item["origin"] == "discovery"
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
    return build(doc.data), []


def load_protocol(root: Path, taxonomy: Taxonomy) -> Protocol:
    """The protocol under *root*, or :class:`ProtocolError` with every problem."""
    if not (root / PROTOCOL_FILE).is_file():
        raise ProtocolError([Problem(PROTOCOL_FILE, 1, 1, "", f"{PROTOCOL_FILE} not found in {root}")])
    protocol, problems = read_protocol(root, taxonomy)
    if protocol is None:
        raise ProtocolError(problems)
    return protocol


def build(data: dict[str, Any]) -> Protocol:
    """A :class:`Protocol` from data that passed :func:`check_protocol`."""
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
            )
            for r in data["rounds"]
        ),
    )


# ---------------------------------------------------------------------------------------------
# Rounds


def round_of(record: Paper | Exclusion, protocol: Protocol) -> str | None:
    """The id of the round that owns *record*, :data:`CONTRIBUTIONS` for a contributor's record,
    or None for a discovery record added outside every round's window."""
    origin = record.origin
    if origin not in ROUND_ORIGINS:
        return CONTRIBUTIONS
    for r in protocol.rounds:
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
        counts = out[round_of(p, protocol) or "unassigned"]
        counts["retained"] += 1
        counts["identified"] += 1
    for e in corpus.exclusions:
        counts = out[round_of(e, protocol) or "unassigned"]
        counts["excluded"] += 1
        counts["identified"] += 1
        counts["by_stage"][e.stage] += 1
    return out
