"""Rich output for a terminal: the same sections as plain text, with colour and panels.

Drawn at the terminal's width (rich reads `COLUMNS`, else the size of the terminal on standard input, output
or error; 80 when there is none). Fix commands are printed below their finding's panel, never inside a
border, and with no line break inserted (rich's soft_wrap): the terminal folds a long command on screen, and
a copy gives it back as one line. Panel titles longer than the width end in an ellipsis."""

from __future__ import annotations

import io

from rich.console import Console, Group
from rich.padding import Padding
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from ..model import Report, Verdict
from .plain import RISKS_NOTE, RISKS_TITLE, crash_line, frame_name, headline, raised_with, shown_facts

STATE_STYLE = {"hit": ("✔", "green"), "miss": ("✘", "red"), "unknown": ("?", "yellow")}
CONF_STYLE = {"high": "bold green", "medium": "yellow", "low": "dim"}


def render(report: Report, width: int | None = None) -> str:
    buf = io.StringIO()
    console = Console(file=buf, force_terminal=True, width=width, highlight=False)
    style = {Verdict.FOUND: "bold", Verdict.UNEXPLAINED: "bold red", Verdict.CLEAN: "green", Verdict.NOTHING: "dim"}[report.verdict]
    console.print(Text(f"{report.source}", style="dim"))
    console.print(Text(headline(report), style=style))
    facts = report.environment.facts
    if facts:
        table = Table.grid(padding=(0, 2))
        for key in shown_facts(facts):
            table.add_row(Text(key, style="cyan"), str(facts[key].value), Text(facts[key].source, style="dim"))
        console.print(Panel(table, title="environment", title_align="left", border_style="dim"))
    crash = report.crash
    if crash is not None:
        body = Text(crash_line(crash), style="bold red")
        for line in raised_with(report):
            body.append(f"\nraised with: {line}", style="red")
        if crash.process:
            body.append(f"\nprocess {crash.process}, line {crash.line_no}", style="dim")
        if crash.during:
            body.append(f"\nwhile {crash.during}", style="dim")
        if crash.frames:
            body.append("\n" + " ← ".join(frame_name(f) for f in reversed(crash.frames[-4:])), style="magenta")
        console.print(Panel(body, title="crash", title_align="left", border_style="red"))
    for i, f in enumerate(report.findings, 1):
        parts = []
        head = Text()
        head.append(f"{f.confidence} confidence", style=CONF_STYLE[f.confidence])
        head.append(f"  score {f.score:.2f}  {f.status}  {', '.join(f.references)}  ({f.rule_id})", style="dim")
        parts.append(head)
        marks = Table.grid(padding=(0, 1))  # a wrapped sentence stays indented under its own text
        marks.add_column(no_wrap=True)
        marks.add_column()
        for ev in f.evidence:
            if ev.state == "unknown" and not ev.clause.startswith("match"):
                continue
            mark, colour = STATE_STYLE[ev.state]
            marks.add_row(Text(f" {mark}", style=colour), ev.text)
        for note in f.notes:
            marks.add_row(Text(" !", style="yellow"), Text(f"note: {note}", style="yellow"))
        parts.append(marks)
        console.print(Panel(Group(*parts), title=_title(f"{i}. {f.title}", console.width), title_align="left",
                            border_style="green" if f.confidence == "high" else "yellow"))
        for j, fix in enumerate(f.fixes, 1):
            line = Text.assemble((f"fix {j}: ", "bold"), fix.title)
            if fix.cost:
                line.append(f"  (cost: {fix.cost})", style="dim")
            console.print(Padding(line, (0, 0, 0, 2)))
            for command_line in (fix.command or "").splitlines():
                console.print(Text(f"    $ {command_line}", style="bold cyan"), soft_wrap=True)
    if report.risks:
        console.print(Text(f"{RISKS_TITLE} ({RISKS_NOTE})", style="bold"))
        for f in report.risks:
            console.print(Padding(Text(f"• {f.title}  [{', '.join((f.rule_id,) + tuple(f.references[:2]))}]"), (0, 0, 0, 1)))
    if report.next_steps:
        console.print(Text("Next steps", style="bold"))
        for s in report.next_steps:
            console.print(Padding(Text(f"• {s}"), (0, 0, 0, 1)))
    for w in report.warnings:
        console.print(Text(f"warning: {w}", style="yellow"))
    return buf.getvalue()


def _title(text: str, width: int) -> Text:
    """A panel title cut to the room between the corners, ending in an ellipsis."""
    title = Text(" ".join(text.split()))
    title.truncate(max(8, width - 6), overflow="ellipsis")
    return title


def render_many(reports: list[Report]) -> str:
    return "\n".join(render(r) for r in reports)
