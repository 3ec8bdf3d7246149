"""Corpus statistics: pure functions from typed records to one JSON-ready result.

Everything is counted in taxonomy order over the full vocabulary, zeros kept: the empty cells
(no learned stopping decision, one strict message-level credit) are the survey's findings, so a
table that dropped them would hide the point.

Steps: :func:`papers_frame` turns the papers into one pandas frame with categorical columns;
:func:`compute` derives counts, cross-tabs, per-year series, screening flow, sub-decision coverage,
the papers that link their code and the audit's agreement figures from it and from the exclusion and audit records.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import pandas as pd

from masrl.corpus import _vocab as v
from masrl.corpus._records import Corpus
from masrl.corpus._vocab import Taxonomy

STATS_FORMAT = "masrl-stats/1"


def paper_counted(tax: Taxonomy) -> tuple[str, ...]:
    """The paper fields counted in stats: every tag field, each derived field after its source."""
    return tuple(f.name for f in tax.counted_fields("paper"))


def papers_frame(corpus: Corpus) -> pd.DataFrame:
    """One row per paper; single-valued tag columns are ordered categoricals over the taxonomy's
    values, and a field declared ``multiple`` holds a tuple of ids per row."""
    tax = corpus.taxonomy
    subdecisions = tax.ids(v.SUBDECISION)
    fields = tax.counted_fields("paper")
    rows = []
    for p in corpus.papers:
        row: dict[str, Any] = {"key": p.key, "title": p.title, "year": p.year}
        for f in fields:
            if f.derived_from is not None:
                row[f.name] = tax.derive(f, p.tag(f.derived_from))
            elif f.multiple:
                row[f.name] = p.tag_values(f.name)
            else:
                row[f.name] = p.tags.get(f.name)
        row["strict_credit"] = p.strict_credit
        row["coded"] = p.subdecisions is not None
        for o in subdecisions:
            sub = (p.subdecisions or {}).get(o)
            row[o] = sub.code if sub else None
        rows.append(row)
    columns = ["key", "title", "year", *(f.name for f in fields), "strict_credit", "coded", *subdecisions]
    frame = pd.DataFrame(rows, columns=columns)
    frame["strict_credit"] = frame["strict_credit"].astype(bool)  # an empty frame's column is object
    frame["coded"] = frame["coded"].astype(bool)
    for f in fields:
        if not f.multiple:
            frame[f.name] = pd.Categorical(frame[f.name], categories=list(f.ids), ordered=True)
    return frame


def _long(frame: pd.DataFrame, field: str, tax: Taxonomy) -> pd.Series:
    """*field*'s column with one row per value: a multi-valued field is exploded."""
    f = tax[field]
    if not f.multiple:
        return frame[field]
    exploded = frame[field].explode()
    return pd.Series(pd.Categorical(exploded.dropna(), categories=list(f.ids), ordered=True), dtype="category")


def counts(frame: pd.DataFrame, field: str, tax: Taxonomy) -> dict[str, int]:
    """Every value of *field* in taxonomy order with its count, zeros included. A paper counts
    once under each value of a multi-valued field."""
    series = _long(frame, field, tax).value_counts(sort=False)
    return {str(k): int(series.get(k, 0)) for k in tax.ids(field)}


def crosstab(frame: pd.DataFrame, rows: str, cols: str, tax: Taxonomy) -> dict[str, dict[str, int]]:
    """``{row value: {column value: count}}`` over the full vocabularies of both fields; a paper
    counts in every cell its values of multi-valued fields reach."""

    def values(name: str) -> list[tuple[str, ...]]:
        column = frame[name].tolist()
        return [tuple(x) for x in column] if tax[name].multiple else [(str(x),) for x in column]

    cells = Counter((r, c) for rs, cs in zip(values(rows), values(cols), strict=True) for r in rs for c in cs)
    return {r: {c: cells[(r, c)] for c in tax.ids(cols)} for r in tax.ids(rows)}


def by_year(frame: pd.DataFrame) -> dict[str, dict[str, int]]:
    """``{year: {category: count}}`` for every year from the first to the last entry."""
    if frame.empty:
        return {}
    years = range(int(frame["year"].min()), int(frame["year"].max()) + 1)
    table = pd.crosstab(frame["year"], frame[v.CATEGORY], dropna=False).reindex(years, fill_value=0)
    return {str(y): {str(c): int(table.loc[y, c]) for c in table.columns} for y in table.index}


def strict_counts(frame: pd.DataFrame, tax: Taxonomy) -> dict[str, int]:
    """Entries with strict explicit credit, per credit unit (zeros kept)."""
    return counts(frame.loc[frame["strict_credit"]], v.CREDIT_UNIT, tax)


def code_counts(corpus: Corpus) -> dict[str, Any]:
    """Papers that link their official code (``code:``): ``{"with_code": N, "by_category":
    {category: n}}``, every category in taxonomy order, zeros kept."""
    categories = corpus.taxonomy.ids(v.CATEGORY)
    with_code = Counter(p.category for p in corpus.papers if p.code)
    return {"with_code": sum(with_code.values()), "by_category": {c: with_code[c] for c in categories}}


def subdecision_coverage(corpus: Corpus) -> dict[str, Any]:
    """``{"coded": N, "O1": {"learned": n, "designed": n, "keys": {...}}, ...}``."""
    tax = corpus.taxonomy
    coded = [p for p in corpus.papers if p.subdecisions is not None]
    out: dict[str, Any] = {"coded": len(coded)}
    for o in tax.ids(v.SUBDECISION):
        entry: dict[str, Any] = {}
        for code in tax.ids(v.SUBDECISION_CODE):
            keys = [p.key for p in coded if (s := (p.subdecisions or {}).get(o)) is not None and s.code == code]
            entry[code] = len(keys)
            entry.setdefault("keys", {})[code] = keys
        out[o] = entry
    return out


def screening(corpus: Corpus) -> dict[str, Any]:
    """The screening flow: records identified, excluded per stage and per reason, retained."""
    tax = corpus.taxonomy
    stages = Counter(e.stage for e in corpus.exclusions)
    reasons = Counter(r for e in corpus.exclusions for r in e.reasons)
    return {
        "identified": len(corpus.papers) + len(corpus.exclusions),
        "excluded": len(corpus.exclusions),
        "retained": len(corpus.papers),
        "by_stage": {s: stages.get(s, 0) for s in tax.ids(v.SCREENING_STAGE)},
        "by_reason": {r: reasons.get(r, 0) for r in tax.ids(v.EXCLUSION_REASON)},
        "first_reason": {
            r: sum(1 for e in corpus.exclusions if e.reasons[0] == r) for r in tax.ids(v.EXCLUSION_REASON)
        },
    }


def cohen_kappa(first: list[str], second: list[str]) -> float | None:
    """Cohen's kappa of two raters over the same items; None when chance agreement is total.

    kappa = (p_o - p_e) / (1 - p_e), with p_o the observed agreement and p_e the agreement
    expected if both raters labelled independently with their own marginal frequencies.
    """
    n = len(first)
    if n == 0:
        return None
    observed = sum(a == b for a, b in zip(first, second, strict=True)) / n
    left, right = Counter(first), Counter(second)
    expected = sum(left[label] * right[label] for label in left) / (n * n)
    if expected == 1:
        return None
    return (observed - expected) / (1 - expected)


def audit_agreement(corpus: Corpus) -> dict[str, Any]:
    """Per audited field: rows, percent agreement, Cohen's kappa and the disagreeing rows."""
    fields: dict[str, Any] = {}
    for name in v.AUDITED_TAGS:
        first = [a.first_reading[name] for a in corpus.audits]
        second = [a.second_reading[name] for a in corpus.audits]
        agree = sum(x == y for x, y in zip(first, second, strict=True))
        kappa = cohen_kappa(first, second)
        fields[name] = {
            "rows": len(first),
            "agreement": round(100 * agree / len(first), 2) if first else None,
            "kappa": None if kappa is None else round(kappa, 4),
            "disagreements": [
                {"key": a.key, "first": a.first_reading[name], "second": a.second_reading[name]}
                for a in corpus.audits
                if a.first_reading[name] != a.second_reading[name]
            ],
        }
    strict_pairs = [(p.strict_credit, a.strict_credit) for a in corpus.audits for p in corpus.papers if p.key == a.key]
    return {
        "rows": len(corpus.audits),
        "fields": fields,
        "strict_credit_agreement": sum(x == y for x, y in strict_pairs),
    }


def totals(corpus: Corpus) -> dict[str, int]:
    """The headline totals of *corpus*: retained, excluded, identified, audited."""
    return {
        "retained": len(corpus.papers),
        "excluded": len(corpus.exclusions),
        "identified": len(corpus.papers) + len(corpus.exclusions),
        "audited": len(corpus.audits),
    }


def compute(corpus: Corpus) -> dict[str, Any]:
    """Every statistic of *corpus* as one JSON-serialisable mapping (claims are added later)."""
    tax = corpus.taxonomy
    frame = papers_frame(corpus)
    flow = screening(corpus)
    result: dict[str, Any] = {
        "format": STATS_FORMAT,
        "retained": len(corpus.papers),
        "excluded": len(corpus.exclusions),
        "identified": flow["identified"],
        "audited": len(corpus.audits),
        "counts": {name: counts(frame, name, tax) for name in paper_counted(tax)},
        "strict_credit": strict_counts(frame, tax),
        "crosstabs": {f"{r} x {c}": crosstab(frame, r, c, tax) for r, c in tax.crosstabs},
        "by_year": by_year(frame),
        "screening": flow,
        "subdecisions": subdecision_coverage(corpus),
        "code": code_counts(corpus),
        "audit": audit_agreement(corpus),
    }
    result["counts"][v.SCREENING_STAGE] = flow["by_stage"]
    result["counts"][v.EXCLUSION_REASON] = flow["by_reason"]
    return result


def stats_schema(tax: Taxonomy) -> dict[str, Any]:
    """JSON Schema 2020-12 describing the document :func:`compute` returns (plus ``claims``)."""

    def tally(field: str, what: str) -> dict[str, Any]:
        ids = list(tax.ids(field))
        return {
            "description": f"{what}: every value of `{field}` in taxonomy order, zeros kept.",
            "type": "object",
            "properties": {i: {"type": "integer", "minimum": 0} for i in ids},
            "required": ids,
            "additionalProperties": False,
        }

    def table(rows: str, cols: str) -> dict[str, Any]:
        return {
            "description": f"Entries per `{rows}` value (rows) and `{cols}` value (columns), zeros kept.",
            "type": "object",
            "propertyNames": {"enum": list(tax.ids(rows))},
            "additionalProperties": tally(cols, "Entries in this row"),
        }

    keyed_counts = {"type": "object", "additionalProperties": {"type": "integer", "minimum": 0}}
    # The counts of a screening flow, for the whole corpus and for each search round.
    flow = {
        "identified": {"type": "integer"},
        "excluded": {"type": "integer"},
        "retained": {"type": "integer"},
        "by_stage": keyed_counts,
    }
    subdecision = {
        "type": "object",
        "properties": {
            **{
                code: {"type": "integer", "minimum": 0, "description": f"Entries coding it `{code}`."}
                for code in tax.ids(v.SUBDECISION_CODE)
            },
            "keys": {
                "type": "object",
                "description": "The entry keys behind each count.",
                "additionalProperties": {"type": "array", "items": {"type": "string"}},
            },
        },
        "required": [*tax.ids(v.SUBDECISION_CODE), "keys"],
    }
    audit_field = {
        "type": "object",
        "properties": {
            "rows": {"type": "integer", "description": "Audited rows compared."},
            "agreement": {"type": ["number", "null"], "description": "Percent of rows where both readings agree."},
            "kappa": {"type": ["number", "null"], "description": "Cohen's kappa; null when chance agreement is total."},
            "disagreements": {
                "type": "array",
                "description": "Rows where the readings differ.",
                "items": {
                    "type": "object",
                    "required": ["key", "first", "second"],
                    "properties": {
                        "key": {"type": "string"},
                        "first": {"type": "string"},
                        "second": {"type": "string"},
                    },
                },
            },
        },
        "required": ["rows", "agreement", "kappa", "disagreements"],
    }
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "urn:masrl:schema:stats",
        "title": "Corpus statistics",
        "description": "The document `masrl stats --json` prints and site/docs/data/stats.json holds. "
        "Generated by `masrl build`; do not edit.",
        "type": "object",
        "properties": {
            "format": {"const": STATS_FORMAT, "description": "Format name and version of this document."},
            "retained": {"type": "integer", "description": "Papers kept in the corpus."},
            "excluded": {"type": "integer", "description": "Screened records left out."},
            "identified": {"type": "integer", "description": "Records screened: retained plus excluded."},
            "audited": {"type": "integer", "description": "Papers with an independent second reading."},
            "counts": {
                "description": "Entries per value of every controlled field.",
                "type": "object",
                "properties": {
                    **{f: tally(f, "Papers") for f in paper_counted(tax)},
                    v.SCREENING_STAGE: tally(v.SCREENING_STAGE, "Exclusions per stage"),
                    v.EXCLUSION_REASON: tally(
                        v.EXCLUSION_REASON, "Exclusions carrying each reason (a record may carry several)"
                    ),
                },
                "required": [*paper_counted(tax), v.SCREENING_STAGE, v.EXCLUSION_REASON],
                "additionalProperties": False,
            },
            "strict_credit": tally(v.CREDIT_UNIT, "Papers with strict explicit credit, per credit unit"),
            "crosstabs": {
                "description": 'Cross-tabulations keyed "<row field> x <column field>".',
                "type": "object",
                "properties": {f"{r} x {c}": table(r, c) for r, c in tax.crosstabs},
                "required": [f"{r} x {c}" for r, c in tax.crosstabs],
                "additionalProperties": False,
            },
            "by_year": {
                "description": "Papers per year (every year from first to last) and category.",
                "type": "object",
                "additionalProperties": tally(v.CATEGORY, "Papers that year"),
            },
            "screening": {
                "description": "The screening flow.",
                "type": "object",
                "properties": {
                    **flow,
                    "by_reason": keyed_counts,
                    "first_reason": {**keyed_counts, "description": "Exclusions by their first (main) reason."},
                    "rounds": {
                        "description": "The same flow per search round of protocol.yaml, then `contributions` "
                        "(records added by contributors) and `unassigned`; absent without protocol.yaml.",
                        "type": "object",
                        "additionalProperties": {"type": "object", "properties": flow, "required": list(flow)},
                    },
                    "arms": {
                        "description": "Per round run by the search arms of protocol.yaml: `flow` (candidates each arm "
                        "identified, their overlap, what became of them), `estimate` (the capture-recapture estimate of "
                        "the in-scope papers that exist, the corpus's and each source's recall with 95% intervals, or "
                        "`error`), `stopping` (each criterion of the stopping rule and whether it holds) and `searches` "
                        "(each query's hits); absent without arms in protocol.yaml.",
                        "type": "object",
                        "additionalProperties": {
                            "type": "object",
                            "required": ["label", "flow", "estimate", "stopping", "searches"],
                        },
                    },
                },
                "required": ["identified", "excluded", "retained", "by_stage", "by_reason", "first_reason"],
            },
            "subdecisions": {
                "description": "Orchestration sub-decision coverage: entries coded, and per O1-O5 how many learn or design it.",
                "type": "object",
                "properties": {"coded": {"type": "integer"}, **{o: subdecision for o in tax.ids(v.SUBDECISION)}},
                "required": ["coded", *tax.ids(v.SUBDECISION)],
            },
            "code": {
                "description": "Papers that link their official code (`code:`).",
                "type": "object",
                "properties": {
                    "with_code": {"type": "integer", "minimum": 0, "description": "Papers with a `code` link."},
                    "by_category": tally(v.CATEGORY, "Papers with a `code` link"),
                },
                "required": ["with_code", "by_category"],
                "additionalProperties": False,
            },
            "audit": {
                "description": "Agreement between the first coding and the independent second reading.",
                "type": "object",
                "properties": {
                    "rows": {"type": "integer"},
                    "fields": {
                        "type": "object",
                        "properties": {f: audit_field for f in v.AUDITED_TAGS},
                        "required": list(v.AUDITED_TAGS),
                    },
                    "strict_credit_agreement": {
                        "type": "integer",
                        "description": "Rows where the paper's strict-credit flag equals the second reader's.",
                    },
                },
                "required": ["rows", "fields"],
            },
            "snapshot": {
                "description": "The survey snapshot's totals (records of origin `survey`), beside the living corpus's; "
                "absent from `masrl stats --snapshot survey`, which counts the snapshot alone.",
                "type": "object",
                "properties": {
                    k: {"type": "integer", "minimum": 0} for k in ("retained", "excluded", "identified", "audited")
                },
                "required": ["retained", "excluded", "identified", "audited"],
                "additionalProperties": False,
            },
            "claims": {
                "description": "Every claim of claims.yaml, evaluated.",
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {
                        "id": {"type": "string"},
                        "statement": {"type": "string"},
                        "population": {
                            "enum": ["snapshot", "living"],
                            "description": "The records the claim is about.",
                        },
                        "query": {"type": "object"},
                        "expected": {},
                        "actual": {},
                        "holds": {"type": "boolean"},
                        "rows": {"description": "Keys behind the value; per value for counts queries."},
                    },
                    "required": ["id", "statement", "query", "expected", "actual", "holds", "rows"],
                },
            },
        },
        "required": [
            "format",
            "retained",
            "excluded",
            "identified",
            "audited",
            "counts",
            "strict_credit",
            "crosstabs",
            "by_year",
            "screening",
            "subdecisions",
            "code",
            "audit",
            "claims",
        ],
    }
