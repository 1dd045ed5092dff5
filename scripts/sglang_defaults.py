#!/usr/bin/env python3
"""Write qwen3doctor/knowledge/defaults.py: the `server_args=ServerArgs(...)` line SGLang logs on every start.

SGLang prints its whole `ServerArgs` dataclass at start-up, defaults included, so a rule pattern that matches one of
those defaults matches every SGLang log. The package keeps that line as an ordinary line (knowledge/generic.py) and
the rule lint names patterns that hit it. Not run at install or test time. Usage:

    python scripts/sglang_defaults.py 0.5.6                # pip download --no-deps into a temporary folder
    python scripts/sglang_defaults.py path/to/sglang.whl   # a wheel you already have
    python scripts/sglang_defaults.py 0.5.6 --print        # show the line, write nothing

The release's `sglang/srt/server_args.py` is read with `ast` only (nothing imported). Each field of `ServerArgs` is
rendered as the dataclass repr would render its default: a literal as itself, `field(default=...)` as its default,
`field(default_factory=list|dict)` as `[]` / `{}`. Fields whose default only exists at run time (a call, a name) are
left out, since no log can be predicted for them. `model_path` and `tokenizer_path` carry an example model, as
`__post_init__` copies the one into the other.
"""
from __future__ import annotations

import argparse
import ast
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "qwen3doctor" / "knowledge" / "defaults.py"
MODEL = "Qwen/Qwen3-8B"
PREFIX = "[2025-05-01 10:00:00] server_args=ServerArgs("
WIDTH = 104

HEADER = '''"""What an engine prints on every start, whatever its launch: lines that say nothing about a crash.

SGLang logs its whole `ServerArgs` at start-up, every argument with its value, defaults included. A rule's `log`
pattern that matches this dump (`disaggregation_transfer_backend='mooncake'` is the default, not a sign of
disaggregation) hits every SGLang log; generic.ORDINARY_LINES holds it so that such a hit is weak, and the rule lint
names the pattern. Written by scripts/sglang_defaults.py from the `ServerArgs` dataclass of SGLang {version} (the
model path set).
"""
'''

_UNKNOWN = object()


def default_of(value: ast.expr | None):
    """The default a field's right-hand side gives, or _UNKNOWN when only running the code would tell."""
    if value is None:
        return _UNKNOWN
    if isinstance(value, ast.Call) and getattr(value.func, "id", None) == "field":
        for kw in value.keywords:
            if kw.arg == "default":
                return default_of(kw.value)
            if kw.arg == "default_factory" and isinstance(kw.value, ast.Name):
                return {"list": [], "dict": {}}.get(kw.value.id, _UNKNOWN)
        return _UNKNOWN
    try:
        return ast.literal_eval(value)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return _UNKNOWN


def server_args_fields(source: str) -> list[str]:
    """`name=repr(default)` for each field of `class ServerArgs`, in declaration order."""
    tree = ast.parse(source)
    cls = next((n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "ServerArgs"), None)
    if cls is None:
        raise SystemExit("no `class ServerArgs` in this server_args.py")
    out = []
    for stmt in cls.body:
        if not (isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name)):
            continue
        name = stmt.target.id
        if name in ("model_path", "tokenizer_path"):
            out.append(f"{name}={MODEL!r}")
            continue
        value = default_of(stmt.value)
        if value is not _UNKNOWN:
            out.append(f"{name}={value!r}")
    if "tokenizer_path" not in {item.split("=", 1)[0] for item in out}:
        out.insert(1, f"tokenizer_path={MODEL!r}")
    return out


def render(fields: list[str], version: str) -> str:
    """The module text: the dump line split into string pieces no wider than the repo's line length."""
    pieces, current = [], PREFIX + fields[0]
    for item in fields[1:]:
        if len(current) + len(item) + 2 > WIDTH:
            pieces.append(current)
            current = ", " + item
        else:
            current += ", " + item
    pieces.append(current + ")")
    body = "\n".join(f"    {piece!r}" for piece in pieces)
    return HEADER.format(version=version) + f"\nSGLANG_DEFAULT_SERVER_ARGS = (\n{body}\n)\n"


def wheel_source(spec: str) -> tuple[str, str]:
    """(server_args.py text, version) from a wheel path or a version to download."""
    path = Path(spec)
    if not path.is_file():
        tmp = Path(tempfile.mkdtemp(prefix="sglang-defaults-"))
        done = subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--no-deps", f"sglang=={spec}", "-d", str(tmp)],
                              check=False)
        path = next(tmp.glob("sglang-*.whl"), None)
        if done.returncode or path is None:
            raise SystemExit(f"could not download the wheel of sglang=={spec} (is it a published version, and can pip "
                             "reach its index?)")
    if not (path.name.startswith("sglang-") and path.name.endswith(".whl")):
        raise SystemExit(f"{path}: not an SGLang wheel (sglang-VERSION-....whl)")
    version = path.name.split("-")[1]
    try:
        with zipfile.ZipFile(path) as z:
            return z.read("sglang/srt/server_args.py").decode("utf-8"), version
    except (zipfile.BadZipFile, KeyError, OSError):
        raise SystemExit(f"{path}: not an SGLang wheel with sglang/srt/server_args.py") from None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("release", help="an SGLang version (downloaded with pip) or the path of its wheel")
    parser.add_argument("--print", action="store_true", help="print the module instead of writing it")
    args = parser.parse_args(argv)
    source, version = wheel_source(args.release)
    text = render(server_args_fields(source), version)
    if args.print:
        sys.stdout.write(text)
    else:
        OUT.write_text(text, encoding="utf-8")
        print(f"wrote {OUT.relative_to(ROOT)} from SGLang {version}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
