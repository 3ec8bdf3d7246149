"""``masrl schema``: regenerate the JSON Schemas for records and data files from taxonomy.yaml."""

from __future__ import annotations

from pathlib import Path

import click

from masrl.base._cli_common import root_of
from masrl.base._writer import write_all
from masrl.corpus._cli import taxonomy_failures
from masrl.corpus._vocab import load_taxonomy
from masrl.publish._schemas import render_schemas


@click.command(name="schema")
@click.pass_context
def command(ctx: click.Context) -> None:
    """Write schemas/{paper,exclusion,audit,protocol,venues,stats}.schema.json from taxonomy.yaml.

    Editors that use the YAML language server read these through the `# yaml-language-server:
    $schema=` line at the top of every record, to autocomplete values and flag wrong ones.
    `masrl build` runs this too.

    Example:

    \b
        masrl schema
    """
    root: Path = root_of(ctx)
    with taxonomy_failures():
        taxonomy = load_taxonomy(root)
    for rel in write_all(root, render_schemas(taxonomy)):
        click.echo(f"wrote {rel}")
