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

Each claim is about a ``population``: ``snapshot`` (the default: the survey's records only, so a
contributed paper never moves it) or ``living`` (every record). The file may also name ``views``,
alternative readings of the records (:mod:`masrl.analysis._views`); :func:`stress` evaluates every claim
under every view.

:func:`load_ledger` checks the file and reports problems with positions like every record;
:func:`evaluate` returns, per claim, the actual value, whether it holds, and the rows behind it.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from masrl.analysis import _views
from masrl.analysis._views import View
from masrl.base._problems import Problem, did_you_mean, one_of
from masrl.corpus import _vocab as v
from masrl.corpus._records import Corpus
from masrl.corpus._vocab import Taxonomy
from masrl.corpus._yaml import Document, YamlError, load_path

if TYPE_CHECKING:
    import pandas as pd

CLAIMS_FILE = "claims.yaml"
STATEMENT_MAX = 200
_TARGETS = ("papers", "exclusions", "audits")
_EXCLUSION_FIELDS = {"stage": v.SCREENING_STAGE, "reason": v.EXCLUSION_REASON}
_ABSENT = "absent"  # O1..O5 value meaning the entry does not address the sub-decision


CLAIM_FIELDS = ("id", "statement", "population", "query", "expected")


@dataclass(frozen=True)
class Claim:
    id: str
    statement: str
    query: dict[str, Any]
    expected: Any
    line: int
    population: str = _views.SNAPSHOT


@dataclass(frozen=True)
class Ledger:
    """claims.yaml, read: the claims and the views they are stressed under."""

    claims: list[Claim]
    views: tuple[View, ...] = _views.DEFAULT_VIEWS


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
            "population": self.claim.population,
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
    ledger, problems = load_ledger(root, taxonomy)
    return ledger.claims, problems


def load_ledger(root: Path, taxonomy: Taxonomy) -> tuple[Ledger, list[Problem]]:
    """Read and check claims.yaml under *root*: its claims and views (the defaults if it names none)."""
    path = root / CLAIMS_FILE
    if not path.is_file():
        return Ledger([]), []
    try:
        doc = load_path(path)
    except YamlError as exc:
        return Ledger([]), [Problem(CLAIMS_FILE, exc.line, exc.column, "", exc.message)]
    problems = list(_check(doc, taxonomy))
    if problems:
        return Ledger([]), problems
    claims = [
        Claim(
            c["id"],
            c["statement"],
            c["query"],
            c["expected"],
            doc.mark(("claims", i)).line,
            c.get("population", _views.SNAPSHOT),
        )
        for i, c in enumerate(doc.data["claims"])
    ]
    if "views" not in doc.data:
        return Ledger(claims), []
    views = _views.build_views(doc.data["views"], lambda i: doc.mark(("views", i)).line)
    return Ledger(claims, views), []


def _check(doc: Document, taxonomy: Taxonomy) -> Iterator[Problem]:
    def at(path: tuple[str | int, ...], message: str) -> Problem:
        mark = doc.mark(path)
        return Problem(CLAIMS_FILE, mark.line, mark.column, ".".join(map(str, path)), message)

    extra = set(doc.data) - {"claims", "views"}
    if extra:
        yield at(
            (sorted(extra)[0],),
            "unknown field; claims.yaml holds claims (a list of claims) and views (a list of readings)",
        )
    if "views" in doc.data:
        yield from _views.check_views(doc.data["views"], at)
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
            if key not in CLAIM_FIELDS:
                yield at((*where, key), f"unknown field{did_you_mean(key, CLAIM_FIELDS)}")
        if "population" in claim and claim["population"] not in _views.POPULATIONS:
            yield at(
                (*where, "population"),
                f"population must be {one_of(_views.POPULATIONS)}, not {claim['population']!r}",
            )
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
    """Evaluate every claim; *frame* and *stats* come from :mod:`masrl.analysis._stats`."""
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


# ---------------------------------------------------------------------------------------------
# Populations and views


def _reading(corpus: Corpus) -> tuple[pd.DataFrame, dict[str, Any]]:
    """The frame and the counts a claim query needs, for one set of records."""
    from masrl.analysis import _stats

    tax = corpus.taxonomy
    frame = _stats.papers_frame(corpus)
    tallies = {name: _stats.counts(frame, name, tax) for name in _stats.paper_counted(tax)}
    flow = _stats.screening(corpus)
    tallies[v.SCREENING_STAGE] = flow["by_stage"]
    tallies[v.EXCLUSION_REASON] = flow["by_reason"]
    return frame, {"counts": tallies}


class Readings:
    """The records of every population and view, with their frames and counts, each made once.

    Views that change nothing return the very corpus they were given, so on a corpus of survey
    records only the snapshot and the living corpus share one reading.
    """

    def __init__(self, corpus: Corpus, frame: pd.DataFrame, stats: dict[str, Any]) -> None:
        self.corpus = corpus
        self._seen: dict[int, tuple[Corpus, pd.DataFrame, dict[str, Any]]] = {id(corpus): (corpus, frame, stats)}
        self._records: dict[tuple[str, tuple[str, ...]], Corpus] = {}

    def records(self, population: str, transforms: tuple[str, ...] = ()) -> Corpus:
        """The records of *population* after *transforms*, applied in order (see :mod:`masrl.analysis._views`)."""
        key = (population, transforms)
        if key not in self._records:
            if transforms:
                out = self.records(population, transforms[:-1])
                self._records[key] = _views.TRANSFORMS[transforms[-1]][0](out)
            else:
                self._records[key] = _views.population(self.corpus, population)
        return self._records[key]

    def of(self, corpus: Corpus) -> tuple[pd.DataFrame, dict[str, Any]]:
        if id(corpus) not in self._seen:
            self._seen[id(corpus)] = (corpus, *_reading(corpus))
        _, frame, stats = self._seen[id(corpus)]
        return frame, stats


def evaluate_claims(claims: list[Claim], readings: Readings) -> list[Outcome]:
    """Evaluate every claim on its own population."""
    outcomes = []
    for claim in claims:
        records = readings.records(claim.population)
        outcomes.extend(evaluate([claim], records, *readings.of(records)))
    return outcomes


@dataclass(frozen=True)
class Move:
    """A row that reads differently under a view than in the claim's own population."""

    key: str
    before: str | None  # None: not among the rows; "" : among them (for plain lists of rows)
    after: str | None

    @property
    def mark(self) -> str:
        return "+" if self.before is None else "−" if self.after is None else ""

    @property
    def detail(self) -> str:
        """What the row reads as: ``framework`` when it joins, ``role → orchestrator`` when it moves."""
        before, after = _shown(self.before), _shown(self.after)
        if before is None or after is None:
            return after or before or ""
        return f"{before} → {after}"

    def text(self) -> str:
        """``+E003`` joins the rows, ``−hera`` leaves them, ``halo: role → orchestrator`` moves."""
        before, after = _shown(self.before), _shown(self.after)
        if before is None:
            return f"+{self.key}" + (f" ({after})" if after else "")
        if after is None:
            return f"−{self.key}" + (f" ({before})" if before else "")
        return f"{self.key}: {before} → {after}"

    def as_json(self) -> dict[str, Any]:
        return {"key": self.key, "before": self.before, "after": self.after}


@dataclass(frozen=True)
class Cell:
    """One claim under one view."""

    view: View
    actual: Any
    holds: bool
    rows: Any
    moves: tuple[Move, ...]


@dataclass(frozen=True)
class StressRow:
    """A claim on its own population, and under every view."""

    outcome: Outcome
    cells: tuple[Cell, ...]

    @property
    def claim(self) -> Claim:
        return self.outcome.claim

    @property
    def turns(self) -> tuple[str, ...]:
        """Views under which the claim's verdict differs from its own population's."""
        return tuple(c.view.id for c in self.cells if c.holds != self.outcome.holds)

    def as_json(self) -> dict[str, Any]:
        return {
            "id": self.claim.id,
            "statement": self.claim.statement,
            "population": self.claim.population,
            "expected": self.claim.expected,
            "holds": self.outcome.holds,
            "turns": list(self.turns),
            "views": {
                c.view.id: {
                    "actual": c.actual,
                    "holds": c.holds,
                    "rows": c.rows,
                    "moved": [m.as_json() for m in c.moves],
                }
                for c in self.cells
            },
        }


def _row_values(rows: Any) -> dict[str, str]:
    """Rows as ``{key: value}``: the value a key is counted under, or "" for a plain list of keys."""
    if isinstance(rows, dict):
        out: dict[str, list[str]] = {}
        for value, keys in rows.items():
            for key in keys:
                out.setdefault(key, []).append(str(value))
        return {key: ", ".join(values) for key, values in out.items()}
    return dict.fromkeys(rows, "")


def moves(before: Any, after: Any) -> tuple[Move, ...]:
    """The rows whose reading differs between *before* and *after* (rows of one claim), by key."""
    old, new = _row_values(before), _row_values(after)
    return tuple(
        Move(key, old.get(key), new.get(key)) for key in sorted(old.keys() | new.keys()) if old.get(key) != new.get(key)
    )


def stress(outcomes: list[Outcome], views: tuple[View, ...], readings: Readings) -> list[StressRow]:
    """Every claim of *outcomes* evaluated under every view of *views*.

    Each cell holds the claim's value under the view, whether it equals the expected value, and
    the rows that read differently from the claim's own population.
    """
    table = []
    for outcome in outcomes:
        claim = outcome.claim
        cells = []
        for view in views:
            records = readings.records(view.starts_from(claim.population), view.apply)
            actual, rows = _run(claim.query, records, *readings.of(records))
            cells.append(Cell(view, actual, actual == claim.expected, rows, moves(outcome.rows, rows)))
        table.append(StressRow(outcome, tuple(cells)))
    return table


def stress_json(views: tuple[View, ...], table: list[StressRow]) -> dict[str, Any]:
    """The stress table as one JSON-ready mapping."""
    return {"views": [view.as_json() for view in views], "claims": [row.as_json() for row in table]}


# ---------------------------------------------------------------------------------------------
# Showing the stress table

HOLDS, FAILS = "✓", "✗"
MOVES_SHOWN = 12  # rows listed per claim and view in text; the site lists them all


def show_value(value: Any) -> str:
    """A claim's value on one line: ``2``, ``hybrid``, or ``token 0, turn 5, ...``."""
    if isinstance(value, dict):
        return ", ".join(f"{k} {n}" for k, n in value.items())
    return str(value)


def cell_text(cell: Cell, expected: Any) -> str:
    """A compact table cell: the value (or, for a full count, how many values differ), and the mark."""
    if isinstance(cell.actual, dict) and isinstance(expected, dict):
        differ = sum(cell.actual.get(k) != n for k, n in expected.items())
        shown = "=" if not differ else f"Δ{differ}"
    else:
        shown = str(cell.actual)
    return f"{shown} {HOLDS if cell.holds else FAILS}"


def value_change(before: Any, after: Any) -> str:
    """``2 → 1``, or for full counts only the values that moved: ``turn 5 → 2, message 2 → 1``."""
    if isinstance(before, dict) and isinstance(after, dict):
        return ", ".join(f"{_shown(k)} {before.get(k, 0)} → {n}" for k, n in after.items() if before.get(k, 0) != n)
    return f"{before} → {after}"


def _shown(value: Any) -> Any:
    """A value as readers see it: the not-applicable id reads ``n/a``, everything else as it is."""
    return "n/a" if value == v.NA else value


def moved_text(moves: tuple[Move, ...], limit: int = MOVES_SHOWN) -> str:
    shown = ", ".join(m.text() for m in moves[:limit])
    return shown + (f", … {len(moves) - limit} more" if len(moves) > limit else "")


def stress_text(views: tuple[View, ...], table: list[StressRow]) -> str:
    """The stress table as plain text: one row per claim, one column per view, then what moved."""
    header = ["claim", "population", *(view.id for view in views)]
    body = [
        [row.claim.id, row.claim.population, *(cell_text(c, row.claim.expected) for c in row.cells)] for row in table
    ]
    widths = [max(len(r[i]) for r in (header, *body)) for i in range(len(header))]
    lines = [
        "  ".join(text.ljust(width) for text, width in zip(r, widths, strict=True)).rstrip() for r in (header, *body)
    ]
    lines += [
        "",
        f"{HOLDS} holds · {FAILS} does not hold · = every count as expected · Δn: n counts differ from the expected value",
    ]
    changed = [(row, [c for c in row.cells if c.actual != row.outcome.actual or c.moves]) for row in table]
    changed = [(row, cells) for row, cells in changed if cells]
    if changed:
        lines += ["", "What moves, against each claim's own population:"]
    for row, cells in changed:
        lines.append(f"  {row.claim.id}")
        for c in cells:
            parts = [value_change(row.outcome.actual, c.actual)] if c.actual != row.outcome.actual else []
            if c.moves:
                parts.append(f"{len(c.moves)} row{'s' if len(c.moves) != 1 else ''}: {moved_text(c.moves)}")
            turned = f" [{'holds' if c.holds else 'turns'}]" if c.holds != row.outcome.holds else ""
            lines.append(f"    {c.view.id}: {'; '.join(parts)}{turned}")
    return "\n".join(lines) + "\n"


def stress_display(views: tuple[View, ...], table: list[StressRow], limit: int | None = None) -> dict[str, Any]:
    """The stress table shaped for the README and the site: cell texts, changes, turned claims.

    *limit* caps the rows listed per change (None: all of them).
    """
    rows = []
    for row in table:
        cells, changes = [], []
        for c in row.cells:
            if isinstance(c.actual, dict) and isinstance(row.claim.expected, dict):
                differ = sum(c.actual.get(k) != n for k, n in row.claim.expected.items())
                text = "as expected" if not differ else f"{differ} count{'s' if differ != 1 else ''} differ"
            else:
                text = str(c.actual)
            cells.append({"view": c.view.id, "text": text, "holds": c.holds, "value": show_value(c.actual)})
            if c.actual != row.outcome.actual or c.moves:
                shown = c.moves if limit is None else c.moves[:limit]
                changes.append(
                    {
                        "view": c.view.id,
                        "label": c.view.label,
                        "change": value_change(row.outcome.actual, c.actual) if c.actual != row.outcome.actual else "",
                        "moves": [{"key": m.key, "text": m.text(), "mark": m.mark, "detail": m.detail} for m in shown],
                        "more": len(c.moves) - len(shown),
                        "turned": c.holds != row.outcome.holds,
                        "holds": c.holds,
                    }
                )
        living = [
            c.view.label
            for c in row.cells
            if c.view.records == _views.LIVING and not c.view.apply and c.holds != row.outcome.holds
        ]
        rows.append(
            {
                "id": row.claim.id,
                "statement": row.claim.statement,
                "population": row.claim.population,
                "holds": row.outcome.holds,
                "cells": cells,
                "changes": changes,
                "turns": [c.view.label for c in row.cells if c.view.id in row.turns],
                "turns_living": bool(living),
                # how the value moves on the whole living corpus, when the claim turns there
                "living_change": next(
                    (
                        value_change(row.outcome.actual, c.actual)
                        for c in row.cells
                        if c.view.records == _views.LIVING and not c.view.apply and c.holds != row.outcome.holds
                    ),
                    "",
                ),
            }
        )
    return {
        "views": [
            {
                "id": view.id,
                "label": view.label,
                "description": view.description,
                "records": view.records,
                "transforms": [_views.TRANSFORMS[name][1] for name in view.apply],
            }
            for view in views
        ],
        "rows": rows,
        "turning": sum(bool(r["turns"]) for r in rows),
    }
