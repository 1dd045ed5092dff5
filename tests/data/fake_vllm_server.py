"""A stand-in for `vllm serve ... 2>&1` in a pipe, for the `watch` tests and its benchmark (never imported by the
tool). It writes a real-looking vLLM log: the start-up lines, request-logging traffic, then (unless --no-crash)
a TP worker's crash traceback, after which the other ranks keep failing for a while (NCCL watchdog lines,
`terminate called`) before the engine core and the API server report the death and the process exits.

    python tests/data/fake_vllm_server.py --requests 200 --line-bytes 16384 --errors-for 30 | qwen3doctor watch

The crash's last line is the one ending in CRASH_END; what follows are consequences printed by other ranks.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

LOG = Path(__file__).resolve().parents[2] / "examples" / "logs" / "vllm" / "qwen3.5-gdn-prefill-ima-tp8.log"
CRASH_END = "Compile with `TORCH_USE_CUDA_DSA` to enable device-side assertions."
WATCHDOG = (
    "[rank{r}]:[E221 09:14:{s:02d}.{us:06d} ProcessGroupNCCL.cpp:1895] [PG ID 2 PG GUID 3 Rank {r}] Process group watchdog "
    "thread terminated with exception: CUDA error: an illegal memory access was encountered\n"
    "[rank{r}]:[E221 09:14:{s:02d}.{us:06d} ProcessGroupNCCL.cpp:630] [Rank {r}] Watchdog caught collective operation "
    "timeout: WorkNCCL(SeqNum=48211, OpType=ALLREDUCE, NumelIn=8192, NumelOut=8192, Timeout(ms)=600000) ran for "
    "600{us3:03d} milliseconds before timing out.\n"
    "(Worker_TP{r} pid={pid}) ERROR 02-21 09:14:{s:02d} [multiproc_executor.py:863] RuntimeError: NCCL error in: "
    "/pytorch/torch/csrc/distributed/c10d/NCCLUtils.hpp:268, unhandled cuda error, NCCL version 2.27.3\n"
)
REQUEST = ("(APIServer pid=1) INFO 02-21 09:13:{s:02d} [logger.py:41] Received request chatcmpl-{i:08x}: prompt: "
           "'<|im_start|>user\\n{body}<|im_end|>\\n<|im_start|>assistant\\n', params: SamplingParams(n=1, "
           "temperature=0.7, top_p=0.8, max_tokens=1024), lora_request: None.\n")
WORDS = "please summarise the attached incident report and list every error message with its likely cause "


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--requests", type=int, default=20, help="request-logging lines before the crash")
    ap.add_argument("--line-bytes", type=int, default=400, help="about how long each request line is")
    ap.add_argument("--errors-for", type=float, default=0.0, help="seconds the other ranks keep failing after the crash")
    ap.add_argument("--error-every", type=float, default=0.05, help="seconds between two ranks' error bursts")
    ap.add_argument("--no-crash", action="store_true", help="end the log without a crash (a killed server)")
    ap.add_argument("--hang", type=float, default=0.0, help="seconds to stay silent at the end, pipe open")
    args = ap.parse_args()
    out = sys.stdout
    lines = LOG.read_text().splitlines(keepends=True)
    start = next(i for i, line in enumerate(lines) if "hit an exception" in line)
    end = next(i for i, line in enumerate(lines) if CRASH_END in line) + 1
    out.writelines(lines[:start])
    body = (WORDS * (args.line_bytes // len(WORDS) + 1))[: max(0, args.line_bytes - 260)]
    for i in range(args.requests):
        out.write(REQUEST.format(s=i % 60, i=i, body=body))
    out.flush()
    if not args.no_crash:
        out.writelines(lines[start:end])
        out.flush()
        stop, n = time.monotonic() + args.errors_for, 0
        while time.monotonic() < stop:
            r = n % 7 + (n % 7 >= 4)  # every rank but TP4, which crashed first
            out.write(WATCHDOG.format(r=r, pid=1183 + r, s=10 + n % 50, us=(n * 7919) % 10**6, us3=n % 1000))
            out.flush()
            n += 1
            time.sleep(args.error_every)
        out.writelines(lines[end:])
    out.flush()
    if args.hang:
        time.sleep(args.hang)


if __name__ == "__main__":
    main()
