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


def _pick_format(fmt: str) -> str:
    if fmt != "auto":
        return fmt
    if os.environ.get("NO_COLOR") or not sys.stdout.isatty():
        return "plain"
    return "rich"


FORMAT_OPT = typer.Option("auto", "--format", "-f", help="auto (rich on a terminal, plain otherwise or with NO_COLOR), plain, rich, json.")
RULES_OPT = typer.Option(None, "--rules", help="Extra rule folder or file (repeatable; also QWEN3DOCTOR_RULES). A rule with a bundled id replaces it.")
DISABLE_OPT = typer.Option(None, "--disable", help="Rule id to switch off (repeatable).")
SKIP_BAD_OPT = typer.Option(False, "--skip-bad-rules", help="Skip invalid rule files with a warning instead of refusing to run (exit 2).")


@app.command(help="Diagnose crash logs: files, .gz files, '-' or a pipe. " + EXIT_CODES_HELP)
def diagnose(
    files: Optional[List[str]] = typer.Argument(None, help="Log files ('-' for standard input). With none, read the pipe."),
    fmt: str = FORMAT_OPT,
    engine: Optional[str] = typer.Option(None, "--engine", help="vllm or sglang, when the log does not say."),
    engine_version: Optional[str] = typer.Option(None, "--engine-version", help="Engine version, e.g. 0.16.0rc2."),
    model: Optional[str] = typer.Option(None, "--model", help="Model id or path."),
    quantization: Optional[str] = typer.Option(None, "--quantization", help="fp8, fp8-block, gptq-int4, awq, ... or an engine method name."),
    gpu: Optional[str] = typer.Option(None, "--gpu", help="GPU name, e.g. 'NVIDIA H200'."),
    env: Optional[List[str]] = typer.Option(None, "--env", help="Any other fact as KEY=VALUE (repeatable), e.g. torch=2.9.1."),
    env_file: Optional[Path] = typer.Option(None, "--env-file", help="A saved `vllm collect-env` / `python -m sglang.check_env` / pip list output."),
    rules: Optional[List[str]] = RULES_OPT,
    disable: Optional[List[str]] = DISABLE_OPT,
    why: Optional[str] = typer.Option(None, "--why", help="Show every clause of this rule, hit / miss / unknown, to see why it did (not) match."),
    force: bool = typer.Option(False, "--force", help="Read files that look binary."),
    skip_bad_rules: bool = SKIP_BAD_OPT,
) -> None:
    from .diagnose import Overrides, diagnose_scan, scan_source
    from .reader import open_source, stdin_is_terminal
    from .render import renderer

    if fmt not in ("auto", "plain", "rich", "json"):
        raise InputError(f"unknown format {fmt!r} (auto, plain, rich, json)")
    if engine and engine not in ("vllm", "sglang"):
        raise InputError(f"--engine must be vllm or sglang, not {engine!r}")
    if not files:
        if stdin_is_terminal():
            ctx = typer.Context  # noqa: F841
            print("usage: qwen3doctor diagnose [OPTIONS] [FILES]...   (or pipe a log in: ... 2>&1 | qwen3doctor diagnose)", file=sys.stderr)
            raise typer.Exit(EXIT_USAGE)
        files = ["-"]
    catalog = _catalog(rules, disable, skip_bad_rules)
    overrides = Overrides(options=_options(engine, engine_version, model, quantization, gpu, env))
    if env_file is not None:
        overrides.env_file, overrides.env_file_flags = _read_env_file(str(env_file))
    if why and catalog.lookup(why) is None:
        from .explain import find_rules

        found = find_rules(catalog, why)
        why = found[0].id
    reports, unreadable = [], False
    for name in files:
        try:
            src = open_source(name, force=force)
        except InputError as exc:
            _err(str(exc))
            unreadable = True
            continue
        try:
            scan = scan_source(src, catalog, overrides)
        finally:
            src.close()
        report = diagnose_scan(scan, catalog, name)
        reports.append(report)
        if why:
            _print_why(catalog.lookup(why), scan, fmt)
    if reports and not why:
        chosen = _pick_format(fmt)
        out = renderer(chosen)(reports)
        sys.stdout.write(out if out.endswith("\n") else out + "\n")
    for r in reports:
        _summary(r)
    raise typer.Exit(_exit_code(reports, unreadable))


def _options(engine, engine_version, model, quantization, gpu, env) -> dict[str, str]:
    opts = {"engine": engine, "engine_version": engine_version, "model": model, "quantization": quantization, "gpu": gpu}
    for item in env or []:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise InputError(f"--env expects KEY=VALUE, got {item!r}")
        opts[key.strip()] = value.strip()
    return {k: v for k, v in opts.items() if v}


def _read_env_file(path: str):
    from .environment import EnvCollector
    from .model import Fact
    from .prefixes import peel
    from .reader import open_source

    src = open_source(path)
    collector = EnvCollector()
    try:
        for line in src:
            process, text = peel(line)
            collector.feed(text, process)
    finally:
        src.close()
    facts = {k: Fact(v.value, f"env-file {path}") for k, v in collector.facts(derived=False).items()}
    return facts, set(collector.flags)


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
