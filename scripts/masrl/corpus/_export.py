"""Exports of the records: CSV in the reference column layout, and JSON.

The CSV layouts are exactly those of the survey artifact's ``papers.csv`` and ``excluded.csv``, so
the tables can be diffed against the published ones. A paper's ``one_liner`` column holds our
summary; an exclusion's ``exclusion_reason`` holds our reason codes and note, as
``code, code: note``. :func:`parse_exclusion_reason` reads that back.
"""

from __future__ import annotations

import csv
import io
import json
import re
from typing import Any

from masrl.corpus._citation import citation
from masrl.corpus._records import Corpus, Exclusion, IfRetained, Paper
from masrl.corpus._venues import Citation, Venues
from masrl.corpus._vocab import Taxonomy

PAPER_COLUMNS = (
    "key",
    "title",
    "first_author",
    "affiliation",
    "year",
    "arxiv_id",
    "venue",
    "url",
    "category",
    "is_rl",
    "reward_type",
    "credit_granularity",
    "orchestration_form",
    "scenario",
    "is_core",
    "one_liner",
    "verified",
    "notes",
)
EXCLUSION_COLUMNS = (
    "record_id",
    "source",
    "query_family",
    "screening_label",
    "identifier",
    "url",
    "date_screened",
    "stage",
    "exclusion_reason",
)
URL_SEPARATOR = " ; "  # how the reference joins several links in one cell


# The reference layout's columns that hold tag fields, by field name; every other tag field of
# taxonomy.yaml is written as an extra column at the end, under its own name.
PAPER_TAG_COLUMNS = {
    "category": "category",
    "rl": "is_rl",
    "reward_type": "reward_type",
    "credit_unit": "credit_granularity",
    "topology": "orchestration_form",
    "scenario": "scenario",
    "role": "is_core",
    "verified": "verified",
}
LIST_SEPARATOR = ";"  # joins the values of a multi-valued tag field in one cell


def extra_columns(kind: str, taxonomy: Taxonomy) -> tuple[str, ...]:
    """The columns after the reference layout: tag fields it lacks, then the date added."""
    laid_out = set(PAPER_TAG_COLUMNS) if kind == "paper" else set()
    return (*(f.name for f in taxonomy.tag_fields(kind) if f.name not in laid_out), "added")


def _cell(record: Paper | Exclusion, name: str) -> str:
    return LIST_SEPARATOR.join(record.tag_values(name))


def paper_row(p: Paper, taxonomy: Taxonomy) -> dict[str, str]:
    row = {
        "key": p.key,
        "title": p.title,
        "first_author": p.first_author,
        "affiliation": p.affiliation,
        "year": str(p.year),
        "arxiv_id": p.arxiv or "",
        "venue": p.venue,
        "url": URL_SEPARATOR.join(p.urls),
        **{column: _cell(p, name) for name, column in PAPER_TAG_COLUMNS.items()},
        "one_liner": p.summary,
        "notes": " ".join((p.notes or "").split()),
    }
    for name in extra_columns("paper", taxonomy):
        row[name] = p.added if name == "added" else _cell(p, name)
    return row


def exclusion_row(e: Exclusion, taxonomy: Taxonomy) -> dict[str, str]:
    row = {
        "record_id": e.id,
        "source": e.source,
        "query_family": e.query_family,
        "screening_label": e.label,
        "identifier": e.identifier,
        "url": e.url,
        "date_screened": e.date_screened,
        "stage": e.stage,
        "exclusion_reason": f"{', '.join(e.reasons)}: {e.note}",
    }
    for name in extra_columns("exclusion", taxonomy):
        row[name] = e.added if name == "added" else _cell(e, name)
    return row


def parse_exclusion_reason(cell: str) -> tuple[tuple[str, ...], str]:
    """``'no_rl, single_agent: note'`` → ``(('no_rl', 'single_agent'), 'note')``."""
    codes, _, note = cell.partition(": ")
    return tuple(c.strip() for c in codes.split(",")), note


def _csv(columns: tuple[str, ...], rows: list[dict[str, str]]) -> str:
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=columns, lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    return out.getvalue()


def papers_csv(corpus: Corpus) -> str:
    """The papers as CSV, in key order: the reference layout, then :func:`extra_columns`."""
    tax = corpus.taxonomy
    columns = (*PAPER_COLUMNS, *extra_columns("paper", tax))
    return _csv(columns, [paper_row(p, tax) for p in corpus.papers])


def exclusions_csv(corpus: Corpus) -> str:
    tax = corpus.taxonomy
    columns = (*EXCLUSION_COLUMNS, *extra_columns("exclusion", tax))
    return _csv(columns, [exclusion_row(e, tax) for e in corpus.exclusions])


def _tags_json(record: Paper | Exclusion, taxonomy: Taxonomy, kind: str) -> dict[str, Any]:
    return {
        f.name: list(record.tag_values(f.name)) if f.multiple else record.tags.get(f.name)
        for f in taxonomy.tag_fields(kind)
    }


def paper_dict(p: Paper, taxonomy: Taxonomy, venues: Venues) -> dict[str, Any]:
    """A paper as plain JSON-ready data: facts, its citation, every tag field, derived fields, the rest."""
    cite = bib_citation(p, venues)
    derived = {
        f.name: taxonomy.derive(f, p.tag(f.derived_from))
        for f in taxonomy.counted_fields("paper")
        if f.derived_from is not None
    }
    return {
        "key": p.key,
        "title": p.title,
        "authors": list(p.authors),
        "et_al": p.et_al,
        "affiliation": p.affiliation,
        "year": p.year,
        "arxiv": p.arxiv,
        "doi": p.doi,
        "venue": p.venue,
        "urls": list(p.urls),
        "code": p.code,
        "pdf": p.pdf,
        "entry_type": cite.entry_type,
        "bibtex": dict(p.bibtex),
        "bibtex_year": cite.year,
        **_tags_json(p, taxonomy, "paper"),
        "added": p.added,
        "round": p.round,
        "rule": p.rule,
        "changes": [{"date": c.date, "note": c.note} for c in p.changes],
        "strict_credit": p.strict_credit,
        "subdecisions": None
        if p.subdecisions is None
        else {o: {"code": s.code, "basis": s.basis, "evidence": s.evidence} for o, s in p.subdecisions.items()},
        "summary": p.summary,
        "notes": p.notes,
        "exceptions": dict(p.exceptions),
        **derived,
    }


def _retained_dict(r: IfRetained) -> dict[str, Any]:
    return {
        **{k: list(x) if isinstance(x, tuple) else x for k, x in r.tags.items()},
        "strict_credit": r.strict_credit,
        "subdecisions": None
        if r.subdecisions is None
        else {o: {"code": s.code, "basis": s.basis, "evidence": s.evidence} for o, s in r.subdecisions.items()},
        "basis": r.basis,
    }


def corpus_json(corpus: Corpus) -> str:
    """Every record as one JSON document."""
    tax = corpus.taxonomy
    data = {
        "papers": [paper_dict(p, tax, corpus.venues) for p in corpus.papers],
        "exclusions": [
            {
                "id": e.id,
                "source": e.source,
                "query_family": e.query_family,
                "label": e.label,
                "identifier": e.identifier,
                "url": e.url,
                "date_screened": e.date_screened,
                "stage": e.stage,
                "reasons": list(e.reasons),
                **_tags_json(e, tax, "exclusion"),
                "added": e.added,
                "round": e.round,
                "rule": e.rule,
                "changes": [{"date": c.date, "note": c.note} for c in e.changes],
                "note": e.note,
                **({} if e.if_retained is None else {"if_retained": _retained_dict(e.if_retained)}),
            }
            for e in corpus.exclusions
        ],
        "audits": [
            {
                "key": a.key,
                "first_reading": dict(a.first_reading),
                "second_reading": dict(a.second_reading),
                "strict_credit": a.strict_credit,
                "verdict": a.verdict,
                "note": a.note,
            }
            for a in corpus.audits
        ],
    }
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


# Characters with a meaning in BibTeX or LaTeX, and how a plain-text value spells them. Records
# hold Unicode (``validate`` warns on LaTeX in text fields), so every one of them is literal text.
# Non-ASCII letters stay UTF-8: biber and BibTeX with an UTF-8 input encoding read them as written.
_BIB_ESCAPES = {
    "\\": r"\textbackslash{}",
    "{": r"\{",
    "}": r"\}",
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
}
_BIB_SPECIAL = re.compile("[" + re.escape("".join(_BIB_ESCAPES)) + "]")
# Pairs LaTeX reads as one glyph (-- is an en dash, '' a closing quote); an empty group keeps them apart.
_LIGATURE = re.compile(r"([-'`])(?=\1)")


def latex_text(text: str, ligatures: bool = True) -> str:
    """Plain *text* as a BibTeX field value: every special character escaped, Unicode kept.

    With *ligatures* false, ``--`` stays an en dash, as page ranges mean it.

    >>> latex_text("Q&A for 50% of R_1")
    'Q\\\\&A for 50\\\\% of R\\\\_1'
    """
    escaped = _BIB_SPECIAL.sub(lambda m: _BIB_ESCAPES[m.group()], text)
    return _LIGATURE.sub(r"\1{}", escaped) if ligatures else escaped


def bib_name(name: str) -> str:
    """One author for BibTeX: 'Last, First' as is; a team name (no comma) braced, so BibTeX keeps it whole."""
    escaped = latex_text(name)
    return escaped if "," in name else "{" + escaped + "}"


_NUMBERS = ("volume", "number", "pages")  # written as in BibTeX: 11534--11557 is a range


def bib_citation(p: Paper, venues: Venues) -> Citation:
    """What *p*'s venue puts in its BibTeX: entry type, year, booktitle or journal, extra fields."""
    placed = venues.place(p.venue)
    if placed is None:  # validation refuses an unknown venue before anything is exported
        raise ValueError(f"{p.path}: venue {p.venue!r} is not in venues.yaml")
    return citation(p, placed)


def bib_extras(cite: Citation) -> list[tuple[str, str]]:
    """The BibTeX fields after the year (booktitle or journal, pages, ...) as the export writes them."""
    return [(name, latex_text(value, name not in _NUMBERS)) for name, value in cite.fields]


def bib_entry(p: Paper, venues: Venues) -> Any:
    """The BibTeX entry of *p* as a bibtexparser Entry keyed by the record key: its venue gives
    the entry type, the booktitle or journal and the year (the published version's)."""
    from bibtexparser.model import Entry, Field

    cite = bib_citation(p, venues)
    authors = " and ".join(bib_name(a) for a in p.authors) + (" and others" if p.et_al else "")
    fields = [Field("title", "{" + latex_text(p.title) + "}"), Field("author", authors), Field("year", str(cite.year))]
    fields += [Field(name, value) for name, value in bib_extras(cite)]
    if cite.entry_type == "misc" and "howpublished" not in p.bibtex:
        fields.append(Field("howpublished", "; ".join(f"\\url{{{u}}}" for u in p.urls)))
    if p.doi:
        fields.append(Field("doi", p.doi))
    if p.arxiv:
        fields += [Field("eprint", p.arxiv), Field("archiveprefix", "arXiv")]
    fields.append(Field("url", p.url))
    return Entry(cite.entry_type, p.key, fields)


_ENTRY_START = re.compile(r"^@\w+\{([^,\s]+),", re.M)


def bib_blocks(text: str) -> dict[str, str]:
    """The entries of BibTeX *text* written by :func:`papers_bib`, keyed by citation key."""
    starts = list(_ENTRY_START.finditer(text))
    blocks = {}
    for i, match in enumerate(starts):
        end = starts[i + 1].start() if i + 1 < len(starts) else len(text)
        blocks[match.group(1)] = text[match.start() : end].strip()
    return blocks


def papers_bib(corpus: Corpus) -> str:
    """Citation-ready BibTeX for every retained entry, written with bibtexparser."""
    from bibtexparser import Library, write_string  # type: ignore[attr-defined]
    from bibtexparser.middlewares import default_unparse_stack

    library = Library()
    for p in corpus.papers:
        library.add(bib_entry(p, corpus.venues))
    header = "% BibTeX for the masrl corpus; generated by `masrl build` from papers/*.yaml. Do not edit.\n\n"
    # The library is built here and thrown away, so the writer may change it in place instead of
    # deep-copying every entry first.
    return header + str(write_string(library, unparse_stack=default_unparse_stack(allow_inplace_modification=True)))
