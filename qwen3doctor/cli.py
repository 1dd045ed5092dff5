"""The typer app: options in, the core called, a renderer picked, the exit code set. No logic here.

Exit codes: 0 no crash found; 1 at least one finding; 2 usage error, unreadable input or invalid rules;
3 a crash that no rule explains. Over several inputs: 2 if an input named on the command line could not
be read, else 1 if any finding, else 3 if any unexplained crash, else 0.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import List, Optional

import typer

from . import __version__
from .errors import EXIT_CLEAN, EXIT_FINDING, EXIT_UNEXPLAINED, EXIT_USAGE, InputError, Qwen3DoctorError, RuleError

EXIT_CODES_HELP = (
    "Exit codes: 0 no crash found; 1 at least one finding; 3 a crash that no rule explains; "
    "2 usage error, unreadable input or invalid rules."
)

app = typer.Typer(
    add_completion=False,
    no_args_is_help=True,
    rich_markup_mode=None,
    help="Read a vLLM or SGLang crash log and rank what most likely broke, with the evidence and the fix. "
    + EXIT_CODES_HELP,
    context_settings={"help_option_names": ["-h", "--help"]},
)
rules_app = typer.Typer(add_completion=False, no_args_is_help=True, help="List, show, lint, test and scaffold rules.")
app.add_typer(rules_app, name="rules")


def _err(message: str) -> None:
    print(f"qwen3doctor: {message}", file=sys.stderr)


def _version(value: bool) -> None:
    if value:
        print(f"qwen3doctor {__version__}")
        raise typer.Exit(EXIT_CLEAN)


@app.callback()
def _main(
    version: bool = typer.Option(False, "--version", callback=_version, is_eager=True, help="Show the version and exit."),
) -> None:
    pass


def _catalog(rules: list[str] | None, disable: list[str] | None, skip_bad: bool = False):
    from .catalog import load_catalog, rule_dirs

    catalog = load_catalog(rule_dirs(rules), disable=disable, strict=not skip_bad)
    for w in catalog.warnings:
        _err(f"warning: skipped: {w}")
    return catalog


OUTPUT_SUFFIX_FORMATS = {".md": "markdown", ".xml": "junit", ".json": "json", ".jsonl": "json", ".txt": "plain", ".log": "plain"}


def _pick_format(fmt: str, output: Path | None = None) -> str:
    if fmt != "auto":
        return fmt
    if output is not None and output.suffix.lower() in OUTPUT_SUFFIX_FORMATS:
        return OUTPUT_SUFFIX_FORMATS[output.suffix.lower()]
    if os.environ.get("GITHUB_ACTIONS") == "true":
        return "github"
    if output is not None or os.environ.get("NO_COLOR") or not sys.stdout.isatty():
        return "plain"
    return "rich"


FORMAT_OPT = typer.Option(
    "auto", "--format", "-f",
    help="auto, plain, rich, json, github, markdown, junit. auto: github inside GitHub Actions, rich on a terminal, "
    "plain otherwise or with NO_COLOR (with --output: from the file's suffix, .md .xml .json).",
)
ENGINE_OPT = typer.Option(None, "--engine", help="vllm or sglang, when the log does not say.")
ENGINE_VERSION_OPT = typer.Option(None, "--engine-version", help="Engine version, e.g. 0.16.0rc2.")
MODEL_OPT = typer.Option(None, "--model", help="Model id or path.")
QUANT_OPT = typer.Option(None, "--quantization", help="fp8, fp8-block, gptq-int4, awq, ... or an engine method name.")
GPU_OPT = typer.Option(None, "--gpu", help="GPU name, e.g. 'NVIDIA H200'.")
RULES_OPT = typer.Option(None, "--rules", help="Extra rule folder or file (repeatable; also QWEN3DOCTOR_RULES). A rule with a bundled id replaces it.")
DISABLE_OPT = typer.Option(None, "--disable", help="Rule id to switch off (repeatable).")
SKIP_BAD_OPT = typer.Option(False, "--skip-bad-rules", help="Skip invalid rule files with a warning instead of refusing to run (exit 2).")
ENV_FILE_OPT = typer.Option(
    None, "--env-file",
    help="A saved environment listing: `vllm collect-env` (any generation), `python -m sglang.check_env`, `pip list` / "
    "`pip freeze`, `nvidia-smi`, or `qwen3doctor env --save` output. Below options, above the log.",
)
ENV_AUTO_OPT = typer.Option(
    False, "--env-auto",
    help="Fill in what the log does not say from this machine (`qwen3doctor env`): the lowest precedence, conflicts shown.",
)


@app.command(help="Diagnose crash logs: files, .gz files, folders (*.log, *.txt, *.gz), globs, GitHub Actions log "
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
    from .diagnose import Overrides, diagnose_scan, scan_source
    from .reader import stdin_is_terminal
    from .render import FORMATS

    if fmt not in FORMATS:
        raise InputError(f"unknown format {fmt!r} ({', '.join(FORMATS)})")
    if engine and engine not in ("vllm", "sglang"):
        raise InputError(f"--engine must be vllm or sglang, not {engine!r}")
    if not files:
        if stdin_is_terminal():
            ctx = typer.Context  # noqa: F841
            print("usage: qwen3doctor diagnose [OPTIONS] [FILES]...   (or pipe a log in: ... 2>&1 | qwen3doctor diagnose)", file=sys.stderr)
            raise typer.Exit(EXIT_USAGE)
        files = ["-"]
    from . import config as cfg
    from .inputs import expand

    settings = cfg.resolve(cfg.load(), fail_on=fail_on, ignore=ignore, jobs=jobs, redact_hosts=redact_hosts)
    catalog = _catalog((rules or []) + settings.rules, (disable or []) + settings.disable, skip_bad_rules)
    overrides = Overrides(options=_options(engine, engine_version, model, quantization, gpu, env))
    _layers(overrides, env_file, env_auto)
    if why and catalog.lookup(why) is None:
        from .explain import find_rules

        found = find_rules(catalog, why)
        why = found[0].id
    expansion = expand(files)
    for w in expansion.warnings:
        _err(f"warning: {w}")
    if why:
        reports, unreadable = [], False
        for item in expansion.inputs:
            try:
                src = item.open(force=force)
            except InputError as exc:
                _err(str(exc) if item.explicit else f"warning: skipped: {exc}")
                unreadable = unreadable or item.explicit
                continue
            try:
                scan = scan_source(src, catalog, overrides)
            finally:
                src.close()
            reports.append(diagnose_scan(scan, catalog, item.name))
            _print_why(catalog.lookup(why), scan, fmt)
        for r in reports:
            _summary(r)
        raise typer.Exit(_exit_code(reports, unreadable))
    raise typer.Exit(_diagnose_many(expansion, catalog, overrides, settings, _pick_format(fmt, output), output, force, redact))


def _diagnose_many(expansion, catalog, overrides, settings, chosen: str, output: Path | None, force: bool, redact: bool) -> int:
    """Diagnose every input (in parallel), render, write, and return the exit code the policy decides."""
    from . import batch
    from .render import SHARED_FORMATS, render_summary
    from .summary import IgnoreMatcher

    options = batch.Options(
        overrides=overrides, jobs=settings.jobs, force=force, fail_on=settings.fail_on,
        ignores=IgnoreMatcher(settings.ignore, catalog), redact=redact or settings.redact_hosts or chosen in SHARED_FORMATS,
        redact_hosts=settings.redact_hosts, secrets=chosen == "github",
    )
    summary = batch.run(expansion.inputs, catalog, options, warnings=expansion.warnings)
    if summary.reports or chosen in ("github", "markdown", "junit"):
        _write(render_summary(chosen, summary), output)
    step_summary = os.environ.get("GITHUB_STEP_SUMMARY")
    if chosen == "github" and step_summary:
        from .render.markdown import STEP_SUMMARY_LIMIT, render as markdown

        try:
            with open(step_summary, "a", encoding="utf-8") as fh:
                fh.write(markdown(summary, limit=STEP_SUMMARY_LIMIT) + "\n")
        except OSError as exc:
            _err(f"warning: cannot append to GITHUB_STEP_SUMMARY ({exc.strerror or exc})")
    for o in summary.outcomes:
        if o.report is not None:
            _summary(o.report)
            if o.ignored_by is not None:
                _err(f"{o.source}: ignored ({o.ignored_by.ref}{': ' + o.ignored_by.reason if o.ignored_by.reason else ''})")
        elif o.status == "unreadable":
            _err(o.error or f"{o.source}: cannot read")
        else:
            _err(f"warning: skipped: {o.error}")
    for note in summary.notes:
        _err(f"note: {note}")
    if len(summary.outcomes) > 1:
        _err(f"{summary.headline()} -> exit {summary.exit_code} (--fail-on {summary.fail_on})")
    return summary.exit_code


def _write(text: str, output: Path | None) -> None:
    text = text if text.endswith("\n") else text + "\n"
    if output is None:
        sys.stdout.write(text)
        return
    try:
        output.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise InputError(f"{output}: cannot write ({exc.strerror or exc})") from None


def _options(engine, engine_version, model, quantization, gpu, env) -> dict[str, str]:
    opts = {"engine": engine, "engine_version": engine_version, "model": model, "quantization": quantization, "gpu": gpu}
    for item in env or []:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise InputError(f"--env expects KEY=VALUE, got {item!r}")
        opts[key.strip()] = value.strip()
    return {k: v for k, v in opts.items() if v}


def _read_env_file(path: str):
    """(facts, flags, engine) of a saved vllm collect-env / sglang check_env / pip list / nvidia-smi / qwen3doctor env file."""
    from .envfile import read_env_file

    parsed = read_env_file(path)
    return parsed.facts, set(parsed.flags), parsed.engine


def _layers(overrides, env_file: Optional[Path], env_auto: bool) -> None:
    """Fill the two layers under the options: an --env-file, and with --env-auto this machine's facts."""
    if env_file is not None:
        overrides.env_file, overrides.env_file_flags, overrides.env_file_engine = _read_env_file(str(env_file))
    if env_auto:
        from .localenv import collect

        overrides.local = collect().layer()


def _print_why(rule, scan, fmt: str) -> None:
    from .match import evaluate
    from .rank import score

    rm = evaluate(rule, scan)
    finding = score(rm, scan)
    if fmt == "json":
        print(json.dumps({
            "rule_id": rule.id, "rejected": rm.rejected,
            "finding": None if finding is None else {"score": finding.score, "confidence": finding.confidence},
            "clauses": [{"clause": e.clause, "state": e.state, "text": e.text} for e in rm.match + rm.supports + rm.when],
        }, indent=2))
        return
    print(f"{rule.id}: {rule.title}")
    for e in rm.match + rm.supports + rm.when:
        print(f"  {e.state:<8} {e.clause:<24} {e.text}")
    if rm.rejected:
        print("=> not reported: a required match clause missed")
    elif finding is None:
        print("=> not reported: no crash evidence for it, and the environment is not a known-bad combination")
    else:
        print(f"=> reported with score {finding.score:.2f}, {finding.confidence} confidence")


def _summary(report) -> None:
    from .model import Verdict

    if report.verdict is Verdict.FOUND:
        top = report.findings[0]
        _err(f"{report.source}: {len(report.findings)} finding(s); top: {top.rule_id} ({top.confidence}, {top.references[0]})")
    elif report.verdict is Verdict.UNEXPLAINED:
        _err(f"{report.source}: a crash ({report.crash.crash_class}) that no rule explains")
    elif report.verdict is Verdict.CLEAN:
        _err(f"{report.source}: no crash found")
    else:
        _err(f"{report.source}: nothing to diagnose (empty input)")


def _exit_code(reports, unreadable: bool) -> int:
    from .model import Verdict

    if unreadable:
        return EXIT_USAGE
    verdicts = {r.verdict for r in reports}
    if Verdict.FOUND in verdicts:
        return EXIT_FINDING
    if Verdict.UNEXPLAINED in verdicts:
        return EXIT_UNEXPLAINED
    return EXIT_CLEAN


@app.command(help="Show what is known about a crash: a reference (vllm#34948), a GitHub issue URL, or a rule id.")
def explain(
    key: str = typer.Argument(..., help="vllm#34948, https://github.com/vllm-project/vllm/issues/34948, or a rule id."),
    fmt: str = typer.Option("text", "--format", "-f", help="text or json."),
    rules: Optional[List[str]] = RULES_OPT,
) -> None:
    from .explain import card, card_text, find_rules

    catalog = _catalog(rules, None)
    found = find_rules(catalog, key)
    if fmt == "json":
        cards = [card(r) for r in found]
        print(json.dumps(cards[0] if len(cards) == 1 else cards, indent=2, ensure_ascii=False))
    else:
        print("\n".join(card_text(r) for r in found), end="")


@rules_app.command("list", help="Every rule: id, engines, families, status, references.")
def rules_list(
    fmt: str = typer.Option("text", "--format", "-f", help="text, json or markdown."),
    rules: Optional[List[str]] = RULES_OPT,
    write_readme: Optional[Path] = typer.Option(None, "--write-readme", help="Rewrite the covered-crashes table in this README."),
) -> None:
    from .ruletools import readme_with_table, rules_markdown, rules_table

    catalog = _catalog(rules, None)
    if write_readme is not None:
        text = write_readme.read_text(encoding="utf-8")
        write_readme.write_text(readme_with_table(text, rules_markdown(catalog)), encoding="utf-8")
        _err(f"{write_readme}: table of {len(catalog.rules)} rules written")
        return
    if fmt == "json":
        print(json.dumps(rules_table(catalog), indent=2))
    elif fmt == "markdown":
        print(rules_markdown(catalog), end="")
    else:
        for row in rules_table(catalog):
            print(f"{row['id']:<58} {'/'.join(row['engines']):<12} {row['status']:<12} {', '.join(row['references'][:3])}")
        print(f"{len(catalog.rules)} rules", file=sys.stderr)


@rules_app.command("show", help="A rule's card (same as explain).")
def rules_show(rule_id: str, rules: Optional[List[str]] = RULES_OPT) -> None:
    from .explain import card_text, find_rules

    print(card_text(find_rules(_catalog(rules, None), rule_id)[0]), end="")


def _paths_catalog(paths: list[str] | None):
    """All rules, checked strictly; or, with paths, the named rules strictly and the rest leniently (a broken
    rule elsewhere becomes a warning), so one author's work in progress does not block another's."""
    from .catalog import load_catalog, rule_dirs, rule_files

    if not paths:
        return load_catalog(rule_dirs()), None
    named = load_catalog([Path(p) for p in paths], strict=True)
    catalog = load_catalog(rule_dirs(), strict=False)
    for w in catalog.warnings:
        _err(f"warning: {w}")
    catalog.warnings.clear()
    catalog.rules.update(named.rules)
    for ref, ids in named.by_reference.items():
        catalog.by_reference.setdefault(ref, [])
        catalog.by_reference[ref] = sorted(set(catalog.by_reference[ref]) | set(ids))
    catalog.by_alias.update(named.by_alias)
    only = {f.stem for p in paths for f, _ in rule_files(Path(p))}
    return catalog, only


@rules_app.command("lint", help="Validate rules: schema, regexes, ids, references, tests present. Every problem names file, line and field.")
def rules_lint(
    paths: Optional[List[str]] = typer.Argument(None, help="Rule files or folders (default: all rules)."),
    verbose: bool = typer.Option(False, "--warnings", help="Also show advice that does not fail lint (prefilter anchors)."),
) -> None:
    from .ruletools import lint, lint_warnings

    catalog, only = _paths_catalog(paths)
    if only is not None:
        catalog.rules = {k: v for k, v in catalog.rules.items() if k in only}
    problems = lint(catalog)
    for p in problems:
        print(p)
    if verbose:
        for w in lint_warnings(catalog):
            print(f"warning: {w}")
    if problems:
        _err(f"{len(problems)} problem(s) in {len(catalog.rules)} rule(s)")
        raise typer.Exit(EXIT_USAGE)
    _err(f"{len(catalog.rules)} rule(s) OK")


@rules_app.command("test", help="Run each rule's own tests: logs it must rank first, lookalikes it must not report.")
def rules_test(paths: Optional[List[str]] = typer.Argument(None, help="Rule files or folders (default: all rules).")) -> None:
    from .ruletools import run_tests

    catalog, only = _paths_catalog(paths)
    results = run_tests(catalog, only)
    failed = [r for r in results if not r.ok]
    for r in failed:
        print(f"FAIL {r.test.test_id}: {r.detail}")
    print(f"{len(results) - len(failed)} passed, {len(failed)} failed")
    if failed:
        raise typer.Exit(EXIT_FINDING)


@rules_app.command("new", help="Write a skeleton rule with every field: rules new ENGINE ID.")
def rules_new(
    engine: str = typer.Argument(..., help="vllm, sglang or common."),
    rule_id: str = typer.Argument(..., help="The new rule's id (file stem)."),
    root: Path = typer.Option(Path("rules"), "--root", help="The rules folder."),
) -> None:
    from .ruletools import new_rule

    if engine not in ("vllm", "sglang", "common"):
        raise InputError(f"engine must be vllm, sglang or common, not {engine!r}")
    path = new_rule(root, engine, rule_id)
    print(path)


@app.command("eval", help="Accuracy on a folder of labelled cases (<case>/log.txt + <case>/case.yaml).")
def eval_cmd(
    folder: Path = typer.Argument(..., help="Folder of cases."),
    fmt: str = typer.Option("text", "--format", "-f", help="text or json."),
    rules: Optional[List[str]] = RULES_OPT,
    disable: Optional[List[str]] = DISABLE_OPT,
    skip_bad_rules: bool = SKIP_BAD_OPT,
) -> None:
    from .evaluate import render_text, run_eval

    if not folder.is_dir():
        raise InputError(f"{folder}: not a folder")
    result = run_eval(folder, _catalog(rules, disable, skip_bad_rules))
    if fmt == "json":
        print(json.dumps({"figures": result.figures(), "cases": [r.__dict__ for r in result.results]}, indent=2))
    else:
        print(render_text(result), end="")


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
    from .diagnose import diagnose_source
    from .inputs import expand
    from .suggest import HUMAN_FIELDS, suggest as write_draft

    if engine and engine not in ("vllm", "sglang", "common"):
        raise InputError(f"--engine must be vllm, sglang or common, not {engine!r}")
    if rule_id is not None:
        from .catalog import ID

        if not ID.match(rule_id):
            raise InputError(f"--id {rule_id!r} is not a valid rule id (lowercase letters, digits, . _ -)")
    items = expand([log]).inputs
    if len(items) != 1:
        raise InputError(f"{log}: name one log file (it holds {len(items)} logs)")
    item = items[0]
    catalog = _catalog(rules, None)
    src = item.open(force=force)
    try:
        report = diagnose_source(src, catalog)
    finally:
        src.close()
    if report.findings and not anyway:
        top = report.findings[0]
        _err(f"{item.name}: already explained by {top.rule_id} ({top.confidence}, {top.references[0]}); "
             "nothing written (use --anyway to draft a rule regardless)")
        raise typer.Exit(EXIT_FINDING)
    written = write_draft(item, report, root=root, rule_id=rule_id, engine=engine, logs_dir=logs,
                          print_only=print_only, force=force)
    if print_only:
        sys.stdout.write(written.draft.text)
        return
    print(written.rule_path)
    _err(f"draft rule {written.draft.rule_id} (fingerprint {written.draft.fingerprint.id}) written to {written.rule_path}")
    _err(f"its first test: {written.log_path} (a redacted copy of {item.name})")
    _err(f"left for you to fill: {', '.join(HUMAN_FIELDS)}; `rules lint` says now:")
    for problem in written.problems:
        _err(f"  {problem}")
    _err(f"then: qwen3doctor rules lint {written.rule_path} && qwen3doctor rules test {written.rule_path}")


@app.command(help="Live mode for a server's output piped in (vllm serve ... 2>&1 | qwen3doctor watch): passes it "
             "through unchanged, prints a diagnosis to stderr as soon as a crash's lines are complete, and a summary at "
             "the end of the input or on Ctrl-C. " + EXIT_CODES_HELP)
def watch(
    fail_on: Optional[str] = typer.Option(None, "--fail-on", help="any (default), known, high or never: see diagnose --help."),
    ignore: Optional[List[str]] = typer.Option(None, "--ignore", help="Accept a finding or crash (reference, rule id or fingerprint); repeatable."),
    settle: float = typer.Option(2.0, "--settle", help="Seconds of quiet after a crash line before its lines count as complete."),
    redact: bool = typer.Option(False, "--redact", help="Redact secrets, e-mail addresses, home paths and prompts from the diagnoses (the passed-through output is never changed)."),
    engine: Optional[str] = ENGINE_OPT,
    model: Optional[str] = MODEL_OPT,
    rules: Optional[List[str]] = RULES_OPT,
    disable: Optional[List[str]] = DISABLE_OPT,
) -> None:
    from . import config as cfg
    from . import watch as live
    from .diagnose import Overrides
    from .reader import stdin_is_terminal
    from .redact import Redactor
    from .render.summary import verdict_line
    from .summary import IgnoreMatcher

    if stdin_is_terminal():
        print("usage: vllm serve ... 2>&1 | qwen3doctor watch [OPTIONS]", file=sys.stderr)
        raise typer.Exit(EXIT_USAGE)
    if settle <= 0:
        raise InputError(f"--settle must be a positive number of seconds, not {settle}")
    if engine and engine not in ("vllm", "sglang"):
        raise InputError(f"--engine must be vllm or sglang, not {engine!r}")
    settings = cfg.resolve(cfg.load(), fail_on=fail_on, ignore=ignore)
    catalog = _catalog((rules or []) + settings.rules, (disable or []) + settings.disable)
    watcher = live.Watcher(catalog, Overrides(options=_options(engine, None, model, None, None, None)),
                           IgnoreMatcher(settings.ignore, catalog), settings.fail_on, settle)
    redactor = Redactor(hosts=settings.redact_hosts) if redact or settings.redact_hosts else None
    summary = live.run(watcher, live.stdin_stream(), sys.stdout.buffer, sys.stderr, redactor=redactor)
    outcome = summary.outcomes[0] if summary.outcomes else None
    what = "nothing to diagnose" if outcome is None or outcome.report is None else live.plain.headline(outcome.report)
    _err(f"watch: {watcher.lines} lines read; {len(watcher.announced)} crash diagnosis(es) shown; at the end: {what}")
    for note in summary.notes:
        _err(f"note: {note}")
    _err(verdict_line(summary))
    raise typer.Exit(summary.exit_code)


ENV_HELP = (
    "Show this machine's facts a diagnosis needs: installed vllm / sglang / torch / transformers / flashinfer / triton / "
    "deep_gemm / xformers / NCCL / cuDNN versions, Python, OS, CUDA toolkit, GPUs (nvidia-smi / rocm-smi). Imports none "
    "of those packages, and says what it could not find. Exit codes: 0 collected (whatever was missing); 2 usage error "
    "or --save not writable."
)


@app.command("env", help=ENV_HELP)
def env_cmd(
    fmt: str = typer.Option("auto", "--format", "-f", help="auto (rich on a terminal, plain otherwise), plain, rich, json."),
    save: Optional[Path] = typer.Option(None, "--save", help="Also write the facts as JSON to this file; `--env-file FILE` reads it back."),
) -> None:
    from .localenv import collect, render_plain, render_rich

    if fmt not in ("auto", "plain", "rich", "json"):
        raise InputError(f"unknown format {fmt!r} (auto, plain, rich, json)")
    local = collect()
    doc = json.dumps(local.to_json(), indent=2, ensure_ascii=False) + "\n"
    if save is not None:
        _write(doc, save)
        _err(f"{save}: written; use it with `qwen3doctor diagnose --env-file {save}` or `qwen3doctor check --env-file {save}`")
    chosen = _pick_format(fmt)
    if chosen == "json":
        sys.stdout.write(doc)
    else:
        sys.stdout.write(render_rich(local) if chosen == "rich" else render_plain(local))
    raise typer.Exit(EXIT_CLEAN)


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

    from .diagnose import Overrides, diagnose_scan, scan_source
    from .reader import open_source, stdin_is_terminal
    from .report import TEMPLATES, exit_code_of, numbered_lines, render, template_for

    if template and template not in TEMPLATES:
        raise InputError(f"--template must be vllm or sglang, not {template!r}")
    if engine and engine not in ("vllm", "sglang"):
        raise InputError(f"--engine must be vllm or sglang, not {engine!r}")
    overrides = Overrides(options=_options(engine, engine_version, model, quantization, gpu, env))
    _layers(overrides, env_file, env_auto)
    catalog = _catalog(rules, disable)
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
        text, _ = render(report, numbered_lines(path), template)
    finally:
        if spool is not None:
            os.unlink(spool.name)
    _write(text, output)
    if output is not None:
        _err(f"{output}: bug report written ({template_for(report, template)} issue template); read it once before you post")
    _summary(report)
    raise typer.Exit(exit_code_of(report))


CHECK_HELP = (
    "Pre-flight check of a planned launch, before it crashes: qwen3doctor check -- vllm serve MODEL FLAGS... (or the "
    "same after `check`). Uses the rules' `when` conditions, the bundled Qwen3-family shapes (TP / EP / FP8-block "
    "divisibility, context length) and this machine's facts (not with --no-local); the options plan another machine. "
    "Exit codes: 0 no known problem; 1 a known crash or shape error applies (a warning); 3 no warning, but a known crash "
    "may apply and depends on a fact that is unknown (a possible; pass --engine-version / --gpu to decide it); 2 usage error."
)


@app.command("check", help=CHECK_HELP, context_settings={"allow_extra_args": True, "ignore_unknown_options": True})
def check_cmd(
    command: Optional[List[str]] = typer.Argument(None, help="The planned command, best after `--`: vllm serve MODEL FLAGS... or python -m sglang.launch_server ..."),
    fmt: str = typer.Option("auto", "--format", "-f", help="auto (plain), plain, json."),
    engine: Optional[str] = typer.Option(None, "--engine", help="vllm or sglang, for a command of bare flags."),
    engine_version: Optional[str] = typer.Option(None, "--engine-version", help="Engine version of the target machine, e.g. 0.17.1."),
    model: Optional[str] = typer.Option(None, "--model", help="Model id or path (when the command does not name it)."),
    quantization: Optional[str] = QUANT_OPT,
    gpu: Optional[str] = typer.Option(None, "--gpu", help="GPU of the target machine, e.g. 'NVIDIA A100-SXM4-80GB'."),
    env: Optional[List[str]] = typer.Option(None, "--env", help="Any other fact as KEY=VALUE (repeatable), e.g. gpu_count=4."),
    env_file: Optional[Path] = ENV_FILE_OPT,
    no_local: bool = typer.Option(False, "--no-local", help="Do not use this machine's facts (planning for another machine)."),
    rules: Optional[List[str]] = RULES_OPT,
    disable: Optional[List[str]] = DISABLE_OPT,
) -> None:
    from .check import check, plan_environment, planned_command, render_plain, report_dict

    if fmt not in ("auto", "plain", "json"):
        raise InputError(f"unknown format {fmt!r} (auto, plain, json)")
    if engine and engine not in ("vllm", "sglang"):
        raise InputError(f"--engine must be vllm or sglang, not {engine!r}")
    tokens, ours = _own_options(list(command or []))
    engine_version = engine_version or ours.get("--engine-version")
    gpu = gpu or ours.get("--gpu")
    env_file = env_file or (Path(ours["--env-file"]) if "--env-file" in ours else None)
    env = (env or []) + ours.get("--env", [])
    no_local = no_local or "--no-local" in ours
    fmt = ours.get("--format", fmt)
    try:
        line = planned_command(tokens, engine)
    except ValueError as exc:
        raise InputError(str(exc)) from None
    from .diagnose import Overrides

    overrides = Overrides(options=_options(engine, engine_version, model, quantization, gpu, env))
    _layers(overrides, env_file, not no_local)
    catalog = _catalog(rules, disable)
    result = check(line, plan_environment(line, overrides), catalog)
    if fmt == "json":
        print(json.dumps(report_dict(result), indent=2, ensure_ascii=False))
    else:
        sys.stdout.write(render_plain(result))
    codes = {"warning": EXIT_FINDING, "possible": EXIT_UNEXPLAINED}
    n = sum(1 for a in result.alerts if a.level == "warning")
    _err(f"check: {result.verdict}" + (f" ({n} warning(s))" if n else ""))
    raise typer.Exit(codes.get(result.verdict, EXIT_CLEAN))


_OWN = {"--engine-version": 1, "--gpu": 1, "--env-file": 1, "--env": 1, "--format": 1, "--no-local": 0}


def _own_options(tokens: list[str]) -> tuple[list[str], dict]:
    """qwen3doctor's own options written after `--` (no engine has them): taken out of the planned command."""
    rest, ours = [], {}
    i = 0
    while i < len(tokens):
        name, eq, value = tokens[i].partition("=")
        if name in _OWN:
            if _OWN[name] and not eq:
                value = tokens[i + 1] if i + 1 < len(tokens) else ""
                i += 1
            if name == "--env":
                ours.setdefault(name, []).append(value)
            else:
                ours[name] = value
        else:
            rest.append(tokens[i])
        i += 1
    return rest, ours


def main() -> None:
    try:
        rc = app(standalone_mode=False)
        sys.exit(rc if isinstance(rc, int) else EXIT_CLEAN)
    except typer.Exit as exc:
        sys.exit(exc.exit_code)
    except RuleError as exc:
        for p in exc.problems:
            print(p, file=sys.stderr)
        _err(f"{len(exc.problems)} problem(s) in the rules; nothing was diagnosed")
        sys.exit(EXIT_USAGE)
    except Qwen3DoctorError as exc:
        _err(str(exc))
        sys.exit(exc.exit_code)
    except KeyboardInterrupt:
        _err("interrupted")
        sys.exit(130)
    except BrokenPipeError:
        sys.stderr.close()
        sys.exit(EXIT_CLEAN)
    except Exception as exc:  # noqa: BLE001 - the promise is one line, never a traceback
        import click

        if isinstance(exc, click.exceptions.ClickException):
            exc.show()
            sys.exit(EXIT_USAGE)
        if isinstance(exc, click.exceptions.Abort):
            sys.exit(130)
        _err(f"internal error: {exc.__class__.__name__}: {exc} (please report it)")
        sys.exit(EXIT_USAGE)


if __name__ == "__main__":
    main()
