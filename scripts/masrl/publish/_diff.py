"""What a change does to the corpus: records, counts, cross-tab cells and claims, as Markdown.

:func:`compare` takes two analysed corpora (before and after) and returns a :class:`Delta`;
:func:`markdown` renders it for a pull-request comment or a CI job summary.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any

from masrl.publish._build import Analysis
from masrl.publish._render import md

_SKIP_FIELDS = ("path",)


@dataclass
class Delta:
    records: list[tuple[str, str, list[str]]] = field(default_factory=list)  # (file, change, details)
    counts: list[tuple[str, str, int, int]] = field(default_factory=list)  # (field, value, before, after)
    cells: list[tuple[str, str, str, int, int]] = field(default_factory=list)  # (table, row, col, before, after)
    claims: list[tuple[str, str, Any, Any]] = field(default_factory=list)  # (id, statement, before, after)
    # Claims whose verdict under a view changed: (id, view label, before, after), each (value, holds).
    turns: list[tuple[str, str, tuple[Any, bool], tuple[Any, bool]]] = field(default_factory=list)
    errors_before: int = 0

    @property
    def empty(self) -> bool:
        return not (self.records or self.counts or self.cells or self.claims or self.turns)


def _fields(record: Any) -> dict[str, Any]:
    """A record's fields by name, its tag fields among them (not nested under ``tags``)."""
    out = {k: v for k, v in dataclasses.asdict(record).items() if k not in _SKIP_FIELDS}
    out.update(out.pop("tags", {}))
    return out


def _show(value: Any) -> str:
    if value is None:
        return "—"
    if isinstance(value, (list, tuple)):
        return ", ".join(map(str, value))
    if isinstance(value, dict):
        return ", ".join(f"{k}: {_show(v)}" for k, v in value.items()) or "{}"
    text = str(value)
    return text if len(text) <= 60 else text[:57] + "…"


def _record_changes(
    kind: str, folder: str, old: dict[str, Any], new: dict[str, Any]
) -> list[tuple[str, str, list[str]]]:
    out: list[tuple[str, str, list[str]]] = []
    for name in sorted(set(old) | set(new)):
        file = f"{folder}/{name}.yaml"
        if name not in old:
            out.append((file, f"{kind} added", []))
        elif name not in new:
            out.append((file, f"{kind} removed", []))
        else:
            before, after = _fields(old[name]), _fields(new[name])
            changed = [k for k in {**before, **after} if before.get(k) != after.get(k)]
            if changed:
                details = []
                for k in changed:
                    if k in ("summary", "notes", "note", "subdecisions"):
                        details.append(
                            f"{k} edited" if k != "subdecisions" else _subdecision_change(before[k], after[k])
                        )
                    else:
                        details.append(f"{k}: {_show(before.get(k))} → {_show(after.get(k))}")
                out.append((file, f"{kind} changed", details))
    return out


def _subdecision_change(before: dict[str, Any] | None, after: dict[str, Any] | None) -> str:
    def codes(value: dict[str, Any] | None) -> str:
        if value is None:
            return "not coded"
        return ", ".join(f"{o} {s['code']}" for o, s in value.items()) or "none"

    return f"subdecisions: {codes(before)} → {codes(after)}"


def compare(before: Analysis, after: Analysis) -> Delta:
    delta = Delta(errors_before=sum(p.is_error for p in before.loaded.problems))
    b, a = before.corpus, after.corpus
    delta.records += _record_changes("paper", "papers", {p.key: p for p in b.papers}, {p.key: p for p in a.papers})
    delta.records += _record_changes(
        "exclusion", "exclusions", {e.id: e for e in b.exclusions}, {e.id: e for e in a.exclusions}
    )
    delta.records += _record_changes("audit", "audits", {x.key: x for x in b.audits}, {x.key: x for x in a.audits})
    for name, values in after.stats["counts"].items():
        old = before.stats["counts"].get(name, {})
        for value in dict.fromkeys([*old, *values]):
            x, y = old.get(value, 0), values.get(value, 0)
            if x != y:
                delta.counts.append((name, value, x, y))
    for name, table in after.stats["crosstabs"].items():
        old_table = before.stats["crosstabs"].get(name, {})
        for row in dict.fromkeys([*old_table, *table]):
            old_row, new_row = old_table.get(row, {}), table.get(row, {})
            for col in dict.fromkeys([*old_row, *new_row]):
                x, y = old_row.get(col, 0), new_row.get(col, 0)
                if x != y:
                    delta.cells.append((name, row, col, x, y))
    for o in after.stats["subdecisions"]:
        if o == "coded":
            continue
        for code in ("learned", "designed"):
            x = before.stats["subdecisions"].get(o, {}).get(code, 0)
            y = after.stats["subdecisions"][o][code]
            if x != y:
                delta.counts.append(("subdecision", f"{o} {code}", x, y))
    old_claims = {c["id"]: c for c in before.stats["claims"]}
    for claim in after.stats["claims"]:
        prior = old_claims.pop(claim["id"], None)
        state = (claim["holds"], claim["actual"], claim["expected"])
        if prior is None or (prior["holds"], prior["actual"], prior["expected"]) != state:
            delta.claims.append((claim["id"], claim["statement"], prior, claim))
    for prior in old_claims.values():
        delta.claims.append((prior["id"], prior["statement"], prior, None))
    delta.turns = _turns(before, after)
    return delta


def _turns(before: Analysis, after: Analysis) -> list[tuple[str, str, tuple[Any, bool], tuple[Any, bool]]]:
    """Claims whose verdict changed under a view that both sides name (see ``masrl claims --stress``)."""
    old = {(row.claim.id, c.view.id): c for row in before.stress for c in row.cells}
    out = []
    for row in after.stress:
        for cell in row.cells:
            prior = old.get((row.claim.id, cell.view.id))
            if prior is not None and prior.holds != cell.holds:
                out.append((row.claim.id, cell.view.label, (prior.actual, prior.holds), (cell.actual, cell.holds)))
    return out


def _claim_cell(claim: dict[str, Any] | None) -> str:
    if claim is None:
        return "—"
    mark = "✅" if claim["holds"] else "❌"
    return f"{mark} {md(_show(claim['actual']))}"


def _section(title: str, header: str, rows: list[str], empty: str) -> list[str]:
    """A titled Markdown table of *rows*, or the *empty* sentence when there are none."""
    return [f"### {title}", "", *([*header.split("\n"), *rows] if rows else [empty]), ""]


def markdown(delta: Delta, before_label: str, after_label: str) -> str:
    """The delta as Markdown for a pull-request comment."""
    lines = [f"## Corpus diff: {md(before_label)} → {md(after_label)}", ""]
    if delta.errors_before:
        lines += [
            f"> {before_label} had {delta.errors_before} validation errors; records with errors were left out.",
            "",
        ]
    if delta.empty:
        lines.append("No record changed; every count, cross-tab cell and claim is the same.")
        return "\n".join(lines) + "\n"
    lines += _section(
        f"Records ({len(delta.records)})",
        "| file | change | details |\n| --- | --- | --- |",
        [f"| `{f}` | {c} | {md('; '.join(d)) if d else ''} |" for f, c, d in delta.records],
        "No record changed.",
    )
    lines += _section(
        f"Counts that moved ({len(delta.counts)})",
        "| field | value | before | after |\n| --- | --- | ---: | ---: |",
        [f"| {f} | `{v}` | {x} | {y} |" for f, v, x, y in delta.counts],
        "None.",
    )
    lines += _section(
        f"Cross-tab cells that moved ({len(delta.cells)})",
        "| table | row | column | before | after |\n| --- | --- | --- | ---: | ---: |",
        [f"| {t} | `{r}` | `{c}` | {x} | {y} |" for t, r, c, x, y in delta.cells],
        "None.",
    )
    lines += [f"### Claims that changed ({len(delta.claims)})", ""]
    if delta.claims:
        lines += ["| claim | before | after |", "| --- | --- | --- |"]
        lines += [f"| `{i}`: {md(s)} | {_claim_cell(b)} | {_claim_cell(a)} |" for i, s, b, a in delta.claims]
        flipped = [i for i, _, b, a in delta.claims if a is not None and not a["holds"]]
        if flipped:
            lines += [
                "",
                f"**{len(flipped)} claim(s) no longer hold:** {', '.join(f'`{i}`' for i in flipped)}. "
                "If the change is intended, update `expected` in claims.yaml in this pull request.",
            ]
    else:
        lines.append("Every claim evaluates as before.")
    lines += [""]
    lines += _section(
        f"Claims that turn under a view ({len(delta.turns)})",
        "| claim | view | before | after |\n| --- | --- | --- | --- |",
        [f"| `{i}` | {md(view)} | {_verdict(*b)} | {_verdict(*a)} |" for i, view, b, a in delta.turns],
        "No claim changes its verdict under any view (`masrl claims --stress`).",
    )
    return "\n".join(lines).rstrip("\n") + "\n"


def _verdict(value: Any, holds: bool) -> str:
    return f"{'✅' if holds else '❌'} {md(_show(value))}"
