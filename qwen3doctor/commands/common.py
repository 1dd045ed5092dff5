"""What every command shares: the typer app, the common options, the rule and settings loading, the
one-line messages on stderr, writing the output."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Optional

import typer

from .. import __version__
from ..errors import EXIT_CLEAN, InputError, UsageProblem

EXIT_CODES_HELP = (
    "Exit codes: 0 no crash found; 1 at least one finding; 3 a crash that no rule explains; "
    "2 usage error, unreadable input or invalid rules."
)

app = typer.Typer(
    invoke_without_command=True,
    rich_markup_mode=None,
    help="Read a vLLM or SGLang crash log and rank what most likely broke, with the evidence and the fix. "
    + EXIT_CODES_HELP,
    context_settings={"help_option_names": ["-h", "--help"]},
)
rules_app = typer.Typer(add_completion=False, invoke_without_command=True, help="List, show, lint, test and scaffold rules.")
app.add_typer(rules_app, name="rules")


def err(message: str) -> None:
    print(f"qwen3doctor: {message}", file=sys.stderr)


def _version(value: bool) -> None:
    if value:
        print(f"qwen3doctor {__version__}")
        raise typer.Exit(EXIT_CLEAN)


def _no_command(ctx: typer.Context) -> None:
    """A group named without a command: one line naming the commands (click's own answer, the whole help text
    with exit 0 or 2 depending on its version, is not one line)."""
    if ctx.invoked_subcommand is None and not ctx.resilient_parsing:
        names = ", ".join(sorted(ctx.command.list_commands(ctx)))
        raise UsageProblem(f"missing command: {names} (see `{ctx.command_path} --help`)")


@app.callback()
def _main(
    ctx: typer.Context,
    version: bool = typer.Option(False, "--version", callback=_version, is_eager=True, help="Show the version and exit."),
) -> None:
    _no_command(ctx)


@rules_app.callback()
def _rules_main(ctx: typer.Context) -> None:
    _no_command(ctx)


def _catalog_for(rules: list[str] | None, disable: list[str] | None, skip_bad: bool = False):
    from ..knowledge.catalog import load_catalog
    from ..knowledge.discover import rule_dirs

    catalog = load_catalog(rule_dirs(rules), disable=disable, strict=not skip_bad)
    for w in catalog.warnings:
        err(f"warning: skipped: {w}")
    return catalog


def load_setup(rules: list[str] | None, disable: list[str] | None, skip_bad: bool = False, **policy):
    """(rules, settings): the settings in force (command line > QWEN3DOCTOR_* > .qwen3doctor.toml or
    [tool.qwen3doctor]) and the rules they and the options name. Every command loads both this way, `rules
    lint` and `rules test` included (skip_bad: a broken rule is a warning on stderr, kept in catalog.warnings)."""
    from ..read import config as cfg

    settings = cfg.resolve(cfg.load(), **policy)
    return _catalog_for((rules or []) + settings.rules, (disable or []) + settings.disable, skip_bad), settings


OUTPUT_SUFFIX_FORMATS = {".md": "markdown", ".xml": "junit", ".json": "json", ".jsonl": "json", ".txt": "plain", ".log": "plain"}


def _stdout_is_a_log() -> bool:
    """False when standard output is a regular file (`> report.txt`): workflow commands written there never
    reach the Actions log (which reads a step's output through a pipe)."""
    import stat

    try:
        return not stat.S_ISREG(os.fstat(sys.stdout.fileno()).st_mode)
    except (OSError, ValueError, AttributeError):
        return True


def pick_format(fmt: str, output: Path | None = None) -> str:
    if fmt != "auto":
        return fmt
    if output is not None and output.suffix.lower() in OUTPUT_SUFFIX_FORMATS:
        return OUTPUT_SUFFIX_FORMATS[output.suffix.lower()]
    if os.environ.get("GITHUB_ACTIONS") == "true" and output is None and _stdout_is_a_log():
        return "github"
    if output is not None or os.environ.get("NO_COLOR") or not sys.stdout.isatty():
        return "plain"
    return "rich"


FORMAT_OPT = typer.Option(
    "auto", "--format", "-f",
    help="auto, plain, rich, json, github, markdown, junit. auto: github inside GitHub Actions (unless standard output "
    "is redirected to a file), rich on a terminal, "
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


def write(text: str, output: Path | None) -> None:
    text = text if text.endswith("\n") else text + "\n"
    if output is None:
        sys.stdout.write(text)
        return
    try:
        output.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise InputError(f"{output}: cannot write ({exc.strerror or exc})") from None


def options_of(engine, engine_version, model, quantization, gpu, env) -> dict[str, str]:
    if engine_version:
        from ..versions import parse_version

        if parse_version(engine_version) is None:
            raise InputError(f"--engine-version expects a release such as 0.16.0rc2, got {engine_version!r}")
    opts = {"engine": engine, "engine_version": engine_version, "model": model, "quantization": quantization, "gpu": gpu}
    for item in env or []:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise InputError(f"--env expects KEY=VALUE, got {item!r}")
        opts[key.strip()] = value.strip()
    return {k: v for k, v in opts.items() if v}


def read_env_file_layer(path: str):
    """(facts, flags, engine) of a saved vllm collect-env / sglang check_env / pip list / nvidia-smi / qwen3doctor env file."""
    from ..read.envfile import read_env_file

    parsed = read_env_file(path)
    return parsed.facts, set(parsed.flags), parsed.engine


def fill_layers(overrides, env_file: Optional[Path], env_auto: bool) -> None:
    """Fill the two layers under the options: an --env-file, and with --env-auto this machine's facts."""
    if env_file is not None:
        overrides.env_file, overrides.env_file_flags, overrides.env_file_engine = read_env_file_layer(str(env_file))
    if env_auto:
        from ..read.localenv import collect

        overrides.local = collect().layer()


def summary_line(report) -> None:
    from ..model import Verdict

    if report.verdict is Verdict.FOUND:
        top = report.findings[0]
        err(f"{report.source}: {len(report.findings)} finding(s); top: {top.rule_id} ({', '.join((top.confidence,) + top.references[:1])})")
    elif report.verdict is Verdict.UNEXPLAINED:
        err(f"{report.source}: a crash ({report.crash.crash_class}) that no rule explains")
    elif report.verdict is Verdict.CLEAN:
        err(f"{report.source}: no crash found")
    else:
        err(f"{report.source}: nothing to diagnose (empty input)")
