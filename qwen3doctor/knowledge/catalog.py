"""Find rules/**/*.yaml, validate every field (naming file, line and field), compile once, index.

A rule file is parsed with PyYAML's safe composer so every key keeps its line; anchors and aliases are
refused (no alias bombs), and so is a file over MAX_RULE_BYTES. All problems of all files are collected
before `load_catalog` raises RuleError.
"""

from __future__ import annotations

import difflib
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import regex
import yaml

from .. import vocab
from ..errors import RuleError
from .discover import ENGINE_DIRS, rule_files
from .generic import GENERIC_EXCEPTIONS, GENERIC_FRAMES, GENERIC_MESSAGES, ORDINARY_LINES
from .patterns import compile_pattern, literal_anchors
from ..read.literals import gate_of
from .rulecache import cached_compile
from ..model import STEP_NAMES, Clause, Fix, Rule
from ..read.phases import steps_of_frames
from ..versions import compile_range

MAX_RULE_BYTES = 256 * 1024
STATUSES = ("confirmed", "likely", "unconfirmed")
TOP_FIELDS = (
    "title", "status", "references", "aliases", "families", "libraries", "match", "supports", "when", "cause",
    "symptoms", "fixes", "fixed_in", "tests", "notes",
)
REQUIRED = ("title", "status", "references", "cause", "fixes", "tests")
CLAUSES = ("frames", "exception", "message", "log")
WHEN_FIELDS = ("engine_version", "quantization", "gpu", "compute_capability", "platform", "flags", "not_flags", "env")
FIX_FIELDS = ("title", "command", "cost", "engine_version", "drop", "platform")
FIXED_IN_FIELDS = ("version", "pr")
TEST_FIELDS = ("match", "no_match")
REFERENCE = regex.compile(r"^(?:vllm|sglang)#\d+$|^[\w.-]+/[\w.-]+#\d+$")
ID = regex.compile(r"^[a-z0-9][a-z0-9._-]*$")

PATTERN_TIMEOUT = 0.25  # seconds one rule pattern may spend on one piece of text


@dataclass
class Catalog:
    """The loaded rules, with their aliases and references indexed, and what loading skipped."""

    rules: dict[str, Rule] = field(default_factory=dict)
    by_alias: dict[str, str] = field(default_factory=dict)
    by_reference: dict[str, list[str]] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    derived: dict = field(default_factory=dict, repr=False, compare=False)  # built from the rules on first use (prefilters)

    def clauses(self, kinds: tuple[str, ...] = ("frames", "exception", "message", "log")):
        """(rule, clause) for every clause of the given kinds."""
        for rule in self.rules.values():
            for clause in rule.clauses():
                if clause.kind in kinds:
                    yield rule, clause

    def literals(self) -> set[tuple[str, bool]]:
        """Every literal the rules' clauses name (computed per rule when it is compiled)."""
        return set().union(*(rule.literals for rule in self.rules.values()))

    def log_anchors(self) -> set[tuple[str, bool]]:
        return set().union(*(rule.log_anchors for rule in self.rules.values()))

    def lookup(self, key: str) -> Rule | None:
        if key in self.rules:
            return self.rules[key]
        if key in self.by_alias:
            return self.rules[self.by_alias[key]]
        return None


# -- YAML with lines --------------------------------------------------------------------------------

class _Node:
    """A loaded YAML value with the line (1-based) of each mapping key and list item."""

    __slots__ = ("value", "line", "lines")

    def __init__(self, value: Any, line: int, lines: dict | None = None):
        self.value, self.line, self.lines = value, line, lines or {}


def _plain(node: yaml.Node, problems: list[str], where: str) -> Any:
    """Convert a composed node to plain values plus a parallel tree of lines."""
    if isinstance(node, yaml.MappingNode):
        out, lines = {}, {}
        for key_node, value_node in node.value:
            key = key_node.value if isinstance(key_node, yaml.ScalarNode) else str(key_node.value)
            out[key] = _plain(value_node, problems, where)
            lines[key] = key_node.start_mark.line + 1
        return _Node(out, node.start_mark.line + 1, lines)
    if isinstance(node, yaml.SequenceNode):
        items = [_plain(item, problems, where) for item in node.value]
        return _Node(items, node.start_mark.line + 1, {i: item.start_mark.line + 1 for i, item in enumerate(node.value)})
    return _Node(_scalar(node), node.start_mark.line + 1)


_CONSTRUCTOR = yaml.SafeLoader("")


def _scalar(node: yaml.Node) -> Any:
    try:
        return _CONSTRUCTOR.construct_object(node, deep=True)
    except yaml.YAMLError:
        return node.value


def _unwrap(node: Any) -> Any:
    if isinstance(node, _Node):
        if isinstance(node.value, dict):
            return {k: _unwrap(v) for k, v in node.value.items()}
        if isinstance(node.value, list):
            return [_unwrap(v) for v in node.value]
        return node.value
    return node


_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def _first_alias(root: yaml.Node | None) -> int | None:
    """The line of the first node reached twice (an alias), without expanding anything."""
    seen: set[int] = set()
    stack = [root] if root is not None else []
    while stack:
        node = stack.pop()
        if id(node) in seen:
            return node.start_mark.line + 1
        seen.add(id(node))
        if isinstance(node, yaml.MappingNode):
            for k, v in node.value:
                stack.extend((k, v))
        elif isinstance(node, yaml.SequenceNode):
            stack.extend(node.value)
    return None


def read_rule_file(path: Path, display: str) -> tuple[_Node | None, list[str]]:
    try:
        size = path.stat().st_size
    except OSError as exc:
        return None, [f"{display}: cannot read ({exc.strerror})"]
    if size > MAX_RULE_BYTES:
        return None, [f"{display}: rule file is {size} bytes, over the {MAX_RULE_BYTES} byte limit"]
    try:
        text = path.read_bytes().decode("utf-8")
    except UnicodeDecodeError as exc:
        return None, [f"{display}: not UTF-8 text (byte {exc.start})"]
    except OSError as exc:
        return None, [f"{display}: cannot read ({exc.strerror})"]
    try:
        node = yaml.compose(text, Loader=_LOADER)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 if mark else 1
        return None, [f"{display}:{line}: invalid YAML: {exc.problem or exc.context}"]
    except yaml.YAMLError as exc:
        return None, [f"{display}: invalid YAML: {exc}"]
    alias_line = _first_alias(node)
    if alias_line:
        return None, [f"{display}:{alias_line}: anchors and aliases are not allowed in rule files"]
    if node is None:
        return None, [f"{display}:1: empty rule file"]
    problems: list[str] = []
    tree = _plain(node, problems, display)
    if not isinstance(tree.value, dict):
        return None, [f"{display}:{tree.line}: a rule file must be a mapping of fields"]
    return tree, problems


# -- validation and compilation ---------------------------------------------------------------------

class _Checker:
    def __init__(self, display: str):
        self.display = display
        self.problems: list[str] = []

    def err(self, line: int, field_path: str, message: str) -> None:
        self.problems.append(f"{self.display}:{line}: {field_path}: {message}")

    def unknown_fields(self, node: _Node, allowed: tuple[str, ...], prefix: str) -> None:
        for key, line in node.lines.items():
            if key not in allowed:
                close = difflib.get_close_matches(str(key), allowed, n=1)
                hint = f' (did you mean "{close[0]}"?)' if close else f" (known: {', '.join(allowed)})"
                self.err(line, f"{prefix}{key}", f'unknown field "{key}"{hint}')

    def string(self, node: _Node | None, path: str, line: int) -> str | None:
        if node is None:
            return None
        if not isinstance(node.value, str) or not node.value.strip():
            self.err(node.line or line, path, "must be a non-empty string")
            return None
        return node.value

    def strings(self, node: _Node | None, path: str, line: int) -> list[tuple[str, int]]:
        """A string or a list of strings -> [(value, line)]."""
        if node is None:
            return []
        if isinstance(node.value, str):
            return [(node.value, node.line)]
        if not isinstance(node.value, list):
            self.err(node.line, path, "must be a string or a list of strings")
            return []
        out = []
        for i, item in enumerate(node.value):
            if not isinstance(item.value, str) or not item.value:
                self.err(item.line, f"{path}[{i}]", "must be a non-empty string")
            else:
                out.append((item.value, item.line))
        return out

    def pattern(self, source: str, path: str, line: int, *, kind: str = "plain") -> Any:
        try:
            return compile_pattern(kind, source)
        except (regex.error, OverflowError, RecursionError, ValueError) as exc:
            self.err(line, path, f"invalid regex {source!r}: {exc}")
            return None


def _is_generic(kind: str, patterns: tuple[Any, ...]) -> bool:
    if kind == "frames":
        return all(any(_safe_full(p, name) for name in GENERIC_FRAMES) for p in patterns)
    if kind == "exception":
        return all(any(_safe_full(p, name) for name in GENERIC_EXCEPTIONS) for p in patterns)
    if kind == "log":  # a healthy server's line, or one every crash of a class prints
        return all(any(safe_search(p, line) for line in ORDINARY_LINES + GENERIC_MESSAGES) for p in patterns)
    return all(any(safe_search(p, sample) for sample in GENERIC_MESSAGES) for p in patterns)


def _safe_full(pattern: Any, text: str) -> bool:
    try:
        return pattern.fullmatch(text, timeout=PATTERN_TIMEOUT) is not None
    except TimeoutError:
        return False


def safe_search(pattern: Any, text: str) -> bool:
    try:
        return pattern.search(text, timeout=PATTERN_TIMEOUT) is not None
    except TimeoutError:
        return False


def _clauses(c: _Checker, node: _Node, prefix: str, *, parts: bool = False) -> tuple[Clause, ...]:
    """A mapping of clauses. `parts` (a `match` alternative): a kind given as a list of lists is several clauses of
    that kind, each list ORed within and all of them required (a warning line *and* a failed-request line)."""
    if not isinstance(node.value, dict):
        c.err(node.line, prefix.rstrip("."), "must be a mapping of clauses (frames, exception, message, log)")
        return ()
    c.unknown_fields(node, CLAUSES, prefix)
    out = []
    for kind in CLAUSES:
        if kind not in node.value:
            continue
        value = node.value[kind]
        if parts and isinstance(value.value, list) and value.value and all(isinstance(v.value, list) for v in value.value):
            for n, inner in enumerate(value.value):
                made = _clause(c, kind, c.strings(inner, f"{prefix}{kind}[{n}]", inner.line), f"{prefix}{kind}[{n}]", n)
                if made is not None:
                    out.append(made)
                elif inner.value == []:
                    c.err(inner.line, f"{prefix}{kind}[{n}]", "is empty")
            continue
        if parts and isinstance(value.value, list) and any(isinstance(v.value, list) for v in value.value):
            n, first = next((n, v) for n, v in enumerate(value.value) if isinstance(v.value, list))
            c.err(first.line, f"{prefix}{kind}[{n}]", "mixes patterns and lists: give patterns (one clause, any may "
                  "hit) or only lists of patterns (one clause each, all must hit)")
            continue
        made = _clause(c, kind, c.strings(value, f"{prefix}{kind}", node.lines[kind]), f"{prefix}{kind}", 0,
                       listed=isinstance(value.value, list))
        if made is not None:
            out.append(made)
        elif value.value in ([], None):
            c.err(node.lines[kind], f"{prefix}{kind}", "is empty")
    return tuple(out)


def _clause(c: _Checker, kind: str, items: list[tuple[str, int]], path: str, part: int, *, listed: bool = True) -> Clause | None:
    """One clause from its patterns (None when none compiles)."""
    compiled, sources = [], []
    anchors: list[tuple[str, bool]] | None = []
    gates = []
    for i, (source, line) in enumerate(items):
        pat = c.pattern(source, f"{path}[{i}]" if listed else path, line, kind=kind)
        if pat is not None:
            compiled.append(pat)
            sources.append(source)
            gates.append(gate_of(source))
            found = literal_anchors(source)
            if found is None or anchors is None:
                anchors = None
            else:
                anchors.extend(found)
    if not compiled:
        return None
    generic_sources = tuple(src for src, pat in zip(sources, compiled) if _is_generic(kind, (pat,)))
    generic = len(generic_sources) == len(sources)
    return Clause(kind, tuple(sources), generic, tuple(sorted(set(anchors))) if anchors is not None else None,
                  tuple(gates), generic_sources, part)


def compile_rule(path: Path, display: str, engine_dir: str) -> tuple[Rule | None, list[str]]:
    tree, problems = read_rule_file(path, display)
    if tree is None:
        return None, problems
    c = _Checker(display)
    c.problems.extend(problems)
    doc: dict[str, _Node] = tree.value
    rule_id = path.stem
    if not ID.match(rule_id):
        c.err(1, "id", f"file name {path.name!r} is not a valid rule id (lowercase letters, digits, . _ -)")
    c.unknown_fields(tree, TOP_FIELDS, "")
    for name in REQUIRED:
        if name not in doc:
            c.err(tree.line, name, "missing required field")
    line = tree.lines.get
    title = c.string(doc.get("title"), "title", line("title", 1)) or ""
    status = c.string(doc.get("status"), "status", line("status", 1)) or ""
    if status and status not in STATUSES:
        c.err(line("status", 1), "status", f"must be one of {', '.join(STATUSES)}, not {status!r}")
    references = []
    for i, (ref, ln) in enumerate(c.strings(doc.get("references"), "references", line("references", 1))):
        if not REFERENCE.match(ref):
            c.err(ln, f"references[{i}]", f"{ref!r} is not vllm#N, sglang#N or owner/repo#N")
        references.append(ref)
    if "references" in doc and not references:
        c.err(line("references", 1), "references", "needs at least one issue")
    aliases = [a for a, _ in c.strings(doc.get("aliases"), "aliases", line("aliases", 1))]
    families = []
    # (`other`: a cause of models that are not Qwen3 - Gemma's audio path, a Mistral-format processor - which a log of
    # a known Qwen3 model never meets)
    known = vocab.FAMILIES + (vocab.OTHER,)
    for i, (fam, ln) in enumerate(c.strings(doc.get("families"), "families", line("families", 1))):
        if fam not in known:
            close = difflib.get_close_matches(fam, known, n=1)
            hint = f' (did you mean "{close[0]}"?)' if close else f" (known: {', '.join(known)})"
            c.err(ln, f"families[{i}]", f"unknown family {fam!r}{hint}")
        families.append(fam)
    libraries = []
    for i, (lib, ln) in enumerate(c.strings(doc.get("libraries"), "libraries", line("libraries", 1))):
        if lib not in vocab.LIBRARIES:
            close = difflib.get_close_matches(lib, vocab.LIBRARIES, n=1)
            hint = f' (did you mean "{close[0]}"?)' if close else f" (known: {', '.join(vocab.LIBRARIES)})"
            c.err(ln, f"libraries[{i}]", f"unknown library {lib!r}{hint}")
        libraries.append(lib)
    match: list[tuple[Clause, ...]] = []
    if "match" in doc:
        m = doc["match"]
        if isinstance(m.value, list):
            for i, alt in enumerate(m.value):
                clauses = _clauses(c, alt, f"match[{i}].", parts=True)
                if clauses:
                    match.append(clauses)
        else:
            clauses = _clauses(c, m, "match.", parts=True)
            if clauses:
                match.append(clauses)
    supports = _clauses(c, doc["supports"], "supports.") if "supports" in doc else ()
    when, raw_when = _when(c, doc.get("when"))
    cause = c.string(doc.get("cause"), "cause", line("cause", 1)) or ""
    symptoms = tuple(s for s, _ in c.strings(doc.get("symptoms"), "symptoms", line("symptoms", 1)))
    fixes = _fixes(c, doc.get("fixes"))
    fixed_in = _fixed_in(c, doc.get("fixed_in"))
    tests = _tests(c, doc.get("tests"), path.parent)
    notes = doc["notes"].value if "notes" in doc and isinstance(doc["notes"].value, str) else ""
    if c.problems:
        return None, c.problems
    every = [cl for alternative in match for cl in alternative] + list(supports)
    rule = Rule(
        id=rule_id, path=display, engines=ENGINE_DIRS.get(engine_dir, ("vllm", "sglang")), title=title,
        status=status, references=tuple(references), aliases=tuple(aliases), families=tuple(families),
        libraries=tuple(libraries),
        match=tuple(match), supports=supports, when=when, cause=" ".join(cause.split()), symptoms=symptoms,
        fixes=fixes, fixed_in=fixed_in, tests=tests, notes=notes, raw_when=raw_when,
        literals=frozenset(_literals(every)),
        log_anchors=frozenset(a for cl in every if cl.kind == "log" for a in cl.anchors or ()),
        frame_steps=steps_of_frames(name for cl in every if cl.kind == "frames" for name in cl.sources),
        match_anchors=clause_anchors(match),
        match_kinds=tuple(frozenset(cl.kind for cl in alternative) for alternative in match),
    )
    return rule, []


def clause_anchors(match) -> frozenset[tuple[str, bool]] | None:
    """Every anchor of the clauses (alternatives of clauses); None when a clause may hit on any log (it has no anchor,
    or it names a step, such as the import step, which hits on any traceback stopped while modules load)."""
    clauses = [cl for alternative in match for cl in alternative]
    if any(cl.anchors is None or cl.kind == "frames" and not STEP_NAMES.isdisjoint(cl.sources) for cl in clauses):
        return None
    return frozenset(a for cl in clauses for a in cl.anchors)


def _literals(clauses) -> set[tuple[str, bool]]:
    """(literal, caseless) for every literal the clauses' gates and anchors name: what the literal index
    looks for in the evidence."""
    out: set[tuple[str, bool]] = set()
    for clause in clauses:
        for gate in clause.gates or ():
            for lits, nocase in gate or ():
                out.update((lit, nocase) for lit in lits)
        out.update(clause.anchors or ())
    return out


def _when(c: _Checker, node: _Node | None) -> tuple[dict, dict]:
    if node is None:
        return {}, {}
    if not isinstance(node.value, dict):
        c.err(node.line, "when", "must be a mapping of conditions")
        return {}, {}
    c.unknown_fields(node, WHEN_FIELDS, "when.")
    out: dict[str, Any] = {}
    raw = _unwrap(node)
    v = node.value
    ln = node.lines.get
    for key in ("engine_version", "compute_capability"):
        if key in v:
            spec = c.string(v[key], f"when.{key}", ln(key, 1))
            if spec:
                try:
                    out[key] = compile_range(spec)
                except ValueError as exc:
                    c.err(ln(key, 1), f"when.{key}", str(exc))
    if "quantization" in v:
        quants = [q for q, _ in c.strings(v["quantization"], "when.quantization", ln("quantization", 1))]
        for q in quants:
            if q not in vocab.QUANTIZATIONS:
                close = difflib.get_close_matches(q, vocab.QUANTIZATIONS, n=1)
                hint = f' (did you mean "{close[0]}"?)' if close else f" (known: {', '.join(vocab.QUANTIZATIONS)})"
                c.err(ln("quantization", 1), "when.quantization", f"unknown quantization {q!r}{hint}")
        out["quantization"] = tuple(quants)
    if "platform" in v:
        plats = [p for p, _ in c.strings(v["platform"], "when.platform", ln("platform", 1))]
        for p in plats:
            if p not in vocab.PLATFORMS:
                c.err(ln("platform", 1), "when.platform", f"unknown platform {p!r} (known: {', '.join(vocab.PLATFORMS)})")
        out["platform"] = tuple(plats)
    if "gpu" in v:
        src = c.string(v["gpu"], "when.gpu", ln("gpu", 1))
        if src:
            if c.pattern(src, "when.gpu", ln("gpu", 1)) is not None:
                out["gpu"] = src
    for key in ("flags", "not_flags"):
        if key in v:
            flags = [f for f, _ in c.strings(v[key], f"when.{key}", ln(key, 1))]
            for f in flags:
                if not f.startswith("-"):
                    c.err(ln(key, 1), f"when.{key}", f"{f!r} is not a flag (write --flag-name)")
            from ..read.command import canonical_flag

            out[key] = tuple(canonical_flag(f) for f in flags)
    if "env" in v:
        env_node = v["env"]
        if not isinstance(env_node.value, dict):
            c.err(env_node.line, "when.env", "must be a mapping of fact: regex")
        else:
            compiled = {}
            for key, item in env_node.value.items():
                src = c.string(item, f"when.env.{key}", env_node.lines.get(key, env_node.line))
                if src:
                    if c.pattern(src, f"when.env.{key}", env_node.lines.get(key, env_node.line)) is not None:
                        compiled[key] = src
            out["env"] = compiled
    return out, raw


def _fixes(c: _Checker, node: _Node | None) -> tuple[Fix, ...]:
    if node is None:
        return ()
    if not isinstance(node.value, list) or not node.value:
        c.err(node.line, "fixes", "must be a non-empty list of {title, command, cost}")
        return ()
    out = []
    for i, item in enumerate(node.value):
        if not isinstance(item.value, dict):
            c.err(item.line, f"fixes[{i}]", "must be a mapping with title, command, cost")
            continue
        c.unknown_fields(item, FIX_FIELDS, f"fixes[{i}].")
        title = c.string(item.value.get("title"), f"fixes[{i}].title", item.line)
        if "title" not in item.value:
            c.err(item.line, f"fixes[{i}].title", "missing required field")
        command = item.value.get("command")
        cost = item.value.get("cost")
        for name, sub in (("command", command), ("cost", cost)):
            if sub is not None and sub.value is not None and not isinstance(sub.value, str):
                c.err(sub.line, f"fixes[{i}].{name}", "must be a string")
        spec = item.value.get("engine_version")
        fix_range = ""
        if spec is not None:
            from ..versions import compile_range

            try:
                fix_range = compile_range(str(spec.value))
            except ValueError as exc:
                c.err(spec.line, f"fixes[{i}].engine_version", str(exc))
        drop: tuple[str, ...] = ()
        node_drop = item.value.get("drop")
        if node_drop is not None:
            flags = [sub.value for sub in node_drop.value] if isinstance(node_drop.value, list) else None
            if not flags or not all(isinstance(f, str) and f.startswith("-") for f in flags):
                c.err(node_drop.line, f"fixes[{i}].drop", "must be a non-empty list of flags (`--kv-transfer-config`)")
            elif command is None or "{serve_args}" not in str(command.value or ""):
                c.err(node_drop.line, f"fixes[{i}].drop", "takes flags out of {serve_args}: the command must use it")
            else:
                drop = tuple(flags)
        platforms: tuple[str, ...] = ()
        node_platform = item.value.get("platform")
        if node_platform is not None:
            names = [sub.value for sub in node_platform.value] if isinstance(node_platform.value, list) else None
            if not names or not all(isinstance(n, str) and n in vocab.PLATFORMS for n in names):
                c.err(node_platform.line, f"fixes[{i}].platform",
                      f"must be a non-empty list of platforms (known: {', '.join(vocab.PLATFORMS)})")
            else:
                platforms = tuple(names)
        out.append(Fix(title or "", str(command.value or "") if command else "", str(cost.value or "") if cost else "",
                       fix_range, drop, platforms))
    return tuple(out)


def _fixed_in(c: _Checker, node: _Node | None) -> dict | None:
    if node is None or node.value is None:
        return None
    if not isinstance(node.value, dict):
        c.err(node.line, "fixed_in", "must be a mapping with version and/or pr")
        return None
    c.unknown_fields(node, FIXED_IN_FIELDS, "fixed_in.")
    out = {}
    for key in FIXED_IN_FIELDS:
        if key in node.value and node.value[key].value is not None:
            value = str(node.value[key].value)
            if key == "version":
                from ..versions import parse_version

                if parse_version(value) is None:
                    c.err(node.lines[key], "fixed_in.version", f"{value!r} is not a version")
            out[key] = value
    return out or None


def _tests(c: _Checker, node: _Node | None, base: Path) -> dict[str, tuple[Any, ...]]:
    out: dict[str, tuple[Any, ...]] = {"match": (), "no_match": ()}
    if node is None:
        return out
    if not isinstance(node.value, dict):
        c.err(node.line, "tests", "must be a mapping with match and no_match lists")
        return out
    c.unknown_fields(node, TEST_FIELDS, "tests.")
    for key in TEST_FIELDS:
        sub = node.value.get(key)
        if sub is None or sub.value is None:
            continue
        if not isinstance(sub.value, list):
            c.err(sub.line, f"tests.{key}", "must be a list of log paths or {text: ...}")
            continue
        items = []
        for i, item in enumerate(sub.value):
            if isinstance(item.value, str):
                items.append(("file", str((base / item.value)), item.value))
            elif isinstance(item.value, dict) and "text" in item.value and isinstance(item.value["text"].value, str):
                items.append(("text", item.value["text"].value, f"{key}[{i}]"))
            else:
                c.err(item.line, f"tests.{key}[{i}]", "must be a log path or {text: ...}")
        out[key] = tuple(items)
    return out


def _compile_all(dirs: list[Path]) -> tuple[dict[str, Rule], dict[str, str], list[str]]:
    problems: list[str] = []
    rules: dict[str, Rule] = {}
    origin: dict[str, str] = {}
    for d in dirs:
        if not d.exists():
            problems.append(f"{d.resolve()}: no such rules folder or file")
            continue
        seen_here: dict[str, str] = {}
        for path, engine_dir in rule_files(d):
            path = path.resolve()  # the compiled rules are cached for every working folder: no relative path in them
            display = str(path)
            rule, errs = compile_rule(path, display, engine_dir)
            problems.extend(errs)
            if rule is None:
                continue
            if rule.id in seen_here:
                problems.append(f"{display}:1: id: duplicate rule id {rule.id!r} (also {seen_here[rule.id]})")
                continue
            seen_here[rule.id] = display
            rules[rule.id] = rule
            origin[rule.id] = display
    return rules, origin, problems


def load_catalog(dirs: list[Path], *, disable: list[str] | None = None, strict: bool = True, cache: bool = True) -> Catalog:
    """Load every rule under dirs (later dirs replace earlier ones' rules with the same id)."""
    rules, origin, problems = cached_compile(dirs, cache, _compile_all)
    rules, origin, problems = _shown_from_here(rules, origin, problems)
    catalog = Catalog()
    disabled = set(disable or ())
    for rule_id, rule in rules.items():
        if rule_id in disabled or disabled & set(rule.aliases):
            continue
        catalog.rules[rule_id] = rule
        for alias in rule.aliases:
            if alias in rules and alias != rule_id:
                problems.append(f"{origin[rule_id]}:1: aliases: {alias!r} is the id of another rule")
            catalog.by_alias[alias] = rule_id
        for ref in rule.references:
            catalog.by_reference.setdefault(ref.lower(), []).append(rule_id)
    if problems and strict:
        raise RuleError(problems)
    catalog.warnings.extend(problems)
    return catalog


def _shown_from_here(rules: dict[str, Rule], origin: dict[str, str], problems: list[str]):
    """The compiled rules name their files by absolute path (one cache entry serves every working folder); a
    file under the working folder is shown relative to it, as the user would type it."""
    try:
        here = str(Path.cwd().resolve()) + os.sep
    except OSError:  # the working folder was removed under us
        return rules, origin, list(problems)

    def shown(text: str) -> str:
        return text[len(here):] if text.startswith(here) else text

    for rule in rules.values():
        if rule.path.startswith(here):
            # (this load's own objects, just unpickled or compiled: dataclasses.replace would cost 20 ms a start)
            object.__setattr__(rule, "path", shown(rule.path))
    return rules, {k: shown(v) for k, v in origin.items()}, [shown(p) for p in problems]
