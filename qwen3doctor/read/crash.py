"""One pass per process stream: Python tracebacks (with chained causes) and standalone crash lines.

Feed it (line number, process, text) in log order; `finish()` returns the crashes, primary first. Each
process has its own open traceback, so interleaved ranks are reassembled whole. Lines with no process tag
continue the stream of the last tagged line (SGLang tags only a traceback's first line).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import re

from .phases import IMPORTING, STEP_FUNCTIONS, phase_of_frames
from .prefixes import peel_record
from .. import vocab
from ..model import HANG, Crash, Frame

MAX_FRAMES = 160  # kept per traceback: the deepest ones, where the crash is
MAX_CRASHES = 400  # distinct crashes kept per log
MAX_MESSAGE = 2000  # characters kept of one message
MAX_CONTINUATION = 12  # lines of a multi-line exception message

_TB_HEAD = re.compile(r"Traceback \(most(?: r(?:e(?:c(?:e(?:n(?:t(?: c(?:a(?:l(?:l(?: l(?:a(?:s(?:t)?)?)?)?)?)?)?)?)?)?)?)?)?)?\)?:?\s*$")
# `, in f` (a traceback) and ` in f` (faulthandler's dump)
_FRAME = re.compile(r'^\s*(?:File\s+")?(?P<file>[^"]*)",\s+line\s+(?P<line>\d+)(?:,?\s+in\s+(?P<func>[^\s(]+))?')


def _unquoted(args: str, exc_type: str) -> str:
    """The message of an exception printed as its constructor call (`AssertionError("Mismatched type ...")`): one
    string argument loses its quotes, as `Type: message` prints it; several arguments stay as they were printed, and
    so does a KeyError's (its message is the key's repr, quotes and all)."""
    if not exc_type.endswith("KeyError") and len(args) >= 2 and args[0] == args[-1] and args[0] in "'\"" and args[0] not in args[1:-1]:
        return args[1:-1]
    return args


def _posix(file: str) -> str:
    """A frame's path with forward slashes: an engine built for Windows prints `C:\\...\\site-packages\\vllm\\...`, and
    every reading of a path (the engine's files, the model file, a platform port's files) looks for `/vllm/`."""
    return file.replace("\\", "/") if "\\" in file else file


# a frame whose line number a tool or the reporter left out: `File "/x/nixl/conn.py", in _init_hetero_tp_prep_handle`
_FRAME_NO_LINE = re.compile(r'^\s*File\s+"(?P<file>[^"]+)",\s+in\s+(?P<func>[A-Za-z_<][\w<>.]*)\s*$')
# IPython's / Jupyter's frame: `File ~/env/lib/python3.12/site-packages/litellm/utils.py:1775, in client.<locals>.wrapper(...)`
FRAME_IPYTHON = re.compile(r"^\s*File (?P<file>[~/][^:\s]*\.py):(?P<line>\d+), in (?P<func>[A-Za-z_<][\w<>.]*)")
# the numbered source lines IPython / Jupyter prints under such a frame (`   1117         ), f"{...} does not support"`,
# `-> 1113     self.model = ...`, `---> 14     return ...`): code, never what the crash said
IPYTHON_CODE_LINE = re.compile(r"^\s*(?:-*>\s*)?\d+(?:\s|$)")
# a frame whose path lost its quotes (a page's markdown, a log shipper): `File /x/vllm/v1/engine/core.py, line 701, in f`
_FRAME_BARE = re.compile(r"^\s*File\s+(?P<file>[^\s\",]+\.pyx?),\s+line\s+(?P<line>\d+)(?:,?\s+in\s+(?P<func>[^\s(]+))?")
# a frame line hard-wrapped by a web page or a terminal: the path cut before its closing quote, or `, in` at the end
_FRAME_CUT_PATH = re.compile(r'^\s*File\s+"[^"]*$')
# a compact frame, as tools and reporters summarise a traceback: `sglang/srt/layers/x.py:1741` over its code line, or
# a call chain `  -> utils/deep_gemm.py:494  transform_sf_into_required_layout` (a path with a directory, or a function)
_FRAME_COMPACT = re.compile(
    r"^\s*(?:->\s*)?(?:(?P<file>(?:[\w.-]+/)+[\w.-]+\.py):(?P<line>\d+)(?:\s+(?:in\s+)?(?P<func>[A-Za-z_<][\w<>.]*))?"
    r"|(?P<short>[\w.-]+\.py):(?P<sline>\d+)\s+(?:in\s+)?(?P<sfunc>[A-Za-z_<][\w<>.]*))\s*$"
)
_ARROW = re.compile(r"^\s*->\s*(?P<func>[A-Za-z_]\w*)\s*$")
# a type whose dotted path a reporter elided (`cutlass._mlir...MLIRError: ...`)
_ELIDED = re.compile(r"(?<=\w)\.{2,}(?=\w)")
_FRAME_CUT_FUNC = re.compile(r'",\s+line\s+\d+(?:,?\s+in\s*|,\s*)$|^\s*File\s+"[^"]+",$|",\s+line\s*$')
# a wrapped frame line that stops right before its function's name, and what a function name looks like
_AWAITS_FUNC = re.compile(r'",\s+line\s+\d+,?\s+in\s*$')
_FUNC_NAME = re.compile(r"^[A-Za-z_<][\w<>.]*$")
# the rest of a frame line wrapped inside or right after its line number (`File "/x/b.py", line 4` / `9, in h`)
_NUMBER_REST = re.compile(r"^(?P<digits>\d*),\s+in\s+(?P<func>[A-Za-z_<][\w<>.]*)\s*$")
# a CUDA kernel assert whose file and kernel a console put on a line of their own:
# `/pytorch/.../Indexing.cu:1515: indexSelectSmallIndex:` then `block: [16,0,0], thread: [64,0,0] Assertion ...`
_KERNEL_HEAD = re.compile(r"^\S+\.cuh?:\d+: \w+:$")
# an engine's error line that gives the exception's text and then logs its traceback (SGLang's tokenizer manager:
# `Error in request: <message>`, then `Traceback (most recent call last):`)
_LEAD = re.compile(r"\b(?:Error|Exception) (?:in|while|during|when) [\w ]{2,40}?: (?P<msg>\S.{3,})$")
# the logging call's own account of a failure, not the exception's message: it names the failure in words of its
# own (`An error occurred in ... while applying chat template`, `Invocation of add_lora method failed`, `Error trying
# to handle streaming tool call.`, `StageEngineCoreProc failed to start.`) or ends where its detail would follow
_NARRATION = re.compile(r"\b(?:fail(?:s|ed|ure)?|errors?|exceptions?|fatal|crash(?:ed)?)\b|:\s*$", re.I)
# a command line or a flag pasted under a crash line: never the next line of its message
_COMMAND = re.compile(r"^(?:--[a-z][\w-]*(?:[ =]|$)|\$ |(?:[A-Z][A-Z0-9_]*=\S*\s+)*(?:python3?|vllm|sglang|torchrun|docker|uv|"
                      r"CUDA_VISIBLE_DEVICES=\S*)\s)")
# a call tree's or a profiler's line under an exception (`ExpertLocationMetadata._init_raw (expert_location.py:211)`):
# what the paste shows next, never the rest of the message
_CALL_TREE = re.compile(r"[\w.<>]+ \([\w./-]+\.py:\d+\)$")
# faulthandler's header: its frames follow most recent first
_FAULT_HEAD = re.compile(r"^(?:Current thread|Thread) 0x[0-9a-fA-F]+ \(most recent call first\):")
# faulthandler's watchdog (`dump_traceback_later`) firing: the thread stacks it dumps next are a hang's
_FAULT_TIMEOUT = re.compile(r"^Timeout \(\d+:\d\d:\d\d(?:\.\d+)?\)!$")
# the shell's notice that the process died of a signal (`Segmentation fault (core dumped)`, bash's `line 1: 4711
# Aborted (core dumped) python ...`): under an exception line, the process's end, never more of that message
_DEATH = re.compile(r"^(?:\S+: line \d+: +\d+ +)?(?:Segmentation fault|Aborted|Bus error|Illegal instruction|"
                    r"Floating point exception)(?: +\(core dumped\))?(?: +\S.*)?$")
# py-spy's dump of a live process (`py-spy dump --pid N`, what a hang report pastes): a thread's header, then its
# frames most recent call first (`    gdn_prefill (flashinfer/gdn_prefill.py:63)`; a qualified name on newer Pythons,
# `Scheduler.event_loop`), with `--native` the native ones (`    cudaStreamSynchronize (libcudart.so.12)`), with
# `--locals` each frame's arguments and locals indented under it. A thread the dump calls active is running, and in
# a hung server that is where it is stuck; an idle one waits on a lock or a socket and says nothing of a crash.
# (the thread's id may be redacted or left out by the paster: `Thread <pid> (active)`, `Thread (active+gil)`)
_PYSPY_HEAD = re.compile(r'^Thread(?: \S+)? \((?P<state>active|idle)(?:\+gil)?\)(?:: "[^"]*")?$')
_PYSPY_FRAME = re.compile(r"^\s+(?P<func>[A-Za-z_<][\w<>.]*) \((?P<file>[^()\s:]+\.pyx?|<\w+>):(?P<line>\d+)\)\s*$")
# pybind11's stack of a Python exception it passed through C++: `At:`, then `  /x/model.py(301): _run_llm_engine`
PYBIND_AT = "At:"
_PYBIND_FRAME = re.compile(r"^\s+(?P<file>[^\s()]+\.pyx?)\((?P<line>\d+)\): (?P<func>[A-Za-z_<][\w<>.]*)\s*$")
_PYSPY_NATIVE = re.compile(r"^\s+(?P<name>\S.*?) \((?P<lib>[\w.+-]+\.so[\w.]*)\)\s*$")
# native frames: a C++ backtrace (`frame #3: void ns::kernel<...>(...) + 0x1a`), cuda-gdb (`#0  0x... in kernel<...>`),
# compute-sanitizer (`=========     at 0x1b0 in file.cu:88:void ns::kernel(...)` or `at void ns::kernel(...)+0x1a`)
_NATIVE = re.compile(
    r"^(?:frame #\d+:\s+(?:0x[0-9a-fA-F]+\s+in\s+)?|#\d+\s+0x[0-9a-fA-F]+\s+in\s+|=+\s+at\s+(?:0x[0-9a-fA-F]+\s+in\s+\S+?:\d+:)?|"
    # cuda-gdb's line where it stopped: `0x00007ffd2e4a1c40 in fused_moe_kernel<<<(1024,1,1),(128,1,1)>>> ()`
    r"0x[0-9a-fA-F]+\s+in\s+(?=[\w:]+(?:<[^()]*?>)?<<<)|"
    # UCX's backtrace under `Caught signal N`: ` 4  /path/fused_moe_trtllm_sm100.so(_ZN3moe3dev7routing...+0x1b2) [0x7d..]`
    r"\d+\s+/\S+?\.so[\w.]*\((?=[A-Za-z_])|"
    # TensorRT-LLM's backtrace under its `[TensorRT-LLM][ERROR] Assertion failed: ...` (glibc backtrace_symbols, demangled):
    # `3       0x7fac7b14ab11 tensorrt_llm::kernels::trtllmGenFp8BlockScaleMoe::PermuteGemm1::Runner::run(void*, ...) + 241`
    r"\d+\s+0x[0-9a-fA-F]+\s+(?=[A-Za-z_]))"
    r"(?:void\s+|\w+\s+(?=[\w:]+[<(]))?(?P<name>[A-Za-z_][\w:]*(?:<[^()]*?>)?(?:::[A-Za-z_~]\w*)*)"
)
# a line of the same backtrace that names only its library (`2       0x7fac7ac7f699 /usr/lib/libtensorrt_llm.so(+0x1d5e699)
# [0x7fac7ac7f699]`): part of the native stack, no function and no message
_NATIVE_NAMELESS = re.compile(r"^\d+\s+0x[0-9a-fA-F]+\s+(?:/\S+?\.so[\w.]*\(\+0x[0-9a-fA-F]+\)|\?\?)")
# CUDA's advice names the error even when the error line itself was not pasted
_CUDA_ADVICE = re.compile(r"Search for `(cudaError\w+)'")
CUDA_ERRORS = {
    "cudaErrorIllegalAddress": "an illegal memory access was encountered",
    "cudaErrorLaunchFailure": "unspecified launch failure",
    "cudaErrorAssert": "device-side assert triggered",
    "cudaErrorNoKernelImageForDevice": "no kernel image is available for execution on the device",
    "cudaErrorMemoryAllocation": "out of memory",
    "cudaErrorIllegalInstruction": "an illegal instruction was encountered",
    "cudaErrorMisalignedAddress": "misaligned address",
    "cudaErrorInvalidValue": "invalid argument",
    "cudaErrorLaunchOutOfResources": "too many resources requested for launch",
    "cudaErrorStreamCaptureUnsupported": "operation not permitted when stream is capturing",
    "cudaErrorStreamCaptureInvalidated": "operation failed due to a previous error during capture",
    "cudaErrorStreamCaptureUnjoined": "capturing stream has unjoined work",
    "cudaErrorNotSupported": "operation not supported",
    "cudaErrorPeerAccessUnsupported": "peer access is not supported between these two devices",
}
# an engine's dump of the scheduled batch: it prints this only when the step that ran the batch died
_BATCH_DUMP = re.compile(r"Dumping (?:scheduler output|scheduler stats|input data)|scheduled_spec_decode_tokens=|SchedulerOutput\(")
# SGLang's numbered advice under "Capture cuda graph failed: ..." (cuda_graph_runner): a paste that kept the advice
# and lost the exception line above it is a capture failure whose message is unknown
_CAPTURE_ADVICE = re.compile(r"^\d\.\s+(?:disable (?:cuda|CUDA) graph by --disable-cuda-graph|set --cuda-graph-max-bs to a "
                             r"smaller value|disable torch compile by not using --enable-torch-compile)")
CAPTURE_FAILED = "Capture cuda graph failed:"
# a module-qualified exception class, whatever its name (`torch._dynamo.exc.Unsupported`, `triton.runtime.errors.
# OutOfResources`): an exception wherever a bare name would need Error or Exception in it to count
_QUALIFIED_TYPE = r"(?:[a-z_]\w*\.){2,}[A-Z]\w*"
# an exception named inside a wrapper's message: `Error in model execution: ValueError: ...`, `Scheduler hit an
# exception: torch._dynamo.exc.Unsupported: ...`
_EMBEDDED = re.compile(rf"(?:^|[\s:'\"(])(?P<type>(?:[A-Za-z_]\w*\.)*[A-Z]\w*(?:Error|Exception)|{_QUALIFIED_TYPE})"
                       r"(?::\s?|\(['\"])(?P<msg>\S.*)$")
# exception types that are usually raised without a message (an `assert` with no text)
_BARE_TYPES = {"AssertionError", "StopIteration", "KeyboardInterrupt", "SystemExit", "NotImplementedError",
               "CancelledError", "asyncio.CancelledError", "EOFError", "TimeoutError", "asyncio.TimeoutError",
               "asyncio.exceptions.TimeoutError", "asyncio.exceptions.CancelledError"}
# in a traceback, a dotted CapWords name is an exception line even without Error in it
# (triton.runtime.errors.OutOfResources, torch._dynamo.exc.Unsupported)
_DOTTED_TYPE = re.compile(r"^(?:[a-z_]\w*\.)+[A-Z]\w*$")
CARET = re.compile(r"^\s*[\^~\s]+$")
_EXC = re.compile(
    # (not a C++ signature from a native frame cut at the line's start: `r::Error(c10::SourceLocation, std::...)`)
    # (a class defined inside a function is named through it: `cutlass._mlir._mlir_libs._site_initialize.<locals>.MLIRError`)
    r"^(?![\w:]*::\w+\((?:c10|std|at|torch|const)\b)(?P<type>(?:[A-Za-z_][A-Za-z0-9_]*(?:\.|::)|<locals>\.)*[A-Za-z_][A-Za-z0-9_]*)"
    # (Ray names the exception it wraps in brackets: `ray.exceptions.RayTaskError(RuntimeError): ray::Actor.f()`)
    # (and an exception printed with its constructor's arguments: `KVTransferError(bootstrap_room=165): Failed ...`)
    r"(?:\((?P<inner>[A-Z]\w*|\w+=[^()]*)\)(?=:))?(?:(?::\s?|\()(?P<msg>.*))?$"
)
# (pynvml makes a class per NVML return code: `pynvml.NVMLError_LibRmVersionMismatch`, `NVMLError_DriverNotLoaded`)
_EXC_NAME = re.compile(r"(?:Error|Exception|Exit|Interrupt|Failure|Fault|Abort|Aborted|Timeout|Iteration)$|^NVMLError_[A-Z]\w*$")
# advice lines torch prints under every CUDA error: not part of what went wrong
BOILERPLATE = re.compile(
    r"^(?:Search for `(?:cuda|hip)\w+'|(?:CUDA|HIP) kernel errors might be asynchronously|For debugging consider passing|"
    r"Compile with `?TORCH_USE_(?:CUDA|HIP)_DSA|Device-side assertions? (?:were|was) explicitly omitted|"
    r"Exception raised from |frame #\d+:|To work around this error|Please report this issue|"
    # UCX's backtrace header and its frames without a symbol (` 1  /opt/hpcx/ucx/lib/libucs.so.0(+0x3684c) [0x7d..]`)
    r"=+ backtrace \(tid:|\d+\s+/\S+?\.so[\w.]*\(\+0x)"
)
# a process tag cut where the paste stops (`(EngineCore_DP0 pi`, `(Worker_TP4 pid=13`): no text of the message above it
_TAG_STUB = re.compile(r"\([A-Z]\w*(?: (?:p(?:id?)?(?:=\d*)?)?)?")
# a line that is its own log record, never the continuation of an exception message (`Process EngineCore_DP0:` is
# multiprocessing's header over a dying child's traceback; `<frozen runpy>:128: RuntimeWarning: ...` a Python warning)
_LOG_RECORD = re.compile(r"(?:DEBUG|INFO|WARNING|ERROR|CRITICAL)\s*:|"
                         # a logger, its line and a quiet level (Xinference: `xinference.core.progress_tracker 71 DEBUG ...`,
                         # its asctime already peeled; at ERROR it may be the record that reports the same exception)
                         r"[a-z_][\w.]* \d+ (?:DEBUG|INFO|WARNING)\s|"
                         # a level and a logger (Rust's tracing: `ERROR sglang_router_rs::routers::http::pd_router: ...`;
                         # Python's `%(asctime)s %(levelname)s %(name)s: ...`, its time peeled: `INFO crawl.runner: ...`)
                         r"(?:TRACE|DEBUG|INFO|WARN|WARNING|ERROR|CRITICAL) +\w+(?:::\w+)+:|(?:DEBUG|INFO|WARNING) +[a-z_]\w*(?:\.\w+)*: |"
                         # a quiet level and its source file and line (`%(levelname)-5s %(filename)s:%(lineno)d  ...`,
                         # its time peeled: `INFO  rollout.py:141  released 1 GPU(s) back to the pool`)
                         r"(?:DEBUG|INFO|WARNING) +[\w.-]+\.py:\d+ |-{8,}$|[a-z_]+:$|(?:\(\S+\) )?\S+@[\w.<>-]+:\S*[#$](?: |$)|\[[^\s@\]]+@[\w.-]+ [^\]]*\][#$](?: |$)|\$(?: |$)|\[?[WEIF]\d{3,4} \d\d:\d\d:\d\d[\d.]* |(?:<[\w ]+>|\S+):\d+: [A-Z]\w*Warning: |Process [\w-]+:$|\S+ exited with code \d+|\S+:\d+ - \"(?:GET|POST|PUT|DELETE) |Received request |Added request "
                         # a frame of a one-line-per-call trace (`vllm/v1/engine/core.py:693 -> run_busy_loop()`)
                         r"|\S+\.py:\d+ -> \S"
                         # a compiler's quote of the source under its error (`18 | #include <x.h>`, `   | ^~~`)
                         r"|\d+ \| |\| +\^|#\s*include\b|compilation terminated\.|ninja: build stopped"
                         # a progress bar, an environment listing's package line
                         r"|[^|]{0,80}?\b\d{1,3}%(?: Completed)? ?\||\[(?:pip3?|conda)\] |[A-Za-z][\w.-]*\s{3,}v?\d+(?:\.\w+)+(?:\+[\w.]+)?(?:\s+/\S*)?\s*$"
                         # an environment listing (collect_env) pasted under a title that ends in an exception name
                         r"|(?:vLLM Version|PyTorch version|CUDA runtime version|GPU \d+:|GPU models|Nvidia driver version|"
                         r"Python version|Is CUDA available|Libc version|OS)\s*:"
                         # a reporter's own note under the error: the model (`Model: Qwen/Qwen3.5-397B-A17B`, or its bare
                         # name on a line), the GPU, the engine release
                         r"|(?:Model(?: name| path)?|GPUs?|Hardware|[Vv]LLM version|SGLang version|[Ss]glang version)\s*:"
                         r"|(?:[\w.-]+/)?(?i:qwen)[\w.-]*\s*$"
                         # a question of the reporter's or of an issue template's (`What LiteLLM version are you on ?`)
                         r"|(?:What|Which|How|Why|Does|Did|Can|Could|Should|Any idea)\b[^.:]{0,80}\?"
                         # the next field of a pretty-printed JSON object, or its end (`"param": null,`, `}`)
                         r'|"[\w.-]+"\s*:\s|[}\]][,;]?$')
ADVICE = re.compile(r"^(?:Possible solutions|Possible solution|Please (?:try|check|report|refer)|Hint:|Tip:)")
_CHAIN = re.compile(
    r"During handling of the above exception, another exception occurred|"
    r"The above exception was the direct cause of the following exception"
)

# a CANN (Ascend runtime) error record: `EH9999: ...`, `E39999[PID: 26762] ... (E39999): ...`
CANN_CODE = r"E[A-Z0-9]\d{4}"
CANN_RECORD = re.compile(rf"{CANN_CODE}(?:: |\[PID)")
# the CANN runtime's own lines about a failed device task: the faulting kernel (`Aicore kernel execute failed, device_id=4,
# ..., fault kernel_name=get_last_loc_kernel_0, ...`), the task's fault (`Kernel task happen error, retCode=0x31, [vector
# core exception].`, `AIV Kernel happen error, retCode=0x31.`), the runtime call that saw it (`rtStreamSynchronizeWithTimeout
# execute failed, reason=[vector core exception]`, `rtEventRecord execution failed, reason=aicore exception`) and its
# status (`synchronize stream failed, runtime result = 507035`). They follow a CANN record or a torch_npu error and
# continue its message; a paste cut below that record starts with them, and then they are the crash (sglang#10421)
CANN_RUNTIME = (r"(?i:ai(?:core|cpu)) kernel execute failed, .+|(?:(?:AICORE|AICPU|AIV|AIC) )?Kernel (?:task )?happen error, "
                r"retCode=.+|(?<![\w.])(?:rt|aclrt)[A-Z]\w+ execut(?:e|ion) failed, reason=.+|"
                r"(?<![\w-])[a-z][a-z ]{2,60} failed, runtime result = \d+.*")
CANN_RUNTIME_LINE = re.compile(CANN_RUNTIME)

# Crash lines that need no traceback around them: each shape with the literal words every line of that shape holds
# (the scanner keeps a line of a long log only when it holds one of them, and a line without any never reaches the
# shapes): a new shape is one entry here. A shape no literal can name (a qualified type, a CANN record code) is read
# where the scanner keeps the line for another reason (the log's head, a crash's context, a traceback's own words).
# a device or collective error line, alone or after a wrapper's phrase on the same line
# (torch_npu says `NPU out of memory. NPUWorkspaceAllocator tried to allocate ...` in a c10 record, no Python exception)
_DEVICE_ERROR = r"CUDA error(?: \([^)]*\))?: .+|HIP error: .+|CUDA out of memory.*|NPU out of memory.*|NCCL error(?: in\b|:).*"
_SHAPES: tuple[tuple[str, tuple[str, ...]], ...] = (
    (_DEVICE_ERROR, ("CUDA error", "HIP error: ", "CUDA out of memory", "NPU out of memory", "NCCL error")),
    (r"ncclSystemError.*|ncclInternalError.*|ncclUnhandledCudaError.*|ncclInvalidUsage.*", ("nccl",)),
    (r"terminate called after throwing an instance of .+", ("terminate called",)),
    # the same end in macOS's C++ runtime, and a Metal API check failing in a debug or validated build (Apple
    # silicon servers: `-[AGXG15XFamilyCommandBuffer ...]:1091: failed assertion `A command encoder is already ...'`)
    (r"libc\+\+abi: terminating.*", ("libc++abi: terminating",)),
    (r"^-\[\w+ [\w:]+\]:\d+: failed assertion `.+", ("failed assertion `",)),
    # zsh's job-control notice of a process that died of a signal (`zsh: segmentation fault  python -m vllm_mlx...`)
    (r"^zsh: (?:segmentation fault|abort|bus error|illegal hardware instruction)\b.*", ("zsh: ",)),
    (r"Fatal Python error: .+", ("Fatal Python",)),
    (r"Segmentation fault.*", ("Segmentation fault",)),
    # the container runtime refusing to start the server's container (the GPU could not be given to it):
    # `OCI runtime create failed: ... failed to inject CDI devices: unresolvable CDI devices nvidia.com/gpu=all`,
    # `could not select device driver "" with capabilities: [[gpu]]`
    (r"OCI runtime create failed: .+|could not select device driver .+ with capabilities: .+",
     ("OCI runtime create failed", "could not select device driver")),
    # a CUDA driver call's failure as a native library reports it (torch_memory_saver's
    # `[torch_memory_saver.cpp] CUresult error  result=1 file=... func=resume line=214`)
    (r"CUresult error\s+result=\d+.*", ("CUresult error",)),
    # TensorRT-LLM's C++ check (TLLM_CHECK, also compiled into FlashInfer's TRT-LLM kernels), over the native stack it
    # prints: `[TensorRT-LLM][ERROR] Assertion failed: Error occurred when running GEMM! (.../KernelRunner.cpp:180)`
    (r"\[TensorRT-LLM\]\[ERROR\] .+", ("[TensorRT-LLM][ERROR]",)),
    # SGLang's own segfault handler, over the native stack it prints most recent call first
    (r"!{3,} ?Segfault encountered ?!{3,}", ("Segfault encountered",)),
    # a Rust component's panic (SGLang's router / model gateway, a tokenizer binding): `thread 'x' panicked at src/f.rs:1:2:`
    (r"^thread '[^']*' panicked at \S+", ("panicked at",)),
    (r"HSA_STATUS_ERROR\w*.*", ("HSA_STATUS",)),
    # the ROCm runtime's report of a kernel that touched an unmapped address (the HIP counterpart of CUDA's illegal
    # memory access): it aborts the process, often with no Python traceback at all
    (r"Memory access fault by GPU node-\d+.*", ("Memory access fault",)),
    (r"Aborted \(core dumped\)", ("core dumped",)),
    # glibc's heap checks abort the process: a native library wrote out of bounds or freed twice
    (r"corrupted size vs\. prev_size.*|double free or corruption.*|(?:free|malloc|realloc|munmap_chunk|malloc_consolidate)"
     r"\(\): (?:invalid|corrupted|unaligned).*", ("corrupted size", "double free", "(): invalid", "(): corrupted",
                                                 "(): unaligned")),
    (r"(?:died|exited|terminated) (?:unexpectedly )?with (?:signal|exit ?code) .+", (" with signal", " with exit")),
    (r"received signal SIG\w+.*", ("received signal",)),
    # LLVM's abort in a compiler pass (Triton, CuTe DSL): `UNREACHABLE executed at .../HoistTMEMAlloc.cpp:418!`
    (r"UNREACHABLE executed at .+", ("UNREACHABLE executed",)),
    # UCX's signal handler (NIXL, Mooncake, Ray pull it in): `[host:pid:0:tid] Caught signal 8 (Floating point exception:
    # integer divide by zero)`, then its backtrace
    (r"Caught signal \d+ \(.+", ("Caught signal",)),
    (r"Killed$|(?<=\d )Killed\s+\S.*", ("Killed",)),
    (r"exitcode[=:] ?-\d+.*", ("exitcode",)),
    # glibc's assert (`x' failed) and a CUDA kernel's (`x` failed, or no quotes after its block / thread indices)
    (r"Assertion `.+['`] failed.*|(?<=\] )Assertion .+ failed\.?$|Assertion error .+", ("Assertion",)),
    # (glibc's own form, `prog: file.cpp:43: signature: Assertion `expr`, read even when the paste cuts it short)
    (r"^[\w.-]{1,40}: \S+\.(?:c|cc|cpp|cu|cuh|h|hpp):\d+: .{0,600}: Assertion `.+", ("Assertion",)),
    # the assert macros of DeepEP and DeepGEMM, and of kernels written after them (EP_DEVICE_ASSERT, DG_HOST_ASSERT):
    # a printf of `Assertion failed: <file>:<line>, condition: <expr>` before the trap or the C++ exception (a terminal
    # or a web page may wrap it after the comma, the condition on the next line)
    (r"Assertion failed: \S+\.(?:cu|cuh|c|cc|cpp|h|hpp):\d+,(?: ?condition: .+)?$", ("Assertion failed: ",)),
    # abseil's failure-signal handler, and cuBLAS / cuDNN failing to load a symbol of a mismatched library
    (r"\*\*\* SIG[A-Z]+ received at time=.*", (" received at time=",)),
    (r"Invalid handle\. Cannot load symbol \w+.*", ("Cannot load symbol",)),
    (r"Engine core initialization failed.*|EngineCore encountered an issue.*|Scheduler hit an exception.*|"
     r"WorkerProc hit an exception.*|WorkerProc failed to start.*|EngineCore failed to start.*|"
     r"Engine core proc \S+ died unexpectedly.*",
     ("initialization failed", "encountered an issue", "hit an exception", "failed to start", "died unexpectedly")),
    # Python's header over an exception that killed a thread (its traceback follows; a paste may stop at it)
    (r"^Exception in thread [\w.-]+.*", ("Exception in thread",)),
    # the kernel's record of a GPU fault (dmesg: NVIDIA's Xid, amdgpu's page fault), and CUDA's assembler refusing
    # an architecture it does not know (Triton on a GPU newer than its ptxas)
    (r"(?:NVRM: )?Xid (?:\(PCI:[^)]*\): )?\d+[,:] .*", ("Xid ",)),
    # (with or without the device's PCI address: `amdgpu 0000:07:00.0: [gfxhub] page fault (src_id:0 ring:24 ...)`)
    (r"amdgpu(?: [\da-fA-F]{4}:[\da-fA-F:.]+)?: \[\w+\] page fault.*", ("page fault",)),
    # (its status register, printed under the fault's header: a paste may keep only the lines below it)
    (r"amdgpu(?: [\da-fA-F]{4}:[\da-fA-F:.]+)?:(?: amdgpu:)?\s+VM_L2_PROTECTION_FAULT_STATUS:0x[0-9a-fA-F]+",
     ("VM_L2_PROTECTION_FAULT_STATUS",)),
    (r"ptxas fatal\s*: .+", ("ptxas fatal",)),
    # cuda-gdb / compute-sanitizer's report of a faulting warp
    (r"CUDA Exception: (?:Warp|Lane|Device) .+", ("CUDA Exception: ",)),
    # native libraries stopping the process with their own fatal line: glog / abseil's CHECK (`F1120 ... paged.cu:88]
    # Check failed: head_size == 128 (256 vs. 128)`), UCX (`parser.c:2036 UCX  FATAL: UCX library was compiled with
    # avx but CPU does not support it`), NVSHMEM's status checks (`/src/host/init/init.cu:989: non-zero status: 7 nvshmem
    # detect topo failed`, `NVSHMEM API called before NVSHMEM initialization has completed`), Intel's compute runtime
    # (`Abort was called at 256 line in file:` over its drm_neo.cpp), the Neuron compiler (`[INTERNAL_ERROR]
    # [NCC_INLA001] Unhandled exception ...`) and an Objective-C runtime's uncaught exception (Metal on macOS)
    (r"(?<![\w])Check failed: .+", ("Check failed: ",)),
    (r"\bUCX +FATAL:? .+", ("UCX  FATAL", "UCX FATAL")),
    (r"\S+\.(?:c|cc|cpp|cu|cuh|h|hpp):(?:\w+:)?\d+: non-zero status: \d+.*|NVSHMEM API called before NVSHMEM "
     r"initialization has completed.*|aborting due to error in nvshmemi?_\w+.*",
     (": non-zero status: ", "NVSHMEM API called before", "aborting due to error in nvshmem")),
    (r"Abort was called at \d+ line in file:.*", ("Abort was called at",)),
    (r"(?:\[(?:INTERNAL_ERROR|ERROR|FATAL)\] )?\[NCC_[A-Z]+\d+\] .+", ("[NCC_",)),
    (r"Terminating app due to uncaught exception '\w+', reason: .+", ("Terminating app due to uncaught exception",)),
    # one error of a pydantic ValidationError (vLLM's config checks): `Value error, <message> [type=value_error, ...]`
    (r"^Value error, .+", ("Value error, ",)),
    # LLVM aborting inside Triton's compiler; vLLM's custom all-reduce CUDACHECK (`Failed: Cuda error <file>:<line> '...'`)
    (r"LLVM ERROR: .+", ("LLVM ERROR: ",)),
    (r"^Failed: Cuda error .+", ("Failed: Cuda error ",)),
    # ROCm's BLAS libraries refusing to work (`rocBLAS error: Cannot read .../TensileLibrary.dat: No such file or
    # directory for GPU arch : gfx1151`, `rocblaslt error: Could not load .../TensileLibrary_lazy_gfx942.dat`)
    (r"^(?:rocBLAS|rocblas|rocblaslt|hipBLASLt|hipblaslt) error: .+",
     ("rocBLAS error: ", "rocblas error: ", "rocblaslt error: ", "hipBLASLt error: ", "hipblaslt error: ")),
    # a C / CUDA compiler stopping on a header it cannot find (a JIT build: FlashInfer, Triton's launcher, DeepGEMM)
    (r"(?<=: )fatal error: [\w./-]+\.(?:h|hpp|cuh|hxx): No such file or directory|"
     r"^fatal error: [\w./-]+\.(?:h|hpp|cuh|hxx): No such file or directory", ("fatal error: ",)),
    # gcc's / nvcc's last word after a fatal error (the header line above it may be cut from the paste)
    (r"^compilation terminated\.$", ("compilation terminated",)),
    # nvcc's first error (`kernel.cu(112): error: ...`) and its summary of a failed compilation (a JIT build)
    (r"^\S+\.(?:cu|cuh|cpp|cc|c|h|hpp)\(\d+\): error: .+", ("): error: ",)),
    (r"^\d+ errors? detected in the compilation of \".+", (" detected in the compilation of ",)),
    (rf"^{vocab.ARGPARSE_ERROR}(?:argument |unrecognized arguments|the following arguments are required|invalid choice).+",
     (": error: ",)),
    # a TypeError's message about a call's signature, printed or quoted without its type (`get_global_dp_buffer()
    # missing 1 required positional argument: "group"`): code written for another release of what it calls
    (r"^[A-Za-z_][\w.]*\(\) (?:missing \d+ required (?:positional|keyword-only) arguments?: .+|got an unexpected "
     r"keyword argument .+|takes (?:from \d+ to )?\d+ positional arguments? but \d+ (?:were|was) given)$",
     ("() missing ", "() got an unexpected keyword argument", "() takes ")),
    # a ModuleNotFoundError's message printed alone by a launcher that caught it (GPUStack's runner)
    (r"^No module named '[\w.]+'$", ("No module named '",)),
    # the dynamic loader's refusal printed alone, its ImportError type left off by the paste or the launcher
    # (`/x/site-packages/flash_attn_2_cuda.cpython-310-x86_64-linux-gnu.so: undefined symbol: _ZN2at...`)
    (r"^/\S+\.so(?:\.\d+)*: undefined symbol: \S+$", ("undefined symbol: ",)),
    # a shell refusing a compiler or build tool a JIT build runs (`/bin/sh: 1: /usr/local/cuda/bin/nvcc: not found`);
    # any other missing command (`nvidia-smi`, `py-spy` in a container) is no crash of its own
    (r"^/bin/(?:ba|da)?sh: (?:\d+: |line \d+: )?\S*\b(?:nvcc|ptxas|ninja|cmake|gcc|g\+\+|c\+\+|cc|clang|hipcc): "
     r"(?:command )?not found$", ("/bin/sh: ", "/bin/bash: ", "/bin/dash: ")),
    (r"EngineCore encountered a fatal error.*", ("encountered a fatal error",)),
    (r"Process group watchdog thread terminated with exception: .+", ("watchdog thread terminated",)),
    # the Ascend runtime's report of an AI Core / vector core fault (the NPU's own crash line), and a CANN error
    # record (`EH9999: [PID: 56178] ... failed, runtime result = 507018.[FUNC:ReportCallError][FILE:...]`)
    (r"The error from device\(chipId:\d+.*", ("The error from device(",)),
    (rf"(?<![\w-]){CANN_CODE}(?:: |\[PID: ).+", ()),
    (CANN_RUNTIME, ("kernel execute failed", "happen error, retCode=", "failed, reason=", "failed, runtime result = ")),
    # Kunlun's XPU runtime on a kernel fault (vLLM-Kunlun): `[RUNTIME ERROR] 714 (Exception in kernel execution)`, over
    # its channel check's `kl3ChannelCheckErrors A kernel exception has occurred, please check dmesg for details.`
    (r"\[RUNTIME ERROR\] \d+ \(.+", ("[RUNTIME ERROR] ",)),
    (r"(?<=kl3ChannelCheckErrors )A kernel exception has occurred.*", ("A kernel exception has occurred",)),
    # pynvml's error, one class per NVML return code (`pynvml.NVMLError_LibRmVersionMismatch: RM has detected ...`)
    (r"^(?:pynvml\.)?NVMLError_[A-Z]\w*: .+", ("NVMLError_",)),
    # torch_npu's report of a failed ACL call outside a Python exception (`... NPUEvent.cpp:94 NPU function error:
    # aclrtQueryEventStatus`, from torch.distributed's watchdog)
    # (the watchdog's own record only: a RuntimeError quoting the same words is that exception's message)
    (r"Find exception when finished\w+, query:\S+ NPU function error: .+", ("NPU function error: ",)),
    (r"\[c10d\] recvValue failed.*", ("recvValue",)),
    (r"Watchdog caught collective operation timeout.*", ("Watchdog",)),
    # (not a C++ symbol of a native frame cut at the line's start: `r::Error(c10::SourceLocation, ...)`)
    (rf"^{_QUALIFIED_TYPE}: .+", ()),
    # an exception whose message starts on the next line (its str() begins with a newline): `pkg.mod.SomeError:` alone
    (rf"^(?:{_QUALIFIED_TYPE}|[A-Z]\w*(?:Error|Exception)):$", ("Error:", "Exception:")),
    (r"(?<!::)(?:RuntimeError|ValueError|AssertionError|KeyError|TypeError|AttributeError|ImportError|"
     r"ModuleNotFoundError|NotImplementedError|IndexError|OSError|Exception|"
     # (a type glued to a lowercase prefix is read whole: `nixl._bindings.nixlNotFoundError`, not `NotFoundError`)
     # (an exception's name is ASCII: a sentence in another script glued in front is not part of it, `报错ValueError`)
     r"torch\.\w*(?:Error|Exception)|(?<![A-Za-z0-9_])[A-Z][A-Za-z0-9_]*Error|(?<![A-Za-z0-9_])[a-z][a-z0-9]*[A-Z][A-Za-z0-9_]*Error)"
     r"(?:: .*|\(.*)?$", ("Error:", "Error(", "Error\n", "Error\r", "Exception:", "Exception(", "Exception\n",
                          "Exception\r")),
)
_STANDALONE = re.compile("(?P<m>" + "|".join(shape for shape, _ in _SHAPES) + ")")
# the literal words of every shape, for the scanner's prefilter (scanner.CRASH_ANCHORS) and the quick test below
SHAPE_WORDS = tuple(dict.fromkeys(word for _, words in _SHAPES for word in words))
# a line worth reading closely: a traceback's own words, a shape's words (SHAPE_WORDS), and marks of what may follow
_QUICK = re.compile(
    r"Error|error|xception|Traceback|File |line \d|Fatal|fault|Abort|terminate|signal|failed|During handling|"
    r"above exception|NCCL|HSA_|what\(\)|recent call first|\((?:active|idle)(?:\+gil)?\)|^frame #|NVRM|amdgpu|ptxas|^#\d|^0x[0-9a-fA-F]+ in \S+<<<|^=+ |Dumping |scheduled_|"
    rf"SchedulerOutput|^raise |SIG[A-Z]+ received|by --disable-cuda-graph|^{_QUALIFIED_TYPE}: |\.py:\d+(?:\s+\S+)?\s*$|"
    rf"\.cuh?:\d+: \w+:$|^{CANN_CODE}(?:: |\[PID)|" + "|".join(re.escape(word) for word in SHAPE_WORDS)
)

# vLLM's model inspection child exiting non-zero: a wrapper over the child's own traceback (WRAPPER_PATTERNS, _is_wrapper_tb)
INSPECTION_EXIT = r"CalledProcessError: Command .*'vllm\.model_executor\.models\.registry'\]' returned non-zero exit status"
WRAPPER_PATTERNS = re.compile(
    r"Engine core initialization failed|EngineDeadError|EngineCore encountered an issue|EngineCore encountered a fatal error|"
    r"EngineCore failed to start|"
    r"EngineGenerateError|Engine process failed to start|Worker failed with error|"
    r"WorkerProc (?:hit an exception|failed to start)|Scheduler hit an exception|"
    r"See root cause above|See stack trace \(above\)|(?:Worker|Engine core) proc \S+ died unexpectedly|"
    r"Initialization failed\. warmup error|RPC call to \w+ failed|"
    r"ChildProcessError|BrokenProcessPool|Exception in worker \S+ while processing method|"
    r"AsyncLLM output_handler failed|Error raised in subprocess:?$|\bException in thread [\w.-]+|"
    # Hydra's report that the job (a verl / NeMo-RL trainer) died, printed right under the error it died of
    r"^Error executing job with overrides: |"
    # vLLM's model inspection runs `python -m vllm.model_executor.models.registry` and reports the child's exit status
    # before quoting its stderr ("Error raised in subprocess:"): the child's own traceback is the crash
    rf"{INSPECTION_EXIT}|"
    # Ray re-raises a task's or an actor's exception in its caller: `RayTaskError(RuntimeError): ray::Actor.f()`
    r"^(?:ray\.exceptions\.)?Ray(?:Task|Actor)Error\b"
)
CONSEQUENCE_PATTERNS = re.compile(
    r"TCPStore|recvValue failed|Connection was likely closed|Connection reset by peer|Broken pipe|"
    r"Watchdog caught collective operation timeout|ProcessGroupNCCL.*(?:abort|timeout|Timeout)|"
    r"heartbeat monitor|SIGQUIT received|Child process unexpectedly failed|"
    r"Rank \d+ scheduler is dead|exit code -?\d+ unexpectedly|CancelledError|"
    r"Killing process group|shutdown\(\) called|Received signal \d+|is dead\. Please check|"
    # vLLM's shared-memory queue gives up on a reader whose peer died: what it raises is a symptom
    r"^RuntimeError: cancelled\b"
)

_TENSOR_KIND = r"(?:weight|scale|g_idx|qweight|qzeros|bias)"  # how a checkpoint tensor's name ends
CLASSES: tuple[tuple[str, str], ...] = (
    ("illegal-memory-access", r"illegal memory access|cudaErrorIllegalAddress|illegal address|HSA_STATUS_ERROR_EXCEPTION|memory aperture violation|Memory access fault by GPU node|"
                              r"Xid (?:\(PCI:[^)]*\): )?31[,:]|MMU Fault|amdgpu(?: [\da-fA-F]{4}:[\da-fA-F:.]+)?: \[\w+\] page fault|VM_L2_PROTECTION_FAULT_STATUS|Warp Illegal Address|Warp Out-of-range Address"),
    # glibc's assert in host code (`Allocation.cpp:43: ...: Assertion `...' failed.`), not a CUDA kernel's
    ("assertion", r"\.(?:c|cc|cpp|h|hpp):\d+: .*: Assertion `"),
    ("device-assert", r"device-side assert(?!ions)|cudaErrorAssert|Assertion `.+['`] failed|\] Assertion .+ failed|"
                      r"Assertion failed: \S+\.cuh?:\d+,"),
    ("no-kernel-image", r"no kernel image is available|invalid device function|not compiled for|sm_\d+ is not compatible|"
                        r"is not defined for option 'gpu-name'"),
    ("out-of-memory", r"out of memory|OutOfMemoryError|OOM|out of resource: shared memory|Not enough memory|runtime result = 207001\b|No available memory for the cache blocks|larger than the available KV cache memory"),
    # (the collective libraries and their watchdogs: NCCL, Ascend's HCCL, gloo; torch's process-group watchdog that
    # ends the process with `terminate called ...` is theirs, not a segfault)
    ("nccl", r"NCCL|nccl|HCCL|hccl|ProcessGroup|[Pp]rocess group watchdog|gloo|TCPStore|c10d"),
    ("launch-failure", r"launch failed|unspecified launch failure|cudaErrorLaunch"),
    ("segfault", r"Segmentation fault|Segfault encountered|SIGSEGV|SIGFPE|Floating point exception|Fatal Python error|core dumped|terminate called|corrupted size vs|"
                 r"libc\+\+abi: terminating|(?:^|^: )zsh: (?:segmentation fault|abort|bus error)|\]:\d+: failed assertion `|"
                 r"double free or corruption|\(\): (?:invalid|corrupted|unaligned)"),
    ("killed", r"(?:^|^: )Killed\b|SIGKILL|signal 9|exitcode[=:] ?-9"),
    # (a parameter's name: dotted, or ending in the tensor's kind; not a request field such as 'weight_version')
    ("weight-loading", rf"KeyError: '(?:[\w.]*\.[\w.]*{_TENSOR_KIND}|[\w.]*{_TENSOR_KIND}(?:_inv)?')|load_weights|params_dict"),
    # a JIT build stopped by the compiler (FlashInfer, DeepGEMM, Triton's launcher, torch's cpp_extension)
    ("build-failure", r"\.(?:cu|cuh|cpp|cc|c|h|hpp)(?:\(\d+\)|:\d+:\d+): (?:fatal )?error: |^fatal error: .*No such file|"
                      r"errors? detected in the compilation of|Ninja build failed|ninja: build stopped|Error building extension"),
    # the container runtime refusing the server's container (no GPU could be handed to it): the engine never ran
    ("container-runtime", r"OCI runtime create failed|could not select device driver|failed to inject CDI devices|"
                          r"CDI device injection failed|unresolvable CDI devices|"
                          r"nvidia-container-cli: "),
    # torch.compile refusing or failing to trace / compile the model (its `Unsupported` is no unsupported model)
    ("compile", r"torch\._dynamo\.exc\.|torch\._inductor\.exc\.|InductorError|BackendCompilerFailed"),
    # any other CUDA runtime or library status (`CUDA error: operation not supported on this OS` is the runtime's)
    ("cuda-error", r"CUDA error: |\bcudaError\w+|CUBLAS_STATUS_\w+|CUDNN_STATUS_\w+|CUresult error"),
    # (a refusal about a model, its architecture, checkpoint, quantization, dtype or the hardware it runs on; not any
    # "not supported": a tool-call parser's limit or Python's "object does not support item assignment")
    ("unsupported-model", r"^(?=.*(?:\b[Mm]odels?\b|[Aa]rchitecture|ForCausalLM|ForConditionalGeneration|model_type|checkpoint|"
                          r"[Qq]uantiz|dtype|\bGPU|[Dd]evice|[Pp]latform|[Bb]ackend|[Kk]ernel))"
                          r"(?!.*object does not support item assignment)"
                          # (a structured-output / grammar backend is a request setting, not the model's hardware)
                          r"(?!.*(?:structured[ _]output|guided[ _]decoding|grammar) backend)"
                          r".*(?:not supported|Unsupported|does not support|is not supported|not validated)"),
    # (an attribute a module or a class of another component lacks; not a None or a plain value that reached code
    # expecting an object)
    ("version-mismatch", r"unrecognized arguments|invalid choice: |No module named|cannot import name|ImportError|"
                         r"(?<!'NoneType' object )(?<!'int' object )(?<!'str' object )(?<!'list' object )(?<!'dict' object )"
                         r"(?<!'tuple' object )(?<!'float' object )(?<!'bool' object )(?<!'Tensor' object )has no attribute"),
    ("assertion", r"AssertionError|Assertion error|\.(?:cu|cuh):\d+: .*: Assertion `|Assertion failed: \S+:\d+,"),
    ("value-error", r"ValueError"),
)
_CLASS_RES = tuple((name, re.compile(p)) for name, p in CLASSES)


# a CANN error record, and what it carries besides the error: `[PID: 56178] 2025-07-30-06:16:22.730.302 `,
# `[FUNC:ReportCallError][FILE:log_inner.cpp][LINE:161]`
_CANN_SOURCE = r"\.?(?:\[(?:FUNC|FILE|LINE):[^\]]*\])+\s*$"
_CANN_NOISE = re.compile(rf"(?<=: )\[PID: \d+\] [\d:.-]+ |(?<=\d)\[PID: \d+\] [\d:.-]+ \({CANN_CODE}\):\s*|{_CANN_SOURCE}")
_CANN_SOURCE_RE = re.compile(_CANN_SOURCE)
# log levels of a record that reports what it caught and went on
QUIET_LEVELS = ("WARNING", "WARN", "INFO", "DEBUG")
# a glog record of a C / C++ / CUDA source file (prefixes.peel_record: `glog E tcp_transport.cpp:480`)
_NATIVE_RECORD = re.compile(r"glog [WEIFVD] \S+\.(?:cc|cpp|cxx|c|cu|cuh|h|hpp):\d+$")
# a native host's record that the Python code it embeds failed, and with what (Triton's python backend logs, at info
# level, `Failed to initialize Python stub: TypeError: ...` and then unloads the model): a Python exception, whatever
# the record's level
_EMBEDDED_PYTHON_FAILURE = re.compile(r"^Failed to (?:initialize|load|execute|run) [\w ]{2,40}: (?:[a-z_]\w*\.)*[A-Z]\w*(?:Error|Exception): ")
# a server's error response, `{'object': 'error', 'message': "...", 'type': 'BadRequestError', ...}`, and its JSON form
# (the `object` field may be missing; then the type must read as an exception's: `BadRequestError`)
_ERROR_OBJECT = re.compile(
    r"""(?:['"]object['"]\s*:\s*['"]error['"]\s*,\s*)?['"]message['"]\s*:\s*(?P<q>['"])(?P<msg>(?:\\.|(?!(?P=q)).)*)(?P=q)"""
    r"""\s*,\s*['"]type['"]\s*:\s*['"](?P<type>\w+(?: \w+)*)['"]""")
# the same response cut before its type: `openai.BadRequestError: Error code: 400 - {'object': 'error', 'message': '...`
_ERROR_OBJECT_CUT = re.compile(r"""Error code: \d+ - \{(?:['"]error['"]:\s*\{)?.*?['"]message['"]\s*:\s*['"](?P<msg>.+)$""")
_ARGPARSE = re.compile(vocab.ARGPARSE_ERROR)
# an NCCL WARN line that says something failed (`Error while creating shared memory segment ...`, `Cuda failure
# 217`, `Call to ibv_reg_mr failed`): NCCL's own error record; its other WARN lines (a fallback it took) are no crash
_NCCL_FAILURE = re.compile(r"\b(?:[Ee]rror|[Ff]ail(?:ed|ure)?|No space left|[Uu]nable to|[Cc]annot|[Tt]imed? ?out|[Aa]bort)")
_RETRYING = re.compile(r"\bretrying(?: \d+ of \d+| in [\d.]+ ?s\w*)?\W*$", re.I)
# SGLang's retry() notice, and how near before it its traceback may end (some releases print it on the next line instead)
RETRY_NOTICE = "retry() failed once ("
RETRY_GAP = 2
# an ERROR record the engine logs and goes on after (vLLM 0.12+ on a Triton too old for triton_kernels:
# only an MXFP4 MoE model needs those kernels; vLLM's FlashAttention probe on a GPU older than Ampere, after which it
# picks another attention backend)
_CARRIES_ON = re.compile(r"Failed to import Triton kernels\b|Cannot use FA version \d+ is not supported due to\b")
# an ERROR record that is a KeyError's str() alone: the quoted dotted key (`'model.layers.0.mlp'`)
_QUOTED_KEY = re.compile(r"'[A-Za-z_][\w.]*\.[\w.]*\w'")
# a source line quoted from a traceback that raises (`raise ValueError(msg)`)
_RAISE = re.compile(r"raise\s+(?P<type>(?:[A-Za-z_]\w*\.)*[A-Z]\w*)\b")

# a message's own list of what might have happened (Ray: "There are some potential root causes. (1) The process is
# killed by SIGKILL by OOM killer ..."): boilerplate, which says nothing about the class of this crash
_GUESSES = re.compile(r"(?:There are some|Some common) (?:potential )?(?:root )?causes?\b.*", re.S)


def _error_record(record: str) -> bool:
    """A logging record at error level: Python logging's, c10's (`E` in `[rank0]:[E1201 06:31:02.63 file.ts:444] `) or
    a native library's glog record (`E` / `F`)."""
    return record.startswith(("ERROR", "CRITICAL", "E ", "F ", "glog E", "glog F"))


def classify(exception_type: str | None, message: str) -> str:
    text = f"{exception_type or ''}: {_GUESSES.sub('', message)}"
    for name, pattern in _CLASS_RES:
        if pattern.search(text):
            return name
    return "error" if exception_type else "unknown"


# a message the paste shortened: "...", "…" or "[...]" at its end; a last line that stops inside a phrase
# (`RuntimeError: CUDA out of`)
ELLIPSIS = re.compile(r"\s*(?:\.{3,}|…|\[(?:\.{3}|…)\])\s*$")
MID_LINE = re.compile(r"[A-Za-z0-9_,:;(/-]$")
# (`from sglang.multimodal_gen.runtime.entrypoints.diffusi`: an import statement a paste cut mid-path)
_IMPORT_LINE = re.compile(r"(?:from\s+[\w.]+\s+import\b|import\s+[\w.]+|from\s+[\w.]+$)")
_ENGINE_PACKAGE = re.compile(r"/(?:vllm|sglang|vllm_ascend|vllm_omni|sgl_kernel|flashinfer)/")


def _importing(tb: "_Open") -> bool:
    """The traceback stops while an engine module is being imported: its last frame is a module's top level on an
    import statement (or vLLM's lazy `__getattr__` import), below at least one engine module."""
    if not tb.frames or tb.done and tb.exc_type:
        return False
    last = next((f for f in reversed(tb.frames) if f.function != "?"), tb.frames[-1])
    lazy = last.function == "__getattr__" and last.file.endswith("/__init__.py")
    return (tb.imports or lazy) and bool(_ENGINE_PACKAGE.search(last.file))


def _wrapped(e: re.Match) -> str:
    """The exception type an exception line names in brackets before its colon (`RayTaskError(KeyError): ...`)."""
    inner = e.group("inner") or ""
    return inner if is_exception_type(inner) else ""


def is_exception_type(name: str) -> bool:
    last = re.split(r"\.|::", name)[-1]
    return bool(_EXC_NAME.search(last)) or last in {"KeyError", "StopIteration", "SystemExit", "DGException"}


@dataclass
class _Open:
    """A traceback being read in one process stream."""

    process: str | None
    line_no: int
    frames: list[Frame] = field(default_factory=list)
    headed: bool = False
    exc_type: str | None = None
    message: list[str] = field(default_factory=list)
    done: bool = False  # exception line seen; continuation lines may follow
    continuation: int = 0
    chained_from: list[Crash] = field(default_factory=list)
    last_line: int = 0
    record: str | None = None  # the logging call its exception line came from
    indent: int = 0  # indentation of its header (a pasted block indented as a whole)
    reverse: bool = False  # faulthandler: most recent call first
    maybe_exc: tuple[str, str] | None = None  # an unrecognised `Type: message` line: the exception if a chain follows
    native: list[Frame] = field(default_factory=list)
    end: int = 0  # the last line that belongs to it
    lead: str = ""  # the message of an error line right above its header (`Error in request: ...`)
    code_line: bool = False  # the last line was the code line under a frame
    frame_indent: int | None = None  # indentation of its last `File` line
    wraps: str = ""  # the exception its exception line names in brackets (Ray's `RayTaskError(KeyError): ...`)
    imports: bool = False  # its last frame is a module's top level running an import statement
    last_code: tuple[int, str] = (0, "")  # the last code line read, and how many frames there were then
    pyspy: bool = False  # an active thread of a py-spy dump (its own frame format)
    inside: str = ""  # the exception whose message it is: `RuntimeError: Traceback (most recent call last):`
    hang: bool = False  # a live thread's stack (py-spy, faulthandler's watchdog): where a running process is, no exception

    def __post_init__(self) -> None:
        self.end = self.end or self.line_no


# a call in a code line: a method's (`self._update_after_schedule(`, `super().schedule(`) or a function's
_CALL = re.compile(r"(?P<dot>\.)?\b(?P<name>[A-Za-z_]\w*)\s*\(")
_NOT_CALLEES = frozenset(("super", "len", "int", "str", "float", "bool", "list", "dict", "tuple", "set", "getattr",
                          "isinstance", "print", "range", "type", "cast", "zip", "enumerate", "min", "max", "sum"))


CALLED = "<called>"  # the file of a frame read from the call on the code line a cut traceback ends on


def _callee(tb: "_Open") -> str:
    """The function of a frame line the paste cut after its line number (`File ".../scheduler.py", line 963,` at its end):
    the call on the code line under the frame above it, which that frame was making (`self._update_after_schedule(
    scheduler_output)`); "?" when that line is not shown or makes no plain call."""
    frames, code = tb.last_code
    if not tb.frames or frames != len(tb.frames) or tb.frames[-1].function == "?":
        return "?"
    return _call_in(code)


def _call_in(code: str) -> str:
    """The function a code line calls (a method call first), or "?"."""
    calls = [(m.group("dot"), m.group("name")) for m in _CALL.finditer(code) if m.group("name") not in _NOT_CALLEES]
    methods = [name for dot, name in calls if dot]
    return methods[0] if methods else calls[0][1] if calls else "?"


def _raised_at(tb: "_Open") -> str:
    """The function called on the code line right under the last frame of a traceback that reached its exception
    (`sampling_params = SamplingParams(` -> SamplingParams): the call that raised, when its own frame is not shown
    (a class built in C or by msgspec, a builtin); "" when that line is not shown or calls nothing."""
    frames, code = tb.last_code
    if not tb.exc_type or not tb.frames or frames != len(tb.frames) or tb.reverse:
        return ""
    callee = _call_in(code)
    return "" if callee == "?" else callee


def _assertion(tb: _Open, message: str) -> str:
    """The `assert` statement a messageless AssertionError failed on: the code line under the last frame."""
    frames, code = tb.last_code
    if tb.exc_type == "AssertionError" and not message and frames == len(tb.frames) and code.startswith("assert "):
        return code
    return ""


class CrashParser:
    def __init__(self) -> None:
        self._open: dict[str | None, _Open] = {}
        self._pending_chain: dict[str | None, list[Crash]] = {}
        self._crashes: list[Crash] = []
        self._seen: dict[tuple, int] = {}
        self._last_process: str | None = None
        self._carry: dict[str | None, str] = {}  # the first half of a hard-wrapped frame line
        self._before: dict[str | None, tuple[int, str]] = {}  # each stream's last line
        self._records: list[Crash] = []  # ERROR-level records: crash evidence when nothing else is
        # tracebacks logged whole at WARNING / INFO / DEBUG level: what the server caught and went on with
        self._handled: list[Crash] = []
        self._retried: dict[str | None, int] = {}  # per process, the line of SGLang's last retry() notice
        self._record_key: str | None = None  # the logging call the last of them came from
        self._steps = [0, 0]  # line numbers seen going down, up: a newest-first export is read last line first
        self._raised: dict[str | None, tuple[int, str]] = {}  # a quoted `raise X(` line not yet followed by X's line
        self._hang_until: dict[str | None, int] = {}  # the last line of a stream's faulthandler dump of a hang
        self._eof_line = 0
        self._pybind: dict[str | None, int] = {}  # the crash (index) whose pybind11 `At:` stack is being read
        self.dropped = 0

    # -- feeding ---------------------------------------------------------------------------------
    def reading(self, process: str | None) -> bool:
        """A traceback is open in this process's stream (or, for an untagged line, the last tagged one's)."""
        return bool(self._open) and (process in self._open or (process is None and self._last_process in self._open))

    def feed(self, line_no: int, process: str | None, text: str, tagged: bool, record: str | None = None,
             follows: bool = False) -> None:
        """One line. `follows`: it comes right after the line fed before it, though the numbers skip (prefixes.FOLLOWS)."""
        if tagged:
            self._last_process = process
        else:
            process = self._last_process
        if process in self._raised and text.strip():
            self._settle_raise(process, text.strip())
        tb = self._open.get(process)
        if tb is not None and tb.done and (
            line_no > tb.last_line + 1 and not follows or (record is not None and record != tb.record)
        ):
            self._close(process)  # lines were skipped, or a logging call began after another or after a bare line
            tb = None
        if tb is not None:
            tb.last_line = line_no
        if line_no != self._eof_line and self._eof_line:
            self._steps[line_no > self._eof_line] += 1
        self._eof_line = line_no
        carry = self._carry.pop(process, None)
        if carry is not None and text.strip():
            if _AWAITS_FUNC.search(carry) and not _FUNC_NAME.match(text.strip()):
                # `File "...", line 701, in` over a code line: the paste lost the function name, the next line is
                # the code under the frame, not the rest of it
                self.feed(line_no, process, carry + " ?", True, record)
            else:
                text = carry + ("" if _FRAME_CUT_PATH.match(carry) else " ") + text.strip()
        before = self._before.get(process)
        self._before[process] = (line_no, text)
        if before is not None and before[0] == line_no - 1 and text.lstrip().startswith('"type"') \
                and before[1].lstrip().startswith('"message"'):
            text = f"{before[1].strip()} {text.strip()}"  # a pretty-printed error response, read as its one-line form
        if process in self._pybind or len(text) < 16 and text.strip() == PYBIND_AT:
            if self._pybind_line(process, text, line_no):
                return
            tb = self._open.get(process)
        if RETRY_NOTICE in text:
            self._retry_notice(process, line_no)
            return
        if tb is None and not _QUICK.search(text):
            if record is not None and _error_record(record) and text.strip():
                self._record(line_no, process, text.strip(), record)
            return
        stripped = text.strip()
        if not stripped:
            if tb is not None and tb.done:
                self._close(process)
            return
        spy = _PYSPY_HEAD.match(stripped) if "(active" in stripped or "(idle" in stripped else None
        if spy:
            if tb is not None:
                self._close(process)
            if spy.group("state") == "active":
                self._open[process] = _Open(process, line_no, headed=True, last_line=line_no, reverse=True, pyspy=True,
                                            hang=True)
            return
        if tb is not None and tb.pyspy:
            if self._pyspy_line(process, tb, text, line_no):
                return
            self._close(process)  # the dump ended: the line is the log's again
            tb = None
        if _CHAIN.search(stripped):
            if tb is not None:
                if not tb.done and tb.maybe_exc and tb.frames:
                    tb.exc_type, tb.message, tb.done = tb.maybe_exc[0], [tb.maybe_exc[1]], True
                self._close(process)
            last = self._last_crash_of(process)
            if last is not None:
                self._pending_chain[process] = [last]
            return
        head = _TB_HEAD.search(stripped)
        if head or _FAULT_HEAD.match(stripped):
            if tb is not None:
                self._close(process)
            tb = _Open(process, line_no, headed=True, chained_from=self._pending_chain.pop(process, []), last_line=line_no,
                       indent=_indent(text) if head and head.start() == 0 else 0, reverse=not head)
            if head and head.start() > 0 and (outer := _EXC.match(stripped)) is not None and outer.end("type") < head.start():
                # `raise RuntimeError(traceback.format_exc())` (Ray Serve's replica): the traceback is that
                # exception's message, and its own exception line is what happened
                tb.inside = outer.group("type")
            if not head and (before is not None and before[0] == line_no - 1 and _FAULT_TIMEOUT.match(before[1].strip())
                             or 0 < line_no - self._hang_until.get(process, -9) <= 2):
                # faulthandler's watchdog (`dump_traceback_later`): every thread's stack where it stood when the
                # timeout fired, each a hang's, one after another
                tb.hang = True
            if head and before is not None and before[0] == line_no - 1 and (lead := _LEAD.search(before[1])):
                tb.lead = lead.group("msg")
            elif head and record is not None and self._records and self._record_key == record:
                # `logger.exception(e)` (vLLM V0's engine, many wrappers): the exception's str() as an error record,
                # then its traceback under the same logging call; a traceback cut above its exception has that message
                rec = self._records[-1]
                if rec.process == process and rec.last_line == line_no - 1 and not rec.exception_type \
                        and role_of(rec) == "cause" and not _NARRATION.search(rec.message):
                    tb.lead = rec.message
            self._open[process] = tb
            return
        if _FRAME_CUT_PATH.match(text) or _FRAME_CUT_FUNC.search(text) or _KERNEL_HEAD.match(stripped):
            self._carry[process] = text.rstrip()  # the rest of this frame (or kernel assert) is on the next line
            return
        rest = _NUMBER_REST.match(stripped) if tb is not None and tb.frames and tb.end == line_no - 1 else None
        if rest and tb.frames[-1].function == "?" and tb.frames[-1].line is not None:
            last = tb.frames[-1]
            tb.frames[-1] = Frame(last.file, int(f"{last.line}{rest.group('digits')}"), rest.group("func"))
            tb.end = line_no
            return
        m = _FRAME.match(text) or _FRAME_NO_LINE.match(text) or (
            FRAME_IPYTHON.match(text) if "File ~" in text or ".py:" in text else None) or (
            _FRAME_BARE.match(text) if ".py, line " in text or ".pyx, line " in text else None)
        if m and (m.group("func") or text.lstrip().startswith("File")):
            if tb is not None and tb.done:
                self._close(process)
                tb = None
            if tb is None:
                # headless: the exception line is at most as indented as the frames (a paste whose common
                # indentation was stripped puts both at column 0; a code block indents both alike)
                tb = _Open(process, line_no, chained_from=self._pending_chain.pop(process, []), last_line=line_no,
                           indent=_indent(text))
                self._open[process] = tb
            number = m.groupdict().get("line")
            func = m.group("func") or "?"
            if m.re is FRAME_IPYTHON:
                # (IPython names a method by its qualified name, `DefaultModelLoader.load_model`, where Python's own
                # traceback says `load_model`: rules name the function)
                func = func.rsplit(".", 1)[-1]
            tb.frames.append(Frame(_posix(m.group("file")), int(number) if number else None, func))
            tb.end = line_no
            tb.code_line = False
            tb.frame_indent = _indent(text)
            tb.imports = tb.imports and tb.frames[-1].function == "?"  # (a frame line cut before its name says nothing)
            if len(tb.frames) > MAX_FRAMES:
                del tb.frames[0]
            return
        c = _FRAME_COMPACT.match(text) if ".py:" in text else None
        if c is None and tb is not None and tb.frames and tb.frames[-1].file.endswith(".py") and _ARROW.match(text):
            tb.frames.append(Frame("", None, _ARROW.match(text).group("func")))  # the chain's last step, no path
            tb.end = line_no
            return
        if c is not None:
            if tb is None:
                tb = _Open(process, line_no, chained_from=self._pending_chain.pop(process, []), last_line=line_no,
                           indent=_indent(text))
                self._open[process] = tb
            # (below its exception line, a call chain the reporter summarised: the exception's own frames)
            tb.frames.append(Frame(_posix(c.group("file") or c.group("short")), int(c.group("line") or c.group("sline")),
                                   c.group("func") or c.group("sfunc") or "?"))
            tb.end = line_no
            if len(tb.frames) > MAX_FRAMES:
                del tb.frames[0]
            return
        if tb is not None and (tb.native or tb.done) and _NATIVE_NAMELESS.match(stripped):
            tb.end = line_no
            return
        native = _NATIVE.match(stripped)
        if native:
            if tb is not None:
                tb.end = line_no
            self._native(process, tb, native.group("name"), stripped)
            return
        if tb is not None:
            if tb.done:
                e = _EXC.match(stripped)
                # (`ValueError("...")` under a message is its text: Triton's CompilationError quotes the error it hit)
                new_crash = (e and is_exception_type(e.group("type")) and e.group("msg") is not None
                             and not stripped[len(e.group("type")):].startswith("(")) or _DEATH.match(stripped) or (
                    WRAPPER_PATTERNS.search(stripped) or CONSEQUENCE_PATTERNS.search(stripped)
                    or (not tb.frames and (shape := _STANDALONE.search(stripped)) and not stripped.startswith("what():")
                        # (the CANN runtime's lines under a CANN record or a torch_npu error are that error's own)
                        and not CANN_RUNTIME_LINE.fullmatch(shape.group("m"))
                        # (pydantic's error under its own header is the header's message, with or without frames)
                        and not (stripped.startswith("Value error, ") and (tb.exc_type or "").endswith("ValidationError")))
                )
                if BOILERPLATE.match(stripped) or _TAG_STUB.fullmatch(stripped):
                    tb.continuation += 1
                    tb.end = line_no
                    return
                if ADVICE.match(stripped):
                    tb.continuation = MAX_CONTINUATION  # what follows is the engine's advice, not the error
                    tb.end = line_no
                    return
                if tb.continuation < MAX_CONTINUATION and not new_crash and not _LOG_RECORD.match(stripped) \
                        and not _COMMAND.match(stripped) and not _CALL_TREE.match(stripped):
                    # (a CANN runtime line without its source location: `...[FUNC:GetError][FILE:stream.cc][LINE:1183]`)
                    tb.message.append(_CANN_SOURCE_RE.sub("", stripped) if CANN_RUNTIME_LINE.search(stripped) else stripped)
                    tb.continuation += 1
                    tb.end = line_no
                    return
                self._close(process)
                tb = None
            elif _indent(text) <= tb.indent or not tb.frames:
                exc_line = stripped if ".." not in stripped else _ELIDED.sub(".", stripped)
                e = _EXC.match(exc_line)
                if e and (is_exception_type(e.group("type")) or (tb.frames and _DOTTED_TYPE.match(e.group("type")))):
                    tb.exc_type, tb.wraps = e.group("type"), _wrapped(e)
                    msg = (e.group("msg") or "").rstrip()
                    if exc_line[len(e.group("type")):].startswith("(") and msg.endswith(")"):
                        msg = _unquoted(msg[:-1], e.group("type"))
                    tb.message = [msg]
                    tb.done = True
                    tb.record = record
                    tb.end = line_no
                    return
                kind = next((k for shape, k in _PYTHON_WORDS if shape.match(stripped)), None) \
                    if tb.frames and tb.code_line and "'" in stripped else None
                if kind is not None:
                    # the exception line without its type, under the last frame's code line (`'X' object has no
                    # attribute 'y'`: str(exc) where the type should be): Python's own wording names the type
                    tb.exc_type, tb.message, tb.done, tb.record = kind, [stripped], True, record
                    tb.end = line_no
                    return
                if tb.frames and _STANDALONE.search(stripped) and not CARET.match(text):
                    self._close(process)  # the traceback ended without an exception line we recognise
                    tb = None
                else:
                    if e and e.group("msg") and tb.frames:
                        tb.maybe_exc = (e.group("type"), e.group("msg").rstrip())
                    elif tb.frames and (stripped.startswith("assert ") or tb.last_code[0] != len(tb.frames)
                                        and not CARET.match(text)):
                        # a code line the log's prefix took the indentation of (the first line under its frame)
                        tb.last_code = (len(tb.frames), stripped)
                    tb.end = line_no
                    return
            else:
                # (or like the `File` lines: a paste whose first line lost the indentation the rest kept, so the
                # block's own indentation is taken from that first line)
                at_frames = tb.frame_indent is not None and _indent(text) <= tb.frame_indent
                e = _EXC.match(stripped) if (tb.code_line or at_frames) and tb.frames else None
                if e and is_exception_type(e.group("type")) and (
                        e.group("msg") is None or stripped[len(e.group("type")):].startswith(": ")):
                    # an exception line indented like the code line above it (a paste that stripped the frames'
                    # indentation only): a code line is never a bare exception name or `Type: message`
                    tb.exc_type, tb.message, tb.done, tb.record = e.group("type"), [(e.group("msg") or "").rstrip()], True, record
                    tb.end = line_no
                    return
                tb.code_line = not CARET.match(text)
                if tb.code_line and tb.frames:
                    tb.imports = bool(_IMPORT_LINE.match(stripped)) and tb.frames[-1].function == "<module>"
                    tb.last_code = (len(tb.frames), stripped)
                tb.end = line_no
                return  # a code line or caret line under a frame
        if tb is None:
            self._standalone(line_no, process, stripped, record, before)

    def _standalone(self, line_no: int, process: str | None, text: str, record: str | None = None,
                    before: tuple[int, str] | None = None) -> None:
        if text.startswith(("raise ", "assert ")):
            # a source line quoted from a traceback (`raise ValueError(msg)`), not the exception it raises: that is
            # the next line; a paste that stops here is a crash of that type whose message was cut off
            r = _RAISE.match(text)
            if r is not None and is_exception_type(r.group("type")):
                self._raised[process] = (line_no, r.group("type"))
            return
        if text.startswith("what():") and self._crashes:
            last = self._crashes[-1]
            if last.message.startswith("terminate called"):
                self._crashes[-1] = replace(last, message=f"{last.message} {text}"[:MAX_MESSAGE], last_line=line_no)
            return
        if "rror" in text and "message" in text:
            r = _ERROR_OBJECT.search(text)
            if r is not None and ("object" in r.group(0) or r.group("type").endswith(("Error", "Exception"))):
                # the server's error response (OpenAI style), printed by a client or a proxy; its type may be the
                # HTTP status's phrase (`Internal Server Error`), no exception's name
                exc_type = r.group("type") if " " not in r.group("type") else None
                msg = r.group("msg") or f"{r.group('type')} (the response's message is empty)"
                self._add(Crash(classify(exc_type, msg), exc_type, msg[:MAX_MESSAGE],
                                process, line_no, complete=True, last_line=line_no))
                return
            cut = _ERROR_OBJECT_CUT.search(text) if r is None else None
            e = _EXC.match(text) if cut is not None else None
            if cut is not None and e is not None and is_exception_type(e.group("type")):
                # (a client's exception line that quotes the response and was cut inside its message)
                self._add(Crash(classify(e.group("type"), cut.group("msg")), e.group("type"), cut.group("msg")[:MAX_MESSAGE],
                                process, line_no, last_line=line_no))
                return
        m = _STANDALONE.search(text)
        if m is not None and m.start() > 0 and record is not None and record.startswith(QUIET_LEVELS) \
                and not re.match(_DEVICE_ERROR, m.group("m")):
            m = None  # a warning that mentions an exception it caught and went on (`Failed to import ... with ImportError(...)`)
        if m is not None and m.group("m").startswith("No module named") and record is not None \
                and record.startswith(QUIET_LEVELS):
            m = None  # (a warning about an optional import)
        if m is not None and m.start() > 0 and record is not None and _NATIVE_RECORD.match(record) \
                and not re.match(_DEVICE_ERROR, m.group("m")) and not _EMBEDDED_PYTHON_FAILURE.search(text):
            # a C++ library's record quoting an exception's what() mid-line (Mooncake's transport: `... encountered an
            # ASIO exception. ... Exception: connect: Cannot assign requested address`): no Python exception, the
            # line is the library's error as it stands
            if record.startswith(("glog E", "glog F")):
                self._open[process] = _Open(process, line_no, message=[text], done=True, last_line=line_no, record=record)
            return
        if m is None:
            advice = _CUDA_ADVICE.search(text)
            if advice and not any("CUDA error" in c.message for c in self._crashes[-3:]):
                error = CUDA_ERRORS.get(advice.group(1), advice.group(1))
                self._open[process] = _Open(process, line_no, message=[f"CUDA error: {error}"], done=True,
                                            last_line=line_no, record=record)
            elif _CAPTURE_ADVICE.match(text) and not any(CAPTURE_FAILED in c.message for c in self._crashes[-3:]) \
                    and not any(CAPTURE_FAILED in " ".join(tb.message) for tb in self._open.values()):
                self._add(Crash(classify("Exception", CAPTURE_FAILED), "Exception", CAPTURE_FAILED + " ...", process,
                                line_no, role="fragment", cut_short=True, last_line=line_no))
            elif _BATCH_DUMP.search(text) and not self._crashes and not self._open:
                self._add(Crash("unknown", None, "", process, line_no, role="fragment", last_line=line_no))  # a crash sign, no message
            elif _BATCH_DUMP.search(text) and self._crashes and self._crashes[-1].role == "fragment" \
                    and self._crashes[-1].process == process and self._crashes[-1].last_line == line_no - 1:
                self._crashes[-1] = replace(self._crashes[-1], last_line=line_no)  # the dump's next line
            elif record is not None and (_error_record(record) or record == "NCCL WARN" and _NCCL_FAILURE.search(text)):
                self._record(line_no, process, text, record)
            return
        body = m.group("m")
        if _JSON_FIELD_LINE.match(text) and body.rstrip().endswith(('",', '"')):
            body = body.rstrip()[: -2 if body.rstrip().endswith(",") else -1]  # a pretty-printed JSON body's `"message": "...",`
        elif text.lstrip().startswith('{"') and '"' in body:
            # a message inside a JSON record's value ends at its closing quote, not at the line's end (`..."message":
            # "... it might be dead","status_code":500,...}`; `"msg":"... ValueError('...')"}`, whose repr is then
            # unquoted as any); a message that quotes JSON itself keeps it whole
            body = _JSON_VALUE_END.split(body, 1)[0]
        if CANN_RECORD.match(body):
            # the code and what failed, without its pid, time and source location: `E39999: Kernel task happen error`
            body = re.sub(rf"^({CANN_CODE})(?!:)", r"\1: ", _CANN_NOISE.sub("", body))
        elif CANN_RUNTIME_LINE.fullmatch(body):
            body = _CANN_NOISE.sub("", body)  # (without the runtime's source location: `[FUNC:GetError][FILE:stream.cc]...`)
        e = _EXC.match(body)
        if e and (is_exception_type(e.group("type")) or m.start() == 0 and re.fullmatch(_QUALIFIED_TYPE, e.group("type"))) \
                and (e.group("msg") is not None or body == e.group("type")):
            exc_type, message = e.group("type"), (e.group("msg") or "")
            if body[len(exc_type):].startswith("(") and message.endswith(")"):
                message = _unquoted(message[:-1], exc_type)  # ValueError("...") form
        elif body.startswith("No module named"):
            exc_type, message = "ModuleNotFoundError", body
        elif body.startswith("Value error, "):
            exc_type, message = "ValueError", re.sub(r"\s*\[type=value_error\b.*$", "", body[len("Value error, "):])
        else:
            exc_type, message = None, body
        if m.start() > 0 and exc_type is None and (text[: m.start()].rstrip().endswith(":") or body.startswith("Assertion")):
            message = text  # keep "Exception: Capture cuda graph failed: ..." whole, and a kernel assert's file and kernel
        # read it as a traceback that lost its frames: the lines right after it may continue the message
        # (with the code line quoted right above it: `assert issubclass(connector_cls, KVConnectorBase)` over a bare
        # `AssertionError` is the check that failed, vllm#18933)
        code = before[1].strip() if before is not None and before[0] == line_no - 1 and "assert " in before[1] else ""
        self._open[process] = _Open(process, line_no, exc_type=exc_type, message=[message], done=True, last_line=line_no,
                                    record=record, wraps=_wrapped(e) if e and exc_type == e.group("type") else "",
                                    last_code=(0, code))
        if _ARGPARSE.match(body):
            self._close(process)  # (argparse's one line is all it says; the usage or a prompt after it is not its message)

    def _record(self, line_no: int, process: str | None, text: str, record: str) -> None:
        """An ERROR-level record that is neither a traceback nor a known crash line: kept aside, it becomes
        crash evidence only when the log holds no other crash (a paste of the error records alone)."""
        last = self._records[-1] if self._records else None
        if last is not None and last.process == process and last.last_line in (line_no, line_no - 1) \
                and self._record_key == record and last.exception_type is None and not _LOG_RECORD.match(text):
            # the next line of one multi-line error message (a compiler's report, a banner and its body)
            merged = f"{last.message} {text.strip()}"[:MAX_MESSAGE]
            self._records[-1] = replace(last, crash_class=classify(None, merged), message=merged, last_line=line_no)
            return
        self._record_key = record  # (lines of one logging call share it; another logger's record starts anew)
        if _RETRYING.search(text) or _CARRIES_ON.match(text):
            return  # an error the engine logs and tries again after (`..., retrying 1 of 2`): not how it died
        if len(self._records) < 50 and not _LOG_RECORD.match(text):
            # an engine that logs the exception's str() alone: a KeyError's is the quoted key (`'model.layers.0.mlp'`)
            exc_type = "KeyError" if _QUOTED_KEY.fullmatch(text.strip()) else None
            self._records.append(Crash(classify(exc_type, text), exc_type, text[:MAX_MESSAGE], process, line_no,
                                       last_line=line_no))

    def _native(self, process: str | None, tb: "_Open | None", name: str, line: str) -> None:
        """A native frame: it belongs to the open traceback, else to the process's last crash, else starts a
        crash of its own (a cuda-gdb or sanitizer paste)."""
        frame = Frame("", None, name.split("<", 1)[0].rsplit("::", 1)[-1] if "::" in name.split("<", 1)[0] else name.split("<", 1)[0])
        if tb is not None:
            tb.native.append(frame)
            return
        last = self._last_crash_of(process)
        if last is not None:
            i = len(self._crashes) - 1 - self._crashes[::-1].index(last)
            if len(last.native) < MAX_FRAMES:
                self._crashes[i] = replace(last, native=last.native + (frame,))
            return
        rec = self._records[-1] if self._records else None
        if rec is not None and rec.process == process and 0 < self._eof_line - rec.last_line <= 2 and not rec.exception_type:
            # torch's C++ error printed as an error record, then `Exception raised from ... (most recent call first):`
            # and its native stack (`[rank0]:[E1201 ...] SelfAttentionOperation setup failed!`): the record is the
            # message of the stack under it
            self._records.pop()
            self._open[process] = _Open(process, rec.line_no, message=[rec.message], done=True, last_line=self._eof_line,
                                        native=[frame])
            return
        self._open[process] = _Open(process, self._eof_line, done=True, last_line=self._eof_line, native=[frame])

    def _pyspy_line(self, process: str | None, tb: "_Open", text: str, line_no: int) -> bool:
        """A line of a py-spy thread's stack (a frame, a native frame, a frame's arguments and locals): kept, True."""
        f = _PYSPY_FRAME.match(text)
        if f:
            if len(tb.frames) < MAX_FRAMES:  # (most recent first: the deepest frames are the first ones)
                tb.frames.append(Frame(_posix(f.group("file")), int(f.group("line")), f.group("func").rsplit(".", 1)[-1]))
            tb.frame_indent = _indent(text)
        elif tb.frame_indent is not None and _indent(text) > tb.frame_indent:
            pass  # `Arguments:` / `Locals:` and their values under a frame
        else:
            native = _PYSPY_NATIVE.match(text)
            if native is None:
                return False
            self._native(process, tb, native.group("name"), text.strip())
            tb.frame_indent = _indent(text)
        tb.end = line_no
        return True

    def _pybind_line(self, process: str | None, text: str, line_no: int) -> bool:
        """pybind11's account of a Python exception that crossed C++ (`TypeError: ...`, a blank line, `At:`, then the
        stack most recent call first, `  /x/backends/vllm/model.py(301): _run_llm_engine`): the stack is that
        exception's frames. True when the line was one of them (or the `At:` over them)."""
        if text.strip() == PYBIND_AT:
            if process in self._open:
                self._close(process)
            last = self._last_crash_of(process)
            if last is not None and not last.frames and 0 <= line_no - last.last_line <= 2:
                self._pybind[process] = len(self._crashes) - 1 - self._crashes[::-1].index(last)
                return True
            self._pybind.pop(process, None)
            return False
        f = _PYBIND_FRAME.match(text)
        if f is None:
            del self._pybind[process]
            return False
        i = self._pybind[process]
        crash = self._crashes[i]
        if len(crash.frames) < MAX_FRAMES:  # (most recent first: the deepest frames are the first ones)
            frame = Frame(_posix(f.group("file")), int(f.group("line")), f.group("func"))
            self._crashes[i] = replace(crash, frames=(frame,) + crash.frames, last_line=max(crash.last_line, line_no))
        return True

    # -- closing ---------------------------------------------------------------------------------
    def _close(self, process: str | None, at_end: bool = False) -> None:
        tb = self._open.pop(process, None)
        if tb is None:
            return
        message = " ".join(part for part in tb.message if part)[:MAX_MESSAGE]
        frames = tuple(reversed(tb.frames)) if tb.reverse else tuple(tb.frames)
        next_call = ""
        if at_end and frames and not tb.reverse and not tb.hang and not tb.exc_type and not message and tb.code_line:
            # the paste ends on the code line under its last frame: the call made there is on the stack below it, a
            # frame whose own line the paste lost (`self._initialize_kv_caches(vllm_config)`). Kept only when it is an
            # engine step's function that tells a step the frames shown do not (a call on an attribute,
            # `self.model(...)`, names no function)
            callee = _callee(tb)
            shown = [f.function for f in frames]
            if callee in STEP_FUNCTIONS and phase_of_frames(shown + [callee]) != phase_of_frames(shown):
                frames += (Frame(CALLED, None, callee),)
        if frames and not tb.reverse and not tb.hang and not tb.exc_type and not message \
                and frames[-1].function == "?" and tb.last_code[0] == len(tb.frames) - 1 and tb.last_code[1]:
            # the traceback stops inside the next frame's line, cut before its function's name: the code line above
            # it names that function (`self._init_pooler(vllm_config, prefix=prefix)`, then `File "/root/anaconda3/`).
            # (A paste that ends on the code line itself shows no next frame: the call there is no frame, see above)
            callee = _call_in(tb.last_code[1])
            next_call = "" if callee == "?" else callee
        if tb.hang:
            self._hang_until[process] = tb.end
        if tb.reverse and not tb.exc_type and not tb.hang:
            # faulthandler's dump belongs to the fatal error printed just before it, and that to the uncaught C++
            # exception that aborted the process (`terminate called after throwing ...` / `what(): ...`), if any
            last = self._last_crash_of(process)
            if last is not None and not last.frames and last.message.startswith("Fatal Python error"):
                i = len(self._crashes) - 1 - self._crashes[::-1].index(last)
                before = self._crashes[i - 1] if i > 0 else None
                if before is not None and before.message.startswith("terminate called") and not before.frames \
                        and before.process == last.process and last.line_no - before.last_line <= 3:
                    i, last = i - 1, before
                self._crashes[i] = replace(last, frames=frames, native=last.native + tuple(tb.native),
                                           last_line=max(last.last_line, tb.end))
                return
        if tb.frames and not tb.exc_type and not message and all(f.file == "<unknown>" for f in tb.frames):
            # a native stack dumped as frame lines without a source (`File "<unknown>", line 0, in cuEventQuery`:
            # SGLang's segfault handler, a C++ backtrace printer), most recent call first, right under the fatal
            # signal it explains
            last = self._last_crash_of(process)
            if last is not None and not last.frames and last.crash_class == "segfault" \
                    and 0 < tb.line_no - last.last_line <= 3:
                i = len(self._crashes) - 1 - self._crashes[::-1].index(last)
                self._crashes[i] = replace(last, frames=tuple(reversed(tb.frames)), native=last.native + tuple(tb.native),
                                           last_line=max(last.last_line, tb.end))
                return
        if tb.headed and tb.frames and not tb.exc_type and not message and not tb.hang:
            # vLLM V0 logs the exception's message, then its traceback (`logger.exception`): a traceback cut before
            # its exception line, right under a crash line of the same process, is that crash's
            last = self._last_crash_of(process)
            if last is not None and not last.frames and last.said and last.last_line == tb.line_no - 1 \
                    and role_of(last) == "cause":  # (not a wrapper's line: `WorkerProc hit an exception.` heads its own)
                i = len(self._crashes) - 1 - self._crashes[::-1].index(last)
                self._crashes[i] = replace(last, frames=tuple(tb.frames), native=last.native + tuple(tb.native),
                                           last_line=tb.end)
                return
        if tb.lead and tb.frames and not tb.exc_type and not message:
            message = tb.lead[:MAX_MESSAGE]  # the traceback is cut above its exception: the line above it names it
        crash = Crash(
            crash_class=HANG if tb.hang else classify(tb.exc_type, message),
            exception_type=tb.exc_type,
            message=message,
            process=process,
            line_no=tb.line_no,
            frames=frames,
            complete=tb.done,
            headed=tb.headed,
            chained=tuple(tb.chained_from),
            message_cut=at_end and bool(tb.exc_type) and not message and tb.exc_type not in _BARE_TYPES,
            native=tuple(tb.native),
            last_line=tb.end,
            wraps=tb.wraps,
            during=IMPORTING if _importing(tb) else "",
            cut_short=bool(message) and bool(ELLIPSIS.search(message) or at_end and MID_LINE.search(message)),
            assertion=_assertion(tb, message),
            next_call=next_call,
            inside=tb.inside,
            raised_at=_raised_at(tb),
        )
        if tb.exc_type and (tb.record is not None and tb.record.startswith(QUIET_LEVELS) and tb.headed
                            or tb.line_no - self._retried.get(process, -99) == 1):
            # a traceback the server logged as a warning (`logger.warning(..., exc_info=True)`) and went on, or one
            # SGLang's retry() printed right under its notice: what it caught, not what stopped it (kept aside: see
            # finish; a traceback printed just above the notice is set aside by _retry_notice)
            if len(self._handled) < MAX_CRASHES:
                self._handled.append(crash)
            return
        self._add(crash)

    def _retry_notice(self, process: str | None, line_no: int) -> None:
        """SGLang's retry() prints the traceback of each failed try beside its notice (`retry() failed once (0th
        try, maximum 2 retries). Will delay 0.78s and retry. Error: ...`), before or after it, and tries again: that
        traceback is what it caught (a Hub call refused offline, a read timeout), not what stopped the server."""
        if process in self._open:
            self._close(process)
        self._retried[process] = line_no
        last = self._crashes[-1] if self._crashes else None
        if last is not None and last.process == process and line_no - last.last_line <= RETRY_GAP:
            self._crashes.pop()
            self._seen = {k: i for k, i in self._seen.items() if i < len(self._crashes)}
            if len(self._handled) < MAX_CRASHES:
                self._handled.append(last)

    def _add(self, crash: Crash) -> None:
        key = (crash.exception_type, _mask(crash.message), crash.functions[-3:])
        if key in self._seen:
            # the same crash from several ranks: the earliest line stands for them (ranks close in any order)
            i = self._seen[key]
            if crash.line_no < self._crashes[i].line_no:
                self._crashes[i] = crash
            return
        if len(self._crashes) >= MAX_CRASHES:
            self.dropped += 1
            return
        self._seen[key] = len(self._crashes)
        self._crashes.append(crash)

    def _last_crash_of(self, process: str | None) -> Crash | None:
        for crash in reversed(self._crashes):
            if crash.process == process:
                return crash
        return None

    def _settle_raise(self, process: str | None, text: str) -> None:
        line_no, kind = self._raised.pop(process)
        e = _EXC.match(text)
        if e is not None and e.group("type").rsplit(".", 1)[-1] == kind.rsplit(".", 1)[-1]:
            return  # the exception line follows: it is the crash
        self._add(Crash(classify(kind, ""), kind, "", process, line_no, message_cut=True, last_line=line_no))

    def finish(self) -> list[Crash]:
        for process in list(self._raised):
            self._settle_raise(process, "")
        for process, carry in list(self._carry.items()):
            # the paste ends inside a frame line (`File ".../compressed_t`): a traceback cut there
            m = re.match(r'\s*File\s+"(?P<file>[^"]*)"?(?:,\s+line\s+(?P<line>\d+))?', carry)
            if m:
                tb = self._open.get(process)
                if tb is None or tb.done:
                    if tb is not None:
                        self._close(process)
                    tb = self._open[process] = _Open(process, self._eof_line, last_line=self._eof_line)
                tb.frames.append(Frame(_posix(m.group("file")), int(m.group("line")) if m.group("line") else None,
                                       _callee(tb) if m.group("line") else "?"))
                tb.end = self._eof_line
        self._carry.clear()
        for process in list(self._open):
            tb = self._open[process]
            self._close(process, at_end=tb.last_line >= self._eof_line)
        if not any(c.frames or c.native or c.message or c.exception_type for c in self._crashes):
            # no crash, or only a traceback header cut right after it: the error records are what the paste says
            # (vLLM V0 logs the exception's str() as an ERROR record, then its traceback)
            for crash in self._records:
                self._add(crash)
        ordered = order(embedded_causes(self._crashes), reading_backwards=self._steps[0] > self._steps[1])
        if ordered:
            # beside a crash, what the server caught before it is evidence about the same run (a warm-up that failed
            # the way the model then dies), never the crash itself; alone, it is no crash at all
            ordered += [replace(c, role="consequence") for c in self._handled]
        return ordered


_MASK = re.compile(r"0x[0-9a-fA-F]+|\d+")



def _mask(message: str) -> str:
    return _MASK.sub("#", message[:300])


def embedded_causes(crashes: list[Crash]) -> list[Crash]:
    """A wrapper whose message names the exception it wraps (`Error in model execution: ValueError: ...`, `Worker
    failed with error 'KeyError: ...'`): that exception is a cause of its own, whatever its type."""
    out = list(crashes)
    for crash in crashes:
        if crash.wraps and not any((c.exception_type and c.exception_type.rsplit(".", 1)[-1] == crash.wraps
                                    or c.inside.rsplit(".", 1)[-1] == crash.wraps) and c.line_no > crash.line_no
                                   for c in crashes):
            # Ray's caller names the task's exception in brackets; with the task's own traceback cut off, that type
            # is the cause and its message unknown - unless the line carries it after the task's name and place
            # (`ray::Actor.f() (pid=20431, ip=10.0.3.17) failed: There is no module ...`)
            told = _RAY_TASK_MESSAGE.search(crash.message or "")
            msg = told.group("msg").strip() if told else ""
            out.append(Crash(classify(crash.wraps, msg), crash.wraps, msg, crash.process, crash.last_line or crash.line_no,
                             message_cut=not msg, complete=bool(msg), last_line=crash.last_line))
            continue
        text = crash.message
        if not text or not WRAPPER_PATTERNS.search(f"{crash.exception_type or ''}: {text}") and "Error in " not in text:
            continue
        e = _EMBEDDED.search(text)
        if e is None:
            # a crash line after the wrapper's phrase on the same line: `WorkerProc hit an exception ; CUDA error: ...`
            c = _EMBEDDED_CRASH.search(text)
            if c is not None:
                msg = c.group(0)
                if text[c.start() - 1] in "'\"":
                    # (quoted by the worker wrapper: the error ends at its closing quote, `..., please check the stack
                    # trace above for the root cause` is the wrapper's own advice)
                    msg = re.split(r"['\"](?:,\s+(?:please|see|check)\b|\s*$)", msg)[0].rstrip()
                if not any(o.message.startswith(msg[:60]) for o in out):
                    out.append(Crash(classify(None, msg), None, msg, crash.process, crash.line_no,
                                     complete=True, native=crash.native, last_line=crash.last_line))
                continue
            # vLLM's worker wrapper quotes str() of what the worker raised, which names no type when the worker's
            # exception had a message: `Worker failed with error 'VLLM batch_invariant mode is not supported ...'`
            q = _QUOTED_WORKER_ERROR.search(text)
            msg = q.group("msg").strip() if q is not None else ""
            if msg and not any(o.message.strip().startswith(msg[:60]) for o in out):
                out.append(Crash(classify(None, msg), None, msg, crash.process, crash.line_no,
                                 complete=True, native=crash.native, last_line=crash.last_line))
            continue
        if e.group("type") == crash.exception_type:
            continue
        msg = re.split(r"['\"],\s+(?:please|see|check)", e.group("msg"))[0].rstrip()
        opener = text[e.start("type") - 1] if e.start("type") > 0 else ""
        if text[e.end("type"):e.end("type") + 1] == "(" and msg.endswith(")"):
            # the exception's repr, `WorkerProc hit an exception: ValueError('... not found.')`: its message as
            # `Type: message` prints it (LMCache/LMCache#2306)
            msg = _unquoted(text[e.end("type") + 1] + msg[:-1], e.group("type"))
        elif opener in "'\"(":
            # (the wrapper quoted the exception, `Worker failed with error 'KeyError: x'`: its closing quote goes; an
            # exception whose own message ends in a quote, `... has no attribute 'x'`, keeps it)
            msg = msg.rstrip("'\")").rstrip()
        inner = Crash(classify(e.group("type"), msg), e.group("type"), msg, crash.process, crash.line_no,
                      complete=True, native=crash.native, last_line=crash.last_line)
        if not any(c.exception_type == inner.exception_type and c.message[:80] == msg[:80] for c in out):
            out.append(inner)
    return out


# a field of a pretty-printed JSON object, one per line (an API error body: `    "message": "EngineCore encountered ...",`)
_JSON_FIELD_LINE = re.compile(r'\s*"[\w.-]+"\s*:\s*"')
# the closing quote of a JSON string value: an unescaped quote before the next key or the object's end
_JSON_VALUE_END = re.compile(r'(?<!\\)"\s*(?:,\s*"[\w-]+"\s*:|\})')
# what a one-line Ray task error says after the task's name and place
_RAY_TASK_MESSAGE = re.compile(r"ray::[\w.]+\(\)\s*\(pid=\d+[^)]*\)\s*(?:failed\s*)?[:,]?\s*(?P<msg>\S.*)$")
_QUOTED_WORKER_ERROR = re.compile(r"Worker failed with error (?P<q>['\"])(?P<msg>\S.*?)(?P=q)(?:,\s+please\b|\s*$)")
_EMBEDDED_CRASH = re.compile(rf"(?<=[\s;:,('\"])(?:{_DEVICE_ERROR})")


def _indent(text: str) -> int:
    return len(text) - len(text.lstrip())


# CANN's header over the record that says what failed (`EZ9999: Inner Error!`, then `EZ9999[PID: ...] ... Aicore
# kernel execute failed, ... fault kernel_name=...`): as a crash of its own it wraps that record (under an exception
# it is a line of that exception's text; an op's failure that quotes it, `call aclnnX failed, detail:EZ9999: Inner
# Error!`, is the op's failure)
_CANN_HEADER = re.compile(rf"{CANN_CODE}: Inner Error!?\s*")


def role_of(crash: Crash) -> str:
    text = f"{crash.exception_type or ''}: {crash.message}"
    if not crash.exception_type and _CANN_HEADER.fullmatch(crash.message):
        return "wrapper"
    if WRAPPER_PATTERNS.search(text) and not crash.frames[-1:] or WRAPPER_PATTERNS.search(text) and _is_wrapper_tb(crash):
        return "wrapper"
    if CONSEQUENCE_PATTERNS.search(text):
        return "consequence"
    if not crash.exception_type and not crash.message or not crash.exception_type and crash.message.startswith(_GDB_REPORT):
        # (cuda-gdb's or compute-sanitizer's report of the faulting warp comes before the CUDA error the process then
        # raises: that error, when pasted, is the crash; the report adds the kernel's name)
        return "fragment"
    return "cause"


_GDB_REPORT = "CUDA Exception: "


def _is_wrapper_tb(crash: Crash) -> bool:
    return bool(crash.exception_type) and re.search(
        r"EngineDeadError|EngineGenerateError|Engine core initialization failed|Engine process failed|Worker failed|"
        r"Error raised in subprocess:?$|^(?:ray\.exceptions\.)?Ray(?:Task|Actor)Error\b|"
        rf"{INSPECTION_EXIT}",
        f"{crash.exception_type}: {crash.message}",
    ) is not None


def order(crashes: list[Crash], reading_backwards: bool = False) -> list[Crash]:
    """Mark each crash's role and put the primary first: the earliest cause, else the earliest anything. (A
    newest-first export is read in the order written but keeps its line numbers: there the earliest is the last.)"""
    marked = sorted((replace(c, role=role_of(c)) for c in crashes), key=lambda c: c.line_no, reverse=reading_backwards)
    causes = [c for c in marked if c.role == "cause"]
    # (a fragment with frames, a cut traceback, before a bare crash sign such as a batch dump's header)
    fragments = sorted((c for c in marked if c.role == "fragment"), key=lambda c: (not c.frames, c.line_no))
    # (a follow-on error, a peer's dropped connection, says more than the wrapper that reports the process died)
    rest = sorted((c for c in marked if c.role not in ("cause", "fragment")), key=lambda c: c.role == "wrapper")
    ordered = causes + fragments + rest
    if ordered and ordered[0].role in ("cause", "fragment"):
        ordered[0] = replace(ordered[0], role="primary")
    return ordered


# what a report's title or prose says happened, when the paste has no crash line of its own: (pattern, the engine's
# own wording of that crash, or None when only the fact of a crash is known)
_PROSE = tuple((re.compile(p, re.I), m) for p, m in (
    # (Ray's memory monitor killing a worker for the host's memory is no CUDA OOM, whatever "OOM" it says; nor is
    # the kernel's OOM killer, in its own lines or in a container runtime's record of it)
    (r"killed due to memory pressure|Ray killed this worker|running low on memory|invoked oom-killer|oom-kill:|"
     r"out of memory: Kill(?:ed)? process|\bKilled process \d+|\bOOMKilled\b", None),
    (r"\billegal (?:cuda |gpu )?memory access\b|cudaErrorIllegalAddress", "CUDA error: an illegal memory access was encountered"),
    (r"device-side assert", "CUDA error: device-side assert triggered"),
    (r"\b(?:cuda )?out of memory\b|\bOOM\b", "CUDA out of memory"),
    (r"segmentation fault|\bsegfault|\bSIGSEGV\b|core dumped", "Segmentation fault"),
    (r"\bNCCL (?:error|timeout)\b|\bnccl\w*Error\b", "NCCL error"),
    (r"\bcrash(?:es|ed|ing)?\b|died unexpectedly|\b(?:worker|process|actor) (?:died|was killed)\b|died or was killed|access violation|\bfail(?:s|ed)? to (?:start|load|deploy|launch|serve)\b", None),
))
_PROSE_TYPE = re.compile(r"(?<![\w.])(?P<type>(?:[a-z_]\w*\.)*[A-Z][A-Za-z]*(?:Error|Exception))\b(?::\s*(?P<msg>\S.*))?")
_NEGATED = re.compile(r"\b(?:no|not|0|zero|without|never|doesn't|does not|didn't|did not|won't|nor)\W+(?:\w+\W+){0,2}?"
                      r"(?:crash|oom\b|out of memory|segfault|fail|died|illegal)", re.I)
# Python's own wording of an error, pasted without its exception type (`'MergedColumnParallelLinear' object has no
# attribute 'weight'`): the type it always comes with
_PYTHON_WORDS = tuple((re.compile(shape), kind) for _, kind, shape in vocab.PYTHON_ERRORS if shape)
PROSE_MAX_LINES = 40  # a paste this short with no crash line may still say, in words, that it crashed


def prose_crash(lines: list[str] | tuple[str, ...]) -> Crash | None:
    crash = _prose_crash(lines)
    if crash is None or crash.exception_type != "AssertionError" or crash.message:
        return crash
    # a bare assert quoted with its exception on one line (`due to "assert use_attn_tp_group is False  AssertionError"`):
    # no message was cut off, the check that failed is known
    line = _GUESSES.sub("", lines[crash.line_no - 1])
    asserted = _ONE_LINE_ASSERT.search(line)
    return replace(crash, message_cut=False, assertion=asserted.group(1).strip()) if asserted else crash


_ONE_LINE_ASSERT = re.compile(r"""(?<![\w.])(assert [^"'`]+?)\s+(?:builtins\.)?AssertionError\b(?!:\s*\S)""")


def _prose_crash(lines: list[str] | tuple[str, ...]) -> Crash | None:
    """A crash sign from the words of a short paste with no crash line (an issue title pasted above an environment
    listing: "Model fails to deploy: Illegal CUDA memory access with FP8 Qwen3-235B"): the crash in the engine's own
    wording when the words name one, the exception type when they name it, else only that it crashed. It is an
    excerpt with its message unknown, so it is a candidate's reason, never a confident claim."""
    for n, line in enumerate(lines, 1):
        text = _GUESSES.sub("", line.strip())  # (Ray's list of what might have killed a worker is no account of it)
        if not text or text.startswith(("$", "#")) or "serve " in text[:40]:
            continue  # a command line is no account of a crash
        if _NEGATED.search(text) and not _PROSE[0][0].search(text):
            # "no crash", "0 crashes", "without OOM": a line saying it did not happen (not Ray's summary, "1 Workers
            # killed due to memory pressure (OOM), 0 Workers crashed due to other reasons")
            continue
        named = _PROSE_TYPE.search(text)
        for pattern, wording in _PROSE:
            if pattern.search(text):
                kind = named.group("type") if named else None
                message = wording or (named.group("msg") or "" if named else "")
                if not message:
                    # "failed to launch" said by a wrapper that quotes Python's words for the error after it
                    kind, message = _python_words_after_wrapper(text) or (kind, message)
                return Crash(classify(kind, message), kind, message[:300], None, n, role="fragment", excerpt=True,
                             message_cut=not message, last_line=n)
        if named and is_exception_type(named.group("type")):
            message = named.group("msg") or ""
            return Crash(classify(named.group("type"), message), named.group("type"), message[:300], None, n,
                         role="fragment", excerpt=True, message_cut=not message, last_line=n)
        labelled = _ERROR_LABEL.match(text)
        said = labelled.group("msg") if labelled else text
        kind = next((kind for pattern, kind in _PYTHON_WORDS if pattern.search(said)), None)
        if kind is None and labelled:
            kind = next((kind for words, kind, _ in vocab.PYTHON_ERRORS if said.startswith(words)), None)
        if kind is not None or labelled:
            # (an error a program reported in its own words, `Error in parse_streaming_increment: list index out of
            # range`, `..., an error occurred: '_moe_C' object has no attribute 'topk_softmax'`: what follows the label
            # is the message, of the type its Python wording always comes with)
            return Crash(classify(kind, said), kind, said[:300], None, n, role="fragment", excerpt=True, last_line=n)
    return None


_MESSAGE_START = re.compile(r"(?::|\])\s+")


def _python_words_after_wrapper(text: str) -> tuple[str, str] | None:
    """(type, message) of Python's wording of an error quoted after a wrapper's own words, where the message starts
    after a `: ` or `] ` (xinference: `Failed to launch replica X: [address=..., pid=...] module 'vllm.envs' has no
    attribute 'VLLM_USE_V1'`)."""
    for cut in _MESSAGE_START.finditer(text):
        rest = text[cut.end():]
        kind = next((kind for pattern, kind in _PYTHON_WORDS if pattern.search(rest)), None)
        if kind is not None:
            return kind, rest
    return None
# a line that reports an error in a program's own words, the message after the label: `Error in X: ...`,
# `Error during transcription: ...`, `Running Y, an error occurred: ...` (a short paste's only account of the crash)
_ERROR_LABEL = re.compile(r"(?i)^(?:[\w.-]+(?: [\w.-]+){0,8}, )?(?:an? )?(?:error|exception)(?: (?:occurred|raised|was raised))?"
                          r"(?: (?:in|during|while|when|from) [\w .()/<>-]{1,80}?)?:\s+(?P<msg>\S.{5,})$")


LEAD_LINES = 4  # the paste's first lines looked at for what stands above its first crash
# a heading a user puts above a paste (`Traceback:`, `Error log:`, `## Logs`, `<details>`), which is no line of the log
_HEADING = re.compile(r"(?i)\s*(?:#+ .*|<\/?(?:details|summary|pre|code)>.*|[\w ()/-]{0,40}:\s*)$")


def lines_above_crash(head: list[tuple[int, str]], crashes) -> int:
    """How many lines of the log stand above its first crash (up to LEAD_LINES): a heading does not count, nor the
    error record the crash opens with (`ERROR ... EngineCore encountered a fatal error.` right above its traceback).
    0: the paste starts at its crash, and what the engine logged before it is not shown."""
    first = min((c.line_no for c in crashes if c.role != "consequence"), default=None)
    if first is None:
        return len(head)
    above = [(n, line) for n, line in head if n < first and not _HEADING.match(peel_record(line)[1])]
    if above and above[-1][0] == first - 1 and (peel_record(above[-1][1])[2] or "").startswith(("ERROR", "CRITICAL")):
        above.pop()
    return len(above)
