"""Live mode: `... 2>&1 | qwen3doctor watch` passes the output through byte for byte, diagnoses a crash as
soon as its lines are complete (before the input ends), and sums up at EOF or Ctrl-C with the exit code."""

from __future__ import annotations

import os
import select
import signal
import subprocess
import sys
import time

from ci_fixtures import CLEAN, KNOWN_A, UNKNOWN, run_cli
from conftest import ROOT
from qwen3doctor.judge.summary import IgnoreMatcher
from qwen3doctor.tools.watch import Watcher


def popen(*args):
    env = dict(os.environ, NO_COLOR="1", PYTHONPATH=str(ROOT))
    return subprocess.Popen([sys.executable, "-m", "qwen3doctor.cli", "watch", *args], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)


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
