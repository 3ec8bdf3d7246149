"""The figures, drawn with matplotlib as byte-deterministic SVG.

Each figure is a :class:`FigureSpec`: a name, the exact data it shows (taken from the statistics)
and a function that draws that data. The SVGs carry no date, fixed element ids and text as text,
so the same data always gives the same bytes.

Drawing is the slow part of a build (matplotlib alone takes ~0.4 s to import), so
:class:`Drawing` keeps a manifest of the data fingerprint and SVG hash of every figure: when
a figure's data is unchanged and the file on disk still has the recorded hash, it is reused as is
and matplotlib is never imported. A hand-edited SVG no longer matches its hash and is redrawn.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import re
import textwrap
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

# Bump when the drawing code changes, so every figure is redrawn once.
DRAWING_VERSION = 7
FIGURE_DIR = "site/docs/figures"
MANIFEST = f"{FIGURE_DIR}/manifest.json"

# Colours from a colour-blind-safe qualitative palette (Okabe-Ito), in category order.
PALETTE = ("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442", "#999999")
INK = "#222222"  # text and lines on the page background
MUTED = "#767676"  # secondary text and lines: still 4.5:1 on white
PAPER = "#ffffff"  # the figure's background
LANE = "#eeeeee"  # swimlane bands
FAINT = "#cfcfcf"  # light dependency arrows
# Text drawn on a data colour (heat-map cells, flow-chart boxes) keeps its colour in both variants,
# so it is written in shades the dark variant does not remap.
CELL_INK = "#1f1f1f"
CELL_MUTED = "#6b6b6b"
CELL_WHITE = "#fefefe"

# Every figure also has a dark variant (``<name>-dark.svg``) for the site's dark scheme: the same
# SVG with the page colours swapped (Material's slate background, light text); data colours stay.
DARK_COLOURS = {
    INK: "#e3e5ea",
    MUTED: "#a4a9b4",
    PAPER: "#1e2029",
    LANE: "#2c303b",
    FAINT: "#4c5260",
}
_HEX = re.compile("|".join(DARK_COLOURS), re.I)


def dark_variant(svg: bytes) -> bytes:
    """The dark-scheme version of a figure drawn in the light palette."""
    text = svg.decode("utf-8")
    return _HEX.sub(lambda m: DARK_COLOURS[m.group().lower()], text).encode("utf-8")


@dataclass(frozen=True)
class FigureSpec:
    name: str
    title: str
    alt: str
    data: dict[str, Any]
    draw: Callable[[dict[str, Any]], Any]

    @property
    def path(self) -> str:
        return f"{FIGURE_DIR}/{self.name}.svg"

    @property
    def dark_path(self) -> str:
        return f"{FIGURE_DIR}/{self.name}-dark.svg"

    def fingerprint(self) -> str:
        payload = json.dumps({"v": DRAWING_VERSION, "name": self.name, "data": self.data}, sort_keys=True)
        return hashlib.sha256(payload.encode()).hexdigest()[:16]


def _figure(width: float, height: float) -> Any:
    import matplotlib

    matplotlib.use("svg")
    matplotlib.rcParams.update(
        {
            "svg.hashsalt": "masrl",  # fixed ids for clip paths and other defs
            "svg.fonttype": "none",  # text stays text: smaller files, no embedded glyph paths
            "font.family": "DejaVu Sans",
            "font.size": 9,
            "axes.edgecolor": MUTED,
            "axes.labelcolor": INK,
            "xtick.color": INK,
            "ytick.color": INK,
            "axes.spines.top": False,
            "axes.spines.right": False,
        }
    )
    from matplotlib.figure import Figure

    return Figure(figsize=(width, height), dpi=100, layout="constrained")


def _integer_ticks() -> Any:
    from matplotlib.ticker import MaxNLocator

    return MaxNLocator(integer=True)


def _svg(fig: Any) -> bytes:
    out = io.StringIO()
    fig.savefig(out, format="svg", metadata={"Date": None, "Creator": "masrl"})
    return out.getvalue().encode("utf-8")


def _bars(data: dict[str, Any]) -> Any:
    labels, values = data["labels"], data["values"]
    fig = _figure(8.0, 3.4)
    ax = fig.add_subplot()
    positions = range(len(values))
    bars = ax.bar(positions, values, color=[PALETTE[0] if v else MUTED for v in values], width=0.7)
    for bar, value in zip(bars, values, strict=True):
        # Zero bars have no height; their label keeps the empty cell visible.
        ax.annotate(
            str(value),
            (bar.get_x() + bar.get_width() / 2, value),
            xytext=(0, 3),
            textcoords="offset points",
            ha="center",
            va="bottom",
            color=INK if value else MUTED,
            fontweight="bold" if value else "normal",
        )
    ax.set_xticks(list(positions), labels, fontsize=8)
    ax.set_ylabel("entries")
    ax.yaxis.set_major_locator(_integer_ticks())
    ax.set_ylim(0, max([*values, 1]) * 1.25)
    ax.set_title(data["title"], loc="left", color=INK)
    if data.get("note"):
        ax.text(1.0, 1.0, data["note"], transform=ax.transAxes, ha="right", va="top", color=MUTED, fontsize=7)
    return fig


def _heatmap(data: dict[str, Any]) -> Any:
    rows, cols, cells = data["rows"], data["cols"], data["cells"]
    fig = _figure(7.5, 4.2)
    ax = fig.add_subplot()
    top = max((n for row in cells for n in row), default=0) or 1
    ax.imshow(cells, cmap="Blues", vmin=0, vmax=top, aspect="auto")
    for i, row in enumerate(cells):
        for j, n in enumerate(row):
            ax.text(
                j,
                i,
                str(n),
                ha="center",
                va="center",
                fontsize=8,
                color=CELL_WHITE if n > top * 0.6 else (CELL_INK if n else CELL_MUTED),
            )
    ax.set_xticks(range(len(cols)), cols, rotation=30, ha="right")
    ax.set_yticks(range(len(rows)), rows)
    ax.set_xlabel(data["xlabel"])
    ax.set_ylabel(data["ylabel"])
    ax.set_title(data["title"], loc="left", color=INK)
    ax.spines[:].set_visible(False)
    return fig


def _years(data: dict[str, Any]) -> Any:
    years, series = data["years"], data["series"]
    fig = _figure(7.5, 3.4)
    ax = fig.add_subplot()
    positions = list(range(len(years)))
    bottom = [0] * len(years)
    for i, (label, values) in enumerate(series):
        ax.bar(positions, values, bottom=bottom, label=label, color=PALETTE[i % len(PALETTE)], width=0.75)
        bottom = [b + v for b, v in zip(bottom, values, strict=True)]
    ax.set_ylabel("entries")
    ax.yaxis.set_major_locator(_integer_ticks())
    ax.set_title(data["title"], loc="left", color=INK)
    ax.set_xticks(positions, years)
    ax.legend(frameon=False, fontsize=7, ncols=3, loc="upper left")
    ax.set_ylim(0, max([*bottom, 1]) * 1.35)
    return fig


def _flow(data: dict[str, Any]) -> Any:
    from matplotlib.patches import FancyBboxPatch

    fig = _figure(7.5, 4.4)
    ax = fig.add_subplot()
    ax.set_xlim(0, 100)
    ax.set_ylim(0, 100)
    ax.axis("off")

    def box(x: float, y: float, w: float, h: float, text: str, colour: str) -> None:
        ax.add_patch(
            FancyBboxPatch(
                (x, y),
                w,
                h,
                boxstyle="round,pad=0.6,rounding_size=1.5",
                facecolor=colour,
                edgecolor=MUTED,
                linewidth=0.8,
            )
        )
        ax.text(x + w / 2, y + h / 2, text, ha="center", va="center", fontsize=8, color=CELL_INK, wrap=True)

    def arrow(x0: float, y0: float, x1: float, y1: float) -> None:
        ax.annotate("", (x1, y1), (x0, y0), arrowprops={"arrowstyle": "-|>", "color": MUTED, "lw": 0.9})

    box(5, 84, 45, 11, f"Records identified\nn = {data['identified']}", "#e8f1fa")
    box(5, 2, 45, 11, f"Retained in the corpus\nn = {data['retained']}", "#e6f4ee")
    arrow(27.5, 82.5, 27.5, 14.5)
    stages = data["stages"]
    # Exclusion boxes sit between the two main boxes, each fed by a branch off the main line.
    top, bottom = 78.0, 20.0
    slot = (top - bottom) / max(len(stages), 1)
    for i, (label, n) in enumerate(stages):
        height = min(slot - 3, 11)
        y = top - (i + 1) * slot + (slot - height) / 2
        box(62, y, 33, height, f"Excluded at {label}\nn = {n}", "#fbeee6" if n else "#f4f4f4")
        arrow(27.5, y + height / 2, 61, y + height / 2)
    ax.set_title(data["title"], loc="left", color=INK)
    return fig


def _arms_flow(data: dict[str, Any]) -> Any:
    """A PRISMA 2020 flow of a round run by arms: one identification box per arm, databases on the
    left and other methods on the right, then what became of the distinct candidates."""
    from matplotlib.patches import FancyBboxPatch

    fig = _figure(7.5, 5.2)
    ax = fig.add_subplot()
    ax.set_xlim(0, 100)
    ax.set_ylim(0, 100)
    ax.axis("off")

    def box(x: float, y: float, w: float, h: float, text: str, colour: str) -> None:
        ax.add_patch(
            FancyBboxPatch(
                (x, y),
                w,
                h,
                boxstyle="round,pad=0.5,rounding_size=1.2",
                facecolor=colour,
                edgecolor=MUTED,
                linewidth=0.8,
            )
        )
        ax.text(x + w / 2, y + h / 2, text, ha="center", va="center", fontsize=7.5, color=CELL_INK)

    def arrow(x0: float, y0: float, x1: float, y1: float) -> None:
        ax.annotate("", (x1, y1), (x0, y0), arrowprops={"arrowstyle": "-|>", "color": MUTED, "lw": 0.9})

    arms = data["arms"]
    width = 90 / max(len(arms), 1)
    for i, (label, route, n) in enumerate(arms):
        x = 5 + i * width
        box(x, 86, width - 4, 9, f"{label} ({route})\nn = {n}", "#e8f1fa" if route == "databases" else "#efeaf7")
        arrow(x + (width - 4) / 2, 85, 50, 77)
    box(25, 66, 50, 9, f"Distinct candidates\nn = {data['distinct']}", "#e8f1fa")
    box(80, 66, 18, 9, f"Already in the corpus\nn = {data['known']}", "#f4f4f4")
    arrow(75.5, 70.5, 79, 70.5)
    box(25, 48, 50, 9, f"New in the window\nn = {data['new']}", "#e8f1fa")
    arrow(50, 65, 50, 58)
    box(80, 48, 18, 9, f"Before the window\nn = {data['outside']}", "#f4f4f4")
    arrow(75.5, 52.5, 79, 52.5)
    box(25, 30, 50, 9, f"Screened on title and abstract\nn = {data['screened']}", "#e8f1fa")
    arrow(50, 47, 50, 40)
    box(
        0,
        30,
        22,
        9,
        f"Not screened\nranked below the stop {data['unscreened']}\nno abstract yet {data['awaiting'] + data['waiting']}",
        "#f4f4f4",
    )
    arrow(24.5, 52.5, 11, 40)
    box(80, 30, 18, 9, f"Excluded\nn = {data['excluded']}", "#fbeee6")
    arrow(75.5, 34.5, 79, 34.5)
    box(25, 10, 50, 9, f"Included in the corpus\nn = {data['included']}", "#e6f4ee")
    arrow(50, 29, 50, 20)
    ax.set_title(data["title"], loc="left", color=INK)
    return fig


RECENT_YEARS = 10  # the year chart shows this many years one by one and groups older ones


def _year_buckets(
    by_year: dict[str, dict[str, int]], categories: list[str]
) -> tuple[list[str], list[tuple[str, list[int]]]]:
    """Year labels and per-category series, older years folded into one "≤ YYYY" bar."""
    years = [int(y) for y in by_year]
    if not years:
        return [], [(c, []) for c in categories]
    cut = max(years) - RECENT_YEARS + 1
    old = [y for y in years if y < cut]
    recent = [y for y in years if y >= cut]
    labels = ([f"≤ {cut - 1}"] if old else []) + [str(y) for y in recent]
    series = []
    for c in categories:
        values = ([sum(by_year[str(y)][c] for y in old)] if old else []) + [by_year[str(y)][c] for y in recent]
        series.append((c, values))
    return labels, series


def _two_lines(label: str) -> str:
    """``"R8 Hybrid local-global"`` -> ``"R8\nhybrid local-global"``, wrapped for a tick label."""
    head, _, rest = label.partition(" ")
    return (
        head
        + "\n"
        + "\n".join(textwrap.wrap(rest.lower().replace("/", "/ "), 10, break_long_words=False)).replace("/ ", "/")
    )


def figure_specs(stats: dict[str, Any], labels: dict[str, dict[str, str]]) -> list[FigureSpec]:
    """Every figure for *stats*; *labels* maps field -> value id -> display label."""
    fam = stats["counts"]["reward_family"]
    year_labels, year_series = _year_buckets(stats["by_year"], list(stats["counts"]["category"]))
    families = [f for f in fam if f != "NA"]
    units = [u for u in stats["counts"]["credit_unit"] if u != "NA"]
    reward_types = [r for r in stats["counts"]["reward_type"] if r != "NA"]
    cross = stats["crosstabs"]["reward_type x credit_unit"]
    flow = stats["screening"]
    return [
        FigureSpec(
            "reward-families",
            "Entries per reward family",
            "Bar chart of entries per reward family R1 to R8.",
            {
                "title": "Entries per reward family (R1–R8)",
                "labels": [_two_lines(labels["reward_family"][f]) for f in families],
                "values": [fam[f] for f in families],
                "note": f"{fam.get('NA', 0)} entries define no reward (n/a), not shown",
            },
            _bars,
        ),
        FigureSpec(
            "credit-units",
            "Entries per credit unit, token to team",
            "Bar chart of entries per credit unit from token to team, zeros labelled.",
            {
                "title": "Finest unit carrying reward or credit, fine to coarse",
                "labels": [labels["credit_unit"][u] for u in units],
                "values": [stats["counts"]["credit_unit"][u] for u in units],
                "note": f"{stats['counts']['credit_unit'].get('NA', 0)} entries have no credit unit (n/a), not shown",
            },
            _bars,
        ),
        FigureSpec(
            "reward-x-credit",
            "Reward type by credit unit",
            "Heat map of entries by reward type and credit unit, with counts in every cell.",
            {
                "title": "Reward type × credit unit (entries)",
                "rows": [labels["reward_type"][r] for r in reward_types],
                "cols": [labels["credit_unit"][u] for u in units],
                "cells": [[cross[r][u] for u in units] for r in reward_types],
                "xlabel": "credit unit (fine → coarse)",
                "ylabel": "reward type",
            },
            _heatmap,
        ),
        FigureSpec(
            "entries-per-year",
            "Entries per year by category",
            "Stacked bar chart of entries per publication year, by category.",
            {
                "title": "Entries per year, by category",
                "years": year_labels,
                "series": [[labels["category"][c], values] for c, values in year_series],
            },
            _years,
        ),
        FigureSpec(
            "screening-flow",
            "Screening flow",
            "Flow diagram: records identified, excluded at each screening stage, and retained.",
            {
                "title": "Screening flow",
                "identified": flow["identified"],
                "retained": flow["retained"],
                "stages": [[labels["screening_stage"][s].lower(), n] for s, n in flow["by_stage"].items()],
            },
            _flow,
        ),
        *_round_flows(flow.get("rounds", {}), labels),
        *_arms_flows(flow.get("arms", {})),
    ]


def _arms_flows(rounds: dict[str, Any]) -> list[FigureSpec]:
    """One PRISMA 2020 flow per round run by the search arms."""
    specs = []
    for name, report in rounds.items():
        f = report["flow"]
        title = f"Search arms, {name}"
        specs.append(
            FigureSpec(
                f"screening-arms-{name}",
                title,
                f"Flow diagram of {name} as PRISMA 2020 draws it: the records each search arm identified, the "
                "distinct candidates, those the corpus already held or that came before the window, those screened, "
                "excluded and included, and those not screened.",
                {
                    "title": title,
                    "arms": [[a["label"], a["prisma"], a["candidates"]] for a in f["identified"].values()],
                    "distinct": f["distinct"],
                    "known": f["known"],
                    "outside": f["outside"],
                    "new": f["distinct"] - f["known"] - f["outside"],
                    "screened": f["screened"],
                    "excluded": f["excluded"],
                    "included": f["included"],
                    "unscreened": f["unscreened"],
                    "awaiting": f["awaiting"],
                    "waiting": f["waiting"],
                },
                _arms_flow,
            )
        )
    return specs


def _round_flows(rounds: dict[str, Any], labels: dict[str, dict[str, str]]) -> list[FigureSpec]:
    """One flow diagram per search round (and for contributions) that holds any record."""
    specs = []
    for name, counts in rounds.items():
        if not counts["identified"] or name == "unassigned":
            continue
        title = "Contributions outside a round" if name == "contributions" else f"Screening flow, {name}"
        specs.append(
            FigureSpec(
                f"screening-flow-{name}",
                title,
                f"Flow diagram of {name}: records identified, excluded at each screening stage, and retained.",
                {
                    "title": title,
                    "identified": counts["identified"],
                    "retained": counts["retained"],
                    "stages": [[labels["screening_stage"][s].lower(), n] for s, n in counts["by_stage"].items()],
                },
                _flow,
            )
        )
    return specs


PARALLEL_FIGURES = 2  # from this many figures to draw at once, two forked processes draw them


class Drawing:
    """Figures on their way: those unchanged are read from disk, the rest drawn.

    Figures are added in batches, as their data becomes known. On a multi-core machine, once a
    batch holds :data:`PARALLEL_FIGURES` figures to draw, two forked processes draw them (and every
    later one) in the background while the caller goes on; :meth:`result` waits for them. Use it
    as a context manager, so the processes end even if the caller fails first.
    """

    def __init__(self, on_disk: Callable[[str], bytes | None]) -> None:
        self._on_disk = on_disk
        self._old: dict[str, Any] = {}
        raw = on_disk(MANIFEST)
        if raw:
            try:
                self._old = json.loads(raw)
            except ValueError:
                self._old = {}
        self.specs: list[FigureSpec] = []
        self.drawn: dict[str, bytes] = {}
        self._stale: list[FigureSpec] = []  # to draw here, when the result is asked for
        self._pending: list[tuple[list[FigureSpec], Any]] = []  # batches being drawn by the pool
        self._pool: Any = None

    def add(self, specs: list[FigureSpec]) -> None:
        """Take *specs* in: reuse those unchanged on disk, start drawing the others."""
        stale = []
        for spec in specs:
            self.specs.append(spec)
            previous = self._old.get(spec.name, {})
            existing = self._on_disk(spec.path)
            if (
                existing is not None
                and previous.get("data") == spec.fingerprint()
                and previous.get("sha256") == hashlib.sha256(existing).hexdigest()
            ):
                self.drawn[spec.name] = existing
            else:
                stale.append(spec)
        if self._pool is None and len(stale) >= PARALLEL_FIGURES and (os.cpu_count() or 1) >= 2:
            import multiprocessing

            _figure(1, 1)  # import and configure matplotlib once, before the workers fork from this process
            self._pool = multiprocessing.get_context("fork").Pool(2)
        if self._pool is not None and stale:
            self._pending.append((stale, self._pool.map_async(draw, stale)))
        else:
            self._stale.extend(stale)

    def __enter__(self) -> Drawing:
        return self

    def __exit__(self, *exc: object) -> None:
        if self._pool is not None:
            self._pool.terminate()
            self._pool.join()
            self._pool = None

    def result(self) -> dict[str, bytes | str]:
        """SVG bytes (light and dark) for every figure, and the manifest, keyed by path."""
        for batch, pending in self._pending:
            self.drawn.update(zip((s.name for s in batch), pending.get(), strict=True))
        self.drawn.update((spec.name, draw(spec)) for spec in self._stale)
        self._pending, self._stale = [], []
        out: dict[str, bytes | str] = {}
        manifest: dict[str, Any] = {}
        for spec in self.specs:
            svg = self.drawn[spec.name]
            out[spec.path] = svg
            out[spec.dark_path] = dark_variant(svg)
            manifest[spec.name] = {"data": spec.fingerprint(), "sha256": hashlib.sha256(svg).hexdigest()}
        out[MANIFEST] = json.dumps(manifest, indent=2, sort_keys=True) + "\n"
        return out


def draw(spec: FigureSpec) -> bytes:
    """Draw *spec* now, ignoring any cached file."""
    return _svg(spec.draw(spec.data))


# Event types in the order their legend lists them, with a colour each (Okabe-Ito again).
TRACE_EVENT_COLOURS = {
    "orchestrator_decision": "#0072B2",
    "spawn": "#009E73",
    "despawn": "#999999",
    "message": "#E69F00",
    "tool_call": "#CC79A7",
    "tool_result": "#D55E00",
    "return": "#56B4E9",
    "aggregate": "#000000",
    "human_intervention": "#F0E442",
    "safety_event": "#882255",
}


TRACE_LABELS_MAX = 20  # events in a swimlane diagram that get their id written beside them


def trace_spec(trace: Any, name: str, title: str) -> FigureSpec:
    """A swimlane diagram of a validated *trace* (its decoded structs): one lane per agent, events
    placed by time, edges as arrows."""
    events: list[dict[str, Any]] = [
        {"id": str(e.id), "t": float(e.t), "agent": str(e.agent), "type": str(e.kind)} for e in trace.events
    ]
    lanes: list[str] = []
    for e in sorted(events, key=lambda e: float(e["t"])):
        if e["agent"] not in lanes:
            lanes.append(str(e["agent"]))
    edges = [[str(x.src), str(x.dst), str(x.type)] for x in trace.edges]
    return FigureSpec(
        name,
        title,
        f"Swimlane diagram of the trace {trace.trace_id}: one lane per agent, "
        "events in time order, typed edges as arrows.",
        {"title": title, "lanes": lanes, "events": events, "edges": edges},
        _swimlanes,
    )


def _swimlanes(data: dict[str, Any]) -> Any:
    lanes, events, edges = data["lanes"], data["events"], data["edges"]
    fig = _figure(8.0, 0.6 * len(lanes) + 1.6)
    ax = fig.add_subplot()
    where = {e["id"]: (e["t"], len(lanes) - 1 - lanes.index(e["agent"])) for e in events}
    for i, _ in enumerate(lanes):
        ax.axhline(len(lanes) - 1 - i, color=LANE, lw=6, zorder=0)
    # Edges in two batches (one artist each): hand-offs between agents dark, dependencies light.
    # Each arrow stops short of its target so the head is not hidden under the marker.
    span_x = (max(x for x, _ in where.values()) - min(x for x, _ in where.values())) or 1.0
    span_y = max(len(lanes), 1)

    def shortened(p: tuple[float, float], q: tuple[float, float]) -> tuple[float, float]:
        dx, dy = q[0] - p[0], q[1] - p[1]
        length = ((dx / span_x) ** 2 + (dy / span_y / 2) ** 2) ** 0.5 or 1.0
        keep = max(0.0, 1 - 0.022 / length)
        return dx * keep, dy * keep

    for light in (False, True):
        batch = [
            (where[a], where[b])
            for a, b, kind in edges
            if a in where and b in where and (kind in ("causal", "tool_dependency")) == light
        ]
        if batch:
            xs, ys = [p[0] for p, _ in batch], [p[1] for p, _ in batch]
            vectors = [shortened(p, q) for p, q in batch]
            us, vs = [u for u, _ in vectors], [w for _, w in vectors]
            ax.quiver(
                xs,
                ys,
                us,
                vs,
                angles="xy",
                scale_units="xy",
                scale=1,
                width=0.0025,
                headwidth=5,
                headlength=6,
                color=FAINT if light else MUTED,
                zorder=1,
            )
    # Events in one batch per type, so the legend lists each type once.
    for kind, colour in TRACE_EVENT_COLOURS.items():
        points = [where[e["id"]] for e in events if e["type"] == kind]
        if points:
            ax.scatter(
                [p[0] for p in points],
                [p[1] for p in points],
                s=70,
                color=colour,
                zorder=2,
                edgecolors=PAPER,
                linewidths=0.8,
                label=kind.replace("_", " "),
            )
    if len(events) <= TRACE_LABELS_MAX:  # past this, ids overlap and say nothing
        for e in events:
            ax.annotate(
                e["id"], where[e["id"]], xytext=(0, 7), textcoords="offset points", ha="center", fontsize=7, color=INK
            )
    ax.set_yticks(range(len(lanes)), list(reversed(lanes)))
    ax.set_xlabel("time t")
    ax.set_ylim(-0.7, len(lanes) - 0.3)
    ax.spines["left"].set_visible(False)
    ax.tick_params(axis="y", length=0)
    ax.set_title(data["title"], loc="left", color=INK)
    ax.legend(frameon=False, fontsize=7, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    return fig


def credit_spec(name: str, title: str, refs: list[str], methods: dict[str, list[float]]) -> FigureSpec:
    """Grouped bars: the credit each method gives each unit of a run (a colour per method)."""
    listed = ", ".join(methods)
    return FigureSpec(
        name,
        title,
        f"Bar chart of the credit that {listed} give each of {len(refs)} units of one run.",
        {"title": title, "refs": refs, "methods": methods},
        _grouped_bars,
    )


def _grouped_bars(data: dict[str, Any]) -> Any:
    refs, methods = data["refs"], data["methods"]
    fig = _figure(8.0, 3.2)
    ax = fig.add_subplot()
    width = 0.8 / max(1, len(methods))
    for k, (method, values) in enumerate(methods.items()):
        positions = [i + (k - (len(methods) - 1) / 2) * width for i in range(len(refs))]
        ax.bar(positions, values, width=width * 0.95, color=PALETTE[k % len(PALETTE)], label=method)
    ax.axhline(0, color=MUTED, lw=0.8)
    ax.set_xticks(
        list(range(len(refs))),
        refs,
        fontsize=7,
        rotation=30 if len(refs) > 6 else 0,
        ha="right" if len(refs) > 6 else "center",
    )
    ax.set_ylabel("credit")
    ax.set_title(data["title"], loc="left", color=INK)
    ax.legend(fontsize=7, frameon=False, ncols=min(len(methods), 5), loc="upper right")
    return fig
