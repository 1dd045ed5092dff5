"""What to do next when the diagnosis is thin: generic triage by crash class, and which lines or facts to add."""

from __future__ import annotations

from .model import Finding, Scan

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
    "version-mismatch": [
        "Compare the installed engine, transformers and torch versions with what the model card asks for (`qwen3doctor env`).",
    ],
}
GENERIC = [
    "Paste the whole log from the serve command to the first traceback: the first failing process's traceback is what tells causes apart.",
]


def next_steps(scan: Scan, findings: list[Finding]) -> list[str]:
    steps: list[str] = []
    env = scan.environment
    primary = scan.crashes[0] if scan.crashes else None
    if primary is not None and primary.role == "wrapper":
        steps.append(
            "The log holds only a wrapper error (“" + (primary.message or primary.exception_type or "")[:80]
            + "”): paste the lines above it, the first `Traceback (most recent call last):` of the engine core or worker "
            "process (EngineCore_DP0, Worker_TP0, TP0 scheduler), down to its last line."
        )
    elif primary is not None and not primary.frames and not findings:
        steps.append("The log has the error line but no traceback: paste the traceback printed above it.")
    if findings and findings[0].confidence != "high" or primary is not None and not findings:
        missing = []
        if env.get("engine_version") is None:
            missing.append("the engine version (`vllm --version`, `python -m sglang.check_env` or `qwen3doctor env`)")
        if env.get("model") is None and env.get("family") is None:
            missing.append("the serve command with the model")
        if env.get("gpu") is None:
            missing.append("the GPU (`nvidia-smi`)")
        if missing:
            steps.append("The log does not show " + "; ".join(missing) + ": add them (or pass --engine-version / --model / --gpu) to separate the candidates.")
    if len(findings) >= 2 and findings[0].confidence != "high":
        a, b = findings[0], findings[1]
        diff = _separating_fact(a, b)
        if diff:
            steps.append(diff)
    if not findings and primary is not None:
        steps.extend(BY_CLASS.get(primary.crash_class, []))
        steps.extend(GENERIC)
    return steps


def _separating_fact(a: Finding, b: Finding) -> str | None:
    a_unknown = {ev.clause for ev in a.evidence if ev.state == "unknown"}
    b_unknown = {ev.clause for ev in b.evidence if ev.state == "unknown"}
    for clause in ("match.frames", "when.engine_version", "when.family", "when.quantization", "when.flags", "when.gpu"):
        if clause in a_unknown or clause in b_unknown:
            what = {
                "match.frames": "the full traceback (the frames name the kernel that failed)",
                "when.engine_version": "the engine version",
                "when.family": "the model name",
                "when.quantization": "the checkpoint's quantization",
                "when.flags": "the serve command's flags",
                "when.gpu": "the GPU model",
            }[clause]
            return f"{a.rule_id} and {b.rule_id} are both possible; {what} would tell them apart."
    return None
