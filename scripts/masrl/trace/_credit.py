"""Credit assignment: a run's rewards turned into attributions at a credit unit, by a named method.

Pure functions only; :mod:`._collection` reads and writes the traces. The units are the credit
units of the corpus's taxonomy, as far as a trace carries them (:func:`units`):

* ``token``: each output token of an event that counts them (``tokens.output``), by position;
* ``turn``: each event of a team agent (a root or a sub-agent; one step of its trajectory);
* ``message``: each ``message`` event addressed to another agent of the run;
* ``tool``: each ``tool_call`` event;
* ``agent``: each team agent; ``orchestrator``: each root agent (never spawned, acting from the start);
* ``role``: each ``role`` the events carry; ``team``: the run as a whole.

Methods over one run (:data:`RUN_METHODS`), for a channel's reward R:

* ``broadcast``: every unit gets R (Agent Lightning's credit step gives every model call the
  episode's reward);
* ``split``: every unit gets R / (number of units), so the credits sum to R;
* ``discounted``: a unit gets gamma**d * R, where d counts the steps from it to the run's last
  step along the dependency graph: an event at depth k (the k-th event of the longest path that
  ends with it) of a run whose critical path holds L events is L - k steps from the end; a unit of
  several events counts from its latest step; the token at position i of an output of n tokens
  adds n - 1 - i;
* ``critical-path``: R is shared equally among the events of the critical path that belong to a
  unit; a unit gets the shares of its events there (a token 1/n of its event's), and 0 off the path.

Methods over the runs of one task in a collection (:data:`COLLECTION_METHODS`), which compare
runs; an ablation run (``ablation`` naming the agents or roles it leaves out) is a run of the
coalition without them, and every other run is a run of the full team:

* ``group``: group-relative advantages, as multi-agent GRPO variants compute them: among the full
  runs of the task in which a unit acts, (R - mean) / std (population standard deviation; 0 when
  every run got the same), or R - mean with ``scale="none"``. Event units take the advantage of
  their agent (the team's, for an event of no team agent). Ablation runs get none;
* ``leave-one-out``: difference rewards: a player gets R minus the mean reward of the runs of the
  task that leave exactly that player out;
* ``shapley``: Shapley values over the players, with v(S) the mean reward of the runs whose
  coalition is S: exact over every coalition up to :data:`EXACT_PLAYERS` players, else (or when a
  number of samples is asked for) estimated from that many random orders of the players, drawn
  with a seeded generator. Each full run's own reward stands for v(N), so a run's credits sum to
  its reward: v of the empty coalition (the runs that leave every player out; 0 when there are
  none) is split among the members never left out.

The players of a task are the agents (or roles) some ablation run of it leaves out; the members
of the full team no run leaves out (an orchestrator every run needs) are in every coalition.

A method that needs what the input lacks raises :class:`Refused` with what is missing and a
method that would work with what there is.

Properties (tests/trace/test_trace_credit.py checks them with hypothesis): split and Shapley
credits sum to the channel's reward; symmetric players get equal Shapley values; a null player
gets 0; every method but ``group`` with ``scale="std"`` is additive across channels (credit of
a + b is credit of a plus credit of b); group advantages have zero mean per task and unit; the
same seed gives the same estimate.
"""

from __future__ import annotations

import math
import random
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import Any

from msgspec import UNSET

from masrl.trace import _model as m
from masrl.trace._graph import Graph
from masrl.trace._metrics import ROOT, SUB_AGENT, actor_kinds, depths

METHODS: dict[str, str] = {
    "broadcast": "every unit gets the channel's reward, as Agent Lightning credits every model call of an episode",
    "split": "an equal share of the reward per unit; the credits sum to the reward",
    "discounted": (
        "gamma^d times the reward, d the steps from the unit to the run's last step along the dependency graph"
    ),
    "critical-path": (
        "the reward shared equally among the events of the critical path (the longest dependency chain); "
        "0 for a unit off it"
    ),
    "group": (
        "group-relative advantage: (reward - mean) / std over the runs of the same task in which the unit acts, "
        "as multi-agent GRPO variants compute it"
    ),
    "leave-one-out": "difference reward: the run's reward minus that of the runs of its task without the unit",
    "shapley": (
        "Shapley value over the agents or roles, from the rewards of the runs of every coalition (exact up to "
        "8 players, else sampled orders)"
    ),
}
RUN_METHODS = ("broadcast", "split", "discounted", "critical-path")  # one run is enough
COLLECTION_METHODS = ("group", "leave-one-out", "shapley")  # they compare the runs of one task
EVENT_UNITS = ("token", "turn", "message", "tool")  # units that name events
PLAYER_UNITS = ("agent", "orchestrator", "role")  # units an ablation run can leave out
# The units each method applies to.
METHOD_UNITS: dict[str, tuple[str, ...]] = {
    **dict.fromkeys(RUN_METHODS, m.CREDIT_UNITS),
    "group": m.CREDIT_UNITS,
    "leave-one-out": PLAYER_UNITS,
    "shapley": PLAYER_UNITS,
}
SCALES = ("std", "none")  # how group advantages are scaled
EXACT_PLAYERS = 8  # up to this many players Shapley values are exact (2^8 coalitions)
DEFAULT_SAMPLES = 1000  # random orders that estimate Shapley values beyond EXACT_PLAYERS players
_SAME = 1e-12  # rewards closer than this, relative to their size, count as equal
MAX_TOKEN_UNITS = 1_000_000  # token credit per token stops being useful long before this
UNIT_NAMES = {
    "token": "output token",
    "turn": "step of a team agent",
    "message": "message between agents",
    "tool": "tool call",
    "agent": "team agent",
    "role": "role",
    "orchestrator": "orchestrating (root) agent",
    "team": "team",
}


class Refused(Exception):
    """The method cannot credit this input: what is missing, and what would work instead."""


@dataclass(frozen=True)
class Unit:
    """One unit of a run that receives credit."""

    ref: str | None  # an event id (token, turn, message, tool), an agent (agent, orchestrator), a role; None: team
    events: tuple[int, ...]  # positions of the events it covers
    index: int | None = None  # a token's position in its event's output
    of: int = 1  # the number of output tokens of a token's event


def check_unit(method: str, unit: str) -> None:
    """Raise :class:`Refused` when *method* does not apply to *unit*."""
    if unit not in METHOD_UNITS[method]:
        fits = [x for x in METHODS if unit in METHOD_UNITS[x]]
        raise Refused(
            f"{method} credits {' or '.join(METHOD_UNITS[method])} (what an ablation run can leave out), "
            f"not {unit}; for {unit}, use {', '.join(fits)}"
        )


def units(trace: m.AnyTrace, g: Graph, unit: str) -> list[Unit]:
    """The units of *trace* at credit unit *unit*, in order of their first event (see the module docstring)."""
    events = g.events
    if unit == "team":
        return [Unit(None, tuple(range(len(events))))]
    kinds = actor_kinds(g)
    team = {a for a, kind in kinds.items() if kind in (ROOT, SUB_AGENT)}
    if unit in ("agent", "orchestrator"):
        wanted = team if unit == "agent" else {a for a, kind in kinds.items() if kind == ROOT}
        found = _grouped((a, i) for i, a in enumerate(g.agents) if a in wanted)
        if not found:
            raise Refused(f"the run has no {UNIT_NAMES[unit]}; use unit team")
        return found
    if unit == "role":
        found = _grouped((e.role, i) for i, e in enumerate(events) if e.role is not UNSET and e.role)
        if not found:
            raise Refused("no event carries a role; use unit agent, or give events a role")
        return found
    if unit == "token":
        out: list[Unit] = []
        for i, e in enumerate(events):
            n = 0 if e.tokens is UNSET or e.tokens.output is UNSET else int(e.tokens.output)
            out.extend(Unit(g.ids[i], (i,), k, n) for k in range(n))
            if len(out) > MAX_TOKEN_UNITS:
                raise Refused(f"the run has more than {MAX_TOKEN_UNITS:,} output tokens; use unit turn")
        if not out:
            raise Refused("no event counts its output tokens (tokens.output); use unit turn")
        return out
    if unit == "turn":
        picked = [i for i, a in enumerate(g.agents) if a in team]
    elif unit == "message":
        picked = [i for i in g.of_kind(m.Message) if events[i].to in kinds]
    elif unit == "tool":
        picked = list(g.of_kind(m.ToolCall))
    else:  # pragma: no cover - the command line offers only the taxonomy's units
        raise Refused(f"unknown unit {unit!r}")
    if not picked:
        hint = "use unit turn" if unit != "turn" else "use unit team"
        raise Refused(f"the run has no {UNIT_NAMES[unit]}; {hint}")
    return [Unit(g.ids[i], (i,)) for i in sorted(picked)]


def _grouped(pairs: Iterable[tuple[str, int]]) -> list[Unit]:
    by: dict[str, list[int]] = {}
    for ref, i in pairs:
        by.setdefault(ref, []).append(i)
    return [Unit(ref, tuple(positions)) for ref, positions in sorted(by.items(), key=lambda kv: kv[1][0])]


def run_credit(
    trace: m.AnyTrace, g: Graph, found: Sequence[Unit], method: str, reward: float, gamma: float = 0.9
) -> list[float]:
    """The credit of each unit of *found* under a method of :data:`RUN_METHODS`."""
    if method == "broadcast":
        return [reward] * len(found)
    if method == "split":
        return [reward / len(found)] * len(found)
    steps, path = depths(trace, g)
    if method == "discounted":
        last = max(steps)
        return [gamma ** _distance(u, steps, last) * reward for u in found]
    if method == "critical-path":
        on_path = {g.index[x] for x in path}
        weights = [sum(1 for i in u.events if i in on_path) / (u.of if u.index is not None else 1) for u in found]
        total = math.fsum(weights)
        return [reward * w / total if total > 0 else 0.0 for w in weights]
    raise Refused(f"{method} compares the runs of a task; it needs a collection")  # pragma: no cover


def _distance(u: Unit, steps: list[int], last: int) -> int:
    """Steps from *u* to the run's last step: from its latest event, and from its token to its output's end."""
    d = min(last - steps[i] for i in u.events)
    return d + (u.of - 1 - u.index if u.index is not None else 0)


# ---------------------------------------------------------------------------------------------
# Comparing runs of one task


def group_advantages(rewards: Sequence[float], scale: str = "std") -> list[float]:
    """Each reward's advantage over its group: (r - mean) / std, or r - mean with *scale* ``none``.

    The standard deviation is the population's; when every run got the same reward (to 12
    significant digits) every advantage is 0.
    """
    if not rewards:
        return []
    if max(rewards) - min(rewards) <= _SAME * max(1.0, *map(abs, rewards)):
        return [0.0] * len(rewards)  # every run got the same (the float mean may be a hair off it)
    mean = math.fsum(rewards) / len(rewards)
    centred = [r - mean for r in rewards]
    if scale == "none":
        return centred
    std = math.sqrt(math.fsum(c * c for c in centred) / len(centred))
    return [c / std for c in centred]


Coalition = frozenset[str]


def shapley_values(
    players: Sequence[str],
    value: Mapping[Coalition, float],
    *,
    samples: int | None = None,
    seed: int | str = 0,
) -> tuple[dict[str, float], dict[str, float]]:
    """Shapley values of *players* for the game *value* (v of the empty coalition is 0 when not given).

    Exact over every coalition when there are at most :data:`EXACT_PLAYERS` players and *samples*
    is None; otherwise the mean marginal contribution over *samples* (default
    :data:`DEFAULT_SAMPLES`) random orders of the players drawn by ``random.Random(seed)``.

    Also returns, for each player, the weight v(N) carries in its value (1/n when exact; the share of
    the sampled orders in which it comes last): adding *w* times a change of v(N) keeps the values
    summing to v(N). Raises :class:`Refused` naming the coalitions the game lacks.
    """
    n = len(players)
    if n == 0:
        return {}, {}
    v = dict(value)
    v.setdefault(frozenset(), 0.0)
    if samples is None and n <= EXACT_PLAYERS:
        needed = [frozenset(c) for size in range(1, n + 1) for c in combinations(players, size)]
        _require(needed, v, players)
        phi = dict.fromkeys(players, 0.0)
        weight = [math.factorial(s) * math.factorial(n - s - 1) / math.factorial(n) for s in range(n)]
        for coalition, worth in v.items():
            if not coalition <= set(players):
                continue
            size = len(coalition)
            for p in players:  # coalition with p minus coalition without it, weighted by their sizes
                if p in coalition:
                    phi[p] += weight[size - 1] * worth
                else:
                    phi[p] -= weight[size] * worth if size < n else 0.0
        return phi, dict.fromkeys(players, 1 / n)
    count = DEFAULT_SAMPLES if samples is None else samples
    rng = random.Random(seed)
    orders = []
    for _ in range(count):
        order = list(players)
        rng.shuffle(order)
        orders.append(order)
    needed = list(dict.fromkeys(frozenset(order[:k]) for order in orders for k in range(1, n + 1)))
    _require(needed, v, players)
    totals = dict.fromkeys(players, 0.0)
    last = dict.fromkeys(players, 0)
    for order in orders:
        before = 0.0
        for k, p in enumerate(order, start=1):
            worth = v[frozenset(order[:k])]
            totals[p] += worth - before
            before = worth
        last[order[-1]] += 1
    return {p: totals[p] / count for p in players}, {p: last[p] / count for p in players}


def _require(needed: Iterable[Coalition], v: Mapping[Coalition, float], players: Sequence[str]) -> None:
    missing = [c for c in needed if c not in v]
    if missing:
        shown = "; ".join(_without(c, players) for c in missing[:4]) + ("; ..." if len(missing) > 4 else "")
        raise Refused(
            f"{len(missing)} coalition{'s' if len(missing) != 1 else ''} of the {len(players)} players have no run: {shown}"
        )


def _without(coalition: Coalition, players: Sequence[str]) -> str:
    removed = [p for p in players if p not in coalition]
    return "without " + ", ".join(map(repr, removed)) if removed else "the full team"


def leave_one_out(players: Sequence[str], value: Mapping[Coalition, float]) -> dict[str, float]:
    """For each player, minus v of the coalition without it (add a run's reward to get its difference reward).

    Raises :class:`Refused` naming the players no run leaves out alone.
    """
    everyone = frozenset(players)
    missing = [p for p in players if everyone - {p} not in value]
    if missing:
        raise Refused(
            f"no run leaves out only {', '.join(map(repr, missing))}"
            + (f" (of {len(players)} players)" if len(players) > len(missing) else "")
        )
    return {p: -value[everyone - {p}] for p in players}


# ---------------------------------------------------------------------------------------------
# One task's runs, credited


@dataclass(frozen=True)
class Run:
    """One run of a task as the collection methods see it."""

    reward: float
    # The refs of the units that act in it: agents, root agents or roles; for event units (which
    # take their agent's advantage under group), its team agents.
    players: tuple[str, ...]
    removed: tuple[str, ...] | None = None  # None: a run of the full team; else what its ablation leaves out


def task_credit(
    runs: Sequence[Run],
    method: str,
    *,
    task: str,
    scale: str = "std",
    samples: int | None = None,
    seed: int = 0,
) -> list[dict[str | None, float] | None]:
    """The credit of each run of one task: a value per unit ref (None: the team), or None for a run
    that gets none (an ablation run). Raises :class:`Refused` when the runs cannot give it."""
    full = [k for k, r in enumerate(runs) if r.removed is None]
    out: list[dict[str | None, float] | None] = [None] * len(runs)
    if not full:
        raise Refused(f"task {task!r} has ablation runs but no run of the full team")
    if method == "group":
        team = group_advantages([runs[k].reward for k in full], scale)
        for k, a in zip(full, team, strict=True):
            out[k] = {None: a}
        for ref in dict.fromkeys(p for k in full for p in runs[k].players):
            members = [k for k in full if ref in runs[k].players]
            for k, a in zip(members, group_advantages([runs[k].reward for k in members], scale), strict=True):
                row = out[k]
                assert row is not None
                row[ref] = a
        return out
    acting = {p for k in full for p in runs[k].players}
    players = sorted({p for r in runs if r.removed is not None for p in r.removed})
    if not players:
        n = len(acting)
        raise Refused(f"task {task!r}: no run leaves out any of its {n} player{'s' if n != 1 else ''}")
    stray = [p for p in players if p not in acting]
    if stray:
        raise Refused(
            f"task {task!r}: an ablation run leaves out {', '.join(map(repr, stray))}, which acts in no run of "
            "the full team"
        )
    fixed = sorted(acting - set(players))  # never left out: in every coalition
    everyone = frozenset(players)
    worth: dict[Coalition, list[float]] = {}
    for r in runs:
        coalition = everyone if r.removed is None else everyone - set(r.removed)
        worth.setdefault(coalition, []).append(r.reward)
    v = {c: math.fsum(rs) / len(rs) for c, rs in worth.items()}
    try:
        if method == "leave-one-out":
            minus = leave_one_out(players, v)
            for k in full:
                out[k] = {p: runs[k].reward + minus[p] for p in players}
            return out
        key = f"{seed}:{task}" if samples is not None or len(players) > EXACT_PLAYERS else seed
        phi, last = shapley_values(players, v, samples=samples, seed=key)
    except Refused as exc:
        raise Refused(f"task {task!r}: {exc}") from None
    background = v.get(frozenset(), 0.0)  # what the players' absence leaves: the fixed members' share
    for k in full:
        shift = runs[k].reward - v[everyone]
        values: dict[str | None, float] = {p: phi[p] + shift * last[p] for p in players}
        values.update(dict.fromkeys(fixed, background / len(fixed) if fixed else 0.0))
        out[k] = values
    return out


def attributions_of(
    found: Sequence[Unit], values: Sequence[float], unit: str, channel: str, method: str
) -> list[dict[str, Any]]:
    """The ``attributions`` items (as JSON) for *found* credited with *values*."""
    out = []
    for u, value in zip(found, values, strict=True):
        item: dict[str, Any] = {"unit": unit}
        if u.ref is not None:
            item["ref"] = u.ref
        if u.index is not None:
            item["index"] = u.index
        item.update(channel=channel, value=value, method=method)
        out.append(item)
    return out


def replace_attributions(doc: dict[str, Any], new: list[dict[str, Any]], unit: str, method: str) -> None:
    """Put *new* into the trace *doc*, in place of what the same method gave the same unit and channels."""
    channels = {a["channel"] for a in new}
    kept = [
        a
        for a in doc.get("attributions", [])
        if not (
            isinstance(a, dict) and a.get("unit") == unit and a.get("method") == method and a.get("channel") in channels
        )
    ]
    doc["attributions"] = kept + new
