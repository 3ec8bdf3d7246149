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
import re
from collections import Counter, defaultdict
from collections.abc import Collection, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

import msgspec

from masrl.base._problems import Problem, did_you_mean
from masrl.corpus._records import Corpus, Paper
from masrl.living._estimate import Estimate, EstimateError, estimate
from masrl.living._protocol import Protocol, Round

FOUND_BY_FILE = "screening/found_by.csv"
COLUMNS = ("candidate", "round", "arm", "via", "detail", "date")
PRIOR = "prior"  # the source that stands for the corpus as it was before the round


class Sighting(NamedTuple):
    """One way one candidate was found (a named tuple: the ledger holds tens of thousands)."""

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
    arm_set, round_set = set(arms), set(rounds)
    good_dates: set[str] = set()
    seen: dict[tuple[str, ...], int] = {}
    width = len(COLUMNS)

    def bad(line: int, name: str, message: str) -> None:
        problems.append(Problem(shown, line, COLUMNS.index(name) + 1, name, message))

    for row in reader:
        line = reader.line_num
        if len(row) != width:
            if any(row):
                problems.append(Problem(shown, line, 1, "", f"a row must have {width} fields, not {len(row)}"))
            continue
        candidate, round_id, arm, via, detail, date = row
        if not candidate or not via:
            for name, value in (("candidate", candidate), ("via", via)):
                if not value.strip():
                    bad(line, name, f"{name} must not be empty")
        if arm not in arm_set:
            shown_arms = ", ".join(arms) or "(none: protocol.yaml lists no arms)"
            bad(line, "arm", f"arm must be one of {shown_arms}, not {arm!r}" + did_you_mean(arm, arms))
        if round_id not in round_set:
            shown_rounds = ", ".join(rounds) or "none in protocol.yaml"
            bad(
                line,
                "round",
                f"round must be a round run by arms ({shown_rounds}), not {round_id!r}"
                + did_you_mean(round_id, rounds),
            )
        if date not in good_dates:
            try:
                dt.date.fromisoformat(date)
                good_dates.add(date)
            except ValueError:
                bad(line, "date", f"date must be a real date written YYYY-MM-DD, not {date!r}")
        key = (candidate, round_id, arm, via, detail)
        first = seen.setdefault(key, line)
        if first != line:
            bad(line, "candidate", f"the same sighting is already on line {first}")
        rows.append(Sighting(candidate, round_id, arm, via, detail, date, line))
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
# The register of a round's candidates

CANDIDATES_FILE = "screening/candidates.csv"
REGISTER_COLUMNS = ("round", "candidate", "title", "first", "abstract", "rank", "score")


class Registered(NamedTuple):
    """One distinct candidate of a round that the corpus did not hold before it: when it first
    appeared (YYYY-MM, empty if unknown), where the text it was ranked on was read (empty: nothing
    could be read, so it waits), and its place in the round's ranking (None: not ranked)."""

    round: str
    candidate: str
    title: str
    first: str
    abstract: str
    rank: int | None
    score: float | None
    line: int = 0


def parse_register(text: str, shown: str, protocol: Protocol) -> tuple[list[Registered], list[Problem]]:
    """The rows of :data:`CANDIDATES_FILE` and a problem for every bad one: a round run by arms, a
    month, ranks that are whole numbers from 1 without gaps or repeats within a round, a score
    between 0 and 1, each candidate once per round."""
    rows: list[Registered] = []
    problems: list[Problem] = []
    reader = csv.reader(io.StringIO(text))
    try:
        header = next(reader)
    except StopIteration:
        return rows, [Problem(shown, 1, 1, "", f"the header must be {','.join(REGISTER_COLUMNS)}; the file is empty")]
    if tuple(header) != REGISTER_COLUMNS:
        message = f"the header must be {','.join(REGISTER_COLUMNS)}, not {','.join(header)}"
        return rows, [Problem(shown, 1, 1, "", message)]
    rounds = [r.id for r in protocol.rounds if r.by_arms]
    seen: dict[tuple[str, str], int] = {}
    ranks: dict[str, dict[int, int]] = defaultdict(dict)
    for row in reader:
        line = reader.line_num
        if not any(row):
            continue
        if len(row) != len(REGISTER_COLUMNS):
            problems.append(
                Problem(shown, line, 1, "", f"a row must have {len(REGISTER_COLUMNS)} fields, not {len(row)}")
            )
            continue
        round_id, candidate, title, first, abstract, rank_text, score_text = (x.strip() for x in row)

        def bad(name: str, message: str, line: int = line) -> None:
            problems.append(Problem(shown, line, REGISTER_COLUMNS.index(name) + 1, name, message))

        if round_id not in rounds:
            bad(
                "round",
                f"round must be a round run by arms ({', '.join(rounds) or 'none in protocol.yaml'}), not {round_id!r}",
            )
        if not candidate:
            bad("candidate", "candidate must not be empty")
        if first and not re.match(r"^[0-9]{4}-(0[1-9]|1[0-2])$", first):
            bad("first", f"first must be a month written YYYY-MM, or empty when unknown, not {first!r}")
        rank: int | None = None
        if rank_text:
            if not rank_text.isdigit() or int(rank_text) < 1:
                bad("rank", f"rank must be a whole number from 1, or empty when not ranked, not {rank_text!r}")
            else:
                rank = int(rank_text)
                if rank in ranks[round_id]:
                    bad("rank", f"rank {rank} is already given on line {ranks[round_id][rank]}")
                else:
                    ranks[round_id][rank] = line
                if not abstract:
                    bad("abstract", "a ranked candidate says where the text it was ranked on was read")
        score: float | None = None
        if score_text:
            try:
                score = float(score_text)
            except ValueError:
                score = -1.0
            if not 0 <= score <= 1:
                bad("score", f"score must be a number from 0 to 1, not {score_text!r}")
        if (rank is None) != (score is None) and (rank is not None or not rank_text):
            bad("score", "a ranked candidate has a score, and a score goes with a rank")
        key = (round_id, candidate)
        if key in seen:
            bad("candidate", f"candidate {candidate!r} is already registered for round {round_id} on line {seen[key]}")
        else:
            seen[key] = line
        rows.append(Registered(round_id, candidate, title, first, abstract, rank, score, line))
    for round_id, given in ranks.items():
        missing = sorted(set(range(1, len(given) + 1)) - set(given))
        if missing:
            problems.append(
                Problem(
                    shown,
                    1,
                    1,
                    "rank",
                    f"round {round_id}'s ranks must run 1 to {len(given)} without gaps; missing {missing[0]}",
                )
            )
    return rows, problems


def read_register(root: Path, protocol: Protocol) -> tuple[list[Registered], list[Problem]]:
    path = root / CANDIDATES_FILE
    if not path.is_file():
        return [], []
    return parse_register(path.read_text("utf-8"), CANDIDATES_FILE, protocol)


def dump_register(rows: Sequence[Registered]) -> str:
    """The CSV text of *rows*: by round, ranked ones first in rank order, then the rest by name."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(REGISTER_COLUMNS)
    for r in sorted(rows, key=lambda r: (r.round, r.rank is None, r.rank or 0, r.candidate)):
        score = "" if r.score is None else f"{r.score:.4f}"
        writer.writerow([r.round, r.candidate, r.title, r.first, r.abstract, r.rank or "", score])
    return out.getvalue()


# ---------------------------------------------------------------------------------------------
# Candidates and records


@dataclass(frozen=True)
class Candidate:
    """What a sighting's candidate is: a queue entry's decision, a record of the corpus, or a
    registered candidate with no queue file (not screened)."""

    name: str
    status: str  # included, excluded, pending (a queue file waits), unscreened (registered only)
    record: str | None  # the paper key or exclusion id it became
    round: str | None  # the round whose candidate it is (None: a record from before any arms)
    rank: int | None = None
    first: str = ""
    abstract: bool = True


def resolve(queue: Sequence[Any], corpus: Corpus, register: Sequence[Registered] = ()) -> dict[str, Candidate]:
    """Every name a sighting may give, mapped to what it is: paper keys, exclusion ids, queue ids
    and registered candidates (a queue file's decision wins over its register row)."""
    out: dict[str, Candidate] = {}
    for p in corpus.papers:
        out[p.key] = Candidate(p.key, "included", p.key, p.round)
    for e in corpus.exclusions:
        out[e.id] = Candidate(e.id, "excluded", e.id, e.round)
    registered = {r.candidate: r for r in register}
    for r in register:
        out[r.candidate] = Candidate(r.candidate, "unscreened", None, r.round, r.rank, r.first, bool(r.abstract))
    for entry in queue:
        data = entry.data
        decision = data.get("decision") or {}
        record = decision.get("key") or decision.get("exclusion")
        reg = registered.get(entry.id)
        out[entry.id] = Candidate(
            entry.id,
            entry.status,
            record,
            data.get("round"),
            reg.rank if reg else None,
            reg.first if reg else "",
            bool(str(data.get("abstract") or "").strip()) or bool(reg and reg.abstract),
        )
    return out


def found_by_problems(
    sightings: Sequence[Sighting], names: Collection[str], shown: str = FOUND_BY_FILE
) -> Iterator[Problem]:
    """Each sighting names a queue entry, a record or a registered candidate (one of *names*)."""
    for s in sightings:
        if s.candidate not in names:
            yield Problem(
                shown,
                s.line,
                1,
                "candidate",
                f"candidate {s.candidate!r} names no file in screening/, no record in papers/ or exclusions/ "
                f"and no row of {CANDIDATES_FILE}",
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


def _before_window(c: Candidate, round_: Round) -> bool:
    """Whether *c* was first out before *round_*'s window: no candidate of the round's population."""
    return bool(c.first) and c.first < round_.start[:7]


def _fate(c: Candidate | None, round_: Round) -> str:
    """What became of a sighted candidate in *round_*: known (a record or candidate of the corpus
    before the round), outside (first out before the round's window), included, excluded, waiting
    (a queue file with no decision yet), unscreened (ranked on its abstract, below where screening
    stopped), awaiting (no abstract could be read: it waits), or unknown (names nothing)."""
    if c is None:
        return "unknown"
    if c.round != round_.id:
        return "known"
    if _before_window(c, round_):
        return "outside"
    if c.status in ("included", "excluded"):
        return c.status
    if c.status == "pending":
        return "waiting"
    return "unscreened" if c.abstract and c.rank is not None else "awaiting"


FATES = ("known", "outside", "included", "excluded", "waiting", "unscreened", "awaiting", "unknown")


def arm_flow(
    protocol: Protocol, round_: Round, sightings: Sequence[Sighting], candidates: dict[str, Candidate]
) -> dict[str, Any]:
    """What each arm identified, and what became of the round's distinct candidates.

    ``identified``: per arm, the distinct candidates it found (an arm's rows name a candidate once
    however many queries or lists found it) and its rows; per arm and in all, how many of each
    fate (:func:`_fate`); ``overlap``: the candidates found by each combination of arms.
    """
    rows = [s for s in sightings if s.round == round_.id]
    by_arm: dict[str, set[str]] = {a.id: set() for a in protocol.arms}
    row_counts: Counter[str] = Counter()
    for s in rows:
        by_arm.setdefault(s.arm, set()).add(s.candidate)
        row_counts[s.arm] += 1
    distinct = sorted(set().union(*by_arm.values())) if by_arm else []
    fate = {name: _fate(candidates.get(name), round_) for name in distinct}
    overlap: Counter[str] = Counter()
    for name in distinct:
        overlap["+".join(a for a in by_arm if name in by_arm[a])] += 1
    totals = Counter(fate.values())
    return {
        "identified": {
            a.id: {
                "label": a.label,
                "prisma": a.prisma,
                "candidates": len(by_arm.get(a.id, ())),
                "rows": row_counts[a.id],
                **{f: sum(1 for n in by_arm.get(a.id, ()) if fate[n] == f) for f in FATES},
            }
            for a in protocol.arms
        },
        "distinct": len(distinct),
        **{f: totals[f] for f in FATES},
        "screened": totals["included"] + totals["excluded"],
        "overlap": dict(sorted(overlap.items())),
    }


def stopping_status(
    protocol: Protocol, round_: Round, candidates: dict[str, Candidate], est: Estimate | None
) -> dict[str, Any]:
    """Whether each criterion of the stopping rule holds for *round_*.

    Ranked screening: the round's registered candidates carry ``rank`` (1 = most likely included,
    ranked on their title and abstract) and are screened in that order; the *window* decided last
    (the deepest ranks decided) may hold at most *max_includes* includes, and no ranked candidate
    may be left unread above the deepest one decided (one read and left waiting for its abstract
    is not skipped).
    """
    rule = protocol.stopping
    if rule is None:
        return {"applies": False}
    ranked = sorted(
        (c for c in candidates.values() if c.rank is not None and c.round == round_.id), key=lambda c: c.rank or 0
    )
    decided = [c for c in ranked if c.status in ("included", "excluded")]
    last = decided[-rule.window :]
    includes = sum(1 for c in last if c.status == "included")
    deepest = decided[-1].rank or 0 if decided else 0
    # A candidate read but left undecided (its queue file waits for an abstract) was not skipped,
    # nor one first out before the round's window (it is no candidate of the round's population);
    # one never put to a reader, above the deepest decision, was.
    skipped = [
        c.name for c in ranked if c.status == "unscreened" and (c.rank or 0) < deepest and not _before_window(c, round_)
    ]
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
            "deepest_rank": deepest,
            "ranked": len(ranked),
            "skipped": skipped,
            "holds": window_holds,
        },
        "closes": bound_holds and window_holds,
    }


# ---------------------------------------------------------------------------------------------
# Everything of the rounds run by arms, as one JSON-serialisable document


def arms_report(root: Path, protocol: Protocol, corpus: Corpus) -> tuple[dict[str, Any], list[Problem]]:
    """Per round run by arms: its flow per arm, its estimate (or why there is none) and its
    stopping rule; and the problems of ``screening/found_by.csv`` and ``screening/candidates.csv``."""
    from masrl.living._queue import read_queue

    sightings, problems = read_found_by(root, protocol)
    register, more = read_register(root, protocol)
    problems.extend(more)
    queue, unreadable = read_queue(root)
    problems.extend(unreadable)  # a queue file that cannot be read would count as never screened
    candidates = resolve(queue, corpus, register)
    problems.extend(found_by_problems(sightings, candidates.keys()))
    out: dict[str, Any] = {}
    for round_ in protocol.rounds:
        if not round_.by_arms:
            continue
        try:
            est: Estimate | None = round_estimate(protocol, round_, sightings, candidates, corpus)
            estimated: dict[str, Any] = est.as_json() if est is not None else {}
        except EstimateError as exc:
            est, estimated = None, {"error": str(exc)}
        out[round_.id] = {
            "label": round_.label,
            "flow": arm_flow(protocol, round_, sightings, candidates),
            "estimate": estimated,
            "stopping": stopping_status(protocol, round_, candidates, est),
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


LEDGER_CACHE = ".masrl-cache/ledgers.msgpack"
LEDGER_CACHE_FORMAT = 1


class _LedgerCheck(msgspec.Struct, frozen=True):
    """What the checks of the two ledgers found that depends only on their bytes and the
    protocol: the problems of their rows, and the distinct candidates the sightings name."""

    key: str
    problems: tuple[Problem, ...]
    named: tuple[tuple[str, int], ...]  # (candidate, the first line of found_by.csv naming it)
    registered: tuple[str, ...]  # the candidates of candidates.csv


def _ledger_key(root: Path) -> str | None:
    """The cache key of the ledgers' check: the stat of both files and of protocol.yaml and the
    package's version of this module; None when a file changed within the last two seconds (it
    could change again without its size or time moving) or the cache is switched off."""
    import hashlib
    import time

    from masrl.base._settings import caching_off

    if caching_off():
        return None
    parts = [str(LEDGER_CACHE_FORMAT), Path(__file__).read_text("utf-8")]
    now = time.time_ns()
    for name in (FOUND_BY_FILE, CANDIDATES_FILE, "protocol.yaml"):
        try:
            st = (root / name).stat()
        except OSError:
            parts.append(f"{name} missing")
            continue
        if now - st.st_mtime_ns < 2_000_000_000:
            return None
        parts.append(f"{name} {st.st_size} {st.st_mtime_ns}")
    return hashlib.blake2b("\n".join(parts).encode("utf-8", "surrogateescape"), digest_size=16).hexdigest()


def _checked_ledgers(root: Path, protocol: Protocol) -> tuple[list[Problem], dict[str, int], set[str]]:
    """The problems of the ledgers' rows and the candidates they name, from the cache when the
    files are unchanged (a run that finds an error caches nothing)."""
    key = _ledger_key(root)
    cache = root / LEDGER_CACHE
    if key is not None:
        try:
            hit = msgspec.msgpack.decode(cache.read_bytes(), type=_LedgerCheck)
            if hit.key == key:
                return list(hit.problems), dict(hit.named), set(hit.registered)
        except (OSError, msgspec.DecodeError, msgspec.ValidationError):
            pass
    sightings, problems = read_found_by(root, protocol)
    register, more = read_register(root, protocol)
    problems.extend(more)
    named: dict[str, int] = {}
    for s in sightings:
        named.setdefault(s.candidate, s.line)
    registered = {r.candidate for r in register}
    if key is not None and not any(p.is_error for p in problems):
        try:
            cache.parent.mkdir(exist_ok=True)
            check = _LedgerCheck(key, tuple(problems), tuple(named.items()), tuple(sorted(registered)))
            cache.write_bytes(msgspec.msgpack.encode(check))
        except OSError:
            pass
    return problems, named, registered


def check_found_by(root: Path, protocol: Protocol, corpus: Corpus) -> list[Problem]:
    """The problems of ``screening/found_by.csv`` and ``screening/candidates.csv``, for ``masrl
    validate``: every row well formed, and every sighting naming a file of ``screening/`` (by its
    name alone, so no queue file is parsed), a record or a registered candidate. The rows' own
    checks are kept in ``.masrl-cache/`` while the files stay unchanged."""
    problems, named, registered = _checked_ledgers(root, protocol)
    if not named:
        return problems
    names = {p.stem for p in (root / "screening").glob("*.yaml")} | registered
    names.update(p.key for p in corpus.papers)
    names.update(e.id for e in corpus.exclusions)
    for name, line in named.items():
        if name not in names:
            problems.append(
                Problem(
                    FOUND_BY_FILE,
                    line,
                    1,
                    "candidate",
                    f"candidate {name!r} names no file in screening/, no record in papers/ or exclusions/ "
                    f"and no row of {CANDIDATES_FILE}",
                )
            )
    return problems
