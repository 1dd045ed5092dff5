#!/usr/bin/env python3
"""Run the installed `qwen3doctor` console script as a user does and hold it to the README's promises:
every usage error and every bad input ends with its documented exit code and one line on stderr (never a
Python traceback), and every command's --help works.

    python tests/installed/check_cli.py [PATH-TO-qwen3doctor]

The program is the argument, else $QWEN3DOCTOR_BIN, else `qwen3doctor` on PATH. Only the standard library
is used, so it runs from any Python against a tool installed in another venv (`.ci/run` installs the
project non-editable, with the newest dependencies its pins allow, and runs this). Ends with a line
"N passed, N failed"; exit 1 when a check failed.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "logs" / "vllm" / "qwen3.5-gdn-prefill-ima-tp8.log"
USAGE, CLEAN, FINDING = 2, 0, 1
SH = "@sh"  # first argument: run the program from a plain `sh` (completion detects the calling shell)
BASH = "@bash"  # ... from bash, as a user would (a runner started without a shell above it has none to detect)
COMMANDS = [[], ["diagnose"], ["explain"], ["watch"], ["env"], ["report"], ["check"], ["suggest"], ["eval"],
            ["rules"], ["rules", "list"], ["rules", "show"], ["rules", "lint"], ["rules", "test"], ["rules", "new"]]


def make_inputs(d: Path) -> dict[str, Path]:
    """The bad-input table of the README, as files."""
    files = {
        "binary": d / "weights.bin",
        "bad-utf8": d / "bad-utf8.log",
        "empty": d / "empty.log",
        "huge-line": d / "huge-line.log",
        "folder": d / "no-logs-here",
        "rule-pack": d / "pack",
    }
    files["binary"].write_bytes(bytes(range(256)) * 32)
    files["bad-utf8"].write_bytes(EXAMPLE.read_bytes().replace(b"Worker_TP1", b"Worker\xff\xfeTP1"))
    files["empty"].write_bytes(b"")
    files["huge-line"].write_bytes(b"INFO 05-05 12:00:00 start\n" + b"x" * (2 << 20) + b"\nINFO 05-05 12:00:01 done\n")
    files["folder"].mkdir()
    (files["folder"] / "notes.md").write_text("not a log\n")
    rule_dir = files["rule-pack"] / "vllm"
    rule_dir.mkdir(parents=True)
    (rule_dir / "mine.yaml").write_text(
        "title: Mine\nstatus: likely\nreferences: [vllm#5]\nmatch:\n  frams: [x]\ncause: c\nfixes: [{title: t}]\ntests: {}\n")
    return files


def cases(f: dict[str, Path], home: Path) -> list[tuple[str, list[str], int, str, str]]:
    """(name, arguments, exit code, what stderr must be: 'one' line | 'empty' | 'any', text stdout or stderr holds)."""
    ex = str(EXAMPLE)
    out = [
        # usage errors: one line, exit 2
        ("bare command", [], USAGE, "one", "missing command"),
        ("unknown option", ["--bogus"], USAGE, "one", "--bogus"),
        ("unknown command", ["bogus"], USAGE, "one", "bogus"),
        ("unknown option of a command", ["diagnose", "--formt", "json", ex], USAGE, "one", "--formt"),
        ("missing argument", ["explain"], USAGE, "one", "missing argument"),
        ("option without its value", ["diagnose", "--format"], USAGE, "one", "`qwen3doctor diagnose --help`"),
        ("--jobs abc", ["diagnose", "--jobs", "abc", ex], USAGE, "one", "--jobs"),
        ("unknown format", ["diagnose", "--format", "xml", ex], USAGE, "one", "xml"),
        ("rules without a command", ["rules"], USAGE, "one", "missing command"),
        ("unknown rules command", ["rules", "bogus"], USAGE, "one", "bogus"),
        ("completion asked from a shell typer does not support", [SH, "--show-completion"], USAGE, "one", "sh"),
        # shell completion
        ("--show-completion from bash", [BASH, "--show-completion"], CLEAN, "any", "complete "),
        ("--install-completion from bash", [BASH, "--install-completion"], CLEAN, "any", "bash completion installed"),
        # the bad-input table
        ("missing file", ["diagnose", str(f["empty"].with_name("nope.log"))], USAGE, "one", "nope.log"),
        ("a folder with no logs", ["diagnose", str(f["folder"])], USAGE, "one", "no-logs-here"),
        ("a folder given to report", ["report", str(f["folder"])], USAGE, "one", "directory"),
        ("binary file", ["diagnose", str(f["binary"])], USAGE, "one", "--force"),
        ("binary file with --force", ["diagnose", "--force", str(f["binary"])], CLEAN, "one", "no crash found"),
        ("invalid UTF-8 inside text", ["diagnose", str(f["bad-utf8"])], FINDING, "one", "vllm#34948"),
        ("empty input", ["diagnose", str(f["empty"])], CLEAN, "one", "nothing to diagnose"),
        ("a line over 1 MiB", ["diagnose", "--format", "plain", str(f["huge-line"])], CLEAN, "one", "longer than 1 MiB were cut"),
        ("broken rule file", ["diagnose", "--rules", str(f["rule-pack"]), ex], USAGE, "any",
         'mine.yaml:5: match.frams: unknown field "frams"'),
    ]
    for cmd in COMMANDS:
        out.append((" ".join(cmd + ["--help"]), cmd + ["--help"], CLEAN, "empty", "Usage"))
    return out


def check(program: str, name: str, args: list[str], code: int, stderr_shape: str, text: str,
          cwd: Path, env: dict[str, str]) -> list[str]:
    command = [program, *args]
    if args[:1] in ([SH], [BASH]):
        command = [args[0][1:], "-c", '"$0" "$@"; exit $?', program, *args[1:]]
    try:
        r = subprocess.run(command, stdin=subprocess.DEVNULL, capture_output=True, text=True,
                           errors="replace", cwd=cwd, env=env, timeout=120)
    except subprocess.TimeoutExpired:
        return ["no answer within 120 s"]
    problems = []
    lines = [line for line in r.stderr.splitlines() if line.strip()]
    if r.returncode != code:
        problems.append(f"exit {r.returncode}, expected {code}")
    if "Traceback" in r.stderr or "Traceback" in r.stdout:
        problems.append("a Python traceback")
    if stderr_shape == "one" and len(lines) != 1:
        problems.append(f"{len(lines)} lines on stderr, expected one")
    if stderr_shape == "empty" and lines:
        problems.append(f"stderr not empty ({lines[0][:100]!r})")
    if text not in r.stdout + r.stderr:
        problems.append(f"{text!r} not in the output")
    if problems:
        problems.append(f"stderr was: {r.stderr[-600:]!r}")
    return problems


def main(argv: list[str]) -> int:
    program = argv[1] if len(argv) > 1 else os.environ.get("QWEN3DOCTOR_BIN") or shutil.which("qwen3doctor")
    if not program:
        print("check_cli: no qwen3doctor program (give its path, or set QWEN3DOCTOR_BIN)", file=sys.stderr)
        return 2
    if os.sep in program:
        program = str(Path(program).absolute())  # the checks run in a folder of their own
    failed = passed = 0
    with tempfile.TemporaryDirectory(prefix="qwen3doctor-cli-") as tmp:
        d = Path(tmp)
        home = d / "home"
        home.mkdir()
        work = d / "work"  # an empty working folder: no pyproject.toml or .qwen3doctor.toml of the checkout applies
        work.mkdir()
        files = make_inputs(d)
        env = {k: v for k, v in os.environ.items()
               if not k.startswith(("GITHUB_", "QWEN3DOCTOR_", "_QWEN3DOCTOR")) and k not in ("COLUMNS", "LINES")}
        env.update(HOME=str(home), NO_COLOR="1", XDG_CACHE_HOME=str(d / "cache"), SHELL="/bin/bash")
        todo = cases(files, home)
        # each check is a process of its own that mostly waits: run them side by side (one per CPU), report in order
        with ThreadPoolExecutor(max(2, os.cpu_count() or 1)) as pool:
            results = list(pool.map(lambda c: check(program, c[0], c[1], c[2], c[3], c[4], work, env), todo))
        for (name, args, *_), problems in zip(todo, results):
            if problems:
                failed += 1
                print(f"FAIL {name}: qwen3doctor {' '.join(a for a in args if a != SH)}")
                for p in problems:
                    print(f"     {p}")
            else:
                passed += 1
        if not any(home.glob(".bash_completions/*")):
            failed += 1
            print("FAIL --install-completion bash wrote no completion script under $HOME")
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
