"""One small module per output format, all behind `render(report) -> str` (or several reports)."""

from __future__ import annotations

from collections.abc import Callable

from ..model import Report

FORMATS = ("auto", "plain", "rich", "json")


def renderer(name: str) -> Callable[[list[Report]], str]:
    if name == "json":
        from .json import render_many
    elif name == "rich":
        from .terminal import render_many
    else:
        from .plain import render_many
    return render_many
