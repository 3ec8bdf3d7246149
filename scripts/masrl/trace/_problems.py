"""Problems found in trace files, and how they are shown.

A trace problem names the file, the place in it and what is wrong and allowed:
``traces/run.json: /events/3/t: t must be a number, not the string '3'``. The place is a JSON
Pointer (RFC 6901) into the document, ``line L column C`` when the file is not JSON at all, or
``(trace)`` for the file as a whole. Traces are often written on one line, so a pointer says more
than a line number would. A warning (a rule the survey's original format did not have, broken by a
trace in that format) reads ``file: /pointer: warning: message``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

WHOLE_FILE = "(trace)"
_SHOW_MAX = 60  # characters of a value quoted in a message


@dataclass(frozen=True)
class TraceProblem:
    """One thing wrong with one place in one trace file."""

    path: str
    where: str
    message: str
    warning: bool = False

    def __str__(self) -> str:
        text = f"{self.path}: {self.where or WHOLE_FILE}: {'warning: ' if self.warning else ''}{self.message}"
        # A file name from the command line may hold undecodable bytes; print them escaped.
        return text.encode("utf-8", "backslashreplace").decode("utf-8")

    @property
    def sort_key(self) -> tuple[str, tuple[tuple[int, int | str], ...], str]:
        """File, then pointer with numeric steps compared as numbers (``/events/10`` after ``/events/9``)."""
        steps = tuple((0, int(s)) if s.isdigit() else (1, s) for s in self.where.split("/")[1:])
        return self.path, steps, self.message


def pointer(*steps: str | int) -> str:
    """The JSON Pointer for *steps*: ``pointer("events", 3, "t") == "/events/3/t"``."""
    return "".join("/" + str(s).replace("~", "~0").replace("/", "~1") for s in steps)


def show(value: object) -> str:
    """A value as a message quotes it: strings in quotes, JSON words for the rest, long ones cut."""
    if isinstance(value, str):
        text = repr(value)
    elif value is None:
        text = "null"
    elif isinstance(value, bool):
        text = "true" if value else "false"
    elif isinstance(value, (list, dict)):
        text = "an array" if isinstance(value, list) else "an object"
    else:
        text = str(value)
    return text if len(text) <= _SHOW_MAX else text[: _SHOW_MAX - 3] + "..."


def summary(problems: Sequence[TraceProblem], files: int, warnings: int = 0) -> str:
    """``2 errors in 1 file``: the last line of a report (with ``, 3 warnings`` when there are some)."""
    tail = f", {_plural(warnings, 'warning')}" if warnings else ""
    return f"{_plural(len(problems), 'error')}{tail} in {_plural(files, 'file')}"


def ordered(problems: Iterable[TraceProblem]) -> list[TraceProblem]:
    return sorted(set(problems), key=lambda p: p.sort_key)


def _plural(n: int, word: str) -> str:
    return f"{n:,} {word}" if n == 1 else f"{n:,} {word}s"
