"""The controlled vocabulary, loaded from ``taxonomy.yaml``.

``taxonomy.yaml`` is the only place tag values are spelled out. This module loads it into a
:class:`Taxonomy` and names the few field names and values that code has to refer to; loading fails
with a :class:`TaxonomyError` if the file lacks any of them, so a renamed value cannot silently
disable a rule.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

from masrl._problems import Problem
from masrl._yaml import Document, YamlError, load_path

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

# The tag fields a paper record carries, in display order.
PAPER_TAGS = (CATEGORY, RL, REWARD_TYPE, CREDIT_UNIT, TOPOLOGY, SCENARIO, ROLE, VERIFIED, EVIDENCE_KIND)
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
AGREE_VERDICTS = ("agree", "agree_with_note")  # audit verdicts that assert identical readings

_REQUIRED_VALUES = {
    RL: (RL_NO,),
    SUBDECISION_CODE: (LEARNED,),
    CATEGORY: (INDUSTRY, *NO_TEAM_CATEGORIES),
    ROLE: (CASE,),
    REWARD_TYPE: (NA,),
    CREDIT_UNIT: (NA,),
    TOPOLOGY: (NA,),
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
    name: str
    label: str
    description: str
    values: tuple[Value, ...]
    derived_from: str | None = None

    @cached_property
    def ids(self) -> tuple[str, ...]:
        return tuple(v.id for v in self.values)

    def value(self, value_id: str) -> Value:
        for v in self.values:
            if v.id == value_id:
                return v
        raise KeyError(value_id)

    def label_of(self, value_id: str) -> str:
        return self.value(value_id).label


@dataclass(frozen=True)
class Convention:
    id: str
    description: str


@dataclass(frozen=True)
class Taxonomy:
    version: int
    fields: dict[str, Field]
    subdecisions_required_for: tuple[str, ...]
    conventions: tuple[Convention, ...]

    def __getitem__(self, name: str) -> Field:
        return self.fields[name]

    def ids(self, name: str) -> tuple[str, ...]:
        return self.fields[name].ids

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
    yield from _check_families(fields, at)
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


def _check_families(fields: dict[str, Any], at: Any) -> Iterator[Problem]:
    families = _ids(fields.get(REWARD_FAMILY))
    spec = fields.get(REWARD_TYPE)
    if not isinstance(spec, dict) or not isinstance(spec.get("values"), list):
        return
    for i, value in enumerate(spec["values"]):
        if isinstance(value, dict) and value.get("family") not in families:
            yield at(
                ("fields", REWARD_TYPE, "values", i, "family"),
                f"family must be one of the reward_family ids: {', '.join(sorted(families))}",
            )


def _build(data: dict[str, Any]) -> Taxonomy:
    fields = {
        name: Field(
            name=name,
            label=spec["label"],
            description=" ".join(spec["description"].split()),
            values=tuple(Value(v["id"], v["label"], v["definition"], v.get("family")) for v in spec["values"]),
            derived_from=spec.get("derived_from"),
        )
        for name, spec in data["fields"].items()
    }
    return Taxonomy(
        version=data["version"],
        fields=fields,
        subdecisions_required_for=tuple(data.get("subdecisions_required_for", [])),
        conventions=tuple(Convention(c["id"], c["description"]) for c in data.get("conventions", [])),
    )
