"""Where the package's own files are: its code, the bundled rules and data, all found from one root.

An installed wheel carries the rules under `_bundled/rules`; a source checkout has them beside the
package, in the top-level `rules/` folder."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parent


def rules_dir() -> Path:
    packaged = ROOT / "_bundled" / "rules"
    return packaged if packaged.is_dir() else ROOT.parent / "rules"


def data_file(name: str) -> Path:
    return ROOT / "data" / name


def modules() -> list[Path]:
    """Every module of the package, subpackages included, in a stable order (the rule cache's key hashes
    them: an edit anywhere in the code that compiles rules must not serve a stale cache)."""
    return sorted(p for p in ROOT.rglob("*.py") if "_bundled" not in p.relative_to(ROOT).parts)
