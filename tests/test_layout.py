"""Imports flow one way: commands -> tools -> render -> judge -> knowledge -> read -> the nouns.

The nouns (model, errors, vocab, versions, cache, redact, bundled and the package's own __init__) import no
module of the package. Every import counts, including those inside functions."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "qwen3doctor"
NOUNS = {"qwen3doctor", "qwen3doctor.model", "qwen3doctor.errors", "qwen3doctor.vocab", "qwen3doctor.versions",
         "qwen3doctor.cache", "qwen3doctor.redact", "qwen3doctor.bundled"}
# lower imports nothing above it; a layer's modules may import each other
LAYERS = ("read", "knowledge", "judge", "render", "tools", "commands", "cli")


def layer_of(module: str) -> int:
    if module in NOUNS:
        return 0
    part = module.split(".")[1]
    if part not in LAYERS:
        raise AssertionError(f"{module}: in no layer (a new top-level module is a noun only if NOUNS says so)")
    return 1 + LAYERS.index(part)


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def is_module(name: str) -> bool:
    rel = Path(*name.split("."))
    return (PACKAGE.parent / rel).with_suffix(".py").is_file() or (PACKAGE.parent / rel / "__init__.py").is_file()


def imports_of(path: Path) -> set[str]:
    """The package modules one file imports, with relative imports resolved."""
    name = module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names if a.name.split(".")[0] == "qwen3doctor")
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            if target.split(".")[0] != "qwen3doctor":
                continue
            for alias in node.names:  # `from . import vocab` imports the module qwen3doctor.vocab
                sub = f"{target}.{alias.name}"
                found.add(sub if is_module(sub) else target)
    found.discard(name)
    return found


def edges() -> list[tuple[str, str]]:
    return sorted((module_name(p), imported) for p in PACKAGE.rglob("*.py") for imported in imports_of(p))


def test_the_walk_sees_the_package_imports():
    found = edges()
    assert len(found) > 100
    assert ("qwen3doctor.judge.pipeline", "qwen3doctor.read.scanner") in found  # a module-level import
    assert ("qwen3doctor.commands.diagnose", "qwen3doctor.judge.pipeline") in found  # one inside a function
    assert ("qwen3doctor.judge.match", "qwen3doctor.vocab") in found  # `from .. import vocab`


def violations(found: list[tuple[str, str]]) -> list[str]:
    out = []
    for importer, imported in found:
        if importer in NOUNS:
            out.append(f"{importer} imports {imported}: the nouns import no module of the package")
        elif layer_of(imported) > layer_of(importer):
            out.append(f"{importer} imports {imported}, which is above it")
    return out


def test_imports_flow_one_way():
    assert violations(edges()) == []


def test_a_wrong_way_edge_is_caught():
    wrong = [("qwen3doctor.read.scanner", "qwen3doctor.knowledge.catalog"),
             ("qwen3doctor.model", "qwen3doctor.knowledge.patterns"),
             ("qwen3doctor.judge.preflight", "qwen3doctor.render.plain"),
             ("qwen3doctor.render.github", "qwen3doctor.tools.bugreport")]
    assert len(violations(wrong)) == 4
    assert violations([("qwen3doctor.tools.watch", "qwen3doctor.render.plain"),
                       ("qwen3doctor.read.envfile", "qwen3doctor.read.environment")]) == []


def test_the_readme_module_map_names_every_module():
    import re

    readme = (PACKAGE.parent / "README.md").read_text(encoding="utf-8")
    section = readme.split("## How the code is laid out", 1)[1].split("\n## ", 1)[0]
    rows = {}
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 2 and cells[0] not in ("Where", "---"):
            rows[cells[0].strip("`").rstrip("/")] = set(re.findall(r"`(\w+)(?:\.py)?`", cells[1] + cells[0]))
    missing = []
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE)
        if path.name == "__init__.py":
            continue
        where = rel.parts[0] if len(rel.parts) > 1 else ("cli.py" if rel.stem == "cli" else "nouns")
        names = rows.get(where.removesuffix(".py") if where == "cli.py" else where, set())
        if where != "cli.py" and rel.stem not in names:
            missing.append(str(rel))
    assert "cli.py" in rows and missing == []
