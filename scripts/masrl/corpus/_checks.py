"""Rules that look across fields or across records.

Each rule is a generator of :class:`~masrl.base._problems.Problem`. Errors are facts that cannot hold
(a key used twice, a paper both retained and excluded); warnings are conventions of the reference
data that a record may break for a stated reason, listed under ``exceptions:`` in the record.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlsplit

from masrl.base._problems import Problem, Severity
from masrl.corpus import _vocab as v
from masrl.corpus._records import Audit, Corpus, Exclusion, Handle, Paper
from masrl.corpus._schema import EXCLUSION_ID_PATTERN, KEY_PATTERN
from masrl.corpus._vocab import Taxonomy
from masrl.corpus._yaml import Document

_ARXIV_URL = re.compile(
    r"^https?://(?:www\.|export\.)?arxiv\.org/(?:abs|pdf|html)/([^?#]+?)(?:v\d+)?(?:\.pdf)?/?$", re.I
)
_DOI_URL = re.compile(r"^https?://(?:dx\.)?doi\.org/(10\.[^\s]+)$", re.I)
_VERSION = re.compile(r"v\d+$")


def record_check(record: Paper | Audit | Exclusion, doc: Document, taxonomy: Taxonomy) -> Iterator[Problem]:
    """Rules across the fields of one valid record (run where the record was parsed)."""
    if isinstance(record, Paper):
        yield from _check_paper(record, taxonomy, doc)
    elif isinstance(record, Audit):
        yield from _check_verdict(record, doc)


def cross_check(corpus: Corpus, handles: list[Handle]) -> Iterator[Problem]:
    """Every rule that compares records with each other.

    *handles* stand for every parsed record, in file order. Names and identifiers are compared on
    all of them, even records with other errors, so a duplicate is reported in the same run;
    audits are compared with the typed papers in *corpus*, and papers with the venue registry.
    """
    yield from _check_names(handles)
    yield from _check_identifiers(handles)
    keys = {p.key: p for p in corpus.papers}
    named = {h.name for h in handles if h.kind == "paper"}  # includes papers with errors of their own
    docs = {h.shown: h.doc for h in handles}
    if corpus.venues.loaded:
        from masrl.corpus._citation import venue_problems

        for paper in corpus.papers:
            yield from venue_problems(paper, corpus.venues, docs[paper.path])
    for audit in corpus.audits:
        if audit.key not in named:
            yield _at(docs[audit.path], audit.path, ("key",), f"key '{audit.key}' names no paper in papers/")
        elif audit.key in keys:
            yield from _check_audit_against_paper(audit, keys[audit.key], docs[audit.path])


def _at(
    doc: Document, shown: str, path: tuple[str | int, ...], message: str, severity: Severity = Severity.ERROR
) -> Problem:
    mark = doc.mark(path)
    return Problem(shown, mark.line, mark.column, ".".join(map(str, path)), message, severity)


def _stem(shown: str) -> str:
    name = shown.replace("\\", "/").rsplit("/", 1)[-1]
    return name[:-5] if name.endswith(".yaml") else name


_NAME_FIELD = {"paper": "key", "exclusion": "id", "audit": "key"}
# A name that breaks its pattern is reported by the spec; suggesting it as a file name would mislead.
_NAME_PATTERN = {"paper": KEY_PATTERN, "exclusion": EXCLUSION_ID_PATTERN, "audit": KEY_PATTERN}


def record_name(kind: str, data: dict[str, Any]) -> str | None:
    """The key or id a raw record states, if it states one."""
    name = data.get(_NAME_FIELD[kind])
    return name if isinstance(name, str) and name else None


def _check_names(handles: list[Handle]) -> Iterator[Problem]:
    first: dict[tuple[str, str], str] = {}
    for handle in handles:
        kind, shown, name, doc = handle.kind, handle.shown, handle.name, handle.doc
        field = _NAME_FIELD[kind]
        if name is None:
            continue
        if _stem(shown) != name and re.match(_NAME_PATTERN[kind], name):
            yield _at(
                doc,
                shown,
                (field,),
                f"{field} must equal the file name: rename the file to {name}.yaml or set {field}: {_stem(shown)}",
            )
        if (kind, name) in first:
            yield _at(doc, shown, (field,), f"{field} '{name}' is already used by {first[(kind, name)]}")
        else:
            first[(kind, name)] = shown


def identifiers(url: str) -> list[str]:
    """Comparable identities of *url*: its arXiv id or DOI if it has one, and the normalised URL."""
    out = []
    m = _ARXIV_URL.match(url)
    if m:
        out.append(f"arXiv {m.group(1)}")
    m = _DOI_URL.match(url)
    if m:
        out.append(f"DOI {m.group(1).lower()}")
    parts = urlsplit(url)
    host = parts.netloc.lower().removeprefix("www.")
    path = parts.path.rstrip("/")
    # A page of a PDF (#page=163) names one chapter of a proceedings volume, so it stays part of
    # the identity; any other fragment (#abstract, #section-2) points into the same work.
    page = f"#{parts.fragment}" if re.fullmatch(r"page=\d+", parts.fragment) else ""
    out.append(f"URL {host}{path}{'?' + parts.query if parts.query else ''}{page}")
    return out


def _str(data: dict[str, Any], field: str) -> str | None:
    value = data.get(field)
    return value.strip() if isinstance(value, str) and value.strip() else None


def record_ids(kind: str, data: dict[str, Any]) -> Iterator[tuple[str, tuple[str | int, ...]]]:
    """(identity, field path) for every identifier a raw record states."""
    if kind == "paper":
        arxiv = _str(data, "arxiv")
        if arxiv:
            yield f"arXiv {_VERSION.sub('', arxiv)}", ("arxiv",)
        doi = _str(data, "doi")
        if doi:
            yield f"DOI {doi.lower()}", ("doi",)
    elif kind == "exclusion":
        scheme, _, rest = (_str(data, "identifier") or "").partition(":")
        if rest and scheme.lower() == "arxiv":
            yield f"arXiv {_VERSION.sub('', rest.strip())}", ("identifier",)
        elif rest and scheme.lower() == "doi":
            yield f"DOI {rest.strip().lower()}", ("identifier",)
    else:
        return
    urls: list[tuple[str, tuple[str | int, ...]]] = []
    url = _str(data, "url")
    if url:
        urls.append((url, ("url",)))
    more = data.get("more_urls") if kind == "paper" else None
    if isinstance(more, list):
        urls += [(u, ("more_urls", i)) for i, u in enumerate(more) if isinstance(u, str)]
    for value, where in urls:
        if value.startswith(("http://", "https://")):
            for ident in identifiers(value):
                yield ident, where


def _check_identifiers(handles: list[Handle]) -> Iterator[Problem]:
    owner: dict[str, tuple[str, str]] = {}
    for handle in handles:
        kind, shown, name, doc = handle.kind, handle.shown, handle.name, handle.doc
        label = f"{'exclusion' if kind == 'exclusion' else 'paper'} {name!r}" if name else shown
        mine: set[str] = set()
        for ident, where in handle.idents:
            if ident in mine:
                continue
            mine.add(ident)
            if ident in owner:
                other_kind, other = owner[ident]
                hint = " (a paper cannot be both retained and excluded)" if other_kind != kind else ""
                yield _at(doc, shown, where, f"{ident} is already used by {other}{hint}")
            else:
                owner[ident] = (kind, label)


def _check_paper(paper: Paper, taxonomy: Taxonomy, doc: Document) -> Iterator[Problem]:
    shown = paper.path
    m = _ARXIV_URL.match(paper.url)
    if m and paper.arxiv and _VERSION.sub("", paper.arxiv) != m.group(1):
        yield _at(doc, shown, ("url",), f"url points to arXiv {m.group(1)} but arxiv is {paper.arxiv}")
    if paper.strict_credit and paper.credit_unit == v.NA:
        yield _at(doc, shown, ("strict_credit",), "strict_credit must be false when credit_unit is 'NA'")
    if paper.subdecisions is None and paper.category in taxonomy.subdecisions_required_for:
        yield _at(
            doc,
            shown,
            (v.CATEGORY,),
            f"entries of category '{paper.category}' must code subdecisions (O1-O5); write 'subdecisions: {{}}' when none applies",
        )
    yield from _check_conventions(paper, taxonomy, doc)
    yield from _check_latex(paper, doc)


def _text_fields(paper: Paper) -> Iterator[tuple[tuple[str | int, ...], str]]:
    """(field path, text) for every free-text value of *paper* a reader sees."""
    yield ("title",), paper.title
    for i, author in enumerate(paper.authors):
        yield ("authors", i), author
    yield ("affiliation",), paper.affiliation
    yield ("venue",), paper.venue
    yield ("summary",), paper.summary
    if paper.notes:
        yield ("notes",), paper.notes
    for name, value in paper.bibtex.items():
        if name != "howpublished":  # may hold \url{...} on purpose
            yield ("bibtex", name), value
    for o, sub in (paper.subdecisions or {}).items():
        yield ("subdecisions", o, "evidence"), sub.evidence
    for conv, reason in paper.exceptions.items():
        yield ("exceptions", conv), reason


def _check_latex(paper: Paper, doc: Document) -> Iterator[Problem]:
    """Records hold Unicode: LaTeX in a text field shows raw on the site and defeats search."""
    from masrl.corpus._bibtex import decode_latex, latex_in

    for where, text in _text_fields(paper):
        command = latex_in(text)
        if command:
            yield _at(
                doc,
                paper.path,
                where,
                f"text must be plain Unicode, not LaTeX (found '{command}'); write '{decode_latex(text)}'",
                Severity.WARNING,
            )


def _broken_conventions(paper: Paper) -> Iterator[tuple[str, tuple[str | int, ...], str]]:
    """(convention id, field path, message) for every convention *paper* breaks."""
    if (paper.category == v.INDUSTRY) != (paper.role == v.CASE):
        yield (
            "industry_is_case",
            (v.ROLE,),
            (f"role is '{paper.role}' for category '{paper.category}'; industry entries are 'case' and only they are"),
        )
    if paper.rl == v.RL_NO and paper.reward_type != v.NA:
        yield (
            "no_rl_no_reward",
            (v.REWARD_TYPE,),
            (f"reward_type is '{paper.reward_type}' although rl is '{v.RL_NO}'; entries without RL usually have 'NA'"),
        )
    if paper.rl == v.RL_NO and paper.credit_unit != v.NA:
        yield (
            "no_rl_no_credit",
            (v.CREDIT_UNIT,),
            (f"credit_unit is '{paper.credit_unit}' although rl is '{v.RL_NO}'; entries without RL usually have 'NA'"),
        )
    if paper.category in v.NO_TEAM_CATEGORIES and (paper.topology != v.NA or paper.credit_unit != v.NA):
        yield (
            "no_team_for_benchmarks_and_surveys",
            (v.TOPOLOGY,),
            (f"a {paper.category} usually has topology and credit_unit 'NA'"),
        )
    if paper.arxiv and re.match(r"\d{4}\.", paper.arxiv) and paper.year < 2000 + int(paper.arxiv[:2]):
        yield (
            "year_not_before_arxiv",
            ("year",),
            (f"year {paper.year} is earlier than the arXiv id {paper.arxiv} (20{paper.arxiv[:2]})"),
        )
    if paper.rl == v.RL_NO:
        for o, sub in (paper.subdecisions or {}).items():
            if sub.code == v.LEARNED:
                yield (
                    "learned_needs_rl",
                    ("subdecisions", o, "code"),
                    (f"{o} is coded '{v.LEARNED}' but rl is '{v.RL_NO}'"),
                )


def _check_conventions(paper: Paper, taxonomy: Taxonomy, doc: Document) -> Iterator[Problem]:
    shown = paper.path
    fired = set()
    for conv_id, where, message in _broken_conventions(paper):
        if taxonomy.convention(conv_id) is None:
            continue
        fired.add(conv_id)
        if conv_id not in paper.exceptions:
            yield _at(
                doc,
                shown,
                where,
                f"{message} [{conv_id}; if intended, explain it under exceptions: {conv_id}]",
                Severity.WARNING,
            )
    for conv_id in paper.exceptions:
        if conv_id not in fired:
            yield _at(
                doc,
                shown,
                ("exceptions", conv_id),
                f"exception for '{conv_id}' is not needed: the entry follows that convention",
                Severity.WARNING,
            )


def _check_verdict(audit: Audit, doc: Document) -> Iterator[Problem]:
    shown = audit.path
    differing = audit.differing()
    if audit.verdict in v.AGREE_VERDICTS and differing:
        yield _at(
            doc,
            shown,
            ("verdict",),
            f"verdict '{audit.verdict}' contradicts the readings, which differ on {', '.join(differing)}",
        )
    elif audit.verdict not in v.AGREE_VERDICTS:
        wanted = [v.DISAGREE_VERDICT[f] for f in differing]
        if audit.verdict not in wanted:
            fix = f"one of {', '.join(wanted)}" if wanted else "'agree'"
            yield _at(
                doc, shown, ("verdict",), f"verdict '{audit.verdict}' does not match the readings; it must be {fix}"
            )


def _check_audit_against_paper(audit: Audit, paper: Paper, doc: Document) -> Iterator[Problem]:
    shown = audit.path
    for name in v.AUDITED_TAGS:
        # A tag the two readings disagreed on, in an audit that records the disagreement, may have
        # been changed to settle it (to the second reading, or to a third value the audit's note
        # argues for): nothing has drifted. A tag both readers agreed on must not move unnoticed.
        settled = audit.verdict not in v.AGREE_VERDICTS and name in audit.differing()
        if audit.first_reading[name] != paper.tag(name) and not settled:
            yield _at(
                doc,
                shown,
                ("first_reading", name),
                f"the audited first reading '{audit.first_reading[name]}' differs from the paper's current "
                f"'{paper.tag(name)}'; re-audit the row or record why the tag changed",
                Severity.WARNING,
            )
