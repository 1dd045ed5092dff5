"""file | - | stdin | .gz -> clean text lines.

Bytes decode as UTF-8 with replacement; ANSI colour codes (also the mangled forms pasted into issues),
CRLF, CR-only line ends and a literal `^M` are removed; a line longer than MAX_LINE bytes is cut with a
warning and the rest of it skipped without being held in memory.

Damage that leaves the text readable is read around, with one warning each: runs of NUL bytes at the start of
or inside a text file (what `copytruncate` rotation leaves when the writer keeps its offset) are removed, and a
`.gz` that ends early (no trailer, or cut inside the stream) gives every line that decompresses. A file that
is still not text once its NULs are gone is binary data and refused.
"""

from __future__ import annotations

import gzip
import io
import os
import sys
import zlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import re

from ..errors import InputError

MAX_LINE = 1 << 20  # bytes kept of one line
SNIFF = 8192

# (`#033[`: rsyslog's escape of the ESC byte, as /var/log/syslog and journal pastes show a worker's colour codes)
ANSI = re.compile(r"(?:\x1b|\ufffd|\^\[|#033)\[[0-9;?]*[A-Za-z]|\x1b\][^\x07]*\x07|\x1b[()][A-Z0-9]"
                  # a colour code whose ESC byte a web page dropped: `[1;36m(EngineCore_0 pid=399)[0;0m ERROR ...`
                  r"|(?<![\w\]])\[(?:\d{1,3};)*\d{1,3}m(?=[(\[\w\s]|$)")
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
    """Strip colour codes, NULs and stray carriage returns from one decoded line."""
    if "[" in text or "\x1b" in text:
        text = ANSI.sub("", text)
    if "\x00" in text:
        text = text.replace("\x00", "")
    text = text.rstrip("\r\n")
    if not text.isascii():  # typographic quotes from a chat client or a word processor, fullwidth punctuation
        text = text.translate(_QUOTES)
    if "&" in text and _ENTITY.search(text):  # a log copied out of a web page's source or an HTML mail
        import html

        text = html.unescape(text)
    return text[:-2] if text.endswith("^M") else text


_QUOTES = str.maketrans({"\u2018": "'", "\u2019": "'", "\u201c": '"', "\u201d": '"',
                         # a CJK input method's colon and brackets (`RuntimeError：E19999`)
                         "\uff1a": ": ", "\uff08": "(", "\uff09": ")"})
_ENTITY = re.compile(r"&(?:quot|apos|lt|gt|amp|#\d{2,3});")


@dataclass
class LineSource:
    """An opened input. Iterate it once for clean lines; `warnings` fills as it reads."""

    name: str
    stream: io.BufferedIOBase
    warnings: list[str] = field(default_factory=list)
    lines_read: int = 0
    bytes_read: int = 0
    text_seen: bool = False  # a line holds more than white space (else the input is empty, however long)

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
                line = clean(part)
                self.text_seen = self.text_seen or not line.isspace() and line != ""
                yield line
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
    return prepare(name, io.BufferedReader(raw, buffer_size=1 << 20), force=force)


NUL_WARNING = "NUL bytes removed (log damage, such as copytruncate rotation leaves); read the text around them"


def prepare(name: str, stream: io.BufferedIOBase, *, force: bool = False) -> LineSource:
    """A byte stream -> a LineSource: gunzip (tolerating a missing trailer), sniff, and remove NUL runs from a
    text file; binary data is refused unless `force`. Raises InputError, closing the stream."""
    warnings: list[str] = []
    try:
        if stream.peek(2)[:2] == b"\x1f\x8b":
            stream = io.BufferedReader(_Gunzip(name, stream, warnings), buffer_size=1 << 20)
        block = stream.peek(SNIFF)[:SNIFF]
        if b"\x00" in block:
            stream = io.BufferedReader(_NoNul(stream), buffer_size=1 << 20)
            text = stream.peek(SNIFF)[:SNIFF]
            if not looks_binary(text):
                warnings.append(f"{name}: {NUL_WARNING}")
            elif not force:
                raise InputError(f"{name}: looks like binary data, not a text log (use --force to read it anyway)")
        elif not force and looks_binary(block):
            raise InputError(f"{name}: looks like binary data, not a text log (use --force to read it anyway)")
    except InputError:
        stream.close()
        raise
    except (OSError, EOFError) as exc:
        stream.close()
        raise InputError(f"{name}: cannot read ({exc})") from None
    return LineSource(name, stream, warnings)


class _NoNul(io.RawIOBase):
    """The bytes of a stream without its NUL bytes (a run of any length, anywhere)."""

    def __init__(self, inner: io.BufferedIOBase):
        self._inner = inner

    def readable(self) -> bool:
        return True

    def readinto(self, b) -> int:
        while True:
            data = self._inner.read1(len(b))
            if not data:
                return 0
            data = data.replace(b"\x00", b"")
            if data:  # a read of NULs only is not the end: read on
                n = len(data)
                b[:n] = data
                return n

    def close(self) -> None:
        try:
            self._inner.close()
        finally:
            super().close()


class _Gunzip(io.RawIOBase):
    """A gzip stream read one decompressed piece at a time, so a stream that ends early (no trailer, or cut
    inside) still gives everything that decompressed, with a warning instead of an error."""

    def __init__(self, name: str, inner: io.BufferedIOBase, warnings: list[str]):
        self._gz = gzip.GzipFile(fileobj=inner)
        self._inner, self._name, self._warnings = inner, name, warnings
        self.bytes_out = 0
        self._ended = False

    def readable(self) -> bool:
        return True

    def readinto(self, b) -> int:
        if self._ended:
            return 0
        try:
            data = self._gz.read1(len(b))
        except (EOFError, gzip.BadGzipFile, zlib.error) as exc:
            if self.bytes_out == 0:
                raise OSError(f"not a readable gzip file: {exc}") from None
            self._ended = True
            self._warnings.append(f"{self._name}: the gzip data ends early ({exc}); read the {self.bytes_out} bytes "
                                  "that decompress")
            return 0
        n = len(data)
        b[:n] = data
        self.bytes_out += n
        return n

    def close(self) -> None:
        try:
            self._gz.close()
            self._inner.close()
        finally:
            super().close()


def stdin_is_terminal() -> bool:
    try:
        return os.isatty(sys.stdin.fileno())
    except (OSError, ValueError, AttributeError):
        return False
