"""The corpus as a Python library: :func:`load` reads, checks and types every record.

``masrl.load(root)`` is the front door (it calls :func:`load`)::

    import masrl

    corpus = masrl.load("path/to/corpus")  # CorpusError, with .problems, if a record is broken
    debate = [p.key for p in corpus.papers if p.topology == "debate"]

:func:`load` returns a :class:`Corpus`: the taxonomy and the valid papers, exclusions and audits,
each a frozen dataclass sorted by key. :mod:`masrl.analysis` computes statistics and claims from it.
Nothing here prints, and bad input is reported as :class:`CorpusError`, never as a traceback from
deep inside.
"""

from __future__ import annotations

import os
from pathlib import Path

from masrl.base._problems import Problem
from masrl.corpus._records import Audit, Corpus, Exclusion, Paper

__all__ = ["Audit", "Corpus", "CorpusError", "Exclusion", "Paper", "Problem", "load"]


class CorpusError(ValueError):
    """The corpus cannot be read as it stands: ``problems`` lists every error, with file and line."""

    def __init__(self, problems: list[Problem]) -> None:
        self.problems = problems
        shown = "; ".join(str(p) for p in problems[:3])
        more = f" (and {len(problems) - 3} more)" if len(problems) > 3 else ""
        super().__init__(f"the corpus has errors: {shown}{more}")


def load(root: str | os.PathLike[str] | None = None) -> Corpus:
    """Read and check every record under *root* and return them typed.

    *root* is the folder holding ``taxonomy.yaml``; by default, ``$MASRL_ROOT``, else the nearest
    such folder from the working directory upwards (as the ``masrl`` command finds it). Raises
    :class:`CorpusError` when taxonomy.yaml or any record has an error, exactly as ``masrl
    validate`` reports them; warnings do not stop it.
    """
    from masrl.base._root import find_root
    from masrl.corpus._load import load_corpus
    from masrl.corpus._vocab import TaxonomyError

    folder = find_root() if root is None else Path(root)
    try:
        loaded = load_corpus(folder)
    except TaxonomyError as exc:
        raise CorpusError(exc.problems) from None
    if not loaded.ok:
        raise CorpusError([p for p in loaded.problems if p.is_error])
    return loaded.corpus
