"""A folder of mixed CI logs built from the bundled example logs, shared by the CI-mode tests.

    logs/nightly-a/server.log       vllm#34948  (examples/logs/vllm/qwen3.5-gdn-prefill-ima-tp8.log)
    logs/nightly-b/server.log.gz    vllm#34948  (gzip of examples/logs/vllm/gdn-cudagraph-illegal-memory-access--vllm-34948.log)
    logs/nightly-c/server.log       vllm#39025  (examples/logs/vllm/gdn-null-block-id-cudagraph-padding--vllm-39025.log)
    logs/nightly-d/worker.log       an unexplained crash, with planted secrets (tests/data/ci/unknown-crash.log)
    logs/nightly-e/server.log       no crash (tests/data/ci/clean.log)
    logs/nightly-f/core.log         binary: skipped with a warning in a folder scan
    logs/README.md                  not a log name: never read

The golden files hold whole reports, so a change to a rule or to what the engine reads from these logs shows
up in them too. Regenerate them after an intended change, and read the diff:

    QWEN3DOCTOR_UPDATE_GOLDEN=1 pytest tests/test_ci_formats.py && git diff tests/golden
"""

from __future__ import annotations

import difflib
import gzip
import os
import shutil
import subprocess
import sys
from pathlib import Path

from conftest import DATA, EXAMPLES, ROOT

GOLDEN = Path(__file__).resolve().parent / "golden"
UPDATE = os.environ.get("QWEN3DOCTOR_UPDATE_GOLDEN") == "1"
CI_DATA = DATA / "ci"

KNOWN_A = EXAMPLES / "vllm" / "qwen3.5-gdn-prefill-ima-tp8.log"
KNOWN_B = EXAMPLES / "vllm" / "gdn-cudagraph-illegal-memory-access--vllm-34948.log"
KNOWN_C = EXAMPLES / "vllm" / "gdn-null-block-id-cudagraph-padding--vllm-39025.log"
UNKNOWN = CI_DATA / "unknown-crash.log"
CLEAN = CI_DATA / "clean.log"
BINARY = bytes(range(256)) * 16 + b"\x00" * 64


def build_mixed(root: Path) -> Path:
    """The mixed folder under root; returns root (run commands from there, naming `logs`)."""
    logs = root / "logs"
    for sub in "abcdef":
        (logs / f"nightly-{sub}").mkdir(parents=True, exist_ok=True)
    shutil.copy(KNOWN_A, logs / "nightly-a" / "server.log")
    (logs / "nightly-b" / "server.log.gz").write_bytes(gzip.compress(KNOWN_B.read_bytes(), mtime=0))
    shutil.copy(KNOWN_C, logs / "nightly-c" / "server.log")
    shutil.copy(UNKNOWN, logs / "nightly-d" / "worker.log")
    shutil.copy(CLEAN, logs / "nightly-e" / "server.log")
    (logs / "nightly-f" / "core.log").write_bytes(BINARY)
    (logs / "README.md").write_text("# nightly logs\n")
    return root


def run_cli(*args: str, cwd: Path | None = None, env: dict | None = None, stdin: str | None = None, timeout: int = 180):
    full_env = {k: v for k, v in os.environ.items() if k not in ("GITHUB_ACTIONS", "GITHUB_STEP_SUMMARY", "QWEN3DOCTOR_IGNORE")}
    full_env.update({"NO_COLOR": "1", "PYTHONPATH": str(ROOT)}, **(env or {}))
    return subprocess.run([sys.executable, "-m", "qwen3doctor.cli", *args], cwd=cwd, input=stdin, capture_output=True,
                          text=True, env=full_env, timeout=timeout)


def normalise(text: str) -> str:
    from qwen3doctor import __version__

    return text.replace(f"qwen3doctor {__version__}", "qwen3doctor <version>")


def check_golden(name: str, text: str) -> None:
    """Compare with tests/golden/<name>. JSON Lines are kept pretty-printed there, so a diff shows the field."""
    path = GOLDEN / name
    text = normalise(text)
    if name.endswith(".jsonl"):
        import json

        text = "\n".join(json.dumps(json.loads(line), indent=1, ensure_ascii=False) for line in text.splitlines()) + "\n"
    if UPDATE or not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        if not UPDATE:
            raise AssertionError(f"{path} did not exist and was written; check it and run again")
        return
    expected = path.read_text(encoding="utf-8")
    if text != expected:
        diff = "".join(difflib.unified_diff(expected.splitlines(True), text.splitlines(True), str(path), "now", n=2))
        raise AssertionError(f"output differs from {path} (QWEN3DOCTOR_UPDATE_GOLDEN=1 to accept):\n{diff[:6000]}")
