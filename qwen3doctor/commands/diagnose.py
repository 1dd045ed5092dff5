"""`qwen3doctor diagnose`: one or many logs, rendered in the chosen format, the exit code from the policy."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import List, Optional

import typer

from ..errors import EXIT_USAGE, InputError
from .common import (
    DISABLE_OPT, ENGINE_OPT, ENGINE_VERSION_OPT, ENV_AUTO_OPT, ENV_FILE_OPT, EXIT_CODES_HELP, FORMAT_OPT,
    GPU_OPT, MODEL_OPT, QUANT_OPT, RULES_OPT, SKIP_BAD_OPT, app, err, fill_layers, load_setup, options_of, pick_format,
    summary_line, write,
)


@app.command(help="Diagnose crash logs: files, .gz files, folders (*.log, *.txt, *.gz, *.zip), globs, GitHub Actions log "
             "archives (.zip), '-' or a pipe. Several are diagnosed in parallel and summed up by root cause. "
             + EXIT_CODES_HELP + " --fail-on narrows what fails.")
def diagnose(
    files: Optional[List[str]] = typer.Argument(None, help="Log files, folders, globs or .zip archives ('-' for standard input). With none, read the pipe."),
    fmt: str = FORMAT_OPT,
    engine: Optional[str] = ENGINE_OPT,
    engine_version: Optional[str] = ENGINE_VERSION_OPT,
    model: Optional[str] = MODEL_OPT,
    quantization: Optional[str] = QUANT_OPT,
    gpu: Optional[str] = GPU_OPT,
    env: Optional[List[str]] = typer.Option(None, "--env", help="Any other fact as KEY=VALUE (repeatable), e.g. torch=2.9.1."),
    env_file: Optional[Path] = ENV_FILE_OPT,
    env_auto: bool = ENV_AUTO_OPT,
    rules: Optional[List[str]] = RULES_OPT,
    disable: Optional[List[str]] = DISABLE_OPT,
    why: Optional[str] = typer.Option(None, "--why", help="Show every clause of this rule, hit / miss / unknown, to see why it did (not) match."),
    force: bool = typer.Option(False, "--force", help="Read files that look binary."),
    skip_bad_rules: bool = SKIP_BAD_OPT,
    output: Optional[Path] = typer.Option(None, "--output", "-o", help="Write the report to this file instead of standard output."),
    fail_on: Optional[str] = typer.Option(None, "--fail-on", help="What fails (exit non-zero): any (default: findings exit 1, unexplained crashes 3), known (findings only), high (high-confidence findings only), never."),
    ignore: Optional[List[str]] = typer.Option(None, "--ignore", help="Accept a finding or crash: a reference (vllm#34948), rule id or fingerprint (fp1-...); repeatable; also QWEN3DOCTOR_IGNORE and [tool.qwen3doctor] ignore. Ignored ones are listed, never fail."),
    jobs: Optional[int] = typer.Option(None, "--jobs", "-j", help="Inputs diagnosed in parallel (default: the CPU count)."),
    redact: bool = typer.Option(False, "--redact", help="Redact secrets, e-mail addresses, home paths and prompts from the output (always on for github, markdown, junit)."),
    redact_hosts: bool = typer.Option(False, "--redact-hosts", help="Redact host names and IP addresses too (implies --redact)."),
) -> None:
    from ..judge.pipeline import Overrides
    from ..read.reader import stdin_is_terminal
    from ..render import FORMATS

    if fmt not in FORMATS:
        raise InputError(f"unknown format {fmt!r} ({', '.join(FORMATS)})")
    if engine and engine not in ("vllm", "sglang"):
        raise InputError(f"--engine must be vllm or sglang, not {engine!r}")
    if not files:
        if stdin_is_terminal():
            print("usage: qwen3doctor diagnose [OPTIONS] [FILES]...   (or pipe a log in: ... 2>&1 | qwen3doctor diagnose)", file=sys.stderr)
            raise typer.Exit(EXIT_USAGE)
        files = ["-"]
    from ..read.inputs import expand

    catalog, settings = load_setup(rules, disable, skip_bad_rules, fail_on=fail_on, ignore=ignore, jobs=jobs,
                                   redact_hosts=redact_hosts)
    overrides = Overrides(options=options_of(engine, engine_version, model, quantization, gpu, env))
    fill_layers(overrides, env_file, env_auto)
    if why and catalog.lookup(why) is None:
        from ..knowledge.lookup import find_rules

        found = find_rules(catalog, why)
        why = found[0].id
    expansion = expand(files)
    for w in expansion.warnings:
        err(f"warning: {w}")
    if why:
        raise typer.Exit(_why(expansion, catalog, overrides, settings, catalog.lookup(why), fmt, output, force))
    raise typer.Exit(_diagnose_many(expansion, catalog, overrides, settings, pick_format(fmt, output), output, force, redact))


def _diagnose_many(expansion, catalog, overrides, settings, chosen: str, output: Path | None, force: bool, redact: bool) -> int:
    """Diagnose every input (in parallel), render, write, and return the exit code the policy decides."""
    from ..judge import batch
    from ..render import SHARED_FORMATS, render_summary
    from ..judge.summary import IgnoreMatcher

    options = batch.Options(
        overrides=overrides, jobs=settings.jobs, force=force, fail_on=settings.fail_on,
        ignores=IgnoreMatcher(settings.ignore, catalog), redact=redact or settings.redact_hosts or chosen in SHARED_FORMATS,
        redact_hosts=settings.redact_hosts, secrets=chosen == "github",
    )
    summary = batch.run(expansion.inputs, catalog, options, warnings=expansion.warnings)
    if summary.reports or chosen in ("github", "markdown", "junit"):
        write(render_summary(chosen, summary), output)
    step_summary = os.environ.get("GITHUB_STEP_SUMMARY")
    if chosen == "github" and step_summary:
        from ..render.markdown import render as markdown, step_summary_room

        try:
            room = step_summary_room(step_summary) - 1  # the blank line after the report
            if room < 2000:
                err("warning: GITHUB_STEP_SUMMARY is already at GitHub's 1 MiB limit; the report is not added to it")
            else:
                with open(step_summary, "a", encoding="utf-8") as fh:
                    fh.write(markdown(summary, limit=room) + "\n")
        except OSError as exc:
            err(f"warning: cannot append to GITHUB_STEP_SUMMARY ({exc.strerror or exc})")
    return _tell(summary)


def _why(expansion, catalog, overrides, settings, rule, fmt: str, output: Path | None, force: bool) -> int:
    """--why: every clause of one rule on each input, written where the report would go; the inputs are
    diagnosed and decided by the same policy (--fail-on, --ignore, settings) as without it."""
    from ..judge.fingerprint import of_report
    from ..judge.pipeline import diagnose_scan, scan_source, why_of
    from ..judge.summary import IgnoreMatcher, failed_input, outcome_of, summarize
    from ..render.why import render_why

    ignores = IgnoreMatcher(settings.ignore, catalog)
    outcomes, texts = [], []
    for item in expansion.inputs:
        try:
            src = item.open(force=force)
        except InputError as exc:
            outcomes.append(failed_input(item, str(exc)))
            continue
        try:
            scan = scan_source(src, catalog, overrides)
        finally:
            src.close()
        report = diagnose_scan(scan, catalog, item.name)
        outcomes.append(outcome_of(item, report, of_report(report), ignores))
        texts.append(render_why(rule, *why_of(rule, scan, catalog, report), fmt))
    if texts:
        write("".join(texts), output)
    return _tell(summarize(outcomes, settings.fail_on, warnings=expansion.warnings, ignores=ignores))


def _tell(summary) -> int:
    """One line per input on stderr, the policy's notes, and the exit code it decided."""
    for o in summary.outcomes:
        if o.report is not None:
            summary_line(o.report)
            if o.ignored_by is not None:
                err(f"{o.source}: ignored ({o.ignored_by.ref}{': ' + o.ignored_by.reason if o.ignored_by.reason else ''})")
        elif o.status == "unreadable":
            err(o.error or f"{o.source}: cannot read")
        else:
            err(f"warning: skipped: {o.error}")
    for note in summary.notes:
        err(f"note: {note}")
    if len(summary.outcomes) > 1:
        err(f"{summary.headline()} -> exit {summary.exit_code} (--fail-on {summary.fail_on})")
    return summary.exit_code
