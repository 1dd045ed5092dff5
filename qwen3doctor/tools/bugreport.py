"""`qwen3doctor report LOG`: a Markdown bug report, ready to paste into a vLLM or SGLang issue.

It follows the projects' own issue templates (vLLM: "Your current environment" / "🐛 Describe the bug" /
"Before submitting a new issue..."; SGLang: "Checklist" / "Describe the bug" / "Reproduction" / "Environment")
and fills them from the diagnosis: the environment table, the serve command, the crash trimmed to what matters
(each failing process's traceback whole, chained causes included; caret lines, CUDA advice boilerplate, C++
frames and the lines other processes interleaved are cut, and the report says how many), the diagnosis and
the upstream issues it rests on. Which lines a crash covers is the crash parser's call (read/crash.py records
each crash's span); this module only reads those lines back from the file by number and trims them.

Everything that leaves the machine is redacted (redact.py: tokens, keys, e-mail addresses, home paths, host
names and IP addresses; here also private absolute paths, cut to their last component, and installed-package
paths, cut to the package).
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass, field

from .. import __version__
from ..read.crash import BOILERPLATE, CARET
from ..knowledge.lookup import url_of
from ..model import Crash, Report, Verdict
from ..read.command import read_command
from ..read.prefixes import peel
from ..read.reader import MAX_LINE, clean
from ..redact import Redactor

MAX_BLOCK_LINES = 90  # lines kept of one traceback after noise is cut
KEEP_HEAD_FRAMES, KEEP_TAIL_FRAMES = 6, 22  # a longer traceback keeps its outermost and innermost frames
MAX_SCAN = 4000  # lines read of one crash's span at most
MAX_PROCESSES = 3  # failing processes shown whole
MAX_SHOWN = 2000  # characters shown of one log line (a 5 MB exception message is not pasted whole)

TEMPLATES = ("vllm", "sglang")
ENV_ROWS = (
    ("engine", "Engine"), ("engine_version", "Version"), ("model", "Model"), ("family", "Model family"),
    ("quantization", "Quantization"), ("dtype", "dtype"), ("tp", "Tensor parallel"), ("pp", "Pipeline parallel"),
    ("dp", "Data parallel"), ("ep", "Expert parallel"), ("cuda_graphs", "CUDA graphs"), ("speculative", "Speculative decoding"),
    ("max_model_len", "Max model len"), ("gpu", "GPU"), ("gpu_count", "GPU count"), ("compute_capability", "Compute capability"),
    ("platform", "Platform"), ("driver", "Driver"), ("cuda", "CUDA"), ("cuda_build", "torch built for CUDA"),
    ("rocm", "ROCm"), ("torch", "torch"), ("transformers", "transformers"), ("flashinfer", "flashinfer"), ("triton", "triton"),
    ("sgl_kernel", "sgl-kernel"), ("deep_gemm", "deep_gemm"), ("nccl", "NCCL"), ("python", "Python"), ("os", "OS"),
)
_PACKAGE_DIRS = ("vllm", "sglang", "torch", "flashinfer", "triton", "transformers", "sgl_kernel", "deep_gemm", "fla",
                 "xformers", "vllm_ascend", "torch_npu", "deep_ep", "cutlass")
_SYSTEM = ("/usr/", "/lib", "/opt/conda/lib", "/opt/rocm", "/proc/", "/dev/", "/sys/", "/etc/", "/tmp/", "/bin/", "/sbin/")
_ABS_PATH = re.compile(r"(?<![\w.:/~<>-])(/(?:[^\s/\"'`<>|:;,()\[\]{}=]+/)+[^\s/\"'`<>|:;,()\[\]{}=]*)")
_CPP_FRAME = re.compile(r"^\s*frame #\d+:")


@dataclass
class Cut:
    """What was left out of one traceback block, to say so."""

    carets: int = 0
    boilerplate: int = 0
    cpp_frames: int = 0
    interleaved: int = 0
    frames: int = 0
    tail: int = 0

    def note(self) -> str:
        parts = []
        for n, what in ((self.frames, "middle frame"), (self.interleaved, "interleaved line") , (self.carets, "caret line"),
                        (self.boilerplate, "CUDA advice line"), (self.cpp_frames, "C++ backtrace line"),
                        (self.tail, "further message line")):
            if n:
                parts.append(f"{n} {what}{'s' if n != 1 else ''}")
        note = "cut: " + ", ".join(parts) if parts else "nothing cut"
        return note.replace("interleaved lines", "lines of other processes").replace("interleaved line", "line of another process")


@dataclass
class Block:
    """A run of log lines kept for a shared report, with what was cut from it."""

    process: str | None
    first_line: int
    lines: list[str] = field(default_factory=list)
    cut: Cut = field(default_factory=Cut)
    title: str = ""


# -- the crash's lines, by the line numbers the crash parser recorded -----------------------------------
def span_of(crash: Crash, crashes: tuple[Crash, ...] | list[Crash] = ()) -> tuple[int, int]:
    """The lines a crash's block covers: from its first chained cause's first line to its own last line, or to
    the last line of a later crash of its process (in `crashes`) raised while handling it ("During handling ...")
    or starting on the next line; at most MAX_SCAN lines."""
    start = min(c.line_no for c in (*crash.chained, crash))
    end = crash.span[1]
    keys = {(crash.process, crash.line_no)}
    for later in sorted(crashes, key=lambda c: c.line_no):
        if later.process != crash.process or later.line_no <= crash.line_no:
            continue
        # raised while handling it, or printed right after it (a wrapper's line under the error it wraps)
        if any((c.process, c.line_no) in keys for c in later.chained) or not later.frames and later.line_no <= end + 1:
            keys.add((later.process, later.line_no))
            end = max(end, later.span[1])
    return start, min(end, start + MAX_SCAN - 1)


def spans_of(report: Report) -> list[tuple[int, int]]:
    """The line ranges a report can show: each crash's span (read.crash records them)."""
    return sorted({span_of(crash, report.crashes) for crash in report.crashes})


def numbered_lines(path: str, spans: list[tuple[int, int]] | None = None) -> list[tuple[int, str]]:
    """(line number, clean text) as the scanner numbers them (split on \\n, CR parts keep the number), of the
    lines inside `spans` only (all lines without spans). The log is streamed, never held: only those lines are
    decoded and kept, each cut to MAX_SHOWN characters, and a line longer than the reader's limit is read in
    bounded pieces."""
    out = []
    spans = sorted(spans) if spans is not None else None
    k = 0
    with open(path, "rb") as fh:
        head = fh.read(2)
        fh.seek(0)
        stream = fh
        if head == b"\x1f\x8b":
            import gzip

            stream = gzip.GzipFile(fileobj=fh)  # type: ignore[assignment]
        n = 0
        while True:
            raw = stream.readline(MAX_LINE + 1)
            if not raw:
                break
            n += 1
            if len(raw) > MAX_LINE and not raw.endswith(b"\n"):
                while True:  # the rest of an overlong line, in bounded pieces
                    rest = stream.readline(MAX_LINE)
                    if not rest or rest.endswith(b"\n"):
                        break
            if spans is not None:
                while k < len(spans) and spans[k][1] < n:
                    k += 1
                if k == len(spans):
                    break
                if n < spans[k][0]:
                    continue
            text = raw[: 4 * MAX_SHOWN].decode("utf-8", errors="replace")
            for part in text.rstrip("\r\n").split("\r"):
                out.append((n, _cut(clean(part), len(raw))))
    return out


def _cut(text: str, size: int) -> str:
    if len(text) <= MAX_SHOWN and size <= 4 * MAX_SHOWN:
        return text
    return f"{text[:MAX_SHOWN]} … [cut: the line holds {size} bytes]"


def extract_block(lines: list[tuple[int, str]], crash: Crash, crashes: tuple[Crash, ...] | list[Crash] = ()) -> Block:
    """The crash's lines (its span, chained exceptions included), from its process only; noise cut."""
    start, end = span_of(crash, crashes)
    block = Block(crash.process, start)
    last_process = crash.process
    raw: list[str] = []
    for n, line in lines:
        if n < start or n > end:
            continue
        process, text = peel(line)
        if process is None:
            process = last_process
        else:
            last_process = process
        if process != crash.process:
            if raw:
                block.cut.interleaved += 1
            continue
        if raw and not text.strip():
            continue
        raw.append(text)
    block.lines = _denoise(raw, block.cut)
    return block


def _denoise(raw: list[str], cut: Cut) -> list[str]:
    kept: list[str] = []
    cpp = 0
    for text in raw:
        stripped = text.strip()
        if stripped and CARET.match(text):
            cut.carets += 1
            continue
        if _CPP_FRAME.match(text):
            cpp += 1
            if cpp > 3:
                cut.cpp_frames += 1
                continue
        elif BOILERPLATE.match(stripped):
            cut.boilerplate += 1
            continue
        kept.append(text.rstrip())
    while kept and not kept[-1].strip():
        kept.pop()
    # long tracebacks: the outermost frames say where it came from, the innermost where it failed
    frames = [i for i, t in enumerate(kept) if t.lstrip().startswith('File "')]
    if len(frames) > KEEP_HEAD_FRAMES + KEEP_TAIL_FRAMES:
        drop_from, drop_to = frames[KEEP_HEAD_FRAMES], frames[-KEEP_TAIL_FRAMES]
        cut.frames += len(frames) - KEEP_HEAD_FRAMES - KEEP_TAIL_FRAMES
        kept = kept[:drop_from] + [f"  ... {len(frames) - KEEP_HEAD_FRAMES - KEEP_TAIL_FRAMES} frames cut ..."] + kept[drop_to:]
    if len(kept) > MAX_BLOCK_LINES:
        cut.tail += len(kept) - MAX_BLOCK_LINES
        kept = kept[:MAX_BLOCK_LINES]
    return kept


def blocks_of(report: Report, lines: list[tuple[int, str]]) -> tuple[list[Block], list[str]]:
    """The failing processes' tracebacks (primary first) and one-line notes on the rest."""
    crashes = list(report.crashes)
    if not crashes:
        return [], []
    shown: list[Block] = []
    notes: list[str] = []
    seen_processes: set = set()
    primary = crashes[0]
    same_as_primary: list[str] = []
    for crash in crashes:
        if len(shown) >= MAX_PROCESSES:
            break
        if crash.role in ("consequence",) and crash is not primary:
            continue
        if crash.process in seen_processes:
            continue
        if crash is not primary and crash.exception_type == primary.exception_type and crash.functions[-1:] == primary.functions[-1:] \
                and crash.role != "wrapper":
            same_as_primary.append(crash.process or "?")
            seen_processes.add(crash.process)
            continue
        block = extract_block(lines, crash, crashes)
        if crash is primary and crash.role == "wrapper":
            block.title = "a wrapper error; the error it wraps is not in the log"
        elif crash is primary:
            block.title = "the first failing process"
        elif crash.role == "wrapper":
            block.title = "the wrapper error it surfaced as"
        else:
            block.title = "another failing process"
        shown.append(block)
        seen_processes.add(crash.process)
    if same_as_primary:
        notes.append(f"The same error was raised by {len(same_as_primary)} other process(es) "
                     f"({', '.join(same_as_primary[:8])}{', ...' if len(same_as_primary) > 8 else ''}); not repeated.")
    consequences = [c for c in crashes if c.role == "consequence"]
    if consequences:
        kinds = sorted({(c.exception_type or re.split(r"[(:]", c.message)[0]).strip()[:60] for c in consequences})
        notes.append(f"{len(consequences)} follow-on error(s) from other ranks after the crash ({', '.join(kinds[:4])}) were left out.")
    return shown, notes


# -- redaction of paths -----------------------------------------------------------------------------
def shorten_paths(text: str) -> str:
    """Installed-package paths keep the package part (`.../vllm/v1/engine/core.py`), system paths stay, other
    absolute paths (model directories, home folders, mounts) keep only their last component."""
    return _ABS_PATH.sub(lambda m: _shorten(m.group(1)), text)


def _shorten(path: str) -> str:
    for marker in ("site-packages/", "dist-packages/"):
        if marker in path:
            return ".../" + path.split(marker, 1)[1]
    for pkg in _PACKAGE_DIRS:
        i = path.rfind(f"/{pkg}/")
        if i > 0:
            return "..." + path[i:]
    if path.startswith(_SYSTEM) or path.count("/") <= 2 or path.startswith("/<"):
        return path
    last = path.rstrip("/").rsplit("/", 1)[-1]
    return f"<path>/{last}" if last else "<path>"


# Host names redact.py leaves alone: a bare fully qualified name (`node17.corp.example.com`) and the value of
# a serve command's --host. Python module paths (`sglang.srt.managers.scheduler`) do not end in a TLD.
_TLDS = ("com|net|org|io|ai|cn|dev|cloud|internal|local|lan|corp|intra|edu|gov|de|uk|fr|jp|kr|sg|in|us|eu|ru|"
         "nl|ca|au|tech|xyz|app|site|cluster")
_FQDN = re.compile(rf"(?<![\w.@/-])((?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?\.)+(?:{_TLDS}))(?![\w-])", re.I)
_HOST_FLAG = re.compile(r"(--host[ =])(?![\\<])(\S+)")
_OPEN_HOSTS = {"0.0.0.0", "127.0.0.1", "localhost", "::", "[::]", "<ip>", "<host>"}


def _fqdn(m: re.Match[str]) -> str:
    from ..redact import _public

    host = m.group(1)
    return host if _public(host) or host.count(".") < 1 else "<host>"


def _host_flag(m: re.Match[str]) -> str:
    return m.group(0) if m.group(2) in _OPEN_HOSTS else f"{m.group(1)}<host>"


# -- the Markdown -----------------------------------------------------------------------------------
def template_for(report: Report, template: str | None = None) -> str:
    engine = report.environment.get("engine")
    return template or (engine if engine in TEMPLATES else "vllm")


def render(report: Report, lines: list[tuple[int, str]], template: str | None = None,
           redactor: Redactor | None = None) -> tuple[str, Redactor]:
    """The bug report as Markdown, and the redactor (its `counts` say what was removed)."""
    redactor = redactor or Redactor(hosts=True)
    template = template_for(report, template)
    blocks, notes = blocks_of(report, lines)
    parts = _vllm(report, blocks, notes) if template == "vllm" else _sglang(report, blocks, notes)
    text = "\n".join(parts).rstrip() + "\n"
    text = redactor.text(text)
    text = _HOST_FLAG.sub(_host_flag, _FQDN.sub(_fqdn, text))
    counts = {k: v for k, v in redactor.counts.items() if v}
    paths = text.count("<path>/")
    summary = ", ".join([f"{v} {k}" for k, v in sorted(counts.items())] + ([f"{paths} private path(s)"] if paths else []))
    text += (f"\n<sub>Prepared with qwen3doctor {__version__} from `{_safe_name(report.source)}`. Redacted before sharing: "
             f"{summary or 'nothing found to redact'} — read it once more before you post.</sub>\n")
    return text, redactor


def _safe_name(source: str) -> str:
    return shorten_paths(source).replace("`", "'")


def title(report: Report) -> str:
    env = report.environment
    model = str(env.get("model") or env.get("family") or "").rstrip("/").rsplit("/", 1)[-1]
    crash = report.crash
    engine = {"vllm": "vLLM", "sglang": "SGLang"}.get(str(env.get("engine")), "")
    version = f"{engine} {env.get('engine_version')}" if engine and env.get("engine_version") else engine
    what = "crash"
    if crash is not None:
        what = {"illegal-memory-access": "CUDA illegal memory access", "out-of-memory": "CUDA out of memory",
                "nccl": "NCCL error", "device-assert": "device-side assert", "no-kernel-image": "no kernel image for this GPU",
                }.get(crash.crash_class, (crash.exception_type or "").rsplit(".", 1)[-1] or crash.message[:60] or crash.crash_class)
        deepest = next((f.function for f in reversed(crash.frames) if f.function not in ("?", "<module>")), None)
        if deepest:
            what += f" in {deepest}"
    where = ", ".join(x for x in (version, f"TP {env.get('tp')}" if env.get("tp") and str(env.get("tp")) != "1" else "") if x)
    head = f"{model}: {what}" if model else what
    return f"{head} ({where})" if where else head


def environment_table(report: Report) -> list[str]:
    env = report.environment
    rows = ["| | |", "| --- | --- |"]
    for key, label in ENV_ROWS:
        fact = env.facts.get(key)
        if fact is None:
            continue
        value = shorten_paths(str(fact.value)).replace("|", "\\|")
        rows.append(f"| {label} | `{value}` |")
    if len(rows) == 2:
        rows.append("| (none) | the log shows no environment facts |")
    return rows


def _sources(report: Report) -> str:
    srcs = {f.source.split(" ", 1)[0].split(":", 1)[0] for f in report.environment.facts.values()}
    words = []
    if "log" in srcs:
        words.append("the log")
    if "env-file" in srcs:
        words.append("an env file")
    if "option" in srcs:
        words.append("command-line options")
    if "this" in srcs:
        words.append("this machine")
    return ", ".join(words) or "the log"


def command_block(report: Report) -> list[str]:
    command = report.environment.get("serve_command")
    if not command:
        return ["_The log does not show the serve command: add it here._"]
    command = shorten_paths(str(command))
    try:
        shlex.split(command)
    except ValueError:
        return ["```bash", command, "```"]
    cmd = read_command(command)  # one line for the launcher and model, then one per flag with its value
    starts = sorted({0} | {f.start for f in cmd.flags if f.start >= cmd.launcher_end})
    ends = starts[1:] + [len(cmd.tokens)]
    lines = [shlex.join(cmd.tokens[a:b]) for a, b in zip(starts, ends) if b > a]
    return ["```bash", " \\\n  ".join(lines), "```"]


def crash_section(blocks: list[Block], notes: list[str], report: Report) -> list[str]:
    out: list[str] = []
    if not blocks:
        if report.verdict is Verdict.CLEAN:
            return ["_No crash was found in the log._"]
        return ["_The log holds no traceback._"]
    for b in blocks:
        proc = f"process `{b.process}`" if b.process else "the log"
        out.append(f"Error from {proc} — {b.title} (log line {b.first_line}; {b.cut.note()}):")
        out.append("")
        body = "\n".join(shorten_paths(t) for t in b.lines)
        fence = "````" if "```" in body else "```"
        out += [f"{fence}text", body, fence, ""]
    out += [f"_{n}_" for n in notes]
    return out


def diagnosis_section(report: Report) -> list[str]:
    out: list[str] = []
    if report.findings:
        out.append(f"qwen3doctor ranks {len(report.findings)} known cause(s); the most likely first:")
        out.append("")
        for i, f in enumerate(report.findings[:3], 1):
            refs = ", ".join(f"[{r}]({url_of(r)})" for r in f.references)
            out.append(f"{i}. **{f.title}** — {f.confidence} confidence, {f.status} (`{f.rule_id}`; {refs})")
            for ev in f.evidence:
                if ev.state == "hit" and ev.clause != "when.engine":
                    out.append(f"   - {ev.text.removesuffix(' (generic)')}")
            for note in f.notes[:2]:
                out.append(f"   - note: {note}")
            for fix in f.fixes[:2]:
                cost = f" (cost: {fix.cost})" if fix.cost else ""
                cmd = f": `{shorten_paths(fix.command)}`" if fix.command else ""
                out.append(f"   - workaround: {fix.title}{cost}{cmd}")
    elif report.crash is not None:
        out.append(f"No known root cause matched this {report.crash.crash_class} crash.")
    else:
        out.append("No crash found.")
        if report.risks:
            from ..render.markdown import risk_lines
            from ..render.plain import RISKS_NOTE, RISKS_TITLE

            out += ["", f"{RISKS_TITLE} ({RISKS_NOTE}):"]
            out += risk_lines(report.risks, command=shorten_paths)
    if report.next_steps:
        out += ["", "What would help narrow it down:"] + [f"- {s}" for s in report.next_steps[:4]]
    return out


def related(report: Report) -> list[str]:
    refs = list(dict.fromkeys(r for f in report.findings[:3] for r in f.references))
    return [f"[{r}]({url_of(r)})" for r in refs]


def _summary(report: Report) -> str:
    env = report.environment
    crash = report.crash
    engine = {"vllm": "vLLM", "sglang": "SGLang"}.get(str(env.get("engine")), "")
    on = f"{engine} {env.get('engine_version') or ''}".strip()
    model = env.get("model")
    who = f"{shorten_paths(str(model))} on {on}" if model and on else (shorten_paths(str(model)) if model else f"The {on} server" if on else "The server")
    if crash is None:
        return f"{who}: no crash was found in the log."
    msg = f"{crash.exception_type + ': ' if crash.exception_type else ''}{crash.message}"[:240]
    msg = shorten_paths(msg).replace("`", "'")
    return f"{who} crashed with `{msg}`."


def _vllm(report: Report, blocks: list[Block], notes: list[str]) -> list[str]:
    links = related(report)
    return [
        f"<!-- Suggested title: [Bug]: {title(report)} -->",
        "### Your current environment",
        "",
        "<details>",
        f"<summary>Environment read by qwen3doctor from {_sources(report)} (the full listing: <code>python collect_env.py</code>)</summary>",
        "",
        *environment_table(report),
        "",
        "</details>",
        "",
        "### 🐛 Describe the bug",
        "",
        _summary(report),
        "",
        "Command:",
        "",
        *command_block(report),
        "",
        *crash_section(blocks, notes, report),
        "",
        "#### Diagnosis (qwen3doctor)",
        "",
        *diagnosis_section(report),
        "",
        "### Before submitting a new issue...",
        "",
        "- [ ] Make sure you already searched for relevant issues, and asked the chatbot living at the bottom right corner of the [documentation page](https://docs.vllm.ai/en/latest/), which can answer lots of frequently asked questions."
        + (f" Related issues found by qwen3doctor: {', '.join(links)}." if links else ""),
    ]


def _sglang(report: Report, blocks: list[Block], notes: list[str]) -> list[str]:
    links = related(report)
    return [
        f"<!-- Suggested title: [Bug] {title(report)} -->",
        "### Checklist",
        "",
        "- [ ] I searched related issues but found no solution." + (f" (qwen3doctor points at: {', '.join(links)})" if links else ""),
        "- [ ] The bug persists in the latest version.",
        "- [ ] Issues without environment info and a minimal reproducible demo are hard to resolve and may receive no feedback.",
        "- [ ] If this is not a bug report but a general question, please start a discussion at https://github.com/sgl-project/sglang/discussions. Otherwise, it will be closed.",
        "- [ ] Please use English. Otherwise, it will be closed.",
        "",
        "### Describe the bug",
        "",
        _summary(report),
        "",
        *crash_section(blocks, notes, report),
        "",
        "#### Diagnosis (qwen3doctor)",
        "",
        *diagnosis_section(report),
        "",
        "### Reproduction",
        "",
        *command_block(report),
        "",
        "### Environment",
        "",
        f"Read by qwen3doctor from {_sources(report)} (the full listing: `python3 -m sglang.check_env`):",
        "",
        *environment_table(report),
    ]
