"""`qwen3doctor check`: a pre-flight check of a planned launch."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import List, Optional

import typer

from ..errors import InputError
from .common import DISABLE_OPT, ENV_FILE_OPT, QUANT_OPT, RULES_OPT, app, err, fill_layers, load_setup, options_of


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
    from ..judge.preflight import check, plan_environment, planned_command
    from ..read.command import split_own_options
    from ..render.preflight import render_plain, report_dict

    if fmt not in ("auto", "plain", "json"):
        raise InputError(f"unknown format {fmt!r} (auto, plain, json)")
    if engine and engine not in ("vllm", "sglang"):
        raise InputError(f"--engine must be vllm or sglang, not {engine!r}")
    tokens, ours = split_own_options(list(command or []), _OWN)
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
    from ..judge.pipeline import Overrides

    overrides = Overrides(options=options_of(engine, engine_version, model, quantization, gpu, env))
    fill_layers(overrides, env_file, not no_local)
    catalog = load_setup(rules, disable)[0]
    result = check(line, plan_environment(line, overrides), catalog)
    if fmt == "json":
        print(json.dumps(report_dict(result), indent=2, ensure_ascii=False))
    else:
        sys.stdout.write(render_plain(result))
    n = sum(1 for a in result.alerts if a.level == "warning")
    err(f"check: {result.verdict}" + (f" ({n} warning(s))" if n else ""))
    raise typer.Exit(verdict_exit_code(result.verdict))


def verdict_exit_code(verdict: str) -> int:
    """A warning is a known cause (a finding), a possible one an unexplained crash: the same exit-code policy as
    diagnose's (judge.summary.exit_code, --fail-on any), so 1, 3 or 0."""
    from ..judge.summary import exit_code

    warning, possible = verdict == "warning", verdict == "possible"
    return exit_code(int(warning), int(warning), int(possible))[0]


_OWN = {"--engine-version": 1, "--gpu": 1, "--env-file": 1, "--env": 1, "--format": 1, "--no-local": 0}
