"""Problems found in records, and the one way they are printed.

Every check in the package yields :class:`Problem` values; nothing prints or raises on bad input.
The CLI sorts them, prints ``path:line:column: field: message`` lines and a count, and turns the
presence of any error into exit code 1.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import StrEnum


class Severity(StrEnum):
    ERROR = "error"
    WARNING = "warning"


@dataclass(frozen=True, order=True)
class Problem:
    """One thing wrong with one place in one file."""

    path: str
    line: int
    column: int
    field: str
    message: str
    severity: Severity = Severity.ERROR

    def __str__(self) -> str:
        field = self.field or "(record)"
        flag = "warning: " if self.severity is Severity.WARNING else ""
        return f"{self.path}:{self.line}:{self.column}: {field}: {flag}{self.message}"

    @property
    def is_error(self) -> bool:
        return self.severity is Severity.ERROR


def summary_line(problems: Sequence[Problem], files: int) -> str:
    """``2 errors, 1 warning in 116 files`` — the last line of every report."""
    errors = sum(p.is_error for p in problems)
    warnings = len(problems) - errors
    parts = [_plural(errors, "error")]
    if warnings:
        parts.append(_plural(warnings, "warning"))
    return f"{', '.join(parts)} in {_plural(files, 'file')}"


def has_errors(problems: Iterable[Problem]) -> bool:
    return any(p.is_error for p in problems)


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def did_you_mean(value: str, allowed: Sequence[str]) -> str:
    """`` (did you mean 'hybrid'?)`` when *value* is close to one of *allowed*, else ``''``."""
    lowered = {a.lower(): a for a in allowed}
    if value.lower() in lowered:
        return f" (did you mean '{lowered[value.lower()]}'?)"
    close = difflib.get_close_matches(value, allowed, n=1, cutoff=0.6)
    return f" (did you mean '{close[0]}'?)" if close else ""


def one_of(allowed: Sequence[str]) -> str:
    """``'a', 'b' or 'c'`` for messages."""
    quoted = [f"'{a}'" for a in allowed]
    if len(quoted) == 1:
        return quoted[0]
    return ", ".join(quoted[:-1]) + " or " + quoted[-1]
