"""Settings read from the environment that more than one wing honours."""

from __future__ import annotations

import os


def caching_off() -> bool:
    """Whether ``MASRL_NO_CACHE`` switches every cache of masrl off (set, and not "0")."""
    return os.environ.get("MASRL_NO_CACHE", "") not in ("", "0")
