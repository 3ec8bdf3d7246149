"""The build pipeline: records in, every generated file out (as a mapping, not yet written).

Steps, in order:

1. load and validate the corpus (:func:`masrl.corpus._load.load_corpus`); any error stops the build;
2. read and check ``claims.yaml``;
3. compute the statistics, evaluate each claim on its population and under every view;
4. render every output: README blocks, JSON Schemas, figures, data exports, site pages.

:func:`render_outputs` returns ``{relative path: content}``; ``masrl build`` writes what changed and
removes stale files from the folders it owns, ``masrl check`` compares it with the disk.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from masrl.analysis._claims import Outcome, Readings, StressRow, evaluate_claims, load_ledger, stress, stress_display
from masrl.corpus._load import load_corpus
from masrl.corpus._records import Corpus, Loaded
from masrl.publish._errors import BuildError

# Folders whose every file is generated: anything else found there is stale and removed.
OWNED_DIRS = (
    "site/docs/figures",
    "site/docs/data",
    "site/docs/papers",
    "site/docs/taxonomy",
    "site/docs/whats-new",
    "schemas",
)
README_MOVES = 12  # rows the README lists per claim and view that moves them; the site lists all


@dataclass
class Analysis:
    """A validated corpus with its statistics and evaluated claims."""

    loaded: Loaded
    stats: dict[str, Any]
    outcomes: list[Outcome]
    frame: Any = field(repr=False, default=None)
    views: tuple[Any, ...] = ()
    stress: list[StressRow] = field(default_factory=list)

    @property
    def corpus(self) -> Corpus:
        return self.loaded.corpus


def analyse(root: Path, *, strict: bool = True, snapshot: str | None = None, arms: bool = True) -> Analysis:
    """Load, validate, compute statistics and evaluate claims, or raise :class:`BuildError`.

    With *strict* false, records with errors are left out instead of stopping the analysis (the
    diff of an old revision uses this); a broken claims.yaml still stops it. With *snapshot* (an
    origin, e.g. ``survey``), only the records of that origin are analysed; otherwise the living
    corpus is, and ``stats["snapshot"]`` gives the survey snapshot's totals beside its own. With
    *arms* false, the search arms' ledgers are neither read nor estimated from (no claim reads
    them, and reading eight thousand queue files and fitting the estimate is most of the work).
    """
    from masrl.analysis import _stats

    loaded = load_corpus(root)
    if strict and not loaded.ok:
        raise BuildError([p for p in loaded.problems if p.is_error], loaded.files)
    if snapshot is not None:
        loaded = replace(loaded, corpus=loaded.corpus.snapshot(snapshot))
    ledger, problems = load_ledger(root, loaded.corpus.taxonomy)
    if problems:
        raise BuildError(problems, 1)
    stats = _stats.compute(loaded.corpus)
    if snapshot is None:
        stats["snapshot"] = _stats.totals(loaded.corpus.snapshot())
    protocol = None
    if strict:
        from masrl.living._protocol import check_with_records, round_counts

        protocol, crossed = check_with_records(root, loaded)
        errors = [p for p in crossed if p.is_error]
        if errors:
            raise BuildError(errors, loaded.files + 1)
    if protocol is not None:
        stats["screening"]["rounds"] = round_counts(loaded.corpus, protocol)
        if arms and protocol.arms and snapshot is None:  # the arms' ledgers name records a snapshot leaves out
            from masrl.living._arms import arms_report

            report, problems = arms_report(root, protocol, loaded.corpus)
            errors = [p for p in problems if p.is_error]
            if strict and errors:
                raise BuildError(errors, loaded.files + 1)
            if report:
                stats["screening"]["arms"] = report
    frame = _stats.papers_frame(loaded.corpus)
    readings = Readings(loaded.corpus, frame, stats)
    outcomes = evaluate_claims(ledger.claims, readings)
    stats["claims"] = [o.as_json() for o in outcomes]
    table = stress(outcomes, ledger.views, readings)
    return Analysis(loaded, stats, outcomes, frame, ledger.views, table)


def _reader(root: Path) -> Callable[[str], bytes | None]:
    def read(rel: str) -> bytes | None:
        try:
            return (root / rel).read_bytes()
        except OSError:
            return None

    return read


def labels_of(corpus: Corpus) -> dict[str, dict[str, str]]:
    return {name: {x.id: x.label for x in f.values} for name, f in corpus.taxonomy.fields.items()}


def build_outputs(root: Path) -> dict[str, str | bytes]:
    """Analyse the corpus at *root* and render every generated file.

    The example traces' figures need no statistics, so they start drawing in the background
    before the records are analysed. A broken example trace is reported after the records' own
    problems, as a broken record says more.
    """
    from masrl.publish import _figures, _site

    try:
        traces: Any = _site.trace_pages(root)
        broken = None
    except BuildError as exc:
        traces, broken = None, exc
    with _figures.Drawing(_reader(root)) as drawing:
        if traces is not None:
            drawing.add(traces[1])
        analysis = analyse(root)
        if broken is not None:
            raise broken
        return render_outputs(root, analysis, drawing, traces)


def render_outputs(
    root: Path, analysis: Analysis, drawing: Any = None, traces: tuple[dict[str, Any], list[Any]] | None = None
) -> dict[str, str | bytes]:
    """Every generated file, keyed by path relative to *root*.

    *drawing* (a :class:`~masrl.publish._figures.Drawing`) may already hold the example traces' figures,
    read by :func:`~masrl.publish._site.trace_pages` as *traces*; both are made here when not given.
    """
    from masrl.publish import _figures, _site
    from masrl.publish._schemas import render_schemas

    if drawing is None:
        with _figures.Drawing(_reader(root)) as own:
            return render_outputs(root, analysis, own, traces)
    corpus = analysis.corpus
    outputs: dict[str, str | bytes] = {}
    outputs.update(render_schemas(corpus.taxonomy))
    if traces is None:
        traces = _site.trace_pages(root)
        drawing.add(traces[1])
    specs = _figures.figure_specs(analysis.stats, labels_of(corpus))
    # The statistics' figures are drawn in the background (when there are several) while the
    # rest is rendered.
    drawing.add(specs)
    _render_text(root, analysis, specs, traces[0], outputs)
    outputs.update(drawing.result())
    return outputs


def _render_text(
    root: Path, analysis: Analysis, specs: list[Any], traces: Any, outputs: dict[str, str | bytes]
) -> None:
    """Every generated file but the figures, added to *outputs*."""
    from masrl.corpus import _datapackage, _export
    from masrl.publish import _news, _render, _site
    from masrl.publish._render import README, RenderError
    from masrl.trace import _schema as _trace_schema

    corpus = analysis.corpus
    read = _reader(root)
    outputs[_trace_schema.SCHEMA_PATH] = _trace_schema.schema_text()
    data = "site/docs/data"
    outputs[f"{data}/stats.json"] = json.dumps(analysis.stats, indent=2, ensure_ascii=False) + "\n"
    outputs[f"{data}/papers.csv"] = _export.papers_csv(corpus)
    outputs[f"{data}/excluded.csv"] = _export.exclusions_csv(corpus)
    outputs[f"{data}/corpus.json"] = _export.corpus_json(corpus)
    outputs[f"{data}/{_datapackage.AUDITS}"] = _datapackage.audits_csv(corpus)
    outputs[f"{data}/{_datapackage.PACKAGE}"] = _datapackage.datapackage(corpus, _corpus_title(root))
    bib = _export.papers_bib(corpus)
    outputs[f"{data}/papers.bib"] = bib
    outputs.update(_site.render_site(analysis, specs, traces, _export.bib_blocks(bib), _protocol(root, corpus)))
    outputs.update(_news.render(corpus, root))
    current = read(README)
    if current is None:
        raise BuildError([], 0, f"{README} not found in {root}")
    stress = stress_display(analysis.views, analysis.stress, limit=README_MOVES)
    blocks = _render.readme_blocks(corpus, analysis.stats, analysis.outcomes, specs, stress)
    try:
        outputs[README] = _render.replace_blocks(current.decode("utf-8"), blocks)
    except RenderError as exc:
        raise BuildError([], 0, str(exc)) from None


def _corpus_title(root: Path) -> str:
    """The corpus's title from CITATION.cff (the data package's title), or its short name."""
    from masrl.corpus._yaml import YamlError, load_path

    try:
        data = load_path(root / "CITATION.cff").data
    except (OSError, YamlError):
        return "masrl"
    title = data.get("title") if isinstance(data, dict) else None
    return str(title) if title else "masrl"


def _protocol(root: Path, corpus: Corpus) -> Any:
    """The search protocol for the screening page: None without protocol.yaml, an error if broken."""
    from masrl.living._protocol import PROTOCOL_FILE, read_protocol

    if not (root / PROTOCOL_FILE).is_file():
        return None
    protocol, problems = read_protocol(root, corpus.taxonomy)
    if protocol is None:
        raise BuildError(problems, 1)
    return protocol


def stale_files(root: Path, outputs: dict[str, Any]) -> list[str]:
    """Files in owned folders that the build no longer produces."""
    stale = []
    for folder in OWNED_DIRS:
        base = root / folder
        if not base.is_dir():
            continue
        for path in sorted(base.rglob("*")):
            rel = path.relative_to(root).as_posix()
            if path.is_file() and rel not in outputs:
                stale.append(rel)
    return stale
