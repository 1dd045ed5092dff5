"""`vllm#34948`, a GitHub URL, a rule id or alias -> the rules it names; a reference -> its issue URL."""

from __future__ import annotations

import difflib

import re

from .catalog import Catalog
from ..errors import UnknownKeyError
from ..model import Rule
from ..vocab import canonical_reference, full_repository, short_repository

_URL = re.compile(r"^(?:https?://)?(?:www\.)?github\.com/(?P<owner>[\w.-]+)/(?P<repo>[\w.-]+)/(?:issues|pull|discussions)/(?P<n>\d+)")


def normalise_key(key: str) -> str:
    key = key.strip()
    m = _URL.match(key)
    if m:
        repo = f"{m.group('owner')}/{m.group('repo')}"
        return f"{short_repository(repo)}#{m.group('n')}"
    m = re.match(r"^(?P<repo>[\w.-]+(?:/[\w.-]+)?)\s*#\s*(?P<n>\d+)$", key)
    if m:
        repo = m.group("repo")
        return f"{short_repository(repo)}#{m.group('n')}"
    return key


def find_rules(catalog: Catalog, key: str) -> list[Rule]:
    norm = normalise_key(key)
    rule = catalog.lookup(norm)
    if rule is not None:
        return [rule]
    ids = catalog.by_reference.get(norm.lower(), [])
    if not ids:
        want = canonical_reference(norm) if "#" in norm else None
        ids = sorted({i for ref, found in catalog.by_reference.items() if want and canonical_reference(ref) == want for i in found})
    if ids:
        # the rule the reference represents (its first reference) comes first
        return sorted((catalog.rules[i] for i in ids), key=lambda r: (canonical_reference(r.references[0]) != canonical_reference(norm), r.id))
    candidates = list(catalog.rules) + list(catalog.by_alias) + [r for r in catalog.by_reference]
    close = difflib.get_close_matches(norm, candidates, n=3, cutoff=0.6)
    hint = f" Did you mean: {', '.join(close)}?" if close else " Try `qwen3doctor rules list`."
    raise UnknownKeyError(f"no rule is known for {key!r}.{hint}")


def url_of(ref: str) -> str:
    repo, _, n = ref.partition("#")
    full = full_repository(repo)
    return f"https://github.com/{full}/issues/{n}"
