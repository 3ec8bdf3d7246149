"""Curated lists of the field kept elsewhere, read as lists of papers: Markdown, BibTeX or CSV.

A list names a paper by its arXiv id (new style ``2503.03686`` or old style ``cs/0112017``, with or
without a version, in an ``abs``, ``pdf`` or ``html`` link, as ``arXiv:2503.03686``, or through
arXiv's DOI ``10.48550/arXiv.2503.03686``), by a DOI (bare, ``doi:``, or in a doi.org, ACM,
Springer or Wiley link; an ACL Anthology link gives its paper's DOI), or only by its title, with a
link to a paper page (OpenReview, a proceedings site) or none at all.

:func:`read_list` turns a file into :class:`Listed` papers, each with the line it stands on:

* Markdown (``.md``) is parsed with markdown-it-py (CommonMark and tables). Each paragraph, list
  item, heading or table row is a block; a block names one paper per arXiv id or DOI in it, or
  one paper by title when it has no id but links to a paper page or calls its link a paper
  ("Paper", "PDF LINK", "ACM DOI"). A title is the paper's own link text, else its bold text,
  else the block's text without its bracketed tags, dates and link labels ("[paper]", "code",
  "JMLR PDF"). Where a block stands tells more: a heading over one paper's links titles it
  (``### Maestro``), and in a list or table made mostly of papers, or under sibling headings
  that each title one, an entry with a title and only a code or project link is listed by its
  title. BibTeX in a fenced block (a README's citations) is read as BibTeX.
* BibTeX (``.bib``) entries give ``title``, ``eprint`` (with ``archivePrefix = {arXiv}``, or an
  arXiv ``journal``), ``doi`` and ``url``.
* CSV (``.csv``, ``.tsv``) names its columns in a header row (title, arxiv, doi, url and the like,
  in any case); a table without such a header is searched cell by cell.

:func:`match_list` says what the corpus made of each listed paper: retained, excluded, waiting in
the screening queue, or never screened. A list that gives one arXiv id or DOI to papers whose
titles disagree is warned of (:func:`disagreements`): it counts once.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from masrl.base._problems import Problem, Severity
from masrl.corpus._load import display_path
from masrl.corpus._records import Corpus
from masrl.living._scaffold import nearly_same_titles, normalise_title

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
# Words a link label is made of when it names the kind of link, the host or the publisher, not the
# paper: "Code", "PDF LINK", "ACM DOI", "JMLR PDF", "GitHub repo", "EMNLP 2024 Findings". A label may
# add a year and a note in parentheses ("PDF (Southampton ePrints)", "Blog (v0.1)").
_LABEL_WORDS = frozenset((
    # kinds of link
    "paper", "papers", "pdf", "arxiv", "abs", "abstract", "link", "links", "url", "code", "codes", "github",
    "gitlab", "repo", "repository", "project", "page", "pages", "website", "homepage", "site", "web", "demo",
    "blog", "post", "dataset", "datasets", "data", "model", "models", "weights", "checkpoint", "checkpoints",
    "hf", "huggingface", "openreview", "doi", "html", "video", "slides", "poster", "bib", "bibtex", "citation",
    "cite", "here", "tweet", "x", "doc", "docs", "documentation", "leaderboard", "spec", "official", "source",
    "preprint", "proceedings", "full", "text", "version", "publication", "article", "book", "survey", "notion",
    "zhihu", "youtube", "twitter",
    # publishers, venues and indexes
    "acm", "ieee", "springer", "sciencedirect", "elsevier", "wiley", "jmlr", "pmlr", "aaai", "ijcai", "acl",
    "emnlp", "naacl", "eacl", "coling", "neurips", "nips", "icml", "iclr", "cvpr", "iccv", "eccv", "aamas",
    "tmlr", "colm", "informs", "nature", "science", "mit", "press", "findings", "workshop", "semantic",
    "scholar", "researchgate", "ssrn", "dblp", "pubmed",
))  # fmt: skip
# ... and those of them that say the link leads to the paper itself ("PDF LINK", "ACM DOI")
_PAPER_WORDS = frozenset(
    ("paper", "pdf", "arxiv", "abs", "abstract", "openreview", "acl", "doi", "html", "preprint", "proceedings")
)
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
_URL = re.compile(r"https?://[^\s`<>()\[\]]+")
# Hosts whose links are no paper's: social sites and badges around a list
_SOCIAL = re.compile(
    r"(?i)^https?://(?:[\w-]+\.)*(?:twitter\.com|x\.com|discord\.(?:gg|com)|youtube\.com|youtu\.be|linkedin\.com|"
    r"reddit\.com|facebook\.com|pinterest\.com|t\.me|wa\.me|news\.ycombinator\.com|img\.shields\.io|awesome\.re)\b"
)


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


def _label_words(text: str) -> list[str] | None:
    """The words of a link label ("PDF LINK", "ACM DOI", "PDF (Southampton ePrints)"), its notes in
    parentheses and years left out; None when a word is not one of the label words (a title)."""
    words = re.findall(r"[^\W\d_]+", re.sub(r"\([^()]*\)", " ", text).lower())
    return words if all(w in _LABEL_WORDS for w in words) else None


def is_label(text: str) -> bool:
    """Whether a link's text names the kind of link ("Paper", "[Code]", "PDF LINK", "ACM DOI",
    "GitHub (archived)", "2025"), not the paper it leads to. An empty text is a label too."""
    return _label_words(text) is not None


def is_paper_label(text: str) -> bool:
    """Whether a link's text says it leads to the paper itself: "Paper", "PDF LINK", "ACM DOI",
    "JMLR PDF", "PDF (Southampton ePrints)"; not "Code", "Blog" or a bare publisher's name."""
    words = _label_words(text)
    return bool(words) and any(w in _PAPER_WORDS for w in words or ())


def _balanced(text: str) -> str:
    """*text* without empty brackets and brackets that close nothing or are never closed, and
    unwrapped when one pair of square brackets holds all of it: a list that writes its entries
    as ``[ Title ] [ [PDF LINK](...) ]`` leaves "[ Title ] [  ] ]" around its title."""
    previous = None
    while previous != text:
        previous, text = text, re.sub(r"\[\s*\]|\(\s*\)", " ", text)
    chars = list(text)
    opened: list[int] = []
    for i, c in enumerate(chars):
        if c in "[(":
            opened.append(i)
        elif c in "])":
            if opened and chars[opened[-1]] == ("[" if c == "]" else "("):
                opened.pop()
            else:
                chars[i] = " "
    for i in opened:
        chars[i] = " "
    text = "".join(chars).strip()
    whole = re.fullmatch(r"\[([^\[\]]*)\]", text)
    return whole.group(1).strip() if whole else text


def clean_title(text: str, min_words: int = 2) -> str | None:
    """*text* as a title: tags, dates, emoji, a trailing "Li et al.", stray brackets and surrounding
    punctuation dropped; None if fewer than *min_words* words are left, or only a link label."""
    text = _balanced(_EMOJI_CODE.sub(" ", _SYMBOLS.sub(" ", text)))
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
    if len(words) < min_words or is_label(text):
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


def _block_papers(runs: list[_Run], line: int, fallback: str | None = None) -> list[Listed]:
    """The papers one block (a paragraph, list item, heading or table row) names.

    A block that names one paper (one arXiv id and at most one DOI, however often linked) is one
    paper, titled from the whole block. Otherwise each line of it is read alone, text on a line
    without an id going with the next line that has one; a line naming several papers gives each
    the text of its own link. A block with no id names a paper by its title when it links to a
    paper page or calls its link a paper ("PDF LINK", "ACM DOI").
    """
    found = _ids_of(runs)
    if not found:
        links = [r for r in runs if r.href and (is_paper_link(r.href) or is_paper_label(r.text.strip() or "-"))]
        title = _title(runs, links[0], fallback) if links else None
        return [Listed(line, title, url=links[0].href)] if title else []
    if _one_paper(found):
        return [_merged(runs, found, line, fallback)]
    out: list[Listed] = []
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
                own = [part[i]] if not is_label(part[i].text) else [*pending, *part[: i + 1]]
                out.append(Listed(here, _title(own, part[i]), a, d, u))
        pending = []
        here += 1
    return out


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
    text (in a table row, a method's name counts), else the block's bold text, else *fallback*
    (a table row's first cell), else the text."""
    if link.href and not is_label(link.text):
        own = clean_title(link.text, min_words=1 if fallback else 2)
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
    return clean_title(_text(runs))


def _text(runs: Sequence[_Run]) -> str:
    """The text of *runs* without the labels of their links ("[Code]", "PDF LINK")."""
    return " ".join(r.text for r in runs if not r.href or not is_label(r.text))


def _row_title(cells: list[list[_Run]]) -> str | None:
    """A table row's title: its first cell with text that is not a link label (a method's name counts)."""
    for cell in cells:
        title = clean_title(_text(cell), min_words=1)
        if title and not re.fullmatch(r"[\W\d_]*(?:19|20)?\d{2}[\W\d_]*", title):
            return title
    return None


def _entry_link(runs: Sequence[_Run]) -> str | None:
    """The first link of *runs* that may lead to a listed work (its code, project page or blog
    post): a web link with text, not a badge, an anchor or a social site."""
    for r in runs:
        if r.href and r.text.strip() and re.match(r"(?i)https?://", r.href) and not _SOCIAL.match(r.href):
            return r.href
    return None


@dataclass
class _Block:
    """A part of a Markdown list that may name papers: a heading, a paragraph, a list item's
    paragraph, a table row, a line of raw HTML or a fenced BibTeX block."""

    kind: str  # heading, paragraph, item, row, html or bibtex
    line: int
    runs: list[_Run]
    level: int = 0  # a heading's level
    group: int | None = None  # the list or table the item or row belongs to
    item: int | None = None  # the list item a paragraph belongs to
    cells: list[list[_Run]] = field(default_factory=list)  # a table row's
    header: bool = False  # a table's header row
    papers: list[Listed] = field(default_factory=list)


_BIB_FENCE = ("bibtex", "bib", "biblatex", "tex", "latex", "")
_BIB_ENTRY = re.compile(r"(?m)^\s*@[A-Za-z]+\s*\{\s*[^\s,{}]*\s*,")


def _blocks(text: str, shown: str) -> tuple[list[_Block], list[Problem]]:
    """The blocks of Markdown *text* in order, with where each stands (the list or table it is
    part of, a heading's level); BibTeX in a fenced block is read as BibTeX."""
    from markdown_it import MarkdownIt

    md = MarkdownIt("commonmark", {"html": True}).enable("table")
    blocks: list[_Block] = []
    problems: list[Problem] = []
    lists: list[int] = []  # the lists open around a token, innermost last
    items: list[int] = []
    table: int | None = None
    header = False
    level = 0
    row: list[list[_Run]] | None = None
    row_line = 0
    for n, token in enumerate(md.parse(text)):
        kind = token.type
        line = token.map[0] + 1 if token.map else 1
        if kind in ("bullet_list_open", "ordered_list_open"):
            lists.append(n)
        elif kind in ("bullet_list_close", "ordered_list_close"):
            lists.pop()
        elif kind == "list_item_open":
            items.append(n)
        elif kind == "list_item_close":
            items.pop()
        elif kind in ("heading_open", "heading_close"):
            level = int(token.tag[1:]) if kind == "heading_open" else 0
        elif kind in ("table_open", "table_close"):
            table = n if kind == "table_open" else None
        elif kind in ("thead_open", "thead_close"):
            header = kind == "thead_open"
        elif kind == "tr_open":
            row, row_line = [], line
        elif kind == "tr_close" and row is not None:
            flat = [run for cell in row for run in (*cell, _Run(" | "))]
            blocks.append(_Block("row", row_line, flat, group=table, cells=row, header=header))
            row = None
        elif kind == "inline":
            runs = _runs(token.children or [])
            if row is not None:
                row.append(runs)
            elif level:
                blocks.append(_Block("heading", line, runs, level=level))
            elif items:
                blocks.append(_Block("item", line, runs, group=lists[-1], item=items[-1]))
            else:
                blocks.append(_Block("paragraph", line, runs))
        elif kind == "html_block":
            for offset, runs in enumerate(_html_runs(token.content)):
                blocks.append(_Block("html", line + _line_offset(token.content, offset), runs))
        elif kind in ("fence", "code_block") and _bibtex_block(token.info, token.content):
            # a citation block ("```bibtex"): its entries are papers of the list, on their own lines;
            found, failed = read_bibtex(token.content, shown)
            first = line if kind == "code_block" else line + 1
            # an entry with no id or paper link is most often the list citing itself (its repository)
            found = [p for p in found if p.arxiv or p.doi or (p.url and is_paper_link(p.url))]
            moved = [replace(p, line=p.line + first - 1) for p in found]
            blocks.append(_Block("bibtex", line, [], papers=moved))
            problems += [replace(p, line=p.line + first - 1) for p in failed]
    return blocks, problems


def _bibtex_block(info: str, content: str) -> bool:
    """Whether a fenced or indented code block holds BibTeX: declared so, or undeclared and
    written as entries (``@misc{key,``)."""
    lang = (info.split() or [""])[0].lower()
    if lang in ("bibtex", "bib", "biblatex"):
        return True
    return lang in _BIB_FENCE and bool(_BIB_ENTRY.search(content))


def read_markdown(text: str, shown: str = "") -> tuple[list[Listed], list[Problem]]:
    """The papers Markdown *text* names, in order, and the BibTeX entries in it that cannot be read.

    Each block names its papers by id or paper link (:func:`_block_papers`); then where a block
    stands tells what else it names:

    * headings whose sections each hold one paper (``### Maestro`` over its links) title that
      paper, and a sibling section with no paper but a code link is a work of its own, titled by
      its heading (:func:`_heading_entries`);
    * in a list or a table most of whose items name papers, an item with a title and only a code,
      project or blog link (or, in a table, no link at all) is a work of its own, matched by title
      (:func:`_item_entries`, :func:`_row_entries`).
    """
    blocks, problems = _blocks(text, shown)
    for block in blocks:
        if block.kind != "bibtex":
            block.papers = _block_papers(block.runs, block.line, _row_title(block.cells) if block.cells else None)
    _heading_entries(blocks)
    _item_entries(blocks)
    _row_entries(blocks)
    return [p for block in blocks for p in block.papers], problems


def _distinct(papers: Iterable[Listed]) -> int:
    """How many papers *papers* are, each named once however often listed."""
    return len({p.names or (f"line {p.line}",) for p in papers})


def _heading_entries(blocks: list[_Block]) -> None:
    """Headings that title the works under them. Sibling headings (one level, one parent heading)
    are entries when most of their sections are a heading over one paper's lines: one paper,
    untitled or titled as its heading, and no table (a table's rows are entries of their own).
    Then the heading titles its section's paper if nothing else did, and a section that names no
    paper but links to code (``### MAPoRL`` over its repository) is listed by its heading alone."""
    heads = [i for i, b in enumerate(blocks) if b.kind == "heading"]
    sections: dict[int, list[_Block]] = {}
    siblings: dict[tuple[int, int], list[int]] = {}
    above: list[int] = []  # the headings a heading is under, outermost first
    for n, i in enumerate(heads):
        end = heads[n + 1] if n + 1 < len(heads) else len(blocks)
        sections[i] = blocks[i:end]
        while above and blocks[above[-1]].level >= blocks[i].level:
            above.pop()
        siblings.setdefault((above[-1] if above else -1, blocks[i].level), []).append(i)
        above.append(i)
    for group in siblings.values():
        titles = {i: clean_title(_text(blocks[i].runs), min_words=1) for i in group}
        papers = {i: [p for b in sections[i] for p in b.papers] for i in group}
        plain = {i: not any(b.kind == "row" for b in sections[i]) for i in group}
        headed = [
            plain[i]
            and _distinct(papers[i]) == 1
            and all(not p.title or same_title(p.title, titles[i] or "") for p in papers[i])
            for i in group
        ]
        if len(group) < 2 or 2 * sum(headed) <= len(group):
            continue
        for i in group:
            heading, title = blocks[i], titles[i]
            if title is None or not plain[i]:
                continue
            if _distinct(papers[i]) == 1:
                for block in sections[i]:
                    block.papers = [p if p.title else replace(p, title=title) for p in block.papers]
            elif not papers[i]:
                url = next((u for b in sections[i] for u in _links_in(b.runs)), None)
                if url:
                    heading.papers = [Listed(heading.line, title, url=url)]


def _links_in(runs: Sequence[_Run]) -> Iterator[str]:
    """The web links of *runs*, linked or written out (```https://github.com/...```), in order."""
    for r in runs:
        if r.href and re.match(r"(?i)https?://", r.href) and not _SOCIAL.match(r.href):
            yield r.href
        elif not r.href:
            yield from (u for u in _URL.findall(r.text) if not _SOCIAL.match(u))


def _item_entries(blocks: list[_Block]) -> None:
    """In a list most of whose items name papers, an item that names none but has a title and a
    link to code, a project or a post is listed by that title."""
    lists: dict[int, dict[int, list[_Block]]] = {}
    for b in blocks:
        if b.kind == "item" and b.group is not None and b.item is not None:
            lists.setdefault(b.group, {}).setdefault(b.item, []).append(b)
    for items in lists.values():
        named = [any(b.papers for b in parts) for parts in items.values()]
        if not _mostly(named):
            continue
        for parts, has in zip(items.values(), named, strict=True):
            first = parts[0]
            url = None if has else _entry_link(first.runs)
            link = next((r for r in first.runs if r.href == url), None)
            title = _title(first.runs, link) if link else None
            if url and title:
                first.papers = [Listed(first.line, title, url=url)]


def _row_entries(blocks: list[_Block]) -> None:
    """In a table most of whose rows name papers, a row that names none but has a title (its
    first cell with text) is listed by that title, with its code or project link if it has one.
    A row with text or links in one cell only is a section's name ("**PPO family**"), never a work."""
    tables: dict[int, list[_Block]] = {}
    for b in blocks:
        filled = sum(1 for cell in b.cells if any(r.href or re.search(r"[^\W_]", r.text) for r in cell))
        if b.kind == "row" and not b.header and b.group is not None and filled >= 2:
            tables.setdefault(b.group, []).append(b)
    for rows in tables.values():
        if not _mostly([bool(r.papers) for r in rows]):
            continue
        for r in rows:
            title = None if r.papers else _row_title(r.cells)
            if title:
                r.papers = [Listed(r.line, title, url=_entry_link(r.runs))]


def _mostly(named: Sequence[bool]) -> bool:
    """Whether a list or table whose items name papers as *named* says is a list of works: two
    items or more name papers, and they are at least half of its items."""
    return sum(named) >= 2 and 2 * sum(named) >= len(named)


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
        papers, problems = read_markdown(text, shown)
    problems += disagreements(papers, shown)
    return ReadList(path, shown, kind, list(_unique(papers)), sorted(problems))


def _unique(papers: Iterable[Listed]) -> Iterator[Listed]:
    seen: set[str] = set()
    for p in papers:
        names = p.names
        if not names or any(n in seen for n in names):
            continue
        seen.update(names)
        yield p


SHOWN_TITLE_MAX = 60  # a title quoted in a warning is cut to this many characters


def disagreements(papers: Sequence[Listed], shown: str) -> list[Problem]:
    """A warning per arXiv id or DOI that the list gives to papers whose titles fall in groups
    that disagree (see :func:`same_title`), at the line it is first listed, naming every line: the list counts it
    once, as the paper of its first line, so the others may be papers it lost. Lines that name
    several papers are left out: their papers have no title of their own."""
    on_line: dict[int, set[tuple[str, ...]]] = {}
    for p in papers:
        on_line.setdefault(p.line, set()).add(p.names)
    by_id: dict[str, list[Listed]] = {}
    for p in papers:
        if len(on_line[p.line]) > 1:
            continue  # a line naming several papers gives each the whole line, no title of its own
        for name in (f"arXiv {p.arxiv}" if p.arxiv else "", f"DOI {p.doi}" if p.doi else ""):
            if name and p.title and all((q.line, q.title) != (p.line, p.title) for q in by_id.get(name, [])):
                by_id.setdefault(name, []).append(p)
    out = []
    for name, listed in by_id.items():
        if len(_agreeing([p.title or "" for p in listed])) == 1:
            continue
        lines = ", ".join(f"line {p.line} {_cut(p.title or '')!r}" for p in listed)
        message = (
            f"{name} is listed under titles that disagree ({lines}); "
            f"it is counted once, as the paper of line {listed[0].line}"
        )
        out.append(Problem(shown, listed[0].line, 1, "", message, Severity.WARNING))
    return out


def _agreeing(titles: Sequence[str]) -> list[set[int]]:
    """*titles* (by index) in groups that agree, each title with every title it agrees with, and
    on through those: a short name and a sentence holding it join the full title they share."""
    groups: list[set[int]] = []
    for i, title in enumerate(titles):
        joined = [g for g in groups if any(same_title(title, titles[j]) for j in g)]
        merged = {i}.union(*joined)
        groups = [g for g in groups if g not in joined] + [merged]
    return groups


def _cut(title: str) -> str:
    return title if len(title) <= SHOWN_TITLE_MAX else title[: SHOWN_TITLE_MAX - 1] + "…"


def same_title(a: str, b: str) -> bool:
    """Whether two titles a list gives one paper can be the same paper's: nearly the same once
    normalised, one holding the other ("ProRL" and "ProRL: Prolonged ..."), or the same name
    before a colon, a parenthesis or a dash ("MASLab (duplicate listing)", "MASLab: A Unified ...").

    >>> same_title("MASLab (duplicate listing)", "MASLab: A Unified Codebase"), same_title("ToRL", "AGILE: A Novel RL")
    (True, False)
    """
    x, y = normalise_title(a), normalise_title(b)
    if not x or not y or x in y or y in x:
        return True
    if nearly_same_titles(x, y):
        return True
    head_a, head_b = (normalise_title(re.split(r":| \(| [-–—] ", t, maxsplit=1)[0]) for t in (a, b))
    return bool(head_a) and head_a == head_b


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
    near-identical title, as ``masrl add`` and ``masrl discover`` match; by a title that holds a
    record's whole title (lists that write the authors or a venue after the title); by a method's
    name alone (:func:`short_names`, :func:`key_names`); or by a title whose name before its colon
    is one record's name, when the rest agrees and no id says otherwise (:meth:`by_head`)."""

    def __init__(self, corpus: Corpus, unfinished: Sequence[Any] = ()) -> None:
        from masrl.corpus._checks import record_ids
        from masrl.living._queue import Known

        self.known = Known(corpus, unfinished)
        titled = [(p.title, p.key) for p in corpus.papers] + [(e.label, e.id) for e in corpus.exclusions]
        titles = [(normalise_title(title), owner) for title, owner in titled]
        self.titles = [(t, owner) for t, owner in titles if len(t) >= TITLE_CONTAINED_MIN]
        self.names = short_names(titled)
        for name, key in key_names([p.key for p in corpus.papers]).items():
            self.names.setdefault(name, key)
        self.full = dict((owner, title) for title, owner in titled)
        # the kinds of id each record has ("arXiv", "DOI"): a listed id no record matched is not theirs
        self.kinds: dict[str, set[str]] = {}
        for p in corpus.papers:
            self.kinds[p.key] = {i.split()[0] for i, _ in record_ids("paper", {"arxiv": p.arxiv, "doi": p.doi})}
        for e in corpus.exclusions:
            self.kinds[e.id] = {i.split()[0] for i, _ in record_ids("exclusion", {"identifier": e.identifier})}

    def owner(self, arxiv: str | None, doi: str | None, url: str | None, title: str | None) -> str | None:
        owner = self.known.match(arxiv, doi, url, title or "")
        if owner is None and title:
            norm = normalise_title(title)
            owner = next((o for t, o in self.titles if t in norm), None) or self.names.get(norm)
            if owner is None:
                owner = self.by_head(title, arxiv, doi)
        return owner

    def by_head(self, title: str, arxiv: str | None = None, doi: str | None = None) -> str | None:
        """The record whose name *title* starts with, before its colon ("ACC-Collab: Actor-Critic for
        Multi-Agent Collaboration" is ``acc-collab2024``, titled "ACC-Collab: An Actor-Critic
        Approach to Multi-Agent LLM Collaboration"), when one record alone has that name,
        :func:`head_agrees` says the rest does not speak against it, and the record has no arXiv id
        or DOI of its own where the list gives another (two works named "KVComm" differ so)."""
        head, colon, _ = title.partition(":")
        if not colon or len(head.strip()) > SHORT_NAME_MAX:
            return None
        owner = self.names.get(normalise_title(head))
        if owner is None or not head_agrees(title, self.full.get(owner, "")):
            return None
        has = self.kinds.get(owner, set())
        return None if (arxiv and "arXiv" in has) or (doi and "DOI" in has) else owner


# Words too common to tell two subtitles apart
_COMMON = frozenset((
    "the", "and", "for", "with", "via", "from", "into", "towards", "toward", "through", "using", "based",
    "large", "language", "models", "model",
))  # fmt: skip


def head_agrees(listed: str, record: str) -> bool:
    """Whether *listed*, a title whose name before its colon is *record*'s name, is that record's:
    the name is coined (one word with a capital inside, a digit or a hyphen: "ACC-Collab",
    "Memory-R1", "MALT"), or the two subtitles share at least half the words of the shorter one,
    so a plain word heading two works ("Position: ...", "Flow: ...") decides nothing alone.

    >>> head_agrees("ACC-Collab: Actor-Critic", "ACC-Collab: An Approach"), head_agrees("Position: A", "Position: B")
    (True, False)
    """
    name = listed.partition(":")[0].strip()
    if " " not in name and re.search(r"[A-Z]|\d|-", name[1:]):
        return True
    words = [
        {w for w in re.findall(r"[^\W\d_]{3,}", t.partition(":")[2].casefold()) if w not in _COMMON}
        for t in (listed, record)
    ]
    shorter = min(len(words[0]), len(words[1]))
    return shorter > 0 and 2 * len(words[0] & words[1]) >= shorter


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
