"""Site sources for MkDocs: generated Markdown pages under site/docs/."""

from __future__ import annotations

from typing import Any


def render_site(analysis: Any, specs: list[Any]) -> dict[str, str]:
    return {}
