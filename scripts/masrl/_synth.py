"""Synthetic corpora for benchmarks: many valid records drawn from the real vocabulary.

The generator is seeded, so a given size always yields the same files. Every record passes
``masrl validate``; tags are drawn uniformly from taxonomy.yaml, so every count and cross-tab cell
of a large synthetic corpus is populated.
"""

from __future__ import annotations

import random
import shutil
from pathlib import Path
from typing import Any

from masrl import _vocab as v
from masrl._format import dump_record
from masrl._vocab import Taxonomy, load_taxonomy

_WORDS = [
    "agent",
    "team",
    "credit",
    "reward",
    "orchestration",
    "planner",
    "critic",
    "swarm",
    "delegation",
    "message",
    "token",
    "turn",
    "role",
    "verifier",
    "debate",
    "aggregation",
    "spawning",
    "routing",
    "policy",
    "gradient",
    "advantage",
    "baseline",
    "trace",
]


def _title(rng: random.Random) -> str:
    words = rng.sample(_WORDS, 6)
    return " ".join(w.capitalize() if i == 0 else w for i, w in enumerate(words))


_ADDED = "2026-05-04"


def _tags(kind: str, rng: random.Random, taxonomy: Taxonomy) -> dict[str, Any]:
    """A value for every tag field of *kind*: one id, or a non-empty sample for a list field."""
    out: dict[str, Any] = {}
    for f in taxonomy.tag_fields(kind):
        out[f.name] = rng.sample(f.ids, rng.randint(1, min(2, len(f.ids)))) if f.multiple else rng.choice(f.ids)
    return out


def synthetic_paper(i: int, rng: random.Random, taxonomy: Taxonomy) -> dict[str, Any]:
    """A valid paper record numbered *i*."""

    def pick(field: str) -> str:
        return rng.choice(taxonomy.ids(field))

    category = pick(v.CATEGORY)
    rl = pick(v.RL)
    role = v.CASE if category == v.INDUSTRY else rng.choice([r for r in taxonomy.ids(v.ROLE) if r != v.CASE])
    credit = pick(v.CREDIT_UNIT)
    year = rng.randint(2019, 2026)
    arxiv = f"{year % 100:02d}{rng.randint(1, 12):02d}.{i:05d}"
    record: dict[str, Any] = {
        "key": f"synth-{i:05d}",
        "title": _title(rng),
        "authors": [f"Author{j}, A." for j in range(rng.randint(1, 4))],
        "affiliation": "Synthetic University",
        "year": year,
        "arxiv": arxiv,
        "venue": "arXiv",
        "url": f"https://arxiv.org/abs/{arxiv}",
        **_tags("paper", rng, taxonomy),
        v.CATEGORY: category,
        v.RL: rl,
        v.CREDIT_UNIT: credit,
        v.ROLE: role,
        "added": _ADDED,
        "strict_credit": credit != v.NA and rng.random() < 0.3,
    }
    if category in taxonomy.subdecisions_required_for or rng.random() < 0.2:
        codes = [c for c in taxonomy.ids(v.SUBDECISION_CODE) if rl != v.RL_NO or c != v.LEARNED]
        record["subdecisions"] = {
            o: {"code": rng.choice(codes), "basis": pick(v.EVIDENCE_BASIS), "evidence": "Synthetic evidence sentence."}
            for o in taxonomy.ids(v.SUBDECISION)
            if rng.random() < 0.3
        }
    record["summary"] = f"Synthetic entry number {i} about {rng.choice(_WORDS)} learning."
    return record


def synthetic_exclusion(i: int, rng: random.Random, taxonomy: Taxonomy) -> dict[str, Any]:
    """A valid exclusion record numbered *i*."""
    arxiv = f"25{rng.randint(1, 12):02d}.{90000 + i % 10000:05d}"
    return {
        "id": f"E{i:05d}",
        "source": "arXiv",
        "query_family": rng.choice(["multi-agent LLM", "orchestration", "credit assignment"]),
        "label": _title(rng),
        "identifier": f"arXiv:{arxiv}",
        "url": f"https://arxiv.org/abs/{arxiv}",
        "date_screened": "2026-04-26",
        "stage": rng.choice(taxonomy.ids(v.SCREENING_STAGE)),
        "reasons": rng.sample(taxonomy.ids(v.EXCLUSION_REASON), 2),
        **_tags("exclusion", rng, taxonomy),
        "added": _ADDED,
        "note": "Synthetic exclusion for benchmarks.",
    }


def write_synthetic_corpus(source_root: Path, out: Path, papers: int, exclusions: int, seed: int = 7) -> None:
    """Fill *out* with taxonomy.yaml, claims.yaml and README.md (if any) and generated records."""
    taxonomy = load_taxonomy(source_root)
    rng = random.Random(seed)
    if out.exists():
        shutil.rmtree(out)
    (out / "papers").mkdir(parents=True)
    (out / "exclusions").mkdir()
    for name in ("taxonomy.yaml", "venues.yaml", "claims.yaml", "README.md"):
        if (source_root / name).is_file():
            shutil.copy(source_root / name, out / name)
    for i in range(papers):
        record = synthetic_paper(i, rng, taxonomy)
        (out / "papers" / f"{record['key']}.yaml").write_text(dump_record("paper", record, taxonomy), "utf-8")
    for i in range(exclusions):
        record = synthetic_exclusion(i, rng, taxonomy)
        (out / "exclusions" / f"{record['id']}.yaml").write_text(dump_record("exclusion", record, taxonomy), "utf-8")
