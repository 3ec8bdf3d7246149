"""New paper records from citations: BibTeX entries or arXiv metadata become record scaffolds.

A scaffold holds every fact a citation gives (title, authors, year, venue, identifiers, the BibTeX
fields the venue registry cannot give) and leaves the judgement fields empty, each under a comment listing its allowed values, so
``masrl validate`` walks the contributor through what is left. :func:`refusals` says why a
candidate must not be added: its identifier or title is already in the corpus or the exclusion log.
"""

from __future__ import annotations

import datetime as dt
import difflib
import re
import unicodedata
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from masrl.corpus import _vocab as v
from masrl.corpus._bibtex import clean as _clean
from masrl.corpus._bibtex import decode_latex, decoder
from masrl.corpus._checks import record_ids
from masrl.corpus._format import scalar, schema_line
from masrl.corpus._records import Corpus, Loaded
from masrl.corpus._schema import ARXIV_PATTERN, DOI_PATTERN, KEY_PATTERN, SUMMARY_MAX, specs
from masrl.corpus._venues import Venues, redundant
from masrl.corpus._vocab import Taxonomy
from masrl.corpus._yaml import YamlError, load_path

TITLE_SIMILARITY = 0.92  # normalised titles this close are the same work (catches case, punctuation, a typo)
_ARXIV_IN_TEXT = re.compile(r"(\d{4}\.\d{4,5})(v\d+)?")
_BIB_FIELDS = ("journal", "booktitle", "volume", "number", "pages", "publisher", "institution")
# Hints shown above the tag fields code knows; any other tag field is introduced by its description.
_JUDGEMENT = {
    v.CATEGORY: "what kind of contribution",
    v.RL: "does it train with RL",
    v.REWARD_TYPE: "main reward signal (NA if none)",
    v.CREDIT_UNIT: "finest unit carrying reward or credit (NA if none)",
    v.TOPOLOGY: "orchestration form of the team (NA if none)",
    v.SCENARIO: "main task domain",
    v.ROLE: "weight in the survey (industry entries are case)",
    v.VERIFIED: "metadata checked against the paper?",
    v.EVIDENCE_KIND: "what kind of source",
}


@dataclass
class Candidate:
    """Facts about one work, from a citation, before it becomes a record."""

    title: str
    authors: list[str]
    et_al: bool
    year: int | None
    venue: str  # as the source names it; the scaffold writes it as a form of venues.yaml when it can
    url: str | None
    arxiv: str | None = None
    doi: str | None = None
    bibtex: dict[str, str] = field(default_factory=dict)
    source: str = ""  # where it came from, for messages: "entry 'chen2024' (line 3)"


def same_numbers(x: str, y: str) -> bool:
    """Whether two normalised titles carry the same numbers in the same order: titles that differ
    in one ("RecGPT-V2 Technical Report", "RecGPT-V3 Technical Report") name different works
    however close their letters are.

    >>> same_numbers("recgptv2technicalreport", "recgptv3technicalreport"), same_numbers("gpt4", "gpt4o")
    (False, True)
    """
    return re.findall(r"[0-9]+", x) == re.findall(r"[0-9]+", y)


def nearly_same_titles(x: str, y: str) -> bool:
    """Whether the normalised titles *x* and *y* name one work: the same numbers, and letters at
    least TITLE_SIMILARITY alike."""
    return same_numbers(x, y) and difflib.SequenceMatcher(None, x, y, autojunk=False).ratio() >= TITLE_SIMILARITY


def normalise_title(title: str) -> str:
    """*title* as titles are compared: its letters and digits only, of any script, without case or
    accents, and with compatibility forms unfolded (NFKD), so "β-DPO" stays apart from "DPO" while
    "Gödel" is "Godel" and a ligature "ﬁ" is "fi".

    >>> normalise_title("β-DPO: Direct Preference Optimization"), normalise_title("Gödel ﬁne_tuning")
    ('βdpodirectpreferenceoptimization', 'godelfinetuning')
    """
    folded = unicodedata.normalize("NFKD", unicodedata.normalize("NFKD", title).casefold())
    return "".join(c for c in folded if c.isalnum())


def candidates_from_bibtex(text: str, venues: Venues) -> tuple[list[Candidate], list[str]]:
    """Parse BibTeX *text*; returns the candidates and a message per block that failed.

    Each venue is written as *venues* writes it (``Findings of ACL 2024``) where the registry
    knows it, else as the entry names it.

    Names are split first and decoded one by one, so a braced corporate name (``{OpenAI Team}``)
    stays whole while ``Gaven{\\v{c}}iak, Tom{\\'a}{\\v{s}}`` becomes
    ``Gavenčiak, Tomáš``. Page ranges and numbers are read from an undecoded parse, so
    ``11534--11557`` stays as written.
    """
    from bibtexparser import middlewares as m
    from bibtexparser import parse_string  # type: ignore[attr-defined]

    raw = parse_string(text)
    # The decoder runs last and skips the list of names, which are decoded one by one below.
    library = parse_string(
        text,
        append_middleware=[m.SeparateCoAuthors(), m.SplitNameParts(), m.MergeNameParts(style="last"), decoder()],
    )
    undecoded = {entry.key: {k.lower(): f.value for k, f in entry.fields_dict.items()} for entry in raw.entries}
    problems = []
    for block in library.failed_blocks:
        raw_text = str(block.raw or "")
        first = raw_text.strip().splitlines()[0][:60] if raw_text.strip() else ""
        error = getattr(block, "error", None)
        reason = str(getattr(error, "abort_reason", "") or error or "").strip().splitlines()
        detail = reason[-1] if reason else "could not be parsed"
        problems.append(f"BibTeX line {int(block.start_line or 0) + 1}: {first!r}: {detail}")
    out = []
    for entry in library.entries:
        fields = {k.lower(): f.value for k, f in entry.fields_dict.items()}
        as_written = undecoded.get(entry.key, {})
        where = f"entry '{entry.key}' (line {int(entry.start_line or 0) + 1})"
        title = _clean(str(fields.get("title", "")))
        if not title:
            problems.append(f"{where}: has no title")
            continue
        authors = (
            [str(a) for a in fields.get("author", [])]
            if isinstance(fields.get("author"), list)
            else ([str(fields["author"])] if fields.get("author") else [])
        )
        et_al = bool(authors) and authors[-1].strip().lower() == "others"
        authors = [decode_latex(a) for a in authors if a.strip().lower() != "others"]
        year_text = str(fields.get("year", ""))
        year = int(year_text) if year_text.strip().isdigit() else None
        arxiv = _arxiv_of(fields)
        doi = str(fields["doi"]).strip() if fields.get("doi") else None
        url = str(fields.get("url", "")).strip() or None
        if url is None and arxiv:
            url = f"https://arxiv.org/abs/{arxiv}"
        elif url is None and doi:
            url = f"https://doi.org/{doi}"
        venue = _venue(fields, arxiv)
        venue = venues.house_venue(venue, year) or venue if venues.place(venue) is None else venue
        out.append(
            Candidate(
                title=title,
                authors=authors,
                et_al=et_al,
                year=year,
                venue=venue,
                url=url,
                arxiv=arxiv,
                doi=doi,
                bibtex={
                    k: _bib_value(k, str(fields[k]), str(as_written.get(k, ""))) for k in _BIB_FIELDS if fields.get(k)
                },
                source=where,
            )
        )
    return out, problems


def _bib_value(name: str, decoded: str, as_written: str) -> str:
    """Text fields are decoded to plain text; numbers and page ranges (``11534--11557``) stay as written."""
    if name in ("volume", "number", "pages"):
        return _clean(as_written or decoded)
    return _clean(decoded)


def _arxiv_of(fields: dict[str, Any]) -> str | None:
    eprint = str(fields.get("eprint", ""))
    prefix = str(fields.get("archiveprefix", fields.get("eprinttype", ""))).lower()
    if eprint and (prefix == "arxiv" or _ARXIV_IN_TEXT.fullmatch(eprint)):
        match = _ARXIV_IN_TEXT.search(eprint)
        return match.group(1) if match else eprint
    if str(fields.get("journal", "")).strip().lower() == "corr":  # DBLP: volume = {abs/2308.01263}
        match = _ARXIV_IN_TEXT.search(str(fields.get("volume", "")))
        if match:
            return match.group(1)
    for key in ("journal", "url", "doi", "note", "howpublished"):
        value = str(fields.get(key, ""))
        if "arxiv" in value.lower():
            match = _ARXIV_IN_TEXT.search(value)
            if match:
                return match.group(1)
    return None


def _venue(fields: dict[str, Any], arxiv: str | None) -> str:
    """Where the entry says it appeared, as written (the scaffold looks it up in venues.yaml)."""
    for key in ("booktitle", "journal", "publisher", "institution", "howpublished"):
        value = _clean(str(fields.get(key, "")))
        if not value:
            continue
        if value.lower().startswith("arxiv") or value.lower() == "corr":
            break
        return value
    return "arXiv" if arxiv else ""


def house_key(candidate: Candidate, taken: set[str]) -> str:
    """A key in the house style: a short name and the year, e.g. ``rema2025``, ``wideseek-r1-2026``.

    The short name is the part of the title before a colon when that is a name of at most three
    words (``ReMA: Learning to ...``), else the first author's family name.
    """
    head, sep, _ = candidate.title.partition(":")
    if sep and 0 < len(head.split()) <= 3:
        name = head
    elif candidate.authors:
        name = candidate.authors[0].split(",")[0]
    else:
        name = candidate.title.split()[0]
    base = re.sub(r"[^a-z0-9]+", "-", _ascii(name).lower()).strip("-") or "entry"
    year = str(candidate.year or "")
    key = f"{base}-{year}" if base[-1:].isdigit() and year else f"{base}{year}"
    if not re.match(KEY_PATTERN, key):
        key = "entry" + year
    unique, n = key, 2
    while unique in taken:
        unique = f"{key}-{chr(ord('a') + n - 1)}" if n <= 26 else f"{key}-{n}"
        n += 1
    return unique


def _ascii(text: str) -> str:
    import unicodedata

    return unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")


# (kind, key or id, identities, title) of a record that has errors; the name is its file's path
# when the record states none.
Unfinished = tuple[str, str, list[str], str]


def unfinished_records(loaded: Loaded) -> list[Unfinished]:
    """Records that were read but have errors (a scaffold still being filled in, say): each with
    the identities and title it states, so a duplicate check still sees them."""
    typed = {p.path for p in loaded.corpus.papers} | {e.path for e in loaded.corpus.exclusions}
    out = []
    for handle in loaded.handles:
        if handle.kind == "audit" or handle.shown in typed:
            continue
        data = handle.doc.data
        if data is None and handle.doc.source is not None:  # parsed in a worker: read it again
            try:
                data = load_path(handle.doc.source).data
            except YamlError:
                data = {}
        field = "title" if handle.kind == "paper" else "label"
        title = data.get(field) if isinstance(data, dict) else None
        name = handle.name or handle.shown
        out.append((handle.kind, name, [ident for ident, _ in handle.idents], title if isinstance(title, str) else ""))
    return out


def refusals(
    candidate: Candidate, corpus: Corpus, others: Iterable[Candidate] = (), unfinished: Iterable[Unfinished] = ()
) -> Iterator[str]:
    """Why *candidate* must not be added: it is already retained, excluded, being added (an
    *unfinished* record), or twice in the input."""
    owners: dict[str, str] = {}
    unfinished = list(unfinished)
    for kind, name, idents, _ in unfinished:
        for ident in idents:
            owners.setdefault(ident, f"unfinished {kind} '{name}'")
    for p in corpus.papers:
        for ident in _ids("paper", arxiv=p.arxiv, doi=p.doi, url=p.url, more_urls=list(p.more_urls)):
            owners.setdefault(ident, f"paper '{p.key}' (papers/{p.key}.yaml)")
    for e in corpus.exclusions:
        for ident in _ids("exclusion", identifier=e.identifier, url=e.url):
            owners.setdefault(ident, f"exclusion {e.id} (exclusions/{e.id}.yaml), screened out on {e.date_screened}")
    for other in others:
        for ident in _ids("paper", arxiv=other.arxiv, doi=other.doi, url=other.url):
            owners.setdefault(ident, f"{other.source} of the same input")
    for ident in _ids("paper", arxiv=candidate.arxiv, doi=candidate.doi, url=candidate.url):
        if ident in owners:
            yield f"{ident} already belongs to {owners[ident]}"
            return
    title = normalise_title(candidate.title)
    titles = [(p.title, f"paper '{p.key}'") for p in corpus.papers]
    titles += [(e.label, f"exclusion {e.id}") for e in corpus.exclusions]
    titles += [(o.title, o.source) for o in others]
    titles += [(title, f"unfinished {kind} '{name}'") for kind, name, _, title in unfinished if title]
    for other_title, owner in titles:
        other_norm = normalise_title(other_title)
        if not same_numbers(title, other_norm):
            continue
        ratio = difflib.SequenceMatcher(None, title, other_norm).ratio()
        if ratio >= TITLE_SIMILARITY:
            yield f"its title is {'the same as' if ratio == 1 else 'nearly the same as'} that of {owner}: {other_title!r}"
            return


def _ids(kind: str, **fields: Any) -> Iterator[str]:
    """The identities the validator compares (arXiv id, DOI, normalised URLs) of a record of *kind*."""
    for ident, _ in record_ids(kind, fields):
        yield ident


def house_venue(candidate: Candidate, venues: Venues) -> str:
    """The candidate's venue as a form of the registry (``Findings of the Association for
    Computational Linguistics: ACL 2024`` is ``Findings of ACL 2024``), or as the source wrote it
    when the registry knows no such venue (``masrl validate`` then says so)."""
    if not candidate.venue or venues.place(candidate.venue) is not None:
        return candidate.venue
    return venues.house_venue(candidate.venue, candidate.year) or candidate.venue


def scaffold(
    candidate: Candidate,
    key: str,
    taxonomy: Taxonomy,
    venues: Venues,
    origin: str = "contributor",
    added: str | None = None,
    screening: dict[str, str | None] | None = None,
) -> str:
    """Record text for *candidate*: facts filled in, judgement fields empty with their choices listed.

    *screening* may give the ``round`` and ``rule`` the screening decision named.

    The venue is written as venues.yaml writes it, and the BibTeX fields the venue gives word for
    word are left out (:func:`masrl.corpus._venues.redundant`); what it cannot give stays.
    """
    venue = house_venue(candidate, venues)
    bibtex = dict(candidate.bibtex)
    dropped = redundant({"venue": venue, "arxiv": candidate.arxiv, "bibtex": bibtex}, venues)
    if "bibtex" in dropped:
        bibtex = dropped["bibtex"] or {}
    facts: dict[str, Any] = {
        **dict.fromkeys(("round", "rule")),
        **(screening or {}),
        "key": key,
        "title": candidate.title,
        "authors": candidate.authors or None,
        "et_al": True if candidate.et_al else None,
        "affiliation": None,
        "year": candidate.year,
        "arxiv": candidate.arxiv,
        "doi": candidate.doi,
        "venue": venue or None,
        "url": candidate.url,
        "bibtex": bibtex or None,
        v.ORIGIN: origin,
        "added": added or dt.date.today().isoformat(),
    }
    lines = [
        schema_line("paper"),
        f"# Scaffolded from {candidate.source}. Fill in every empty field, then run:",
        f"#   masrl validate papers/{key}.yaml",
    ]
    tag_names = {f.name for f in taxonomy.tag_fields("paper")}
    for spec in specs("paper", taxonomy):
        name = spec.name
        if name in facts:
            value = facts[name]
            if value is None:
                if name == "affiliation":
                    lines.append("# affiliation of the first author, or: unknown")
                    lines.append("affiliation:")
                elif spec.required:
                    lines.append(f"# {spec.description}")
                    lines.append(f"{name}:")
                continue
            if isinstance(value, list):
                lines.append(f"{name}:")
                lines.extend(f"  - {scalar(item)}" for item in value)
            elif isinstance(value, dict):
                lines.append(f"{name}:")
                lines.extend(f"  {k}: {scalar(x)}" for k, x in value.items())
            else:
                lines.append(f"{name}: {scalar(value)}")
        elif name in tag_names:
            choices = ", ".join(
                f"{x.id} ({x.label})" if x.label.lower() != x.id else x.id for x in taxonomy[name].values
            )
            hint = _JUDGEMENT.get(name) or taxonomy[name].description.rstrip(".").lower()
            lines.append(f"# {hint}{' (a list)' if taxonomy[name].multiple else ''}: {choices}")
            lines.append(f"{name}:")
        elif name == "strict_credit":
            lines.append("# true only if the method computes explicit credit at its credit unit")
            lines.append("strict_credit: false")
        elif name == "subdecisions":
            codes = ", ".join(taxonomy.ids(v.SUBDECISION_CODE))
            bases = ", ".join(taxonomy.ids(v.EVIDENCE_BASIS))
            subs = "; ".join(f"{x.id} {x.label.split(' ', 1)[1].lower()}" for x in taxonomy[v.SUBDECISION].values)
            lines.append(f"# rl_method, framework and industry entries code the sub-decisions ({subs});")
            lines.append(f"# each as code ({codes}), basis ({bases}) and one sentence of evidence,")
            lines.append("# or leave {} when the paper makes none of them. Other categories may delete this field.")
            lines.append("subdecisions: {}")
        elif name == "summary":
            lines.append(f"# one sentence in your own words from the abstract, at most {SUMMARY_MAX} characters")
            lines.append("summary:")
        elif name == "notes":
            lines.append("# optional: why the entry carries its tags")
        elif name == "code":
            lines.append("# optional: the official code repository, e.g. code: https://github.com/owner/repo")
    return "\n".join(lines) + "\n"


def check_identifier(kind: str, value: str) -> bool:
    pattern = {"arxiv": ARXIV_PATTERN, "doi": DOI_PATTERN}[kind]
    return re.match(pattern, value) is not None
