"""``venue_checks.csv``: the checks of a record's venue of record that a person made, and what
each found.

A record citing arXiv may have a published version; finding it means reading proceedings and
indexes. A venue move is written in the record itself (its ``venue`` and a ``changes`` entry
naming the source), but a check that found nothing leaves no trace there, so the next reader
could not tell a record looked up last week from one never looked up. Each row here says that
the record *key* was compared on *date* with the sources *against* names, and what came of it:

- ``none``: no published version was found in those sources;
- ``moved``: a published version was found and the record now cites it;
- ``non-archival``: the paper appeared only where nothing is published (a workshop without
  proceedings), so the record keeps its preprint venue.

``masrl refresh --stale`` shows each record's last check, and ``--unchecked-days`` leaves out
those checked recently; ``masrl validate`` checks every row against the records.
"""

from __future__ import annotations

import csv
import datetime as dt
import io
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from masrl.base._problems import Problem, did_you_mean
from masrl.corpus._records import Paper
from masrl.corpus._venues import Venues

CHECKS_FILE = "venue_checks.csv"
COLUMNS = ("key", "date", "outcome", "against")
OUTCOMES = ("none", "moved", "non-archival")


@dataclass(frozen=True)
class Check:
    """One row: *key* was compared on *date* with the sources *against* names."""

    key: str
    date: str  # YYYY-MM-DD
    outcome: str  # one of OUTCOMES
    against: str
    line: int


def parse_checks(text: str, shown: str = CHECKS_FILE) -> tuple[list[Check], list[Problem]]:
    """The rows of *text* (the CSV of :data:`CHECKS_FILE`) and a problem for every bad row;
    the rows' own checks only (see :func:`check_problems` for those against the records)."""
    rows: list[Check] = []
    problems: list[Problem] = []
    reader = csv.reader(io.StringIO(text, newline=""), strict=True)
    try:
        header = next(reader)
    except csv.Error as exc:
        return rows, [Problem(shown, 1, 1, "", f"not CSV: {exc}")]
    except StopIteration:
        return rows, [Problem(shown, 1, 1, "", f"the header must be {','.join(COLUMNS)}; the file is empty")]
    if tuple(header) != COLUMNS:
        return rows, [Problem(shown, 1, 1, "", f"the header must be {','.join(COLUMNS)}, not {','.join(header)}")]
    seen: dict[tuple[str, str], int] = {}

    def bad(line: int, name: str, message: str) -> None:
        problems.append(Problem(shown, line, COLUMNS.index(name) + 1, name, message))

    while True:
        try:
            row = next(reader)
        except StopIteration:
            break
        except csv.Error as exc:
            problems.append(Problem(shown, reader.line_num, 1, "", f"not CSV: {exc}"))
            break
        line = reader.line_num
        if len(row) != len(COLUMNS):
            if any(row):
                problems.append(Problem(shown, line, 1, "", f"a row must have {len(COLUMNS)} fields, not {len(row)}"))
            continue
        key, date, outcome, against = row
        ok = True
        if not key.strip():
            bad(line, "key", "key must name a paper of papers/, not be empty")
            ok = False
        try:
            dt.date.fromisoformat(date)
            if len(date) != 10:
                raise ValueError(date)
        except ValueError:
            bad(line, "date", f"date must be a real date written YYYY-MM-DD, not {date!r}")
            ok = False
        if outcome not in OUTCOMES:
            bad(
                line,
                "outcome",
                f"outcome must be one of {', '.join(OUTCOMES)}, not {outcome!r}" + did_you_mean(outcome, OUTCOMES),
            )
            ok = False
        if not against.strip():
            bad(line, "against", "against must name the proceedings, lists or indexes the record was compared with")
            ok = False
        elif "\n" in against or "\r" in against:
            bad(line, "against", "against must be one line")
            ok = False
        first = seen.setdefault((key, date), line)
        if first != line:
            bad(line, "key", f"{key} already has a check dated {date}, on line {first}")
            ok = False
        if ok:
            rows.append(Check(key, date, outcome, against, line))
    return rows, problems


def read_checks(root: Path) -> tuple[list[Check], list[Problem]]:
    path = root / CHECKS_FILE
    if not path.is_file():
        return [], []
    try:
        text = path.read_text("utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        return [], [Problem(CHECKS_FILE, 1, 1, "", f"cannot be read as UTF-8 text: {exc}")]
    return parse_checks(text)


def check_problems(
    checks: Sequence[Check], papers: Iterable[Paper], venues: Venues | None, today: str, shown: str = CHECKS_FILE
) -> list[Problem]:
    """The rows that disagree with the records: an unknown key, a date after *today*, ``moved``
    on a record that still cites a preprint, and ``none`` or ``non-archival`` on a published
    record that no later ``changes`` entry moved."""
    from masrl.living._facts import unpublished

    by_key = {p.key: p for p in papers}
    keys = sorted(by_key)
    out: list[Problem] = []
    for c in checks:

        def bad(name: str, message: str, c: Check = c) -> None:
            out.append(Problem(shown, c.line, COLUMNS.index(name) + 1, name, message))

        paper = by_key.get(c.key)
        if paper is None:
            bad("key", f"no paper with key {c.key!r} in papers/" + did_you_mean(c.key, keys))
            continue
        if c.date > today:
            bad("date", f"date {c.date} is after today ({today})")
        on_preprint = unpublished(paper, venues)
        if c.outcome == "moved" and on_preprint:
            bad(
                "outcome",
                f"says the venue was moved, but {paper.path} still cites {paper.venue!r}; "
                "move it (venue and a changes entry naming the source) or write none",
            )
        if c.outcome != "moved" and not on_preprint and not any(ch.date >= c.date for ch in paper.changes):
            bad(
                "outcome",
                f"says {c.outcome}, but {paper.path} cites {paper.venue!r} and no changes entry dated "
                f"{c.date} or later moved it; write moved",
            )
    return out


def latest(checks: Iterable[Check]) -> Mapping[str, Check]:
    """Each record's last check."""
    out: dict[str, Check] = {}
    for c in checks:
        if c.key not in out or c.date > out[c.key].date:
            out[c.key] = c
    return out


def dump_checks(rows: Sequence[Check]) -> str:
    """The CSV text of *rows*, sorted by key and date."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(COLUMNS)
    for r in sorted(rows, key=lambda r: (r.key, r.date)):
        writer.writerow((r.key, r.date, r.outcome, r.against))
    return out.getvalue()
