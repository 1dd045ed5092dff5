"""The summary of a multi-log scan for people at a terminal (a rich table with counts and bars) or reading
plain text: one row per group (root cause, fingerprint, no crash, skipped), then the verdict."""

from __future__ import annotations

import io

from ..judge.fingerprint import FINGERPRINT_VERSION
from ..judge.summary import Group, Outcome, Summary

BAR_WIDTH = 24
MAX_NAMES = 3


def verdict_line(summary: Summary) -> str:
    code = summary.exit_code
    failing = sum(1 for o in summary.outcomes if summary.failing(o))
    what = {0: "passes", 1: "fails: a known root cause", 2: "fails: an input could not be read",
            3: "fails: a crash that no rule explains"}[code]
    return f"Verdict: exit {code} (--fail-on {summary.fail_on}): the build {what}" + (
        f" ({failing} of {len(summary.outcomes)} logs fail)" if code else "")


def fingerprint_note() -> str:
    return f"fingerprints: fp{FINGERPRINT_VERSION} (exception type + engine frames + masked final message)"


def _sources(g: Group) -> str:
    shown = ", ".join(g.sources[:MAX_NAMES])
    return shown + (f" (+{g.count - MAX_NAMES} more)" if g.count > MAX_NAMES else "")


def render_plain(summary: Summary) -> str:
    out = [f"== Summary: {summary.headline()}"]
    width = max((len(g.name) for g in summary.groups), default=8)
    for g in summary.groups:
        conf = "ignored" if g.kind == "ignored" else g.confidence or "-"
        out.append(f"  {g.count:>4}  {g.name:<{width}}  {conf:<7}  {g.title}")
        if g.reason:
            out.append(f"        {'':<{width}}  {'':<7}  ignored: {g.reason}")
        out.append(f"        {'':<{width}}  {'':<7}  {_sources(g)}")
    out += [verdict_line(summary)] + [f"note: {n}" for n in summary.notes] + [fingerprint_note()]
    return "\n".join(out) + "\n"


STYLE = {"finding": "bold red", "unexplained": "bold magenta", "ignored": "dim", "clean": "green", "empty": "dim",
         "skipped": "yellow", "unreadable": "bold yellow"}


def render_rich(summary: Summary, width: int | None = None) -> str:
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    buf = io.StringIO()
    console = Console(file=buf, force_terminal=True, width=width, highlight=False)  # None: the terminal's
    table = Table(title=summary.headline(), title_justify="left", show_edge=False, pad_edge=False, expand=False)
    table.add_column("logs", justify="right")
    table.add_column("", no_wrap=True)
    table.add_column("root cause", no_wrap=True)
    table.add_column("confidence")
    table.add_column("what broke / where", overflow="fold")
    top = max((g.count for g in summary.groups), default=1)
    bar_width = max(4, min(BAR_WIDTH, console.width // 10))  # leave the text column room on a narrow terminal
    for g in summary.groups:
        style = STYLE.get(g.kind, "")
        cells = max(1, round(bar_width * g.count / top))
        bar = Text("█" * cells, style=style)
        detail = Text(g.title)
        if g.reason:
            detail.append(f"\nignored: {g.reason}", style="dim")
        detail.append("\n" + _sources(g), style="dim")
        table.add_row(str(g.count), bar, Text(g.name, style=style), "ignored" if g.kind == "ignored" else g.confidence or "-", detail)
    console.print(table)
    colour = "green" if summary.exit_code == 0 else "bold red"
    console.print(Text(verdict_line(summary), style=colour))
    for n in summary.notes:
        console.print(Text(f"note: {n}", style="yellow"))
    console.print(Text(fingerprint_note(), style="dim"))
    return buf.getvalue()


def outcome_dict(o: Outcome) -> dict:
    """The engine's JSON object for one input (render/json.py, the contract), plus `fingerprint` (the
    primary crash's, or null) and `ignored` (null, or {ref, reason, origin} when it was silenced)."""
    from .json import report_dict

    doc = report_dict(o.report)
    doc["fingerprint"] = o.fingerprint.as_dict() if o.fingerprint is not None else None
    doc["ignored"] = None if o.ignored_by is None else {
        "ref": o.ignored_by.ref, "reason": o.ignored_by.reason, "origin": o.ignored_by.origin}
    return doc


def render_json(summary: Summary) -> str:
    """One object per input; several inputs give JSON Lines (inputs that could not be read have no object:
    they are reported on stderr)."""
    import json

    docs = [outcome_dict(o) for o in summary.outcomes if o.report is not None]
    if len(docs) == 1 and len(summary.outcomes) == 1:
        return json.dumps(docs[0], indent=2, ensure_ascii=False) + "\n"
    return "".join(json.dumps(d, ensure_ascii=False) + "\n" for d in docs)
