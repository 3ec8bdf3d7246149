"""A release: its CHANGELOG.md entry, its CITATION.cff and its ``.zenodo.json``, as text.

``masrl release VERSION`` (``release.py``) checks the tree, reads the corpus at the last release
tag and now, and writes what these functions return. Everything here is pure: two analysed
corpora and a version in, text out.
"""

from __future__ import annotations

import json
import re
from typing import Any

from masrl.publish._build import Analysis

# Calendar versions: YYYY.MM, and YYYY.MM.N for a further release in the same month.
VERSION = re.compile(r"^(?P<year>20\d\d)\.(?P<month>0[1-9]|1[0-2])(?:\.(?P<micro>[1-9]\d*))?$")
CHANGELOG = "CHANGELOG.md"
CITATION = "CITATION.cff"
ZENODO = ".zenodo.json"
SURVEY_ARXIV = "2605.02801"  # the survey the corpus accompanies
CHANGELOG_HEAD = (
    "# Changelog\n\n"
    "Each release of the corpus is a git tag named by its calendar version (YYYY.MM). "
    "`masrl stats --at VERSION` reproduces the figures of any release exactly.\n"
)


class ReleaseError(ValueError):
    """A release that cannot be made, with the reason for the user."""


def version_key(version: str) -> tuple[int, int, int] | None:
    """(year, month, micro) of a calendar version, or None for any other string."""
    match = VERSION.match(version)
    if match is None:
        return None
    return int(match["year"]), int(match["month"]), int(match["micro"] or 0)


def check_version(version: str, date: str) -> None:
    """Refuse a version that is not YYYY.MM[.N] or names a month after *date* (YYYY-MM-DD)."""
    key = version_key(version)
    if key is None:
        raise ReleaseError(
            f"'{version}' is not a calendar version: use YYYY.MM (e.g. 2026.12), "
            "or YYYY.MM.N for a further release in the same month"
        )
    if (key[0], key[1]) > (int(date[:4]), int(date[5:7])):
        raise ReleaseError(f"version {version} names a month after the release date {date}")


def last_release(tags: list[str], version: str) -> str | None:
    """The newest calendar-version tag; a clear error if *version* is not newer than it or exists."""
    releases = sorted((k, t) for t in tags if (k := version_key(t)) is not None)
    if version in tags:
        raise ReleaseError(f"tag {version} already exists")
    if not releases:
        return None
    newest_key, newest = releases[-1]
    if newest_key >= (version_key(version) or (0, 0, 0)):
        raise ReleaseError(f"version {version} is not newer than the last release {newest}")
    return newest


def _labels(analysis: Analysis) -> dict[str, dict[str, str]]:
    return {name: {x.id: x.label for x in f.values} for name, f in analysis.corpus.taxonomy.fields.items()}


def _taxonomy_changes(before: Analysis, after: Analysis) -> list[str]:
    old, new = _labels(before), _labels(after)
    lines = []
    for name in sorted(set(old) | set(new)):
        if name not in old:
            lines.append(f"- `{name}`: new field ({', '.join(f'`{v}`' for v in new[name])})")
        elif name not in new:
            lines.append(f"- `{name}`: field removed")
        else:
            added = [v for v in new[name] if v not in old[name]]
            removed = [v for v in old[name] if v not in new[name]]
            relabelled = [v for v in new[name] if v in old[name] and old[name][v] != new[name][v]]
            parts = []
            if added:
                parts.append("added " + ", ".join(f"`{v}`" for v in added))
            if removed:
                parts.append("removed " + ", ".join(f"`{v}`" for v in removed))
            if relabelled:
                parts.append("relabelled " + ", ".join(f"`{v}`" for v in relabelled))
            if parts:
                lines.append(f"- `{name}`: {'; '.join(parts)}")
    return lines


def _section(title: str, lines: list[str]) -> str:
    return f"\n### {title} ({len(lines)})\n\n" + "\n".join(lines) + "\n" if lines else ""


def _totals(analysis: Analysis) -> str:
    c = analysis.corpus
    return f"{len(c.papers)} papers retained, {len(c.exclusions)} excluded, {len(c.audits)} audited."


def changelog_entry(version: str, date: str, before: Analysis | None, since: str | None, after: Analysis) -> str:
    """The CHANGELOG.md entry of *version*: what changed in the records since the release *since*."""
    head = f"## {version} ({date})\n\n{_totals(after)}"
    if before is None or since is None:
        return head + " The first release.\n"
    head += f" Changes since {since}:\n"
    old_papers = {p.key: p for p in before.corpus.papers}
    new_papers = {p.key: p for p in after.corpus.papers}
    added = [f"- `{k}`: {p.title} ({p.year})" for k, p in new_papers.items() if k not in old_papers]
    removed = [f"- `{k}`: {p.title} ({p.year})" for k, p in old_papers.items() if k not in new_papers]
    old_exclusions = {e.id for e in before.corpus.exclusions}
    exclusions = [
        f"- `{e.id}`: {e.label} ({', '.join(e.reasons)})" for e in after.corpus.exclusions if e.id not in old_exclusions
    ]
    old_changes: dict[str, set[tuple[str, str]]] = {
        **{p.key: {(c.date, c.note) for c in p.changes} for p in before.corpus.papers},
        **{e.id: {(c.date, c.note) for c in e.changes} for e in before.corpus.exclusions},
    }
    corrections: list[str] = []
    named = [(p.key, p.changes) for p in after.corpus.papers] + [(e.id, e.changes) for e in after.corpus.exclusions]
    for name, changes in named:
        earlier = old_changes.get(name, set())
        corrections.extend(f"- `{name}` ({c.date}): {c.note}" for c in changes if (c.date, c.note) not in earlier)
    old_claims = {o.claim.id: o for o in before.outcomes}
    moved = []
    for o in after.outcomes:
        was = old_claims.get(o.claim.id)
        if was is None:
            moved.append(f"- `{o.claim.id}`: new claim; {'holds' if o.holds else 'does not hold'}")
        elif was.holds != o.holds:
            verdict = "now holds" if o.holds else "no longer holds"
            moved.append(f"- `{o.claim.id}`: {verdict} ({_show(was.actual)} → {_show(o.actual)})")
    taxonomy = _taxonomy_changes(before, after)
    body = (
        _section("Papers added", added)
        + _section("Papers removed", removed)
        + _section("Exclusions added", exclusions)
        + _section("Corrections", corrections)
        + _section("Claims whose verdict moved", moved)
        + _section("Taxonomy changes", taxonomy)
    )
    return head + (body or "\nNo change to the records.\n")


SNAPSHOT_CUTOFF = "2026-05-04"  # the survey's search cutoff (protocol-facts.md)


def snapshot_entry(snapshot: Analysis) -> str:
    """The CHANGELOG.md entry that stands for the survey snapshot, below the first release: the
    records taken from the survey's tables, whose figures `masrl stats --snapshot survey` keeps."""
    return (
        f"## Survey snapshot ({SNAPSHOT_CUTOFF})\n\n{_totals(snapshot)} The records of the survey's own tables "
        f"(arXiv {SURVEY_ARXIV}), as its search stood at its cutoff; every later record is added to them, and "
        "`masrl stats --snapshot survey` reproduces the survey's figures from any release.\n"
    )


def _show(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False) if not isinstance(value, str) else value


def with_entry(changelog: str | None, entry: str) -> str:
    """CHANGELOG.md with *entry* as its newest release (the file is started when there is none)."""
    text = changelog if changelog else CHANGELOG_HEAD
    marker = re.search(r"^## ", text, re.M)
    if marker is None:
        return text.rstrip("\n") + "\n\n" + entry
    return text[: marker.start()] + entry + "\n" + text[marker.start() :]


def with_version(citation: str, version: str, date: str) -> str:
    """CITATION.cff with its top-level ``version`` and ``date-released`` set (comments kept)."""
    out = citation
    for field, value in (("version", f'"{version}"'), ("date-released", f'"{date}"')):
        line = re.compile(rf"^{field}:.*$", re.M)
        if line.search(out):
            out = line.sub(f"{field}: {value}", out, count=1)
        else:
            anchor = re.search(r"^type:.*\n", out, re.M) or re.search(r"^title:.*\n", out, re.M)
            if anchor is None:
                raise ReleaseError(f"{CITATION} has no top-level title; cannot place {field}")
            out = out[: anchor.end()] + f"{field}: {value}\n" + out[anchor.end() :]
    return out


def zenodo(citation: dict[str, Any], version: str, date: str) -> str:
    """``.zenodo.json``: the metadata Zenodo reads when it archives a GitHub release."""
    creators = []
    for author in citation.get("authors", []):
        if "name" in author:
            creators.append({"name": author["name"]})
        else:
            creators.append({"name": f"{author.get('family-names', '')}, {author.get('given-names', '')}".strip(", ")})
    data = {
        "title": citation["title"],
        "version": version,
        "publication_date": date,
        "upload_type": "dataset",
        "description": " ".join(str(citation.get("abstract") or citation["title"]).split()),
        "creators": creators,
        "license": str(citation.get("license", "")).lower(),
        "keywords": list(citation.get("keywords", [])),
        "related_identifiers": [
            {"identifier": f"arXiv:{SURVEY_ARXIV}", "relation": "isSupplementTo", "scheme": "arxiv"},
        ],
    }
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"
