"""MkDocs hooks for the masrl site.

Generated pages name the file a reader should edit in their front matter (``source:
papers/c3.yaml``); this hook points the page's edit and view buttons there instead of at the
generated Markdown. A generated page with no single source (statistics, the papers table) gets
no edit button at all: editing its Markdown would be overwritten by the next build.

Every plain table of a page's content (a Markdown table, or a template's ``<table>`` without a
class) is wrapped in a region that scrolls it sideways when it is wider than the column. The
region takes keyboard focus, so the arrow keys scroll it, and is named after the heading above the
table, which a screen reader announces. Material's script later wraps the same tables in its own
scroll box; the site's stylesheet makes that inner box stop scrolling, so the region is the one
that does. Tables that carry a class (the papers table) bring their own scroll region.

The site's own scripts (docs/assets/*.js) are written to the built site without their comments and
spaces (rjsmin): the papers table's script is read on every visit to the papers page, whose weight
has a budget (`masrl bench`), and its comments are a third of it. The sources keep the comments.
"""

from __future__ import annotations

import html
import re
from pathlib import Path
from typing import Any

import rjsmin

# One pass over the content finds headings (for the name) and table tags (to wrap); Python-Markdown
# and the page templates write both in these plain forms, and never nest a table in a table.
_TOKEN = re.compile(r"<h([1-6])\b[^>]*>(?P<heading>.*?)</h\1>|<table(?P<attrs>\b[^>]*)>|</table>", re.S)
_PERMALINK = re.compile(r"<a\b[^>]*\bclass=\"headerlink\"[^>]*>.*?</a>", re.S)
_TAG = re.compile(r"<[^>]+>")


def _text(fragment: str) -> str:
    """The text of an HTML *fragment*, without its permalink, spaces collapsed."""
    text = html.unescape(_TAG.sub("", _PERMALINK.sub("", fragment)))
    return " ".join(text.split())


def wrap_tables(content: str, fallback: str) -> str:
    """*content* with each class-less table inside a focusable, named scroll region.

    The region's name is the text of the nearest heading above the table, or *fallback* (the
    page's title) when no heading comes before it.
    """
    out: list[str] = []
    name = fallback
    wrapped: list[bool] = []  # for each open table, whether its close tag closes a region too
    at = 0
    for token in _TOKEN.finditer(content):
        out.append(content[at : token.end()])
        at = token.end()
        if token.group("heading") is not None:
            name = _text(token.group("heading")) or name
        elif token.group(0) == "</table>":
            if wrapped and wrapped.pop():
                out.append("</div>")
        else:
            plain = token.group("attrs").strip() == ""
            wrapped.append(plain)
            if plain:
                region = f'<div class="masrl-region" role="region" tabindex="0" aria-label="{html.escape(name)}">'
                out[-1] = out[-1][: -len(token.group(0))] + region + token.group(0)
    out.append(content[at:])
    return "".join(out)


def on_page_content(content: str, page: Any, config: Any, files: Any) -> str:
    return wrap_tables(content, page.title or config.get("site_name") or "Table")


def on_page_context(context: dict[str, Any], page: Any, config: Any, nav: Any) -> dict[str, Any]:
    source = page.meta.get("source")
    repo = (config.get("repo_url") or "").rstrip("/")
    if source and repo:
        page.edit_url = f"{repo}/edit/main/{source}"
    elif page.meta.get("generated"):
        page.edit_url = None
    return context


ASSET_SCRIPTS = "assets/*.js"  # the site's own scripts, under docs/ and, once built, under site_dir


def minify_scripts(site_dir: Path) -> list[Path]:
    """Rewrite each of the site's own scripts under *site_dir* without comments and spare spaces;
    return the files rewritten."""
    done = []
    for path in sorted(site_dir.glob(ASSET_SCRIPTS)):
        path.write_text(rjsmin.jsmin(path.read_text("utf-8")), "utf-8")
        done.append(path)
    return done


def on_post_build(config: Any) -> None:
    minify_scripts(Path(config["site_dir"]))
