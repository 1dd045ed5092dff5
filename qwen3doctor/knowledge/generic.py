"""What every crash of a class shares, so a rule pattern that matches it says little: the generic messages,
exception types and frames (a hit on one of them is weak evidence)."""

# Messages every crash of a class shares: a message pattern that matches one of them is generic.
GENERIC_MESSAGES = (
    "CUDA error: an illegal memory access was encountered",
    "RuntimeError: CUDA error: an illegal memory access was encountered",
    "torch.AcceleratorError: CUDA error: an illegal memory access was encountered",
    "CUDA error: device-side assert triggered",
    "CUDA error: unspecified launch failure",
    "CUDA error: misaligned address",
    "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 79.19 GiB",
    "NCCL error: unhandled system error",
    "NCCL error: unhandled cuda error",
    "Engine core initialization failed. See root cause above.",
    "EngineDeadError: EngineCore encountered an issue. See stack trace (above) for the root cause.",
    "Segmentation fault (core dumped)",
    "ValueError: Model architectures ['Qwen3ForCausalLM'] failed to be inspected. Please check the logs for more details.",
    "RuntimeError: Error in inspecting model architecture 'Qwen3MoeForCausalLM'",
    "Fatal Python error: Aborted",
    "AssertionError",
    "KeyError",
    "RuntimeError",
    "ValueError",
    "Killed",
)
# Exception types too common to tell one root cause from another.
GENERIC_EXCEPTIONS = (
    "KeyError", "ValueError", "RuntimeError", "AssertionError", "TypeError", "AttributeError", "IndexError",
    "Exception", "NotImplementedError", "ImportError", "OSError", "torch.AcceleratorError", "torch.OutOfMemoryError",
    "torch.cuda.OutOfMemoryError", "ZeroDivisionError",
)
# Function names every engine traceback passes through: a frame pattern that matches one says nothing.
GENERIC_FRAMES = (
    "__init__", "__call__", "forward", "_call_impl", "_wrapped_call_impl", "run", "main", "_bootstrap", "wrapper",
    "inner", "decorate_context", "_fn", "apply", "load_model", "load_weights", "get_model", "execute_model",
    "_model_forward", "worker_busy_loop", "worker_main", "run_engine_core", "run_busy_loop", "step", "__getitem__",
    "run_scheduler_process", "event_loop_normal", "event_loop_overlap", "run_batch", "forward_batch_generation",
    "initialize", "capture", "capture_one_batch_size", "run_once", "collective_rpc", "run_method", "from_pretrained",
    "init_tokenizer", "get_config", "cmd", "run_server", "build_async_engine_client", "create_engine_config",
)
