"""tests/installed/check_cli.py (what .ci/run runs on a fresh non-editable install) run here against the
console script of this environment, so the check itself is exercised with the suite."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

CHECK = Path(__file__).resolve().parent / "installed" / "check_cli.py"


def test_the_installed_console_script_keeps_the_usage_and_bad_input_promises():
    script = Path(sys.executable).with_name("qwen3doctor")
    if not script.exists():
        pytest.skip("no qwen3doctor console script beside this Python (pip install -e '.[test]')")
    r = subprocess.run([sys.executable, str(CHECK), str(script)], capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stdout + r.stderr
    assert r.stdout.splitlines()[-1].endswith(" passed, 0 failed")
