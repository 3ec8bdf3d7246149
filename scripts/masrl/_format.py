"""Canonical YAML text for records.

Every record the tools write (``masrl add``, ``masrl fmt``) comes out of :func:`dump_record`: the
``yaml-language-server`` schema line first, then the fields in the order of the record's spec,
nested mappings in their own spec or vocabulary order, one field per line, lists in block style.
A string is written plain when it reads back as the same string under both YAML 1.2 (our loader,
editors) and YAML 1.1 (PyYAML and older tools); otherwise it is double-quoted.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import yaml

from masrl._schema import KINDS, Spec
from masrl._vocab import Taxonomy
from masrl._yaml import YamlError, load_text

_FOLDERS = {"paper": "papers", "exclusion": "exclusions", "audit": "audits"}
_INDICATORS = set("-?:,[]{}#&*!|>'\"%@`")


def schema_line(kind: str) -> str:
    """The editor directive that points a record at its JSON Schema."""
    return f"# yaml-language-server: $schema=../schemas/{kind}.schema.json"


def folder_of(kind: str) -> str:
    return _FOLDERS[kind]


def scalar(value: Any) -> str:
    """*value* as a YAML scalar that every YAML reader takes back unchanged."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if value is None:
        return "null"
    text = str(value)
    return text if _plain_ok(text) else json.dumps(text, ensure_ascii=False)


def _plain_ok(text: str) -> bool:
    if not text or text != text.strip() or text[0] in _INDICATORS or "\n" in text:
        return False
    if ": " in text or " #" in text or text.endswith(":") or "\t" in text:
        return False
    if any(ord(c) < 32 or c in "\u2028\u2029\ufeff\x7f" for c in text):
        return False
    line = f"k: {text}\n"
    try:
        ours = load_text(line).data
        theirs = yaml.safe_load(line)
    except (YamlError, yaml.YAMLError):
        return False
    return bool(ours == {"k": text} and theirs == {"k": text})


def _lines(specs: tuple[Spec, ...], data: Mapping[str, Any], indent: int, taxonomy: Taxonomy) -> list[str]:
    out: list[str] = []
    known = [s for s in specs if s.name in data]
    # Unknown fields are kept, after the known ones, so formatting never loses content.
    extra = [k for k in data if k not in {s.name for s in specs}]
    for spec in known:
        out.extend(_field(spec.name, data[spec.name], spec, indent, taxonomy))
    for key in extra:
        out.extend(_field(key, data[key], None, indent, taxonomy))
    return out


def _field(name: str, value: Any, spec: Spec | None, indent: int, taxonomy: Taxonomy) -> list[str]:
    pad = " " * indent
    key = scalar(name)
    if isinstance(value, list):
        if not value:
            return [f"{pad}{key}: []"]
        lines = [f"{pad}{key}:"]
        for item in value:
            if isinstance(item, (dict, list)):
                lines.append(f"{pad}  - {json.dumps(item, ensure_ascii=False)}")
            else:
                lines.append(f"{pad}  - {scalar(item)}")
        return lines
    if isinstance(value, dict):
        if not value:
            return [f"{pad}{key}: {{}}"]
        lines = [f"{pad}{key}:"]
        if spec is not None and spec.kind == "mapping":
            lines.extend(_lines(spec.children, value, indent + 2, taxonomy))
        elif spec is not None and spec.kind == "keyed":
            order = _key_order(spec, taxonomy)
            keys = sorted(value, key=lambda k: (order.get(k, len(order)), str(k)))
            for k in keys:
                lines.extend(_field(k, value[k], _child_spec(spec), indent + 2, taxonomy))
        else:
            for k, item in value.items():
                lines.extend(_field(k, item, None, indent + 2, taxonomy))
        return lines
    return [f"{pad}{key}: {scalar(value)}"]


def _key_order(spec: Spec, taxonomy: Taxonomy) -> dict[str, int]:
    if spec.vocab == "convention":
        ids: tuple[str, ...] = tuple(c.id for c in taxonomy.conventions)
    else:
        ids = taxonomy.ids(spec.vocab or "")
    return {k: i for i, k in enumerate(ids)}


def _child_spec(spec: Spec) -> Spec | None:
    if not spec.children:
        return None
    return Spec(spec.name, "mapping", spec.description, children=spec.children)


def dump_record(kind: str, data: Mapping[str, Any], taxonomy: Taxonomy) -> str:
    """The canonical text of a record of *kind* holding *data*."""
    return "\n".join([schema_line(kind), *_lines(KINDS[kind], data, 0, taxonomy)]) + "\n"
