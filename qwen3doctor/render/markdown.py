"""`--format markdown`: for a PR comment, an issue or a GitHub step summary (GitHub and GitLab flavour).

One log: its diagnosis. Several: a headline and verdict, a mermaid pie chart of root causes across the
logs, a table of the groups, then each log's diagnosis in a collapsed <details> block, grouped by root
cause. The text stays under `limit` bytes of UTF-8 (a GitHub comment holds 65,536 characters, a step summary
1 MiB; a CJK character is three bytes): the per-log details are dropped first, with a note saying how many.
"""

from __future__ import annotations

import html
import re

from .. import __version__
from ..knowledge.lookup import url_of
from ..judge.fingerprint import FINGERPRINT_VERSION
from ..model import HANG, Report, Verdict
from .plain import RISKS_NOTE, RISKS_TITLE
from ..judge.summary import Group, Outcome, Summary, group_key
from .plain import frame_name, raised_with, shown_facts
from .summary import verdict_line

COMMENT_LIMIT = 65_000
STEP_SUMMARY_LIMIT = 1_000_000  # bytes; GitHub drops a step summary over 1 MiB (1,048,576) whole
MAX_PIE_SLICES = 10  # the largest groups, the rest summed up in the last slice
MARK = {"hit": "✅", "miss": "❌", "unknown": "❔"}
KIND_WORDS = {"finding": "root cause", "unexplained": "unexplained crash", "ignored": "ignored", "clean": "no crash",
              "empty": "empty", "skipped": "skipped", "unreadable": "unreadable"}
_ESCAPE = re.compile(r"([\\`*_\[\]<>|#])")


def esc(text: str) -> str:
    """Free text, safe inside markdown and tables (log text holds <|im_start|>, pipes, underscores)."""
    return _ESCAPE.sub(r"\\\1", text.replace("&", "&amp;")).replace("\n", " ")


_SPAN = re.compile(r"`([^`\n]+)`")


def prose(text: str) -> str:
    """Text that marks code with backticks (evidence, notes, next steps: "frame `forward_cuda` in ..."): the
    marked parts become inline code, shown as written, and the rest is escaped like `esc`."""
    out, last = [], 0
    for m in _SPAN.finditer(text):
        out += [esc(text[last:m.start()]), code(m.group(1))]
        last = m.end()
    out.append(esc(text[last:]))
    return "".join(out)


def code(text: str) -> str:
    """Inline code that survives backticks in the text."""
    text = text.replace("\n", " ")
    fence = "`" * (max((len(m) for m in re.findall(r"`+", text)), default=0) + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def ref_link(ref: str) -> str:
    if re.fullmatch(r"[\w.-]+(?:/[\w.-]+)?#\d+", ref):
        return f"[{ref}]({url_of(ref)})"
    return code(ref)


def risk_lines(risks, command=lambda c: c) -> list[str]:
    """A clean log's launch risks as a Markdown list: each with its rule, issues, the conditions that hold and its
    first fix (`command` rewrites the fix command, e.g. to shorten private paths for a bug report)."""
    out = []
    for f in risks:
        refs = ", ".join(ref_link(x) for x in f.references[:2])
        out.append(f"- **{prose(f.title)}** ({code(f.rule_id)}" + (f"; {refs}" if refs else "") + ")")
        out += [f"  - {prose(e.text)}" for e in f.evidence if e.state == "hit"][:3]
        out += [f"  - fix: {prose(fix.title)}" + (f": {code(command(fix.command))}" if fix.command else "")
                for fix in f.fixes[:1]]
    return out


def report_markdown(outcome: Outcome, heading: str = "###") -> str:
    """One log's diagnosis."""
    r = outcome.report
    out = [f"{heading} {code(outcome.source)}", ""]
    if r is None:
        out.append(f"**{KIND_WORDS[outcome.status].capitalize()}:** {esc(outcome.error or '')}")
        return "\n".join(out) + "\n"
    if outcome.status == "ignored" and outcome.ignored_by is not None:
        reason = f" — {esc(outcome.ignored_by.reason)}" if outcome.ignored_by.reason else ""
        out += [f"> Ignored ({code(outcome.ignored_by.ref)} from {esc(outcome.ignored_by.origin or 'configuration')}){reason}", ""]
    out += [_headline(r), ""]
    env = [(k, r.environment.facts[k]) for k in shown_facts(r.environment.facts)]
    if env:
        out += ["<details><summary>Environment</summary>", "", "| fact | value | from |", "| --- | --- | --- |"]
        out += [f"| {k} | {esc(str(f.value))} | {esc(f.source)} |" for k, f in env]
        out += ["", "</details>", ""]
    crash = r.crash
    if crash is not None:
        what = (crash.exception_type + ": " if crash.exception_type else "") + crash.message[:300]
        if crash.crash_class == HANG and not what:
            what = "a live thread's stack (py-spy): where the process is stuck, no exception"
        where = f" (process {code(crash.process)}, line {crash.line_no})" if crash.process else f" (line {crash.line_no})"
        out.append(f"**Crash:** {code(crash.crash_class)} {code(what.strip() or '(no message)')}{where}")
        out += [f"Raised with {code(line)}." for line in raised_with(r)]
        if crash.assertion:
            out.append(f"The check that failed: {code(crash.assertion[:200])}.")
        if crash.during:
            out.append(f"While {esc(crash.during)}.")
        if crash.frames:
            out.append("Deepest frames: " + " ← ".join(code(frame_name(f)) for f in reversed(crash.frames[-4:])))
        others = [c for c in r.crashes[1:] if c.role in ("consequence", "wrapper")]
        if others:
            out.append(f"+ {len(others)} follow-on or wrapper error(s), not causes")
        out.append("")
    for i, f in enumerate(r.findings, 1):
        if i == 1:
            out.append(f"**Evidence** ({f.confidence} confidence, score {f.score:.2f}, status {f.status}, "
                       f"rule {code(f.rule_id)})")
            out += [f"- {MARK[e.state]} {prose(e.text)}" for e in f.evidence if e.state != "unknown" or e.clause.startswith("match")]
            out += [f"- ⚠️ {prose(n)}" for n in f.notes]
            out += ["", "**Fixes**"]
            for j, fix in enumerate(f.fixes, 1):
                cost = f" — cost: {prose(fix.cost)}" if fix.cost else ""
                out.append(f"{j}. {prose(fix.title)}{cost}")
                if fix.command:
                    out.append(f"   {code(fix.command)}")
            out.append("")
            if len(r.findings) > 1:
                out.append("**Other candidates**")
        else:
            out.append(f"{i}. {prose(f.title)} ({f.confidence}, {', '.join(ref_link(x) for x in f.references[:2])})")
    if len(r.findings) > 1:
        out.append("")
    if r.risks:
        out += [f"**{RISKS_TITLE}** ({RISKS_NOTE})"] + risk_lines(r.risks) + [""]
    if r.next_steps:
        out += ["**Next steps**"] + [f"- {prose(s)}" for s in r.next_steps] + [""]
    if outcome.fingerprint is not None:
        fp = outcome.fingerprint
        frames = " ← ".join(reversed(fp.frames)) or "no engine frames"
        out.append(f"<sub>fingerprint {code(fp.id)}: {code(fp.exception_type)} · {esc(frames)} · {code(fp.template or '(no message)')}</sub>")
    for w in r.warnings:
        out.append(f"> warning: {prose(w)}")
    return "\n".join(out).rstrip() + "\n"


def _headline(r: Report) -> str:
    if r.findings:
        top = r.findings[0]
        refs = ", ".join(ref_link(x) for x in top.references[:2])
        return f"**Most likely: {prose(top.title)}** — {top.confidence} confidence · {refs}"
    if r.crash is not None:
        return f"**A crash that no rule explains** ({code(r.crash.crash_class)}). Try `qwen3doctor suggest` on this log to draft a rule."
    return "**No crash found.**" if r.verdict is not Verdict.NOTHING else "**Nothing to diagnose:** the input is empty."


def pie_chart(summary: Summary) -> str:
    """The largest groups, one slice each, and the rest as one "other" slice: a pie of 150 slivers says nothing."""
    lines = ["```mermaid", f"pie showData title Root causes across {len(summary.outcomes)} logs"]
    groups = sorted(summary.groups, key=lambda g: -g.count)
    shown = groups if len(groups) <= MAX_PIE_SLICES else groups[: MAX_PIE_SLICES - 1]
    for g in shown:
        label = g.name if g.kind in ("finding", "clean", "empty", "skipped", "unreadable") else f"{g.name} ({KIND_WORDS[g.kind]})"
        lines.append(f'    "{_pie_label(label)}" : {g.count}')
    rest = groups[len(shown):]
    if rest:
        lines.append(f'    "other ({len(rest)} groups, see the table)" : {sum(g.count for g in rest)}')
    lines.append("```")
    return "\n".join(lines)


def _pie_label(text: str) -> str:
    return re.sub(r'["\\\n;]', "'", text)[:60]


def _group_row(g: Group) -> str:
    if g.kind in ("finding", "ignored") and g.reference:
        cause = ref_link(g.reference)
    elif g.fingerprint is not None:
        cause = code(g.fingerprint.id)
    else:
        cause = esc(g.name)
    fix = ""
    if g.fix is not None:
        fix = esc(g.fix.title) + (f" ({esc(g.fix.cost)})" if g.fix.cost else "")
    title = esc(g.title) + (f" — ignored: {esc(g.reason)}" if g.reason else "")
    return f"| {g.count} | {cause} | {KIND_WORDS[g.kind]} | {g.confidence or '–'} | {title} | {fix} |"


def render(summary: Summary, *, limit: int = COMMENT_LIMIT) -> str:
    footer = (f"\n<sub>qwen3doctor {__version__} · fingerprint algorithm v{FINGERPRINT_VERSION} · "
              "secrets, e-mail addresses, home paths and prompts redacted</sub>\n")
    if len(summary.outcomes) == 1:
        body = report_markdown(summary.outcomes[0], heading="##")
        head = f"{body}\n**{esc(verdict_line(summary))}**\n"
        return _fit(head + "".join(f"\n> note: {prose(n)}\n" for n in summary.notes), [], footer, limit)
    head = [f"## qwen3doctor: {esc(summary.headline())}", "", f"**{esc(verdict_line(summary))}**", ""]
    head += [f"> note: {prose(n)}" for n in summary.notes] + ([""] if summary.notes else [])
    head += [pie_chart(summary), ""]
    head += ["| logs | root cause | kind | confidence | what broke | first fix |", "| ---: | --- | --- | --- | --- | --- |"]
    head += [_group_row(g) for g in summary.groups]
    head += ["", "### Logs", ""]
    by_key = {}
    for o in summary.outcomes:
        by_key.setdefault((o.status, group_key(o)), []).append(o)
    blocks = []
    for g in summary.groups:
        for o in by_key.get((g.kind, g.key), []):
            label = html.escape(f"{o.source} — {g.name}" + (f" ({o.top.confidence})" if o.top is not None and g.kind == "finding" else ""))
            blocks.append(f"<details><summary>{label}</summary>\n\n{report_markdown(o, heading='####')}\n</details>\n")
    return _fit("\n".join(head) + "\n", blocks, footer, limit)


def _bytes(text: str) -> int:
    return len(text.encode("utf-8"))


def _fit(head: str, blocks: list[str], footer: str, limit: int) -> str:
    """head, as many blocks as fit and footer, within `limit` bytes of UTF-8."""
    out, size = [head], _bytes(head) + _bytes(footer) + 200
    for i, block in enumerate(blocks):
        if size + _bytes(block) > limit:
            out.append(f"\n*… the details of {len(blocks) - i} more log(s) are left out to stay within "
                       f"{limit:,} bytes; run `qwen3doctor diagnose` on them for the full report.*\n")
            break
        out.append(block)
        size += _bytes(block)
    text = "".join(out)
    if _bytes(text) + _bytes(footer) <= limit:
        return text + footer
    cut = "\n\n*(cut)*\n"
    room = max(0, limit - _bytes(cut) - _bytes(footer))
    return text.encode("utf-8")[:room].decode("utf-8", errors="ignore") + cut + footer


def step_summary_room(path: str) -> int:
    """Bytes a report may add to the step summary file at `path`: GitHub's limit is for the whole file of a
    step, and an earlier command of the same step may have written to it."""
    import os

    try:
        used = os.path.getsize(path)
    except OSError:
        used = 0
    return max(0, STEP_SUMMARY_LIMIT - used)
