from __future__ import annotations

from pathlib import Path

import pytest

from qwen3doctor.knowledge.catalog import load_catalog

from qwen3doctor.knowledge.discover import rule_dirs

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples" / "logs"
DATA = Path(__file__).resolve().parent / "data"


@pytest.fixture(autouse=True)
def _not_inside_github_actions(monkeypatch):
    """`--format auto` picks github inside GitHub Actions: tests see the output a user's terminal or pipe gets."""
    for name in ("GITHUB_ACTIONS", "GITHUB_STEP_SUMMARY", "QWEN3DOCTOR_IGNORE"):
        monkeypatch.delenv(name, raising=False)


@pytest.fixture(scope="session")
def catalog():
    return load_catalog(rule_dirs())


def cut_traceback(prefix: str, site: str, frames) -> str:
    """A traceback header and its frames, each line behind `prefix`, cut after the last frame's code line (no
    exception line); `frames`: (file under `site`, line, function, code line)."""
    return prefix + "Traceback (most recent call last):\n" + "".join(
        f'{prefix}  File "{site}/{f}", line {n}, in {fn}\n{prefix}    {code}\n' for f, n, fn, code in frames)
