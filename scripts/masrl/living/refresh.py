"""``masrl refresh``: compare papers' facts with arXiv, OpenAlex, Crossref and DBLP; show or apply the diff."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

import click

from masrl.base._cli_common import MasrlError, ReportedFailure, report, root_of
from masrl.corpus._cli import load_or_fail
from masrl.corpus._records import Paper
from masrl.corpus._venues import Venues


def _shown(value: Any) -> str:
    if value is None:
        return "(none)"
    if isinstance(value, list):
        return "[" + "; ".join(map(str, value)) + "]"
    return str(value)


def _cited(paper: Paper, venues: Venues) -> str:
    """How *paper* is cited: ``@inproceedings, booktitle 'ICLR', year 2025``."""
    from masrl.corpus._citation import citation

    placed = venues.place(paper.venue)
    if placed is None:
        return f"(venue {paper.venue!r} not in venues.yaml)"
    cite = citation(paper, placed)
    named = next((f", {k} {v!r}" for k, v in cite.fields if k in ("booktitle", "journal")), "")
    return f"@{cite.entry_type}{named}, year {cite.year}"


def diff_text(paper: Paper, changes: list[Any], venues: Venues) -> str:
    """One record's changes: a header line, then `field: old -> new  (source)` per change; a
    venue move also shows the BibTeX it brings (entry type, booktitle or journal, year)."""
    lines = [paper.path]
    for c in changes:
        if c.field == "authors":
            lines.append(f"  authors: {len(c.old)} -> {len(c.new)} names  ({c.source})")
            lines.extend(f"    + {name}" for name in c.new if name not in c.old)
            lines.extend(f"    - {name}" for name in c.old if name not in c.new)
        elif c.field == "bibtex":
            continue  # shown with the venue move it belongs to
        else:
            lines.append(f"  {c.field}: {_shown(c.old)} -> {_shown(c.new)}  ({c.source})")
        if c.field == "venue":
            bib = next((x.new for x in changes if x.field == "bibtex"), paper.bibtex)
            moved = replace(paper, venue=c.new, bibtex=bib or {})
            lines.append(f"    BibTeX: {_cited(paper, venues)} -> {_cited(moved, venues)}")
    return "\n".join(lines) + "\n"


def stale_lines(found: list[Any], checked: Mapping[str, Any] | None = None) -> list[str]:
    """One line per record still on arXiv: ``papers/x.yaml: arXiv since 2025-03, 20 months``,
    then its last check of venue_checks.csv (``last checked 2026-12-04: none``) or ``never checked``."""
    lines = []
    for s in found:
        line = f"{s.paper.path}: {s.paper.venue} since {s.since}, {s.months} months"
        if checked is not None:
            c = checked.get(s.paper.key)
            line += f"; last checked {c.date}: {c.outcome}" if c else "; never checked"
        lines.append(line)
    return lines


@click.command(name="refresh")
@click.argument("keys", nargs=-1, metavar="[KEY]...")
@click.option("--write", is_flag=True, help="Apply the changes to the records (default: only show them).")
@click.option(
    "--stale",
    type=click.IntRange(min=0),
    default=None,
    metavar="MONTHS",
    help="Only the records still on arXiv or under submission more than MONTHS months after they first appeared; "
    "they are listed before they are compared.",
)
@click.option("--list", "list_only", is_flag=True, help="With --stale: print the list and ask no service.")
@click.option(
    "--unchecked-days",
    type=click.IntRange(min=0),
    default=None,
    metavar="DAYS",
    help="With --stale: leave out the records whose venue venue_checks.csv says was checked within DAYS days.",
)
@click.option(
    "--today",
    type=click.DateTime(formats=["%Y-%m-%d"]),
    default=None,
    help="The day --stale counts from, YYYY-MM-DD (default: today).",
)
@click.pass_context
def command(
    ctx: click.Context,
    keys: tuple[str, ...],
    write: bool,
    stale: int | None,
    list_only: bool,
    unchecked_days: int | None,
    today: Any,
) -> None:
    """Fetch current facts for papers and show what changed since they were recorded.

    Asks arXiv (by id, or by title for a paper without one), OpenAlex and Crossref (by DOI) and,
    for a paper still on arXiv or under submission, DBLP (by title) for the published venue, the
    DOI, the arXiv id, the author list of the version of record (the published version if there
    is one, else the latest arXiv version) and the official code repository where a source names
    one. DBLP counts only a conference or journal version whose title and authors match, never its
    CoRR copies of arXiv, informal or withdrawn items or workshops; its venue names are read
    through the aliases of venues.yaml. Prints a diff per record with the source of each change,
    and notes on what a person must decide (a journal, proceedings or journal reference no venue
    of venues.yaml matches, named as the source writes it; a DOI Crossref does not know, with
    Crossref's own answer; published authors no source lists; an arXiv page that stayed empty,
    whose records were not compared in full). A venue move is shown with the BibTeX it brings;
    the year stays the year of first appearance. With --write, applies the changes, keeping each
    record's comments and field order. Tags, summaries, notes and evidence are never touched.
    Answers are cached in .masrl-cache/ for a week (`masrl cache clear` drops them). When a
    service stays unavailable after its retries, the changes found so far are still shown (and
    written, with --write) and the command exits 1, saying when to run it again.

    --stale MONTHS takes only the records still on arXiv (or under submission) more than MONTHS
    months after they first appeared (the month of the arXiv id, else January of `year`),
    oldest first, and lists them with each one's last check of venue_checks.csv (the date a
    person compared it with the proceedings, and what came of it) or "never checked";
    --unchecked-days DAYS leaves out those checked within DAYS days. The weekly run lists those of
    six months and more not checked for 90 days, for a person to check in the proceedings. With
    --list it only prints that list.

    Example:

    \b
        masrl refresh rema2025 sirius2025
        masrl refresh --write
        masrl refresh --stale 6 --list
        masrl refresh --stale 6 --unchecked-days 90 --list
    """
    import datetime as dt

    from masrl.living._checks import latest, read_checks
    from masrl.living._facts import gather, proposals
    from masrl.living._facts import stale as still_on_arxiv
    from masrl.living._net import CACHE_DAYS, CACHE_DIR, Client, NetworkError, SourceError
    from masrl.living._queue import Known

    if list_only and stale is None:
        raise click.UsageError("--list lists the records --stale MONTHS selects: give --stale")
    if list_only and write:
        raise click.UsageError("--list asks no service, so there is nothing to --write")
    if unchecked_days is not None and stale is None:
        raise click.UsageError("--unchecked-days narrows the records --stale MONTHS selects: give --stale")
    root = root_of(ctx)
    corpus = load_or_fail(root).corpus
    by_key = {p.key: p for p in corpus.papers}
    unknown = [k for k in keys if k not in by_key]
    if unknown:
        raise MasrlError(f"no paper with key {', '.join(map(repr, unknown))} in papers/")
    papers = [by_key[k] for k in keys] if keys else list(corpus.papers)
    if stale is not None:
        day = (today.date() if today else dt.date.today()).isoformat()
        found = still_on_arxiv(papers, corpus.venues, stale, day)
        checks, bad = read_checks(root)
        if bad:
            report(bad, 1)
            raise ReportedFailure()
        checked = latest(checks)
        summary = f"{len(found)} records still on arXiv or under submission after {stale} months (on {day})"
        never = sum(1 for s in found if s.paper.key not in checked)
        summary += f"; {never} never checked in the proceedings" if never else "; every one checked before"
        if unchecked_days is not None:
            since = (dt.date.fromisoformat(day) - dt.timedelta(days=unchecked_days)).isoformat()
            recent = [s for s in found if s.paper.key in checked and checked[s.paper.key].date > since]
            found = [s for s in found if s not in recent]
            summary += f"; {len(recent)} checked within {unchecked_days} days left out, {len(found)} listed"
        papers = [s.paper for s in found]
        if list_only:
            for line in stale_lines(found, checked):
                click.echo(line)
            click.echo(summary, err=True)
            return
        for line in stale_lines(found, checked):
            click.echo(f"{line}: rechecked", err=True)
        click.echo(summary, err=True)
    known = Known(corpus)
    changed = asked = failed = 0
    failure: str | None = None
    with Client(root / CACHE_DIR) as client:
        try:
            for paper, sources in gather(papers, client):
                asked += 1
                failed += sources.failed
                changes = []
                for change in proposals(paper, sources, corpus.venues):
                    # An id that another record already holds would make two records one work.
                    other = None
                    if change.field == "arxiv":
                        other = known.match(change.new, None, None, "")
                    elif change.field == "doi":
                        other = known.match(None, change.new, None, "")
                    if other is not None and other != paper.key:
                        click.echo(
                            f"{paper.path}: {change.field} {change.new} left out: {other} already has it", err=True
                        )
                        continue
                    changes.append(change)
                for note in sources.notes:
                    click.echo(f"{paper.path}: note: {note}", err=True)
                if not changes:
                    continue
                changed += 1
                click.echo(diff_text(paper, changes, corpus.venues), nl=False)
                if write:
                    _write(root, corpus, paper, changes)
        except (NetworkError, SourceError) as exc:
            failure = str(exc)
        cached = client.from_cache
    verb = "changed" if write else "would change"
    click.echo(f"{changed} of {asked} records {verb}", err=True)
    if cached:
        click.echo(
            f"{cached} answers came from {CACHE_DIR}/ (kept {CACHE_DAYS} days; `masrl cache clear` asks afresh)",
            err=True,
        )
    if failure is None and failed:
        raise MasrlError(
            f"{failed} of {len(papers)} records could not be compared in full: a source answered something "
            "unusable (see the notes above); run again later"
        )
    if failure is not None:
        left = len(papers) - asked
        raise MasrlError(
            f"{failure}; {left} of {len(papers)} records were not compared, the changes above are those found before"
        )


def _write(root: Path, corpus: Any, paper: Paper, changes: list[Any]) -> None:
    from masrl.base._writer import write_if_changed
    from masrl.corpus._format import FormatError, format_record
    from masrl.corpus._schema import check_record
    from masrl.corpus._yaml import YamlError, load_text

    path = root / "papers" / f"{paper.key}.yaml"
    text = path.read_text("utf-8")
    try:
        new = format_record("paper", text, corpus.taxonomy, {c.field: c.new for c in changes})
        problems = list(check_record("paper", load_text(new), paper.path, corpus.taxonomy))
    except (YamlError, FormatError) as exc:
        click.echo(f"  not written: {exc}", err=True)
        return
    if problems:
        click.echo(f"  not written: {'; '.join(f'{p.field}: {p.message}' for p in problems)}", err=True)
        return
    write_if_changed(Path(path), new)
    click.echo("  written")
