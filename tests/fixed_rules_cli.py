"""The command line with the bundled rules swapped for the small fixed set under tests/data/rules.

The renderer tests run through this (tests/ci_fixtures.py `run_fixed`), so their golden files hold what these
four rules say about the copied example logs under tests/data/examples/logs, and an edit to a rule in rules/
does not rewrite them. Everything else (settings, QWEN3DOCTOR_RULES, --rules) loads as usual.

    python tests/fixed_rules_cli.py diagnose LOG ...
"""

from __future__ import annotations

from pathlib import Path

FIXED_RULES = Path(__file__).resolve().parent / "data" / "rules"


def main() -> None:
    from qwen3doctor import bundled

    bundled.rules_dir = lambda: FIXED_RULES  # discover.bundled_rules_dir() asks this at every load
    from qwen3doctor.cli import main as cli_main

    cli_main()


if __name__ == "__main__":
    main()
