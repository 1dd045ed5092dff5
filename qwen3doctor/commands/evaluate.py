"""`qwen3doctor eval`: accuracy on a folder of labelled cases."""

from __future__ import annotations

import json
from pathlib import Path
from typing import List, Optional

import typer

from ..errors import InputError
from .common import DISABLE_OPT, RULES_OPT, SKIP_BAD_OPT, app, load_setup


@app.command("eval", help="Accuracy on a folder of labelled cases (<case>/log.txt + <case>/case.yaml).")
def eval_cmd(
    folder: Path = typer.Argument(..., help="Folder of cases."),
    fmt: str = typer.Option("text", "--format", "-f", help="text or json."),
    rules: Optional[List[str]] = RULES_OPT,
    disable: Optional[List[str]] = DISABLE_OPT,
    skip_bad_rules: bool = SKIP_BAD_OPT,
    perturb: bool = typer.Option(False, "--perturb", help="Also score each case's log pasted the ways users paste it "
                                 "(terminal wrap, code block, Kubernetes / journald / Docker JSON, curly quotes, ...)."),
    only: Optional[List[str]] = typer.Option(None, "--transform", help="With --perturb: only this transformation (repeatable)."),
) -> None:
    from ..tools.evaluate import render_perturbed, render_text, run_eval, run_perturbed

    if not folder.is_dir():
        raise InputError(f"{folder}: not a folder")
    if perturb or only:
        rows = run_perturbed(folder, load_setup(rules, disable, skip_bad_rules)[0], only)
        if fmt == "json":
            print(json.dumps([{"paste": name, "what": what, "figures": result.figures(), "lost": lost}
                              for name, what, result, lost in rows], indent=2))
        else:
            print(render_perturbed(rows), end="")
        return
    result = run_eval(folder, load_setup(rules, disable, skip_bad_rules)[0])
    if fmt == "json":
        print(json.dumps({"figures": result.figures(), "cases": [r.__dict__ for r in result.results]}, indent=2))
    else:
        print(render_text(result), end="")
