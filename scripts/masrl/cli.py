"""The ``masrl`` command group. Each subcommand lives in a module of its own.

Subcommands are imported only when they run (or when help lists them), so ``masrl validate``
does not pay for the libraries that ``masrl build`` or ``masrl trace`` need.
"""

from __future__ import annotations

import contextlib
import importlib
import os
import sys
from pathlib import Path

import click

from masrl import __version__
from masrl.base import _cli_common

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
    "release": "masrl.release",
    "trace": "masrl.trace.command",
    "bench": "masrl.bench.command",
    "discover": "masrl.living.discover",
    "screen": "masrl.living.screen",
    "refresh": "masrl.living.refresh",
    "cache": "masrl.living.cache",
    "coverage": "masrl.living.coverage",
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
    ctx.obj = {"root": root.resolve() if root else None}  # found on first use: masrl.base._cli_common.root_of


def main() -> None:
    """Run the command line, then end the process without freeing every object one by one.

    A command that read a large trace holds hundreds of thousands of objects, and freeing them at
    exit takes a tenth of a second for 300,000 events; by the time a command returns, everything
    it writes is closed and standard output and error only need flushing.
    """
    _cli_common.HARD_EXIT = True
    try:
        cli(prog_name="masrl")
        code: object = 0
    except SystemExit as exc:
        code = exc.code
    if code is not None and not isinstance(code, int):
        print(code, file=sys.stderr)
        code = 1
    for stream in (sys.stdout, sys.stderr):
        # A reader that went away (masrl ... | head) can be sent nothing more.
        with contextlib.suppress(OSError):
            stream.flush()
    os._exit(code or 0)
