"""The table of per-line prefixes, peeled off one after another; the innermost process tag names the line's process.

Each entry: (name, pattern). A pattern's `proc` group, when present, names the process.
"""

from __future__ import annotations

from typing import Callable, Iterable, Iterator

import json
import re
import zlib

from .. import vocab

_TS = r"\d{4}-\d\d-\d\d[T ]\d\d:\d\d:\d\d(?:[.,]\d+)?(?:Z|[+-]\d\d:?\d\d)?"

_SGLANG_RANKS = r"(?:(?:DP|PP|TP|EP|CP|ATTN_CP|MOE_DP)\d+\s?)+"
# SGLang's record prefix with its ranks, wherever it sits in a line (inside a wrapper's process tag too)
SGLANG_RECORD = re.compile(rf"\[{_TS}\s+{_SGLANG_RANKS}\]")

# tqdm's bar: `11%|████▉   | 25/232 [01:26<02:49,  1.22it/s]`
PROGRESS_BAR = r"\d{1,3}%\|[^|]{0,200}\|\s*\d+/\d+ \[[^\]]{0,60}\]"
PROGRESS_BAR_RE = re.compile(PROGRESS_BAR)

PREFIXES: tuple[tuple[str, str], ...] = (
    # a quoted paste ("> " per line, as in e-mail and issue replies)
    ("quote", r">\s?"),
    # progress dots a tool printed without a newline, glued to the next record: "..[ERROR] the socversion ..."
    # (CANN's op compiler), "....INFO 05-13 ..." (only before a tag or a level, never a line of its own)
    ("progress-dots", r"\.{2,}(?=\[[A-Z]|(?:DEBUG|INFO|WARNING|ERROR|CRITICAL)\s)"),
    # a tqdm bar a process printed without a newline, glued to the next record (" 11%|████▉   | 25/232 [01:26<02:49,
    # 1.22it/s][rank0]:[E1204 ...] NPU out of memory ..."): the bar goes, the record is read
    # (with its label: "Train:   0%|   | 6/15000 [10:46:01<23855:30:25, 5727.61s/it][rank0]:[E1202 ...] Watchdog caught ...")
    ("progress-bar", rf"(?:[A-Za-z][\w ()/,.-]{{0,40}}:\s*)?{PROGRESS_BAR}(?=\S)"),
    # a harness's bracketed tag: "[VLLM LOG] ", "[SERVER] " (never an error code: "[NCC_INLA001] " is the message's)
    ("tag", r"\[(?![A-Z]+_[A-Z]*\d{2,}\])[A-Z][A-Z0-9_ -]{1,24}\]\s"),
    # `kubectl logs --prefix`: "[pod/vllm-0/vllm] " (a timestamp from --timestamps may follow)
    ("kubectl-prefix", r"\[pod/[\w.-]+/[\w.-]+\]\s"),
    # CANN's own records after their "[ERROR] " tag: "RUNTIME(129179,):2026-03-25-16:51:14.620.936 [api_error.cc:687]129253 ",
    # and a plog's: "HCCL(31207,python3):2026-05-14-10:22:41.630.122 [op_base.cc:1248] [31207]"
    ("cann", r"[A-Z_]+\(\d+,[\w-]*\):\d{4}-\d\d-\d\d-\d\d:\d\d:\d\d\.\d+\.\d+ \[[\w.]+:\d+\](?:\d+ | ?\[\d+\] ?)"),
    # DJL Serving / SageMaker LMI relaying its Python worker's streams, after its own "[INFO ] " tag:
    # "PyProcess - W-214-model-stderr: "
    ("djl", r"PyProcess - W-\d+-[\w.-]+-std(?:out|err): "),
    # a supervisor's or a compose file's service tag with a colon: "[service]: ", "[vllm-0]: ", "[WORKER]: "
    ("service-tag", r"\[[A-Za-z][\w.-]{0,31}\]:\s"),
    # vllm-omni's pipeline stage: "[Stage-0] "
    ("omni-stage", r"\[(?P<proc>Stage-\d+)\]\s"),
    # `grep -n` and `grep -n` over several files: "1234:", "1234-", "server.log:1234:", "server.log:" (never a time)
    ("grep", r"(?:[\w./-]+\.(?:log|txt|out|err|jsonl?):)?\d{1,8}[:-](?![\d:-])|[\w./-]+\.(?:log|txt|out|err):(?![\d\s/])"),
    # Kubernetes / GitHub Actions / journald style leading timestamps; a Kubernetes node log (CRI) adds the stream
    # and a partial/full tag ("2026-01-01T00:00:00.000000000Z stdout F "); "date time:" and Python logging's
    # "date time - " forms too
    # (a zone written apart, with or without its name: "2025-10-24T17:12:08.363544040 +08:00 CST ")
    ("timestamp", rf"{_TS}(?: [+-]\d\d:?\d\d(?: [A-Z]{{2,5}})?)?(?:\s(?:stdout|stderr) [FP](?: |$)|\s?[:|] ?|\s+- |\s+)"),
    # a date alone, one space before the line it stamps (a shipper or a paste that kept the day, not the time):
    # "2025-02-19   File ...", "2025-02-19 Traceback (most recent call last):"
    ("date", r"\d{4}-\d\d-\d\d (?!\d\d?:\d\d)"),
    # the same with the year's first digits lost where a selection began mid-word: "026-07-29 11:18:04: "
    ("timestamp-cut", r"\d{1,3}-\d\d-\d\d[T ]\d\d:\d\d:\d\d(?:[.,]\d+)?(?:\s?[:|] ?|\s+- |\s+)"),
    # syslog / `journalctl` (short format): "Jan 01 00:00:05 gpu-node-3 vllm[2211]: ", the service's own tag
    ("syslog", r"(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec|\d{1,2}月) [ \d]\d \d\d:\d\d:\d\d \S+ [\w.@/-]+(?:\[\d+\])?: "),
    # the same under another locale's month ("déc. 19 02:07:16 node-3 bash[2211]: ", "Okt 02 ...", "mai 07 ..."):
    # any short word of letters for the month, the service's pid required
    ("syslog-locale", r"[^\W\d_]{3,5}\.? [ \d]\d \d\d:\d\d:\d\d \S+ [\w.@/-]+\[\d+\]: "),
    # syslog's host and tag after an ISO timestamp (rsyslog's RFC 3339 format, a journal export):
    # "2026-01-14T10:01:02.123456+00:00 gpu-node-3 vllm-omni[378]: " (the timestamp peeled first)
    ("syslog-host", r"[A-Za-z][\w.-]* [\w.@/-]+\[\d+\]: "),
    # the kernel's ring buffer (dmesg): "[123456.789012] ", "[  +0.000012] " (dmesg -T keeps the date in the bracket)
    ("dmesg", r"\[\s*\+?\d+\.\d{6}\]\s?"),
    # `dmesg -T`: "[Tue Sep  9 02:30:28 2025] "
    ("dmesg-time", r"\[(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun) (?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) [ \d]\d "
                   r"\d\d:\d\d:\d\d \d{4}\]\s?"),
    # loguru's default format after its timestamp: "WARNING  | models.demos.qwen3_vl.generator:prefill_forward:188 - "
    ("loguru", r"(?P<level>TRACE|DEBUG|INFO|SUCCESS|WARNING|ERROR|CRITICAL)\s*\| [\w.<>-]+:[\w.<>-]+:\d+ - "),
    # Python logging's default format after its timestamp: "gpustack.worker.backends.vllm - ERROR - "
    ("pylog", r"(?:[\w.]+ - )?(?P<level>DEBUG|INFO|WARNING|ERROR|CRITICAL) - "),
    # Python logging's basicConfig format, no timestamp: "ERROR:app.services.asr.qwen3_engine:" (an app that wraps
    # the engine and logs what it caught)
    ("pylog-basic", r"(?P<level>DEBUG|INFO|WARNING|ERROR|CRITICAL):[A-Za-z_][\w.]*:(?!\d)"),
    # a launcher's rank tag: "[1/8,TP1][pid=5510] "
    ("rank-tag", r"\[(?P<proc>\d+/\d+,\s*[A-Z]+\d+)\](?:\[pid=\d+\])?\s?"),
    # docker compose: "svc-1  | " and "[llm]        | "
    ("compose", r"(?:\[[\w.-]+\]|[\w.-]+)\s*\|\s?"),
    # torchrun: "[rank3]:" and "[rank3]:[W1027 20:05:15.05 TCPStore.cpp:125] " (c10's own records: "[E226 16:00:37.34 ...]")
    ("torchrun", r"\[(?P<proc>rank\d+)\]:(?:\[(?P<glevel>[WEIF])\d{3,4} [\d:.]+ (?P<gsrc>[^\]]*)\])?\s?"),
    # vLLM process tags: "(EngineCore_DP0 pid=312) ", "(Worker_TP4) ", "(RayWorkerWrapper pid=1, ip=10.0.0.1) ",
    # "(VllmWorker rank=0 pid=106) " and, in 0.10.0 / 0.10.1, "(VllmWorker TP3 pid=2211) "
    # (a Ray actor named by its framework may carry a hyphen, `(ActorInfer-0 pid=4242) `, and a Ray Serve replica its
    # application and deployment, `(ServeReplica:default:LLMServer:qwen3-8b pid=23841) `: only before its pid)
    ("vllm-process", r"\((?P<proc>(?:[A-Za-z]\w*(?:[-:][\w.-]+)+(?=\s+pid=)|[A-Za-z]\w*(?:\s+(?:rank=\d+|(?:TP|DP|PP|EP)\d+))*)"
                     r"(?:\s+pid=\w+)?(?:,\s*ip=[\w.:]+)?)\)\s?"),
    # a Ray task's output has no actor name: "(pid=718453) ", "(pid=2211, ip=10.0.0.7) "
    ("ray-task", r"\((?P<proc>pid=\d+(?:,\s*ip=[\w.:]+)?)\)\s?"),
    # the same tag with its parentheses lost (a log shipper's or a web page's copy), before a record's level only:
    # "Worker_DP4_EP4 pid=2314 ERROR 11-20 10:01:02 [multiproc_executor.py:840] "
    ("vllm-process-bare", r"(?P<proc>(?:EngineCore|Worker|VllmWorker|APIServer|RayWorkerWrapper|StageEngineCore)\w*"
                          r"(?:\s+(?:rank=\d+|(?:TP|DP|PP|EP)\d+))*\s+pid=\d+)\s(?=(?:DEBUG|INFO|WARNING|WARN|ERROR|CRITICAL)\s)"),
    # SGLang: "[2025-05-01 10:00:00 TP0] ", "[2025-05-01 10:00:00 DP0 TP3 EP3] ", "[2025-05-01 10:00:00] "
    ("sglang", rf"\[{_TS}(?:\s+(?P<proc>{_SGLANG_RANKS}))?\]\s?"),
    # a SGLang prefix whose opening bracket was lost in the paste: "2025-11-06 08:57:26] "
    ("sglang-cut", rf"{_TS}(?:\s+(?P<proc>(?:(?:DP|PP|TP|EP)\d+\s?)+))?\]\s?"),
    # vLLM / Python logging: "ERROR 05-05 12:36:59 [core.py:1138] ", "INFO 05-13 07:15:10 [importing.py:53] ",
    # "(Worker_TP4) ERROR [multiproc_executor.py:863] "
    ("vllm-level", r"(?:DEBUG|INFO|WARNING|WARN|ERROR|CRITICAL)\s+(?:(?:\d{4}-)?\d\d-\d\d\s+[\d:.,]+\s+)?\[?[\w./-]+\.py:\d+\]\s?"),
    # a level alone after a process tag, the record's time and source left out by the log's format:
    # "(Worker_TP0) ERROR   File "vllm/v1/executor/multiproc_executor.py", line 1010, in worker_busy_loop"
    # (only after a tag: a line of prose may start with the word)
    ("vllm-level-bare", r"(?:DEBUG|INFO|WARNING|WARN|ERROR|CRITICAL) (?=\S|  )"),
    # a vLLM record cut down to its source location by the paste: "[serving_chat.py:885] Traceback ..."
    ("vllm-loc", r"\[[\w./-]+\.py:\d+\]\s"),
    # glog: "W1027 20:05:15.052888 12345 file.cpp:125] "; torch's verbose logs add the compile frame's id: "V0223 ... [0/0] "
    ("glog", r"(?P<gl>[WEIFVD])\d{4} [\d:.]+\s+\d+\s+(?P<gs>[\w./-]+:\d+)\]\s?(?:\[\d+/\d+\]\s?)?"),
)

_COMPILED = tuple((name, re.compile(pattern)) for name, pattern in PREFIXES)
# NCCL's debug lines (NCCL_DEBUG=INFO / WARN): "host:pid:tid [dev] " and, in newer NCCL, the source line
# ("misc/shmutils.cc:129 ") before "NCCL WARN ..." - the host part is any length (a pod's name), so it is matched
# apart from the quick test; "NCCL WARN" stays in the text (rule patterns quote it) and names the record
_NCCL = re.compile(r"[\w.-]+:\d+:\d+ \[\d+\] (?:[\w./-]+\.(?:cc|cu|h|cpp):\d+ )?(?=NCCL (?P<nl>WARN|INFO|TRACE|ABORT) )")
_QUICK = re.compile(r"[\[(|>]|\d{4}-|(?:DEBUG|INFO|WARNING|WARN|ERROR|CRITICAL)[\s:]|^[WEIFVD]\d{4}\s|^\d|^[\w./-]+\.(?:log|txt|out|err):"
                    r"|^[A-S][a-u][b-y] [ \d]\d \d\d:|^\d{1,2}月 ")


def peel(line: str) -> tuple[str | None, str]:
    """Return (process, text) with every known prefix removed. `process` is None when no tag names one."""
    process, text, _ = peel_record(line)
    return process, text


_RAY_SUFFIX = re.compile(r"\s*\[repeated \d+x across cluster\]\s*$")


# what a line set as inline code must start like to be unwrapped: an exception, a crash line, a log record
_CODE_SPAN_LINE = re.compile(r"[\w.]+(?:Error|Exception|Warning|Interrupt|Exit)\b|[A-Z]+ \d\d-\d\d |\[\d{4}-\d\d-\d\d |"
                             r"CUDA error|Traceback \(")


def peel_record(line: str) -> tuple[str | None, str, str | None]:
    """(process, text, record): `record` names the logging call a line came from (level and source location,
    `ERROR core.py:1138`) when its prefix says so; lines of one multi-line message share it."""
    process = None
    record = None
    rest = line
    own = None
    if rest.startswith('{"') and rest.endswith("}") and _JSON_TEXT_KEY.search(rest):
        rest = _json_log(rest)
        if rest is not line and _JSON_LEVEL.search(line):
            # an application's structured record is one whole logging call: the next record, even at the same
            # level, never continues its message (a stream line a shipper wrapped, `{"log": ...}`, has no level).
            # (Its level is not taken for an engine's: a wrapper's "error" record may hold any line of the log.)
            own = f"json#{zlib.crc32(line.encode('utf-8', 'replace')):08x}"
    if rest.startswith(_LOGFMT_STARTS) and ' msg="' in rest:
        rest = _logfmt_msg(rest)
    rest = _unbold(rest)
    if rest.startswith("`") and rest.endswith("`") and len(rest) > 2 and rest[1] != "`" and rest.count("`") % 2 == 0 \
            and _CODE_SPAN_LINE.match(rest[1:-1]):
        rest = rest[1:-1]  # a whole line set as inline code (Markdown): `ValueError: ... `max_model_len` ...`
    if rest.endswith("cluster]") and "[repeated" in rest:
        rest = _RAY_SUFFIX.sub("", rest)
    if rest[:1].isspace():
        # an indented paste: peel what follows the indentation, or leave the line as it is (a frame, a code line)
        stripped = rest.lstrip()
        if stripped[:2] == "| " and not stripped.rstrip().endswith("|"):
            # Python's print of an exception group draws each sub-exception's traceback behind "  | " (starlette's
            # `+ Exception Group Traceback`, `| Traceback (most recent call last):`, `|   File ...`, `| KeyError: ...`):
            # the lines behind the bar, with their own indentation (never an nvidia-smi row: those start unindented)
            return peel_record(stripped[2:]) if not stripped[2:3].isspace() else (None, stripped[2:], None)
        peeled = peel_record(stripped)
        return peeled if peeled[1] != stripped else (None, rest, None)
    for _ in range(6):
        if " NCCL " in rest[:240]:
            n = _NCCL.match(rest)
            if n is not None:
                return process, rest[n.end():], f"NCCL {n.group('nl')}"
        if not rest or rest[0] == " " or not _QUICK.search(rest, 0, 48):
            break
        for name, pattern in _COMPILED:
            m = pattern.match(rest)
            if m is None or m.end() == 0:
                continue
            if name == "compose" and not _compose_ok(rest, m):
                continue
            if name == "vllm-level-bare" and process is None:
                continue
            proc = m.groupdict().get("proc")
            # (SGLang tags only a traceback's first line: inside a wrapper's tag, `(WorkerDict pid=1) [... TP0] `, the
            # wrapper's tag is the one every line of that traceback carries)
            if proc and not (name in ("sglang", "sglang-cut") and process is not None):
                process = _normalise(proc)
            if name in ("pylog", "pylog-basic", "loguru"):
                record = {"TRACE": "DEBUG", "SUCCESS": "INFO"}.get(m.group("level"), m.group("level"))
            if name == "torchrun" and m.group("glevel"):
                record = f"{m.group('glevel')} {m.group('gsrc')}"  # c10's record: its own level and source line
            if name == "glog":
                record = f"glog {m.group('gl')} {m.group('gs')}"  # a native library's record: its level and source line
            if name == "tag" and record is None and m.group(0).startswith(("[ERROR]", "[CRITICAL]", "[FATAL]")):
                record = "ERROR"  # (inside an engine's record, `[ERROR] ...` is a line of that record's message)
            if name in ("sglang", "sglang-cut") and record is None:
                # SGLang stamps only a record's first line: a stamped line is a logging call of its own, never the
                # rest of the message above it (its stamp and rank tell calls apart)
                record = "at " + m.group(0).strip()
            if name == "vllm-loc":
                record = m.group(0).strip()[1:-1]  # (its level was cut off with the rest of the prefix)
            if name == "vllm-level-bare":
                record = m.group(0).strip()
            if name == "vllm-level":
                head = m.group(0)
                record = head.split(None, 1)[0] + " " + head[head.rfind("[") + 1:].split("]")[0] if "[" in head else head.strip()
            rest = rest[m.end():]
            break
        else:
            break
    rest = _unbold(rest)  # (bold set inside the prefix a log gave the line: `2025-02-19 **ModuleNotFoundError: ...**`)
    if record is not None and record.startswith("glog ") and rest[:1] == '"' and len(rest) > 2:
        # newer glog builds (Triton's server) print the message as a quoted string, escapes kept: without its quotes
        # and its closing line break (`"[vllm] Failed to start engine: ...\n"`; a line cut short keeps no closing one)
        rest = rest[1:-1].removesuffix("\\n") if rest.endswith('"') else rest[1:]
    return process, rest, record if record is not None else own


def _unbold(text: str) -> str:
    """A line a reporter set in bold (Markdown) without its asterisks; not abseil's `*** SIGABRT received ... ***`."""
    if text.startswith("**") and text.endswith("**") and len(text) > 4 and "*" not in (text[2], text[-3]):
        return text[2:-2]
    return text


# the field a log shipper keeps the line in: Docker's json-file driver and Kubernetes collectors (`log`), fluentd /
# vector / Loki exports (`message`, `msg`), `journalctl -o json` (`MESSAGE`)
_JSON_TEXT_KEYS = ("log", "message", "msg", "MESSAGE")
_JSON_LEVEL = re.compile(r'"(?:level|levelname|severity|log\.level)"\s*:\s*"([A-Za-z]+)"')
_JSON_TEXT_KEY = re.compile(r'"(?:log|message|msg|MESSAGE)"\s*:\s*"')


def record_lines(line: str) -> list[str] | None:
    """The lines of a log shipper's JSON record that holds several (a whole traceback in one `log` / `message`
    field), each with its own prefix; None for any other line."""
    if not (line.startswith('{"') and line.endswith("}") and _JSON_TEXT_KEY.search(line)):
        return None
    text = _json_log(line)
    return text.split("\n") if text is not line and "\n" in text else None


def _json_log(line: str) -> str:
    """`{"log":"...\\n","stream":"stderr",...}` and the like: the line the record holds, else the line as it is."""
    import json

    try:
        record = json.loads(line)
    except ValueError:
        return line
    if not isinstance(record, dict) or record.get("object") == "error" or str(record.get("type", "")).endswith("Error"):
        return line  # a server's error response is read as it is (crash.py), not as a log shipper's record
    for key in _JSON_TEXT_KEYS:
        value = record.get(key)
        if isinstance(value, str):
            # (a launcher's record may keep what failed beside its message: `"msg":"vllm exited with code 1",
            # "error":"pydantic_core._pydantic_core.ValidationError: ..."`)
            extra = [v for k in _JSON_ERROR_KEYS if isinstance(v := record.get(k), str) and v.strip()]
            value = "\n".join([value.rstrip("\r\n")] + extra) if extra else value
            if "\x1b" in value:  # colour codes the record kept, escaped in its JSON (`\u001b[36m`)
                from .reader import ANSI

                value = ANSI.sub("", value)
            return value.rstrip("\r\n")
    return line


# a Go service's logfmt record around each line of the process it runs (Docker Model Runner, ollama-style launchers):
# `time="2026-01-29T14:55:54Z" level=info msg="  File \"/opt/...\", line 10, in <module>" component=vllm`
_LOGFMT_STARTS = ("time=", "ts=", "level=")
_LOGFMT_FIELD = re.compile(r'(\w+)=("(?:[^"\\]|\\.)*"|\S*)')
_LOGFMT_ESCAPE = re.compile(r"\\(.)")
# the fields that say when and where a record was written, not what happened
_LOGFMT_META = frozenset(("time", "ts", "level", "msg", "component", "caller", "source", "logger", "module", "func"))


def _logfmt_msg(line: str) -> str:
    """The line a logfmt record's `msg` field holds (quotes and backslashes unescaped), with the other quoted fields
    that may say what failed after it (`body="{\"error\": ...}"`, `error="..."`); else the line as it is."""
    fields = {}
    for m in _LOGFMT_FIELD.finditer(line):
        fields.setdefault(m.group(1), m.group(2))
    msg = fields.get("msg", "")
    if not msg.startswith('"'):
        return line
    parts = [msg] + [v for k, v in fields.items() if k not in _LOGFMT_META and v.startswith('"') and len(v) > 2]
    unquote = lambda v: _LOGFMT_ESCAPE.sub(lambda e: {"t": "\t", "n": " "}.get(e.group(1), e.group(1)), v[1:-1])
    return " ".join(unquote(v) for v in parts).rstrip()


# (structlog and python-json-logger keep the traceback in `exception` / `exc_info`; other formatters in `exc` or `exc_text`)
_JSON_ERROR_KEYS = ("error", "err", "exception", "exc_info", "exc", "exc_text", "stack", "stacktrace", "stack_trace",
                    "traceback")


def _compose_ok(line: str, m: "re.Match[str]") -> bool:
    # "svc-1  | text": the name must be followed by spaces or be bracketed, so a table row "| GPU |" is not taken
    head = m.group(0)
    return "|" in head and (head.startswith("[") or "  " in head or head.rstrip().endswith(" |"))


def _normalise(proc: str) -> str:
    proc = " ".join(proc.split())
    return re.sub(r",?\s*ip=[\w.:]+", "", proc)


DEDENT_SAMPLE = 64  # the first non-blank lines that decide a paste's common indentation
SAMPLE_BYTES = 4 << 20  # no reading decision holds more than this much text back (lines can be 1 MiB each)


def _head(it: Iterator[tuple[int, str, int]], count: int, *, nonblank: bool = False) -> tuple[list, bool]:
    """The first `count` lines of the stream (non-blank ones only, with `nonblank`), never more than SAMPLE_BYTES of
    text: what a reading decision looks at before it lets the first line through; and whether the stream ended
    there (a short paste, read whole)."""
    head: list[tuple[int, str, int]] = []
    seen = size = 0
    for item in it:
        head.append(item)
        size += len(item[1])
        if not nonblank or item[1].strip():
            seen += 1
        if seen >= count or size > SAMPLE_BYTES:
            return head, False
    return head, True


def dedented(lines: Iterable[tuple[int, str, int]]) -> Iterator[tuple[int, str, int]]:
    """(line number, text, why) with the paste's common indentation removed: a log pasted as an indented code
    block, or quoted by a mail or chat client with spaces, has every line shifted alike, which moves a
    traceback's exception line off the column Python prints it at. Decided on the first DEDENT_SAMPLE non-blank
    lines (a log is read once, in order); lines that lack the indentation are passed as they are."""
    it = iter(lines)
    head, _ = _head(it, DEDENT_SAMPLE, nonblank=True)
    width = min((len(t) - len(t.lstrip(" ")) for _, t, _ in head if t.strip()), default=0)
    if width < 2:
        yield from head
        yield from it
        return
    pad = " " * width
    for n, t, why in head:
        yield n, t[width:] if t.startswith(pad) else t, why
    for n, t, why in it:
        yield n, t[width:] if t.startswith(pad) else t, why


# added to a line's `why` once for each further line joined into it (the selection flags stay in the low bits)
JOINED = 1 << 8
# a line's `why` flag: it follows the line before it directly, though the numbers skip (a viewer's rows between them
# were removed, without_viewer_rows)
FOLLOWS = 1 << 7
UNWRAP_MIN_WIDTH = 60
UNWRAP_MIN_CUT = 3
SHORT_WRAP_MIN_WIDTH = 80  # a terminal window is seldom narrower; a short paste's longest line often is
MAX_JOINED = 1 << 20  # the reader's limit on one line (reader.MAX_LINE)


# the record prefix of vLLM (`(EngineCore pid=1) ERROR 07-31 02:52:28 [core.py:586] `) and SGLang
# (`[2026-03-25 05:46:24 TP0] `) found inside a line, where a paste lost its line breaks
_GLUED_RECORD = re.compile(
    r"(?:(?:\((?:[\w.:-]+ )?pid=\d+\) )*(?:ERROR|WARNING|INFO|DEBUG|CRITICAL) \d\d-\d\d \d\d:\d\d:\d\d(?:\.\d+)? \[[\w.]+:\d+\]"
    r"|\[\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(?: [A-Z]+\d+)*\]"
    # vLLM's API server tags the lines of an uncaught exception with its process alone: `(APIServer pid=237) `
    r"|\((?:[\w.:-]+ )?pid=\d+\)(?= (?!(?:ERROR|WARNING|INFO|DEBUG|CRITICAL) )))"
    r" ")
FLAT_MIN_RECORDS = 3  # glued records a line must hold before it is split
FLAT_MIN_LENGTH = 200


# a CI log viewer's row controls copied along with its lines (Buildkite's web log: `Actions for L346`, then the row's
# number alone on the next line, between every two lines of the log)
_VIEWER_ROW = re.compile(r"Actions for L(\d+)")


def without_viewer_rows(lines: Iterable[tuple[int, str, int]]) -> Iterator[tuple[int, str, int]]:
    """(line number, text, why) without the row controls a CI web log viewer adds to a copied log: each `Actions for
    L346` line and the bare `346` after it go. The next line keeps its number and is marked FOLLOWS, so that a
    traceback's lines and an exception's continued message still read as one another's neighbours."""
    row = None
    dropped = False
    for n, t, why in lines:
        if row is None and "Actions for L" not in t:  # (every line of every log passes here: the common case first)
            yield n, t, why | FOLLOWS if dropped else why
            dropped = False
            continue
        stripped = t.strip()
        if row is not None and stripped == row:
            row = None
            continue
        m = _VIEWER_ROW.fullmatch(stripped)
        if m:
            row, dropped = m.group(1), True
            continue
        row = None
        yield n, t, why | FOLLOWS if dropped else why
        dropped = False


def unflattened(lines: Iterable[tuple[int, str, int]]) -> Iterator[tuple[int, str, int]]:
    """(line number, text, why) with a flattened paste split again: a web form or a chat client that dropped the
    line breaks leaves a whole traceback on one line (`ERROR ... [core.py:586] Traceback (most recent call last):
    ERROR ... [core.py:586] File "...", line 577, in run_engine_core ERROR ...`). A line holding FLAT_MIN_RECORDS or
    more record prefixes is cut before each of them; the pieces keep the line's number."""
    for n, t, why in lines:
        if "^M" in t:
            # carriage returns shown in caret notation (`cat -v`, a pager, some web views): each one ends a line
            yield from unflattened((n, piece, why) for piece in t.split("^M") if piece.strip())
            continue
        if t.lstrip().startswith('"') and (item := _json_item(t)) is not None:
            yield from ((n, piece, why) for piece in item.split("\n") if piece.strip())
            continue
        if ' File "' in t and "\\n" not in t and (
                "Traceback (most recent call last): " in t or len(_FLAT_FRAME.findall(t)) >= 2):
            yield from ((n, piece, why) for piece in _flat_traceback(t))
            continue
        if len(t) < FLAT_MIN_LENGTH or ("] " not in t and "pid=" not in t) or t.startswith('{"') or "\\n" in t:
            yield n, t, why  # a log shipper's JSON record, or a string with escaped line breaks, is split elsewhere
            continue
        starts = [m.start() for m in _GLUED_RECORD.finditer(t)]
        if len(starts) < FLAT_MIN_RECORDS:
            yield n, t, why
            continue
        cuts = ([0] if starts[0] > 0 else []) + starts + [len(t)]
        for a, b in zip(cuts, cuts[1:]):
            piece = t[a:b].rstrip()
            if piece:
                yield n, piece, why


# one item of a pretty-printed JSON log record's traceback list (vLLM's JSON logging, `"exc_info": [` ...):
# `"File \"/x/models.py\", line 1026, in raise_for_status\n    raise HTTPError(...)",`
_JSON_ITEM = re.compile(r'^\s*(?P<s>"(?:[^"\\]|\\.)*")\s*,?\s*$')
_TRACEBACK_TEXT = re.compile(r'^(?:Traceback \(most recent call last\)|File "|(?:[a-z_]\w*\.)*[A-Z]\w*(?:Error|Exception)\b'
                             r'|The above exception|During handling of the above)')


def _json_item(line: str) -> str | None:
    """The text of a JSON string item that holds a traceback's line, or None."""
    m = _JSON_ITEM.match(line)
    if m is None:
        return None
    try:
        text = json.loads(m.group("s"))
    except ValueError:
        return None
    return text if isinstance(text, str) and _TRACEBACK_TEXT.match(text) else None


# a traceback whose line breaks became spaces inside one line (an HTTP error body, a job status):
# `traceback: Traceback (most recent call last): File "/src/handler.py", line 206, in generate results = await f() KeyError: 'api'`
_FLAT_FRAME = re.compile(r'\s(?=File "[^"]+", line \d+)')
_FLAT_EXC = re.compile(r"\s(?=(?:[a-z_]\w*\.)*[A-Z]\w*(?:Error|Exception|Exit|Interrupt)(?::\s|$))")


def _flat_traceback(line: str) -> list[str]:
    """The lines of a flattened traceback; one that lost its header too (two frames or more glued into one line)
    keeps what came before its first frame as a line of its own."""
    head, _, body = line.partition("Traceback (most recent call last): ")
    if body:
        pieces = [head + "Traceback (most recent call last):"] + _FLAT_FRAME.split(body)
    else:
        pieces = _FLAT_FRAME.split(line)
    last = list(_FLAT_EXC.finditer(pieces[-1]))
    if len(pieces) > 1 and last:
        cut = last[-1].start()
        pieces[-1:] = [pieces[-1][:cut], _closed(pieces[-1][cut + 1:], head.count("{") - head.count("}"))]
    return [p for p in pieces if p.strip()]


def _closed(text: str, open_braces: int) -> str:
    """The exception line without the rest of the JSON object the traceback sat in (`KeyError: 'api'}, status: 200}}`)."""
    depth = 0
    for i, ch in enumerate(text):
        depth += (ch == "{") - (ch == "}")
        if open_braces > 0 and depth < 0:
            return text[:i].rstrip(" ,")
    return text


# a serve command a web page wrapped inside a word: `... --enable-auto-tool-c` / `hoice --tool-call-parser qwen3_coder`
_COMMAND_LINE = re.compile(r"(?:vllm\s+serve|sglang\s+serve|launch_server|api_server)\b.*\s(?P<last>-{1,2}[\w-]+|\S*-)$")
_WORD_REST = re.compile(r"^(?P<rest>[\w.-]+)(?=\s+-{1,2}\w|\s*$)")


def rejoined_commands(lines: Iterable[tuple[int, str, int]],
                      known_flag: Callable[[str, str], bool]) -> Iterator[tuple[int, str, int]]:
    """(line number, text, why) with a serve command that a web page wrapped inside a flag or a model name joined
    again: only when the halves make a flag some release of the engine accepts (`known_flag(engine, flag)`:
    `--enable-auto-tool-c` + `hoice`), or a name whose first half ends in a hyphen (`...-Clean-` + `Origin_step1000`)."""
    held: tuple[int, str, int] | None = None
    for n, t, why in lines:
        if held is not None:
            hn, ht, hwhy = held
            held = None
            rest = _WORD_REST.match(t)
            if rest and _joins(ht, rest.group("rest"), known_flag):
                yield hn, ht + t, hwhy
                continue
            yield hn, ht, hwhy
        if ("serve" in t or "launch_server" in t or "api_server" in t) and not t.endswith("\\") \
                and _COMMAND_LINE.search(t):
            held = (n, t, why)
            continue
        yield n, t, why
    if held is not None:
        yield held


def _joins(line: str, rest: str, known_flag: Callable[[str, str], bool]) -> bool:
    last = _COMMAND_LINE.search(line).group("last")
    if not last.startswith("-"):
        return True  # a model name or path cut after a hyphen
    engine = "sglang" if "sglang" in line or "launch_server" in line else "vllm"
    return known_flag(engine, last + rest) and not known_flag(engine, last)


def unwrapped(lines: Iterable[tuple[int, str, int]]) -> Iterator[tuple[int, str, int]]:
    """(line number, text, why) with a terminal's hard wraps undone: a log copied from a terminal window (or a
    console that folds at a fixed width) has every long line cut into pieces exactly as wide as the window,
    which splits exception lines, frames and the words rules look for. When the first lines show it - no line
    wider than W (at least UNWRAP_MIN_WIDTH), and UNWRAP_MIN_CUT or more (and most) of the lines exactly W wide
    followed by a line that goes on mid-text - a line exactly W wide is joined with the next line; a paste too short
    to hold that many is judged by `_short_paste_wrapped`. Once a line wider than W appears, nothing more is joined
    (it was not wrapped)."""
    it = iter(lines)
    head, whole = _head(it, 4 * DEDENT_SAMPLE)
    width = max((len(t) for _, t, _ in head), default=0)
    full = [i for i, (_, t, _) in enumerate(head) if len(t) == width]
    if len(full) >= UNWRAP_MIN_CUT and 2 * sum(1 for i in full if head[i][1].endswith("  ")) > len(full):
        # a tmux or terminal copy that pads every line to the window's width: the padding goes, nothing is joined
        yield from ((n, t.rstrip(" ") if t.endswith("  ") else t, why) for n, t, why in _chain(head, it))
        return
    # a cut: the next line goes on mid-text (not indented, not a new record starting like the wide one); lines that
    # merely share a length (one prefix, similar frames) are followed by new records
    goes_on = [i for i in full if i + 1 < len(head) and head[i + 1][0] == head[i][0] + 1 and _goes_on(head[i][1], head[i + 1][1])]
    cuts = len(goes_on)
    short_cut = whole and _short_paste_wrapped(head, full, goes_on, width)
    if width < UNWRAP_MIN_WIDTH or (cuts < UNWRAP_MIN_CUT and not short_cut) or 2 * cuts < len(full):
        yield from head
        yield from it
        return
    held: tuple[int, str, int] | None = None
    last = 0
    for n, t, why in _chain(head, it):
        if len(t) > width:
            width = 1 << 62  # not a wrapped paste after all
        if held is not None:
            if n == last + 1:
                # numbered as its first piece; the pieces after it counted in `why` (JOINED), so that the line after
                # the last one follows with no gap (a gap ends a command continued with backslashes)
                held = (held[0], held[1] + t, (held[2] | why) + JOINED)
                last = n
                if len(t) != width or len(held[1]) >= MAX_JOINED:  # a joined line is no longer than a read one
                    yield held
                    held = None
                continue
            yield held
            held = None
        if len(t) == width:
            held, last = (n, t, why), n
            continue
        yield n, t, why
    if held is not None:
        yield held


def _short_paste_wrapped(head: list, full: list[int], goes_on: list[int], width: int) -> bool:
    """A paste read whole that holds too few wide lines to count: wrapped at `width` when every line exactly that
    wide goes on, each time with text that cannot start a line of its own (a record prefix, a frame, an exception
    line), and no narrower line is followed by mid-sentence text (a message that spans lines by itself is no wrap)."""
    if width < SHORT_WRAP_MIN_WIDTH or not goes_on or len(goes_on) != len(full) \
            or any(RECORD_START.match(head[i + 1][1]) for i in goes_on):
        return False
    if len(goes_on) == 1:
        # one cut is weak evidence: the wide line must stop mid-word or at a space (or the rest start with a space or
        # a closing mark), and the rest must not read as a line of its own (an exception, a `file.py:N` frame, a
        # listing's row)
        wide, rest = head[goes_on[0]][1], head[goes_on[0] + 1][1]
        if not (wide[-1:].isalnum() or wide.endswith(("_", " ")) or rest[:1] in (" ", ":", ";", ",", ".", ")", "]", "}")) \
                or _OWN_LINE.match(rest):
            return False
        if (wide[-1:].islower() or wide[-1:].isdigit()) and _SENTENCE_START.match(rest):
            # `... FP8 warmup` + `This kernel only supports sm120.`: a word, then a sentence of its own; a command's
            # last number, then its output (`... --tensor-parallel-size 2` + `NCCL version 2.19.3+cuda11.0`)
            return False
        if _WHOLE_FRAME.search(wide) and _CODE_LINE.match(rest):
            return False  # `File "...", line 148, in is_moe_wna16_compatible` + its code line, both unindented
        if not wide[-1:].isalpha() and _LABEL_LINE.match(rest):
            return False
    for i in range(len(head) - 1):
        if len(head[i][1]) >= width or i - 1 in goes_on or head[i + 1][0] != head[i][0] + 1:
            continue  # a wide line, or the rest of one
        following = head[i + 1][1]
        if _goes_on(head[i][1], following) and _MID_SENTENCE.match(following) \
                and not (RECORD_START.match(following) or _OWN_LINE.match(following)):
            return False
    return True


def _goes_on(wide: str, following: str) -> bool:
    # a wrap at a space leaves one space in front of the rest; an indented line (a frame, a code line) has two; in a
    # quoted reply (`> ` on every line) each quoted line is one of its own, as each record is
    return bool(following.strip()) and not following[:2].isspace() and following[:8] != wide[:8] \
        and not (wide[:1] == ">" == following[:1])


# text that reads as a line of its own although it starts mid-sentence: an exception of any spelling
# (`ncclSystemError: ...`), a `file.py:N` frame, a listing's row (`transformers    4.57.1`), a progress bar
# (`Capturing CUDA graph shapes:   3%|▎ | 1/35`, `Loading safetensors checkpoint shards:  50% Completed | 2/4`)
_OWN_LINE = re.compile(r"\S*(?:Error|Exception|Warning)\w*:|[\w./-]+\.py:\d|\S+ {2,}\S|[^|]{0,80}?\d{1,3}%(?:\||\s+Completed\s*\|)"
                       rf"|{vocab.ARGPARSE_ERROR}|usage: "  # (argparse's own lines: `vllm: error: unrecognized arguments: ...`)
                       # a call tree's or a profiler's line: `ExpertLocationMetadata._init_raw (expert_location.py:211)`
                       r"|[\w.<>]+ \([\w./-]+\.py:\d+\)\s*$")
# a traceback's frame line that ends with its function's whole name, and a line of Python code (what such a frame line
# is followed by when a paste lost its indentation)
_WHOLE_FRAME = re.compile(r"File \"[^\"]+\", line \d+, in [A-Za-z_<][\w<>]*$")
_CODE_LINE = re.compile(r"\s*(?:(?:return|raise|assert|await|yield|if|for|while|with|del)\b|[A-Za-z_][\w.\[\], ]*\s*(?:[-+*/|&]?=[^=]|\())")
# a listing's `Label: value` line (`GPU 0: NVIDIA B200`, `PyTorch: 2.8.0+cu128`); after a line that ends in a letter it
# may be the rest of a CamelCase name (`cudaErrorLaunch` + `Failure: ...`), so it is taken as a line of its own only
# after a digit or punctuation (`... --port 8000` + `GPU 0: NVIDIA B200`)
_LABEL_LINE = re.compile(r"[A-Z][\w .()-]{0,30}: \S")
_MID_SENTENCE = re.compile(r" ?[a-z0-9_.,;:)\]}'\"]")
# a capitalised word (or an acronym, `NCCL version ...`) and a lower-case one: a sentence that starts a line
# (`Exception raised from ...`), where a wrap inside a CamelCase name goes on with the name (`cudaErrorLaunch` +
# `Failure: ...`)
_SENTENCE_START = re.compile(r"[A-Z](?:[a-z]+|[A-Z0-9]+) [a-z]")
# how a line of its own starts: a timestamp, a level, a process or rank prefix, a traceback's lines, an exception
RECORD_START = re.compile(
    r"\s*(?:\[|\(|\d{4}-\d\d-\d\d|\d\d-\d\d \d|(?:INFO|WARNING|WARN|ERROR|DEBUG|CRITICAL|FATAL)\b|Traceback|File \"|"
    r"During handling|The above exception|[A-Z]\w*(?:Error|Exception|Warning|Interrupt|Exit)\b|\w+(?:\.\w+)*\.[A-Z]\w*:|"
    # NCCL's debug prefix: `host:pid:tid [dev] NCCL INFO ...`; a shell prompt's next command (`$ docker info ...`)
    r"[\w.-]+:\d+:\d+ \[\d+\] |\$ \S)")


def _chain(first: list, rest: Iterator) -> Iterator:
    yield from first
    yield from rest


REVERSE_MAX_LINES = 20_000  # a newest-first export is put back in order only when it is a paste this small
_STAMP = re.compile(r"(?<!\d)(?:\d{4}-)?\d\d-\d\d[T ]\d\d:\d\d:\d\d(?:[.,]\d+)?")
# a tqdm bar's line: `Loading safetensors checkpoint shards:  43% Completed | 3/7`, `Capturing CUDA graphs: 12%|`
_PROGRESS = re.compile(r"^(?P<label>.*?[A-Za-z][^:%]*):\s+(?P<pct>\d{1,3})%")


def oldest_first(lines: Iterable[tuple[int, str, int]]) -> Iterator[tuple[int, str, int]]:
    """(line number, text, why) in the order the server wrote them: an export from Grafana, Loki or Kibana lists
    the newest line first, which turns every traceback upside down. When the timestamps of a paste of at most
    REVERSE_MAX_LINES lines (and SAMPLE_BYTES of text) mostly go backwards (three or more steps back, four times as
    many as forward), its lines are read last to first, keeping their line numbers; a longer log is read as it is.
    A progress bar's steps count as the timestamps' do: its percentage falls, line after line, only in an export
    turned upside down."""
    it = iter(lines)
    head, ended = _head(it, REVERSE_MAX_LINES + 1)
    if not ended:
        yield from head
        yield from it
        return
    back = forward = 0
    last = None
    bars: dict[str, int] = {}
    for _, text, _ in head:
        bar = _PROGRESS.search(text, 0, 160) if "%" in text else None
        if bar:  # a progress bar's percentage climbs in the order written (one bar per label and prefix)
            label = _STAMP.sub("", bar.group("label"))
            done, was = int(bar.group("pct")), bars.get(label)
            if was is not None and done != was:
                back, forward = (back + 1, forward) if done < was else (back, forward + 1)
            bars[label] = done
        m = _STAMP.search(text, 0, 64)
        if m is None:
            continue
        stamp = m.group(0).replace("T", " ")
        if last is not None and len(stamp) == len(last) and stamp != last:
            if stamp < last:
                back += 1
            else:
                forward += 1
        last = stamp
    if back >= 3 and back > 4 * forward or _carets_lead(head):
        yield from reversed(head)
    else:
        yield from head


# Python's marks under the part of a code line that failed (3.11+), at the end of a line whatever its prefix
_CARET_END = re.compile(r"\s[\^~]{3,}\s*$")
_FRAME_LINE = re.compile(r'File "[^"]*", line \d+')


def _carets_lead(head: list[tuple[int, str, int]]) -> bool:
    """A traceback whose lines are upside down: Python prints its carets under the code line they mark, so in the
    order written a code line (indented under its frame) comes right before each caret line; a newest-first export
    puts it right after. A traceback logged within one second leaves the timestamps nothing to say; its carets do."""
    carets = [bool(_CARET_END.search(text)) for _, text, _ in head]
    if sum(carets) < 2:
        return False
    under = above = 0
    for i in range(len(head) - 1):
        if carets[i + 1] and not carets[i] and _code_line(head[i][1]):
            under += 1
        if carets[i] and not carets[i + 1] and _code_line(head[i + 1][1]):
            above += 1
    return above >= 2 and under == 0 or above >= 3 and above > 4 * under


def _code_line(line: str) -> bool:
    """A traceback's code line: indented under its frame, not a frame line (callers rule out caret lines)."""
    text = peel(line)[1] if not line.startswith(" ") else line
    return text.startswith("    ") and not _FRAME_LINE.search(text)
