"""`qwen3doctor eval DIR --perturb`: the same labelled cases, pasted the ways users paste them.

A diagnosis that holds on the log as collected but not on the same log copied out of a terminal, a chat client, a
web page or a log shipper generalises badly: each transformation below is a way real reports arrive. The figure
per transformation, and the cases it loses against the log as collected, point at the reader, not at a rule.
"""
from __future__ import annotations

import json
import re
from typing import Callable


def _lines(text: str) -> list[str]:
    return text.splitlines()


def _wrap(text: str, width: int = 100) -> str:
    out = []
    for line in _lines(text):
        while len(line) > width:
            out.append(line[:width])
            line = line[width:]
        out.append(line)
    return "\n".join(out) + "\n"


def _each(fmt: Callable[[int, str], str]) -> Callable[[str], str]:
    return lambda text: "".join(fmt(i, line) + "\n" for i, line in enumerate(_lines(text)))


# name -> (what a user did, the transformation)
TRANSFORMS: dict[str, tuple[str, Callable[[str], str]]] = {
    "terminal-wrap": ("copied from a 100-column terminal (hard line breaks)", _wrap),
    "indented": ("pasted as an indented code block", _each(lambda i, ln: "    " + ln)),
    "quoted": ("quoted in a reply (`> `)", _each(lambda i, ln: "> " + ln)),
    "fenced": ("pasted between Markdown fences", lambda t: "```\n" + t + "```\n"),
    "kubernetes": ("read from a node's container log (CRI prefix)",
                   _each(lambda i, ln: f"2026-01-01T00:00:{i % 60:02d}.123456789Z stderr F {ln}")),
    "journald": ("read with journalctl (syslog prefix)", _each(lambda i, ln: f"Jan 01 00:00:{i % 60:02d} gpu-node-3 vllm[2211]: {ln}")),
    "docker-json": ("read from Docker's json-file log", _each(
        lambda i, ln: json.dumps({"log": ln + "\n", "stream": "stderr", "time": "2026-01-01T00:00:00.123Z"}))),
    "json-string": ("one JSON record holding the whole log", lambda t: json.dumps({"level": "error", "message": t}) + "\n"),
    "crlf": ("saved with Windows line ends", lambda t: t.replace("\n", "\r\n")),
    "ansi": ("with the terminal's colour codes", lambda t: re.sub(r"\b(ERROR|WARNING|INFO)\b", "\x1b[31m\\1\x1b[0m", t)),
    "smart-quotes": ("through a chat client that curls quotes", lambda t: re.sub(r"'([^'\n]*)'", "\u2018\\1\u2019", t)),
    "html-entities": ("copied from a web page's source", lambda t: t.replace("&", "&amp;").replace('"', "&quot;")
                      .replace("<", "&lt;").replace(">", "&gt;")),
    "rendered-page": ("copied from a rendered issue page (Markdown ate the backticks)", lambda t: t.replace("`", "")),
    "ci-viewer": ("copied out of a CI web viewer (Buildkite's row controls between the lines)",
                  _each(lambda i, ln: f"{ln}\nActions for L{i + 1}\n{i + 1}")),
    "newest-first": ("exported newest line first (Grafana / Loki / Kibana)", lambda t: "\n".join(reversed(_lines(t))) + "\n"),
    "last-15-lines": ("only the last 15 lines", lambda t: "\n".join(_lines(t)[-15:]) + "\n"),
}
