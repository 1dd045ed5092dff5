"""What every crash of a class shares, so a rule pattern that matches it says little: the generic messages,
exception types and frames (a hit on one of them is weak evidence)."""

from .defaults import SGLANG_DEFAULT_SERVER_ARGS
from ..vocab import PYTHON_ERRORS

# Messages every crash of a class shares: a message pattern that matches one of them is generic.
GENERIC_MESSAGES = (
    "CUDA error: an illegal memory access was encountered",
    "RuntimeError: CUDA error: an illegal memory access was encountered",
    "torch.AcceleratorError: CUDA error: an illegal memory access was encountered",
    # (a Triton kernel's launch or sync reports the same fault in its own words, whichever kernel made it)
    "RuntimeError: Triton Error [CUDA]: an illegal memory access was encountered",
    "CUDA error: device-side assert triggered",
    # the runtime's names for the same two errors (`Failed: Cuda error ... 'cudaErrorIllegalAddress'`, a report's prose)
    "cudaErrorIllegalAddress: an illegal memory access was encountered",
    "cudaErrorAssert: device-side assert triggered",
    # NaN or inf probabilities reaching torch.multinomial: whatever made them (a float16 overflow, weights left
    # uninitialised, a kernel's bug on one backend)
    "RuntimeError: probability tensor contains either `inf`, `nan` or element < 0",
    "CUDA error: unspecified launch failure",
    # the runtime's catch-all (cudaErrorUnknown): a driver layer refusing a call, WSL, a Xid, an old runtime
    "RuntimeError: CUDA error: unknown error",
    "cudaErrorUnknown: unknown error",
    "CUDA error: misaligned address",
    # the runtime's status for any bad parameter to any call (a pinned allocation too big, an IPC handle refused, a
    # launch configuration out of range): which call, not these words, tells the causes apart
    "RuntimeError: CUDA error: invalid argument",
    # torch's check that a kernel's inputs share one device, whichever tensor was left behind (an index built on the CPU,
    # a module not moved, an offloaded weight): which tensor and which model code, not these words, tell causes apart
    "RuntimeError: Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu!",
    "RuntimeError: Expected all tensors to be on the same device, but got index is on cpu, different from other "
    "tensors on cuda:0 (when checking argument in method wrapper_CUDA__index_select)",
    # ROCm's runtime line for a faulting kernel, whichever kernel it was
    "Memory access fault by GPU node-2 (Agent handle: 0x5581d2a0) on address 0x7f1c2a400000. Reason: Unknown.",
    # the HSA runtime's queue abort for the same kind of fault (rocdevice.cpp), whichever kernel it was
    ":0:rocdevice.cpp            :3020: 1183357978 us:  Callback: Queue 0x7f35e8100000 aborting with error : "
    "HSA_STATUS_ERROR_MEMORY_APERTURE_VIOLATION: The agent attempted to access memory beyond the largest legal "
    "address. code: 0x29",
    ":0:rocdevice.cpp            :3020: 1183357978 us:  Callback: Queue 0x7f35e8100000 aborting with error : "
    "HSA_STATUS_ERROR_EXCEPTION: An HSAIL operation resulted in a hardware exception. code: 0x1016",
    "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 79.19 GiB",
    # torch_npu's words for the same, whatever allocation ran out (start-up or serving, KV cache or activations)
    "RuntimeError: NPU out of memory. Tried to allocate 1.25 GiB (NPU 0; 60.97 GiB total capacity; 61.10 GiB already allocated)",
    # the CANN runtime's own line for the same failure (207001: ACL_ERROR_RT_MEMORY_ALLOCATION)
    "alloc device memory failed, runtime result = 207001",
    "NCCL error: unhandled system error",
    "NCCL error: unhandled cuda error",
    "Engine core initialization failed. See root cause above.",
    "EngineDeadError: EngineCore encountered an issue. See stack trace (above) for the root cause.",
    "EngineCore encountered a fatal error.",
    # the API server's record of any streamed request that failed, the engine's death included
    "Error in chat completion stream generator.",
    "Segmentation fault (core dumped)",
    "ValueError: Model architectures ['Qwen3ForCausalLM'] failed to be inspected. Please check the logs for more details.",
    "RuntimeError: Error in inspecting model architecture 'Qwen3MoeForCausalLM'",
    "Fatal Python error: Aborted",
    "AssertionError",
    "KeyError",
    "RuntimeError",
    "ValueError",
    "Killed",
    # Python's own messages for a value that is missing or short, raised wherever code meets one
    "AttributeError: 'NoneType' object has no attribute 'shape'",
    "TypeError: 'NoneType' object is not subscriptable",
    "TypeError: 'NoneType' object is not iterable",
    "TypeError: 'NoneType' object does not support item assignment",
    "IndexError: list index out of range",
    # torch's words for any index past a tensor's end, whichever tensor and index
    "IndexError: index 1 is out of bounds for dimension 0 with size 1",
    # Python's report of any child command that failed (a build, a pip install, a launcher's step)
    "subprocess.CalledProcessError: Command '['ninja', '-v']' returned non-zero exit status 1.",
    # Python's words for any file the process may not open, create or run, whichever file (a cache folder, a model
    # folder, a compiler on the PATH): which file and which caller, not these words, tell causes apart
    "PermissionError: [Errno 13] Permission denied: 'nvcc'",
    # torch's own words for two tensors whose shapes disagree, raised by any op of any layer
    "RuntimeError: The size of tensor a (4) must match the size of tensor b (8) at non-singleton dimension 0",
    "RuntimeError: shape '[8192, -1, 128]' is invalid for input of size 4194304",
)
# Python's own wording of an error, whatever object or name it is about: a pattern's literal that says no more than
# one of these (`object has no attribute` between two names the paste may not show) cannot stand for the pattern
# on a pasted fragment (judge/match.py: fragment_literals)
PYTHON_WORDING = tuple(fragment for fragment, _, _ in PYTHON_ERRORS)
# Exception types too common to tell one root cause from another.
GENERIC_EXCEPTIONS = (
    "KeyError", "ValueError", "RuntimeError", "AssertionError", "TypeError", "AttributeError", "IndexError",
    "Exception", "NotImplementedError", "ImportError", "OSError", "torch.AcceleratorError", "torch.OutOfMemoryError",
    "torch.cuda.OutOfMemoryError", "ZeroDivisionError",
)
# Frames of pure scaffolding (Python's own, torch's module calls, the engines' process and RPC plumbing): they do not
# even say whether the server was starting or serving. Those of the last lines are in the tracebacks of the example
# logs of 10+ rules each.
SCAFFOLD_FRAMES = (
    "__init__", "__call__", "forward", "_call_impl", "_wrapped_call_impl", "run", "main", "_bootstrap", "wrapper",
    "inner", "decorate_context", "_fn", "apply", "__getitem__", "step", "sync_wrapper",
    "<module>", "<lambda>", "<listcomp>", "_run_module_as_main", "_run_code", "__getattr__", "__getattribute__", "__post_init__",
    "_init_executor", "_process_engine_step", "get_response", "wait_for_engine_startup", "collective_rpc", "run_method",
    "build_async_engine_client_from_engine_args", "run_event_loop", "dispatch_event_loop",
    # the V0 engine's loop (MQLLMEngine): every V0 crash at serving time passes these
    "run_engine_loop", "engine_step", "run_mp_engine",
    # every attention backend's metadata builder (FlashInfer's, FlashAttention's, the GDN one) is a `build`
    "build",
)
# SGLang's model runner and every attention backend run each prefill / decode batch through these, in CUDA graph
# capture as while serving: a cut traceback through them is on the path of every batch's crash and places it nowhere
PER_BATCH_FRAMES = ("forward_extend", "forward_decode", "forward_idle")
# Frames every crash of one phase passes through (loading, capture, the engine loop): they place a crash on a path
# (judge/rank.py: a cut traceback's candidates), but a `match` pattern that hits one says nothing of its own.
GENERIC_FRAMES = SCAFFOLD_FRAMES + (
    "load_model", "load_weights", "_load_module", "get_model", "execute_model", "_model_forward", "worker_busy_loop", "worker_main",
    # vllm-ascend's model runner: every forward pass while serving goes through these
    "_generate_process_reqs_hidden_states", "execute_model_with_error_logging",
    "run_engine_core", "run_busy_loop", "run_scheduler_process", "event_loop_normal", "event_loop_overlap",
    "run_batch", "forward_batch_generation",
    *PER_BATCH_FRAMES, "initialize", "capture", "capture_one_batch_size", "run_once",
    "from_pretrained", "init_tokenizer", "get_config", "cmd", "run_server", "build_async_engine_client",
    "create_engine_config",
    # the entry of a start-up step (CUDA graph capture, the memory profile, KV cache sizing): every crash in that step
    "init_cuda_graphs", "capture_model", "_capture_cudagraphs", "init_device_graphs", "profile_run", "_dummy_run", "compile_or_warm_up_model",
    "determine_available_memory", "_initialize_kv_caches", "init_memory_pool",
    # every attention backend's metadata (GDN, Mamba2, FlashInfer, MLA alike) is built through these each step
    "_build_attn_group_metadata", "_build_attention_metadata",
    # every chat request renders its messages through these (vLLM's renderer, transformers' template call): a
    # traceback through them is a chat request's, whatever its template or its messages did wrong
    "create_chat_completion", "_preprocess_chat", "safe_apply_chat_template", "apply_hf_chat_template",
    "apply_chat_template", "render_jinja_template",
    # ... and every response is produced by one of these generators, streamed or whole
    "chat_completion_stream_generator", "chat_completion_full_generator", "completion_stream_generator",
    "create_completion",
)
# Lines a healthy start-up or a healthy server prints, whatever later goes wrong: a `log` pattern that matches one
# of them says nothing about a crash, so a hit on it is weak (it never makes a rule a candidate on its own).
# the periodic statistics of a server at work (vLLM's throughput line with prefix caching on, as by default; SGLang's
# batch lines), with the numbers traffic carries (the lint of rule patterns runs them too: tools.ruletools.TRAFFIC)
STATISTICS_LINES = (
    "(APIServer pid=1) INFO 03-02 10:15:30 [loggers.py:123] Engine 000: Avg prompt throughput: 2080.5 tokens/s, Avg "
    "generation throughput: 1024.0 tokens/s, Running: 100 reqs, Waiting: 40 reqs, GPU KV cache usage: 30.9%, "
    "Prefix cache hit rate: 80.0%",
    "[2025-05-01 10:00:00 TP0] Decode batch, #running-req: 4090, #token: 3090, token usage: 0.50, cuda graph: True, "
    "gen throughput (token/s): 2080.12, #queue-req: 100",
)
ORDINARY_LINES = STATISTICS_LINES + (
    "INFO 03-02 10:15:01 [__init__.py:241] Automatically detected platform cuda.",
    "INFO 03-02 10:15:01 [__init__.py:43] Available plugins for group vllm.platform_plugins:",
    # what vllm-ascend prints on every start (a platform is a `when.platform` gate, not a sign of one cause)
    "INFO 03-02 10:15:01 [__init__.py:207] Platform plugin ascend is activated",
    "INFO 03-02 10:15:01 [importing.py:63] vllm_ascend: loaded torch_npu 2.5.1 for the NPU platform",
    "(APIServer pid=1) INFO 03-02 10:15:05 [api_server.py:1896] vLLM API server version 0.11.0",
    "(APIServer pid=1) INFO 03-02 10:15:05 [utils.py:328] non-default args: {'model': 'Qwen/Qwen3-8B'}",
    "(APIServer pid=1) INFO 03-02 10:15:12 [model.py:547] Resolved architecture: Qwen3ForCausalLM",
    "(APIServer pid=1) INFO 03-02 10:15:12 [model.py:1510] Using max model len 40960",
    "(APIServer pid=1) INFO 03-02 10:15:12 [scheduler.py:205] Chunked prefill is enabled with max_num_batched_tokens=8192.",
    "(EngineCore_DP0 pid=211) INFO 03-02 10:15:20 [core.py:644] Waiting for init message from front-end.",
    # the GDN prefill kernel a Qwen3.5 / Qwen3-Next start chose: every healthy start on Hopper / Blackwell prints it
    "(EngineCore_DP0 pid=211) INFO 03-02 10:15:40 [gdn_linear_attn.py:126] Using FlashInfer GDN prefill kernel "
    "(requested=auto, head_k_dim=128).",
    "(EngineCore_DP0 pid=211) INFO 03-02 10:15:21 [parallel_state.py:1208] rank 0 in world size 1 is assigned as DP rank 0, PP rank 0, TP rank 0, EP rank 0",
    # the engine's echo of its whole configuration, defaults included (V0 and V1 wording)
    "INFO 03-02 10:15:13 llm_engine.py:237] Initializing an LLM engine (v0.6.3) with config: model='Qwen/Qwen2.5-7B-Instruct', "
    "speculative_config=None, tokenizer='Qwen/Qwen2.5-7B-Instruct', skip_tokenizer_init=False, tokenizer_mode=auto, revision=None, "
    "trust_remote_code=False, dtype=torch.bfloat16, max_seq_len=32768, download_dir=None, load_format=LoadFormat.AUTO, "
    "tensor_parallel_size=1, pipeline_parallel_size=1, disable_custom_all_reduce=False, quantization=None, enforce_eager=False, "
    "kv_cache_dtype=auto, quantization_param_path=None, device_config=cuda, seed=0, served_model_name=Qwen/Qwen2.5-7B-Instruct, "
    "use_v2_block_manager=True, num_scheduler_steps=1, chunked_prefill_enabled=False multi_step_stream_outputs=True, "
    "enable_prefix_caching=False, use_async_output_proc=True, use_cached_outputs=False, mm_processor_kwargs=None)",
    "(EngineCore_DP0 pid=211) INFO 03-02 10:15:20 [core.py:77] Initializing a V1 LLM engine (v0.11.0) with config: "
    "model='Qwen/Qwen3-8B', speculative_config=None, tokenizer='Qwen/Qwen3-8B', skip_tokenizer_init=False, tokenizer_mode=auto, "
    "revision=None, tokenizer_revision=None, trust_remote_code=False, dtype=torch.bfloat16, max_seq_len=40960, download_dir=None, "
    "load_format=auto, tensor_parallel_size=1, pipeline_parallel_size=1, data_parallel_size=1, disable_custom_all_reduce=False, "
    "quantization=None, enforce_eager=False, kv_cache_dtype=auto, device_config=cuda, seed=0, served_model_name=Qwen/Qwen3-8B, "
    "enable_prefix_caching=True, chunked_prefill_enabled=True, pooler_config=None, compilation_config={'level': 3}",
    "(EngineCore_DP0 pid=211) INFO 03-02 10:15:22 [gpu_model_runner.py:2602] Starting to load model Qwen/Qwen3-8B...",
    # the same start-up lines for the families most 2026 logs run (a hybrid model's name is no evidence of any one of
    # its crashes: a pattern that only names the family is a `when.family` condition, not a sign)
    "(EngineCore_DP0 pid=211) INFO 03-02 10:15:22 [gpu_model_runner.py:2602] Starting to load model Qwen/Qwen3.6-35B-A3B-FP8...",
    "(EngineCore_DP0 pid=211) INFO 03-02 10:15:22 [gpu_model_runner.py:2602] Starting to load model Qwen/Qwen3-Next-80B-A3B-Instruct...",
    "(APIServer pid=1) INFO 03-02 10:15:12 [model.py:547] Resolved architecture: Qwen3_5MoeForConditionalGeneration",
    "(APIServer pid=1) INFO 03-02 10:15:12 [model.py:547] Resolved architecture: Qwen3NextForCausalLM",
    "(EngineCore_DP0 pid=211) INFO 03-02 10:15:22 [cuda.py:366] Using Flash Attention backend on V1 engine.",
    "(EngineCore_DP0 pid=211) INFO 03-02 10:15:30 [default_loader.py:267] Loading weights took 7.12 seconds",
    "(EngineCore_DP0 pid=211) INFO 03-02 10:15:31 [gpu_model_runner.py:2653] Model loading took 15.27 GiB and 8.01 seconds",
    "(EngineCore_DP0 pid=211) INFO 03-02 10:15:40 [gpu_worker.py:298] Available KV cache memory: 52.13 GiB",
    "(EngineCore_DP0 pid=211) INFO 03-02 10:15:40 [kv_cache_utils.py:1087] GPU KV cache size: 379,648 tokens",
    # vLLM's capture progress bars (V0, and V1's per mode)
    "Capturing CUDA graph shapes: 100%|██████████| 67/67 [00:20<00:00,  3.31it/s]",
    "Capturing CUDA graphs (mixed prefill-decode, PIECEWISE): 100%|██████████| 67/67 [00:05<00:00, 12.41it/s]",
    "(EngineCore_DP0 pid=211) INFO 03-02 10:15:55 [gpu_model_runner.py:3480] Graph capturing finished in 12 secs, took 0.56 GiB",
    "(EngineCore_DP0 pid=211) INFO 03-02 10:15:55 [core.py:210] init engine (profile, create kv cache, warmup model) took 25.01 seconds",
    "(APIServer pid=1) INFO 03-02 10:15:56 [api_server.py:1971] Starting vLLM API server 0 on http://0.0.0.0:8000",
    "(APIServer pid=1) INFO:     Started server process [7225]",
    "(APIServer pid=1) INFO:     Waiting for application startup.",
    "(APIServer pid=1) INFO:     Application startup complete.",
    "INFO:     Uvicorn running on http://0.0.0.0:8000 (Press CTRL+C to quit)",
    # SGLang's start-up dump of every argument, defaults included (knowledge/defaults.py)
    SGLANG_DEFAULT_SERVER_ARGS,
    "[2025-05-01 10:00:05 TP0] Init torch distributed begin.",
    "[2025-05-01 10:00:06 TP0] Load weight begin. avail mem=78.50 GB",
    "[2025-05-01 10:00:15 TP0] Load weight end. type=Qwen3ForCausalLM, dtype=torch.bfloat16, avail mem=62.10 GB",
    "[2025-05-01 10:00:16 TP0] KV Cache is allocated. #tokens: 400000, K size: 27.47 GB, V size: 27.47 GB",
    "[2025-05-01 10:00:16 TP0] Capture cuda graph begin. This can take up to several minutes. avail mem=6.10 GB",
    "[2025-05-01 10:00:40 TP0] Capture cuda graph end. Time elapsed: 24.00 s. mem usage=0.80 GB. avail mem=5.30 GB.",
    "[2025-05-01 10:00:41] INFO:     Started server process [8812]",
    "[2025-05-01 10:00:45] The server is fired up and ready to roll!",
    # the access log of a server answering requests, every endpoint (a request reached the server: what it carried,
    # not that it came, may tell a cause)
    '(APIServer pid=1) INFO:     127.0.0.1:47586 - "POST /v1/chat/completions HTTP/1.1" 200 OK',
    'INFO:     127.0.0.1:47588 - "POST /v1/completions HTTP/1.1" 200 OK',
    'INFO:     10.0.0.7:51022 - "POST /v1/embeddings HTTP/1.1" 200 OK',
    'INFO:     10.0.0.7:51024 - "POST /v1/score HTTP/1.1" 200 OK',
    'INFO:     10.0.0.7:51026 - "POST /v1/rerank HTTP/1.1" 200 OK',
    'INFO:     10.0.0.7:51028 - "POST /pooling HTTP/1.1" 200 OK',
    'INFO:     10.0.0.7:51030 - "POST /classify HTTP/1.1" 200 OK',
    'INFO:     10.0.0.7:51032 - "POST /inference/v1/generate HTTP/1.1" 200 OK',
    '[2025-05-01 10:00:46] INFO:     127.0.0.1:40000 - "POST /generate HTTP/1.1" 200 OK',
    '[2025-05-01 10:00:46] INFO:     127.0.0.1:40002 - "POST /encode HTTP/1.1" 200 OK',
    '[2025-05-01 10:00:47] INFO:     127.0.0.1:40004 - "GET /health HTTP/1.1" 200 OK',
    'INFO:     127.0.0.1:40006 - "GET /v1/models HTTP/1.1" 200 OK',
    # the official images and the multiprocessing method most deployments set, named in launches and listings
    "image: lmsysorg/sglang:latest",
    "docker run --gpus all --ipc=host lmsysorg/sglang:v0.5.5-cu129 python3 -m sglang.launch_server --model-path Qwen/Qwen3-8B",
    "docker run --runtime nvidia --gpus all vllm/vllm-openai:latest --model Qwen/Qwen3-8B",
    # an installer's or a listing's line of the packages every engine environment holds (uv, pip, collect_env):
    # a package's name there says it is installed, not that the crash came from it
    "+ compressed-tensors==0.13.0",
    "Successfully installed compressed-tensors-0.12.2 flashinfer-python-0.5.2 torch-2.9.0 transformers-4.57.1 triton-3.5.0 vllm-0.11.1 xgrammar-0.1.25",
    "[pip3] compressed-tensors==0.12.2",
    "[pip3] flashinfer-python==0.5.2",
    "export VLLM_WORKER_MULTIPROC_METHOD=spawn",
    "VLLM_WORKER_MULTIPROC_METHOD=spawn",
    # the wrapper lines every start-up or serving death prints, whatever killed it, and the checkpoint progress bar
    "(EngineCore_DP0 pid=211) ERROR 03-02 10:15:31 [multiproc_executor.py:597] WorkerProc failed to start.",
    "(APIServer pid=1) ERROR 03-02 10:20:31 [async_llm.py:480] AsyncLLM output_handler failed.",
    "(APIServer pid=1) RuntimeError: Engine core initialization failed. See root cause above. Failed core proc(s): {}",
    "Loading safetensors checkpoint shards:   0% Completed | 0/4 [00:00<?, ?it/s]",
    # and what any server prints when it stops, whatever stopped it
    "(APIServer pid=1) INFO:     Shutting down",
    "(APIServer pid=1) INFO:     Waiting for application shutdown.",
    "(APIServer pid=1) INFO:     Application shutdown complete.",
    "(APIServer pid=1) INFO:     Finished server process [7225]",
)
