"""Rich output for a terminal: the same sections as plain text, with colour and panels."""

from __future__ import annotations

import io

from rich.console import Console, Group
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from ..model import Report, Verdict
from .plain import ENV_ORDER, crash_line, headline

STATE_STYLE = {"hit": ("✔", "green"), "miss": ("✘", "red"), "unknown": ("?", "yellow")}
CONF_STYLE = {"high": "bold green", "medium": "yellow", "low": "dim"}


def render(report: Report, width: int | None = None) -> str:
    buf = io.StringIO()
    console = Console(file=buf, force_terminal=True, width=width or 110, highlight=False)
    style = {Verdict.FOUND: "bold", Verdict.UNEXPLAINED: "bold red", Verdict.CLEAN: "green", Verdict.NOTHING: "dim"}[report.verdict]
    console.print(Text(f"{report.source}", style="dim"))
    console.print(Text(headline(report), style=style))
    facts = report.environment.facts
    if facts:
        table = Table.grid(padding=(0, 2))
        for key in ENV_ORDER:
            if key in facts:
                table.add_row(Text(key, style="cyan"), str(facts[key].value), Text(facts[key].source, style="dim"))
        console.print(Panel(table, title="environment", title_align="left", border_style="dim"))
    crash = report.crash
    if crash is not None:
        body = Text(crash_line(crash), style="bold red")
        if crash.process:
            body.append(f"\nprocess {crash.process}, line {crash.line_no}", style="dim")
        if crash.frames:
            body.append("\n" + " ← ".join(f.function for f in reversed(crash.frames[-4:])), style="magenta")
        console.print(Panel(body, title="crash", title_align="left", border_style="red"))
    for i, f in enumerate(report.findings, 1):
        parts = []
        head = Text()
        head.append(f"{f.confidence} confidence", style=CONF_STYLE[f.confidence])
        head.append(f"  score {f.score:.2f}  {f.status}  {', '.join(f.references)}  ({f.rule_id})", style="dim")
        parts.append(head)
        for ev in f.evidence:
            if ev.state == "unknown" and not ev.clause.startswith("match"):
                continue
            mark, colour = STATE_STYLE[ev.state]
            parts.append(Text.assemble((f" {mark} ", colour), ev.text))
        for note in f.notes:
            parts.append(Text(f" note: {note}", style="yellow"))
        for j, fix in enumerate(f.fixes, 1):
            line = Text.assemble((f" fix {j}: ", "bold"), fix.title)
            if fix.cost:
                line.append(f"  (cost: {fix.cost})", style="dim")
            parts.append(line)
            if fix.command:
                parts.append(Text(f"   $ {fix.command}", style="bold cyan"))
        console.print(Panel(Group(*parts), title=f"{i}. {f.title}", title_align="left",
                            border_style="green" if f.confidence == "high" else "yellow"))
    if report.next_steps:
        console.print(Text("Next steps", style="bold"))
        for s in report.next_steps:
            console.print(Text(f" • {s}"))
    for w in report.warnings:
        console.print(Text(f"warning: {w}", style="yellow"))
    return buf.getvalue()


def render_many(reports: list[Report]) -> str:
    return "\n".join(render(r) for r in reports)
