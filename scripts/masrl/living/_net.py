"""HTTP for the living-corpus commands: one GET at a time, paced per service, cached on disk.

Every answer is kept under ``.masrl-cache/`` in the corpus (ignored by git), keyed by its URL, so
running a command again costs no request. Services ask callers to slow down (arXiv: one request
every 3 seconds); :data:`PACE_S` holds each pause and tests set it to zero. Failures become
:class:`NetworkError` with a one-line message that says what to do.
"""

from __future__ import annotations

import hashlib
import re
import time
import urllib.error
import urllib.request
from pathlib import Path

from masrl.base._writer import write_if_changed

CACHE_DIR = ".masrl-cache"
TIMEOUT_S = 30
MAX_BYTES = 20_000_000
USER_AGENT = "masrl (corpus tool; https://github.com/masrl)"
# Seconds between two requests to one service (arXiv's API terms ask for at least 3).
PACE_S = {"arxiv": 3.0, "openalex": 0.2, "crossref": 0.2}
_last: dict[str, float] = {}
# What to do about an answer, by (service, HTTP status).
HINTS = {("openalex", 401): "; OpenAlex may ask for a free API key: set MASRL_OPENALEX_KEY"}


class NetworkError(Exception):
    """A service could not be reached or answered an error; the message is one line."""


def get(
    url: str,
    service: str,
    cache: Path | None,
    *,
    accept: str = "*/*",
    name: str | None = None,
    instead: str = "add candidates found by hand with `masrl discover --source manual --from FILE`",
) -> bytes:
    """The body at *url*, from *cache* (a folder) when it is there, else fetched and stored.

    Messages call the service *name* (its key by default) and, when it cannot be reached, suggest
    checking the connection or doing *instead*.
    """
    name = name or service
    path = cache / service / (hashlib.sha256(url.encode("utf-8")).hexdigest() + ".body") if cache else None
    if path is not None and path.is_file():
        return path.read_bytes()
    wait = PACE_S.get(service, 0.0) - (time.monotonic() - _last.get(service, -1e9))
    if wait > 0:
        time.sleep(wait)
    request = urllib.request.Request(url, headers={"User-Agent": USER_AGENT, "Accept": accept})
    try:
        with urllib.request.urlopen(request, timeout=TIMEOUT_S) as response:
            data: bytes = response.read(MAX_BYTES)
    except urllib.error.HTTPError as exc:
        exc.close()  # the error carries the open response
        shown = re.sub(r"([?&]api_key=)[^&]*", r"\1...", url)  # never print a key
        hint = HINTS.get((service, exc.code), "")
        raise NetworkError(f"{name} answered {exc.code} {exc.reason} for {shown}{hint}") from None
    except (urllib.error.URLError, TimeoutError, OSError) as exc:
        reason = getattr(exc, "reason", exc)
        raise NetworkError(
            f"cannot reach {name} at {url.split('?')[0]} ({reason}); check the connection, or {instead}"
        ) from None
    finally:
        _last[service] = time.monotonic()
    if path is not None:
        write_if_changed(path, data)
    return data
