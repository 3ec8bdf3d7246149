"""The list of benchmark targets and the budgets each must meet (see ``masrl bench``).

Listing the targets makes nothing: each target's ``setup`` makes its inputs (a copy of the corpus,
a generated corpus, a generated trace, a big papers page) when it is chosen, and a setup that
several targets share runs once. Inputs are made in child processes: a process's peak memory on
Linux starts from its parent's size at fork, so the bench process itself must stay small for the
children's peak figures to mean anything.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from collections.abc import Callable
from functools import cache, partial
from pathlib import Path

from masrl.bench._measure import Target, masrl_argv
from masrl.bench._synth import copy_corpus


def _in_child(code: str) -> None:
    """Run Python *code* in a child process (see the module docstring for why)."""
    subprocess.run([sys.executable, "-c", code], check=True)


def _reset_outputs(corpus: Path, readme: Path) -> Callable[[], None]:
    """Delete every generated file, so each timed build starts cold."""

    def reset() -> None:
        shutil.rmtree(corpus / "site", ignore_errors=True)
        shutil.rmtree(corpus / "schemas", ignore_errors=True)
        shutil.copy(readme, corpus / "README.md")

    return reset


def _drop_figure_cache(corpus: Path) -> Callable[[], None]:
    def drop() -> None:
        (corpus / "site" / "docs" / "figures" / "manifest.json").unlink(missing_ok=True)

    return drop


def _drop_state(corpus: Path) -> Callable[[], None]:
    def drop() -> None:
        shutil.rmtree(corpus / ".masrl-cache", ignore_errors=True)

    return drop


# The trace benchmark: a swarm the size of published deployments (100 sub-agents x 1,500 tool rounds).
TRACE_AGENTS, TRACE_ROUNDS, TRACE_SEED = 100, 1_500, 7


def _trace_file(path: Path, *options: str) -> Callable[[], None]:
    """Generate the benchmark trace once (untimed); later runs find it in place."""

    def make() -> None:
        if not path.exists():
            argv = masrl_argv(
                "trace",
                "generate",
                "--agents",
                str(TRACE_AGENTS),
                "--rounds",
                str(TRACE_ROUNDS),
                "--seed",
                str(TRACE_SEED),
                *options,
                str(path),
            )
            subprocess.run(argv, check=True, capture_output=True)

    return make


# The collection benchmark: many small runs (2 sub-agents x 6 tool rounds: 30 events each).
COLLECTION_TRACES, COLLECTION_AGENTS, COLLECTION_ROUNDS = 10_000, 2, 6


def _collection(folder: Path) -> Callable[[], None]:
    """Write the collection once (untimed), in a child process, one seed per trace."""

    def make() -> None:
        if not (folder / "done").exists():
            _in_child(
                "from pathlib import Path; from masrl.trace._generate import encode, swarm; "
                f"f = Path({str(folder)!r}); f.mkdir(parents=True, exist_ok=True); "
                f"[(f / f'run-{{k:05d}}.json').write_bytes(encode(swarm({COLLECTION_AGENTS}, {COLLECTION_ROUNDS}, "
                f"seed=k))) for k in range({COLLECTION_TRACES})]; (f / 'done').write_text('')"
            )

    return make


def trace_targets(work: Path) -> list[Target]:
    big = work / f"trace-swarm-{TRACE_AGENTS}x{TRACE_ROUNDS}.json"
    original = work / f"trace-swarm-{TRACE_AGENTS}x{TRACE_ROUNDS}-original.json"
    events = TRACE_AGENTS * (2 * TRACE_ROUNDS + 2) + 2
    make = _trace_file(big)
    runs = work / "trace-collection"
    small = COLLECTION_AGENTS * (2 * COLLECTION_ROUNDS + 2) + 2
    return [
        Target(
            f"trace validate: {events:,} events, temporal edges",
            masrl_argv("trace", "validate", str(original)),
            work,
            budget_s=0.73,
            budget_mib=400,
            setup=_trace_file(original, "--original-format"),
        ),
        Target(
            f"trace metrics table: {COLLECTION_TRACES:,} traces of {small} events",
            masrl_argv("trace", "metrics", str(runs), "--table", str(work / "trace-collection.parquet")),
            work,
            budget_s=8.0,
            budget_mib=1024,
            setup=_collection(runs),
        ),
        Target(
            f"trace validate: {events:,} events",
            masrl_argv("trace", "validate", str(big)),
            work,
            budget_s=1.0,
            budget_mib=400,
            setup=make,
        ),
        Target(
            f"trace metrics: {events:,} events",
            masrl_argv("trace", "metrics", str(big)),
            work,
            budget_s=2.0,
            setup=make,
        ),
    ]


# The credit and export benchmarks: collections of runs of 8 agents (a lead spawns each, each asks
# a model once). Group over tasks of 8 runs; Shapley from a run of every coalition of the 8 (255 per
# task, 39 tasks); export of 100,000 model calls (12,500 runs) with their messages beside them.
CREDIT_RUNS, CREDIT_SMALL, CREDIT_AGENTS, EXPORT_RUNS = 10_000, 2_500, 8, 12_500
CREDIT_MIB = 512  # the same memory budget at 2,500 runs and at 10,000: memory must not grow with them


def _runs(folder: Path, kind: str, runs: int) -> Callable[[], None]:
    """Write a collection once (untimed, in a child process): see masrl.trace._generate.write_collection."""

    def make() -> None:
        if not (folder / "done").exists():
            _in_child(
                "from pathlib import Path; from masrl.trace._generate import write_collection; "
                f"write_collection({str(folder)!r}, {kind!r}, {runs}, {CREDIT_AGENTS}); "
                f"(Path({str(folder)!r}) / 'done').write_text('')"
            )

    return make


def credit_targets(work: Path) -> list[Target]:
    small, group, shapley, export = (work / f"credit-{n}" for n in ("small", "group", "shapley", "export"))
    credit = ("trace", "credit")
    return [
        Target(
            f"trace credit group: {CREDIT_SMALL:,} runs of {CREDIT_AGENTS} agents (memory reference)",
            masrl_argv(*credit, str(small), "--unit", "agent", "--method", "group"),
            work,
            budget_s=60.0,
            budget_mib=CREDIT_MIB,
            setup=_runs(small, "group", CREDIT_SMALL),
        ),
        Target(
            f"trace credit group: {CREDIT_RUNS:,} runs of {CREDIT_AGENTS} agents",
            masrl_argv(*credit, str(group), "--unit", "agent", "--method", "group"),
            work,
            budget_s=60.0,
            budget_mib=CREDIT_MIB,
            setup=_runs(group, "group", CREDIT_RUNS),
        ),
        Target(
            f"trace credit shapley, 256 orders: ~{CREDIT_RUNS:,} runs of {CREDIT_AGENTS} agents (every coalition)",
            masrl_argv(*credit, str(shapley), "--unit", "agent", "--method", "shapley", "--samples", "256"),
            work,
            budget_s=60.0,
            budget_mib=CREDIT_MIB,
            setup=_runs(shapley, "shapley", CREDIT_RUNS),
        ),
        Target(
            f"trace export transitions: {EXPORT_RUNS * CREDIT_AGENTS:,} samples to Parquet",
            masrl_argv("trace", "export", str(export), "--to", "transitions", "-o", str(work / "samples.parquet")),
            work,
            budget_s=30.0,
            budget_mib=1024,
            setup=_runs(export, "export", EXPORT_RUNS),
        ),
        Target(
            f"trace export dpo: {EXPORT_RUNS * CREDIT_AGENTS:,} samples paired to JSON Lines",
            masrl_argv("trace", "export", str(export), "--to", "dpo", "-o", str(work / "pairs.jsonl")),
            work,
            budget_s=30.0,
            budget_mib=1024,
            setup=_runs(export, "export", EXPORT_RUNS),
        ),
    ]


# The OpenTelemetry import benchmark: about 100 MB of OTLP/JSON, 100 runs of an orchestrator and
# 10 sub-agents with 68 rounds of a model call and a tool call each (138,300 spans).
OTEL_TRACES, OTEL_AGENTS, OTEL_ROUNDS, OTEL_SEED = 100, 10, 68, 7


def _otel_export(path: Path) -> Callable[[], None]:
    """Generate the export once (untimed, in a child process)."""

    def make() -> None:
        if not path.exists():
            _in_child(
                "from pathlib import Path; from masrl.trace._generate import otel_export; "
                f"Path({str(path)!r}).write_bytes(otel_export({OTEL_TRACES}, {OTEL_AGENTS}, {OTEL_ROUNDS}, "
                f"seed={OTEL_SEED}))"
            )

    return make


def _emptied(out: Path) -> Callable[[], None]:
    """Remove the output folder before each run."""
    return lambda: shutil.rmtree(out, ignore_errors=True)


def otel_targets(work: Path) -> list[Target]:
    export = work / f"otel-{OTEL_TRACES}x{OTEL_AGENTS}x{OTEL_ROUNDS}.json"
    out = work / "otel-out"
    return [
        Target(
            f"trace import otel: ~100 MB OTLP/JSON, {OTEL_TRACES} traces to a folder",
            masrl_argv("trace", "import", "otel", str(export), "-o", f"{out}/"),
            work,
            budget_s=10.0,
            budget_mib=2048,
            setup=_otel_export(export),
            prepare=_emptied(out),
        )
    ]


# The ranking benchmark: a discovery round's worth of candidates, ranked with no network.
RANK_CANDIDATES, RANK_SEED = 5_000, 11


def _candidate_list(root: Path, path: Path, n: int) -> None:
    """A YAML list of *n* made-up candidates for `masrl discover --source manual`, with words
    drawn from the corpus's own summaries and exclusion notes, so ranking has real work."""
    import random

    from masrl.corpus._load import load_corpus
    from masrl.living._queue import _wrapped

    corpus = load_corpus(root).corpus
    words = " ".join([p.summary for p in corpus.papers] + [e.note for e in corpus.exclusions]).split()
    rng = random.Random(RANK_SEED)
    families = ["multi_agent_llm_rl", "credit_assignment", "orchestration", "safety"]
    lines = []
    for i in range(n):
        title = " ".join(rng.choice(words) for _ in range(rng.randint(6, 14))).strip(".,;")
        abstract = " ".join(rng.choice(words) for _ in range(rng.randint(120, 220)))
        lines += [
            f'- arxiv: "2607.{10000 + i:05d}"',
            f"  title: {_wrapped(title, 4)}",
            "  authors: [A. Author, B. Author]",
            '  published: "2026-07-01"',
            f"  abstract: {_wrapped(abstract, 4)}",
            f"  url: https://arxiv.org/abs/2607.{10000 + i:05d}",
            f"  query_family: {families[i % len(families)]}",
        ]
    path.write_text("\n".join(lines) + "\n", "utf-8")


def rank_targets(at: Inputs) -> list[Target]:
    real = at.real_dir
    found = at.work / f"candidates-{RANK_CANDIDATES}.yaml"

    @cache
    def candidates() -> None:
        at.real()
        if not found.exists():
            _in_child(
                "from pathlib import Path; from masrl.bench._targets import _candidate_list; "
                f"_candidate_list(Path({str(at.root)!r}), Path({str(found)!r}), {RANK_CANDIDATES})"
            )

    argv = masrl_argv("discover", "--source", "manual", "--from", str(found), "--dry-run", "--json")
    return [
        Target(
            f"discover: rank {RANK_CANDIDATES:,} candidates",
            [],
            real,
            budget_s=5.0,
            setup=candidates,
            probe=_rank_probe(real, found),
        ),
        Target(f"discover: {RANK_CANDIDATES:,} from a list, whole command", argv, real, setup=candidates),
    ]


def _rank_probe(real: Path, found: Path) -> Callable[[], float]:
    """Seconds to flag duplicates and rank the candidates, timed in a child process once the
    corpus and the list are loaded (what `masrl discover` does between fetching and writing)."""
    code = (
        "import time; from pathlib import Path; from masrl.corpus._load import load_corpus; "
        "from masrl.living._protocol import load_protocol; from masrl.living._sources import read_manual; "
        "from masrl.living.discover import consider; import sklearn.linear_model, sklearn.feature_extraction.text; "
        f"root = Path({str(real)!r}); corpus = load_corpus(root).corpus; protocol = load_protocol(root, corpus.taxonomy); "
        f"found, _ = read_manual(Path({str(found)!r}), protocol); t = time.perf_counter(); "
        "consider(root, corpus, protocol, found); print(time.perf_counter() - t)"
    )

    def probe() -> float:
        out = subprocess.run([sys.executable, "-c", code], cwd=real, check=True, capture_output=True, text=True)
        return float(out.stdout.strip())

    return probe


GROWN_ENTRIES = 1000  # the corpus size the everyday budgets are held at (the field search round expects 600 to 1,000)


class Inputs:
    """Where the shared inputs go, and the setups that make them (each runs once, when first needed)."""

    def __init__(self, root: Path, work: Path, size: int) -> None:
        self.root, self.work, self.size = root, work, size
        self.real_dir = work / "corpus"
        self.synthetic_dir = work / f"synthetic-{size}"
        self.grown_dir = work / f"grown-{GROWN_ENTRIES}"
        # a private copy of the corpus, a generated corpus of `size` papers, and the corpus grown
        # to GROWN_ENTRIES entries by records that read like its own
        self.real: Callable[[], None] = cache(partial(copy_corpus, root, self.real_dir))
        self.synthetic: Callable[[], None] = cache(partial(_synthetic_corpus, root, self.synthetic_dir, size))
        self.grown: Callable[[], None] = cache(partial(_grown_corpus, root, self.grown_dir))


def _grown_corpus(root: Path, grown: Path) -> None:
    """The corpus grown to GROWN_ENTRIES entries, built (its generated files current)."""
    if not (grown / "taxonomy.yaml").exists():
        _in_child(
            "from pathlib import Path; from masrl.bench._synth import write_grown_corpus; "
            f"write_grown_corpus(Path({str(root)!r}), Path({str(grown)!r}), {GROWN_ENTRIES})"
        )
        subprocess.run(masrl_argv("build"), cwd=grown, check=True, capture_output=True)


def _synthetic_corpus(root: Path, synthetic: Path, size: int) -> None:
    if not (synthetic / "taxonomy.yaml").exists():
        _in_child(
            "from pathlib import Path; from masrl.bench._synth import write_synthetic_corpus; "
            f"write_synthetic_corpus(Path({str(root)!r}), Path({str(synthetic)!r}), papers={size}, "
            f"exclusions={max(size // 10, 1)})"
        )


def all_targets(root: Path, work: Path, size: int) -> list[Target]:
    at = Inputs(root, work, size)
    real, synthetic = at.real_dir, at.synthetic_dir
    return [
        Target("validate: corpus", masrl_argv("validate"), real, budget_s=0.25, setup=at.real),
        Target(
            f"validate: {GROWN_ENTRIES} entries (corpus grown)",
            masrl_argv("validate"),
            at.grown_dir,
            budget_s=0.25,
            setup=at.grown,
        ),
        Target(
            f"validate: {GROWN_ENTRIES} entries, no cache (a clean clone)",
            ["env", "MASRL_NO_CACHE=1", *masrl_argv("validate")],
            at.grown_dir,
            budget_s=0.6,
            setup=at.grown,
        ),
        Target(
            f"validate: {size:,} generated papers", masrl_argv("validate"), synthetic, budget_s=3.0, setup=at.synthetic
        ),
        Target("build: corpus, nothing changed", masrl_argv("build"), real, budget_s=0.16, setup=at.real),
        Target("check: corpus, nothing changed", masrl_argv("check"), real, budget_s=0.16, setup=at.real),
        Target(
            "check: corpus, no cache (a clean clone)",
            masrl_argv("check"),
            real,
            budget_s=1.5,
            setup=at.real,
            prepare=_drop_state(real),
        ),
        Target(
            "build: corpus, figures redrawn",
            masrl_argv("build", "--full"),
            real,
            budget_s=1.5,
            setup=at.real,
            prepare=_drop_figure_cache(real),
        ),
        Target(
            f"build: {size:,} generated papers, from scratch",
            masrl_argv("build"),
            synthetic,
            budget_s=15.0,
            budget_mib=1024,
            setup=at.synthetic,
            prepare=_reset_outputs(synthetic, root / "README.md"),
        ),
        *site_targets(at),
        *trace_targets(work),
        *credit_targets(work),
        *otel_targets(work),
        *rank_targets(at),
    ]


def _site_build(real: Path, out: Path, setup: Callable[[], None]) -> Target:
    argv = [
        sys.executable,
        "-m",
        "mkdocs",
        "build",
        "--strict",
        "-q",
        "-f",
        str(real / "site" / "mkdocs.yml"),
        "-d",
        str(out),
    ]
    return Target("site: mkdocs build --strict, corpus", argv, real, budget_s=10.0, setup=setup)


def _papers_page(real: Path, out: Path, size: int, work: Path) -> Path:
    """The built papers page with its data swapped for *size* generated rows."""
    import json

    from masrl.publish._build import analyse
    from masrl.publish._site import DETAILS_FILE, _table_data, script_json

    synthetic = work / f"synthetic-{size}"
    analysis = analyse(synthetic, strict=False)
    corpus = analysis.corpus
    family = {p.key: corpus.taxonomy.family_of(p.reward_type) for p in corpus.papers}
    labels = {name: {x.id: x.label for x in f.values} for name, f in corpus.taxonomy.fields.items()}
    table, details = _table_data(corpus, family, labels, corpus.taxonomy)
    data = script_json(table)
    # A copy of the built site (the timed mkdocs target rebuilds `out` from scratch) whose papers
    # page carries the generated rows instead of the corpus.
    big = work / "site-big"
    if big.exists():
        shutil.rmtree(big)
    shutil.copytree(out, big)
    page = (big / "papers" / "index.html").read_text("utf-8")
    head, rest = page.split('id="masrl-paper-data">', 1)
    _, tail = rest.split("</script>", 1)
    (big / "papers" / "index.html").write_text(f'{head}id="masrl-paper-data">{data}</script>{tail}', "utf-8")
    (big / DETAILS_FILE).write_text(json.dumps(details, ensure_ascii=False, separators=(",", ":")), "utf-8")
    return big


# What each in-page target times, as JavaScript returning milliseconds, once the page holds the
# details it loads when a reader searches or exports (authors, summaries: the search reads them).
# Filtering is two changes (a text term with a family, then a credit unit alone), each a full
# re-filter, facet recount and re-render; an export builds the text of every row of the view (no
# filter: all of them).
_PAGE_TIMINGS = {
    "filter": """async () => { await window.masrlPapers.ready(); const t0 = performance.now();
                 window.masrlPapers.filter({q: "agent", f: ["R7"], u: []});
                 window.masrlPapers.filter({q: "", f: [], u: ["orchestrator", "team"]});
                 return (performance.now() - t0) / 2; }""",
    "bib": """async () => { await window.masrlPapers.ready(); window.masrlPapers.filter({q: "", u: []});
              const t0 = performance.now();
              const n = window.masrlPapers.exportText("bib").length; return n ? performance.now() - t0 : -1; }""",
    "csv": """async () => { await window.masrlPapers.ready(); window.masrlPapers.filter({q: "", u: []});
              const t0 = performance.now();
              const n = window.masrlPapers.exportText("csv").length; return n ? performance.now() - t0 : -1; }""",
}


def _page_probe(out: Path, timing: str) -> Callable[[], float]:
    """Seconds one in-page operation takes on the big papers table, timed inside Chromium.

    Each call loads the page afresh in a new Chromium and runs *timing* (a key of _PAGE_TIMINGS).
    """

    def probe() -> float:
        from playwright.sync_api import sync_playwright

        from masrl.publish._browser import chromium_executable, launch_args, serve

        with serve(out) as base, sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=chromium_executable(), args=launch_args())
            page = browser.new_page()
            page.goto(f"{base}/papers/")
            page.wait_for_function("window.masrlPapers !== undefined")
            ms = page.evaluate(_PAGE_TIMINGS[timing])
            browser.close()
        return float(ms) / 1000

    return probe


# ... as transferred (gzip), at GROWN_ENTRIES entries, or at the corpus's own size once it holds
# more (the grown corpus only adds entries). 60 KB was set at 300 entries; at 1,351 entries the
# inline rows are ~57 KB, of which the titles the table shows are ~34 KB and the keys behind its
# links ~8 KB, and papers.js, minified by the site build, ~6 KB. What is not shown at load (authors,
# summaries, arXiv ids, code addresses, BibTeX fields) waits in the details file, and readers
# without JavaScript get their own page.
PAGE_GZIP_BUDGET_KB = 75


def gzip_kb(path: Path) -> float:
    """*path*'s size in KB (1000 bytes) gzip-compressed at level 6, as a web server sends it."""
    import gzip

    return len(gzip.compress(path.read_bytes(), compresslevel=6)) / 1000


def page_weight(site: Path) -> tuple[float, float, float, float]:
    """The papers page of the built *site*: its HTML and papers.js as files, and as transferred
    (gzip) when the page loads, and the details it loads when a reader searches or exports (gzip),
    in KB."""
    from masrl.publish._site import DETAILS_FILE

    html, script = site / "papers" / "index.html", site / "assets" / "papers.js"
    raw = (html.stat().st_size + script.stat().st_size) / 1000
    return raw, gzip_kb(html), gzip_kb(script), gzip_kb(site / DETAILS_FILE)


def _grown_site(root: Path, work: Path) -> Path:
    """The site of the corpus grown to GROWN_ENTRIES entries, built with mkdocs."""
    grown, out = work / f"grown-{GROWN_ENTRIES}", work / f"grown-{GROWN_ENTRIES}-site"
    _grown_corpus(root, grown)
    if not (out / "papers" / "index.html").exists():
        subprocess.run(_site_build(grown, out, lambda: None).argv, cwd=grown, check=True, capture_output=True)
    return out


def facts(root: Path, work: Path) -> list[tuple[str, str]]:
    """Sizes that have budgets too: the papers page's own HTML, JS and data, on the corpus and at
    GROWN_ENTRIES entries."""
    out = work / "site-out"
    if not (out / "papers" / "index.html").exists():
        return []
    raw, html, script, details = page_weight(out)
    lines = [
        (
            "papers page transferred, corpus (gzip: HTML + papers.js; details on search or export)",
            f"{html + script:.1f} KB ({html:.1f} + {script:.1f}; {raw:.1f} KB as files); details {details:.1f} KB",
        ),
    ]
    grown = _grown_site(root, work)
    raw, html, script, details = page_weight(grown)
    total = html + script
    lines.append(
        (
            f"papers page transferred, {GROWN_ENTRIES} entries (gzip: HTML + papers.js)",
            f"{total:.1f} KB ({html:.1f} + {script:.1f}) <= {PAGE_GZIP_BUDGET_KB} KB "
            f"{'ok' if total <= PAGE_GZIP_BUDGET_KB else 'OVER'}; details, loaded on search or export: {details:.1f} KB",
        )
    )
    return lines


def site_targets(at: Inputs) -> list[Target]:
    real, work, size = at.real_dir, at.work, at.size
    out = work / "site-out"
    from masrl.publish._browser import chromium_executable

    build = _site_build(real, out, at.real)
    targets = [build]
    if chromium_executable() is not None:
        big = work / "site-big"

        @cache
        def page() -> None:
            at.real()
            at.synthetic()
            if not (out / "papers" / "index.html").exists():
                subprocess.run(build.argv, cwd=real, check=True, capture_output=True)
            _in_child(
                "from pathlib import Path; from masrl.bench._targets import _papers_page; "
                f"_papers_page(Path({str(real)!r}), Path({str(out)!r}), {size}, Path({str(work)!r}))"
            )

        timed = [("filter", f"site: filter {size:,} rows in Chromium"),
                 ("bib", f"site: export {size:,} rows as BibTeX"),
                 ("csv", f"site: export {size:,} rows as CSV")]  # fmt: skip
        targets += [
            Target(name, [], real, budget_s=0.05, setup=page, probe=_page_probe(big, timing)) for timing, name in timed
        ]
    return targets
