#!/usr/bin/env python3
"""Build qwen3doctor's release index: what each published vLLM and SGLang release accepts and raises.

Not run at install or test time; the package only reads the file this writes. Usage:

    python scripts/release_index.py                      # fetch what is missing, extract, write the index
    python scripts/release_index.py --cache DIR --jobs 2 # where downloads go (outside the repo), how many at once
    python scripts/release_index.py --offline            # use only what the cache already holds

Each release is fetched with `pip download --no-deps`, the archive's `.py` members are copied into a slim zip in
the cache (the wheel itself is dropped), and the sources are read with `ast` only: nothing is extracted to disk
and nothing is imported. Per release it collects
  flags     the serve flags (vLLM: `EngineArgs.add_cli_args` and the OpenAI frontend, including the flags built
            from config dataclasses through `get_kwargs`; SGLang: `ServerArgs.add_cli_args`), with choices;
  env       the environment variables read (vllm/envs.py, SGLang's `Envs` class, `get_*_env_var`,
            `os.environ` / `os.getenv` reads of VLLM_* / SGLANG_* / SGL_* names);
  arch      the registered architectures (vLLM's registry dicts, SGLang's `EntryClass`);
  func      `module:function` for every function and method, and `module:Class` for the public classes a module
            defines (`vllm.sampling_params:GuidedDecodingParams`): what an import of the module can find;
  raise     `raise X("...")` / `raise X(f"...")` sites and `assert cond, "..."` (as AssertionError) as templates
            (holes become `*`), with module and function;
  lines     `module:function:first-last`, the lines each function spans, for the engine's own plumbing and the Qwen
            model files (LINE_MODULES): a traceback's line numbers move from release to release, so they date it;
  api       `module:f(p` / `module:C(p` / `module:C.m(p` for each parameter a call of a public function, constructor or
            method can pass, `module:C.a` for each attribute an instance has: a caller written for another release
            passes a keyword or reads an attribute the installed one dropped (model files other than Qwen's skipped).
Facts are stored as intervals over the ordered release list (see qwen3doctor/knowledge/releases/__init__.py).
"""
from __future__ import annotations

import argparse
import ast
import concurrent.futures as cf
import gzip
import hashlib
import io
import json
import re
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

from packaging.version import Version

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "qwen3doctor" / "knowledge" / "releases"
FLOORS = {"vllm": "0.8.5", "sglang": "0.4.6"}
ENV_NAME = re.compile(r"^(?:VLLM|SGLANG|SGL)_[A-Z0-9_]+$")

# files whose add_argument calls make the serve command's parser
PARSER_FILES = {
    "vllm": ("vllm/engine/arg_utils.py", "vllm/entrypoints/openai/cli_args.py", "vllm/entrypoints/common/cli_args.py",
             "vllm/entrypoints/cli/serve.py"),
    "sglang": ("sglang/srt/server_args.py",),
}


# ---------------------------------------------------------------- fetching

def published(pkg: str) -> list[str]:
    """The final releases (and post releases) from the floor on, oldest first."""
    out = subprocess.run([sys.executable, "-m", "pip", "index", "versions", pkg],
                         capture_output=True, text=True, check=False).stdout
    for line in out.splitlines():
        if line.startswith("Available versions:"):
            found = [v.strip() for v in line.split(":", 1)[1].split(",") if v.strip()]
            return sorted((v for v in found if not Version(v).is_prerelease and Version(v) >= Version(FLOORS[pkg])),
                          key=Version)
    raise SystemExit(f"could not list the releases of {pkg}: is pip able to reach its index?")


def slim_path(cache: Path, pkg: str, version: str) -> Path:
    return cache / pkg / f"{pkg}-{version}.py.zip"


def slim_archive(archive: Path, dest: Path) -> None:
    """Copy the `.py` members of a wheel or sdist into a small zip (in memory to zip; nothing unpacked)."""
    tmp = dest.with_suffix(".tmp")
    with zipfile.ZipFile(tmp, "w", zipfile.ZIP_DEFLATED) as out:
        if archive.name.endswith((".whl", ".zip")):
            with zipfile.ZipFile(archive) as z:
                for name in z.namelist():
                    if name.endswith(".py"):
                        out.writestr(name, z.read(name))
        else:
            with tarfile.open(archive) as t:
                for m in t:
                    if m.isfile() and m.name.endswith(".py"):
                        # an sdist nests the package under `<name>-<version>/`
                        out.writestr(m.name.split("/", 1)[1] if "/" in m.name else m.name, t.extractfile(m).read())
    tmp.rename(dest)


def fetch(cache: Path, pkg: str, version: str) -> str:
    dest = slim_path(cache, pkg, version)
    if dest.exists():
        return "cached"
    work = cache / pkg / f"dl-{version}"
    work.mkdir(parents=True, exist_ok=True)
    # pip picks the sdist only when no wheel fits; vLLM's sdist needs torch to prepare its metadata, so the
    # wheel is what pip can fetch without building anything (its binaries are dropped by slim_archive)
    run = subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--no-deps", f"{pkg}=={version}", "-d", str(work)],
                         capture_output=True, text=True, check=False)
    files = [f for f in work.iterdir() if f.suffix in (".whl", ".gz", ".zip")]
    if not files:
        return "FAILED " + run.stderr.strip().splitlines()[-1:][0] if run.stderr.strip() else "FAILED"
    slim_archive(files[0], dest)
    for f in work.iterdir():
        f.unlink()
    work.rmdir()
    return f"fetched {files[0].name}"


# ---------------------------------------------------------------- reading one release

def sources(archive: Path, pkg: str):
    with zipfile.ZipFile(archive) as z:
        for name in sorted(z.namelist()):
            if name.startswith(pkg + "/") and name.endswith(".py"):
                yield name, z.read(name).decode("utf-8", "replace")


def template(node: ast.AST) -> str | None:
    """The message of `raise X("...")` as a template: f-string holes and %-/format holes become `*`."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        parts = []
        for v in node.values:
            if isinstance(v, ast.Constant):
                parts.append(str(v.value))
            elif not parts or parts[-1] != "*":
                parts.append("*")
        return "".join(parts)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left, right = template(node.left), template(node.right)
        if left is None and right is None:
            return None
        return (left if left is not None else "*") + (right if right is not None else "*")
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod):
        left = template(node.left)
        return re.sub(r"%[-+ #0-9.]*[sdrfigx]", "*", left) if left else None
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "format":
        left = template(node.func.value)
        return re.sub(r"\{[^{}]*\}", "*", left) if left else None
    return None


def clean_template(text: str) -> str | None:
    text = re.sub(r"\s+", " ", text).strip()
    text = re.sub(r"\*(?:\s*\*)+", "*", text)
    return text if len(text.replace("*", "").strip()) >= 12 else None


class Module(ast.NodeVisitor):
    """One source file: functions, raise sites, env reads, module-level constants, dataclass fields."""

    def __init__(self, path: str, tree: ast.Module):
        self.path = path
        self.stack: list[str] = []
        self.funcs: set[str] = set()
        self.raises: set[tuple[str, str, str]] = set()
        self.env: set[str] = set()
        self.visit(tree)

    def visit_FunctionDef(self, node):
        self.funcs.add(node.name)
        self.stack.append(node.name)
        self.generic_visit(node)
        self.stack.pop()

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_Raise(self, node):
        exc = node.exc
        if isinstance(exc, ast.Call) and exc.args:
            name = exc.func.attr if isinstance(exc.func, ast.Attribute) else getattr(exc.func, "id", None)
            text = template(exc.args[0])
            if name and text:
                text = clean_template(text)
                if text:
                    self.raises.add((name, self.stack[-1] if self.stack else "<module>", text))
        self.generic_visit(node)

    def visit_Assert(self, node):
        # `assert cond, "message"`: an AssertionError with that message, as a raise site
        text = template(node.msg) if node.msg is not None else None
        text = clean_template(text) if text else None
        if text:
            self.raises.add(("AssertionError", self.stack[-1] if self.stack else "<module>", text))
        self.generic_visit(node)

    def visit_Call(self, node):
        func = node.func
        fname = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
        if fname in ("getenv", "get", "pop", "setdefault") or (fname.startswith("get_") and fname.endswith("env_var")) \
                or fname in ("get_bool_env_var", "get_int_env_var", "envs_is_set", "EnvBool", "EnvInt"):
            for arg in node.args[:1]:
                if isinstance(arg, ast.Constant) and isinstance(arg.value, str) and ENV_NAME.match(arg.value):
                    # `.get("VLLM_X")` on anything that is not os.environ is rare enough for these prefixes
                    self.env.add(arg.value)
        self.generic_visit(node)

    def visit_Subscript(self, node):
        if isinstance(node.value, ast.Attribute) and node.value.attr == "environ":
            s = node.slice
            if isinstance(s, ast.Constant) and isinstance(s.value, str) and ENV_NAME.match(s.value):
                self.env.add(s.value)
        self.generic_visit(node)


def literal(node: ast.AST, consts: dict[str, ast.AST], depth: int = 0):
    """A list of string choices from a literal, a named constant, `A + B`, `list(X.keys())`, a Literal[...]."""
    if depth > 6 or node is None:
        return None
    if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
        out = []
        for e in node.elts:
            if isinstance(e, ast.Constant) and isinstance(e.value, (str, int)):
                out.append(str(e.value))
            else:
                sub = literal(e, consts, depth + 1)
                if sub is None:
                    return None  # a part the source does not spell out: a partial list would reject real values
                out.extend(sub)
        return out
    if isinstance(node, ast.Dict):
        return [str(k.value) for k in node.keys if isinstance(k, ast.Constant)]
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    if isinstance(node, ast.Constant) and node.value is None:
        return []  # `Literal[...] | None`: no choice of its own
    if isinstance(node, ast.Name):
        return literal(consts.get(node.id), consts, depth + 1)
    if isinstance(node, ast.Attribute):
        return literal(consts.get(node.attr), consts, depth + 1)
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.BitOr)):
        a, b = literal(node.left, consts, depth + 1), literal(node.right, consts, depth + 1)
        return a + b if a is not None and b is not None else None
    if isinstance(node, ast.Call):
        fn = node.func
        if isinstance(fn, ast.Attribute) and fn.attr == "keys":
            return literal(fn.value, consts, depth + 1)
        if isinstance(fn, ast.Name) and fn.id in ("list", "tuple", "sorted", "set", "get_args") and node.args:
            return literal(node.args[0], consts, depth + 1)
    if isinstance(node, ast.Subscript):
        base = node.value
        bname = base.attr if isinstance(base, ast.Attribute) else getattr(base, "id", "")
        if bname in ("A", "Annotated") and isinstance(node.slice, ast.Tuple):
            return literal(node.slice.elts[0], consts, depth + 1)
        if bname == "Literal":
            return literal(node.slice if not isinstance(node.slice, ast.Tuple) else node.slice, consts, depth + 1)
        if bname in ("Optional", "Union"):
            return literal(node.slice, consts, depth + 1)
        if isinstance(node.value, ast.Name):  # a dict constant indexed
            return None
    return None


SKIP = re.compile(r"(?:^|/)(?:tests?|benchmarks?|multimodal_gen|_vendor)/|(?:^|/)test_[^/]*\.py$")
# the modules every traceback passes some of (engine loop, workers, executors, scheduler, entry points, loaders) and
# the Qwen model files: their functions' line spans date a traceback; the rest of the source would only make the
# table larger (model files of other families, kernels, configs)
LINE_MODULES = {
    "vllm": re.compile(r"^vllm/(?:v1/(?:engine|worker|executor|core|spec_decode|attention)/|executor/|worker/|engine/|"
                       r"entrypoints/|model_executor/model_loader/|model_executor/models/qwen\w*\.py$|"
                       r"distributed/parallel_state\.py$|compilation/(?:backends|cuda_graph|piecewise_backend|wrapper|"
                       r"decorators)\.py$)"),
    "sglang": re.compile(r"^sglang/srt/(?:managers/|model_executor/|entrypoints/|model_loader/|mem_cache/|speculative/|"
                         r"models/qwen\w*\.py$)"),
}
LINES_VERSION = 1  # bump when the line extraction changes; per-release results cached beside the slim zips
FILE_CACHE: dict[str, dict] = {}  # sha1 of a file's text -> what it contributes (releases share most files)
EXTRACT_VERSION = 7  # bump when extraction changes; per-release results cached beside the slim zips


def is_parser_file(pkg: str, name: str) -> bool:
    # vLLM's frontend flags moved: entrypoints/openai/cli_args.py, launchers/cli_args.py (0.29-0.32),
    # common/cli_args.py (0.33 on)
    return name in PARSER_FILES[pkg] or (pkg == "vllm" and name.startswith("vllm/entrypoints/")
                                         and name.endswith("/cli_args.py"))


def wants_consts(pkg: str, name: str) -> bool:
    """Files whose module-level constants and classes can give a serve flag its choices or fields."""
    return (is_parser_file(pkg, name) or "/config" in name or name.endswith(("envs.py", "constants.py", "arg_utils.py"))
            or name.startswith(("sglang/srt/server_args", "sglang/srt/arg_groups", "vllm/engine/", "vllm/entrypoints/openai/"))
            or name.endswith("/utils/__init__.py") or name in ("vllm/utils.py", "sglang/srt/utils.py"))


# the files that register the parsers --tool-call-parser and --reasoning-parser name (vLLM:
# entrypoints/openai/tool_parsers/, tool_parsers/, reasoning/; SGLang: function_call(_parser), reasoning_parser)
REGISTRY_FILE = re.compile(r"tool_parser|reasoning|function_call")


def is_registry_file(name: str) -> bool:
    return bool(REGISTRY_FILE.search(name))


def registry_choice(target: str) -> str | None:
    """The flag whose values a registry named `target` holds (a manager class, a dict of names)."""
    upper = target.upper()
    if "TOOL" in upper and "PARSER" in upper or target == "ToolCallParserEnum":
        return "--tool-call-parser"
    if "REASONING" in upper and "PARSER" in upper or target == "DetectorMap":
        return "--reasoning-parser"
    return None


def parser_names(tree: ast.Module) -> set[str]:
    """`--tool-call-parser=NAME` / `--reasoning-parser=NAME` for every parser a registry file registers: vLLM's
    `@ToolParserManager.register_module("hermes")` (a name, a list, `name=`), its lazy tables
    (`_TOOL_PARSERS_TO_REGISTER = {"hermes": (module, class)}`), SGLang's `ToolCallParserEnum` and `DetectorMap`
    dicts. These flags take any registered name and are checked at start-up, not by argparse, so the parser's
    choices alone miss them."""
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                and node.func.attr in ("register_module", "register_lazy_module"):
            owner = node.func.value
            flag = registry_choice(owner.id if isinstance(owner, ast.Name) else getattr(owner, "attr", ""))
            given = list(node.args[:1]) + [k.value for k in node.keywords if k.arg in ("name", "names")]
            for arg in given if flag else ():
                for value in literal(arg, {}) or ():
                    out.add(f"{flag}={value}")
        elif isinstance(node, (ast.Assign, ast.AnnAssign)) and isinstance(node.value, ast.Dict):
            for target in node.targets if isinstance(node, ast.Assign) else [node.target]:
                name = target.id if isinstance(target, ast.Name) else getattr(target, "attr", "")
                flag = registry_choice(name)
                if flag:
                    out.update(f"{flag}={k.value}" for k in node.value.keys
                               if isinstance(k, ast.Constant) and isinstance(k.value, str))
    return out


def module_names(body: list[ast.stmt]) -> set[str]:
    """The public classes a module defines, also inside its top-level `if` / `try` blocks: what `from m import X`
    finds besides its functions. (Not its assignments: `X = argparse.ArgumentParser` under `if TYPE_CHECKING: ...
    else:` would make every module that types with a class look like the class's home.)"""
    out: set[str] = set()
    for node in body:
        if isinstance(node, ast.ClassDef):
            out.add(node.name)
        elif isinstance(node, ast.If):
            out |= module_names(node.body) | module_names(node.orelse)
        elif isinstance(node, ast.Try):
            out |= module_names(node.body) | module_names(node.orelse) | module_names(node.finalbody)
            for handler in node.handlers:
                out |= module_names(handler.body)
    return {n for n in out if not n.startswith("_")}


def file_facts(pkg: str, name: str, text: str) -> dict | None:
    key = hashlib.sha1(name.encode() + b"\0" + text.encode("utf-8", "replace")).hexdigest()
    if key in FILE_CACHE:
        return FILE_CACHE[key]
    try:
        tree = ast.parse(text)
    except SyntaxError:
        FILE_CACHE[key] = None
        return None
    module = name[:-3].replace("/", ".").removesuffix(".__init__")
    m = Module(name, tree)
    out = {"func": {f"{module}:{f}" for f in m.funcs | module_names(tree.body)},
           "raise": {f"{exc}\t{name}\t{fn}\t{msg}" for exc, fn, msg in m.raises},
           "env": set(m.env), "arch": set(), "tree": tree if wants_consts(pkg, name) else None,
           "parsers": parser_names(tree) if is_registry_file(name) else set()}
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            target = node.targets[0].id
            # vLLM's registry: module-level dicts of architecture -> (module, class)
            if pkg == "vllm" and name.endswith("models/registry.py") and target.endswith("_MODELS") \
                    and isinstance(node.value, ast.Dict):
                out["arch"].update(k.value for k in node.value.keys if isinstance(k, ast.Constant) and isinstance(k.value, str))
            if pkg == "sglang" and target == "EntryClass" and "/models/" in name:
                vals = node.value.elts if isinstance(node.value, (ast.List, ast.Tuple)) else [node.value]
                out["arch"].update(v.id if isinstance(v, ast.Name) else v.attr for v in vals
                                   if isinstance(v, (ast.Name, ast.Attribute)))
        elif isinstance(node, ast.ClassDef) and node.name == "Envs" and name.endswith("environ.py"):
            for item in node.body:
                target = item.targets[0] if isinstance(item, ast.Assign) else getattr(item, "target", None)
                if isinstance(target, ast.Name) and ENV_NAME.match(target.id):
                    out["env"].add(target.id)
        # vllm/envs.py: `environment_variables: dict[...] = {"VLLM_X": lambda: ..., ...}`
        if name == "vllm/envs.py" and isinstance(node, (ast.Assign, ast.AnnAssign)) and isinstance(node.value, ast.Dict):
            out["env"].update(k.value for k in node.value.keys
                              if isinstance(k, ast.Constant) and isinstance(k.value, str) and ENV_NAME.match(k.value))
    FILE_CACHE[key] = out
    return out


def parsed_modules(archive: Path, pkg: str, wanted):
    """(module, syntax tree) of each source file of one release that `wanted(path)` keeps (tests never; a file that
    does not parse is left out)."""
    for name, text in sources(archive, pkg):
        if SKIP.search(name) or not wanted(name):
            continue
        try:
            tree = ast.parse(text)
        except SyntaxError:
            continue
        yield name[:-3].replace("/", ".").removesuffix(".__init__"), tree


def collect_lines(archive: Path, pkg: str) -> set[str]:
    """`module:function:first-last` for every function of the LINE_MODULES files of one release."""
    out: set[str] = set()
    for module, tree in parsed_modules(archive, pkg, LINE_MODULES[pkg].match):
        out.update(f"{module}:{n.name}:{n.lineno}-{n.end_lineno}" for n in ast.walk(tree)
                   if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)))
    return out


# the model files of other families (a third of the surface, and no caller outside the engine builds them)
API_SKIP = re.compile(r"/models/(?!qwen)[^/]+\.py$")
API_VERSION = 1  # bump when the api extraction changes; per-release results cached beside the slim zips


def _signature(fn: ast.FunctionDef | ast.AsyncFunctionDef, method: bool) -> list[str]:
    """The names a call can pass: every parameter (`self` / `cls` of a method dropped), `*` for `*args` and `**` for
    `**kwargs` (a function with `**` accepts any keyword)."""
    a = fn.args
    names = [x.arg for x in a.posonlyargs + a.args + a.kwonlyargs]
    if method and names and names[0] in ("self", "cls") and not any(
            isinstance(d, ast.Name) and d.id == "staticmethod" for d in fn.decorator_list):
        names = names[1:]
    return names + (["*"] if a.vararg else []) + (["**"] if a.kwarg else [])


def _class_shape(cls: ast.ClassDef) -> dict:
    """What a class defines itself: its `__init__`'s signature (None without one), its annotated fields (a dataclass,
    msgspec Struct or pydantic model takes them as keywords), every method's signature, and the attributes an
    instance has: methods, class-level names, `self.x = ...` in any method."""
    init, fields, methods, attrs = None, [], {}, set()
    for item in cls.body:
        if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
            if item.name == "__init__":
                init = _signature(item, True)
            elif not item.name.startswith("__"):
                methods[item.name] = _signature(item, True)
                attrs.add(item.name)
            for sub in ast.walk(item):
                targets = sub.targets if isinstance(sub, ast.Assign) else [sub.target] if isinstance(
                    sub, (ast.AnnAssign, ast.AugAssign)) else []
                for t in targets:
                    for el in (t.elts if isinstance(t, ast.Tuple) else [t]):
                        if isinstance(el, ast.Attribute) and isinstance(el.value, ast.Name) and el.value.id == "self":
                            attrs.add(el.attr)
        elif isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name):
            attrs.add(item.target.id)
            if "ClassVar" not in ast.unparse(item.annotation):
                fields.append(item.target.id)
        elif isinstance(item, ast.Assign):
            attrs.update(t.id for t in item.targets if isinstance(t, ast.Name))
    bases = [b.id if isinstance(b, ast.Name) else b.attr for b in cls.bases if isinstance(b, (ast.Name, ast.Attribute))]
    return {"init": init, "fields": fields, "methods": methods, "attrs": attrs, "bases": bases}


def _top_level(body: list[ast.stmt]):
    """A module's top-level functions and classes, also inside its top-level `if` / `try` blocks."""
    for node in body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            yield node
        elif isinstance(node, ast.If):
            yield from _top_level(node.body + node.orelse)
        elif isinstance(node, ast.Try):
            yield from _top_level(node.body + node.orelse + node.finalbody
                                  + [s for h in node.handlers for s in h.body])


# a private method, attribute or parameter (`C._add_request`, `self._x`, `f(_p`): callers outside the engine seldom
# touch them, and they are two fifths of the table
_PRIVATE = re.compile(r"[.(]_")


def collect_api(archive: Path, pkg: str) -> set[str]:
    """The public surface a caller outside the engine meets, for one release: `module:f(p` for each parameter `p`
    of a top-level function, `module:C(p` for what constructing class C takes (its `__init__`'s parameters, else
    its and its bases' annotated fields, else its first base's constructor), `module:C.m(p` for a method's, and
    `module:C.a` for each attribute an instance has (its own and its bases' within the package). A base class
    from outside the package adds nothing: the table only says what a release had, never what it lacked."""
    shapes: dict[str, dict] = {}   # class name -> shape (first definition wins: names are mostly unique)
    where: list[tuple[str, str]] = []
    out: set[str] = set()
    for module, tree in parsed_modules(archive, pkg, lambda name: not API_SKIP.search(name)):
        for node in _top_level(tree.body):
            if node.name.startswith("_"):
                continue
            if isinstance(node, ast.ClassDef):
                shapes.setdefault(node.name, _class_shape(node))
                where.append((module, node.name))
            else:
                out.update(f"{module}:{node.name}({p}" for p in _signature(node, False))

    def resolve(cls: str, seen: frozenset = frozenset()) -> tuple[list[str] | None, set[str], dict]:
        shape = shapes.get(cls)
        if shape is None or cls in seen:
            return None, set(), {}
        seen = seen | {cls}
        inherited = [resolve(b, seen) for b in shape["bases"]]
        attrs = set(shape["attrs"]).union(*(a for _, a, _ in inherited))
        methods = {k: v for _, _, m in reversed(inherited) for k, v in m.items()} | shape["methods"]
        if shape["init"] is not None:
            ctor = shape["init"]
        else:
            fields = [f for b in shape["bases"] for f in (shapes[b]["fields"] if b in shapes and b not in seen else [])]
            fields += shape["fields"]
            ctor = fields or next((c for c, _, _ in inherited if c is not None), None)
        return ctor, attrs, methods

    for module, cls in where:
        ctor, attrs, methods = resolve(cls)
        out.update(f"{module}:{cls}({p}" for p in ctor or [])
        out.update(f"{module}:{cls}.{a}" for a in attrs)
        for meth, sig in methods.items():
            out.update(f"{module}:{cls}.{meth}({p}" for p in sig)
    return out


def collect(archive: Path, pkg: str, flags_only: bool = False) -> dict[str, set[str]]:
    """Every kind of fact of one release (flags_only: just flags and choices, reading only the parser's files)."""
    facts = {"flags": set(), "choices": set(), "env": set(), "arch": set(), "func": set(), "raise": set()}
    consts: dict[str, ast.AST] = {}
    classes: dict[str, ast.ClassDef] = {}
    namespaces: list[ast.ClassDef] = []  # SGLang 0.5.20 on: ServerArgs' fields live in arg_groups/fields/*.py
    parser_trees = []
    for name, text in sources(archive, pkg):
        if SKIP.search(name) or (flags_only and not wants_consts(pkg, name) and not is_registry_file(name)):
            continue
        got = file_facts(pkg, name, text)
        if got is None:
            continue
        facts["choices"].update(got["parsers"])
        for kind in ("func", "raise", "env", "arch"):
            facts[kind].update(got[kind])
        tree = got["tree"]
        if tree is None:
            continue
        for node in tree.body:
            if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
                consts.setdefault(node.targets[0].id, node.value)
            elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.value is not None:
                consts.setdefault(node.target.id, node.value)
            elif isinstance(node, ast.ClassDef):
                classes.setdefault(node.name, node)
                if pkg == "sglang" and "/arg_groups/fields/" in name:
                    namespaces.append(node)
        if is_parser_file(pkg, name):
            parser_trees.append((name, tree))
    for name, tree in parser_trees:
        flags_of(tree, consts, classes, facts, namespaces)
    return facts


def dataclass_fields(cls: ast.ClassDef, classes: dict[str, ast.ClassDef], depth: int = 0) -> dict[str, ast.AST]:
    out: dict[str, ast.AST] = {}
    if depth < 4:
        for base in cls.bases:
            bname = base.id if isinstance(base, ast.Name) else getattr(base, "attr", None)
            if bname in classes and classes[bname] is not cls:
                out.update(dataclass_fields(classes[bname], classes, depth + 1))
    for item in cls.body:
        if isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name) and not item.target.id.startswith("_"):
            if "ClassVar" not in ast.unparse(item.annotation):
                out[item.target.id] = item.annotation
    return out


def annotated_flags(cls: ast.ClassDef, classes, consts, facts) -> None:
    for field, ann in dataclass_fields(cls, classes).items():
        if not (isinstance(ann, ast.Subscript) and isinstance(ann.slice, ast.Tuple) and len(ann.slice.elts) >= 2
                and getattr(ann.value, "id", getattr(ann.value, "attr", "")) in ("A", "Annotated")):
            continue
        meta = ann.slice.elts[1]
        names, choices = [flag_name(field)], None
        if isinstance(meta, ast.Call):
            kw = {k.arg: k.value for k in meta.keywords if k.arg}
            if isinstance(kw.get("no_cli"), ast.Constant) and kw["no_cli"].value is True:
                continue
            if isinstance(kw.get("cli_name"), ast.Constant):
                names = [kw["cli_name"].value]
            names += [a for a in (literal(kw.get("aliases"), consts) or ()) if a.startswith("-")]
            if "choices" in kw:
                choices = literal(kw["choices"], consts)
        elif not (isinstance(meta, ast.Constant) and isinstance(meta.value, str)):
            continue
        if choices is None:
            choices = literal(ann.slice.elts[0], consts)
        for n in names:
            facts["flags"].add(n)
            for choice in choices or ():
                facts["choices"].add(f"{n}={choice}")


def flag_name(field: str) -> str:
    return "--" + field.replace("_", "-")


def flags_of(tree: ast.Module, consts, classes, facts, namespaces=()) -> None:
    """Every `add_argument` of the parser files; `**kw["field"]` and loops over `get_kwargs(Cls)` take their
    choices from the dataclass field's Literal type."""
    kw_class: dict[str, str] = {}  # variable -> config class, from `x = get_kwargs(Cls)`
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call) and node.value.args:
            fn = node.value.func
            fname = fn.attr if isinstance(fn, ast.Attribute) else getattr(fn, "id", "")
            arg = node.value.args[0]
            if fname == "get_kwargs" and isinstance(arg, ast.Name) and isinstance(node.targets[0], ast.Name) \
                    and node.targets[0].id not in kw_class:
                kw_class[node.targets[0].id] = arg.id
    for node in ast.walk(tree):
        # SGLang (0.5.16 on): `add_cli_args_from_dataclass(parser, ServerArgs)` reads `A[T, Arg(...)]` fields
        if isinstance(node, ast.Call) and getattr(node.func, "id", getattr(node.func, "attr", "")) \
                == "add_cli_args_from_dataclass" and len(node.args) >= 2 and isinstance(node.args[1], ast.Name) \
                and node.args[1].id in classes:
            annotated_flags(classes[node.args[1].id], classes, consts, facts)
            if node.args[1].id == "ServerArgs":
                for ns in namespaces:
                    annotated_flags(ns, classes, consts, facts)
        # `for arg, type in [("--guided-decoding-backend", str), ...]: group.add_argument(arg, ..., deprecated=True)`
        if isinstance(node, ast.For) and isinstance(node.iter, (ast.List, ast.Tuple)):
            target = node.target.elts[0] if isinstance(node.target, ast.Tuple) and node.target.elts else node.target
            if isinstance(target, ast.Name) and any(
                    isinstance(c, ast.Call) and getattr(c.func, "attr", "") == "add_argument" and c.args
                    and isinstance(c.args[0], ast.Name) and c.args[0].id == target.id for c in ast.walk(node)):
                for elt in node.iter.elts:
                    first = elt.elts[0] if isinstance(elt, ast.Tuple) and elt.elts else elt
                    if isinstance(first, ast.Constant) and isinstance(first.value, str) and first.value.startswith("--"):
                        facts["flags"].add(first.value)
        # `for name, kwargs in get_kwargs(FrontendArgs).items(): parser.add_argument(f"--{...}", **kwargs)`
        if isinstance(node, ast.For):
            it = node.iter
            calls = [c for c in ast.walk(it) if isinstance(c, ast.Call)]
            for c in calls:
                fn = c.func
                fname = fn.attr if isinstance(fn, ast.Attribute) else getattr(fn, "id", "")
                if fname in ("get_kwargs", "fields") and c.args and isinstance(c.args[0], ast.Name) \
                        and c.args[0].id in classes:
                    if any(isinstance(s, ast.Call) and getattr(s.func, "attr", "") == "add_argument"
                           for s in ast.walk(node)):
                        for field, ann in dataclass_fields(classes[c.args[0].id], classes).items():
                            facts["flags"].add(flag_name(field))
                            for choice in literal(ann, consts) or ():
                                facts["choices"].add(f"{flag_name(field)}={choice}")
            if isinstance(it, ast.Call) and getattr(it.func, "attr", "") == "items" \
                    and isinstance(it.func.value, ast.Name) and it.func.value.id in kw_class:
                cls = kw_class[it.func.value.id]
                targets = [classes[cls]] if cls in classes else []
                if cls == "cls":  # a classmethod: the class it is defined on and the subclasses in the same file
                    owner = next((c for c in ast.walk(tree) if isinstance(c, ast.ClassDef)
                                  and any(n is node for n in ast.walk(c))), None)
                    if owner is not None:
                        targets = [owner] + [c for c in tree.body if isinstance(c, ast.ClassDef)
                                             and any(getattr(b, "id", "") == owner.name for b in c.bases)]
                for target in targets:
                    for field, ann in dataclass_fields(target, classes).items():
                        facts["flags"].add(flag_name(field))
                        for choice in literal(ann, consts) or ():
                            facts["choices"].add(f"{flag_name(field)}={choice}")
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "add_argument"):
            continue
        names = [a.value for a in node.args if isinstance(a, ast.Constant) and isinstance(a.value, str) and a.value.startswith("--")]
        if not names:
            continue
        choices = None
        for k in node.keywords:
            if k.arg == "choices":
                choices = literal(k.value, consts)
            elif k.arg is None and isinstance(k.value, ast.Subscript) and isinstance(k.value.value, ast.Name):
                var, key = k.value.value.id, k.value.slice
                if var in kw_class and isinstance(key, ast.Constant) and kw_class[var] in classes:
                    ann = dataclass_fields(classes[kw_class[var]], classes).get(key.value)
                    if ann is not None and choices is None:
                        choices = literal(ann, consts)
        for n in names:
            facts["flags"].add(n)
            # argparse's BooleanOptionalAction adds --no-X
            if any(k.arg == "action" and "BooleanOptional" in ast.unparse(k.value) for k in node.keywords):
                facts["flags"].add("--no-" + n[2:])
            for choice in choices or ():
                facts["choices"].add(f"{n}={choice}")


# ---------------------------------------------------------------- intervals

KINDS = ("flags", "choices", "env", "arch", "func", "raise", "lines", "api")


def intervals(present: list[int]) -> list[int]:
    """Sorted release indexes -> flat [first, last, first, last, ...]."""
    out: list[int] = []
    for i in present:
        if out and out[-1] == i - 1:
            out[-1] = i
        else:
            out += [i, i]
    return out


def build(per_release: dict[str, dict[str, set[str]]]) -> dict:
    releases = sorted(per_release, key=Version)
    tables: dict[str, dict[str, list[int]]] = {}
    for kind in KINDS:
        seen: dict[str, list[int]] = {}
        for i, r in enumerate(releases):
            for fact in per_release[r][kind]:
                seen.setdefault(fact, []).append(i)
        tables[kind] = {fact: intervals(idx) for fact, idx in sorted(seen.items())}
    return {"releases": releases, **tables}


# ---------------------------------------------------------------- checks against known facts

KNOWN = [
    ("vllm", "flags", "--gdn-prefill-backend", "0.18.0", "first"),
    ("vllm", "flags", "--task", "0.12.0", "last"),
    ("vllm", "env", "VLLM_DEEP_GEMM_WARMUP", "0.11.1", "first"),
    ("sglang", "flags", "--cuda-graph-max-bs", "0.5.19", "last"),
    # the parser registries (vLLM's release notes: the qwen3 reasoning parser in 0.9.0, qwen3_coder in 0.10.0)
    ("vllm", "choices", "--reasoning-parser=qwen3", "0.9.0", "first"),
    ("vllm", "choices", "--tool-call-parser=qwen3_coder", "0.10.0", "first"),
    # LLM.generate's prompt_token_ids keyword, removed in 0.10.2 (verl's old rollout still passed it)
    ("vllm", "api", "vllm.entrypoints.llm:LLM.generate(prompt_token_ids", "0.10.1.1", "last"),
]


def first_last(engine: dict, kind: str, fact: str) -> tuple[str, str] | None:
    iv = engine[kind].get(fact)
    if not iv:
        return None
    return engine["releases"][iv[0]], engine["releases"][iv[-1]]


def check(index: dict, kinds: tuple[str, ...] = KINDS) -> list[str]:
    problems = []
    for eng, kind, fact, version, end in KNOWN:
        if eng not in index["engines"] or version not in index["engines"][eng]["releases"] or kind not in kinds:
            continue
        span = first_last(index["engines"][eng], kind, fact)
        got = span[0 if end == "first" else 1] if span else None
        status = "ok" if got == version else "WRONG"
        if status != "ok":
            problems.append(f"{eng} {fact}: {end} release {got}, expected {version}")
        print(f"check {status}: {eng} {kind} {fact} {end} release {got} (expected {version})")
    return problems



def packed_lines(facts: dict[str, list[int]]) -> dict[str, str]:
    """The lines table by module, each module's part a JSON string of `{function: [[first, last, *intervals], ...]}`:
    a lookup parses the outer object and then only the modules its frames are in."""
    by_module: dict[str, dict[str, list[list[int]]]] = {}
    for fact, iv in facts.items():
        key, _, span = fact.rpartition(":")
        module, _, function = key.partition(":")
        first, _, last = span.partition("-")
        by_module.setdefault(module, {}).setdefault(function, []).append([int(first), int(last), *iv])
    return {m: json.dumps(f, separators=(",", ":"), sort_keys=True) for m, f in sorted(by_module.items())}


def packed_api(facts: dict[str, list[int]]) -> dict[str, str]:
    """The api table by module, each module's part a JSON string of `{"C.m(p": intervals, ...}`: a lookup knows the
    callee's modules from the function table and parses only those (the whole table is some 20 MB as JSON)."""
    by_module: dict[str, dict[str, list[int]]] = {}
    for fact, iv in facts.items():
        module, _, rest = fact.partition(":")
        by_module.setdefault(module, {})[rest] = iv
    return {m: json.dumps(f, separators=(",", ":"), sort_keys=True) for m, f in sorted(by_module.items())}


def write(index: dict, folder: Path, kinds: tuple[str, ...] = KINDS) -> None:
    """One gzip'd JSON per engine and kind, so a lookup of a flag never pays for the function table."""
    folder.mkdir(parents=True, exist_ok=True)
    total = 0
    for pkg, engine in index["engines"].items():
        for kind in kinds:
            facts = packed_lines(engine[kind]) if kind == "lines" else packed_api(engine[kind]) if kind == "api" \
                else engine[kind]
            data = json.dumps({"format": index["format"], "releases": engine["releases"], "facts": facts},
                              separators=(",", ":"), sort_keys=True).encode()
            buf = io.BytesIO()
            with gzip.GzipFile(fileobj=buf, mode="wb", mtime=0, compresslevel=9) as gz:
                gz.write(data)
            (folder / f"{pkg}-{kind}.json.gz").write_bytes(buf.getvalue())
            total += len(buf.getvalue())
            print(f"  {pkg}-{kind}.json.gz: {len(engine[kind])} facts, {len(buf.getvalue()) // 1024} KiB "
                  f"({len(data) // 1024} KiB as JSON)")
    print(f"wrote {folder}: {total // 1024} KiB in all")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cache", type=Path, default=Path("/work/cache-releases"),
                    help="folder for the slim source zips (keep it outside the repository)")
    ap.add_argument("--out", type=Path, default=OUT)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--offline", action="store_true", help="use only releases already in the cache")
    ap.add_argument("--engines", default="vllm,sglang")
    ap.add_argument("--part", default="", help="i/n: extract only the i-th of n contiguous slices of each "
                    "engine's releases and write nothing (run n of these at once, then a run without --part)")
    ap.add_argument("--versions", default="", help="pkg==ver,... instead of listing the index (for tests)")
    ap.add_argument("--kinds", default=",".join(KINDS),
                    help="the tables to write (flags,choices: reads only the parser's and the parser registries' files, "
                    "minutes in all); the others are left as they are")
    ap.add_argument("--same-releases", action="store_true",
                    help="the releases the written index already lists, not the published ones (to rewrite some tables "
                    "without adding releases to them alone)")
    args = ap.parse_args(argv)
    engines = [e for e in args.engines.split(",") if e]
    kinds = tuple(k for k in args.kinds.split(",") if k)
    if set(kinds) - set(KINDS):
        raise SystemExit(f"--kinds: not a table: {', '.join(sorted(set(kinds) - set(KINDS)))}")
    flags_only = set(kinds) <= {"flags", "choices"}
    wanted: dict[str, list[str]] = {}
    if args.same_releases:
        for pkg in engines:
            with gzip.open(args.out / f"{pkg}-flags.json.gz") as f:
                wanted[pkg] = json.load(f)["releases"]
    elif args.versions:
        for spec in args.versions.split(","):
            pkg, ver = spec.split("==")
            wanted.setdefault(pkg, []).append(ver)
    elif args.offline:
        for pkg in engines:
            wanted[pkg] = sorted((p.name[len(pkg) + 1:-len(".py.zip")] for p in (args.cache / pkg).glob(f"{pkg}-*.py.zip")),
                                 key=Version)
    else:
        wanted = {pkg: published(pkg) for pkg in engines}
    if args.part:
        i, n = (int(x) for x in args.part.split("/"))
        wanted = {pkg: vs[len(vs) * i // n: len(vs) * (i + 1) // n] for pkg, vs in wanted.items()}
    per: dict[str, dict[str, dict[str, set[str]]]] = {pkg: {} for pkg in wanted}

    def one(pkg: str, ver: str):
        status = "cached" if slim_path(args.cache, pkg, ver).exists() else fetch(args.cache, pkg, ver)
        if status.startswith("FAILED"):
            return pkg, ver, status, None
        part = "flags" if flags_only else "facts"
        done = args.cache / pkg / f"{pkg}-{ver}.{part}-v{EXTRACT_VERSION}.json"
        if set(kinds) <= {"lines", "api"}:
            facts = {k: set() for k in KINDS}
        elif done.exists():
            status += ", extracted before"
            facts = {k: set(v) for k, v in json.loads(done.read_text()).items()}
        else:
            facts = collect(slim_path(args.cache, pkg, ver), pkg, flags_only)
            done.write_text(json.dumps({k: sorted(v) for k, v in facts.items()}))
        # the tables read by their own passes, each cached beside the slim zip under its own extraction version
        for kind, version, read in (("lines", LINES_VERSION, collect_lines), ("api", API_VERSION, collect_api)):
            cached = args.cache / pkg / f"{pkg}-{ver}.{kind}-v{version}.json"
            if kind not in kinds:
                facts[kind] = set()
            elif cached.exists():
                facts[kind] = set(json.loads(cached.read_text()))
            else:
                facts[kind] = read(slim_path(args.cache, pkg, ver), pkg)
                cached.write_text(json.dumps(sorted(facts[kind])))
        facts["api"] = {f for f in facts["api"] if not _PRIVATE.search(f)}
        return pkg, ver, status, facts

    with cf.ThreadPoolExecutor(max(1, args.jobs)) as ex:
        for pkg, ver, status, facts in ex.map(lambda a: one(*a), [(p, v) for p, vs in wanted.items() for v in vs]):
            if facts is not None:
                per[pkg][ver] = facts
                counts = " ".join(f"{k}={len(v)}" for k, v in facts.items())
                print(f"{pkg} {ver}: {status}; {counts}", flush=True)
            else:
                print(f"{pkg} {ver}: {status}", flush=True)
    if args.part:
        return 0
    index = {"format": 1, "engines": {pkg: build(rels) for pkg, rels in per.items() if rels}}
    write(index, args.out, kinds)
    problems = check(index, kinds)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
