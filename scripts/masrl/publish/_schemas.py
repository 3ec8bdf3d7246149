"""The JSON Schemas the build writes to ``schemas/``: one per record kind, the protocol's and the statistics'.

``masrl schema`` writes them alone; ``masrl build`` writes them with every other output.
"""

from __future__ import annotations

import json

from masrl.corpus._schema import RECORD_KINDS, json_schema
from masrl.corpus._vocab import Taxonomy

SCHEMA_DIR = "schemas"


def schema_path(kind: str) -> str:
    return f"{SCHEMA_DIR}/{kind}.schema.json"


def render_schemas(taxonomy: Taxonomy) -> dict[str, str]:
    """Every record schema, and the stats document's, as {relative path: JSON text}."""
    from masrl.analysis._stats import stats_schema
    from masrl.corpus._venues import venues_schema
    from masrl.living._protocol import protocol_schema

    out = {
        schema_path(kind): json.dumps(json_schema(kind, taxonomy), indent=2, ensure_ascii=False) + "\n"
        for kind in RECORD_KINDS
    }
    out[schema_path("stats")] = json.dumps(stats_schema(taxonomy), indent=2, ensure_ascii=False) + "\n"
    out[schema_path("protocol")] = json.dumps(protocol_schema(taxonomy), indent=2, ensure_ascii=False) + "\n"
    out[schema_path("venues")] = json.dumps(venues_schema(taxonomy), indent=2, ensure_ascii=False) + "\n"
    return out
