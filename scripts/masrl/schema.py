"""``masrl schema``: regenerate the JSON Schemas for records and data files from taxonomy.yaml."""

from __future__ import annotations

import json
from pathlib import Path

import click

from masrl._cli_common import root_of, taxonomy_failures
from masrl._schema import RECORD_KINDS, json_schema
from masrl._vocab import Taxonomy, load_taxonomy
from masrl._writer import write_all

SCHEMA_DIR = "schemas"


def schema_path(kind: str) -> str:
    return f"{SCHEMA_DIR}/{kind}.schema.json"


def render_schemas(taxonomy: Taxonomy) -> dict[str, str]:
    """Every record schema, and the stats document's, as {relative path: JSON text}."""
    from masrl._stats import stats_schema
    from masrl._venues import venues_schema
    from masrl.living._protocol import protocol_schema

    out = {
        schema_path(kind): json.dumps(json_schema(kind, taxonomy), indent=2, ensure_ascii=False) + "\n"
        for kind in RECORD_KINDS
    }
    out[schema_path("stats")] = json.dumps(stats_schema(taxonomy), indent=2, ensure_ascii=False) + "\n"
    out[schema_path("protocol")] = json.dumps(protocol_schema(taxonomy), indent=2, ensure_ascii=False) + "\n"
    out[schema_path("venues")] = json.dumps(venues_schema(taxonomy), indent=2, ensure_ascii=False) + "\n"
    return out


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
