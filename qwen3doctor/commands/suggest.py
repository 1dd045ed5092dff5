"""`qwen3doctor suggest`: a draft rule for a crash no rule explains."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import List, Optional

import typer

from ..errors import EXIT_FINDING, InputError
from .common import RULES_OPT, app, err, load_setup


@app.command(help="Draft a rule for a crash that no rule explains: its frames and message pattern come from the "
             "crash's fingerprint, and a redacted copy of the log becomes its first test. Exit 0: draft written; "
             "1: a rule already explains the crash; 2: usage error, unreadable log or no crash in it.")
def suggest(
    log: str = typer.Argument(..., help="The log with the unexplained crash (a file, .gz, or - for standard input)."),
    root: Path = typer.Option(Path("rules"), "--root", help="The rules folder to write into: <root>/<engine>/<id>.yaml."),
    rule_id: Optional[str] = typer.Option(None, "--id", help="The new rule's id (default: draft-<exception>-<frame>)."),
    engine: Optional[str] = typer.Option(None, "--engine", help="vllm, sglang or common (default: the log's engine)."),
    logs: Optional[Path] = typer.Option(None, "--logs", help="Where the log copy goes (default: examples/logs/<engine>/ beside the rules folder, else <root>/<engine>/logs/)."),
    print_only: bool = typer.Option(False, "--print", help="Print the draft instead of writing files (its test names the log where it is)."),
    anyway: bool = typer.Option(False, "--anyway", help="Draft a rule even when a rule already explains the crash."),
    force: bool = typer.Option(False, "--force", help="Read a file that looks binary."),
    rules: Optional[List[str]] = RULES_OPT,
) -> None:
    from ..judge.pipeline import diagnose_source
    from ..read.inputs import expand
    from ..tools.suggest import HUMAN_FIELDS, suggest as write_draft

    if engine and engine not in ("vllm", "sglang", "common"):
        raise InputError(f"--engine must be vllm, sglang or common, not {engine!r}")
    if rule_id is not None:
        from ..knowledge.catalog import ID

        if not ID.match(rule_id):
            raise InputError(f"--id {rule_id!r} is not a valid rule id (lowercase letters, digits, . _ -)")
    items = expand([log]).inputs
    if len(items) != 1:
        raise InputError(f"{log}: name one log file (it holds {len(items)} logs)")
    item = items[0]
    catalog = load_setup(rules, None)[0]
    src = item.open(force=force)
    try:
        report = diagnose_source(src, catalog)
    finally:
        src.close()
    if report.findings and not anyway:
        top = report.findings[0]
        err(f"{item.name}: already explained by {top.rule_id} ({', '.join((top.confidence,) + top.references[:1])}); "
             "nothing written (use --anyway to draft a rule regardless)")
        raise typer.Exit(EXIT_FINDING)
    written = write_draft(item, report, root=root, rule_id=rule_id, engine=engine, logs_dir=logs,
                          print_only=print_only, force=force)
    if print_only:
        sys.stdout.write(written.draft.text)
        return
    print(written.rule_path)
    err(f"draft rule {written.draft.rule_id} (fingerprint {written.draft.fingerprint.id}) written to {written.rule_path}")
    err(f"its first test: {written.log_path} (a redacted copy of {item.name})")
    err(f"left for you to fill: {', '.join(HUMAN_FIELDS)}; `rules lint` says now:")
    for problem in written.problems:
        err(f"  {problem}")
    err(f"then: qwen3doctor rules lint {written.rule_path} && qwen3doctor rules test {written.rule_path}")
