"""`qwen3doctor env`: this machine's facts."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Optional

import typer

from ..errors import EXIT_CLEAN, InputError
from .common import app, err, pick_format, write


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
    from ..read.localenv import collect, render_plain, render_rich

    if fmt not in ("auto", "plain", "rich", "json"):
        raise InputError(f"unknown format {fmt!r} (auto, plain, rich, json)")
    local = collect()
    doc = json.dumps(local.to_json(), indent=2, ensure_ascii=False) + "\n"
    if save is not None:
        write(doc, save)
        err(f"{save}: written; use it with `qwen3doctor diagnose --env-file {save}` or `qwen3doctor check --env-file {save}`")
    chosen = pick_format(fmt)
    if chosen == "json":
        sys.stdout.write(doc)
    else:
        sys.stdout.write(render_rich(local) if chosen == "rich" else render_plain(local))
    raise typer.Exit(EXIT_CLEAN)
