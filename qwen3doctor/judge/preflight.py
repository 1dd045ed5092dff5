"""`qwen3doctor check -- vllm serve MODEL FLAGS...`: known crashes of a planned launch, before it runs.

Two sources of warnings, both data-driven:

  rules   every rule's `when` conditions (engine, family, version, quantization, GPU, flags, ...) evaluated
          against the planned command plus the environment. No crash exists yet, so only a *combination*
          counts, by the policy ranking uses too (judge/combination.py): nothing contradicted, the engine,
          family and platform hold (gates, not evidence), and one discriminating fact holds beyond a stated
          family (two for a family-agnostic rule): the quantization, a flag, the GPU / compute capability,
          an env fact, or a version window with an upper bound. When a stated condition is unknown (no engine
          version, no GPU) the rule is listed as *possible*, grouped by the fact that would decide it.
  shapes  the bundled table of Qwen3-family shapes (data/model_shapes.yaml): attention / KV / Gated DeltaNet
          heads, MLP, expert and shared-expert widths against the TP / EP sizes, the 128-wide FP8 blocks,
          the vision tower's 16 heads, --max-model-len against max_position_embeddings, the GPU count. A shape
          problem that a rule documents (fp8-block-quant-tp-indivisible, ...) carries that rule's references.

Verdict: "warning" (exit 1) when a known crash applies, "possible" (exit 3) when one may apply but a deciding
fact is unknown, "clean" (exit 0) otherwise.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass, replace

from ..read import environment as envmod
from ..read.command import canonical_flag, read_command
from .. import vocab
from ..knowledge.catalog import Catalog, safe_search
from ..knowledge.patterns import compile_pattern
from ..knowledge.shapes import shapes_of, shapes_table
from .combination import KNOWN, known_bad
from .match import _SENTENCE, evaluate, when_states
from ..model import Crash, Environment, Evidence, Fact, Finding, Fix, Frame, Rule, RuleMatch, Scan
from .rank import SEEN, confirm_note, fixes_for, rank_key, score
from .fingerprint import is_engine_file
from ..versions import parse_version
from ..read.phases import ARGUMENTS, CAPTURING, LOADING, SERVING, SIZING, phase_of, phase_of_frames, step_frames, step_of

WARNING, POSSIBLE, NOTE = "warning", "possible", "note"
LAUNCHERS = {
    "vllm": "vllm serve",
    "sglang": "python -m sglang.launch_server",
}


@dataclass(frozen=True)
class Alert:
    """One known-bad combination (or a likely one) that a serve command or environment shows."""

    level: str  # warning | possible | note
    key: str  # the rule id, or `shape:<check>` / `gpu:<check>`
    title: str
    because: tuple[str, ...]  # the conditions that hold / the arithmetic
    unknown: tuple[str, ...] = ()  # what is not known (possible alerts)
    decided_by: str | None = None  # the fact that would decide a possible alert (engine_version, gpu, ...)
    references: tuple[str, ...] = ()
    status: str | None = None
    fixes: tuple[Fix, ...] = ()


@dataclass(frozen=True)
class CheckReport:
    """Everything `check` concluded about one serve command and environment."""

    command: str
    environment: Environment
    alerts: tuple[Alert, ...]
    checked: tuple[str, ...] = ()  # checks that passed, in words
    not_checked: tuple[str, ...] = ()  # what could not be checked and why
    shapes_of: str | None = None  # the shapes-table model used

    @property
    def verdict(self) -> str:
        levels = {a.level for a in self.alerts}
        if WARNING in levels:
            return WARNING
        if POSSIBLE in levels:
            return POSSIBLE
        return "clean"


# -- the planned command ----------------------------------------------------------------------------
def planned_command(tokens: list[str], engine: str | None = None) -> str:
    """The command as one line; bare flags (`--model X --tp 2`) get the engine's launcher in front."""
    if not tokens:
        raise ValueError("no command to check: give it after `--`, e.g. qwen3doctor check -- vllm serve Qwen/Qwen3-8B")
    if len(tokens) == 1 and " " in tokens[0].strip():
        try:
            tokens = shlex.split(tokens[0])  # the whole command quoted as one argument: `check "vllm serve X --tp 2"`
        except ValueError as exc:
            raise ValueError(f"cannot read the quoted command: {exc}") from None
    line = shlex.join(tokens)
    if envmod._SERVE.search(line) or "docker run" in line:
        return line
    if engine is None:
        engine = "sglang" if any(t.startswith(("--model-path", "--tp-size", "--tp=", "--mem-fraction")) or t == "--tp"
                                 for t in tokens) else "vllm"
    if engine == "vllm" and not tokens[0].startswith("-"):
        return "vllm serve " + line  # `check Qwen/Qwen3-8B --tensor-parallel-size 2`
    return f"{LAUNCHERS[engine]} {line}"


def plan_environment(command: str, overrides) -> Environment:
    """The environment of a planned launch: the command read as a log line would be, under the options and the
    env file, over this machine's facts (`overrides.local`). Sources say `command`, not `log`."""
    from .pipeline import merge_environment

    collector = envmod.EnvCollector()
    collector.feed(command)
    env = merge_environment(collector, overrides)
    facts = {k: Fact(v.value, _relabel(v.source)) for k, v in env.facts.items()}
    model = str(facts["model"].value) if "model" in facts else ""
    if "quantization" not in facts and re.match(r"(?i)qwen/qwen3", model) and shapes_of(model) is not None:
        # an official release named without a quantization suffix is the BF16 checkpoint
        facts["quantization"] = Fact("bf16", "command (an official Qwen id without a quantization suffix is BF16)")
    conflicts = tuple(c.replace("the log says", "the command says").replace("(the log wins)", "(the command wins)")
                      for c in env.conflicts)
    return Environment(facts=facts, flags=env.flags, flags_known=True, conflicts=conflicts)


def _relabel(source: str) -> str:
    if source == "log" or source.startswith("log: serve command"):
        return "command" + source[len("log: serve command"):] if source != "log" else "command"
    return "command: " + source[5:] if source.startswith("log: ") else source


def flag_values(command: str) -> dict[str, str]:
    """Canonical flag -> its value ('' for a switch) in a planned command."""
    return read_command(command).values()


def _int(value) -> int | None:
    try:
        return int(str(value))
    except (TypeError, ValueError):
        return None


def shape_alerts(env: Environment, flags: dict[str, str], catalog: Catalog) -> tuple[list[Alert], list[str], list[str], str | None]:
    """(alerts, checks passed, not checked, the table entry used)."""
    alerts: list[Alert] = []
    passed: list[str] = []
    not_checked: list[str] = []
    model = env.get("model")
    found = shapes_of(model)
    engine = env.get("engine") or "vllm"
    tp = _int(env.get("tp")) or 1
    pp = _int(env.get("pp")) or 1
    dp = _int(env.get("dp")) or 1
    _gpu_count_alert(env, tp * pp * dp, tp, pp, dp, alerts, passed)
    _weights_alert(env, flags, catalog, tp, pp, dp, alerts, passed)
    if found is None:
        not_checked.append(f"TP / EP / FP8-block divisibility: {model or 'the model'} is not in the bundled shapes table "
                           f"({', '.join(shapes_table()['models'])})" if model else "model shapes: the command names no model")
        return alerts, passed, not_checked, None
    name, s = found
    block = shapes_table()["fp8_block_size"]
    quant = env.get("quantization")
    fp8_block = quant == "fp8-block" and not re.search(r"(?i)fp8[-_]?dynamic|fp8[-_]?static|w8a8", str(model))
    if engine == "sglang":
        ep = _int(flags.get("--ep-size")) or (tp if "--enable-ep-moe" in flags else 1)
        moe_tp = max(1, tp // ep) if ep > 1 else tp
    else:
        ep = tp * dp if "--enable-expert-parallel" in flags else 1
        moe_tp = 1 if ep > 1 else tp

    if tp == 1 and moe_tp == 1:
        passed.append("TP 1: no weight is split, so no divisibility limit applies")

    def split(label: str, size, ways: int, key: str, *, blocks: bool = True, rule: str | None = None) -> None:
        if size is None or ways <= 1:
            return
        if size % ways:
            # (the alert keeps the shape's key: the rule only lends its references and fixes for the crash it names)
            alerts.append(_shape_alert(key, f"{label} {size} cannot be split over {ways} ranks",
                                       (f"{size} / {ways} = {size / ways:g}, not a whole number",), catalog, rule, env,
                                       valid=_valid_sizes(size, 1, tp), keep_key=True))
            return
        per = size // ways
        if blocks and fp8_block and per % block:
            alerts.append(_shape_alert(
                "shape:fp8-block", f"{label} {size} over {ways} ranks leaves {per} per rank, not a multiple of the FP8 block ({block})",
                (f"quantization {quant}: weights are stored in {block}x{block} blocks", f"{size} / {ways} = {per}; {per} % {block} = {per % block}"),
                catalog, "fp8-block-quant-tp-indivisible", env, valid=_valid_sizes(size, block, tp)))
            return
        passed.append(f"{label} {size} / {ways} = {per}" + (f" (a multiple of the FP8 block {block})" if blocks and fp8_block else ""))

    heads = s.get("num_attention_heads")
    split("attention heads", heads, tp, "shape:attention-heads", blocks=False, rule="attention-heads-not-divisible-by-tp")
    kv = s.get("num_key_value_heads")
    if kv is not None and tp > 1:
        if tp > kv:
            if tp % kv:
                alerts.append(_shape_alert("shape:kv-heads", f"{kv} KV heads cannot be replicated evenly over TP {tp}",
                                           (f"TP {tp} is larger than the {kv} KV heads and not a multiple of them",), catalog, None, env,
                                           valid=_valid_sizes(heads or kv, 1, tp)))
            else:
                alerts.append(Alert(NOTE, "shape:kv-heads", f"{kv} KV heads over TP {tp}: each KV head is replicated {tp // kv}x",
                                    (f"TP {tp} > {kv} KV heads: the KV cache is duplicated on {tp // kv} ranks, wasting memory",)))
        else:
            split("KV heads", kv, tp, "shape:kv-heads", blocks=False)
    split("Gated DeltaNet key heads", s.get("linear_num_key_heads"), tp, "shape:linear-heads", blocks=False)
    split("Gated DeltaNet value heads", s.get("linear_num_value_heads"), tp, "shape:linear-heads", blocks=False)
    split("MLP intermediate size", s.get("intermediate_size") if not s.get("num_experts") else None, tp, "shape:mlp")
    if s.get("num_experts"):
        split("expert intermediate size", s.get("moe_intermediate_size"), moe_tp, "shape:experts")
        split("shared-expert intermediate size", s.get("shared_expert_intermediate_size"), tp, "shape:shared-expert")
        if ep > 1:
            if s["num_experts"] % ep:
                alerts.append(Alert(NOTE, "shape:ep", f"{s['num_experts']} experts do not split evenly over EP {ep}",
                                    (f"{s['num_experts']} / {ep} = {s['num_experts'] / ep:g}: some ranks hold more experts than others",)))
            else:
                passed.append(f"{s['num_experts']} experts / EP {ep} = {s['num_experts'] // ep} per rank")
    _vision_alert(s, tp, flags, engine, env, catalog, alerts, passed)
    _length_alert(s, env, flags, catalog, alerts, passed, name)
    missing = [f for f in ("num_attention_heads", "hidden_size") if f not in s]
    if missing or (s.get("num_experts") and "moe_intermediate_size" not in s):
        not_checked.append(f"{name}: the bundled table has no confirmed {', '.join(missing) or 'expert sizes'}, so those splits were not checked")
    return alerts, passed, not_checked, name


def _valid_sizes(size: int, block: int, upto: int) -> list[int]:
    out = []
    n = 1
    while n <= max(upto * 2, 8):
        if size % n == 0 and (size // n) % block == 0:
            out.append(n)
        n *= 2
    return out


def _shape_alert(key: str, title: str, because: tuple[str, ...], catalog: Catalog, rule_id: str | None, env: Environment,
                 *, valid: list[int], keep_key: bool = False) -> Alert:
    engine = env.get("engine") or "vllm"
    flag = "--tp-size" if engine == "sglang" else "--tensor-parallel-size"
    fixes = []
    smaller = [v for v in valid if v < (_int(env.get("tp")) or 1)]
    if smaller:
        fixes.append(Fix(f"Use a TP size that divides evenly ({', '.join(map(str, valid))} work for this model)",
                         _replace_flag(env, flag, str(smaller[-1])), "fewer GPUs per replica; run data-parallel replicas to use the rest"))
    rule = catalog.lookup(rule_id) if rule_id else None
    references: tuple[str, ...] = ()
    status = None
    if rule is not None:
        references, status = rule.references, rule.status
        rm = RuleMatch(rule, (), (), (), False)
        launcher = "python -m sglang" if engine == "sglang" else "vllm serve"
        templates = {f.title: f.command for f in rule.fixes}
        fixes += [f for f in fixes_for(rm, env) if (not f.command or f.command.startswith(launcher))
                  and not (smaller and _TP_VALUE.search(templates.get(f.title, "")))  # a fixed TP size: computed above
                  and not SEEN.search(templates.get(f.title, ""))]  # (a value read from a crash message: none here)
    return Alert(WARNING, key if keep_key else rule_id or key, title, because, references=references, status=status,
                 fixes=tuple(fixes))


_TP_VALUE = re.compile(r"(?:--tp|--tp-size|--tensor-parallel-size|-tp)[ =]\d")


def _replace_flag(env: Environment, flag: str, value: str) -> str:
    command = str(env.get("serve_command") or "")
    try:
        tokens = shlex.split(command)
    except ValueError:
        return command
    out, i, done = [], 0, False
    while i < len(tokens):
        tok = tokens[i]
        name = canonical_flag(tok) if tok.startswith("-") else None
        if name in (canonical_flag(flag), "--tensor-parallel-size", "--tp-size") and not done:
            out += [flag, value]
            i += 1 if "=" in tok else 2
            done = True
            continue
        out.append(tok)
        i += 1
    if not done:
        out += [flag, value]
    for i, tok in enumerate(out[:-1]):  # an EP size above the new TP size is not valid either (SGLang)
        if tok in ("--ep-size", "--ep") and out[i + 1].isdigit() and int(out[i + 1]) > int(value):
            out[i + 1] = value
    return shlex.join(out)


def _gpu_count_alert(env: Environment, need: int, tp: int, pp: int, dp: int, alerts: list[Alert], passed: list[str]) -> None:
    have = _int(env.get("gpu_count"))
    if have is None:
        return  # a GPU name alone (--gpu) does not say how many there are
    parts = " x ".join(f"{n} {k}" for n, k in ((tp, "TP"), (pp, "PP"), (dp, "DP")) if n > 1) or "1"
    source = env.facts["gpu_count"].source
    if need > have:
        alerts.append(Alert(WARNING, "gpu:count", f"The launch needs {need} GPUs ({parts}) but {have} are available",
                            (f"{have} GPU(s) known from {source}",),
                            fixes=(Fix("Lower the parallel sizes to the GPUs you have (or set CUDA_VISIBLE_DEVICES on a bigger node)", "", ""),)))
    else:
        passed.append(f"{need} GPU(s) needed, {have} available")


# bytes a parameter takes on the GPU, at least, for each quantization (the 4-bit formats' scales and the layers they
# leave in BF16 only add to it)
# (an unknown quantization - a local path that says none - is not assumed to be BF16: no check)
BYTES_PER_PARAM = {"bf16": 2.0, "fp16": 2.0, "fp8": 1.0, "fp8-block": 1.0, "int8": 1.0, "gptq-int8": 1.0, "awq": 0.5,
                   "gptq-int4": 0.5, "nvfp4": 0.5, "mxfp4": 0.5}
# no GPU sold holds more (B300 and MI355X: 288 GB): weights beyond this per rank cannot load anywhere
LARGEST_GPU_GIB = 268
_PARAMS = re.compile(r"(?i)(?<![\w.])(\d+(?:\.\d+)?)b(?:-a\d+(?:\.\d+)?b)?(?![\w.])")
WEIGHTS_RULE = {"vllm": "weights-exceed-gpu-memory-at-load", "sglang": "weights-exceed-gpu-memory-load-oom"}


def params_billions(model) -> float | None:
    """The total parameter count a model id states in billions (`Qwen3-235B-A22B` -> 235, `Qwen3.6-27B-FP8` -> 27);
    None when the name states none."""
    name = str(model or "").rstrip("/").rsplit("/", 1)[-1]
    m = _PARAMS.search(name.replace("_", "-"))
    return float(m.group(1)) if m else None


def _weights_alert(env: Environment, flags: dict[str, str], catalog: Catalog, tp: int, pp: int, dp: int,
                   alerts: list[Alert], passed: list[str]) -> None:
    """The weights one GPU must hold, from the parameter count the model's name states and the bytes its
    quantization takes: more than the GPU (or than any GPU) holds is an OOM while the model is built."""
    params = params_billions(env.get("model"))
    quant = env.get("quantization")
    if quant is None and re.match(r"(?i)qwen/qwen", str(env.get("model") or "")):
        quant = "bf16"  # an official Qwen id with no quantization suffix is the BF16 release
    if params is None or quant not in BYTES_PER_PARAM:
        return
    if env.get("tp") is None and not env.get("serve_command"):
        return  # no serve command read whole (a cut ServerArgs dump): an unstated TP size is unknown, not 1
    ways = tp * pp
    if any(f in flags for f in ("--enable-expert-parallel", "--enable-ep-moe", "--ep-size", "--ep")):
        ways *= dp  # experts spread over the data-parallel ranks too: the least a rank can hold
    per_gib = params * 1e9 * BYTES_PER_PARAM[quant] / ways / 2**30
    mib = _int(env.get("gpu_memory_mib"))
    limit, what = ((mib / 1024, f"the {mib / 1024:.0f} GiB of {env.get('gpu') or 'the GPU'}") if mib
                   else (LARGEST_GPU_GIB, f"any GPU holds ({LARGEST_GPU_GIB} GiB)"))
    split = f"{ways} GPU" + ("s" if ways > 1 else "")
    arithmetic = (f"{params:g}B parameters x {BYTES_PER_PARAM[quant]:g} bytes ({quant}) / {split} = "
                  f"{per_gib:.0f} GiB per GPU before any KV cache")
    if per_gib <= limit:
        passed.append(f"weights: {arithmetic}, within {what}")
        return
    engine = env.get("engine") or "vllm"
    rule_id = WEIGHTS_RULE.get(engine)
    alert = _shape_alert("memory:weights", f"The weights alone need about {per_gib:.0f} GiB per GPU, more than {what}",
                         (arithmetic,), catalog, rule_id, env, valid=[])
    # the TP size that leaves a fifth of each card for activations and the KV cache (80 GB cards when the GPU is
    # unknown), as a power of two; the rule's own fixes that name a TP size of their own are left out
    card = limit if mib else 80 * 1000**3 / 2**30
    total = per_gib * ways
    tp_need = 1
    while total / (tp_need * pp) > card * 0.8 and tp_need < 64:
        tp_need *= 2
    flag = "--tp-size" if engine == "sglang" else "--tensor-parallel-size"
    command = _replace_flag(env, flag, str(tp_need))
    if dp > 1:  # the same GPUs in fewer, wider replicas
        command = _with_dp(command, max(1, dp * tp // tp_need))
    sized = Fix(f"Split the weights over {tp_need} GPUs per replica ({total:.0f} GiB in all; "
                f"{'on ' + str(env.get('gpu')) if mib else 'for 80 GB cards'})", command,
                "more GPUs per replica" + ("; above 8 that means several nodes" if tp_need > 8 else ""))
    fixes = (sized,) + tuple(f for f in alert.fixes if not _TP_VALUE.search(f.command))
    alerts.append(replace(alert, fixes=fixes))


def _with_dp(command: str, dp: int) -> str:
    """The command with its data-parallel size set to `dp` (the flag dropped at 1)."""
    try:
        tokens = shlex.split(command)
    except ValueError:
        return command
    out, i = [], 0
    while i < len(tokens):
        tok = tokens[i]
        if tok.split("=", 1)[0] in ("--dp-size", "--dp", "--data-parallel-size", "-dp"):
            if dp > 1:
                out += [tok.split("=", 1)[0], str(dp)]
            i += 1 if "=" in tok else 2
            continue
        out.append(tok)
        i += 1
    return shlex.join(out)



def _vision_alert(s: dict, tp: int, flags: dict[str, str], engine: str, env: Environment, catalog: Catalog,
                  alerts: list[Alert], passed: list[str]) -> None:
    heads = s.get("vision_num_heads")
    if heads is None or tp <= 1 or engine != "vllm":
        return
    if "--language-model-only" in flags or flags.get("--mm-encoder-tp-mode") == "data":
        passed.append("vision tower: not sharded (--language-model-only / --mm-encoder-tp-mode data)")
        return
    if heads % tp:
        rule = catalog.lookup("vision-heads-not-divisible-by-tp")
        rm = RuleMatch(rule, (), (), (), False) if rule else None
        alerts.append(Alert(WARNING, "vision-heads-not-divisible-by-tp" if rule else "shape:vision-heads",
                            f"The vision tower's {heads} attention heads cannot be split over TP {tp}",
                            (f"{heads} / {tp} = {heads / tp:g}",),
                            references=rule.references if rule else (), status=rule.status if rule else None,
                            fixes=fixes_for(rm, env) if rm else ()))
    else:
        passed.append(f"vision heads {heads} / {tp} = {heads // tp}")


def _length_alert(s: dict, env: Environment, flags: dict[str, str], catalog: Catalog, alerts: list[Alert],
                  passed: list[str], name: str) -> None:
    mpe, want = s.get("max_position_embeddings"), _int(env.get("max_model_len"))
    if mpe is None or want is None:
        return
    overridden = any(k in flags for k in ("--rope-scaling", "--hf-overrides")) or any(
        env.get(k) for k in ("VLLM_ALLOW_LONG_MAX_MODEL_LEN", "SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN"))
    if want <= mpe:
        passed.append(f"max model length {want} <= {mpe} ({name} max_position_embeddings)")
        return
    if overridden:
        alerts.append(Alert(NOTE, "shape:max-model-len", f"Max model length {want} is beyond the trained {mpe}; rope scaling / an override is set",
                            (f"{want} > {mpe}",)))
        return
    rule = catalog.lookup("max-model-len-exceeds-derived")
    rm = RuleMatch(rule, (), (), (), False) if rule else None
    alerts.append(Alert(WARNING, "max-model-len-exceeds-derived" if rule else "shape:max-model-len",
                        f"Max model length {want} is larger than {name}'s max_position_embeddings ({mpe})",
                        (f"{want} > {mpe}: the engine refuses it at start-up unless rope scaling is configured",),
                        references=rule.references if rule else (), status=rule.status if rule else None,
                        fixes=fixes_for(rm, env) if rm else ()))


# -- hardware facts the rules cannot express as a combination ---------------------------------------
def hardware_alerts(env: Environment, flags: dict[str, str], catalog: Catalog) -> list[Alert]:
    out = []
    cc = env.get("compute_capability")
    cc_v = parse_version(f"{cc}.0") if cc else None
    if env.get("engine") != "vllm" or cc_v is None or env.get("platform") not in (None, "cuda"):
        return out
    major_minor = (cc_v.release[0], cc_v.release[1])
    if major_minor < (7, 0):
        rule = catalog.lookup("gpu-compute-capability-below-minimum")
        if rule is not None:
            out.append(_rule_fact_alert(rule, env, (f"compute capability {cc} ({env.get('gpu')}) is below vLLM's minimum 7.0",)))
        return out
    dtype = (flags.get("--dtype") or "auto").lower()
    quant = env.get("quantization")
    family = env.get("family")
    if major_minor < (8, 0) and dtype in ("auto", "bfloat16", "bf16") and quant in (None, "bf16") and family not in (None, vocab.OTHER):
        rule = catalog.lookup("bf16-unsupported-gpu")
        if rule is not None:
            out.append(_rule_fact_alert(rule, env, (
                f"compute capability {cc} ({env.get('gpu')}) has no bfloat16", f"{family} checkpoints are bfloat16 and --dtype is {dtype}")))
    return out


def _rule_fact_alert(rule: Rule, env: Environment, because: tuple[str, ...]) -> Alert:
    rm = RuleMatch(rule, (), (), (), False)
    return Alert(WARNING, rule.id, rule.title, because, references=rule.references, status=rule.status, fixes=fixes_for(rm, env))


# -- rules' `when` conditions -----------------------------------------------------------------------
def rule_alert(rule: Rule, scan: Scan) -> Alert | None:
    """A rule's `when` conditions on the planned launch, judged by the known-bad-combination policy that ranking
    uses too (judge/combination.py): `known` is a warning, `possible` names the fact that would decide it."""
    states = when_states(rule, scan)
    combo = known_bad(rule, states)
    if combo is None:
        return None
    rm = RuleMatch(rule, (), (), tuple(states), False)
    fixes = fixes_for(rm, scan.environment)
    because = tuple(e.text for e in combo.holds if e.clause != "when.engine")
    if combo.level == KNOWN:
        return Alert(WARNING, rule.id, rule.title, because, references=rule.references, status=rule.status, fixes=fixes)
    return Alert(POSSIBLE, rule.id, rule.title, because, unknown=tuple(e.text for e in combo.unknown),
                 decided_by=_decider(combo.unknown[0].clause), references=rule.references, status=rule.status, fixes=fixes)


def _decider(clause: str) -> str:
    return {
        "when.engine_version": "the engine version", "when.compute_capability": "the GPU", "when.gpu": "the GPU",
        "when.quantization": "the checkpoint's quantization", "when.family": "the model", "when.platform": "the platform",
        "when.flags": "the serve flags", "when.not_flags": "the serve flags",
    }.get(clause, clause.rsplit(".", 1)[-1])


def release_alerts(command: str, env: Environment, passed: list[str], not_checked: list[str]) -> list[Alert]:
    """The planned command's flags, values and variables against the planned release (the release index)."""
    engine = env.get("engine") or ("sglang" if "sglang" in command else "vllm")
    from ..knowledge.releases import available

    if engine not in LAUNCHERS or not available():
        return []
    from ..knowledge.releases.generic import command_alerts

    found, skipped = command_alerts(engine, env.get("engine_version"), command)
    if skipped:
        not_checked.append(skipped)
        return []
    from ..knowledge.releases.generic import family_alert

    arch = family_alert(engine, env.get("engine_version"), env.get("family"))
    if arch is not None:
        found.insert(0, arch)
    if not found:
        passed.append(f"every flag, value and variable is accepted by {engine} {env.get('engine_version')}")
    return [Alert(WARNING, f"release:{name}", title, (detail,)) for name, title, detail in found]


def check(command: str, env: Environment, catalog: Catalog) -> CheckReport:
    scan = Scan(crashes=(), lines=(), environment=env)
    flags = flag_values(command)
    alerts: list[Alert] = []
    for rule in catalog.rules.values():
        alert = rule_alert(rule, scan)
        if alert is not None:
            alerts.append(alert)
    alerts += support_alerts(command, scan, catalog, {a.key for a in alerts})
    shape, passed, not_checked, entry = shape_alerts(env, flags, catalog)
    seen = {a.key for a in alerts}
    alerts += [a for a in shape if a.key not in seen or a.key.startswith("shape:")]
    alerts += [a for a in hardware_alerts(env, flags, catalog) if a.key not in seen]
    alerts += [_with_rule(a, env, catalog) for a in release_alerts(command, env, passed, not_checked)]
    if env.get("engine_version") is None:
        not_checked.append(f"version-dependent rules: no {env.get('engine') or 'engine'} version (pass --engine-version, or run where the engine is installed)")
    if env.get("gpu") is None and env.get("compute_capability") is None:
        not_checked.append("GPU-dependent rules: no GPU known (pass --gpu, or run on the GPU machine)")
    order = {WARNING: 0, POSSIBLE: 1, NOTE: 2}
    alerts.sort(key=lambda a: (order[a.level], a.decided_by or "", a.key))
    return CheckReport(command=command, environment=env, alerts=tuple(alerts), checked=tuple(passed),
                       not_checked=tuple(not_checked), shapes_of=entry)


def _with_rule(alert: Alert, env: Environment, catalog: Catalog) -> Alert:
    """A release-index alert that a rule explains (an architecture the planned release does not register) carries
    that rule's references and status (the crash it predicts is the one the rule was written from) and, as its fix,
    the first release that registers the architecture (the rule's own fixes speak of other generations)."""
    if not alert.key.startswith("release:arch:"):
        return alert
    found = unregistered_rule(env, catalog)
    if found is None:
        return alert
    rule, upgrade = found
    return Alert(alert.level, alert.key, alert.title, alert.because + (f"the crash it predicts is `{rule.id}`",),
                 references=rule.references, status=rule.status, fixes=(upgrade,))


def unregistered_rule(env: Environment, catalog: Catalog, version=None) -> tuple[Rule, Fix] | None:
    """When the logged or planned release (or `version`) registers no architecture of the model's family
    (`family_alert`): the rule that explains the crash its registry raises then, and the upgrade to the first release
    that registers one."""
    from ..knowledge.releases.generic import UNREGISTERED, unregistered

    engine = env.get("engine") or "vllm"
    found = unregistered(engine, version or env.get("engine_version"), env.get("family"))
    if found is None:
        return None
    message, arch, first = found
    from ..knowledge.releases import LABEL
    upgrade = Fix(f"Upgrade to {LABEL.get(engine, engine)} {first} or later, the first release that registers `{arch}`",
                  f'pip install -U "{engine}>={first}"', cost="a newer release to re-test, with the torch / CUDA it needs")
    crash = Crash("startup", UNREGISTERED[0], message, None, 0, complete=True,
                  frames=(Frame(f"{engine}/model_executor/models/registry.py", 0, UNREGISTERED[2]),))
    scan = Scan(crashes=(crash,), lines=(), environment=env)
    for rule in sorted(catalog.rules.values(), key=lambda r: r.id):
        if engine not in rule.engines:
            continue
        rm = evaluate(rule, scan)
        if rm.rejected or not any(ev.state == "hit" and ev.clause.endswith("message") and not ev.generic for ev in rm.match):
            continue
        return rule, upgrade
    return None


def _served(crash) -> bool:
    """The crash happened while the engine served requests with its own model class, or in that class's forward: the
    architecture was registered (by the engine, a plugin such as vllm-omni or a fork), whatever the release index
    says of the version its functions date the traceback to. (Through the Transformers fallback a model the engine does not register still
    serves, so a traceback in that backend proves nothing.)"""
    phase = crash.during or phase_of_frames(crash.functions)
    if any("/models/transformers" in f.file for f in crash.frames):
        return False
    # the model's own forward ran in one of the engine's model files: whatever release the banner names (a fork that
    # backports a model keeps its base version), this build has the class
    in_model = any(f.function == "forward" and "/models/" in f.file and is_engine_file(f.file) for f in crash.frames)
    # (so did a crash after the weights loaded: profiling memory or capturing graphs runs the model's class)
    return step_of(phase) in (SIZING, CAPTURING, SERVING) or in_model


def unregistered_finding(scan: Scan, catalog: Catalog) -> Finding | None:
    """A crash on a release that registers no architecture of the model's family (Qwen3-VL on vLLM 0.10.1): whatever
    the traceback shows (the Transformers fallback failing, a processor attribute missing, a cut paste), the model
    cannot load natively there. The finding is the rule that explains that crash, with the release index's facts as
    its evidence; medium, for the version and the family are read from the log, not from the crash. With no version
    in the log, the releases its traceback's functions exist in (`engine_releases`) stand for it when neither the
    first nor the last of them registers the family (an architecture, once registered, stays)."""
    env = scan.environment
    engine, family = env.get("engine") or "vllm", env.get("family")
    versions = [env.get("engine_version")] if env.get("engine_version") is not None else []
    if not versions and env.get("engine_releases"):
        first, _, last = str(env.get("engine_releases")).partition("-")
        versions = [first, last or first]
    if not scan.crashes or not versions or not family or _served(scan.crashes[0]):
        return None
    from ..knowledge.releases import available

    if not available():
        return None
    from ..knowledge.releases.findings import SCORE as RELEASE_SCORE  # as the release index's own findings
    from ..knowledge.releases.generic import family_alert

    alerts = [family_alert(engine, v, family) for v in versions]
    if alerts[0] is not None and alerts[-1] is None and env.get("engine_version") is None \
            and not any(c.said and c.role != "wrapper" for c in scan.crashes) \
            and phase_of_frames(f.function for c in scan.crashes for f in c.frames) in (None, ARGUMENTS, LOADING) \
            and not any(_RUNNING.match(f.function) for c in scan.crashes for f in c.frames):
        # (only a crash that says nothing of its own, at start-up: a message the registry does not raise, or a
        # traceback through the serving step, is another cause)
        return _unregistered_in_part(scan, catalog, engine, family, versions)
    if any(a is None for a in alerts):
        return None
    found = unregistered_rule(env, catalog, versions[-1])
    if found is None:
        return None
    rule, upgrade = found
    _, title, detail = alerts[-1]
    if env.get("engine_version") is None:  # dated by the traceback's functions: every release of the window
        from ..knowledge.releases import LABEL

        title = (f"no {LABEL.get(engine, engine)} release of {versions[0]}-{versions[-1]} (the releases the traceback's "
                 f"functions exist in) registers a {family} architecture: the model cannot load")
        dated = Evidence("when.engine_version", "hit", f"{engine} {versions[0]}-{versions[-1]} "
                         f"({env.facts['engine_releases'].source})")
    else:
        version = env.facts["engine_version"]
        dated = Evidence("when.engine_version", "hit", f"engine version {version.value} ({version.source})")
    evidence = (Evidence("release-index.architecture", "hit", title),
                Evidence("release-index.architecture", "hit", detail),
                dated,
                Evidence("when.family", "hit", f"model family {family} ({env.facts['family'].source})"))
    # a development build (`0.9.3.dev6+gca66cbff0`) may come from a branch that carries the model before any release
    # did (Qwen3-Omni's launch had users build one, QwenLM/Qwen3-Omni#116): the registry of the releases around it
    # is then no proof
    logged = parse_version(str(env.get("engine_version") or ""))
    dev_build = logged is not None and (logged.is_devrelease or (logged.local or "").startswith("g"))
    notes = ("from the release index (the logged release's model registry), not from the crash's own lines",)
    if dev_build:
        notes += ("the logged version is a development build: a branch build may register architectures no release "
                  "around it does",)
    return Finding(
        rule_id=rule.id, title=rule.title, status=rule.status, score=RELEASE_SCORE / (4 if dev_build else 1),
        confidence="low" if dev_build else "medium",
        engines=rule.engines, families=rule.families, references=rule.references, evidence=evidence,
        fixes=(upgrade,) + tuple(f for f in fixes_for(evaluate(rule, scan), env) if f.command != upgrade.command),
        fixed_in=rule.fixed_in, notes=notes, basis="evidence")


MAX_RISKS = 3
RISK_NOTE = ("no crash in the log: a known problem of this launch and environment, not a diagnosis",)


def launch_risks(scan: Scan, catalog: Catalog) -> tuple[Finding, ...]:
    """The known problems of the launch a crash-free log shows (its serve command, config or environment
    listing): `check`'s rule combinations and shape arithmetic, as low-confidence findings with basis "risk".
    Rules the launch contradicts (a workaround flag already set, a version past the fix, another platform)
    are not listed: `rule_alert` drops any rule with a contradicted condition."""
    env = scan.environment
    if not (env.flags_known or env.get("engine_version") or env.get("gpu") or env.get("tp")):
        return ()
    command = str(env.get("serve_command") or "")
    report = check(command, env, catalog)
    out = []
    for alert in report.alerts:
        if alert.level not in (WARNING, POSSIBLE) or not alert.references and not alert.key.startswith("release:"):
            continue  # (the release index's own facts cite no issue: the releases are their source)
        if _cut_flag(alert.key, command, env):
            continue  # (a log line cut mid-flag: `... --max-model-len 8192 --tensor` is no flag the user passed)
        rule = catalog.rules.get(alert.key)
        if rule is not None and rule.families and not env.get("family"):
            continue  # a problem of some models, and the log names none: no known problem of this launch
        evidence = tuple(Evidence("when", "hit", b) for b in alert.because) + tuple(
            Evidence("when", "unknown", u) for u in alert.unknown)
        # the release index's facts first: a release that registers no architecture of the family, or rejects a flag
        # the launch passes, fails it for certain, whatever else may (a transformers major the log does not show);
        # then as the ranking orders the same rules as candidates of a crash that says nothing (the weight of the
        # conditions that hold), an alert the ranking would not list after them, a possible one last (ordering every
        # alert whose conditions all hold first was tried: a rule with fewer conditions wins for having them)
        as_candidate = score(evaluate(rule, scan), scan) if rule is not None else None
        weight = as_candidate.score if as_candidate is not None else (0.02 if alert.level == WARNING else 0.01)
        out.append((not alert.key.startswith("release:"), Finding(
            rule_id=alert.key, title=alert.title, status=alert.status or "likely",
            score=round(weight, 3), confidence="low",
            engines=rule.engines if rule else (), families=rule.families if rule else (),
            references=alert.references, evidence=evidence, fixes=alert.fixes, fixed_in=rule.fixed_in if rule else None,
            notes=RISK_NOTE + ((f"decided by {alert.decided_by}",) if alert.decided_by else ()), basis="risk")))
    # a rule that is about the very flag the release refuses says it better (its issues, its fix): the release
    # index's line for that flag gives way to it (enable-reasoning-flag-removed and `release:--enable-reasoning`)
    ruled = {flag for _, f in out if f.rule_id in catalog.rules
             for flag in catalog.rules[f.rule_id].raw_when.get("flags", ()) or ()}
    out = [(key, f) for key, f in out if not (f.rule_id.startswith("release:--") and f.rule_id[len("release:"):] in ruled)]
    out.sort(key=lambda pair: (pair[0], rank_key(pair[1])))
    return tuple(f for _, f in out[:MAX_RISKS])


def _cut_flag(key: str, command: str, env: Environment) -> bool:
    """A release alert for the logged command's last word, a flag no release has that starts a longer flag some
    release has: the log's line was cut inside it (gpustack's `arguments: [vllm serve ... --tensor`)."""
    if not key.startswith("release:--"):
        return False
    flag = key[len("release:"):]
    words = command.split()
    if not words or words[-1].split("=", 1)[0] != flag:
        return False
    from ..knowledge.releases import table

    t = table(str(env.get("engine") or "vllm"), "flags")
    return t is not None and flag not in t.facts and any(k.startswith(flag) and k != flag for k in t.facts)


STEP_NOTE = "the log stops while {phase}: a known crash of that step for this launch, not a diagnosis"
STEP_FILE = "<the step the log stops in>"
NOT_OWN = ("when.engine", "when.platform", "when.not_flags")  # true of every launch of that engine and step


def step_risks(scan: Scan, catalog: Catalog) -> tuple[Finding, ...]:
    """The known crashes of the start-up step a crash-free log stops in (`scan.stopped_in`: its last lines load the
    weights, size the KV cache or capture CUDA graphs, and nothing follows): the rules a traceback cut in that step
    would make candidates of, each with a fact of its own in the log (a supporting line, the family, the
    quantization or a flag its conditions name) and none contradicting it, as low-confidence risks. A reporter who
    pastes the log up to where the server died often stops right there, the exception being in the issue's title."""
    phase = scan.stopped_in
    steps = step_frames(phase) if phase else frozenset()
    if not steps:
        return ()
    frames = tuple(Frame(STEP_FILE, None, name) for name in sorted(steps))
    cut = Crash("unknown", None, "", None, scan.lines_read, frames=frames, during=phase)
    as_cut = replace(scan, crashes=(cut,))
    # the lines the server printed inside the step (from the first line of the last run of lines that mark it)
    marks = [phase_of(line) for line in scan.lines]
    began = next((i + 1 for i in range(len(marks) - 1, -1, -1) if marks[i] not in (None, phase)), None)
    if began is None:  # (no earlier step marked: the step begins at its own first mark, not at the launch command)
        began = next((i for i, mark in enumerate(marks) if mark == phase), 0)
    in_step = set(scan.lines[began:])
    out = []
    for rule in catalog.rules.values():
        rm = evaluate(rule, as_cut)
        found = score(rm, as_cut)
        if found is None or found.basis not in ("supporting", "path"):
            continue
        evidence = tuple(ev for ev in found.evidence if ev.state != "unknown" and not (
            ev.clause == "supports.frames" and ev.subject in steps))
        if found.basis != "path" and not _logged_in(rule, in_step):
            continue  # its lines are of another step: no crash of this one
        if not any(ev.state == "hit" and not ev.generic and ev.clause not in NOT_OWN and not (ev.line and phase_of(ev.line))
                   for ev in evidence):
            continue  # the step alone (its own progress lines, a workaround not set): every cause of it would be listed
        out.append(replace(found, confidence="low", basis="risk",
                           evidence=(Evidence("phase", "hit", f"the log stops while {phase}"),) + evidence,
                           notes=(STEP_NOTE.format(phase=phase),) + confirm_note(rm)))
    out.sort(key=rank_key)
    return tuple(out[:MAX_RISKS])


SHOWN_NOTE = "the log shows this cause's own line, and it stops before any crash: a risk until the lines after it are pasted"


def shown_risks(scan: Scan, evaluated: list) -> tuple[Finding, ...]:
    """The causes a crash-free log already shows the lines of: a rule whose best `match` alternative hit on its `log`
    clauses, with only the crash clauses it needs left unknown (no crash in the paste), and a specific supporting
    line beside them (`CUDA platform is not available because: NVML Shared Library Not Found` with `No platform
    detected, vLLM is running on UnspecifiedPlatform`). A paste cut before its traceback (an issue's excerpt) shows
    the cause and not yet the crash; a healthy log that prints the same first line (ROCm's NVML line) lacks the
    second. `evaluated`: the clause states of the rules the diagnosis evaluated on this scan (those with an anchor in
    it; a rule without one has no log hit)."""
    out = []
    for rm in evaluated:
        if rm.rejected or not rm.match:
            continue
        kinds = [ev.clause.rsplit(".", 1)[-1] for ev in rm.match]
        if not any(k == "log" and ev.state == "hit" and not ev.generic for k, ev in zip(kinds, rm.match)):
            warned = _warned(scan, rm)
            if warned is not None:
                out.append(warned)
            continue
        if any(ev.state != "hit" and k == "log" or ev.state == "miss" for k, ev in zip(kinds, rm.match)):
            continue
        if not any(ev.state == "unknown" and k != "log" for k, ev in zip(kinds, rm.match)):
            continue  # (the line is the whole of what the rule needs: a crash line, and the log has no crash)
        shown = {ev.line for ev in rm.match if ev.state == "hit"}
        if not any(ev.state == "hit" and not ev.generic and ev.clause.endswith(".log") and ev.line not in shown
                   for ev in rm.supports):
            continue
        if any(ev.state == "miss" for ev in rm.when):
            continue
        out.append(_shown(rm, scan, tuple(rm.match) + tuple(rm.supports) + tuple(rm.when), SHOWN_NOTE))
    out.sort(key=rank_key)
    return tuple(out[:MAX_RISKS])


WARNED_MAX_LINES = 40  # a paste this short that shows a cause's own warning and no crash: the warning is what it shows
_WARNING_RECORD = re.compile(r"\b(?:WARN(?:ING)?|ERROR|CRITICAL)\b|^[WE]\d{4} ")
# (a record's level the reader peeled off: an error only, for healthy starts log warnings that name causes, `Unknown
# vLLM environment variable detected: VLLM_SERVICE_HOST`, `Tensor parallel size (16) exceeds available GPUs (8)`)
_ALARM_LEVEL = re.compile(r"(?:ERROR|CRITICAL|FATAL|glog [EF] )")
WARNED_NOTE = ("the paste shows the warning this cause prints before it crashes, and stops before any crash: a risk until "
               "the lines after it are pasted")


def _warned(scan: Scan, rm) -> Finding | None:
    """A short crash-free paste whose warning or error record is a specific supporting line of the rule (SGLang's
    `Number of tokens in multimodal embedding does not match ...` over the check that raises): the paste stops at the
    cause's own warning, as an issue's excerpt does when the traceback is in its title. Only when no `match` clause
    the paste can answer missed."""
    if scan.lines_read > WARNED_MAX_LINES or rm.rejected or any(ev.state == "miss" for ev in rm.match):
        return None
    # (the supporting pattern is a sentence the engine prints, not a token such as `NCCL WARN` that healthy starts
    # print too: `NCCL WARN NET/IB : No device found.`)
    sentences = [src for cl in rm.rule.supports if cl.kind == "log" for src in cl.sources
                 if src not in cl.generic_sources and _SENTENCE.search(src)]
    warned = [ev for ev in rm.supports if ev.state == "hit" and not ev.generic and ev.clause.endswith(".log")
              and ev.line and _alarm(ev.line, scan) and any(_matches(src, ev.line) for src in sentences)]
    if not warned or any(ev.state == "miss" for ev in rm.when):
        return None
    return _shown(rm, scan, tuple(rm.supports) + tuple(rm.when), WARNED_NOTE)


def _alarm(line: str, scan: Scan) -> bool:
    """A warning or error record: its level is in the line, or an error's in the record prefix the reader peeled off
    it (`ERROR 05-19 06:43:27 utils.py:608] Cannot use FA version 2 ...`)."""
    record = scan.recorded.get(line)
    return bool(_WARNING_RECORD.search(line) or record and _ALARM_LEVEL.match(record))


def _shown(rm, scan: Scan, states, note: str) -> Finding:
    """The risk of a cause whose own lines a crash-free log shows: its hit clauses as evidence, low confidence."""
    rule = rm.rule
    evidence = tuple(ev for ev in states if ev.state == "hit")
    return Finding(
        rule_id=rule.id, title=rule.title, status=rule.status, score=round(0.1 * len(evidence), 3),
        confidence="low", engines=rule.engines, families=rule.families, references=rule.references,
        evidence=evidence, fixes=fixes_for(rm, scan.environment), fixed_in=rule.fixed_in,
        notes=(note,) + confirm_note(rm), basis="risk")


def _logged_in(rule: Rule, lines: set[str]) -> bool:
    """One of the rule's `log` patterns (a crash or a supporting one) matches one of these lines."""
    clauses = [cl for alternative in rule.match for cl in alternative] + list(rule.supports)
    sources = [src for cl in clauses if cl.kind == "log" for src in cl.sources]
    return any(_matches(src, line) for src in sources for line in lines)


MIN_LAUNCH_SUPPORTS = 2


def support_alerts(command: str, scan: Scan, catalog: Catalog, seen: set[str]) -> list[Alert]:
    """Rules whose supporting lines describe the launch itself: two patterns or more of a rule's `supports.log` match
    the serve command (a parser flag and the model it misreads, a checkpoint name and the TP size that splits it
    wrongly), and none of its conditions is contradicted. Such a launch is the rule's known setting: a possible
    problem whatever the version, decided only by what the server then prints (vllm#22507: a thinking-only model
    under --reasoning-parser qwen3, whose cause shows in the responses)."""
    if not command:
        return []
    # the same launch with every flag's value and the model replaced: what a pattern still matches there is no value
    # (`--tool-call-parser[= ]\S+` takes any parser), so it says nothing of this launch
    anonymous = re.sub(r"(--?[\w-]+)([= ]+)(?!-)\S+", r"\1\2zzqq", command)
    anonymous = re.sub(r"(\bserve\s+)(?!-)\S+", r"\1zzqq", anonymous)
    out = []
    for rule in catalog.rules.values():
        if rule.id in seen:
            continue
        sources = [src for cl in rule.supports if cl.kind == "log" for src in cl.sources if src not in cl.generic_sources]
        hits = [src for src in sources if _matches(src, command) and not _matches(src, anonymous)]
        if len(hits) < MIN_LAUNCH_SUPPORTS:
            continue
        states = when_states(rule, scan)
        if any(ev.state == "miss" for ev in states):
            continue  # a family, platform, version or flag of the launch contradicts it
        fixes = fixes_for(RuleMatch(rule, (), (), tuple(states), False), scan.environment)
        out.append(Alert(POSSIBLE, rule.id, rule.title, tuple(f"the serve command matches `{src}`" for src in hits),
                         unknown=("what the server prints when it runs",), decided_by="the server's own output",
                         references=rule.references, status=rule.status, fixes=fixes))
    return out


def _matches(source: str, text: str) -> bool:
    return safe_search(compile_pattern("log", source), text)


# frames of a model that runs (a forward pass, a scheduler's loop): past the registry, which refuses the model first
_RUNNING = re.compile(r"_?forward\w*|\w*event_loop\w*|run_batch|_?execute_model|_model_forward|step")


def _unregistered_in_part(scan: Scan, catalog: Catalog, engine: str, family: str, window: list[str]) -> Finding | None:
    """A crash with no version in the log, whose traceback's functions exist in releases of which the older ones
    register no architecture of the model's family (Qwen3-VL on a traceback of vLLM 0.10.1-0.11.0, which only 0.11.0
    registers): the model cannot load on those, so the same cause is a low candidate, confirmed by the version. Made
    only for a traceback cut above its exception that the log does not explain otherwise: a rule with evidence of its
    own leaves it out (basis `combination`)."""
    from ..knowledge.releases import LABEL, releases
    from ..knowledge.releases.findings import SCORE as RELEASE_SCORE
    from ..knowledge.releases.generic import family_alert

    names = list(releases(engine))
    if window[0] not in names or window[-1] not in names:
        return None
    inside = names[names.index(window[0]): names.index(window[-1]) + 1]
    first = next((v for v in inside if family_alert(engine, v, family) is None), None)
    if first is None or first == inside[0]:
        return None
    older = inside[: inside.index(first)]
    found = unregistered_rule(scan.environment, catalog, older[-1])
    if found is None:
        return None
    rule, upgrade = found
    label = LABEL.get(engine, engine)
    span = older[0] if len(older) == 1 else f"{older[0]}-{older[-1]}"
    title = (f"the traceback's functions exist in {label} {window[0]}-{window[-1]}; of those, {span} "
             f"{'registers' if len(older) == 1 else 'register'} no "
             f"{family} architecture ({first} is the first that does): on those releases the model cannot load")
    evidence = (Evidence("release-index.architecture", "hit", title),
                Evidence("when.engine_version", "unknown", f"no {engine} version in the log; the traceback allows "
                         f"{window[0]}-{window[-1]} ({scan.environment.facts['engine_releases'].source})"),
                Evidence("when.family", "hit", f"model family {family} ({scan.environment.facts['family'].source})"))
    notes = (f"a candidate from the release index: say the {label} version (`pip show {engine}`); on {first} or "
             "later this is not the cause",)
    return Finding(
        rule_id=rule.id, title=rule.title, status=rule.status, score=RELEASE_SCORE / 4, confidence="low",
        engines=rule.engines, families=rule.families, references=rule.references, evidence=evidence,
        fixes=(upgrade,), fixed_in=rule.fixed_in, notes=notes, basis="combination")
