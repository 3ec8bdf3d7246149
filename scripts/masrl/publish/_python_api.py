"""The Python API page: the tested example, and what every attribute of a loaded record holds.

The attribute tables are read from the record types themselves (:mod:`masrl.corpus._records`), so
a field added to a record appears on the page; what a field holds is its description in the
record's spec (the same text the JSON Schemas carry), or, for the few attributes that no record
field matches, the line in :data:`ATTRIBUTES`. An attribute with neither stops the build.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from masrl.corpus._records import Audit, Corpus, Exclusion, Paper
from masrl.corpus._schema import specs
from masrl.corpus._vocab import Taxonomy
from masrl.publish._errors import BuildError

# What an attribute holds when no field of the record file has its name, by (kind, attribute).
ATTRIBUTES = {
    ("corpus", "root"): "The corpus folder, holding taxonomy.yaml.",
    (
        "corpus",
        "taxonomy",
    ): "The controlled vocabulary read from taxonomy.yaml: `fields` by name, each with its `values`.",
    ("corpus", "papers"): "Every retained entry, sorted by key; `corpus.paper(key)` finds one.",
    ("corpus", "exclusions"): "Every screened-out record, sorted by id.",
    ("corpus", "audits"): "Every second reading, sorted by key.",
    (
        "corpus",
        "venues",
    ): "The venue registry read from venues.yaml; `venues.place(paper.venue)` finds a paper's venue.",
    ("paper", "tags"): "Every tag field, by name: a value id, or a tuple of ids for a field that takes several.",
    ("exclusion", "tags"): "Every tag field, by name: a value id, or a tuple of ids for a field that takes several.",
    ("paper", "path"): "The record's file, named as `masrl validate` names it.",
    ("exclusion", "path"): "The record's file, named as `masrl validate` names it.",
    ("audit", "path"): "The record's file, named as `masrl validate` names it.",
    ("audit", "strict_credit"): "The second reader's `strict_credit`, taken out of `second_reading`.",
    ("paper", "first_author"): "The first of `authors`.",
    ("paper", "pdf"): "A PDF link where one can be derived (arxiv.org/pdf/ID for an arXiv entry), else None.",
    ("paper", "urls"): "`url`, then every one of `more_urls`.",
}
KINDS = (("paper", Paper, "papers"), ("exclusion", Exclusion, "exclusions"), ("audit", Audit, "audits"))
_ALIASES = {"TagValue": "str | tuple[str, ...]"}  # type names private to the records module


def _type(annotation: Any) -> str:
    text = str(annotation)
    for name, spelled in _ALIASES.items():
        text = text.replace(name, spelled)
    return text


def _properties(cls: type) -> list[tuple[str, Any]]:
    """The read-only attributes of *cls* (its properties and its bases'), in the order they are defined."""
    seen: dict[str, Any] = {}
    for klass in reversed(cls.__mro__):
        for name, value in vars(klass).items():
            if isinstance(value, property) and not name.startswith("_"):
                seen[name] = value.fget.__annotations__.get("return", "") if value.fget else ""
    return list(seen.items())


def attribute_rows(kind: str, cls: type, taxonomy: Taxonomy) -> list[dict[str, str]]:
    """One row per attribute of *cls*: its name, its Python type and what it holds."""
    described = {s.name: s.description for s in specs(kind, taxonomy)} if kind != "corpus" else {}
    fields = [(f.name, f.type) for f in dataclasses.fields(cls)]
    rows = []
    for name, annotation in [*fields, *_properties(cls)]:
        meaning = ATTRIBUTES.get((kind, name)) or described.get(name)
        if not meaning:
            raise BuildError([], 0, f"the Python API page has no description for {kind} attribute {name!r}")
        rows.append({"name": name, "type": _type(annotation), "meaning": meaning})
    return rows


def context(taxonomy: Taxonomy) -> dict[str, Any]:
    """Context for the Python API page."""
    from masrl.analysis.api import EXAMPLE

    return {
        "api_example": EXAMPLE,
        "corpus_rows": attribute_rows("corpus", Corpus, taxonomy),
        "kinds": [
            {
                "kind": kind,
                "cls": cls.__name__,
                "attribute": attribute,
                "rows": attribute_rows(kind, cls, taxonomy),
                "tag_fields": [f.name for f in taxonomy.tag_fields(kind)],
            }
            for kind, cls, attribute in KINDS
        ],
    }
