"""Checking that every URL in the records still answers.

Requests go out from a small thread pool, at most *per_host* at a time to any one host and no more
often than *interval* seconds per host, so a corpus full of arxiv.org links does not trip rate
limits. A request that times out or gets 429 or 5xx is retried with exponential backoff, honouring
``Retry-After``. HEAD comes first; servers that refuse HEAD get a GET.

A link is *dead* when the server says the page is gone (404, 410) or the host does not resolve or
refuses connections; *failing* when it still errs after every retry; *unverified* when the server
will not let a robot in (401, 403, or 429 to the end) — those are worth a human look, not an alarm.
"""

from __future__ import annotations

import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

USER_AGENT = "masrl-link-check/1 (+corpus maintenance; one request per link)"
OK, DEAD, FAILING, UNVERIFIED = "ok", "dead", "failing", "unverified"
_GONE = {404, 410}
_BLOCKED = {401, 403, 429}
_RETRY = {429, 500, 502, 503, 504}
_NO_HEAD = {403, 405, 501}
MAX_WAIT_S = 60.0  # longest Retry-After honoured


@dataclass(frozen=True)
class Outcome:
    url: str
    verdict: str
    detail: str
    attempts: int


class HostGate:
    """Per-host limits: at most *per_host* requests in flight and *interval* seconds between starts."""

    def __init__(self, per_host: int, interval: float, clock: Callable[[], float], sleep: Callable[[float], None]):
        self.per_host = per_host
        self.interval = interval
        self.clock = clock
        self.sleep = sleep
        self.lock = threading.Lock()
        self.slots: dict[str, threading.Semaphore] = {}
        self.next_start: dict[str, float] = {}

    def enter(self, host: str) -> None:
        with self.lock:
            slot = self.slots.setdefault(host, threading.Semaphore(self.per_host))
        slot.acquire()
        with self.lock:
            now = self.clock()
            start = max(now, self.next_start.get(host, now))
            self.next_start[host] = start + self.interval
        if start > now:
            self.sleep(start - now)

    def leave(self, host: str) -> None:
        self.slots[host].release()


def _request(url: str, method: str, timeout: float) -> tuple[int, str, Any]:
    request = urllib.request.Request(url, method=method, headers={"User-Agent": USER_AGENT, "Accept": "*/*"})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return response.status, response.reason, response.headers
    except urllib.error.HTTPError as exc:
        return exc.code, str(exc.reason), exc.headers


def check_one(
    url: str, *, gate: HostGate, retries: int, timeout: float, backoff: float, sleep: Callable[[float], None]
) -> Outcome:
    host = urllib.parse.urlsplit(url).hostname or ""
    method = "HEAD"
    attempts = 0
    failures = 0
    detail = ""
    while True:
        attempts += 1
        gate.enter(host)
        try:
            status, reason, headers = _request(url, method, timeout)
            error = ""
        except (urllib.error.URLError, TimeoutError, ConnectionError, OSError) as exc:
            status, reason, headers = 0, "", None
            error = str(getattr(exc, "reason", exc))
        finally:
            gate.leave(host)
        if error:
            if _unreachable(error):
                return Outcome(url, DEAD, f"host unreachable ({error})", attempts)
            detail, wait = f"no answer ({error})", backoff * 2**failures
        elif method == "HEAD" and status in _NO_HEAD:
            method = "GET"  # some servers refuse HEAD; ask properly before judging
            continue
        elif status < 400:
            return Outcome(url, OK, f"{status} {reason}", attempts)
        elif status in _GONE:
            return Outcome(url, DEAD, f"{status} {reason}", attempts)
        elif status not in _RETRY:
            return Outcome(url, UNVERIFIED if status in _BLOCKED else FAILING, f"{status} {reason}", attempts)
        else:
            detail, wait = f"{status} {reason}", _retry_after(headers, backoff * 2**failures)
        failures += 1
        if failures > retries:
            verdict = UNVERIFIED if detail.startswith("429") else FAILING
            return Outcome(url, verdict, f"{detail} after {attempts} attempts", attempts)
        sleep(min(wait, MAX_WAIT_S))


def _unreachable(reason: str) -> bool:
    text = reason.lower()
    return any(
        s in text
        for s in (
            "name or service not known",
            "nodename nor servname",
            "no address associated",
            "name resolution",
            "connection refused",
            "getaddrinfo failed",
        )
    )


def _retry_after(headers: Any, default: float) -> float:
    value = headers.get("Retry-After") if headers is not None else None
    if value and str(value).strip().isdigit():
        return float(str(value).strip())
    return default


def check_urls(
    urls: Iterable[str],
    *,
    concurrency: int = 8,
    per_host: int = 2,
    interval: float = 1.0,
    retries: int = 3,
    timeout: float = 15.0,
    backoff: float = 1.0,
    clock: Callable[[], float] = time.monotonic,
    sleep: Callable[[float], None] = time.sleep,
    progress: Callable[[Outcome], None] | None = None,
) -> dict[str, Outcome]:
    """Check every distinct URL; returns an outcome per URL."""
    gate = HostGate(per_host, interval, clock, sleep)
    unique = list(dict.fromkeys(urls))

    def run(url: str) -> Outcome:
        outcome = check_one(url, gate=gate, retries=retries, timeout=timeout, backoff=backoff, sleep=sleep)
        if progress:
            progress(outcome)
        return outcome

    with ThreadPoolExecutor(max_workers=max(1, concurrency)) as pool:
        return dict(zip(unique, pool.map(run, unique), strict=True))
