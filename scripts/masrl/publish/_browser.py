"""Headless Chromium for the site's tests and benchmarks: where it is, how to start it, a server.

The site is checked the way readers meet it: served over HTTP from loopback and driven in Debian's
``chromium`` through Playwright. Chromium's own background traffic (updates, sync, safe browsing)
is switched off, so every request a test sees comes from the page.
"""

from __future__ import annotations

import functools
import http.server
import shutil
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

LAUNCH_ARGS = (
    "--no-sandbox",  # CI runs as root, where Chromium's sandbox cannot start
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-default-apps",
)


def chromium_executable() -> str | None:
    """Path of the system Chromium, if installed."""
    for name in ("chromium", "chromium-browser"):
        found = shutil.which(name)
        if found:
            return found
    return None


def launch_args() -> list[str]:
    return list(LAUNCH_ARGS)


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        pass


@contextmanager
def serving(handler: Callable[..., http.server.BaseHTTPRequestHandler]) -> Iterator[http.server.ThreadingHTTPServer]:
    """An HTTP server on a free loopback port answering with *handler*, running in a thread for
    the duration of the block."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()


@contextmanager
def serve(folder: Path) -> Iterator[str]:
    """Serve *folder* on a free loopback port for the duration of the block; yields the base URL."""
    with serving(functools.partial(_QuietHandler, directory=str(folder))) as server:
        yield f"http://127.0.0.1:{server.server_address[1]}"
