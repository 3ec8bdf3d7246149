"""Canonical YAML text for records, and reformatting that keeps every comment.

Every record the tools write (``masrl add``, ``masrl fmt``) has one shape: the
``yaml-language-server`` schema line first, then the fields in the order of the record's spec,
nested mappings in their own spec or vocabulary order, one field per line, lists in block style.
A string is written plain when it reads back as the same string under both YAML 1.2 (our loader,
editors) and YAML 1.1 (PyYAML and older tools); otherwise it is double-quoted.

:func:`format_record` reformats existing text. Comments move with the field they sit above or
beside (libyaml drops comments, so they are found from the positions of the values around them),
and the result is parsed again and compared with the input: same data, same comments, or an error.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Mapping
from typing import Any

import yaml

from masrl.corpus._schema import Kind, Spec, allowed_keys, specs
from masrl.corpus._vocab import Taxonomy
from masrl.corpus._yaml import Document, Path_, YamlError, load_text

_FOLDERS = {"paper": "papers", "exclusion": "exclusions", "audit": "audits"}
_INDICATORS = set("-?:,[]{}#&*!|>'\"%@`")
_SCHEMA_LINE = re.compile(r"^#\s*yaml-language-server:")

Line = tuple[Path_, str]  # the field a line belongs to, and its text


class FormatError(Exception):
    """The record cannot be reformatted without changing it."""


def schema_line(kind: str) -> str:
    """The editor directive that points a record at its JSON Schema."""
    return f"# yaml-language-server: $schema=../schemas/{kind}.schema.json"


def folder_of(kind: str) -> str:
    return _FOLDERS[kind]


def scalar(value: Any, raw: str | None = None) -> str:
    """*value* as a YAML scalar that every YAML reader takes back unchanged.

    *raw* is the value's original source text; floats keep it, since printing a float again can
    change its digits (``2501.00010`` would come back as ``2501.0001``).
    """
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float) and raw is not None:
        return raw
    if value is None:
        return "null"
    text = str(value)
    return text if _plain_ok(text) else json.dumps(text, ensure_ascii=False)


# PyYAML's reading (YAML 1.1, as most other tools read a record) with libyaml's parser when PyYAML
# was built with it: the same resolver as yaml.SafeLoader, ten times faster on the corpus's files.
_THEIR_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


@functools.lru_cache(maxsize=65536)
def _plain_ok(text: str) -> bool:
    if not text or text != text.strip() or text[0] in _INDICATORS or "\n" in text:
        return False
    if ": " in text or " #" in text or text.endswith(":") or "\t" in text:
        return False
    if any(ord(c) < 32 or c in "\u2028\u2029\ufeff\x7f\x85" for c in text):
        return False
    line = f"k: {text}\n"
    try:
        ours = load_text(line).data
        theirs = yaml.load(line, Loader=_THEIR_LOADER)
    except (YamlError, yaml.YAMLError):
        return False
    return bool(ours == {"k": text} and theirs == {"k": text})


class _Emitter:
    def __init__(self, taxonomy: Taxonomy, raws: Mapping[Path_, str] | None = None) -> None:
        self.taxonomy = taxonomy
        self.raws = raws or {}

    def mapping(self, specs: tuple[Spec, ...], data: Mapping[str, Any], indent: int, path: Path_) -> list[Line]:
        out: list[Line] = []
        names = {s.name for s in specs}
        for spec in specs:
            if spec.name in data:
                out.extend(self.field(spec.name, data[spec.name], spec, indent, (*path, spec.name)))
        # Unknown fields are kept, after the known ones, so formatting never loses content.
        for key in data:
            if key not in names:
                out.extend(self.field(key, data[key], None, indent, (*path, key)))
        return out

    def field(self, name: str, value: Any, spec: Spec | None, indent: int, path: Path_) -> list[Line]:
        pad = " " * indent
        key = scalar(name)
        if isinstance(value, list):
            if not value:
                return [(path, f"{pad}{key}: []")]
            lines: list[Line] = [(path, f"{pad}{key}:")]
            for i, item in enumerate(value):
                where = (*path, i)
                if isinstance(item, dict) and item and spec is not None and spec.kind is Kind.MAPPING_LIST:
                    # A block mapping under the dash: its first line shares the dash's line.
                    inner = self.mapping(spec.children, item, indent + 4, where)
                    first_path, first = inner[0]
                    lines.append((first_path, f"{pad}  - {first[indent + 4 :]}"))
                    lines.extend(inner[1:])
                elif isinstance(item, (dict, list)):
                    lines.append((where, f"{pad}  - {json.dumps(item, ensure_ascii=False)}"))
                else:
                    lines.append((where, f"{pad}  - {scalar(item, self.raws.get(where))}"))
            return lines
        if isinstance(value, dict):
            if not value:
                return [(path, f"{pad}{key}: {{}}")]
            lines = [(path, f"{pad}{key}:")]
            if spec is not None and spec.kind is Kind.MAPPING:
                lines.extend(self.mapping(spec.children, value, indent + 2, path))
            elif spec is not None and spec.kind is Kind.KEYED:
                order = {k: i for i, k in enumerate(allowed_keys(spec, self.taxonomy))}
                child = (
                    Spec(spec.name, Kind.MAPPING, spec.description, children=spec.children) if spec.children else None
                )
                for k in sorted(value, key=lambda k: (order.get(k, len(order)), str(k))):
                    lines.extend(self.field(k, value[k], child, indent + 2, (*path, k)))
            else:
                for k, item in value.items():
                    lines.extend(self.field(k, item, None, indent + 2, (*path, k)))
            return lines
        if value is None:
            return [(path, f"{pad}{key}:")]
        return [(path, f"{pad}{key}: {scalar(value, self.raws.get(path))}")]


def record_lines(
    kind: str, data: Mapping[str, Any], taxonomy: Taxonomy, raws: Mapping[Path_, str] | None = None
) -> list[Line]:
    return _Emitter(taxonomy, raws).mapping(specs(kind, taxonomy), data, 0, ())


def dump_record(kind: str, data: Mapping[str, Any], taxonomy: Taxonomy) -> str:
    """The canonical text of a record of *kind* holding *data*."""
    return "\n".join([schema_line(kind), *(text for _, text in record_lines(kind, data, taxonomy))]) + "\n"


# ---------------------------------------------------------------------------------------------
# Reformatting with comments


def _comments(doc: Document, lines: list[str]) -> tuple[dict[Path_, list[str]], dict[Path_, str], list[str]]:
    """Comments of the original text: those above each field, those beside it, and trailing ones."""
    assert doc.spans is not None
    key_lines: dict[int, Path_] = {}
    for path, mark in doc.marks.items():
        if path and (mark.line not in key_lines or len(path) < len(key_lines[mark.line])):
            key_lines[mark.line] = path
    inside: set[int] = set()  # lines that belong to a multi-line value, where '#' is content
    for span in doc.spans.values():
        if span.style != "block" and span.end_line > span.start_line:
            inside.update(range(span.start_line + 1, span.end_line + (1 if span.end_col else 0)))
    above: dict[Path_, list[str]] = {}
    beside: dict[Path_, str] = {}
    pending: list[str] = []
    for number, line in enumerate(lines, start=1):
        stripped = line.strip()
        if number in key_lines and number not in inside:
            path = key_lines[number]
            if pending:
                above[path] = pending
                pending = []
            comment = _trailing_comment(doc, path, line)
            if comment:
                beside[path] = comment
        elif stripped.startswith("#") and number not in inside and not _SCHEMA_LINE.match(stripped):
            pending.append(stripped)
    return above, beside, pending


def _trailing_comment(doc: Document, path: Path_, line: str) -> str | None:
    """The comment at the end of *line*, which starts the field or item at *path*."""
    assert doc.spans is not None
    span = doc.spans.get(path)
    mark = doc.marks[path]
    if span is not None and span.style != "block" and span.end_line == mark.line:
        rest = line[span.end_col :]
    elif isinstance(path[-1], str):
        # A key whose value starts on a later line: the comment follows the colon.
        rest = line[mark.column - 1 :].split(":", 1)[1] if ":" in line[mark.column - 1 :] else ""
        if span is not None and span.start_line == mark.line and span.style == "block":
            return None
    else:
        return None
    rest = rest.strip()
    return rest if rest.startswith("#") else None


def _raw_floats(doc: Document, lines: list[str]) -> dict[Path_, str]:
    """Original text of plain scalars read as floats, so their digits survive."""
    assert doc.spans is not None
    raws = {}
    for path, span in doc.spans.items():
        if span.style == "" and span.start_line == span.end_line:
            text = lines[span.start_line - 1][span.start_col : span.end_col]
            try:
                float(text)
            except ValueError:
                continue
            raws[path] = text
    return raws


def format_record(kind: str, text: str, taxonomy: Taxonomy, changes: Mapping[str, Any] | None = None) -> str:
    """*text* reformatted canonically, with its comments kept next to their fields.

    *changes* set top-level fields to new values first (None removes a field); comments stay with
    the fields that remain (``masrl refresh`` writes its corrections this way).
    Raises :class:`masrl.corpus._yaml.YamlError` if *text* does not parse and :class:`FormatError` if the
    result would not hold the same data (with the changes) and comments.
    """
    doc = load_text(text, keep_spans=True)
    lines = text.splitlines()
    above, beside, trailer = _comments(doc, lines)
    if changes:
        data = {k: val for k, val in {**doc.data, **changes}.items() if val is not None}
        gone = {k for k, val in changes.items() if val is None}
        trailer += [c for path, cs in above.items() if path[:1] and path[0] in gone for c in cs]
        trailer += [c for path, c in beside.items() if path[:1] and path[0] in gone]
        doc = Document(data, doc.marks, spans=doc.spans)
    out = [schema_line(kind)]
    for path, line in record_lines(kind, doc.data, taxonomy, _raw_floats(doc, lines)):
        indent = " " * (len(line) - len(line.lstrip()))
        out.extend(indent + comment for comment in above.get(path, []))
        out.append(f"{line}  {beside[path]}" if path in beside else line)
    out.extend(trailer)
    result = "\n".join(out) + "\n"
    _verify(text, result, doc)
    return result


def _verify(before: str, after: str, doc: Document) -> None:
    again = load_text(after)
    if again.data != doc.data and not _same_with_nan(again.data, doc.data):
        raise FormatError("reformatting would change the record's data; left as it is")
    old = sorted(c for c in _comment_texts(before) if not _SCHEMA_LINE.match(c))
    new = sorted(c for c in _comment_texts(after) if not _SCHEMA_LINE.match(c))
    if old != new:
        raise FormatError("reformatting would lose or change a comment; left as it is")


def _comment_texts(text: str) -> list[str]:
    """Every comment in *text*, found by the YAML scanner's token positions."""
    found: list[str] = []
    try:
        tokens = list(yaml.scan(text, Loader=yaml.CSafeLoader))
    except yaml.YAMLError:
        return found
    # Text between tokens that starts with '#' (outside any token) is a comment.
    cursor = 0
    flat = text
    for token in [*tokens, None]:
        end = token.start_mark.index if token is not None else len(flat)
        for piece in re.finditer(r"#[^\n]*", flat[cursor:end]):
            before = flat[cursor : cursor + piece.start()]
            if before == "" or before[-1] in " \t\n":
                found.append(piece.group(0).rstrip())
        if token is not None:
            cursor = max(cursor, token.end_mark.index)
    return found


def _same_with_nan(a: Any, b: Any) -> bool:
    if isinstance(a, float) and isinstance(b, float):
        return a != a and b != b
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(
            x == y or _same_with_nan(x, y) for x, y in zip(a.values(), b.values(), strict=True)
        )
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(x == y or _same_with_nan(x, y) for x, y in zip(a, b, strict=True))
    return False
