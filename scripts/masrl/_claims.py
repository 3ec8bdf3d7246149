"""Claims as code: the survey's headline statements, stated as queries over the corpus.

``claims.yaml`` holds a list of claims. Each has an ``id``, a one-line ``statement``, a ``query``
and the value it ``expected``. A query is one of:

``{count: papers|exclusions|audits, where: {field: value or [values], ...}}``
    how many records match; ``where`` takes any paper tag, ``reward_family``, ``strict_credit``,
    ``coded`` (sub-decisions coded), ``year`` and ``O1``..``O5`` (``learned``, ``designed`` or
    ``absent``); for exclusions ``stage`` and ``reason``.
``{counts: field}``
    the full count of every value of a paper tag (or ``screening_stage`` / ``exclusion_reason``),
    zeros kept; the expected value is that mapping.
``{most_common: field, ignore: [values]}``
    the single most frequent value of a paper tag, leaving out *ignore*; a tie is reported as
    every tied value joined by ``" = "``.

:func:`load_claims` checks the file and reports problems with positions like every record;
:func:`evaluate` returns, per claim, the actual value, whether it holds, and the rows behind it.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from masrl import _vocab as v
from masrl._problems import Problem, did_you_mean, one_of
from masrl._records import Corpus
from masrl._vocab import Taxonomy
from masrl._yaml import Document, YamlError, load_path

if TYPE_CHECKING:
    import pandas as pd

CLAIMS_FILE = "claims.yaml"
STATEMENT_MAX = 200
_TARGETS = ("papers", "exclusions", "audits")
_EXCLUSION_FIELDS = {"stage": v.SCREENING_STAGE, "reason": v.EXCLUSION_REASON}
_ABSENT = "absent"  # O1..O5 value meaning the entry does not address the sub-decision


@dataclass(frozen=True)
class Claim:
    id: str
    statement: str
    query: dict[str, Any]
    expected: Any
    line: int


@dataclass(frozen=True)
class Outcome:
    """A claim evaluated against a corpus."""

    claim: Claim
    actual: Any
    holds: bool
    rows: Any  # list of keys, or {value: [keys]} for counts queries

    def as_json(self) -> dict[str, Any]:
        return {
            "id": self.claim.id,
            "statement": self.claim.statement,
            "query": self.claim.query,
            "expected": self.claim.expected,
            "actual": self.actual,
            "holds": self.holds,
            "rows": self.rows,
        }


def _paper_fields(taxonomy: Taxonomy) -> dict[str, tuple[str, ...] | None]:
    """Fields a papers query may filter on, with their allowed values (None: any of a type)."""
    fields: dict[str, tuple[str, ...] | None] = {f.name: f.ids for f in taxonomy.counted_fields("paper")}
    for o in taxonomy.ids(v.SUBDECISION):
        fields[o] = (*taxonomy.ids(v.SUBDECISION_CODE), _ABSENT)
    fields.update({"strict_credit": None, "coded": None, "year": None})
    return fields


def load_claims(root: Path, taxonomy: Taxonomy) -> tuple[list[Claim], list[Problem]]:
    """Read and check claims.yaml under *root*; a missing file means no claims."""
    path = root / CLAIMS_FILE
    if not path.is_file():
        return [], []
    try:
        doc = load_path(path)
    except YamlError as exc:
        return [], [Problem(CLAIMS_FILE, exc.line, exc.column, "", exc.message)]
    problems = list(_check(doc, taxonomy))
    if problems:
        return [], problems
    claims = [
        Claim(c["id"], c["statement"], c["query"], c["expected"], doc.mark(("claims", i)).line)
        for i, c in enumerate(doc.data["claims"])
    ]
    return claims, []


def _check(doc: Document, taxonomy: Taxonomy) -> Iterator[Problem]:
    def at(path: tuple[str | int, ...], message: str) -> Problem:
        mark = doc.mark(path)
        return Problem(CLAIMS_FILE, mark.line, mark.column, ".".join(map(str, path)), message)

    extra = set(doc.data) - {"claims"}
    if extra:
        yield at((sorted(extra)[0],), "unknown field; claims.yaml holds one field, claims: a list of claims")
    claims = doc.data.get("claims")
    if not isinstance(claims, list):
        yield at(("claims",), "claims must be a list of {id, statement, query, expected}")
        return
    seen: set[str] = set()
    for i, claim in enumerate(claims):
        where = ("claims", i)
        if not isinstance(claim, dict):
            yield at(where, "each claim must be a mapping with id, statement, query and expected")
            continue
        for key in claim:
            if key not in ("id", "statement", "query", "expected"):
                yield at((*where, key), f"unknown field{did_you_mean(key, ['id', 'statement', 'query', 'expected'])}")
        cid = claim.get("id")
        if not isinstance(cid, str) or not cid:
            yield at((*where, "id"), "id must be a short name such as 'o5-learned'")
        elif cid in seen:
            yield at((*where, "id"), f"id '{cid}' is used twice")
        else:
            seen.add(cid)
        statement = claim.get("statement")
        if not isinstance(statement, str) or not statement.strip():
            yield at((*where, "statement"), "statement must be one sentence saying what the claim asserts")
        elif len(statement) > STATEMENT_MAX:
            yield at(
                (*where, "statement"), f"statement must be at most {STATEMENT_MAX} characters, not {len(statement)}"
            )
        if "expected" not in claim:
            yield at(where, "expected is required: the value the query must return")
        yield from _check_query(claim.get("query"), claim.get("expected"), (*where, "query"), taxonomy, at)


def _check_query(
    query: Any, expected: Any, where: tuple[str | int, ...], taxonomy: Taxonomy, at: Any
) -> Iterator[Problem]:
    if not isinstance(query, dict):
        yield at(where, "query must be a mapping: {count: ...}, {counts: ...} or {most_common: ...}")
        return
    kinds = [k for k in ("count", "counts", "most_common") if k in query]
    if len(kinds) != 1:
        yield at(where, "query must have exactly one of count, counts or most_common")
        return
    kind = kinds[0]
    allowed_keys = {"count": {"count", "where"}, "counts": {"counts"}, "most_common": {"most_common", "ignore"}}[kind]
    for key in query:
        if key not in allowed_keys:
            yield at((*where, key), f"'{key}' does not go with {kind}; allowed: {', '.join(sorted(allowed_keys))}")
    if kind == "count":
        target = query["count"]
        if target not in _TARGETS:
            yield at((*where, "count"), f"count must be one of {one_of(_TARGETS)}, not {target!r}")
            return
        if type(expected) is not int:
            yield at((*where[:-1], "expected"), "expected must be a whole number for a count query")
        filters = query.get("where", {})
        if not isinstance(filters, dict):
            yield at((*where, "where"), "where must be a mapping of field: value")
            return
        fields: dict[str, tuple[str, ...] | None]
        if target == "papers":
            fields = _paper_fields(taxonomy)
        elif target == "exclusions":
            fields = {name: taxonomy.ids(vocab) for name, vocab in _EXCLUSION_FIELDS.items()}
        else:
            fields = {}
        for name, value in filters.items():
            if name not in fields:
                yield at(
                    (*where, "where", name), f"cannot filter {target} on '{name}'{did_you_mean(name, list(fields))}"
                )
                continue
            allowed = fields[name]
            values = value if isinstance(value, list) else [value]
            for item in values:
                if allowed is not None and item not in allowed:
                    yield at(
                        (*where, "where", name),
                        f"{name} must be {one_of(allowed)}, not {item!r}{did_you_mean(str(item), allowed)}",
                    )
                elif allowed is None and name in ("strict_credit", "coded") and not isinstance(item, bool):
                    yield at((*where, "where", name), f"{name} must be true or false")
                elif allowed is None and name == "year" and type(item) is not int:
                    yield at((*where, "where", name), "year must be a whole number")
        return
    field = query[kind]
    countable = (*v.PAPER_TAGS, v.REWARD_FAMILY) + ((v.SCREENING_STAGE, v.EXCLUSION_REASON) if kind == "counts" else ())
    if field not in countable:
        yield at((*where, kind), f"{kind} must name one of {', '.join(countable)}, not {field!r}")
        return
    if kind == "counts":
        if not isinstance(expected, dict) or not all(type(n) is int for n in expected.values()):
            yield at((*where[:-1], "expected"), "expected must map every value to its count")
        elif list(expected) != list(taxonomy.ids(field)):
            yield at(
                (*where[:-1], "expected"),
                f"expected must list every {field} value in taxonomy order: {', '.join(taxonomy.ids(field))}",
            )
    else:
        ignore = query.get("ignore", [])
        if not isinstance(ignore, list) or any(i not in taxonomy.ids(field) for i in ignore):
            yield at((*where, "ignore"), f"ignore must be a list of {field} values")
        if not isinstance(expected, str):
            yield at((*where[:-1], "expected"), f"expected must be a {field} value")


def _paper_mask(frame: pd.DataFrame, filters: dict[str, Any], subdecisions: tuple[str, ...]) -> pd.Series:
    import pandas as pd

    mask = pd.Series(True, index=frame.index)
    for name, value in filters.items():
        values = value if isinstance(value, list) else [value]
        column = frame[name]
        if name in subdecisions:
            wanted = [None if x == _ABSENT else x for x in values]
            hit = column.isin([x for x in wanted if x is not None])
            if None in wanted:
                hit |= column.isna() & frame["coded"]
            mask &= hit
        else:
            mask &= column.isin(values)
    return mask


def evaluate(claims: list[Claim], corpus: Corpus, frame: pd.DataFrame, stats: dict[str, Any]) -> list[Outcome]:
    """Evaluate every claim; *frame* and *stats* come from :mod:`masrl._stats`."""
    outcomes = []
    for claim in claims:
        actual, rows = _run(claim.query, corpus, frame, stats)
        outcomes.append(Outcome(claim, actual, actual == claim.expected, rows))
    return outcomes


def _run(query: dict[str, Any], corpus: Corpus, frame: pd.DataFrame, stats: dict[str, Any]) -> tuple[Any, Any]:
    if "count" in query:
        target, filters = query["count"], query.get("where", {})
        if target == "papers":
            keys = list(frame.loc[_paper_mask(frame, filters, corpus.taxonomy.ids(v.SUBDECISION)), "key"])
        elif target == "exclusions":
            stage, reason = filters.get("stage"), filters.get("reason")
            stages = stage if isinstance(stage, list) else [stage] if stage else None
            reasons = reason if isinstance(reason, list) else [reason] if reason else None
            keys = [
                e.id
                for e in corpus.exclusions
                if (stages is None or e.stage in stages) and (reasons is None or set(reasons) & set(e.reasons))
            ]
        else:
            keys = [a.key for a in corpus.audits]
        return len(keys), keys
    if "counts" in query:
        field = query["counts"]
        actual = dict(stats["counts"][field])
        if field in frame.columns:
            rows = {value: list(frame.loc[frame[field] == value, "key"]) for value in actual}
        elif field == v.SCREENING_STAGE:
            rows = {value: [e.id for e in corpus.exclusions if e.stage == value] for value in actual}
        else:
            rows = {value: [e.id for e in corpus.exclusions if value in e.reasons] for value in actual}
        return actual, rows
    field, ignore = query["most_common"], set(query.get("ignore", []))
    tally = {k: n for k, n in stats["counts"][field].items() if k not in ignore}
    top = max(tally.values(), default=0)
    winners = [k for k, n in tally.items() if n == top]
    return " = ".join(winners), list(frame.loc[frame[field].isin(winners), "key"])
