from qwen3doctor.read.crash import CrashParser, embedded_causes
from qwen3doctor.read.prefixes import peel


def parse(text):
    p = CrashParser()
    for i, line in enumerate(text.splitlines(), 1):
        proc, body = peel(line)
        p.feed(i, proc, body, proc is not None)
    return p.finish()


INTERLEAVED = """\
(Worker_TP0 pid=11) ERROR 05-05 12:36:59 [multiproc_executor.py:863] Traceback (most recent call last):
(Worker_TP1 pid=12) ERROR 05-05 12:36:59 [multiproc_executor.py:863] Traceback (most recent call last):
(Worker_TP0 pid=11) ERROR 05-05 12:36:59 [multiproc_executor.py:863]   File "/v/vllm/v1/worker/gpu_model_runner.py", line 3051, in _model_forward
(Worker_TP1 pid=12) ERROR 05-05 12:36:59 [multiproc_executor.py:863]   File "/v/vllm/distributed/parallel_state.py", line 500, in all_reduce
(Worker_TP0 pid=11) ERROR 05-05 12:36:59 [multiproc_executor.py:863]     return self.model(
(Worker_TP0 pid=11) ERROR 05-05 12:36:59 [multiproc_executor.py:863]            ^^^^^^^^^^^
(Worker_TP0 pid=11) ERROR 05-05 12:36:59 [multiproc_executor.py:863]   File "/v/vllm/model_executor/models/qwen3_next.py", line 138, in fi_chunk_gated_delta_rule
(Worker_TP1 pid=12) ERROR 05-05 12:36:59 [multiproc_executor.py:863] RuntimeError: NCCL error: unhandled cuda error
(Worker_TP0 pid=11) ERROR 05-05 12:36:59 [multiproc_executor.py:863]     fi_beta = beta.to(torch.float32)
(Worker_TP0 pid=11) ERROR 05-05 12:36:59 [multiproc_executor.py:863] torch.AcceleratorError: CUDA error: an illegal memory access was encountered
(Worker_TP0 pid=11) ERROR 05-05 12:36:59 [multiproc_executor.py:863] Search for `cudaErrorIllegalAddress' in https://docs.nvidia.com for more information.
"""


def test_interleaved_tracebacks_are_reassembled_per_process():
    crashes = parse(INTERLEAVED)
    by_proc = {c.process: c for c in crashes}
    tp0 = by_proc["Worker_TP0 pid=11"]
    assert tp0.functions == ("_model_forward", "fi_chunk_gated_delta_rule")
    assert tp0.exception_type == "torch.AcceleratorError"
    assert tp0.message == "CUDA error: an illegal memory access was encountered"  # torch's advice lines dropped
    assert tp0.complete and tp0.crash_class == "illegal-memory-access"
    tp1 = by_proc["Worker_TP1 pid=12"]
    assert tp1.functions == ("all_reduce",) and tp1.crash_class == "nccl"


CHAINED = """\
Traceback (most recent call last):
  File "/s/sglang/srt/layers/logits_processor.py", line 661, in _get_logits
    logits_buffer.copy_(logits[:, : self.config.vocab_size])
RuntimeError: The size of tensor a (32000) must match the size of tensor b (151936) at non-singleton dimension 1

During handling of the above exception, another exception occurred:

Traceback (most recent call last):
  File "/s/sglang/srt/managers/scheduler.py", line 2747, in run_scheduler_process
    scheduler = Scheduler(
  File "/s/sglang/srt/model_executor/cuda_graph_runner.py", line 400, in __init__
    raise Exception(
Exception: Capture cuda graph failed: The size of tensor a (32000) must match the size of tensor b (151936)
"""


def test_chained_exceptions_keep_the_original_first_and_linked():
    crashes = parse(CHAINED)
    assert crashes[0].role == "primary"
    assert crashes[0].exception_type == "RuntimeError"
    assert crashes[1].exception_type == "Exception"
    assert crashes[1].chained and crashes[1].chained[0].functions == ("_get_logits",)


FOLLOW_ON = """\
[rank7]:[W1027 20:05:15.052888213 TCPStore.cpp:125] [c10d] recvValue failed on SocketImpl(fd=103): Failed to recv, got 0 bytes. Connection was likely closed
(EngineCore_DP0 pid=5) ERROR 10-27 20:05:10 [core.py:710] RuntimeError: Engine core initialization failed. See root cause above. Failed core proc(s): {}
(Worker_TP0 pid=7) ERROR 10-27 20:05:09 [multiproc_executor.py:699] KeyError: 'layers.45.mlp.shared_expert.down_proj.weight'
"""


def test_follow_on_and_wrapper_errors_are_not_the_primary_crash():
    crashes = parse(FOLLOW_ON)
    assert crashes[0].exception_type == "KeyError" and crashes[0].role == "primary"
    roles = {c.message[:20]: c.role for c in crashes[1:]}
    assert "consequence" in roles.values() and "wrapper" in roles.values()


def test_sglang_traceback_with_only_its_first_line_tagged():
    log = """\
[2025-12-06 02:08:52 TP7] Scheduler hit an exception: Traceback (most recent call last):
  File "/s/sglang/srt/managers/scheduler.py", line 430, in __init__
    self.init_cache_with_memory_pool()
  File "/s/sglang/srt/mem_cache/mamba_radix_cache.py", line 324, in __init__
    assert isinstance(params.token_to_kv_pool_allocator, TokenToKVPoolAllocator)
           ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
AssertionError
"""
    (crash,) = parse(log)
    assert crash.process == "TP7" and crash.exception_type == "AssertionError"
    assert crash.functions[-1] == "__init__" and crash.frames[-1].file.endswith("mamba_radix_cache.py")


def test_standalone_crash_lines_outside_tracebacks():
    crashes = parse(
        "terminate called after throwing an instance of 'nanobind::builtin_exception'\n"
        "  what():  Expected an MLIR object\n"
        "Fatal Python error: Aborted\n"
        "Segmentation fault (core dumped)\n"
    )
    assert crashes[0].message.startswith("terminate called") and "what():" in crashes[0].message
    assert {c.crash_class for c in crashes} == {"segfault"}


def test_a_loader_or_build_tool_refusal_printed_alone_is_a_crash_line():
    # the dynamic loader's words without their ImportError type, and a shell that cannot run a JIT build's compiler
    [loader] = parse("/opt/conda/lib/python3.10/site-packages/flash_attn_2_cuda.cpython-310-x86_64-linux-gnu.so: "
                     "undefined symbol: _ZN2at4_ops5zeros4callE\n")
    assert loader.message.endswith("undefined symbol: _ZN2at4_ops5zeros4callE")
    [shell] = parse("/bin/sh: 1: /usr/local/cuda/bin/nvcc: not found\n")
    assert "nvcc: not found" in shell.message
    # a container without a tool the log merely tried (nvidia-smi, py-spy) crashed nothing
    assert parse("/bin/sh: 1: nvidia-smi: not found\n") == []


def test_a_rocm_blas_library_refusing_to_load_its_kernels_is_a_crash_line():
    [blas] = parse("rocBLAS error: Cannot read /opt/rocm/lib/rocblas/library/TensileLibrary.dat: No such file or "
                   "directory for GPU arch : gfx1151\n")
    assert "gfx1151" in blas.message
    [lt] = parse("rocblaslt error: Could not load /env/lib/python3.11/site-packages/torch/lib/hipblaslt/library/"
                 "TensileLibrary_lazy_gfx942.dat\n")
    assert lt.message.startswith("rocblaslt error: Could not load")
    # the words inside a sentence are no crash line
    assert parse("INFO 01-01 10:00:00 [rocm.py:1] no rocBLAS error: tuning disabled\n") == []


def test_a_call_signature_typeerror_quoted_without_its_type_is_a_crash_line():
    [sig] = parse('get_global_dp_buffer() missing 1 required positional argument: "group"\n')
    assert sig.message.startswith("get_global_dp_buffer() missing 1 required")
    [kw] = parse("LLMEngine.__init__() got an unexpected keyword argument 'log_stats'\n")
    assert kw.message.endswith("'log_stats'")
    # inside a sentence of an ordinary record it is none
    assert parse("INFO 01-01 10:00:00 [api.py:1] retried: f() takes 2 positional arguments but 3 were given\n") == []


def test_an_exception_whose_message_starts_on_the_next_line():
    # transformers' errors whose str() begins with a newline, pasted without their traceback
    [crash] = parse("transformers.integrations.heterogeneity.configuration_utils.AmbiguousGlobalPerLayerAttributeError:\n"
                    "'head_dim' is a per-layer attribute and may vary across layers.\n"
                    "Access it via config.per_layer_config[i].head_dim.\n")
    assert crash.exception_type.endswith("AmbiguousGlobalPerLayerAttributeError")
    assert crash.message.startswith("'head_dim' is a per-layer attribute") and "per_layer_config" in crash.message
    # a bare type at the very end is a message cut off, not an empty one
    [cut] = parse("ValueError:\n")
    assert cut.exception_type == "ValueError" and cut.message == "" and cut.message_cut


INSPECTION_CUT = """\
ERROR 02-18 14:03:24 registry.py:306] Error in inspecting model architecture 'Qwen2_5_VLForConditionalGeneration'
ERROR 02-18 14:03:24 registry.py:306] Traceback (most recent call last):
ERROR 02-18 14:03:24 registry.py:306]   File "/v/vllm/model_executor/models/registry.py", line 507, in _run_in_subprocess
ERROR 02-18 14:03:24 registry.py:306]     returned.check_returncode()
ERROR 02-18 14:03:24 registry.py:306]   File "/usr/lib/python3.12/subprocess.py", line 502, in check_returncode
ERROR 02-18 14:03:24 registry.py:306]     raise CalledProcessError(self.returncode, self.args, self.stdout,
ERROR 02-18 14:03:24 registry.py:306] subprocess.CalledProcessError: Command '['/usr/bin/python3', '-m', 'vllm.model_executor.models.registry']' returned non-zero exit status 1.
ERROR 02-18 14:03:24 registry.py:306] 
ERROR 02-18 14:03:24 registry.py:306] The above exception was the direct cause of the following exception:
ERROR 02-18 14:03:24 registry.py:306] 
ERROR 02-18 14:03:24 registry.py:306] Traceback (most recent call last):
ERROR 02-18 14:03:24 registry.py:306]   File "/v/vllm/model_executor/models/registry.py", line 510, in _run_in_subprocess
ERROR 02-18 14:03:24 registry.py:306]     raise RuntimeError(f"Error raised in subprocess:\\n"
ERROR 02-18 14:03:24 registry.py:306] RuntimeError: Error raised in subprocess:
ERROR 02-18 14:03:24 registry.py:306] Traceback (most recent call last):
ERROR 02-18 14:03:24 registry.py:306]   File "/v/vllm/model_executor/models/registry.py", line 279, in load_model_cls
ERROR 02-18 14:03:24 registry.py:306]     mod = importlib.import_module(self.module_name)
ERROR 02-18 14:03:24 registry.py:306]   File "/v/vllm/model_executor/models/qwen2_5_vl.py", line 36, in <module>
ERROR 02-18 14:03:24 registry.py:306]     from transformers.models.qwen2_5_vl import (Qwen2_5_VLImageProcessor,
"""


def test_the_model_inspections_exit_status_wraps_the_childs_traceback():
    """vLLM reports a failed inspection child by its exit status (CalledProcessError for `-m
    vllm.model_executor.models.registry`) before quoting its stderr: like "Error raised in subprocess:", that is a
    wrapper, and the child's traceback (here cut at its import line) is the crash."""
    crashes = parse(INSPECTION_CUT)
    assert crashes[0].role != "wrapper" and crashes[0].functions[-1] == "<module>" and not crashes[0].complete
    assert {c.role for c in crashes if c.exception_type} == {"wrapper"}


def test_truncated_traceback_is_kept_as_an_incomplete_crash():
    crashes = parse('Traceback (most recent call last):\n  File "/v/a.py", line 1, in outer\n    x()\n  File "/v/b.py", line 2, in inner\n')
    assert crashes[0].functions == ("outer", "inner") and not crashes[0].complete


def test_a_headless_frame_cut_mid_path_still_counts():
    crashes = parse('.py", line 138, in fi_chunk_gated_delta_rule\n    fi_beta = beta.to(torch.float32)\ntorch.AcceleratorError: CUDA error: an illegal memory access was encountered\n')
    assert crashes[0].functions == ("fi_chunk_gated_delta_rule",) and crashes[0].complete


def test_sglangs_capture_advice_without_its_exception_line_is_a_capture_failure():
    advice = """[2025-05-12 09:14:41 TP0] Capture cuda graph begin. This can take up to several minutes. avail mem=52.40 GB
3. disable torch compile by not using --enable-torch-compile
4. disable cuda graph by --disable-cuda-graph. (Not recommonded. Huge perf loss)
Open an issue on GitHub https://github.com/sgl-project/sglang/issues/new/choose
"""
    crashes = parse(advice)
    assert len(crashes) == 1 and crashes[0].message.startswith("Capture cuda graph failed:") and crashes[0].cut_short
    # with the exception line there, the advice adds no second crash
    whole = "Exception: Capture cuda graph failed: CUDA out of memory. Tried to allocate 2.00 GiB\n" + advice
    assert [c.message.split(". Tried")[0] for c in parse(whole)] == ["Capture cuda graph failed: CUDA out of memory"]


def test_an_exception_printed_as_its_constructor_call_keeps_its_message_without_the_quotes():
    """`AssertionError("...")` is how a wrapper prints the exception it caught (Triton's CompilationError over the
    kernel's type check): the message is the string, as `AssertionError: ...` would print it. A KeyError's message
    is its key's repr, so its quotes stay, and several arguments are left as printed."""
    crashes = parse('triton.compiler.errors.CompilationError\n'
                    'AssertionError("Mismatched type for col0 between then block (<[\'256\'], bf16>) and else block")\n')
    assert [(c.exception_type, c.message) for c in crashes if c.exception_type == "AssertionError"] == [
        ("AssertionError", "Mismatched type for col0 between then block (<['256'], bf16>) and else block")]
    tb = "Traceback (most recent call last):\n  File \"/x/vllm/model_loader.py\", line 3, in load\n"
    assert parse(tb + "KeyError('model.layers.0.mlp.gate.weight')\n")[0].message == "'model.layers.0.mlp.gate.weight'"
    assert parse(tb + "ValueError('a', 3)\n")[0].message == "'a', 3"
    assert parse(tb + "RuntimeError(\"it's broken\")\n")[0].message == "it's broken"


def test_an_assertion_without_a_message_keeps_the_check_that_failed():
    """A bare `assert` raises AssertionError with no message: the statement under the last frame is what failed, and
    it is kept beside the empty message (never taken for the message, never for another exception's)."""
    tb = ('Traceback (most recent call last):\n'
          '  File "/usr/local/lib/python3.12/dist-packages/vllm/model_executor/layers/mamba/ops/causal_conv1d.py", line 1162, in causal_conv1d_update\n'
          '    assert num_cache_lines >= batch\n'
          '           ^^^^^^^^^^^^^^^^^^^^^^^^\n')
    crash = parse(tb + "AssertionError\n")[0]
    assert (crash.exception_type, crash.message, crash.assertion) == ("AssertionError", "", "assert num_cache_lines >= batch")
    assert parse(tb + "AssertionError: 3 < 4\n")[0].assertion == ""  # the message says it
    other = tb.replace("    assert num_cache_lines >= batch\n", "    out = kernel(x)\n")
    assert parse(other + "AssertionError\n")[0].assertion == ""
    # a log whose prefix took the indentation away (`[core.py:1079] assert ...` right under the frame line)
    flat = "".join(f"(EngineCore_DP0 pid=7) ERROR 03-04 09:54:26 [core.py:1079] {line.strip()}\n" for line in tb.splitlines())
    assert parse(flat + "(EngineCore_DP0 pid=7) ERROR 03-04 09:54:26 [core.py:1079] AssertionError\n")[0].assertion == (
        "assert num_cache_lines >= batch")
    # the statement belongs to its own frame: under an earlier frame it is not the check that failed
    earlier = tb + '  File "/x/vllm/y.py", line 3, in inner\n'
    assert parse(earlier + "AssertionError\n")[0].assertion == ""


def test_an_assert_statement_quoted_right_above_a_bare_assertionerror_is_the_check_that_failed():
    """A reporter who pastes the last two lines of a traceback (the statement and `AssertionError`) still shows which
    check failed (vllm#18933: `assert issubclass(connector_cls, KVConnectorBase)` over `AssertionError`); a statement
    further up, or another line right above, is not it."""
    quoted = ("INFO 06-03 11:20:05 [factory.py:64] Creating v1 connector with name: NixlConnector\n"
              "    assert issubclass(connector_cls, KVConnectorBase)\n"
              "AssertionError\n")
    crash = parse(quoted)[-1]
    assert (crash.exception_type, crash.message, crash.assertion) == (
        "AssertionError", "", "assert issubclass(connector_cls, KVConnectorBase)")
    apart = quoted.replace("AssertionError\n", "\nAssertionError\n")
    assert parse(apart)[-1].assertion == ""
    assert parse(quoted.replace("AssertionError\n", "AssertionError: connector is not a v1 connector\n"))[-1].assertion == ""


def test_a_wrapper_quoting_an_exceptions_repr_gives_its_message_without_the_quotes():
    """`WorkerProc hit an exception: ValueError('...')` prints the exception the worker raised as its constructor call:
    the message is the string (LMCache/LMCache#2306), also inside a JSON record's value; a KeyError keeps its key's
    quotes."""
    line = ("(Worker_TP0 pid=233) ERROR 05-21 08:02:31 [multiproc_executor.py:772] WorkerProc hit an exception: "
            "ValueError('vllm model for vllm-instance not found.')")
    assert ("ValueError", "vllm model for vllm-instance not found.") in [
        (c.exception_type, c.message) for c in embedded_causes(parse(line + "\n"))]
    keyed = line.replace("ValueError('vllm model for vllm-instance not found.')", "KeyError('model.layers.0.mlp.experts')")
    assert ("KeyError", "'model.layers.0.mlp.experts'") in [(c.exception_type, c.message) for c in embedded_causes(parse(keyed + "\n"))]


# the CANN runtime's report of a failed NPU task, as SGLang's scheduler prints it above its own traceback (sglang#10421)
CANN_FAULT = """\
       [AIC_INFO] after execute:args print end[FUNC:GetError][FILE:stream.cc][LINE:1183]
       Aicore kernel execute failed, device_id=1, stream_id=2, report_stream_id=2, task_id=9012, flip_num=0, fault kernel_name=_fused_rotary_emb_kernel_3, fault kernel info ext=_fused_rotary_emb_kernel, program id=17, hash=1029384756102938475.[FUNC:GetError][FILE:stream.cc][LINE:1183]
       rtStreamSynchronizeWithTimeout execute failed, reason=[vector core exception][FUNC:FuncErrorReason][FILE:error_message_manage.cc][LINE:53]
       synchronize stream failed, runtime result = 507035[FUNC:ReportCallError][FILE:log_inner.cpp][LINE:161]


[2026-03-02 10:14:07 TP1] Scheduler hit an exception: Traceback (most recent call last):
  File "/usr/local/python3.11.13/lib/python3.11/site-packages/sglang/srt/managers/scheduler.py", line 2705, in run_scheduler_process
    scheduler.event_loop_overlap()
  File "/usr/local/python3.11.13/lib/python3.11/site-packages/sglang/srt/managers/scheduler.py", line 860, in event_loop_overlap
    batch = self.get_next_batch_to_run()
"""


def test_the_cann_runtimes_fault_lines_above_a_cut_traceback_are_the_crash():
    """The faulting kernel, the runtime call's reason and its status are one device error, read as a CUDA error line
    is: its message keeps the kernel's name and the reason, without the runtime's source locations; the scheduler's
    traceback cut below it stays a fragment of its own. A quoted paste (`> `) reads the same."""
    for text in (CANN_FAULT, "".join(f"> {line}\n" for line in CANN_FAULT.splitlines())):
        crashes = parse(text)
        first = crashes[0]
        assert first.role == "primary" and first.line_no == 2 and not first.frames, first
        assert first.message.startswith("Aicore kernel execute failed, device_id=1,")
        assert "fault kernel_name=_fused_rotary_emb_kernel_3" in first.message
        assert "reason=[vector core exception]" in first.message and first.message.endswith("runtime result = 507035")
        assert "[FUNC:" not in first.message and "AIC_INFO" not in first.message
        assert [c.functions for c in crashes[1:]] == [("run_scheduler_process", "event_loop_overlap")]


def test_cann_runtime_lines_continue_the_record_or_error_they_follow():
    """Under a CANN record (or torch_npu's error) the runtime's lines are that error's own text, not new crashes; alone
    (the paste starts below the record), the first of them heads the crash, in each wording the runtime uses."""
    record = ("EZ9999: Inner Error!\n"
              "EZ9999: [PID: 3301] 2026-03-02-10:14:07.511.204 The error from device(chipId:1, dieId:0), serial number is 7, "
              "there is an exception of aivec error, core id is 12, error code = 0x800000.[FUNC:PrintCoreInfo][FILE:device_error_core_proc.cc][LINE:645]\n"
              "        TraceBack (most recent call last):\n"
              "       Kernel task happen error, retCode=0x31, [vector core exception].[FUNC:PreCheckTaskErr][FILE:davinci_kernel_task.cc][LINE:1729]\n"
              "       AIV Kernel happen error, retCode=0x31.[FUNC:GetError][FILE:stream.cc][LINE:1475]\n"
              "       Aicore kernel execute failed, device_id=1, stream_id=2, report_stream_id=2, task_id=9012, flip_num=0, "
              "fault kernel_name=_fused_rotary_emb_kernel_3, fault kernel info ext=none, program id=17, hash=1.[FUNC:GetError][FILE:stream.cc][LINE:1475]\n")
    crashes = parse(record)
    assert not any(c.message.startswith(("Kernel task", "AIV Kernel", "Aicore")) for c in crashes), crashes
    device = next(c for c in crashes if "The error from device" in c.message)
    assert "AIV Kernel happen error, retCode=0x31 " in device.message and "fault kernel_name=_fused_rotary_emb_kernel_3" in device.message
    # in torch_npu's exception text, a record line that carries the runtime's call loses only its source location
    torch_npu = ("Traceback (most recent call last):\n"
                 '  File "/vllm-workspace/vllm-ascend/vllm_ascend/worker/model_runner_v1.py", line 2211, in execute_model\n'
                 "    torch.npu.current_stream().synchronize()\n"
                 "RuntimeError: synchronize:build/CMakeFiles/torch_npu.dir/compiler_depend.ts:361 NPU function error: "
                 "c10_npu::acl::AclrtSynchronizeStreamWithTimeout(stream()), error code is 507011\n"
                 "EE9999: Inner Error!\n"
                 "EE9999[PID: 6411] 2026-03-24-09:58:00.084.676 (EE9999):  rtMemcpy execution failed, reason=the current "
                 "capture mode does not support this operation[FUNC:FuncErrorReason][FILE:error_message_manage.cc][LINE:61]\n")
    assert parse(torch_npu)[0].message.endswith("(EE9999):  rtMemcpy execution failed, reason=the current capture mode "
                                                "does not support this operation")
    for alone, head in (
            ("       rtStreamSynchronize execute failed, reason=[aicore timeout][FUNC:FuncErrorReason][FILE:error_message_manage.cc][LINE:53]\n"
             "       synchronize stream failed, runtime result = 507014[FUNC:ReportCallError][FILE:log_inner.cpp][LINE:162]\n",
             "rtStreamSynchronize execute failed, reason=[aicore timeout] synchronize stream failed, runtime result = 507014"),
            ("       AICORE Kernel task happen error, retCode=0x25.[FUNC:GetError][FILE:stream.cc][LINE:1191]\n",
             "AICORE Kernel task happen error, retCode=0x25"),
            ("       wait for compute device to finish failed, runtime result = 507035.[FUNC:ReportCallError][FILE:log_inner.cpp][LINE:161]\n",
             "wait for compute device to finish failed, runtime result = 507035")):
        crashes = parse(alone)
        assert [c.message for c in crashes] == [head], crashes
    # (an ordinary sentence with `failed, reason=` is no runtime record)
    assert parse("Download failed, reason=[timeout], retrying\n") == []


def test_a_device_error_the_worker_wrapper_quotes_is_a_cause_of_its_own():
    """vLLM's engine core quotes what the worker died of, `Worker failed with error 'CUDA error: out of memory` with
    CUDA's advice on the next lines (the closing quote comes after them): that device error is a crash of its own, not
    lost inside the wrapper (QwenLM/Qwen3-VL#1684)."""
    log = ("(EngineCore_DP0 pid=7291) ERROR 10-23 08:05:13 [core.py:708] EngineCore failed to start.\n"
           "(EngineCore_DP0 pid=7291) ERROR 10-23 08:05:13 [core.py:708] RuntimeError: Worker failed with error "
           "'CUDA error: out of memory\n"
           "(EngineCore_DP0 pid=7291) ERROR 10-23 08:05:13 [core.py:708] CUDA kernel errors might be asynchronously "
           "reported at some other API call, so the stacktrace below might be incorrect.\n")
    causes = embedded_causes(parse(log))
    assert any(c.message.startswith("CUDA error: out of memory") for c in causes), [c.message for c in causes]



def test_a_collective_watchdogs_abort_is_the_collectives_not_a_segfault():
    # torch ends the process with `terminate called ...` when a process group's watchdog sees its library fail:
    # Ascend's HCCL as NVIDIA's NCCL; the CUDA fault it quotes still names its own class
    hccl = parse("terminate called after throwing an instance of 'c10::Error'\n"
                 "  what():  [Rank 3] HCCL watchdog thread terminated with exception: The Inner error is reported as "
                 "above. The process exits for this inner error, and the current working operator name is HcclAllreduce.\n")
    ima = parse("terminate called after throwing an instance of 'c10::DistBackendError'\n"
                "  what():  [PG ID 2 PG GUID 3 Rank 1] Process group watchdog thread terminated with exception: CUDA "
                "error: an illegal memory access was encountered\n")
    plain = parse("terminate called after throwing an instance of 'std::runtime_error'\n"
                  "  what():  vector::_M_range_check\n")
    assert [c.crash_class for c in hccl + ima + plain] == ["nccl", "illegal-memory-access", "segfault"]


def test_an_exception_class_defined_inside_a_function_ends_its_traceback():
    # CuTe DSL's MLIRError is a local class: Python names it through `<locals>`, and the frames above it are its own
    crashes = parse(
        "Traceback (most recent call last):\n"
        '  File "/opt/venv/lib/python3.12/site-packages/flash_attn/cute/interface.py", line 1214, in flash_attn_varlen_func\n'
        "    out, lse = _flash_attn_fwd(\n"
        '  File "/opt/venv/lib/python3.12/site-packages/flash_attn/cute/flash_fwd.py", line 393, in epilogue\n'
        "cutlass._mlir._mlir_libs._site_initialize.<locals>.MLIRError: Operation creation failed:\n")
    assert len(crashes) == 1 and crashes[0].complete and crashes[0].headed
    assert crashes[0].exception_type.endswith(".<locals>.MLIRError")
    assert crashes[0].functions == ("flash_attn_varlen_func", "epilogue")


def test_a_tensorrt_llm_check_is_a_crash_line_over_its_native_backtrace():
    # TLLM_CHECK's error line, then glibc's demangled backtrace: numbered lines with an address and a symbol (or only
    # the library), none of them part of the message
    crashes = parse(
        "[06/21/2025-01:30:42] [TRT-LLM] [RANK 0] [E] Failed to initialize executor on rank 0: [TensorRT-LLM][ERROR] "
        "Assertion failed: Error occurred when running GEMM! (/src/cpp/kernels/batchedGemm/KernelRunner.cpp:180)\n"
        "1       0x7fac7ac778fd tensorrt_llm::common::throwRuntimeError(char const*, int, char const*) + 97\n"
        "2       0x7fac7ac7f699 /usr/local/lib/python3.12/dist-packages/tensorrt_llm/libs/libtensorrt_llm.so(+0x1d5e699) [0x7fac7ac7f699]\n"
        "3       0x7fac7b14ab11 tensorrt_llm::kernels::PermuteGemm1::Runner::run(void*, void*, int, CUstream_st*) + 241\n")
    assert len(crashes) == 1
    assert crashes[0].message.endswith("Error occurred when running GEMM! (/src/cpp/kernels/batchedGemm/KernelRunner.cpp:180)")
    assert [f.function for f in crashes[0].native] == ["throwRuntimeError", "run"]


def test_a_traceback_that_is_an_exceptions_message_is_its_cause_not_a_cut_message():
    # Ray Serve's replica raises RuntimeError(traceback.format_exc()): the caller prints `RuntimeError: Traceback ...`
    # and the replica's whole traceback as that exception's message; its own exception line is what happened, and
    # the RuntimeError is no crash whose message was cut off
    log = """\
(ServeController pid=9) ray.exceptions.RayTaskError(RuntimeError): ray::ServeReplica:default:LLMServer.initialize_and_get_metadata() (pid=41, ip=10.0.0.3)
(ServeController pid=9)   File "/r/ray/serve/_private/replica.py", line 1034, in initialize_and_get_metadata
(ServeController pid=9)     raise RuntimeError(traceback.format_exc()) from None
(ServeController pid=9) RuntimeError: Traceback (most recent call last):
(ServeController pid=9)   File "/r/vllm/v1/engine/core_client.py", line 491, in _init_engines_direct
(ServeController pid=9)     self.resources.local_engine_manager = CoreEngineProcManager(
(ServeController pid=9)   File "/usr/lib/python3.11/multiprocessing/reduction.py", line 60, in dump
(ServeController pid=9)     ForkingPickler(file, protocol).dump(obj)
(ServeController pid=9) _pickle.PicklingError: Can't pickle <class 'transformers_modules.m.configuration_m.MConfig'>: it's not the same object as transformers_modules.m.configuration_m.MConfig
"""
    crashes = parse(log)
    assert not any(c.exception_type == "RuntimeError" and c.message_cut for c in crashes)
    causes = [c for c in embedded_causes(crashes) if c.exception_type == "_pickle.PicklingError"]
    assert causes and causes[0].functions == ("_init_engines_direct", "dump") and causes[0].inside == "RuntimeError"
    assert not any(c.exception_type == "RuntimeError" and not c.message for c in embedded_causes(crashes))


def test_a_refused_structured_output_backend_is_no_unsupported_model():
    """'Unsupported structured output backend: None' is a request setting the engine could not use (a client that
    skipped vLLM's conversion, outlines#1778): not a refusal of the model or its hardware, whose triage asks for the
    GPU and the checkpoint. An attention backend refused on a GPU still is one."""
    from qwen3doctor.read.crash import classify

    assert classify("ValueError", "Unsupported structured output backend: None") == "value-error"
    assert classify("ValueError", "Unsupported attention backend FLASHINFER on this GPU") == "unsupported-model"
