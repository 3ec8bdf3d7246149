"""Statistics and claims as a Python library, computed from a corpus that ``masrl.load`` returns.

* :func:`statistics` returns the statistics document of ``masrl stats --json`` as a ``dict``;
* :func:`claims` evaluates ``claims.yaml`` on the corpus and returns an :class:`Outcome` per claim;
* :func:`frame` returns the papers as one pandas DataFrame, a categorical column per tag field.

The functions are pure: the same corpus gives the same result, and nothing is printed or written.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from masrl.analysis._claims import Claim, Outcome
from masrl.corpus.api import Corpus, CorpusError

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["EXAMPLE", "Claim", "Outcome", "claims", "frame", "statistics"]

# The example the site's Python API page shows (a test runs it from the built page).
EXAMPLE = """\
import masrl
from masrl import analysis

corpus = masrl.load()  # the corpus folder: $MASRL_ROOT, else the nearest one holding taxonomy.yaml
debate = [p.key for p in corpus.papers if p.topology == "debate" and p.rl == "yes"]

stats = analysis.statistics(corpus)  # the document `masrl stats --json` prints, as a dict
print(stats["retained"], stats["counts"]["topology"]["debate"], len(debate))

outcomes = analysis.claims(corpus)  # every claim of claims.yaml, on its own population
print(sum(o.holds for o in outcomes), "of", len(outcomes), "claims hold")

papers = analysis.frame(corpus)  # pandas: one row per paper
print(papers.groupby("topology", observed=True)["year"].min()["debate"])
"""


def statistics(corpus: Corpus) -> dict[str, Any]:
    """Every statistic of *corpus*, as ``masrl stats --json`` prints it.

    Counts per field (every value, zeros kept), cross-tabs, the per-year series, the screening
    flow, sub-decision coverage, the audit's agreement and the survey snapshot's totals; the
    claims are :func:`claims`, and the per-round screening counts (which need ``protocol.yaml``)
    are left to ``masrl stats``. The shape is ``schemas/stats.schema.json``.
    """
    from masrl.analysis import _stats

    stats = _stats.compute(corpus)
    stats["snapshot"] = _stats.totals(corpus.snapshot())
    return stats


def claims(corpus: Corpus) -> list[Outcome]:
    """Every claim of ``claims.yaml`` (in the corpus folder) evaluated on its own population.

    Each :class:`Outcome` holds the ``claim`` (its ``id``, ``statement``, ``query`` and
    ``expected`` value), the ``actual`` value, whether it ``holds``, and the ``rows`` behind it.
    Raises :class:`~masrl.corpus.api.CorpusError` when claims.yaml has errors; no file, no claims.
    """
    from masrl.analysis import _stats
    from masrl.analysis._claims import Readings, evaluate_claims, load_ledger

    ledger, problems = load_ledger(corpus.root, corpus.taxonomy)
    if problems:
        raise CorpusError(problems)
    readings = Readings(corpus, _stats.papers_frame(corpus), _stats.compute(corpus))
    return evaluate_claims(ledger.claims, readings)


def frame(corpus: Corpus) -> pd.DataFrame:
    """The papers of *corpus* as one DataFrame.

    Columns: ``key``, ``title``, ``year``, every counted tag field (an ordered categorical over the
    taxonomy's values, or a tuple of ids for a field that takes several), ``strict_credit``,
    ``coded``, and the code of each orchestration sub-decision (``O1`` … ``O5``) or none.
    """
    from masrl.analysis import _stats

    return _stats.papers_frame(corpus)
