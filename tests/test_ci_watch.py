"""Live mode: `... 2>&1 | qwen3doctor watch` passes the output through byte for byte, diagnoses a crash as
soon as its lines are complete (before the input ends), and sums up at EOF or Ctrl-C with the exit code."""

from __future__ import annotations

import os
import select
import signal
import subprocess
import sys
import time

import pytest

from ci_fixtures import CLEAN, KNOWN_A, UNKNOWN, run_cli
from conftest import ROOT
from qwen3doctor.judge.summary import IgnoreMatcher
from qwen3doctor.tools.watch import Watcher


def popen(*args):
    env = dict(os.environ, NO_COLOR="1", PYTHONPATH=str(ROOT))
    # Ctrl-C as a terminal delivers it: a test runner started in the background by a shell inherits SIGINT ignored,
    # and Python then never raises KeyboardInterrupt in the child
    return subprocess.Popen([sys.executable, "-m", "qwen3doctor.cli", "watch", *args], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))


def read_until(stream, marker: bytes, timeout: float = 60) -> bytes:
    data, end = b"", time.monotonic() + timeout
    fd = stream.fileno()
    while marker not in data and time.monotonic() < end:
        ready, _, _ = select.select([fd], [], [], 0.2)
        if ready:
            chunk = os.read(fd, 65536)
            if not chunk:
                break
            data += chunk
    return data


def test_passthrough_is_byte_for_byte():
    raw = (b"\x1b[0;36m(APIServer pid=1)\x1b[0m INFO starting\r\n" + b"bad utf-8 \xff\xfe here\n" + KNOWN_A.read_bytes()
           + b"no newline at the end")
    r = subprocess.run([sys.executable, "-m", "qwen3doctor.cli", "watch", "--settle", "0.2"], input=raw,
                       capture_output=True, env=dict(os.environ, PYTHONPATH=str(ROOT)), timeout=120)
    assert r.stdout == raw
    assert r.returncode == 1
    err = r.stderr.decode()
    assert err.count("qwen3doctor: crash diagnosed") == 1 and "gdn-cudagraph-illegal-memory-access" in err
    assert "Verdict: exit 1" in err


def test_the_diagnosis_comes_while_the_server_still_runs():
    p = popen("--settle", "0.5")
    try:
        p.stdin.write(KNOWN_A.read_bytes())
        p.stdin.flush()
        err = read_until(p.stderr, b"qwen3doctor: crash diagnosed")
        assert b"vllm#34948" in read_until(p.stderr, b"vllm#34948", 10) or b"vllm#34948" in err
        assert p.poll() is None  # still reading: the input is open
        p.stdin.write(b"(APIServer pid=1) INFO shutting down\n")
        p.stdin.close()
        assert p.wait(60) == 1
    finally:
        p.kill()


def test_ctrl_c_prints_the_summary_and_keeps_the_contract():
    p = popen("--settle", "0.3")
    try:
        p.stdin.write(UNKNOWN.read_bytes())
        p.stdin.flush()
        read_until(p.stderr, b"qwen3doctor: crash diagnosed")
        p.send_signal(signal.SIGINT)
        code = p.wait(60)
        rest = p.stderr.read().decode()
        assert code == 3 and "interrupted" in rest and "Verdict: exit 3" in rest
    finally:
        p.kill()


def test_exit_codes_at_eof():
    assert run_cli("watch", stdin=CLEAN.read_text()).returncode == 0
    assert run_cli("watch", stdin=UNKNOWN.read_text()).returncode == 3
    assert run_cli("watch", "--fail-on", "known", stdin=UNKNOWN.read_text()).returncode == 0
    assert run_cli("watch", "--ignore", "vllm#34948", stdin=KNOWN_A.read_text()).returncode == 0
    r = run_cli("watch", "--redact", stdin=UNKNOWN.read_text())
    assert "hf_QwErTy" in r.stdout and "alice" not in r.stderr  # passthrough unchanged, diagnosis redacted


def test_watcher_announces_each_root_cause_once(catalog):
    seen = []
    w = Watcher(catalog, ignores=IgnoreMatcher([], catalog), settle=1.0, announce=seen.append)
    lines = KNOWN_A.read_text().splitlines()
    for i, line in enumerate(lines):
        w.feed(line, now=100.0)
    w.tick(now=100.5)
    assert seen == []  # not quiet long enough yet
    w.tick(now=101.5)
    assert len(seen) == 1 and seen[0].top.rule_id == "gdn-cudagraph-illegal-memory-access"
    for line in lines[-20:]:  # the same crash printed again by another rank
        w.feed(line, now=102.0)
    w.tick(now=104.0)
    assert len(seen) == 1
    summary = w.finish()
    assert summary.exit_code == 1 and len(seen) == 1


FAKE = ROOT / "tests" / "data" / "fake_vllm_server.py"
CRASH_END = b"Compile with `TORCH_USE_CUDA_DSA` to enable device-side assertions."


# Runs a command and writes its peak RSS (KiB) to a file. A child's ru_maxrss counts what it inherited when it
# was forked, so watch is started from this small process, not from the (large) pytest process.
PEAK_LAUNCHER = ("import resource, subprocess, sys; code = subprocess.call(sys.argv[2:]); "
                 "open(sys.argv[1], 'w').write(str(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)); sys.exit(code)")


def pipeline(*server_args: str, settle: float = 0.5, peak_file=None):
    """`python fake_vllm_server.py ARGS | qwen3doctor watch --settle S`, as a shell pipe would run them."""
    server = subprocess.Popen([sys.executable, str(FAKE), *server_args], stdout=subprocess.PIPE)
    env = dict(os.environ, NO_COLOR="1", PYTHONPATH=str(ROOT))
    cmd = [sys.executable, "-m", "qwen3doctor.cli", "watch", "--settle", str(settle)]
    if peak_file is not None:
        cmd = [sys.executable, "-c", PEAK_LAUNCHER, str(peak_file), *cmd]
    watch = subprocess.Popen(cmd, stdin=server.stdout, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    server.stdout.close()
    return server, watch


def follow(server, watch, timeout: float = 120):
    """Read both outputs of watch until it exits: (stdout, stderr, when the crash's last line came out, when
    the diagnosis came out, whether the server was still running then)."""
    out, err, crash_at, diag_at, server_alive = b"", b"", None, None, None
    fds = {watch.stdout.fileno(): "out", watch.stderr.fileno(): "err"}
    end = time.monotonic() + timeout
    while fds and time.monotonic() < end:
        ready, _, _ = select.select(list(fds), [], [], 0.5)
        now = time.monotonic()
        for fd in ready:
            chunk = os.read(fd, 1 << 20)
            if not chunk:
                del fds[fd]
            elif fds[fd] == "out":
                if crash_at is None and CRASH_END in out[-200:] + chunk:
                    crash_at = now
                out = out[-4096:] + chunk
            else:
                err += chunk
                if diag_at is None and b"qwen3doctor: crash diagnosed" in err:
                    diag_at, server_alive = now, server.poll() is None
    watch.wait(30)
    server.wait(30)
    return out, err.decode(), crash_at, diag_at, server_alive


def test_the_first_crash_is_reported_while_other_ranks_keep_failing():
    """A crash, then 8 s of other ranks' NCCL watchdog errors: the report comes within the settle time (plus the
    diagnosis itself) of the crash's last line, while those errors still stream in; it used to wait for them to
    stop (8.3 s)."""
    server, watch = pipeline("--errors-for", "8", "--error-every", "0.05", settle=0.5)
    try:
        out, err, crash_at, diag_at, server_alive = follow(server, watch)
    finally:
        server.kill(), watch.kill()
    assert crash_at is not None and diag_at is not None, err
    assert diag_at - crash_at < 0.5 + 2.5, f"diagnosed {diag_at - crash_at:.2f} s after the crash"
    assert server_alive and "vllm#34948" in err and err.count("qwen3doctor: crash diagnosed") == 1
    assert watch.returncode == 1 and out.endswith(b"(APIServer pid=1) INFO:     Shutting down\n")


def test_watcher_reports_settle_seconds_after_the_crash_whatever_follows(catalog):
    seen = []
    w = Watcher(catalog, settle=1.0, announce=seen.append)
    lines = KNOWN_A.read_text().splitlines()
    crash = [line for line in lines if "pid=1187" in line or "pid=1184" in line]
    for line in crash:
        w.feed(line, now=100.0)
    t = 100.0
    while not seen and t < 130:  # another rank's watchdog error every 0.1 s, for 30 s
        t += 0.1
        w.feed("[rank3]:[E221 09:14:10.1 ProcessGroupNCCL.cpp:1895] Process group watchdog thread terminated with "
               "exception: CUDA error: an illegal memory access was encountered", now=t)
    assert seen and seen[0].top.rule_id == "gdn-cudagraph-illegal-memory-access" and t < 101.15


def test_memory_is_bounded_in_bytes_on_long_request_lines(tmp_path):
    """100 MiB of 16 KiB and of 64 KiB request-logging lines: watch's peak RSS stays under 200 MiB (it kept
    every line of a 20,000-line tail: 540 MiB here, 3 GiB on 600 MB of 64 KiB lines)."""
    for line_bytes in (16384, 65536):
        peak_file = tmp_path / f"peak-{line_bytes}"
        server, watch = pipeline("--requests", str((100 << 20) // line_bytes), "--line-bytes", str(line_bytes),
                                 peak_file=peak_file)
        try:
            out, err, *_ = follow(server, watch)
        finally:
            server.kill(), watch.kill()
        assert watch.returncode == 1 and "vllm#34948" in err, err[-2000:]
        peak = int(peak_file.read_text()) / 1024
        assert 20 < peak < 200, f"{line_bytes}-byte lines: peak RSS {peak:.0f} MiB"


def test_a_stream_that_ends_without_a_crash_says_so():
    server, watch = pipeline("--no-crash")
    try:
        out, err, *_ = follow(server, watch)
    finally:
        server.kill(), watch.kill()
    assert watch.returncode == 0 and out.endswith(b"lora_request: None.\n")
    assert "the input ended without a crash" in err and "set -o pipefail" in err


def test_ctrl_c_still_passes_the_servers_last_lines_through():
    """Ctrl-C reaches the server too; what it prints while shutting down must still come out of watch."""
    p = popen("--settle", "0.3")
    try:
        p.stdin.write(KNOWN_A.read_bytes())
        p.stdin.flush()
        read_until(p.stderr, b"qwen3doctor: crash diagnosed")
        p.send_signal(signal.SIGINT)
        time.sleep(0.5)
        p.stdin.write(b"(APIServer pid=1) INFO 02-21 09:14:10 [launcher.py:99] Shutting down FastAPI HTTP server.\n")
        p.stdin.close()
        code = p.wait(60)
        out, rest = p.stdout.read(), p.stderr.read().decode()
        assert code == 1 and "interrupted" in rest
        assert out.endswith(b"Shutting down FastAPI HTTP server.\n")
    finally:
        p.kill()


def test_bytes_pass_through_while_a_diagnosis_runs(catalog):
    """The server's output is written out by the reading thread before any parsing: a slow diagnosis (made slow
    here) holds up nothing. Line by line in one loop, the pass-through waited for each diagnosis."""
    import io
    import threading

    from qwen3doctor.tools import watch as live

    class SlowWatcher(Watcher):
        def _diagnose(self):
            time.sleep(3)
            return super()._diagnose()

    in_r, in_w = os.pipe()
    out_r, out_w = os.pipe()
    w = SlowWatcher(catalog, settle=0.2)
    done = threading.Thread(target=live.run, args=(w, os.fdopen(in_r, "rb", buffering=0), os.fdopen(out_w, "wb"),
                                                    io.StringIO()), daemon=True)
    done.start()
    os.write(in_w, KNOWN_A.read_bytes())
    time.sleep(0.8)  # the crash is complete: the (slow) diagnosis has started
    start = time.monotonic()
    os.write(in_w, b"(APIServer pid=1) INFO 02-21 09:14:10 [launcher.py:99] Shutting down FastAPI HTTP server.\n")
    seen = b""
    while b"FastAPI" not in seen and time.monotonic() - start < 10:
        ready, _, _ = select.select([out_r], [], [], 0.1)
        if ready:
            seen += os.read(out_r, 1 << 20)
    assert b"FastAPI" in seen and time.monotonic() - start < 1.5, "the pass-through waited for the diagnosis"
    os.close(in_w)
    done.join(30)
    os.close(out_r)


def test_backlog_drops_the_oldest_unread_output_but_never_the_start_up_head():
    import queue

    from qwen3doctor.tools.watch import _Backlog

    b = _Backlog(limit=10)
    b.put(b"head1", keep=True)
    b.put(b"head2", keep=True)
    for i in range(5):
        b.put(b"mid%d" % i, keep=False)
    b.put(b"crash", keep=False)
    b.end()
    got = []
    while (item := b.get(timeout=0.1)) is not None:
        got.append(item)
    assert got == [b"head1", b"head2", b"crash"] and b.dropped == 20 and b.size == 0
    empty = _Backlog(limit=10)
    with pytest.raises(queue.Empty):
        empty.get(timeout=0.05)
