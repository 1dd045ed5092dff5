"""`vllm serve ... 2>&1 | qwen3doctor watch`: pass the server's output through unchanged, and diagnose a
crash as soon as its lines are complete.

Every byte read from standard input is written to standard output as soon as it arrives (flushed), so
the pipe changes nothing for whoever reads the server's output. Meanwhile:

- a line that looks like part of a crash (a traceback, an exception line, `CUDA error`, a signal, ...)
  opens a crash; it is complete when the input goes quiet for `settle` seconds, when SETTLE_LINES lines
  without crash markers follow it, or at the end of the input;
- then the log read so far (its first HEAD_LINES lines, where the serve command and versions are, and its
  last TAIL_LINES lines) is diagnosed with the same engine as `diagnose`, and the diagnosis goes to
  standard error - once per distinct root cause or crash fingerprint;
- at the end of the input, or on Ctrl-C (after passing through what was already received), a summary
  goes to standard error, and the exit code follows the contract (0 no crash, 1 a finding, 3 an
  unexplained crash), narrowed by `--fail-on`.
"""

from __future__ import annotations

import io
import os
import queue
import re
import sys
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field

from ..knowledge.catalog import Catalog
from ..judge.pipeline import Overrides, diagnose_source
from ..judge.fingerprint import of_report
from ..read.inputs import Input
from ..model import Report
from ..read.reader import LineSource, clean
from ..render import plain
from ..judge.summary import IgnoreMatcher, Outcome, Summary, outcome_of, summarize

HEAD_LINES = 2000
TAIL_LINES = 20000
SETTLE_SECONDS = 2.0
SETTLE_LINES = 200
READ_MAX = 1 << 20
CHUNK = 1 << 16

_CRASH_LINE = re.compile(
    r"Traceback \(most recent call last\)|^\s*File \"|Error\b|Exception\b|CUDA error|HIP error|out of memory|"
    r"Segmentation fault|Fatal Python error|terminate called|core dumped|Aborted|Killed|SIG(?:SEGV|ABRT|KILL|BUS)|"
    r"died with|exitcode|NCCL (?:WARN|error)|ncclSystemError|Assertion|hit an exception|failed to start|"
    r"Watchdog caught|HSA_STATUS"
)
_NOT_CRASH = re.compile(r"\b(?:INFO|DEBUG)\b.*(?:\"(?:GET|POST) |throughput|Avg prompt|#running-req|Received request)")


@dataclass
class Watcher:
    """The live part, without any I/O of its own: feed it lines and ticks; it calls `announce` with each new
    diagnosis. `finish()` gives the final summary."""

    catalog: Catalog
    overrides: Overrides = field(default_factory=Overrides)
    ignores: IgnoreMatcher | None = None
    fail_on: str = "any"
    settle: float = SETTLE_SECONDS
    announce: Callable[[Outcome], None] = lambda outcome: None
    name: str = "-"

    def __post_init__(self) -> None:
        self.head: list[str] = []
        self.tail: deque[str] = deque(maxlen=TAIL_LINES)
        self.lines = 0
        self.pending = False  # a crash is being read
        self.quiet_lines = 0
        self.last_crash_at = 0.0
        self.announced: dict[str, Outcome] = {}  # group key -> first outcome announced
        self.latest: Outcome | None = None

    def feed(self, text: str, now: float | None = None) -> None:
        line = clean(text)
        self.lines += 1
        if len(self.head) < HEAD_LINES:
            self.head.append(line)
        else:
            self.tail.append(line)
        if _CRASH_LINE.search(line) and not _NOT_CRASH.search(line):
            self.pending = True
            self.quiet_lines = 0
            self.last_crash_at = time.monotonic() if now is None else now
        elif self.pending:
            self.quiet_lines += 1
            if self.quiet_lines >= SETTLE_LINES:
                self.check()

    def tick(self, now: float | None = None) -> None:
        """Called when no line arrived for a while: a crash followed by silence is complete."""
        now = time.monotonic() if now is None else now
        if self.pending and now - self.last_crash_at >= self.settle:
            self.check()

    def check(self) -> Outcome | None:
        """Diagnose what was read so far; announce it when it names a root cause or crash not seen before."""
        self.pending = False
        self.quiet_lines = 0
        outcome = self._diagnose()
        self.latest = outcome
        if outcome.status in ("clean", "empty"):
            return None
        key = _key(outcome)
        if key in self.announced:
            return None
        self.announced[key] = outcome
        self.announce(outcome)
        return outcome

    def _diagnose(self) -> Outcome:
        text = "\n".join([*self.head, *self.tail]) + "\n"
        report = diagnose_source(LineSource(self.name, io.BytesIO(text.encode("utf-8"))), self.catalog, self.overrides)
        return outcome_of(Input(self.name, "-"), report, of_report(report), self.ignores)

    def finish(self) -> Summary:
        """The verdict at the end: the last diagnosis of the whole (bounded) log."""
        self.check()  # announces a crash completed by the end of the input; sets latest
        outcome = self.latest
        return summarize([outcome] if outcome is not None else [], self.fail_on, ignores=self.ignores)


def _key(o: Outcome) -> str:
    if o.top is not None:
        return o.top.rule_id
    return o.fingerprint.id if o.fingerprint is not None else o.status


def describe(o: Outcome, lines: int) -> str:
    """The diagnosis as printed to stderr while the server runs."""
    r: Report = o.report
    bar = "─" * 20
    out = [f"{bar} qwen3doctor: crash diagnosed after {lines} lines {bar}", plain.headline(r)]
    if o.status == "ignored" and o.ignored_by is not None:
        out.append(f"(ignored: {o.ignored_by.ref}{' — ' + o.ignored_by.reason if o.ignored_by.reason else ''})")
    crash = r.crash
    if crash is not None:
        out.append(f"  crash: {crash.crash_class}: {(crash.exception_type + ': ') if crash.exception_type else ''}{crash.message[:200]}")
        if crash.frames:
            out.append("  frames: " + " <- ".join(f.function for f in reversed(crash.frames[-4:])))
    top = o.top
    if top is not None:
        out.append(f"  rule: {top.rule_id} ({top.confidence} confidence, {', '.join(top.references[:2])})")
        for j, fix in enumerate(top.fixes[:2], 1):
            out.append(f"  fix {j}: {fix.title}" + (f" (cost: {fix.cost})" if fix.cost else ""))
            if fix.command:
                out.append(f"     $ {fix.command}")
    elif o.fingerprint is not None:
        out.append(f"  fingerprint: {o.fingerprint.id} (save the log and run `qwen3doctor suggest` on it to draft a rule)")
        out += [f"  next: {s}" for s in r.next_steps[:3]]
    out.append("─" * (len(bar) * 2 + 2))
    return "\n".join(out) + "\n"


def run(watcher: Watcher, stdin, stdout, stderr, *, redactor=None) -> Summary:
    """Copy stdin to stdout as it arrives, feeding the watcher line by line; returns the summary at EOF or
    Ctrl-C. The reading thread uses os.read on the file descriptor (no buffered reader whose lock a thread
    blocked in it would hold at interpreter exit after Ctrl-C)."""
    chunks: queue.Queue = queue.Queue(maxsize=1000)
    try:
        fd = stdin.fileno()
        read = lambda: os.read(fd, CHUNK)  # noqa: E731
    except (AttributeError, OSError, io.UnsupportedOperation):
        read = lambda: stdin.read1(CHUNK)  # noqa: E731

    def reader() -> None:
        try:
            while True:
                data = read()
                if not data:
                    break
                chunks.put(data)
        except (OSError, ValueError):
            pass
        finally:
            chunks.put(None)

    def announce(o: Outcome) -> None:
        text = describe(o, watcher.lines)
        stderr.write(redactor.text(text) if redactor is not None else text)
        stderr.flush()

    watcher.announce = announce
    threading.Thread(target=reader, name="qwen3doctor-watch-reader", daemon=True).start()
    partial = b""
    try:
        while True:
            try:
                data = chunks.get(timeout=min(0.5, watcher.settle))
            except queue.Empty:
                watcher.tick()
                continue
            if data is None:
                break
            _passthrough(stdout, data)
            partial += data
            *complete, partial = partial.split(b"\n")
            for raw in complete:
                watcher.feed(raw.decode("utf-8", errors="replace").rstrip("\r"))
            if len(partial) > READ_MAX:  # an endless line: read its head, drop the rest
                watcher.feed(partial[:READ_MAX].decode("utf-8", errors="replace"))
                partial = b""
    except KeyboardInterrupt:
        stderr.write("qwen3doctor watch: interrupted\n")
        partial = _drain(chunks, stdout, watcher, partial)
    if partial:
        watcher.feed(partial.decode("utf-8", errors="replace"))
    return watcher.finish()


def _drain(chunks: queue.Queue, stdout, watcher: Watcher, partial: bytes) -> bytes:
    """After Ctrl-C: pass through (and read) what was already received, without waiting for more."""
    while True:
        try:
            data = chunks.get_nowait()
        except queue.Empty:
            return partial
        if data is None:
            return partial
        _passthrough(stdout, data)
        partial += data
        *complete, partial = partial.split(b"\n")
        for raw in complete:
            watcher.feed(raw.decode("utf-8", errors="replace").rstrip("\r"))


def _passthrough(stdout, raw: bytes) -> None:
    try:
        stdout.write(raw)
        stdout.flush()
    except BrokenPipeError:
        pass  # whoever read our output went away; keep watching


def stdin_stream():
    return sys.stdin.buffer
