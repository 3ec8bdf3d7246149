"""Summaries, notes and exclusion notes are the curators' own words: none repeats eight consecutive
words of the abstract that was read for it (kept in its screening/ file)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

REPO = Path(__file__).resolve().parents[2]
# libyaml's loader when PyYAML has it: the check reads some sixteen thousand files
_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
RUN = 8  # consecutive words; a method's or benchmark's name is shorter than this


def _words(text: str) -> list[str]:
    return re.findall(r"[a-z0-9]+", text.lower())


def shared_runs(text: str, source: str, n: int = RUN) -> list[str]:
    """The runs of *n* consecutive words of *text* that *source* holds too."""
    a, b = _words(text), _words(source)
    grams = {tuple(b[j : j + n]) for j in range(len(b) - n + 1)}
    return [" ".join(a[i : i + n]) for i in range(len(a) - n + 1) if tuple(a[i : i + n]) in grams]


@pytest.mark.parametrize(
    ("text", "source", "expected"),
    [
        # eight words in a row, in any case and punctuation, are a copy
        ("We train A B C D E F", "we train a b c d e f g h", ["we train a b c d e f"]),
        ("we, TRAIN: a b c d e f g", "We train a b c d e f g.", ["we train a b c d e f", "train a b c d e f g"]),
        # seven are not
        ("we train a b c d e", "we train a b c d e f g", []),
        # words shared out of order are not
        ("g f e d c b a train we", "we train a b c d e f g", []),
    ],
)
def test_a_copy_is_eight_words_in_a_row(text: str, source: str, expected: list[str]) -> None:
    assert shared_runs(text, source) == expected


def _abstracts() -> dict[str, str]:
    out: dict[str, str] = {}
    for path in sorted((REPO / "screening").glob("*.yaml")):
        data = yaml.load(path.read_text("utf-8"), Loader=_LOADER)
        decision = data.get("decision") or {}
        record = decision.get("key") or decision.get("exclusion")
        if record and data.get("abstract"):
            out[record] = data["abstract"]
    return out


def test_no_record_repeats_the_abstract_it_was_read_from() -> None:
    abstracts = _abstracts()
    copies = []
    for folder, fields in (("papers", ("summary", "notes")), ("exclusions", ("note",))):
        for path in sorted((REPO / folder).glob("*.yaml")):
            data = yaml.load(path.read_text("utf-8"), Loader=_LOADER)
            name = data.get("key") or data.get("id")
            abstract = abstracts.get(name)
            if not abstract:
                continue
            for field in fields:
                runs = shared_runs(str(data.get(field) or ""), abstract)
                if runs:
                    copies.append(f"{folder}/{path.name}: {field}: '{runs[0]}'")
    assert len(abstracts) > 1000  # the check reads the abstracts of the screened candidates
    assert copies == []
