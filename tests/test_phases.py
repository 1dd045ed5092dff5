"""What the server was doing when it crashed (read.phases): the last start-up or serving line before the crash."""
from __future__ import annotations

from qwen3doctor.judge.pipeline import diagnose_text
from qwen3doctor.read.phases import phase_of
from conftest import cut_traceback

CUT = """\
ERROR 06-06 11:53:56 [core.py:515] EngineCore failed to start.
ERROR 06-06 11:53:56 [core.py:515] Traceback (most recent call last):
ERROR 06-06 11:53:56 [core.py:515]   File "/usr/local/lib/python3.12/dist-packages/vllm/v1/engine/core.py", line 506, in run_engine_core
ERROR 06-06 11:53:56 [core.py:515]     engine_core = EngineCoreProc(*args, **kwargs)
"""


def test_each_phase_from_its_engine_lines():
    assert phase_of("Loading safetensors checkpoint shards:  29% Completed | 2/7 [00:02<00:06,  1.23s/it]") == \
        "loading the checkpoint (shard 2 of 7 loaded)"
    assert phase_of("Loading safetensors checkpoint shards: 100% Completed | 7/7 [00:08<00:00,  1.20s/it]").startswith(
        "processing the weights (all 7")
    assert phase_of("[2025-12-01 01:07:23] Capture cuda graph begin. This can take up to several minutes.") == "capturing CUDA graphs"
    assert phase_of("INFO 07-18 19:55:40 [gpu_model_runner.py:2567] Capturing CUDA graphs (mixed prefill-decode, PIECEWISE): 45%") \
        == "capturing CUDA graphs"
    assert phase_of('INFO:     10.0.0.7:51234 - "POST /v1/chat/completions HTTP/1.1" 200 OK').startswith("serving requests")
    assert phase_of("[2026-09-02 19:17:33 TP0 EP0] Decode batch, #running-req: 21, #full token: 348160").startswith("serving")
    assert phase_of("INFO 05-05 01:45:19 [__init__.py:239] Automatically detected platform cuda.") is None


def test_a_crash_is_placed_in_the_last_phase_before_it(catalog):
    head = ("INFO 06-06 11:53:40 [gpu_model_runner.py:1595] Starting to load model Qwen/Qwen3-Embedding-0.6B...\n"
            "Loading safetensors checkpoint shards:   0% Completed | 0/1 [00:00<?, ?it/s]\n")
    report = diagnose_text(head + CUT, catalog)
    assert report.crash.during == "loading the checkpoint (shard 0 of 1 loaded)"
    assert "while: loading the checkpoint" in __import__("qwen3doctor.render.plain", fromlist=["render"]).render(report)
    # serving lines after the crash do not move it; a crash with no phase line before it has none
    later = diagnose_text(head + CUT + 'INFO:     10.0.0.7:5 - "POST /v1/completions HTTP/1.1" 500 Internal Server Error\n', catalog)
    assert later.crash.during.startswith("loading the checkpoint")
    assert diagnose_text(CUT, catalog).crash.during == ""


SGLANG_START = """\
[2025-12-01 01:07:14] Load weight begin. avail mem=177.74 GB
[2025-12-01 01:07:23] Load weight end. type=Qwen3VLForConditionalGeneration, dtype=torch.bfloat16, avail mem=143.29 GB, mem usage=34.45 GB.
[2025-12-01 01:07:23] KV Cache is allocated. #tokens: 436380, K size: 53.27 GB, V size: 53.27 GB
[2025-12-01 01:07:23] Memory pool end. avail mem=34.66 GB
"""
CAPTURE = ("[2025-12-01 01:07:23] Capture cuda graph begin. This can take up to several minutes. avail mem=34.22 GB\n"
           "[2025-12-01 01:07:23] Capture cuda graph bs [1, 2, 4, 8, 12, 16, 24, 32, 40, 48, 56, 64, 72, 80, 88, 96, 1\n")


def test_the_kv_cache_is_allocated_before_capture_not_after():
    # SGLang allocates its KV pool, then captures: a crash between the two is not "after capture"
    assert phase_of(SGLANG_START.splitlines()[2]).startswith("setting up the KV cache")
    assert phase_of("INFO 04-29 01:09:49 [kv_cache_utils.py:634] GPU KV cache size: 198,784 tokens").startswith("setting up the KV cache")
    assert phase_of("[2025-12-01 01:08:02] Capture cuda graph end. Time elapsed: 38.1 s.") == "warming up after CUDA graph capture"


def test_a_log_that_stops_in_start_up_says_so_and_stays_clean(catalog):
    from qwen3doctor.model import Verdict

    report = diagnose_text(SGLANG_START + CAPTURE, catalog)
    assert report.verdict is Verdict.CLEAN and report.findings == ()
    assert report.next_steps[0].startswith("The log ends while capturing CUDA graphs")
    # a start-up that went on to serve, or whose last phase line is far above its end, did not stop there
    served = SGLANG_START + CAPTURE + "[2025-12-01 01:08:30] The server is fired up and ready to roll!\n"
    assert not any("The log ends while" in s for s in diagnose_text(served, catalog).next_steps)
    noise = "".join(f"[2025-12-01 01:08:{i % 60:02d}] NCCL INFO Channel {i:02d}/32 : 0[0] -> 1[1] via P2P/IPC\n" for i in range(40))
    assert not any("The log ends while" in s for s in diagnose_text(SGLANG_START + CAPTURE + noise, catalog).next_steps)


def test_a_traceback_alone_is_placed_by_the_engine_steps_it_passes(catalog):
    prefix = "(EngineCore_DP0 pid=1) ERROR 05-02 10:00:00 [core.py:708] "

    def tb(*steps):
        lines = ["Traceback (most recent call last):"] + [
            f'  File "/x/vllm/{f}", line {n}, in {fn}\n{prefix}    call()' for f, n, fn in steps] + ["RuntimeError: boom"]
        return "".join(prefix + line + "\n" for line in lines)

    kv = tb(("v1/engine/core.py", 92, "__init__"), ("v1/engine/core.py", 190, "_initialize_kv_caches"))
    assert diagnose_text(kv, catalog).crash.during.startswith("sizing the KV cache")
    capture = tb(("v1/worker/gpu_worker.py", 300, "compile_or_warm_up_model"), ("v1/worker/gpu_model_runner.py", 2900, "capture_model"),
                 ("v1/worker/gpu_model_runner.py", 2500, "_dummy_run"), ("v1/worker/gpu_model_runner.py", 1900, "execute_model"))
    assert diagnose_text(capture, catalog).crash.during == "capturing CUDA graphs"
    # a phase line says it was loading; the frames show a later step: the frames win
    loading = "INFO 05-02 09:59:00 [gpu_model_runner.py:1595] Starting to load model Qwen/Qwen3-8B...\n"
    assert diagnose_text(loading + capture, catalog).crash.during == "capturing CUDA graphs"


def test_a_capture_crash_after_the_kv_pool_line_is_placed_by_its_frames(catalog):
    # SGLang allocates its KV pool, then captures: frames through the capture are a later step than that line
    prefix = "[2025-12-01 01:07:30 TP0] "
    log = SGLANG_START + prefix + "Scheduler hit an exception: Traceback (most recent call last):\n" + "".join(
        f'  File "/sgl-workspace/sglang/python/sglang/srt/model_executor/cuda_graph_runner.py", line {n}, in {fn}\n    x()\n'
        for n, fn in ((387, "__init__"), (492, "capture"), (654, "capture_one_batch_size"))) + "RuntimeError: boom\n"
    assert diagnose_text(log, catalog).crash.during == "capturing CUDA graphs"


IMPORT_CHAIN = """\
INFO 04-29 00:30:19 [__init__.py:239] Automatically detected platform cuda.
Traceback (most recent call last):
  File "<frozen runpy>", line 198, in _run_module_as_main
  File "<frozen runpy>", line 88, in _run_code
  File "/home/u/.local/lib/python3.12/site-packages/sglang/launch_server.py", line 6, in <module>
    from sglang.srt.entrypoints.http_server import launch_server
  File "/home/u/.local/lib/python3.12/site-packages/sglang/srt/entrypoints/engine.py", line 42, in <module>
    from sglang.srt.managers.data_parallel_controller import (
  File "/home/u/.loc
"""


def test_a_traceback_cut_in_an_import_chain_is_read_as_the_import_step(catalog):
    report = diagnose_text(IMPORT_CHAIN, catalog)
    assert report.crash.during.startswith("importing the engine's modules")
    ids = [f.rule_id for f in report.findings]
    assert {"engine-extension-torch-abi-mismatch", "sgl-kernel-python-api-mismatch"} <= set(ids)
    assert all(f.confidence == "low" for f in report.findings)
    # the entry script's own top level calling the server is no import: the same cut one call later is not this step
    running = IMPORT_CHAIN.replace("    from sglang.srt.entrypoints.http_server import launch_server\n",
                                   "    launch_server(server_args)\n").split("  File \"/home/u/.local/lib/python3.12/site-packages/sglang/srt/entrypoints/engine.py")[0]
    assert not diagnose_text(running, catalog).crash.during.startswith("importing")


def test_an_import_step_crash_gets_no_run_time_candidates_from_the_modules_it_passes(catalog):
    log = ('Traceback (most recent call last):\n'
           '  File "/usr/local/bin/vllm", line 5, in <module>\n'
           "    from vllm.entrypoints.cli.main import main\n"
           '  File "/usr/local/lib/python3.12/dist-packages/vllm/model_executor/layers/fused_moe/layer.py", line 30, in <module>\n'
           "    from vllm import _custom_ops as ops\n")
    report = diagnose_text(log, catalog)
    assert report.crash.during.startswith("importing")
    assert report.findings and all(
        any(ev.subject == "<import>" for ev in f.evidence) for f in report.findings)


def test_steps_of_phases_and_frames():
    from qwen3doctor.read.phases import (ARGUMENTS, CAPTURING, LOADING, SIZING, step_of, steps_of_frames)
    assert step_of("loading the checkpoint (shard 3 of 7 loaded)") == LOADING
    assert step_of("setting up the KV cache and attention (before CUDA graph capture)") == SIZING
    assert step_of("warming up after CUDA graph capture") == CAPTURING
    assert step_of("compiling the model (torch.compile)") is None and step_of(None) is None
    assert steps_of_frames(["validate_parsed_serve_args", "capture_model", "fi_chunk_gated_delta_rule"]) == {ARGUMENTS, CAPTURING}
    assert steps_of_frames(["_compute_mrope_positions"]) == frozenset()


def test_repacking_after_the_checkpoint_is_read_is_still_loading_and_a_reload_is_no_start_up(catalog):
    from qwen3doctor.judge.pipeline import diagnose_text
    from qwen3doctor.read.phases import LOADING, step_of

    tag = "(EngineCore pid=47773) ERROR 03-25 14:45:31 [core.py:1099] "
    log = ("(EngineCore pid=47773) INFO 03-25 14:45:30 [default_loader.py:291] Loading weights took 12.40 seconds\n"
           + "".join(tag + line + "\n" for line in (
               "Traceback (most recent call last):",
               '  File "/v/vllm/model_executor/model_loader/base_loader.py", line 60, in load_model',
               "    process_weights_after_loading(model, model_config, target_device)",
               '  File "/v/vllm/model_executor/layers/utils.py", line 230, in dispatch_cpu_unquantized_gemm',
               "    N, K = layer.weight.size()",
               "ValueError: too many values to unpack (expected 2)")))
    crash = diagnose_text(log, catalog).crash
    assert crash.during.startswith("processing the weights") and step_of(crash.during) == LOADING
    reload = "".join(line + "\n" for line in (
        "Traceback (most recent call last):",
        '  File "/v/vllm/v1/worker/gpu_worker.py", line 700, in reload_weights',
        "    self.model_runner.reload_weights()",
        '  File "/v/vllm/model_executor/models/qwen3.py", line 500, in load_weights',
        "    return loader.load_weights(weights)",
        "AttributeError: 'Parameter' object has no attribute 'weight_loader'"))
    assert diagnose_text(reload, catalog).crash.during.startswith("updating the weights of a running server")


def test_the_capture_step_places_a_crash_without_frames_after_the_capture_line(catalog):
    """`<capture>` in a `frames` clause hits on a crash with no frames of its own (a worker's OOM quoted by the engine
    that waited for it) whose last phase line is the capture's; the same crash while the shards load misses."""
    from conftest import EXAMPLES
    from qwen3doctor.model import CAPTURE_STEP

    path = EXAMPLES / "vllm" / "oom-during-cudagraph-capture--qwen3-vl-235b-tp8-worker-oom-quoted.log"
    text = path.read_text()
    report = diagnose_text(text, catalog)
    assert report.crash.during == "capturing CUDA graphs" and not report.crash.frames
    top = report.findings[0]
    assert top.rule_id == "oom-during-cudagraph-capture"
    assert any(ev.subject == CAPTURE_STEP and ev.state == "hit" for ev in top.evidence)
    # the capture bar replaced by a loading bar: the same quoted OOM is no capture OOM
    loading = text.replace("Capturing CUDA graphs (mixed prefill-decode, PIECEWISE):  16%|█▌        | 11/67 [00:04<00:21,  2.61it/s]",
                           "Loading safetensors checkpoint shards:  41% Completed | 40/97 [01:07<01:35,  1.68s/it]")
    assert loading != text
    assert "oom-during-cudagraph-capture" not in [f.rule_id for f in diagnose_text(loading, catalog).findings]
    # a capture crash whose own traceback is in the log is placed by its frames, not by the step's name
    from qwen3doctor.read.phases import CAPTURING, steps_of_frames
    assert steps_of_frames([CAPTURE_STEP]) == {CAPTURING}


def test_a_traceback_through_the_kernel_warm_up_is_placed_before_capture_not_in_it(catalog):
    from qwen3doctor.read.phases import CAPTURING, WARMING_KERNELS, step_of, steps_of_frames
    prefix = "(Worker_TP0 pid=77) ERROR 05-02 10:00:00 [multiproc_executor.py:839] "

    def tb(*fns):
        lines = ["Traceback (most recent call last):"] + [
            f'  File "/x/vllm/v1/worker/gpu_worker.py", line {400 + i}, in {fn}\n{prefix}    call()' for i, fn in enumerate(fns)]
        return "".join(prefix + line + "\n" for line in lines + ["RuntimeError: boom"])

    # vLLM's compile_or_warm_up_model runs kernel_warmup (FlashInfer's autotuner) before it calls capture_model
    warm = diagnose_text(tb("worker_main", "compile_or_warm_up_model", "kernel_warmup", "flashinfer_autotune"), catalog)
    assert warm.crash.during == WARMING_KERNELS and step_of(WARMING_KERNELS) == CAPTURING
    # a phase line of an earlier step (torch.compile) does not pull it back; its step is still the capture's
    compiled = "INFO 05-02 09:59:50 [backends.py:548] Dynamo bytecode transform time: 9.1 s\n"
    assert diagnose_text(compiled + tb("compile_or_warm_up_model", "kernel_warmup"), catalog).crash.during == WARMING_KERNELS
    # compile_or_warm_up_model alone (a paste cut below it mostly shows its capture_model() call) stays the capture
    assert diagnose_text(tb("worker_main", "compile_or_warm_up_model"), catalog).crash.during == CAPTURING
    assert steps_of_frames(["kernel_warmup"]) == {CAPTURING}


def test_a_traceback_cut_while_the_executor_starts_its_workers_is_no_kv_cache_sizing_crash(catalog):
    from qwen3doctor.read.phases import LOADING, STARTING_WORKERS, step_of
    # vllm#6329's shape: an offline LLM() over Ray, cut in the executor's start (its next call, _init_workers_ray,
    # is only the code line); vLLM sizes the KV cache after the executor is up, never under it
    prefix = "[rank0]: "
    frames = [("/data/run.py", 22, "<module>", 'llm = LLM(model="/models/qwen", gpu_memory_utilization=0.4, tensor_parallel_size=2)'),
              ("vllm/entrypoints/llm.py", 149, "__init__", "self.llm_engine = LLMEngine.from_engine_args("),
              ("vllm/engine/llm_engine.py", 243, "__init__", "self.model_executor = executor_class("),
              ("vllm/executor/executor_base.py", 42, "__init__", "self._init_executor()"),
              ("vllm/executor/ray_gpu_executor.py", 41, "_init_executor", "self._init_workers_ray(placement_group)")]
    log = cut_traceback(prefix, "/opt/venv/lib/python3.10/site-packages", frames)
    report = diagnose_text(log, catalog)
    assert report.crash.during == STARTING_WORKERS and step_of(STARTING_WORKERS) == LOADING
    assert "no-memory-left-for-kv-cache" not in [f.rule_id for f in report.findings]


def test_the_call_on_the_last_code_line_of_a_cut_traceback_places_its_crash_but_matches_no_rule(catalog):
    import io
    from qwen3doctor.judge.match import clause_state
    from qwen3doctor.judge.pipeline import scan_source
    from qwen3doctor.knowledge.catalog import Clause
    from qwen3doctor.read.crash import CALLED
    from qwen3doctor.read.reader import LineSource
    p = "(EngineCore_DP0 pid=77) ERROR 05-02 10:00:00 [core.py:708] "
    log = (p + "EngineCore failed to start.\n" + p + "Traceback (most recent call last):\n"
           + p + '  File "/x/vllm/v1/engine/core.py", line 699, in run_engine_core\n'
           + p + "    engine_core = EngineCoreProc(*args, **kwargs)\n"
           + p + '  File "/x/vllm/v1/engine/core.py", line 498, in __init__\n'
           + p + "    num_gpu_blocks, num_cpu_blocks, kv_cache_config = self._initialize_kv_caches(vllm_config)\n")
    crash = diagnose_text(log, catalog).crash
    # the paste ends on the code line: the KV cache was being sized below it
    assert crash.frames[-1].function == "_initialize_kv_caches" and crash.frames[-1].file == CALLED
    assert crash.during.startswith("sizing the KV cache")
    # a rule's frames clause does not hit on it: the call places the crash, the frame's own line is not in the paste
    scan = scan_source(LineSource("x", io.BytesIO(log.encode())), catalog)
    assert clause_state(Clause("frames", ("_initialize_kv_caches",)), scan, "r", "match.frames").state != "hit"
    # a call that tells no step the frames shown do not (or no engine step at all) adds no frame
    plain = log.replace("self._initialize_kv_caches(vllm_config)", "self.model(input_ids)")
    assert diagnose_text(plain, catalog).crash.functions == ("run_engine_core", "__init__")


def test_the_engine_cores_init_line_ends_start_up_for_an_in_process_engine(catalog):
    """A trainer's in-process vLLM prints no server lines: its engine core's `init engine (profile, create kv cache,
    warmup model) took ...` is the last start-up line, so a crash after it happened while serving (not while the KV
    cache was being set up, which the line before it says)."""
    from qwen3doctor.read.phases import KV_SETUP, SERVING

    head = ("(WorkerDict pid=7) INFO 10-14 03:14:09 [gpu_worker.py:298] Available KV cache memory: 24.17 GiB\n")
    done = "(WorkerDict pid=7) INFO 10-14 03:14:27 [core.py:210] init engine (profile, create kv cache, warmup model) took 31.82 seconds\n"
    crash = ("(WorkerDict pid=7) Traceback (most recent call last):\n"
             '(WorkerDict pid=7)   File "/opt/venv/lib/python3.10/site-packages/verl/workers/rollout/vllm_rollout.py", line 265, in generate_sequences\n'
             "(WorkerDict pid=7)     outputs = self.inference_engine.generate(\n"
             "(WorkerDict pid=7) RuntimeError: CUDA error: an illegal memory access was encountered\n")
    assert diagnose_text(head + done + crash, catalog).crash.during == SERVING
    assert diagnose_text(head + crash, catalog).crash.during == KV_SETUP


def test_attention_backend_set_up_is_the_sizing_step_so_an_argument_check_crash_rules_it_out(catalog):
    # a Gemma 4 drafter launch whose traceback is cut inside the model config check: the drafter rule's frames
    # (initialize_attn_backend, initialize_metadata_builders) run inside initialize_kv_cache, a later step, so its
    # launch-line clause beside the cut message is no candidate (held-out vllm#53836)
    log = ("$ vllm serve google/gemma-4-31B-it --kv-cache-dtype fp8 --max-model-len 262144 "
           "--speculative-config '{\"model\":\"google/gemma-4-31B-it-assistant\",\"num_speculative_tokens\":3}'\n"
           "(APIServer pid=5120) INFO 09-02 11:20:07 [api_server.py:1734] vLLM API server version 0.27.1\n"
           "(APIServer pid=5120) Traceback (most recent call last):\n"
           '(APIServer pid=5120)   File "/opt/venv/lib/python3.12/site-packages/vllm/engine/arg_utils.py", line 1929, in create_engine_config\n'
           "(APIServer pid=5120)     model_config = self.create_model_config()\n"
           '(APIServer pid=5120)   File "/opt/venv/lib/python3.12/site-packages/vllm/engine/arg_utils.py", line 1686, in create_model_config\n'
           "(APIServer pid=5120)     return ModelConfig(\n"
           '(APIServer pid=5120)   File "/opt/venv/lib/python3.12/site-packa\n')
    report = diagnose_text(log, catalog)
    assert "gemma4-mtp-drafter-flashinfer-sm90-sliding-window-guard" not in [f.rule_id for f in report.findings]
