"""`watch` under load: a fake vLLM server (tests/data/fake_vllm_server.py) piped into `qwen3doctor watch`.

    python bench/watch.py --mb 200 --line-bytes 16384              # throughput and peak memory on long lines
    python bench/watch.py --mb 1 --errors-for 30 --settle 2        # crash -> diagnosis while other ranks keep failing

It prints the pass-through rate (bytes of request traffic over the time until the crash's last line came out of
`watch`), the time from that line to the diagnosis on stderr, and watch's peak RSS (VmHWM from /proc, read by
/usr/bin/time -v where it exists). Linux only.
"""

from __future__ import annotations

import argparse
import os
import re
import select
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FAKE = ROOT / "tests" / "data" / "fake_vllm_server.py"
CRASH_END = b"Compile with `TORCH_USE_CUDA_DSA` to enable device-side assertions."
DIAGNOSED = b"qwen3doctor: crash diagnosed"


def run(mb: float, line_bytes: int, errors_for: float, settle: float, error_every: float = 0.05) -> dict:
    requests = int(mb * (1 << 20) / line_bytes)
    server = subprocess.Popen([sys.executable, str(FAKE), "--requests", str(requests), "--line-bytes", str(line_bytes),
                               "--errors-for", str(errors_for), "--error-every", str(error_every)], stdout=subprocess.PIPE)
    timing = tempfile.NamedTemporaryFile(suffix=".time", delete=False)
    timing.close()
    cmd = [sys.executable, "-m", "qwen3doctor.cli", "watch", "--settle", str(settle)]
    if shutil.which("time") or os.path.exists("/usr/bin/time"):
        cmd = ["/usr/bin/time", "-v", "-o", timing.name, *cmd]
    env = dict(os.environ, PYTHONPATH=str(ROOT), NO_COLOR="1")
    watch = subprocess.Popen(cmd, stdin=server.stdout, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    server.stdout.close()
    start = time.monotonic()
    out_fd, err_fd = watch.stdout.fileno(), watch.stderr.fileno()
    tail, err, passed = b"", b"", 0
    crash_at = diagnosed_at = None
    open_fds = {out_fd, err_fd}
    while open_fds:
        ready, _, _ = select.select(list(open_fds), [], [], 1.0)
        now = time.monotonic()
        for fd in ready:
            chunk = os.read(fd, 1 << 20)
            if not chunk:
                open_fds.discard(fd)
            elif fd == out_fd:
                passed += len(chunk)
                if crash_at is None and CRASH_END in tail + chunk:
                    crash_at = now
                tail = (tail + chunk)[-200:]
            else:
                err += chunk
                if diagnosed_at is None and DIAGNOSED in err:
                    diagnosed_at = now
    code = watch.wait()
    server.wait()
    end = time.monotonic()
    report = Path(timing.name).read_text() if os.path.getsize(timing.name) else ""
    os.unlink(timing.name)
    peak = re.search(r"Maximum resident set size \(kbytes\): (\d+)", report)
    return {
        "exit": code, "bytes": passed, "seconds": round(end - start, 2),
        "mb_per_s": round(requests * line_bytes / (1 << 20) / max(1e-9, (crash_at or end) - start), 1),
        "crash_to_diagnosis_s": None if crash_at is None or diagnosed_at is None else round(diagnosed_at - crash_at, 2),
        "diagnosed_after_end_s": None if diagnosed_at is None else round(end - diagnosed_at, 2),
        "peak_rss_mb": round(int(peak.group(1)) / 1024, 1) if peak else None,
        "stderr_tail": err.decode(errors="replace").strip().splitlines()[-1:],
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mb", type=float, default=200)
    ap.add_argument("--line-bytes", type=int, default=16384)
    ap.add_argument("--errors-for", type=float, default=0.0)
    ap.add_argument("--error-every", type=float, default=0.05)
    ap.add_argument("--settle", type=float, default=2.0)
    a = ap.parse_args()
    print(run(a.mb, a.line_bytes, a.errors_for, a.settle, a.error_every))


if __name__ == "__main__":
    main()
