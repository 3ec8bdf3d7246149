"""The base: small helpers every wing needs, and nothing else.

* :mod:`._problems`: the :class:`~masrl.base._problems.Problem` every check yields, and how
  problems are printed and counted;
* :mod:`._writer`: the only writer of generated files (atomic, and only what changed);
* :mod:`._root`: where the corpus is;
* :mod:`._settings`: settings from the environment (``MASRL_NO_CACHE``);
* :mod:`._git`: the corpus of a git revision, read without touching the working tree;
* :mod:`._cli_common`: what every command shares (the root option, errors, the problem report).

May import: the standard library and third-party packages only; no other part of masrl.
"""
