"""Tolerant reading: what users paste (indented, wrapped, prefixed by node logs, escaped into JSON, cut short)
still yields the crash, its frames and its exception."""

import io
import textwrap

from qwen3doctor.judge.pipeline import diagnose_text, scan_source
from qwen3doctor.read.reader import LineSource
from qwen3doctor.render.plain import crash_line

TB = '''Traceback (most recent call last):
  File "/usr/local/lib/python3.12/dist-packages/vllm/v1/engine/core.py", line 691, in run_engine_core
    engine_core = EngineCoreProc(*args, **kwargs)
  File "/usr/local/lib/python3.12/dist-packages/vllm/model_executor/layers/fla/ops/chunk.py", line 1320, in chunk_gated_delta_rule_fwd
    o = chunk_fwd_o(q, k, v, h)
ValueError: chunk size 96 is not a power of two
'''


def crashes(text, catalog):
    return diagnose_text(text, catalog).crashes


def primary(text, catalog):
    found = crashes(text, catalog)
    assert found, "no crash read"
    return found[0]


def functions_of(text, catalog):
    """The functions of the first crash's frames, outermost first."""
    return [f.function for f in primary(text, catalog).frames]


def test_an_indented_paste_keeps_its_exception_line(catalog):
    c = primary(textwrap.indent(TB, "    "), catalog)
    assert c.exception_type == "ValueError" and c.message == "chunk size 96 is not a power of two"
    assert c.functions[-1] == "chunk_gated_delta_rule_fwd" and c.complete


def test_frame_lines_hard_wrapped_by_a_page_are_joined(catalog):
    wrapped = TB.replace(", in chunk_gated_delta_rule_fwd", ", in\nchunk_gated_delta_rule_fwd").replace(
        "/dist-packages/vllm/v1/engine", "/dist-pack\nages/vllm/v1/engine")
    c = primary(wrapped, catalog)
    assert c.functions == ("run_engine_core", "chunk_gated_delta_rule_fwd")
    assert c.frames[0].file.endswith("dist-packages/vllm/v1/engine/core.py")
    assert c.exception_type == "ValueError"


def test_kubernetes_cri_prefixes_are_peeled(catalog):
    cri = "".join(f"2026-01-01T00:00:{i:02d}.123456789Z stderr F {line}\n" for i, line in enumerate(TB.splitlines()))
    c = primary(cri, catalog)
    assert c.functions[-1] == "chunk_gated_delta_rule_fwd" and c.exception_type == "ValueError"


def test_grep_n_and_date_time_prefixes_are_peeled(catalog):
    grep = "".join(f"engine.log:{100 + i}:{line}\n" for i, line in enumerate(TB.splitlines()))
    assert primary(grep, catalog).functions[-1] == "chunk_gated_delta_rule_fwd"
    dated = "".join(f"2026-03-04 10:11:12: {line}\n" for line in TB.splitlines())
    assert primary(dated, catalog).message == "chunk size 96 is not a power of two"


def test_a_launcher_rank_tag_is_a_process(catalog):
    log = "\n".join(f"[1/8,TP1][pid=5510] ERROR 01-28 10:47:07.623 [forward_context.py:617] {line}" for line in TB.splitlines())
    c = primary(log, catalog)
    assert c.process == "1/8,TP1" and c.functions[-1] == "chunk_gated_delta_rule_fwd"


def test_a_traceback_escaped_into_a_json_string(catalog):
    body = TB.replace('"', '\\"').replace("\n", "\\n")
    c = primary('{"object": "error", "detail": "' + body + '", "code": 500}\n', catalog)
    assert c.exception_type == "ValueError" and c.functions[-1] == "chunk_gated_delta_rule_fwd"


def test_docker_json_file_lines(catalog):
    import json

    log = "".join(json.dumps({"log": line + "\n", "stream": "stderr", "time": "2026-01-01T00:00:00Z"}) + "\n"
                  for line in TB.splitlines())
    assert primary(log, catalog).exception_type == "ValueError"


def test_faulthandler_frames_belong_to_the_fatal_error_most_recent_last(catalog):
    log = '''Fatal Python error: Segmentation fault

Current thread 0x00007f2a9c5ff640 (most recent call first):
  File "/usr/local/lib/python3.12/dist-packages/vllm/distributed/device_communicators/custom_all_reduce.py", line 331 in all_reduce
  File "/usr/local/lib/python3.12/dist-packages/vllm/v1/worker/gpu_worker.py", line 512 in execute_model
  File "/usr/lib/python3.12/threading.py", line 1010 in run
'''
    c = primary(log, catalog)
    assert c.message.startswith("Fatal Python error: Segmentation fault")
    assert c.functions == ("run", "execute_model", "all_reduce")


PYSPY = """\
$ py-spy dump --pid 431 --native --locals
Process 431: VLLM::Worker_TP0
Python v3.12.11 (/usr/bin/python3.12)

Thread 431 (active+gil): "MainThread"
    cudaStreamSynchronize (libcudart.so.12)
    all_reduce (vllm/distributed/device_communicators/pynccl.py:160)
        Arguments:
            self: <PyNcclCommunicator at 0x7f3c2a1b2d10>
            in_tensor: <Tensor at 0x7f3b9c0e4a40>
        Locals:
            out_tensor: <Tensor at 0x7f3b9c0e4b30>
    Scheduler.event_loop (sglang/srt/managers/scheduler.py:1010)
    <module> (<string>:1)
Thread 517 (idle): "Thread-1 (_report_usage_worker)"
    _report_continuous_usage (vllm/usage/usage_lib.py:257)
    run (threading.py:1012)
(EngineCore pid=311) INFO 10-09 03:13:40 [shm_broadcast.py:681] No available shared memory broadcast block found in 60 seconds.
"""


def test_pyspy_dump_is_a_hang_where_the_live_thread_is_stuck(catalog):
    found = crashes(PYSPY, catalog)
    assert len(found) == 1  # the idle thread is no crash; the log line after the dump is the log's again
    c = found[0]
    assert c.crash_class == "hang" and c.exception_type is None and not c.message and not c.complete
    # most recent call first in the dump, read in call order; a qualified name is its function; arguments and locals
    # are no frames
    assert c.functions == ("<module>", "event_loop", "all_reduce")
    assert [f.function for f in c.native] == ["cudaStreamSynchronize"]
    assert crash_line(c).startswith("a hang: a live thread's stack (py-spy)")
    assert diagnose_text(PYSPY.replace("(active+gil)", "(idle)"), catalog).crashes == ()
    # the thread's id redacted or left out by the paster
    for head in ('Thread <pid> (active): "MainThread"', 'Thread (active+gil): "MainThread"'):
        found = crashes(PYSPY.replace('Thread 431 (active+gil): "MainThread"', head), catalog)
        assert [c.functions[-1] for c in found if c.crash_class == "hang"] == ["all_reduce"]


def test_native_frames_name_the_kernel(catalog):
    log = '''CUDA Exception: Warp Illegal Address
The exception was triggered at PC 0x7fffd3a5c4b0
#0  0x00007fffd3a5c4b0 in void vllm::moe::topkGatingSoftmax<float, 8, 8, 16, 32, int>(float const*, bool const*, float*, int, int*, int*, int, int, int)<<<(64,1,1),(32,4,1)>>> () at csrc/moe/topk_softmax_kernels.cu:247
'''
    found = crashes(log, catalog)
    assert [f.function for c in found for f in c.native] == ["topkGatingSoftmax"]
    cpp = TB + "Exception raised from c10_cuda_check_implementation at /pytorch/c10/cuda/CUDAException.cpp:44\n" \
        "frame #0: c10::Error::Error(c10::SourceLocation, std::string) + 0x96 (0x7f9 in /usr/lib/libc10.so)\n" \
        "frame #1: void flashinfer::BatchPrefillWithPagedKVCacheKernel<128u>(Params) + 0x1a (0x7fa in /x/libflashinfer.so)\n"
    c = primary(cpp, catalog)
    assert [f.function for f in c.native] == ["Error", "BatchPrefillWithPagedKVCacheKernel"]
    assert c.message == "chunk size 96 is not a power of two"


def test_an_exception_inside_a_wrapper_line_is_the_cause(catalog):
    log = ("ERROR 10-11 16:03:09 [engine.py:157] RuntimeError: Worker failed with error 'KeyError: "
           "'model.layers.3.mlp.experts.w2_weight'', please check the stack trace above for the root cause\n")
    found = crashes(log, catalog)
    inner = [c for c in found if c.exception_type == "KeyError"]
    assert inner and inner[0].role in ("primary", "cause") and "w2_weight" in inner[0].message
    assert "please check" not in inner[0].message


def test_an_unknown_type_just_before_a_chain_marker_is_the_cause(catalog):
    log = TB.replace("ValueError: chunk size 96 is not a power of two", "vllm.InvalidChunking: chunk size 96") + \
        "\nThe above exception was the direct cause of the following exception:\n\n" \
        "Traceback (most recent call last):\n  File \"/x/core.py\", line 3, in main\nRuntimeError: Engine core initialization failed\n"
    c = [c for c in crashes(log, catalog) if c.exception_type == "vllm.InvalidChunking"]
    assert c and c[0].message == "chunk size 96" and c[0].functions[-1] == "chunk_gated_delta_rule_fwd"


def test_a_paste_cut_to_a_bare_type_has_an_unknown_message(catalog):
    cut = TB.replace("ValueError: chunk size 96 is not a power of two", "ValueError")
    c = primary(cut, catalog)
    assert c.exception_type == "ValueError" and c.message_cut and not c.said
    # an assert with no text is the normal bare type, not a cut
    c = primary(TB.replace("ValueError: chunk size 96 is not a power of two", "AssertionError"), catalog)
    assert not c.message_cut


def test_error_records_alone_are_crash_evidence(catalog):
    log = '''WARNING 06-01 22:29:39 utils.py:69] Qwen3ForCausalLM has no vLLM implementation, falling back to Transformers implementation.
INFO 06-01 22:29:41 model_runner.py:1115] Loading model weights took 3.2054 GB
ERROR 06-01 22:29:41 engine.py:389] TransformersModel does not support LoRA yet.
'''
    report = diagnose_text(log, catalog)
    assert report.verdict.value != "no-crash"
    assert report.crashes[0].message == "TransformersModel does not support LoRA yet."
    # beside a real traceback, error records are not crashes of their own
    report = diagnose_text(log + TB, catalog)
    assert [c.exception_type for c in report.crashes] == ["ValueError"]


def test_cuda_advice_names_the_error(catalog):
    log = '''CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.
For debugging consider passing CUDA_LAUNCH_BLOCKING=1
Compile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.
Search for `cudaErrorIllegalAddress' in https://docs.nvidia.com/cuda/cuda-runtime-api/group__CUDART__TYPES.html for more information.
'''
    c = primary(log, catalog)
    assert c.message == "CUDA error: an illegal memory access was encountered"
    assert c.crash_class == "illegal-memory-access"
    # a capture-time error named only by its code: CUDA's own wording, which the rules' patterns use
    capture = log.replace("cudaErrorIllegalAddress", "cudaErrorStreamCaptureUnsupported")
    assert primary(capture, catalog).message == "CUDA error: operation not permitted when stream is capturing"


def test_a_dump_of_the_scheduled_batch_is_a_crash_sign(catalog):
    log = "scheduled_spec_decode_tokens={chatcmpl-8d1: [-1, -1, -1]}\nnum_spec_tokens_to_schedule=3\n"
    report = diagnose_text(log, catalog)
    assert report.crashes and report.verdict.value != "no-crash"


def test_an_engine_message_wrapped_over_lines_is_crash_evidence(catalog):
    log = ("To serve at least one request with the model's max seq len (131072), 4.50 GiB KV cache is needed,\n"
           "which is larger than the available KV cache memory (3.12 GiB). Based on the available memory, the\n"
           "estimated maximum model length is 90816. Try increasing `gpu_memory_utilization` or decreasing `max_model_len`\n")
    report = diagnose_text(log, catalog)
    assert report.findings and report.findings[0].rule_id == "kv-cache-too-small-for-max-model-len"
    assert report.findings[0].confidence != "high"  # pasted lines, not the crash line itself


def test_a_fragment_cut_mid_message_still_names_its_rule(catalog):
    report = diagnose_text("exceeds available Mamba cache blocks (64)... CUDA graph capture cannot proceed\n", catalog)
    assert report.findings and report.findings[0].rule_id == "mamba-cache-blocks-below-max-num-seqs"
    ev = [e for e in report.findings[0].evidence if e.state == "hit"]
    assert ev[0].text.startswith("message fragment")


def test_no_fragment_from_a_logged_record_beside_a_cut_traceback(catalog):
    # the traceback's own message is what is missing; the header logger.exception printed above it is not it
    log = ('INFO:     10.0.0.9:4410 - "POST /v1/chat/completions HTTP/1.1" 200 OK\n'
           "ERROR 04-05 11:55:07 [hermes_tool_parser.py:110] Error in extracting tool call from response.\n"
           "ERROR 04-05 11:55:07 [hermes_tool_parser.py:110] Traceback (most recent call last):\n"
           'ERROR 04-05 11:55:07 [hermes_tool_parser.py:110]   File "/v/hermes_tool_parser.py", line 88, in extract_tool_calls\n')
    report = diagnose_text(log, catalog)
    assert not any(c.excerpt for c in report.crashes)


def test_a_title_line_beside_a_cut_traceback_is_its_message(catalog):
    # sglang#6580: the title holds the message the pasted traceback stops before
    log = ("[Bug] awq quantization requires some operators from vllm. Please install vllm by `pip install vllm==0.8.4`\n"
           "[2025-05-25 00:29:24] Scheduler hit an exception: Traceback (most recent call last):\n"
           '  File "/sgl-workspace/sglang/python/sglang/srt/managers/scheduler.py", line 2255, in run_scheduler_process\n'
           "    scheduler = Scheduler(server_args, port_args, gpu_id, tp_rank, pp_rank, dp_rank)\n"
           '  File "/sgl-workspace/sglang/python/sglang/srt/managers/tp_worker.py", line 81, in __init__\n')
    report = diagnose_text(log, catalog)
    assert any(c.excerpt and "requires some operators from vllm" in c.message for c in report.crashes)
    top = report.findings[0]
    assert top.rule_id == "quant-method-marked-vllm-dependent-vllm-missing" and top.confidence == "medium"
    assert any("vllm==0.8.4" in fx.command for fx in top.fixes)  # the pin the message names fills the fix


def test_a_cuda_error_with_its_source_location(catalog):
    c = primary("CUDA error (/sgl-kernel/build/_deps/repo-flash-attention-src/hopper/flash_fwd_launch_template.h:190): "
                "invalid argument\n", catalog)
    assert c.message.startswith("CUDA error (") and c.message.endswith("invalid argument")


def test_a_shell_reporting_the_server_killed(catalog):
    c = primary("run.sh: line 19: 34410 Killed                  python -m sglang.launch_server --model-path /m\n", catalog)
    assert c.crash_class == "killed"


def test_a_paste_ending_inside_a_frame_line_is_a_cut_traceback(catalog):
    log = "python -m sglang.launch_server --model-path /m --tp-size 1\n" \
          'File ".../sglang/srt/layers/quantization/compressed_tensors/compressed_t\n'
    c = primary(log, catalog)
    assert c.frames and "compressed_tensors/compressed_t" in c.frames[0].file and not c.complete


def test_a_bracketed_error_tag_is_an_error_record(catalog):
    log = "[ERROR] 2025-09-17-06:54:37 (PID:34901, Device:3, RankID:-1) ERR00100 PTA call acl api failed.\n"
    assert "PTA call acl api failed" in primary(log, catalog).message


def test_ordinary_start_up_lines_are_no_fragment_of_a_short_message_pattern(catalog):
    log = ("[2025-12-01 01:07:23] Load weight end. type=Qwen3VLForConditionalGeneration, dtype=torch.bfloat16, avail mem=143.29 GB\n"
           "[2025-12-01 01:07:23] Using KV cache dtype: torch.bfloat16\n"
           "[2025-12-01 01:07:23] Capture cuda graph begin. This can take up to several minutes. avail mem=34.22 GB\n")
    report = diagnose_text(log, catalog)
    assert not report.crashes and report.verdict.value == "no-crash"


def test_a_quoted_raise_line_is_not_the_exception_it_raises(catalog):
    """The source line under a frame (`raise AttributeError(name) from None`), pasted without its traceback
    header, named the exception with the code's argument as its message; the real exception line follows it."""
    c = primary("    raise AttributeError(name) from None\nAttributeError: WAITING_FOR_FSM\n", catalog)
    assert (c.exception_type, c.message) == ("AttributeError", "WAITING_FOR_FSM")
    c = primary("    raise ValueError(msg)\nValueError: Qwen3 reranker needs --hf-overrides\n", catalog)
    assert c.message == "Qwen3 reranker needs --hf-overrides"


def test_a_progress_bar_or_package_line_after_an_exception_is_not_its_message(catalog):
    c = primary("KeyError: 'layers.0.mlp.experts.w2_weight'\n"
                "Loading safetensors checkpoint shards:  70% Completed | 14/20 [00:10<00:04,  1.40it/s]\n", catalog)
    assert c.message == "'layers.0.mlp.experts.w2_weight'"
    c = primary("ValueError: vocab size mismatch\n[pip3] torch==2.8.0+cu128\n[conda] numpy 2.1.0\n", catalog)
    assert c.message == "vocab size mismatch"


def test_a_crash_line_after_a_wrapper_phrase_on_the_same_line_is_a_cause(catalog):
    """`WorkerProc hit an exception ; CUDA error: ...` on one line: the wrapper is looked through and the CUDA
    error is the crash the rules see."""
    text = ("(Worker_TP0 pid=12) ERROR 07-01 10:00:00 [multiproc_executor.py:700] WorkerProc hit an exception ; "
            "CUDA error: an illegal memory access was encountered\n")
    found = crashes(text, catalog)
    assert found[0].message == "CUDA error: an illegal memory access was encountered" and found[0].role == "primary"
    assert any(c.role == "wrapper" for c in found)


def test_a_paste_that_stops_at_a_raise_line_is_a_crash_of_that_type_with_its_message_cut(catalog):
    c = primary("ERROR 06-26 00:04:52 [core.py:517]     raise RuntimeError(\n", catalog)
    assert (c.exception_type, c.message, c.message_cut) == ("RuntimeError", "", True)
    # an API error body naming the engine's wrapper still reads as that wrapper once its JSON is unwrapped
    body = ('{"object":"error","message":"EngineCore encountered an issue. See stack trace (above) for the root cause.",'
            '"type":"Internal Server Error","param":null,"code":500}\n')
    assert [c.role for c in crashes(body, catalog)] == ["wrapper"]


RAY_CALLER = '''ERROR 05-10 08:01:12 [core.py:396] EngineCore hit an exception: Traceback (most recent call last):
ERROR 05-10 08:01:12 [core.py:396]   File "/usr/local/lib/python3.12/dist-packages/vllm/executor/ray_distributed_executor.py", line 520, in _run_workers
ERROR 05-10 08:01:12 [core.py:396]     ray_worker_outputs = ray.get(ray_worker_outputs)
ERROR 05-10 08:01:12 [core.py:396]   File "/usr/local/lib/python3.12/dist-packages/ray/_private/worker.py", line 2771, in get
ERROR 05-10 08:01:12 [core.py:396]     values, debugger_breakpoint = worker.get_objects(object_refs, timeout=timeout)
ERROR 05-10 08:01:12 [core.py:396] ray.exceptions.RayTaskError(KeyError): ray::RayWorkerWrapper.execute_method() (pid=3318, ip=10.1.2.3, actor_id=1f0e, repr=<vllm.executor.ray_utils.RayWorkerWrapper object at 0x7f1c>)
'''
RAY_REMOTE = '''ERROR 05-10 08:01:12 [core.py:396]   File "/usr/local/lib/python3.12/dist-packages/vllm/worker/worker_base.py", line 620, in execute_method
ERROR 05-10 08:01:12 [core.py:396]     raise e
ERROR 05-10 08:01:12 [core.py:396]   File "/usr/local/lib/python3.12/dist-packages/vllm/model_executor/models/qwen3_moe.py", line 530, in load_weights
ERROR 05-10 08:01:12 [core.py:396]     param = params_dict[name]
ERROR 05-10 08:01:12 [core.py:396] KeyError: 'layers.0.mlp.experts.w2_weight_scale'
'''


def test_rays_caller_traceback_wraps_the_tasks_own(catalog):
    found = crashes(RAY_CALLER + RAY_REMOTE, catalog)
    assert found[0].exception_type == "KeyError" and found[0].functions[-1] == "load_weights"
    assert [c.role for c in found if c.exception_type.endswith("RayTaskError")] == ["wrapper"]


def test_rays_bracketed_type_is_the_cause_when_the_tasks_traceback_is_cut(catalog):
    c = primary(RAY_CALLER, catalog)
    assert c.exception_type == "KeyError" and c.message_cut and not c.message
    assert "KeyError (its message is cut off" in crash_line(c)


def test_a_message_the_paster_cut_with_an_ellipsis_matches_the_start_of_a_pattern(catalog):
    report = diagnose_text("ValueError: The decoder prompt (length 4926) is longer than ...\n", catalog)
    top = report.findings[0]
    assert top.rule_id == "input-exceeds-context-length" and top.confidence != "high"
    assert any("cut short" in ev.text for ev in top.evidence)
    # a pattern that is mostly `.*` shows nothing of a cut message: no rule claims it through such a pattern
    other = diagnose_text("ValueError: Something about the request went wrong while it was ...\n", catalog)
    assert not other.findings


def test_one_line_per_call_trace_lines_do_not_continue_the_message(catalog):
    log = ('  File "/usr/local/lib/python3.12/dist-packages/vllm/v1/worker/gpu_model_runner.py", line 712, in _prepare_inputs\n'
           "    tokens = [scheduler_output.num_scheduled_tokens[i] for i in req_ids]\n"
           "KeyError: None\n"
           "vllm/v1/engine/core.py:693 -> run_busy_loop()\n"
           "vllm/v1/engine/core.py:720 -> _process_engine_step()\n")
    c = primary(log, catalog)
    assert c.exception_type == "KeyError" and c.message == "None"


def test_a_paste_that_stops_inside_its_exception_line_leaves_the_message_unknown_not_wrong(catalog):
    log = ('ERROR 10-25 13:12:42 [multiproc_executor.py:671]   File "/opt/conda/lib/python3.12/site-packages/vllm/v1/worker/'
           'gpu_model_runner.py", line 3221, in _dummy_sampler_run\n'
           "ERROR 10-25 13:12:42 [multiproc_executor.py:671]     raise RuntimeError(\n"
           "ERROR 10-25 13:12:42 [multiproc_executor.py:671] RuntimeError: CUDA out of\n")
    top = diagnose_text(log, catalog).findings[0]
    assert top.rule_id == "sampler-warmup-oom" and top.confidence == "low"
    assert any(ev.state == "unknown" and "cut off where the paste ends" in ev.text for ev in top.evidence)
    # the same line whole is an OOM of another step: the warm-up rule's message clause misses it
    whole = log.replace("CUDA out of\n", "CUDA out of memory. Tried to allocate 2.00 GiB.\n")
    assert "sampler-warmup-oom" not in [f.rule_id for f in diagnose_text(whole, catalog).findings[:1]]


def test_a_glibc_assert_line_cut_short_is_still_a_crash(catalog):
    log = ("INFO 07-24 03:31:45 async_llm_engine.py:173] Added request chat-d9aa01ce.\n"
           "python3: /project/lib/Analysis/Allocation.cpp:43: std::pair<llvm::SmallVector<unsigned int>, "
           "llvm::SmallVector<unsigned int> > mlir::triton::getCvtOrder(mlir::Attribute, mlir::Attribute): "
           "Assertion `!(srcMmaLa\n")
    report = diagnose_text(log, catalog)
    assert report.crash is not None and report.crash.crash_class == "assertion"
    assert report.findings[0].rule_id == "triton-layout-conversion-abort-pre-ampere"


def test_a_serve_command_with_variables_in_front_is_no_message_continuation(catalog):
    log = ("torch.OutOfMemoryError\n"
           "VLLM_ATTENTION_BACKEND=FLASHINFER vllm serve Qwen/Qwen3-8B \\\n"
           "  --kv-cache-dtype fp8 --max-model-len 32768\n")
    c = primary(log, catalog)
    assert c.exception_type == "torch.OutOfMemoryError" and c.message == ""
    assert crash_line(c).endswith("torch.OutOfMemoryError (no message)")
    assert diagnose_text(log, catalog).environment.get("model") == "Qwen/Qwen3-8B"


def test_a_frame_line_cut_before_its_function_is_shown_as_cut(catalog):
    log = ('Traceback (most recent call last):\n'
           '  File "/usr/local/lib/python3.12/dist-packages/vllm/v1/engine/core.py", line 350, in step\n'
           '    engine_core_outputs = self.scheduler.update_from_output(\n'
           '  File "/data01/zhengl\n')
    c = primary(log, catalog)
    assert c.functions[-1] == "?"
    from qwen3doctor.render.plain import frame_name
    assert frame_name(c.frames[-1]) == "(cut: zhengl…)" and frame_name(c.frames[0]) == "step"


def test_a_frame_line_wrapped_right_after_its_file_is_joined(catalog):
    log = ('[Stage-0] ERROR 02-25 19:37:34 [omni_stage.py:1409] Traceback (most recent call last):\n'
           '[Stage-0] ERROR 02-25 19:37:34 [omni_stage.py:1409]   File "/opt/envs/omni/lib/python3.11/site-packages/vllm/v1/engine/async_llm.py",\n'
           ' line 554, in generate\n'
           '[Stage-0] ERROR 02-25 19:37:34 [omni_stage.py:1409]     q = await self.add_request(\n'
           '[Stage-0] ERROR 02-25 19:37:34 [omni_stage.py:1409] ValueError: audio is missing for use_audio_in_video\n')
    c = primary(log, catalog)
    assert c.functions == ("generate",) and c.frames[0].line == 554


def test_a_threads_exception_header_is_a_wrapper_over_the_traceback_below_it(catalog):
    log = ("Exception in thread Thread-3 (process_input_sockets):\n"
           "Traceback (most recent call last):\n"
           '  File "/usr/local/lib/python3.12/dist-packages/vllm/v1/engine/core.py", line 1012, in process_input_sockets\n'
           "    request = self.preprocess_add_request(request)\n"
           "AssertionError: Expected a cached item for mm_hash=9b0f3c2a\n")
    found = crashes(log, catalog)
    assert found[0].exception_type == "AssertionError" and found[1].role == "wrapper"
    cut = diagnose_text("(EngineCore_DP0 pid=245) Exception in thread Thread-3 (proce\n", catalog)
    assert cut.crash is not None and cut.crash.role == "wrapper"
    assert any("the lines below it" in step for step in cut.next_steps)


def test_a_frame_line_that_lost_its_function_name_does_not_take_the_code_line(catalog):
    log = ("Traceback (most recent call last):\n"
           '  File "/usr/local/lib/python3.12/dist-packages/vllm/v1/engine/core.py", line 701, in\n'
           "    engine_core.run_busy_loop()\n"
           '  File "/usr/local/lib/python3.12/dist-packages/vllm/entrypoints/llm.py", line\n'
           " 554, in generate\n"
           "    outputs = self._run_engine(use_tqdm=use_tqdm)\n"
           "RuntimeError: CUDA error: an illegal memory access was encountered\n")
    c = primary(log, catalog)
    assert c.functions == ("?", "generate") and c.frames[1].line == 554


def test_a_message_cut_short_says_so_and_a_draft_rule_stops_where_it_does(catalog, tmp_path):
    log = ("Traceback (most recent call last):\n"
           '  File "/usr/local/lib/python3.12/dist-packages/vllm/v1/worker/gpu_worker.py", line 240, in determine_available_memory\n'
           "    self.model_runner.profile_run()\n"
           "RuntimeError: CUDA error: an illegal memory acc...\n")
    c = primary(log, catalog)
    assert c.cut_short and crash_line(c).endswith("(cut short in the paste: paste the whole line)")
    ends = primary(log.replace("acc...\n", "acc\n"), catalog)
    assert ends.cut_short and "cut short" not in crash_line(ends)  # (it may be whole: only "..." says it was cut)
    assert not primary(log.replace("acc...\n", "access was encountered.\n"), catalog).cut_short
    import subprocess, sys
    path = tmp_path / "cut.log"
    path.write_text(log)
    draft = subprocess.run([sys.executable, "-m", "qwen3doctor.cli", "suggest", "--print", str(path)],
                           capture_output=True, text=True, cwd=tmp_path).stdout
    message = [ln for ln in draft.splitlines() if ln.strip().startswith("message:")][0]
    assert "acc" in message and r"\.\.\." not in message


def test_compiler_output_gives_the_compilers_own_error_line(catalog):
    log = ("/root/.cache/flashinfer/generated/batch_prefill.cu:18:10: fatal error: curand_kernel.h: No such file or directory\n"
           "   18 | #include <curand_kernel.h>\n"
           "      |          ^~~~~~~~~~~~~~~~\n"
           "compilation terminated.\n")
    c = primary(log, catalog)
    assert c.crash_class == "build-failure"
    assert c.message.startswith("/root/.cache/flashinfer/generated/batch_prefill.cu:18:10: fatal error: curand_kernel.h")
    assert c.message.endswith("No such file or directory")
    nvcc = ('/tmp/tmpxft_00001234/sm90_kernel.cu(112): error: identifier "__nv_fp8_e4m3" is undefined\n'
            '2 errors detected in the compilation of "/root/.cache/vllm/sm90_kernel.cu".\n')
    first = primary(nvcc, catalog)
    assert first.crash_class == "build-failure" and "identifier" in first.message


WINDOWS_CUT = r'''(Worker_TP0 pid=20128) ERROR 07-13 22:52:58 [multiproc_executor.py:1007]   File "C:\Users\me\vllm\venv312\Lib\site-packages\vllm\v1\worker\gpu_model_runner.py", line 6065, in _dummy_run
(Worker_TP0 pid=20128) ERROR 07-13 22:52:58 [multiproc_executor.py:1007]     outputs = self.model(
(Worker_TP0 pid=20128) ERROR 07-13 22:52:58 [multiproc_executor.py:1007]   File "C:\Users\me\vllm\venv312\Lib\site-packages\vllm\model_executor\models\qwen3_5.py", line 505, in forward
(Worker_TP0 pid=20128) ERROR 07-13 22:52:58 [multiproc_executor.py:1007]     hidden_states = self.language_model.model(
'''


def test_a_windows_builds_frame_paths_read_like_any_others(catalog):
    report = diagnose_text(WINDOWS_CUT, catalog)
    frames = report.crash.frames
    assert frames[-1].file.endswith("/site-packages/vllm/model_executor/models/qwen3_5.py")
    assert report.environment.get("family") == "qwen3.5"  # the model file names the family, as on Linux
    assert report.environment.get("engine_releases")  # and the engine's own frames date the release


def test_a_telling_pattern_counts_on_pasted_lines_only_by_what_it_matched(tmp_path):
    """A rule message with a long literal in one branch and short words in others (`(?i)ninja|build|...|Capture cuda
    graph failed`) makes a fragment of the long branch's line, never of an environment listing's "debug build"."""
    from qwen3doctor.knowledge.catalog import load_catalog

    (tmp_path / "vllm").mkdir()
    (tmp_path / "vllm" / "loose-words.yaml").write_text(
        "title: a rule whose message clause has a long branch and short ones\nstatus: likely\nreferences: [vllm#1]\n"
        "match:\n  - message: ['(?i)ninja|build|compil|Capture cuda graph failed']\n"
        "cause: test\nfixes:\n  - title: none\n    command: ''\n"
        "tests:\n  match:\n    - text: 'Exception: Capture cuda graph failed'\n  no_match:\n    - text: 'INFO ok'\n")
    catalog = load_catalog([tmp_path])
    listing = ("PyTorch version              : 2.10.0+cu129\nIs debug build               : False\n"
               "CUDA used to build PyTorch   : 12.9\n$ vllm serve Qwen/Qwen3-8B\n")
    assert not diagnose_text(listing, catalog).crashes
    crashed = diagnose_text(listing + "Exception: Capture cuda graph failed: see above\n", catalog)
    assert [f.rule_id for f in crashed.findings] == ["loose-words"]


def test_a_message_copied_from_a_rendered_page_without_its_backticks_still_matches(catalog):
    # GitHub renders `spawn` as a code span; copying the page drops the backticks the rule's pattern quotes
    from qwen3doctor.read.literals import backticks_optional

    assert backticks_optional("use the `spawn` start method") == "use the `?spawn`? start method"
    assert backticks_optional(r"a \` and [`]") == r"a \` and [`]"  # escaped, or in a class: left alone
    assert backticks_optional("because `?--kv-transfer-config`? is set").count("`?") == 2  # already optional
    # torch's sampler message quotes `inf` and `nan`; the rule's only pattern for it does too
    with_ticks = "RuntimeError: probability tensor contains either `inf`, `nan` or element < 0\n"
    for log in (with_ticks, with_ticks.replace("`", "")):
        report = diagnose_text(log, catalog)
        assert report.findings and report.findings[0].rule_id == "fp16-activation-overflow-exclamation-output", log


def test_a_crash_without_a_message_shows_the_chained_exception_that_has_one(catalog):
    """Triton raises CompilationError over the kernel's own AssertionError; a paste of the pair without its traceback
    (the wrapper type alone, then the cause as its constructor call) reports the wrapper and says what the cause was
    (inside a traceback the second line is the first one's message already)."""
    from qwen3doctor.judge.summary import Outcome
    from qwen3doctor.read.inputs import Input
    from qwen3doctor.render.markdown import report_markdown
    from qwen3doctor.render.plain import render

    log = ("[2026-04-20 08:14:02 TP0] Prefill batch, #new-seq: 1, #new-token: 512, #cached-token: 0, token usage: 0.00\n"
           "triton.compiler.errors.CompilationError\n"
           "AssertionError(\"Mismatched type for col0 between then block (<['256'], bf16>) and else block (<['256'], fp16>)\")\n")
    report = diagnose_text(log, catalog)
    text = render(report)
    assert "raised with: AssertionError: Mismatched type for col0 between then block (<['256'], bf16>)" in text
    assert "Raised with `AssertionError: Mismatched type for col0" in report_markdown(
        Outcome(Input("server.log", "server.log"), "unexplained", report))


def test_a_worker_wrapper_quoting_an_untyped_message_gives_that_message_as_the_crash(catalog):
    """vLLM's `Worker failed with error '...'` quotes str() of the worker's exception, which names no type: that text
    is the crash, not the wrapper's 'EngineCore failed to start.' above it."""
    log = ("(EngineCore pid=40388) ERROR 07-14 16:02:52 [core.py:1158] EngineCore failed to start.\n"
           "(EngineCore pid=40388) ERROR 07-14 16:02:52 [core.py:1158] RuntimeError: Worker failed with error 'VLLM "
           "batch_invariant mode is not supported for GDN_ATTN.', please check the stack trace above for the root cause\n"
           "(APIServer pid=40211) RuntimeError: Engine core initialization failed. See root cause above. Failed core proc(s): {}\n")
    c = primary(log, catalog)
    assert c.message == "VLLM batch_invariant mode is not supported for GDN_ATTN.", c.message


def test_the_next_log_record_is_not_read_as_the_rest_of_an_exception_message(catalog):
    """A structured application record (JSON with a level) and an SGLang-stamped line are logging calls of their
    own; a reporter's question under the paste is no part of the error either."""
    json_log = ('{"ts": "2026-09-07T21:41:52.604Z", "level": "ERROR", "logger": "rollout.pool", "message": "rollout '
                "worker init failed: RuntimeError('VLLM batch_invariant mode is not supported for GDN_ATTN.')\"}\n"
                '{"ts": "2026-09-07T21:41:52.611Z", "level": "ERROR", "logger": "rollout.pool", "message": "aborting run '
                'grpo-07: 1 of 1 rollout workers failed to start"}\n')
    assert "aborting" not in primary(json_log, catalog).message
    stamped = ("openai.BadRequestError: Error code: 400 - {'error': {'message': 'use_audio_in_video requires equal number "
               "of audio and video items, got num_audios=0, num_videos=1', 'type': 'BadRequestError', 'code': 400}}\n"
               "[2026-03-21 09:14:11] processed 213/1500\n")
    assert "processed" not in primary(stamped, catalog).message
    asked = ("We host Qwen3-Omni via vLLM. When you try to call the `/audio/transcriptions` endpoint via LiteLLM:\n"
             '"POST /audio/transcriptions HTTP/1.0" 200 OK\n'
             "500: litellm.BadRequestError: Hosted_vllmException - The model does not support Transcriptions API\n"
             "What LiteLLM version are you on ? v1.80.0\n")
    assert primary(asked, catalog).message.endswith("Transcriptions API")
    # a message an engine wrapped over two unstamped lines still reads whole
    wrapped = ("[2026-03-21 09:14:10 TP0] ValueError: The model's max seq len (262144) is larger than the maximum number "
               "of tokens that can be stored in KV cache (81920).\nTry increasing `gpu_memory_utilization`.\n")
    assert primary(wrapped, catalog).message.endswith("Try increasing `gpu_memory_utilization`.")


def test_a_pretty_printed_error_response_gives_its_message_and_type(catalog):
    """A client paste of the server's error body spread over lines: the `type` line alone is no exception cut short;
    with the `message` line above it, it is that exception, and the fields after it are not its message."""
    body = ('{\n    "object": "error",\n    "message": "The model does not support Rerank (Score) API",\n'
            '    "type": "BadRequestError",\n    "param": null,\n    "code": 400\n}\n')
    c = primary(body, catalog)
    assert (c.exception_type, c.message) == ("BadRequestError", "The model does not support Rerank (Score) API")


def test_djl_servings_relay_prefix_is_peeled_and_the_workers_traceback_read(catalog):
    """SageMaker LMI / DJL Serving relays the Python worker's streams as `[INFO ] PyProcess - W-214-model-stderr: `:
    under that prefix the engine's own lines, and the worker's traceback, are read as if printed directly."""
    log = "".join(f"[INFO ] PyProcess - W-214-model-stderr: {line}\n" for line in (
        "(VllmWorker rank=0 pid=609) ERROR 05-20 14:03:02 [multiproc_executor.py:470] Traceback (most recent call last):",
        '(VllmWorker rank=0 pid=609) ERROR 05-20 14:03:02 [multiproc_executor.py:470]   File "/usr/local/lib/python3.12/'
        'dist-packages/vllm/model_executor/layers/linear.py", line 1000, in load_qkv_weight',
        "(VllmWorker rank=0 pid=609) ERROR 05-20 14:03:02 [multiproc_executor.py:470]     param_data = param_data.narrow("
        "output_dim, shard_offset, shard_size)",
        "(VllmWorker rank=0 pid=609) ERROR 05-20 14:03:02 [multiproc_executor.py:470] IndexError: start out of range "
        "(expected to be in range of [-18, 18], but got 2048)"))
    c = primary(log, catalog)
    assert c.exception_type == "IndexError" and c.functions[-1] == "load_qkv_weight", c
    assert c.process == "VllmWorker rank=0 pid=609"


def test_a_bare_assert_quoted_on_one_line_is_no_message_cut_off(catalog):
    """`assert use_attn_tp_group is False  AssertionError` in a report's sentence: the failed check is known, so the
    AssertionError is not 'cut off', and a rule whose only hit would be the bare type is no candidate."""
    report = diagnose_text('Qwen3-VL-235B failed to start due to "assert use_attn_tp_group is False  AssertionError"\n',
                           catalog)
    assert report.crash.assertion == "assert use_attn_tp_group is False" and not report.crash.message_cut
    assert not report.findings, [f.rule_id for f in report.findings]


def test_argparse_error_after_a_long_command_is_not_joined_to_it_as_a_terminal_wrap(catalog):
    log = ("vllm serve Qwen/Qwen3-Omni-30B-A3B-Instruct --omni --port 8091 --stage-configs-path "
           "/vllm_omni/model_executor/stage_configs/qwen3_omni_moe_async_chunk.yaml\n"
           "vllm: error: unrecognized arguments: --stage-configs-path\n")
    shown = [ev.subject for f in diagnose_text(log, catalog).findings for ev in f.evidence]
    assert not any("yamlvllm" in s.replace(" ", "") for s in shown), shown


def test_a_commands_last_number_and_the_acronym_line_below_it_are_two_lines(catalog):
    """A three-line paste: the launch (its widest line, ending in `--tensor-parallel-size 2`) and NCCL's version line.
    A number then `NCCL version ...` is a command and its output, not one line wrapped at the command's width (the
    TP size read as `2NCCL`)."""
    log = ("python -m vllm.entrypoints.openai.api_server --model models/Qwen-14B-Chat --trust-remote-code --port 8509 "
           "--served-model-name qwen-14b-chat --dtype float16 --tensor-parallel-size 2\n"
           "NCCL version 2.19.3+cuda11.0\n"
           "NCCL WARN NCCL cannot be captured in a graph if either it wasn't built with CUDA runtime >= 11.3 or if the "
           "installed CUDA driver < R465.\n")
    assert diagnose_text(log, catalog).environment.get("tp") == 2


def test_kubectl_prefix_with_timestamps_is_peeled(catalog):
    """`kubectl logs --prefix --timestamps`: `[pod/NAME/CONTAINER] <RFC 3339 time> ` before the engine's own prefix."""
    head = "[pod/vllm-qwen3-8b-6d9c7b5f4-xk2lp/vllm] 2026-02-11T14:03:55.402118231Z (APIServer pid=1) "
    log = head + "Traceback (most recent call last):\n" + head + (
        '  File "/usr/local/lib/python3.12/dist-packages/transformers/utils/hub.py", line 531, in cached_files\n') + head + (
        "OSError: Incorrect path_or_model_id: 'Qwen/Qwen3-8B-GGUF:Q4_K_M'. Please provide either the path to a local "
        "folder or the repo_id of a model on the Hub.\n")
    c = primary(log, catalog)
    assert c.exception_type == "OSError" and c.message.startswith("Incorrect path_or_model_id") and c.process == "APIServer pid=1"


def test_a_wrappers_500_quoting_pythons_own_wording_is_a_crash_and_sglangs_own_lines_name_it(catalog):
    report = diagnose_text("2025-10-29 01:18:10,562 transformers.tokenization_utils_base 110646 INFO     loading file "
                           "vocab.json\nServer error: 500 - [address=0.0.0.0:36357, pid=110186] expected str, bytes or "
                           "os.PathLike object, not NoneType\n", catalog)
    assert report.crash is not None and report.crash.exception_type == "TypeError"
    sglang = diagnose_text("[2026-07-02 11:20:03] Received output for rid='7f1c0a9e2b' but the state was deleted in "
                           "TokenizerManager.\n", catalog)
    assert sglang.environment.get("engine") == "sglang"


def test_a_progress_bar_glued_to_an_npu_oom_record_and_canns_runtime_records_are_read(catalog):
    """tqdm's bar printed without a newline, then torch_npu's c10 record: the bar goes and `NPU out of memory` is the
    crash; CANN's `[ERROR] RUNTIME(pid,):stamp [file:line]tid ` prefix is peeled so its records read as one error."""
    oom = (" 11%|████████████▉         | 25/232 [01:26<02:49,  1.22it/s][rank0]:[E1204 11:18:17.728425480 "
           "compiler_depend.ts:444] NPU out of memory. NPUWorkspaceAllocator tried to allocate 187.54 MiB(NPU 0; 60.96 GiB "
           "total capacity; 61.91 MiB free).\n")
    c = primary(oom, catalog)
    assert c.crash_class == "out-of-memory" and c.message.startswith("NPU out of memory"), c
    cann = ("[ERROR] RUNTIME(129179,):2026-03-25-16:51:14.620.936 [api_error.cc:687]129253 LaunchKernelV2:LaunchKernel failed.\n"
            "[ERROR] RUNTIME(129179,):2026-03-25-16:51:14.620.951 [api_c_kernel.cc:78]129253 rtsLaunchKernelWithHostArgs:"
            "ErrCode=507048, desc=[fftsplus timeout], InnerCode=0x715006b\n")
    c = primary(cann, catalog)
    assert c.message.startswith("LaunchKernelV2:LaunchKernel failed.") and "RUNTIME(" not in c.message, c.message


def test_a_labelled_progress_bar_glued_to_a_watchdog_record_and_a_title_naming_nccl(catalog):
    """`Train:   0%|...| 6/15000 [...]` glued to c10's watchdog record: the record is the crash, the bar a line of its
    own (its label kept for the rules), and a title that merely says "triggers NCCL error" is no second crash."""
    log = ("qwen3-vl grpo training step takes too long and triggers NCCL error\n"
           "Train:   0%|          | 6/15000 [10:46:01<23855:30:25, 5727.61s/it][rank0]:[E1202 11:06:56.320643155 "
           "ProcessGroupNCCL.cpp:683] [Rank 0] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=1236, "
           "OpType=ALLREDUCE, NumelIn=16515072, NumelOut=16515072, Timeout(ms)=600000) ran for 600043 milliseconds "
           "before timing out.\n")
    report = diagnose_text(log, catalog)
    assert [c.message[:36] for c in report.crashes] == ["Watchdog caught collective operation"]
    bar = "DeepGEMM warmup:   2%|█▌        | 11/512 [01:09<57:05,  6.84s/it][2025-12-22 11:36:30 TP1 EP1] Scheduler hit an exception: x\n"
    scan = scan_source(LineSource("bar.log", io.BytesIO(bar.encode())), catalog)
    assert any(line.startswith("DeepGEMM warmup:") for line in scan.lines)


def test_kunluns_kernel_fault_is_a_crash(catalog):
    log = ("XX: (pid 5738,tid 140294244185920)cuda/src/cui/hal/kl3/kl3_gpfifo.cc:184:kl3ChannelCheckErrors A kernel "
           "exception has occurred, please check dmesg for details.\n"
           "            [RUNTIME ERROR] 714 (Exception in kernel execution)[/ssd3/xmlir_pub\n")
    assert diagnose_text(log, catalog).verdict.value != "no-crash"


def test_a_follow_on_error_is_shown_before_the_wrapper_that_reports_the_death(catalog):
    """No cause in the paste: the peer's dropped connection says more than "EngineCore encountered a fatal error"."""
    log = ("(EngineCore_DP0 pid=412) ERROR 06-02 10:11:02 [core.py:1010] EngineCore encountered a fatal error.\n"
           "(EngineCore_DP0 pid=412) ERROR 06-02 10:11:02 [core.py:1010] RuntimeError: [/pytorch/third_party/gloo/gloo/"
           "transport/tcp/pair.cc:525] Read error [10.0.3.12]:40131: Connection reset by peer\n")
    found = crashes(log, catalog)
    assert [c.role for c in found] == ["consequence", "wrapper"] and "Connection reset by peer" in found[0].message


def test_a_pretty_printed_error_body_and_a_death_only_a_started_server_reports(catalog):
    """`"message": "EngineCore encountered an issue. ...",` in an API error body is the message without its quote and
    comma; EngineDeadError comes only from a server that had started, so neither a serve-argument check nor the
    container toolkit's refusal (causes that stop a server before it starts) is a candidate for it, whatever the
    paste's serve command and nvidia-smi header say."""
    log = ("vllm serve Qwen/Qwen3.5-35B-A3B-FP8 --reasoning-parser qwen3 --enable-prefix-caching\n"
           "{\n"
           '  "error": {\n'
           '    "message": "EngineCore encountered an issue. See stack trace (above) for the root cause.",\n'
           '    "type": "InternalServerError",\n'
           '    "code": 500\n'
           "  }\n"
           "}\n"
           "NVIDIA-SMI 590.48.01              Driver Version: 590.48.01      CUDA Version: 13.1\n")
    report = diagnose_text(log, catalog)
    assert report.crashes[0].message == "EngineCore encountered an issue. See stack trace (above) for the root cause."
    assert report.crashes[0].during.startswith("serving")
    assert [f.rule.id for f in report.findings] == []


def test_an_error_record_the_engine_goes_on_after_is_no_crash(catalog):
    log = ("ERROR 06-16 02:46:27 [config.py:29] Failed to import Triton kernels. Please make sure your triton version is "
           "compatible. Error: cannot import name 'constexpr_function' from 'triton.runtime.jit'\n"
           "WARNING 06-16 02:46:27 [nixl_utils.py:34] NIXL is not available\n")
    assert diagnose_text(log, catalog).crashes == ()


def test_pynvml_errors_and_a_quiet_record_after_an_exception(catalog):
    """pynvml names a class per NVML code (`NVMLError_LibRmVersionMismatch`): a crash line of its own type; a logger's
    DEBUG record right under an exception (Xinference: `name lineno LEVEL`) is not part of its message; vLLM's
    FlashAttention probe, logged at ERROR before it picks another backend, is no crash."""
    c = primary("[pip3] torch==2.9.0+cu128\npynvml.NVMLError_LibRmVersionMismatch: RM has detected an NVML/RM version "
                "mismatch\n", catalog)
    assert c.exception_type == "pynvml.NVMLError_LibRmVersionMismatch" and c.message.startswith("RM has detected")
    log = ("2026-04-16 14:23:34.047 | TypeError: [address=0.0.0.0:43633, pid=157] layer_type_validation() takes 1 "
           "positional argument but 2 were given\n"
           "2026-04-16 14:29:16.993 | 2026-04-16 06:29:16,993 xinference.core.progress_tracker 71 DEBUG    Remove "
           "requests ['launching-qwen3.5-0']\n")
    assert primary(log, catalog).message.endswith("but 2 were given")
    probe = ("(EngineCore_DP0 pid=93) ERROR 03-02 07:01:41 [fa_utils.py:104] Cannot use FA version 2 is not supported "
             "due to FA2 is only supported on devices with compute capability >= 8\n")
    assert crashes(probe, catalog) == ()


def test_a_follow_on_errors_generic_type_is_no_evidence_for_a_cause(catalog):
    """`RuntimeError: cancelled` (vLLM's shared-memory queue after its peer died) is a follow-on: its type neither
    matches nor rules out a rule keyed on RuntimeError, as its message does not."""
    log = ('(EngineCore_DP0 pid=559)   File "/usr/local/lib/python3.12/dist-packages/vllm/distributed/device_communicators/'
           'shm_broadcast.py", line 464, in acquire_read\n'
           '(EngineCore_DP0 pid=559)     raise RuntimeError("cancelled")\n'
           "(EngineCore_DP0 pid=559) RuntimeError: cancelled\n")
    report = diagnose_text(log, catalog)
    assert report.crashes[0].role == "consequence" and report.findings == ()


def test_amdgpus_page_fault_with_the_devices_pci_address_is_a_crash(catalog):
    log = ("vLLM 0.23.1.dev1+g9ddef7117.d20260715 Qwen3-1.7B BF16 TP=1 --enforce-eager\n"
           "amdgpu 0000:07:00.0: [gfxhub] page fault (src_id:0 ring:24 vmid:1 pasid:32771)\n")
    report = diagnose_text(log, catalog)
    assert report.crashes[0].crash_class == "illegal-memory-access" and report.environment.get("platform") == "rocm"


def test_torch_npus_failed_acl_call_from_the_watchdog_is_a_crash(catalog):
    log = ("[rank0]: torch.distributed: [ERROR] [2036] Find exception when finishedNPUExecutionInternal, query:"
           "../torch_npu/csrc/core/npu/NPUEvent.cpp:94 NPU function error: aclrtQueryEventStatus\n")
    report = diagnose_text(log, catalog)
    assert report.crashes[0].message.endswith("NPU function error: aclrtQueryEventStatus")
    assert report.environment.get("platform") == "npu"


def test_canns_inner_error_header_gives_way_to_the_record_that_says_what_failed(catalog):
    log = ("EZ9999: Inner Error!\n"
           "EZ9999[PID: 55986] 2025-12-15-11:30:10.420.394 (EZ9999):  [AIC_INFO] after execute:args print end"
           "[FUNC:GetError][FILE:stream.cc][LINE:1191]\n"
           "       Aicore kernel execute failed, device_id=0, stream_id=2, fault kernel_name=fused_recurrent_gated_delta_"
           "rule_fwd_kernel_46, fault kernel info ext=none\n")
    first = diagnose_text(log, catalog).crashes[0]
    assert first.message != "EZ9999: Inner Error!" and "fused_recurrent_gated_delta_rule_fwd_kernel" in first.message
    # an op's failure that quotes the header is that failure, not a header
    op = diagnose_text("RuntimeError: call aclnnCausalConv1d failed, detail:EZ9999: Inner Error!\n", catalog).crashes[0]
    assert op.role == "primary" and "aclnnCausalConv1d" in op.message


def test_a_short_paste_that_labels_an_error_in_its_own_words_is_a_crash(catalog):
    """`Error in parse_streaming_increment: list index out of range`, `..., an error occurred: 'X' object has no
    attribute 'y'`: in a short paste with no crash line, the text after the label is the crash's message (of the type
    its Python wording names); a line that only says the word error in passing is not."""
    from qwen3doctor.judge.pipeline import diagnose_text

    head = "python3 -m sglang.launch_server --model-path /Kimi-K2-Instruct --tp 16 --tool-call-parser kimi_k2\nsglang-0.4.9.post2\n"
    report = diagnose_text(head + "Error in parse_streaming_increment: list index out of range\n", catalog)
    assert report.crash is not None and report.crash.exception_type == "IndexError"
    assert report.crash.message == "list index out of range"
    omni = diagnose_text("Running HunyuanImage-3.0 with version v0.27.0rc2, an error occurred: '_OpNamespace' '_moe_C' "
                         "object has no attribute 'topk_softmax'\n", catalog)
    assert omni.crash is not None and "topk_softmax" in omni.crash.message
    assert diagnose_text(head + "the error rate stayed at zero during the run\n", catalog).crash is None


def test_a_bare_shell_prompt_after_the_exception_is_not_its_message(catalog):
    """The prompt a terminal paste ends on (`(env) root@host:/workspace#`, nothing typed after it) is no line of the
    exception's message: the message, and so the fingerprint a shared, host-redacted log gets, stay the same."""
    from qwen3doctor.judge.pipeline import diagnose_text

    log = ("TypeError: AutoImageProcessor.register() got multiple values for argument 'exist_ok'\n"
           "(glm_infer) root@h20-node3:/workspace#\n")
    report = diagnose_text(log, catalog)
    assert report.crash.message == "AutoImageProcessor.register() got multiple values for argument 'exist_ok'"
    # the other prompts a terminal leaves: a RHEL / CentOS shell's, a bare `$`
    for prompt in ("[root@gpu-node1 ~]# ", "[ubuntu@ip-10-0-3-7 sglang]$", "$ ", "$"):
        report = diagnose_text(log.splitlines()[0] + "\n" + prompt + "\n", catalog)
        assert report.crash.message == "AutoImageProcessor.register() got multiple values for argument 'exist_ok'", prompt
    # a message's own next line is still its continuation
    report = diagnose_text(log.splitlines()[0] + "\nand one more line of it\n", catalog)
    assert report.crash.message.endswith("and one more line of it")


def test_a_process_tag_that_lost_its_parentheses_is_peeled_before_a_record(catalog):
    """`Worker_DP4_EP4 pid=2314 ERROR ...` (a shipper's copy without the parentheses): the worker's traceback is read
    with its frames and its process, and a supervisor's upper-case `[WORKER]: ` tag is peeled as a lower-case one is."""
    tag = "Worker_DP4_EP4 pid=2314 ERROR 11-20 10:01:02 [multiproc_executor.py:840] "
    log = "".join(tag + line + "\n" for line in TB.splitlines())
    log += "[WORKER]: ERROR 11-20 10:01:03 [core.py:710] EngineCore encountered a fatal error.\n"
    c = primary(log, catalog)
    assert c.exception_type == "ValueError" and c.functions[-1] == "chunk_gated_delta_rule_fwd"
    assert c.process == "Worker_DP4_EP4 pid=2314"
    assert any(x.message == "EngineCore encountered a fatal error." for x in crashes(log, catalog))
    # (a line that merely starts with such a word and a pid, not a record, keeps its words)
    plain = "EngineCore pid=812 is still alive\n" + TB
    assert primary(plain, catalog).exception_type == "ValueError"


def test_a_json_record_keeps_its_traceback_in_an_exc_field(catalog):
    """Some JSON formatters put the exception in `exc` (or `exc_text`) beside `msg`: its traceback is read."""
    import json

    record = {"ts": "2026-11-20T10:01:02Z", "level": "error", "msg": "engine crashed", "exc": TB.rstrip("\n")}
    c = primary(json.dumps(record) + "\n", catalog)
    assert c.exception_type == "ValueError" and c.functions[-1] == "chunk_gated_delta_rule_fwd"


def test_sglangs_weight_download_check_names_the_model(catalog):
    log = ("[2026-11-20 10:00:01 TP0] Found local HF snapshot for deepseek-ai/DeepSeek-V3.2 at "
           "/data/hf/models--deepseek-ai--DeepSeek-V3.2/snapshots/1a2b; skipping download.\n" + TB)
    env = diagnose_text(log, catalog).environment
    assert env.get("model") == "deepseek-ai/DeepSeek-V3.2" and env.get("family") == "other"


def test_cuda_gdbs_report_gives_way_to_the_cuda_error_and_lends_it_the_kernel(catalog):
    """cuda-gdb's `CUDA Exception: Warp Illegal Address` block, then the illegal memory access the process raises:
    the raised error is the crash; the report's stop line (`0x... in fused_moe_kernel<<<...>>> ()`) names the kernel."""
    log = textwrap.dedent('''\
        CUDA Exception: Warp Illegal Address
        The exception was triggered at PC 0x7ffd2e4a1c30
        Thread 1 "VLLM::EngineCor" received signal CUDA_EXCEPTION_14, Warp Illegal Address.
        [Switching focus to CUDA kernel 0, grid 48211, block (12,0,0), thread (64,0,0), device 0, sm 3, warp 2, lane 0]
        0x00007ffd2e4a1c40 in fused_moe_kernel<<<(1024,1,1),(128,1,1)>>> ()
        Traceback (most recent call last):
          File "/usr/local/lib/python3.12/dist-packages/vllm/v1/engine/core.py", line 701, in run_engine_core
            engine_core.run_busy_loop()
        RuntimeError: CUDA error: an illegal memory access was encountered
        ''')
    found = crashes(log, catalog)
    assert found[0].exception_type == "RuntimeError" and "illegal memory access" in found[0].message
    report = next(c for c in found if c.message.startswith("CUDA Exception: Warp Illegal Address"))
    assert report.role == "fragment" and [f.function for f in report.native] == ["fused_moe_kernel"]
    alone = primary(log.split("Traceback")[0], catalog)  # the report alone is still the crash
    assert alone.message.startswith("CUDA Exception: Warp Illegal Address")


def test_native_libraries_fatal_lines_are_crashes(catalog):
    """A process a native library stops prints no Python exception: its own fatal line is the crash, read with the
    words that say what failed (glog's CHECK, UCX, NVSHMEM, Intel's compute runtime, the Neuron compiler's error code,
    an Objective-C runtime's uncaught exception with its reason)."""
    head = "INFO 11-20 10:00:00 [api_server.py:1000] vLLM API server version 0.26.0\n"
    cases = {
        "F1120 10:01:02.123456 2311 paged_attention.cu:88] Check failed: head_size == 128 (256 vs. 128)":
            "Check failed: head_size == 128 (256 vs. 128)",
        "[1763600000.123] [gpu-3:2311:0]    parser.c:2036 UCX  FATAL: UCX library was compiled with avx but CPU does "
        "not support it.": "UCX  FATAL: UCX library was compiled with avx",
        "/workspace/nvshmem_src/src/host/init/init.cu:989: non-zero status: 7 nvshmem detect topo failed":
            "init.cu:989: non-zero status: 7 nvshmem detect topo failed",
        "NVSHMEM API called before NVSHMEM initialization has completed": "NVSHMEM API called before NVSHMEM",
        "Abort was called at 256 line in file:": "Abort was called at 256 line in file:",
        "[INTERNAL_ERROR] [NCC_INLA001] Unhandled exception with message: Instruction count exceeds limit":
            "[NCC_INLA001] Unhandled exception with message: Instruction count exceeds limit",
        "2026-11-20 10:01:02.123 python[4411:123456] *** Terminating app due to uncaught exception 'NSRangeException', "
        "reason: 'index 3 beyond bounds [0 .. 2]'": "uncaught exception 'NSRangeException', reason: 'index 3 beyond",
    }
    for line, said in cases.items():
        c = primary(head + line + "\n", catalog)
        assert said in c.message, (line, c.message)
    # (a harness's own tag before a line is still peeled: only an error code stays)
    assert primary(head + "[SERVER] RuntimeError: boom\n", catalog).message == "boom"


def test_lines_a_paste_ran_together_are_read_apart(catalog):
    """An unindented frame line and its code line, an exception and the call-tree line under it, a level alone after
    a process tag, and carriage returns shown as `^M`: each is read as the line it is."""
    frame = textwrap.dedent('''\
        Traceback (most recent call last):
        File "/opt/venv/lib/python3.12/site-packages/vllm/model_executor/layers/quantization/moe_wna16.py", line 148, in is_moe_wna16_compatible
        device_capability = capability_tuple.to_int()
        AttributeError: 'tuple' object has no attribute 'to_int'
        ''')
    assert primary(frame, catalog).functions == ("is_moe_wna16_compatible",)
    tree = textwrap.dedent('''\
        Traceback (most recent call last):
          File "/sgl-workspace/sglang/python/sglang/srt/eplb/expert_location.py", line 211, in _init_raw
            n = torch.count_nonzero(
        RuntimeError: permute(sparse_coo): number of dimensions in the tensor input does not match the length of the desired ordering of dimensions i.e. input.dim() = 3 is not equal to len(dims) = 4
        ExpertLocationMetadata._init_raw (expert_location.py:211)
        ''')
    assert primary(tree, catalog).message.endswith("is not equal to len(dims) = 4")
    bare = "".join(f"(Worker_TP0) ERROR {line}\n" for line in TB.splitlines())
    c = primary(bare, catalog)
    assert c.exception_type == "ValueError" and c.functions == ("run_engine_core", "chunk_gated_delta_rule_fwd")
    caret = "^M".join(f"(Worker_TP3 pid=14531) ERROR 11-20 10:01:02 [multiproc_executor.py:840] {line}"
                      for line in TB.splitlines()) + "\n"
    c = primary(caret, catalog)
    assert c.functions == ("run_engine_core", "chunk_gated_delta_rule_fwd") and c.message == "chunk size 96 is not a power of two"


def test_syslog_host_tags_and_c10_error_records_are_read(catalog):
    """rsyslog's ISO-stamped `host tag[pid]: ` before a worker's record is peeled (the traceback keeps its frames and
    message); c10's error-level record (`[rank0]:[E1201 ...] SelfAttentionOperation setup failed!`) is a crash line."""
    stamp = "2026-01-14T10:01:02.123456+00:00 gpu-node-3 vllm-omni[378]: (StageEngineCoreProc pid=378) ERROR 01-14 10:01:02 [core.py:170] "
    c = primary("".join(stamp + line + "\n" for line in TB.splitlines()), catalog)
    assert c.exception_type == "ValueError" and c.message == "chunk size 96 is not a power of two"
    assert c.functions == ("run_engine_core", "chunk_gated_delta_rule_fwd")
    atb = "[rank0]:[E1201 06:31:02.635822600 compiler_depend.ts:444] SelfAttentionOperation setup failed!\n"
    assert primary(atb, catalog).message == "SelfAttentionOperation setup failed!"
    # (a warning-level c10 record is no crash)
    assert not crashes("[rank0]:[W1201 06:31:02.635822600 ProcessGroupNCCL.cpp:1000] Guessing device ID based on global rank\n", catalog)


def test_frames_whose_paths_lost_their_quotes_are_frames(catalog):
    paste = ("Traceback (most recent call last):\n"
             "  File /usr/local/lib/python3.12/site-packages/vllm/v1/engine/core.py, line 701, in run_engine_core\n"
             "    raise e\n"
             "  File /usr/local/lib/python3.12/site-packages/vllm/model_executor/layers/mamba/ops/causal_conv1d.py, "
             "line 1088, in causal_conv1d_update\n"
             "    assert num_cache_lines >= batch\n"
             "AssertionError\n")
    assert functions_of(paste, catalog) == ["run_engine_core", "causal_conv1d_update"]
    last = primary(paste, catalog).frames[-1]
    assert last.file.endswith("mamba/ops/causal_conv1d.py") and last.line == 1088
    # a sentence that mentions a file and a line is no frame
    assert not crashes("Please see File setup.py, line 12 in the docs for the steps.\n", catalog)


def test_an_error_record_above_a_cut_traceback_of_the_same_logging_call_is_its_message(catalog):
    # vLLM V0's engine logs the exception's str(), then its traceback, in one `logger.exception` call
    prefix = "ERROR 03-12 08:14:22 engine.py:366] "
    paste = "".join(prefix + line + "\n" for line in (
        "Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu!",
        "Traceback (most recent call last):",
        '  File "/usr/local/lib/python3.12/dist-packages/vllm/engine/multiprocessing/engine.py", line 357, in run_mp_engine',
        "    engine = MQLLMEngine.from_engine_args(engine_args=engine_args,",
        '  File "/usr/local/lib/python3.12/dist-packages/vllm/worker/model_runner.py", line 1250, in profile_run',
        "    self.execute_model(model_input, kv_caches, intermediate_tensors)",
    ))
    assert primary(paste, catalog).message.startswith("Expected all tensors to be on the same device")
    assert functions_of(paste, catalog) == ["run_mp_engine", "profile_run"]
    # a record from another logging call, or a wrapper's line, says nothing of the traceback under it
    other = paste.replace(prefix + "Expected", "ERROR 03-12 08:14:21 worker.py:12] Expected", 1)
    assert primary(other, catalog).message == ""
    wrapper = paste.replace("Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu!",
                            "Exception in worker VllmWorkerProcess while processing method determine_num_available_blocks.")
    assert "Exception in worker" not in (primary(wrapper, catalog).message or "")
    # the logging call's own account of the failure is no exception message
    narrated = paste.replace("Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu!",
                             "An error occurred in `transformers` while applying chat template")
    assert primary(narrated, catalog).message == ""


def test_a_frame_line_cut_before_its_function_is_the_call_the_frame_above_was_making(catalog):
    paste = ('(EngineCore pid=7412)   File "/usr/local/lib/python3.12/dist-packages/vllm/v1/core/sched/scheduler.py", '
             "line 926, in schedule\n"
             "(EngineCore pid=7412)     self._update_after_schedule(scheduler_output)\n"
             '(EngineCore pid=7412)   File "/usr/local/lib/python3.12/dist-packages/vllm/v1/core/sched/scheduler.py", '
             "line 963,\n")
    assert functions_of(paste, catalog) == ["schedule", "_update_after_schedule"]
    crash = primary(paste, catalog)
    assert crash.frames[-1].line == 963 and not crash.complete
    # a call through super() is the method's; with no code line above it the frame stays unnamed
    via_super = paste.replace("self._update_after_schedule(scheduler_output)", "scheduler_output = super().schedule()")
    assert primary(via_super, catalog).frames[-1].function == "schedule"
    bare = "".join(line + "\n" for line in paste.splitlines() if "self._update" not in line)
    assert primary(bare, catalog).frames[-1].function == "?"


def test_the_shells_death_notice_is_no_part_of_the_exception_message(catalog):
    log = ('  File "/home/u/.local/lib/python3.12/site-packages/nixl/_api.py", line 267, in register_memory\n'
           "    self.agent.registerMem(reg_descs, handle_list)\n"
           "nixl._bindings.nixlBackendError: NIXL_ERR_BACKEND\n"
           "bash: line 1:  4711 Segmentation fault      (core dumped) python disagg_prefill.py\n")
    found = crashes(log, catalog)
    assert found[0].message == "NIXL_ERR_BACKEND"
    assert [c.crash_class for c in found[1:]] == ["segfault"]


def test_faulthandlers_watchdog_dump_is_a_hang_for_every_thread(catalog):
    log = ("Timeout (0:10:00)!\n"
           "Thread 0x00007f2a9c5ff640 (most recent call first):\n"
           '  File "/usr/local/lib/python3.12/dist-packages/vllm/distributed/device_communicators/custom_all_reduce.py", line 331 in all_reduce\n'
           '  File "/usr/local/lib/python3.12/dist-packages/vllm/v1/worker/gpu_worker.py", line 512 in execute_model\n'
           "\n"
           "Thread 0x00007f2a9d000000 (most recent call first):\n"
           '  File "/usr/lib/python3.12/threading.py", line 355 in wait\n')
    found = crashes(log, catalog)
    assert [c.crash_class for c in found] == ["hang", "hang"]
    assert found[0].functions == ("execute_model", "all_reduce")
    # without the watchdog's line it is a dump of another kind: a traceback cut above whatever stopped it
    assert "hang" not in [c.crash_class for c in crashes(log.split("\n", 1)[1], catalog)]


def test_a_live_threads_stack_rules_out_causes_that_raise_an_error(catalog):
    # a worker stuck in the GDN prefill kernel (py-spy): the kernel's hang is a candidate; the illegal memory access
    # raised from the same frames is not, the thread raised nothing
    dump = ('Thread 2214 (active+gil): "MainThread"\n'
            "    gdn_prefill (flashinfer/gdn_prefill.py:71)\n"
            "    chunk_gated_delta_rule (flashinfer/gdn_prefill.py:214)\n"
            "    fi_chunk_gated_delta_rule (vllm/model_executor/layers/mamba/gdn_linear_attn.py:95)\n"
            "    forward_cuda (vllm/model_executor/layers/mamba/gdn_linear_attn.py:171)\n"
            "    forward (vllm/model_executor/models/qwen3_5.py:402)\n")
    ids = [f.rule_id for f in diagnose_text(dump, catalog).findings]
    assert ids[0] == "gdn-flashinfer-prefill-kernel-hang"
    assert "gdn-cudagraph-illegal-memory-access" not in ids


def test_a_process_tag_cut_where_the_paste_stops_is_no_part_of_the_message(catalog):
    # MinerU's vLLM engine on a DGX Spark (opendatalab/MinerU#4350): the excerpt stops inside the next line's tag, under
    # an exception whose message announces the ptxas output with a colon
    tag = "(EngineCore_DP0 pid=60) ERROR 01-12 01:09:14 [core.py:708] "
    text = "".join(tag + line + "\n" for line in [
        "Traceback (most recent call last):",
        '  File "/usr/local/lib/python3.12/dist-packages/triton/backends/nvidia/compiler.py", line 442, in make_cubin',
        '    raise PTXASError(f"{error}\\n"',
        "triton.runtime.errors.PTXASError: PTXAS error: Internal Triton PTX codegen error",
        "`ptxas` stderr:",
    ]) + "(EngineCore_DP0 pi"
    report = diagnose_text(text, catalog)
    (crash,) = report.crashes
    assert crash.message == "PTXAS error: Internal Triton PTX codegen error `ptxas` stderr:"
    # what the colon announced is not shown: the rule whose line it would be stays a candidate
    assert [f.rule_id for f in report.findings][:1] == ["triton-ptxas-unknown-gpu-arch"]
    assert report.findings[0].confidence == "low"


def test_a_log_pattern_reads_an_exception_message_the_paste_wrapped(catalog):
    """vLLM's list of kernels that cannot build a WNA16 layer, pasted from a page that wrapped it mid-sentence: the
    Marlin line's `Consider reducing` / `tensor_parallel_size` is read as one line, as the rule's log pattern wants."""
    log = ("(EngineCore_DP0 pid=212) ERROR 04-21 09:14:03 [core.py:866] EngineCore failed to start.\n"
           "ValueError: Failed to find a kernel that can implement the WNA16 linear layer. Reasons:\n"
           "MacheteLinearKernel requires capability 90, current compute capability is 86\n"
           "MarlinLinearKernel cannot implement due to: Weight output_size_per_partition = 32 is not divisible by "
           "min_thread_n = 64. Consider reducing\n"
           "tensor_parallel_size or running with --quantization gptq.\n"
           "ConchLinearKernel cannot implement due to: conch-triton-kernels is not installed, please install it via "
           "pip install conch-triton-kernels and try again!\n"
           "ExllamaLinearKernel cannot implement due to: Exllama only supports float16 activations\n")
    report = diagnose_text(log, catalog)
    [marlin] = [f for f in report.findings if f.rule_id == "marlin-layer-shape-indivisible"]
    # (the line shown is the joined message, cut for display; before, this clause said "no log line matches")
    assert any(e.state == "hit" and e.text.startswith("log line “ValueError: Failed to find a kernel") for e in marlin.evidence)
    assert report.findings[0].rule_id == "marlin-layer-shape-indivisible"
    # the same lines unwrapped hit as they always did; a message the paste shows on one line adds no second line
    unwrapped = diagnose_text(log.replace("Consider reducing\n", "Consider reducing "), catalog)
    assert unwrapped.findings[0].rule_id == "marlin-layer-shape-indivisible"


def test_the_source_ipython_lists_under_a_frame_is_no_message_fragment(catalog):
    """A Jupyter traceback cut before its exception: the numbered source lines under each frame hold an assert's
    message text (`does not support LoRA yet.`), which is code that would raise, not what the crash said."""
    log = ("File ~/miniconda3/envs/omni/lib/python3.11/site-packages/vllm/worker/model_runner.py:1113, in GPUModelRunnerBase.load_model(self)\n"
           "   1111 with DeviceMemoryProfiler(self.device) as m:\n"
           "-> 1113     self.model = get_model(vllm_config=self.vllm_config)\n"
           "   1114     if self.lora_config:\n"
           "   1115         assert supports_lora(\n"
           "   1116             self.model\n"
           '   1117         ), f"{self.model.__class__.__name__} does not support LoRA yet."\n'
           "\n"
           "File ~/miniconda3/envs/omni/lib/python3.11/site-packages/vllm/model_executor/model_loader/loader.py:441, in DefaultModelLoader.load_model(self, vllm_config)\n"
           "    440     with target_device:\n"
           "--> 441         model = _initialize_model(vllm_config=vllm_config)\n")
    report = diagnose_text(log, catalog)
    assert not any(c.excerpt for c in report.crashes)
    # (the cut in the loader makes the loading step's path candidates, as Python's own traceback would; none of
    # them stands on the listing's text)
    assert not any(e.state == "hit" and e.clause.rsplit(".", 1)[-1] in ("log", "message")
                   for f in report.findings for e in f.evidence)
    # IPython's qualified method names are read as the function names Python's own traceback gives
    assert [f.function for f in report.crashes[0].frames] == ["load_model", "load_model"]
    # the same words as the crash's own line below the listing are its message
    said = diagnose_text(log + "\nValueError: Qwen3OmniMoeThinkerForConditionalGeneration does not support LoRA yet.\n", catalog)
    assert said.findings and said.findings[0].rule_id == "qwen3-omni-thinker-lora-unsupported"


def test_a_line_cut_from_the_middle_of_the_supported_architectures_list_names_no_model(catalog):
    """A paste pieced from two excerpts: a traceback cut in the registry, then a line that starts inside vLLM's list
    of every architecture it supports. No name of that list is the model's (nor a clue for a rule's log pattern)."""
    log = ('  File "/usr/local/lib/python3.10/dist-packages/vllm/engine/arg_utils.py", line 983, in create_model_config\n'
           "    return ModelConfig(\n"
           '  File "/usr/local/lib/python3.10/dist-packages/vllm/model_executor/models/registry.py", line 393, in inspect_model_cls\n'
           "    return self._rai\n"
           "aForSequenceClassification', 'AriaForConditionalGeneration', 'Blip2ForConditionalGeneration', "
           "'ChameleonForConditionalGeneration', 'ChatGLMModel', 'FuyuForCausalLM', 'InternVLChatModel', "
           "'LlavaForConditionalGeneration', 'Qwen2ForSequenceClassification', 'Qwen2VLForConditionalGeneration', "
           "'UltravoxModel', 'MllamaForConditionalGeneration'])\n")
    report = diagnose_text(log, catalog)
    assert report.environment.get("family") is None and report.environment.get("architecture") is None
    assert report.findings and report.findings[0].rule_id == "vllm-too-old-for-architecture"
    assert not any("ForSequenceClassification" in e.text for f in report.findings for e in f.evidence if e.state == "hit")


def test_a_python_logging_record_after_an_exception_line_is_not_its_message(catalog):
    """Python's `%(asctime)s %(levelname)s %(name)s: %(message)s` record right under a traceback's exception line
    is the next record, not the message's second line (a crawler's log: the shutdown note was glued to the error)."""
    log = ("Traceback (most recent call last):\n"
           '  File "/usr/lib/python3.11/asyncio/queues.py", line 238, in _put\n'
           "    heappush(self._queue, item)\n"
           "TypeError: '<' not supported between instances of 'Request' and 'Request'\n"
           "2026-03-11 22:04:18,106 INFO crawl.runner: 1 page(s) crawled, 0 queued, shutting down\n")
    assert diagnose_text(log, catalog).crash.message == "'<' not supported between instances of 'Request' and 'Request'"
    # so is a record that names its level and its source file and line (an RL framework's rollout worker)
    sourced = log.replace("INFO crawl.runner: 1 page(s) crawled", "INFO  rollout.py:141  1 page(s) crawled")
    assert diagnose_text(sourced, catalog).crash.message == "'<' not supported between instances of 'Request' and 'Request'"
    # a message's own second line stays its own
    wrapped = log.replace("2026-03-11 22:04:18,106 INFO crawl.runner: 1 page(s) crawled, 0 queued, shutting down\n",
                          "while comparing the queued items\n")
    assert diagnose_text(wrapped, catalog).crash.message.endswith("while comparing the queued items")


def test_a_traceback_sglang_retried_is_not_how_the_server_died(catalog):
    """SGLang's retry() prints the traceback of each failed try beside its notice and tries again (a Hub call refused
    offline at every start of 0.5.3-0.5.7): that traceback is handled, the server's later crash is the crash."""
    retried = ("Traceback (most recent call last):\n"
               '  File "/usr/local/lib/python3.10/dist-packages/sglang/srt/utils.py", line 2108, in retry\n'
               "    return fn()\n"
               "huggingface_hub.errors.OfflineModeIsEnabled: Cannot reach https://huggingface.co/api/models/Qwen/Qwen3-8B: "
               "offline mode is enabled.\n")
    notice = ("[2025-10-02 09:12:01] retry() failed once (0th try, maximum 2 retries). Will delay 0.78s and retry. "
              "Error: Cannot reach https://huggingface.co/api/models/Qwen/Qwen3-8B: offline mode is enabled.\n")
    died = ("[2025-10-02 09:12:02] Load weight begin. avail mem=78.50 GB\n"
            "[2025-10-02 09:12:40] Scheduler hit an exception: Traceback (most recent call last):\n"
            '  File "/usr/local/lib/python3.10/dist-packages/sglang/srt/model_executor/model_runner.py", line 1502, '
            "in init_memory_pool\n"
            "    raise RuntimeError(\n"
            "RuntimeError: Not enough memory. Please try to increase --mem-fraction-static.\n")
    for log in (retried + notice + died, notice + retried + died):  # (the traceback after the notice, in some releases)
        report = diagnose_text(log, catalog)
        assert report.crash.exception_type == "RuntimeError", log
        assert report.crash.message.startswith("Not enough memory")
    # without the notice the first traceback is the crash, as before
    assert diagnose_text(retried + died, catalog).crash.exception_type.endswith("OfflineModeIsEnabled")


def test_python_words_quoted_after_a_wrappers_failure_line_are_the_crash(catalog):
    # xinference's supervisor reports a replica that failed to start with the worker's exception text after its own
    # words and the actor's `[address=..., pid=...]`: Python's wording there is the crash, of the type it comes with
    log = ("vllm 0.12.0+cu130\n"
           "xinference launch --model-name Qwen3-Embedding-0.6B --model-type embedding --model-engine vllm\n"
           "xinference.core.supervisor 53091 ERROR    Failed to launch replica Qwen3-Embedding-0.6B-0: "
           "[address=0.0.0.0:39985, pid=54926] module 'vllm.envs' has no attribute 'VLLM_USE_V1'\n")
    report = diagnose_text(log, catalog)
    crash = report.crash
    assert (crash.exception_type, crash.message) == ("AttributeError", "module 'vllm.envs' has no attribute 'VLLM_USE_V1'")
    # the same failure line with no Python wording after it stays a bare "it failed" with its message unknown
    report = diagnose_text(log.replace(" module 'vllm.envs' has no attribute 'VLLM_USE_V1'", " worker exited"), catalog)
    assert report.crash.exception_type is None and not report.crash.message


def test_a_traceback_with_shortened_paths_names_its_engine_by_its_functions(catalog):
    # the reporter cut every path to `.../file.py`: no `/sglang/` folder is left, but SGLang's sources alone hold
    # these file-and-function pairs (the release index's function table)
    log = ('File ".../scheduler.py", line 1123, in event_loop_overlap\n'
           "    batch = self.get_next_batch_to_run()\n"
           'File ".../schedule_policy.py", line 610, in add_one_req\n'
           "    self._update_prefill_budget(prefix_len, req.extend_input_len, max_new_tokens)\n"
           "AssertionError\n")
    env = diagnose_text(log, catalog).environment
    assert env.get("engine") == "sglang" and "release index" in env.facts["engine"].source
    # vLLM's worker frames, shortened the same way
    log = ('  File ".../gpu_worker.py", line 650, in execute_model\n'
           "    output = self.model_runner.execute_model(scheduler_output)\n"
           '  File ".../gpu_model_runner.py", line 2890, in execute_model\n'
           "    model_output = self._model_forward(\n"
           "RuntimeError: CUDA error: an illegal memory access was encountered\n")
    assert diagnose_text(log, catalog).environment.get("engine") == "vllm"
    # one frame, or frames both engines have (a model file's forward), name no engine
    log = ('  File ".../qwen3.py", line 120, in forward\n    x = self.mlp(x)\n'
           '  File ".../linear.py", line 400, in forward\n    out = F.linear(x, w)\n'
           "RuntimeError: shape mismatch\n")
    assert diagnose_text(log, catalog).environment.get("engine") is None


def test_a_quoted_reply_whose_first_line_is_its_widest_is_no_terminal_wrap(catalog):
    # a three-line message quoted in a reply (`> ` on each line): the first line is the widest and ends in a word, so
    # the next quoted line looked like the rest of a wrapped one and was glued on with its `> `
    log = ("> pydantic_core._pydantic_core.ValidationError: 1 validation error for ModelConfig\n"
           "> Value error, The checkpoint you are trying to load has model type\n"
           "> `gemma4` but Transformers does not recognize this architecture.\n")
    crash = diagnose_text(log, catalog).crash
    assert ">" not in crash.message and crash.message.endswith("does not recognize this architecture.")
