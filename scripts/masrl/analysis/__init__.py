"""Analysis: statistics, claims and views, as pure functions over a loaded corpus.

* :mod:`._stats` counts and cross-tabulates the records, the screening flow and audit agreement;
* :mod:`._claims` evaluates ``claims.yaml`` and stresses each claim under every view;
* :mod:`._views` defines the alternative readings of the records that claims are stressed under.

May import: :mod:`masrl.corpus` and :mod:`masrl.base`.
"""
