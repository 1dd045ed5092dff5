"""Specificity and gates: kernel-library causes are engine-agnostic, rules that share their only strong clause are
tied low-confidence candidates, family / engine / platform are gates, and the deepest frame breaks ties."""

from pathlib import Path

from qwen3doctor.judge.pipeline import diagnose_text
from qwen3doctor.model import Evidence, Finding
from qwen3doctor.judge.rank import engine_agnostic, rank
from qwen3doctor.model import Crash, Environment, Frame, Scan
from conftest import cut_traceback

VLLM_SAMPLER_IMA = '''(APIServer pid=1) INFO 03-02 10:00:00 [api_server.py:1851] vLLM API server version 0.11.0
(EngineCore_DP0 pid=300) ERROR 03-02 10:15:00 [core.py:710] EngineCore encountered a fatal error.
(EngineCore_DP0 pid=300) ERROR 03-02 10:15:00 [core.py:710] Traceback (most recent call last):
(EngineCore_DP0 pid=300) ERROR 03-02 10:15:00 [core.py:710]   File "/usr/local/lib/python3.12/dist-packages/vllm/v1/sample/ops/topk_topp_sampler.py", line 120, in forward_cuda
(EngineCore_DP0 pid=300) ERROR 03-02 10:15:00 [core.py:710]     return flashinfer_sample(logits.contiguous(), k, p, generators), None
(EngineCore_DP0 pid=300) ERROR 03-02 10:15:00 [core.py:710]   File "/usr/local/lib/python3.12/dist-packages/flashinfer/sampling.py", line 912, in top_k_top_p_sampling_from_probs
(EngineCore_DP0 pid=300) ERROR 03-02 10:15:00 [core.py:710]     return _top_k_top_p_sampling_from_probs_internal(
(EngineCore_DP0 pid=300) ERROR 03-02 10:15:00 [core.py:710] RuntimeError: TopKTopPSamplingFromProbs failed with error code an illegal memory access was encountered
'''


def test_a_kernel_library_rule_filed_under_one_engine_reports_on_the_other(catalog):
    rule = catalog.rules["flashinfer-sampling-ima"]
    assert rule.engines == ("sglang",) and engine_agnostic(rule)
    report = diagnose_text(VLLM_SAMPLER_IMA, catalog)
    assert report.environment.get("engine") == "vllm"
    top = report.findings[0]
    assert top.rule_id == "flashinfer-sampling-ima"
    assert any("this rule is about sglang" in n for n in top.notes)  # the engine miss still says so
    # a rule that is not a kernel library's stays cut on the other engine
    assert not engine_agnostic(catalog.rules["hybrid-mamba-leak-check"])


def _finding(rule_id, evidence, score=0.7, confidence="high", references=("vllm#1",)):
    return Finding(rule_id, rule_id, "confirmed", score, confidence, ("vllm",), (), references, tuple(evidence), (), None)


def test_rules_sharing_their_only_strong_clause_are_tied_low_candidates():
    frame = Evidence("match.frames", "hit", "frame `chunk_gated_delta_rule_fwd` (chunk.py:1320)", "chunk_gated_delta_rule_fwd")
    own = Evidence("match.message", "hit", "message “size mismatch”")
    a = _finding("gdn-a", [frame])
    b = _finding("gdn-b", [frame], score=0.65)
    c = _finding("other", [frame, own], score=0.5, confidence="medium")
    ranked = rank([a, b, c])
    by = {f.rule_id: f for f in ranked}
    assert by["gdn-a"].confidence == "low" and by["gdn-b"].confidence == "low"
    assert any("shared with gdn-b" in n for n in by["gdn-a"].notes)
    assert by["other"].confidence == "medium"  # it has a clause of its own
    assert [f.rule_id for f in ranked][:2] == ["gdn-a", "gdn-b"]  # the order is the score's


def test_the_deepest_frame_breaks_a_tie_before_issue_counts():
    crash = Crash("error", "RuntimeError", "x", None, 1, frames=(
        Frame("a.py", 1, "execute_model"), Frame("b.py", 2, "forward"), Frame("c.py", 3, "fused_moe_kernel")), complete=False)
    scan = Scan((crash,), (), Environment())
    shallow = _finding("many-issues", [Evidence("supports.frames", "hit", "frame `execute_model`", "execute_model")],
                       score=0.1, confidence="low", references=("vllm#1", "vllm#2", "vllm#3"))
    deep = _finding("deep-frame", [Evidence("supports.frames", "hit", "frame `fused_moe_kernel`", "fused_moe_kernel")],
                    score=0.1, confidence="low")
    shallow = Finding(**{**shallow.__dict__, "basis": "path"})
    deep = Finding(**{**deep.__dict__, "basis": "path"})
    assert [f.rule_id for f in rank([shallow, deep], scan)] == ["deep-frame", "many-issues"]
    # with no frame to tell them apart, the cause reported in more issues comes first
    assert [f.rule_id for f in rank([deep, shallow])] == ["many-issues", "deep-frame"]


def test_family_is_a_gate_for_a_rule_without_crash_evidence(catalog):
    from qwen3doctor.judge.match import evaluate
    from qwen3doctor.judge.rank import score

    rule = catalog.rules["gptq-marlin-moe-repack-oom"]
    log = "python -m sglang.launch_server --model-path Qwen/Qwen3-30B-A3B-GPTQ-Int4\n"
    from qwen3doctor.judge.pipeline import scan_source
    from qwen3doctor.read.reader import LineSource
    import io

    scan = scan_source(LineSource("x", io.BytesIO(log.encode())), catalog)
    f = score(evaluate(rule, scan), scan)
    assert f is not None and f.basis == "combination"
    family_hit = [e for e in f.evidence if e.clause == "when.family" and e.state == "hit"]
    assert family_hit  # the family holds, and opens the gate
    other = [e for e in f.evidence if e.state == "hit" and e.clause in ("when.quantization", "when.engine_version")]
    # the score is what the discriminating facts are worth, not the family
    from qwen3doctor.judge.rank import WHEN_WEIGHT

    assert abs(f.score - sum(WHEN_WEIGHT[e.clause] for e in other)) < 1e-6


def test_a_thin_paste_gets_at_most_three_candidates_each_with_what_confirms_it(catalog):
    cut = ('(Worker_TP0 pid=204) ERROR 06-29 01:44:32 [multiproc_executor.py:870] Traceback (most recent call last):\n'
           '(Worker_TP0 pid=204) ERROR 06-29 01:44:32 [multiproc_executor.py:870]   File "/v/vllm/v1/executor/multiproc_executor.py", line 680, in __init__\n'
           '(Worker_TP0 pid=204) ERROR 06-29 01:44:32 [multiproc_executor.py:870]     self.worker.load_model()\n'
           '(Worker_TP0 pid=204) ERROR 06-29 01:44:32 [multiproc_executor.py:870]   File "/v/vllm/v1/worker/gpu_worker.py", line 323, in load_model\n'
           '(Worker_TP0 pid=204) ERROR 06-29 01:44:32 [multiproc_executor.py:870]     self.model_runner.load_model(load_dummy_weights=load_dummy_weights)\n')
    report = diagnose_text(cut, catalog)
    assert report.findings and len(report.findings) <= 3
    assert all(f.confidence == "low" for f in report.findings)
    assert all(any(n.startswith("would be confirmed by ") for n in f.notes) for f in report.findings)
    assert any("stops before its exception line" in s for s in report.next_steps)


def test_a_launch_without_a_crash_names_what_to_paste_next(catalog):
    report = diagnose_text("vllm                              0.10.1\n"
                           "$ vllm serve Qwen/Qwen3-30B-A3B-FP8 --tensor-parallel-size 4\n", catalog)
    assert report.risks and report.next_steps[0].startswith("The paste shows no crash line")


def test_a_candidate_the_launch_contradicts_is_dropped(catalog):
    launch = "vllm serve Qwen/Qwen3.5-35B-A3B --tensor-parallel-size 2{}\n"
    crash = "torch.AcceleratorError: CUDA error: an illegal memory access was encountered\n"
    plain = [f.rule_id for f in diagnose_text(launch.format("") + crash, catalog).findings]
    eager = [f.rule_id for f in diagnose_text(launch.format(" --enforce-eager") + crash, catalog).findings]
    assert "gdn-cudagraph-illegal-memory-access" in plain
    assert "gdn-cudagraph-illegal-memory-access" not in eager  # its workaround is already set


CUT_IN_DRAFTER = '''[1/8,TP1][pid=5510] ERROR 01-28 10:47:07.623 [forward_context.py:617] Traceback (most recent call last):
[1/8,TP1][pid=5510] ERROR 01-28 10:47:07.623 [forward_context.py:617]   File "/usr/local/lib/python3.12/dist-packages/vllm/forward_context.py", line 615, in set_forward_context
[1/8,TP1][pid=5510] ERROR 01-28 10:47:07.623 [forward_context.py:617]     yield
[1/8,TP1][pid=5510] ERROR 01-28 10:47:07.623 [forward_context.py:617]   File "/usr/local/lib/python3.12/dist-packages/vllm/v1/{module}.py", line 1486, in dummy_run
[1/8,TP1][pid=5510] ERROR 01-28 10:47:07.623 [forward_context.py:617]     self.model(
[1/8,TP1][pid=5510] ERROR 01-28 10:47:07.623 [forward_context.py:617]   File "/usr/local/lib/python3.12/dist-packages/torch/nn/modules/module.py", line 1751, in _wrapped_call_impl
'''


def test_a_cut_traceback_names_candidates_by_the_engine_module_it_stops_in(catalog):
    report = diagnose_text(CUT_IN_DRAFTER.format(module="spec_decode/eagle"), catalog)
    top = report.findings[0]
    assert top.rule_id.startswith("eagle3-") and top.confidence == "low"
    # the drafter-module route names a candidate of its own (a rule whose supporting frame the cut traceback shows,
    # such as the drafter's dummy_run, may head the list)
    by_module = [f for f in report.findings if any("stops in `eagle.py`" in e.text for e in f.evidence)]
    assert by_module and all(f.confidence == "low" for f in by_module)
    assert any(f.rule_id.startswith("eagle3-") for f in by_module)
    # a module whose name says nothing (forward_context, module.py) names no candidate
    other = diagnose_text(CUT_IN_DRAFTER.format(module="worker/utils"), catalog)
    assert not any("stops in" in e.text for f in other.findings for e in f.evidence)


def test_a_compound_module_name_names_a_cause_whole_not_by_one_common_word(catalog):
    # `radix_cache.py` is where radix-cache causes live, not every rule with "cache" in its id (a non-writable cache
    # directory); `tp_worker_overlap_thread.py` is no home of a thread-limit cause
    for module, stray in (("mem_cache/radix_cache", "cache-dir-not-writable"),
                          ("managers/tp_worker_overlap_thread", "process-thread-limit-exhausted")):
        paste = ("[2026-03-02 11:04:10 TP0] Scheduler hit an exception: Traceback (most recent call last):\n"
                 '  File "/sgl-workspace/sglang/python/sglang/srt/managers/scheduler.py", line 2710, in run_scheduler_process\n'
                 "    scheduler.event_loop_overlap()\n"
                 f'  File "/sgl-workspace/sglang/python/sglang/srt/{module}.py", line 412, in step\n'
                 "    self._run()\n")
        report = diagnose_text(paste, catalog)
        assert stray not in [f.rule_id for f in report.findings], module


def test_a_common_exception_type_alone_is_no_candidate_when_the_paste_shows_its_message(catalog):
    """An exception line with its own message and no traceback: rules whose only hit is the type (an assert in a
    frame the paste does not show) say nothing about this crash; the message is what tells it apart."""
    report = diagnose_text("KeyError: 'timestamps'\nAssertionError: Failed to apply prompt replacement\n", catalog)
    assert "block-pool-admission-allocation-mismatch" not in [f.rule_id for f in report.findings]
    for f in report.findings:
        hits = [ev for ev in f.evidence if ev.state == "hit" and ev.clause.startswith("match")]
        assert any(not ev.clause.endswith("exception") for ev in hits), f.rule_id
    # the same type raised in the frame the rule names is still that rule's
    tb = ("Traceback (most recent call last):\n"
          '  File "/x/vllm/v1/core/block_pool.py", line 300, in get_new_blocks\n'
          "    ret = self.free_block_queue.popleft_n(num_blocks)\n"
          '  File "/x/vllm/v1/core/kv_cache_utils.py", line 270, in popleft_n\n'
          "    assert self.fake_free_list_head.next_free_block is not None\nAssertionError\n")
    assert "block-pool-admission-allocation-mismatch" in [f.rule_id for f in diagnose_text(tb, catalog).findings]
    # a traceback cut above its frames is the same: its own message is shown, the rule's frames are not
    # (a fix PR's condensed call chain: only its first line reads as a frame)
    cut = ('File ".../srt/disaggregation/decode.py", pop_preallocated\n'
           "  -> _match_prefix_and_lock\n"
           "    -> _build_decode_prefix_match\n"
           "      -> .../srt/disaggregation/decode_hicache_mixin.py:84\n"
           "         l3_storage_hit_length = self.tree_cache.query_storage_hit_length(...)\n"
           "AttributeError: 'UnifiedRadixCache' object has no attribute 'query_storage_hit_length'\n")
    assert "deepgemm-python-api-mismatch" not in [f.rule_id for f in diagnose_text(cut, catalog).findings]


def test_a_name_in_a_messages_listing_of_every_parameter_is_no_evidence(catalog):
    # ms-swift#8477: the loader lists every parameter of a Qwen3.5 model, the GDN gate projection among them, and a
    # rule keyed on that projection's name must not take the listing for its crash (the paste is cut mid-listing)
    names = ", ".join(f"'language_model.model.layers.{i}.linear_attn.in_proj_{p}.weight'" for i in range(6) for p in ("qkvz", "ba"))
    paste = ("(EngineCore_DP0 pid=1) ERROR 09-16 13:48:40 [core.py:1100] ValueError: There is no module or parameter named "
             f"'score' in Qwen3_5ForEmbedding. The available parameters belonging to  (Qwen3_5ForEmbedding) are: {{{names}, 'visu\n")
    assert not any(f.rule_id == "gdn-in-proj-ba-quantized" for f in diagnose_text(paste, catalog).findings)
    # the same name where the crash itself is about that layer still counts
    own = ("(EngineCore_DP0 pid=1) ERROR 09-16 13:48:40 [core.py:1100] KeyError: "
           "'model.layers.0.linear_attn.in_proj_ba.qweight'\n")
    assert any(f.rule_id == "gdn-in-proj-ba-quantized" for f in diagnose_text(own, catalog).findings)


def test_a_specific_frame_higher_up_names_the_cause_before_a_generic_frame_deeper_down(catalog):
    # nlzy/vllm-gfx906#2: a GGUF config read fails in get_config (every config read passes it) under
    # create_model_config; the GGUF rule's specific frame is the evidence, not the generic one below it
    cut = ('  File "/x/vllm/engine/arg_utils.py", line 987, in create_model_config\n'
           "    return ModelConfig(\n"
           '  File "/x/vllm/transformers_utils/config.py", line 303, in get_config\n'
           "    config_dict, _ = PretrainedConfig.get_config_dict(\n")
    report = diagnose_text(cut, catalog)
    gguf = [f for f in report.findings if f.rule_id == "gguf-arch-unsupported"]
    assert gguf and any("create_model_config" in e.text for e in gguf[0].evidence if e.clause == "supports.frames")
    # a metadata builder's `build` is every attention backend's: FlashInfer's does not make a GDN spec-decode claim
    flashinfer = ('  File "/x/vllm/v1/attention/backends/flashinfer.py", line 1081, in build\n'
                  "    fast_plan_decode(\n"
                  '  File "/x/flashinfer/prefill.py", line 374, in get_batch_prefill_module\n'
                  "    module = gen_batch_prefill_module(backend, *args).build_and_load()\n")
    top = diagnose_text(flashinfer, catalog).findings[0]
    assert top.rule_id != "gdn-mtp-spec-decode-illegal-memory-access"


def test_a_line_a_match_clause_found_is_not_counted_again_as_support(catalog):
    # the embedding rule names the checkpoint in a `match` alternative and among its supports: one line, one fact
    log = (
        "vllm serve /models/Qwen3-Embedding-8B --port 10001 --max-model-len 32768\n"
        "INFO 07-29 18:42:00 [gpu_model_runner.py:1843] Starting to load model /models/Qwen3-Embedding-8B...\n"
        "Loading safetensors checkpoint shards:   0% Completed | 0/4 [00:00<?, ?it/s]\n"
        "ERROR 07-29 18:42:01 [core.py:632] EngineCore failed to start.\n"
        "ERROR 07-29 18:42:01 [core.py:632] Traceback (most recent call last):\n"
        'ERROR 07-29 18:42:01 [core.py:632]   File "/usr/lib/python3.12/site-packages/vllm/v1/engine/core.py", line 623, in run_engine_core\n'
        "ERROR 07-29 18:42:01 [core.py:632]     engine_core = EngineCoreProc(*args, **kwargs)\n"
    )
    found = [f for f in diagnose_text(log, catalog).findings if f.rule_id == "qwen3-embedding-served-as-generate"]
    assert found, "the embedding checkpoint in a cut start-up traceback is still this rule's candidate"
    lines = [ev.text for ev in found[0].evidence if ev.state == "hit" and ev.clause.endswith(".log")]
    assert len(lines) == len(set(lines)) == 1


def test_the_entry_frame_of_a_start_up_step_is_no_evidence_of_one_cause(catalog):
    # every crash during SGLang's CUDA graph capture passes init_cuda_graphs: a rule naming it beside its message is no
    # candidate when the paste is cut above the message
    log = (
        "Process Process-1:\n"
        "Initialization failed. controller_init_state: Traceback (most recent call last):\n"
        '  File "/sgl-workspace/sglang/python/sglang/srt/model_executor/model_runner.py", line 344, in init_cuda_graphs\n'
        "    self.cuda_graph_runner.capture(batch_size_list)\n"
        '  File "/sgl-workspace/sglang/python/sglang/srt/model_executor/cuda_graph_runner.py", line 211, in capture_one_batch_size\n'
        "    run_once()\n"
    )
    found = {f.rule_id: f for f in diagnose_text(log, catalog).findings}
    assert "eagle3-draft-vocab-mismatch" not in found or found["eagle3-draft-vocab-mismatch"].basis != "evidence"
    with_line = diagnose_text("Failed to find C compiler\n" + log, catalog)
    assert with_line.findings[0].rule_id == "triton-runtime-c-toolchain-missing"


def test_a_compiler_stopping_on_a_missing_header_is_a_crash(catalog):
    log = ("/home/dev/envs/serve/lib/python3.12/site-packages/flashinfer/data/csrc/sampling.cu:22:10: "
           "fatal error: curand_kernel.h: No such file or directory\ncompilation terminated.\n")
    report = diagnose_text(log, catalog)
    assert report.crash is not None and "curand_kernel.h" in report.crash.message
    assert report.findings[0].rule_id == "flashinfer-jit-build-failure"


def test_a_log_pattern_hitting_a_cut_tracebacks_own_lines_is_path_evidence(catalog):
    # the LoRA vision-tower rule names the Qwen2.5-VL vision block's frame line beside the LoRA shrink frames; with the
    # traceback cut above the LoRA frames, that frame line only says the crash ran through the vision tower
    log = (
        "(Worker_TP0 pid=142) ERROR 11-28 16:14:23 [multiproc_executor.py:815] Traceback (most recent call last):\n"
        '(Worker_TP0 pid=142) ERROR 11-28 16:14:23 [multiproc_executor.py:815]   File "/usr/local/lib/python3.12/dist-packages/vllm/model_executor/models/qwen2_5_vl.py", line 492, in forward\n'
        "(Worker_TP0 pid=142) ERROR 11-28 16:14:23 [multiproc_executor.py:815]     x_attn = self.attn(\n"
    )
    found = {f.rule_id: f for f in diagnose_text(log, catalog).findings}
    lora = found.get("qwen3-vl-lora-vision-tower-shrink-assert")
    assert lora is None or (lora.basis == "path" and lora.score < 0.2)


def test_a_cut_traceback_in_a_package_a_rule_id_abbreviates_names_its_candidates(catalog):
    log = ("python -m sglang.launch_server --model-path /models/Qwen3-Next-80B-A3B-Instruct-NVFP4 --tp-size 1\n"
           'File ".../sglang/srt/layers/quantization/compressed_tensors/compressed_t\n')
    report = diagnose_text(log, catalog)
    assert report.findings[0].rule_id.startswith("ct-")
    assert any("where this cause lives" in ev.text for ev in report.findings[0].evidence)


def test_a_cut_traceback_in_aiter_is_rocm_and_names_the_aiter_rules(catalog):
    log = ('vllm-1  | (EngineCore pid=165) ERROR 07-02 07:48:27 [core.py:1202]   File "/opt/venv/lib64/python3.12/site-packages/aiter/ops/sampling.py", line 70, in top_k_top_p_sampling_from_probs\n'
           "vllm-1  | (EngineCore pid=165) ERROR 07-02 07:48:27 [core.py:1202]     return top_k_top_p_sampling_from_probs_core(\n")
    report = diagnose_text(log, catalog)
    assert report.environment.get("platform") == "rocm"
    ids = [f.rule_id for f in report.findings]
    assert any(i.startswith("aiter-") for i in ids)
    fi = [f for f in report.findings if f.rule_id == "flashinfer-sampling-ima"]
    assert not fi or fi[0].confidence == "low" and any("platform" in n for n in fi[0].notes)


def test_a_traceback_cut_in_tritons_kernel_loader_points_at_triton_causes(catalog):
    """A paste that stops in Triton's compiled-kernel loader (where it raises OutOfResources and other launch
    errors): the candidates are the Triton causes, not a rule whose only tie is the `__getattribute__` dunder that
    any attribute access passes through (a transformers config's, here)."""
    cut = ("[2025-05-03 10:42:31 TP0] Scheduler hit an exception: Traceback (most recent call last):\n"
           '  File "/opt/conda/lib/python3.12/site-packages/triton/runtime/jit.py", line 653, in run\n'
           "    kernel.run(grid_0, grid_1, grid_2, stream, kernel.function, kernel.packed_metadata, launch_metadata,\n"
           '  File "/opt/conda/lib/python3.12/site-packages/triton/compiler/compiler.py", line 395, in __getattribute__\n'
           "    self.\n")
    found = diagnose_text(cut, catalog).findings
    assert found and all(f.rule_id.startswith("triton-") and f.confidence == "low" for f in found)
    assert "transformers-v5-rope-parameters-missing" not in [f.rule_id for f in found]


def test_a_platform_ports_cause_is_on_a_cut_tracebacks_path_only_through_the_ports_files(catalog):
    """The engine's own step frames (profile_run, _dummy_run) are the same on every platform: with the platform
    unknown, a cut traceback through vllm/v1/worker/ makes no candidate of an Ascend- or ROCm-only cause, and one
    through vllm_ascend/ does."""
    prefix = "(EngineCore_0 pid=12806) ERROR 08-12 22:06:00 [core.py:683] "
    frames = ['  File "/usr/local/lib/python3.12/dist-packages/vllm/v1/worker/gpu_worker.py", line 244, in determine_available_memory',
              "    self.model_runner.profile_run()",
              '  File "/usr/local/lib/python3.12/dist-packages/vllm/v1/worker/gpu_model_runner.py", line 2524, in profile_run',
              "    = self._dummy_run(self.max_num_tokens, is_profile=True)",
              '  File "/usr/local/lib/python3.12/dist-packages/vllm/v1/worker/gpu_model_runner.py", line 2299, in _dummy_run',
              "    outputs = self.model(",
              ""]
    cuda = diagnose_text("".join(prefix + f + "\n" for f in frames), catalog)
    assert cuda.findings, "the step's candidates"
    ports = {rid for rid, r in catalog.rules.items() if r.when.get("platform") and "cuda" not in r.when["platform"]}
    assert not ports & {f.rule_id for f in cuda.findings}
    ascend = [f.replace("vllm/v1/worker/gpu_model_runner.py", "vllm_ascend/worker/model_runner_v1.py") for f in frames]
    npu = diagnose_text("".join(prefix + f + "\n" for f in ascend), catalog)
    assert ports & {f.rule_id for f in npu.findings}


def test_a_common_rules_fixes_for_one_engine_are_not_shown_on_the_others_log(catalog):
    """A rule of both engines (a Triton kernel config) carries fixes for each: an SGLang log gets SGLang's tuning
    script and server flags, not vLLM's tuning script or a vLLM upgrade."""
    from pathlib import Path

    text = (Path(__file__).parent.parent / "examples" / "logs" / "sglang"
            / "triton-fused-moe-config-exceeds-smem--qwen3-30b-a3b-fp8-dynamic-l40-concurrency.log").read_text()
    top = diagnose_text(text, catalog).findings[0]
    assert top.rule_id == "triton-fused-moe-config-exceeds-smem"
    commands = [f.command for f in top.fixes if f.command]
    assert commands and commands[0].startswith("python benchmark/kernels/fused_moe_triton/")
    assert not any("benchmarks/kernels/" in c or c.startswith("pip install -U vllm") for c in commands)


CUT_IN_LOAD_MODEL = '''{tag} ERROR 09-06 00:38:50 [multiproc_executor.py:944] WorkerProc failed to start.
{tag} ERROR 09-06 00:38:50 [multiproc_executor.py:944] Traceback (most recent call last):
{tag} ERROR 09-06 00:38:50 [multiproc_executor.py:944]   File "/usr/local/lib/python3.12/dist-packages/vllm/v1/executor/multiproc_executor.py", line 680, in __init__
{tag} ERROR 09-06 00:38:50 [multiproc_executor.py:944]     self.worker.load_model()
{tag} ERROR 09-06 00:38:50 [multiproc_executor.py:944]   File "/usr/local/lib/python3.12/dist-packages/vllm/v1/worker/gpu_worker.py", line 502, in load_model
{tag} ERROR 09-06 00:38:50 [multiproc_executor.py:944]     self.model_runner.load_model(load_dummy_weights=load_dummy_weights)
'''


def test_worker_tags_prove_tensor_parallelism_and_order_the_causes_that_need_it_first(catalog):
    tp = diagnose_text(CUT_IN_LOAD_MODEL.format(tag="(Worker_TP1_EP1 pid=331)"), catalog)
    assert tp.environment.get("parallel") == "TP EP"
    ids = [f.rule_id for f in tp.findings]
    assert ids[0] == "vision-heads-not-divisible-by-tp" and all(f.confidence == "low" for f in tp.findings)
    # the same cut in a single-GPU worker (no rank in its tag): no fact about TP, the cause is one of the rest
    alone = diagnose_text(CUT_IN_LOAD_MODEL.format(tag="(EngineCore_DP0 pid=331)"), catalog)
    assert alone.environment.get("parallel") is None
    assert [f.rule_id for f in alone.findings][0] != "vision-heads-not-divisible-by-tp"
    # a launch stated at TP 1 contradicts it: no longer a candidate
    at_one = diagnose_text("INFO 09-06 00:38:00 [core.py:74] Initializing a V1 LLM engine (v0.11.0) with config: "
                           "model='Qwen/Qwen3-VL-8B-Instruct', tensor_parallel_size=1, pipeline_parallel_size=1\n"
                           + CUT_IN_LOAD_MODEL.format(tag="(EngineCore_DP0 pid=331)"), catalog)
    assert at_one.environment.get("parallel") == "none"
    assert "vision-heads-not-divisible-by-tp" not in [f.rule_id for f in at_one.findings]


def test_tensor_parallelism_alone_is_no_known_problem_of_a_launch(catalog):
    """A gate, not a fact: TP 4 with the quantization unknown lists no FP8-block risk (FP8 would be the fact)."""
    plain = diagnose_text("$ vllm serve Qwen/Qwen3-30B-A3B --tensor-parallel-size 8\n", catalog)
    assert plain.environment.get("parallel") == "TP"
    assert "fp8-block-quant-tp-indivisible" not in [f.rule_id for f in plain.risks]
    fp8 = diagnose_text("$ vllm serve Qwen/Qwen3-30B-A3B-FP8 --tensor-parallel-size 8\n", catalog)
    assert "fp8-block-quant-tp-indivisible" in [f.rule_id for f in fp8.risks]


EMBEDDING_CUT = '''$ vllm serve Qwen/Qwen3-Embedding-8B{flags}
(EngineCore_DP0 pid=2168) ERROR 05-19 14:19:59 [core.py:936] EngineCore failed to start.
(EngineCore_DP0 pid=2168) ERROR 05-19 14:19:59 [core.py:936] Traceback (most recent call last):
(EngineCore_DP0 pid=2168) ERROR 05-19 14:19:59 [core.py:936]   File "/usr/local/lib/python3.12/dist-packages/vllm/v1/engine/core.py", line 106, in __init__
(EngineCore_DP0 pid=2168) ERROR 05-19 14:19:59 [core.py:936]     self.model_executor = executor_class(vllm_config)
(EngineCore_DP0 pid=2168) ERROR 05-19 14:19:59 [core.py:936]   File "/usr/local/lib/python3.12/dist-packages/vllm/v1/executor/abstract.py", line 101, in __init__
(EngineCore_DP0 pid=2168) ERROR 05-19 14:19:59 [core.py:936]     self._init_executor()
'''


def test_a_launch_that_asked_for_pooling_contradicts_the_generate_runner_cause(catalog):
    asked = lambda flags: [f.rule_id for f in diagnose_text(EMBEDDING_CUT.format(flags=flags), catalog).findings]
    assert "qwen3-embedding-served-as-generate" in asked(" --runner draft")
    assert "qwen3-embedding-served-as-generate" in asked("")  # nothing said: still a candidate
    assert "qwen3-embedding-served-as-generate" not in asked(" --task embed")
    assert "qwen3-embedding-served-as-generate" not in asked(" --runner pooling --convert embed")


def test_a_default_in_sglangs_argument_dump_is_no_support(catalog):
    """SGLang prints every argument at start-up, defaults included: `disaggregation_transfer_backend='mooncake'` is the
    default, so a cut traceback beside that dump makes no PD-disaggregation candidate (held-out sglang#25487)."""
    from qwen3doctor.knowledge.defaults import SGLANG_DEFAULT_SERVER_ARGS

    cut = ('  File "/usr/lib/python3.12/site-packages/sglang/srt/models/qwen3.py", line 422, in forward\n'
           "    hidden_states = self.mlp(hidden_states, forward_batch=forward_batch)\n"
           '  File "/usr/lib/python3.12/site-packages/torch/nn/modules/module.py", line 1779, in _wrapped_call_impl\n')
    log = ("python3 -m sglang.launch_server --model-path Qwen/Qwen3-8B --port 30000\n" + SGLANG_DEFAULT_SERVER_ARGS
           + "\n[2026-05-17 02:22:40] Scheduler hit an exception: Traceback (most recent call last):\n" + cut)
    assert "pd-heterogeneous-tp-transfer-unsupported" not in [f.rule_id for f in diagnose_text(log, catalog).findings]
    # the launch flag that does say so still supports it
    prefill = log.replace("--port 30000", "--port 30000 --disaggregation-mode prefill")
    assert "pd-heterogeneous-tp-transfer-unsupported" in [f.rule_id for f in diagnose_text(prefill, catalog).findings]


def test_a_crash_whose_own_message_the_rule_misses_is_no_candidate_from_supporting_lines(catalog):
    # the exception line is there and whole, and it is another cause's: a launch line a rule lists as support (an FP8
    # checkpoint at --tp 8) makes no candidate of it (sglang#6033 was answered with the FP8 block rule)
    launch = ("python3 -m sglang.launch_server --model-path Qwen/Qwen3-235B-A22B-FP8 --tp 8 --trust-remote-code "
              "--enable-torch-compile\n")
    other = launch + ("Exception: Capture cuda graph failed: RuntimeError: Cannot call CUDAGeneratorImpl::current_seed during "
                      "CUDA graph capture. If you need this call to be captured, please file an issue.\n")
    ids = [f.rule_id for f in diagnose_text(other, catalog).findings]
    assert ids[0] == "cuda-graph-capture-forbidden-operation" and "fp8-block-quant-tp-indivisible" not in ids
    # with its own lines missing (a crash sign, no message to judge), the same launch still makes it a candidate
    cut = launch + "[2025-06-11 03:43:20 TP0] Scheduler hit an exception: Traceback (most recent call last):\n"
    assert "fp8-block-quant-tp-indivisible" in [f.rule_id for f in diagnose_text(cut, catalog).findings]


def test_an_installers_package_line_is_no_support_for_a_cause(catalog):
    # uv's and pip's lines name every package an engine environment holds (`+ compressed-tensors==0.13.0`): a support
    # pattern such a line matches counts as generic, never as a sign of the cause (vllm-metal#107)
    rule = catalog.rules["deepgemm-sm120-block-fp8-unsupported"]
    (log_clause,) = [cl for cl in rule.supports if cl.kind == "log"]
    assert "(?i)FP8.block|compressed.tensors" in log_clause.generic_sources
    assert "DeepGemmFp8BlockScaledMMKernel" not in log_clause.generic_sources


def test_the_wrapper_lines_every_death_prints_support_no_cause(catalog):
    # "WorkerProc failed to start", "AsyncLLM output_handler failed" and the checkpoint progress bar follow whatever
    # killed the engine: a rule listing them as support must not become a candidate for every such log
    def generic(rule_id, source):
        (log_clause,) = [cl for cl in catalog.rules[rule_id].supports if cl.kind == "log"]
        return source in log_clause.sources and source in log_clause.generic_sources

    assert generic("nvswitch-fabric-manager-not-running", "WorkerProc failed to start")
    log = ("(APIServer pid=1) INFO 08-25 13:40:02 [api_server.py:1839] vLLM API server version 0.10.1\n"
           "(EngineCore_0 pid=9) ERROR 08-25 13:48:26 [multiproc_executor.py:597] WorkerProc failed to start.\n"
           "(EngineCore_0 pid=9) ERROR 08-25 13:48:26 [multiproc_executor.py:597] Traceback (most recent call last):\n")
    assert "nvswitch-fabric-manager-not-running" not in [f.rule_id for f in diagnose_text(log, catalog).findings]


def test_a_pattern_is_prefiltered_on_the_same_rarer_literal_in_every_process():
    """A branch's anchor is its longest required literal that ordinary traffic does not hold (`SM:`, not `12.`,
    which every IP address holds), the same whatever a process's hash seed makes of a set's order: the anchor decides
    how many lines of a big log reach the full reader (a 1 GiB log took 5 s instead of 1.5 s when a compile happened
    to pick a common one)."""
    import os
    import subprocess
    import sys

    probe = ("from qwen3doctor.knowledge.patterns import literal_anchors;"
             "print(literal_anchors(r'SM:\\s*12\\.\\d|compute capability 1[02]\\.\\d'))")
    seen = {subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True,
                           env=dict(os.environ, PYTHONHASHSEED=str(seed))).stdout for seed in range(6)}
    assert seen == {"(('SM:', False), ('compute capability 1', False))\n"}


def test_the_runtimes_catch_all_error_alone_is_a_candidate_and_wsl_lines_make_it_a_finding(catalog):
    # cudaErrorUnknown comes from many causes (a 0.7 vLLM on Linux, a Xid): alone it is a low-confidence guess
    bare = ("INFO 06-03 19:07:24 api_server.py:835] vLLM API server version 0.7.0\n"
            "RuntimeError: CUDA error: unknown error\n")
    report = diagnose_text(bare, catalog)
    assert all(f.confidence == "low" for f in report.findings)
    wsl = ("WARNING 03-10 09:12:01 [interface.py:540] Using 'pin_memory=False' as WSL is detected. This may slow down "
           "the performance.\n" + bare)
    top = diagnose_text(wsl, catalog).findings[0]
    assert top.rule_id == "wsl2-blackwell-cudagraph-capture" and top.confidence != "low"


def test_a_pattern_made_of_alternatives_or_led_by_a_flag_still_has_literals_to_prefilter_on():
    """A pattern whose only literals sit in a group of alternatives, behind `(?s)` or beside a scoped `(?i:...)`
    group used to have no anchor and ran on every line of every log; each is gated now, and never wrongly: the
    gate stays open on every text the pattern matches."""
    import regex

    from qwen3doctor.knowledge.patterns import compile_pattern
    from qwen3doctor.read.literals import gate_of, gate_open

    cases = {
        r"\b(?:cudaErrorSystemDriverMismatch|CUDA_ERROR_SYSTEM_DRIVER_MISMATCH)\b":
            ["RuntimeError: CUDA error: CUDA_ERROR_SYSTEM_DRIVER_MISMATCH (803)", "cudaErrorSystemDriverMismatch"],
        r"(?s)^(?!.*/dev/shm).*No space left on device": ["OSError: [Errno 28] No space left on device: '/data'"],
        r"Unrecognized model in \S*(?i:eagle|draft)\S*\. Should have a `model_type` key":
            ["Unrecognized model in /m/EAGLE3-Qwen3. Should have a model_type key in its config.json"],
        r"(?:^|[\"'=:>(]\s*)!{24,}": ["text: '" + "!" * 40, "!" * 30],
    }
    for source, texts in cases.items():
        gate = gate_of(source)
        assert gate is not None, source
        pattern = compile_pattern("message", source)
        for text in texts:
            assert regex.search(pattern, text), (source, text)
            assert gate_open(gate, text, text.lower()), (source, text)
        assert not gate_open(gate, "INFO 12-01 10:00:00 [loggers.py:123] Avg prompt throughput: 0.0 tokens/s",
                             "info")
    assert gate_of(r"(?:^|KeyError: )'?(?!qwen3)[a-z][\w-]*'?$") is None  # a branch without any literal: none to claim
    # a parenthesis inside a character class closes no group: the literals of the group's other branches are not
    # required (the gate once asked for `kv_cache_dtype=` on every `No valid attention backend` message)
    source = r"No valid attention backend found for \w+ with AttentionSelectorConfig\((?:[^)]*use_non_causal=True|x)"
    assert gate_of(source) == ((("No valid attention backend found for ", " with AttentionSelectorConfig("), False),)


def test_the_readers_gated_patterns_answer_as_the_patterns_do():
    """The reader's costlier patterns (the platform hints) run only where their literals occur: on lines that hold
    them, that do not, and that hold them in another case, the same matches as the bare pattern's."""
    from qwen3doctor.read import environment
    from qwen3doctor.read.literals import Gated

    gated = [p for p in vars(environment).values() if isinstance(p, Gated)]
    assert len(gated) >= 10 and all(p.gate is not None for p in gated)
    lines = ["INFO 05-01 10:00:00 [__init__.py:239] Automatically detected platform cuda.",
             "(EngineCore_DP0 pid=812) WARNING ... using torch_npu 2.5.1 on an Ascend 910B2", "RUNNING ON NPU/CPU",
             "[level_zero:gpu] UR_RESULT_ERROR_OUT_OF_RESOURCES", "platform: macOS-14.5-arm64, darwin", "TPU v5e-8",
             "INFO:     10.0.2.15:48812 - \"POST /v1/chat/completions HTTP/1.1\" 200 OK",
             "  File \"/Users/me/venv/lib/python3.12/site-packages/vllm/entrypoints/cli/main.py\", line 7, in main",
             "Initializing a V1 LLM engine (v0.11.0) with config: model='Qwen/Qwen3-8B'", "npu-smi 23.0.6 ascend"]
    matched = 0
    for pattern in gated:
        for line in lines:
            own = pattern.pattern.search(line)
            found = pattern.search(line)
            assert (found and found.span()) == (own and own.span()), (pattern.pattern.pattern[:60], line)
            matched += own is not None
    assert matched >= 8


def test_a_load_time_candidate_is_dropped_when_a_wrapper_alone_shows_the_server_was_serving(catalog):
    """A paste of the API server's `EngineDeadError` under throughput lines: the engine died while serving, so a
    cause that can only strike while the layers are built (an FP8 block split by TP) is no candidate, whatever the
    launch command says; the same launch cut while the model loads keeps it."""
    launch = ("python -m vllm.entrypoints.openai.api_server --model /models/Qwen3-235B-A22B-FP8 --tensor-parallel-size 8 "
              "--enable-expert-parallel --host 0.0.0.0\n")
    serving = ("(APIServer pid=1) INFO 10-24 17:11:27 [loggers.py:127] Engine 000: Avg prompt throughput: 2487.8 tokens/s, "
               "Avg generation throughput: 24.6 tokens/s, Running: 12 reqs, Waiting: 19 reqs\n"
               "(APIServer pid=1) ERROR 10-24 17:12:08 [async_llm.py:480] vllm.v1.engine.exceptions.EngineDeadError: "
               "EngineCore encountered an issue. See stack trace (above) for the root cause.\n")
    ids = [f.rule_id for f in diagnose_text(launch + serving, catalog).findings]
    assert "fp8-block-quant-tp-indivisible" not in ids, ids
    loading = ("(Worker_TP0 pid=311) INFO 10-24 17:01:02 [gpu_model_runner.py:2338] Starting to load model "
               "/models/Qwen3-235B-A22B-FP8...\n"
               "(EngineCore_DP0 pid=201) ERROR 10-24 17:01:09 [core.py:708] EngineCore failed to start.\n")
    ids = [f.rule_id for f in diagnose_text(launch + loading, catalog).findings]
    assert "fp8-block-quant-tp-indivisible" in ids, ids


def test_the_runtimes_name_for_an_illegal_access_is_as_generic_as_its_message(catalog):
    """`cudaErrorIllegalAddress` in a report's prose names no kernel: it may not make a rule keyed on its own frames
    plus that error a medium-confidence finding (vLLM's penalty rule did, eugr/spark-vllm-docker#186)."""
    log = ("NVIDIA GB10 Grace Blackwell, 128GB unified memory\n"
           "vllm serve Intel/Qwen3.5-122B-A10B-int4-AutoRound --max-model-len 131072\n"
           "engine dies with cudaErrorIllegalAddress shortly after first request\n")
    report = diagnose_text(log, catalog)
    assert all(f.confidence == "low" for f in report.findings), [(f.rule.id, f.confidence) for f in report.findings]


def test_a_family_read_from_a_model_file_does_not_rule_out_its_moe_variant(catalog):
    """SGLang's models/qwen3_5.py holds dense Qwen3.5 and Qwen3.5-MoE: a traceback through it names the family but not
    the variant, so a rule for the MoE variant stays possible (a Qwen3.5 AWQ traceback, sglang#19644, lost its only
    candidate when the rule was narrowed to qwen3.5-moe); a serve command naming a dense size still rules it out."""
    tb = ("[2026-03-01 10:00:00 TP0] Scheduler hit an exception: Traceback (most recent call last):\n"
          '  File "/sgl-workspace/sglang/python/sglang/srt/models/qwen3_5.py", line 1210, in load_weights\n'
          "    param = params_dict[name]\n"
          "KeyError: 'model.layers.0.mlp.experts.w2_weight'\n")
    unsure = [f.rule_id for f in diagnose_text(tb, catalog).findings]
    dense = [f.rule_id for f in diagnose_text("python -m sglang.launch_server --model-path Qwen/Qwen3.5-27B-FP8\n" + tb,
                                              catalog).findings]
    assert "quant-shared-expert-fusion-keyerror" in unsure
    assert "quant-shared-expert-fusion-keyerror" not in dense[:1]


def test_another_familys_model_file_in_a_cut_traceback_rules_out_a_qwen_only_candidate(catalog):
    """A traceback cut above its exception that runs through another family's model code (vLLM-Omni's HunyuanImage-3
    files, vllm-omni#5371) is not a Qwen3-Omni crash: the Qwen3-Omni LoRA rule, a candidate there on a common loading
    frame alone, is gone, and the family reads as another one. A draft model's file beside a Llama file (an EAGLE
    drafter serving a Qwen3 target), the engine's shared helpers and Qwen2.5-VL's layers name no family."""
    site = "/home/u/vllm-omni/vllm_omni/diffusion"
    frames = [("worker/diffusion_worker.py", 1076, "__init__", "self.worker = worker_class("),
              ("model_loader/diffusers_loader.py", 377, "load_model", "model = initialize_model(od_config)"),
              ("models/hunyuan_image3/hunyuan_image3_transformer.py", 1853, "__init__",
               "self.mlp = HunYuanSparseMoeBlock("),
              ("models/hunyuan_image3/hunyuan_fused_moe.py", 146, "__new__",
               "current_omni_platform.prepare_diffusion_op_runtime(op_name)")]
    report = diagnose_text(cut_traceback("", site, frames), catalog)
    assert report.environment.get("family") == "other"
    assert "qwen3-omni-thinker-lora-unsupported" not in [f.rule_id for f in report.findings]
    vllm = "/usr/lib/python3.12/site-packages/vllm/model_executor/models"

    def family(*files):
        tb = cut_traceback("", vllm, [(f, 10, "forward", "x = self.layer(x)") for f in files])
        return diagnose_text(tb + "RuntimeError: boom\n", catalog).environment.get("family")

    assert family("llama_eagle3.py", "llama.py") is None
    assert family("utils.py", "qwen2_5_vl.py") is None
    assert family("qwen3_vl.py", "qwen2_5_vl.py") == "qwen3-vl"
    assert family("deepseek_v2.py") == "other"


def test_a_start_up_step_that_ran_to_its_end_supports_no_cause_inside_it(catalog):
    """A capture progress line supports a capture-time cause (a Triton kernel loaded inside the capture) when the cut
    traceback comes during the capture; when the log says the capture and the whole start-up finished before the
    crash (held-out dottxt-ai/outlines#1778, a serving thread's traceback), that line is no support for it."""
    tag = "(EngineCore_DP0 pid=4416) "
    head = ("INFO 11-20 14:32:19 [model.py:547] Resolved architecture: Qwen3ForCausalLM\n"
            + tag + "INFO 11-20 14:32:21 [core.py:77] Initializing a V1 LLM engine (v0.11.0) with config: "
                    "model='Qwen/Qwen3-0.6B', tokenizer='Qwen/Qwen3-0.6B'\n")
    cut = (tag + "Traceback (most recent call last):\n"
           + tag + '  File "/usr/lib/python3.12/threading.py", line 1043, in _bootstrap_inner\n' + tag + "    self.run()\n")
    finished = ("Capturing CUDA graphs (decode, FULL): 100%|██████████| 35/35 [00:02<00:00, 14.1it/s]\n"
                + tag + "INFO 11-20 14:32:42 [gpu_model_runner.py:3480] Graph capturing finished in 3 secs, took 0.56 GiB\n"
                + tag + "INFO 11-20 14:32:42 [core.py:210] init engine (profile, create kv cache, warmup model) took "
                        "14.48 seconds\n"
                "INFO 11-20 14:32:44 [llm.py:306] Supported_tasks: ['generate']\n")
    capturing = "Capturing CUDA graphs (decode, FULL):  40%|████      | 14/35 [00:01<00:01, 14.1it/s]\n"
    rule = "triton-kernel-load-during-cudagraph-capture"
    assert rule in [f.rule_id for f in diagnose_text(head + capturing + cut, catalog).findings]
    assert rule not in [f.rule_id for f in diagnose_text(head + finished + cut, catalog).findings]


def test_a_death_before_start_up_finished_rules_out_a_cause_only_requests_meet(catalog):
    """"EngineCore failed to start" over a worker's CUDA OOM (QwenLM/Qwen3-VL#1684, during graph capture): a request's
    prompt-logprobs OOM cannot be it, however generic the OOM message both share; a bare large-allocation OOM line
    is no support for that rule either."""
    log = ("Capturing CUDA graphs (decode, FULL):   9%|9         | 3/35 [00:00<00:09,  3.30it/s]\n"
           "(EngineCore_DP0 pid=7291) ERROR 10-23 08:05:13 [core.py:708] EngineCore failed to start.\n"
           "(EngineCore_DP0 pid=7291) ERROR 10-23 08:05:13 [core.py:708] RuntimeError: Worker failed with error 'CUDA "
           "error: out of memory', please check the stack trace above for the root cause\n")
    assert "vllm-prompt-logprobs-oom" not in [f.rule_id for f in diagnose_text(log, catalog).findings]


def test_a_message_two_rules_key_on_does_not_stand_in_for_the_clause_that_tells_them_apart(catalog):
    # a reload after sleep and an RL trainer's weight sync both end in this AttributeError; the one-line paste lacks
    # the frames (reload_weights) and the sync lines that decide between them
    report = diagnose_text("AttributeError: 'Parameter' object has no attribute 'weight_loader'\n", catalog)
    top = report.findings[0]
    assert top.rule_id == "reload-weights-quantized-kernel-format" and top.confidence == "low"
    assert any("rl-moe-expert-reload-kernel-layout" in note for note in top.notes)
    # --why judges the rule as the diagnosis did: a candidate, not the medium finding its clauses alone would make
    from qwen3doctor.judge.pipeline import scan_source, why_of
    from qwen3doctor.read.reader import LineSource
    import io

    scan = scan_source(LineSource("-", io.BytesIO(b"AttributeError: 'Parameter' object has no attribute 'weight_loader'\n")),
                       catalog)
    _, judged, shown = why_of(catalog.rules[top.rule_id], scan, catalog, report)
    assert judged.confidence == shown.confidence == "low"
    # with the frames that decide it, the same message is a claim again
    log = ("Traceback (most recent call last):\n"
           '  File "/usr/local/lib/python3.12/dist-packages/vllm/v1/worker/gpu_worker.py", line 301, in reload_weights\n'
           "    self.model_runner.reload_weights()\n"
           "AttributeError: 'Parameter' object has no attribute 'weight_loader'\n")
    top = diagnose_text(log, catalog).findings[0]
    assert top.rule_id == "reload-weights-quantized-kernel-format" and top.confidence != "low"


def test_a_message_only_one_rule_keys_on_still_stands_in(catalog):
    log = ("ValueError: The decoder prompt (length 41234) is longer than the maximum model length of 32768. Make sure "
           "that `max_model_len` is no smaller than the number of text tokens.\n")
    top = diagnose_text(log, catalog).findings[0]
    assert top.rule_id == "input-exceeds-context-length" and top.confidence == "medium"


GDN_CUT_AT_COLON = '''(EngineCore_DP0 pid=2211) ERROR 11-20 08:14:03 [core.py:1010] EngineCore encountered a fatal error.
(EngineCore_DP0 pid=2211) ERROR 11-20 08:14:03 [core.py:1010] Traceback (most recent call last):
(EngineCore_DP0 pid=2211) ERROR 11-20 08:14:03 [core.py:1010]   File "/usr/local/lib/python3.12/dist-packages/vllm/model_executor/layers/mamba/gdn_linear_attn.py", line 612, in _forward_core
(EngineCore_DP0 pid=2211) ERROR 11-20 08:14:03 [core.py:1010]     core_attn_out_non_spec, last_recurrent_state = self.chunk_gated_delta_rule(
(EngineCore_DP0 pid=2211) ERROR 11-20 08:14:03 [core.py:1010]   File "/usr/local/lib/python3.12/dist-packages/vllm/model_executor/layers/fla/ops/chunk.py", line 88, in fi_chunk_gated_delta_rule
(EngineCore_DP0 pid=2211) ERROR 11-20 08:14:03 [core.py:1010]     return chunk_gated_delta_rule_fwd(
(EngineCore_DP0 pid=2211) ERROR 11-20 08:14:03 [core.py:1010] torch.AcceleratorError: CUDA error:'''


def test_a_message_cut_right_after_its_colon_rules_no_message_out(catalog):
    # the paste stops where CUDA's error would be named: the kernel's frame makes its rule a low candidate
    cut = diagnose_text(GDN_CUT_AT_COLON, catalog)
    assert cut.findings[0].rule_id == "gdn-cudagraph-illegal-memory-access"
    assert cut.findings[0].confidence == "low"
    # with the error named, it decides: the rule's own error claims it, another error rules it out
    said = diagnose_text(GDN_CUT_AT_COLON + " an illegal memory access was encountered\n", catalog)
    assert said.findings[0].rule_id == "gdn-cudagraph-illegal-memory-access" and said.findings[0].confidence != "low"
    other = diagnose_text(GDN_CUT_AT_COLON + " misaligned address\n", catalog)
    assert "gdn-cudagraph-illegal-memory-access" not in [f.rule_id for f in other.findings]
    # a colon inside a message that goes on to the end of its line is no cut
    inner = diagnose_text(GDN_CUT_AT_COLON.replace("CUDA error:", "CUDA error: misaligned address (see above):")
                          + "\nINFO 11-20 08:14:04 [launcher.py:80] Shutting down FastAPI HTTP server.\n", catalog)
    assert "gdn-cudagraph-illegal-memory-access" not in [f.rule_id for f in inner.findings]


POPLEFT_ASSERT = '''(EngineCore_DP0 pid=4180) ERROR 02-11 16:02:41 [core.py:866] EngineCore encountered a fatal error.
(EngineCore_DP0 pid=4180) ERROR 02-11 16:02:41 [core.py:866] Traceback (most recent call last):
(EngineCore_DP0 pid=4180) ERROR 02-11 16:02:41 [core.py:866]   File "/usr/local/lib/python3.12/dist-packages/vllm/v1/core/sched/scheduler.py", line 512, in schedule
(EngineCore_DP0 pid=4180) ERROR 02-11 16:02:41 [core.py:866]     new_blocks = self.kv_cache_manager.allocate_slots(
(EngineCore_DP0 pid=4180) ERROR 02-11 16:02:41 [core.py:866]   File "/usr/local/lib/python3.12/dist-packages/vllm/v1/core/kv_cache_manager.py", line 333, in allocate_slots
(EngineCore_DP0 pid=4180) ERROR 02-11 16:02:41 [core.py:866]     new_blocks = self.coordinator.allocate_new_blocks(
(EngineCore_DP0 pid=4180) ERROR 02-11 16:02:41 [core.py:866]   File "/usr/local/lib/python3.12/dist-packages/vllm/v1/core/single_type_kv_cache_manager.py", line 151, in allocate_new_blocks
(EngineCore_DP0 pid=4180) ERROR 02-11 16:02:41 [core.py:866]     new_blocks = self.block_pool.get_new_blocks(num_new_blocks)
(EngineCore_DP0 pid=4180) ERROR 02-11 16:02:41 [core.py:866]   File "/usr/local/lib/python3.12/dist-packages/vllm/v1/core/block_pool.py", line 301, in get_new_blocks
(EngineCore_DP0 pid=4180) ERROR 02-11 16:02:41 [core.py:866]     ret = self.free_block_queue.popleft_n(num_blocks)
(EngineCore_DP0 pid=4180) ERROR 02-11 16:02:41 [core.py:866]   File "/usr/local/lib/python3.12/dist-packages/vllm/v1/core/kv_cache_utils.py", line 262, in popleft_n
(EngineCore_DP0 pid=4180) ERROR 02-11 16:02:41 [core.py:866]     assert curr_block is not None
(EngineCore_DP0 pid=4180) ERROR 02-11 16:02:41 [core.py:866] AssertionError
'''


def test_a_supporting_frame_clause_looks_past_the_frame_the_match_already_took(catalog):
    # the block-pool rule names popleft_n (the raise site) in `match` and again among the path frames it supports
    # with; the path frame above it (get_new_blocks) supports it, as allocate_slots supports the Mamba-assert rule
    report = diagnose_text(POPLEFT_ASSERT, catalog)
    assert report.findings[0].rule_id == "block-pool-admission-allocation-mismatch"
    support = [ev for ev in report.findings[0].evidence if ev.clause == "supports.frames" and ev.state == "hit"]
    assert support and support[0].subject == "get_new_blocks"


DEVICE_STRING_EMPTY = '''Traceback (most recent call last):
  File "/usr/local/lib/python3.12/dist-packages/vllm/engine/arg_utils.py", line 1290, in create_engine_config
    device_config = DeviceConfig(device=cast(Device, current_platform.device_type))
  File "/usr/local/lib/python3.12/dist-packages/vllm/config/device.py", line 78, in __post_init__
    self.device = torch.device(self.device_type)
RuntimeError: Device string must not be empty
'''


def test_a_paste_that_starts_at_its_crash_leaves_the_lines_logged_before_it_open(catalog):
    # the NVML rule needs the platform probe's DEBUG line beside this error; a paste of the traceback alone cannot show
    # it, so the rule is a candidate (low) rather than nothing
    thin = diagnose_text(DEVICE_STRING_EMPTY, catalog)
    assert thin.findings and thin.findings[0].rule_id == "nvml-driver-libs-not-mounted"
    assert thin.findings[0].confidence == "low" and thin.findings[0].basis == "unseen"
    # the log from its start, without that line: the probe found its platform, and the rule is out
    whole = ("INFO 08-29 04:29:54 [__init__.py:241] Automatically detected platform cuda.\n"
             "INFO 08-29 04:29:57 [api_server.py:1805] vLLM API server version 0.10.1.1\n" + DEVICE_STRING_EMPTY)
    assert "nvml-driver-libs-not-mounted" not in [f.rule_id for f in diagnose_text(whole, catalog).findings]
    # with the line, a claim
    said = ("DEBUG 08-29 04:29:54 [__init__.py:99] CUDA platform is not available because: NVML Shared Library Not "
            "Found\n" + DEVICE_STRING_EMPTY)
    top = diagnose_text(said, catalog).findings[0]
    assert top.rule_id == "nvml-driver-libs-not-mounted" and top.confidence != "low"


def test_a_whole_traceback_decides_a_pattern_for_one_of_its_own_lines(catalog):
    # the Omni audio rule wants the audio tower's frame line beside torch's split error: a traceback from its header
    # to its exception shows every frame, so a split elsewhere (an image tower) is no candidate, while the same error
    # under a traceback cut above its frames still is
    tail = ('  File "/usr/local/lib/python3.12/dist-packages/torch/_tensor.py", line 1050, in split\n'
            "    return torch._VF.split_with_sizes(self, split_size, dim)\n"
            "RuntimeError: split_with_sizes expects split_sizes to sum exactly to 5167 (input tensor's size at "
            "dimension 1), but got split_sizes=[200, 200, 200, 140, 200]\n")
    whole = ("Traceback (most recent call last):\n"
             '  File "/usr/local/lib/python3.12/dist-packages/vllm/model_executor/models/qwen3_vl.py", line 1411, in '
             "_process_image_input\n    return image_embeds.split(sizes)\n" + tail)
    assert "qwen-omni-audio-tower-chunk-split-size-mismatch" not in [f.rule_id for f in diagnose_text(whole, catalog).findings]
    cut = diagnose_text(tail, catalog).findings
    assert cut and cut[0].rule_id == "qwen-omni-audio-tower-chunk-split-size-mismatch" and cut[0].confidence == "low"


def test_python_wording_alone_opens_no_line_above_the_paste(catalog):
    # `'function' object is not subscriptable` is Python's wording plus a type name: not enough to suggest the
    # Triton-placeholder cause whose log line would tell
    log = ("Traceback (most recent call last):\n"
           '  File "/usr/local/lib/python3.12/dist-packages/vllm/entrypoints/openai/tool_parsers/hermes_tool_parser.py", '
           "line 181, in extract_tool_calls_streaming\n    name = self.current_tool[0]\n"
           "TypeError: 'function' object is not subscriptable\n")
    assert "triton-disabled-placeholder-kernel-launch" not in [f.rule_id for f in diagnose_text(log, catalog).findings]


PROBE = '''DEBUG 08-29 04:29:54 [__init__.py:58] Checking if CUDA platform is available.
DEBUG 08-29 04:29:54 [__init__.py:82] Exception happens when checking CUDA platform: NVML Shared Library Not Found
DEBUG 08-29 04:29:54 [__init__.py:99] CUDA platform is not available because: NVML Shared Library Not Found
DEBUG 08-29 04:29:54 [__init__.py:106] Checking if ROCm platform is available.
'''


def test_a_log_cut_before_its_crash_lists_the_cause_whose_lines_it_shows_as_a_risk(catalog):
    # the probe found no platform at all: the driver libraries are missing, and the crash they lead to is below the
    # paste; a risk (the verdict stays "no crash"), since the paste holds no crash line
    cut = diagnose_text(PROBE + "INFO 08-29 04:29:54 [__init__.py:245] No platform detected, vLLM is running on "
                        "UnspecifiedPlatform\n", catalog)
    assert cut.verdict.value == "no-crash" and not cut.findings
    assert cut.risks and cut.risks[0].rule_id == "nvml-driver-libs-not-mounted"
    # a ROCm machine prints the same NVML line on every healthy start, and then finds its platform
    rocm = diagnose_text(PROBE + "DEBUG 08-29 04:29:54 [__init__.py:120] Confirmed ROCm platform is available.\n"
                         "INFO 08-29 04:29:54 [__init__.py:241] Automatically detected platform rocm.\n", catalog)
    assert "nvml-driver-libs-not-mounted" not in [r.rule_id for r in rocm.risks]


def _worker_cut(*frames):
    tag = "(Worker_TP0 pid=95100) ERROR 10-01 14:27:25 [multiproc_executor.py:654] "
    lines = ["WorkerProc hit an exception.", "Traceback (most recent call last):"]
    for path, number, function, code in frames:
        lines += [f'  File "/root/venv/lib/python3.12/site-packages/vllm/{path}", line {number}, in {function}', f"    {code}"]
    return "".join(tag + line + "\n" for line in lines)


def test_a_traceback_cut_in_the_step_a_rule_names_leaves_its_code_line_open(catalog):
    # LMCache's rule needs `assert len(slot_mapping) == len(token_ids)` under wait_for_save; a worker traceback cut in
    # _get_kv_connector_output (the step its supports name) cannot show that line: the rule is a candidate
    common = [("v1/worker/gpu_worker.py", 612, "execute_model", "output = self.model_runner.execute_model(scheduler_output)"),
              ("v1/worker/gpu_model_runner.py", 2054, "execute_model", "with (set_forward_context(")]
    cut = _worker_cut(*common, ("v1/worker/kv_connector_model_runner_mixin.py", 117, "_get_kv_connector_output",
                                "kv_connector.wait_for_save()"))
    ids = [f.rule_id for f in diagnose_text(cut, catalog).findings]
    assert ids and ids[0] == "lmcache-wait-for-save-slot-mapping-desync-assert"
    finding = diagnose_text(cut, catalog).findings[0]
    assert finding.confidence == "low"
    assert any(ev.state == "unknown" and "cut before its exception" in ev.text for ev in finding.evidence)
    # cut in a step every cause shares (the model runner's execute_model), the line under the cut rules it out
    shared = _worker_cut(*common)
    assert "lmcache-wait-for-save-slot-mapping-desync-assert" not in [f.rule_id for f in diagnose_text(shared, catalog).findings]


def test_a_step_label_on_the_crash_message_is_no_telling_match_for_an_unseen_line(catalog):
    # SGLang words every capture failure `Capture cuda graph failed: <error>`: a rule that names that label beside
    # the compiler line it needs is no candidate for an NPU capture failure pasted from its traceback on
    paste = ('Traceback (most recent call last):\n'
             '  File "/usr/local/python3.11.13/lib/python3.11/site-packages/sglang/srt/model_executor/npu_graph_runner.py", '
             'line 51, in __init__\n'
             '    super().__init__(model_runner)\n'
             '  File "/usr/local/python3.11.13/lib/python3.11/site-packages/sglang/srt/model_executor/cuda_graph_runner.py", '
             'line 346, in __init__\n'
             '    raise Exception(\n'
             'Exception: Capture cuda graph failed: capture_end:build/CMakeFiles/torch_npu.dir/compiler_depend.ts:193 NPU '
             'function error: c10_npu::acl::AclmdlRICaptureEnd(capture_stream_, &model_ri), error code is 107033\n')
    ids = [f.rule_id for f in diagnose_text(paste, catalog).findings]
    assert "jit-activation-kernel-nvcc-compile-error" not in ids


def test_a_cause_in_a_cuda_only_library_or_tool_is_out_on_a_platform_without_it(catalog):
    from qwen3doctor.judge.match import when_states
    from qwen3doctor.judge.pipeline import scan_source, with_crash_signs
    from qwen3doctor.read.reader import LineSource
    import io

    def platform_states(text, rule_id):
        scan = with_crash_signs(scan_source(LineSource("paste", io.BytesIO(text.encode())), catalog), catalog)
        return [ev for ev in when_states(catalog.rules[rule_id], scan) if ev.clause == "when.platform"]

    npu = "INFO 12-03 22:49:01 [__init__.py:43] Platform plugin ascend is activated\n"
    gaudi = "INFO 01-20 09:12:01 [__init__.py:43] Platform plugin hpu is activated\n"
    cuda = "INFO 12-03 22:49:01 [__init__.py:241] Automatically detected platform cuda.\n"
    for rule_id in ("jit-activation-kernel-nvcc-compile-error", "nccl-nvls-multicast-setup-refused"):
        for log in (npu, gaudi):
            assert [ev.state for ev in platform_states(log, rule_id)] == ["miss"], (rule_id, log)
        assert platform_states(cuda, rule_id) == []


def test_a_fragment_whose_opening_is_in_the_paste_must_match_the_whole_pattern(catalog):
    """Two rules share the tail of argparse's JSON error ("cannot be converted to <function loads at 0x"); only the
    value after the option tells them apart. A paste that shows the opening of the message is no cut fragment: the
    key=value rule, whose pattern wants `image=4`, is not claimed on a JSON value, and a paste cut before the
    opening still reaches both as fragments."""
    from qwen3doctor.judge.match import fragment_source, head_fits

    mm = [c for alt in catalog.rules["limit-mm-per-prompt-key-value-form-removed"].match for c in alt if c.kind == "message"][0]
    json_value = ("api_server.py: error: argument --speculative-config/-sc: Value '{\"method\": cannot be converted to "
                  "<function loads at 0x7f2a9c1b3e20>.")
    assert fragment_source(mm, json_value) is None
    assert fragment_source(mm, "api_server.py: error: argument --limit-mm-per-prompt: Value image=4,video=1 cannot be "
                               "converted to <function loads at 0x7f2a9c1b3e20>.") is not None
    cut = "cannot be converted to <function loads at 0x7f2a9c1b3e20>."  # the paste starts mid-message
    assert fragment_source(mm, cut) is not None
    src = mm.sources[0]
    assert head_fits(src, "cannot be converted to <function loads at 0x", cut, 0)
    report = diagnose_text(json_value + "\n", catalog)
    assert [f.rule_id for f in report.findings] == ["json-cli-argument-not-valid-json"]


def test_a_paste_of_the_structured_output_backend_none_alone_ties_its_two_callers(catalog):
    """`Unsupported structured output backend: None` is what EngineCore says whenever a request reaches it with no
    backend chosen: from the Rust frontend (0.22 and later), or from a Python caller that assigned the old
    guided_decoding field after building SamplingParams (0.11.x). The message alone names neither; the launch of the
    Rust frontend, or the caller's lines (outlines' frames, the offline entrypoint), name one."""
    rust, client = "rust-frontend-structured-output-backend-unset", "client-guided-decoding-attribute-backend-unset"
    tail = (Path(__file__).parent.parent / "examples" / "logs" / "vllm"
            / "rust-frontend-structured-output-backend-unset--last-lines.log").read_text()
    report = diagnose_text(tail, catalog)
    by = {f.rule_id: f for f in report.findings}
    assert {rust, client} <= set(by)
    assert all(by[r].confidence == "low" and any("shared with" in n for n in by[r].notes) for r in (rust, client))
    # the launch with the Rust frontend switched on tells them apart without a version
    launched = diagnose_text("$ VLLM_USE_RUST_FRONTEND=1 vllm serve Qwen/Qwen3-8B --port 8000\n" + tail, catalog)
    assert launched.findings[0].rule_id == rust and launched.findings[0].confidence != "low"
    # and so does a frame of the outlines library's vLLM offline model above the hung call
    called = diagnose_text(
        "  File \"/opt/venv/lib/python3.11/site-packages/outlines/models/vllm_offline.py\", line 165, in generate\n"
        "    results = self.model.chat(\n"
        "KeyboardInterrupt\n" + tail, catalog)
    assert called.findings[0].rule_id == client and called.findings[0].confidence != "low"


MOE_KEYERROR_TAIL = (
    '  File "/usr/local/lib/python3.12/dist-packages/vllm/model_executor/models/qwen3_moe.py", line 574, in load_weights\n'
    '    param = params_dict[name_mapped]\n'
    "KeyError: 'layers.0.mlp.experts.w2_weight'\n")
MOE_KEYERROR_CAUSES = {"moe-expert-loader-missed-routed-experts-nesting", "moe-layer-experts-partly-unquantized",
                       "moe-layer-excluded-experts-built-quantized"}


def test_a_fused_expert_keyerror_alone_is_a_tie_of_its_causes_and_the_release_or_the_frame_decides(catalog):
    """`KeyError: 'layers.0.mlp.experts.w2_weight'` from a model's load_weights has several causes (the 0.24 MoE refactor's
    hand-written loaders, an export that keeps some experts or a whole MoE layer in 16-bit): the message alone is a tie
    of low candidates; the release, the quantization or a loader function only the refactor broke tells them apart."""
    report = diagnose_text(MOE_KEYERROR_TAIL, catalog)
    by = {f.rule_id: f for f in report.findings}
    assert MOE_KEYERROR_CAUSES <= set(by) and all(f.confidence == "low" for f in report.findings)
    assert any("shared with" in n for n in by["moe-expert-loader-missed-routed-experts-nesting"].notes)

    def top(text):
        found = diagnose_text(text, catalog).findings
        return found[0].rule_id, found[0].confidence

    banner = "(APIServer pid=1) INFO 07-19 14:02:11 [api_server.py:1922] vLLM API server version {}\n"
    config = ("(EngineCore_DP0 pid=288) INFO 07-19 14:02:27 [core.py:104] Initializing a V1 LLM engine (v{v}) with config: "
              "model='/ckpt/moe', dtype=torch.bfloat16, tensor_parallel_size=1, pipeline_parallel_size=1, quantization={q}\n")
    # the refactor's window and a BF16 model: the quantized-export causes are out
    rule, confidence = top(banner.format("0.25.0") + config.format(v="0.25.0", q="None") + MOE_KEYERROR_TAIL)
    assert rule == "moe-expert-loader-missed-routed-experts-nesting" and confidence != "low"
    # a GPTQ export on a release before the refactor: not the refactor, and the two export causes stay tied
    report = diagnose_text(banner.format("0.11.2") + config.format(v="0.11.2", q="gptq_marlin") + MOE_KEYERROR_TAIL,
                           catalog)
    assert report.findings[0].rule_id in MOE_KEYERROR_CAUSES - {"moe-expert-loader-missed-routed-experts-nesting"}
    refactor = [f for f in report.findings if f.rule_id == "moe-expert-loader-missed-routed-experts-nesting"]
    assert all(f.confidence == "low" for f in refactor)
    # no version, but the unquantized gpt-oss loader, which loads on every release before the refactor
    own = MOE_KEYERROR_TAIL.replace("qwen3_moe.py\", line 574, in load_weights", "gpt_oss.py\", line 1090, in _load_weights_other")
    rule, confidence = top(own)
    assert rule == "moe-expert-loader-missed-routed-experts-nesting" and confidence != "low"
