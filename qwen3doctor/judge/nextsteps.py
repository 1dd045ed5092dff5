"""What to do next: the one fact that would separate the candidates, which lines to paste, generic triage.

A differential diagnosis, in the spirit of a doctor's: when the top findings are close, or the top one rests
on a condition the log does not show, name the single fact that tells them apart, what each candidate
expects of it, and the command that reveals it ("your log shows no vLLM version; A needs >=0.16, B needs
0.19.x: run `vllm --version` on that machine"). When the log holds only a wrapper error or a cut
traceback, say which lines to paste. When nothing matched, give the crash class's generic triage.

Everything here reads the findings' own evidence (each `when` clause's state and the rule's condition as
match.py states it), so it needs no access to the rules themselves.
"""

from __future__ import annotations

import re


from ..model import HANG, Environment, Evidence, Finding, Scan
from ..read.crash import CANN_RECORD, CANN_RUNTIME_LINE

BY_CLASS = {
    "illegal-memory-access": [
        "Rerun with CUDA_LAUNCH_BLOCKING=1 so the traceback stops at the kernel that faulted, not a later call.",
        "Try --enforce-eager (vLLM) or --disable-cuda-graph (SGLang): if the crash goes away, the CUDA-graph path is involved.",
        "Lower concurrency (--max-num-seqs / --max-running-requests) to see whether it only happens under load.",
    ],
    "device-assert": [
        "Rerun with CUDA_LAUNCH_BLOCKING=1 to find the kernel whose assertion fired.",
        "Check the request that triggered it (token ids out of vocabulary, sampling parameters).",
    ],
    "out-of-memory": [
        "Lower --gpu-memory-utilization / --mem-fraction-static, --max-model-len / --context-length, or --max-num-seqs.",
        "Use more GPUs (--tensor-parallel-size) or a quantized checkpoint.",
    ],
    "nccl": [
        "Rerun with NCCL_DEBUG=INFO to see which rank and transport failed first.",
        "Check that every rank can reach the others (firewall, NCCL_SOCKET_IFNAME, shared memory size --shm-size).",
    ],
    "no-kernel-image": [
        "The installed wheel was not built for this GPU's compute capability: use a build for your architecture.",
    ],
    "weight-loading": [
        "Check that the checkpoint matches the engine version and quantization method (config.json quantization_config).",
    ],
    "container-runtime": [
        "The container never started, so the engine never ran: the runtime's message says why. GPUs it could not "
        "hand over point at the NVIDIA Container Toolkit on the host (`nvidia-ctk --version`, `nvidia-smi` on the "
        "host, the `--gpus` / `--runtime=nvidia` options, the CDI spec `nvidia-ctk cdi generate` writes); a command "
        "or file it could not find points at the image and its entrypoint.",
    ],
    "compile": [
        "Run once without compilation (--enforce-eager or -O0 on vLLM, without --enable-torch-compile / piecewise CUDA "
        "graphs on SGLang): if it starts, the crash is in torch.compile's tracing of the model, not in the model.",
    ],
    "cuda-error": [
        "Rerun with CUDA_LAUNCH_BLOCKING=1 so the traceback stops at the call that failed, not a later one.",
    ],
    "version-mismatch": [
        "Compare the installed engine, transformers and torch versions with what the model card asks for (`qwen3doctor env`).",
    ],
}
GENERIC = [
    "Paste the whole log from the serve command to the first traceback: the first failing process's traceback is what tells causes apart.",
]
CLOSE = 0.15  # two findings this close in score (or the second this near the first) are a differential, not a diagnosis
RATIO = 0.6

# the facts a `when` clause asks about, in the order they best separate candidates
ORDER = ("when.engine_version", "when.quantization", "when.compute_capability", "when.gpu", "when.flags",
         "when.not_flags", "when.family", "when.platform", "fixed_in")


def next_steps(scan: Scan, findings: list[Finding], sites: tuple[str, ...] | list[str] = ()) -> list[str]:
    """`sites`: what the release index says of an unexplained crash's raise site (after what the error itself asks
    for, before the rest)."""
    steps: list[str] = list(sites)
    env = scan.environment
    primary = scan.crashes[0] if scan.crashes else None
    steps.extend(paste_steps(scan, findings))
    covered: set[str] = set()
    if findings:
        step, facts = differential(findings, env)
        if step:
            steps.append(step)
            covered |= facts
    thin = bool(findings) and findings[0].confidence != "high" or primary is not None and not findings
    if thin:
        missing = [(key, text) for key, text in _missing_facts(env) if key not in covered]
        if missing:
            steps.append("The log does not show " + "; ".join(t for _, t in missing)
                         + ": add them (or pass --engine-version / --model / --gpu, or --env-auto on the machine that crashed).")
    other = env.get("runtime") if env.get("engine") is None else None
    if other and not findings:  # (the rest is advice for a vLLM / SGLang log)
        return [f"This log is from {other}, not vLLM or SGLang: qwen3doctor's rules are for those two engines; "
                f"take the error to {other}'s own tracker, or paste the vLLM / SGLang log if one ran too."]
    if not findings and primary is not None:
        # what the error itself asks for comes first
        steps[:0] = own_advice(primary, env.get("engine"), str(env.get("serve_command") or ""))
        steps.extend(BY_CLASS.get(primary.crash_class, []))
        steps.extend(GENERIC)
    return list(dict.fromkeys(steps))


# -- what the error's own message tells the user to change ----------------------------------------------------
# an engine's error often ends in the change it wants: "... Set VLLM_SSM_CONV_STATE_LAYOUT=DS", "please pass
# --trust-remote-code", "Try increasing `gpu_memory_utilization`"
_ADVISED_ENV = re.compile(r"\b(?:[Ss]et(?:ting)?|[Ee]xport|[Uu]se)\s+(?:the\s+)?(?:(?:env(?:ironment)?\s+)?var(?:iable)?\s+)?"
                          r"`?(?P<name>[A-Z][A-Z0-9]*_[A-Z0-9_]+)\s*=\s*(?P<value>[^\s`'\",;)]+)")
_ADVISED_FLAG = re.compile(r"\b(?:[Uu]s(?:e|ing)|[Pp]ass(?:ing)?|[Aa]dd(?:ing)?|[Ss]et(?:ting)?|[Ee]nabl(?:e|ing)|[Dd]isabl(?:e|ing)"
                           r"|[Ss]pecify(?:ing)?|[Tt]ry|[Rr]un(?:ning)? with)\s+(?:the\s+)?(?:flag\s+|option\s+|argument\s+)?"
                           r"`?(?P<flag>--[a-z][a-z0-9-]+)(?:[ =](?P<value>[\w.:/-]+))?")
_ADVISED_KNOB = re.compile(r"\b(?P<verb>[Ii]ncreas|[Dd]ecreas|[Rr]educ|[Ll]ower|[Rr]ais)(?:e|es|ing)\s+(?:the\s+)?"
                          r"`?(?P<knob>(?:--)?[a-z]+(?:[_-][a-z]+)+)`?")
# a keyword argument the message asks for (`trust_remote_code=True`): the serve command's flag of that name
_ADVISED_ARG = re.compile(r"\b(?:[Pp]ass|[Ss]et)\s+(?:the\s+)?(?:argument\s+|option\s+)?`?(?P<arg>[a-z]+(?:_[a-z]+)+)=(?:True|true)\b")
# a negation right before the advising verb, and words of the sentence that follow a flag (not its value)
_NEGATED = re.compile(r"\b(?:not|never|n't|cannot|can't|don't|do not|must not)\s+(?:be\s+)?$", re.I)
_PROSE = frozenset({"in", "on", "to", "with", "for", "and", "or", "the", "a", "an", "if", "when", "unless", "instead",
                    "is", "as", "at", "by", "of", "from", "mode", "together"})
_VERB = {"increas": "increase", "decreas": "decrease", "reduc": "reduce", "lower": "lower", "rais": "raise"}


# the start of the engine's own launch, for a step that sets an environment variable in front of it
LAUNCH = {"vllm": "vllm serve ...", "sglang": "python -m sglang.launch_server ..."}


def own_advice(crash, engine: str | None = None, command: str = "") -> list[str]:
    """The change an unexplained crash's own message asks for, as a step to try first: an environment variable to
    set, a flag to pass, a setting to raise or lower. No rule knows this crash, but its authors said what it wants.
    A flag the serve command (`command`) already passes as asked is no step: the message's advice is then generic,
    and the cause lies elsewhere."""
    launch = LAUNCH.get(engine or "", "<the server command>")
    text = " ".join((crash.message or "").split())[:2000]
    steps = []
    for m in _ADVISED_ENV.finditer(text):
        setting = f"{m.group('name')}={m.group('value').rstrip('.')}"
        steps.append(f"The error's own message asks for `{setting}`: set it in the server's environment "
                     f"(`{setting} {launch}`, `docker run -e {setting} ...`) and start again.")
    for m in _ADVISED_FLAG.finditer(text):
        if _NEGATED.search(text, max(0, m.start() - 24), m.start()):
            continue  # "must not use --headless in ...": what the message forbids, not what it asks for
        value = m.group("value") if m.group("value") and m.group("value").lower() not in _PROSE else None
        flag = m.group("flag") + (f" {value.rstrip('.')}" if value else "")
        if command and re.search(re.escape(m.group("flag")) + (f"[ =]['\"]?{re.escape(value.rstrip('.'))}\\b" if value
                                                                 else r"(?![\w-])"), command):
            steps.append(f"The error's own message asks for `{flag}`, which the serve command already passes: its "
                         f"advice is generic; the refusal comes from another setting, the GPU or the release.")
            continue
        steps.append(f"The error's own message asks for `{flag}`: add it to the serve command and start again.")
    for m in _ADVISED_ARG.finditer(text):
        flag = "--" + m.group("arg").replace("_", "-")
        steps.append(f"The error's own message asks for `{m.group('arg')}=True`: pass `{flag}` to the serve command.")
    for m in _ADVISED_KNOB.finditer(text):
        knob = m.group("knob")
        if "_" in knob or knob.startswith("--"):
            flag = knob if knob.startswith("--") else "--" + knob.replace("_", "-")
            steps.append(f"The error's own message says to {_VERB[m.group('verb').lower()]} `{knob}` (the serve flag "
                         f"`{flag}`).")
    return list(dict.fromkeys(steps))[:3]


# -- which lines to paste ---------------------------------------------------------------------------
# exceptions an HTTP client raises, and the packages whose frames are the client's
_CLIENT_ERROR = re.compile(r"^(?:openai\.|httpx\.|aiohttp\.|requests\.exceptions\.|litellm\.)?(?:APIConnectionError|"
                           r"APITimeoutError|APIStatusError|InternalServerError|BadRequestError|ConnectError|ReadTimeout|"
                           r"ClientConnectorError|ServerDisconnectedError|ConnectionRefusedError|RemoteDisconnected)$")
_CLIENT_FRAME = re.compile(r"[/\\](?:openai|httpx|httpcore|aiohttp|requests|urllib3|litellm)[/\\]")
_ENGINE_FRAME = re.compile(r"[/\\](?:vllm|sglang|vllm_ascend|vllm_omni)[/\\]")


def _client_side(crash) -> bool:
    """A client's failure: an HTTP client's exception, or a traceback through client packages and none of the
    engine's (`openai.APIConnectionError`, `ConnectionRefusedError` from a benchmark)."""
    if any(_ENGINE_FRAME.search(f.file) for f in crash.frames):
        return False
    return bool(crash.exception_type and _CLIENT_ERROR.match(crash.exception_type)) or (
        bool(crash.frames) and any(_CLIENT_FRAME.search(f.file) for f in crash.frames))


# a wrapper that reports a child process gone (vLLM's engine core or worker, SGLang's scheduler), not an exception
_DIED = re.compile(r"died unexpectedly|exit ?code:? ?-9\b|exitcode=-9\b|scheduler is dead|Failed core proc")


REFUSED_WITHIN = 5  # an access-log 4xx this close below an error answered the request that error was about


def paste_steps(scan: Scan, findings: list[Finding]) -> list[str]:
    """The lines a wrapper-only or cut log is missing, named the way they appear in a vLLM / SGLang log."""
    primary = scan.crashes[0] if scan.crashes else None
    if primary is None:
        return []
    engine = scan.environment.get("engine")
    if primary.role == "wrapper":
        said = (primary.message or primary.exception_type or "")[:80]
        if said.startswith("Exception in thread"):
            # Python's header over a dying thread: its traceback comes after it, not before
            where = "the lines below it: the thread's `Traceback (most recent call last):` down to its last line (the exception)"
        elif engine == "sglang":
            where = ("the lines above it from the first rank that failed: the `Scheduler hit an exception: Traceback "
                     "(most recent call last):` block of a `[... TP0]`-tagged process, down to its last line (the exception)")
        elif engine == "vllm":
            where = ("the lines above it: the first `Traceback (most recent call last):` printed by the engine core or a "
                     "worker (lines tagged `(EngineCore_DP0 pid=...)`, `(Worker_TP0 pid=...)` or `(VllmWorker rank=0 ...)`), "
                     "down to its last line (the exception)")
        else:
            where = ("the lines above it: the first `Traceback (most recent call last):` of the engine core, worker or "
                     "TP0 scheduler process, down to its last line (the exception)")
        tip = " If the console cut it, rerun with `2>&1 | tee server.log` and paste from the file."
        if _DIED.search(said):
            # a process that printed no traceback at all was killed from outside: the kernel says by what
            tip += (" If that process printed no traceback at all, it was killed from outside: `sudo dmesg -T | grep -iE "
                    "'killed process|oom-kill'` shows the host's OOM killer (in a container, the pod's or container's "
                    "OOMKilled state).")
        return [f"The log holds only a wrapper error (“{said}”): paste {where}.{tip}"]
    if not findings and _client_side(primary):
        return ["This is the client's error (its request failed or the server did not answer), not the server's crash: "
                "paste the server's own log from the time of the request (the first `Traceback (most recent call last):` "
                "or `ERROR` lines it printed, with the serve command); an HTTP 400 is the server refusing the request, "
                "and its body says why."]
    answered = next((n for n in scan.refused if primary.last_line < n <= primary.last_line + REFUSED_WITHIN), None) \
        if not findings and primary.role != "consequence" else None
    if answered is not None:
        return [f"The server answered this request with a client error (the access log's 4xx at line {answered}) and "
                "went on serving: the error is about the request, not a crash of the server. Its message says what "
                "was refused (a message or content-part shape, a parameter or a feature this release does not take): "
                "change the request or the client that builds it, or paste the server's traceback if it printed one."]
    if not findings and not primary.frames and (CANN_RECORD.match(primary.message)
                                                 or CANN_RUNTIME_LINE.match(primary.message)):
        return ["The log holds the NPU runtime's (CANN) error record but not the Python side: rerun with "
                "`ASCEND_LAUNCH_BLOCKING=1` so the traceback stops at the operator that failed (slower; for the "
                "diagnosis only), and paste that traceback with the CANN lines around it (the full record is in the "
                "plog files under `~/ascend/log/`)."]
    if not findings and _CANN_ABOVE.search(f"{primary.exception_type or ''}: {primary.message}"):
        return ["The NPU error is reported above this line: paste the CANN lines printed before it (error codes such as "
                "`EZ9999` / `EE9999` / `EL0004`, `call aclnn... failed`, `Inner Error!`), and rerun with "
                "`ASCEND_LAUNCH_BLOCKING=1` so the traceback stops at the operator that failed (slower; for the "
                "diagnosis only)."]
    if primary.crash_class == HANG and (not findings or findings[0].confidence == "low"):
        return ["The stack shows where a live thread is stuck, not what the engine said about it: paste the server's "
                "log from the last request before the hang to its end (a timeout such as `RPC call to execute_model "
                "timed out`, a watchdog line, `No available shared memory broadcast block found`) with the serve "
                "command, and the py-spy dump of every worker process (`py-spy dump --pid <pid> --native`)."]
    if primary.frames and not primary.complete and (not findings or findings[0].confidence == "low"):
        proc = f" of process {primary.process}" if primary.process else ""
        return [f"The traceback{proc} stops before its exception line: paste it down to the line that names the "
                "exception (`SomeError: ...`) and the few lines after it."]
    if not primary.frames and not findings and primary.exception_type is None:
        return ["The log has the error line but no traceback: paste the `Traceback (most recent call last):` block printed above it."]
    if not primary.frames and not findings:
        return ["The log has the error line but no traceback: paste the traceback printed above it."]
    return []


# torch_npu's wrapper around an operator error whose detail CANN printed before it
# (and the runtime's status of a device task that failed earlier: `ACL stream synchronize failed, error code:507035`,
# the 5070xx codes of the ACL runtime)
_CANN_ABOVE = re.compile(r"Inner error is reported as above|PTA call acl api failed|the stacktrace may be inaccurate|"
                         r"NPU function error: .*error code is \d+|ACL stream synchronize failed|"
                         r"\bACL\b.{0,60}\berror code ?(?:is ?|: ?)?5070\d\d\b")


# -- the separating fact ----------------------------------------------------------------------------
def differential(findings: list[Finding], env: Environment) -> tuple[str | None, set[str]]:
    """One sentence naming the fact that would separate the top candidates (or confirm the top one), or None.
    Also returns the environment keys it covered, so the generic "missing facts" step does not repeat them."""
    top = findings[0]
    if len(findings) >= 2:
        second = findings[1]
        if top.score - second.score < CLOSE or second.score >= RATIO * top.score:
            for clause in ORDER:
                a, b = _when(top, clause), _when(second, clause)
                if _separates(a, b):
                    return _differential_sentence(top, second, clause, a, b, env), {_FACT_KEY.get(clause, clause)}
            frames = [f for f in (top, second) if _state(f, "match.frames") == "unknown"]
            if frames:
                return (f"{top.rule_id} and {second.rule_id} are both possible; the complete traceback of the first "
                        "failing process would tell them apart (its deepest frames name the kernel that failed)."), set()
    if top.confidence == "high":
        return None, set()
    for clause in ORDER:
        ev = _when(top, clause)
        if ev is not None and ev.state == "unknown" and clause != "fixed_in":
            what, how = _fact_and_how(clause, ev, env)
            spec = _spec(ev)
            if clause == "when.not_flags":
                needs = f" (it applies only without {_expect(clause, spec, env)})" if spec else ""
            else:
                needs = f" (it needs {_expect(clause, spec, env)})" if spec else ""
            return (f"The top finding, {top.rule_id}, depends on {what}, which the log does not show{needs}: {how}."), {
                _FACT_KEY.get(clause, clause)}
    return None, set()


_FACT_KEY = {
    "when.engine_version": "engine_version", "when.quantization": "quantization", "when.compute_capability": "gpu",
    "when.gpu": "gpu", "when.family": "model", "when.flags": "flags", "when.not_flags": "flags",
    "when.platform": "platform",
}


def _when(f: Finding, clause: str) -> Evidence | None:
    for ev in f.evidence:
        if ev.clause == clause:
            return ev
    return None


def _state(f: Finding, clause: str) -> str | None:
    ev = _when(f, clause)
    return ev.state if ev else None


def _spec(ev: Evidence | None) -> str | None:
    """What the rule's condition asks for, as the evidence carries it (never parsed back from its sentence)."""
    return ev.wants or None if ev is not None else None


def _separates(a: Evidence | None, b: Evidence | None) -> bool:
    """The fact is unknown, and the two candidates ask different things of it (one asks, the other does not,
    or they ask for different values)."""
    if not any(ev is not None and ev.state == "unknown" for ev in (a, b)):
        return False
    if a is None or b is None:
        return True
    return _spec(a) != _spec(b)


def _differential_sentence(top: Finding, second: Finding, clause: str, a: Evidence | None, b: Evidence | None,
                           env: Environment) -> str:
    ev = a if a is not None and a.state == "unknown" else b
    what, how = _fact_and_how(clause, ev, env)

    def expects(f: Finding, e: Evidence | None) -> str:
        if e is None:
            return f"{f.rule_id} does not depend on it"
        spec = _spec(e)
        verb = "must not have" if clause == "when.not_flags" else "needs"
        return f"{f.rule_id} {verb} {_expect(clause, spec, env)}" if spec else f"{f.rule_id} depends on it"

    return (f"To tell {top.rule_id} from {second.rule_id}: the log does not show {what}, and they differ on it "
            f"({expects(top, a)}; {expects(second, b)}). {how[0].upper() + how[1:]}.")


def _expect(clause: str, spec: str, env: Environment) -> str:
    """A rule's condition in words: `vLLM >=0.16.0rc0`, `an fp8 checkpoint`, `a qwen3.5 / qwen3-next model`."""
    if clause in ("when.engine_version", "fixed_in"):
        name = {"vllm": "vLLM", "sglang": "SGLang"}.get(env.get("engine") or "", "")
        return f"{name} {spec}".strip()
    if clause == "when.quantization":
        words = " or ".join(s.strip() for s in spec.split(","))
        return f"{'an' if words[:1] in 'aeiou' else 'a'} {words} checkpoint"
    if clause == "when.family":
        return "a " + " / ".join(s.strip() for s in spec.split(",")) + " model"
    if clause == "when.compute_capability":
        return f"compute capability {spec}"
    if clause in ("when.flags", "when.not_flags"):
        return " or ".join(s.strip() for s in spec.split(","))
    return spec


def _fact_and_how(clause: str, ev: Evidence | None, env: Environment) -> tuple[str, str]:
    engine = env.get("engine")
    name = {"vllm": "vLLM", "sglang": "SGLang"}.get(engine or "", "engine")
    if clause in ("when.engine_version", "fixed_in"):
        cmd = VERSION_COMMAND.get(engine or "", " or ".join(VERSION_COMMAND.values()))
        return (f"the {name} version",
                f"run {cmd} (or `qwen3doctor env`) on the machine that crashed and pass --engine-version, or rerun the "
                "diagnosis there with --env-auto")
    if clause == "when.quantization":
        return ("the checkpoint's quantization",
                "look at `quantization_config` in the model's config.json (or the `quantization=` field of the engine's "
                "config line) and pass --quantization")
    if clause in ("when.compute_capability", "when.gpu"):
        return ("the GPU model", "run `nvidia-smi --query-gpu=name,compute_cap --format=csv` (or `qwen3doctor env`) and pass --gpu")
    if clause in ("when.flags", "when.not_flags"):
        how = {
            "vllm": "paste the full `vllm serve ...` command (or the `non-default args: {...}` line vLLM prints at start-up)",
            "sglang": "paste the full `python -m sglang.launch_server ...` command (or the `server_args=ServerArgs(...)` line SGLang prints at start-up)",
        }.get(engine or "", "paste the full `vllm serve ...` / `python -m sglang.launch_server ...` command (or vLLM's "
                            "`non-default args:` line, SGLang's `server_args=ServerArgs(...)` line)")
        return ("the serve command's flags", how)
    if clause == "when.family":
        return ("the model", "paste the serve command with the model name, or pass --model")
    if clause == "when.platform":
        return ("whether this is CUDA, ROCm or an NPU",
                "run `python -c \"import torch; print(torch.version.cuda, torch.version.hip)\"` (or `qwen3doctor env`)")
    key = clause.rsplit(".", 1)[-1]
    return (f"`{key}`", f"pass --env {key}=VALUE")


# how each engine says its own version
VERSION_COMMAND = {"vllm": "`vllm --version`", "sglang": "`python -m sglang.check_env`"}


def _missing_facts(env: Environment) -> list[tuple[str, str]]:
    out = []
    if env.get("engine_version") is None:
        ask = VERSION_COMMAND.get(str(env.get("engine")), ", ".join(VERSION_COMMAND.values()))
        out.append(("engine_version", f"the engine version ({ask} or `qwen3doctor env`)"))
    if env.get("model") is None and env.get("family") is None:
        out.append(("model", "the serve command with the model"))
    if env.get("gpu") is None:
        tool = {"npu": "the NPU (`npu-smi info`)", "rocm": "the GPU (`rocm-smi` or `amd-smi`)",
                "xpu": "the Intel GPU (`xpu-smi discovery` or `sycl-ls`)", "cpu": "the CPU (`lscpu`)",
                "metal": "the Mac (`system_profiler SPHardwareDataType`)", "tpu": "the TPU type and topology"}
        out.append(("gpu", tool.get(str(env.get("platform")), "the GPU (`nvidia-smi`)")))
    return out
