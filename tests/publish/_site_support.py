"""Shared helpers for the site tests: build a site with MkDocs, serve it, drive Chromium."""

from __future__ import annotations

import functools
import http.server
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

from masrl.publish._browser import chromium_executable, launch_args, serve, serving

__all__ = [
    "CHROMIUM_ARGS",
    "REPO",
    "Visit",
    "copy_site_frame",
    "mkdocs_build",
    "require_browser",
    "serve",
    "serve_like_pages",
]

REPO = Path(__file__).resolve().parents[2]
SITE_FILES = ("mkdocs.yml", "hooks.py", "overrides", "docs/assets", "docs/tags.md")
CHROMIUM_ARGS = launch_args()


def require_browser() -> str:
    """Chromium's path; skips the test when it is absent, unless CI demands it."""
    path = chromium_executable()
    if path is None:
        if os.environ.get("MASRL_REQUIRE_BROWSER") == "1":
            pytest.fail("chromium is required (MASRL_REQUIRE_BROWSER=1) but not installed")
        pytest.skip("Debian's chromium is not installed (apt-get install chromium)")
    return path


@contextmanager
def chromium() -> Iterator[Any]:
    """Debian's Chromium, launched headless through Playwright for the block (skips when absent)."""
    path = require_browser()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        instance = p.chromium.launch(executable_path=path, args=CHROMIUM_ARGS)
        yield instance
        instance.close()


class Visit:
    """A page plus everything it did: console errors, requests, dialogs."""

    def __init__(self, browser: Any, base: str, width: int = 1280, scheme: str = "light") -> None:
        """A new page *width* px wide for the site at *base*; *scheme* is the reader's colour-scheme
        preference ("light" or "dark"), which picks the site's default or slate palette."""
        self.page = browser.new_page(viewport={"width": width, "height": 900}, color_scheme=scheme)
        self.base = base
        self.errors: list[str] = []
        self.requests: list[str] = []
        self.dialogs: list[str] = []
        self.page.on("console", lambda m: self.errors.append(m.text) if m.type == "error" else None)
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))
        self.page.on("request", lambda r: self.requests.append(r.url))

        def dismiss(dialog: Any) -> None:
            self.dialogs.append(dialog.message)
            dialog.dismiss()

        self.page.on("dialog", dismiss)

    def go(self, path: str) -> Any:
        self.page.goto(self.base + path)
        self.page.wait_for_load_state("networkidle")
        return self.page

    def outside(self) -> list[str]:
        return [u for u in self.requests if urlsplit(u).hostname not in ("127.0.0.1", None)]

    def close(self) -> None:
        self.page.close()


def copy_site_frame(root: Path) -> None:
    """Copy the hand-written parts of the site (config, hooks, assets) into corpus *root*."""
    for rel in SITE_FILES:
        source, target = REPO / "site" / rel, root / "site" / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        if source.is_dir():
            shutil.copytree(source, target, dirs_exist_ok=True)
        else:
            shutil.copy(source, target)


def mkdocs_build(root: Path, out: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    return subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-f", str(root / "site" / "mkdocs.yml"), "-d", str(out)],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )


class _PagesHandler(http.server.SimpleHTTPRequestHandler):
    """Like a static host (GitHub Pages): a missing path gets the site's 404.html with status 404."""

    def send_error(self, code: int, message: str | None = None, explain: str | None = None) -> None:
        page = Path(self.directory) / self.server.prefix.strip("/") / "404.html"  # type: ignore[attr-defined]
        if code != 404 or not page.is_file():
            super().send_error(code, message, explain)
            return
        body = page.read_bytes()
        self.send_response(404)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:
        pass


@contextmanager
def serve_like_pages(site: Path, prefix: str, scratch: Path) -> Iterator[str]:
    """Serve *site* under the sub-path *prefix* (``/masrl/``) on loopback, with 404.html for missing
    paths; yields the base URL including the prefix. *scratch* holds the copy that adds the prefix."""
    root = scratch / "served"
    if not (root / prefix.strip("/")).exists():
        shutil.copytree(site, root / prefix.strip("/"))
    with serving(functools.partial(_PagesHandler, directory=str(root))) as server:
        server.prefix = prefix  # type: ignore[attr-defined]
        yield f"http://127.0.0.1:{server.server_address[1]}{prefix.rstrip('/')}"
