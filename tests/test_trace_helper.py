"""The edge helper: a large trace's rules 1 to 4 checked in a forked process give the same answer.

Every case is validated twice, with the helper forced on (whatever the file's size) and without
it; problems, warnings and what the graph learnt must be the same, and the helper must really have
done the edge checks (this process must not have). Then the ways a helper can fail or not pay,
each falling back to checking here; and a large file through the command line.

These tests fork, so the mutation tester's test selection leaves them out (scripts/setup.cfg);
the edge rules themselves are tested without a fork in test_trace_graph_messages.py.
"""

from __future__ import annotations

import copy
import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from masrl.trace import _graph, _helper, _read
from masrl.trace._generate import original, swarm
from masrl.trace._problems import ordered
from masrl.trace._validate import Checked, validate_file
from test_trace_original import ORIGINAL_INVALID, ORIGINAL_VALID
from test_trace_validate import GRAPH_CASES, m_back_in_time, m_cycle, m_dangling, m_duplicate
from trace_cases import encode, reference, valid_traces

F = "t.json"
Edit = Callable[[dict[str, Any]], Any]


@pytest.fixture
def always(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every file is mapped and gets a helper, whatever its size and the machine's CPUs."""
    monkeypatch.setattr(_read, "_MAP_FROM", 0)
    monkeypatch.setattr(_helper, "HELP_FROM", 0)
    monkeypatch.setattr(_helper, "usable_cpus", lambda: 2)


@pytest.fixture
def here(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Each time this process checks rules 1 to 4 itself, the number of edges (a helper's checks are not seen)."""
    calls: list[int] = []
    real = _graph._ids_and_edges

    def counted(g: _graph.Graph, edges: Any) -> tuple[list[_graph.Found], list[_graph.Found]]:
        calls.append(len(edges))
        return real(g, edges)

    monkeypatch.setattr(_graph, "_ids_and_edges", counted)
    return calls


def _children() -> set[str]:
    """Processes this one has started and not yet reaped (zombies included). Other tests' long-lived
    children (the browser the site tests share) are there too, so compare with a count taken before."""
    task = Path(f"/proc/{os.getpid()}/task")
    return {pid for t in task.iterdir() for pid in (t / "children").read_text().split()}


def _seen(checked: Checked) -> tuple[list[str], list[str], bool | None]:
    forward = checked.graph.forward if checked.graph is not None else None
    return [str(p) for p in checked.problems], [str(w) for w in checked.warnings], forward


def _both(path: Path, here: list[int], *, strict: bool = False) -> tuple[Any, Any]:
    """What validation says of *path* with the helper and without; checks the helper did the edges."""
    before, running = len(here), _children()
    with_helper = validate_file(path, F, strict=strict, helper=True)
    helped = len(here) - before
    without = validate_file(path, F, strict=strict)
    if with_helper.trace is not None or with_helper.warnings:  # the schema held: the edges were the helper's
        assert (helped, len(here) - before) == (0, 1)
    assert _children() - running == set()
    return _seen(with_helper), _seen(without)


def _written(tmp_path: Path, doc: dict[str, Any] | bytes) -> Path:
    path = tmp_path / F
    path.write_bytes(doc if isinstance(doc, bytes) else encode(doc))
    return path


def _edited(edit: Edit, *, version: bool) -> dict[str, Any]:
    doc = reference()
    if version:
        doc["schema_version"] = "1.0"
    edit(doc)
    return doc


CASES: list[tuple[str, dict[str, Any]]] = [
    *((f"v1-{case}", _edited(edit, version=True)) for case, edit, _ in GRAPH_CASES),
    *((f"original-{case}", _edited(edit, version=False)) for case, edit, _, _ in ORIGINAL_VALID),
    *((f"original-invalid-{case}", _edited(edit, version=False)) for case, edit, _ in ORIGINAL_INVALID),
]


@pytest.mark.usefixtures("always")
@pytest.mark.parametrize(("case", "doc"), CASES, ids=[c[0] for c in CASES])
@pytest.mark.parametrize("strict", [False, True], ids=["lenient", "strict"])
def test_the_helper_gives_the_same_answer(
    tmp_path: Path, here: list[int], case: str, doc: dict[str, Any], strict: bool
) -> None:
    helped, alone = _both(_written(tmp_path, doc), here, strict=strict)
    assert helped == alone


@pytest.mark.usefixtures("always")
def test_the_cases_reach_every_edge_rule(tmp_path: Path, here: list[int]) -> None:
    """The table holds broken edges of every rule, so its sameness means something."""
    found = " ".join(" ".join(_both(_written(tmp_path, doc), here)[0][0]) for _, doc in CASES)
    for rule in ("must be unique", "is not the id of any event", "goes back in time", "form a cycle"):
        assert rule in found


EDGE_FAULTS = [m_duplicate, m_dangling, m_cycle, m_back_in_time]


@pytest.mark.usefixtures("always")
@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow]
)
@given(data=st.data())
def test_random_traces_with_broken_edges_get_the_same_answer(
    tmp_path: Path, here: list[int], data: st.DataObject
) -> None:
    doc = copy.deepcopy(data.draw(valid_traces()))
    fault = data.draw(st.sampled_from([None, *EDGE_FAULTS]))
    if fault is not None and (fault is not m_duplicate or len(doc["events"]) > 1):
        fault(doc, data.draw)
    helped, alone = _both(_written(tmp_path, doc), here)
    assert helped == alone


@pytest.mark.usefixtures("always")
def test_a_byte_order_mark_is_skipped_by_the_helper_too(tmp_path: Path, here: list[int]) -> None:
    doc = _edited(lambda d: d["edges"].append({"src": "e8", "dst": "e3", "type": "causal"}), version=True)
    helped, alone = _both(_written(tmp_path, b"\xef\xbb\xbf" + encode(doc)), here)
    assert helped == alone
    assert len(helped[0]) == 2


def _exit_3(raw: Any, write: int) -> None:
    os._exit(3)


def _junk(raw: Any, write: int) -> None:
    os.write(write, b"\x93junk")
    os._exit(0)


def _silent(raw: Any, write: int) -> None:
    os._exit(0)


def _killed(raw: Any, write: int) -> None:
    os.kill(os.getpid(), 9)


@pytest.mark.usefixtures("always")
@pytest.mark.parametrize("serve", [_exit_3, _junk, _silent, _killed], ids=lambda f: f.__name__[1:])
def test_a_failing_helper_means_checking_here(
    tmp_path: Path, here: list[int], monkeypatch: pytest.MonkeyPatch, serve: Callable[[Any, int], None]
) -> None:
    doc = _edited(lambda d: d["edges"].append({"src": "e8", "dst": "e3", "type": "causal"}), version=True)
    path = _written(tmp_path, doc)
    alone = _seen(validate_file(path, F))
    here.clear()
    monkeypatch.setattr(_helper, "_serve", serve)
    running = _children()
    assert _seen(validate_file(path, F, helper=True)) == alone
    assert here == [len(doc["edges"])]
    assert _children() - running == set()


# (case, how the machine and file look, whether a helper is forked)
WHEN: list[tuple[str, int, int, bool]] = [
    ("large-file-two-cpus", 2, 0, True),
    ("one-cpu", 1, 0, False),
    ("small-file", 2, 10**9, False),
]


@pytest.mark.parametrize(("case", "cpus", "help_from", "forked"), WHEN, ids=[w[0] for w in WHEN])
def test_a_helper_only_when_it_pays(
    tmp_path: Path, here: list[int], monkeypatch: pytest.MonkeyPatch, case: str, cpus: int, help_from: int, forked: bool
) -> None:
    monkeypatch.setattr(_read, "_MAP_FROM", 0)
    monkeypatch.setattr(_helper, "HELP_FROM", help_from)
    monkeypatch.setattr(_helper, "usable_cpus", lambda: cpus)
    checked = validate_file(_written(tmp_path, _edited(lambda d: None, version=True)), F, helper=True)
    assert checked.ok
    assert here == ([] if forked else [8])


def test_without_asking_there_is_no_helper(tmp_path: Path, here: list[int], always: None) -> None:
    validate_file(_written(tmp_path, reference()), F)
    assert here == [8]


@pytest.mark.usefixtures("always")
def test_a_file_that_is_not_a_trace_ends_its_helper(tmp_path: Path, here: list[int]) -> None:
    running = _children()
    checked = validate_file(
        _written(tmp_path, b'{"trace_id": "x", "events": [], "edges": []' + b" " * 64), F, helper=True
    )
    assert [p.message for p in checked.problems] == ["not valid JSON: Expecting ',' delimiter"]
    assert _children() - running == set()


def test_usable_cpus_counts_this_process_s_cpus() -> None:
    assert _helper.usable_cpus() == len(os.sched_getaffinity(0))


# -- A large trace through the command line ----------------------------------------------------


@pytest.fixture(scope="module")
def large(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A generated trace above the helper's threshold, in the original format, with broken edges."""
    doc = json.loads(original(swarm(40, 600)))
    ids = [e["id"] for e in doc["events"]]
    doc["edges"] += [
        {"src": ids[10], "dst": "nowhere", "type": "temporal"},
        {"src": ids[-1], "dst": ids[1], "type": "temporal"},
    ]
    doc["events"][-2]["id"] = ids[-3]
    path = tmp_path_factory.mktemp("large") / "large.json"
    path.write_bytes(json.dumps(doc).encode())
    assert path.stat().st_size > _helper.HELP_FROM
    return path


def test_a_large_trace_through_the_command_line(large: Path) -> None:
    run = subprocess.run(
        [sys.executable, "-m", "masrl", "trace", "validate", str(large)], capture_output=True, text=True, check=False
    )
    alone = validate_file(large, str(large))
    assert run.stdout.splitlines() == [str(p) for p in ordered(alone.problems + alone.warnings)]
    assert run.stdout.splitlines() == [
        f"{large}: {line}"
        for line in [
            "/edges/48079/dst: edge dst 'e2405' is not the id of any event; src and dst must name events in /events",
            "/edges/48081/src: edge src 'e2405' is not the id of any event; src and dst must name events in /events",
            "/edges/48120/dst: edge dst 'nowhere' is not the id of any event; src and dst must name events in /events",
            "/edges/48121: warning: edge 'e48082' -> 'e2' goes back in time, from t=2692.576 to t=3.533; "
            "an edge must not end before it starts (dst.t >= src.t)",
            "/edges/48121: warning: edges form a cycle: 'e2' -> 'e3' -> 'e4' -> 'e5' -> 'e6' -> 'e7' -> 'e8' -> 'e9' "
            "-> 'e10' -> 'e11' -> 'e12' -> 'e13' -> ... -> 'e2'; the event graph must be acyclic",
            "/events/48080/id: event id 'e2404' is already used by /events/48079; event ids must be unique",
        ]
    ]
    assert run.stderr == "4 errors, 2 warnings in 1 file\n"
    assert run.returncode == 1
