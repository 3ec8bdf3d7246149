"""HTTP for the living-corpus commands: one GET at a time, paced per service, retried, cached once read.

A :class:`Client` is opened by each command (``with Client(root / CACHE_DIR) as client``) and
every request goes through :meth:`Client.fetch`, which

* paces each service (arXiv's API terms ask for one request every 3 seconds; :data:`PACE_S`);
* retries 429, 502, 503 and 504 through urllib3's :class:`~urllib3.util.Retry` (mounted on a
  requests session), waiting as long as the service's ``Retry-After`` asks, else an exponential
  backoff; a wait longer than :data:`MAX_WAIT_S` is not taken, and the error then says when to run
  again;
* keeps answers in ``.masrl-cache/http.sqlite`` (requests-cache; ``api_key`` is left out of the key
  and of what is stored) for :data:`CACHE_DAYS` days, but only an answer the caller has *read*:
  ``fetch`` hands the answer to a ``read`` function that parses it and checks its root or keys, and
  stores it only when that succeeds. A truncated body, an HTML page or a spurious empty page is
  therefore never replayed by a later run;
* turns every failure into one line that carries the service's own text (arXiv's error entry,
  OpenAlex's ``message``, Crossref's plain-text 404, the title of an HTML page).

:func:`wait` is the one place that sleeps; tests replace it.
"""

from __future__ import annotations

import datetime as dt
import html
import json
import re
import shutil
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Any, Self, TypeVar

from urllib3 import BaseHTTPResponse
from urllib3.connectionpool import ConnectionPool
from urllib3.exceptions import MaxRetryError
from urllib3.util import Retry

CACHE_DIR = ".masrl-cache"
CACHE_FILE = "http"  # requests-cache's SQLite backend adds .sqlite
CACHE_DAYS = 7  # a weekly run asks afresh; reruns within the week cost no request
TIMEOUT_S = 30
MAX_BYTES = 20_000_000
USER_AGENT = "masrl (corpus tool; https://github.com/masrl)"
# Seconds between two requests to one service (arXiv's API terms ask for at least 3; DBLP asks
# for moderate use and answers 429 to bursts).
PACE_S = {"arxiv": 3.0, "openalex": 0.2, "crossref": 0.2, "dblp": 1.0}
RETRY_STATUSES = (429, 502, 503, 504)  # "slow down" and "briefly unavailable": worth another try
RETRIES = 4  # further tries after the first, per request
BACKOFF_S = 2.0  # waits 2, 4, 8 s between tries when the service gives no Retry-After
MAX_WAIT_S = 120.0  # a longer Retry-After is not waited for: the run stops and says when to rerun
ERROR_TEXT_MAX = 240  # characters of a service's error text kept in a message
# What to do about an answer, by (service, HTTP status).
HINTS = {("openalex", 401): "; OpenAlex may ask for a free API key: set MASRL_OPENALEX_KEY"}
CLEAR_HINT = f"run `masrl cache clear` to drop the answers kept in {CACHE_DIR}/"

T = TypeVar("T")
_last: dict[str, float] = {}


class NetworkError(Exception):
    """A service could not be reached or answered an error; the message is one line.

    *status* is the HTTP status (None when nothing was answered); *transient* says that running
    again later may succeed (a rate limit or an outage that outlasted the retries).
    """

    def __init__(self, message: str, status: int | None = None, *, transient: bool = False) -> None:
        super().__init__(message)
        self.status = status
        self.transient = transient


class SourceError(Exception):
    """A service answered something that cannot be read; the message is one line."""


@dataclass(frozen=True)
class Answer:
    """One answer as :meth:`Client.fetch` hands it to a reader."""

    url: str
    status: int
    content_type: str
    body: bytes
    from_cache: bool


def wait(seconds: float, why: str) -> None:
    """Sleep *seconds*, saying *why* on standard error when it is long enough to notice."""
    if seconds >= 1:
        import click

        click.echo(f"{why}; waiting {seconds:.0f} s", err=True)
    time.sleep(seconds)


class _Retry(Retry):
    """urllib3's Retry, bounded: a Retry-After beyond MAX_WAIT_S ends the tries at once, and every
    pause goes through :func:`wait` (so it is announced, and tests need not sleep)."""

    def increment(
        self,
        method: str | None = None,
        url: str | None = None,
        response: BaseHTTPResponse | None = None,
        error: Exception | None = None,
        _pool: ConnectionPool | None = None,
        _stacktrace: TracebackType | None = None,
    ) -> Self:
        after = self.get_retry_after(response) if response is not None else None
        if after is not None and after > MAX_WAIT_S:
            raise MaxRetryError(_pool, url or "", None)  # type: ignore[arg-type]  # urllib3 passes None too
        return super().increment(method, url, response, error, _pool, _stacktrace)

    def sleep(self, response: Any = None) -> None:
        after = self.get_retry_after(response) if response is not None else None
        pause = after if after is not None else max(self.get_backoff_time(), BACKOFF_S)
        status = getattr(response, "status", None)
        what = f"answered {status}" if status else "no answer"
        wait(min(pause, MAX_WAIT_S), f"{what} (try {len(self.history)} of {RETRIES + 1})")


def _retry() -> Retry:
    return _Retry(
        total=RETRIES,
        connect=2,
        read=2,
        status=RETRIES,
        other=0,
        redirect=5,
        allowed_methods=frozenset({"GET"}),
        status_forcelist=RETRY_STATUSES,
        backoff_factor=BACKOFF_S / 2,
        backoff_max=MAX_WAIT_S,
        respect_retry_after_header=True,
        raise_on_status=False,
    )


class Client:
    """A requests session with retries, and the answer cache under *cache* (None: no cache)."""

    def __init__(self, cache: Path | None) -> None:
        import requests
        from requests.adapters import HTTPAdapter

        self.cache = cache
        self.session: Any
        if cache is None:
            self.session = requests.Session()
        else:
            import requests_cache

            cache.mkdir(parents=True, exist_ok=True)
            self.session = requests_cache.CachedSession(
                str(cache / CACHE_FILE),
                backend="sqlite",
                expire_after=dt.timedelta(days=CACHE_DAYS),
                allowable_codes=(200,),
                ignored_parameters=["api_key"],
                read_only=True,  # nothing is stored until its reader accepts it: see fetch
                cache_control=False,
            )
        adapter = HTTPAdapter(max_retries=_retry())
        self.session.mount("http://", adapter)
        self.session.mount("https://", adapter)
        self.from_cache = 0  # answers served from the cache, for the summary line

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self.session.close()

    def fetch(
        self,
        url: str,
        service: str,
        read: Callable[[Answer], T],
        *,
        accept: str = "*/*",
        name: str | None = None,
        instead: str = "add candidates found by hand with `masrl discover --source manual --from FILE`",
        missing: Callable[[Answer], T] | None = None,
    ) -> T:
        """What *read* makes of the answer at *url*; the answer is cached only when *read* returns.

        *read* raises :class:`SourceError` for an answer of the wrong shape. A 404 goes to
        *missing* when given (the service does not know the thing), else it is an error like any
        other status. Messages call the service *name* (its key by default) and, when it cannot be
        reached, suggest checking the connection or doing *instead*.
        """
        import requests

        name = name or service
        shown = re.sub(r"([?&]api_key=)[^&]*", r"\1...", url)  # never print a key
        pause = PACE_S.get(service, 0.0) - (time.monotonic() - _last.get(service, -1e9))
        cached = self._cached(url)
        if pause > 0 and not cached:
            time.sleep(pause)
        try:
            response = self.session.get(url, headers={"User-Agent": USER_AGENT, "Accept": accept}, timeout=TIMEOUT_S)
            body: bytes = response.content
        except requests.exceptions.RetryError as exc:
            raise NetworkError(f"{name} kept failing for {shown} ({exc})", transient=True) from None
        except requests.exceptions.RequestException as exc:
            reason = _reason(exc)
            raise NetworkError(
                f"cannot reach {name} at {shown.split('?')[0]} ({reason}); check the connection, or {instead}",
                transient=True,
            ) from None
        finally:
            if not cached:
                _last[service] = time.monotonic()
        from_cache = bool(getattr(response, "from_cache", False))
        self.from_cache += from_cache
        if len(body) > MAX_BYTES:
            raise SourceError(f"{name} answered more than {MAX_BYTES:,} bytes for {shown}")
        answer = Answer(url, response.status_code, response.headers.get("Content-Type", ""), body, from_cache)
        if response.status_code == 404 and missing is not None:
            return missing(answer)
        if response.status_code != 200:
            raise _status_error(name, service, shown, response, answer)
        try:
            value = read(answer)
        except SourceError as exc:
            if from_cache:
                raise SourceError(f"{exc} (an answer kept from an earlier run: {CLEAR_HINT})") from None
            raise
        if not from_cache and self.cache is not None:
            self.session.cache.save_response(response, expires=dt.datetime.now(dt.UTC) + dt.timedelta(days=CACHE_DAYS))
        return value

    def _cached(self, url: str) -> bool:
        if self.cache is None:
            return False
        import requests

        request = self.session.prepare_request(requests.Request("GET", url))
        key = self.session.cache.create_key(request)
        response = self.session.cache.get_response(key)
        return response is not None and not response.is_expired


def _reason(exc: Exception) -> str:
    """The innermost reason of a requests exception, in a few words."""
    reason: Any = exc.args[0] if exc.args else exc
    reason = getattr(reason, "reason", reason)
    text = str(reason)
    match = re.search(r"\[Errno -?\d+\] [^')\]]+|Connection refused|timed out|Read timed out", text)
    return match.group(0) if match else text.split(": ", 1)[-1][:120]


def _status_error(name: str, service: str, shown: str, response: Any, answer: Answer) -> NetworkError:
    status = int(response.status_code)
    reason = str(response.reason or "").strip()
    said = service_text(answer)
    head = f"{name} answered {status}{' ' + reason if reason else ''} for {shown}"
    if said:
        head += f": {said}"
    hint = HINTS.get((service, status), "")
    if status in RETRY_STATUSES:
        tries = len(getattr(getattr(response.raw, "retries", None), "history", ()) or ()) + 1
        when = _rerun_time(response.headers.get("Retry-After"))
        rerun = f"run again after {when}" if when else "run again in a few minutes"
        return NetworkError(f"{head} (after {tries} tries); {rerun}{hint}", status, transient=True)
    return NetworkError(head + hint, status)


def _rerun_time(retry_after: str | None) -> str | None:
    """When a ``Retry-After`` header (seconds, or an HTTP date) says to come back, in UTC."""
    if not retry_after:
        return None
    value = retry_after.strip()
    now = dt.datetime.now(dt.UTC)
    if value.isdigit():
        then = now + dt.timedelta(seconds=int(value))
    else:
        import email.utils

        try:
            then = email.utils.parsedate_to_datetime(value)
        except (TypeError, ValueError):
            return None
        if then.tzinfo is None:
            then = then.replace(tzinfo=dt.UTC)
    return then.astimezone(dt.UTC).strftime("%Y-%m-%d %H:%M UTC")


def one_line(text: str, limit: int = ERROR_TEXT_MAX) -> str:
    """*text* on one line, cut to *limit* characters with an ellipsis."""
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


_TAG = re.compile(r"<[^>]*>")


def looks_like_html(answer: Answer) -> bool:
    """True when *answer* is a web page rather than data (a proxy's or an error page)."""
    head = answer.body[:512].lstrip(b"\xef\xbb\xbf \t\r\n").lower()
    return "html" in answer.content_type.lower() or head.startswith((b"<!doctype html", b"<html"))


def service_text(answer: Answer) -> str:
    """The service's own words in an error answer: a JSON message, an Atom error entry's summary,
    an HTML page's title, or the plain text; empty when there are none."""
    text = answer.body.decode("utf-8", "replace").strip()
    if not text:
        return ""
    if text.startswith(("{", "[")):
        try:
            data = json.loads(text)
        except ValueError:
            data = None
        if isinstance(data, dict):
            message = data.get("message")
            if isinstance(message, list):  # Crossref: [{"type": ..., "message": ...}]
                message = "; ".join(str(m.get("message", m)) if isinstance(m, dict) else str(m) for m in message)
            parts = [str(p) for p in (data.get("error"), message) if isinstance(p, str | int) and str(p).strip()]
            if parts:
                return one_line(": ".join(dict.fromkeys(parts)))
    if looks_like_html(answer):
        title = re.search(r"<title[^>]*>(.*?)</title>", text, re.S | re.I)
        body = title.group(1) if title else _TAG.sub(" ", re.sub(r"(?is)<(script|style).*?</\1>", " ", text))
        return one_line(html.unescape(body))
    if text.startswith("<"):
        summary = re.search(r"<summary[^>]*>(.*?)</summary>", text, re.S)
        if summary:
            return one_line(html.unescape(summary.group(1)))
        return one_line(html.unescape(_TAG.sub(" ", text)))
    return one_line(text)


def clear(cache: Path) -> tuple[int, int]:
    """Empty the cache folder *cache*; returns (files, bytes) removed."""
    files = size = 0
    if not cache.is_dir():
        return 0, 0
    for path in _walk(cache):
        files += 1
        size += path.stat().st_size
    shutil.rmtree(cache)
    return files, size


def _walk(folder: Path) -> Iterator[Path]:
    for path in sorted(folder.rglob("*")):
        if path.is_file():
            yield path
