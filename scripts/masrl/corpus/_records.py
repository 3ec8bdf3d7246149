"""Typed records: the data model of a corpus.

A corpus is a directory holding ``taxonomy.yaml``, the venue registry ``venues.yaml`` and the
record folders ``papers/``, ``exclusions/`` and ``audits/``; :class:`Corpus` holds its valid
records, each kind sorted by key, with the registry. :func:`masrl.corpus._load.load_corpus` reads
and checks the files and builds these types.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from masrl.base._problems import Problem, has_errors
from masrl.corpus import _vocab as v
from masrl.corpus._venues import NOT_LOADED, Venues
from masrl.corpus._vocab import Taxonomy
from masrl.corpus._yaml import Document

PAPERS_DIR = "papers"
EXCLUSIONS_DIR = "exclusions"
AUDITS_DIR = "audits"
RECORD_DIRS = {PAPERS_DIR: "paper", EXCLUSIONS_DIR: "exclusion", AUDITS_DIR: "audit"}
SUFFIX = ".yaml"
# Each kind with its article, for messages that name one record.
A_RECORD = {"paper": "a paper record", "exclusion": "an exclusion record", "audit": "an audit record"}


@dataclass(frozen=True)
class Change:
    """A correction made after the record was added."""

    date: str
    note: str


def _changes(data: Mapping[str, Any]) -> tuple[Change, ...]:
    return tuple(Change(c["date"], c["note"]) for c in data.get("changes", ()))


@dataclass(frozen=True)
class SubDecision:
    code: str
    basis: str
    evidence: str


TagValue = str | tuple[str, ...]  # one id, or a tuple of ids for a field declared `multiple`


def _tags(kind: str, data: Mapping[str, Any], taxonomy: Taxonomy) -> dict[str, TagValue]:
    """The tag fields of a checked record of *kind*, as declared in *taxonomy*."""
    out: dict[str, TagValue] = {}
    for f in taxonomy.tag_fields(kind):
        if f.name in data:
            out[f.name] = tuple(data[f.name]) if f.multiple else data[f.name]
    return out


class _Tagged:
    """Tag access shared by the record kinds that carry tag fields."""

    tags: Mapping[str, TagValue]

    def tag(self, name: str) -> str:
        """The value of single-valued tag field *name* (``NA``-free fields always have one)."""
        value = self.tags[name]
        assert isinstance(value, str), f"{name} holds a list; use tag_values"
        return value

    def tag_values(self, name: str) -> tuple[str, ...]:
        """The values of tag field *name*: one for a single-valued field, none when it is unset."""
        value = self.tags.get(name)
        if value is None:
            return ()
        return (value,) if isinstance(value, str) else value

    @property
    def origin(self) -> str:
        return self.tag(v.ORIGIN)


@dataclass(frozen=True)
class Paper(_Tagged):
    key: str
    title: str
    authors: tuple[str, ...]
    et_al: bool
    affiliation: str
    year: int
    arxiv: str | None
    doi: str | None
    venue: str
    url: str
    more_urls: tuple[str, ...]
    bibtex: Mapping[str, str]  # what venues.yaml cannot know: pages, volume, a workshop's own name
    tags: Mapping[str, TagValue]  # every tag field of taxonomy.yaml that applies to papers
    added: str
    changes: tuple[Change, ...]
    strict_credit: bool
    subdecisions: Mapping[str, SubDecision] | None  # None: not coded; {}: coded, none applies
    summary: str
    notes: str | None
    exceptions: Mapping[str, str]
    path: str = ""
    code: str | None = None  # the official repository
    round: str | None = None  # the search round that owns it, when named (see protocol.yaml)
    rule: str | None = None  # the protocol rule its inclusion rests on, when cited

    @classmethod
    def from_yaml(cls, data: Mapping[str, Any], taxonomy: Taxonomy, path: str = "") -> Paper:
        """Build a paper from a record that passed :func:`masrl.corpus._schema.check_record`."""
        subs = data.get("subdecisions")
        return cls(
            key=data["key"],
            title=data["title"],
            authors=tuple(data["authors"]),
            et_al=data.get("et_al", False),
            affiliation=data["affiliation"],
            year=int(data["year"]),
            arxiv=data.get("arxiv"),
            doi=data.get("doi"),
            venue=data["venue"],
            url=data["url"],
            more_urls=tuple(data.get("more_urls", ())),
            bibtex=dict(data.get("bibtex", {})),
            tags=_tags("paper", data, taxonomy),
            added=data["added"],
            changes=_changes(data),
            strict_credit=data.get("strict_credit", False),
            subdecisions=None
            if subs is None
            else {o: SubDecision(s["code"], s["basis"], s["evidence"]) for o, s in subs.items()},
            summary=data["summary"],
            notes=data.get("notes"),
            exceptions=dict(data.get("exceptions", {})),
            path=path,
            code=data.get("code"),
            round=data.get("round"),
            rule=data.get("rule"),
        )

    # The tag fields that rules and pages name (taxonomy.yaml must declare each; checked at load).
    @property
    def category(self) -> str:
        return self.tag(v.CATEGORY)

    @property
    def rl(self) -> str:
        return self.tag(v.RL)

    @property
    def reward_type(self) -> str:
        return self.tag(v.REWARD_TYPE)

    @property
    def credit_unit(self) -> str:
        return self.tag(v.CREDIT_UNIT)

    @property
    def topology(self) -> str:
        return self.tag(v.TOPOLOGY)

    @property
    def scenario(self) -> str:
        return self.tag(v.SCENARIO)

    @property
    def role(self) -> str:
        return self.tag(v.ROLE)

    @property
    def verified(self) -> str:
        return self.tag(v.VERIFIED)

    @property
    def evidence_kind(self) -> str:
        return self.tag(v.EVIDENCE_KIND)

    @property
    def first_author(self) -> str:
        return self.authors[0]

    @property
    def pdf(self) -> str | None:
        """The PDF link, derived: arXiv entries have one at arxiv.org/pdf/<id>."""
        return f"https://arxiv.org/pdf/{self.arxiv}" if self.arxiv else None

    @property
    def urls(self) -> tuple[str, ...]:
        return (self.url, *self.more_urls)


@dataclass(frozen=True)
class IfRetained:
    """The tags a near-miss exclusion would carry had it been retained (see ``if_retained``)."""

    tags: Mapping[str, TagValue]  # paper tag fields: category, rl, reward_type, credit_unit, topology, scenario
    strict_credit: bool
    subdecisions: Mapping[str, SubDecision] | None  # None: not coded; {}: coded, none applies
    basis: str

    @classmethod
    def from_yaml(cls, data: Mapping[str, Any], taxonomy: Taxonomy) -> IfRetained:
        subs = data.get("subdecisions")
        return cls(
            tags=_tags("paper", data, taxonomy),
            strict_credit=data.get("strict_credit", False),
            subdecisions=None
            if subs is None
            else {o: SubDecision(s["code"], s["basis"], s["evidence"]) for o, s in subs.items()},
            basis=data["basis"],
        )


@dataclass(frozen=True)
class Exclusion(_Tagged):
    id: str
    source: str
    query_family: str
    label: str
    identifier: str
    url: str
    date_screened: str
    stage: str
    reasons: tuple[str, ...]
    tags: Mapping[str, TagValue]  # every tag field of taxonomy.yaml that applies to exclusions
    added: str
    changes: tuple[Change, ...]
    note: str
    path: str = ""
    if_retained: IfRetained | None = None  # set on near misses only
    round: str | None = None  # the search round that owns it, when named (see protocol.yaml)
    rule: str | None = None  # the protocol rule its exclusion rests on, when cited

    @classmethod
    def from_yaml(cls, data: Mapping[str, Any], taxonomy: Taxonomy, path: str = "") -> Exclusion:
        retained = data.get("if_retained")
        return cls(
            id=data["id"],
            source=data["source"],
            query_family=data["query_family"],
            label=data["label"],
            identifier=data["identifier"],
            url=data["url"],
            date_screened=data["date_screened"],
            stage=data["stage"],
            reasons=tuple(data["reasons"]),
            tags=_tags("exclusion", data, taxonomy),
            added=data["added"],
            changes=_changes(data),
            note=data["note"],
            path=path,
            if_retained=None if retained is None else IfRetained.from_yaml(retained, taxonomy),
            round=data.get("round"),
            rule=data.get("rule"),
        )


@dataclass(frozen=True)
class Audit:
    key: str
    first_reading: Mapping[str, str]
    second_reading: Mapping[str, str]
    strict_credit: bool
    verdict: str
    note: str | None
    path: str = ""

    @classmethod
    def from_yaml(cls, data: Mapping[str, Any], taxonomy: Taxonomy, path: str = "") -> Audit:
        second = dict(data["second_reading"])
        strict = second.pop("strict_credit")
        return cls(
            key=data["key"],
            first_reading=dict(data["first_reading"]),
            second_reading=dict(second),
            strict_credit=strict,
            verdict=data["verdict"],
            note=data.get("note"),
            path=path,
        )

    def differing(self) -> tuple[str, ...]:
        """The audited fields on which the two readings differ."""
        return tuple(f for f in v.AUDITED_TAGS if self.first_reading[f] != self.second_reading[f])


@dataclass(frozen=True)
class Corpus:
    """Every valid record of a corpus, each kind sorted by key."""

    root: Path
    taxonomy: Taxonomy
    papers: tuple[Paper, ...]
    exclusions: tuple[Exclusion, ...]
    audits: tuple[Audit, ...]
    venues: Venues = NOT_LOADED  # the venue registry, which gives each paper its citation

    def paper(self, key: str) -> Paper:
        for p in self.papers:
            if p.key == key:
                return p
        raise KeyError(key)

    def snapshot(self, origin: str = v.SURVEY) -> Corpus:
        """The records of one *origin* (the survey's snapshot by default), with the audits of
        those papers: the corpus as it stood before anything of another origin was added."""
        papers = tuple(p for p in self.papers if p.origin == origin)
        keys = {p.key for p in papers}
        return Corpus(
            self.root,
            self.taxonomy,
            papers,
            tuple(e for e in self.exclusions if e.origin == origin),
            tuple(a for a in self.audits if a.key in keys),
            self.venues,
        )


@dataclass
class Handle:
    """What cross-record rules need of one parsed record: its name, identifiers and positions."""

    kind: str
    shown: str
    name: str | None
    idents: tuple[tuple[str, tuple[str | int, ...]], ...]
    doc: Document


@dataclass
class Loaded:
    """What :func:`masrl.corpus._load.load_corpus` found: the records, the problems, and how many files it read."""

    corpus: Corpus
    problems: list[Problem] = field(default_factory=list)
    files: int = 0
    handles: list[Handle] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not has_errors(self.problems)
