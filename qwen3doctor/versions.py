"""PEP 440 versions over `packaging`: messy version strings in, comparable versions and ranges out."""

from __future__ import annotations

from functools import lru_cache

import re
from packaging.version import InvalidVersion, Version

_FIND = re.compile(r"v?(\d+(?:\.\d+){1,3}(?:(?:rc|a|b|\.post|\.dev|post|dev)\d*)*(?:\.dev\d+)?(?:\+[\w.]+)?)")


def clean_version(text: str) -> str | None:
    """Pull the first PEP 440 version out of messy text: `v0.10.2`, `0.16.0rc2.dev294+g6a7b85d94 (git sha: ...)`,
    `0.15.2rc1.dev93+g11a4c9d30.cu128`, `0.5.3.post3`, `v0.5.3-cu129`. None when there is none."""
    m = _FIND.search(text)
    if not m:
        return None
    candidate = m.group(1)
    if re.match(r"0\.0\.0(?:\D|$)|0\.0\.dev|0\.1\.dev\d*(?:\+|$)", candidate):
        return None  # a source build's placeholder (`0.0.0+unknown`, `0.0.0.dev0`; setuptools-scm's `0.1.dev21460+g..` of a
        # fork cloned without tags): no version at all
    while candidate:
        try:
            Version(candidate)
            return candidate
        except InvalidVersion:
            # drop a trailing local segment piece or suffix and try again
            if "+" in candidate:
                candidate = candidate.rsplit(".", 1)[0] if "." in candidate.split("+", 1)[1] else candidate.split("+")[0]
            else:
                candidate = candidate[:-1]
    return None


@lru_cache(maxsize=4096)
def parse_version(text: str) -> Version | None:
    cleaned = clean_version(text)
    if cleaned is None:
        return None
    version = Version(cleaned)
    if version.release[:3] == (0, 0, 0):
        return None  # development builds that carry no release number (sglang 0.0.0.dev10016+g...)
    return version


def compile_range(spec: str) -> str:
    """Check a PEP 440 range (raises ValueError) and return it as written. Rules keep ranges as text and
    they are parsed on first use: `packaging.specifiers` alone is a noticeable part of a 10 KB diagnosis."""
    _specifier(spec)
    return spec


@lru_cache(maxsize=None)
def _specifier(spec: str):
    """The range with pre-releases on, so `0.16.0rc2.dev294` falls inside `>=0.16.0rc0`."""
    from packaging.specifiers import InvalidSpecifier, SpecifierSet

    try:
        return SpecifierSet(spec, prereleases=True)
    except InvalidSpecifier as exc:
        raise ValueError(f"not a PEP 440 version range: {spec!r}") from exc


def in_range(version: Version, spec: str) -> bool:
    # local tags (+cu130, +g6a7b85d94) never decide a range
    return _specifier(spec).contains(Version(version.public), prereleases=True)


def at_or_past(version: Version, fixed: str) -> bool:
    fixed_v = parse_version(fixed)
    return fixed_v is not None and Version(version.public) >= fixed_v


def bounded_above(spec: str) -> bool:
    """The range ends somewhere (`<0.13.0`, `>=0.5.7,<0.5.20`, `==0.10.1`, `~=0.5.3`), not open towards later
    releases (`>=0.17.0`, `!=0.10.0`). An empty or invalid range is not bounded."""
    try:
        specifiers = _specifier(spec) if spec else ()
    except ValueError:
        return False
    return any(s.operator in ("<", "<=", "==", "===", "~=") for s in specifiers)
