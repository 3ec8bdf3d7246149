"""The controlled vocabulary, loaded from ``taxonomy.yaml``.

``taxonomy.yaml`` is the only place tag values are spelled out. This module loads it into a
:class:`Taxonomy` and names the few field names and values that code has to refer to; loading fails
with a :class:`TaxonomyError` if the file lacks any of them, so a renamed value cannot silently
disable a rule.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

from masrl.base._problems import Problem
from masrl.corpus._yaml import Document, YamlError, load_path

TAXONOMY_FILE = "taxonomy.yaml"

# Field names of the vocabulary. Records use the same names for their tag fields.
CATEGORY = "category"
RL = "rl"
REWARD_TYPE = "reward_type"
REWARD_FAMILY = "reward_family"  # derived from reward_type, never written in a record
CREDIT_UNIT = "credit_unit"
TOPOLOGY = "topology"
SCENARIO = "scenario"
ROLE = "role"
VERIFIED = "verified"
EVIDENCE_KIND = "evidence_kind"
SUBDECISION = "subdecision"
SUBDECISION_CODE = "subdecision_code"
EVIDENCE_BASIS = "evidence_basis"
ENTRY_TYPE = "entry_type"
SCREENING_STAGE = "screening_stage"
EXCLUSION_REASON = "exclusion_reason"
AUDIT_VERDICT = "audit_verdict"

ORIGIN = "origin"  # where a record came from: the survey's tables, a contributor, a discovery round

# Record kinds a tag field may apply to (``applies_to:`` in taxonomy.yaml).
TAGGED_KINDS = ("paper", "exclusion")
# The tag fields that code names (rules, figures, page kinds). taxonomy.yaml may declare more tag
# fields; these must exist, apply to papers, be required and hold one value each (checked at load).
PAPER_TAGS = (CATEGORY, RL, REWARD_TYPE, CREDIT_UNIT, TOPOLOGY, SCENARIO, ROLE, VERIFIED, EVIDENCE_KIND, ORIGIN)
# The tag fields the spot-check audit compares, and the verdict naming each disagreement.
AUDITED_TAGS = (CATEGORY, RL, REWARD_TYPE, CREDIT_UNIT, TOPOLOGY)
DISAGREE_VERDICT = {
    CATEGORY: "disagree_category",
    RL: "disagree_rl",
    REWARD_TYPE: "disagree_reward",
    CREDIT_UNIT: "disagree_credit",
    TOPOLOGY: "disagree_topology",
}

# Values that rules refer to. Each must exist in taxonomy.yaml (checked at load).
NA = "NA"  # the value of an optional tag when nothing applies
RL_NO = "no"  # rl: nothing is trained with RL
LEARNED = "learned"  # subdecision_code: an RL/post-training update shapes the decision
INDUSTRY = "industry"  # category read only as public evidence
CASE = "case"  # role of industrial evidence
NO_TEAM_CATEGORIES = ("benchmark", "survey")  # categories that describe no agent team
SURVEY = "survey"  # origin of the records taken from the survey's tables: the snapshot
AGREE_VERDICTS = ("agree", "agree_with_note")  # audit verdicts that assert identical readings

_REQUIRED_VALUES = {
    RL: (RL_NO,),
    SUBDECISION_CODE: (LEARNED,),
    CATEGORY: (INDUSTRY, *NO_TEAM_CATEGORIES),
    ROLE: (CASE,),
    REWARD_TYPE: (NA,),
    CREDIT_UNIT: (NA,),
    TOPOLOGY: (NA,),
    ORIGIN: (SURVEY,),
    AUDIT_VERDICT: (*AGREE_VERDICTS, *DISAGREE_VERDICT.values()),
}
_FIELDS_NEEDED = (
    *PAPER_TAGS,
    REWARD_FAMILY,
    SUBDECISION,
    SUBDECISION_CODE,
    EVIDENCE_BASIS,
    ENTRY_TYPE,
    SCREENING_STAGE,
    EXCLUSION_REASON,
    AUDIT_VERDICT,
)
# Conventions implemented in _checks.py; taxonomy.yaml switches them on by listing them.
KNOWN_CONVENTIONS = (
    "industry_is_case",
    "no_rl_no_reward",
    "no_rl_no_credit",
    "no_team_for_benchmarks_and_surveys",
    "year_not_before_arxiv",
    "learned_needs_rl",
)


@dataclass(frozen=True)
class Value:
    id: str
    label: str
    definition: str
    family: str | None = None


@dataclass(frozen=True)
class Field:
    """One field of the vocabulary.

    A *tag field* names the record kinds that carry it in *applies_to*; it is *required* or not,
    and holds one value or, when *multiple*, a list. *table* puts it in the site's papers table
    as a column and a filter. A *derived* field is never written in a record: each value of the
    field it is *derived_from* names its value through the ``family`` key.
    """

    name: str
    label: str
    description: str
    values: tuple[Value, ...]
    derived_from: str | None = None
    applies_to: tuple[str, ...] = ()
    required: bool = False
    multiple: bool = False
    table: bool = False

    @cached_property
    def ids(self) -> tuple[str, ...]:
        return tuple(v.id for v in self.values)

    def value(self, value_id: str) -> Value:
        for v in self.values:
            if v.id == value_id:
                return v
        raise KeyError(value_id)


@dataclass(frozen=True)
class Convention:
    id: str
    description: str


@dataclass(frozen=True, eq=False)  # compared by identity, so specs derived from it can be cached
class Taxonomy:
    version: int
    fields: dict[str, Field]
    subdecisions_required_for: tuple[str, ...]
    conventions: tuple[Convention, ...]
    crosstabs: tuple[tuple[str, str], ...] = ()

    def __getitem__(self, name: str) -> Field:
        return self.fields[name]

    def ids(self, name: str) -> tuple[str, ...]:
        return self.fields[name].ids

    def tag_fields(self, kind: str) -> tuple[Field, ...]:
        """The tag fields records of *kind* carry, in taxonomy order."""
        return tuple(f for f in self.fields.values() if kind in f.applies_to)

    def counted_fields(self, kind: str) -> tuple[Field, ...]:
        """Tag fields of *kind* with each derived field right after the field it derives from."""
        out: list[Field] = []
        for f in self.tag_fields(kind):
            out.append(f)
            out.extend(d for d in self.fields.values() if d.derived_from == f.name)
        return tuple(out)

    def derive(self, field: Field, value: str) -> str:
        """The value of derived *field* for *value* of the field it derives from."""
        assert field.derived_from is not None
        derived = self.fields[field.derived_from].value(value).family
        assert derived is not None  # checked at load
        return derived

    def family_of(self, reward_type: str) -> str:
        family = self.fields[REWARD_TYPE].value(reward_type).family
        assert family is not None  # checked at load
        return family

    def convention(self, convention_id: str) -> Convention | None:
        for c in self.conventions:
            if c.id == convention_id:
                return c
        return None


class TaxonomyError(Exception):
    """taxonomy.yaml is malformed; carries every problem found."""

    def __init__(self, problems: list[Problem]) -> None:
        super().__init__("\n".join(str(p) for p in problems))
        self.problems = problems


def load_taxonomy(root: Path) -> Taxonomy:
    """Load and check ``taxonomy.yaml`` under *root*."""
    path = root / TAXONOMY_FILE
    shown = TAXONOMY_FILE
    if not path.is_file():
        raise TaxonomyError([Problem(shown, 1, 1, "", f"{TAXONOMY_FILE} not found in {root}")])
    try:
        doc = load_path(path)
    except YamlError as exc:
        raise TaxonomyError([Problem(shown, exc.line, exc.column, "", exc.message)]) from None
    problems = list(_check(doc, shown))
    if problems:
        raise TaxonomyError(problems)
    return _build(doc.data)


def _check(doc: Document, shown: str) -> Iterator[Problem]:
    data = doc.data

    def at(path: tuple[str | int, ...], message: str) -> Problem:
        mark = doc.mark(path)
        return Problem(shown, mark.line, mark.column, ".".join(map(str, path)), message)

    if not isinstance(data.get("version"), int):
        yield at(("version",), "version must be a whole number")
    fields = data.get("fields")
    if not isinstance(fields, dict):
        yield at(("fields",), "fields must be a mapping of field name to its definition")
        return
    for name in _FIELDS_NEEDED:
        if name not in fields:
            yield at(("fields",), f"field '{name}' must be defined; the records and rules use it")
    for name, spec in fields.items():
        if not isinstance(spec, dict):
            yield at(("fields", name), "must be a mapping with label, description and values")
            continue
        for key in ("label", "description"):
            if not isinstance(spec.get(key), str) or not spec[key].strip():
                yield at(("fields", name, key), f"{key} must be a non-empty string")
        values = spec.get("values")
        if not isinstance(values, list) or not values:
            yield at(("fields", name, "values"), "values must be a non-empty list")
            continue
        seen: set[str] = set()
        for i, value in enumerate(values):
            where = ("fields", name, "values", i)
            if not isinstance(value, dict):
                yield at(where, "each value must be a mapping with id, label and definition")
                continue
            for key in ("id", "label", "definition"):
                if not isinstance(value.get(key), str) or not value[key].strip():
                    yield at((*where, key), f"{key} must be a non-empty string (quote yes/no)")
            vid = value.get("id")
            if isinstance(vid, str):
                if vid in seen:
                    yield at((*where, "id"), f"value '{vid}' is listed twice")
                seen.add(vid)
        for needed in _REQUIRED_VALUES.get(name, ()):
            if needed not in seen:
                yield at(("fields", name, "values"), f"value '{needed}' must exist; rules depend on it")
    yield from _check_tag_fields(fields, at)
    yield from _check_derived(fields, at)
    yield from _check_crosstabs(data.get("crosstabs", []), fields, at)
    required_for = data.get("subdecisions_required_for", [])
    categories = _ids(fields.get(CATEGORY))
    if not isinstance(required_for, list) or not all(c in categories for c in required_for):
        yield at(("subdecisions_required_for",), "must be a list of category ids")
    conventions = data.get("conventions", [])
    if not isinstance(conventions, list):
        yield at(("conventions",), "must be a list of {id, description}")
        return
    for i, conv in enumerate(conventions):
        if not isinstance(conv, dict) or conv.get("id") not in KNOWN_CONVENTIONS:
            yield at(("conventions", i), f"convention id must be one of {', '.join(KNOWN_CONVENTIONS)}")
        elif not isinstance(conv.get("description"), str):
            yield at(("conventions", i, "description"), "description must be a string")


def _ids(spec: Any) -> set[str]:
    if not isinstance(spec, dict) or not isinstance(spec.get("values"), list):
        return set()
    return {v["id"] for v in spec["values"] if isinstance(v, dict) and isinstance(v.get("id"), str)}


# Names a tag field may not take: the fixed fields of paper and exclusion records
# (masrl.corpus._schema's specs; tests/corpus/test_schema.py holds the two lists together).
RESERVED_NAMES = frozenset(
    {
        *("key", "title", "authors", "et_al", "affiliation", "year", "arxiv", "doi", "venue", "url", "more_urls"),
        *(
            "code",
            "entry_type",
            "bibtex",
            "added",
            "round",
            "rule",
            "changes",
            "strict_credit",
            "subdecisions",
            "summary",
            "notes",
            "exceptions",
        ),
        *("id", "source", "query_family", "label", "identifier", "date_screened", "stage", "reasons", "note"),
        "if_retained",
    }
)
_FIELD_NAME = re.compile(r"^[a-z][a-z0-9_]*$")


def _check_tag_fields(fields: dict[str, Any], at: Any) -> Iterator[Problem]:
    for name, spec in fields.items():
        if not isinstance(spec, dict):
            continue
        applies = spec.get("applies_to", [])
        if (
            not isinstance(applies, list)
            or not all(k in TAGGED_KINDS for k in applies)
            or len(set(applies)) != len(applies)
        ):
            yield at(
                ("fields", name, "applies_to"), f"applies_to must be a list of record kinds: {', '.join(TAGGED_KINDS)}"
            )
            continue
        for key in ("required", "multiple", "table"):
            if key in spec and not isinstance(spec[key], bool):
                yield at(("fields", name, key), f"{key} must be true or false")
        if not applies:
            # A derived field may still be a column of the papers table; nothing else applies to it.
            for key in ("required", "multiple") if spec.get("derived_from") else ("required", "multiple", "table"):
                if key in spec:
                    yield at(("fields", name, key), f"{key} needs applies_to: it describes a field records carry")
            continue
        if not _FIELD_NAME.match(name):
            yield at(
                ("fields", name), "a tag field's name must be lowercase letters, digits and '_', starting with a letter"
            )
        elif name in RESERVED_NAMES:
            yield at(("fields", name), f"'{name}' is a fixed field of the records; give the tag field another name")
        if spec.get("derived_from") is not None:
            yield at(("fields", name, "applies_to"), "a derived field is never written in a record; drop applies_to")
    for name in PAPER_TAGS:
        spec = fields.get(name)
        if not isinstance(spec, dict):
            continue
        if "paper" not in (spec.get("applies_to") or []) or spec.get("required") is not True or spec.get("multiple"):
            yield at(
                ("fields", name),
                f"field '{name}' must apply to papers, be required and hold one value (applies_to: [paper], required: true); rules use it",
            )


def _check_derived(fields: dict[str, Any], at: Any) -> Iterator[Problem]:
    for name, spec in fields.items():
        if not isinstance(spec, dict) or spec.get("derived_from") is None:
            continue
        source = fields.get(spec["derived_from"])
        if not isinstance(source, dict) or not source.get("applies_to") or source.get("multiple"):
            yield at(("fields", name, "derived_from"), "derived_from must name a single-valued tag field")
            continue
        targets = _ids(spec)
        for i, value in enumerate(source.get("values") or []):
            if isinstance(value, dict) and value.get("family") not in targets:
                yield at(
                    ("fields", spec["derived_from"], "values", i, "family"),
                    f"family must be one of the {name} ids: {', '.join(sorted(targets))}",
                )


def _check_crosstabs(crosstabs: Any, fields: dict[str, Any], at: Any) -> Iterator[Problem]:
    def counted(name: Any) -> bool:
        spec = fields.get(name) if isinstance(name, str) else None
        if not isinstance(spec, dict):
            return False
        source = fields.get(spec.get("derived_from") or "", spec)
        return isinstance(source, dict) and "paper" in (source.get("applies_to") or [])

    if not isinstance(crosstabs, list):
        yield at(("crosstabs",), "crosstabs must be a list of [row field, column field] pairs")
        return
    for i, pair in enumerate(crosstabs):
        if not (isinstance(pair, list) and len(pair) == 2 and all(counted(n) for n in pair)):
            yield at(("crosstabs", i), "each cross-tab must be [row field, column field], both fields papers carry")


def _build(data: dict[str, Any]) -> Taxonomy:
    fields = {
        name: Field(
            name=name,
            label=spec["label"],
            description=" ".join(spec["description"].split()),
            values=tuple(Value(v["id"], v["label"], v["definition"], v.get("family")) for v in spec["values"]),
            derived_from=spec.get("derived_from"),
            applies_to=tuple(spec.get("applies_to", ())),
            required=spec.get("required", False),
            multiple=spec.get("multiple", False),
            table=spec.get("table", False),
        )
        for name, spec in data["fields"].items()
    }
    return Taxonomy(
        version=data["version"],
        fields=fields,
        subdecisions_required_for=tuple(data.get("subdecisions_required_for", [])),
        conventions=tuple(Convention(c["id"], c["description"]) for c in data.get("conventions", [])),
        crosstabs=tuple((r, c) for r, c in data.get("crosstabs", [])),
    )
