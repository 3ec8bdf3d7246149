"""How many in-scope papers exist, estimated from how the search arms overlap (capture-recapture).

Each in-scope paper the corpus holds has a *capture history*: which sources found it (the search
arms of a round, and the corpus as it stood before the round). Papers no source found are the
unseen cell of the 2^k table. Sources are not independent (curated lists copy each other, and a
list's author reads the same arXiv listings), so the count of the unseen cell comes from
log-linear models of the observed cells with two-source interactions (Fienberg 1972; Cormack
1989), fitted as Poisson GLMs with statsmodels:

    log E[n_h] = b0 + sum_i b_i h_i + sum_{i<j in M} b_ij h_i h_j      (h: the history's 0/1 bits)

and the unseen cell's expected count is exp(b0). Every hierarchical model with all main effects
and any set M of two-source interactions that leaves at least zero degrees of freedom is fitted;
their estimates are averaged with Akaike weights on the log scale, and the interval's standard
error adds the spread between models to each model's own (Buckland, Burnham and Augustin 1997),
so the interval carries the uncertainty of choosing the interactions too. Models whose fit does
not converge or leaves the unseen cell unidentified (a parameter without bound) are left out.

Everything here is a pure function of the histories; :mod:`masrl.living._arms` reads them from
the records.
"""

from __future__ import annotations

import itertools
import math
import warnings
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

Z95 = 1.959963984540054  # the two-sided 95% normal quantile
MAX_SOURCES = 5  # 2^10 interaction sets past this: too many models to fit each time
MAX_LOG_SE = 5.0  # a model whose unseen-cell log count has a larger standard error left it unidentified


class EstimateError(Exception):
    """The histories cannot give an estimate (too few sources, or no model could be fitted)."""


@dataclass(frozen=True)
class Model:
    """One fitted log-linear model."""

    interactions: tuple[tuple[str, str], ...]
    heterogeneity: str  # "" or a key of HETEROGENEITY
    aic: float
    log_unseen: float  # b0: log of the unseen cell's expected count
    log_se: float
    weight: float = 0.0

    @property
    def name(self) -> str:
        terms = [f"{a}×{b}" for a, b in self.interactions]
        if self.heterogeneity:
            terms.append(f"heterogeneity ({self.heterogeneity})")
        return " + ".join(terms) or "independence"

    @property
    def unseen(self) -> float:
        return math.exp(self.log_unseen)


@dataclass(frozen=True)
class Estimate:
    """The estimated population, the recall of the corpus and of each source, with 95% intervals."""

    sources: tuple[str, ...]
    observed: int  # distinct papers found by at least one source
    histories: dict[str, int]  # "1010" (one bit per source, in order) -> papers
    population: float
    low: float
    high: float
    models: tuple[Model, ...] = field(default_factory=tuple)

    @property
    def unseen(self) -> float:
        return self.population - self.observed

    @property
    def recall(self) -> float:
        return self.observed / self.population if self.population else 1.0

    @property
    def recall_low(self) -> float:
        return self.observed / self.high if self.high else 1.0

    @property
    def recall_high(self) -> float:
        return self.observed / self.low if self.low else 1.0

    def found(self, source: str) -> int:
        i = self.sources.index(source)
        return sum(n for h, n in self.histories.items() if h[i] == "1")

    def source_recall(self, source: str) -> tuple[float, float, float]:
        """(estimate, low, high) of the share of the population *source* found."""
        n = self.found(source)
        return n / self.population, n / self.high, n / self.low

    def as_json(self) -> dict[str, Any]:
        return {
            "sources": list(self.sources),
            "observed": self.observed,
            "histories": dict(sorted(self.histories.items())),
            "population": round(self.population, 2),
            "interval": [round(self.low, 2), round(self.high, 2)],
            "recall": round(self.recall, 4),
            "recall_interval": [round(self.recall_low, 4), round(self.recall_high, 4)],
            "per_source": {
                s: {
                    "found": self.found(s),
                    "recall": round(self.source_recall(s)[0], 4),
                    "recall_interval": [round(self.source_recall(s)[1], 4), round(self.source_recall(s)[2], 4)],
                }
                for s in self.sources
            },
            "models": [
                {"model": m.name, "aic": round(m.aic, 3), "unseen": round(m.unseen, 2), "weight": round(m.weight, 4)}
                for m in self.models
            ],
            "method": "log-linear models with two-source interactions, Akaike-weighted (Buckland et al. 1997)",
        }


def histories(captures: Iterable[Iterable[str]], sources: Sequence[str]) -> dict[str, int]:
    """Count the capture histories of the papers *captures* gives (each: the sources that found
    it), as bit strings over *sources* in order; a paper no source found is not counted (it is the
    unseen cell), and a source not in *sources* is ignored."""
    out: Counter[str] = Counter()
    for found in captures:
        bits = "".join("1" if s in set(found) else "0" for s in sources)
        if "1" in bits:
            out[bits] += 1
    return dict(out)


# Heterogeneity of catchability (a well-known paper is found by every source) as one more term of
# the number of sources c that found a paper: Darroch et al. (1993)'s normal model (c^2 / 2) and
# Rivest and Baillargeon (2007)'s Poisson model (2^c - 1), the forms Rcapture fits.
HETEROGENEITY: dict[str, Any] = {
    "": None,
    "normal": lambda c: c * c / 2,
    "poisson": lambda c: 2.0**c - 1,
}


def _design(
    k: int, interactions: Sequence[tuple[int, int]], heterogeneity: str = ""
) -> tuple[list[str], list[list[float]]]:
    cells = ["".join(bits) for bits in itertools.product("01", repeat=k) if "1" in bits]
    term = HETEROGENEITY[heterogeneity]
    rows = []
    for cell in cells:
        h = [int(c) for c in cell]
        row = [1.0, *map(float, h), *(float(h[i] * h[j]) for i, j in interactions)]
        if term is not None:
            row.append(float(term(sum(h))))
        rows.append(row)
    return cells, rows


def _fit(y: Any, x: Any) -> tuple[float, float, float] | None:
    """(AIC, b0, se of b0) of one Poisson log-linear model of counts *y* on design *x*, or None
    when it cannot be fitted: a design of less than full rank (a heterogeneity term the
    interactions already span), no convergence, or an unseen cell without bound."""
    import numpy as np

    # The GLM module itself, not statsmodels.api: the whole API takes a second and a half more to import.
    from statsmodels.genmod.families import Poisson
    from statsmodels.genmod.generalized_linear_model import GLM
    from statsmodels.tools.sm_exceptions import ConvergenceWarning

    if np.linalg.matrix_rank(x) < x.shape[1]:
        return None
    try:
        result = GLM(y, x, family=Poisson()).fit()
    except (ConvergenceWarning, ValueError, np.linalg.LinAlgError):
        return None
    b0, se = float(result.params[0]), float(result.bse[0])
    if not (math.isfinite(b0) and math.isfinite(se) and math.isfinite(result.aic)) or se > MAX_LOG_SE:
        return None
    return float(result.aic), b0, se


def estimate(counts: Mapping[str, int], sources: Sequence[str]) -> Estimate:
    """The population estimate from capture-history *counts* over *sources* (see the module)."""
    k = len(sources)
    if k < 2:
        raise EstimateError(f"an estimate needs at least two sources; got {k}")
    if k > MAX_SOURCES:
        raise EstimateError(f"at most {MAX_SOURCES} sources can be modelled; got {k}")
    bad = [h for h in counts if len(h) != k or set(h) - {"0", "1"} or "1" not in h]
    if bad:
        raise EstimateError(f"histories must be {k} bits with at least one 1: {', '.join(sorted(bad))}")
    observed = sum(counts.values())
    if observed == 0:
        raise EstimateError("no source found any paper")
    n_cells = 2**k - 1
    pairs = list(itertools.combinations(range(k), 2))
    import numpy as np
    from statsmodels.tools.sm_exceptions import ConvergenceWarning

    fitted: list[Model] = []
    with warnings.catch_warnings():
        # A fit that matches the counts exactly (a saturated model, or an exact table) is sound, though
        # statsmodels warns of "perfect separation" for it, and overflow on the way to an unbounded
        # parameter is caught below by its standard error; only a fit that did not converge is refused.
        warnings.simplefilter("ignore")
        warnings.simplefilter("error", ConvergenceWarning)
        for size in range(len(pairs) + 1):
            for chosen in itertools.combinations(pairs, size):
                for hetero in HETEROGENEITY:
                    if 1 + k + size + bool(hetero) > n_cells:
                        continue
                    cells, rows = _design(k, chosen, hetero)
                    y = np.array([counts.get(c, 0) for c in cells], dtype=float)
                    fit = _fit(y, np.array(rows))
                    if fit is not None:
                        aic, b0, se = fit
                        names = tuple((sources[i], sources[j]) for i, j in chosen)
                        fitted.append(Model(names, hetero, aic, b0, se))
    if not fitted:
        raise EstimateError("no log-linear model could be fitted to these histories (too few papers found twice)")
    best = min(m.aic for m in fitted)
    raw = [math.exp(-(m.aic - best) / 2) for m in fitted]
    total = sum(raw)
    models = tuple(
        sorted(
            (
                Model(m.interactions, m.heterogeneity, m.aic, m.log_unseen, m.log_se, w / total)
                for m, w in zip(fitted, raw, strict=True)
            ),
            key=lambda m: (m.aic, m.name),
        )
    )
    # Each model's variance of log f0 adds to its parameter's the Poisson variance of the unseen
    # count itself (1 / f0 on the log scale; Cormack and Jupp 1991): N - n is random too.
    mean = sum(m.weight * m.log_unseen for m in models)
    se = sum(m.weight * math.sqrt(m.log_se**2 + math.exp(-m.log_unseen) + (m.log_unseen - mean) ** 2) for m in models)
    return Estimate(
        tuple(sources),
        observed,
        dict(counts),
        observed + math.exp(mean),
        observed + math.exp(mean - Z95 * se),
        observed + math.exp(mean + Z95 * se),
        models,
    )
