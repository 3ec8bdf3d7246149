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

from masrl.corpus import _vocab as v
from masrl.corpus._format import dump_record
from masrl.corpus._vocab import Taxonomy, load_taxonomy

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


def copy_corpus(root: Path, into: Path) -> None:
    """A private copy of the real corpus (its records and what builds them), so a benchmark never
    touches the working tree; *into* is emptied first."""
    from masrl.publish._state import INPUT_DIRS, INPUT_FILES

    if into.exists():
        shutil.rmtree(into)
    into.mkdir(parents=True)
    for name in INPUT_FILES:
        if (root / name).is_file():
            shutil.copy(root / name, into / name)
    for folder in INPUT_DIRS:
        if (root / folder).is_dir():
            shutil.copytree(root / folder, into / folder, ignore=shutil.ignore_patterns("build"))


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


# ---------------------------------------------------------------------------------------------
# The corpus grown to a size, with text that reads like its own


def _shuffled(text: str, rng: random.Random, sentence: bool = False) -> str:
    """*text* with its words in another order: the same length and words, no run of it repeated."""
    words = text.rstrip(".").split() if sentence else text.split()
    rng.shuffle(words)
    out = " ".join(words)
    if sentence:
        out = out[:1].upper() + out[1:] + "."
    return out


def _grown_paper(data: dict[str, Any], i: int, rng: random.Random, families: list[str]) -> dict[str, Any]:
    """A generated paper made from the real record *data*: re-keyed, new identifiers, its text
    reshuffled and its authors' family names redrawn."""
    out = dict(data)
    year = int(out["year"])
    out["key"] = f"{out['key']}-g{i}"
    out["title"] = _shuffled(out["title"], rng)
    out["authors"] = [f"{rng.choice(families)}, {a.split(', ', 1)[-1]}" for a in out["authors"]]
    if out.get("arxiv") or str(out.get("url", "")).startswith("https://arxiv.org/"):
        arxiv = f"{year % 100:02d}{rng.randint(1, 12):02d}.{90000 + i:05d}"
        out["arxiv"] = arxiv
        out["url"] = f"https://arxiv.org/abs/{arxiv}"
        if "bibtex" in out and "journal" in out["bibtex"]:
            out["bibtex"] = {**out["bibtex"], "journal": f"arXiv preprint arXiv:{arxiv}"}
    else:
        out["url"] = f"{out['url']}?generated={i}"
    out.pop("doi", None)
    out.pop("more_urls", None)
    if out.get("code"):
        out["code"] = f"{out['code']}-g{i}"
    out["summary"] = _shuffled(out["summary"], rng, sentence=True)
    if out.get("notes"):
        out["notes"] = _shuffled(out["notes"], rng)
    if out.get("subdecisions"):
        out["subdecisions"] = {
            o: {**s, "evidence": _shuffled(s["evidence"], rng, sentence=True)} for o, s in out["subdecisions"].items()
        }
    out[v.ORIGIN] = "discovery"
    out["added"] = "2026-12-01"
    out.pop("changes", None)
    return out


def _grown_exclusion(data: dict[str, Any], i: int, rng: random.Random, first: int) -> dict[str, Any]:
    """Exclusion *data* re-identified as the *i*-th generated one, numbered from E<*first*>."""
    out = dict(data)
    arxiv = f"25{rng.randint(1, 12):02d}.{80000 + i:05d}"
    out["id"] = f"E{first + i}"
    out["label"] = _shuffled(out["label"], rng)
    out["identifier"] = f"arXiv:{arxiv}"
    out["url"] = f"https://arxiv.org/abs/{arxiv}"
    out["note"] = _shuffled(out["note"], rng, sentence=True)
    if out.get("if_retained"):
        out["if_retained"] = {**out["if_retained"], "basis": _shuffled(out["if_retained"]["basis"], rng)}
    out[v.ORIGIN] = "discovery"
    out["added"] = "2026-12-01"
    out.pop("changes", None)
    return out


def write_grown_corpus(source_root: Path, out: Path, entries: int, seed: int = 7) -> None:
    """A copy of the corpus at *source_root* (records, protocol, claims, site, README) grown to
    *entries* retained entries, and to as many exclusions as keep the corpus's own ratio of
    exclusions to entries, by generated records that read like its own.

    Each generated record is a real one re-keyed with new identifiers, its title, summary, notes
    and evidence reshuffled word by word and its authors' family names redrawn from the corpus's:
    the records keep the real sizes and the real spread of words and tags, while no text repeats
    (which would flatter a compressed page). Every record validates.
    """
    from masrl.corpus._yaml import load_path

    taxonomy = load_taxonomy(source_root)
    rng = random.Random(seed)
    copy_corpus(source_root, out)
    papers = [load_path(p).data for p in sorted((source_root / "papers").glob("*.yaml"))]
    exclusions = [load_path(p).data for p in sorted((source_root / "exclusions").glob("*.yaml"))]
    families = sorted({a.split(", ", 1)[0] for p in papers for a in p["authors"]})
    for i in range(max(0, entries - len(papers))):
        record = _grown_paper(papers[i % len(papers)], i, rng, families)
        (out / "papers" / f"{record['key']}.yaml").write_text(dump_record("paper", record, taxonomy), "utf-8")
    wanted = round(entries * len(exclusions) / len(papers)) if papers else 0
    # generated ids follow the corpus's highest, so none overwrites a real record
    first = max((int(str(e["id"])[1:]) for e in exclusions if str(e["id"])[1:].isdigit()), default=0) + 1
    for i in range(max(0, wanted - len(exclusions))):
        record = _grown_exclusion(exclusions[i % len(exclusions)], i, rng, first)
        (out / "exclusions" / f"{record['id']}.yaml").write_text(dump_record("exclusion", record, taxonomy), "utf-8")
