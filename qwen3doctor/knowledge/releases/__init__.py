"""What each published vLLM and SGLang release accepts and raises, read from the shipped release index.

The index is made by `scripts/release_index.py` (never at install or run time) and ships beside this module as one
gzip'd JSON per engine and kind (`vllm-flags.json.gz`, `sglang-env.json.gz`, ...). Each file holds the ordered
release list and, per fact, flat intervals `[first, last, first, last, ...]` of indexes into that list. Nothing
is read until a question needs it, and then only the one table that answers it.

Kinds: `flags` (`--max-num-seqs`), `choices` (`--gdn-prefill-backend=triton`), `env` (`VLLM_USE_DEEP_GEMM`),
`arch` (`Qwen3NextForCausalLM`), `func` (`vllm.v1.core.kv_cache_utils:check_enough_kv_cache_memory`), `raise`
(`ValueError<TAB>vllm/v1/core/kv_cache_utils.py<TAB>check_enough_kv_cache_memory<TAB>No available memory *`),
`lines` (by module, `vllm.v1.engine.core` -> `{"run_engine_core": [[712, 760, *intervals], ...]}`: the lines each
function of the engine's plumbing or of a Qwen model file spans, per release), `api` (`vllm.entrypoints.llm:LLM.generate(prompt_token_ids`:
a parameter a call can pass; `vllm.v1.engine.async_llm:AsyncLLM.engine_core`: an attribute an instance has).
"""
from __future__ import annotations

import json
import zlib
import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from packaging.version import InvalidVersion, Version

HERE = Path(__file__).resolve().parent
ENGINES = ("vllm", "sglang")
KINDS = ("flags", "choices", "env", "arch", "func", "raise", "lines", "api")
# the flags whose values a plugin may register at start-up (vLLM's parser plugins): with the plugin's flag given, a
# name no release registers may still be right
PLUGGABLE = {"--tool-call-parser": "--tool-parser-plugin", "--reasoning-parser": "--reasoning-parser-plugin"}
LABEL = {"vllm": "vLLM", "sglang": "SGLang"}
# the variables of the platform plugins, read by the plugin's own package, never by the engine's release
# (vllm-ascend's VLLM_ASCEND_*, vllm-metal's VLLM_METAL_*)
PLUGIN_PREFIXES = ("VLLM_ASCEND_", "VLLM_METAL_")

@dataclass(frozen=True)
class Table:
    engine: str
    kind: str
    releases: tuple[str, ...]
    facts: dict[str, list[int]]

    def spans(self, fact: str) -> list[tuple[str, str]]:
        """(first, last) release pairs in which the fact holds, oldest first; [] when no release has it."""
        iv = self.facts.get(fact) or []
        return [(self.releases[iv[i]], self.releases[iv[i + 1]]) for i in range(0, len(iv), 2)]

    def holds_at(self, fact: str, index: int) -> bool:
        iv = self.facts.get(fact) or []
        return any(iv[i] <= index <= iv[i + 1] for i in range(0, len(iv), 2))

    def holds_anywhere(self, fact: str, lo: int, hi: int) -> bool:
        iv = self.facts.get(fact) or []
        return any(iv[i] <= hi and lo <= iv[i + 1] for i in range(0, len(iv), 2))

    def holds_everywhere(self, fact: str, lo: int, hi: int) -> bool:
        iv = self.facts.get(fact) or []
        return any(iv[i] <= lo and hi <= iv[i + 1] for i in range(0, len(iv), 2))


def available(folder: Path = HERE) -> bool:
    return (folder / "vllm-flags.json.gz").is_file()


@lru_cache(maxsize=None)
def table(engine: str, kind: str, folder: Path = HERE) -> Table | None:
    """One kind of fact for one engine; None when the index is not shipped (a source checkout before the
    generator ran) or unreadable."""
    path = folder / f"{engine}-{kind}.json.gz"
    try:
        data = json.loads(zlib.decompress(path.read_bytes(), 31))  # gzip framing; zlib is already loaded
    except (OSError, ValueError, zlib.error):
        return None
    return Table(engine, kind, tuple(data["releases"]), data["facts"])


@lru_cache(maxsize=None)
def _module_spans(engine: str, module: str) -> dict[str, list[list[int]]] | None:
    """One module's part of the `lines` table, `{function: [[first line, last line, *release intervals], ...]}`
    (the table keeps each module's part as a JSON string, parsed only when a frame is in it); None when the table
    does not cover the module."""
    t = table(engine, "lines")
    packed = t.facts.get(module) if t else None
    return json.loads(packed) if packed else None


def releases_at_line(engine: str, key: str, line: int) -> set[int] | None:
    """The indexes of the releases in which function `key` (`module:function`) spans `line`; None when the lines
    table does not cover that function (an empty set: no release has that line inside it)."""
    module, _, function = key.partition(":")
    spans = (_module_spans(engine, module) or {}).get(function)
    if spans is None:
        return None
    found: set[int] = set()
    for first, last, *iv in spans:
        if first <= line <= last:
            for i in range(0, len(iv), 2):
                found.update(range(iv[i], iv[i + 1] + 1))
    return found


def releases(engine: str) -> tuple[str, ...]:
    t = table(engine, "flags")
    return t.releases if t else ()


def position(engine: str, version: str | Version | None) -> int | None:
    """The index of the release a version is or precedes: `0.16.0rc2.dev294+g6a7` -> 0.16.0, `0.11.3` (never
    published) -> the next release. None when unknown, older than the index or newer than its last release."""
    rel = releases(engine)
    if version is None or not rel:
        return None
    try:
        v = Version(str(version)) if not isinstance(version, Version) else version
        v = Version(v.public)
    except InvalidVersion:
        return None
    ordered = _versions(engine)
    if v < ordered[0] and not (v.is_prerelease and Version(v.base_version) >= ordered[0]):
        return None
    for i, r in enumerate(ordered):
        if r >= v:
            return i
    return None


@lru_cache(maxsize=None)
def _versions(engine: str) -> tuple[Version, ...]:
    return tuple(Version(r) for r in releases(engine))


def window(engine: str, spec: str | None) -> tuple[int, int] | None:
    """The first and last release index inside a PEP 440 range (pre-releases of a release map to it);
    the whole index when spec is empty; None when no indexed release is in it."""
    rel = _versions(engine)
    if not rel:
        return None
    if not spec:
        return 0, len(rel) - 1
    from packaging.specifiers import SpecifierSet

    s = SpecifierSet(spec, prereleases=True)
    inside = [i for i, r in enumerate(rel) if r in s]
    # `>=0.16.0rc0` keeps 0.16.0; `<0.16.0rc0` must not keep it: a release is in when it or its rc0 is
    if not inside:
        return None
    return inside[0], inside[-1]


# ---------------------------------------------------------------- flags

_NORMALISE = re.compile(r"^(--[A-Za-z0-9][\w-]*)")


def flag_key(engine: str, flag: str) -> str:
    """`--max_num_seqs=8` -> `--max-num-seqs`; `--structured-outputs-config.backend` -> its parent flag
    (vLLM accepts a dotted key for every field of a config flag)."""
    flag = flag.split("=", 1)[0]
    if engine == "vllm":
        flag = "--" + flag[2:].replace("_", "-")  # vLLM's parser accepts either spelling
        flag = flag.split(".", 1)[0]
    return flag


def flag_fact(engine: str, flag: str) -> str | None:
    """The fact name a flag is stored under, trying the `--no-X` form argparse derives from `--X`."""
    t = table(engine, "flags")
    if t is None:
        return None
    key = flag_key(engine, flag)
    if key in t.facts:
        return key
    if key.startswith("--no-") and "--" + key[5:] in t.facts:
        return "--" + key[5:]
    return key


def flag_span_text(engine: str, flag: str) -> str:
    """`0.18.0-0.34.0`, `0.8.5-0.12.0, 0.14.0-0.34.0` or `no release from 0.8.5 to 0.34.0`."""
    t = table(engine, "flags")
    fact = flag_fact(engine, flag)
    return span_text(t, fact) if t and fact else "unknown"


def span_text(t: Table, fact: str) -> str:
    spans = t.spans(fact)
    if not spans:
        return f"no release from {t.releases[0]} to {t.releases[-1]}"
    return ", ".join(a if a == b else f"{a}-{b}" for a, b in spans)


def requirement(t: Table, fact: str) -> str | None:
    """What a release must be to have the fact: `>= 0.18.0`, `<= 0.12.0`, `0.5.10-0.5.19`."""
    spans = t.spans(fact)
    if not spans:
        return None
    first, last = spans[0][0], spans[-1][1]
    label = LABEL[t.engine]
    if len(spans) == 1:
        if last == t.releases[-1] and first != t.releases[0]:
            return f"{label} >= {first}"
        if first == t.releases[0] and last != t.releases[-1]:
            return f"{label} <= {last}"
        if first != t.releases[0]:
            return f"{label} {first}-{last}"
        return None
    return f"{label} " + ", ".join(a if a == b else f"{a}-{b}" for a, b in spans)


# ---------------------------------------------------------------- reading a command

_FLAG_IN_TEXT = re.compile(r"(?<![\w-])(--[A-Za-z][\w.-]*)")
_ENV_IN_TEXT = re.compile(r"(?<![\w$])((?:VLLM|SGLANG|SGL)_[A-Z0-9_]+)=")
_CHOICE_IN_TEXT = re.compile(r"(?<![\w-])(--[A-Za-z][\w-]*)(?:=|\s+)([A-Za-z0-9_][\w.-]*)(?=\s|$)")


def command_engine(command: str, default: str | None = None) -> str | None:
    if re.search(r"\bsglang\b", command):
        return "sglang"
    if re.search(r"\bvllm\b", command):
        return "vllm"
    return default


def flags_in(command: str) -> list[str]:
    return list(dict.fromkeys(_FLAG_IN_TEXT.findall(command)))


def env_in(command: str) -> list[str]:
    return list(dict.fromkeys(_ENV_IN_TEXT.findall(command)))


def choices_in(command: str) -> list[tuple[str, str]]:
    return list(dict.fromkeys(_CHOICE_IN_TEXT.findall(command)))


@dataclass(frozen=True)
class Missing:
    """A flag, value or variable of a command that some releases lack."""

    kind: str  # flags | choices | env
    name: str  # `--gdn-prefill-backend`, `--speculative-config.method=mtp`, `VLLM_DEEP_GEMM_WARMUP`
    present: str  # `0.18.0-0.34.0` or `no release from 0.8.5 to 0.34.0`
    needs: str | None  # `vLLM >= 0.18.0`


_SERVE = {"vllm": re.compile(r"\bvllm\s+serve\b|\bvllm\.entrypoints\.(?:openai\.)?api_server\b"),
          "sglang": re.compile(r"\bsglang\.launch_server\b|\bsglang\s+serve\b")}


def serve_part(engine: str, command: str) -> str:
    """The engine's serve invocation inside a fix command (up to `&&`, `;`, `|`); "" when it has none (a pip
    or a shell command, whose flags are not the engine's)."""
    m = _SERVE[engine].search(command)
    if not m:
        return ""
    rest = re.sub(r"<[^<>]*>", " ", command[m.end():])  # `<your flags without --x>` is prose, not a flag
    return re.split(r"&&|\|\||;|\|", rest, maxsplit=1)[0]


def command_facts(engine: str, command: str) -> list[tuple[str, str, str]]:
    """(kind, name as written, fact key) for each serve flag, choice and variable the index can judge."""
    out = []
    ft, ct = table(engine, "flags"), table(engine, "choices")
    serve = serve_part(engine, command)
    for flag in flags_in(serve):
        if flag.startswith("--") and "{" not in flag:
            fact = flag_fact(engine, flag)
            if fact:
                out.append(("flags", flag, fact))
    if ft is not None and ct is not None:
        given = {flag_key(engine, f) for f in flags_in(serve)}
        for flag, value in choices_in(serve):
            fact = flag_fact(engine, flag)
            if PLUGGABLE.get(fact) in given:
                continue  # (the plugin may register the name)
            # judge a value only where the index knows the flag's choices in some release
            if fact and any(k.startswith(fact + "=") for k in _choice_flags(engine)) and "{" not in value:
                out.append(("choices", f"{flag} {value}", f"{fact}={value}"))
    for var in env_in(command):
        if var.startswith(("VLLM_",) if engine == "vllm" else ("SGLANG_", "SGL_")) and not var.startswith(PLUGIN_PREFIXES):
            out.append(("env", var, var))
    return out


def _abbreviation(t: Table, fact: str, lo: int, hi: int, everywhere: bool) -> bool:
    """argparse's default: a unique prefix of a flag is that flag (SGLang's `--tp` is `--tp-size`)."""
    ok = []
    starting = [k for k in t.facts if k.startswith(fact)]  # (once, not once per release)
    for i in range(lo, hi + 1):
        longer = [k for k in starting if t.holds_at(k, i)]
        ok.append(len(longer) == 1)
    return all(ok) if everywhere else any(ok)


@lru_cache(maxsize=None)
def _choice_releases(engine: str) -> dict[str, frozenset[int]]:
    """Flag -> the releases in which the index read at least one of its choices."""
    t = table(engine, "choices")
    out: dict[str, set[int]] = {}
    for k, iv in (t.facts.items() if t else ()):
        got = out.setdefault(k.split("=", 1)[0], set())
        for j in range(0, len(iv), 2):
            got.update(range(iv[j], iv[j + 1] + 1))
    return {k: frozenset(v) for k, v in out.items()}


def _has_choices(engine: str, flag: str, index: int) -> bool:
    return index in _choice_releases(engine).get(flag, ())


@lru_cache(maxsize=None)
def _choice_flags(engine: str) -> frozenset[str]:
    t = table(engine, "choices")
    return frozenset(k.split("=", 1)[0] + "=" for k in t.facts) if t else frozenset()


def missing_at(engine: str, command: str, lo: int, hi: int, everywhere: bool = True) -> list[Missing]:
    """What of a command is absent from some (everywhere=True) or all (False) releases lo..hi."""
    out = []
    absent_flags = set()
    for kind, name, fact in command_facts(engine, command):
        if kind == "choices" and fact.split("=", 1)[0] in absent_flags:
            continue  # the flag itself is missing: its value says nothing more
        t = table(engine, kind)
        if t is None:
            continue
        if kind == "choices":
            # a release whose choices for the flag the index could not read says nothing about the value
            known = [i for i in range(lo, hi + 1) if _has_choices(engine, fact.split("=", 1)[0], i)]
            ok = (all if everywhere else any)(t.holds_at(fact, i) for i in known) if known else True
        else:
            ok = t.holds_everywhere(fact, lo, hi) if everywhere else t.holds_anywhere(fact, lo, hi)
        if not ok and kind == "flags" and engine == "sglang":
            ok = _abbreviation(t, fact, lo, hi, everywhere)
        if not ok:
            if kind == "flags":
                absent_flags.add(fact)
            out.append(Missing(kind, name, span_text(t, fact), requirement(t, fact)))
    return out


# ---------------------------------------------------------------- a fix for the user's version

def fit_fix(engine: str, version: str | None, rule_spec: str, command: str, fix_spec: str = "") -> tuple[bool, str]:
    """(keep, note) for a fix command on this engine version: drop a spelling written for other releases; for a
    known version, the note says what the command needs when that release lacks a flag, value or variable
    (the command is then not to be printed); for an unknown one, the note gives the releases it needs."""
    if not available() or engine not in LABEL:
        return True, ""
    pos = position(engine, version)
    if fix_spec and version:
        from packaging.specifiers import SpecifierSet
        try:
            if Version(Version(str(version)).public) not in SpecifierSet(fix_spec, prereleases=True):
                return False, ""
            if pos is None:
                return True, ""  # a release the index does not hold, inside the range the fix was written for
        except (InvalidVersion, ValueError):
            pass
    if pos is not None:
        missing = missing_at(engine, command, pos, pos)
        if missing:
            needs = "; ".join(dict.fromkeys(m.needs or f"{m.name} ({m.present})" for m in missing))
            names = ", ".join(m.name for m in missing)
            return True, f"needs {needs}: {LABEL[engine]} {releases(engine)[pos]} has no {names}"
        return True, ""
    win = window(engine, rule_spec)
    if fix_spec:
        other = window(engine, fix_spec)
        win = (max(win[0], other[0]), min(win[1], other[1])) if win and other and max(win[0], other[0]) <= min(win[1], other[1]) else None
    if win is None:
        return True, f"for {LABEL[engine]} {fix_spec}" if fix_spec else ""
    needs = [m.needs for m in missing_at(engine, command, *win) if m.needs]
    if fix_spec and not needs:
        return True, f"for {LABEL[engine]} {fix_spec}"  # one spelling of several: which releases it is for
    return True, ("needs " + "; ".join(dict.fromkeys(needs))) if needs else ""
