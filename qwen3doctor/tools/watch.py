"""`vllm serve ... 2>&1 | qwen3doctor watch`: pass the server's output through unchanged, and diagnose a
crash as soon as its lines are complete.

Every byte read from standard input is written to standard output as soon as it arrives (flushed), so
the pipe changes nothing for whoever reads the server's output. Meanwhile:

- a line that looks like part of a crash (a traceback, an exception line, `CUDA error`, a signal, ...)
  opens a crash; it is reported `settle` seconds after that line, or sooner when the input goes quiet for
  `settle` seconds or SETTLE_LINES lines without crash markers follow it; errors that other ranks keep
  printing refine the report later, they never postpone it (see Watcher);
- the log read so far (its first HEAD_BYTES, where the serve command and versions are, and its last
  TAIL_BYTES) is diagnosed with the same engine as `diagnose`, and the diagnosis goes to standard error -
  once per distinct root cause or crash fingerprint;
- at the end of the input, or on Ctrl-C (after passing the server's last lines through), a summary goes
  to standard error, and the exit code follows the contract (0 no crash, 1 a finding, 3 an unexplained
  crash), narrowed by `--fail-on`.
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
from ..read.reader import LineSource
from ..read.scanner import CRASH, FindPrefilter, HyperscanPrefilter, Prefilter, hyperscan_available
from ..render import plain
from ..judge.summary import IgnoreMatcher, Outcome, Summary, outcome_of, summarize

HEAD_BYTES = 4 << 20  # the start of the output (serve command, versions, config), kept whole
TAIL_BYTES = 16 << 20  # the latest output, kept as the chunks it arrived in
BACKLOG_BYTES = 32 << 20  # received and passed through, not yet read by the watcher
SETTLE_SECONDS = 2.0
SETTLE_LINES = 200
REFINE_EVERY = 4  # while errors keep coming after a diagnosis, look again every REFINE_EVERY * settle seconds
LINE_MAX = 1 << 20  # a line longer than this is searched for crash markers in its first LINE_MAX bytes only
CHUNK = 1 << 16
GRACE_SECONDS = 3.0  # after Ctrl-C: pass the server's last lines through until it is quiet this long
GRACE_MAX_SECONDS = 10.0
_ITEM_OVERHEAD = 64  # what a kept chunk costs beyond its bytes (the bound counts it)

_CRASH_LINE = re.compile(
    rb"Traceback \(most recent call last\)|^\s*File \"|Error\b|Exception\b|CUDA error|HIP error|out of memory|"
    rb"Segmentation fault|Fatal Python error|terminate called|core dumped|Aborted|Killed|SIG(?:SEGV|ABRT|KILL|BUS)|"
    rb"died with|exitcode|NCCL (?:WARN|error)|ncclSystemError|Assertion|hit an exception|failed to start|"
    rb"Watchdog caught|HSA_STATUS",
    re.M,
)
# literals, one of which every _CRASH_LINE match holds: found in bulk (Hyperscan or bytes.find), so the regex
# runs only on the lines holding one (the regex alone over request traffic passes about 10 MB/s)
_MARKERS = (
    "Traceback (most recent call last)", 'File "', "Error", "Exception", "CUDA error", "HIP error", "out of memory",
    "Segmentation fault", "Fatal Python error", "terminate called", "core dumped", "Aborted", "Killed", "SIGSEGV",
    "SIGABRT", "SIGKILL", "SIGBUS", "died with", "exitcode", "NCCL WARN", "NCCL error", "ncclSystemError", "Assertion",
    "hit an exception", "failed to start", "Watchdog caught", "HSA_STATUS",
)
_NOT_CRASH = re.compile(rb"\b(?:INFO|DEBUG)\b.*(?:\"(?:GET|POST) |throughput|Avg prompt|#running-req|Received request)")


@dataclass
class Watcher:
    """The live part, without any I/O of its own: feed it bytes (or lines) and ticks; it calls `announce` with
    each new diagnosis. `finish()` gives the final summary.

    Memory is bounded in bytes, whatever the lines' length: the first HEAD_BYTES and the last TAIL_BYTES of
    the output are kept, and only they are diagnosed.

    When is a crash complete? Its first marker line opens it; it is diagnosed `settle` seconds after that line
    (a traceback comes out in one burst), sooner when `settle` seconds or SETTLE_LINES lines without markers
    follow. Later marker lines (other ranks failing, an NCCL watchdog repeating until its timeout) never
    postpone that first report: they are looked at again every REFINE_EVERY * settle seconds (or after quiet),
    and a diagnosis naming another root cause is announced as well."""

    catalog: Catalog
    overrides: Overrides = field(default_factory=Overrides)
    ignores: IgnoreMatcher | None = None
    fail_on: str = "any"
    settle: float = SETTLE_SECONDS
    announce: Callable[[Outcome], None] = lambda outcome: None
    name: str = "-"

    def __post_init__(self) -> None:
        self.head = bytearray()
        self.tail: deque[bytes] = deque()
        self.tail_cost = 0
        self.trimmed = False  # output between head and tail was dropped
        self.carry = b""  # the unfinished last line, for the marker search
        self.overlong = False  # the carried line passed LINE_MAX: skip to its end
        self.lines = 0
        self.bytes = 0
        self.crash_lines = 0
        self.pending = False  # a crash is being read
        self.opened_at = 0.0  # its first marker line
        self.last_crash_at = 0.0
        self.quiet_lines = 0
        self.announced: dict[str, Outcome] = {}  # group key -> first outcome announced
        self.latest: Outcome | None = None
        self.unread = 0  # bytes passed through that the watcher never saw (it fell behind)
        self._markers = _marker_finder()

    def feed(self, text: str, now: float | None = None) -> None:
        """One line (for tests and callers that have lines)."""
        self.feed_bytes(text.encode("utf-8", errors="replace") + b"\n", now)

    def feed_bytes(self, data: bytes, now: float | None = None) -> None:
        now = time.monotonic() if now is None else now
        self.bytes += len(data)
        self.lines += data.count(b"\n")
        self._keep(data)
        hits, quiet = self._search(data)
        if hits:
            self.crash_lines += hits
            if not self.pending:
                self.pending = True
                self.opened_at = now
            self.last_crash_at = now
            self.quiet_lines = quiet
        elif self.pending:
            self.quiet_lines += quiet
        self.tick(now)

    def _keep(self, data: bytes) -> None:
        if len(self.head) < HEAD_BYTES:
            take = HEAD_BYTES - len(self.head)
            self.head += data[:take]
            data = data[take:]
            if not data:
                return
        self.tail.append(data)
        self.tail_cost += len(data) + _ITEM_OVERHEAD
        while self.tail_cost > TAIL_BYTES and len(self.tail) > 1:
            self.tail_cost -= len(self.tail.popleft()) + _ITEM_OVERHEAD
            self.trimmed = True

    def _search(self, data: bytes) -> tuple[int, int]:
        """(marker lines, lines after the last one) among the lines `data` completes."""
        end = data.rfind(b"\n")
        if end == -1:
            if not self.overlong:
                self.carry += data
                if len(self.carry) > LINE_MAX:
                    self.carry, self.overlong = self.carry[:LINE_MAX], True
            return 0, 0
        region = data[: end + 1] if not self.carry else self.carry + data[: end + 1]
        if self.overlong:  # the end of an overlong line: search its head only
            cut = region.find(b"\n")
            region = self.carry + b"\n" + region[cut + 1:]
            self.overlong = False
        rest = data[end + 1:]
        self.carry, self.overlong = (rest[:LINE_MAX], len(rest) > LINE_MAX)
        hits, last_hit_end = 0, -1
        for start in sorted({region.rfind(b"\n", 0, pos) + 1 for pos, _ in self._markers.find(region)}):
            stop = region.find(b"\n", start)
            if _CRASH_LINE.search(region, start, stop) and not _NOT_CRASH.search(region, start, stop):
                hits += 1
                last_hit_end = stop
        if not hits:
            return 0, region.count(b"\n")
        return hits, region.count(b"\n", last_hit_end + 1)

    def due(self, now: float) -> bool:
        if not self.pending:
            return False
        if self.quiet_lines >= SETTLE_LINES or now - self.last_crash_at >= self.settle:
            return True
        return now - self.opened_at >= self.settle * (REFINE_EVERY if self.announced else 1)

    def tick(self, now: float | None = None) -> None:
        """Called as time passes: a crash whose lines are complete is diagnosed."""
        now = time.monotonic() if now is None else now
        if self.due(now):
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

    def parts(self) -> list[bytes | memoryview]:
        """The kept output, without copying the tail: the head, then the tail (from its first whole line when
        output between them was dropped)."""
        head = bytes(self.head)
        tail: list[bytes | memoryview] = [c for c in self.tail]
        if self.trimmed and tail:
            head = head[: head.rfind(b"\n") + 1]
            first = tail[0]
            tail[0] = memoryview(first)[first.find(b"\n") + 1:]
        return [head, *tail]

    def _diagnose(self) -> Outcome:
        stream = io.BufferedReader(_PartsReader(self.parts()), buffer_size=1 << 20)
        report = diagnose_source(LineSource(self.name, stream), self.catalog, self.overrides)
        return outcome_of(Input(self.name, "-"), report, of_report(report), self.ignores)

    def finish(self) -> Summary:
        """The verdict at the end: the last diagnosis of the whole (bounded) log."""
        if self.carry:
            self.feed_bytes(b"\n")
        self.check()  # announces a crash completed by the end of the input; sets latest
        outcome = self.latest
        return summarize([outcome] if outcome is not None else [], self.fail_on, ignores=self.ignores)


class _PartsReader(io.RawIOBase):
    """A list of byte strings read as one stream (the kept output is diagnosed without being joined)."""

    def __init__(self, parts: list[bytes | memoryview]):
        self._parts = deque(memoryview(p) for p in parts if len(p))

    def readable(self) -> bool:
        return True

    def readinto(self, b) -> int:
        if not self._parts:
            return 0
        part = self._parts[0]
        n = min(len(b), len(part))
        b[:n] = part[:n]
        if n == len(part):
            self._parts.popleft()
        else:
            self._parts[0] = part[n:]
        return n


class _Backlog:
    """What the reading thread has passed through and the watcher has not read yet, bounded in bytes. Past the
    bound the oldest chunks are dropped, except those of the first HEAD_BYTES of the output (the serve command
    and versions a diagnosis needs), which the watcher always reads."""

    def __init__(self, limit: int):
        self.limit, self.size, self.dropped = limit, 0, 0
        self._items: deque[tuple[bytes, bool]] = deque()
        self._ended = False
        self._cond = threading.Condition()

    def put(self, data: bytes, keep: bool) -> None:
        with self._cond:
            self._items.append((data, keep))
            self.size += len(data)
            if self.size > self.limit:
                kept: deque[tuple[bytes, bool]] = deque()
                while self._items and self.size > self.limit:
                    item = self._items.popleft()
                    if item[1] or not self._items:  # protected, or the newest chunk
                        kept.append(item)
                        continue
                    self.size -= len(item[0])
                    self.dropped += len(item[0])
                kept.extend(self._items)
                self._items = kept
            self._cond.notify()

    def end(self) -> None:
        with self._cond:
            self._ended = True
            self._cond.notify()

    def get(self, timeout: float) -> bytes | None:
        """The next chunk; None at the end of the input; raises queue.Empty after `timeout` seconds without one."""
        with self._cond:
            if not self._items and not self._ended:
                self._cond.wait(timeout)
            if self._items:
                data, _ = self._items.popleft()
                self.size -= len(data)
                return data
            if self._ended:
                return None
            raise queue.Empty


def _marker_finder() -> Prefilter:
    anchors, kinds = [(m, False) for m in _MARKERS], [CRASH] * len(_MARKERS)
    return HyperscanPrefilter(anchors, kinds) if hyperscan_available() else FindPrefilter(anchors, kinds)


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
    """Copy stdin to stdout, feeding the watcher; returns the summary at EOF or Ctrl-C.

    A reading thread writes each chunk to stdout as soon as it is read, before any parsing, so a server
    logging fast is never held up by the diagnosis (the watcher reads a copy; if it falls more than
    BACKLOG_BYTES behind, it skips the oldest unread output but the start-up head, and says so: a crash
    comes last, when the traffic stops). The thread uses os.read on the file descriptor (no
    buffered reader whose lock a thread blocked in it would hold at interpreter exit after Ctrl-C). On
    Ctrl-C the server, in the same process group, gets the signal too and prints its last lines: they are
    still passed through until it exits or goes quiet (a second Ctrl-C stops at once)."""
    backlog = _Backlog(BACKLOG_BYTES)
    try:
        fd = stdin.fileno()
        read = lambda: os.read(fd, CHUNK)  # noqa: E731
    except (AttributeError, OSError, io.UnsupportedOperation):
        read = lambda: stdin.read1(CHUNK)  # noqa: E731
    out = _Passthrough(stdout)

    def reader() -> None:
        offset = 0
        try:
            while True:
                data = read()
                if not data:
                    break
                out.write(data)
                backlog.put(data, keep=offset < HEAD_BYTES)
                offset += len(data)
        except (OSError, ValueError):
            pass
        finally:
            backlog.end()

    def announce(o: Outcome) -> None:
        text = describe(o, watcher.lines)
        stderr.write(redactor.text(text) if redactor is not None else text)
        stderr.flush()

    def take(data: bytes) -> None:
        watcher.feed_bytes(data)
        watcher.unread = backlog.dropped

    watcher.announce = announce
    threading.Thread(target=reader, name="qwen3doctor-watch-reader", daemon=True).start()
    tick = max(0.05, min(0.5, watcher.settle / 4))
    try:
        while True:
            try:
                data = backlog.get(timeout=tick)
            except queue.Empty:
                watcher.tick()
                continue
            if data is None:
                break
            take(data)
    except KeyboardInterrupt:
        stderr.write(f"qwen3doctor watch: interrupted; passing the server's last lines through until it exits "
                     f"(at most {GRACE_MAX_SECONDS:g} s; Ctrl-C again to stop now)\n")
        stderr.flush()
        try:
            _grace(backlog, take)
        except KeyboardInterrupt:
            pass
    watcher.unread = backlog.dropped
    return watcher.finish()


def _grace(backlog: _Backlog, take: Callable[[bytes], None]) -> None:
    """After Ctrl-C: keep reading until the end of the input, GRACE_SECONDS of quiet or GRACE_MAX_SECONDS."""
    stop = time.monotonic() + GRACE_MAX_SECONDS
    while (left := stop - time.monotonic()) > 0:
        try:
            data = backlog.get(timeout=min(GRACE_SECONDS, left))
        except queue.Empty:
            return
        if data is None:
            return
        take(data)


class _Passthrough:
    """stdout for the reading thread: every chunk written as it comes, with os.write on the descriptor where there
    is one (no buffered writer whose lock this thread could hold when the interpreter exits); once the reader
    of our output has gone (a closed pipe), the rest is dropped and the watching goes on."""

    def __init__(self, stdout):
        self._out, self._gone = stdout, False
        try:
            stdout.flush()
            self._fd: int | None = stdout.fileno()
        except (AttributeError, OSError, ValueError, io.UnsupportedOperation):
            self._fd = None

    def write(self, raw: bytes) -> None:
        if self._gone:
            return
        try:
            if self._fd is None:
                self._out.write(raw)
                self._out.flush()
                return
            view = memoryview(raw)
            while view:
                view = view[os.write(self._fd, view):]
        except (BrokenPipeError, ValueError, OSError):
            self._gone = True


def stdin_stream():
    return sys.stdin.buffer
