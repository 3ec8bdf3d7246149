"""The shape of each record kind, defined once and used twice.

:func:`specs` lists every field a record of a kind may hold, in canonical order, with its type
and, for tags, the taxonomy field whose values it takes. The fixed fields are written here; the tag
fields are every field of ``taxonomy.yaml`` whose ``applies_to`` names the kind, so a field added
there is a field of the records. From these specs

* :func:`json_schema` writes the JSON Schema 2020-12 documents in ``schemas/`` that editors use to
  autocomplete and flag values, and
* :func:`check_record` checks a parsed record and yields :class:`~masrl.base._problems.Problem` values
  whose messages name the allowed values.

The two agree by construction; ``tests/corpus/test_schema.py`` holds them to it with random records. The
one difference is the year's upper bound ("next year"), which moves with the calendar and so is
checked by ``masrl validate`` but left out of the static schema.
"""

from __future__ import annotations

import datetime as dt
import enum
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, assert_never

from masrl.base._problems import Problem, did_you_mean, one_of
from masrl.corpus import _vocab as v
from masrl.corpus._vocab import Field, Taxonomy
from masrl.corpus._yaml import Document

# Every pattern ends in END rather than a bare "$": Python's "$" also matches before a final
# newline, ECMA-262's does not, and the lookahead makes both engines agree.
END = r"(?!\n)$"
KEY_PATTERN = r"^[a-z0-9]+(-[a-z0-9]+)*" + END
EXCLUSION_ID_PATTERN = r"^E[0-9]{3,}" + END
# New-style arXiv ids (YYMM.NNNNN, optional version) and old-style ones (archive/YYMMNNN).
ARXIV_PATTERN = (
    r"^([0-9]{2}(0[1-9]|1[0-2])\.[0-9]{4,5}|[a-z-]+(\.[A-Z]{2})?/[0-9]{2}(0[1-9]|1[0-2])[0-9]{3})(v[0-9]+)?" + END
)
DOI_PATTERN = r"^10\.[0-9]{4,9}/\S+" + END
URL_PATTERN = r"^https?://[^\s/$.?#]\S*" + END
DATE_PATTERN = r"^[0-9]{4}-[0-9]{2}-[0-9]{2}" + END
# Ids of protocol.yaml: a round's id, which a record names in `round:`.
PROTOCOL_ID_PATTERN = r"^[a-z0-9]+([_-][a-z0-9]+)*" + END
# What a record's `rule:` cites: a boundary rule of protocol.yaml, or an inclusion or exclusion rule.
RULE_PATTERN = r"^(B[1-9][0-9]*|inclusion [1-9][0-9]*|exclusion [1-9][0-9]*)" + END
# Text is trimmed: it starts and ends with a non-space; single-line text has no newline.
SINGLE_LINE_PATTERN = r"^(?=\S)[^\n]*\S" + END
MULTI_LINE_PATTERN = r"^(?=\S)[\s\S]*\S" + END
SENTENCE_PATTERN = r"^(?=\S)[^\n]*[.!?]" + END
MIN_YEAR = 1950
SUMMARY_MAX = 200
EVIDENCE_MAX = 200
NOTE_MAX = 400
TITLE_MAX = 400


def next_year() -> int:
    return dt.date.today().year + 1


class Kind(enum.Enum):
    """What a field holds. Every use dispatches with ``match`` and ends in ``assert_never``, so a
    kind left unhandled is a type error, never a check silently skipped."""

    TEXT = "text"
    INT = "int"
    BOOL = "bool"
    ENUM = "enum"  # one id of the vocabulary field named by Spec.vocab
    ENUM_LIST = "enum_list"
    TEXT_LIST = "text_list"
    URL = "url"
    URL_LIST = "url_list"
    DATE = "date"
    MAPPING = "mapping"  # closed: the fields in Spec.children
    MAPPING_LIST = "mapping_list"  # a list of closed mappings, each with the fields in Spec.children
    KEYED = "keyed"  # keys from the vocabulary Spec.vocab (or convention ids), values shaped by children


# The kind each list kind holds.
ITEM_KIND = {
    Kind.ENUM_LIST: Kind.ENUM,
    Kind.TEXT_LIST: Kind.TEXT,
    Kind.URL_LIST: Kind.URL,
    Kind.MAPPING_LIST: Kind.MAPPING,
}


@dataclass(frozen=True)
class Spec:
    """One field of a record.

    *kind* says what it holds (:class:`Kind`); *vocab* names the taxonomy field whose ids an
    ``ENUM``, ``ENUM_LIST`` or ``KEYED`` spec takes (``"convention"``: the convention ids), and
    *children* the fields of a ``MAPPING`` or of each ``KEYED`` value (text when empty).
    """

    name: str
    kind: Kind
    description: str
    required: bool = False
    vocab: str | None = None
    pattern: str | None = None
    pattern_hint: str | None = None
    max_length: int | None = None
    single_line: bool = True
    sentence: bool = False
    minimum: int | None = None
    maximum: Callable[[], int] | None = None
    children: tuple[Spec, ...] = field(default_factory=tuple)


def _tag(name: str, description: str) -> Spec:
    return Spec(name, Kind.ENUM, description, required=True, vocab=name)


def tag_spec(f: Field) -> Spec:
    """The spec of tag field *f*: one id of its values, or a list of them."""
    return Spec(f.name, Kind.ENUM_LIST if f.multiple else Kind.ENUM, f.description, required=f.required, vocab=f.name)


_BIBTEX_FIELDS = tuple(
    Spec(name, Kind.TEXT, f"BibTeX `{name}` field.")
    for name in ("journal", "booktitle", "volume", "number", "pages", "publisher", "institution", "howpublished")
)

_SUBDECISION = (
    Spec("code", Kind.ENUM, "How the entry makes this decision.", required=True, vocab=v.SUBDECISION_CODE),
    Spec("basis", Kind.ENUM, "Where the evidence was read.", required=True, vocab=v.EVIDENCE_BASIS),
    Spec(
        "evidence",
        Kind.TEXT,
        f"One sentence, in our own words, saying what in the source supports the code (at most {EVIDENCE_MAX} characters).",
        required=True,
        max_length=EVIDENCE_MAX,
        sentence=True,
    ),
)

# The paper's fixed fields before its tag fields.
_PAPER_HEAD: tuple[Spec, ...] = (
    Spec(
        "key",
        Kind.TEXT,
        "Short unique id; the file is papers/<key>.yaml.",
        required=True,
        pattern=KEY_PATTERN,
        pattern_hint="lowercase letters and digits in words joined by '-', e.g. 'm-grpo'",
    ),
    Spec("title", Kind.TEXT, "Full title as published.", required=True, max_length=TITLE_MAX),
    Spec(
        "authors",
        Kind.TEXT_LIST,
        "Authors as 'Last, First', in order; a team name for corporate authors.",
        required=True,
    ),
    Spec("et_al", Kind.BOOL, "True when the author list is truncated; citations then end with 'and others'."),
    Spec("affiliation", Kind.TEXT, "Affiliation of the first author, or 'unknown'.", required=True),
    Spec(
        "year",
        Kind.INT,
        f"Year of first appearance, e.g. the preprint's ({MIN_YEAR} to next year); the BibTeX year follows the venue.",
        required=True,
        minimum=MIN_YEAR,
        maximum=next_year,
    ),
    Spec(
        "arxiv",
        Kind.TEXT,
        'arXiv identifier, quoted, e.g. "2508.04652".',
        pattern=ARXIV_PATTERN,
        pattern_hint='an arXiv id such as "2508.04652" or "cs/0112017", quoted',
    ),
    Spec(
        "doi",
        Kind.TEXT,
        "DOI, e.g. 10.1287/moor.27.4.819.297.",
        pattern=DOI_PATTERN,
        pattern_hint="a DOI such as '10.1145/3605764.3623985'",
    ),
    Spec(
        "venue",
        Kind.TEXT,
        "Where it appeared, as venues.yaml writes it: 'ICLR 2025', 'Findings of ACL 2024', 'arXiv', 'Blog Post', ...",
        required=True,
    ),
    Spec("url", Kind.URL, "Canonical link (http or https).", required=True),
    Spec("more_urls", Kind.URL_LIST, "Further links to the same work."),
    Spec("code", Kind.URL, "The official code repository, if the authors released one (http or https)."),
    Spec(
        "bibtex",
        Kind.MAPPING,
        "BibTeX fields the venue cannot give: pages, volume, number, publisher, a workshop's own name.",
        children=_BIBTEX_FIELDS,
    ),
)

# After the paper's tag fields.
_PAPER_TAIL: tuple[Spec, ...] = (
    Spec(
        "strict_credit",
        Kind.BOOL,
        "True when the method computes explicit credit at its credit unit (counterfactual, Shapley, leave-one-out, per-unit advantage).",
    ),
    Spec(
        "subdecisions",
        Kind.KEYED,
        "Orchestration sub-decisions O1-O5 the entry learns or designs; {} when none.",
        vocab=v.SUBDECISION,
        children=_SUBDECISION,
    ),
    Spec(
        "summary",
        Kind.TEXT,
        f"One sentence in our own words, at most {SUMMARY_MAX} characters.",
        required=True,
        max_length=SUMMARY_MAX,
        sentence=True,
    ),
    Spec(
        "notes",
        Kind.TEXT,
        f"Why the entry carries its tags, in our own words (at most {NOTE_MAX} characters).",
        max_length=NOTE_MAX,
        single_line=False,
    ),
    Spec(
        "exceptions", Kind.KEYED, "Conventions this entry knowingly breaks, each with its reason.", vocab="convention"
    ),
)

_EXCLUSION_HEAD: tuple[Spec, ...] = (
    Spec(
        "id",
        Kind.TEXT,
        "Record id; the file is exclusions/<id>.yaml.",
        required=True,
        pattern=EXCLUSION_ID_PATTERN,
        pattern_hint="'E' followed by at least three digits, e.g. 'E033'",
    ),
    Spec("source", Kind.TEXT, "Where the record was found (arXiv, OpenReview, company docs, ...).", required=True),
    Spec("query_family", Kind.TEXT, "The search query family that surfaced it.", required=True),
    Spec("label", Kind.TEXT, "Screening label: the title of the work.", required=True, max_length=TITLE_MAX),
    Spec("identifier", Kind.TEXT, "Source identifier, e.g. arXiv:2305.14325.", required=True),
    Spec("url", Kind.URL, "Link to the record.", required=True),
    Spec("date_screened", Kind.DATE, "Date screened, YYYY-MM-DD.", required=True),
    Spec("stage", Kind.ENUM, "Screening stage at which it was excluded.", required=True, vocab=v.SCREENING_STAGE),
    Spec("reasons", Kind.ENUM_LIST, "Reason codes, most important first.", required=True, vocab=v.EXCLUSION_REASON),
)

_EXCLUSION_TAIL: tuple[Spec, ...] = (
    Spec(
        "note",
        Kind.TEXT,
        f"One sentence in our own words on why it is out, at most {SUMMARY_MAX} characters.",
        required=True,
        max_length=SUMMARY_MAX,
        sentence=True,
    ),
)

# A near miss's if_retained block: the tags the entry would carry had it been retained. Its fields
# are the paper's own specs (so the two cannot drift), plus a short basis for the reading.
RETAINED_TAGS = (v.CATEGORY, v.RL, v.REWARD_TYPE, v.CREDIT_UNIT, v.TOPOLOGY, v.SCENARIO)
_RETAINED_BASIS = Spec(
    "basis",
    Kind.TEXT,
    f"Why the entry would carry these tags, in our own words (at most {NOTE_MAX} characters).",
    required=True,
    max_length=NOTE_MAX,
    single_line=False,
)


def _if_retained(taxonomy: Taxonomy) -> Spec:
    tags = tuple(tag_spec(taxonomy[name]) for name in RETAINED_TAGS)
    tail = tuple(s for s in _PAPER_TAIL if s.name in ("strict_credit", "subdecisions"))
    return Spec(
        "if_retained",
        Kind.MAPPING,
        "For a near miss: the tags the entry would carry if it were retained (read by the near_misses view of claims.yaml).",
        children=(*tags, *tail, _RETAINED_BASIS),
    )


_READING = tuple(_tag(name, f"{name} as read.") for name in v.AUDITED_TAGS)

AUDIT: tuple[Spec, ...] = (
    Spec(
        "key",
        Kind.TEXT,
        "Key of the audited paper; the file is audits/<key>.yaml.",
        required=True,
        pattern=KEY_PATTERN,
        pattern_hint="a paper key such as 'm-grpo'",
    ),
    Spec("first_reading", Kind.MAPPING, "Tags of the original coding at audit time.", required=True, children=_READING),
    Spec(
        "second_reading",
        Kind.MAPPING,
        "Tags of the independent second reading.",
        required=True,
        children=(
            *_READING,
            Spec("strict_credit", Kind.BOOL, "Second reader's strict explicit-credit flag.", required=True),
        ),
    ),
    Spec("verdict", Kind.ENUM, "The second reader's verdict.", required=True, vocab=v.AUDIT_VERDICT),
    Spec(
        "note",
        Kind.TEXT,
        f"Our own note on the row (at most {NOTE_MAX} characters).",
        max_length=NOTE_MAX,
        single_line=False,
    ),
)

# When the record entered the corpus: the survey's records carry the survey's cutoff.
ADDED = Spec("added", Kind.DATE, "Date the record entered the corpus, YYYY-MM-DD.", required=True)

# The search round that owns the record, when the day it was added cannot say (rounds that overlap).
ROUND = Spec(
    "round",
    Kind.TEXT,
    "The search round of protocol.yaml that owns the record; without it, the round whose window holds the day it was added.",
    pattern=PROTOCOL_ID_PATTERN,
    pattern_hint="the id of a round of protocol.yaml, e.g. 'backfill'",
)

# The rule the screening decision rests on.
RULE = Spec(
    "rule",
    Kind.TEXT,
    "The protocol rule the screening decision rests on: a boundary rule (B1, B2, ...) or 'inclusion N' / 'exclusion N'.",
    pattern=RULE_PATTERN,
    pattern_hint="a boundary rule such as 'B3', or 'inclusion 1' or 'exclusion 2'",
)

# Corrections made after the record was added, newest last; the What's new page and feed list them.
CHANGES = Spec(
    "changes",
    Kind.MAPPING_LIST,
    "Corrections made after the record was added, oldest first: each a date and one sentence on what changed.",
    children=(
        Spec("date", Kind.DATE, "Date of the change, YYYY-MM-DD.", required=True),
        Spec(
            "note",
            Kind.TEXT,
            f"One sentence on what changed and why, at most {SUMMARY_MAX} characters.",
            required=True,
            max_length=SUMMARY_MAX,
            sentence=True,
        ),
    ),
)

RECORD_KINDS = ("paper", "exclusion", "audit")

# Fields a paper no longer holds, and what to do instead.
RETIRED = {
    "entry_type": "entry_type is no longer a field: the venue gives it (venues.yaml); "
    "`masrl fmt` removes it where it agrees with the venue",
}


@lru_cache(maxsize=8)
def specs(kind: str, taxonomy: Taxonomy) -> tuple[Spec, ...]:
    """Every field a record of *kind* may hold, in canonical order; tag fields from *taxonomy*."""
    tags = tuple(tag_spec(f) for f in taxonomy.tag_fields(kind))
    if kind == "paper":
        return (*_PAPER_HEAD, *tags, ADDED, ROUND, RULE, CHANGES, *_PAPER_TAIL)
    if kind == "exclusion":
        return (*_EXCLUSION_HEAD, *tags, ADDED, ROUND, RULE, CHANGES, *_EXCLUSION_TAIL, _if_retained(taxonomy))
    if kind == "audit":
        return AUDIT
    raise ValueError(f"unknown record kind {kind!r}")


# ---------------------------------------------------------------------------------------------
# JSON Schema


def json_schema(kind: str, taxonomy: Taxonomy) -> dict[str, Any]:
    """The JSON Schema 2020-12 document for records of *kind*."""
    titles = {"paper": "Paper record", "exclusion": "Exclusion record", "audit": "Audit record"}
    schema: dict[str, Any] = {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": f"urn:masrl:schema:{kind}",
        "title": titles[kind],
        "description": f"Generated from taxonomy.yaml by `masrl schema`; do not edit. Taxonomy version {taxonomy.version}.",
    }
    schema.update(_object(specs(kind, taxonomy), taxonomy))
    return schema


def _object(specs: tuple[Spec, ...], taxonomy: Taxonomy) -> dict[str, Any]:
    out: dict[str, Any] = {
        "type": "object",
        "properties": {s.name: _property(s, taxonomy) for s in specs},
        "additionalProperties": False,
    }
    required = [s.name for s in specs if s.required]
    if required:
        out["required"] = required
    return out


def _enum(vocab: str, taxonomy: Taxonomy) -> dict[str, Any]:
    field_ = taxonomy[vocab]
    return {
        "enum": list(field_.ids),
        "markdownEnumDescriptions": [f"**{x.label}**: {x.definition}" for x in field_.values],
    }


def _text(spec: Spec) -> dict[str, Any]:
    out: dict[str, Any] = {"type": "string", "minLength": 1}
    if spec.pattern:
        out["pattern"] = spec.pattern
    elif spec.sentence:
        out["pattern"] = SENTENCE_PATTERN
    else:
        out["pattern"] = SINGLE_LINE_PATTERN if spec.single_line else MULTI_LINE_PATTERN
    if spec.max_length:
        out["maxLength"] = spec.max_length
    return out


def _property(spec: Spec, taxonomy: Taxonomy) -> dict[str, Any]:
    out: dict[str, Any] = {"description": spec.description}
    match spec.kind:
        case Kind.TEXT:
            out.update(_text(spec))
        case Kind.INT:
            out.update({"type": "integer", "minimum": spec.minimum})
        case Kind.BOOL:
            out["type"] = "boolean"
        case Kind.ENUM:
            out.update(_enum(_vocab(spec), taxonomy))
        case Kind.ENUM_LIST:
            out.update({"type": "array", "items": _enum(_vocab(spec), taxonomy), "minItems": 1, "uniqueItems": True})
        case Kind.TEXT_LIST:
            out.update(
                {
                    "type": "array",
                    "items": {"type": "string", "minLength": 1, "pattern": SINGLE_LINE_PATTERN},
                    "minItems": 1,
                }
            )
        case Kind.URL:
            out.update({"type": "string", "pattern": URL_PATTERN})
        case Kind.URL_LIST:
            out.update(
                {
                    "type": "array",
                    "items": {"type": "string", "pattern": URL_PATTERN},
                    "minItems": 1,
                    "uniqueItems": True,
                }
            )
        case Kind.DATE:
            out.update({"type": "string", "pattern": DATE_PATTERN, "format": "date"})
        case Kind.MAPPING:
            out.update(_object(spec.children, taxonomy))
        case Kind.MAPPING_LIST:
            out.update({"type": "array", "items": _object(spec.children, taxonomy), "minItems": 1})
        case Kind.KEYED:
            value = (
                _object(spec.children, taxonomy)
                if spec.children
                else {"type": "string", "minLength": 1, "pattern": SINGLE_LINE_PATTERN}
            )
            out.update(
                {
                    "type": "object",
                    "properties": {k: value for k in allowed_keys(spec, taxonomy)},
                    "additionalProperties": False,
                }
            )
        case _:
            assert_never(spec.kind)
    return out


def _vocab(spec: Spec) -> str:
    """The vocabulary field an enum spec takes its ids from (a spec without one is a code bug)."""
    if spec.vocab is None:
        raise ValueError(f"spec {spec.name!r} of kind {spec.kind.value} names no vocabulary")
    return spec.vocab


def allowed_keys(spec: Spec, taxonomy: Taxonomy) -> tuple[str, ...]:
    """The keys a ``KEYED`` spec allows."""
    if spec.vocab == "convention":
        return tuple(c.id for c in taxonomy.conventions)
    return taxonomy.ids(_vocab(spec))


# ---------------------------------------------------------------------------------------------
# Checking


_TYPE_NAMES = {
    bool: "true/false",
    int: "a number",
    float: "a number",
    str: "text",
    list: "a list",
    dict: "a mapping",
    type(None): "empty",
}


def _type_name(value: Any) -> str:
    return _TYPE_NAMES.get(type(value), type(value).__name__)


def _what(value: Any) -> str:
    """``text 'abc'``, ``a number 3``, ``empty`` — what a wrong value was, for messages."""
    return "empty" if value is None else f"{_type_name(value)} {_show(value)}"


def _show(value: Any) -> str:
    text = repr(value) if isinstance(value, str) else str(value)
    return text if len(text) <= 60 else text[:57] + "..."


@dataclass
class _Ctx:
    doc: Document
    shown: str
    taxonomy: Taxonomy

    def problem(self, path: tuple[str | int, ...], message: str) -> Problem:
        mark = self.doc.mark(path)
        return Problem(self.shown, mark.line, mark.column, _dotted(path), message)


def _dotted(path: tuple[str | int, ...]) -> str:
    out = ""
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else part)
    return out


def check_record(kind: str, doc: Document, shown: str, taxonomy: Taxonomy) -> Iterator[Problem]:
    """Yield every problem of shape and vocabulary in one record of *kind*."""
    yield from _check_mapping(specs(kind, taxonomy), doc.data, (), _Ctx(doc, shown, taxonomy))


def _check_mapping(specs: tuple[Spec, ...], data: Any, path: tuple[str | int, ...], ctx: _Ctx) -> Iterator[Problem]:
    names = [s.name for s in specs]
    by_name = {s.name: s for s in specs}
    for key in data:
        if key in RETIRED and not path and "venue" in by_name:  # a paper
            yield ctx.problem((key,), RETIRED[key])
        elif key not in by_name:
            yield ctx.problem(
                (*path, key), f"unknown field{did_you_mean(key, names)}; allowed fields are {', '.join(names)}"
            )
    for spec in specs:
        if spec.name not in data:
            if spec.required:
                yield ctx.problem((*path, spec.name), f"{spec.name} is required: {spec.description}")
            continue
        yield from _check_value(spec, data[spec.name], (*path, spec.name), ctx)


def _check_value(spec: Spec, value: Any, path: tuple[str | int, ...], ctx: _Ctx) -> Iterator[Problem]:
    name = spec.name
    match spec.kind:
        case Kind.TEXT | Kind.URL | Kind.DATE:
            yield from _check_text(spec, value, path, ctx)
        case Kind.INT:
            # JSON Schema counts 2025.0 as an integer, and so do we.
            if isinstance(value, bool) or not (
                isinstance(value, int) or (isinstance(value, float) and value.is_integer())
            ):
                yield ctx.problem(path, f"{name} must be a whole number, not {_what(value)}")
                return
            top = spec.maximum() if spec.maximum else None
            if (spec.minimum is not None and value < spec.minimum) or (top is not None and value > top):
                yield ctx.problem(path, f"{name} must lie between {spec.minimum} and {top}, not {value}")
        case Kind.BOOL:
            if type(value) is not bool:
                yield ctx.problem(path, f"{name} must be true or false, not {_what(value)}")
        case Kind.ENUM:
            yield from _check_enum(spec, value, path, ctx)
        case Kind.ENUM_LIST | Kind.TEXT_LIST | Kind.URL_LIST | Kind.MAPPING_LIST:
            yield from _check_list(spec, value, path, ctx)
        case Kind.MAPPING:
            if not isinstance(value, dict):
                yield ctx.problem(path, f"{name} must be a mapping of field: value lines, not {_type_name(value)}")
                return
            yield from _check_mapping(spec.children, value, path, ctx)
        case Kind.KEYED:
            yield from _check_keyed(spec, value, path, ctx)
        case _:
            assert_never(spec.kind)


def _check_list(spec: Spec, value: Any, path: tuple[str | int, ...], ctx: _Ctx) -> Iterator[Problem]:
    name = spec.name
    if not isinstance(value, list):
        yield ctx.problem(path, f"{name} must be a list, not {_what(value)}")
        return
    if not value:
        yield ctx.problem(path, f"{name} must list at least one item")
        return
    item = Spec(name, ITEM_KIND[spec.kind], spec.description, vocab=spec.vocab, children=spec.children)
    seen: set[Any] = set()
    for i, element in enumerate(value):
        yield from _check_value(item, element, (*path, i), ctx)
        if spec.kind in (Kind.ENUM_LIST, Kind.URL_LIST) and isinstance(element, str):
            if element in seen:
                yield ctx.problem((*path, i), f"{name} must not repeat {element!r}")
            seen.add(element)


def _check_text(spec: Spec, value: Any, path: tuple[str | int, ...], ctx: _Ctx) -> Iterator[Problem]:
    name = spec.name
    if not isinstance(value, str):
        hint = ""
        if spec.pattern == ARXIV_PATTERN and isinstance(value, (int, float)):
            hint = '; quote it, e.g. arxiv: "2508.04652", or YAML reads it as a number and drops zeros'
        yield ctx.problem(path, f"{name} must be text, not {_what(value)}{hint}")
        return
    if not value.strip():
        yield ctx.problem(path, f"{name} must not be empty")
        return
    if spec.single_line and "\n" in value.strip():
        yield ctx.problem(path, f"{name} must be a single line")
    if value != value.strip():
        yield ctx.problem(path, f"{name} must not start or end with spaces")
    if spec.max_length and len(value) > spec.max_length:
        yield ctx.problem(path, f"{name} must be at most {spec.max_length} characters, not {len(value)}")
    if spec.sentence and not value.rstrip().endswith((".", "!", "?")):
        yield ctx.problem(path, f"{name} must be one sentence ending with '.'")
    if spec.kind is Kind.URL and not re.match(URL_PATTERN, value):
        yield ctx.problem(path, f"{name} must be an http(s) URL with no spaces, not {_show(value)}")
    elif spec.kind is Kind.DATE:
        yield from _check_date(spec, value, path, ctx)
    elif spec.pattern and not re.match(spec.pattern, value):
        yield ctx.problem(path, f"{name} must be {spec.pattern_hint}, not {_show(value)}")


def _check_date(spec: Spec, value: str, path: tuple[str | int, ...], ctx: _Ctx) -> Iterator[Problem]:
    try:
        if not re.match(DATE_PATTERN, value):
            raise ValueError
        day = dt.date.fromisoformat(value)
    except ValueError:
        yield ctx.problem(path, f"{spec.name} must be a date written YYYY-MM-DD, not {_show(value)}")
        return
    if day > dt.date.today():
        yield ctx.problem(path, f"{spec.name} must not be in the future, not {value}")


def _check_enum(spec: Spec, value: Any, path: tuple[str | int, ...], ctx: _Ctx) -> Iterator[Problem]:
    allowed = ctx.taxonomy.ids(_vocab(spec))
    if isinstance(value, str) and value in allowed:
        return
    if isinstance(value, bool):
        shown = "true" if value else "false"
        hint = " (YAML reads bare true/false as booleans; write the value as listed)"
    elif isinstance(value, str):
        shown, hint = repr(value), did_you_mean(value, allowed)
    else:
        shown, hint = f"{_what(value)}", ""
    yield ctx.problem(path, f"{spec.name} must be one of {one_of(allowed)}, not {shown}{hint}")


def _check_keyed(spec: Spec, value: Any, path: tuple[str | int, ...], ctx: _Ctx) -> Iterator[Problem]:
    name = spec.name
    if not isinstance(value, dict):
        yield ctx.problem(path, f"{name} must be a mapping, not {_what(value)}")
        return
    allowed = allowed_keys(spec, ctx.taxonomy)
    for key, item in value.items():
        where = (*path, key)
        if key not in allowed:
            yield ctx.problem(where, f"{name} keys must be {one_of(allowed)}, not {key!r}{did_you_mean(key, allowed)}")
            continue
        if spec.children:
            if not isinstance(item, dict):
                yield ctx.problem(
                    where, f"{name}.{key} must be a mapping with {', '.join(c.name for c in spec.children)}"
                )
                continue
            yield from _check_mapping(spec.children, item, where, ctx)
        else:
            yield from _check_text(Spec(f"{name}.{key}", Kind.TEXT, spec.description), item, where, ctx)
