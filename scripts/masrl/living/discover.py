"""``masrl discover``: run the protocol's searches and queue the new candidates, ranked."""

from __future__ import annotations

import datetime as dt
import json
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import click

from masrl._cli_common import MasrlError, ReportedFailure, load_tolerating_unfinished, report, root_of
from masrl._records import Corpus
from masrl.living._protocol import Protocol, ProtocolError, load_protocol
from masrl.living._sources import Found

SOURCES = ("arxiv", "openalex", "manual", "list")
TITLE_WIDTH = 60


@dataclass
class Considered:
    """A candidate after the duplicate check and ranking."""

    found: Found
    known: str | None  # the paper key or exclusion id it is
    earlier: str | None  # the queue id of an earlier candidate it is
    score: float
    terms: tuple[str, ...]

    @property
    def new(self) -> bool:
        return self.known is None and self.earlier is None

    def as_json(self) -> dict[str, Any]:
        f = self.found
        return {
            "id": f.ident,
            "arxiv": f.arxiv,
            "doi": f.doi,
            "title": f.title,
            "score": self.score,
            "terms": list(self.terms),
            "known": self.known,
            "earlier": self.earlier,
            "source": f.source,
            "query_family": f.query_family,
            "query": f.query,
            "published": f.published,
            "url": f.url,
        }


def protocol_or_fail(root: Path, corpus: Corpus) -> Protocol:
    try:
        return load_protocol(root, corpus.taxonomy)
    except ProtocolError as exc:
        report(exc.problems, 1, quiet=True)
        raise ReportedFailure() from None


def consider(
    root: Path, corpus: Corpus, protocol: Protocol, found: list[Found], unfinished: Any = ()
) -> list[Considered]:
    """Flag duplicates of *found* (against the corpus and the queue) and score every candidate.

    Returns the candidates in ranking order: new ones by score (highest first), then the known.
    """
    from masrl.living._queue import Known, read_queue
    from masrl.living._rank import rank

    known = Known(corpus, unfinished)
    entries, _ = read_queue(root)
    queued = {name: e for e in entries for name in e.names()}
    seen: dict[str, Found] = {}
    for f in found:  # the same work found by two queries or sources is one candidate
        seen.setdefault(f.ident, f)
    unique = list(seen.values())
    scores = rank(corpus, protocol, [f"{f.title} {f.abstract}" for f in unique])
    out = []
    for f, s in zip(unique, scores, strict=True):
        owner = known.match(f.arxiv, f.doi, f.url, f.title)
        names = [n.lower() for n in (f.arxiv, f.doi, f.ident) if n]
        entry = None if owner else next((queued[n] for n in names if n in queued), None)
        out.append(Considered(f, owner, entry.id if entry else None, s.score, s.terms))
    out.sort(key=lambda c: (not c.new, -c.score, c.found.ident))
    return out


def _fetch(root: Path, corpus: Corpus, protocol: Protocol, source: str, since: str, until: str) -> list[Found]:
    from masrl.living._net import CACHE_DIR
    from masrl.living._sources import search_arxiv, snowball_openalex

    cache = root / CACHE_DIR
    found: list[Found] = []
    if source == "arxiv":
        families = [f for f in protocol.query_families if f.arxiv_query]
        with click.progressbar(families, label="arXiv query families", file=sys.stderr) as families_bar:
            for family in families_bar:
                found.extend(search_arxiv(family, since, until, cache))
    else:
        core = [p for p in corpus.papers if p.role == "core"]
        with click.progressbar(core, label="OpenAlex core papers", file=sys.stderr) as papers_bar:
            for paper in papers_bar:
                found.extend(snowball_openalex(paper, since, until, cache))
    return found


def list_candidates(
    root: Path, files: tuple[Path, ...], offline: bool, known: Callable[[Found], bool]
) -> tuple[list[Found], list[str]]:
    """The papers the curated lists *files* name, as candidates, and a note per paper that cannot
    be queued (no link to it). Unless *offline*, the arXiv API fills in the facts of the papers
    with an arXiv id that are not *known* already (title, authors, date, abstract), in batches and
    through the cache."""
    from masrl.living._lists import ListError, read_list
    from masrl.living._net import CACHE_DIR

    found: list[Found] = []
    notes: list[str] = []
    for path in files:
        try:
            read = read_list(path)
        except ListError as exc:
            raise MasrlError(str(exc)) from None
        for problem in read.problems:
            notes.append(f"{problem.path}:{problem.line}: {problem.message}")
        for item in read.papers:
            if not item.url:
                notes.append(
                    f"{read.shown}:{item.line}: {item.title!r} has no link or identifier, so it cannot be queued"
                )
                continue
            found.append(
                Found(
                    source="list",
                    query_family=None,
                    query=f"{path.name}:{item.line}",
                    title=item.title or item.url,
                    authors=[],
                    published="",
                    abstract="",
                    url=f"https://arxiv.org/abs/{item.arxiv}" if item.arxiv else item.url,
                    arxiv=item.arxiv,
                    doi=item.doi,
                )
            )
    if not offline:
        from masrl.living._facts import arxiv_entries

        ids = list(dict.fromkeys(f.arxiv for f in found if f.arxiv and not known(f)))
        facts = arxiv_entries(ids, root / CACHE_DIR) if ids else {}
        for f in found:
            entry = facts.get(f.arxiv or "")
            if entry is not None:
                f.title, f.authors, f.published, f.abstract = (
                    entry.title,
                    entry.authors,
                    entry.published,
                    entry.abstract,
                )
                f.doi = f.doi or entry.doi
                f.comment, f.journal_ref = entry.comment, entry.journal_ref
    return found, notes


def _known_or_queued(root: Path, loaded: Any) -> Callable[[Found], bool]:
    """Whether a listed paper is a record of the corpus (as `masrl coverage` matches) or queued."""
    from masrl._scaffold import unfinished_records
    from masrl.living._lists import Owners
    from masrl.living._queue import read_queue

    owners = Owners(loaded.corpus, unfinished_records(loaded))
    entries, _ = read_queue(root)
    queued = {name for e in entries for name in e.names()}

    def known(f: Found) -> bool:
        names = {n.lower() for n in (f.arxiv, f.doi) if n}
        return bool(names & queued) or owners.owner(f.arxiv, f.doi, f.url, f.title) is not None

    return known


def _require_extras() -> None:
    missing = []
    for module, name in (("sklearn", "scikit-learn"), ("defusedxml", "defusedxml")):
        try:
            __import__(module)
        except ImportError:
            missing.append(name)
    if missing:
        raise MasrlError(
            f"masrl discover needs {' and '.join(missing)}; install {'it' if len(missing) == 1 else 'them'} "
            "with: pip install 'masrl[discover]'"
        )


def table(considered: list[Considered]) -> str:
    """The ranked new candidates, then the known ones, as plain text."""
    lines = []
    new = [c for c in considered if c.new]
    iw = max([len(c.found.ident) for c in considered] + [2])
    fw = max([len(c.found.query_family or c.found.query) for c in new] + [6])
    if new:
        lines.append(f"{'rank':>4}  {'score':>5}  {'id':<{iw}}  {'family':<{fw}}  title / top terms")
        for i, c in enumerate(new, 1):
            title = c.found.title if len(c.found.title) <= TITLE_WIDTH else c.found.title[: TITLE_WIDTH - 3] + "..."
            family = c.found.query_family or c.found.query
            lines.append(f"{i:>4}  {c.score:>5.3f}  {c.found.ident:<{iw}}  {family:<{fw}}  {title}")
            if c.terms:
                lines.append(" " * (17 + iw + fw) + ", ".join(c.terms))
    for c in considered:
        if c.known:
            lines.append(f"known   {c.found.ident:<{iw}}  is {c.known}: {c.found.title}")
        elif c.earlier:
            lines.append(f"queued  {c.found.ident:<{iw}}  already in screening/{c.earlier}.yaml")
    return "\n".join(lines) + ("\n" if lines else "")


@click.command(name="discover")
@click.option(
    "--source",
    type=click.Choice(SOURCES),
    default=None,
    help="Search only this source (default: arxiv and openalex; manual with --from).",
)
@click.option(
    "--since",
    metavar="DATE",
    default=None,
    help="Start of the window, YYYY-MM-DD. Default: the cutoff of the last round closed before today.",
)
@click.option("--until", metavar="DATE", default=None, help="End of the window, YYYY-MM-DD. Default: today.")
@click.option(
    "--from",
    "from_file",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="With --source manual: a YAML list of candidates found by hand.",
)
@click.option("--json", "as_json", is_flag=True, help="Print every candidate considered as JSON instead of the table.")
@click.option("--dry-run", is_flag=True, help="Rank and print, but write nothing to screening/.")
@click.option(
    "--offline", is_flag=True, help="With --source list: queue what the list says, without asking arXiv for the facts."
)
@click.option(
    "--round",
    "round_id",
    default=None,
    metavar="ROUND",
    help="The discovery round of protocol.yaml the queued candidates belong to (masrl screen passes it to the records).",
)
@click.argument("files", nargs=-1, type=click.Path(dir_okay=False, path_type=Path), metavar="[FILE]...")
@click.pass_context
def command(
    ctx: click.Context,
    source: str | None,
    since: str | None,
    until: str | None,
    from_file: Path | None,
    as_json: bool,
    dry_run: bool,
    offline: bool,
    round_id: str | None,
    files: tuple[Path, ...],
) -> None:
    """Search for new candidates under protocol.yaml and queue them in screening/.

    Runs each query family's arXiv query over the window, and snowballs through OpenAlex: the
    works citing, or cited by, the corpus's core papers. Candidates the corpus already holds
    (a paper or an exclusion, by arXiv id with or without version, DOI, or near-identical
    title) and those already queued are flagged; the rest are ranked by likely inclusion, a
    classifier trained on the retained and excluded records and the protocol's terms, with the
    terms behind each score. Each new candidate becomes screening/<id>.yaml for `masrl screen`.
    Answers are cached in .masrl-cache/, so a rerun makes no request.

    With --source list, reads instead the curated lists FILE... (a README in Markdown, a BibTeX
    file or a CSV table naming papers by arXiv id, DOI, link or title), flags what the corpus
    holds or excluded, and queues the rest; the arXiv API gives the facts of papers with an arXiv
    id (--offline: only what the list says). `masrl coverage FILE` shows how much of a list the
    corpus has screened.

    Example:

    \b
        masrl discover
        masrl discover --source arxiv --since 2026-05-04 --json
        masrl discover --source manual --from found-by-hand.yaml
        masrl discover --source list awesome-list/README.md --round backfill
    """
    from masrl._scaffold import unfinished_records
    from masrl.living._net import NetworkError
    from masrl.living._queue import entry_data, write_entry
    from masrl.living._rank import MissingExtra
    from masrl.living._sources import SourceError, read_manual

    if from_file is not None and source in (None, "manual"):
        source = "manual"
    elif source == "manual" or from_file is not None:
        raise MasrlError("--source manual and --from FILE go together")
    if (source == "list") != bool(files):
        raise MasrlError("--source list and the list FILEs go together: masrl discover --source list FILE...")
    if offline and source != "list":
        raise MasrlError("--offline goes with --source list")
    if source == "list" and (since or until):
        raise MasrlError("a list has no date window: --since and --until go with the searches")
    _require_extras()
    root = root_of(ctx)
    loaded = load_tolerating_unfinished(root)
    corpus = loaded.corpus
    protocol = protocol_or_fail(root, corpus)
    if round_id is not None:
        from masrl.living.screen import check_round

        check_round(protocol, round_id)
    today = dt.date.today().isoformat()
    for name, value in (("--since", since), ("--until", until)):
        if value is not None:
            try:
                dt.date.fromisoformat(value)
            except ValueError:
                raise MasrlError(f"{name} must be a date written YYYY-MM-DD, not {value!r}") from None
    if since is None:
        last = protocol.last_closed_round(today)
        since = last.cutoff if last else protocol.rounds[0].start
    until = until or today
    found: list[Found] = []
    notes: list[str] = []
    try:
        if source == "list":
            found, notes = list_candidates(root, files, offline, _known_or_queued(root, loaded))
        elif source == "manual":
            assert from_file is not None
            if not from_file.is_file():
                raise MasrlError(f"cannot read {from_file}: no such file")
            found, problems = read_manual(from_file, protocol)
            if problems:
                report(problems, 1)
                click.echo("Nothing was written.", err=True)
                raise ReportedFailure()
        else:
            for name in (source,) if source else ("arxiv", "openalex"):
                found.extend(_fetch(root, corpus, protocol, name, since, until))
        considered = consider(root, corpus, protocol, found, unfinished_records(loaded))
    except (NetworkError, SourceError, MissingExtra) as exc:
        raise MasrlError(str(exc)) from None
    if source == "list":
        # as `masrl coverage` matches: a listed title that holds a record's whole title is that record
        from masrl.living._lists import Owners

        owners = Owners(corpus, unfinished_records(loaded))
        for c in considered:
            if c.new:
                c.known = owners.owner(c.found.arxiv, c.found.doi, c.found.url, c.found.title)
        considered.sort(key=lambda c: (not c.new, -c.score, c.found.ident))
    written = 0
    if not dry_run:
        for c in considered:
            if c.new:
                data = entry_data(c.found, c.score, c.terms, today)
                if round_id is not None:
                    data["round"] = round_id
                write_entry(root, data)
                written += 1
    for note in notes:
        click.echo(f"note: {note}", err=True)
    if as_json:
        click.echo(json.dumps([c.as_json() for c in considered], indent=2, ensure_ascii=False))
    else:
        click.echo(table(considered), nl=False)
    known = sum(1 for c in considered if c.known)
    earlier = sum(1 for c in considered if c.earlier)
    where = "" if dry_run else f", {written} written to screening/"
    origin = f"from {', '.join(p.name for p in files)}" if source == "list" else f"from {since} to {until}"
    click.echo(
        f"{len(considered)} candidates {origin}: {known} known, {earlier} already queued, "
        f"{len(considered) - known - earlier} new{where}",
        err=True,
    )
