"""Diagnoses that need no hand-written rule, with the releases as evidence: a flag or a value the engine's
parser rejects, an architecture the release does not register, a variable the release does not read, and the
raise site of a crash message."""
from __future__ import annotations

import json
import re
from functools import lru_cache

from ...versions import parse_version
from . import ENGINES, LABEL, PLUGGABLE, PLUGIN_PREFIXES, available, flag_fact, position, releases, requirement, span_text, table

UNRECOGNIZED = re.compile(r"unrecognized arguments?: (?P<args>.+)")
INVALID_CHOICE = re.compile(r"argument (?P<flag>--[\w.-]+)(?:/[-\w]+)*: invalid choice: '(?P<value>[^']+)'")
# vLLM's start-up check of a parser's name, a KeyError that lists the registered names ("invalid tool call parser:
# qwen3 (chose from { deepseek_v3, hermes, ... })"): the value of --tool-call-parser / --reasoning-parser
INVALID_PARSER = re.compile(r"invalid (?P<kind>tool call|reasoning) parser: (?P<value>[^\s()'\"]+) \(choo?se from")
# the values a refusal lists: argparse's "(choose from 'a', 'b')" (unquoted from Python 3.12.8), vLLM's
# "(chose from { a, b })"
LISTED_CHOICES = re.compile(r"\(choo?se from \{?(?P<values>[^(){}]*)\}?\)")
UNSUPPORTED_ARCH = re.compile(r"Model architectures \[(?P<archs>[^\]]*)\] (?:are|is) not supported for now")
FALLBACK_ARCH = re.compile(r"\b(?P<arch>\w+) has no vLLM implementation, falling back to Transformers")  # (\b: one start per word, not per character of a long one)
SGLANG_ARCH = re.compile(r"Model architectures? \[?'?(?P<arch>\w+)'?\]? (?:is|are) not supported|Unsupported architectures?:? \[?'?(?P<arch2>\w+)")
# a framework that builds the engine in-process (TRL, verl, OpenRLHF...) passes its arguments as keywords: each
# keyword is the field behind a serve flag (worker_extension_cls -> --worker-extension-cls)
UNEXPECTED_KWARG = re.compile(r"\b(?P<cls>(?:Async)?EngineArgs|ServerArgs)\.__init__\(\) got an unexpected keyword argument "
                              r"'(?P<name>\w+)'")
KWARG_ENGINE = {"EngineArgs": "vllm", "AsyncEngineArgs": "vllm", "ServerArgs": "sglang"}
ENV_SET = re.compile(r"(?<![\w$])(?P<name>(?:VLLM|SGLANG|SGL)_[A-Z][A-Z0-9_]*)=(?P<value>[^\s'\",]*)")


def _version_text(engine: str, version) -> str:
    return f"{LABEL[engine]} {version}" if version else f"{LABEL[engine]} (version not in the log)"


# flags that took over from a removed one without sharing its words, which `successor` cannot see (checked: the index
# holds the new flag from before the old one's removal, and a test keeps it so): (engine, flag) -> (the flag that took
# over, the fix's title, its cost)
TOOK_OVER = {
    ("vllm", "--task"): (
        "--runner",
        "Say what --task said with --runner / --convert (from 0.10.1): --task embed -> --runner pooling --convert embed; "
        "--task classify or score (a reranker) -> --runner pooling --convert classify; --task reward -> --runner pooling "
        "--convert reward; --task generate -> --runner generate (dropping --task alone can serve a pooling model as a "
        "generator)",
        "none"),
    ("vllm", "--enable-reasoning"): (
        "--reasoning-parser",
        "Drop --enable-reasoning and keep --reasoning-parser <name>: the parser alone turns reasoning output on",
        "none"),
    ("vllm", "--disable-log-requests"): (
        "--enable-log-requests",
        "Drop --disable-log-requests: request logging is off by default since --enable-log-requests replaced it",
        "none"),
}


def successor(engine: str, flag: str) -> list[str]:
    """Flags that appear in the release after the flag's last one and share a word with it: a rename's new spelling;
    and the flag that took over from it without a shared word (TOOK_OVER)."""
    t = table(engine, "flags")
    fact = flag_fact(engine, flag)
    spans = t.spans(fact) if t and fact else []
    if not spans or spans[-1][1] == t.releases[-1]:
        return []
    last = t.releases.index(spans[-1][1])
    words = {w for w in fact[2:].split("-") if len(w) > 3}
    out = []
    for other, iv in t.facts.items():
        if iv[0] == last + 1 and len(words & set(other[2:].split("-"))) >= max(1, len(words) - 1):
            out.append(other)
    took_over = TOOK_OVER.get((engine, fact))
    return sorted(out)[:3] + ([took_over[0]] if took_over and took_over[0] not in out and t.spans(took_over[0]) else [])


def flag_lines(engine: str, version, flag: str) -> list[str]:
    t = table(engine, "flags")
    fact = flag_fact(engine, flag)
    if t is None or fact is None:
        return []
    present = span_text(t, fact)
    lines = [f"`{flag}` is accepted by {LABEL[engine]} {present}"]
    pos = position(engine, version)
    spans = t.spans(fact)
    if spans and pos is not None and not t.holds_at(fact, pos):
        if pos < t.releases.index(spans[0][0]):
            lines.append(f"it was added in {spans[0][0]}; {_version_text(engine, version)} predates it")
        else:
            lines.append(f"it was removed after {spans[-1][1]}; {_version_text(engine, version)} no longer has it")
    for new in successor(engine, flag):
        lines.append(f"`{new}` first appears in the next release ({span_text(t, new)}): the likely new spelling")
    return lines


def architecture_lines(engine: str, version, arch: str) -> list[str] | None:
    t = table(engine, "arch")
    if t is None:
        return None
    spans = t.spans(arch)
    pos = position(engine, version)
    if not spans:
        return [f"no {LABEL[engine]} release from {t.releases[0]} to {t.releases[-1]} registers `{arch}`"]
    if pos is not None and t.holds_at(arch, pos):
        return None  # registered by this release: something else is wrong
    first = spans[0][0]
    return [f"`{arch}` is registered by {LABEL[engine]} {span_text(t, arch)}; the first release with it is {first}"]


def raise_sites(engine: str, message: str, limit: int = 2) -> list[tuple[str, str, str, str, int]]:
    """(file, function, releases, template, the index of the last release with it) of the raise sites whose template
    matches a crash message."""
    t = table(engine, "raise")
    if t is None or len(message) < 16:
        return []
    msg = " ".join(message.split())
    out = []
    for fact in _candidates(engine, msg):
        exc, path, func, tmpl = fact.split("\t", 3)
        # (a template whose fixed words are less than half the message says little: `* must be float32, got *`
        # is in many files)
        if len(tmpl.replace("*", "")) * 2 >= len(msg) and (_template_re(tmpl).search(msg) or _cut_match(tmpl, msg)):
            out.append((path, func, span_text(t, fact), tmpl, t.facts[fact][-1]))
            if len(out) >= limit:
                break
    return out


def _candidates(engine: str, msg: str):
    """Templates whose longest literal piece occurs in the message (a cheap filter before the regex)."""
    for key, facts in _by_piece(engine).items():
        if key in msg:
            yield from facts


_PIECES: dict[str, dict[str, list[str]]] = {}


def _by_piece(engine: str) -> dict[str, list[str]]:
    if engine not in _PIECES:
        t = table(engine, "raise")
        out: dict[str, list[str]] = {}
        for fact in (t.facts if t else {}):
            tmpl = fact.split("\t", 3)[3]
            piece = max(tmpl.split("*"), key=len).strip()
            if len(piece) >= 16 and not _BUILTIN.search(tmpl):
                out.setdefault(piece, []).append(fact)
        _PIECES[engine] = out
    return _PIECES[engine]


# the messages Python itself raises (an engine that raises the same words is re-raising them in a wrapper's
# `__getattr__`, or naming a module it imports by path, `No module named '*'`): any of them would be "found" there,
# in a file that has nothing to do with the crash
_BUILTIN = re.compile(r"^\*?'? object has no attribute|object (?:has no attribute|is not (?:subscriptable|callable|iterable))|"
                      r"index out of range|unsupported operand type|got an unexpected keyword argument|"
                      r"missing \* required positional argument|takes \* positional arguments? but|"
                      r"^No module named|^cannot import name")


def _template_re(tmpl: str) -> re.Pattern:
    return re.compile(".*?".join(re.escape(p) for p in tmpl.split("*")), re.S)


_SENTENCE_END = re.compile(r"[.:;!?](?= )")


def _cut_match(tmpl: str, msg: str) -> bool:
    """The message is the template's first sentences and ends there: a paste that kept `Not enough allowed NUMA
    nodes to bind threads of 4 CPUWorkers. Allowed NUMA nodes are [0, 1].` of a check whose message goes on (`Please
    try to bind threads manually.`). The kept part must hold at least 24 of the template's fixed characters."""
    for m in reversed(list(_SENTENCE_END.finditer(tmpl))):
        head = tmpl[:m.end()]
        if len(head.replace("*", "").strip()) >= 24 and re.search(_template_re(head).pattern + r"\s*$", msg.rstrip(), re.S):
            return True
    return False


def ignored_variables(engine: str, version, text_lines) -> list[str]:
    """Warnings for VLLM_* / SGLANG_* variables set in the log's command lines that this release does not read."""
    t = table(engine, "env")
    pos = position(engine, version)
    if t is None or pos is None:
        return []
    prefixes = ("VLLM_",) if engine == "vllm" else ("SGLANG_", "SGL_")
    out = []
    seen = set()
    for line in text_lines:
        for m in ENV_SET.finditer(line):
            name = m.group("name")
            if name in seen or not name.startswith(prefixes) or name.startswith(PLUGIN_PREFIXES):
                continue
            seen.add(name)
            if t.holds_at(name, pos):
                continue
            spans = t.spans(name)
            where = f"read by {span_text(t, name)}" if spans else f"read by no release from {t.releases[0]} to {t.releases[-1]}"
            flag = variable_flag(engine, name, pos)
            out.append(f"{name} is set, but {LABEL[engine]} {releases(engine)[pos]} does not read it ({where}): "
                       f"it is silently ignored" + (f"; this release takes it as `{flag}`" if flag else ""))
    return out


def variable_flag(engine: str, name: str, pos: int) -> str | None:
    """The command-line flag that carries a variable's setting at release `pos` (VLLM_ATTENTION_BACKEND ->
    --attention-backend): a flag of that release whose words are the variable's."""
    ft = table(engine, "flags")
    words = {w.lower() for w in name.split("_")[1:] if len(w) > 3}
    if ft is None or not words:
        return None
    found = sorted(k for k in ft.facts if words <= set(k[2:].split("-")) and ft.holds_at(k, min(pos, len(ft.releases) - 1)))
    return found[0] if len(found) == 1 else None


def rejected_arguments(text: str) -> list[tuple[str, str | None]]:
    """(flag, value or None) from `unrecognized arguments: --x 1 --y`, `argument --x: invalid choice: 'v'` and
    `EngineArgs.__init__() got an unexpected keyword argument 'x_y'` (the flag `--x-y`)."""
    out = []
    m = UNEXPECTED_KWARG.search(text)
    if m:
        out.append(("--" + m.group("name").replace("_", "-"), None))
    m = UNRECOGNIZED.search(text)
    if m:
        out += [(tok.split("=", 1)[0], None) for tok in m.group("args").split() if tok.startswith("--")]
    m = INVALID_CHOICE.search(text)
    if m:
        out.append((m.group("flag"), m.group("value")))
    m = INVALID_PARSER.search(text)
    if m:
        out.append(("--tool-call-parser" if m.group("kind") == "tool call" else "--reasoning-parser", m.group("value")))
    return out


def listed_choices(text: str) -> frozenset[str]:
    """The values a refusal lists as the ones the release accepts (empty when it lists none)."""
    m = LISTED_CHOICES.search(text)
    if not m:
        return frozenset()
    return frozenset(v.strip().strip("'\"") for v in m.group("values").split(",") if v.strip().strip("'\""))


def releases_listing(engine: str, flag: str, listed: frozenset[str]) -> list[int]:
    """The releases whose values of a flag are exactly the ones a refusal lists: they date a log that names no
    version (a list of deepseek_r1, granite and qwen3 is vLLM 0.9.x's)."""
    t = table(engine, "choices")
    fact = flag_fact(engine, flag)
    if t is None or fact is None or len(listed) < 2:
        return []
    by_release: dict[int, set[str]] = {}
    for k, iv in t.facts.items():
        if k.startswith(fact + "="):
            for j in range(0, len(iv), 2):
                for i in range(iv[j], iv[j + 1] + 1):
                    by_release.setdefault(i, set()).add(k.split("=", 1)[1])
    return sorted(i for i, values in by_release.items() if values == listed)


def all_choices(engine: str, flag: str) -> list[str]:
    """Every value of a flag any indexed release accepts."""
    t = table(engine, "choices")
    fact = flag_fact(engine, flag)
    return sorted(k.split("=", 1)[1] for k in (t.facts if t and fact else ()) if k.startswith(f"{fact}="))


def choice_lines(engine: str, version, flag: str, value: str) -> list[str]:
    t = table(engine, "choices")
    fact = flag_fact(engine, flag)
    if t is None or fact is None:
        return []
    key = f"{fact}={value}"
    if not any(k.startswith(fact + "=") for k in t.facts):
        return []  # no release lists this flag's values (a plugin registry checked at run time): nothing to say
    lines = []
    if t.spans(key):
        lines.append(f"`{flag} {value}` is accepted by {LABEL[engine]} {span_text(t, key)}")
    else:
        lines.append(f"no {LABEL[engine]} release from {t.releases[0]} to {t.releases[-1]} accepts `{flag} {value}`")
    pos = position(engine, version)
    if pos is not None and not t.holds_at(key, pos):
        valid = sorted(k.split("=", 1)[1] for k, iv in t.facts.items() if k.startswith(fact + "=") and t.holds_at(k, pos))
        if valid:
            lines.append(f"{LABEL[engine]} {releases(engine)[pos]} accepts: {', '.join(valid)}")
    return lines


__all__ = ["available", "requirement", "flag_lines", "architecture_lines", "raise_sites", "ignored_variables",
           "rejected_arguments", "choice_lines", "successor", "listed_choices", "releases_listing", "all_choices"]


# the ids of the diagnoses the release index makes without a rule, as `explain` describes them
GENERIC_IDS = {
    "release-index/flag": "a serve flag the logged release does not accept (added later or removed earlier), with the "
                          "releases that accept it and, for a removed flag, its likely successor",
    "release-index/choice": "a value of a serve flag that the logged release does not offer, with the values it does",
    "release-index/architecture": "a model architecture the logged release does not register, with the first release "
                                  "that does",
    "release-index/import": "an engine module, function or class the logged release lacks (`No module named "
                            "'vllm.X'`, `cannot import name 'f'`), with the releases that define it, where it lives now, and the "
                            "upgrade or the pin",
    "release-index/config": "the engine's own check of its settings refused them (pydantic's report for a vLLM config "
                            "class, or a ValueError from the argument checks of either engine): its message, and the "
                            "flags it names with the releases that accept them",
    "release-index/removed": "the engine's own message that something was removed or moved, dated by the first "
                             "release that raises it, with a pin to the release before",
    "release-index/signature": "a call from another package (a trainer, a serving backend, a plugin) into an engine "
                               "function whose signature refuses its arguments (`LLM.generate() got an unexpected "
                               "keyword argument 'prompt_token_ids'`), or an attribute it reads that the class lacks: "
                               "the two were written for different releases; the `api` table dates the keyword or "
                               "attribute (the releases that take it, the pin or the upgrade)",
    "release-index/config-field": "a field of one of the engine's config classes (`--compilation-config`, "
                                  "`--speculative-config`, `--kv-transfer-config` JSON) that the logged release "
                                  "refuses (pydantic's `Unexpected keyword argument` / `Extra inputs are not "
                                  "permitted`), with the releases whose class has it, or the closest fields",
    "release-index/renamed-architecture": "an architecture no release registers that is a registered one with a "
                                          "tool's prefix (`GaudiLlamaForCausalLM`): the checkpoint's config.json "
                                          "names the class of the code that saved it; set the registered name there "
                                          "or override it at launch",
}


def describe(key: str) -> list[str] | None:
    """`explain --flag` / `explain VLLM_X` / `explain release:arch:qwen3.5`: the releases of each engine that accept
    it, its choices, its likely successor. None when the key is none of these."""
    if key in GENERIC_IDS:
        return [f"{key}: no rule; a diagnosis from the release index: {GENERIC_IDS[key]}.",
                "  `qwen3doctor explain --FLAG` or `explain VLLM_X` shows the releases of one flag or variable."]
    if key.startswith("release:arch:"):
        return _family_lines(key.split(":", 2)[2], key)
    if key.startswith("--"):
        kind = "flags"
    elif re.fullmatch(r"(?:VLLM|SGLANG|SGL)_[A-Z0-9_]+", key):
        kind = "env"
    else:
        return None
    lines = []
    for engine in ("vllm", "sglang"):
        t = table(engine, kind)
        if t is None:
            continue
        fact = flag_fact(engine, key) if kind == "flags" else key
        if not t.spans(fact):
            continue
        label = LABEL[engine]
        what = "accepted by" if kind == "flags" else "read by"
        lines.append(f"{key}: {what} {label} {span_text(t, fact)} (indexed: {t.releases[0]} to {t.releases[-1]})")
        if kind == "flags":
            ct = table(engine, "choices")
            values: dict[str, str] = {}
            for k in (ct.facts if ct else {}):
                if k.startswith(fact + "="):
                    values[k.split("=", 1)[1]] = span_text(ct, k)
            if values:
                last = ct.releases[-1]
                now = sorted(v for v, s in values.items() if s.endswith(last) or s == last)
                if now:
                    lines.append(f"  choices in {label} {last}: {', '.join(now)}")
                gone = sorted(f"{v} ({s})" for v, s in values.items() if v not in now)
                if gone:
                    lines.append(f"  earlier choices: {', '.join(gone[:12])}")
            for new in successor(engine, key):
                lines.append(f"  likely successor: {new} ({span_text(t, new)})")
        elif kind == "env":
            gone = t.spans(fact)[-1][1] != t.releases[-1]
            if gone:
                words = {w for w in key.split("_")[1:] if len(w) > 3}
                last = t.releases.index(t.spans(fact)[-1][1])
                new = sorted(k for k, iv in t.facts.items() if iv[0] == last + 1
                             and len(words & set(k.split("_")[1:])) >= max(1, len(words) - 1))
                if new:
                    lines.append(f"  likely successor: {', '.join(new[:3])}")
                # a variable turned into a command-line flag: VLLM_ATTENTION_BACKEND -> --attention-backend
                flag = variable_flag(engine, key, last + 1)
                if flag:
                    lines.append(f"  as a flag: {flag} ({span_text(table(engine, 'flags'), flag)})")
    if not lines:
        engines = [e for e in ("vllm", "sglang") if table(e, kind) is not None]
        if not engines:
            return None
        span = "; ".join(f"{LABEL[e]} {table(e, kind).releases[0]} to {table(e, kind).releases[-1]}" for e in engines)
        return [f"{key}: no indexed release accepts it ({span})"]
    return lines


# what both engines' model registries raise for an architecture they do not register (`_raise_for_unsupported`,
# vLLM 0.8.5 onwards and SGLang 0.4.6 onwards, by the raise-site table): a rule that explains this message
# explains a launch that `family_alert` flags
UNREGISTERED = ("ValueError", "Model architectures ['{arch}'] are not supported for now. Supported architectures: [...]",
                "_raise_for_unsupported")


def unregistered(engine: str, version, family: str | None) -> tuple[str, str, str] | None:
    """When `family_alert` holds: (the message the planned release would raise for the family's first architecture,
    that architecture, the first release registering it)."""
    if family_alert(engine, version, family) is None:
        return None
    t = table(engine, "arch")
    first = min((a for a in t.facts if _family(a) == family), key=lambda a: t.facts[a][0])
    return UNREGISTERED[1].format(arch=first), first, t.releases[t.facts[first][0]]


def _family(arch: str) -> str | None:
    from ...vocab import family_of_architecture

    return family_of_architecture(arch)


def family_alert(engine: str, version, family: str | None) -> tuple[str, str, str] | None:
    """`check`: (name, title, detail) when the planned release registers none of the architectures of the model's
    family that later (or earlier) releases register, e.g. Qwen3.5 planned on vLLM 0.12.0."""
    from ...vocab import OTHER, PLUGIN_SERVED, family_of_architecture

    t = table(engine, "arch")
    pos = position(engine, version)
    if t is None or pos is None or not family or family == OTHER or family in PLUGIN_SERVED:
        return None
    archs = [a for a in t.facts if family_of_architecture(a) == family]
    # (a development build is main's code between its base and the next release, which may already register the
    # family: `0.16.0rc2.dev496` served Qwen3.6-35B-A3B, first registered by 0.17.0, vllm#40856)
    ahead = pos + 1 if _dev_build(version) and pos + 1 < len(releases(engine)) else pos
    if not archs or any(t.holds_at(a, pos) or t.holds_at(a, ahead) for a in archs):
        return None
    first = min(archs, key=lambda a: t.facts[a][0])
    rel = releases(engine)[pos]
    title = f"{LABEL[engine]} {rel} registers no {family} architecture: the model cannot load"
    detail = f"`{first}` is registered by {LABEL[engine]} {span_text(t, first)}; {rel} is outside that range"
    return f"arch:{family}", title, detail


def _dev_build(version) -> bool:
    parsed = parse_version(str(version)) if version is not None else None
    return parsed is not None and parsed.is_devrelease


def command_alerts(engine: str, version, command: str) -> tuple[list[tuple[str, str, str]], str | None]:
    """`check`: ([(name, title, detail)] for each flag, value or variable of a planned command the planned release
    does not accept, what was not checked). Flags no indexed release has are reported too."""
    from . import missing_at

    if table(engine, "flags") is None:
        return [], "flags and variables: no release index in this install"
    pos = position(engine, version)
    if pos is None:
        rel = releases(engine)
        why = "no engine version" if not version else f"{version} is outside the indexed releases ({rel[0]} to {rel[-1]})"
        return [], f"flags and variables against the release: {why}"
    out = []
    for m in missing_at(engine, command, pos, pos):
        what = {"flags": "flag", "choices": "value", "env": "variable"}[m.kind]
        title = (f"{LABEL[engine]} {releases(engine)[pos]} does not accept the {what} {m.name}" if m.kind != "env" else
                 f"{LABEL[engine]} {releases(engine)[pos]} does not read {m.name}: it would be ignored")
        detail = f"{m.name}: {m.present}" + (f" (needs {m.needs})" if m.needs else "")
        if m.kind == "flags":
            detail += "".join(f"; successor {s} ({span_text(table(engine, 'flags'), s)})" for s in successor(engine, m.name))
        out.append((m.name, title, detail))
    return out, None


def _family_lines(family: str, key: str) -> list[str] | None:
    """The releases of each engine that register an architecture of the family (`release:arch:qwen3.5`, the id of
    the launch risk `family_alert` raises)."""
    lines = [f"{key}: a launch risk from the release index, not a rule: the planned or logged release registers no "
             f"{family} architecture, so the model cannot load."]
    for engine in ENGINES:
        t = table(engine, "arch")
        archs = sorted(a for a in (t.facts if t else ()) if _family(a) == family)
        for arch in archs:
            lines.append(f"  {LABEL[engine]}: `{arch}` is registered by {span_text(t, arch)}")
    return lines if len(lines) > 1 else None


MISSING_MODULE = re.compile(r"No module named '?(?P<module>(?:vllm|sglang)(?:\.\w+)+)'?"
                            r"|cannot import name '(?P<name>\w+)' from '(?P<source>(?:vllm|sglang)(?:\.\w+)+)'"
                            # the same lookup made as an attribute (`vllm.envs.VLLM_USE_V1`, `sglang.srt.x.helper`)
                            r"|module '(?P<owner>(?:vllm|sglang)(?:\.\w+)*)' has no attribute '(?P<attr>\w+)'")
# the engines' modules of environment variables: an attribute of one is a variable the env table dates
ENV_MODULES = {"vllm": ("vllm.envs",), "sglang": ("sglang.srt.environ",)}
ENV_NAME = re.compile(r"^(?:VLLM|SGLANG|SGL)_[A-Z0-9_]+$")


def import_presence(engine: str, module: str, name: str | None = None) -> list[int]:
    """The indexes of the releases whose sources define `module` (a module or package with a function or class in
    it), or the function, class or capitalised name `name` in it; [] when no indexed release does (a compiled module
    such as `vllm._C`, a name the module only imports, a plugin's own module: the index cannot speak of those)."""
    t = table(engine, "func")
    if t is None:
        return []
    if name is None:
        keys = [k for k in t.facts if k.startswith((module + ":", module + "."))]
    else:
        keys = [f"{module}:{name}"] if f"{module}:{name}" in t.facts else []
    present: set[int] = set()
    for key in keys:
        iv = t.facts[key]
        for i in range(0, len(iv), 2):
            present.update(range(iv[i], iv[i + 1] + 1))
    return sorted(present)


def _env_presence(engine: str, name: str) -> list[int]:
    """The indexes of the releases that read the environment variable `name` (what their envs module offers)."""
    t = table(engine, "env")
    if t is None:
        return []
    rel = releases(engine)
    return [i for first, last in t.spans(name) for i in range(rel.index(first), rel.index(last) + 1)]


def _runs(rel: tuple[str, ...], present: list[int]) -> str:
    runs, start = [], None
    for i, p in enumerate(present):
        if start is None:
            start = p
        if i + 1 == len(present) or present[i + 1] != p + 1:
            runs.append(rel[start] if start == p else f"{rel[start]}-{rel[p]}")
            start = None
    return ", ".join(runs)


def import_lines(line: str, versions: dict[str, str | None]) -> tuple[str, str, list[str], int | None, list[int]] | None:
    """(engine, what, facts, this release's index, the indexes of the releases that have it) for an import of an
    engine module that failed on a release without it; None when the index cannot say or this release has it.
    `versions`: each engine's version as the log states it (an SGLang module is never dated by a vLLM version)."""
    m = MISSING_MODULE.search(line)
    if m is None:
        return None
    module = m.group("module") or m.group("source") or m.group("owner")
    name = m.group("name") or m.group("attr")
    engine = module.split(".", 1)[0]
    present = import_presence(engine, module, name)
    if not present and module in ENV_MODULES[engine] and ENV_NAME.match(name):
        present = _env_presence(engine, name)
    if not present:
        return None
    rel = releases(engine)
    version = versions.get(engine)
    pos = position(engine, version)
    if pos is not None and pos in present:
        return None  # this release has it: a broken install or a shadowing file, not a version problem
    if pos is None and len(present) == len(rel):
        return None  # every indexed release has it: no release to move to (the same causes, or a pre-index engine)
    what = f"`{name}` in `{module}`" if name else f"`{module}`"
    facts = [f"{what} is in {LABEL[engine]} {_runs(rel, present)}"]
    if pos is not None:
        facts.append(f"{_version_text(engine, version)} "
                     + ("predates it" if pos < present[0] else "no longer has it" if pos > present[-1] else "lacks it"))
        if name is not None:
            moved = _defined_at(engine, name, pos)
            if 0 < len(moved) <= 2:  # (a name many modules define is a method name, not a helper that moved)
                facts.append(f"in {_version_text(engine, version)} `{name}` is defined in "
                             + " and ".join(f"`{m}`" for m in moved) + ": import it from there")
    return engine, what, facts, pos, present


def _defined_at(engine: str, name: str, pos: int) -> list[str]:
    """The modules of release `pos` that define a function or class `name` (where a moved helper went)."""
    t = table(engine, "func")
    suffix = f":{name}"
    return sorted(k[: -len(suffix)] for k, iv in t.facts.items()
                  if k.endswith(suffix) and any(iv[i] <= pos <= iv[i + 1] for i in range(0, len(iv), 2)))


# a call whose arguments the callee's signature refuses: `build_async_engine_client_from_engine_args() got an unexpected
# keyword argument 'stat_loggers'`, `LLM.generate() missing 1 required positional argument: 'prompts'`
CALL_MISMATCH = re.compile(r"(?P<callee>(?:[A-Za-z_]\w*\.)*[A-Za-z_]\w*)\(\) (?:got an unexpected keyword argument '(?P<kw>\w+)'"
                           r"|missing \d+ required (?:positional|keyword-only) arguments?: (?P<missing>'\w+'(?:,? (?:and )?'\w+')*)"
                           r"|takes (?:from )?\d+ (?:to \d+ )?positional arguments? but \d+ (?:were|was) given)")
# the folder an engine's package starts at, anywhere in a path (`.../site-packages/vllm/`, a checkout's `vllm/vllm/`)
_ENGINE_DIR = re.compile(r"(?:^|(?<=/))(?P<engine>vllm|sglang)/")


def engine_module(file: str) -> tuple[str, str] | None:
    """(engine, module) when `file` is one of an engine's own modules by the release index: the path below a
    `vllm/` or `sglang/` folder names a module some release defines (`/opt/tritonserver/backends/vllm/model.py` is
    Triton's backend, not `vllm.model`; in a checkout, `/src/vllm/vllm/v1/x.py` is `vllm.v1.x`)."""
    path = file.replace("\\", "/")
    if not path.endswith(".py"):
        return None
    for m in _ENGINE_DIR.finditer(path):
        engine = m.group("engine")
        module = engine + "." + path[m.end():-3].replace("/", ".").removesuffix(".__init__")
        modules = _modules(engine)
        if module in modules or any(m.startswith(module + ".") for m in modules):  # (a module, or a package)
            return engine, module
    return None


@lru_cache(maxsize=2)
def _modules(engine: str) -> frozenset[str]:
    """The modules some indexed release of the engine defines a function or class in."""
    t = table(engine, "func")
    return frozenset(k.split(":", 1)[0] for k in t.facts) if t else frozenset()


def callee_modules(engine: str, callee: str) -> list[str]:
    """The engine modules that define the function (or, for `Class.method`, the class and that method) `callee`."""
    t = table(engine, "func")
    if t is None:
        return []
    *owner, name = callee.split(".")
    mods = {k.split(":", 1)[0] for k in t.facts if k.endswith(":" + name)}
    if owner:
        mods = {m for m in mods if f"{m}:{owner[-1]}" in t.facts}
    return sorted(mods)


def api_window(engine: str, callee: str, name: str, attribute: bool = False) -> tuple[set[int], set[int]] | None:
    """(the releases whose `callee` exists with a parameter, the releases whose `callee` takes `name`) by the `api`
    table: `callee` is a function `f`, a class `C` (its constructor; `C.__init__` is the same) or a method `C.m`; with
    `attribute`, `callee` is a class and `name` an attribute its instances have. A callee with `**kwargs` takes any
    keyword. Only the modules that define the callee (by the function table) are read. None when the table is not
    shipped or no release has the callee."""
    qual = callee.removesuffix(".__init__")
    exists: set[int] = set()
    takes: set[int] = set()
    head = f"{qual}." if attribute else f"{qual}("
    for module in callee_modules(engine, qual):
        for rest, iv in (api_module(engine, module) or {}).items():
            if not rest.startswith(head) or (attribute and "(" in rest):
                continue
            found = {r for i in range(0, len(iv), 2) for r in range(iv[i], iv[i + 1] + 1)}
            exists |= found
            if rest[len(head):] == name or not attribute and rest[len(head):] == "**":
                takes |= found
    return (exists, takes) if exists else None


@lru_cache(maxsize=8)
def api_module(engine: str, module: str) -> dict[str, list[int]] | None:
    """One module's part of the `api` table, `{"C.m(p": intervals, "C.a": intervals, "f(p": intervals}`."""
    t = table(engine, "api")
    packed = t.facts.get(module) if t else None
    return json.loads(packed) if packed else None
