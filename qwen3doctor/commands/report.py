"""`qwen3doctor report`: a Markdown bug report from a crash log."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import List, Optional

import typer

from ..errors import EXIT_USAGE, InputError
from .common import (
    DISABLE_OPT, ENGINE_OPT, ENGINE_VERSION_OPT, ENV_AUTO_OPT, ENV_FILE_OPT, GPU_OPT, MODEL_OPT, QUANT_OPT,
    RULES_OPT, app, load_setup, err, fill_layers, options_of, summary_line, write,
)


REPORT_HELP = (
    "Write a Markdown bug report for a vLLM or SGLang issue from a crash log: environment table, serve command, the "
    "crash trimmed to what matters, the diagnosis and related upstream issues, all redacted (tokens, keys, hosts, paths). "
    "Exit codes as diagnose: 1 a known cause found; 3 a crash that no rule explains; 0 no crash; 2 usage error or "
    "unreadable input."
)


@app.command("report", help=REPORT_HELP)
def report_cmd(
    log: str = typer.Argument(..., help="The crash log: a file, a .gz file, or '-' for standard input."),
    output: Optional[Path] = typer.Option(None, "--output", "-o", help="Write the Markdown to this file instead of standard output."),
    template: Optional[str] = typer.Option(None, "--template", help="vllm or sglang issue template (default: the log's engine)."),
    engine: Optional[str] = ENGINE_OPT,
    engine_version: Optional[str] = ENGINE_VERSION_OPT,
    model: Optional[str] = MODEL_OPT,
    quantization: Optional[str] = QUANT_OPT,
    gpu: Optional[str] = GPU_OPT,
    env: Optional[List[str]] = typer.Option(None, "--env", help="Any other fact as KEY=VALUE (repeatable)."),
    env_file: Optional[Path] = ENV_FILE_OPT,
    env_auto: bool = ENV_AUTO_OPT,
    rules: Optional[List[str]] = RULES_OPT,
    disable: Optional[List[str]] = DISABLE_OPT,
    force: bool = typer.Option(False, "--force", help="Read a file that looks binary."),
) -> None:
    import shutil
    import tempfile

    from ..judge.pipeline import Overrides, diagnose_scan, scan_source
    from ..read.reader import open_source, stdin_is_terminal
    from ..judge.summary import IgnoreMatcher, exit_code_of
    from ..tools.bugreport import TEMPLATES, numbered_lines, render, spans_of, template_for

    if template and template not in TEMPLATES:
        raise InputError(f"--template must be vllm or sglang, not {template!r}")
    if engine and engine not in ("vllm", "sglang"):
        raise InputError(f"--engine must be vllm or sglang, not {engine!r}")
    overrides = Overrides(options=options_of(engine, engine_version, model, quantization, gpu, env))
    fill_layers(overrides, env_file, env_auto)
    catalog, settings = load_setup(rules, disable)
    spool = None
    path = log
    if log == "-":  # read twice (diagnosis, then the crash lines): keep standard input in a temporary file
        if stdin_is_terminal():
            print("usage: qwen3doctor report [OPTIONS] LOG   (or - for standard input)", file=sys.stderr)
            raise typer.Exit(EXIT_USAGE)
        spool = tempfile.NamedTemporaryFile(prefix="qwen3doctor-", suffix=".log", delete=False)  # noqa: SIM115
        with spool:
            shutil.copyfileobj(sys.stdin.buffer, spool)
        path = spool.name
    try:
        src = open_source(path, force=force)
        try:
            scan = scan_source(src, catalog, overrides)
        finally:
            src.close()
        report = diagnose_scan(scan, catalog, log)
        text, _ = render(report, numbered_lines(path, spans_of(report)), template)
    finally:
        if spool is not None:
            os.unlink(spool.name)
    write(text, output)
    if output is not None:
        err(f"{output}: bug report written ({template_for(report, template)} issue template); read it once before you post")
    summary_line(report)
    raise typer.Exit(exit_code_of(report, settings.fail_on, IgnoreMatcher(settings.ignore, catalog)))
