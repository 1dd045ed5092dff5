"""A rule's card (`qwen3doctor explain`, `rules show`): its fixed fields, always in the same order."""

from __future__ import annotations

from .. import vocab
from ..knowledge.lookup import url_of
from ..model import Rule


def card(rule: Rule) -> dict:
    when = dict(rule.raw_when)
    return {
        "id": rule.id,
        "title": rule.title,
        "status": rule.status,
        "engines": list(rule.engines),
        "engine_versions": when.get("engine_version"),
        "families": list(rule.families),
        "libraries": list(rule.libraries),
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
    families = ["models other than Qwen3" if f == vocab.OTHER else f for f in c["families"]]
    out.append(f"Families:   {', '.join(families) or 'any model'}")
    if c["libraries"]:
        out.append(f"Libraries:  {', '.join(c['libraries'])}")
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


def _wrap(text: str, indent: str, width: int = 100) -> str:
    import textwrap

    return textwrap.fill(text, width=width, initial_indent=indent, subsequent_indent=indent)
