"""Shared helpers for the site tests: build a site with MkDocs, serve it, drive Chromium."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from masrl._browser import chromium_executable, launch_args, serve

__all__ = ["CHROMIUM_ARGS", "REPO", "copy_site_frame", "mkdocs_build", "require_browser", "serve"]

REPO = Path(__file__).resolve().parents[1]
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
