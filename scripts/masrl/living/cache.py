"""``masrl cache``: the answers of arXiv, OpenAlex and Crossref kept in ``.masrl-cache/``."""

from __future__ import annotations

import click

from masrl._cli_common import root_of


@click.group(name="cache")
def command() -> None:
    """The answers `masrl discover` and `masrl refresh` keep in .masrl-cache/.

    Answers are kept for a week, and only those that were read and had the expected shape; a
    rerun within the week asks no service again. Clear the cache to ask afresh.

    Example:

    \b
        masrl cache clear
    """


@command.command(name="clear")
@click.pass_context
def clear(ctx: click.Context) -> None:
    """Delete every answer kept in .masrl-cache/, so the next run asks every service again.

    Example:

    \b
        masrl cache clear
    """
    from masrl.living._net import CACHE_DIR
    from masrl.living._net import clear as clear_cache

    root = root_of(ctx)
    files, size = clear_cache(root / CACHE_DIR)
    if files:
        click.echo(f"removed {CACHE_DIR}/ ({files} files, {size:,} bytes)")
    else:
        click.echo(f"{CACHE_DIR}/ holds nothing; nothing to clear")
