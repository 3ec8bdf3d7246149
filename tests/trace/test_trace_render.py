"""Mermaid diagrams of traces: golden output, and hostile names that must not break the syntax."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from trace_cases import TRACES, encode, reference

from conftest import assert_golden
from masrl.trace._render import SHAPES, TooLarge, escape, mermaid
from masrl.trace._validate import validate_file


def render(path: Path, **options: Any) -> str:
    checked = validate_file(path)
    assert checked.problems == []
    assert checked.trace is not None
    assert checked.graph is not None
    return mermaid(checked.trace, checked.graph, **options)


@pytest.mark.parametrize("name", ["reference-example", "debate"])
def test_golden_diagrams(name: str) -> None:
    assert_golden(f"trace-{name}.mmd", render(TRACES / f"{name}.json"))


# (text, escaped)
ESCAPES = [
    ("plain words_1.2, (x) a=b+c/d-e:f", "plain words_1.2, (x) a=b+c/d-e:f"),
    ('quote "', "quote #34;"),
    ("brackets [x] {y} <z>", "brackets #91;x#93; #123;y#125; #60;z#62;"),
    ("pipe | and hash #", "pipe #124; and hash #35;"),
    ("new\nline", "new#10;line"),
    ("%% comment; end", "#37;#37; comment#59; end"),
    ("`markdown` **b**", "#96;markdown#96; #42;#42;b#42;#42;"),
    ("café 🚀", "caf#233; #128640;"),
]


@pytest.mark.parametrize(("text", "escaped"), ESCAPES, ids=[e[1][:12] for e in ESCAPES])
def test_escape(text: str, escaped: str) -> None:
    assert escape(text) == escaped


HOSTILE = [
    'a"]; click n0 call alert(1); %%',
    "end",
    "subgraph x",
    "<script>alert(1)</script>",
    "x --> y",
    "line\nbreak\r\n",
    "`**md**`",
    "#35;",
    "a|b",
    "{{hex}}",
]

_SAFE_TEXT = r"[A-Za-z0-9 _.,:=+()/#;-]*"
_OPEN = "|".join(re.escape(o) for o, _ in SHAPES.values())
_CLOSE = "|".join(re.escape(c) for _, c in SHAPES.values())
GRAMMAR = [
    re.compile(r"flowchart LR"),
    re.compile(rf'  subgraph g\d+\["{_SAFE_TEXT}"\]'),
    re.compile(rf'    n\d+(?:{_OPEN})"{_SAFE_TEXT}"(?:{_CLOSE})'),
    re.compile(r"  end"),
    re.compile(rf"  n\d+ (?:-->|==>|-\.->)\|{_SAFE_TEXT}\| n\d+"),
]


def test_hostile_names_cannot_break_the_diagram(tmp_path: Path) -> None:
    # Arrange: every agent, tool, id and target is hostile text.
    doc = reference()
    names = {old: HOSTILE[k % len(HOSTILE)] + f"#{k}" for k, old in enumerate(
        ["orchestrator", "planner_1", "executor_1", "browser.search"]
    )}  # fmt: skip
    ids = {e["id"]: HOSTILE[k % len(HOSTILE)] + f" e{k}" for k, e in enumerate(doc["events"])}
    for e in doc["events"]:
        e["id"] = ids[e["id"]]
        for key in ("agent", "from", "to", "tool"):
            if key in e:
                e[key] = names[e[key]]
    for edge in doc["edges"]:
        edge["src"], edge["dst"] = ids[edge["src"]], ids[edge["dst"]]
    path = tmp_path / "hostile.json"
    path.write_bytes(encode(doc))
    # Act
    text = render(path)
    # Assert: every line is one of the five statement forms, with only safe characters in labels.
    lines = text.splitlines()
    assert len(lines) == 1 + 4 * 2 + 8 + 8
    for line in lines:
        assert any(g.fullmatch(line) for g in GRAMMAR), line
    assert "<" not in text
    assert '"' not in "".join(re.sub(r'"[^"]*"', "", line) for line in lines[1:] if "subgraph" not in line)


def test_too_many_events(tmp_path: Path) -> None:
    with pytest.raises(TooLarge, match="the trace has 8 events; a diagram holds at most 5"):
        render(TRACES / "reference-example.json", max_events=5)
