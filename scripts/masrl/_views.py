"""Views: alternative readings of the corpus, each applied as a transform of the records.

A claim is a query (:mod:`masrl._claims`); a view says which records the query reads and how
they are re-read first. ``claims.yaml`` names every view under ``views:``::

    views:
      - id: strict
        label: Strict credit
        description: Credit counts only where the entry computes explicit credit.
        records: population        # snapshot, living, or the claim's own population
        apply: [strict_credit]      # transforms, applied in order

``records`` picks the starting records:

``snapshot``
    the survey's records, those whose origin is ``survey`` (audits follow their paper);
``living``
    every record, whatever its origin;
``population``
    the claim's own population (each claim says ``population: snapshot``, the default, or
    ``living``).

Then each transform in ``apply`` rewrites the records (see :data:`TRANSFORMS`). The query of every
claim then runs unchanged on the result. Views change nothing on disk; they are readings.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from masrl import _vocab as v
from masrl._problems import did_you_mean, one_of
from masrl._records import Corpus, Exclusion, Paper

SURVEY = v.SURVEY  # origin of the survey's own records: the snapshot
SNAPSHOT, LIVING = "snapshot", "living"
POPULATIONS = (SNAPSHOT, LIVING)  # what a claim may be about
POPULATION = "population"  # a view's records: the claim's own population
RECORDS = (*POPULATIONS, POPULATION)
VIEW_FIELDS = ("id", "label", "description", "records", "apply")
ID_PATTERN = "lowercase letters, digits and '_', e.g. 'second_reader'"


def origin_of(record: Paper | Exclusion) -> str:
    """Where *record* came from: ``survey``, ``contributor`` or ``discovery``."""
    return record.origin


@dataclass(frozen=True)
class View:
    id: str
    label: str
    description: str
    records: str
    apply: tuple[str, ...] = ()
    line: int = 0

    def starts_from(self, population: str) -> str:
        """The records this view starts from for a claim about *population*."""
        return population if self.records == POPULATION else self.records

    def as_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "label": self.label,
            "description": self.description,
            "records": self.records,
            "apply": list(self.apply),
        }


# Used when claims.yaml names no views: the two populations, read as coded.
DEFAULT_VIEWS = (
    View(SNAPSHOT, "Survey snapshot", "The survey's records, as coded.", SNAPSHOT),
    View(LIVING, "Living corpus", "Every record, whatever its origin.", LIVING),
)


def population(corpus: Corpus, name: str) -> Corpus:
    """The records of population *name*; *corpus* itself when nothing is left out."""
    if name == LIVING:
        return corpus
    if all(origin_of(p) == SURVEY for p in corpus.papers) and all(origin_of(e) == SURVEY for e in corpus.exclusions):
        return corpus
    return corpus.snapshot(SURVEY)


def _retag(paper: Paper, tags: Mapping[str, str], strict: bool | None = None) -> Paper:
    """*paper* with some tag fields (and perhaps its strict-credit flag) read differently."""
    return dataclasses.replace(
        paper,
        tags={**paper.tags, **tags},
        strict_credit=paper.strict_credit if strict is None else strict,
    )


def second_reading(corpus: Corpus) -> Corpus:
    """Where an audit exists, its second reading's tags and strict-credit flag replace the paper's."""
    audits = {a.key: a for a in corpus.audits}
    if not audits:
        return corpus
    papers = tuple(
        _retag(p, audits[p.key].second_reading, audits[p.key].strict_credit) if p.key in audits else p
        for p in corpus.papers
    )
    return dataclasses.replace(corpus, papers=papers)


def as_paper(exclusion: Exclusion) -> Paper:
    """A near-miss exclusion read as a retained entry with the tags of its ``if_retained`` block.

    Its key is the exclusion id and its title the screening label. The tags the block does not
    hold (role, verified, evidence kind) are left empty, so counts of those fields skip it;
    the year is unknown (0). The entry exists only inside a view; nothing renders it as a page.
    """
    retained = exclusion.if_retained
    assert retained is not None
    return Paper(
        key=exclusion.id,
        title=exclusion.label,
        authors=(),
        et_al=False,
        affiliation="",
        year=0,
        arxiv=None,
        doi=None,
        venue=exclusion.source,
        url=exclusion.url,
        more_urls=(),
        bibtex={},
        # Only the block's tags and the exclusion's origin: counts of other fields skip the entry.
        tags={v.ORIGIN: exclusion.origin, **retained.tags},
        added=exclusion.added,
        changes=(),
        strict_credit=retained.strict_credit,
        subdecisions=retained.subdecisions,
        summary=retained.basis,
        notes=None,
        exceptions={},
        path=exclusion.path,
    )


def near_misses(corpus: Corpus) -> Corpus:
    """Exclusions with an ``if_retained`` block move from the exclusions to the retained papers."""
    moved = [e for e in corpus.exclusions if e.if_retained is not None]
    if not moved:
        return corpus
    papers = tuple(sorted((*corpus.papers, *map(as_paper, moved)), key=lambda p: p.key))
    exclusions = tuple(e for e in corpus.exclusions if e.if_retained is None)
    return dataclasses.replace(corpus, papers=papers, exclusions=exclusions)


def strict_credit(corpus: Corpus) -> Corpus:
    """Credit counts only where it is explicit: an entry without strict credit has credit unit NA."""
    papers = tuple(
        p if p.strict_credit or p.credit_unit == v.NA else _retag(p, {v.CREDIT_UNIT: v.NA}) for p in corpus.papers
    )
    return dataclasses.replace(corpus, papers=papers)


# Every transform a view may apply, with the sentence the docs and the site show for it.
TRANSFORMS: dict[str, tuple[Callable[[Corpus], Corpus], str]] = {
    "second_reading": (
        second_reading,
        "on audited entries, the second reader's category, rl, reward type, credit unit, topology and "
        "strict-credit flag replace the coded ones",
    ),
    "near_misses": (
        near_misses,
        "exclusions with an if_retained block count as retained entries with those tags",
    ),
    "strict_credit": (
        strict_credit,
        "an entry whose strict_credit is false has its credit unit read as n/a",
    ),
}


def check_views(data: Any, at: Callable[[tuple[str | int, ...], str], Any]) -> Iterator[Any]:
    """Problems in the ``views:`` list of claims.yaml; *at* builds a problem at a path."""
    if not isinstance(data, list) or not data:
        yield at(("views",), "views must be a non-empty list of {id, label, description, records, apply}")
        return
    seen: set[str] = set()
    for i, view in enumerate(data):
        where: tuple[str | int, ...] = ("views", i)
        if not isinstance(view, dict):
            yield at(where, "each view must be a mapping with id, label, description and records")
            continue
        for key in view:
            if key not in VIEW_FIELDS:
                yield at((*where, key), f"unknown field{did_you_mean(str(key), VIEW_FIELDS)}")
        vid = view.get("id")
        if not isinstance(vid, str) or not vid or not all(c.islower() or c.isdigit() or c == "_" for c in vid):
            yield at((*where, "id"), f"id must be {ID_PATTERN}")
        elif vid in seen:
            yield at((*where, "id"), f"id '{vid}' is used twice")
        else:
            seen.add(vid)
        for name in ("label", "description"):
            text = view.get(name)
            if not isinstance(text, str) or not text.strip() or "\n" in text.strip():
                yield at((*where, name), f"{name} must be one line of text")
        records = view.get("records")
        if records not in RECORDS:
            yield at((*where, "records"), f"records must be {one_of(RECORDS)}, not {records!r}")
        steps = view.get("apply", [])
        if not isinstance(steps, list):
            yield at((*where, "apply"), f"apply must be a list of transforms: {', '.join(TRANSFORMS)}")
            continue
        for step in steps:
            if step not in TRANSFORMS:
                yield at(
                    (*where, "apply"),
                    f"apply must list transforms among {one_of(tuple(TRANSFORMS))}, not {step!r}"
                    f"{did_you_mean(str(step), tuple(TRANSFORMS))}",
                )


def build_views(data: list[dict[str, Any]], line_of: Callable[[int], int]) -> tuple[View, ...]:
    """Typed views from a checked ``views:`` list."""
    return tuple(
        View(d["id"], d["label"], d["description"], d["records"], tuple(d.get("apply", [])), line_of(i))
        for i, d in enumerate(data)
    )
