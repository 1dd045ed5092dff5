"""Where rules are: the bundled folder, QWEN3DOCTOR_RULES and --rules folders, and the rule files under them."""

from __future__ import annotations

import os
from pathlib import Path

from .. import bundled as package_files

ENGINE_DIRS = {"vllm": ("vllm",), "sglang": ("sglang",), "common": ("vllm", "sglang")}
BUNDLED_ENV = "QWEN3DOCTOR_RULES"


def bundled_rules_dir() -> Path:
    return package_files.rules_dir()


def rule_files(root: Path) -> list[tuple[Path, str]]:
    """(file, engine folder) for every rule under root; root may also be a single file."""
    return [(Path(name), engine_dir) for name, engine_dir in _rule_file_names(root)]


def _rule_file_names(root: Path) -> list[tuple[str, str]]:
    """rule_files as plain strings (a cache check walks a thousand rules on every start): *.yaml, then
    *.yml, each in path order, skipping README.yaml and anything under a dot-folder."""
    if root.is_file():
        return [(str(root), _engine_dir_of(root.parent.parts))]
    top = str(root)
    found: dict[str, list[tuple[list[str], str]]] = {".yaml": [], ".yml": []}
    for folder, subdirs, names in os.walk(top):
        subdirs[:] = [d for d in subdirs if not d.startswith(".")]
        rel = os.path.relpath(folder, top)
        parts = [] if rel == "." else rel.split(os.sep)
        for name in names:
            ext = os.path.splitext(name)[1]
            if ext in found and name.lower() != "readme.yaml" and not name.startswith("."):
                found[ext].append((parts + [name], os.path.join(folder, name)))
    top_parts = root.parts
    out = []
    for ext in (".yaml", ".yml"):
        for parts, name in sorted(found[ext]):  # by path parts, as Path sorts
            out.append((name, _engine_dir_of(top_parts + tuple(parts[:-1]))))
    return out


def _engine_dir_of(parts: tuple[str, ...]) -> str:
    for part in reversed(parts):
        if part in ENGINE_DIRS:
            return part
    return "common"


def rule_dirs(extra: list[str] | None = None, *, bundled: bool = True) -> list[Path]:
    dirs = [bundled_rules_dir()] if bundled else []
    env = os.environ.get(BUNDLED_ENV, "")
    dirs += [Path(p) for p in env.split(os.pathsep) if p.strip()]
    dirs += [Path(p) for p in extra or []]
    return dirs
