"""A folder of mixed CI logs built from copies of bundled example logs, shared by the CI-mode tests.

    logs/nightly-a/server.log       vllm#34948  (tests/data/examples/logs/vllm/qwen3.5-gdn-prefill-ima-tp8.log)
    logs/nightly-b/server.log.gz    vllm#34948  (gzip of .../vllm/gdn-cudagraph-illegal-memory-access--vllm-34948.log)
    logs/nightly-c/server.log       vllm#39025  (.../vllm/gdn-null-block-id-cudagraph-padding--vllm-39025.log)
    logs/nightly-d/worker.log       an unexplained crash, with planted secrets (tests/data/ci/unknown-crash.log)
    logs/nightly-e/server.log       no crash (tests/data/ci/clean.log)
    logs/nightly-f/core.log         binary: skipped with a warning in a folder scan
    logs/README.md                  not a log name: never read

The renderer tests run the command line through `run_fixed`: the bundled rules are swapped for the four
rules copied under tests/data/rules (tests/fixed_rules_cli.py), and the logs above are copies under
tests/data/examples/logs (the fixed rules' own tests name them there). So an edit to rules/ or examples/ leaves
the golden files alone; they change when the engine's reading or a renderer does. Regenerate them after an
intended change, and read the diff:

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

from conftest import DATA, ROOT

GOLDEN = Path(__file__).resolve().parent / "golden"
UPDATE = os.environ.get("QWEN3DOCTOR_UPDATE_GOLDEN") == "1"
CI_DATA = DATA / "ci"
FIXED_RULES = DATA / "rules"  # four vllm rules copied from rules/vllm
FIXED_LOGS = DATA / "examples" / "logs"  # the example logs they and the mixed folder need
FIXED_CLI = Path(__file__).resolve().parent / "fixed_rules_cli.py"

KNOWN_A = FIXED_LOGS / "vllm" / "qwen3.5-gdn-prefill-ima-tp8.log"
KNOWN_B = FIXED_LOGS / "vllm" / "gdn-cudagraph-illegal-memory-access--vllm-34948.log"
KNOWN_C = FIXED_LOGS / "vllm" / "gdn-null-block-id-cudagraph-padding--vllm-39025.log"
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


def run_cli(*args: str, cwd: Path | None = None, env: dict | None = None, stdin: str | None = None, timeout: int = 180,
            fixed: bool = False):
    """The command line in a subprocess; with fixed, on the fixed rule set instead of the bundled rules."""
    full_env = {k: v for k, v in os.environ.items()
                if k not in ("GITHUB_ACTIONS", "GITHUB_STEP_SUMMARY", "QWEN3DOCTOR_IGNORE", "QWEN3DOCTOR_RULES")}
    full_env.update({"NO_COLOR": "1", "PYTHONPATH": str(ROOT)}, **(env or {}))
    command = [str(FIXED_CLI)] if fixed else ["-m", "qwen3doctor.cli"]
    return subprocess.run([sys.executable, *command, *args], cwd=cwd, input=stdin, capture_output=True,
                          text=True, env=full_env, timeout=timeout)


def run_fixed(*args: str, **kwargs):
    """run_cli on the fixed rule set (the renderer tests and their golden files)."""
    return run_cli(*args, fixed=True, **kwargs)


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
