"""The exclusion log as the site shows it: pages of records in id order, an anchor per record.

The screening page links the pages, What's new and the feed link each exclusion to its row, and
the boundary rules' precedents link the exclusions they name; all of them place a record here.
"""

from __future__ import annotations

from masrl.corpus._records import Corpus, Exclusion

EXCLUSIONS_PER_PAGE = 500  # rows of one page of the exclusion log


def exclusion_log_pages(corpus: Corpus) -> list[list[Exclusion]]:
    """The exclusion log cut into pages of :data:`EXCLUSIONS_PER_PAGE` records, in id order; page
    *n* (from 1) is ``exclusion-log/<n>.md`` of the site."""
    records = sorted(corpus.exclusions, key=lambda e: (len(e.id), e.id))
    return [records[i : i + EXCLUSIONS_PER_PAGE] for i in range(0, len(records), EXCLUSIONS_PER_PAGE)]


def exclusion_anchor(ident: str) -> str:
    """The anchor of an exclusion's row on its page of the log."""
    return ident.lower()
