"""Typed records and the one function that loads a corpus.

A corpus is a directory holding ``taxonomy.yaml``, the venue registry ``venues.yaml`` and the
record folders ``papers/``, ``exclusions/`` and ``audits/``. :func:`load_corpus` reads every
record, checks each against its spec (:mod:`masrl._schema`) and then across records and against
the registry (:mod:`masrl._checks`, :mod:`masrl._venues`), and returns the typed records together
with every problem found. It never raises on bad input.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from masrl import _vocab as v
from masrl._problems import Problem, has_errors
from masrl._schema import check_record
from masrl._venues import NOT_LOADED, VENUES_FILE, Venues, read_venues
from masrl._vocab import Taxonomy, load_taxonomy
from masrl._yaml import Document, YamlError, load_path

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

    @classmethod
    def from_yaml(cls, data: Mapping[str, Any], taxonomy: Taxonomy, path: str = "") -> Paper:
        """Build a paper from a record that passed :func:`masrl._schema.check_record`."""
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
    """What :func:`load_corpus` found: the records, the problems, and how many files it read."""

    corpus: Corpus
    problems: list[Problem] = field(default_factory=list)
    files: int = 0
    handles: list[Handle] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not has_errors(self.problems)


def display_path(path: Path, cwd: Path | None = None) -> str:
    """*path* relative to the working directory when it lies below it, else as given."""
    try:
        return str(path.resolve().relative_to((cwd or Path.cwd()).resolve()))
    except ValueError:
        return str(path)


def _display_root(root: Path) -> Callable[[Path], str]:
    """A fast :func:`display_path` for files under *root*: one resolve for the folder, not per file."""
    cwd = Path.cwd().resolve()
    base = root.resolve()
    try:
        prefix = str(base.relative_to(cwd))
    except ValueError:
        prefix = str(root)
    prefix = "" if prefix == "." else prefix + os.sep

    def shown(path: Path) -> str:
        try:
            return prefix + str(path.relative_to(root))
        except ValueError:
            return display_path(path, cwd)

    return shown


def record_files(root: Path) -> list[tuple[str, Path]]:
    """Every record file under *root* as (kind, path), sorted."""
    out: list[tuple[str, Path]] = []
    for folder, kind in RECORD_DIRS.items():
        base = root / folder
        if base.is_dir():
            out.extend((kind, p) for p in sorted(base.iterdir()) if p.suffix == SUFFIX and p.is_file())
    return out


def stray_files(root: Path, shown: Callable[[Path], str]) -> Iterator[Problem]:
    """A problem for every entry of a record folder that is not a record: a ``.yml`` file, a
    text file, an editor backup, a sub-folder. Each would otherwise be silently left out.
    Hidden entries (``.gitkeep``, an editor's swap file) are never records and are passed over."""
    for folder, kind in RECORD_DIRS.items():
        base = root / folder
        if not base.is_dir():
            continue
        for p in sorted(base.iterdir()):
            if p.name.startswith(".") or (p.suffix == SUFFIX and p.is_file()):
                continue
            if p.suffix in (".yml", ".YAML", ".YML") and p.is_file():
                hint = f"rename it to {p.stem}{SUFFIX}"
            elif p.is_dir():
                hint = f"move its files into {folder}/ or out of it"
            else:
                hint = f"{A_RECORD[kind]} is a {SUFFIX} file; move this file out of {folder}/"
            yield Problem(shown(p), 1, 1, "", f"not a record, so it would be left out: {hint}")


def kind_of(path: Path) -> str | None:
    """The record kind implied by the folder *path* sits in, if any."""
    return RECORD_DIRS.get(path.resolve().parent.name)


# Above this many files, records are parsed and checked in worker processes (when there is
# more than one CPU): parsing dominates validation and splits cleanly by file.
PARALLEL_THRESHOLD = 1000


_BUILDERS: dict[str, Any] = {"paper": Paper, "exclusion": Exclusion, "audit": Audit}


@dataclass(frozen=True)
class _Parsed:
    """One file after parsing and every per-record check; what a worker sends back."""

    kind: str
    path: Path
    shown: str
    parsed: bool  # False when the file could not be read as YAML
    name: str | None
    idents: tuple[tuple[str, tuple[str | int, ...]], ...]
    record: Paper | Exclusion | Audit | None  # None when the record has errors
    problems: list[Problem]


def _parse_one(
    kind: str, path: Path, shown: str, taxonomy: Taxonomy, keep_marks: bool
) -> tuple[_Parsed, Document | None]:
    from masrl._checks import record_check, record_ids, record_name

    try:
        doc = load_path(path)
    except YamlError as exc:
        problem = Problem(shown, exc.line, exc.column, "", exc.message)
        return _Parsed(kind, path, shown, False, None, (), None, [problem]), None
    problems = list(check_record(kind, doc, shown, taxonomy))
    record = None
    if not has_errors(problems):
        record = _BUILDERS[kind].from_yaml(doc.data, taxonomy, shown)
        problems.extend(record_check(record, doc, taxonomy))
    name = record_name(kind, doc.data)
    idents = tuple(record_ids(kind, doc.data))
    return _Parsed(kind, path, shown, True, name, idents, record, problems), (doc if keep_marks else None)


_WORKER_TAXONOMY: Taxonomy | None = None


def _parse_chunk(chunk: list[tuple[str, Path, str]]) -> list[_Parsed]:
    assert _WORKER_TAXONOMY is not None
    return [_parse_one(kind, path, shown, _WORKER_TAXONOMY, keep_marks=False)[0] for kind, path, shown in chunk]


def _worker_count() -> int:
    """Processes that parse records at once: one per CPU, at most four."""
    return min(os.cpu_count() or 1, 4)


def _parse_all(items: list[tuple[str, Path, str]], taxonomy: Taxonomy) -> list[tuple[_Parsed, Document]]:
    workers = _worker_count()
    if len(items) < PARALLEL_THRESHOLD or workers < 2:
        out = []
        for kind, path, shown in items:
            parsed, doc = _parse_one(kind, path, shown, taxonomy, keep_marks=True)
            out.append((parsed, doc or Document(None, {})))
        return out
    import multiprocessing

    global _WORKER_TAXONOMY
    _WORKER_TAXONOMY = taxonomy  # inherited by the forked workers
    size = -(-len(items) // workers)
    chunks = [items[i : i + size] for i in range(0, len(items), size)]
    with multiprocessing.get_context("fork").Pool(workers) as pool:
        results = pool.map(_parse_chunk, chunks)  # map keeps the order of the chunks
    return [(p, Document(None, {}, source=p.path)) for chunk in results for p in chunk]


def load_corpus(root: Path, extra: Iterable[tuple[str, Path]] = ()) -> Loaded:
    """Load, check and type every record under *root*, plus *extra* (kind, path) files.

    Raises :class:`masrl._vocab.TaxonomyError` only when taxonomy.yaml itself is broken; every
    problem in records is returned in :attr:`Loaded.problems`.
    """
    from masrl._checks import cross_check  # the cross-record rules need the typed records

    taxonomy = load_taxonomy(root)
    files = record_files(root)
    shown_of = _display_root(root)
    strays = list(stray_files(root, shown_of))
    venues, venue_problems = read_venues(root, taxonomy, shown_of(root / VENUES_FILE))
    if not venues.loaded and not any(kind == "paper" for kind, _ in files):
        venue_problems = [p for p in venue_problems if (root / VENUES_FILE).is_file()]  # no paper needs it
    strays += venue_problems
    if extra:
        seen = {p.resolve() for _, p in files}
        files += [(k, p) for k, p in extra if p.resolve() not in seen]
    loaded = Loaded(Corpus(root, taxonomy, (), (), ()), problems=strays, files=len(files))
    typed: dict[str, list[Any]] = {"paper": [], "exclusion": [], "audit": []}
    for parsed, doc in _parse_all([(kind, path, shown_of(path)) for kind, path in files], taxonomy):
        loaded.problems.extend(parsed.problems)
        if not parsed.parsed:
            continue
        loaded.handles.append(Handle(parsed.kind, parsed.shown, parsed.name, parsed.idents, doc))
        if parsed.record is not None:
            typed[parsed.kind].append(parsed.record)
    loaded.corpus = Corpus(
        root,
        taxonomy,
        tuple(sorted(typed["paper"], key=lambda p: p.key)),
        tuple(sorted(typed["exclusion"], key=lambda e: e.id)),
        tuple(sorted(typed["audit"], key=lambda a: a.key)),
        venues,
    )
    loaded.problems.extend(cross_check(loaded.corpus, loaded.handles))
    loaded.problems.sort()
    return loaded
