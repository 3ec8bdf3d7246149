"""Analysis: statistics, claims and views, as pure functions over a loaded corpus.

* :mod:`._stats` counts and cross-tabulates the records, the screening flow and audit agreement;
* :mod:`._claims` evaluates ``claims.yaml`` and stresses each claim under every view;
* :mod:`._views` defines the alternative readings of the records that claims are stressed under.

From Python: ``analysis.statistics(corpus)``, ``analysis.claims(corpus)`` and
``analysis.frame(corpus)`` on a corpus from ``masrl.load`` (see :mod:`masrl.analysis.api`).

May import: :mod:`masrl.corpus` and :mod:`masrl.base`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from masrl.analysis.api import Claim, Outcome, claims, frame, statistics

__all__ = ["Claim", "Outcome", "claims", "frame", "statistics"]


def __getattr__(name: str) -> Any:
    """The Python API of :mod:`masrl.analysis.api`, imported on first use (the commands never pay for it)."""
    if name in __all__:
        from masrl.analysis import api

        return getattr(api, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
