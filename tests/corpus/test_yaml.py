"""The safe loader: YAML 1.2 scalars, positions, and refusal of everything a record never needs."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pytest

from masrl.corpus._yaml import Mark, YamlError, load_path, load_text


@pytest.mark.parametrize(
    ("text", "value"),
    [
        # -- YAML 1.2 core schema: the words YAML 1.1 turned into booleans stay strings
        ("v: yes", "yes"),
        ("v: no", "no"),
        ("v: on", "on"),
        ("v: off", "off"),
        ("v: NA", "NA"),
        ("v: true", True),
        ("v: False", False),
        # -- numbers
        ("v: 2025", 2025),
        ("v: -3", -3),
        ("v: 0o17", 15),
        ("v: 0x1F", 31),
        ("v: 1.5", 1.5),
        ("v: 1e3", 1000.0),
        ("v: .inf", math.inf),
        ("v: 2508.04652", 2508.04652),
        # -- strings that other loaders turn into something else
        ("v: 2026-04-26", "2026-04-26"),
        ('v: "2508.04652"', "2508.04652"),
        ("v: 12:30", "12:30"),
        ("v: 1_000", "1_000"),
        ("v: " + "9" * 5000, "9" * 5000),
        # -- nulls
        ("v:", None),
        ("v: ~", None),
        ("v: null", None),
        # -- quoting and block scalars keep strings as they are
        ("v: 'true'", "true"),
        ("v: |\n  two\n  lines\n", "two\nlines\n"),
        ("v: [a, 1]", ["a", 1]),
        ("v: {a: b}", {"a": "b"}),
    ],
)
def test_scalars(text: str, value: Any) -> None:
    assert load_text(text).data == {"v": value}


def test_nan_is_a_float() -> None:
    assert math.isnan(load_text("v: .nan").data["v"])


def test_marks_are_one_based_and_cover_nested_paths() -> None:
    doc = load_text("a: 1\nb:\n  c:\n    - x\n    - y\n")
    assert doc.marks[("a",)] == Mark(1, 1)
    assert doc.marks[("b", "c")] == Mark(3, 3)
    assert doc.marks[("b", "c", 1)] == Mark(5, 7)
    assert doc.mark(("b", "c", 1, "missing")) == Mark(5, 7)


@pytest.mark.parametrize(
    ("text", "message", "line", "column"),
    [
        ("", "file is empty; a record is a mapping of field: value lines", 1, 1),
        ("- a\n", "top level must be a mapping of field: value lines, not a list", 1, 1),
        ("a: 1\na: 2\n", "duplicate key 'a' (first defined at line 1); YAML would keep only the last", 2, 1),
        ("a: &x 1\nb: *x\n", "anchors and aliases (&name, *name) are not allowed in records", 1, 4),
        (
            "a: !!python/name:os.system\n",
            "YAML tag '!!python/name:os.system' is not allowed in records; write plain values",
            1,
            4,
        ),
        ("a: !!binary aGk=\n", "YAML tag '!!binary' is not allowed in records; write plain values", 1, 4),
        ("a: !!set {x}\n", "YAML tag '!!set' is not allowed in records; write plain values", 1, 4),
        ("a: 1\n---\nb: 2\n", "file holds more than one YAML document ('---'); a record is one mapping", 2, 1),
        ("a:\n\tb: 1\n", "tab character found; indent YAML with spaces only", 2, 1),
        ("a: [" * 2 + "]" * 2 + "\n", "", 0, 0),  # fine: shallow
        ("a: " + "[" * 30 + "]" * 30 + "\n", "nesting is too deep (more than 16 levels)", 1, 20),
        ("a: " + "[" * 2000 + "]" * 2000 + "\n", "nesting is too deep (more than 16 levels)", 1, 1003),
        ("? [x]\n: 1\n", "mapping keys must be plain names", 1, 3),
        ("1: one\n", "", 0, 0),  # a plain 1 as a key is read as the string '1'
    ],
)
def test_refusals(text: str, message: str, line: int, column: int) -> None:
    if not message:
        load_text(text)
        return
    with pytest.raises(YamlError) as info:
        load_text(text)
    assert (info.value.message, info.value.line, info.value.column) == (message, line, column)


def test_alias_bomb_is_refused_at_once() -> None:
    # The "billion laughs": nine levels of nine aliases each. Expanding it would never finish.
    lines = ["a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]"]
    for i in range(1, 10):
        refs = ", ".join([f"*a{i - 1}"] * 9)
        lines.append(f"a{i}: &a{i} [{refs}]")
    with pytest.raises(YamlError, match="anchors and aliases"):
        load_text("\n".join(lines) + "\n")


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"\xef\xbb\xbfa: 1\n", ""),
        (b"a: caf\xe9\n", "file must be UTF-8: byte 0xe9 is not valid UTF-8"),
        ("a: 1\n".encode("utf-16"), "file must be UTF-8: byte 0xff is not valid UTF-8"),
        (b"a: 1\x00\n", "file contains a NUL byte; records are plain text"),
        (b"a: " + b"x" * 1_000_001, "file is 1,000,004 bytes; records must be under 1,000,000 bytes"),
    ],
)
def test_files(tmp_path: Path, content: bytes, message: str) -> None:
    path = tmp_path / "r.yaml"
    path.write_bytes(content)
    if not message:
        assert load_path(path).data == {"a": 1}
        return
    with pytest.raises(YamlError) as info:
        load_path(path)
    assert info.value.message == message


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(YamlError, match="cannot read file"):
        load_path(tmp_path / "absent.yaml")
