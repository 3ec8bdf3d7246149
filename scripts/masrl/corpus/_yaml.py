"""Safe YAML loading that remembers where every value came from.

Records are small hand-edited files, so this loader trades generality for safety and precise
messages:

* it parses with libyaml (the C loader) and builds Python values itself from the node tree, so no
  tag can construct an object (``!!python/object`` is refused, never executed);
* plain scalars are read with the YAML 1.2 core schema, as editors using the YAML language server
  read them: ``yes``/``no``/``on``/``off`` stay strings and ``2026-04-26`` stays a string;
* duplicate keys in one mapping, anchors and aliases, and nesting deeper than a record needs are
  refused instead of being silently resolved;
* every mapping key and sequence item gets a 1-based line and column, addressed by a tuple path.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

import yaml

MAX_BYTES = 1_000_000  # a record is a few hundred bytes; anything this large is a mistake
MAX_DEPTH = 16  # records nest three levels at most; deeper input is refused before recursion bites
_BOM = b"\xef\xbb\xbf"

_STR = "tag:yaml.org,2002:str"
_INT = "tag:yaml.org,2002:int"
_FLOAT = "tag:yaml.org,2002:float"
_BOOL = "tag:yaml.org,2002:bool"
_NULL = "tag:yaml.org,2002:null"
_MAP = "tag:yaml.org,2002:map"
_SEQ = "tag:yaml.org,2002:seq"
_SCALAR_TAGS = frozenset({_STR, _INT, _FLOAT, _BOOL, _NULL})

# YAML 1.2 core schema, https://yaml.org/spec/1.2.2/#1032-tag-resolution
_NULLS = frozenset({"", "~", "null", "Null", "NULL"})
_TRUES = frozenset({"true", "True", "TRUE"})
_FALSES = frozenset({"false", "False", "FALSE"})
_WORDS = _NULLS | _TRUES | _FALSES
_INT_RE = re.compile(r"[-+]?[0-9]+\Z")
_OCT_RE = re.compile(r"0o[0-7]+\Z")
_HEX_RE = re.compile(r"0x[0-9a-fA-F]+\Z")
_FLOAT_RE = re.compile(r"[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?\Z")
_INF_RE = re.compile(r"[-+]?\.(inf|Inf|INF)\Z")
_NAN_RE = re.compile(r"\.(nan|NaN|NAN)\Z")

Path_ = tuple[str | int, ...]


class Mark(NamedTuple):
    """A 1-based position in a file."""

    line: int
    column: int


class Span(NamedTuple):
    """Where a value node starts and ends (1-based lines, 0-based columns) and its style."""

    start_line: int
    start_col: int
    end_line: int
    end_col: int
    style: str  # '' plain, quote char, '|' or '>' for block scalars, '[' or '{' flow, 'block' otherwise


class YamlError(Exception):
    """The file cannot be read as one YAML mapping; carries the position of the fault."""

    def __init__(self, message: str, line: int = 1, column: int = 1) -> None:
        super().__init__(message)
        self.message = message
        self.line = line
        self.column = column


class _Loader(yaml.CSafeLoader):
    # No implicit resolution: every untagged node gets its kind's default tag, and plain scalars
    # are resolved below with the YAML 1.2 core schema instead of PyYAML's YAML 1.1 rules.
    # libyaml calls this only for nodes without an explicit tag.
    def resolve(self, kind: type, value: Any, implicit: Any) -> str:
        if kind is yaml.ScalarNode:
            return _STR
        return _SEQ if kind is yaml.SequenceNode else _MAP

    # Path resolvers are not used; skipping their bookkeeping saves two calls per node.
    def descend_resolver(self, current_node: Any, current_index: Any) -> None:
        pass

    def ascend_resolver(self) -> None:
        pass


@dataclass
class Document:
    """A parsed file: its value and the position of every key and item in it.

    A document parsed in another process arrives without its marks (they cost more to send than
    to recompute); *source* then names the file, and the marks are re-read on first use.
    """

    data: Any
    marks: dict[Path_, Mark]
    source: Path | None = None
    spans: dict[Path_, Span] | None = None  # only when loaded with keep_spans (masrl fmt)

    def mark(self, path: Path_) -> Mark:
        """The position of *path*, or of its nearest ancestor that has one."""
        if not self.marks and self.source is not None:
            self.marks = load_path(self.source).marks
            self.source = None
        while path not in self.marks and path:
            path = path[:-1]
        return self.marks.get(path, Mark(1, 1))


def read_text(path: Path, max_bytes: int = MAX_BYTES) -> str:
    """Read *path* as UTF-8 (a leading BOM is fine), refusing huge and undecodable files."""
    try:
        size = path.stat().st_size
        if size > max_bytes:
            raise YamlError(f"file is {size:,} bytes; records must be under {max_bytes:,} bytes")
        raw = path.read_bytes()
    except OSError as exc:
        raise YamlError(f"cannot read file: {exc.strerror or exc}") from None
    if raw.startswith(_BOM):
        raw = raw[len(_BOM) :]
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        column = exc.start - (raw.rfind(b"\n", 0, exc.start) + 1) + 1
        raise YamlError(f"file must be UTF-8: byte 0x{raw[exc.start]:02x} is not valid UTF-8", line, column) from None


def load_path(path: Path, max_bytes: int = MAX_BYTES, *, allow_list: bool = False) -> Document:
    """Load one YAML document from *path*; see :func:`load_text`."""
    return load_text(read_text(path, max_bytes), allow_list=allow_list)


def load_text(text: str, *, keep_spans: bool = False, allow_list: bool = False) -> Document:
    """Parse *text* as a single YAML document whose top level is a mapping (or, with
    *allow_list*, a list).

    With *keep_spans*, the document also records where every value starts and ends, which
    ``masrl fmt`` needs to carry comments over.
    """
    if "\x00" in text:
        raise YamlError("file contains a NUL byte; records are plain text")
    loader = _Loader(text)
    try:
        node = loader.get_single_node()
    except yaml.MarkedYAMLError as exc:
        raise _syntax_error(exc, text) from None
    except yaml.YAMLError as exc:  # reader errors carry no mark
        raise YamlError(f"YAML syntax error: {exc}") from None
    finally:
        loader.dispose()
    if node is None:
        raise YamlError("file is empty; a record is a mapping of field: value lines")
    if not isinstance(node, yaml.MappingNode) and not (allow_list and isinstance(node, yaml.SequenceNode)):
        kind = "a list" if isinstance(node, yaml.SequenceNode) else "a single value"
        raise YamlError(f"top level must be a mapping of field: value lines, not {kind}", *_pos(node))
    marks: dict[Path_, Mark] = {(): Mark(*_pos(node))}
    builder = _Builder(marks, {} if keep_spans else None)
    data = builder.build(node, (), 0)
    return Document(data, marks, spans=builder.spans)


def _pos(node: yaml.Node) -> tuple[int, int]:
    return node.start_mark.line + 1, node.start_mark.column + 1


def _syntax_error(exc: yaml.MarkedYAMLError, text: str) -> YamlError:
    mark = exc.problem_mark or exc.context_mark
    line, column = (mark.line + 1, mark.column + 1) if mark else (1, 1)
    problem = exc.problem or "syntax error"
    lines = text.splitlines()
    if 0 < line <= len(lines) and "\t" in lines[line - 1][:column]:
        return YamlError("tab character found; indent YAML with spaces only", line, lines[line - 1].index("\t") + 1)
    if "expected a single document" in (exc.context or "") + problem:
        return YamlError("file holds more than one YAML document ('---'); a record is one mapping", line, column)
    if "nesting depth" in problem:
        return YamlError(f"nesting is too deep (more than {MAX_DEPTH} levels)", line, column)
    context = f" {exc.context}" if exc.context else ""
    return YamlError(f"YAML syntax error:{context} {problem}".replace("  ", " "), line, column)


class _Builder:
    """Turns a composed node tree into plain Python values, recording marks as it goes."""

    def __init__(self, marks: dict[Path_, Mark], spans: dict[Path_, Span] | None = None) -> None:
        self.marks = marks
        self.spans = spans
        self.seen: set[int] = set()

    def _span(self, node: yaml.Node, path: Path_) -> None:
        assert self.spans is not None
        if isinstance(node, yaml.ScalarNode):
            style = node.style or ""
        elif getattr(node, "flow_style", False):
            style = "[" if isinstance(node, yaml.SequenceNode) else "{"
        else:
            style = "block"
        start, end = node.start_mark, node.end_mark
        self.spans[path] = Span(start.line + 1, start.column, end.line + 1, end.column, style)

    def build(self, node: yaml.Node, path: Path_, depth: int) -> Any:
        if depth > MAX_DEPTH:
            raise YamlError(f"nesting is too deep (more than {MAX_DEPTH} levels)", *_pos(node))
        seen = self.seen
        if id(node) in seen:
            # libyaml hands back the anchored node again for every alias; refusing the reuse
            # keeps the walk linear, so alias bombs ("billion laughs") cost nothing.
            raise YamlError("anchors and aliases (&name, *name) are not allowed in records", *_pos(node))
        seen.add(id(node))
        if self.spans is not None:
            self._span(node, path)
        if isinstance(node, yaml.ScalarNode):
            return _scalar(node)
        marks = self.marks
        if isinstance(node, yaml.SequenceNode):
            if node.tag != _SEQ:
                raise _tag_error(node)
            items = []
            for index, item in enumerate(node.value):
                mark = item.start_mark
                marks[(*path, index)] = Mark(mark.line + 1, mark.column + 1)
                items.append(self._child(item, (*path, index), depth))
            return items
        if node.tag != _MAP:
            raise _tag_error(node)
        result: dict[str, Any] = {}
        for key_node, value_node in node.value:
            if key_node.__class__ is not yaml.ScalarNode or key_node.tag != _STR:
                raise YamlError("mapping keys must be plain names", *_pos(key_node))
            key = key_node.value
            if key == "<<":
                raise YamlError("merge keys ('<<') are not allowed in records", *_pos(key_node))
            if key in result:
                first = marks[(*path, key)]
                raise YamlError(
                    f"duplicate key '{key}' (first defined at line {first.line}); YAML would keep only the last",
                    *_pos(key_node),
                )
            mark = key_node.start_mark
            marks[(*path, key)] = Mark(mark.line + 1, mark.column + 1)
            result[key] = self._child(value_node, (*path, key), depth)
        return result

    def _child(self, node: yaml.Node, path: Path_, depth: int) -> Any:
        # Scalars are most nodes; handling them here saves a level of calls per value.
        if node.__class__ is yaml.ScalarNode and id(node) not in self.seen and self.spans is None:
            self.seen.add(id(node))
            return _scalar(node)
        return self.build(node, path, depth + 1)


def _tag_error(node: yaml.Node) -> YamlError:
    tag = node.tag.replace("tag:yaml.org,2002:", "!!")
    return YamlError(f"YAML tag '{tag}' is not allowed in records; write plain values", *_pos(node))


def _scalar(node: yaml.ScalarNode) -> Any:
    if node.tag not in _SCALAR_TAGS:
        raise _tag_error(node)
    value: str = node.value
    if node.style:  # quoted or block scalar: always a string
        return value
    first = value[:1]
    if first.isalpha() and value not in _WORDS:  # most values: names, tags, URLs
        return value
    if value in _NULLS:
        return None
    if value in _TRUES:
        return True
    if value in _FALSES:
        return False
    if _INT_RE.match(value):
        try:
            return int(value)
        except ValueError:  # more digits than Python converts; it cannot be a valid field anyway
            return value
    if _OCT_RE.match(value):
        return int(value[2:], 8)
    if _HEX_RE.match(value):
        return int(value[2:], 16)
    if _FLOAT_RE.match(value):
        return float(value)
    if _INF_RE.match(value):
        return -math.inf if value.startswith("-") else math.inf
    if _NAN_RE.match(value):
        return math.nan
    return value
