"""``masrl coverage``: how much of another curated list the corpus has screened."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import click

from masrl.base._cli_common import MasrlError, root_of
from masrl.corpus._cli import load_tolerating_unfinished
from masrl.corpus._records import Corpus
from masrl.living._lists import ListError, Matched, ReadList, match_list, read_list

TITLE_WIDTH = 80


@dataclass
class Coverage:
    """One list against the corpus."""

    read: ReadList
    matched: list[Matched]

    def count(self, status: str) -> int:
        return sum(1 for m in self.matched if m.status == status)

    @property
    def screened(self) -> int:
        return self.count("retained") + self.count("excluded")

    @property
    def share(self) -> float:
        return self.screened / len(self.matched) if self.matched else 1.0

    def as_json(self) -> dict[str, Any]:
        return {
            "file": self.read.shown,
            "format": self.read.format,
            "listed": len(self.matched),
            "screened": self.screened,
            "retained": self.count("retained"),
            "excluded": self.count("excluded"),
            "queued": self.count("queued"),
            "unscreened": self.count("queued") + self.count("unscreened"),
            "papers": [_paper_json(m) for m in self.matched],
            "warnings": [{"line": p.line, "message": p.message} for p in self.read.problems],
        }


def _paper_json(m: Matched) -> dict[str, Any]:
    p = m.listed
    return {
        "line": p.line,
        "title": p.title,
        "arxiv": p.arxiv,
        "doi": p.doi,
        "url": p.url,
        "status": m.status,
        "record": m.record,
        "queued": m.queued,
    }


def coverage(
    corpus: Corpus, lists: Sequence[ReadList], queue: Sequence[Any] = (), unfinished: Sequence[Any] = ()
) -> list[Coverage]:
    """Each list of *lists* matched against *corpus* (and its *unfinished* records) and the screening *queue*."""
    return [Coverage(read, match_list(read, corpus, queue, unfinished)) for read in lists]


def _short(text: str | None) -> str:
    text = text or "(no title)"
    return text if len(text) <= TITLE_WIDTH else text[: TITLE_WIDTH - 3] + "..."


def text_report(results: Sequence[Coverage]) -> str:
    """Per list: its counts, then every paper it lists that the corpus has not screened."""
    lines = []
    for c in results:
        n = len(c.matched)
        waiting = c.count("queued")
        lines.append(
            f"{c.read.shown}: {n} papers listed; {c.screened} screened ({c.share:.0%}): "
            f"{c.count('retained')} retained, {c.count('excluded')} excluded; "
            f"{n - c.screened} not screened" + (f" ({waiting} waiting in screening/)" if waiting else "")
        )
        unscreened = [m for m in c.matched if m.status in ("queued", "unscreened")]
        width = max([len(m.listed.shown_id()) for m in unscreened] + [0])
        for m in unscreened:
            where = f"  [screening/{m.queued}.yaml]" if m.queued else ""
            lines.append(f"  line {m.listed.line:>5}  {m.listed.shown_id():<{width}}  {_short(m.listed.title)}{where}")
    if len(results) > 1:
        total = sum(len(c.matched) for c in results)
        screened = sum(c.screened for c in results)
        share = screened / total if total else 1.0
        lines.append(f"all {len(results)} lists: {total} papers listed; {screened} screened ({share:.0%})")
    return "\n".join(lines) + "\n"


def estimate_report(report: dict[str, Any]) -> str:
    """The text `masrl coverage --estimate` prints for each round run by the arms."""
    lines: list[str] = []
    for round_id, r in report.items():
        lines.append(f"round {round_id} ({r['label']})")
        flow = r["flow"]
        found = ", ".join(f"{a} {x['candidates']}" for a, x in flow["identified"].items())
        lines.append(f"  candidates found: {flow['distinct']} distinct ({found})")
        lines.append(
            f"  {flow['known']} already in the corpus before the round, {flow['outside']} first out before its window; "
            f"{flow['screened']} screened in the round ({flow['included']} included, {flow['excluded']} excluded), "
            f"{flow['waiting']} waiting in screening/, {flow['unscreened']} ranked below where screening stopped, "
            f"{flow['awaiting']} awaiting an abstract"
        )
        est = r["estimate"]
        if "error" in est:
            lines.append(f"  estimate: none ({est['error']})")
        else:
            lo, hi = est["interval"]
            rlo, rhi = est["recall_interval"]
            lines.append(
                f"  in-scope papers found: {est['observed']}; estimated to exist: {est['population']:.0f} "
                f"(95% interval {lo:.0f} to {hi:.0f})"
            )
            lines.append(f"  recall of the corpus: {est['recall']:.1%} (95% interval {rlo:.1%} to {rhi:.1%})")
            for source, x in est["per_source"].items():
                slo, shi = x["recall_interval"]
                lines.append(
                    f"    {source:<10} found {x['found']:>4}: recall {x['recall']:.1%} ({slo:.1%} to {shi:.1%})"
                )
            best = est["models"][0]
            lines.append(
                f"  best model: {best['model']} (Akaike weight {best['weight']:.2f}; {len(est['models'])} averaged)"
            )
        stop = r["stopping"]
        if stop.get("applies"):
            b, w = stop["recall_lower_bound"], stop["last_screened"]
            value = "none" if b["value"] is None else f"{b['value']:.1%}"
            lines.append(
                f"  stopping rule: recall lower bound {value} >= {b['required']:.0%}: {'holds' if b['holds'] else 'not yet'}; "
                f"last {w['window']} screened in ranked order hold {w['includes']} includes (at most {w['max_includes']}"
                f"{'; only ' + str(w['screened']) + ' screened' if w['screened'] < w['window'] else ''}"
                f"{'; ' + str(len(w['skipped'])) + ' skipped above them' if w['skipped'] else ''}): "
                f"{'holds' if w['holds'] else 'not yet'}"
            )
            lines.append(f"  the round {'may close' if stop['closes'] else 'stays open'}")
    if not lines:
        lines.append("no round of protocol.yaml is run by the arms (none sets population:)")
    return "\n".join(lines) + "\n"


@click.command(name="coverage")
@click.argument("files", nargs=-1, type=click.Path(path_type=Path))
@click.option(
    "--json", "as_json", is_flag=True, help="Print every listed paper with what the corpus made of it, as JSON."
)
@click.option(
    "--estimate",
    is_flag=True,
    help="Estimate, from how the search arms overlap, how many in-scope papers exist and the corpus's recall.",
)
@click.pass_context
def command(ctx: click.Context, files: tuple[Path, ...], as_json: bool, estimate: bool) -> None:
    """Compare the corpus with curated lists of the field kept elsewhere, or estimate what is missing.

    Reads each FILE (a README in Markdown, a BibTeX file or a CSV table) for the papers it names,
    by arXiv id (any version, old style too), DOI, link or title, and prints how many of them the
    corpus has screened: retained in papers/ or excluded in exclusions/. Then it lists, with their
    lines, the papers never screened (those waiting in screening/ are marked). A list that gives
    one arXiv id or DOI to titles that disagree is warned of on stderr, with the lines: the id
    counts once. Nothing is written; queue the unscreened with `masrl discover --source list FILE`.

    With --estimate (and no FILE), reads the sightings of every round run by the search arms
    (screening/found_by.csv: each candidate with every arm that found it) and prints, per round,
    what each arm found, the capture-recapture estimate of how many in-scope papers exist (the
    round's population in protocol.yaml), the corpus's recall with its 95% interval, each arm's
    recall, and whether the stopping rule holds. It runs offline on the records.

    Example:

    \b
        masrl coverage awesome-llm-marl/README.md
        masrl coverage lists/*.md papers.bib --json
        masrl coverage --estimate
    """
    from masrl.living._queue import read_queue
    from masrl.living._scaffold import unfinished_records

    root = root_of(ctx)
    if estimate:
        if files:
            raise MasrlError("--estimate reads the records, not lists: give no FILE with it")
        _estimate(root, as_json)
        return
    if not files:
        raise MasrlError("give the curated lists to compare (FILE...), or --estimate")
    loaded = load_tolerating_unfinished(root)
    lists = []
    for path in files:
        try:
            lists.append(read_list(path))
        except ListError as exc:
            raise MasrlError(str(exc)) from None
    for problem in (p for read in lists for p in read.problems):
        click.echo(f"{problem.path}:{problem.line}: warning: {problem.message}", err=True)
    entries, _ = read_queue(root)
    results = coverage(loaded.corpus, lists, entries, unfinished_records(loaded))
    if as_json:
        click.echo(json.dumps({"lists": [c.as_json() for c in results]}, indent=2, ensure_ascii=False))
    else:
        click.echo(text_report(results), nl=False)


def _estimate(root: Path, as_json: bool) -> None:
    from masrl.base._cli_common import ReportedFailure, report
    from masrl.corpus._cli import load_or_fail
    from masrl.living._arms import arms_report
    from masrl.living._protocol import ProtocolError, load_protocol

    loaded = load_or_fail(root)
    try:
        protocol = load_protocol(root, loaded.corpus.taxonomy)
    except ProtocolError as exc:
        report(exc.problems, 1)
        raise ReportedFailure() from None
    result, problems = arms_report(root, protocol, loaded.corpus)
    if any(p.is_error for p in problems):
        report(problems, 1)
        raise ReportedFailure()
    if as_json:
        click.echo(json.dumps({"rounds": result}, indent=2, ensure_ascii=False))
    else:
        click.echo(estimate_report(result), nl=False)
