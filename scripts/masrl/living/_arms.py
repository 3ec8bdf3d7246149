"""The search arms of a round: who found what, the PRISMA flow per arm, the estimate and the stopping rule.

A round run by the protocol's arms (``population:`` set in ``protocol.yaml``) records every
sighting of a candidate, one row each, in ``screening/found_by.csv``:

    candidate,round,arm,via,detail,date
    2508.04652,field-search,search,self_play 2025-08,"abs:""self-play"" AND ...",2026-12-02
    2508.04652,field-search,lists,owner/awesome-list,README.md:120 (Multi-agent RL),2026-12-02

``candidate`` is a queue id (``screening/<id>.yaml``), or a paper key or exclusion id for a record
the corpus held before any queue file; ``arm`` an arm of the protocol; ``via`` the query and month,
the list or the seed paper; ``detail`` where exactly (a line, a reference). One row per way found,
so the overlap between arms is data: :func:`histories` turns it into capture histories of the
round's population of retained papers, with the corpus as it stood before the round as one more
source, and :mod:`masrl.living._estimate` estimates how many such papers exist.
"""

from __future__ import annotations

import csv
import datetime as dt
import io
from collections import Counter, defaultdict
from collections.abc import Collection, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from masrl.base._problems import Problem, did_you_mean
from masrl.corpus._records import Corpus, Paper
from masrl.living._estimate import Estimate, EstimateError, estimate
from masrl.living._protocol import Protocol, Round

FOUND_BY_FILE = "screening/found_by.csv"
COLUMNS = ("candidate", "round", "arm", "via", "detail", "date")
PRIOR = "prior"  # the source that stands for the corpus as it was before the round


@dataclass(frozen=True)
class Sighting:
    """One way one candidate was found."""

    candidate: str
    round: str
    arm: str
    via: str
    detail: str
    date: str
    line: int = 0


def parse_found_by(text: str, shown: str, protocol: Protocol) -> tuple[list[Sighting], list[Problem]]:
    """The sightings of *text* (the CSV of :data:`FOUND_BY_FILE`) and a problem for every bad row."""
    rows: list[Sighting] = []
    problems: list[Problem] = []
    reader = csv.reader(io.StringIO(text))
    try:
        header = next(reader)
    except StopIteration:
        return rows, [Problem(shown, 1, 1, "", f"the header must be {','.join(COLUMNS)}; the file is empty")]
    if tuple(header) != COLUMNS:
        return rows, [Problem(shown, 1, 1, "", f"the header must be {','.join(COLUMNS)}, not {','.join(header)}")]
    arms = [a.id for a in protocol.arms]
    rounds = [r.id for r in protocol.rounds if r.by_arms]
    seen: dict[tuple[str, ...], int] = {}
    for row in reader:
        line = reader.line_num
        if not any(row):
            continue
        if len(row) != len(COLUMNS):
            problems.append(Problem(shown, line, 1, "", f"a row must have {len(COLUMNS)} fields, not {len(row)}"))
            continue
        candidate, round_id, arm, via, detail, date = (x.strip() for x in row)
        s = Sighting(candidate, round_id, arm, via, detail, date, line)

        def bad(name: str, message: str, line: int = line) -> None:
            problems.append(Problem(shown, line, COLUMNS.index(name) + 1, name, message))

        for name in ("candidate", "via"):
            if not getattr(s, name):
                bad(name, f"{name} must not be empty")
        if s.arm not in arms:
            bad(
                "arm",
                f"arm must be one of {', '.join(arms) or '(none: protocol.yaml lists no arms)'}, not {s.arm!r}"
                + did_you_mean(s.arm, arms),
            )
        if s.round not in rounds:
            bad(
                "round",
                f"round must be a round run by arms ({', '.join(rounds) or 'none in protocol.yaml'}), not {s.round!r}"
                + did_you_mean(s.round, rounds),
            )
        try:
            dt.date.fromisoformat(s.date)
        except ValueError:
            bad("date", f"date must be a real date written YYYY-MM-DD, not {s.date!r}")
        key = (s.candidate, s.round, s.arm, s.via, s.detail)
        if key in seen:
            bad("candidate", f"the same sighting is already on line {seen[key]}")
        else:
            seen[key] = line
        rows.append(s)
    return rows, problems


def read_found_by(root: Path, protocol: Protocol) -> tuple[list[Sighting], list[Problem]]:
    path = root / FOUND_BY_FILE
    if not path.is_file():
        return [], []
    return parse_found_by(path.read_text("utf-8"), FOUND_BY_FILE, protocol)


def dump_found_by(rows: Sequence[Sighting]) -> str:
    """The CSV text of *rows*, sorted by round, candidate, arm, via and detail, one row each."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(COLUMNS)
    unique = {(s.round, s.candidate, s.arm, s.via, s.detail): s for s in rows}
    for key in sorted(unique):
        s = unique[key]
        writer.writerow([s.candidate, s.round, s.arm, s.via, s.detail, s.date])
    return out.getvalue()


# ---------------------------------------------------------------------------------------------
# Candidates and records


@dataclass(frozen=True)
class Candidate:
    """What a sighting's candidate is: a queue entry's decision, or a record of the corpus."""

    name: str
    status: str  # included, excluded, pending, or unknown (names nothing)
    record: str | None  # the paper key or exclusion id it became
    rank: int | None = None
    abstract: bool = True


def resolve(queue: Sequence[Any], corpus: Corpus) -> dict[str, Candidate]:
    """Every name a sighting may give, mapped to what it is: queue ids, paper keys, exclusion ids."""
    out: dict[str, Candidate] = {}
    for p in corpus.papers:
        out[p.key] = Candidate(p.key, "included", p.key)
    for e in corpus.exclusions:
        out[e.id] = Candidate(e.id, "excluded", e.id)
    for entry in queue:
        data = entry.data
        decision = data.get("decision") or {}
        record = decision.get("key") or decision.get("exclusion")
        rank = data.get("rank")
        out[entry.id] = Candidate(
            entry.id,
            entry.status,
            record,
            rank if isinstance(rank, int) else None,
            bool(str(data.get("abstract") or "").strip()),
        )
    return out


def found_by_problems(
    sightings: Sequence[Sighting], names: Collection[str], shown: str = FOUND_BY_FILE
) -> Iterator[Problem]:
    """Each sighting names a queue entry or a record (one of *names*)."""
    for s in sightings:
        if s.candidate not in names:
            yield Problem(
                shown,
                s.line,
                1,
                "candidate",
                f"candidate {s.candidate!r} names no file in screening/ and no record in papers/ or exclusions/",
            )


# ---------------------------------------------------------------------------------------------
# The round's population and its capture histories


def in_population(paper: Paper, round_: Round) -> bool:
    pop = round_.population
    if pop is None:
        return False
    return paper.category in pop.categories and paper.year >= int(pop.since[:4])


def _record_of(name: str, candidates: dict[str, Candidate]) -> str | None:
    c = candidates.get(name)
    return c.record if c is not None and c.status in ("included", "excluded") else None


def captures(
    round_: Round, sightings: Sequence[Sighting], candidates: dict[str, Candidate], corpus: Corpus
) -> dict[str, set[str]]:
    """For each paper of the round's population: the arms that found it in the round, and
    :data:`PRIOR` when the corpus held it before the round (it belongs to another round)."""
    arms_of: dict[str, set[str]] = defaultdict(set)
    for s in sightings:
        if s.round != round_.id:
            continue
        record = _record_of(s.candidate, candidates)
        if record is not None:
            arms_of[record].add(s.arm)
    out: dict[str, set[str]] = {}
    for p in corpus.papers:
        if not in_population(p, round_):
            continue
        found = set(arms_of.get(p.key, ()))
        if p.round != round_.id:
            found.add(PRIOR)
        out[p.key] = found
    return out


def sources_of(protocol: Protocol) -> tuple[str, ...]:
    """The capture sources of an estimate: every arm, then the corpus before the round."""
    return (*(a.id for a in protocol.arms), PRIOR)


def round_estimate(
    protocol: Protocol, round_: Round, sightings: Sequence[Sighting], candidates: dict[str, Candidate], corpus: Corpus
) -> Estimate:
    """The capture-recapture estimate of the round's population (:class:`EstimateError` if none)."""
    from masrl.living._estimate import histories

    caught = captures(round_, sightings, candidates, corpus)
    sources = list(sources_of(protocol))
    if not any(PRIOR in found for found in caught.values()):
        sources.remove(PRIOR)  # a first round has no corpus before it
    counts = histories(caught.values(), sources)
    if not counts:
        raise EstimateError(f"no retained paper of round {round_.id}'s population was found by its arms yet")
    return estimate(counts, sources)


# ---------------------------------------------------------------------------------------------
# The flow per arm (PRISMA 2020) and the stopping rule


def arm_flow(
    protocol: Protocol, round_: Round, sightings: Sequence[Sighting], candidates: dict[str, Candidate]
) -> dict[str, Any]:
    """What each arm identified, and what became of the round's distinct candidates.

    ``identified``: per arm, the distinct candidates it found (an arm's rows name a candidate once
    however many queries or lists found it) and the rows themselves; ``distinct``: candidates found
    by any arm; ``known``: of those, records the corpus held before the round (duplicates of
    earlier screening); ``screened``: the others decided in the round, ``included`` and
    ``excluded``; ``awaiting``: undecided with no abstract read yet; ``unscreened``: undecided with
    an abstract, below the point where ranked screening stopped. ``overlap`` counts the candidates
    found by each combination of arms.
    """
    rows = [s for s in sightings if s.round == round_.id]
    by_arm: dict[str, set[str]] = {a.id: set() for a in protocol.arms}
    row_counts: Counter[str] = Counter()
    for s in rows:
        by_arm.setdefault(s.arm, set()).add(s.candidate)
        row_counts[s.arm] += 1
    distinct = sorted(set().union(*by_arm.values())) if by_arm else []
    status: Counter[str] = Counter()
    for name in distinct:
        c = candidates.get(name)
        if c is None:
            status["unknown"] += 1
        elif name not in _queued_in(round_, candidates, name):
            status["known"] += 1
        elif c.status == "included":
            status["included"] += 1
        elif c.status == "excluded":
            status["excluded"] += 1
        elif c.abstract:
            status["unscreened"] += 1
        else:
            status["awaiting"] += 1
    overlap: Counter[str] = Counter()
    for name in distinct:
        combo = "+".join(a for a in by_arm if name in by_arm[a])
        overlap[combo] += 1
    return {
        "identified": {
            a.id: {
                "label": a.label,
                "prisma": a.prisma,
                "candidates": len(by_arm.get(a.id, ())),
                "rows": row_counts[a.id],
            }
            for a in protocol.arms
        },
        "distinct": len(distinct),
        "known": status["known"],
        "screened": status["included"] + status["excluded"],
        "included": status["included"],
        "excluded": status["excluded"],
        "awaiting": status["awaiting"],
        "unscreened": status["unscreened"],
        "unknown": status["unknown"],
        "overlap": dict(sorted(overlap.items())),
    }


def _queued_in(round_: Round, candidates: dict[str, Candidate], name: str) -> set[str]:
    """{name} when *name* is a candidate decided or waiting in *round_* (a queue entry of the
    round), else the empty set: a record of the corpus is a duplicate of earlier screening."""
    c = candidates[name]
    return {name} if c.rank is not None or c.status == "pending" else set()


def stopping_status(
    protocol: Protocol, round_: Round, candidates: dict[str, Candidate], est: Estimate | None
) -> dict[str, Any]:
    """Whether each criterion of the stopping rule holds for *round_*.

    Ranked screening: the round's candidates carry ``rank`` (1 = most likely included), and are
    screened in that order; the *window* screened last (the highest ranks decided) may hold at most
    *max_includes* includes, and no candidate with an abstract may wait above the last one decided.
    """
    rule = protocol.stopping
    if rule is None:
        return {"applies": False}
    ranked = sorted((c for c in candidates.values() if c.rank is not None), key=lambda c: c.rank or 0)
    decided = [c for c in ranked if c.status in ("included", "excluded")]
    last = decided[-rule.window :]
    includes = sum(1 for c in last if c.status == "included")
    deepest = decided[-1].rank if decided else 0
    skipped = [c.name for c in ranked if c.status == "pending" and c.abstract and (c.rank or 0) < (deepest or 0)]
    window_holds = len(last) == rule.window and includes <= rule.max_includes and not skipped
    bound = est.recall_low if est is not None else None
    bound_holds = bound is not None and bound >= rule.recall_lower_bound
    return {
        "applies": True,
        "recall_lower_bound": {"required": rule.recall_lower_bound, "value": bound, "holds": bound_holds},
        "last_screened": {
            "window": rule.window,
            "screened": len(last),
            "includes": includes,
            "max_includes": rule.max_includes,
            "skipped": skipped,
            "holds": window_holds,
        },
        "closes": bound_holds and window_holds,
    }


# ---------------------------------------------------------------------------------------------
# Everything of the rounds run by arms, as one JSON-serialisable document


def arms_report(root: Path, protocol: Protocol, corpus: Corpus) -> tuple[dict[str, Any], list[Problem]]:
    """Per round run by arms: its flow per arm, its estimate (or why there is none) and its
    stopping rule; and the problems of ``screening/found_by.csv``."""
    from masrl.living._queue import read_queue

    sightings, problems = read_found_by(root, protocol)
    queue, _ = read_queue(root)
    candidates = resolve(queue, corpus)
    problems.extend(found_by_problems(sightings, candidates.keys()))
    entry_round = {e.id: e.data.get("round") for e in queue}
    out: dict[str, Any] = {}
    for round_ in protocol.rounds:
        if not round_.by_arms:
            continue
        round_candidates = {
            name: c for name, c in candidates.items() if c.rank is not None and entry_round.get(name) == round_.id
        }
        try:
            est: Estimate | None = round_estimate(protocol, round_, sightings, candidates, corpus)
            estimated: dict[str, Any] = est.as_json()  # type: ignore[union-attr]
        except EstimateError as exc:
            est, estimated = None, {"error": str(exc)}
        out[round_.id] = {
            "label": round_.label,
            "flow": arm_flow(protocol, round_, sightings, candidates),
            "estimate": estimated,
            "stopping": stopping_status(protocol, round_, round_candidates, est),
            "searches": [
                {
                    "query_family": s.query_family,
                    "listing": s.listing,
                    "date": s.date,
                    "hits": s.total,
                    "months": len(s.hits),
                }
                for s in round_.searches
            ],
        }
    return out, problems


def check_found_by(root: Path, protocol: Protocol, corpus: Corpus) -> list[Problem]:
    """The problems of ``screening/found_by.csv``, for ``masrl validate``: every row well formed,
    and naming a file of ``screening/`` (by its name alone, so no queue file is parsed) or a record."""
    sightings, problems = read_found_by(root, protocol)
    if sightings:
        names = {p.stem for p in (root / "screening").glob("*.yaml")}
        names.update(p.key for p in corpus.papers)
        names.update(e.id for e in corpus.exclusions)
        problems.extend(found_by_problems(sightings, names))
    return problems
