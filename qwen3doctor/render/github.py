"""`--format github`: workflow commands for a GitHub Actions step.

    ::add-mask::<secret>             every secret value found in the inputs, first, so nothing prints it later
    ::group::<log> — <headline>      each log's plain report, folded
    ::endgroup::
    ::error title=...::...           one annotation per root cause (group), never one per log

A group that fails the build under `--fail-on` is an `::error`; one that does not (an unexplained crash with
`--fail-on known`, a medium finding with `--fail-on high`) a `::warning`; an ignored one a `::notice`.
GitHub shows at most 10 annotations of each level per step, so past MAX_PER_LEVEL - 1 groups the rest of a
level are folded into one last annotation. Titles stay under MAX_TITLE characters and messages under
MAX_MESSAGE. The full markdown report goes to $GITHUB_STEP_SUMMARY (the CLI appends it).
"""

from __future__ import annotations

import hashlib

from ..knowledge.lookup import url_of
from ..judge.summary import Group, Summary
from . import plain

MAX_PER_LEVEL = 10
MAX_TITLE = 200
MAX_MESSAGE = 4000
MAX_LOGS_NAMED = 10


def escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def command(name: str, message: str, **props: str) -> str:
    args = ",".join(f"{k}={escape_property(v)}" for k, v in props.items() if v)
    return f"::{name}{' ' + args if args else ''}::{escape_data(message)}"


def _level(summary: Summary, g: Group) -> str:
    if g.kind == "ignored":
        return "notice"
    if g.kind in ("skipped",):
        return "warning"
    members = [o for o in summary.outcomes if o.source in set(g.sources) and o.status == g.kind]
    return "error" if any(summary.failing(o) for o in members) else "warning"


def _message(summary: Summary, g: Group) -> str:
    lines = []
    if g.kind in ("finding", "ignored") and g.reference:
        lines.append(g.title + (f" ({g.confidence} confidence)" if g.confidence else ""))
    elif g.fingerprint is not None:
        fp = g.fingerprint
        lines.append(f"A crash that no rule explains: {fp.exception_type}" + (f": {fp.template}" if fp.template else ""))
        if fp.frames:
            lines.append("Engine frames: " + " <- ".join(reversed(fp.frames)))
        lines.append(f"Fingerprint {fp.id}. Draft a rule: qwen3doctor suggest {g.sources[0]}")
    else:
        lines.append(g.title)
    if g.kind in ("unreadable", "skipped"):  # each log's reason: "logs/a.log: no such file", "... binary data ..."
        errors = [o.error for o in summary.outcomes if o.status == g.kind and o.error]
        lines += errors[:MAX_LOGS_NAMED] + ([f"and {len(errors) - MAX_LOGS_NAMED} more"] if len(errors) > MAX_LOGS_NAMED else [])
    if g.reason:
        lines.append(f"Ignored: {g.reason}")
    named = ", ".join(g.sources[:MAX_LOGS_NAMED]) + (f" and {g.count - MAX_LOGS_NAMED} more" if g.count > MAX_LOGS_NAMED else "")
    lines.append(f"Logs: {named}")
    if g.fix is not None:
        fix = f"Fix: {g.fix.title}" + (f" (cost: {g.fix.cost})" if g.fix.cost else "")
        lines.append(fix)
    if g.reference and g.kind in ("finding", "ignored"):
        lines.append(f"More: {url_of(g.reference)} · qwen3doctor explain {g.reference}")
    text = "\n".join(lines)
    return text if len(text) <= MAX_MESSAGE else text[: MAX_MESSAGE - 3] + "..."


def _title(g: Group) -> str:
    title = f"qwen3doctor: {g.label}"
    return title if len(title) <= MAX_TITLE else title[: MAX_TITLE - 3] + "..."


def annotations(summary: Summary) -> list[str]:
    by_level: dict[str, list[Group]] = {"error": [], "warning": [], "notice": []}
    for g in summary.groups:
        if g.kind in ("clean", "empty"):
            continue
        if g.kind == "unreadable":
            by_level["error"].append(g)
            continue
        by_level[_level(summary, g)].append(g)
    out = []
    for level, groups in by_level.items():
        shown = groups if len(groups) <= MAX_PER_LEVEL else groups[: MAX_PER_LEVEL - 1]
        for g in shown:
            out.append(command(level, _message(summary, g), title=_title(g)))
        rest = groups[len(shown):]
        if rest:
            body = "\n".join(f"{g.label}" for g in rest)
            out.append(command(level, body[:MAX_MESSAGE], title=f"qwen3doctor: {len(rest)} more groups (see the step summary)"))
    return out


def inert(text: str) -> list[str]:
    """Text from logs, shown as is: wrapped in ::stop-commands:: so a log line that starts with `::` cannot
    act as a workflow command. The token is derived from the text, so output stays reproducible."""
    token = "qwen3doctor-" + hashlib.sha256(text.encode("utf-8")).hexdigest()[:24]
    return [f"::stop-commands::{token}", text.rstrip("\n"), f"::{token}::"]


def render(summary: Summary) -> str:
    from .summary import render_plain

    out = [command("add-mask", s) for s in sorted(summary.secrets)]
    for o in summary.outcomes:
        if o.report is None:
            continue
        out.append(command("group", f"{o.source} — {plain.headline(o.report)}"[:MAX_TITLE]))
        body = plain.render(o.report)
        if o.fingerprint is not None:
            body += f"fingerprint: {o.fingerprint.id}\n"
        out += inert(body)
        out.append("::endgroup::")
    out += inert(render_plain(summary))
    out += annotations(summary)
    return "\n".join(out) + "\n"
