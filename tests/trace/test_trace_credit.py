"""Credit assignment: the methods worked out by hand, their properties over random inputs, refusals."""

from __future__ import annotations

import itertools
import math
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from trace_cases import REFERENCE, TRACES, encode, valid_traces

from masrl.trace import _credit as c
from masrl.trace import _model as m
from masrl.trace import command
from masrl.trace._validate import validate_file

_EPS = 1e-9


def checked(path: Path) -> Any:
    result = validate_file(path)
    assert result.problems == []
    return result


def credit_of(path: Path, unit: str, method: str, reward: float = 1.0, gamma: float = 0.5) -> dict[Any, float]:
    """{(ref, index): value} of *method* at *unit* for the trace in *path*."""
    r = checked(path)
    found = c.units(r.trace, r.graph, unit)
    values = c.run_credit(r.trace, r.graph, found, method, reward, gamma)
    return {(u.ref, u.index) if u.index is not None else u.ref: v for u, v in zip(found, values, strict=True)}


def test_the_command_offers_the_methods_and_units_of_the_core() -> None:
    assert command.CREDIT_METHODS == tuple(c.METHODS) == c.RUN_METHODS + c.COLLECTION_METHODS
    assert command.CREDIT_UNITS == m.CREDIT_UNITS == tuple(c.UNIT_NAMES)
    assert command.GROUP_SCALES == c.SCALES


# -- One run, worked out by hand on the reference example ----------------------------------------
# e1 decision (orchestrator), e2 and e3 spawn planner_1 and executor_1, e4 the planner's message
# to the executor, e5 the executor's tool call, e6 the browser's result, e7 the executor's return,
# e8 the aggregate. Critical path: e1 e2 e4 e5 e6 e7 e8 (7 events; e3 is off it). Depths: e1 1,
# e2 2, e3 2, e4 3, e5 4, e6 5, e7 6, e8 7.

REFERENCE_CASES = [
    ("agent", "broadcast", {"orchestrator": 1.0, "planner_1": 1.0, "executor_1": 1.0}),
    ("agent", "split", {"orchestrator": 1 / 3, "planner_1": 1 / 3, "executor_1": 1 / 3}),
    # the orchestrator's latest step is e8 (0 steps from the end); the planner's e4 (4), the executor's e7 (1)
    ("agent", "discounted", {"orchestrator": 1.0, "planner_1": 0.5**4, "executor_1": 0.5}),
    # 6 of the path's events belong to agents (e6 is the browser's): orchestrator e1 e2 e8, planner e4, executor e5 e7
    ("agent", "critical-path", {"orchestrator": 3 / 6, "planner_1": 1 / 6, "executor_1": 2 / 6}),
    ("orchestrator", "split", {"orchestrator": 1.0}),
    ("role", "split", {"lead": 1 / 3, "planner": 1 / 3, "executor": 1 / 3}),
    ("team", "discounted", {None: 1.0}),
    ("message", "split", {"e4": 1.0}),
    ("tool", "broadcast", {"e5": 1.0}),
    # turns: the seven events of the three agents (not the browser's result e6); e3 is off the path
    ("turn", "critical-path", {"e1": 1 / 6, "e2": 1 / 6, "e3": 0.0, "e4": 1 / 6, "e5": 1 / 6, "e7": 1 / 6, "e8": 1 / 6}),
    ("turn", "discounted", {"e1": 0.5**6, "e2": 0.5**5, "e3": 0.5**5, "e4": 0.5**4, "e5": 0.5**3, "e7": 0.5, "e8": 1.0}),
]  # fmt: skip


@pytest.mark.parametrize(
    ("unit", "method", "expected"), REFERENCE_CASES, ids=[f"{u}-{m}" for u, m, _ in REFERENCE_CASES]
)
def test_one_run_by_hand(unit: str, method: str, expected: dict[Any, float]) -> None:
    got = credit_of(REFERENCE, unit, method)
    assert got.keys() == expected.keys()
    for key, value in expected.items():
        assert math.isclose(got[key], value, abs_tol=_EPS), key


def test_tokens_are_discounted_to_the_end_of_their_output(tmp_path: Path) -> None:
    doc = {
        "trace_id": "t",
        "events": [
            {"id": "a", "t": 0, "type": "message", "agent": "lead", "to": "model", "tokens": {"output": 3}},
            {"id": "b", "t": 1, "type": "message", "agent": "lead", "to": "model", "tokens": {"output": 2}},
        ],
        "edges": [{"src": "a", "dst": "b", "type": "causal"}],
    }
    path = tmp_path / "t.json"
    path.write_bytes(encode(doc))
    # b is the last step: its tokens are 1 and 0 from the end; a's are 1 step back, then 2, 1, 0 tokens
    assert credit_of(path, "token", "discounted") == {
        ("a", 0): 0.5**3,
        ("a", 1): 0.5**2,
        ("a", 2): 0.5**1,
        ("b", 0): 0.5**1,
        ("b", 1): 1.0,
    }
    assert credit_of(path, "token", "split") == dict.fromkeys([("a", 0), ("a", 1), ("a", 2), ("b", 0), ("b", 1)], 0.2)
    # both events are on the critical path: each gets half, shared by its tokens
    assert credit_of(path, "token", "critical-path") == {
        ("a", 0): 1 / 6,
        ("a", 1): 1 / 6,
        ("a", 2): 1 / 6,
        ("b", 0): 0.25,
        ("b", 1): 0.25,
    }


# What each unit needs and the trace lacks, and the hint.
MISSING = [
    ("token", "no event counts its output tokens (tokens.output); use unit turn"),
    ("role", "no event carries a role; use unit agent, or give events a role"),
    ("message", "the run has no message between agents; use unit turn"),
]


@pytest.mark.parametrize(("unit", "message"), MISSING, ids=[u for u, _ in MISSING])
def test_a_unit_the_run_lacks_is_refused(tmp_path: Path, unit: str, message: str) -> None:
    doc = {
        "trace_id": "t",
        "events": [
            {"id": "a", "t": 0, "type": "orchestrator_decision", "agent": "lead"},
            {"id": "b", "t": 1, "type": "message", "agent": "lead", "to": "model"},
        ],
        "edges": [],
    }
    path = tmp_path / "t.json"
    path.write_bytes(encode(doc))
    r = checked(path)
    with pytest.raises(c.Refused) as refused:
        c.units(r.trace, r.graph, unit)
    assert str(refused.value) == message


@pytest.mark.parametrize(("method", "unit"), [("leave-one-out", "turn"), ("shapley", "team"), ("shapley", "token")])
def test_methods_comparing_coalitions_credit_players_only(method: str, unit: str) -> None:
    with pytest.raises(c.Refused) as refused:
        c.check_unit(method, unit)
    assert str(refused.value) == (
        f"{method} credits agent or orchestrator or role (what an ablation run can leave out), not {unit}; "
        f"for {unit}, use broadcast, split, discounted, critical-path, group"
    )


# -- Runs of one task, worked out by hand -----------------------------------------------------
# A glove game: a holds a left glove, b and c a right one; a pair is worth 1.
GLOVES = {
    frozenset(s): float("a" in s and ("b" in s or "c" in s))
    for size in range(0, 4)
    for s in itertools.combinations("abc", size)
}


def test_shapley_values_of_the_glove_game() -> None:
    phi, weight = c.shapley_values(["a", "b", "c"], GLOVES)
    assert {p: round(v, 12) for p, v in phi.items()} == {
        "a": round(4 / 6, 12),
        "b": round(1 / 6, 12),
        "c": round(1 / 6, 12),
    }
    assert weight == dict.fromkeys("abc", 1 / 3)


def test_missing_coalitions_are_named() -> None:
    partial = {k: v for k, v in GLOVES.items() if len(k) != 1}
    with pytest.raises(c.Refused) as refused:
        c.shapley_values(["a", "b", "c"], partial)
    assert str(refused.value) == (
        "3 coalitions of the 3 players have no run: without 'b', 'c'; without 'a', 'c'; without 'a', 'b'"
    )


def _runs(game: dict[frozenset[str], float], players: str, full: list[float], fixed: str = "") -> list[c.Run]:
    """A task's runs: the full team's with rewards *full*, and one ablation run per smaller coalition."""
    out = [c.Run(reward, tuple(players + fixed)) for reward in full]
    for coalition, worth in game.items():
        if len(coalition) < len(players) and coalition:
            removed = tuple(p for p in players if p not in coalition)
            out.append(c.Run(worth, tuple(sorted(coalition)) + tuple(fixed), removed))
    return out


def test_task_credit_by_hand() -> None:
    # Two full runs (rewards 1 and 0.7), a run of every smaller coalition of a, b, c; z is in all.
    runs = _runs(GLOVES, "abc", [1.0, 0.7], fixed="z")
    shapley = c.task_credit(runs, "shapley", task="t")
    # Each full run's own reward stands for v(N): the first (1.0) gets the glove game's values; the
    # second (0.7) a third of its 0.3 less each. z, in every run, gets v of the empty coalition: 0.
    rounded = [None if row is None else {k: round(v, 12) for k, v in row.items()} for row in shapley[:2]]
    assert rounded == [
        {"a": round(4 / 6, 12), "b": round(1 / 6, 12), "c": round(1 / 6, 12), "z": 0.0},
        {"a": round(4 / 6 - 0.1, 12), "b": round(1 / 6 - 0.1, 12), "c": round(1 / 6 - 0.1, 12), "z": 0.0},
    ]
    assert shapley[2:] == [None] * (len(runs) - 2)  # ablation runs get none
    loo = c.task_credit(runs, "leave-one-out", task="t")
    # without a: 0; without b: 1; without c: 1
    assert loo[0] == {"a": 1.0, "b": 0.0, "c": 0.0}
    assert loo[1] == {"a": 0.7, "b": 0.7 - 1.0, "c": 0.7 - 1.0}
    group = c.task_credit(runs, "group", task="t")
    assert group[:2] == [
        {None: 1.0, "a": 1.0, "b": 1.0, "c": 1.0, "z": 1.0},
        {None: -1.0, "a": -1.0, "b": -1.0, "c": -1.0, "z": -1.0},
    ]


TASK_REFUSALS = [
    ("shapley", [c.Run(1.0, ("a", "b"))], "task 't': no run leaves out any of its 2 players"),
    ("leave-one-out", [c.Run(1.0, ("a", "b", "c")), c.Run(0.2, ("c",), ("a", "b")), c.Run(0.5, ("a", "c"), ("b",))], "task 't': no run leaves out only 'a' (of 2 players)"),
    ("shapley", [c.Run(1.0, ("a", "b")), c.Run(0.5, ("a",), ("c",))], "task 't': an ablation run leaves out 'c', which acts in no run of the full team"),
    ("group", [c.Run(0.5, ("a",), ("b",))], "task 't' has ablation runs but no run of the full team"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("method", "runs", "message"), TASK_REFUSALS, ids=["no-ablation", "loo-missing", "stray", "no-full"]
)
def test_task_refusals(method: str, runs: list[c.Run], message: str) -> None:
    with pytest.raises(c.Refused) as refused:
        c.task_credit(runs, method, task="t")
    assert str(refused.value) == message


# -- Properties ---------------------------------------------------------------------------------

PLAYERS = "abcdefgh"
worths = st.floats(-10, 10, allow_nan=False, allow_infinity=False)


@st.composite
def games(draw: st.DrawFn, most: int = 6, least: int = 1) -> tuple[list[str], dict[frozenset[str], float]]:
    """A game: players, and a worth for every non-empty coalition (the empty one is worth 0)."""
    players = list(PLAYERS[: draw(st.integers(least, most))])
    game = {
        frozenset(s): draw(worths) for size in range(1, len(players) + 1) for s in itertools.combinations(players, size)
    }
    return players, game


@settings(max_examples=200, deadline=None)
@given(games(), st.none() | st.integers(1, 50), st.integers(0, 10**6))
def test_shapley_values_sum_to_the_team_s_worth(case: Any, samples: int | None, seed: int) -> None:
    players, game = case
    phi, weight = c.shapley_values(players, game, samples=samples, seed=seed)
    assert math.isclose(math.fsum(phi.values()), game[frozenset(players)], abs_tol=1e-6)
    assert math.isclose(math.fsum(weight.values()), 1.0, abs_tol=1e-9)


@st.composite
def symmetric_games(draw: st.DrawFn) -> tuple[list[str], dict[frozenset[str], float], str, str]:
    """A game in which the worth depends only on how many of each kind a coalition holds: players of a kind are symmetric."""
    players = list(PLAYERS[: draw(st.integers(2, 6))])
    kinds = {p: draw(st.integers(0, 1)) for p in players}
    kinds[players[1]] = kinds[players[0]]
    table: dict[tuple[int, int], float] = {}
    game = {}
    for size in range(1, len(players) + 1):
        for s in itertools.combinations(players, size):
            key = (sum(kinds[p] == 0 for p in s), sum(kinds[p] == 1 for p in s))
            if key not in table:
                table[key] = draw(worths)
            game[frozenset(s)] = table[key]
    return players, game, players[0], players[1]


@settings(max_examples=200, deadline=None)
@given(symmetric_games())
def test_symmetric_players_get_equal_credit(case: Any) -> None:
    players, game, one, other = case
    phi, _ = c.shapley_values(players, game)
    assert math.isclose(phi[one], phi[other], abs_tol=1e-9)


@settings(max_examples=200, deadline=None)
@given(games(most=5), st.none() | st.integers(1, 30), st.integers(0, 1000))
def test_a_null_player_gets_nothing(case: Any, samples: int | None, seed: int) -> None:
    players, game = case
    null = "z"  # adds nothing to any coalition
    extended = {**game, frozenset({null}): 0.0}
    extended.update({s | {null}: worth for s, worth in game.items()})
    phi, _ = c.shapley_values([*players, null], extended, samples=samples, seed=seed)
    assert abs(phi[null]) < 1e-9


@settings(max_examples=100, deadline=None)
@given(games(), st.integers(1, 40), st.integers(0, 1000))
def test_the_same_seed_gives_the_same_estimate(case: Any, samples: int, seed: int) -> None:
    players, game = case
    assert c.shapley_values(players, game, samples=samples, seed=seed) == c.shapley_values(
        players, game, samples=samples, seed=seed
    )


rewards_lists = st.lists(worths, min_size=1, max_size=12)


@settings(max_examples=200, deadline=None)
@given(rewards_lists, st.sampled_from(c.SCALES))
def test_group_advantages_have_zero_mean(rewards: list[float], scale: str) -> None:
    advantages = c.group_advantages(rewards, scale)
    assert abs(math.fsum(advantages)) < 1e-6 * max(1.0, len(rewards))


@st.composite
def tasks(draw: st.DrawFn) -> tuple[list[c.Run], list[c.Run]]:
    """The runs of one task (full runs, and an ablation run of every coalition), with two reward channels."""
    players, game = draw(games(most=4, least=2))  # one player alone: no run can leave it out
    fixed = draw(st.sampled_from(["", "z"]))
    full = draw(st.lists(worths, min_size=1, max_size=4))
    first = _runs(game, "".join(players), full, fixed)
    second = [c.Run(draw(worths), r.players, r.removed) for r in first]
    return first, second


@settings(max_examples=150, deadline=None)
@given(tasks())
def test_task_credit_sums_to_each_run_s_reward_and_group_is_zero_mean_per_unit(case: Any) -> None:
    runs, _ = case
    for row, run in zip(c.task_credit(runs, "shapley", task="t"), runs, strict=True):
        if row is not None:
            assert math.isclose(math.fsum(row.values()), run.reward, abs_tol=1e-6)
    group = c.task_credit(runs, "group", task="t")
    for ref in {k for row in group if row for k in row}:
        assert abs(math.fsum(row[ref] for row in group if row and ref in row)) < 1e-6


LINEAR = ["shapley", "leave-one-out"]


@settings(max_examples=150, deadline=None)
@given(tasks(), st.sampled_from([*LINEAR, "group"]))
def test_credit_is_additive_across_channels(case: Any, method: str) -> None:
    first, second = case
    both = [c.Run(a.reward + b.reward, a.players, a.removed) for a, b in zip(first, second, strict=True)]
    scale = "none"  # group divided by the standard deviation is not additive; its mean-only form is
    one, two, total = (c.task_credit(rs, method, task="t", scale=scale) for rs in (first, second, both))
    for x, y, z in zip(one, two, total, strict=True):
        if z is None:
            continue
        assert x is not None
        assert y is not None
        for ref in z:
            assert math.isclose(x[ref] + y[ref], z[ref], abs_tol=1e-6)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(valid_traces(), st.sampled_from(c.RUN_METHODS), st.sampled_from(m.CREDIT_UNITS), worths, worths)
def test_one_run_credit_splits_sums_and_adds(
    tmp_path_factory: pytest.TempPathFactory, doc: dict[str, Any], method: str, unit: str, a: float, b: float
) -> None:
    path = tmp_path_factory.mktemp("c") / "t.json"
    path.write_bytes(encode(doc))
    r = checked(path)
    try:
        found = c.units(r.trace, r.graph, unit)
    except c.Refused:
        return
    one, two, both = (c.run_credit(r.trace, r.graph, found, method, x, 0.9) for x in (a, b, a + b))
    for x, y, z in zip(one, two, both, strict=True):
        assert math.isclose(x + y, z, abs_tol=1e-6)
    if method == "split":
        assert math.isclose(math.fsum(one), a, abs_tol=1e-6)
    if method == "critical-path":  # the path's share goes to the units on it, all of it when one is there
        assert math.isclose(math.fsum(one), a, abs_tol=1e-6) or math.fsum(abs(x) for x in one) == 0


def test_examples_of_every_trace_folder_file_credit_at_every_unit_they_carry() -> None:
    for path in sorted(TRACES.glob("*.json")):
        r = checked(path)
        for unit in m.CREDIT_UNITS:
            try:
                found = c.units(r.trace, r.graph, unit)
            except c.Refused:
                continue
            assert math.isclose(math.fsum(c.run_credit(r.trace, r.graph, found, "split", 2.0)), 2.0), (path, unit)
