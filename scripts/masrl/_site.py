"""Site sources for MkDocs: every generated Markdown page under ``site/docs/``.

The pages are rendered from the same analysis as the README (:mod:`masrl._build`) with the
templates in ``templates/site/``. Record strings reach a page in one of two ways, and each has its
own escaping: :func:`masrl._render.md` for Markdown text and :func:`html` for raw HTML blocks, where
Markdown is not processed. Data embedded for the papers table is JSON with ``<`` escaped, so a title
cannot close the script element that carries it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jinja2
from markupsafe import escape

from masrl import _vocab as v
from masrl._records import Paper
from masrl._render import md, md_url, template_environment

DOCS = "site/docs"
PAPERS_PER_PAGE = 100  # rows the papers table shows at once; the rest are a page click away
SERVER_ROWS_MAX = 500  # rows rendered into the HTML for readers without JavaScript
RELATED_MAX = 8
REPO_FILES = ("README.md", "CONTRIBUTING.md", "taxonomy.yaml", "claims.yaml", "CITATION.cff")

# Short column keys of the embedded papers data, kept small because the page carries it inline.
# (Documented here; assets/papers.js reads the same keys.)
TABLE_FIELDS = {
    "category": "c",
    "rl": "rl",
    "reward_family": "f",
    "reward_type": "r",
    "credit_unit": "u",
    "topology": "tp",
    "scenario": "sc",
    "role": "ro",
    "verified": "v",
}


# Tag columns of the papers table, in order; the sub-decision column follows the topology.
TABLE_COLUMNS = (v.CATEGORY, v.RL, v.REWARD_FAMILY, v.CREDIT_UNIT, v.TOPOLOGY, v.SCENARIO)


def html(text: Any) -> str:
    """*text* escaped for an HTML context."""
    return str(escape(str(text)))


def front_matter(**fields: Any) -> str:
    """YAML front matter; every value is written as JSON, which YAML reads back unchanged.

    The theme puts ``title`` and ``description`` into HTML without escaping them (a heading may
    carry markup), so templates pass record strings through :func:`html` first.
    """
    lines = ["---", "generated: true"]
    for key, value in fields.items():
        if value is None:
            continue
        if isinstance(value, list):
            lines.append(f"{key}:")
            lines.extend(f"  - {json.dumps(item, ensure_ascii=False)}" for item in value)
        else:
            lines.append(f"{key}: {json.dumps(value, ensure_ascii=False)}")
    lines.append("---")
    return "\n".join(lines) + "\n"


def script_json(data: Any) -> str:
    """JSON safe inside a ``<script type="application/json">`` element."""
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def _slug(value: str) -> str:
    return value.lower().replace("_", "-")


def _environment() -> jinja2.Environment:
    env = template_environment(trim=True)
    env.filters.update(md=md, html=html, url=md_url, json=script_json, slug=_slug)
    return env


def render_site(analysis: Any, specs: list[Any], traces: dict[str, Any] | None, bib: dict[str, str]) -> dict[str, str]:
    """Every generated page, keyed by path relative to the repository root.

    *traces* is the context of the traces page (:func:`trace_pages`); without it the page is left out.
    *bib* maps keys to their BibTeX entries (from the corpus export, so entries are written once).
    """
    corpus = analysis.corpus
    tax = corpus.taxonomy
    stats = analysis.stats
    env = _environment()
    labels = {name: {x.id: x.label for x in f.values} for name, f in tax.fields.items()}
    family = {p.key: tax.family_of(p.reward_type) for p in corpus.papers}
    audits = {a.key: a for a in corpus.audits}
    paths: dict[str, Callable[[str], str]] = {
        "family": lambda f: f"taxonomy/reward-family/{_slug(f)}.md",
        "credit_unit": lambda u: f"taxonomy/credit-unit/{_slug(u)}.md",
        "topology": lambda t: f"taxonomy/topology/{_slug(t)}.md",
        "subdecision": lambda o: f"taxonomy/subdecision/{_slug(o)}.md",
    }
    common = {
        "s": stats,
        "tax": tax.fields,
        "labels": labels,
        "family": family,
        "NA": v.NA,
        "subdecisions": tax.ids(v.SUBDECISION),
        "front_matter": front_matter,
        "figures": {spec.name: spec for spec in specs},
        "outcomes": analysis.outcomes,
        "papers": corpus.papers,
        "exclusions": corpus.exclusions,
    }
    out: dict[str, str] = {}

    def page(path: str, template: str, **context: Any) -> None:
        depth = path.count("/")
        rel = "../" * depth

        def link(target: str) -> str:
            return rel + target

        def paper_link(q: Paper) -> str:
            return f"[{md(q.title)}]({rel}papers/{q.key}.md)"

        out[f"{DOCS}/{path}"] = env.get_template(f"site/{template}").render(
            {**common, **context, "link": link, "paper_link": paper_link, "paths": paths, "root": rel}
        )

    page("index.md", "index.md.j2", citation=_citation(corpus.root))
    page(
        "papers/index.md",
        "papers-index.md.j2",
        table=_table_data(corpus, family, labels, tax),
        per_page=PAPERS_PER_PAGE,
        columns=_table_columns(tax),
        server_rows=[_server_row(p, family, labels) for p in corpus.papers[:SERVER_ROWS_MAX]],
    )
    by_family: dict[str, list[Paper]] = {}
    by_unit: dict[str, list[Paper]] = {}
    for q in corpus.papers:
        by_family.setdefault(family[q.key], []).append(q)
        by_unit.setdefault(q.credit_unit, []).append(q)
    for p in corpus.papers:
        # First RELATED_MAX others in key order; grouping first keeps this linear in the corpus size.
        same_family = by_family[family[p.key]]
        same_unit = by_unit[p.credit_unit]
        related_family = [q for q in same_family[: RELATED_MAX + 1] if q.key != p.key][:RELATED_MAX]
        related_unit = [q for q in same_unit[: RELATED_MAX + 1] if q.key != p.key][:RELATED_MAX]
        page(
            f"papers/{p.key}.md",
            "paper.md.j2",
            p=p,
            bib=bib[p.key],
            audit=audits.get(p.key),
            related_family=[] if family[p.key] == v.NA else related_family,
            related_unit=[] if p.credit_unit == v.NA else related_unit,
            more_family=max(0, len(same_family) - 1 - len(related_family)),
            more_unit=max(0, len(same_unit) - 1 - len(related_unit)),
            tags=_tags(p, family, labels),
        )
    page("taxonomy/index.md", "taxonomy-index.md.j2")
    for name, field, folder in (
        ("family", v.REWARD_FAMILY, "reward-family"),
        ("credit_unit", v.CREDIT_UNIT, "credit-unit"),
        ("topology", v.TOPOLOGY, "topology"),
        ("subdecision", v.SUBDECISION, "subdecision"),
    ):
        page(f"taxonomy/{folder}/index.md", "taxonomy-field-index.md.j2", field=tax[field], kind=name)
        for value in tax[field].values:
            if value.id == v.NA:
                continue
            members = _members(corpus.papers, name, value.id, family)
            path = paths[name](value.id)
            page(
                path,
                "taxonomy-value.md.j2",
                field=tax[field],
                value=value,
                kind=name,
                members=members,
                reward_types=[r for r in tax[v.REWARD_TYPE].values if r.family == value.id],
            )
    page("statistics.md", "statistics.md.j2", crosstabs=_crosstab_views(stats, labels))
    page("claims.md", "claims.md.j2")
    page("screening.md", "screening.md.j2")
    page("contributing.md", "contributing.md.j2", body=_contributing(corpus.root))
    if traces is not None:
        page("traces.md", "traces.md.j2", **traces)
    return out


def _members(papers: tuple[Paper, ...], kind: str, value: str, family: dict[str, str]) -> list[Paper]:
    if kind == "family":
        return [p for p in papers if family[p.key] == value]
    if kind == "subdecision":
        return [p for p in papers if p.subdecisions and value in p.subdecisions]
    return [p for p in papers if p.tag(kind) == value]


def _tags(p: Paper, family: dict[str, str], labels: dict[str, dict[str, str]]) -> list[str]:
    tags = [f"category: {labels[v.CATEGORY][p.category]}"]
    if family[p.key] != v.NA:
        tags.append(labels[v.REWARD_FAMILY][family[p.key]])
    if p.credit_unit != v.NA:
        tags.append(f"credit: {labels[v.CREDIT_UNIT][p.credit_unit]}")
    if p.topology != v.NA:
        tags.append(f"topology: {labels[v.TOPOLOGY][p.topology]}")
    return tags


def _table_data(corpus: Any, family: dict[str, str], labels: dict[str, dict[str, str]], tax: Any) -> dict[str, Any]:
    """The papers table's data: a row per paper and the filters, with their labels and values.

    assets/papers.js knows no field or value by name: every filter (its URL key, label, kind and
    values) comes from here, so a field added to the taxonomy shows up without touching the script.
    Row keys are short because the page carries the data inline; empty values are left out.
    """
    from masrl._export import bib_extras, bib_name, latex_text

    rows = []
    for p in corpus.papers:
        row: dict[str, Any] = {"k": p.key, "t": p.title, "au": list(p.authors), "y": p.year, "ve": p.venue}
        for name, short in TABLE_FIELDS.items():
            row[short] = family[p.key] if name == v.REWARD_FAMILY else p.tag(name)
        optional = {
            "ea": p.et_al,
            "s": p.strict_credit,
            "o": {o: s.code for o, s in (p.subdecisions or {}).items()},
            "x": p.summary,
            "ax": p.arxiv,
            "d": p.doi,
            "w": p.url,
            "mw": list(p.more_urls),
            "cd": p.code,
            "et": p.entry_type,
            # extra BibTeX fields, already escaped as the export writes them
            "b": [list(pair) for pair in bib_extras(p)],
            # title and names as BibTeX spells them, only where that differs from the text
            "bt": latex_text(p.title) if latex_text(p.title) != p.title else None,
            "ba": [bib_name(a) for a in p.authors] if any(bib_name(a) != a for a in p.authors) else None,
        }
        row.update({key: value for key, value in optional.items() if value})
        rows.append(row)
    filters: list[dict[str, Any]] = [
        {
            "k": short,
            "name": name,
            "label": tax[name].label,
            "kind": "eq",
            "values": [[x.id, x.label] for x in tax[name].values],
        }
        for name, short in TABLE_FIELDS.items()
    ]
    for f in filters:
        if f["name"] == v.REWARD_FAMILY:
            # the table shows R1..R8 (the label is the cell's tooltip) and n/a
            f["cells"] = {x.id: x.label if x.id == v.NA else x.id for x in tax[name].values}
    extra: dict[str, dict[str, Any]] = {
        "s": {
            "k": "s",
            "name": "strict_credit",
            "label": "Strict credit",
            "kind": "flag",
            "values": [["yes", "strict only"], ["no", "not strict"]],
            "mark": {"column": TABLE_FIELDS.get(v.CREDIT_UNIT), "text": " (strict)"},
        },
        "o": {
            "k": "o",
            "name": "subdecisions",
            "label": "Sub-decision",
            "kind": "sub",
            "values": [
                [f"{o.id}:{code}", f"{o.label} — {code_label}"]
                for o in tax[v.SUBDECISION].values
                for code, code_label in [
                    ("any", "any"),
                    *((c.id, c.label.lower()) for c in tax[v.SUBDECISION_CODE].values),
                ]
            ],
        },
    }
    # Strict credit sits after the credit unit, sub-decisions after the topology; else at the end.
    for after, key in ((TABLE_FIELDS.get(v.CREDIT_UNIT), "s"), (TABLE_FIELDS.get(v.TOPOLOGY), "o")):
        at = next((i + 1 for i, f in enumerate(filters) if f["k"] == after), len(filters))
        filters.insert(at, extra[key])
    years = sorted({p.year for p in corpus.papers}, reverse=True)
    filters.append(
        {"k": "y", "name": "year", "label": "Year", "kind": "eq", "values": [[str(y), str(y)] for y in years]}
    )
    return {"rows": rows, "filters": filters}


def _table_columns(tax: Any) -> list[tuple[str, str]]:
    """(data key, heading) of every column of the papers table, in order."""
    columns = [("t", "Title"), ("y", "Year"), ("ve", "Venue")]
    for name in TABLE_COLUMNS:
        heading = "Family" if name == v.REWARD_FAMILY else tax[name].label
        columns.append((TABLE_FIELDS[name], heading))
        if name == v.TOPOLOGY:
            columns.append(("o", "Sub-decisions"))
    columns.append(("links", "Links"))
    return columns


def _server_row(p: Paper, family: dict[str, str], labels: dict[str, dict[str, str]]) -> dict[str, str]:
    """The cells of *p* in the table rendered for readers without JavaScript, as escaped HTML."""
    cells = {
        "t": f'<a href="{html(p.key)}/">{html(p.title)}</a>',
        "y": str(p.year),
        "ve": html(p.venue),
        "o": " ".join(f"{o}{sub.code[:1].upper()}" for o, sub in (p.subdecisions or {}).items()),
        "links": " ".join(f'<a href="{html(u)}">{name}</a>' for name, u in (("PDF", p.pdf), ("code", p.code)) if u),
    }
    for name in TABLE_COLUMNS:
        value = family[p.key] if name == v.REWARD_FAMILY else p.tag(name)
        text = value if name == v.REWARD_FAMILY and value != v.NA else labels[name][value]
        cells[TABLE_FIELDS[name]] = html(text)
    return cells


def _crosstab_views(stats: dict[str, Any], labels: dict[str, dict[str, str]]) -> list[dict[str, Any]]:
    views = []
    for name, table in stats["crosstabs"].items():
        row_field, col_field = name.split(" x ")
        # Shade against the largest informative cell: the NA x NA corner would wash out the rest.
        top = max((n for r, row in table.items() if r != v.NA for c, n in row.items() if c != v.NA), default=0) or 1
        views.append(
            {
                "name": name,
                "rows": [
                    (labels[row_field][r], [(n, min(1.0, round(n / top, 2))) for n in cols.values()])
                    for r, cols in table.items()
                ],
                "cols": [labels[col_field][c] for c in next(iter(table.values()), {})],
                "row_label": row_field.replace("_", " "),
                "col_label": col_field.replace("_", " "),
            }
        )
    return views


def _citation(root: Path) -> dict[str, Any] | None:
    """The preferred citation from CITATION.cff, as BibTeX-ready fields, if the file is there."""
    from masrl._yaml import YamlError, load_path

    path = root / "CITATION.cff"
    if not path.is_file():
        return None
    try:
        data = load_path(path).data
    except YamlError:
        return None
    preferred = data.get("preferred-citation") or {}
    authors = " and ".join(
        f"{a.get('family-names', '')}, {a.get('given-names', '')}".strip(", ") for a in preferred.get("authors", [])
    )
    return {
        "title": preferred.get("title", ""),
        "authors": authors,
        "year": preferred.get("year", ""),
        "url": preferred.get("url", ""),
        "corpus_title": data.get("title", ""),
    }


def _contributing(root: Path) -> str:
    """CONTRIBUTING.md for the site; links to repository files become file names in code."""
    try:
        text = (root / "CONTRIBUTING.md").read_text(encoding="utf-8")
    except OSError:
        return "See CONTRIBUTING.md in the repository.\n"
    for name in REPO_FILES:
        text = re.sub(rf"\[([^\]]+)\]\({re.escape(name)}\)", rf"`{name}`", text)
    return text


TRACES_DIR = "traces"


@dataclass(frozen=True)
class SchemaRow:
    name: str
    type: str
    required: str
    description: str


def _type_of(prop: dict[str, Any]) -> str:
    if "$ref" in prop:
        return str(prop["$ref"]).rsplit("/", 1)[-1]
    if "enum" in prop:
        return "one of " + ", ".join(f"`{x}`" for x in prop["enum"])
    if "const" in prop:
        return f"`{prop['const']}`"
    kind = prop.get("type", "any")
    kinds = kind if isinstance(kind, list) else [kind]
    text = " or ".join(str(k) for k in kinds)
    if "items" in prop:
        text += f" of {_type_of(prop['items'])}"
    bounds = [
        f"{label} {prop[key]}"
        for key, label in (
            ("minimum", "≥"),
            ("exclusiveMinimum", ">"),
            ("minItems", "items ≥"),
            ("minLength", "length ≥"),
        )
        if key in prop
    ]
    return text + (f" ({', '.join(bounds)})" if bounds else "")


def schema_rows(node: dict[str, Any]) -> list[SchemaRow]:
    """One row per property of a JSON Schema object node, with when it is required."""
    required = set(node.get("required", []))
    conditional: dict[str, list[str]] = {}
    for rule in node.get("allOf", []):
        when = rule.get("if", {}).get("properties", {}).get("type", {}).get("const")
        for field in rule.get("then", {}).get("required", []):
            if when:
                conditional.setdefault(field, []).append(str(when))
    rows = []
    for name, prop in node.get("properties", {}).items():
        need = "yes" if name in required else ("for " + ", ".join(conditional[name]) if name in conditional else "")
        rows.append(SchemaRow(name, _type_of(prop), need, str(prop.get("description", ""))))
    return rows


def trace_pages(root: Path) -> tuple[dict[str, Any], list[Any]]:
    """Context for the traces page, and a figure spec per example trace.

    Every example in traces/ is validated; a broken one stops the build with its problems.
    """
    from masrl import _figures
    from masrl._build import BuildError
    from masrl.trace import _metrics, _model, _render, _schema, _validate

    schema = _schema.trace_schema()
    examples, specs = [], []
    for path in sorted((root / TRACES_DIR).glob("*.json")):
        shown = f"{TRACES_DIR}/{path.name}"
        checked = _validate.validate_file(path, shown)
        if not checked.ok or checked.trace is None or checked.graph is None:
            listed = "\n".join(str(p) for p in checked.problems)
            raise BuildError([], 0, f"the example trace {shown} does not validate:\n{listed}")
        metrics = _metrics.compute(checked.trace, checked.graph)
        spec = _figures.trace_spec(checked.trace, f"trace-{path.stem}", f"Trace: {path.stem}")
        specs.append(spec)
        examples.append(
            {
                "name": path.stem,
                "file": shown,
                "metrics": metrics,
                "figure": spec,
                "mermaid": _render.mermaid(checked.trace, checked.graph),
            }
        )
    context = {
        "trace_schema": schema,
        "top_rows": schema_rows(schema),
        "def_rows": {name: schema_rows(node) for name, node in schema.get("$defs", {}).items()},
        "def_docs": {name: node.get("description", "") for name, node in schema.get("$defs", {}).items()},
        "event_meanings": _model.EVENT_MEANINGS,
        "edge_meanings": _model.EDGE_MEANINGS,
        "metric_definitions": _metrics.METRIC_DEFINITIONS,
        "examples": examples,
    }
    return context, specs
