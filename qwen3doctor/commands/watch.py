"""`qwen3doctor watch`: live mode on a server's output piped in."""

from __future__ import annotations

import sys
from typing import List, Optional

import typer

from ..errors import EXIT_USAGE, InputError
from .common import DISABLE_OPT, ENGINE_OPT, EXIT_CODES_HELP, MODEL_OPT, RULES_OPT, app, err, load_setup, options_of


@app.command(help="Live mode for a server's output piped in (vllm serve ... 2>&1 | qwen3doctor watch): passes it "
             "through unchanged, prints a diagnosis to stderr as soon as a crash's lines are complete, and a summary at "
             "the end of the input or on Ctrl-C. " + EXIT_CODES_HELP)
def watch(
    fail_on: Optional[str] = typer.Option(None, "--fail-on", help="any (default), known, high or never: see diagnose --help."),
    ignore: Optional[List[str]] = typer.Option(None, "--ignore", help="Accept a finding or crash (reference, rule id or fingerprint); repeatable."),
    settle: float = typer.Option(2.0, "--settle", help="Seconds after a crash's first line (or of quiet after it) before it is diagnosed; errors printed later refine the report, never postpone it."),
    redact: bool = typer.Option(False, "--redact", help="Redact secrets, e-mail addresses, home paths and prompts from the diagnoses (the passed-through output is never changed)."),
    engine: Optional[str] = ENGINE_OPT,
    model: Optional[str] = MODEL_OPT,
    rules: Optional[List[str]] = RULES_OPT,
    disable: Optional[List[str]] = DISABLE_OPT,
) -> None:
    from ..tools import watch as live
    from ..judge.pipeline import Overrides
    from ..read.reader import stdin_is_terminal
    from ..redact import Redactor
    from ..render.summary import verdict_line
    from ..judge.summary import IgnoreMatcher

    if stdin_is_terminal():
        print("usage: vllm serve ... 2>&1 | qwen3doctor watch [OPTIONS]", file=sys.stderr)
        raise typer.Exit(EXIT_USAGE)
    if settle <= 0:
        raise InputError(f"--settle must be a positive number of seconds, not {settle}")
    if engine and engine not in ("vllm", "sglang"):
        raise InputError(f"--engine must be vllm or sglang, not {engine!r}")
    catalog, settings = load_setup(rules, disable, fail_on=fail_on, ignore=ignore)
    watcher = live.Watcher(catalog, Overrides(options=options_of(engine, None, model, None, None, None)),
                           IgnoreMatcher(settings.ignore, catalog), settings.fail_on, settle)
    redactor = Redactor(hosts=settings.redact_hosts) if redact or settings.redact_hosts else None
    summary = live.run(watcher, live.stdin_stream(), sys.stdout.buffer, sys.stderr, redactor=redactor)
    outcome = summary.outcomes[0] if summary.outcomes else None
    what = "nothing to diagnose" if outcome is None or outcome.report is None else live.plain.headline(outcome.report)
    err(f"watch: {watcher.lines} lines read; {len(watcher.announced)} crash diagnosis(es) shown; at the end: {what}")
    if watcher.unread:
        err(f"note: {watcher.unread / (1 << 20):.0f} MiB of output were passed through without being read (the "
            "server logged faster than watch reads; what came last, where a crash is, was read)")
    if outcome is None or outcome.status in ("clean", "empty"):
        err("watch: the input ended without a crash. A server killed by a signal or the OOM killer prints none: "
            "its exit status tells (run the pipeline with `set -o pipefail` to keep it)")
    for note in summary.notes:
        err(f"note: {note}")
    err(verdict_line(summary))
    raise typer.Exit(summary.exit_code)
