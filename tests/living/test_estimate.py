"""The capture-recapture estimate: histories, refusals, exact tables, and coverage on simulated
populations of known size, with independent and dependent sources."""

from __future__ import annotations

import itertools
import random
from collections.abc import Callable

import pytest

from masrl.living._estimate import Estimate, EstimateError, estimate, histories

# ---------------------------------------------------------------------------------------------
# Histories


@pytest.mark.parametrize(
    ("captures", "sources", "expected"),
    [
        # one bit per source, in the order given
        ([{"a"}, {"a", "b"}, {"b"}], ["a", "b"], {"10": 1, "11": 1, "01": 1}),
        # a paper no source found is the unseen cell: not counted
        ([set(), {"b"}], ["a", "b"], {"01": 1}),
        # a source that is not modelled is ignored
        ([{"a", "z"}], ["a", "b"], {"10": 1}),
        # counts add up
        ([{"a"}, {"a"}, {"a", "b", "c"}], ["a", "b", "c"], {"100": 2, "111": 1}),
    ],
)
def test_histories_are_bit_strings_over_the_sources(
    captures: list[set[str]], sources: list[str], expected: dict[str, int]
) -> None:
    assert histories(captures, sources) == expected


# ---------------------------------------------------------------------------------------------
# Refusals


@pytest.mark.parametrize(
    ("counts", "sources", "message"),
    [
        ({"1": 5}, ["a"], "an estimate needs at least two sources; got 1"),
        ({"100000": 1}, list("abcdef"), "at most 5 sources can be modelled; got 6"),
        ({"10": 3, "1": 2}, ["a", "b"], "histories must be 2 bits with at least one 1: 1"),
        ({"00": 3}, ["a", "b"], "histories must be 2 bits with at least one 1: 00"),
        ({"1x": 3}, ["a", "b"], "histories must be 2 bits with at least one 1: 1x"),
        ({}, ["a", "b"], "no source found any paper"),
        # two sources that never overlap leave the unseen cell without bound
        ({"10": 5, "01": 7}, ["a", "b"], "no log-linear model could be fitted"),
    ],
)
def test_what_cannot_be_estimated_is_refused_with_a_reason(
    counts: dict[str, int], sources: list[str], message: str
) -> None:
    with pytest.raises(EstimateError, match=message):
        estimate(counts, sources)


# ---------------------------------------------------------------------------------------------
# Exact tables: expected counts of independent sources give back the population


def _expected_table(n: int, probs: list[float]) -> dict[str, int]:
    out = {}
    for bits in itertools.product((0, 1), repeat=len(probs)):
        if any(bits):
            p = 1.0
            for b, q in zip(bits, probs, strict=True):
                p *= q if b else 1 - q
            out["".join(map(str, bits))] = round(n * p)
    return out


@pytest.mark.parametrize(
    ("n", "probs"),
    [
        (1000, [0.5, 0.4]),  # Lincoln-Petersen
        (1000, [0.6, 0.3, 0.5]),
        (2000, [0.5, 0.35, 0.6, 0.4]),
    ],
)
def test_independent_sources_give_back_the_population(n: int, probs: list[float]) -> None:
    e = estimate(_expected_table(n, probs), [f"s{i}" for i in range(len(probs))])
    assert e.population == pytest.approx(n, rel=0.02)
    assert e.low < n < e.high
    assert e.models[0].name == "independence"  # the simplest model fits the exact table best


def test_the_report_gives_each_sources_recall_and_the_corpus_recall() -> None:
    e = estimate(_expected_table(1000, [0.6, 0.3, 0.5]), ["search", "citations", "lists"])
    found = {s: e.found(s) for s in e.sources}
    assert found == {"search": 600, "citations": 300, "lists": 500}
    assert e.observed == 1000 - round(1000 * 0.4 * 0.7 * 0.5)
    doc = e.as_json()
    assert doc["per_source"]["search"]["recall"] == pytest.approx(0.6, abs=0.01)
    assert doc["recall"] == pytest.approx(e.observed / e.population, abs=1e-4)
    lo, hi = doc["recall_interval"]
    assert lo <= doc["recall"] <= hi <= 1
    assert sum(m["weight"] for m in doc["models"]) == pytest.approx(1, abs=1e-3)


# ---------------------------------------------------------------------------------------------
# Coverage on simulated populations of known size

TRUTH = 300
Draw = Callable[[random.Random], list[str]]


def _independent(probs: dict[str, float]) -> Draw:
    return lambda rng: [s for s, p in probs.items() if rng.random() < p]


def _copying(rng: random.Random) -> list[str]:
    """Three arms; the lists arm copies the search arm (lists read the same listings)."""
    search = rng.random() < 0.5
    citations = rng.random() < 0.35
    lists = rng.random() < (0.8 if search else 0.35)
    return [s for s, f in (("search", search), ("citations", citations), ("lists", lists)) if f]


def _dependent_prior(rng: random.Random) -> list[str]:
    """Four sources: lists copy search, and the corpus before the round was built from lists."""
    search = rng.random() < 0.5
    citations = rng.random() < 0.35
    lists = rng.random() < (0.8 if search else 0.3)
    prior = rng.random() < (0.7 if lists else 0.2)
    flags = (("search", search), ("citations", citations), ("lists", lists), ("prior", prior))
    return [s for s, f in flags if f]


def _heterogeneous(rng: random.Random) -> list[str]:
    """Four sources; well-known papers (two in five) are easier for every source to find."""
    known = rng.random() < 0.4
    probs = [0.7, 0.5, 0.8, 0.6] if known else [0.35, 0.2, 0.45, 0.3]
    return [s for s, p in zip(("search", "citations", "lists", "prior"), probs, strict=True) if rng.random() < p]


SCENARIOS: list[tuple[str, Draw, list[str]]] = [
    ("independent", _independent({"search": 0.5, "citations": 0.35, "lists": 0.6}), ["search", "citations", "lists"]),
    ("lists copy search", _copying, ["search", "citations", "lists"]),
    ("prior built from lists", _dependent_prior, ["search", "citations", "lists", "prior"]),
    ("heterogeneous papers", _heterogeneous, ["search", "citations", "lists", "prior"]),
]


def _run(seed: int, draw: Draw, sources: list[str]) -> Estimate:
    rng = random.Random(seed)
    return estimate(histories((draw(rng) for _ in range(TRUTH)), sources), sources)


@pytest.mark.slow
def test_the_interval_holds_the_truth_in_at_least_nine_runs_in_ten() -> None:
    # 200 seeded runs, 50 per scenario, two of them with dependent sources
    held: dict[str, int] = {}
    for name, draw, sources in SCENARIOS:
        runs = [_run(seed, draw, sources) for seed in range(50)]
        held[name] = sum(r.low <= TRUTH <= r.high for r in runs)
    assert sum(held.values()) >= 0.9 * 200, held
    assert all(n >= 0.85 * 50 for n in held.values()), held


def test_the_same_histories_give_the_same_estimate() -> None:
    a = _run(7, _copying, ["search", "citations", "lists"])
    b = _run(7, _copying, ["search", "citations", "lists"])
    assert (a.population, a.low, a.high) == (b.population, b.low, b.high)
