"""The ``masrl`` command group. Each subcommand lives in a module of its own.

Subcommands are imported only when they run (or when help lists them), so ``masrl validate``
does not pay for the libraries that ``masrl build`` or ``masrl trace`` need.
"""

from __future__ import annotations

import importlib
from pathlib import Path

import click

from masrl import __version__
from masrl._records import find_root

# Command name -> module whose `command` attribute implements it.
COMMANDS = {
    "validate": "masrl.validate",
    "build": "masrl.build",
    "check": "masrl.check",
    "stats": "masrl.stats",
    "claims": "masrl.claims",
    "audit": "masrl.audit",
    "diff": "masrl.diff",
    "add": "masrl.add",
    "fmt": "masrl.fmt",
    "links": "masrl.links",
    "schema": "masrl.schema",
    "export": "masrl.export",
    "trace": "masrl.trace.command",
    "bench": "masrl.bench",
    "discover": "masrl.living.discover",
    "screen": "masrl.living.screen",
    "refresh": "masrl.living.refresh",
}


class LazyGroup(click.Group):
    """A group that imports a subcommand's module on first use."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(COMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        module = COMMANDS.get(cmd_name)
        if module is None:
            return None
        command: click.Command = importlib.import_module(module).command
        return command


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
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


def main() -> None:
    cli(prog_name="masrl")
