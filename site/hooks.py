"""MkDocs hooks for the masrl site.

Generated pages name the file a reader should edit in their front matter (``source:
papers/c3.yaml``); this hook points the page's edit and view buttons there instead of at the
generated Markdown. A generated page with no single source (statistics, the papers table) gets
no edit button at all: editing its Markdown would be overwritten by the next build.
"""

from __future__ import annotations

from typing import Any


def on_page_context(context: dict[str, Any], page: Any, config: Any, nav: Any) -> dict[str, Any]:
    source = page.meta.get("source")
    repo = (config.get("repo_url") or "").rstrip("/")
    if source and repo:
        page.edit_url = f"{repo}/edit/main/{source}"
    elif page.meta.get("generated"):
        page.edit_url = None
    return context
