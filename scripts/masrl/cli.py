"""The ``masrl`` command group. Each subcommand lives in a module of its own."""

from __future__ import annotations

from pathlib import Path

import click

from masrl import __version__
from masrl._records import find_root


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="masrl")
@click.option(
    "--root",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Corpus folder holding taxonomy.yaml. Default: $MASRL_ROOT, else the nearest such folder upwards.",
)
@click.pass_context
def cli(ctx: click.Context, root: Path | None) -> None:
    """Validate, analyse and publish the LLM-MAS RL corpus.

    Records live in papers/, exclusions/ and audits/ as one YAML file each; taxonomy.yaml holds
    the vocabulary. Start with `masrl validate`, regenerate everything with `masrl build`.
    """
    ctx.obj = {"root": root.resolve() if root else find_root()}


def _register() -> None:
    from masrl import add, audit, bench, build, check, claims, diff, export, fmt, links, schema, stats, validate
    from masrl.trace import command as trace

    for module in (validate, build, check, stats, claims, audit, diff, add, fmt, links, schema, export, trace, bench):
        cli.add_command(module.command)


_register()


def main() -> None:
    cli(prog_name="masrl")
