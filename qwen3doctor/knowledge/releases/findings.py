"""What the release index adds to a diagnosis: findings for a rejected flag or value and an unregistered
architecture, warnings for ignored variables, and the raise site of the crash message. Reads the index only
when a log line asks for it."""
from __future__ import annotations

import difflib
import re

from ..generic import GENERIC_FRAMES
from .frames import function_key
from ...model import Evidence, Finding, Fix, Scan
from . import LABEL, available, flag_fact, position, releases, span_text, table
from .generic import (CALL_MISMATCH, api_module, api_window, TOOK_OVER, FALLBACK_ARCH, INVALID_CHOICE, INVALID_PARSER, KWARG_ENGINE, MISSING_MODULE,
                      PLUGGABLE, UNEXPECTED_KWARG, UNRECOGNIZED, UNSUPPORTED_ARCH, all_choices, architecture_lines,
                      callee_modules, choice_lines, engine_module, flag_lines, ignored_variables, import_lines,
                      listed_choices, raise_sites, rejected_arguments, releases_listing)

# a line one of the index's readings of a refusal can take (a rejected flag, keyword or value, an unregistered
# architecture, a missing engine module): their own patterns, joined
TRIGGER = re.compile("|".join(re.sub(r"\(\?P<\w+>", "(?:", p.pattern) for p in
                              (UNRECOGNIZED, UNEXPECTED_KWARG, INVALID_CHOICE, INVALID_PARSER, UNSUPPORTED_ARCH, FALLBACK_ARCH,
                               MISSING_MODULE)))
ENV_TRIGGER = re.compile(r"(?<![\w$])(?:VLLM|SGLANG|SGL)_[A-Z][A-Z0-9_]*=")
SCORE = 0.5  # below a rule with its own crash evidence, above generic candidates
# an engine's own message that something was taken out: the release that first raises it is the one that removed it
# the engine's own check of its settings refused them: pydantic's report for one of vLLM's config classes, or a
# ValueError / assertion raised where the engines check their arguments (the message is the diagnosis; the index
# names the flags it speaks of)
PYDANTIC_CONFIG = re.compile(r"\bvalidation errors? for (?P<cls>\w*(?:Config|Args))\b.*?\bValue error, (?P<msg>.+)", re.S)
CHECK_FRAME = re.compile(r"__post_init__|_?(?:verify|validate|check)\w*|_handle_\w+")
CHECK_MODULES = frozenset({"config", "configs", "server_args", "arg_utils"})  # where the engines check their settings
CHECK_TYPES = ("ValueError", "AssertionError", "TypeError", "Exception")  # what those checks raise
FLAG_WORD = re.compile(r"(?<![\w-])--[a-z][a-z0-9-]+")
SNAKE = re.compile(r"(?<![\w.-])[a-z][a-z0-9]*(?:_[a-z0-9]+)+(?![\w(])")
REMOVED = re.compile(r"\b(?:is|are) no longer supported\b|\b(?:has|have) been (?:re)?moved\b|\bwas removed in\b")


def _engine(scan: Scan, text: str = "") -> str | None:
    engine = scan.environment.get("engine")
    if engine in LABEL:
        return engine
    if re.search(r"sglang|launch_server", text):
        return "sglang"
    if re.search(r"vllm", text, re.I):
        return "vllm"
    return None


def _lines(scan: Scan) -> list[str]:
    out = [f"{c.exception_type}: {c.message}" if c.exception_type else c.message for c in scan.crashes]
    return out + list(scan.lines)


def _finding(kind: str, title: str, engine: str, lines: list[str], fixes: list[Fix], confidence: str) -> Finding:
    evidence = tuple(Evidence(f"release-index.{kind}", "hit", line) for line in lines)
    return Finding(rule_id=f"release-index/{kind}", title=title, status="confirmed", score=SCORE, confidence=confidence,
                   engines=(engine,), families=(), references=(), evidence=evidence, fixes=tuple(fixes), fixed_in=None,
                   notes=("from the release index (every published release's own parser and registry), not a rule",),
                   basis="evidence")


def _import_finding(line: str, version, engine: str, what: str, facts: list[str], pos: int | None,
                    present: list[int]) -> Finding:
    """An engine module (or a name in one) that the running release lacks: a package built for other releases
    (a plugin, an out-of-tree model, a model card's newer recipe), or an engine older than the model."""
    rel, label = releases(engine), LABEL[engine]
    # with no version in the log, only what the index can say: a name in the oldest indexed release may be older
    # still (no "first release"), and a name today's release still has was not removed (no pin)
    older = present[0] > 0
    removed = present[-1] < len(rel) - 1
    fixes = []
    if pos < present[0] if pos is not None else older:
        fixes.append(Fix(f"Upgrade {label} to {rel[present[0]]} or later, the first release with {what}",
                         f'pip install -U "{engine}>={rel[present[0]]}"', "an upgrade; re-test the launch"))
    if pos > present[-1] if pos is not None else removed:
        fixes.append(Fix(f"Pin {label} {rel[present[-1]]}, the last release with {what}, or upgrade the package that "
                         f"imports it to a version built for this {label}", f'pip install "{engine}=={rel[present[-1]]}"',
                         "an older engine"))
    title = (f"{label} {version} has no {what}" if version else f"The installed {label} has no {what}") + \
        " (from the release index): the code using it was written for other releases"
    return _finding("import", title, engine, [line.strip()[:200]] + facts, fixes, "high" if pos is not None else "medium")


def _raise_site(scan: Scan, message: str, limit: int = 1) -> tuple[str, list[tuple[str, str, str, str, int]]] | None:
    """(engine, up to `limit` raise sites (generic.raise_sites), the first the one to name) whose templates match the
    message; a log that does not say its engine takes the engine whose sources raise it, when only one does."""
    engine = _engine(scan)
    found = {e: raise_sites(e, message, limit=limit) for e in ((engine,) if engine else tuple(LABEL))}
    found = {e: sites for e, sites in found.items() if sites}
    return next(iter(found.items())) if len(found) == 1 else None


def _removal_finding(scan: Scan, message: str) -> Finding | None:
    """The engine's own message that a feature, flag or hook was taken out, dated by its raise site: the release
    that first raises it removed what the launch (or a package built on the engine) still uses."""
    site = _raise_site(scan, message)
    if site is None:
        return None
    engine, ((path, func, present, *_),) = site
    rel, label = releases(engine), LABEL[engine]
    first = present.split("-", 1)[0].split(",", 1)[0].strip()
    if first not in rel:
        return None
    lines = [f"{message.strip()[:200]}", f"raised by `{path}` in `{func}`, in {label} {present}"]
    fixes = [Fix("Do what the message asks (a supported setting, or code that uses the new interface)", "", "none")]
    at = rel.index(first)
    if at > 0:
        lines.append(f"{label} {rel[at - 1]} and earlier do not raise it")
        fixes.append(Fix(f"Or pin {label} {rel[at - 1]}, the last release before the removal, while the code or the "
                         "launch is updated", f'pip install "{engine}=={rel[at - 1]}"', "an older engine"))
    title = f"{label} {first} and later removed what this launch or its code still uses (from the release index)"
    version = scan.environment.get("engine_version") if scan.environment.get("engine") == engine else None
    pos = position(engine, version)
    return _finding("removed", title, engine, lines, fixes, "high" if pos is not None and pos >= at else "medium")


def _refused_settings(scan: Scan) -> tuple[str, str, str] | None:
    """(engine, checked class or function, message) when the crash is the engine refusing its own settings."""
    for crash in scan.crashes:
        if crash.role in ("wrapper", "consequence") or not crash.message or crash.message_cut:
            continue
        m = PYDANTIC_CONFIG.search(crash.message)
        if m:
            msg = re.sub(r"\s*\[type=value_error\b.*$", "", m.group("msg").strip(), flags=re.S)
            engine = _engine(scan, crash.message) or "vllm"  # (pydantic configs are vLLM's)
            return engine, m.group("cls"), msg
        frames = [(f, key) for f in crash.frames if (key := _module(f.file))]
        if crash.complete and frames and CHECK_FRAME.fullmatch(frames[-1][0].function) \
                and CHECK_MODULES & set(frames[-1][1][1].split(".")[1:]) \
                and crash.exception_type in CHECK_TYPES:
            return frames[-1][1][0], frames[-1][0].function, crash.message.strip()
    return None


def _module(file: str) -> tuple[str, str] | None:
    """(engine, module) of an engine file, judged inside the install (a virtualenv named `vllm` holds torch's files
    too: `/home/u/vllm/lib/python3.12/site-packages/torch/_dynamo/config.py` is no engine module)."""
    inside = "/" + re.split(r"/(?:site|dist)-packages/", file)[-1]
    for engine in LABEL:
        key = function_key(engine, inside)
        if key:
            return engine, key
    return None


def _refusal_finding(engine: str, where: str, message: str, version) -> Finding:
    """The engine's own check of its settings refused them: its message, and the flags it names with their releases."""
    label = LABEL[engine]
    t = table(engine, "flags")
    named = []
    words = ["--" + w.replace("_", "-") for w in SNAKE.findall(message)] + FLAG_WORD.findall(message)
    for word in dict.fromkeys(words):
        fact = flag_fact(engine, word)
        if t is not None and fact in t.facts and fact not in named:
            named.append(fact)
    lines = [f"{where}: {message[:300]}"]
    lines += [f"`{flag}` sets `{flag[2:].replace('-', '_')}` ({label} {span_text(t, flag)})" for flag in named[:4]]
    what = ", ".join(named[:4]) or "the settings it names"
    fixes = [Fix(f"Change {what} as the message says, then start again", "", "none")]
    short = message.split(". ")[0][:140]
    title = f"{label} {version or ''} refused its own settings: {short}".replace("  ", " ")
    return _finding("config", title, engine, lines, fixes, "medium")


def _unknown_keyword_finding(engine: str, name: str, line: str) -> Finding:
    """An engine-argument keyword that no indexed release has as a flag (`EngineArgs.__init__() got an unexpected
    keyword argument 'worker_use_ray'`): the caller and the installed engine were written for different releases."""
    rel, label = releases(engine), LABEL[engine]
    lines = [line.strip()[:200], f"no {label} release from {rel[0]} to {rel[-1]} has a `--{name.replace('_', '-')}` flag "
                                 "(the index holds these releases)"]
    fixes = [Fix(f"Install the {label} release that the framework building the engine pins (its requirements), or "
                 f"upgrade the framework to a version written for the installed {label}", "", "a reinstall")]
    title = (f"`{name}` is an engine argument of no {label} release from {rel[0]} on (from the release index): the code "
             f"building the engine was written for another {label}")
    return _finding("flag", title, engine, lines, fixes, "low")


# where Python itself lives: a call site there (contextlib, asyncio, functools) passes on a call, it does not make it
_STDLIB = re.compile(r"/(?:usr/(?:local/)?)?lib(?:64)?/python3\.\d+/(?!site-packages/|dist-packages/)|^<frozen ")
# torch's own plumbing between a caller and the module it calls (`nn.Module._call_impl`, Dynamo's frames)
_TORCH = re.compile(r"(?:^|/)torch/(?:nn/modules/|_dynamo/|fx/|utils/_contextlib)")
_PASS_THROUGH = frozenset({"inner", "wrapper", "_wrapper", "wrapped", "_fn", "decorate_context", "sync_wrapper"})
# the caller's package: the folder below site-packages, else the file's own folder
_PACKAGE = re.compile(r"(?:site|dist)-packages/(?P<pkg>[\w.-]+)/")


def _call_mismatch_finding(scan: Scan, crash) -> Finding | None:
    """A call from outside the engine into an engine function whose signature refuses its arguments
    (`build_async_engine_client_from_engine_args() got an unexpected keyword argument 'stat_loggers'` from Triton's
    vLLM backend, `LLM.generate() got an unexpected keyword argument 'prompt_token_ids'` from a trainer): the calling
    package and the installed engine were written for different releases. The `api` table dates the keyword (or the
    attribute, or a missing argument's parameter): the releases that take it give the pin or the upgrade. None when
    the call site is the engine's own code (a bug of that release), or the callee is no function of the engine by the
    release index; a paste with no frame at all is answered only when the table dates a call's keyword or argument."""
    kind = crash.exception_type or ""
    m = CALL_MISMATCH.search(crash.message) if kind.endswith("TypeError") else None
    struct = STRUCT_KWARG.match(crash.message) if kind.endswith("TypeError") and crash.raised_at else None
    read = MISSING_ATTRIBUTE.match(crash.message) if kind.endswith("AttributeError") else None
    if m is None and struct is None and read is None or m is not None and UNEXPECTED_KWARG.search(crash.message):
        return None
    # the engine's name for the callee: `X.f()`'s from the message; a msgspec Struct's (`SamplingParams(...)`, whose
    # refusal names no class) from the call on the code line that raised; an object's class for an attribute read
    callee = m.group("callee") if m else struct and crash.raised_at or read.group("cls")
    # (the call site: the deepest frame that neither Python's own code, torch's module-call plumbing nor a
    # pass-through decorator of the engine made, `vllm/utils/__init__.py, in inner: return fn(*args, **kwargs)`)
    site = next((f for f in reversed(crash.frames) if f.file and not _STDLIB.search(f.file) and not _TORCH.search(f.file)
                 and not (f.function in _PASS_THROUGH and engine_module(f.file) is not None)), None)
    if site is not None and engine_module(site.file) is not None or site is None and crash.frames:
        return None
    # (the log must show the engine ran: a name such as `LLM.chat` is also other libraries' own; a class read from
    # outside, or named by a frameless paste, that only one engine defines, `AsyncLLM`, names it)
    engine = scan.environment.get("engine")
    if engine not in LABEL and (read is not None or site is None):
        owners = [e for e in LABEL if callee_modules(e, callee)]
        engine = owners[0] if len(owners) == 1 else None
    where = callee_modules(engine, callee) if engine in LABEL else []
    if not where:
        return None
    label, version = LABEL[engine], scan.environment.get("engine_version")
    kw = m.group("kw") if m else struct.group("kw") if struct else None
    missing = re.findall(r"'(\w+)'", m.group("missing")) if m and m.group("missing") else []
    name = read.group("attr") if read else kw or (missing[0] if missing else None)
    dated = _api_dating(engine, callee, name, read is not None, bool(missing), version) if name else None
    if site is None and (dated is None or read is not None):
        # (a frameless paste: without a date, nothing says which side moved; an attribute read may be the engine's
        # own code, an `__init__` chain that skipped the base class setting it, sglang's MLX state component)
        return None
    if site is not None:
        pkg = _PACKAGE.search(site.file)
        # (a checkout's file outside site-packages is named by its last folders: `fastchat/serve/vllm_worker.py`)
        caller = "`" + (pkg.group("pkg") if pkg else "/".join(site.file.replace("\\", "/").split("/")[-3:])) + "`"
    else:
        caller = "the calling code"
    release = f"{label} {version}" if version else label
    what = (f"has no attribute `{name}`, which {caller} reads" if read else
            f"takes no keyword `{kw}`, which {caller} passes" if kw else
            f"wants {m.group('missing')}, which {caller} does not pass" if missing else
            f"takes another number of positional arguments than {caller} passes")
    lines = [f"{crash.exception_type}: {crash.message}"[:240],
             f"`{callee}` is {label}'s (defined in {', '.join(f'`{w}`' for w in where[:2])})"
             + (f"; the {'attribute is read' if read else 'call is made'} by {site.file}, line {site.line}, in "
                f"{site.function}, which is not {label}'s own code" if site is not None else "")]
    fixes = [Fix(f"Install the {label} release that {caller} was written for (its requirements or release notes), or "
                 f"upgrade {caller} to a version made for {release if version else 'the installed ' + label}", "",
                 "a reinstall")]
    confidence = "low"
    if dated is not None:
        sentence, dated_fixes, confidence = dated
        lines.append(sentence)
        fixes = dated_fixes + fixes
    shown = f"`{callee}`" if read else f"`{callee}()`"
    title = f"{release}'s {shown} {what}: the two were written for different {label} releases"
    return _finding("signature", title, engine, lines, fixes, confidence)


def _api_dating(engine: str, callee: str, name: str, attribute: bool, missing: bool, version) -> tuple | None:
    """(a sentence, the fixes, a confidence) dating a refused name by the `api` table: the releases whose callee takes
    the keyword (has the attribute; for a missing argument, has the parameter). None when the table cannot tell
    (no release has the callee, or every release that has it agrees)."""
    window = api_window(engine, callee, name, attribute)
    if window is None:
        return None
    exists, takes = window
    rel, label = releases(engine), LABEL[engine]
    if not takes or takes >= exists:
        return None
    pos = position(engine, version)
    noun = f"attribute `{name}`" if attribute else f"parameter `{name}`" if missing else f"keyword `{name}`"
    have = "has" if attribute or missing else "takes"
    runs = _spans(sorted(takes))
    spans = [rel[x] if x == y else f"{rel[x]}-{rel[y]}" for x, y in runs]
    if runs[0][0] == 0:  # (the index's oldest release: older ones may have it too)
        spans[0] = f"every indexed {label} release up to {rel[runs[0][1]]} (the index starts at {rel[0]})"
    else:
        spans[0] = f"{label} {spans[0]}"
    sentence = f"by the release index, `{callee}` {have} the {noun} in {', '.join(spans)}"
    first, last = min(takes), max(takes)
    fixes = []
    if missing:
        # the installed release wants the parameter: the caller was written for a release without it
        without = sorted(exists - takes)
        before = [r for r in without if r < first]
        after = [r for r in without if r > last]
        if pos is not None and pos not in takes:
            return None  # (the installed release has no such parameter: another function of the same name)
        if before:
            fixes.append(Fix(f"Pin {label} {rel[before[-1]]}, the last release before `{callee}` wanted `{name}`, "
                             f"or update the calling code to pass it", f'pip install "{engine}=={rel[before[-1]]}"',
                             "an older engine"))
        if after:
            fixes.append(Fix(f"Upgrade {label} to {rel[after[0]]} or later, where `{callee}` no longer has `{name}`",
                             f'pip install -U "{engine}>={rel[after[0]]}"', "an upgrade; re-test the launch"))
        return (sentence, fixes, "medium" if pos is not None else "low") if fixes else None
    if pos is not None and pos in takes:
        return None  # (the installed release takes it: the refusal is another function's of the same name)
    older = pos is None and min(exists) < first or pos is not None and pos < first
    newer = pos is None and last < max(exists) or pos is not None and pos > last
    if older:
        fixes.append(Fix(f"Upgrade {label} to {rel[first]} or later, the first release whose `{callee}` {have} "
                         f"`{name}`", f'pip install -U "{engine}>={rel[first]}"', "an upgrade; re-test the launch"))
    if newer:
        fixes.append(Fix(f"Pin {label} {rel[last]}, the last release whose `{callee}` {have} `{name}`, or update "
                         f"the calling code to the newer interface", f'pip install "{engine}=={rel[last]}"',
                         "an older engine"))
    if not fixes:
        return None
    return sentence, fixes, "medium" if pos is not None else "low"


# the prefixes the tools that subclass a model put on its class name, and save in config.json when they write the
# checkpoint: optimum-habana (`Gaudi`, GaudiSFTTrainer), Intel's IPEX and OpenVINO exports, AWS Neuron, transformers'
# own TensorFlow / Flax classes, PEFT wrappers. A new model's name with some other word in front is left alone.
TOOL_PREFIXES = frozenset({"Gaudi", "Habana", "Ipex", "IPEX", "OV", "Neuron", "TF", "Flax", "Peft", "PeftModelFor"})
# how each engine's launch overrides the architecture the checkpoint's config.json names (every indexed release has it)
ARCH_OVERRIDE = {"vllm": "vllm serve {model} --hf-overrides '{{\"architectures\": [\"{arch}\"]}}'",
                 "sglang": "python -m sglang.launch_server --model-path {model} --json-model-override-args "
                           "'{{\"architectures\": [\"{arch}\"]}}'"}


def _renamed_architecture(engine: str, t, arch: str, both: bool = False) -> Finding | None:
    """An architecture no release registers that is a registered one with a prefix (`GaudiLlamaForCausalLM`: a
    trainer saved its own subclass's name in config.json, optimum-habana's GaudiSFTTrainer): no upgrade registers it;
    the checkpoint names the wrong class. None when no registered name ends it, or the name is registered."""
    if t is None or t.spans(arch):
        return None
    base = max((a for a in t.facts if arch.endswith(a) and arch[:-len(a)] in TOOL_PREFIXES), key=len, default=None)
    if base is None:
        return None
    label = LABEL[engine]
    lines = [f"no {label} release from {t.releases[0]} to {t.releases[-1]} registers `{arch}`",
             f"`{base}` (registered by {label} {span_text(t, base)}) with `{arch[:-len(base)]}` in front: the checkpoint's "
             f"config.json names the class of the code that saved it, not the model's"]
    # (`both`: the log does not say which engine ran, so the launch override of each)
    fixes = [Fix(f"Set `architectures` in the checkpoint's config.json to [\"{base}\"] (or override it at launch"
                 + (f", {LABEL[e]}" if both else "") + ")", ARCH_OVERRIDE[e].format(model="<model>", arch=base), "none")
             for e in (LABEL if both else (engine,))]
    title = (f"`{arch}` is no {'vLLM or SGLang' if both else label} architecture: `{base}` renamed by the tool that saved "
             f"the checkpoint (from the release index)")
    return _finding("renamed-architecture", title, engine, lines, fixes, "high")


def _spans(indexes: list[int]) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    for i in indexes:
        if out and out[-1][1] == i - 1:
            out[-1] = (out[-1][0], i)
        else:
            out.append((i, i))
    return out


# pydantic refusing a field of one of the engine's config classes: `1 validation error for CompilationConfig` /
# `full_cuda_graph` / `Unexpected keyword argument [type=unexpected_keyword_argument, ...]` (a dataclass) or `Extra
# inputs are not permitted` (a model), read as one message
CONFIG_FIELD = re.compile(r"\bvalidation errors? for (?P<cls>[A-Z]\w*Config)\b.*?(?<![\w.])(?P<field>[a-z]\w*)\s+"
                          r"(?:Unexpected keyword argument|Extra inputs are not permitted)\b", re.S)


def _config_field_finding(scan: Scan, crash) -> Finding | None:
    """A field of an engine config class (`--compilation-config '{"full_cuda_graph": true}'`, a speculative or KV
    transfer config) that the installed release's class refuses: the JSON was written for other releases. The `api`
    table gives the releases whose class takes the field (the pin or the upgrade), or, when none does, the fields
    closest to it (a misspelling). None when the class is no engine's config class by the table."""
    m = CONFIG_FIELD.search(crash.message or "")
    if m is None:
        return None
    cls, field = m.group("cls"), m.group("field")
    engine = scan.environment.get("engine")
    if engine not in LABEL:
        # (a paste that names no engine: the engine whose class of that name ever had the field, when only one does,
        # else the only engine that has such a class; both engines have a `CompilationConfig`)
        owners = [e for e in LABEL if callee_modules(e, cls)]
        had = [e for e in owners if (api_window(e, cls, field) or (set(), set()))[1]]
        engine = had[0] if len(had) == 1 else owners[0] if len(owners) == 1 else None
    window = api_window(engine, cls, field) if engine in LABEL else None
    if window is None:
        return None
    exists, takes = window
    rel, label = releases(engine), LABEL[engine]
    version = scan.environment.get("engine_version") if scan.environment.get("engine") == engine else None
    pos = position(engine, version)
    if pos is not None and pos in takes or takes >= exists:
        return None  # (the release has the field, or every release has it: the refusal is something else's)
    flag = "--" + re.sub(r"(?<!^)(?=[A-Z])", "-", cls.removesuffix("Config")).lower() + "-config"
    t = table(engine, "flags")
    given = f"`{flag}`" if t is not None and flag in t.facts else f"the `{cls}` settings"
    lines = [f"{crash.exception_type}: {crash.message}"[:240]]
    fixes = []
    if takes:
        runs = _spans(sorted(takes))
        shown = ", ".join(rel[x] if x == y else f"{rel[x]}-{rel[y]}" for x, y in runs)
        lines.append(f"by the release index, `{cls}` has the field `{field}` in {label} {shown}"
                     + (f" (the index starts at {rel[0]})" if runs[0][0] == 0 else ""))
        first, last = min(takes), max(takes)
        if pos is not None and pos < first or pos is None and first > min(exists):
            fixes.append(Fix(f"Upgrade {label} to {rel[first]} or later, the first release whose `{cls}` has `{field}`",
                             f'pip install -U "{engine}>={rel[first]}"', "an upgrade; re-test the launch"))
        if pos is not None and pos > last or pos is None and last < max(exists):
            fixes.append(Fix(f"Pin {label} {rel[last]}, the last release whose `{cls}` has `{field}`",
                             f'pip install "{engine}=={rel[last]}"', "an older engine"))
        what = f"was written for {label} {shown}"
    else:
        fields = sorted({k.split("(", 1)[1] for mod in callee_modules(engine, cls)
                         for k in (api_module(engine, mod) or {}) if k.startswith(cls + "(")} - {"*", "**"})
        close = difflib.get_close_matches(field, fields, n=3, cutoff=0.6)
        lines.append(f"no {label} release from {rel[0]} to {rel[-1]} has a `{cls}` field `{field}`"
                     + (f"; the closest fields: {', '.join(close)}" if close else ""))
        what = f"names a field no {label} release has" + (f" (closest: {close[0]})" if close else "")
    fixes.append(Fix(f"Take `{field}` out of {given} (or write it the way this release names it)", "", "none"))
    title = f"`{field}` is no field of {label + (' ' + version if version else '')}'s `{cls}`: {given} {what} (from the release index)"
    return _finding("config-field", title, engine, lines, fixes, "high" if pos is not None and takes else "medium")


# msgspec's refusal of a keyword a Struct does not have (vLLM's SamplingParams): the class is on the code line
STRUCT_KWARG = re.compile(r"^Unexpected keyword argument '(?P<kw>\w+)'$")
# an attribute read of an object of a class (`'AsyncLLM' object has no attribute 'engine'`)
MISSING_ATTRIBUTE = re.compile(r"^'(?P<cls>[A-Z]\w+)' object has no attribute '(?P<attr>\w+)'$")


def _choice_finding(engine: str, version, flag: str, value: str, line: str) -> Finding:
    """A value of a flag the release refused: the release that brought it (an upgrade), the last that had it (a pin)
    or, when no release has it, the names it is closest to. A log naming no version is dated by the values the
    refusal lists, when they are exactly one run of releases' values."""
    label, t = LABEL[engine], table(engine, "choices")
    facts = choice_lines(engine, version, flag, value)
    known = all_choices(engine, flag)
    pos = position(engine, version)
    at = [pos] if pos is not None else releases_listing(engine, flag, listed_choices(line))
    if at and at[-1] - at[0] + 1 != len(at):
        at = []  # (the same values in two runs of releases, a value taken out and put back: no one date)
    key = f"{flag_fact(engine, flag)}={value}"
    spans = t.spans(key) if t is not None and known else []
    rel = t.releases if t is not None else ()
    if pos is None and at:
        facts.append(f"the values the refusal lists are those of {label} "
                     f"{rel[at[0]] if at[0] == at[-1] else rel[at[0]] + '-' + rel[at[-1]]}")
    ran = version or (f"the release that refused it ({rel[at[0]]}" + (f"-{rel[at[-1]]}" if at[-1] != at[0] else "") + ")"
                      if at else None)
    fixes, confidence = [], "medium"
    title = f"`{flag} {value}` is not a value {label} {version or ''} accepts".replace("  ", " ")
    if spans and at and at[-1] < rel.index(spans[0][0]):
        first = spans[0][0]
        title = f"`{flag} {value}` came with {label} {first}: {ran} predates it"
        fixes.append(Fix(f"Upgrade {label} to {first} or later, the first release with `{flag} {value}`",
                         f'pip install -U "{engine}>={first}"', "an upgrade; re-test the launch"))
        confidence = "high"
    elif spans and at and at[0] > rel.index(spans[-1][1]):
        last = spans[-1][1]
        title = f"`{flag} {value}` was taken out after {label} {last}: {ran} no longer has it"
        fixes.append(Fix(f"Pin {label} {last}, the last release with `{flag} {value}`, or pick a value this release "
                         "accepts", f'pip install "{engine}=={last}"', "an older release"))
        confidence = "high"
    elif known and not spans:
        close = difflib.get_close_matches(value, known, n=3, cutoff=0.6)
        if close:
            facts.append(f"the names closest to `{value}` that a {label} release accepts: {', '.join(close)}")
    fixes.append(Fix(f"Pick a value this release accepts for {flag}", "", "none"))
    return _finding("choice", title, engine, [line.strip()[:200]] + facts, fixes, confidence)


def release_findings(scan: Scan) -> tuple[list[Finding], list[str]]:
    """(findings, warnings) the release index gives on this log."""
    lines = _lines(scan)
    triggered = [ln for ln in lines if TRIGGER.search(ln)]
    env_lines = [ln for ln in lines if ENV_TRIGGER.search(ln)]
    removed = [c for c in scan.crashes if c.message and REMOVED.search(c.message)]
    refused = _refused_settings(scan)
    fielded = [c for c in scan.crashes[:4] if c.message and CONFIG_FIELD.search(c.message)]
    mismatched = [c for c in scan.crashes[:4] if c.message and ("()" in c.message and CALL_MISMATCH.search(c.message)
                                                             or c.raised_at and STRUCT_KWARG.match(c.message)
                                                             or MISSING_ATTRIBUTE.match(c.message))]
    if not triggered and not env_lines and not removed and refused is None and not mismatched and not fielded:
        return [], []
    if not available():
        return [], []
    version = scan.environment.get("engine_version")
    findings: list[Finding] = []
    seen = set()
    for line in triggered:
        kwarg = UNEXPECTED_KWARG.search(line)
        # (the argument class names its engine, whatever else the log runs: a trainer's log around the engine)
        engine = KWARG_ENGINE[kwarg.group("cls")] if kwarg else _engine(scan, line)
        if engine is None and INVALID_PARSER.search(line):
            engine = "vllm"  # (the start-up check of a parser's name, in vLLM's words)
        if engine is None:
            # (both engines word the registry's refusal alike: a renamed class is one whichever engine ran)
            m = UNSUPPORTED_ARCH.search(line)
            for arch in re.findall(r"'(\w+)'", m.group("archs")) if m else ():
                renamed = next((r for e in LABEL if (r := _renamed_architecture(e, table(e, "arch"), arch, both=True))), None)
                if renamed is not None and arch not in seen:
                    seen.add(arch)
                    findings.append(renamed)
            continue
        label = LABEL[engine]
        ran = version if not kwarg or engine == scan.environment.get("engine") else None
        pos = position(engine, ran)
        for flag, value in rejected_arguments(line):
            if (flag, value) in seen:
                continue
            seen.add((flag, value))
            if value is None:
                facts = flag_lines(engine, ran, flag)
                t = table(engine, "flags")
                spans = t.spans(flag_fact(engine, flag)) if t else []
                if kwarg and not spans:
                    # a keyword no indexed release has as a flag: the code building the engine was written for a
                    # release older than the index (OpenRLHF passing `worker_use_ray`, gone in vLLM 0.7.0) or for a
                    # patched engine; the index cannot say which release takes it, so the finding stays low
                    findings.append(_unknown_keyword_finding(engine, kwarg.group("name"), line))
                    continue
                newest = bool(spans) and spans[-1][1] == t.releases[-1]
                fixes = []
                if spans and (pos < t.releases.index(spans[0][0]) if pos is not None else newest):
                    # (no version in the log: an argument today's releases take was added after the running one)
                    fixes.append(Fix(f"Upgrade {label} to {spans[0][0]} or later, a release with {flag}",
                                     f'pip install -U "{engine}>={spans[0][0]}"', "an upgrade"))
                elif spans and kwarg:
                    # (no pin: a flag can outlive its field as a deprecated alias - --disable-log-requests was parsed
                    # up to 0.16.0, the keyword was gone in 0.10.1 - so its last release need not take the keyword)
                    fixes.append(Fix(f"Stop passing `{kwarg.group('name')}` to the engine (the framework's engine settings), "
                                     f"or install the {label} release the framework pins", "", "none"))
                elif spans:
                    took_over = TOOK_OVER.get((engine, flag))
                    if took_over is not None and t.spans(flag_fact(engine, took_over[0])):
                        fixes.append(Fix(took_over[1], "", took_over[2]))
                    fixes.append(Fix(f"Drop {flag} (or use its new spelling) on this release, or pin {label} {spans[-1][1]}",
                                     f'pip install "{engine}=={spans[-1][1]}"', "an older release"))
                else:
                    fixes.append(Fix(f"Remove {flag}: no {label} release defines it (check the spelling)", "", "none"))
                if kwarg:
                    name = kwarg.group("name")
                    title = f"`{name}` is not an engine argument of {label} {ran or ''}".rstrip() + \
                        f" (the code building the engine was written for releases with {flag}; from the release index)"
                else:
                    title = f"`{flag}` is not a flag of {label} {version or ''}".rstrip() + " (from the release index)"
                findings.append(_finding("flag", title, engine, [line.strip()[:200]] + facts, fixes,
                                         "high" if pos is not None and spans else "medium"))
            elif PLUGGABLE.get(flag) not in scan.environment.flags:  # (a plugin may register any name)
                findings.append(_choice_finding(engine, version, flag, value, line))
        archs = []
        m = UNSUPPORTED_ARCH.search(line)
        if m:
            archs = re.findall(r"'(\w+)'", m.group("archs"))
        m = FALLBACK_ARCH.search(line)
        if m:
            archs.append(m.group("arch"))
        for arch in archs:
            if arch in seen:
                continue
            seen.add(arch)
            facts = architecture_lines(engine, version, arch)
            if not facts:
                continue
            t = table(engine, "arch")
            spans = t.spans(arch)
            renamed = _renamed_architecture(engine, t, arch) if not spans else None
            if renamed is not None:
                findings.append(renamed)
                continue
            fixes = [Fix(f"Upgrade {label} to {spans[0][0]} or later, the first release that registers {arch}",
                         f'pip install -U "{engine}>={spans[0][0]}"', "an upgrade")] if spans else []
            findings.append(_finding("architecture", f"{label} {version or ''} does not register `{arch}`".replace("  ", " "),
                                     engine, [line.strip()[:200]] + facts, fixes, "high" if spans and version else "medium"))
        imported = import_lines(line, {scan.environment.get("engine"): version})
        if imported is not None and imported[1] not in seen:
            ran = version if imported[0] == scan.environment.get("engine") else None
            findings.append(_import_finding(line, ran, *imported))
            seen.add(imported[1])
    for crash in removed[:2]:
        found = _removal_finding(scan, crash.message)
        if found is not None and found.title not in seen:
            seen.add(found.title)
            findings.append(found)
    for crash in fielded[:1]:
        found = _config_field_finding(scan, crash)
        if found is not None and found.title not in seen:
            seen.add(found.title)
            findings.append(found)
    for crash in mismatched:
        found = _call_mismatch_finding(scan, crash)
        if found is not None and found.title not in seen:
            seen.add(found.title)
            findings.append(found)
    if refused is not None and not findings:  # (a rejected flag or a removal says more than the check's words)
        engine, where, message = refused
        findings.append(_refusal_finding(engine, where, message,
                                         version if scan.environment.get("engine") == engine else None))
    warnings: list[str] = []
    engine = _engine(scan)
    if env_lines and engine:
        warnings = ignored_variables(engine, version, env_lines)
    return findings, warnings


def _gone_after(scan: Scan, engine: str, ends: list[int]) -> str | None:
    """The releases after the last one that raises the message no longer do (the check was changed or removed
    there): for a log of that release or an older one, or of no stated version, a step to try one of them. `ends`:
    the last release (index) of every raise site whose template matches the message (a reworded message that still
    matches keeps the check alive)."""
    rel, label = releases(engine), LABEL[engine]
    last = max(ends, default=len(rel) - 1)
    if last + 1 >= len(rel):
        return None
    version = scan.environment.get("engine_version") if scan.environment.get("engine") == engine else None
    pos = position(engine, version)
    if pos is not None and pos > last:
        return None  # this release is past it: the message comes from other code (a fork, a plugin)
    after = rel[last + 1]
    return (f"{label} {after} and later no longer raise it (the code there changed): if nothing in the log points "
            f"elsewhere, re-test on {after} or later (`pip install -U \"{engine}>={after}\"`)")


def raise_site_notes(scan: Scan, findings: list[Finding], catalog) -> tuple[list[Finding], list[str]]:
    """For a crash no rule explains: the raise site of its message and the rules that name the same function, as
    next steps. (A diagnosis with findings does not read the raise sites: that table is the biggest one.)"""
    crash = next((c for c in scan.crashes if c.message and c.role != "wrapper"), None)
    if crash is None or findings or not available():
        return findings, []
    site = _raise_site(scan, crash.message, limit=8)  # (the first is named; all of them date the check's end)
    if site is None:
        return findings, []
    engine, sites = site
    path, func, present, *_ = sites[0]
    steps = [f"the message is raised by `{path}` in `{func}`, present in {LABEL[engine]} {present}"]
    later = _gone_after(scan, engine, [s[-1] for s in sites])
    if later:
        steps.append(later)
    citing = []
    from ..patterns import compile_pattern

    for rule in catalog.rules.values() if func not in GENERIC_FRAMES else ():  # (`__getattr__` names no cause)
        for clause in [c for alt in rule.match for c in alt] + list(rule.supports):
            if clause.kind == "frames" and any(compile_pattern("frames", s).fullmatch(func) for s in clause.sources):
                citing.append(rule.id)
                break
    if citing:
        steps.append(f"rules naming `{func}`: {', '.join(sorted(citing)[:5])} (see `qwen3doctor explain <id>`)")
    module = set(path.rsplit(".", 1)[0].split("/")[1:])
    if CHECK_FRAME.fullmatch(func) and CHECK_MODULES & module and not crash.message_cut \
            and crash.exception_type in CHECK_TYPES:
        # (a check of the engine's own settings raised it, though the paste holds no frame of it: a trainer's log
        # that prints only the error line)
        version = scan.environment.get("engine_version") if scan.environment.get("engine") == engine else None
        return [_refusal_finding(engine, func, crash.message.strip(), version)], steps
    return findings, steps
