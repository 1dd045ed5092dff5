"""Literal anchors: the plain strings a pattern cannot match without, and the one place patterns are compiled.

A rule's regexes run only on text where one of its anchors occurs (the prefilter), and every pattern is
compiled once per process, on first use.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import regex

from ..read.literals import backticks_optional, gate_of

# What a clause kind's pattern is wrapped in before compiling.
WRAP = {
    "frames": "(?:{})",
    "exception": r"(?:(?:\w+\.|.*::)*)(?:{})",
    "message": "{}",
    "log": "{}",
    "plain": "{}",
}


@lru_cache(maxsize=None)
def compile_pattern(kind: str, source: str) -> Any:
    """Compile a rule pattern; raises regex.error (and friends) for an invalid one."""
    return regex.compile(WRAP[kind].format(backticks_optional(source)))


def literal_anchors(source: str) -> tuple[tuple[str, bool], ...] | None:
    """The literals one of which must occur for `source` to match: of each branch, the longest that ordinary
    traffic does not hold (the prefilter drops an anchor found in a request line, so `SM:` anchors
    `SM:\\s*12\\.\\d` rather than `12.`, which every IP address holds), or the longest when all of them are."""
    from ..read.scanner import is_noise  # (the scanner's list of a healthy server's lines)

    gate = gate_of(source)
    if gate is None:
        return None
    return tuple(sorted({(next((lit for lit in lits if not is_noise((lit, caseless))), lits[0]), caseless)
                         for lits, caseless in gate}))
