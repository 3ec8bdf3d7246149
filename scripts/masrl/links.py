"""``masrl links``: check that every URL in the records still answers."""

from __future__ import annotations

import click

from masrl.base._cli_common import ReportedFailure, root_of
from masrl.corpus._cli import load_or_fail


@click.command(name="links")
@click.option("--concurrency", default=8, show_default=True, help="Requests in flight at once, over all hosts.")
@click.option("--per-host", default=2, show_default=True, help="Requests in flight at once to one host.")
@click.option("--interval", default=1.0, show_default=True, help="Seconds between request starts to one host.")
@click.option("--retries", default=3, show_default=True, help="Retries after a timeout, 429 or 5xx.")
@click.option("--timeout", default=15.0, show_default=True, help="Seconds to wait for one answer.")
@click.option("--only", default="", help="Check only URLs containing this text.")
@click.option("--strict", is_flag=True, help="Also fail on links a server would not let us verify (401, 403, 429).")
@click.pass_context
def command(
    ctx: click.Context,
    concurrency: int,
    per_host: int,
    interval: float,
    retries: int,
    timeout: float,
    only: str,
    strict: bool,
) -> None:
    """Check every URL in papers/ and exclusions/ and report the dead ones.

    Meant for a scheduled job rather than every pull request: it makes one request per link,
    spaced per host, retrying timeouts, 429 and 5xx with backoff. Dead links (404, 410, hosts
    that do not resolve) and links still failing after the retries make it exit 1; links a
    server refuses to robots (401, 403) are listed as unverified.

    Example:

    \b
        masrl links
        masrl links --only arxiv.org --per-host 1 --interval 3
    """
    from masrl.living._links import DEAD, FAILING, OK, UNVERIFIED, check_urls

    loaded = load_or_fail(root_of(ctx))
    docs = {h.shown: h.doc for h in loaded.handles}
    refs: list[tuple[str, str, int, int, str]] = []  # (url, file, line, column, field)
    for p in loaded.corpus.papers:
        for i, url in enumerate(p.urls):
            where: tuple[str | int, ...] = ("url",) if i == 0 else ("more_urls", i - 1)
            mark = docs[p.path].mark(where)
            refs.append((url, p.path, mark.line, mark.column, "url" if i == 0 else f"more_urls[{i - 1}]"))
    for e in loaded.corpus.exclusions:
        mark = docs[e.path].mark(("url",))
        refs.append((e.url, e.path, mark.line, mark.column, "url"))
    refs = [r for r in refs if only in r[0]]
    outcomes = check_urls(
        [r[0] for r in refs],
        concurrency=concurrency,
        per_host=per_host,
        interval=interval,
        retries=retries,
        timeout=timeout,
    )
    tally = {OK: 0, DEAD: 0, FAILING: 0, UNVERIFIED: 0}
    for outcome in outcomes.values():
        tally[outcome.verdict] += 1
    for url, shown, line, column, field in sorted(refs, key=lambda r: (r[1], r[2])):
        outcome = outcomes[url]
        if outcome.verdict != OK:
            click.echo(f"{shown}:{line}:{column}: {field}: {outcome.verdict} link {url} ({outcome.detail})")
    click.echo(
        f"{len(outcomes)} links checked: {tally[OK]} ok, {tally[DEAD]} dead, {tally[FAILING]} failing, "
        f"{tally[UNVERIFIED]} unverified",
        err=True,
    )
    if tally[DEAD] or tally[FAILING] or (strict and tally[UNVERIFIED]):
        raise ReportedFailure()
