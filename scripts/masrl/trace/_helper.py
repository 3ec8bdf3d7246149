"""Rules 1 to 4 of a large trace, checked in a forked helper process while this one decodes it.

Validating a large trace spends about half its time on two things that need little of the trace:
decoding every event in full (for the event rules), and looking up both ends of every edge by id
(for the edge rules, 1 to 4 in :mod:`._graph`). The edge rules need only each event's id and time
and each edge's ends, which a much smaller decode gives. So on a machine with two or more CPUs the
command forks a helper as soon as the file is mapped: the helper decodes just those fields and
checks the edge rules, while this process decodes the whole trace and checks the event rules.

The helper only saves time; it never changes an answer. Its findings are used only when this
process's own decode succeeded, and whenever it cannot give them (no ``fork``, one CPU, a small
file, the helper failing or being killed) :func:`._graph.check` finds them itself, the same way.

Only the command line uses the helper: a library caller may run threads, which forking does not
carry over.
"""

from __future__ import annotations

import contextlib
import mmap
import os
import signal
from typing import Any

import msgspec

from masrl.trace._graph import EdgeFindings, edge_rules
from masrl.trace._read import BOM

HELP_FROM = 8 * 1024 * 1024  # from about this size a helper pays for its fork (measured: 6 MB even, 12 MB 15% sooner)


class _Event(msgspec.Struct, gc=False):
    """What the edge rules read of an event; other keys are skipped unread."""

    id: str
    t: float


class _Edge(msgspec.Struct, gc=False):
    """What the edge rules read of an edge."""

    src: str
    dst: str


class _Ends(msgspec.Struct, gc=False):
    """What the edge rules read of a trace."""

    events: list[_Event]
    edges: list[_Edge]


def usable_cpus() -> int:
    """CPUs this process may run on."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1  # pragma: no cover - every Linux has sched_getaffinity


class EdgeHelper:
    """A forked process checking the edge rules of one trace; see the module docstring.

    :meth:`start` forks it (or does nothing when it would not pay), :meth:`result` collects its
    findings, :meth:`close` ends it whatever state it is in. Use it as a context manager.
    """

    def __init__(self) -> None:
        self._pid: int | None = None
        self._read: int | None = None

    def __enter__(self) -> EdgeHelper:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def start(self, raw: bytes | mmap.mmap) -> None:
        """Fork the helper on the bytes of a trace, when the file is large and a second CPU is free."""
        if self._pid is not None or len(raw) < HELP_FROM or not hasattr(os, "fork") or usable_cpus() < 2:
            return
        read, write = os.pipe()
        pid = os.fork()
        if pid == 0:  # pragma: no cover - runs in the helper, which coverage does not follow
            os.close(read)
            _serve(raw, write)
        os.close(write)
        self._pid, self._read = pid, read

    def result(self) -> EdgeFindings | None:
        """The helper's findings, or None when there is no helper or it failed (the caller checks instead)."""
        if self._pid is None or self._read is None:
            return None
        with os.fdopen(self._read, "rb") as pipe:
            self._read = None
            message = pipe.read()  # to the end: the helper closes its side when it exits
        if self._reap() != 0 or not message:
            return None
        try:
            findings: EdgeFindings = msgspec.msgpack.decode(message, type=EdgeFindings)
        except msgspec.DecodeError:  # not a whole message of findings
            return None
        return findings

    def close(self) -> None:
        """End the helper if it still runs, and release its pipe."""
        if self._read is not None:
            os.close(self._read)
            self._read = None
        if self._pid is not None:
            with contextlib.suppress(ProcessLookupError):  # it may have ended already
                os.kill(self._pid, signal.SIGKILL)
            self._reap()

    def _reap(self) -> int:
        pid, self._pid = self._pid, None
        assert pid is not None
        _, status = os.waitpid(pid, 0)
        return os.waitstatus_to_exitcode(status)


def _serve(raw: Any, write: int) -> None:  # pragma: no cover - runs in the helper
    """The helper's whole life: decode the ends, check the edge rules, send the findings, exit."""
    code = 1
    try:
        view = memoryview(raw)
        if view[: len(BOM)] == BOM:
            view = view[len(BOM) :]
        ends = msgspec.json.decode(view, type=_Ends)
        view.release()
        if isinstance(raw, mmap.mmap):  # every string is copied out: the file's pages can go
            raw.close()
        ids, ts = [e.id for e in ends.events], [e.t for e in ends.events]
        ends.events = []
        findings = edge_rules(ids, ts, ends.edges)
        message = msgspec.msgpack.encode(findings)
        with os.fdopen(write, "wb") as pipe:
            pipe.write(message)
        code = 0
    except BaseException:  # any failure only means the caller checks the edges itself
        pass
    finally:
        os._exit(code)
