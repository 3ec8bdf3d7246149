"""Where a paper was published, read from free text against a venue registry.

arXiv's ``journal_ref`` is whatever the authors typed ("Phys. Rev. B 85, 115117 (2012)", "Accepted
at ICML 2024", "Proceedings of the 41st International Conference on Machine Learning"); Crossref's
container titles and event names are long forms. :func:`match_venue` finds the registry venue a
text names and the year it gives, and writes it as the records do (``ICML 2024``; a journal
without its year when the registry says so). A text that names no registry venue, or names a
workshop, gives None: the caller then shows it as a note for a person to decide, and never copies
it into ``venue``.

The registry is an input (:class:`VenueName` rows): :func:`venue_names` reads them from the
corpus's ``venues.yaml``, and :data:`DEFAULT_VENUES` covers the venues the corpus cites when no
registry is given.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from masrl.corpus._venues import Venues

_YEAR = re.compile(r"(?<!\d)(19[5-9]\d|20\d{2})(?!\d)")
_WORKSHOP = re.compile(r"\bworkshops?\b", re.I)
_NOT_YET = re.compile(r"\b(submitted|submission|under review|in review|preprint)\b", re.I)


@dataclass(frozen=True)
class VenueName:
    """A venue as records name it (*name*), the texts that identify it (*aliases*: acronyms are
    matched as whole words with their case, long names case-insensitively) and whether the records
    write it with its year (*dated*)."""

    name: str
    aliases: tuple[str, ...]
    dated: bool = True


DEFAULT_VENUES: tuple[VenueName, ...] = (
    VenueName("Findings of ACL", ("Findings of the Association for Computational Linguistics", "Findings of ACL")),
    VenueName("Findings of EMNLP", ("Findings of EMNLP",)),
    VenueName("NeurIPS", ("Neural Information Processing Systems", "NeurIPS", "NIPS")),
    VenueName("ICML", ("International Conference on Machine Learning", "ICML")),
    VenueName("ICLR", ("International Conference on Learning Representations", "ICLR")),
    VenueName("NAACL", ("North American Chapter of the Association for Computational Linguistics", "NAACL")),
    VenueName("EMNLP", ("Empirical Methods in Natural Language Processing", "EMNLP")),
    VenueName("ACL", ("Annual Meeting of the Association for Computational Linguistics", "ACL")),
    VenueName("AAAI", ("AAAI Conference on Artificial Intelligence", "AAAI")),
    VenueName("IJCAI", ("International Joint Conference on Artificial Intelligence", "IJCAI")),
    VenueName(
        "AAMAS", ("Autonomous Agents and Multiagent Systems", "Autonomous Agents and Multi-Agent Systems", "AAMAS")
    ),
    VenueName("COLM", ("Conference on Language Modeling", "COLM")),
    VenueName("CoRL", ("Conference on Robot Learning", "CoRL")),
    VenueName("TMLR", ("Transactions on Machine Learning Research", "TMLR"), dated=False),
    VenueName("JMLR", ("Journal of Machine Learning Research", "JMLR"), dated=False),
    VenueName("Nature", ("Nature",)),
)


@dataclass(frozen=True)
class VenueMatch:
    venue: str  # as the records write it
    year: int | None


def venue_names(venues: Venues) -> tuple[VenueName, ...]:
    """The published conferences and journals of *venues* (``venues.yaml``) as registry rows: each
    written ``NAME {year}`` (dated) or ``NAME`` (undated), with its aliases. Workshops, which
    :func:`match_venue` leaves to a person, preprints, submissions, the web and forms of another
    shape (``NeurIPS {year} D&B``) are left out."""
    out = []
    for venue in venues.venues:
        if venue.kind not in ("conference", "journal") or not venue.aliases:
            continue
        dated = [f.removesuffix(" {year}") for f in venue.forms if f.endswith(" {year}") and f.count("{") == 1]
        undated = [f for f in venue.forms if "{" not in f]
        if dated:
            out.append(VenueName(dated[0], venue.aliases, dated=True))
        elif undated:
            out.append(VenueName(undated[0], venue.aliases, dated=False))
    return tuple(out)


def _pattern(alias: str) -> re.Pattern[str]:
    # Words in order with any punctuation or space between them: "Linguistics: ACL" also matches
    # "Linguistics, {ACL}" as DBLP writes it.
    words = r"[\W_]+".join(re.escape(w) for w in re.findall(r"[^\W_]+", alias))
    # A one-word alias (an acronym, "Nature") keeps its case; a long name does not. A capitalised
    # word right after the alias makes another venue ("Nature Machine Intelligence", "NeurIPS
    # Datasets and Benchmarks"), which the registry must name itself.
    one_word = len(alias.split()) == 1
    return re.compile(rf"(?<![\w-]){words}(?![\w-])(?!\s+[A-Z][a-z])", 0 if one_word else re.I)


def match_venue(text: str, registry: Iterable[VenueName] = DEFAULT_VENUES) -> VenueMatch | None:
    """The registry venue *text* names, with the year it gives; None when it names none, names a
    workshop or says the paper is only submitted."""
    if not text or _WORKSHOP.search(text) or _NOT_YET.search(text):
        return None
    # The alias that starts first wins; of two that start together, the longer ("ACL (Findings)"
    # over "ACL", as DBLP writes the Findings).
    best: tuple[int, int, VenueName] | None = None
    for venue in registry:
        for alias in venue.aliases:
            match = _pattern(alias).search(text)
            if match and (best is None or (match.start(), -match.end()) < (best[0], -best[1])):
                best = (match.start(), match.end(), venue)
    if best is None:
        return None
    venue = best[2]
    years = [int(y) for y in _YEAR.findall(text)]
    year = years[-1] if years else None
    if not venue.dated:
        return VenueMatch(venue.name, year)
    if year is None:
        return None  # "ICML" without a year cannot be written as a venue of the records
    return VenueMatch(f"{venue.name} {year}", year)
