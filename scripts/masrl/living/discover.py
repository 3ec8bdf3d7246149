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

from masrl.base._cli_common import MasrlError, ReportedFailure, report, root_of
from masrl.corpus._cli import load_tolerating_unfinished
from masrl.corpus._records import Corpus
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
    scores = rank(root, corpus, protocol, [f"{f.title}. {f.abstract}" for f in unique], entries)
    out = []
    for f, s in zip(unique, scores, strict=True):
        owner = known.match(f.arxiv, f.doi, f.url, f.title)
        names = [n.lower() for n in (f.arxiv, f.doi, f.ident) if n]
        entry = None if owner else next((queued[n] for n in names if n in queued), None)
        out.append(Considered(f, owner, entry.id if entry else None, s.score, s.terms))
    out.sort(key=lambda c: (not c.new, -c.score, c.found.ident))
    return out


def _fetch(
    client: Any,
    corpus: Corpus,
    protocol: Protocol,
    source: str,
    since: str,
    until: str,
    found: list[Found],
    notes: list[str],
) -> None:
    """Add to *found* what *source* finds in the window; what was added stays there if a request fails."""
    from masrl.living._sources import search_arxiv, snowball_openalex

    if source == "arxiv":
        families = [f for f in protocol.query_families if f.arxiv_query]
        with click.progressbar(families, label="arXiv query families", file=sys.stderr) as families_bar:
            for family in families_bar:
                for candidate in search_arxiv(family, since, until, client, notes):
                    found.append(candidate)
    else:
        core = [p for p in corpus.papers if p.role == "core"]
        with click.progressbar(core, label="OpenAlex core papers", file=sys.stderr) as papers_bar:
            for paper in papers_bar:
                for candidate in snowball_openalex(paper, since, until, client, notes):
                    found.append(candidate)


def list_candidates(
    files: tuple[Path, ...], client: Any, known: Callable[[Found], bool]
) -> tuple[list[Found], list[str]]:
    """The papers the curated lists *files* name, as candidates, and a note per paper that cannot
    be queued (no link to it). With a *client* (None: offline), the arXiv API fills in the facts
    of the papers with an arXiv id that are not *known* already (title, authors, date, abstract),
    in batches and through the cache."""
    from masrl.living._lists import ListError, read_list

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
    if client is not None:
        from masrl.living._facts import arxiv_entries

        ids = list(dict.fromkeys(f.arxiv for f in found if f.arxiv and not known(f)))
        facts = arxiv_entries(ids, client)
        notes.extend(facts.notes)  # a batch whose pages stayed empty: its papers keep the list's facts
        for f in found:
            entry = facts.entries.get(f.arxiv or "")
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
    from masrl.living._lists import Owners
    from masrl.living._queue import read_queue
    from masrl.living._scaffold import unfinished_records

    owners = Owners(loaded.corpus, unfinished_records(loaded))
    entries, _ = read_queue(root)
    queued = {name for e in entries for name in e.names()}

    def known(f: Found) -> bool:
        names = {n.lower() for n in (f.arxiv, f.doi) if n}
        return bool(names & queued) or owners.owner(f.arxiv, f.doi, f.url, f.title) is not None

    return known


def _require_extras() -> None:
    missing = []
    for module, name in (("sklearn", "scikit-learn"),):
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


def _cell(text: str) -> str:
    """*text* safe inside a Markdown table cell (no pipe, no markup, no line break)."""
    import html

    return html.escape(" ".join(text.split()), quote=False).replace("|", "\\|")


def markdown(considered: list[Considered], since: str, until: str, notes: list[str]) -> str:
    """The ranked table for a pull request: new candidates first, then those the corpus already has."""
    new = [c for c in considered if c.new]
    lines = [
        f"**{len(new)} new candidates** from {since} to {until} "
        f"({len(considered) - len(new)} more found that the corpus or the queue already holds).",
        "",
        "| rank | title | id | score | top terms | status |",
        "| ---: | --- | --- | ---: | --- | --- |",
    ]
    for i, c in enumerate(considered, 1):
        f = c.found
        title = f"[{_cell(f.title)}]({f.url})" if f.url.startswith(("http://", "https://")) else _cell(f.title)
        status = "new" if c.new else (f"known: {c.known}" if c.known else f"queued: {c.earlier}")
        terms = ", ".join(_cell(t) for t in c.terms)
        lines.append(f"| {i if c.new else ''} | {title} | `{f.ident}` | {c.score:.3f} | {terms} | {_cell(status)} |")
    if notes:
        lines += ["", "Notes:", ""] + [f"- {_cell(n)}" for n in notes]
    return "\n".join(lines) + "\n"


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
@click.option(
    "--markdown", "as_markdown", is_flag=True, help="Print the ranked table as Markdown (a pull request's body)."
)
@click.option("--dry-run", is_flag=True, help="Rank and print, but write nothing to screening/.")
@click.option(
    "--evaluate",
    is_flag=True,
    help="Search nothing: replay the recorded screening decisions and report how well the ranker orders them.",
)
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
    as_markdown: bool,
    dry_run: bool,
    evaluate: bool,
    offline: bool,
    round_id: str | None,
    files: tuple[Path, ...],
) -> None:
    """Search for new candidates under protocol.yaml and queue them in screening/.

    Runs each query family's arXiv query over the window, and snowballs through OpenAlex: the
    works citing, or cited by, the corpus's core papers. Candidates the corpus already holds
    (a paper or an exclusion, by arXiv id with or without version, DOI, or near-identical
    title) and those already queued are flagged; the rest are ranked by likely inclusion, a
    classifier trained on the titles and abstracts of screened candidates and on the retained
    papers, with the terms behind each score. Each new candidate becomes screening/<id>.yaml for
    `masrl screen`. Answers are cached in .masrl-cache/ for a week (`masrl cache clear` drops
    them). A service that stays unavailable after its retries ends the search: what was found
    before is still ranked and queued, and the command exits 1 saying when to run it again.
    With --evaluate, nothing is searched: the recorded decisions are replayed round by round and
    by k-fold, beside ASReview's default model.

    With --source list, reads instead the curated lists FILE... (a README in Markdown, a BibTeX
    file or a CSV table naming papers by arXiv id, DOI, link or title), flags what the corpus
    holds or excluded, and queues the rest; the arXiv API gives the facts of papers with an arXiv
    id (--offline: only what the list says). `masrl coverage FILE` shows how much of a list the
    corpus has screened. --round names the discovery round the queued candidates belong to.

    Example:

    \b
        masrl discover
        masrl discover --source arxiv --since 2026-05-04 --json
        masrl discover --source manual --from found-by-hand.yaml
        masrl discover --source list awesome-list/README.md --round backfill
        masrl discover --markdown > pr-body.md
        masrl discover --evaluate
    """
    from masrl.living._net import CACHE_DAYS, CACHE_DIR, Client, NetworkError
    from masrl.living._queue import entry_data, write_entry
    from masrl.living._rank import MissingExtra
    from masrl.living._scaffold import unfinished_records
    from masrl.living._sources import SourceError, read_manual

    if as_json and as_markdown:
        raise MasrlError("--json and --markdown go one at a time")
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
    round_error = protocol.discovery_round_error(round_id) if round_id is not None else None
    if round_error:
        raise MasrlError(round_error)
    if evaluate:
        from masrl.living._evaluate import evaluate_report

        try:
            click.echo(evaluate_report(root, corpus, protocol), nl=False)
        except MissingExtra as exc:
            raise MasrlError(str(exc)) from None
        return
    today = dt.date.today().isoformat()
    for name, value in (("--since", since), ("--until", until)):
        if value is not None:
            try:
                dt.date.fromisoformat(value)
            except ValueError:
                raise MasrlError(f"{name} must be a date written YYYY-MM-DD, not {value!r}") from None
    until = until or today
    if since is None:
        # the last round closed by the end of the window, so a run for a given day (--until, as the
        # weekly run passes it) starts where that day's protocol ends, whatever the clock says
        last = protocol.last_closed_round(until)
        since = last.cutoff if last else protocol.rounds[0].start
    if since > until:
        raise MasrlError(f"--since {since} is after --until {until}")
    found: list[Found] = []
    notes: list[str] = []
    failure: str | None = None
    cached = 0
    if source == "list" and offline:
        found, notes = list_candidates(files, None, _known_or_queued(root, loaded))
    elif source == "list":
        with Client(root / CACHE_DIR) as client:
            try:
                found, notes = list_candidates(files, client, _known_or_queued(root, loaded))
            except (NetworkError, SourceError) as exc:
                raise MasrlError(f"{exc}; run again later, or with --offline to queue what the list says") from None
            cached = client.from_cache
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
        with Client(root / CACHE_DIR) as client:
            try:
                for name in (source,) if source else ("arxiv", "openalex"):
                    _fetch(client, corpus, protocol, name, since, until, found, notes)
            except (NetworkError, SourceError) as exc:
                failure = str(exc)
            cached = client.from_cache
    try:
        considered = consider(root, corpus, protocol, found, unfinished_records(loaded))
    except MissingExtra as exc:
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
    if as_json:
        click.echo(json.dumps([c.as_json() for c in considered], indent=2, ensure_ascii=False))
    elif as_markdown:
        click.echo(markdown(considered, since, until, notes), nl=False)
    else:
        click.echo(table(considered), nl=False)
    for note in notes:
        click.echo(f"note: {note}", err=True)
    known = sum(1 for c in considered if c.known)
    earlier = sum(1 for c in considered if c.earlier)
    where = "" if dry_run else f", {written} written to screening/"
    origin = f"from {', '.join(p.name for p in files)}" if source == "list" else f"from {since} to {until}"
    click.echo(
        f"{len(considered)} candidates {origin}: {known} known, {earlier} already queued, "
        f"{len(considered) - known - earlier} new{where}",
        err=True,
    )
    if cached:
        click.echo(
            f"{cached} answers came from {CACHE_DIR}/ (kept {CACHE_DAYS} days; `masrl cache clear` asks afresh)",
            err=True,
        )
    if failure is not None:
        raise MasrlError(f"{failure}; the search stopped there, and the candidates above are those found before it")
