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
