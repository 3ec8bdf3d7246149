"""masrl: the corpus of research on reinforcement learning for LLM-based multi-agent systems.

From Python, :func:`load` returns the typed corpus and :mod:`masrl.analysis` computes its
statistics and claims::

    import masrl
    from masrl import analysis

    corpus = masrl.load()
    stats = analysis.statistics(corpus)

The trace toolkit is :mod:`masrl.trace`. Nothing is imported until it is used, so the ``masrl``
command starts fast.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from masrl.corpus.api import Corpus

__version__ = "0.1.0"


def load(root: str | os.PathLike[str] | None = None) -> Corpus:
    """Read and check every record under *root* and return the typed corpus.

    *root* defaults to ``$MASRL_ROOT``, else the nearest folder upwards holding taxonomy.yaml.
    Raises :class:`masrl.corpus.api.CorpusError` (with ``.problems``) if any record has an error.
    See :func:`masrl.corpus.api.load`.
    """
    from masrl.corpus.api import load as load_corpus

    return load_corpus(root)
