"""`vllm#34948`, a GitHub URL, a rule id or alias -> the rule's card, always in the same order."""

from __future__ import annotations

import difflib

import re

from .catalog import Catalog
from .errors import UnknownKeyError
from .model import Rule

_URL = re.compile(r"^(?:https?://)?(?:www\.)?github\.com/(?P<owner>[\w.-]+)/(?P<repo>[\w.-]+)/(?:issues|pull|discussions)/(?P<n>\d+)")
_SHORT = {"vllm-project/vllm": "vllm", "sgl-project/sglang": "sglang"}


def normalise_key(key: str) -> str:
    key = key.strip()
    m = _URL.match(key)
    if m:
        repo = f"{m.group('owner')}/{m.group('repo')}"
        return f"{_SHORT.get(repo.lower(), repo)}#{m.group('n')}"
    m = re.match(r"^(?P<repo>[\w.-]+(?:/[\w.-]+)?)\s*#\s*(?P<n>\d+)$", key)
    if m:
        repo = m.group("repo")
        return f"{_SHORT.get(repo.lower(), repo)}#{m.group('n')}"
    return key


def find_rules(catalog: Catalog, key: str) -> list[Rule]:
    norm = normalise_key(key)
    rule = catalog.lookup(norm)
    if rule is not None:
        return [rule]
    ids = catalog.by_reference.get(norm.lower(), [])
    if ids:
        # the rule the reference represents (its first reference) comes first
        return sorted((catalog.rules[i] for i in ids), key=lambda r: (r.references[0].lower() != norm.lower(), r.id))
    candidates = list(catalog.rules) + list(catalog.by_alias) + [r for r in catalog.by_reference]
    close = difflib.get_close_matches(norm, candidates, n=3, cutoff=0.6)
    hint = f" Did you mean: {', '.join(close)}?" if close else " Try `qwen3doctor rules list`."
    raise UnknownKeyError(f"no rule is known for {key!r}.{hint}")


def card(rule: Rule) -> dict:
    when = dict(rule.raw_when)
    return {
        "id": rule.id,
        "title": rule.title,
        "status": rule.status,
        "engines": list(rule.engines),
        "engine_versions": when.get("engine_version"),
        "families": list(rule.families),
        "symptoms": list(rule.symptoms),
        "cause": rule.cause,
        "fixes": [{"title": f.title, "command": f.command, "cost": f.cost} for f in rule.fixes],
        "fixed_in": rule.fixed_in,
        "references": list(rule.references),
        "aliases": list(rule.aliases),
        "conditions": when,
        "path": rule.path,
    }


def card_text(rule: Rule) -> str:
    c = card(rule)
    out = [f"{c['title']}", f"  id: {c['id']}" + (f" (also: {', '.join(c['aliases'])})" if c["aliases"] else ""), ""]
    out.append(f"Status:     {c['status']}")
    out.append(f"Engines:    {', '.join(c['engines'])}" + (f"  versions {c['engine_versions']}" if c["engine_versions"] else ""))
    out.append(f"Families:   {', '.join(c['families']) or 'any model'}")
    other = {k: v for k, v in c["conditions"].items() if k != "engine_version"}
    if other:
        out.append("Conditions: " + "; ".join(f"{k}: {v}" for k, v in other.items()))
    out.append("")
    if c["symptoms"]:
        out.append("Symptoms:")
        out += [f"  - {s}" for s in c["symptoms"]]
        out.append("")
    out.append("Cause:")
    out.append(_wrap(c["cause"], "  "))
    out.append("")
    out.append("Fixes:")
    for i, f in enumerate(c["fixes"], 1):
        out.append(f"  {i}. {f['title']}" + (f"  (cost: {f['cost']})" if f["cost"] else ""))
        if f["command"]:
            out.append(f"     $ {f['command']}")
    out.append("")
    fixed = c["fixed_in"] or {}
    out.append("Fixed in:   " + (", ".join(f"{k} {v}" for k, v in fixed.items()) if fixed else "not fixed in a release we know of"))
    out.append("References: " + ", ".join(f"{r} ({url_of(r)})" for r in c["references"]))
    return "\n".join(out) + "\n"


def url_of(ref: str) -> str:
    repo, _, n = ref.partition("#")
    full = {"vllm": "vllm-project/vllm", "sglang": "sgl-project/sglang"}.get(repo, repo)
    return f"https://github.com/{full}/issues/{n}"


def _wrap(text: str, indent: str, width: int = 100) -> str:
    import textwrap

    return textwrap.fill(text, width=width, initial_indent=indent, subsequent_indent=indent)
