"""What the server was doing when it crashed, from the last start-up or serving line before the crash.

A traceback cut above its exception says little on its own; "while loading the checkpoint (shard 1 of 7)" or
"while capturing CUDA graphs" already splits the causes in two, tells the user which part of the log to paste,
and holds for every engine version. Only lines the scan selects anyway are read (the head of the log and the
context of each crash), so this costs nothing on a large log.
"""
from __future__ import annotations

import re

from ..model import CAPTURE_STEP

IMPORTING = "importing the engine's modules (before it read its arguments)"
LOADING = "loading the model"
SIZING = "sizing the KV cache (profiling memory after the weights loaded)"
CAPTURING = "capturing CUDA graphs"
SERVING = "serving requests (start-up had finished)"
ARGUMENTS = "checking the serve arguments (before the engine started)"
# labels of the steps between those, some with figures filled in (their fixed part names the step)
CHECKPOINT = "loading the checkpoint (shard {done} of {total} loaded)"
WEIGHTS_LOADED = "processing the weights (all {total} checkpoint shards loaded)"
WEIGHTS_READ = "processing the weights (the checkpoint is read; repacking and quantizing follow)"
UPDATING = "updating the weights of a running server (a trainer's sync, a reload)"
KV_SETUP = "setting up the KV cache and attention (before CUDA graph capture)"
WARMING = "warming up after CUDA graph capture"
WARMING_KERNELS = "warming up kernels (compile sizes, JIT and autotuning, right before CUDA graph capture)"
STARTING_WORKERS = "starting the workers (device and distributed set-up, then loading the model)"
# (label, pattern), in the order a start-up goes through them; the label may name groups of the match
PHASES: tuple[tuple[str, re.Pattern[str]], ...] = tuple((label, re.compile(pattern)) for label, pattern in (
    (CHECKPOINT,
     r"Loading (?:safetensors |pt |bin |gguf )?checkpoint shards:\s*\d+% Completed \| (?P<done>\d+)/(?P<total>\d+)"),
    (LOADING, r"Starting to load model |Load weight begin|Loading model weights(?! took)|Loading weights with"),
    # (vLLM logs the checkpoint's read time before process_weights_after_loading repacks it: still loading)
    (WEIGHTS_READ, r"Loading (?:model )?weights took"),
    (SIZING,
     r"Model loading took|Load weight end\b|Memory profiling takes|determine_available_memory"),
    ("compiling the model (torch.compile)", r"Compiling a graph for (?:dynamic|compile range)|Dynamo bytecode transform time"),
    (KV_SETUP,
     r"KV Cache is allocated|Memory pool end\b|GPU KV cache size:|Available KV cache memory:"),
    (CAPTURING,
     r"Capturing CUDA graph|Capturing cudagraphs|Capture cuda graph begin|Capture piecewise CUDA graph begin|"
     r"Capturing batches \(|Capture npu graph begin"),
    (WARMING, r"Graph capturing finished|Capture cuda graph end"),
    (SERVING,
     r"Application startup complete|The server is fired up and ready to roll|Uvicorn running on|"
     r"\"(?:POST|GET) /v1/\S+ HTTP/1\.1\" \d{3}|\] (?:Prefill|Decode) batch[.,]|Avg prompt throughput:|"
     # (vLLM's engine core, done with its start-up: the last start-up line of an in-process engine, a trainer's)
     r"init engine \(profile, create kv cache, warmup model\) took"),
))
_ORDER = {label: i for i, (label, _) in enumerate(PHASES)}
_ORDER[WARMING_KERNELS] = _ORDER[CAPTURING] - 0.5  # (no line of its own marks it; frames place a crash there)
_ORDER[STARTING_WORKERS] = _ORDER[CHECKPOINT] - 0.5  # (idem: before the checkpoint's first shard)
_QUICK = re.compile(r"checkpoint shards|load model|Load weight|Loading (?:model )?weights|Model loading took|Memory profiling|"
                    r"determine_available|Compiling a graph|Dynamo bytecode|[Cc]apturing|Capture |Graph capturing|KV Cache is|"
                    r"Memory pool end|KV cache size|Available KV cache|"
                    r"startup complete|ready to roll|Uvicorn running|HTTP/1\.1\"|(?:Prefill|Decode) batch|prompt throughput|"
                    r"init engine \(")


# what only a server that had started says when its engine dies: vLLM's EngineDeadError comes from the API server's
# output handler, which runs once the engine is up (a start-up failure is "Engine core initialization failed")
DIED_SERVING = re.compile(r"EngineDeadError|EngineCore encountered an issue\b")

# what a server that never finished starting says when its engine dies (vLLM: "EngineCore failed to start.",
# "Engine core initialization failed"; SGLang's worker: "WorkerProc failed to start")
DIED_STARTING = re.compile(r"EngineCore failed to start|Engine core initialization failed|WorkerProc failed to start")

STOP_WINDOW = 30  # a log whose last phase line is this close to its end stopped in that phase


def stopped_in(phases: list[tuple[int, str]], last_line: int) -> str | None:
    """The start-up phase a log ends in: its last phase line is among its last lines and is not serving."""
    if not phases or phases[-1][1] == SERVING or last_line - phases[-1][0] > STOP_WINDOW:
        return None
    return phases[-1][1]


def phase_of(text: str) -> str | None:
    """The phase a log line marks, or None."""
    if not _QUICK.search(text):
        return None
    for label, pattern in PHASES:
        m = pattern.search(text)
        if m:
            groups = m.groupdict()
            if groups.get("done") is not None and groups["done"] == groups.get("total"):
                return WEIGHTS_LOADED.format(total=groups["total"])
            return label.format(**groups)
    return None


# the engine steps a traceback passes through, for a crash with no phase line before it (a paste of the traceback
# alone): checked in this order, since a start-up step calls the same forward pass that serving does
_FRAME_PHASES = (
    # a running server taking new weights runs the loader again: not its start-up
    (UPDATING, frozenset((
        "reload_weights", "update_weights_from_tensor", "update_weights_from_disk", "update_weights_from_distributed",
        "_update_weights_from_flattened_bucket", "update_named_param", "_move_model_to_vllm", "wake_up"))),
    # vLLM's compile_or_warm_up_model runs kernel_warmup (FlashInfer's autotuner, DeepGEMM's JIT) before it calls
    # capture_model: a traceback through the warm-up failed there (its step is the capture's, its first part)
    (WARMING_KERNELS, frozenset((
        "kernel_warmup", "flashinfer_autotune",
        "deepgemm_grouped_fp8_gemm_nt_contiguous_warmup", "_deepgemm_grouped_fp8_gemm_nt_contiguous_warmup",
        "deepgemm_fp8_gemm_nt_warmup", "_deepgemm_fp8_gemm_nt_warmup"))),
    # (compile_or_warm_up_model alone: a paste cut below it mostly shows its `capture_model()` call)
    (CAPTURING, frozenset((
        "capture_model", "capture", "capture_one_batch_size", "init_cuda_graphs", "_capture_cudagraphs",
        "capture_graph", "init_device_graphs", "compile_or_warm_up_model"))),
    (SIZING, frozenset((
        "determine_available_memory", "profile_run", "_initialize_kv_caches", "initialize_from_config",
        "init_memory_pool", "profile_max_num_token", "determine_num_available_blocks", "get_kv_cache_specs",
        "initialize_kv_cache", "initialize_kv_cache_tensors", "_allocate_kv_cache_tensors", "init_kv_cache",
        # (vLLM builds each attention group's backend and metadata builders inside initialize_kv_cache)
        "initialize_attn_backend", "initialize_metadata_builders"))),
    (LOADING, frozenset((
        "load_model", "load_weights", "_initialize_model", "get_model", "load_weights_and_postprocess",
        "initialize_model", "process_weights_after_loading", "_load_weights", "_load_module", "init_model",
        # building the layers the weights go into
        "create_weights", "make_layers", "validate_fp8_block_shape", "validate_block_quant_shapes"))),
    # the executor starting its workers: device and process-group set-up, then each worker loads the model (vLLM
    # sizes the KV cache only after the executor is up, from EngineCore / LLMEngine, not under these)
    (STARTING_WORKERS, frozenset((
        "_init_workers_ray", "_init_executor"))),
    (SERVING, frozenset((
        "run_busy_loop", "step_with_batch_queue", "event_loop_normal", "event_loop_overlap", "run_batch",
        "forward_batch_generation", "execute_model", "_process_engine_step", "process_input_requests",
        # (a request's prompt logprobs: no start-up step scores a prompt)
        "_get_prompt_logprobs_dict", "compute_prompt_logprobs", "compute_prompt_logprobs_with_chunking"))),
    # the front end reading and checking the serve command, before any engine process starts
    (ARGUMENTS, frozenset((
        "validate_parsed_serve_args", "validate_api_server_args", "create_engine_config", "from_cli_args",
        "check_server_args", "prepare_server_args", "get_tool_parser", "get_reasoning_parser",
        # (the model config the engine config builds first, and its context-length check; the speculative config
        # it builds from --speculative-config)
        "create_model_config", "_get_and_verify_max_len", "get_and_verify_max_len", "create_speculative_config"))),
)
# every engine function that places a crash in a step
STEP_FUNCTIONS = frozenset().union(*(steps for _, steps in _FRAME_PHASES))
# the steps of a start-up in their order (serving last)
STEPS = (ARGUMENTS, LOADING, SIZING, CAPTURING, SERVING)


def phase_of_frames(functions) -> str | None:
    """The phase a traceback's frames place its crash in, or None."""
    names = set(functions)
    for label, steps in _FRAME_PHASES:
        if names & steps:
            return label
    return None


def step_of(phase: str | None) -> str | None:
    """The step of STEPS a phase label belongs to (the checkpoint's shards are loading, the KV cache is set up
    while sizing, the warm-up follows capture), or None (torch.compile, importing, no phase)."""
    if not phase:
        return None
    for label, step in ((CHECKPOINT, LOADING), (WEIGHTS_LOADED, LOADING), (WEIGHTS_READ, LOADING), (KV_SETUP, SIZING),
                        (WARMING, CAPTURING), (WARMING_KERNELS, CAPTURING), (STARTING_WORKERS, LOADING)):
        if phase.startswith(label.split("{", 1)[0]):
            return step
    return phase if phase in STEPS else None


def steps_of_frames(functions) -> frozenset[str]:
    """Every step whose engine functions are among `functions` (a rule's frames may name several)."""
    names = set(functions)
    named = {CAPTURING} if CAPTURE_STEP in names else set()  # (a rule naming the capture step by its name)
    return frozenset(step_of(label) for label, steps in _FRAME_PHASES if names & steps and step_of(label) in STEPS) | named


def step_frames(phase: str) -> frozenset[str]:
    """The engine functions that run the start-up step a phase label names (empty for serving and for a step no
    traceback table covers, such as torch.compile)."""
    step = step_of(phase)
    if step is None or step == SERVING:
        return frozenset()
    return frozenset().union(*(steps for label, steps in _FRAME_PHASES if step_of(label) == step))


def later(phase: str, than: str) -> bool:
    """`phase` comes after `than` in a start-up (both labels of PHASES; a templated label is never later)."""
    return phase in _ORDER and than in _ORDER and _ORDER[phase] > _ORDER[than]
