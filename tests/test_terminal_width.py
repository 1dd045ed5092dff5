"""Rich output at the terminal's real width, in a pseudo-terminal of 80 and 200 columns: panels fit, titles
end in an ellipsis when cut, and every fix command is one unbroken line outside any border."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import unicodedata

import pytest

from ci_fixtures import FIXED_CLI, KNOWN_A

pty = pytest.importorskip("pty")
fcntl = pytest.importorskip("fcntl")
termios = pytest.importorskip("termios")

EXAMPLE = KNOWN_A
CLI = [sys.executable, str(FIXED_CLI)]  # on the fixed rule set, as the other renderer tests
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b\][^\x07]*\x07")
BORDER = "│╭╰╮╯"


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES", "NO_COLOR", "GITHUB_ACTIONS")}
    env["TERM"] = "xterm-256color"
    return env


def in_pty(args: list[str], cols: int, rows: int = 60, cwd=None) -> str:
    """Run the CLI with a pseudo-terminal of cols x rows as its standard input, output and error."""
    import struct

    pid, fd = pty.fork()
    if pid == 0:  # the child: the pty is its terminal
        try:
            fcntl.ioctl(0, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))
            if cwd is not None:
                os.chdir(cwd)
            os.execve(sys.executable, [*CLI, *args], _env())
        finally:
            os._exit(127)
    out = b""
    try:
        while chunk := os.read(fd, 65536):
            out += chunk
    except OSError:  # EIO: the child closed the terminal
        pass
    os.waitpid(pid, 0)
    os.close(fd)
    return ANSI.sub("", out.decode("utf-8", "replace")).replace("\r", "")


def width(line: str) -> int:
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in line)


@pytest.fixture(scope="module")
def fixes():
    r = subprocess.run([*CLI, "diagnose", str(EXAMPLE), "--format", "json"],
                       capture_output=True, text=True, env=_env(), timeout=120)
    found = json.loads(r.stdout)["findings"][0]
    return found["title"], [f["command"] for f in found["fixes"] if f["command"]]


@pytest.mark.parametrize("cols", [80, 200])
def test_panels_take_the_terminal_width_and_commands_stay_whole(cols, fixes):
    title, commands = fixes
    text = in_pty(["diagnose", str(EXAMPLE), "--format", "rich"], cols)
    lines = text.splitlines()
    boxed = [line for line in lines if line[:1] in BORDER]
    assert len(boxed) > 10 and {width(line) for line in boxed} == {cols}, {width(line) for line in boxed}
    assert len(commands) >= 2
    for command in commands:  # on one line of its own, with no border around it
        assert f"    $ {command}" in lines, command
    assert not any("$ vllm" in line for line in boxed)
    head = next(line for line in lines if line.startswith("╭─ 1. "))
    if width(f"╭─ 1. {title} ─╮") > cols:
        assert head.endswith("… ─╮") and title.startswith(head[len("╭─ 1. "):-len("… ─╮")])
    else:
        assert f"1. {title}" in head


def test_the_summary_table_fits_80_columns(tmp_path):
    from ci_fixtures import build_mixed

    build_mixed(tmp_path)
    text = in_pty(["diagnose", "logs", "--format", "rich"], 80, cwd=tmp_path)
    table = text[text.index("6 logs:"):]
    rows = [line for line in table.splitlines() if "│" in line]
    assert rows and max(width(line) for line in rows) <= 80
    assert any("logs/nightly-a/server.log" in line for line in rows)  # a path is not folded mid-word at 80


def test_columns_sets_the_width_when_output_is_not_a_terminal():
    r = subprocess.run([*CLI, "diagnose", str(EXAMPLE), "--format", "rich"],
                       capture_output=True, text=True, env=dict(_env(), COLUMNS="100"), timeout=120)
    boxed = [line for line in ANSI.sub("", r.stdout).splitlines() if line[:1] in BORDER]
    assert boxed and {width(line) for line in boxed} == {100}
