"""Plain text: for pipes, files and NO_COLOR. The same sections as the terminal renderer, no markup."""

from __future__ import annotations

from ..model import HANG, Report, Verdict

# the heading of a crash-free log's risks: what its launch can hit, or the lines of a cause it shows before any crash
RISKS_TITLE = "Known problems this log points to"
RISKS_NOTE = "no crash in the log; not a diagnosis"
from ..read.crash import ELLIPSIS

ENV_ORDER = ("engine", "runtime", "engine_version", "engine_releases", "model", "family", "quantization", "runner", "tp", "pp", "dp",
             "ep", "parallel", "platform", "gpu", "gpu_count", "compute_capability", "cuda", "torch", "transformers",
             "flashinfer", "cuda_graphs", "speculative")
MARK = {"hit": "+", "miss": "-", "unknown": "?"}


def crash_line(crash) -> str:
    if not crash.exception_type and not crash.message:
        if crash.excerpt and not crash.frames and not crash.native:
            # (prose_crash: words such as "failed to launch" in a short paste, no error line, no frame)
            return (f"the paste says something failed (line {crash.line_no}) but holds no error line or traceback "
                    "(paste the lines the engine printed when it stopped)")
        if crash.crash_class == HANG:
            return "a hang: a live thread's stack (py-spy), where the process is stuck; no exception"
        return "a traceback cut before its exception line (paste the lines that follow it)"
    if crash.exception_type and not crash.message:
        if crash.message_cut:
            return f"{crash.crash_class}: {crash.exception_type} (its message is cut off: paste the lines after it)"
        if crash.assertion:
            return f"{crash.crash_class}: {crash.exception_type} (no message; the check that failed: {crash.assertion[:200]})"
        return f"{crash.crash_class}: {crash.exception_type} (no message)"
    what = f"{crash.exception_type}: {crash.message}" if crash.exception_type else crash.message
    line = f"{crash.crash_class}: {what[:300]}" + ("…" if len(what) > 300 else "")
    if crash.cut_short and ELLIPSIS.search(crash.message):
        # (a message that merely ends the paste may be whole: only the paster's "..." says it was cut)
        line += " (cut short in the paste: paste the whole line)"
    return line


def raised_with(report: Report) -> list[str]:
    """A crash without a message of its own shows the chained exception that has one (Triton's `CompilationError`
    over the `AssertionError` that says which types clashed): `Type: message` lines, at most two."""
    crash = report.crash
    if crash is None or crash.message:
        return []
    return [f"{c.exception_type}: {c.message}"[:300] for c in report.crashes
            if c is not crash and c.role == "cause" and c.exception_type and c.message][:2]


def frame_name(frame) -> str:
    """A frame's function; a frame line the paste cut before its function shows where it stops."""
    if frame.function != "?":
        return frame.function
    return frame.location if frame.line is not None else f"(cut: {frame.file.rsplit('/', 1)[-1] or frame.file}…)"


def fix_lines(fixes, limit: int | None = None) -> list[str]:
    """Ranked fixes as plain lines: title with cost, then the command."""
    out = []
    for j, fix in enumerate(fixes[:limit] if limit else fixes, 1):
        cost = f"  (cost: {fix.cost})" if fix.cost else ""
        out.append(f"   fix {j}: {fix.title}{cost}")
        if fix.command:
            out.append(f"      $ {fix.command}")
    return out


def headline(report: Report) -> str:
    if report.verdict is Verdict.NOTHING:
        return "Nothing to diagnose: the input is empty."
    if report.verdict is Verdict.CLEAN:
        return "No crash found."
    if report.verdict is Verdict.UNEXPLAINED:
        other = report.environment.get("runtime") if report.environment.get("engine") is None else None
        if other:
            return f"A {other} crash, not a vLLM or SGLang one: {crash_line(report.crash)[:200]}"
        return f"A crash that no rule explains: {crash_line(report.crash)[:200]}"
    top = report.findings[0]
    return f"Most likely: {top.title} [{', '.join([f'{top.confidence} confidence'] + list(top.references[:2]))}]"


def shown_facts(facts: dict) -> list[str]:
    """The environment keys a report shows, in order. `parallel` only when a process tag told it: read from the sizes
    the log states, it repeats the `tp` / `pp` / `ep` lines above it."""
    return [key for key in ENV_ORDER if key in facts
            and (key != "parallel" or "process tag" in str(facts[key].source))]


def environment_lines(report: Report) -> list[str]:
    facts = report.environment.facts
    return [f"  {key:<19} {facts[key].value}   ({facts[key].source})" for key in shown_facts(facts)]


def render(report: Report) -> str:
    out = [f"== {report.source}", headline(report), ""]
    env = environment_lines(report)
    if env:
        out += ["Environment:"] + env + [""]
    crash = report.crash
    if crash is not None:
        out.append("Crash:")
        out.append("  " + crash_line(crash))
        out += [f"  raised with: {line}" for line in raised_with(report)]
        if crash.process:
            out.append(f"  process: {crash.process} (line {crash.line_no})")
        if crash.during:
            out.append(f"  while: {crash.during}")
        if crash.frames:
            out.append("  deepest frames: " + " <- ".join(
                frame_name(f) for f in reversed(crash.frames[-4:])))
        others = [c for c in report.crashes[1:] if c.role in ("consequence", "wrapper")]
        if others:
            out.append(f"  + {len(others)} follow-on or wrapper error(s), not causes")
        out.append("")
    for i, f in enumerate(report.findings, 1):
        out.append(f"{i}. {f.title}")
        refs = f"  refs: {', '.join(f.references)}" if f.references else ""
        out.append(f"   {f.rule_id}  score {f.score:.2f}  {f.confidence} confidence  status: {f.status}{refs}")
        for ev in f.evidence:
            if ev.state != "unknown" or ev.clause.startswith("match"):
                out.append(f"   [{MARK[ev.state]}] {ev.text}")
        for note in f.notes:
            out.append(f"   note: {note}")
        out += fix_lines(f.fixes)
        out.append("")
    if report.risks:
        out.append(f"{RISKS_TITLE} ({RISKS_NOTE}):")
        for f in report.risks:
            out.append(f"  - {f.title}  [{', '.join((f.rule_id,) + tuple(f.references[:2]))}]")
            out += [f"      {ev.text}" for ev in f.evidence if ev.state == "hit"]
            out += [f"      unknown: {ev.text}" for ev in f.evidence if ev.state == "unknown"]
        out.append("")
    if report.next_steps:
        out.append("Next steps:")
        out += [f"  - {s}" for s in report.next_steps]
        out.append("")
    for w in report.warnings:
        out.append(f"warning: {w}")
    return "\n".join(out).rstrip() + "\n"


def render_many(reports: list[Report]) -> str:
    return "\n".join(render(r) for r in reports)
