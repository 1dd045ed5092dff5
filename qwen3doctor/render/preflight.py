"""`qwen3doctor check`'s report: the plain text and the JSON document."""

from __future__ import annotations

from ..judge.preflight import NOTE, POSSIBLE, WARNING, CheckReport
from ..knowledge.shapes import shapes_table
from .plain import fix_lines

HOW_TO_DECIDE = {
    "the engine version": "pass --engine-version (or run the check where the engine is installed)",
    "the GPU": "pass --gpu \"NVIDIA H100\" (or run the check on the GPU machine)",
    "the checkpoint's quantization": "pass --quantization",
    "the model": "pass --model",
    "the platform": "pass --env platform=cuda|rocm|npu",
}

PLAN_ROWS = (("engine", "engine"), ("engine_version", "version"), ("model", "model"), ("family", "family"),
             ("quantization", "quantization"), ("tp", "TP"), ("pp", "PP"), ("dp", "DP"), ("max_model_len", "max model len"),
             ("gpu", "GPU"), ("gpu_count", "GPU count"), ("compute_capability", "compute capability"), ("platform", "platform"))
MARK = {WARNING: "✘ WARNING ", POSSIBLE: "? POSSIBLE", NOTE: "· note    "}


def render_plain(report: CheckReport) -> str:
    env = report.environment
    out = [f"Pre-flight check: {report.command}", "", "Planned launch:"]
    for key, label in PLAN_ROWS:
        fact = env.facts.get(key)
        if fact is not None:
            out.append(f"  {label:<19} {fact.value}   ({fact.source})")
        elif key in ("engine_version", "gpu"):
            out.append(f"  {label:<19} unknown")
    if report.shapes_of:
        out.append(f"  {'shapes':<19} {report.shapes_of}: {shape_summary(shapes_table()['models'][report.shapes_of])}   (bundled table)")
    out.append("")
    possible_group = None
    for a in report.alerts:
        if a.level == POSSIBLE and a.decided_by != possible_group:
            possible_group = a.decided_by
            how = HOW_TO_DECIDE.get(a.decided_by or "", "")
            out.append(f"Depends on {a.decided_by}" + (f" ({how})" if how else "") + ":")
        out.append(f"{MARK[a.level]} {a.title}")
        meta = [a.key] + ([a.status] if a.status else []) + ([", ".join(a.references)] if a.references else [])
        out.append(f"   {' · '.join(meta)}")
        for b in a.because:
            out.append(f"   [+] {b}")
        for u in a.unknown:
            out.append(f"   [?] {u}")
        if a.level != NOTE:
            out += fix_lines(a.fixes, limit=3)
        out.append("")
    if report.checked:
        out.append("Checked and fine:")
        out += [f"  ✔ {c}" for c in report.checked]
        out.append("")
    if report.not_checked:
        out.append("Not checked:")
        out += [f"  - {c}" for c in report.not_checked]
        out.append("")
    for c in env.conflicts:
        out.append(f"warning: {c}")
    counts = {lvl: sum(1 for a in report.alerts if a.level == lvl) for lvl in (WARNING, POSSIBLE, NOTE)}
    out.append(f"Result: {counts[WARNING]} warning(s), {counts[POSSIBLE]} possible, {counts[NOTE]} note(s)")
    return "\n".join(out).rstrip() + "\n"


def shape_summary(s: dict) -> str:
    parts = []
    if "hidden_size" in s:
        parts.append(f"hidden {s['hidden_size']}")
    if "intermediate_size" in s and not s.get("num_experts"):
        parts.append(f"MLP {s['intermediate_size']}")
    if s.get("num_experts"):
        parts.append(f"{s['num_experts']} experts" + (f" of {s['moe_intermediate_size']}" if "moe_intermediate_size" in s else ""))
    if "shared_expert_intermediate_size" in s:
        parts.append(f"shared expert {s['shared_expert_intermediate_size']}")
    if "num_attention_heads" in s:
        parts.append(f"{s['num_attention_heads']} heads / {s.get('num_key_value_heads', '?')} KV")
    if "linear_num_key_heads" in s:
        parts.append(f"GDN {s['linear_num_key_heads']} key / {s.get('linear_num_value_heads', '?')} value heads")
    if "vision_num_heads" in s:
        parts.append(f"vision {s['vision_num_heads']} heads")
    if "max_position_embeddings" in s:
        parts.append(f"{s['max_position_embeddings']} positions")
    return ", ".join(parts)


def report_dict(report: CheckReport) -> dict:
    env = report.environment
    return {
        "schema_version": 1,
        "command": report.command,
        "verdict": report.verdict,
        "environment": {k: {"value": v.value, "source": v.source} for k, v in sorted(env.facts.items())},
        "flags": sorted(env.flags),
        "shapes_of": report.shapes_of,
        "alerts": [{
            "level": a.level, "key": a.key, "title": a.title, "because": list(a.because), "unknown": list(a.unknown),
            "decided_by": a.decided_by, "references": list(a.references), "status": a.status,
            "fixes": [{"title": f.title, "command": f.command, "cost": f.cost} for f in a.fixes],
        } for a in report.alerts],
        "checked": list(report.checked),
        "not_checked": list(report.not_checked),
        "warnings": list(env.conflicts),
    }


