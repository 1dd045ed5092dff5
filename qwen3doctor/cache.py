"""The on-disk cache folder shared by the compiled rules and the prefilter database, and its pruning."""

from __future__ import annotations

import os
from pathlib import Path

CACHE_ENV = "QWEN3DOCTOR_NO_CACHE"  # set: nothing is read from or written to the cache
CACHE_KEEP = 8


def cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "qwen3doctor"


def prune(folder: Path, pattern: str, keep: int = CACHE_KEEP) -> None:
    """Keep the newest `keep` cache files of one kind."""
    try:
        old = sorted(folder.glob(pattern), key=lambda p: p.stat().st_mtime, reverse=True)
        for stale in old[keep:]:
            stale.unlink(missing_ok=True)
    except OSError:
        pass
