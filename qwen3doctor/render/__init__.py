"""One small module per output format, all behind `render(report) -> str` (or several reports), and
`render_summary(format, summary)` for a run over several inputs (summary.Summary)."""

from __future__ import annotations

from collections.abc import Callable

from ..model import Report

FORMATS = ("auto", "plain", "rich", "json", "github", "markdown", "junit")
SHARED_FORMATS = ("github", "markdown", "junit")  # meant to be shared: always redacted


def renderer(name: str) -> Callable[[list[Report]], str]:
    if name == "json":
        from .json import render_many
    elif name == "rich":
        from .terminal import render_many
    else:
        from .plain import render_many
    return render_many


def render_summary(name: str, summary) -> str:
    """Several inputs at once (summary.Summary): the per-input reports and, for more than one input, the
    grouped summary. plain / rich / json for one input are exactly the single-report output."""
    multi = len(summary.outcomes) > 1 or len(summary.reports) != len(summary.outcomes)
    if name == "github":
        from .github import render
    elif name == "markdown":
        from .markdown import render
    elif name == "junit":
        from .junit import render
    elif name == "json":
        from .summary import render_json as render
    else:
        from .summary import render_plain, render_rich

        reports = renderer(name)(summary.reports) if summary.reports else ""
        if not multi and not summary.notes and not summary.count("ignored"):
            fp = summary.outcomes[0].fingerprint if summary.outcomes else None
            if fp is not None and summary.outcomes[0].status == "unexplained":  # the handle to group or --ignore it
                reports = reports.rstrip("\n") + f"\nfingerprint: {fp.id} (qwen3doctor suggest drafts a rule for it)\n"
            return reports
        tail = render_rich(summary) if name == "rich" else render_plain(summary)
        return (reports.rstrip("\n") + "\n\n" if reports else "") + tail
    return render(summary)
