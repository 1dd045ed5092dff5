"""The scoring policy, in one place: how much each clause counts, confidence, and the fixes offered.

Rules say what to look for; nothing in a rule sets a weight.
"""

from __future__ import annotations

import functools
import re
import shlex
from dataclasses import replace

from .combination import FACTS, GATES, known_bad, may_combine
from .match import DATED, FRAGMENT, UNSEEN, when_states
from ..knowledge.catalog import safe_search
from ..knowledge.patterns import compile_pattern
from ..knowledge.generic import PER_BATCH_FRAMES, SCAFFOLD_FRAMES
from ..read.command import read_command, without_flags
from ..read.phases import DIED_STARTING, IMPORTING, SERVING, STEPS, phase_of, phase_of_frames, step_of
from .. import vocab
from ..model import Environment, Evidence, Finding, Fix, RuleMatch, Scan
from ..versions import in_range, parse_version

# what a hit on a required `match` clause is worth
MATCH_WEIGHT = {"frames": 0.45, "message": 0.35, "log": 0.30, "exception": 0.10}
GENERIC_WEIGHT = 0.06  # a generic message or a common exception type
# supporting evidence: a little each, capped
SUPPORT_WEIGHT = {"frames": 0.15, "message": 0.12, "log": 0.10, "exception": 0.05}
SUPPORT_CAP = 0.30
# conditions on the environment
# model family, engine and platform are gates, not evidence: for a rule without crash evidence of its own (a flag,
# a generic message, a common frame) a hit adds nothing, so a family-agnostic cause does not lose to a narrower
# rule for holding the family; a miss cuts the score (MISS_FACTOR) either way (GATES: judge/combination.py)
WHEN_WEIGHT = {
    "when.engine": 0.04, "when.family": 0.15, "when.engine_version": 0.10, "when.quantization": 0.12,
    "when.gpu": 0.08, "when.compute_capability": 0.08, "when.platform": 0.06, "when.flags": 0.08,
    "when.not_flags": 0.03, "fixed_in": 0.02,
}
ENV_WEIGHT = 0.06  # each when.env.* hit
# a contradicted condition multiplies the score
MISS_FACTOR = {"when.engine": 0.1, "when.family": 0.1, "when.platform": 0.1, "fixed_in": 0.3}
OTHER_MISS_FACTOR = 0.45
# confidence thresholds
HIGH, MEDIUM = 0.60, 0.35
MAX_FINDINGS = 5
MAX_CANDIDATES = 3  # when no finding is better than a low-confidence candidate
MIN_SCORE = 0.05
SCAFFOLD = frozenset(SCAFFOLD_FRAMES)  # frames that place a crash on no path
PER_BATCH = frozenset(PER_BATCH_FRAMES)  # frames every prefill / decode batch passes (capture too)

STATUS_ORDER = {"confirmed": 0, "likely": 1, "unconfirmed": 2}
PLACEHOLDERS = ("model", "serve_args", "engine_version", "tp", "fixed_version")


def scoreless(rule, scan: Scan, hay) -> bool:
    """What `score` would say without the rule's evaluation: None for sure when no clause of the rule can hit on the
    log (no anchor of its `match` or `supports` present) and no cut traceback stops in its module, unless its `when`
    conditions make a known-bad combination of the log's facts (the only finding left to such a rule). (On a cut paste
    most rules are so: skipping them was 55% of the evaluations; those whose conditions state a fact, 57% of the
    rest, need only their conditions judged.)"""
    if not rule.match or not hay.silent(rule) or _module_of_cut(rule, scan) is not None:
        return False
    return not may_combine(rule) or not _combination_states(rule, when_states(rule, scan))


def score(rm: RuleMatch, scan: Scan) -> Finding | None:
    """Turn one rule's clause states into a finding, or None when the rule does not apply.

    Strong evidence is a hit on a required clause that is not generic. A rule with only generic hits (the
    bare `illegal memory access` line, a bare `KeyError`) is a low-confidence candidate; a rule with no
    crash evidence at all may only report a known-bad combination of facts, also at low confidence.
    """
    if rm.rejected:
        return None
    rule = rm.rule
    total = 0.0
    strong = weak = beside_cut = False
    crashed = any(c.role != "consequence" for c in scan.crashes)
    # a clean log cannot prove a crash rule by a log line alone: its crash clauses are simply absent
    crash_clauses_absent = not crashed and any(
        ev.state == "unknown" and ev.clause.rsplit(".", 1)[-1] in ("frames", "exception", "message") for ev in rm.match
    )
    # a traceback cut above what the rule needs (its frames or message unknown): a `log` pattern that hit one of the
    # traceback's own frame lines only says the crash ran along that path, as a supporting frame would
    cut_short = any(ev.state == "unknown" and ev.clause.rsplit(".", 1)[-1] in ("frames", "message") for ev in rm.match)
    path_hit = False
    # the alternatives whose crash clause (message, frames, exception) the paste cut off: a generic `log` line they also
    # need (a model's name, a healthy start-up line) is no sign of this crash beside them
    cut_alternatives = {ev.clause.rsplit(".", 1)[0] for ev in rm.match
                        if ev.state == "unknown" and ev.clause.rsplit(".", 1)[-1] in ("frames", "exception", "message")}
    for ev in rm.match:
        if ev.state != "hit":
            continue
        kind = ev.clause.rsplit(".", 1)[-1]
        if crash_clauses_absent and kind == "log":
            total += SUPPORT_WEIGHT["log"]
            continue
        if cut_short and kind == "log" and _traceback_line(ev.line):
            # (a traceback of imports runs through module top levels: a frame line there places no run-time cause; nor
            # does a frame line of scaffolding, a constructor that every step's traceback passes)
            # (but the import statement itself, the code line a traceback of imports stops on, is where it failed:
            # `from transformers.models.qwen2_5_vl import (Qwen2_5_VLImageProcessor,`)
            importing = any(c.during == IMPORTING for c in scan.crashes[:1])
            if (not importing or _IMPORT_CODE.match(ev.line)) and not _scaffold_line(ev.line):
                total += SUPPORT_WEIGHT["frames"]
                path_hit = True
            continue
        if rm.generic.get(ev.clause):
            total += GENERIC_WEIGHT
            # a generic message says which class of crash this is; a frame every traceback passes says nothing
            weak = weak or (kind != "frames" and not (kind == "log" and ev.clause.rsplit(".", 1)[0] in cut_alternatives))
        elif kind == "log" and ev.clause.rsplit(".", 1)[0] in cut_alternatives:
            # a line the cause needs beside its cut-off message or frames (the drafter named in the launch): evidence,
            # but not of where this crash happened, so the crash's own step still rules (below)
            total += MATCH_WEIGHT[kind]
            beside_cut = True
        else:
            total += MATCH_WEIGHT[kind]
            strong = True
    if beside_cut and not strong:
        if _other_step(rule, scan):
            return None  # (a crash its own frames place in another start-up step than this cause's)
        strong = True
    support = 0.0
    supported = False  # a specific supporting hit: a frame, a log line, a non-generic message
    for ev in rm.supports:
        if ev.state == "hit":
            kind = ev.clause.rsplit(".", 1)[-1]
            # (frames like __init__ are generic too; so is a log line every healthy start prints, a default argument)
            # (and the model's own name in the launch line: the family, which the gates weigh)
            generic = ev.generic or rm.generic.get(ev.clause) or kind == "exception" or (
                kind == "log" and (_name_only(ev, rule, scan, rm.match) or _finished_step(ev.line, scan)))
            support += GENERIC_WEIGHT if generic else SUPPORT_WEIGHT[kind]
            supported = supported or not generic
    step = None
    if rule.match and not strong and not any(
            ev.state == "hit" and ev.clause.endswith("frames") for ev in tuple(rm.match) + tuple(rm.supports)):
        # a crash the log places in a start-up step this cause fails in, when no frame of its own says so (the
        # traceback cut above the step's function): as much as a supporting line, never a candidate on its own
        step = _step_agrees(rule, scan)
        if step is not None:
            support += SUPPORT_WEIGHT["log"]
    total += min(support, SUPPORT_CAP)
    factor = 1.0
    misses = []
    agnostic = engine_agnostic(rule)
    # (a rule without crash evidence of its own whose launch facts are only partly known: the GPU of an FP8-only
    # cause, its quantization not in the log, says nothing on its own)
    facts_unknown = not strong and any(ev.state == "unknown" and ev.clause in FACTS for ev in rm.when)
    for ev in rm.when:
        if ev.state == "hit":
            # (a version the traceback is only dated to adds nothing to a rule without crash evidence of its own)
            if strong or ev.clause not in GATES and ev.subject != DATED and not (facts_unknown and ev.clause in FACTS):
                total += WHEN_WEIGHT.get(ev.clause, ENV_WEIGHT)
        elif ev.state == "miss":
            if ev.clause == "when.engine" and agnostic:
                factor *= OTHER_MISS_FACTOR  # the library's crash reads the same under either engine
            else:
                factor *= MISS_FACTOR.get(ev.clause, OTHER_MISS_FACTOR)
            misses.append(ev)
    hard_miss = any(ev.clause == "when.family" or ev.clause == "when.engine" and not agnostic for ev in misses)
    if any(ev.clause == "when.engine" and not agnostic for ev in misses) and _engine_read_from_log(scan):
        # another engine's cause: its message or frames, met in this engine's log, come from other code (a kernel
        # library's or a transport's cause reads the same under either engine and is kept, demoted; so is a cause
        # whose own lines contradict the engine a user named with --engine)
        return None
    # a traceback cut above its exception line, whose frames (common ones too) lie on this crash's known path
    on_path = _cut_traceback(scan) and any(
        ev.state == "hit" and ev.clause == "supports.frames" and ev.subject not in SCAFFOLD
        # (a start-up step's entry, `capture_one_batch_size`, places a cut traceback; the serving step's, such as
        # `execute_model`, is on the path of every request's crash and places it nowhere)
        and not (ev.generic and (step_of(phase_of_frames([ev.subject])) == SERVING or ev.subject in PER_BATCH))
        for ev in rm.supports
    ) and _in_port(rule, scan)
    basis = "evidence"
    extra: tuple[Evidence, ...] = ()
    module = _module_of_cut(rule, scan) if rule.match and not strong and not misses else None
    if rule.match and not strong:
        if weak and _type_alone(rm, scan):
            return None
        if _other_step(rule, scan):
            return None  # a candidate whose crash happens in another start-up step than this one did
        if weak:
            if hard_miss or misses:
                # a generic message from another engine or model family says nothing, and a candidate the launch
                # contradicts (its workaround flag set, a version outside its window, another platform) is dropped
                return None
            basis = "generic"
        elif _combination(rm):
            basis = "combination"
        elif (supported and crashed and not rm.message_missed or on_path or path_hit or module is not None) and not misses:
            # a crash whose own lines are missing, and lines that point here; or a cut traceback on this cause's path
            basis = "supporting" if supported and crashed else "path"
            # (the cut traceback stops in the module this cause lives in: beside supporting lines only when the module
            # is the one the rule's id abbreviates, `ct-...` in compressed_tensors/, not a short word both share)
            if module is not None and (basis == "path" or _abbreviated(rule, module)):
                total += MODULE_WEIGHT
                extra = (Evidence("supports.frames", "hit",
                                  f"the traceback stops in `{module.rsplit('/', 1)[-1]}`, where this cause lives"),)
        else:
            return None
    elif not rule.match:
        if not _combination(rm):
            return None
        basis = "combination"
    if step is not None:
        extra += (Evidence("supports.frames", "hit", f"the log places the crash in this cause's step: {step}"),)
    total *= factor
    if total < MIN_SCORE:
        return None
    unknown_when = sum(1 for ev in rm.when if ev.state == "unknown")
    confidence = "low"
    if strong and not misses:
        if total >= HIGH and unknown_when <= 2:
            confidence = "high"
        elif total >= MEDIUM:
            confidence = "medium"
    if any(ev.state == "unknown" for ev in rm.match) and not any(
            ev.state == "hit" and not ev.generic and ev.clause.rsplit(".", 1)[-1] in ("message", "exception") for ev in rm.match):
        # a clause it needs was cut off (the message, the deepest frames) and no telling message stands in for it:
        # frames or lines on its path make a candidate, not a claim; one the log contradicts is no candidate at all
        if misses:
            return None
        confidence = "low"
    if any(ev.state == "unknown" and ev.subject == UNSEEN for ev in rm.match):
        # a line it needs may be above where the paste starts (match._unseen_log): a candidate, shown only when no
        # rule has its whole evidence
        confidence, basis = "low", "unseen"
    if confidence == "high" and (rule.status == "unconfirmed" or any(ev.subject == FRAGMENT for ev in rm.match)):
        confidence = "medium"  # an unconfirmed cause, or a message read from pasted lines without a crash line
    notes = tuple(ev.text for ev in misses) + BASIS_NOTE.get(basis, ())
    if confidence == "low":
        notes += confirm_note(rm)
    return Finding(
        rule_id=rule.id, title=rule.title, status=rule.status, score=round(min(total, 1.0), 3),
        confidence=confidence, engines=rule.engines, families=rule.families, references=rule.references,
        evidence=tuple(rm.match) + tuple(rm.supports) + extra + tuple(rm.when), fixes=fixes_for(rm, scan.environment),
        fixed_in=rule.fixed_in, notes=notes, basis=basis,
    )


CONFIRM = {"message": "an exception message matching `{}`", "frames": "a traceback through `{}`",
           "log": "a log line matching `{}`", "exception": "the exception `{}`"}


def confirm_note(rm: RuleMatch) -> tuple[str, ...]:
    """What would confirm a low-confidence candidate: its most telling `match` clause the log did not hit."""
    hit = {ev.clause.rsplit(".", 1)[-1] for ev in rm.match if ev.state == "hit"}
    for kind in ("message", "frames", "log", "exception"):
        for alternative in rm.rule.match:
            for clause in alternative:
                if clause.kind == kind and kind not in hit:
                    return ("would be confirmed by " + CONFIRM[kind].format(clause.sources[0]),)
    return ()


def _engine_read_from_log(scan: Scan) -> bool:
    fact = scan.environment.facts.get("engine")
    return fact is not None and str(fact.source).startswith("log")


def engine_agnostic(rule) -> bool:
    """A kernel library's or a transport's cause (FlashInfer, NCCL / gloo, DeepEP, Triton): the rule's `libraries`."""
    return any(lib in vocab.ENGINE_AGNOSTIC for lib in rule.libraries)


# a log line that is a traceback's frame line (`File ".../qwen2_5_vl.py", line 928, in forward`)
_FRAME_LINE = re.compile(r'File \S*?"?[^"]*\.py"?, line \d+, in ')
_CODE_LINE = re.compile(r"^ {4,}(?!--)[\w.\[\]()'\"]+.*[(=\[]")


# a line that launches or configures the server, where the model's id is an argument
_LAUNCH_LINE = re.compile(r"\bserve\b|launch_server|--model(?:-path)?\b|\bmodel(?:_path)?=|[\"']model(?:_path)?[\"']:")


def _name_only(ev: Evidence, rule, scan: Scan, rule_hits=()) -> bool:
    """A supporting `log` hit that only matched the model's own name in its launch line (`--model-path google/gemma-3-27b-it`),
    for a rule with no crash evidence of its own (no message, exception or frame hit; `rule_hits`: its match states):
    with the model's id masked, none of the rule's `log` patterns matches the line any more. The name is the model's
    family, which the rule's gates weigh; it is no line of this crash, and on its own makes no candidate (every cut
    traceback of a Gemma 3 server would otherwise be a KV block-pool crash). (A `match` clause on the launch line is
    the rule's own choice: a paste cut right after its first error line, vllm#27906.)"""
    model = scan.environment.get("model")
    line = ev.line
    if not model or not line or not _LAUNCH_LINE.search(line) or any(
            e.state == "hit" and e.clause.rsplit(".", 1)[-1] in ("message", "exception", "frames") for e in rule_hits):
        return False
    name = str(model).rstrip("/").rsplit("/", 1)[-1]
    if len(name) < 4 or name not in line:
        return False
    masked = line.replace(str(model), " ").replace(name, " ")
    sources = [src for alternative in rule.match for cl in alternative if cl.kind == "log" for src in cl.sources] + [
        src for cl in rule.supports if cl.kind == "log" for src in cl.sources]
    patterns = [compile_pattern("log", src) for src in sources]
    # (a pattern that needs the name and a flag beside it, `Qwen3-Coder.*--tool-call-parser hermes`, is about the
    # launch: the name alone must be what one pattern matches)
    return not any(safe_search(p, masked) for p in patterns) and any(safe_search(p, str(model)) for p in patterns)


def _scaffold_line(line: str) -> bool:
    """A frame line whose function is scaffolding (`..., line 200, in __init__`). (A comprehension or a lambda is
    scaffolding as a name, but its line sits inside the function of its file: `hermes_tool_parser.py ... in <listcomp>`
    is the parser's own code.)"""
    m = _FRAME_LINE.search(line)
    function = line[m.end():].strip() if m is not None else ""
    return function in SCAFFOLD and not function.startswith("<") or function == "<module>"


_IMPORT_CODE = re.compile(r"\s*(?:from\s+[\w.]+\s+)?import\s+[\w(]")  # an import statement as a traceback's code line


def _traceback_line(line: str) -> bool:
    """A log line that is one of a traceback's own lines: a frame line, or the indented code line under one."""
    return bool(_FRAME_LINE.search(line) or _CODE_LINE.match(line))


MODULE_WEIGHT = 0.08
# words of engine module paths that name no particular feature
COMMON_WORDS = frozenset((
    "model", "models", "worker", "workers", "runner", "utils", "util", "layers", "layer", "engine", "executor", "base",
    "core", "cuda", "graph", "graphs", "loader", "config", "configs", "forward", "context", "init", "main", "server",
    "scheduler", "manager", "managers", "python", "linear", "quant", "quantization", "attention", "backend", "backends",
    "distributed", "entrypoints", "openai", "serving", "sample", "sampler", "ops", "kernels", "kernel", "common",
    "interface", "interfaces", "registry", "multiproc", "process", "proc", "output", "outputs", "input", "inputs",
    "weight", "weights", "unsupported", "error", "failed", "mismatch", "invalid", "crash", "cudagraph", "memory",
    "illegal", "access", "start", "startup", "missing", "dist", "packages", "site", "local", "compile", "compilation",
    "vllm", "sglang", "srt", "omni", "ascend", "qwen", "qwen3", "qwen35", "entry", "points", "api", "serve", "served",
    "launch", "cli", "args", "arg", "parser", "handler", "handlers", "wrapper", "load", "loading", "state", "states",
    "copy", "parallel",
))
_ENGINE_PATH = ("/vllm/", "/sglang/", "/vllm_ascend/", "/vllm_omni/", "/sglang_omni/")


@functools.lru_cache(maxsize=4096)
def _engine_file(path: str) -> bool:
    """A file of the engine's own package: judged on the path inside the install (a virtualenv named `vllm` holds
    torch's files too, `/home/u/vllm/lib/python3.12/site-packages/torch/nn/modules/module.py`)."""
    inside = re.split(r"/(?:site|dist)-packages/", path)[-1]
    return any(p in "/" + inside for p in _ENGINE_PATH)


@functools.lru_cache(maxsize=4096)
def _words(text: str) -> frozenset[str]:
    """The words of a rule id or a module name that can name a cause (asked per rule of every cut traceback)."""
    return frozenset(w for w in re.split(r"[^a-z0-9]+", text.lower()) if len(w) >= 4 and w not in COMMON_WORDS)


_PLATFORM_PATH = {"npu": "ascend", "rocm": "rocm", "xpu": "xpu", "tpu": "tpu", "maca": "metax", "musa": "musa"}


# the engines' modules that run every request or every start-up step: a traceback cut in one of them is on
# every cause's path, whatever a rule's id says (SGLang's model_runner.py, vLLM's gpu_model_runner.py, ...)
PLUMBING_MODULES = frozenset({"model_runner", "gpu_model_runner", "tp_worker", "scheduler", "gpu_worker",
                              "multiproc_executor", "async_llm", "core", "core_client", "serving_chat", "api_server",
                              # vLLM's tracing decorator wraps every worker call (`vllm/tracing/otel.py sync_wrapper`)
                              "otel", "tracing"})


# file names that say nothing of what a file holds
_BARE_STEMS = frozenset({"utils", "util", "common", "base", "__init__", "layer", "layers", "interface", "helpers", "ops",
                         "module", "modules", "api", "impl", "main", "types", "config"})


def _module_of_cut(rule, scan: Scan) -> str | None:
    """A traceback cut above its exception line: the deepest engine module it stops in (its path), when that module's
    name (`spec_decode/eagle.py`) names a word of the rule's id (`eagle3-...`) or its package is one the id
    abbreviates (ID_ABBREVIATIONS)."""
    if not _cut_traceback(scan):
        return None
    own = [c for c in scan.crashes if c.role not in ("wrapper", "consequence")]
    if own[0].during == IMPORTING:
        return None  # a module being imported is not where a run-time cause lives
    files = [f.file for f in reversed(own[0].frames) if _engine_file(f.file) or _abbreviated(rule, f.file)][:2]
    rule_words = _words(rule.id)
    for file in files:
        if _ported(rule) and not _port_file(rule, file):
            continue  # a platform port's cause lives in the port's files (vllm_ascend/...), not in the engine's own
        package, _, stem = "/".join(file.rsplit("/", 2)[-2:]).removesuffix(".py").rpartition("/")
        words: set[str] = set()
        # a compound name says what it is whole (`spec_decode/` is spec-decode-..., not any *-decode-*;
        # `radix_cache.py` is radix-cache-..., not any *-cache-*, `tp_worker_overlap_thread.py` no *-thread-*)
        # (a model's file, `models/qwen3_vl.py`, names the model, which the rule's family condition judges)
        # (a file whose own name says what it holds, `spec_decode/eagle.py`, is where that thing's causes live, not every
        # cause of its folder: the folder speaks only for a file whose name says nothing, `spec_decode/utils.py`)
        named = stem not in PLUMBING_MODULES and stem not in _BARE_STEMS
        for name in (stem,) if named else (package, stem):
            if name in PLUMBING_MODULES:
                continue  # every traceback of its phase stops in it: it names no cause (`mlx-model-runner-...`)
            if "_" in name.strip("_") and not (name is stem and package == "models"):
                if f"-{name.strip('_').lower().replace('_', '-')}-" in f"-{rule.id}-":
                    return file
            else:
                words |= _words(name)
        for word in words:
            if any(r == word or len(word) >= 5 and r.startswith(word) for r in rule_words):
                return file
        if _abbreviated(rule, file):
            return file
    return None


def _in_port(rule, scan: Scan) -> bool:
    """A rule of a platform port (ROCm, Ascend, ... and not CUDA) is on a cut traceback's path only when the log's
    platform is that one or, with the platform unknown, the traceback runs through the port's files (vllm_ascend/,
    aiter/, ...): the engine's own step frames (profile_run, _dummy_run) are the same on every platform, and most
    logs come from CUDA."""
    if not _ported(rule) or scan.environment.get("platform"):
        return True  # (a known platform is judged by the rule's `when.platform` condition)
    own = [c for c in scan.crashes if c.role not in ("wrapper", "consequence")]
    return any(_port_file(rule, f.file) or _abbreviated(rule, f.file) for c in own[:1] for f in c.frames)


def _ported(rule) -> bool:
    """The rule is about a platform port (ROCm, Ascend, XPU, ...), not CUDA."""
    platforms = rule.when.get("platform") or ()
    return bool(platforms) and "cuda" not in platforms


def _port_file(rule, file: str) -> bool:
    """A file of the port the rule's platforms name (`vllm_ascend/...` for npu, a `rocm` path for rocm)."""
    return any(_PLATFORM_PATH.get(p, "\0") in file.lower() for p in rule.when.get("platform") or ())


def _abbreviated(rule, file: str) -> bool:
    return any(package in file for package in _abbreviated_packages(rule.id))


@functools.lru_cache(maxsize=4096)
def _abbreviated_packages(rule_id: str) -> tuple[str, ...]:
    """The packages whose abbreviation the rule id holds (none for most rules; asked per frame of a cut traceback)."""
    words = rule_id.split("-")
    return tuple(package for package, short in ID_ABBREVIATIONS if short in words)


# engine packages that rule ids name by an abbreviation (`ct-moe-scheme-unsupported` lives in compressed_tensors/)
# (and kernel libraries whose package a rule id names: `aiter-...` for a traceback stopping in aiter/)
ID_ABBREVIATIONS = (("/compressed_tensors/", "ct"), ("/fla/ops/", "gdn"), ("/gdn_", "gdn"), ("/aiter/", "aiter"),
                    ("/flashinfer/", "flashinfer"), ("/deep_gemm/", "deepgemm"), ("/deep_ep/", "deepep"),
                    ("/triton/compiler/", "triton"), ("/triton/runtime/", "triton"))


def _cut_traceback(scan: Scan) -> bool:
    """The log's first crash is a traceback cut before its exception line, and no crash names an exception. (Asked
    for most rules on every log: the last scan's answer is kept.)"""
    if _LAST_CUT[0] is scan:
        return _LAST_CUT[1]
    own = [c for c in scan.crashes if c.role not in ("wrapper", "consequence")]
    cut = bool(own) and not own[0].complete and bool(own[0].frames) and not any(c.exception_type for c in own)
    _LAST_CUT[:] = [scan, cut]
    return cut


_LAST_CUT: list = [None, False]


def _type_alone(rm: RuleMatch, scan: Scan) -> bool:
    """The rule's only hit is a common exception type (`AssertionError`) whose frames the paste lacks, while the
    paste shows that exception's own message: the message is what tells this crash apart, and the rule says nothing
    about it, so the type alone is no candidate (`AssertionError: Failed to apply prompt replacement` is not every
    rule whose assert lives in a frame the paste does not show)."""
    hits = [ev for ev in rm.match if ev.state == "hit"]
    # (a message pattern that any bare exception of the type meets, `^AssertionError:?\s*$`, says no more than the type)
    if not any(ev.clause.rsplit(".", 1)[-1] == "exception" for ev in hits) or any(
            ev.clause.rsplit(".", 1)[-1] != "exception" and not (ev.clause.endswith("message") and ev.generic) for ev in hits):
        return False
    if not any(ev.state == "unknown" and ev.clause.endswith("frames") for ev in rm.match):
        return False
    # (a bare assert whose statement the paste quotes is as good as a message: `assert use_attn_tp_group is False`;
    # a traceback cut above its frames shows the message as well as one with none: the rule's frames are not there)
    return any(c.exception_type and (c.message.strip() or c.assertion)
               for c in scan.crashes if c.role != "consequence")


def _other_step(rule, scan: Scan) -> bool:
    """The crash happened in a step of the start-up (or serving) that none of the rule's frames belong to: a
    candidate resting on no crash evidence of its own that this contradicts is no candidate (a paste cut while the
    checkpoint's shards load is no serve-argument check's failure). The crash's own frames place it exactly; a phase
    line before it only says the crash came at that step or later (a paste may omit the lines after it), so then only
    a rule whose steps all come earlier is contradicted."""
    own = [c for c in scan.crashes if c.role not in ("wrapper", "consequence")]
    steps = rule.frame_steps
    if not steps or not scan.crashes:
        return False
    if steps == {SERVING} and any(DIED_STARTING.search(f"{c.exception_type}: {c.message}") for c in scan.crashes):
        return True  # the engine never started, so no request's step did it
    if not own:
        # only a wrapper (`EngineDeadError` while serving): its frames are the caller's, but the phase line before it
        # still dates the death, and a cause whose every step comes earlier did not cause it
        by_line = step_of(scan.crashes[0].during)
        return by_line is not None and all(STEPS.index(s) < STEPS.index(by_line) for s in steps)
    by_frames = step_of(phase_of_frames(own[0].functions))
    if by_frames is not None:
        return by_frames not in steps
    by_line = step_of(own[0].during)
    return by_line is not None and all(STEPS.index(s) < STEPS.index(by_line) for s in steps)


def _finished_step(line: str | None, scan: Scan) -> bool:
    """A start-up step's own line (`Capturing CUDA graphs (decode, FULL): 100%`) beside a crash the log places after
    start-up finished: that step ran to its end, so its line supports no cause that strikes inside it."""
    step = step_of(phase_of(line)) if line else None
    if step is None or step == SERVING:
        return False
    own = [c for c in scan.crashes if c.role not in ("wrapper", "consequence")]
    return bool(own) and step_of(own[0].during) == SERVING


def _step_agrees(rule, scan: Scan) -> str | None:
    """The start-up step the last phase line before the crash places it in, when the crash's own frames place it
    nowhere (a traceback cut above the step's function) and the rule's frames name that step and only start-up steps
    (a cause that may also strike while serving gains nothing from it), else None. (Frames that place the crash in a
    step without naming the rule's function say it failed elsewhere in that step: `create_model_config` is not
    `get_tool_parser`.)"""
    steps = rule.frame_steps
    own = [c for c in scan.crashes if c.role not in ("wrapper", "consequence")]
    if not steps or SERVING in steps or not own or phase_of_frames(own[0].functions) is not None:
        return None
    step = step_of(own[0].during)
    return step if step in steps else None


def _combination(rm: RuleMatch) -> bool:
    """A known-bad combination (judge/combination.py, the policy `check` uses too) whose facts that hold already
    make it one: a `check` warning, or a possible whose unknown conditions could only contradict it."""
    return _combination_states(rm.rule, rm.when)


def _combination_states(rule, when) -> bool:
    combo = known_bad(rule, when)
    return combo is not None and combo.enough


BASIS_NOTE = {
    "generic": ("only generic evidence (a message every crash of this class shares): a candidate, not a diagnosis",),
    "supporting": ("the log lacks this crash's own lines: a candidate from supporting lines and the environment",),
    "combination": ("no crash evidence for it in the log: the environment is a known-bad combination",),
    "unseen": ("the paste starts at its crash, and a line this cause prints before it is not shown: a candidate "
               "until the lines above the crash are pasted",),
    "path": ("the log shows a path this crash takes but not its exception line (a traceback cut above it, or where a "
             "hung thread is stuck): a candidate until the rest is pasted",),
}


def rank(findings: list[Finding], scan: Scan | None = None) -> list[Finding]:
    """Best first. Once some rule has its own evidence, candidates that rest on less are left out. Rules whose
    only strong evidence is the same clause hit (a common kernel frame, one message shape) are tied candidates
    at low confidence, never a confident claim for one of them."""
    if any(f.basis == "evidence" and f.confidence != "low" for f in findings):
        findings = [f for f in findings if f.basis == "evidence"]
    depth = _frame_depths(scan)
    # among candidates the log cannot tell apart, the one whose evidence names the deepest frame of the crash
    # first (how many issues report a cause says nothing about this crash)
    # (the cause reported in more issues, then the better established one, is listed first only when nothing in
    # the log tells them apart: a prior, not evidence)
    findings.sort(key=lambda f: rank_key(f, depth))
    findings = _narrower_first(findings)
    # a thin paste: up to three candidates, each saying what would confirm it
    limit = MAX_CANDIDATES if findings and all(f.confidence == "low" for f in findings) else MAX_FINDINGS
    return _tie_shared(findings[:limit])


CONFIDENCE_ORDER = {"high": 0, "medium": 1, "low": 2}


def rank_key(f: Finding, depth: dict[str, int] | None = None) -> tuple:
    """The order of findings (and of a clean log's risks): a high-confidence claim first (no candidate's generic
    weight outranks it: a launch line naming an embedding model is no match for the release index's proof that the
    flag is gone); then score, confidence, the deepest frame their evidence names, the conditions of where it runs
    that hold (_gates_held); then, for candidates nothing in the log tells apart, the cause reported in more issues
    and the better established one (a prior, not evidence), then the id."""
    return (f.confidence != "high", -f.score, CONFIDENCE_ORDER[f.confidence], -_deepest(f, depth or {}),
            -_gates_held(f), 0 if f.basis in ("evidence", "unseen") else -len(f.references), STATUS_ORDER.get(f.status, 3),
            f.rule_id)


# the conditions of where a cause runs whose holding orders tied candidates (_gates_held)
TELLING_GATES = ("when.family", "when.env.parallel", "when.env.speculative")


def _gates_held(f: Finding) -> int:
    """The conditions of where a cause runs that the log shows holding: its model family, tensor parallelism, the
    speculative method. No evidence of the crash, and no score: among candidates nothing else tells apart, a cause
    that needs what this launch is (a Qwen3-VL model, TP above 1, EAGLE drafting) goes before one that would have
    happened anywhere. Not the engine or the platform: nearly every log shows them, and a port's rules would head
    every cut traceback of that port (held-out vllm-ascend#9007, #7160, #3971 had other causes). (Counting the
    conditions the log leaves open against a cause, a flag or a quantization not shown, was tried: it cost three
    top-1 cases of the corpus whose pastes omit the launch; withholding the order from such a cause cost
    vllm-27962, a LoRA cause whose flag the paste lacks.)"""
    return sum(1 for ev in f.evidence if ev.state == "hit" and ev.clause in TELLING_GATES)


def _frame_depths(scan: Scan | None) -> dict[str, int]:
    """Function name -> its depth in the log's crashes (the innermost frame of a traceback is the deepest); and each
    frame's (file name, line, function), as a frame line names it, -> its depth."""
    depth: dict = {}
    for crash in scan.crashes if scan is not None else ():
        for i, frame in enumerate(crash.frames + crash.native, 1):
            depth[frame.function] = max(depth.get(frame.function, 0), i)
            if frame.line is not None:
                at = (frame.file.rsplit("/", 1)[-1], frame.line, frame.function)
                depth[at] = max(depth.get(at, 0), i)
    return depth


_FRAME_AT = re.compile(r'File \S*?"?(?:[^"]*/)?(?P<file>[^/"]+\.py)"?, line (?P<line>\d+), in (?P<func>[\w<>.]+)')


def _deepest(f: Finding, depth: dict) -> int:
    """The deepest frame of the crash the finding's evidence names: a frames clause's hit, or a `log` clause's hit on
    one of the traceback's frame lines (`qwen2_5_vl.py", line 36, in <module>`: the import that failed)."""
    out = 0
    for ev in f.evidence:
        if ev.state != "hit":
            continue
        if ev.subject and ev.clause.endswith("frames"):
            out = max(out, depth.get(ev.subject, 0))
        elif ev.clause.endswith("log") and ev.line and "line " in ev.line:
            m = _FRAME_AT.search(ev.line)
            if m is not None:
                out = max(out, depth.get((m.group("file"), int(m.group("line")), m.group("func")), 0))
    return out


def _narrower_first(findings: list[Finding]) -> list[Finding]:
    """A finding whose own line holds the whole of what another's evidence matched, and more, goes before it: the
    operator's check printed on the line of the generic error (`numAcceptedTokens[0]=3 exceeds varlen segment length=2
    RuntimeError: call aclnnCausalConv1d failed ...`) names which of that error's causes it is."""
    out = list(findings)
    for i in range(len(out)):
        for j in range(i + 1, len(out)):
            if _holds(out[j], out[i]):
                out.insert(i, out.pop(j))
    return out


NARROWER_EXTRA = 24  # characters a line must say beyond the other finding's text (more than an exception type)


def _holds(a: Finding, b: Finding) -> bool:
    """Every strong `match` hit of b is inside one strong `match` hit of a with NARROWER_EXTRA characters to spare."""
    if a.basis != "evidence" or b.basis != "evidence" or a.confidence == "low":
        return False
    mine, theirs = _strong_seen(a), _strong_seen(b)
    return bool(theirs) and all(any(t in m and len(m) - len(t) >= NARROWER_EXTRA for m in mine) for t in theirs)


def _strong_seen(f: Finding) -> list[str]:
    """What the strong `match` hits of a finding saw: the log line, or the message or frame (Evidence.subject)."""
    return [ev.line or ev.subject for ev in f.evidence
            if ev.state == "hit" and ev.clause.startswith("match") and not ev.generic and (ev.line or ev.subject)]


SHARED_NOTE = "its evidence is shared with {others}: the clause that would tell them apart is not in the log"


def _strong_hits(f: Finding) -> frozenset[str]:
    return frozenset(ev.text for ev in f.evidence if ev.state == "hit" and ev.clause.startswith("match")
                     and not ev.generic)


def _tie_shared(findings: list[Finding]) -> list[Finding]:
    """Findings at medium or high confidence whose strong evidence is exactly the same hits: tied, low."""
    groups: dict[frozenset[str], list[Finding]] = {}
    for f in findings:
        hits = _strong_hits(f)
        # a sibling low because a clause was cut off still shares the evidence; one the log contradicts does not
        if hits and f.basis == "evidence" and not any(ev.state == "miss" and not ev.clause.startswith(("match", "supports"))
                                                      for ev in f.evidence):
            groups.setdefault(hits, []).append(f)
    tied = {id(f): g for g in groups.values() if len(g) > 1 for f in g if f.confidence != "low"}
    if not tied:
        return findings
    out = []
    for f in findings:
        group = tied.get(id(f))
        if group is None:
            out.append(f)
            continue
        others = ", ".join(o.rule_id for o in group if o is not f)
        out.append(replace(f, confidence="low", notes=f.notes + (SHARED_NOTE.format(others=others),)))
    return out


def fixes_for(rm: RuleMatch, env: Environment) -> tuple[Fix, ...]:
    rule = rm.rule
    values = placeholder_values(env, rule.fixed_in)
    seen = {k: v for ev in tuple(rm.match) + tuple(rm.supports) if ev.state == "hit" for k, v in ev.captured}
    fixes = [Fix(f.title, fill_seen(fill(f.command, values, f.drop), seen), f.cost) for f in versioned_fixes(rule, env)]
    engine = env.get("engine")
    if engine in ("vllm", "sglang") and len(rule.engines) > 1:
        # a rule of both engines (a kernel library, a transport): the log's engine decides which launch to show
        mine = [f for f in fixes if (_launches(f.command) or _titled(f.title)) in (None, engine)]
        fixes = mine or fixes
    fixed = (rule.fixed_in or {}).get("version")
    version_ev = next((ev for ev in rm.when if ev.clause == "fixed_in"), None)
    # (a fix released in one engine is no upgrade for a log of the other: a rule of both engines, say a JSON encoding
    # of -inf logprobs, fixed in SGLang only)
    other_engine = rule.fixed_engine is not None and env.get("engine") not in (None, rule.fixed_engine)
    if fixed and (version_ev is None or version_ev.state == "hit") and not other_engine:
        engine = rule.fixed_engine or env.get("engine") or "vllm"
        upgrade = f'pip install -U "{engine}>={fixed}"'
        if not any(upgrade.split(">=")[0] in f.command and fixed in f.command for f in fixes):
            fixes.insert(0, Fix(f"Upgrade {engine} to {fixed} or later, which carries the fix", upgrade, "an upgrade"))
    return tuple(fixes)


# (also an upgrade of one engine's package, the kernel-tuning scripts of each source tree: vLLM's
# `benchmarks/kernels/`, SGLang's `benchmark/kernels/`, and SGLang's own tools run as modules, such as
# `python3 -m sglang.compile_deep_gemm`)
_LAUNCH = re.compile(r"(?:^|[\s;&|(])(?:(?P<v>vllm serve|vllm\.entrypoints|VLLM_[A-Z0-9_]+=|benchmarks/kernels/|"
                     r"pip install (?:-U |--upgrade )*[\"']?vllm(?![\w-]))|"
                     r"(?P<s>sglang\.launch_server|sglang serve|sglang\.srt|-m sglang\.\w+|SGLANG_[A-Z0-9_]+=|SGL_[A-Z0-9_]+=|benchmark/kernels/|"
                     r"pip install (?:-U |--upgrade )*[\"']?sglang(?![\w-])))")


def _launches(command: str) -> str | None:
    """The engine a fix command launches or configures (`vllm serve ...`, `SGLANG_X=1 python -m sglang...`).
    Not read_command: a fix is any shell line (`env -u VLLM_X vllm serve ...`, `pip show vllm sglang ...`), whose
    launcher that reader, made for serve commands, does not find or finds in a package name."""
    m = _LAUNCH.search(command)
    return None if m is None else ("vllm" if m.group("v") else "sglang")


# a fix whose title names the engine it is for (`SGLang: launch without --moe-runner-backend ...`, advice with no command,
# `(SGLang up to 0.5.10) Install the CUDA 13 build of sgl-kernel`)
_TITLED = re.compile(r"\(?(?:(?P<v>vLLM)|(?P<s>SGLang))(?![-\w])")


def _titled(title: str) -> str | None:
    m = _TITLED.match(title)
    return None if m is None else ("vllm" if m.group("v") else "sglang")


_RELEASE_FACTS = re.compile(r"(?<![\w-])--[A-Za-z]|\b(?:VLLM|SGLANG|SGL)_[A-Z0-9_]+=")


def versioned_fixes(rule, env: Environment) -> list[Fix]:
    """The rule's fixes for the user's engine version, from the release index: a spelling written for other
    releases is dropped; a command whose flag, value or variable the version lacks is replaced by what it needs;
    with no version, what it needs stands next to the command. The index is read only when a fix names a flag
    or a variable."""
    fixes = _on_platform(_in_own_range(rule, env), env)
    if not any(_RELEASE_FACTS.search(f.command) for f in fixes):
        return fixes
    from ..knowledge.releases import LABEL, command_engine, fit_fix

    version = env.get("engine_version")
    single = rule.engines[0] if len(rule.engines) == 1 else env.get("engine")
    out = []
    for f in fixes:
        engine = command_engine(f.command, single)
        if not engine or not _RELEASE_FACTS.search(f.command):
            out.append(f)
            continue
        # the detected version is the detected engine's: a common rule's fix for the other engine gets none
        ver = version if engine == (env.get("engine") or single) else None
        keep, note = fit_fix(engine, str(ver) if ver else None,
                             str(rule.raw_when.get("engine_version") or "") if engine in rule.engines else "",
                             f.command, f.engine_version)
        if not keep:
            # another spelling of the fix serves this release: show that one; else say what this one needs
            spelled = any(o is not f and o.engine_version and fit_fix(engine, str(ver), "", o.command, o.engine_version)[0]
                          for o in rule.fixes)
            if not spelled:
                out.append(Fix(f"{f.title} (needs {LABEL.get(engine, engine)} {f.engine_version}; this log shows {ver})",
                               "", f.cost, f.engine_version))
            continue
        if note and ver:
            out.append(Fix(f"{f.title} ({note})", "", f.cost, f.engine_version))
        elif note:
            out.append(replace(f, title=f"{f.title} ({note})"))
        else:
            out.append(f)
    # every spelling of a fix dropped: keep the rule's fixes rather than none
    return out or list(rule.fixes)


def _on_platform(fixes: list[Fix], env: Environment) -> list[Fix]:
    """The fixes for the log's platform: one written for another platform (a CPU build's fix on a CUDA log) is left
    out; with no platform in the log, all of them (and all of them when that would leave none)."""
    platform = env.get("platform")
    kept = [f for f in fixes if not f.platforms or not platform or platform in f.platforms]
    return kept or fixes


def _in_own_range(rule, env: Environment) -> list[Fix]:
    """The rule's fixes without those whose own `engine_version` range the logged release is outside of and whose
    command names no flag or variable (an upgrade "before 0.22.0" on a 0.23.0 log); all of them when that would
    leave none."""
    version = parse_version(str(env.get("engine_version") or ""))
    if version is None or not any(f.engine_version for f in rule.fixes):
        return list(rule.fixes)
    from ..knowledge.releases import command_engine

    engine = env.get("engine")
    single = rule.engines[0] if len(rule.engines) == 1 else None

    def judged(f: Fix) -> bool:
        # a range is about the engine the command runs (or the rule's one engine): a common rule's SGLang fix says
        # nothing about a vLLM version
        # (one that names a flag or a variable is the release index's to judge: it says what that release needs)
        return bool(f.engine_version) and engine is not None and not _RELEASE_FACTS.search(f.command) \
            and command_engine(f.command, single) == engine

    kept = [f for f in rule.fixes if not judged(f) or in_range(version, f.engine_version)]
    return kept or list(rule.fixes)


def serve_arguments(command: str) -> list[str]:
    """The serve command's own flags: launcher and model (positional, --model or --model-path) dropped."""
    return read_command(command).arguments()


def _release_of(version: str) -> str:
    """The version as a pin names it: without a local build tag (`0.9.1+empty`, a platform plugin's build of the
    engine, `0.11.0+cu128`), which no package index or image tag carries."""
    parsed = parse_version(version) if version else None
    return parsed.public if parsed is not None and parsed.local else version


def placeholder_values(env: Environment, fixed_in: dict | None) -> dict[str, str]:
    model = env.get("model")
    command = env.get("serve_command") or ""
    args = serve_arguments(command) if command else []
    return {
        "model": str(model) if model else "<model>",
        "serve_args": shlex.join(args) if args else "<your other flags>",
        "engine_version": _release_of(str(env.get("engine_version") or "")) or "<version>",
        "tp": str(env.get("tp") or "<tp>"),
        "fixed_version": str((fixed_in or {}).get("version") or "<fixed version>"),
    }


SEEN = re.compile(r"\{seen\.(\w+)\}")  # a value a rule pattern read from the crash (`{seen.item}`)


def fill_seen(command: str, seen: dict[str, str]) -> str:
    """`{seen.NAME}`: the named group NAME of a rule pattern that hit this log (`estimated maximum model length is
    (?P<estimate>...)`), else `<NAME>` for the user to fill in."""
    return SEEN.sub(lambda m: seen.get(m.group(1), f"<{m.group(1)}>"), command)


def fill(template: str, values: dict[str, str], drop: tuple[str, ...] = ()) -> str:
    """Plain substitution of the fixed placeholders; any other braces stay as written. Flags the template sets
    after {serve_args}, and those the fix drops (`drop:`), are taken out of the user's arguments, so the command
    never repeats a flag nor keeps the one the fix is about."""
    values = dict(values)
    if "{serve_args}" in template and not values["serve_args"].startswith("<"):
        after = template.split("{serve_args}", 1)[1]
        flags = {t.split("=", 1)[0] for t in after.split() if t.startswith("--")} | set(drop)
        if flags:
            values["serve_args"] = without_flags(values["serve_args"], flags)
    out = template
    for name in PLACEHOLDERS:
        out = out.replace("{" + name + "}", values[name])
    return out
