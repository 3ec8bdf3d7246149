"""Whether two titles name the same work: near-identical letters are not enough when the numbers
differ, so the next version of a technical report is screened as its own candidate."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from masrl.living._facts import similar_titles
from masrl.living._lists import same_title
from masrl.living._queue import Known
from masrl.living._scaffold import normalise_title, same_numbers


def corpus(*labels: str) -> SimpleNamespace:
    exclusions = [
        SimpleNamespace(
            id=f"E{i:03d}", label=label, identifier=f"arXiv:2607.1559{i}", url=f"https://arxiv.org/abs/2607.1559{i}"
        )
        for i, label in enumerate(labels, 1)
    ]
    return SimpleNamespace(papers=[], exclusions=exclusions)


@pytest.mark.parametrize(
    ("known", "candidate", "match"),
    [
        # the case met in the field search: V3 excluded, V2 a different paper
        ("RecGPT-V3 Technical Report", "RecGPT-V2 Technical Report", None),
        (
            "Llama 2: Open Foundation and Fine-Tuned Chat Models",
            "Llama 3: Open Foundation and Fine-Tuned Chat Models",
            None,
        ),
        ("Qwen2.5 Technical Report", "Qwen2 Technical Report", None),
        # same numbers, a typo or punctuation apart: the same work
        ("RecGPT-V2 Technical Report", "RecGPT V2 Techincal Report", "E001"),
        ("GPT-4 Agents Debate in Teams", "GPT4 agents debate in teams", "E001"),
        ("Multi-agent debate with message credit", "Multi-agent debates with message credit", "E001"),
    ],
)
def test_known_titles_with_other_numbers_are_other_works(known: str, candidate: str, match: str | None) -> None:
    assert Known(corpus(known)).match(None, None, None, candidate) == match  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("a", "b", "same"),
    [
        ("RecGPT-V2 Technical Report", "RecGPT-V3 Technical Report", False),
        ("ProRL v2: Prolonged Training", "ProRL v3: Prolonged Training", False),
        ("GPT-4 Agents Debate", "GPT4 Agents Debate", True),
        ("Agents Debate", "Agent Debate", True),
    ],
)
def test_every_title_comparison_keeps_numbers_apart(a: str, b: str, same: bool) -> None:
    assert same_numbers(normalise_title(a), normalise_title(b)) is same
    assert similar_titles(a, b) is same
    assert same_title(a, b) is same


def _first_similar(labels: list[str], candidate: str) -> str | None:
    """The reference: the first known title (shortest first, as Known orders them) that shares at
    least half of the 4-grams and is this close to the candidate's, compared one by one with no index."""
    import difflib

    from masrl.living._queue import _grams
    from masrl.living._scaffold import TITLE_SIMILARITY

    norm = normalise_title(candidate)
    titles: dict[str, str] = {}
    for i, label in enumerate(labels, 1):
        titles.setdefault(normalise_title(label), f"E{i:03d}")
    if norm in titles:
        return titles[norm]
    if not norm:
        return None
    grams = _grams(norm)
    for other, owner in sorted(titles.items(), key=lambda kv: len(kv[0])):
        shared = len(grams & _grams(other))
        if 2 * shared < max(len(grams), len(_grams(other))) or not same_numbers(norm, other):
            continue
        if difflib.SequenceMatcher(None, other, norm, autojunk=False).ratio() >= TITLE_SIMILARITY:
            return owner
    return None


_WORDS = ["agent", "debate", "credit", "team", "router", "reward", "multi", "policy", "graph", "self", "play", "v2"]


@settings(max_examples=300, deadline=None)
@given(
    labels=st.lists(st.lists(st.sampled_from(_WORDS), min_size=2, max_size=7).map(" ".join), min_size=1, max_size=25),
    pick=st.integers(min_value=0, max_value=24),
    edits=st.lists(st.tuples(st.integers(0, 60), st.sampled_from(["", "a", "s", " ", "-"])), max_size=3),
)
@example(labels=["agent agent", "agent agent", "agent agent", "agent team"], pick=3, edits=[(3, "")])
def test_the_indexed_title_match_finds_what_comparing_every_title_finds(
    labels: list[str], pick: int, edits: list[tuple[int, str]]
) -> None:
    # a known title with a few characters changed, dropped or added, or none
    chars = list(labels[pick % len(labels)])
    for at, text in edits:
        chars[min(at, len(chars) - 1) : min(at, len(chars) - 1) + 1] = list(text)
    candidate = "".join(chars)
    assert Known(corpus(*labels)).match(None, None, None, candidate) == _first_similar(labels, candidate)  # type: ignore[arg-type]
