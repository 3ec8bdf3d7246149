"""``masrl screen``: decide queued candidates, one at a time or by id.

Including a candidate scaffolds its paper record as ``masrl add`` does (origin discovery, added
today); excluding it writes ``exclusions/E<next>.yaml`` with the stage, reason codes and note.
A decision may cite the protocol rule it rests on (a boundary rule such as ``B3``, or
``inclusion N`` / ``exclusion N``) and name the search round it belongs to; both are written to
the record. Either way the decision goes into the candidate's queue file. The record is written first and
the decision second, each atomically; a candidate whose record is already in the corpus (an
interrupted session, or a paper added by hand meanwhile) gets its decision recorded without a
second record, so stopping at any point and running again is safe.
"""

from __future__ import annotations

import datetime as dt
import re
import textwrap
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import click

from masrl.base._cli_common import MasrlError, ReportedFailure, root_of
from masrl.corpus import _vocab as v
from masrl.corpus._cli import load_tolerating_unfinished
from masrl.corpus._records import EXCLUSIONS_DIR, PAPERS_DIR, Loaded
from masrl.corpus._schema import EXCLUSION_ID_PATTERN, KEY_PATTERN, SUMMARY_MAX
from masrl.living._protocol import Protocol
from masrl.living._queue import EXCLUDED, INCLUDED, PENDING, Entry, Known, find_entry, read_queue, write_entry
from masrl.living._text import last_first

SOURCE_NAMES = {"arxiv": "arXiv", "openalex": "OpenAlex (citation snowballing)", "list": "curated list"}
DECISION = {INCLUDED: "include", EXCLUDED: "exclude"}


@dataclass
class Session:
    """What every decision needs: the corpus as loaded, the protocol, today's date, and the round
    the decisions belong to (if one was named)."""

    root: Path
    loaded: Loaded
    protocol: Protocol
    today: str
    round: str | None = None

    @property
    def taxonomy(self) -> v.Taxonomy:
        return self.loaded.corpus.taxonomy


def _existing(session: Session, entry: Entry) -> str | None:
    """The paper key or exclusion id the corpus already holds this candidate as, if any."""
    from masrl.living._scaffold import unfinished_records

    known = Known(session.loaded.corpus, unfinished_records(session.loaded))
    d = entry.data
    return known.match(d.get("arxiv"), d.get("doi"), d.get("url"), str(d.get("title", "")))


def _record_decision(session: Session, entry: Entry, decision: dict[str, Any]) -> None:
    status = EXCLUDED if "exclusion" in decision else INCLUDED
    entry.data["status"] = status
    entry.data["decision"] = {"date": session.today, **decision}
    write_entry(session.root, entry.data)


def check_rule(protocol: Protocol, rule: str | None, decision: str) -> str | None:
    """*rule* if a record decided *decision* (include or exclude) may cite it, else MasrlError."""
    if rule is None:
        return None
    allowed = protocol.rule_refs(decision)
    if rule not in allowed:
        other = "exclude" if decision == "include" else "include"
        hint = f"; {rule} decides only the other way" if rule in protocol.rule_refs(other) else ""
        raise MasrlError(f"--rule must be one of {', '.join(allowed)} to {decision}, not {rule!r}{hint}")
    return rule


def check_round(protocol: Protocol, round_id: str | None) -> str | None:
    """*round_id* if it is a discovery round of the protocol, else MasrlError."""
    if round_id is None:
        return None
    error = protocol.discovery_round_error(round_id)
    if error:
        raise MasrlError(error)
    return round_id


def _round_for(session: Session, entry: Entry) -> str | None:
    """The round a decision on *entry* belongs to: the session's, else the one its queue file names."""
    named = session.round or entry.data.get("round")
    return check_round(session.protocol, str(named)) if named else None


def rules_text(protocol: Protocol, decision: str | None = None) -> str:
    """The rules a decision can cite, as plain text: every boundary rule with its cases (or only
    those deciding *decision*), then the inclusion and exclusion rules."""
    lines = []
    if protocol.boundary_rules:
        lines.append("Boundary rules (protocol.yaml boundary_rules; cite one with --rule B<n>):")
        for b in protocol.boundary_rules:
            cases = [c for c in b.cases if decision is None or c.decision == decision]
            if not cases:
                continue
            lines.append(f"  {b.id:<4}{b.title}")
            for c in cases:
                under = f"inclusion {c.inclusion}" if c.decision == "include" else ", ".join(c.reasons)
                precedents = f" [{', '.join(c.precedents)}]" if c.precedents else ""
                lines.extend(
                    textwrap.wrap(
                        f"{c.decision} ({under}): {c.when}{precedents}",
                        width=96,
                        initial_indent="      ",
                        subsequent_indent="        ",
                    )
                )
    for kind, rules in (("include", protocol.inclusion), ("exclude", protocol.exclusion)):
        if decision not in (None, kind):
            continue
        name = "inclusion" if kind == "include" else "exclusion"
        lines.append(f"{name.capitalize()} rules (cite one with --rule '{name} <n>'):")
        for r in rules:
            codes = f" ({', '.join(r.reasons)})" if r.reasons else ""
            lines.extend(
                textwrap.wrap(
                    f"{name} {r.id}: {r.text}{codes}", width=96, initial_indent="  ", subsequent_indent="    "
                )
            )
    return "\n".join(lines) + "\n"


def include(session: Session, entry: Entry, key: str | None, rule: str | None = None) -> str:
    """Scaffold the paper record for *entry*; returns what was done, for the user."""
    from masrl.living._scaffold import Candidate, house_key, scaffold

    rule = check_rule(session.protocol, rule, "include")
    round_id = _round_for(session, entry)
    existing = _existing(session, entry)
    if existing is not None:
        if re.match(EXCLUSION_ID_PATTERN, existing):
            raise MasrlError(f"{entry.id} is already excluded as {existing}; it cannot be included too")
        _record_decision(session, entry, {"key": existing, "rule": rule})
        return f"{entry.id} is already in the corpus as {existing}; recorded the decision in screening/{entry.id}.yaml"
    d = entry.data
    arxiv = d.get("arxiv")
    published = str(d.get("published") or "")
    candidate = Candidate(
        title=str(d["title"]),
        authors=[last_first(str(a)) for a in d.get("authors") or []],
        et_al=False,
        year=int(published[:4]) if published[:4].isdigit() else None,
        venue="arXiv" if arxiv else "",
        url=str(d["url"]),
        arxiv=str(arxiv) if arxiv else None,
        doi=str(d["doi"]) if d.get("doi") else None,
        source=f"screening/{entry.id}.yaml",
    )
    taken = {h.name for h in session.loaded.handles if h.kind == "paper" and h.name}
    if key is None:
        key = house_key(candidate, taken)
    elif not re.match(KEY_PATTERN, key):
        raise MasrlError(f"--key must be lower-case letters and digits joined by '-', e.g. 'rema2025', not {key!r}")
    elif key in taken or (session.root / PAPERS_DIR / f"{key}.yaml").exists():
        raise MasrlError(f"--key {key!r} is already used by papers/{key}.yaml")
    text = scaffold(
        candidate,
        key,
        session.taxonomy,
        session.loaded.corpus.venues,
        origin="discovery",
        added=session.today,
        screening={"round": round_id, "rule": rule},
    )
    _create(session.root / PAPERS_DIR / f"{key}.yaml", text)
    _record_decision(session, entry, {"key": key, "rule": rule})
    return (
        f"wrote {PAPERS_DIR}/{key}.yaml (fill in the empty fields); recorded the decision in screening/{entry.id}.yaml"
    )


def _create(path: Path, text: str) -> None:
    """Write a new record whole or not at all, and never over an existing file: the text goes to a
    temporary file first, which is then linked to *path* (linking fails if *path* exists)."""
    import os
    import tempfile

    path.parent.mkdir(exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
        os.chmod(tmp, 0o644)
        os.link(tmp, path)
    except FileExistsError:
        raise MasrlError(f"{path.parent.name}/{path.name} already exists; nothing was written") from None
    finally:
        os.unlink(tmp)


def _next_exclusion_id(session: Session) -> str:
    numbers = [0]
    for h in session.loaded.handles:
        if h.kind == "exclusion" and h.name and re.match(EXCLUSION_ID_PATTERN, h.name):
            numbers.append(int(h.name[1:]))
    folder = session.root / EXCLUSIONS_DIR
    if folder.is_dir():
        numbers += [int(p.stem[1:]) for p in folder.glob("E*.yaml") if p.stem[1:].isdigit()]
    return f"E{max(numbers) + 1:03d}"


def exclude(session: Session, entry: Entry, reasons: list[str], stage: str, note: str, rule: str | None = None) -> str:
    """Write the exclusion record for *entry*; returns what was done, for the user."""
    from masrl.corpus._format import dump_record
    from masrl.corpus._schema import check_record
    from masrl.corpus._yaml import Document

    rule = check_rule(session.protocol, rule, "exclude")
    round_id = _round_for(session, entry)
    existing = _existing(session, entry)
    if existing is not None:
        if not re.match(EXCLUSION_ID_PATTERN, existing):
            raise MasrlError(f"{entry.id} is already in the corpus as paper {existing}; it cannot be excluded too")
        _record_decision(session, entry, {"exclusion": existing, "rule": rule})
        return f"{entry.id} is already excluded as {existing}; recorded the decision in screening/{entry.id}.yaml"
    if stage not in session.protocol.stages:
        raise MasrlError(f"--stage must be one of {', '.join(session.protocol.stages)}, not {stage!r}")
    d = entry.data
    family_id = d.get("query_family")
    source = str(d.get("source") or "")
    try:
        family = session.protocol.family(str(family_id)).label if family_id else _unfamilied(source, d)
    except KeyError:
        family = str(family_id)
    record_id = _next_exclusion_id(session)
    data = {
        "id": record_id,
        "source": SOURCE_NAMES.get(source, "arXiv" if d.get("arxiv") else "search by hand"),
        "query_family": family,
        "label": str(d["title"]),
        "identifier": _identifier(d),
        "url": str(d["url"]),
        "date_screened": session.today,
        "stage": stage,
        "reasons": reasons,
        v.ORIGIN: "discovery",
        "added": session.today,
        "round": round_id,
        "rule": rule,
        "note": note,
    }
    data = {name: value for name, value in data.items() if value is not None}
    shown = f"{EXCLUSIONS_DIR}/{record_id}.yaml"
    problems = list(check_record("exclusion", Document(data, {}), shown, session.taxonomy))
    if problems:
        for problem in problems:
            click.echo(f"{problem.field}: {problem.message}", err=True)
        click.echo("Nothing was written.", err=True)
        raise ReportedFailure()
    _create(session.root / EXCLUSIONS_DIR / f"{record_id}.yaml", dump_record("exclusion", data, session.taxonomy))
    _record_decision(
        session, entry, {"exclusion": record_id, "stage": stage, "reasons": reasons, "rule": rule, "note": note}
    )
    return f"wrote {shown}; recorded the decision in screening/{entry.id}.yaml"


def _unfamilied(source: str, d: dict[str, Any]) -> str:
    """How an exclusion names the search that found a candidate no query family ran."""
    if source == "list":
        return f"curated list ({str(d.get('query') or 'a list').split(':')[0]})"
    return "citation snowballing"


def _show(entry: Entry, position: int, total: int) -> str:
    d = entry.data
    terms = ", ".join(str(t) for t in d.get("terms") or [])
    abstract = textwrap.fill(
        str(d.get("abstract") or "(no abstract)"), width=96, initial_indent="  ", subsequent_indent="  "
    )
    return "\n".join(
        [
            "",
            f"[{position}/{total}] {entry.id}  score {d.get('score')}  {d.get('query_family') or d.get('query')}",
            f"  {d.get('title')}",
            f"  {', '.join(str(a) for a in d.get('authors') or [])} ({d.get('published')})  {d.get('url')}",
            f"  why: {terms}" if terms else "  why: no term stands out",
            abstract,
        ]
    )


def ask_rule(session: Session, decision: str) -> str | None:
    """Ask which rule the decision rests on: a boundary rule or an inclusion or exclusion rule,
    '?' to read them in full, nothing for none. Asks again until the answer is one of them."""
    protocol = session.protocol
    kind = "inclusion" if decision == "include" else "exclusion"
    for b in protocol.boundary_rules:
        if b.decides(decision):
            click.echo(f"    {b.id:<4}{b.title}")
    while True:
        answer = click.prompt(
            f"  rule it rests on (B<n>, or '{kind} <n>'; ? lists them in full; empty for none)",
            default="",
            show_default=False,
        ).strip()
        if not answer:
            return None
        if answer == "?":
            click.echo(rules_text(protocol, decision), nl=False)
            continue
        try:
            return check_rule(protocol, answer, decision)
        except MasrlError as exc:
            click.echo(f"  {exc.message}")


def walk(session: Session, entries: list[Entry]) -> tuple[int, int, int]:
    """Ask about each pending entry; returns (included, excluded, skipped)."""
    reasons = session.taxonomy.ids(v.EXCLUSION_REASON)
    pending = sorted(
        (e for e in entries if e.status == PENDING), key=lambda e: (-float(e.data.get("score") or 0), e.id)
    )
    counts = [0, 0, 0]
    for i, entry in enumerate(pending, 1):
        click.echo(_show(entry, i, len(pending)))
        choice = click.prompt(
            "  [i]nclude, [e]xclude, [s]kip, [q]uit", type=click.Choice(["i", "e", "s", "q"]), show_choices=False
        )
        if choice == "q":
            break
        if choice == "s":
            counts[2] += 1
            continue
        if choice == "i":
            rule = ask_rule(session, "include")
            click.echo(include(session, entry, None, rule))
            counts[0] += 1
            continue
        for n, reason in enumerate(reasons, 1):
            rules = ", ".join(str(r.id) for r in session.protocol.rules_for(reason))
            where = f" (exclusion rule {rules})" if rules else ""
            click.echo(f"    {n}. {reason}: {session.taxonomy[v.EXCLUSION_REASON].value(reason).definition}{where}")
        picked = click.prompt("  reason numbers, most important first (e.g. 1 or 1,3)", type=str)
        try:
            chosen = [reasons[int(x) - 1] for x in picked.replace(" ", "").split(",") if x]
        except (ValueError, IndexError):
            click.echo("  not a list of reason numbers; skipped")
            counts[2] += 1
            continue
        stage = click.prompt(
            "  stage", type=click.Choice(list(session.protocol.stages)), default=session.protocol.stages[0]
        )
        rule = ask_rule(session, "exclude")
        note = click.prompt("  note (one sentence of your own)", type=str)
        try:
            click.echo(exclude(session, entry, chosen, stage, note, rule))
        except MasrlError as exc:
            click.echo(f"  not excluded: {exc.message}; skipped")
            counts[2] += 1
            continue
        counts[1] += 1
    return counts[0], counts[1], counts[2]


@click.command(name="screen")
@click.argument("candidate", required=False, metavar="[ID]")
@click.option("--include", "do_include", is_flag=True, help="Include ID: scaffold its paper record.")
@click.option("--key", default=None, help="With --include: the paper key (default: one in the house style).")
@click.option("--exclude", "reason", default=None, metavar="REASON", help="Exclude ID with this reason code.")
@click.option(
    "--reason", "more", multiple=True, metavar="REASON", help="With --exclude: a further reason code (repeatable)."
)
@click.option("--stage", default=None, help="With --exclude: the screening stage (default: the protocol's first).")
@click.option("--note", default=None, help="With --exclude: one sentence, in your own words, on why it is out.")
@click.option(
    "--rule",
    default=None,
    metavar="RULE",
    help="With --include or --exclude: the protocol rule the decision rests on (B3, 'inclusion 1', 'exclusion 2').",
)
@click.option(
    "--round",
    "round_id",
    default=None,
    metavar="ROUND",
    help="The discovery round of protocol.yaml the decisions belong to (written to each record as round:).",
)
@click.option("--rules", "show_rules", is_flag=True, help="List the rules a decision can cite, and stop.")
@click.pass_context
def command(
    ctx: click.Context,
    candidate: str | None,
    do_include: bool,
    key: str | None,
    reason: str | None,
    more: tuple[str, ...],
    stage: str | None,
    note: str | None,
    rule: str | None,
    round_id: str | None,
    show_rules: bool,
) -> None:
    """Decide the candidates that `masrl discover` queued in screening/.

    Without ID, walks the pending candidates from the highest score down, showing each one's
    title, abstract, score and the terms behind it: i includes, e excludes (asking the reason
    codes, stage and a note), s skips, q stops. With ID (an arXiv id, with or without version,
    or a DOI), records one decision. Including scaffolds papers/<key>.yaml as `masrl add` does,
    with origin discovery; excluding writes exclusions/E<next>.yaml. A decision may cite the
    rule it rests on (--rule; the walk asks), a boundary rule of protocol.yaml or an inclusion or
    exclusion rule: --rules lists them. --round names the search round the records belong to
    (otherwise the round the queue file names, if any). Each decision is also written to the
    candidate's queue file; stopping and running again is safe.

    Example:

    \b
        masrl screen --rules
        masrl screen --round backfill
        masrl screen 2607.01234 --include --rule B3
        masrl screen 2607.04321 --exclude no_rl --stage abstract_screen --note "Prompted agents only; nothing is trained."
    """
    from masrl.living.discover import protocol_or_fail

    interactive = candidate is None
    if show_rules:
        if candidate or do_include or reason or more or stage or note or key or rule or round_id:
            raise MasrlError("--rules lists the rules and takes no other option")
        root = root_of(ctx)
        protocol = protocol_or_fail(root, load_tolerating_unfinished(root).corpus)
        click.echo(rules_text(protocol), nl=False)
        return
    if interactive and (do_include or reason or more or stage or note or key or rule):
        raise MasrlError("give the candidate's ID with --include or --exclude")
    if not interactive and do_include == (reason is not None):
        raise MasrlError("give either --include or --exclude REASON")
    if do_include and (more or stage or note):
        raise MasrlError("--reason, --stage and --note go with --exclude")
    if reason is not None and key:
        raise MasrlError("--key goes with --include")
    root = root_of(ctx)
    loaded = load_tolerating_unfinished(root)
    protocol = protocol_or_fail(root, loaded.corpus)
    session = Session(root, loaded, protocol, dt.date.today().isoformat(), check_round(protocol, round_id))
    entries, problems = read_queue(root)
    for problem in problems:
        click.echo(str(problem), err=True)
    if interactive:
        if not any(e.status == PENDING for e in entries):
            click.echo("No pending candidates in screening/; run `masrl discover` first.", err=True)
            return
        included, excluded, skipped = walk(session, entries)
        click.echo(f"{included} included, {excluded} excluded, {skipped} skipped", err=True)
        return
    assert candidate is not None
    entry = find_entry(entries, candidate)
    if entry is None:
        raise MasrlError(f"no candidate {candidate!r} in screening/ (give its arXiv id or DOI as discover listed it)")
    if entry.status != PENDING:
        decided = entry.data.get("decision") or {}
        raise MasrlError(
            f"{entry.id} is already {entry.status} ({decided.get('key') or decided.get('exclusion')}, "
            f"{decided.get('date')}); edit screening/{entry.id}.yaml to reopen it"
        )
    if do_include:
        click.echo(include(session, entry, key, rule))
        return
    assert reason is not None
    reasons = [reason, *more]
    allowed = session.taxonomy.ids(v.EXCLUSION_REASON)
    for r in reasons:
        if r not in allowed:
            raise MasrlError(f"reason must be one of {', '.join(allowed)}, not {r!r}")
    if note is None:
        raise MasrlError(f"--exclude needs --note: one sentence of your own, at most {SUMMARY_MAX} characters")
    click.echo(exclude(session, entry, reasons, stage or protocol.stages[0], note, rule))


def _identifier(d: dict[str, Any]) -> str:
    """How an exclusion names its source: the arXiv id, else the DOI, else the url (a docs page, a blog)."""
    if d.get("arxiv"):
        return f"arXiv:{d['arxiv']}"
    if d.get("doi"):
        return f"doi:{d['doi']}"
    return str(d["url"])
