"""Drawing papers for the blind second reading: a reproducible random sample, and how to list it.

A draw is ``random.Random(seed).sample(pool, n)`` over a pool sorted by key, so the same pool, size
and seed always give the same papers, whatever the machine. The pool is the papers that have no
audit record yet: every paper found by a discovery round (origin ``discovery``), or a round's own
papers. The keys drawn are listed, sorted, under the round's ``audit_draws`` in ``protocol.yaml``
(:class:`masrl.living._protocol.AuditDraw`), which :func:`draw_entry` writes out.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass

from masrl.corpus._records import Corpus
from masrl.living._protocol import Protocol, round_of

# The papers drawn from by default: those added since the survey by a discovery round.
DEFAULT_ORIGIN = "discovery"
ENTRY_WIDTH = 100  # protocol.yaml's lines wrap before this column
ENTRY_INDENT = 6  # a draw is an item of a round's audit_draws list


class DrawError(ValueError):
    """The draw cannot be made (a size the pool cannot give); the message says why."""


@dataclass(frozen=True)
class Pool:
    """The papers a draw can take: their keys, sorted, and what they are, in words."""

    keys: tuple[str, ...]
    what: str  # e.g. "post-survey papers (origin discovery)"


@dataclass(frozen=True)
class Draw:
    seed: int
    pool: Pool
    keys: tuple[str, ...]  # sorted

    @property
    def drawn_from(self) -> str:
        """The pool and the size, one sentence, as protocol.yaml's ``drawn_from`` says it."""
        return (
            f"The {len(self.pool.keys)} {self.pool.what} with no audit record, sorted by key; {len(self.keys)} drawn."
        )


def audit_pool(corpus: Corpus, protocol: Protocol | None = None, round_id: str | None = None) -> Pool:
    """The papers of *corpus* with no audit record: the round *round_id*'s (it needs *protocol*),
    or else every paper of origin discovery."""
    audited = {a.key for a in corpus.audits}
    if round_id is None:
        papers = [p for p in corpus.papers if p.origin == DEFAULT_ORIGIN]
        what = f"post-survey papers (origin {DEFAULT_ORIGIN})"
    else:
        if protocol is None:
            raise ValueError("a round's pool needs the protocol")
        papers = [p for p in corpus.papers if round_of(p, protocol) == round_id]
        what = f"papers of the {protocol.round(round_id).label} ({round_id})"
    return Pool(tuple(sorted(p.key for p in papers if p.key not in audited)), what)


def draw(pool: Pool, size: int, seed: int) -> Draw:
    """*size* keys of *pool* drawn with ``random.Random(seed).sample``, sorted; :class:`DrawError`
    when the pool holds fewer."""
    if size < 1:
        raise DrawError(f"--draw must be at least 1, not {size}")
    if not pool.keys:
        raise DrawError(f"--draw {size}: nothing to draw, as none of the {pool.what} lacks an audit record")
    if size > len(pool.keys):
        n = len(pool.keys)
        raise DrawError(
            f"--draw {size} asks for more papers than the pool holds: {n} of the {pool.what} "
            f"{'has' if n == 1 else 'have'} no audit record"
        )
    return Draw(seed, pool, tuple(sorted(random.Random(seed).sample(pool.keys, size))))


def draw_entry(d: Draw) -> str:
    """The draw as an item of a round's ``audit_draws`` in protocol.yaml, its keys wrapped."""
    pad = " " * ENTRY_INDENT
    lines = [f"{pad}- seed: {d.seed}", f"{pad}  drawn_from: {json.dumps(d.drawn_from, ensure_ascii=False)}"]
    line = f"{pad}  keys: ["
    for i, key in enumerate(d.keys):
        piece = key + (", " if i < len(d.keys) - 1 else "]")
        if i and len(line) + len(piece.rstrip()) > ENTRY_WIDTH:
            lines.append(line.rstrip())
            line = pad + "    "
        line += piece
    lines.append(line)
    return "\n".join(lines) + "\n"
