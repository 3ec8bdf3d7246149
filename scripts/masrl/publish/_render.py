"""Rendering: templates and data in, text out. Nothing here reads or writes files.

README.md is hand-written except for blocks between markers::

    <!-- BEGIN masrl:families -->
    ...generated...
    <!-- END masrl:families -->

:func:`readme_blocks` renders every block from the package templates; :func:`replace_blocks`
puts them into the current README text and fails if a marker is missing.

Every string from a record passes through :func:`md` before it reaches Markdown, so a title such
as ``A | B <script>`` cannot break a table or inject HTML.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import jinja2

from masrl.analysis._claims import Outcome
from masrl.corpus import _vocab as v
from masrl.corpus._records import Corpus, Paper
from masrl.corpus._vocab import Taxonomy

README = "README.md"
BLOCKS = ("headline", "families", "credit-units", "subdecisions", "topologies", "fields", "claims", "figures", "papers")
# Tag fields with a README block of their own; every other tag field of papers is counted in "fields".
DEDICATED_FIELDS = (v.CATEGORY, v.REWARD_TYPE, v.CREDIT_UNIT, v.TOPOLOGY)
# Above this many papers the README lists the newest per category and points to the full table.
README_FULL_LIST_MAX = 300
README_PER_CATEGORY = 25
PAPER_PAGE = "site/docs/papers/{key}.md"
SITE_PAPERS = "site/docs/papers/index.md"

_MD_SPECIAL = re.compile(r"([\\`*_\[\]|#~])")
_BLOCK = re.compile(r"(<!-- BEGIN masrl:(?P<name>[a-z-]+) -->\n)(?P<body>.*?)(<!-- END masrl:(?P=name) -->)", re.S)


class RenderError(Exception):
    """The hand-written frame of a generated file is wrong (say, a marker is missing)."""


def md(text: Any) -> str:
    """*text* as literal Markdown inline content: punctuation escaped, HTML neutralised."""
    return _md(str(text))


@functools.lru_cache(maxsize=8192)
def _md(text: str) -> str:
    # Cached: every page repeats the vocabulary's labels and definitions.
    out = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    out = _MD_SPECIAL.sub(r"\\\1", out)
    return " ".join(out.split())


def md_url(url: str) -> str:
    """*url* safe inside a Markdown link target."""
    return url.replace(" ", "%20").replace("(", "%28").replace(")", "%29").replace("<", "%3C").replace(">", "%3E")


def code(text: Any) -> str:
    """Inline code; backticks inside are not expected in vocabulary ids, but are kept safe."""
    return "`" + str(text).replace("`", "'") + "`"


def show_value(value: Any) -> str:
    if isinstance(value, dict):
        return ", ".join(f"{k} {n}" for k, n in value.items())
    return md(value)


def representatives(papers: Iterable[Paper], n: int = 3) -> list[Paper]:
    """Up to *n* entries that best represent a group: core first, strict credit, newest, then key."""
    ranked = sorted(papers, key=lambda p: (p.role != "core", not p.strict_credit, -p.year, p.key))
    return ranked[:n]


@dataclass(frozen=True)
class Group:
    label: str
    papers: list[Paper]
    more: int


def paper_groups(corpus: Corpus) -> list[Group]:
    """Papers grouped by category in taxonomy order, newest first; trimmed for large corpora."""
    trim = len(corpus.papers) > README_FULL_LIST_MAX
    groups = []
    for value in corpus.taxonomy[v.CATEGORY].values:
        members = sorted((p for p in corpus.papers if p.category == value.id), key=lambda p: (-p.year, p.key))
        if not members:
            continue
        shown = members[:README_PER_CATEGORY] if trim else members
        groups.append(Group(value.label, shown, len(members) - len(shown)))
    return groups


def template_environment(*, trim: bool) -> jinja2.Environment:
    """Jinja2 over the package templates. Output is Markdown, so autoescaping is off: every record
    string goes through the ``md`` (or, in raw HTML, ``html``) filter instead."""
    return jinja2.Environment(
        loader=jinja2.PackageLoader("masrl.publish", "templates"),
        autoescape=False,
        keep_trailing_newline=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=trim,
        lstrip_blocks=trim,
    )


def environment(corpus: Corpus) -> jinja2.Environment:
    env = template_environment(trim=False)
    tax = corpus.taxonomy
    family = {p.key: tax.family_of(p.reward_type) for p in corpus.papers}

    def paper_link(paper: Paper | str) -> str:
        key = paper if isinstance(paper, str) else paper.key
        return f"[{md(key)}]({PAPER_PAGE.format(key=key)})"

    def tags(p: Paper) -> str:
        parts = [
            family[p.key],
            p.reward_type,
            p.credit_unit + (" (strict)" if p.strict_credit else ""),
            p.topology,
            p.scenario,
        ]
        return " · ".join(code(x) for x in parts)

    env.filters.update(md=md, url=md_url, code=code, value=show_value, paper_link=paper_link)
    env.globals.update(tags=tags)
    return env


def readme_blocks(
    corpus: Corpus,
    stats: dict[str, Any],
    outcomes: list[Outcome],
    figures: list[Any],
    stress: dict[str, Any] | None = None,
) -> dict[str, str]:
    """The body of every generated README block, by name (*stress*: see :func:`masrl.analysis._claims.stress_display`)."""
    env = environment(corpus)
    tax: Taxonomy = corpus.taxonomy
    by_family: dict[str, list[Paper]] = {}
    for p in corpus.papers:
        by_family.setdefault(tax.family_of(p.reward_type), []).append(p)
    types_of: dict[str, list[str]] = {}
    for value in tax[v.REWARD_TYPE].values:
        types_of.setdefault(value.family or "", []).append(value.id)
    by_unit = {u: [p.key for p in corpus.papers if p.credit_unit == u] for u in tax.ids(v.CREDIT_UNIT)}
    context = {
        "s": stats,
        "tax": tax.fields,
        "outcomes": outcomes,
        "claims_total": len(outcomes),
        "claims_holding": sum(o.holds for o in outcomes),
        "stress": stress or {"views": [], "rows": [], "turning": 0},
        "types_of": types_of,
        "representatives": {f: representatives(by_family.get(f, [])) for f in tax.ids(v.REWARD_FAMILY)},
        "by_unit": by_unit,
        "groups": paper_groups(corpus),
        "figures": figures,
        "site_papers": SITE_PAPERS,
        "other_fields": [f for f in tax.tag_fields("paper") if f.name not in DEDICATED_FIELDS],
    }
    return {name: env.get_template(f"readme/{name}.md.j2").render(context).strip() + "\n" for name in BLOCKS}


def replace_blocks(text: str, blocks: dict[str, str], path: str = README) -> str:
    """*text* with the body of every marked block replaced; every block must be present."""
    found = {m.group("name") for m in _BLOCK.finditer(text)}
    missing = [name for name in blocks if name not in found]
    if missing:
        raise RenderError(
            f"{path} lacks the generated block{'s' if len(missing) > 1 else ''} {', '.join(missing)}; "
            f"add '<!-- BEGIN masrl:{missing[0]} -->' and '<!-- END masrl:{missing[0]} -->' lines where it belongs"
        )

    def swap(match: re.Match[str]) -> str:
        name = match.group("name")
        if name not in blocks:
            return match.group(0)
        return f"{match.group(1)}{blocks[name]}{match.group(4)}"

    return _BLOCK.sub(swap, text)
