"""file | - | stdin | .gz -> clean text lines.

Bytes decode as UTF-8 with replacement; ANSI colour codes (also the mangled forms pasted into issues),
CRLF, CR-only line ends and a literal `^M` are removed; a line longer than MAX_LINE bytes is cut with a
warning and the rest of it skipped without being held in memory.
"""

from __future__ import annotations

import gzip
import io
import os
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import re

from ..errors import InputError

MAX_LINE = 1 << 20  # bytes kept of one line
SNIFF = 8192

_ANSI = re.compile(r"(?:\x1b|\ufffd|\^\[)\[[0-9;?]*[A-Za-z]|\x1b\][^\x07]*\x07|\x1b[()][A-Z0-9]")
_TEXT_BYTES = set(range(32, 127)) | {9, 10, 12, 13, 27}


def looks_binary(block: bytes) -> bool:
    """NUL bytes, or mostly bytes that are neither printable ASCII nor valid UTF-8 text."""
    if not block:
        return False
    if b"\x00" in block:
        return True
    text = block.decode("utf-8", errors="replace")
    bad = text.count("\ufffd") + sum(1 for ch in text if ord(ch) < 32 and ord(ch) not in (9, 10, 12, 13, 27))
    return bad > 0.3 * max(1, len(text))


def clean(text: str) -> str:
    """Strip colour codes and stray carriage returns from one decoded line."""
    if "[" in text or "\x1b" in text:
        text = _ANSI.sub("", text)
    text = text.rstrip("\r\n")
    return text[:-2] if text.endswith("^M") else text


@dataclass
class LineSource:
    """An opened input. Iterate it once for clean lines; `warnings` fills as it reads."""

    name: str
    stream: io.BufferedIOBase
    warnings: list[str] = field(default_factory=list)
    lines_read: int = 0
    bytes_read: int = 0

    def __iter__(self) -> Iterator[str]:
        read = self.stream.readline
        cut_lines = 0
        while True:
            raw = read(MAX_LINE + 1)
            if not raw:
                break
            self.bytes_read += len(raw)
            if len(raw) > MAX_LINE and not raw.endswith(b"\n"):
                cut_lines += 1
                raw = raw[:MAX_LINE]
                while True:  # skip the rest of the overlong line in bounded chunks
                    rest = read(MAX_LINE)
                    self.bytes_read += len(rest)
                    if not rest or rest.endswith(b"\n"):
                        break
            text = raw.decode("utf-8", errors="replace")
            if "\r" in text.rstrip("\r\n"):
                parts = text.rstrip("\r\n").split("\r")
            else:
                parts = (text,)
            for part in parts:
                self.lines_read += 1
                yield clean(part)
        if cut_lines:
            self.warnings.append(
                f"{self.name}: {cut_lines} line(s) longer than {MAX_LINE // (1 << 20)} MiB were cut"
            )

    def close(self) -> None:
        if self.stream is not sys.stdin.buffer:
            self.stream.close()


def open_source(name: str, *, force: bool = False) -> LineSource:
    """Open a path, `-` for standard input, or a `.gz` file. Raises InputError with a one-line reason."""
    if name == "-":
        return LineSource("-", sys.stdin.buffer)
    path = Path(name)
    try:
        if path.is_dir():
            raise InputError(f"{name}: is a directory, not a log file")
        raw = open(path, "rb", buffering=0)  # noqa: SIM115 - closed by LineSource.close
    except FileNotFoundError:
        raise InputError(f"{name}: no such file") from None
    except PermissionError:
        raise InputError(f"{name}: permission denied") from None
    except OSError as exc:
        raise InputError(f"{name}: cannot read ({exc.strerror or exc})") from None
    stream: io.BufferedIOBase = io.BufferedReader(raw, buffer_size=1 << 20)
    head = stream.peek(2)[:2]
    if head == b"\x1f\x8b":
        stream = io.BufferedReader(gzip.GzipFile(fileobj=stream), buffer_size=1 << 20)  # type: ignore[arg-type]
    try:
        block = stream.peek(SNIFF)[:SNIFF]
    except (OSError, EOFError) as exc:
        stream.close()
        raise InputError(f"{name}: cannot read ({exc})") from None
    if not force and looks_binary(block):
        stream.close()
        raise InputError(f"{name}: looks like binary data, not a text log (use --force to read it anyway)")
    return LineSource(name, stream)


def stdin_is_terminal() -> bool:
    try:
        return os.isatty(sys.stdin.fileno())
    except (OSError, ValueError, AttributeError):
        return False
