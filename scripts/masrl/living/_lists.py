"""Curated lists of the field kept elsewhere, read as lists of papers: Markdown, BibTeX or CSV.

A list names a paper by its arXiv id (new style ``2503.03686`` or old style ``cs/0112017``, with or
without a version, in an ``abs``, ``pdf`` or ``html`` link, as ``arXiv:2503.03686``, or through
arXiv's DOI ``10.48550/arXiv.2503.03686``), by a DOI (bare, ``doi:``, or in a doi.org, ACM,
Springer or Wiley link; an ACL Anthology link gives its paper's DOI), or only by its title, with a
link to a paper page (OpenReview, a proceedings site) or none at all.

:func:`read_list` turns a file into :class:`Listed` papers, each with the line it stands on:

* Markdown (``.md``) is parsed with markdown-it-py (CommonMark and tables). Each paragraph, list
  item, heading or table row is a block; a block names one paper per arXiv id or DOI in it, or
  one paper by title when it has no id but links to a paper page or calls its link a paper. A
  title is the paper's own link text, else its bold text, else the block's text without its
  bracketed tags, dates and link labels such as "[paper]" or "code".
* BibTeX (``.bib``) entries give ``title``, ``eprint`` (with ``archivePrefix = {arXiv}``, or an
  arXiv ``journal``), ``doi`` and ``url``.
* CSV (``.csv``, ``.tsv``) names its columns in a header row (title, arxiv, doi, url and the like,
  in any case); a table without such a header is searched cell by cell.

:func:`match_list` says what the corpus made of each listed paper: retained, excluded, waiting in
the screening queue, or never screened.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from masrl.base._problems import Problem
from masrl.corpus._load import display_path
from masrl.corpus._records import Corpus
from masrl.living._scaffold import normalise_title

MAX_BYTES = 20_000_000  # a curated list is tens of kilobytes; anything this large is a mistake
FORMATS = {
    ".md": "markdown",
    ".markdown": "markdown",
    ".bib": "bibtex",
    ".bibtex": "bibtex",
    ".csv": "csv",
    ".tsv": "csv",
}

# arXiv ids: new style YYMM.NNNN(N) and old style archive(.SC)/YYMMNNN, each with an optional version.
_NEW = r"\d{2}(?:0[1-9]|1[0-2])\.\d{4,5}"
_OLD = r"[a-z][a-z-]*(?:\.[A-Z]{2})?/\d{2}(?:0[1-9]|1[0-2])\d{3}"
_ID = rf"(?P<id>{_NEW}|{_OLD})(?P<version>v\d+)?"
# ... in links to arXiv and to its mirrors and readers
_ARXIV_LINK = re.compile(
    rf"(?i:(?:export\.|www\.)?arxiv\.org/(?:abs|pdf|html|format)/|alphaxiv\.org/(?:abs|overview)/|"
    rf"huggingface\.co/papers/|arxiv-sanity-lite\.com/\?rank=pid&pid=){_ID}(?!\d)"
)
# ... written out: "arXiv:2503.03686", "arXiv 2503.03686", "arXiv preprint arXiv:2503.03686"
_ARXIV_TEXT = re.compile(rf"(?i:\barxiv)[:\s]\s*{_ID}(?!\d)")
# ... as arXiv's own DOI
_ARXIV_DOI = re.compile(rf"(?i:10\.48550/arxiv\.){_ID}(?!\d)")
# ... bare, as a field of a line ("Title — 2510.11062", "| 2503.03686 |", "(2506.02718)"): after the
# start of the line or a separator (a bar, dash, bracket, comma, semicolon or colon), never after a
# word ("version 2503.03686"); new style only, its year 2007 on; nothing but an end after it
_ARXIV_IN_TEXT = re.compile(
    r"(?m:^|[|(\[,;:\u2014\u2013-])[ \t]*(?P<id>(?:0[7-9]|[12]\d)(?:0[1-9]|1[0-2])\.\d{4,5})(?P<version>v\d+)?(?![\w-]|\.\w)"
)
# ... alone (a CSV cell or a BibTeX eprint)
_ARXIV_BARE = re.compile(rf"^\s*(?i:arxiv:)?{_ID}\s*$")
_DOI = re.compile(r"\b(10\.\d{4,9}/[^\s\"'<>]+)")
_DOI_TRAILING = ".,;:)]}>*_"
_ACL = re.compile(r"(?i:aclanthology\.org/)(?:[\w-]+/)*?(\d{4}\.[a-z0-9]+(?:-[a-z0-9]+)*\.\d+)(?:\.pdf)?/?")
# Sites whose pages are papers: a link there names a paper even without an id.
PAPER_HOSTS = (
    "openreview.net/forum",
    "openreview.net/pdf",
    "aclanthology.org/",
    "proceedings.neurips.cc/",
    "papers.nips.cc/",
    "proceedings.mlr.press/",
    "dl.acm.org/doi/",
    "ieeexplore.ieee.org/",
    "link.springer.com/",
    "ojs.aaai.org/",
    "ijcai.org/proceedings/",
    "jmlr.org/papers/",
    "openaccess.thecvf.com/",
    "semanticscholar.org/paper/",
    "paperswithcode.com/paper/",
    "sciencedirect.com/science/article/",
    "nature.com/articles/",
    "science.org/doi/",
    "aclweb.org/anthology/",
)
# Link labels that name the kind of link, not the paper.
_GENERIC = re.compile(
    r"^\W*(?:paper|papers|pdf|arxiv|abs|abstract|link|url|code|official code|github|repo|repository|project|"
    r"project page|page|website|homepage|site|demo|blog|dataset|data|model|models|hf|huggingface|openreview|"
    r"acl|doi|html|video|slides|poster|bib|bibtex|citation|here|tweet|x|doc|docs|leaderboard|\d{4})\W*$",
    re.I,
)
_PAPER_LABEL = re.compile(r"^\W*(?:paper|pdf|arxiv|abs|abstract|openreview|acl|doi|html)\W*$", re.I)
# Tags around a title in curated lists: "[2025/03]", "(ICML 2025)", "**[NeurIPS'24]**", ":fire:".
# ... at the start ("[2025/03]", "(arxiv'25)", "`[2023/03]`") or the end ("[NeurIPS'24]") of a title,
# and a venue or year in parentheses anywhere ("(ICLR 2025)")
_LEADING_TAG = re.compile(r"^\s*(?:\[[^\]]{0,40}\]|\([^()]{1,20}\)|`[^`]{0,40}`)")
_TRAILING_TAG = re.compile(r"\[[^\]]{0,40}\]\s*$")
_YEAR_TAG = re.compile(r"\((?:[^()]{0,30}(?:'\d{2}\b|\b(?:19|20)\d{2}\b)[^()]{0,10}|arxiv|preprint)\)", re.I)
_ET_AL = re.compile(r"(?:,?\s+[A-Z][\w'’-]+)?,?\s+et\s+al\.?$")
_EMOJI_CODE = re.compile(r":[a-z0-9_+-]+:")
_SYMBOLS = re.compile(r"[\U0001F000-\U0001FAFF\u2600-\u27BF\uFE0F\u200d]")
_EDGE = re.compile(r"^[\s\W_]+|[\s\-–—:|,;/.]+$")  # what is left around a title; a ')' or '?' may end one
_WORD = re.compile(r"[A-Za-z]{2,}")


class ListError(Exception):
    """The list cannot be read at all; the message names the file."""


@dataclass(frozen=True)
class Listed:
    """One paper as a list names it."""

    line: int
    title: str | None
    arxiv: str | None = None  # without its version; an old-style id without its subject class
    doi: str | None = None  # lower case
    url: str | None = None

    @property
    def names(self) -> tuple[str, ...]:
        """How the paper is told apart from the others in its list: its ids, else its title."""
        out = []
        if self.arxiv:
            out.append(f"arXiv {self.arxiv}")
        if self.doi:
            out.append(f"DOI {self.doi}")
        if not out and self.title:
            out.append(f"title {normalise_title(self.title)}")
        return tuple(out)

    def shown_id(self) -> str:
        if self.arxiv:
            return f"arXiv {self.arxiv}"
        if self.doi:
            return f"DOI {self.doi}"
        return "(title only)"


def arxiv_id(match: re.Match[str]) -> str:
    """The arXiv id a pattern of this module matched: no version; an old-style id without its
    subject class (``math.AG/0601001`` is ``math/0601001``), as arXiv itself names it."""
    ident = match.group("id")
    if "/" in ident:
        archive, number = ident.split("/")
        ident = f"{archive.split('.')[0].lower()}/{number}"
    return ident


def ids_in(text: str) -> tuple[list[str], list[str]]:
    """The arXiv ids and DOIs *text* names (a link, a line, a cell), each once, in order."""
    arxiv: list[str] = []
    dois: list[str] = []
    for pattern in (_ARXIV_LINK, _ARXIV_TEXT, _ARXIV_DOI, _ARXIV_IN_TEXT):
        for m in pattern.finditer(text):
            arxiv.append(arxiv_id(m))
    for m in _DOI.finditer(text):
        doi = m.group(1).rstrip(_DOI_TRAILING).lower()
        doi = re.sub(r"(\.pdf|/full|/abstract|/epdf)$", "", doi)
        if not doi.startswith("10.48550/"):
            dois.append(doi)
    for m in _ACL.finditer(text):
        dois.append(f"10.18653/v1/{m.group(1).lower()}")
    return list(dict.fromkeys(arxiv)), list(dict.fromkeys(dois))


def is_paper_link(url: str) -> bool:
    lowered = url.lower()
    return any(host in lowered for host in PAPER_HOSTS)


def clean_title(text: str, min_words: int = 2) -> str | None:
    """*text* as a title: tags, dates, emoji, a trailing "Li et al." and surrounding punctuation
    dropped; None if fewer than *min_words* words are left, or only a link label."""
    text = _EMOJI_CODE.sub(" ", _SYMBOLS.sub(" ", text)).strip()
    while _LEADING_TAG.search(text):
        text = _LEADING_TAG.sub("", text, count=1).strip()
    while _TRAILING_TAG.search(text):
        text = _TRAILING_TAG.sub("", text, count=1).strip()
    text = _YEAR_TAG.sub(" ", text)
    text = re.sub(r"https?://\S+", " ", text)
    text = " ".join(text.split())
    text = _ET_AL.sub("", text)
    text = _EDGE.sub("", text)
    words = _WORD.findall(text)
    if len(words) < min_words or _GENERIC.match(text):
        return None
    return text


# ---------------------------------------------------------------------------------------------
# Markdown


@dataclass
class _Run:
    """A piece of a Markdown block: text, or a link with its text."""

    text: str
    href: str | None = None
    strong: bool = False
    line_break: bool = False


def _runs(children: Sequence[Any]) -> list[_Run]:
    """The text and links of an inline token, in order (HTML links read from their href)."""
    out: list[_Run] = []
    href: str | None = None
    strong = 0
    for child in children:
        kind = child.type
        if kind == "link_open":
            href = _absolute(str(child.attrs.get("href") or ""))
            out.append(_Run("", href, strong > 0))
        elif kind == "link_close":
            href = None
        elif kind == "strong_open":
            strong += 1
        elif kind == "strong_close":
            strong = max(0, strong - 1)
            out.append(_Run(""))  # ends the bold group
        elif kind in ("softbreak", "hardbreak"):
            out.append(_Run(" ", line_break=True))
        elif kind == "html_inline":
            m = re.search(r"""href\s*=\s*["']([^"']+)["']""", child.content, re.I)
            if m:
                out.append(_Run("", m.group(1)))
            elif re.match(r"</a\s*>", child.content, re.I):
                out.append(_Run(""))
            elif re.match(r"<br\s*/?>", child.content, re.I):
                out.append(_Run(" ", line_break=True))
        elif kind in ("text", "code_inline"):
            if href is not None and out and out[-1].href == href:
                out[-1].text += child.content
            else:
                out.append(_Run(child.content, None, strong > 0))
        elif kind == "image":
            continue  # a badge or figure: its alt text is no title
    return out


def _absolute(href: str) -> str:
    """A link as a reader's browser would follow it from a list: ``neurips.cc/virtual/...``, a
    host with no scheme, is taken as https."""
    if not re.match(r"[A-Za-z][A-Za-z0-9+.-]*:|[#/.]", href) and re.match(r"[\w-]+(\.[\w-]+)+/", href):
        return "https://" + href
    return href


def _html_runs(html: str) -> list[list[_Run]]:
    """Raw HTML (a table or list written in HTML): one group of runs per row, item or line."""
    groups = []
    for part in re.split(r"(?i)</tr>|</li>|<br\s*/?>|\n", html):
        runs: list[_Run] = []
        for m in re.finditer(r"""(?is)<a\b[^>]*href\s*=\s*["']([^"']+)["'][^>]*>(.*?)</a>|<[^>]+>|([^<]+)""", part):
            if m.group(1):
                runs.append(_Run(_strip_tags(m.group(2)), _absolute(m.group(1))))
            elif m.group(3) and m.group(3).strip():
                runs.append(_Run(m.group(3)))
        groups.append(runs)
    return groups


def _strip_tags(html: str) -> str:
    import html as html_lib

    return html_lib.unescape(re.sub(r"<[^>]+>", " ", html))


def _ids_of(runs: Sequence[_Run]) -> list[tuple[int, str | None, str | None, str]]:
    """(run index, arXiv id, DOI, url) for every id the runs name: in a link's target, or in text."""
    found: list[tuple[int, str | None, str | None, str]] = []
    for i, run in enumerate(runs):
        arxiv, dois = ids_in(run.href if run.href else run.text)
        url = run.href if run.href else None
        found += [(i, a, None, url or f"https://arxiv.org/abs/{a}") for a in arxiv]
        found += [(i, None, d, url or f"https://doi.org/{d}") for d in dois]
    return found


def _one_paper(found: Sequence[tuple[int, str | None, str | None, str]]) -> bool:
    """Whether the ids found name one paper: at most one arXiv id and one DOI (its published version)."""
    return len({a for _, a, _, _ in found if a}) <= 1 and len({d for _, _, d, _ in found if d}) <= 1


def _merged(
    runs: list[_Run], found: Sequence[tuple[int, str | None, str | None, str]], line: int, fallback: str | None
) -> Listed:
    arxiv = next((a for _, a, _, _ in found if a), None)
    doi = next((d for _, _, d, _ in found if d), None)
    i, _, _, url = next((f for f in found if f[1]), found[0])  # an arXiv link first
    return Listed(line, _title(runs, runs[i], fallback), arxiv, doi, url)


def _block_papers(runs: list[_Run], line: int, out: list[Listed], fallback: str | None = None) -> None:
    """The papers one block (a paragraph, list item, heading or table row) names, appended to *out*.

    A block that names one paper (one arXiv id and at most one DOI, however often linked) is one
    paper, titled from the whole block. Otherwise each line of it is read alone, text on a line
    without an id going with the next line that has one; a line naming several papers gives each
    the text of its own link.
    """
    found = _ids_of(runs)
    if not found:
        links = [r for r in runs if r.href and (is_paper_link(r.href) or _PAPER_LABEL.match(r.text.strip() or "-"))]
        title = _title(runs, links[0], fallback) if links else None
        if title:
            out.append(Listed(line, title, url=links[0].href))
        return
    if _one_paper(found):
        out.append(_merged(runs, found, line, fallback))
        return
    pending: list[_Run] = []
    here = line
    for part in _split_lines(runs):
        ids = _ids_of(part)
        if not ids:
            pending += part
            here += 1
            continue
        if _one_paper(ids):
            out.append(_merged([*pending, *part], [(i + len(pending), a, d, u) for i, a, d, u in ids], here, None))
        else:
            for i, a, d, u in ids:
                own = [part[i]] if not _GENERIC.match(part[i].text.strip() or "-") else [*pending, *part[: i + 1]]
                out.append(Listed(here, _title(own, part[i]), a, d, u))
        pending = []
        here += 1


def _split_lines(runs: list[_Run]) -> list[list[_Run]]:
    parts: list[list[_Run]] = [[]]
    for run in runs:
        if run.line_break:
            parts.append([])
        else:
            parts[-1].append(run)
    return parts


def _title(runs: list[_Run], link: _Run, fallback: str | None = None) -> str | None:
    """The title of the paper *link* stands for, among the *runs* of its block: the link's own
    text, else the block's bold text, else *fallback* (a table row's first cell), else the text."""
    if link.href and not _GENERIC.match(link.text.strip() or "-"):
        own = clean_title(link.text)
        if own:
            return own
    first = next((i for i, r in enumerate(runs) if r.strong and not r.href and r.text.strip()), None)
    if first is not None:
        group = []
        for r in runs[first:]:
            if not r.strong or r.href:
                break
            group.append(r.text)
        bold = clean_title("".join(group))
        if bold and len(bold.split()) >= 3:
            return bold
    if fallback:
        return fallback
    words = [r.text for r in runs if not r.href or not _GENERIC.match(r.text.strip() or "-")]
    return clean_title(" ".join(words))


def _row_title(cells: list[list[_Run]]) -> str | None:
    """A table row's title: its first cell with text that is not a link label (a method's name counts)."""
    for cell in cells:
        text = " ".join(r.text for r in cell if not r.href or not _GENERIC.match(r.text.strip() or "-"))
        title = clean_title(text, min_words=1)
        if title and not re.fullmatch(r"[\W\d_]*(?:19|20)?\d{2}[\W\d_]*", title):
            return title
    return None


def read_markdown(text: str) -> list[Listed]:
    from markdown_it import MarkdownIt

    md = MarkdownIt("commonmark", {"html": True}).enable("table")
    out: list[Listed] = []
    row: list[list[_Run]] | None = None  # a table row's cells
    row_line = 0
    for token in md.parse(text):
        if token.type == "tr_open":
            row, row_line = [], (token.map[0] + 1 if token.map else 1)
        elif token.type == "tr_close" and row is not None:
            flat = [run for cell in row for run in (*cell, _Run(" | "))]
            _block_papers(flat, row_line, out, _row_title(row))
            row = None
        elif token.type == "inline":
            runs = _runs(token.children or [])
            if row is not None:
                row.append(runs)
            else:
                _block_papers(runs, token.map[0] + 1 if token.map else 1, out)
        elif token.type == "html_block":
            first = token.map[0] + 1 if token.map else 1
            for offset, runs in enumerate(_html_runs(token.content)):
                _block_papers(runs, first + _line_offset(token.content, offset), out)
    return out


def _line_offset(html: str, part: int) -> int:
    """The line, counted from the block's first, on which the *part*-th piece of :func:`_html_runs` starts."""
    pieces = re.split(r"(?i)(</tr>|</li>|<br\s*/?>|\n)", html)
    text = "".join(pieces[: part * 2])
    return text.count("\n")


# ---------------------------------------------------------------------------------------------
# BibTeX and CSV


def read_bibtex(text: str, shown: str) -> tuple[list[Listed], list[Problem]]:
    import logging

    from bibtexparser import parse_string  # type: ignore[attr-defined]

    from masrl.corpus._bibtex import decode_latex

    logging.getLogger("bibtexparser").setLevel(logging.CRITICAL)  # failures are reported below
    library = parse_string(text)
    out: list[Listed] = []
    for entry in library.entries:
        fields = {k.lower(): str(f.value) for k, f in entry.fields_dict.items()}
        title = clean_title(decode_latex(fields["title"])) if fields.get("title") else None
        arxiv: str | None = None
        eprint = fields.get("eprint", "")
        m = _ARXIV_BARE.match(eprint)
        if m and (fields.get("archiveprefix", "arxiv").lower() == "arxiv"):
            arxiv = arxiv_id(m)
        found_arxiv, dois = ids_in(
            " ".join(fields.get(k, "") for k in ("journal", "url", "note", "howpublished", "doi"))
        )
        arxiv = arxiv or (found_arxiv[0] if found_arxiv else None)
        doi = dois[0] if dois else None
        url = fields.get("url") or _default_url(arxiv, doi)
        if title or arxiv or doi:
            out.append(Listed((entry.start_line or 0) + 1, title, arxiv, doi, url))
    problems = [
        Problem(shown, (block.start_line or 0) + 1, 1, "", "this BibTeX entry cannot be read, so it was left out")
        for block in library.failed_blocks
    ]
    return out, problems


_COLUMNS = {
    "title": ("title", "paper", "paper title", "name", "paper name"),
    "arxiv": ("arxiv", "arxiv id", "arxiv_id", "arxivid", "eprint", "arxiv url", "arxiv link"),
    "doi": ("doi",),
    "url": ("url", "link", "paper url", "paper link", "pdf", "href"),
}


def read_csv(text: str, delimiter: str) -> list[Listed]:
    rows = list(csv.reader(io.StringIO(text), delimiter=delimiter))
    out: list[Listed] = []
    if not rows:
        return out
    header = [h.strip().lower() for h in rows[0]]
    columns = {name: next((i for i, h in enumerate(header) if h in names), None) for name, names in _COLUMNS.items()}
    start = 1 if any(i is not None for i in columns.values()) else 0
    # csv.reader gives no line numbers for rows; count the lines each row took
    lines = _row_lines(text, delimiter)
    for n, row in enumerate(rows[start:], start):
        line = lines[n] if n < len(lines) else n + 1

        def cell(name: str, row: list[str] = row) -> str:
            i = columns[name]
            return row[i].strip() if i is not None and i < len(row) else ""

        if start:
            bare = _ARXIV_BARE.match(cell("arxiv"))
            found_arxiv, dois = ids_in(" ".join((cell("arxiv"), cell("url"), cell("doi"))))
            arxiv = arxiv_id(bare) if bare else (found_arxiv[0] if found_arxiv else None)
            doi = dois[0] if dois else None
            title = clean_title(cell("title")) if cell("title") else None
            url = cell("url") if cell("url").startswith(("http://", "https://")) else None
        else:
            found_arxiv, dois = ids_in(" ".join(row))
            arxiv = found_arxiv[0] if found_arxiv else None
            doi = dois[0] if dois else None
            texts = [c for c in row if "://" not in c and not _ARXIV_BARE.match(c)]
            title = clean_title(max(texts, key=len)) if texts else None
            url = next((c.strip() for c in row if c.strip().startswith(("http://", "https://"))), None)
        if arxiv or doi or title:
            out.append(Listed(line, title, arxiv, doi, url or _default_url(arxiv, doi)))
    return out


def _default_url(arxiv: str | None, doi: str | None) -> str | None:
    """The link a paper named only by an id has: its arXiv abstract page, else its DOI's."""
    if arxiv:
        return f"https://arxiv.org/abs/{arxiv}"
    return f"https://doi.org/{doi}" if doi else None


def _row_lines(text: str, delimiter: str) -> list[int]:
    """The 1-based line each CSV row starts on (a quoted cell may span lines)."""
    reader = csv.reader(io.StringIO(text), delimiter=delimiter)
    out, line = [], 1
    for _ in reader:
        out.append(line)
        line = reader.line_num + 1
    return out


# ---------------------------------------------------------------------------------------------
# Any list


@dataclass
class ReadList:
    """A list as read: its papers (each once, at its first line) and what could not be read."""

    path: Path
    shown: str
    format: str
    papers: list[Listed]
    problems: list[Problem] = field(default_factory=list)


def list_format(path: Path, text: str) -> str:
    suffix = path.suffix.lower()
    if suffix in FORMATS:
        return FORMATS[suffix]
    return "bibtex" if re.search(r"(?m)^\s*@[A-Za-z]+\s*[{(]", text) else "markdown"


def read_list(path: Path) -> ReadList:
    """The papers the list at *path* names, each once; :class:`ListError` if it cannot be read."""
    shown = display_path(path)
    try:
        size = path.stat().st_size
        if size > MAX_BYTES:
            raise ListError(f"{shown}: the file is {size:,} bytes; a list must be under {MAX_BYTES:,} bytes")
        raw = path.read_bytes()
    except FileNotFoundError:
        raise ListError(f"{shown}: no such file") from None
    except IsADirectoryError:
        raise ListError(f"{shown}: a folder, not a list file") from None
    except OSError as exc:
        raise ListError(f"{shown}: cannot read it ({exc.strerror or exc})") from None
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        raise ListError(f"{shown}:{line}: not UTF-8 text; save the list as UTF-8 (Markdown, BibTeX or CSV)") from None
    if "\x00" in text:
        raise ListError(f"{shown}: a binary file, not a Markdown, BibTeX or CSV list")
    kind = list_format(path, text)
    problems: list[Problem] = []
    if kind == "bibtex":
        papers, problems = read_bibtex(text, shown)
    elif kind == "csv":
        papers = read_csv(text, "\t" if path.suffix.lower() == ".tsv" else ",")
    else:
        papers = read_markdown(text)
    return ReadList(path, shown, kind, list(_unique(papers)), problems)


def _unique(papers: Iterable[Listed]) -> Iterator[Listed]:
    seen: set[str] = set()
    for p in papers:
        names = p.names
        if not names or any(n in seen for n in names):
            continue
        seen.update(names)
        yield p


# ---------------------------------------------------------------------------------------------
# Against the corpus


@dataclass(frozen=True)
class Matched:
    """A listed paper and what the corpus made of it."""

    listed: Listed
    record: str | None  # the paper key or exclusion id
    status: str  # retained, excluded, queued or unscreened
    queued: str | None = None  # the screening queue id, if it waits there


TITLE_CONTAINED_MIN = 24  # a normalised record title this long found inside a listed title matches it
SHORT_NAME_MAX = 40  # a title's part before its colon, at most this long, may stand for the record alone


class Owners:
    """Which record of a corpus a listed paper is: by arXiv id (any version), DOI, link or a
    near-identical title, as ``masrl add`` and ``masrl discover`` match, or by a title that holds a
    record's whole title (lists that write the authors or a venue after the title)."""

    def __init__(self, corpus: Corpus, unfinished: Sequence[Any] = ()) -> None:
        from masrl.living._queue import Known

        self.known = Known(corpus, unfinished)
        titles = [(normalise_title(p.title), p.key) for p in corpus.papers]
        titles += [(normalise_title(e.label), e.id) for e in corpus.exclusions]
        self.titles = [(t, owner) for t, owner in titles if len(t) >= TITLE_CONTAINED_MIN]
        self.names = short_names(
            [(p.title, p.key) for p in corpus.papers] + [(e.label, e.id) for e in corpus.exclusions]
        )
        for name, key in key_names([p.key for p in corpus.papers]).items():
            self.names.setdefault(name, key)

    def owner(self, arxiv: str | None, doi: str | None, url: str | None, title: str | None) -> str | None:
        owner = self.known.match(arxiv, doi, url, title or "")
        if owner is None and title:
            norm = normalise_title(title)
            owner = next((o for t, o in self.titles if t in norm), None) or self.names.get(norm)
        return owner


def short_names(titled: Sequence[tuple[str, str]]) -> dict[str, str]:
    """The records a list may name by their method's name alone: the part of a title before its
    first colon ("G-Designer" for "G-Designer: Architecting ..."), normalised, when it is at most
    SHORT_NAME_MAX characters and no other record's title starts with the same name.

    >>> short_names([("MALT: Improving Reasoning", "malt"), ("SPIRAL: Self-Play", "a"), ("SPIRAL: Search", "b")])
    {'malt': 'malt'}
    """
    seen: dict[str, list[str]] = {}
    for title, owner in titled:
        head, colon, _ = title.partition(":")
        name = normalise_title(head)
        if colon and name and len(head.strip()) <= SHORT_NAME_MAX:
            seen.setdefault(name, []).append(owner)
    return {name: owners[0] for name, owners in seen.items() if len(owners) == 1}


KEY_NAME_MIN = 4  # a key's name shorter than this ("mad", "moa") is too common a word to stand for it


def key_names(keys: Sequence[str]) -> dict[str, str]:
    """The records a list may name by the name their key is made of: the house style writes a key
    as the method's name and a year, so a list's "MaAS" is the paper ``maas2025``. Only a name
    that one key alone has, of at least KEY_NAME_MIN letters and digits.

    >>> key_names(["maas2025", "malt", "spiral2025", "spiral2026", "mad2024"])
    {'maas': 'maas2025', 'malt': 'malt'}
    """
    seen: dict[str, list[str]] = {}
    for key in keys:
        name = normalise_title(re.sub(r"-?(?:19|20)\d\d$", "", key))
        if len(name) >= KEY_NAME_MIN:
            seen.setdefault(name, []).append(key)
    return {name: owners[0] for name, owners in seen.items() if len(owners) == 1}


def match_list(
    read: ReadList, corpus: Corpus, queue: Sequence[Any] = (), unfinished: Sequence[Any] = ()
) -> list[Matched]:
    """What the corpus made of every paper of the list *read* (see :class:`Owners`).

    *queue* holds the screening queue's entries (:class:`masrl.living._queue.Entry`), *unfinished*
    the records still being written (:func:`masrl.living._scaffold.unfinished_records`), which count."""
    from masrl.corpus._schema import EXCLUSION_ID_PATTERN
    from masrl.living._queue import PENDING

    owners = Owners(corpus, unfinished)
    queued: dict[str, str] = {}
    for entry in queue:
        if entry.status == PENDING:
            for name in entry.names():
                queued[name] = entry.id
            queued[f"title {normalise_title(str(entry.data.get('title', '')))}"] = entry.id
    out = []
    for item in read.papers:
        owner = owners.owner(item.arxiv, item.doi, item.url, item.title)
        if owner is not None:
            out.append(Matched(item, owner, "excluded" if re.match(EXCLUSION_ID_PATTERN, owner) else "retained"))
            continue
        names = [n for n in (item.arxiv, item.doi) if n]
        if item.title:
            names.append(f"title {normalise_title(item.title)}")
        wait = next((queued[n.lower()] for n in names if n.lower() in queued), None)
        out.append(Matched(item, None, "queued" if wait else "unscreened", wait))
    return out
