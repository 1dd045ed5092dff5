from __future__ import annotations

from pathlib import Path

import pytest

from qwen3doctor.catalog import load_catalog, rule_dirs

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples" / "logs"
DATA = Path(__file__).resolve().parent / "data"


@pytest.fixture(scope="session")
def catalog():
    return load_catalog(rule_dirs())
