"""Ranking policy on real-looking logs: fixed versions, wrapper-only logs, generic messages, families."""

from pathlib import Path

import pytest

from qwen3doctor.judge.pipeline import Overrides, diagnose_text
from qwen3doctor.model import Verdict
from conftest import cut_traceback, records


def _fixed_rule_with_log(catalog):
    for rule in sorted(catalog.rules.values(), key=lambda r: r.id):
        version = (rule.fixed_in or {}).get("version")
        logs = [v for how, v, _ in rule.tests["match"] if how == "file"]
        if version and logs and len(rule.engines) == 1:
            return rule, Path(logs[0]).read_text(encoding="utf-8", errors="replace"), version
    pytest.skip("no rule with a fixed version")


def test_a_version_past_the_fix_demotes_with_a_note(catalog):
    rule, text, fixed = _fixed_rule_with_log(catalog)
    engine = rule.engines[0]
    past = diagnose_text(text, catalog, overrides=Overrides(options={"engine": engine, "engine_version": "99.0.0"}))
    hit = [f for f in past.findings if f.rule_id == rule.id]
    assert hit, "a version past the fix demotes the finding; it does not drop it"
    assert hit[0].confidence == "low"
    assert any(f"fixed in {fixed}" in n for n in hit[0].notes)
    before = diagnose_text(text, catalog, overrides=Overrides(options={"engine": engine, "engine_version": "0.0.1"}))
    top = [f for f in before.findings if f.rule_id == rule.id][0]
    assert top.fixes[0].command.startswith("pip install -U") and fixed in top.fixes[0].command


def test_wrapper_only_log_says_which_lines_to_paste(catalog):
    log = (
        "(APIServer pid=1) ERROR 05-05 12:00:00 [async_llm.py:525] AsyncLLM output_handler failed.\n"
        "(APIServer pid=1) ERROR 05-05 12:00:00 [async_llm.py:525] vllm.v1.engine.exceptions.EngineDeadError: "
        "EngineCore encountered an issue. See stack trace (above) for the root cause.\n"
    )
    report = diagnose_text(log, catalog)
    assert report.verdict is Verdict.UNEXPLAINED
    assert report.crash.role == "wrapper"
    assert any("paste the lines above it" in s for s in report.next_steps)


def test_bare_illegal_memory_access_gives_low_candidates_only(catalog):
    report = diagnose_text("torch.AcceleratorError: CUDA error: an illegal memory access was encountered\n", catalog)
    assert report.findings and all(f.confidence == "low" for f in report.findings)
    assert all(f.basis == "generic" for f in report.findings)


def test_a_non_qwen_model_never_gets_a_confident_qwen_claim(catalog):
    log = (
        "python3 -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3 --tp-size 8\n"
        "[2025-03-29 18:18:34 TP0] Scheduler hit an exception: Traceback (most recent call last):\n"
        '  File "/sgl-workspace/sglang/python/sglang/srt/model_executor/forward_batch_info.py", line 604, in _compute_mrope_positions\n'
        "    mrope_positions = torch.cat(mrope_positions_list, dim=1)\n"
        "torch.AcceleratorError: CUDA error: an illegal memory access was encountered\n"
    )
    report = diagnose_text(log, catalog)
    assert report.environment.get("family") == "other"
    for f in report.findings:
        if f.families:
            assert f.confidence == "low", f.rule_id


def test_the_same_message_with_different_frames_names_different_causes(catalog):
    """One message, two kernels: the frames decide."""
    head = "vllm serve Qwen/Qwen3.5-35B-A3B --tensor-parallel-size 2\nTraceback (most recent call last):\n"
    tail = "torch.AcceleratorError: CUDA error: an illegal memory access was encountered\n"
    prefill = head + '  File "/v/vllm/model_executor/models/qwen3_next.py", line 138, in fi_chunk_gated_delta_rule\n' + tail
    top = diagnose_text(prefill, catalog).findings[0]
    assert top.rule_id == "gdn-cudagraph-illegal-memory-access" and top.confidence in ("high", "medium")
    other = head + '  File "/v/vllm/model_executor/layers/sampler.py", line 10, in sample\n' + tail
    ids = [f.rule_id for f in diagnose_text(other, catalog).findings]
    assert "gdn-cudagraph-illegal-memory-access" not in ids


CUT_CAPTURE = (
    "[2025-08-12 03:41:07 TP3] Scheduler hit an exception: Traceback (most recent call last):\n"
    '  File "/sgl-workspace/sglang/python/sglang/srt/model_executor/model_runner.py", line 1735, in init_device_graphs\n'
    "    self.cuda_graph_runner = CudaGraphRunner(self)\n"
    '  File "/sgl-workspace/sglang/python/sglang/srt/model_executor/cuda_graph_runner.py", line 387, in __init__\n'
    "    self.capture()\n"
    '  File "/sgl-workspace/sglang/python/sglang/srt/model_executor/cuda_graph_runner.py", line 654, in capture_one_batch_size\n'
    "    run_once()\n"
)


def test_a_cut_traceback_names_the_causes_whose_path_it_shows(catalog):
    report = diagnose_text(CUT_CAPTURE, catalog)
    assert report.crash.complete is False and report.crash.exception_type is None
    assert report.findings, "a traceback through CUDA graph capture has known causes"
    for f in report.findings:
        assert f.confidence == "low" and f.basis == "path"
        assert any("capture_one_batch_size" in e.text for e in f.evidence if e.state == "hit")
    assert "deepep-unsupported-hidden-size" in [f.rule_id for f in report.findings]


def test_a_cut_traceback_through_common_frames_only_names_nothing(catalog):
    log = (
        "(EngineCore_DP0 pid=266) ERROR 07-18 19:55:58 [core.py:1231] Traceback (most recent call last):\n"
        '(EngineCore_DP0 pid=266) ERROR 07-18 19:55:58 [core.py:1231]   File "/usr/lib/python3.12/threading.py", line 1010, in run\n'
        "(EngineCore_DP0 pid=266) ERROR 07-18 19:55:58 [core.py:1231]     self._target(*self._args, **self._kwargs)\n"
        '(EngineCore_DP0 pid=266) ERROR 07-18 19:55:58 [core.py:1231]   File "/usr/local/lib/python3.12/dist-packages/vllm/v1/engine/core.py", line 966, in __init__\n'
        "(EngineCore_DP0 pid=266) ERROR 07-18 19:55:58 [core.py:1231]     super().__init__(\n"
    )
    report = diagnose_text(log, catalog)
    assert report.verdict is Verdict.UNEXPLAINED and not report.findings


def test_a_cut_traceback_through_the_serving_step_alone_names_nothing(catalog):
    # every request's traceback passes the runner's execute_model: a rule that names it among its supporting frames
    # is on the path of every crash while serving, so a paste cut there is no candidate for it (a paste cut in a
    # start-up step, such as CUDA graph capture above, still is)
    log = cut_traceback("(Worker_TP0 pid=4410) ERROR 09-02 11:20:14 [multiproc_executor.py:871] ",
                        "/usr/local/lib/python3.12/dist-packages/vllm", (
        ("v1/executor/multiproc_executor.py", 866, "worker_busy_loop", "output = func(*args, **kwargs)"),
        ("v1/worker/gpu_worker.py", 742, "execute_model", "output = self.model_runner.execute_model("),
        ("v1/worker/gpu_model_runner.py", 3410, "execute_model", "model_output = self._model_forward("),
        ("v1/worker/gpu_model_runner.py", 3102, "_model_forward", "return self.model("),
    ))
    report = diagnose_text(log, catalog)
    assert report.crash.complete is False
    assert report.verdict is Verdict.UNEXPLAINED and not report.findings


def test_a_cut_sglang_traceback_through_the_batch_forward_alone_names_nothing(catalog):
    # SGLang runs every prefill batch through the model runner's forward_extend (a long prefill cut in the model's
    # forward, sglang#4856's shape): the rules naming it among their supporting frames are no candidates for it
    log = ("[2025-03-28 09:41:59 TP0] Prefill batch. #new-seq: 5, #new-token: 59995, #cached-token: 10, "
           "token usage: 0.05, #running-req: 1, #queue-req: 58,\n") + cut_traceback(
        "", "/sgl-workspace/sglang/python/sglang/srt", (
            ("managers/tp_worker.py", 172, "forward_batch_generation",
             "logits_output = self.model_runner.forward(model_worker_batch)"),
            ("model_executor/model_runner.py", 1004, "forward", "return self.forward_extend(forward_batch)"),
            ("model_executor/model_runner.py", 950, "forward_extend",
             "return self.model.forward(forward_batch.input_ids, forward_batch.positions, forward_batch)"),
        ))
    report = diagnose_text(log, catalog)
    assert report.crash.complete is False
    assert not any(any("forward_extend" in ev.text for ev in f.evidence if ev.state == "hit") for f in report.findings)


def test_a_models_name_beside_a_cut_message_is_no_candidate(catalog):
    # the hybrid page-size rule needs its message and a sign that the model is a hybrid (its name) in one clause: with
    # the message cut off, the model's name alone is no sign of that crash (ms-swift's Qwen3.5 paste, cut in the CLI)
    log = ("export MODEL_PATH=/models/Qwen3.5-35B-A3B\n" + cut_traceback("(APIServer pid=400) ", "/usr/local/lib/python3.11/site-packages", (
        ("vllm/entrypoints/cli/main.py", 73, "main", "args.dispatch_function(args)"),
        ("vllm/entrypoints/cli/serve.py", 112, "cmd", "uvloop.run(run_server(args))"),
        ("uvloop/__init__.py", 92, "run", "return runner.run(wrapper())"),
    )))
    ids = [f.rule_id for f in diagnose_text(log, catalog).findings]
    assert "hybrid-kv-page-size-unify-fails" not in ids
    # with the message shown, the name is the clause's hybrid sign again
    said = log + "(APIServer pid=400) NotImplementedError: The page size of the layer is not divisible by the maximum page size. Cannot unify by adjusting block_size.\n"
    assert "hybrid-kv-page-size-unify-fails" in [f.rule_id for f in diagnose_text(said, catalog).findings]


def test_path_candidates_give_way_to_a_rule_with_its_own_evidence(catalog):
    log = CUT_CAPTURE + (
        "[2025-08-12 03:41:07 TP0] Scheduler hit an exception: Traceback (most recent call last):\n"
        '  File "/sgl-workspace/sglang/python/sglang/srt/model_executor/cuda_graph_runner.py", line 654, in capture_one_batch_size\n'
        "    run_once()\n"
        '  File "/usr/local/lib/python3.12/dist-packages/deep_ep/buffer.py", line 555, in low_latency_dispatch\n'
        "    self.runtime.low_latency_dispatch(x, topk_idx,\n"
        "RuntimeError: Failed: Assertion error /sgl-workspace/DeepEP/csrc/kernels/internode_ll.cu:364 "
        "'false and \"Unsupported hidden\"'\n"
    )
    report = diagnose_text(log, catalog)
    assert report.findings[0].rule_id == "deepep-unsupported-hidden-size"
    assert all(f.basis != "path" for f in report.findings)


def _rejections_that_disagree(path: str) -> list:
    import io

    from conftest import worker_catalog
    from qwen3doctor.judge.match import Haystack, clause_state, evaluate
    from qwen3doctor.judge.pipeline import match_index_for, scan_source
    from qwen3doctor.read.reader import LineSource

    catalog = worker_catalog()
    scan = scan_source(LineSource(path, io.BytesIO(Path(path).read_bytes())), catalog, Overrides())
    hay = Haystack(scan, match_index_for(catalog))
    out = []
    for rule in catalog.rules.values():
        for clause in rule.clauses():
            if not hay.may_hit(clause) and clause_state(clause, scan, rule.id, "x", hay).state != hay.absent_state(clause):
                out.append((path, rule.id, "clause"))
        if hay.rules_out(rule) and not evaluate(rule, scan, hay).rejected:
            out.append((path, rule.id, "rejected"))
    return out


def test_rejecting_a_rule_on_absent_literals_agrees_with_evaluating_it(catalog):
    """diagnose_scan skips the rules Haystack.rules_out rejects; evaluating them would reject them too, and a
    clause with none of its literals present gets the state Haystack.absent says."""
    from conftest import EXAMPLES, in_workers

    # (every py-spy log too: a hung thread's stack decides message clauses one by one)
    paths = [str(p) for p in sorted(EXAMPLES.rglob("*.log"))[::7] + sorted(EXAMPLES.rglob("*pyspy*.log"))]
    assert [bad for found in in_workers(_rejections_that_disagree, paths, catalog) for bad in found] == []


def test_a_rule_of_both_engines_shows_the_launch_of_the_logs_engine(catalog):
    """gpu-peer-access-unsupported has a vLLM and an SGLang spelling of its first fix: each log gets its own; a
    command that launches neither engine (an export, a diagnostic) is kept for both."""
    from pathlib import Path

    from qwen3doctor.judge.pipeline import diagnose_text

    logs = Path(__file__).parent.parent / "examples" / "logs"
    sgl = diagnose_text((logs / "sglang/gpu-peer-access-unsupported--qwen3-8b-2x4090-custom-ar.log").read_text(), catalog)
    top = sgl.findings[0]
    assert top.rule_id == "gpu-peer-access-unsupported"
    commands = [f.command for f in top.fixes]
    assert not any("vllm serve" in c for c in commands) and any("sglang.launch_server" in c for c in commands)
    assert "export NCCL_P2P_DISABLE=1" in commands
    rule = catalog.rules["gpu-peer-access-unsupported"]
    assert any("vllm serve" in f.command for f in rule.fixes)  # the rule has the other spelling; the log's engine chose


def test_a_cut_traceback_through_a_rules_frame_is_a_candidate_not_a_claim(catalog):
    # every Qwen3-VL forward passes general_mm_embed_routine: with the OOM message cut off, the rule that needs
    # both is one candidate among others, never a medium claim (held-out report sgl-kernel-npu#191)
    prefix = "sglang-server  | "
    frames = [
        ("sglang/srt/model_executor/model_runner.py", 1983, "forward_decode", "return self.model.forward("),
        ("sglang/srt/models/qwen3_vl.py", 726, "forward", "hidden_states = general_mm_embed_routine("),
        ("sglang/srt/managers/mm_utils.py", 703, "general_mm_embed_routine", "hidden_states = language_model("),
    ]
    log = prefix + "[2025-11-20 08:12:44 TP0] Scheduler hit an exception: Traceback (most recent call last):\n" + "".join(
        f'{prefix}  File "/usr/local/lib/python3.11/site-packages/{f}", line {n}, in {fn}\n{prefix}    {code}\n'
        for f, n, fn, code in frames)
    report = diagnose_text(log, catalog)
    assert report.crash.complete is False
    assert report.findings and all(f.confidence == "low" for f in report.findings)


def test_a_cut_traceback_through_engine_plumbing_only_names_nothing(catalog):
    # _init_executor and collective_rpc are on every vLLM start-up's path: they made /dev/shm and sleep-mode
    # candidates of held-out start-up crashes that had neither (vllm-ascend#3373, unsloth#7091)
    prefix = "(EngineCore_DP0 pid=3372) ERROR 10-14 09:12:40 [core.py:708] "
    frames = [("vllm/v1/engine/core.py", 83, "__init__", "self.model_executor = executor_class(vllm_config)"),
              ("vllm/executor/executor_base.py", 54, "__init__", "self._init_executor()"),
              ("vllm/v1/executor/multiproc_executor.py", 106, "_init_executor", "self.rpc_broadcast_mq = MessageQueue("),
              ("vllm/executor/uniproc_executor.py", 92, "collective_rpc", "answer = run_method(self.driver_worker, method, args, kwargs)")]
    log = cut_traceback(prefix, "/usr/local/lib/python3.12/dist-packages", frames)
    report = diagnose_text(log, catalog)
    assert report.verdict is Verdict.UNEXPLAINED and not report.findings


def test_a_telling_message_stands_in_for_frames_a_paste_cut_off(catalog):
    # the last line alone: the rule's frames are not in the paste, but its exact message is
    line = ("(Worker_TP3 pid=1944) ERROR 05-02 10:11:12 [multiproc_executor.py:870] TypeError: "
            "postprocess_mamba_fused_kernel() got multiple values for argument 'block_size'\n")
    top = diagnose_text(line, catalog).findings[0]
    assert top.rule_id == "ascend-mamba-postprocess-kernel-signature-drift" and top.confidence != "low"


def _cut_ascend_traceback(frame: str, code: str) -> str:
    """A vllm-ascend start-up line, then an engine-core traceback cut after one frame."""
    prefix = "(EngineCore_DP0 pid=88) ERROR 11-02 10:01:02 [core.py:708] "
    return ("INFO 11-02 10:00:01 [__init__.py:207] Platform plugin ascend is activated\n"
            + f"{prefix}Traceback (most recent call last):\n{prefix}  {frame}\n{prefix}    {code}\n")


def test_a_candidate_whose_deciding_clause_is_cut_and_whose_platform_is_contradicted_is_dropped(catalog):
    # a cut vllm-ascend traceback through the fused-MoE layer: the Triton shared-memory rule (a GPU's limit) has
    # only that path line, and the NPU platform contradicts it (held-out vllm-ascend#3971)
    log = _cut_ascend_traceback('File "/vllm-workspace/vllm/vllm/model_executor/layers/fused_moe/layer.py", line 497, in apply',
                                "return self.quant_method.apply(")
    report = diagnose_text(log, catalog)
    assert report.environment.get("platform") == "npu"
    assert "triton-fused-moe-config-exceeds-smem" not in [f.rule_id for f in report.findings]


def test_the_ascend_platform_line_alone_makes_no_candidate(catalog):
    # every vllm-ascend log says its plugin is active: six Ascend rules had it as support and were listed for any cut
    # Ascend traceback (held-out vllm-ascend#9007, #7160, #3971)
    log = _cut_ascend_traceback(
        'File "/vllm-workspace/vllm-ascend/vllm_ascend/worker/model_runner_v1.py", line 2210, in execute_model',
        "hidden_states = self._generate_process_reqs_hidden_states(")
    report = diagnose_text(log, catalog)
    assert report.environment.get("platform") == "npu"
    assert not [f.rule_id for f in report.findings if f.rule_id.startswith("ascend")]


def test_another_engines_cause_is_no_candidate(catalog):
    # an SGLang pipeline-parallel cause whose expert-weight KeyError a vLLM log also shows: other code raised it
    log = ("INFO 05-12 10:01:05 [api_server.py:1043] vLLM API server version 0.8.5\n"
           "INFO 05-12 10:01:05 [api_server.py:1044] args: Namespace(model='Qwen/Qwen3-30B-A3B', tensor_parallel_size=2)\n"
           "Traceback (most recent call last):\n"
           '  File "/usr/local/lib/python3.12/dist-packages/vllm/model_executor/models/qwen3_moe.py", line 480, in load_weights\n'
           "    param = params_dict[name]\n"
           "KeyError: 'model.layers.0.mlp.experts.w2_weight_scale'\n")
    report = diagnose_text(log, catalog)
    assert all("vllm" in f.engines or f.rule_id.split("-")[0] in ("flashinfer", "nccl", "gloo", "deepep", "triton")
               for f in report.findings)


def test_a_fix_takes_the_number_the_message_printed(catalog):
    log = ("(EngineCore_DP0 pid=88) ERROR 03-02 10:15:00 [core.py:710] ValueError: To serve at least one request with the "
           "models's max seq len (262144), (24.0 GiB KV cache is needed, which is larger than the available KV cache memory "
           "(3.18 GiB). Based on the available memory, the estimated maximum model length is 34736. Try increasing "
           "`gpu_memory_utilization` or decreasing `max_model_len` when initializing the engine.\n")
    top = diagnose_text(log, catalog).findings[0]
    assert top.rule_id == "kv-cache-too-small-for-max-model-len"
    assert any(f.command.endswith("--max-model-len 34736") for f in top.fixes)
    cut = diagnose_text(log.split(" Based on")[0] + "\n", catalog).findings[0]
    assert any(f.command.endswith("--max-model-len <estimate>") for f in cut.fixes)


def test_a_candidate_of_another_start_up_step_is_dropped(catalog):
    # a launch naming a tool parser, and a traceback cut in the CLI's frames: the parser check is a candidate
    launch = ("vllm serve Qwen/Qwen3-Next-80B-A3B-Instruct --enable-auto-tool-choice --tool-call-parser hermes\n"
              "INFO 12-01 10:00:00 [api_server.py:1] vLLM API server version 0.13.0\n")
    cut = ('(APIServer pid=7) Traceback (most recent call last):\n'
           '(APIServer pid=7)   File "/venv/bin/vllm", line 10, in <module>\n'
           '(APIServer pid=7)     sys.exit(main())\n'
           '(APIServer pid=7)   File "/venv/lib/python3.12/site-packages/vllm/entrypoints/cli/main.py", line 73, in main\n'
           '(APIServer pid=7)     args.dispatch_function(args)\n')
    ids = [f.rule_id for f in diagnose_text(launch + cut, catalog).findings]
    assert "tool-call-parser-name-not-registered" in ids
    # the same cut after the checkpoint's shards began to load: the arguments had been accepted
    shards = "Loading safetensors checkpoint shards:  83% Completed | 34/41 [01:57<00:24,  3.47s/it]\n"
    ids = [f.rule_id for f in diagnose_text(launch + shards + cut, catalog).findings]
    assert "tool-call-parser-name-not-registered" not in ids


def test_a_phase_line_before_a_cut_traceback_favours_the_cause_of_that_step(catalog):
    # Qwen3-Next with MTP, the capture bar, then the engine core's traceback cut in its constructor (vllm#25647's
    # shape): the cause that fails while capturing ranks above the MTP causes of a running server
    launch = ("vllm serve Qwen/Qwen3-Next-80B-A3B-Instruct --tensor-parallel-size 4 \\\n"
              "  --speculative-config '{\"method\": \"qwen3_next_mtp\", \"num_speculative_tokens\": 2}'\n")
    bar = "Capturing CUDA graphs (mixed prefill-decode, PIECEWISE): 100%|██████████| 67/67 [00:09<00:00,  7.10it/s]\n"
    site = "/venv/lib/python3.12/site-packages"
    cut = cut_traceback("(EngineCore_DP0 pid=9) ", site, [
        ("vllm/v1/engine/core.py", 699, "run_engine_core", "engine_core = EngineCoreProc(*args, **kwargs)"),
        ("vllm/v1/engine/core.py", 498, "__init__", "super().__init__(vllm_config, executor_class, log_stats,")])
    findings = diagnose_text(launch + bar + cut, catalog).findings
    assert findings[0].rule_id == "gdn-mtp-full-cudagraph-capture-num-spec-assert"
    assert findings[0].confidence == "low"
    assert any("places the crash in this cause's step: capturing CUDA graphs" in ev.text for ev in findings[0].evidence)
    # without the bar nothing places the crash, and the step gives no rule anything
    findings = diagnose_text(launch + cut, catalog).findings
    assert not any("places the crash" in ev.text for f in findings for ev in f.evidence)


def test_the_weight_loaders_recursion_frame_is_a_loading_step_not_evidence(catalog):
    # every vLLM weight-loading traceback passes AutoWeightsLoader._load_module: a rule naming it learns nothing
    cut = ('(Worker_TP0 pid=9) ERROR 02-25 02:56:51 [multiproc_executor.py:783] Traceback (most recent call last):\n'
           '(Worker_TP0 pid=9) ERROR 02-25 02:56:51 [multiproc_executor.py:783]   File "/usr/local/lib/python3.12/'
           'dist-packages/vllm/model_executor/models/utils.py", line 292, in _load_module\n'
           '(Worker_TP0 pid=9) ERROR 02-25 02:56:51 [multiproc_executor.py:783]     yield from self._load_module(\n')
    report = diagnose_text(cut, catalog)
    hits = [ev for f in report.findings for ev in f.evidence if ev.state == "hit" and ev.subject == "_load_module"]
    assert hits and all(ev.generic for ev in hits)



def test_a_fix_released_in_one_engine_is_no_upgrade_for_the_others_log(tmp_path):
    """A rule of both engines whose fix shipped in one engine's release: a log of the other engine is not told to
    upgrade the engine it does not run; a log of that engine is, first."""
    from qwen3doctor.knowledge.catalog import load_catalog

    (tmp_path / "common").mkdir()
    (tmp_path / "common" / "made-up-json-inf.yaml").write_text(
        "title: made up\nstatus: confirmed\nreferences: [sglang#20714]\n"
        "match:\n  - message: ['Out of range float values are not JSON compliant']\n"
        "cause: x\nfixes:\n  - {title: Drop logprobs, command: '', cost: none}\n"
        "fixed_in: {version: 0.5.22, pr: 'sglang#20714'}\ntests: {match: [], no_match: []}\n", encoding="utf-8")
    catalog = load_catalog([tmp_path], strict=False, cache=False)
    log = "ValueError: Out of range float values are not JSON compliant: -inf\n"
    for engine, upgrade in (("vllm", False), ("sglang", True)):
        report = diagnose_text(log, catalog, overrides=Overrides(options={"engine": engine, "engine_version": "0.5.0"}))
        commands = [f.command for f in report.findings[0].fixes]
        assert ('pip install -U "sglang>=0.5.22"' in commands[:1]) is upgrade, engine
        assert not any("vllm>=" in c for c in commands)


def test_an_import_step_frames_clause_is_never_ruled_out_by_absent_literals(catalog):
    """`<import>` names no function a log shows: it hits on a traceback stopped while modules load, so the literal
    prefilter may not skip it (a traceback cut in an import chain, where cuda-runtime-library-missing's clause hits)."""
    from conftest import EXAMPLES
    from qwen3doctor.judge.pipeline import match_index_for, scan_source
    from qwen3doctor.judge.match import IMPORT_STEP, Haystack, clause_state
    from qwen3doctor.read.reader import LineSource
    import io

    path = EXAMPLES / "vllm" / "vllm-source-build-arch-gated-kernel-symbol-missing--neg-cut-import-traceback.log"
    scan = scan_source(LineSource(str(path), io.BytesIO(path.read_bytes())), catalog, Overrides())
    hay = Haystack(scan, match_index_for(catalog))
    clauses = [(r, c) for r in catalog.rules.values() for c in r.clauses() if c.kind == "frames" and IMPORT_STEP in c.sources]
    assert clauses and all(hay.may_hit(c) for _, c in clauses)
    assert any(clause_state(c, scan, r.id, "x", hay).state == "hit" for r, c in clauses)


def test_a_common_rules_advice_titled_for_the_other_engine_is_left_out(catalog):
    """A fix with no command says in its title which engine it is for (`SGLang: launch without ...`): a vLLM log
    gets the vLLM spellings only, as it does for fixes whose command launches an engine."""
    from qwen3doctor.judge.pipeline import diagnose_text

    log = ("vllm serve nvidia/Qwen3.5-35B-A3B-NVFP4 --max-model-len 32768\n"
           "(EngineCore_DP0 pid=301) INFO 04-10 10:00:00 [cuda.py:1] Using 'FLASHINFER_CUTLASS' NvFp4 MoE backend out of "
           "potential backends: ['FLASHINFER_CUTLASS', 'MARLIN']\n"
           "(EngineCore_DP0 pid=301) ERROR 04-10 10:01:00 [core.py:1] torch.AcceleratorError: CUDA error: an illegal "
           "instruction was encountered\n")
    report = diagnose_text(log, catalog)
    titles = [f.title for f in report.findings[0].fixes]
    assert titles and not any(t.startswith("SGLang") for t in titles), titles


def test_a_fix_whose_title_names_its_engine_in_parentheses_is_left_out_for_the_other_engine(catalog):
    """`(SGLang up to 0.5.10) Install the CUDA 13 build of sgl-kernel`: a pip command that names neither engine's
    package, its engine said in the title's parentheses. A vLLM log on a Thor gets the vLLM and common fixes only."""
    from qwen3doctor.judge.pipeline import diagnose_text

    log = ("INFO 05-02 09:00:00 [__init__.py:1] vLLM API server version 0.19.0\n"
           "INFO 05-02 09:00:01 [cuda.py:1] GPU: NVIDIA Thor, compute capability 11.0\n"
           "(EngineCore_DP0 pid=88) ERROR 05-02 09:01:00 [core.py:1] torch.AcceleratorError: CUDA error: no kernel image is "
           "available for execution on the device\n")
    report = diagnose_text(log, catalog)
    top = report.findings[0]
    assert top.rule_id == "thor-gb10-build-lacks-sm110-sm121-kernels"
    titles = [f.title for f in top.fixes]
    assert any(t.startswith("(vLLM)") for t in titles) and not any("SGLang" in t for t in titles), titles


def test_a_line_that_holds_a_generic_error_and_names_its_cause_ranks_that_cause_first(catalog):
    # Ascend's CausalConv1d operator prints its check on the line of its generic failure: the accepted-token cause
    # goes before the operator's generic tiling rule, whatever the flag condition left open costs its score
    from qwen3doctor.judge.pipeline import diagnose_text

    line = ("[ERROR] numAcceptedTokens[0]=3 exceeds varlen segment length=2 RuntimeError: call aclnnCausalConv1d "
            "failed, detail:EZ9999: Inner Error! CausalConv1d do tiling failed, ret is -1.\n")
    ids = [f.rule_id for f in diagnose_text(line, catalog).findings]
    assert ids[:2] == ["ascend-causal-conv1d-spec-accepted-exceeds-segment", "ascend-causal-conv1d-tiling-rejected"]
    # the generic failure alone stays the generic rule's
    alone = diagnose_text("RuntimeError: call aclnnCausalConv1d failed, detail:EZ9999: Inner Error! CausalConv1d do "
                          "tiling failed, ret is -1.\n", catalog).findings
    assert alone[0].rule_id == "ascend-causal-conv1d-tiling-rejected"


def test_a_hung_thread_raised_no_error_type_so_a_rule_that_needs_one_is_no_candidate(catalog):
    """A watchdog dump of a DeepSeek-V4 scheduler stuck in a collective: the HiCache-storage rule whose crash is a
    ZeroDivisionError at start-up had been a low candidate above the watchdog rule, from the model name alone (an
    unknown exception clause). A live thread stuck where it is raised nothing: the type misses, as a message does."""
    from conftest import EXAMPLES

    log = (EXAMPLES / "sglang" / "dspark-tp-rank-sampling-divergence-hang--neg-dsv4-flash-eagle-hicache-eviction-watchdog.log").read_text()
    ids = [f.rule_id for f in diagnose_text(log, catalog).findings]
    assert ids[:1] == ["sglang-scheduler-watchdog-timeout"]
    assert "hicache-storage-deepseek-v4-logical-anchor-pool" not in ids
    # a hang's own exception type (a timeout) still counts on such a log
    from qwen3doctor.judge.match import hang_message
    from qwen3doctor.model import Clause

    assert hang_message(Clause("exception", ("TimeoutError",))) and not hang_message(Clause("exception", ("ZeroDivisionError",)))


def test_a_candidate_whose_log_clause_names_the_deepest_frame_goes_first(catalog):
    """A traceback of imports cut right under the failing import (`from transformers.models.qwen2_5_vl import ...`):
    the rule whose own patterns hit that frame line and its import statement is tied on score with every cause that
    only says "the crash came while the engine's modules were imported", and goes before them whatever their count of
    issues; the import statement, not the frame's name, is what places it."""
    prefix = "ERROR 02-17 09:29:36 registry.py:306] "
    paste = records(
        prefix,
        '  File "/usr/lib/python3.12/importlib/__init__.py", line 90, in import_module',
        "    return _bootstrap._gcd_import(name[level:], package, level)",
        '  File "<frozen importlib._bootstrap>", line 1387, in _gcd_import',
        '  File "<frozen importlib._bootstrap_external>", line 995, in exec_module',
        '  File "<frozen importlib._bootstrap>", line 488, in _call_with_frames_removed',
        '  File "/opt/venv/lib/python3.12/site-packages/vllm/model_executor/models/qwen2_5_vl.py", line 36, in <module>',
        "    from transformers.models.qwen2_5_vl import (Qwen2_5_VLImageProcessor,",
    )
    report = diagnose_text(paste, catalog)
    assert report.findings and all(f.confidence == "low" for f in report.findings)
    assert report.findings[0].rule_id == "transformers-version-mismatch"
    # the same cut one frame higher (no import statement of transformers shown) places nothing there
    higher = diagnose_text(paste.rsplit(prefix, 2)[0], catalog)
    assert not any(f.rule_id == "transformers-version-mismatch" for f in higher.findings)


def test_a_launch_line_a_cause_needs_beside_its_cut_message_does_not_outrank_the_crashs_own_step(catalog):
    # a Gemma 4 launch with its MTP drafter: the drafter's name in the serve command is a line the drafter's capture
    # crash needs, beside its FlashInfer message; with the message cut off it points there as a supporting line does,
    # but a traceback whose own frames stop in create_model_config failed while the arguments were read, long before
    # any CUDA graph was captured
    launch = ("$ vllm serve google/gemma-4-31B-it --speculative-config "
              "'{\"model\":\"google/gemma-4-31B-it-assistant\",\"num_speculative_tokens\":4}'\n"
              "(APIServer pid=7) INFO 10-02 11:20:31 [utils.py:299] vLLM API server version 0.27.1\n"
              "(APIServer pid=7) Traceback (most recent call last):\n")
    args = ('(APIServer pid=7)   File "/opt/venv/lib/python3.12/site-packages/vllm/engine/arg_utils.py", line 1686, in create_engine_config\n'
            "(APIServer pid=7)     model_config = self.create_model_config()\n"
            '(APIServer pid=7)   File "/opt/venv/lib/python3.12/site-packages/vllm/engine/arg_utils.py", line 1540, in create_model_config\n'
            "(APIServer pid=7)     return ModelConfig(\n")
    ids = [f.rule_id for f in diagnose_text(launch + args, catalog).findings]
    assert "gemma4-mtp-drafter-flashinfer-trtllm-head-dim-512" not in ids
    capture = ('(EngineCore_DP0 pid=9)   File "/opt/venv/lib/python3.12/site-packages/vllm/v1/worker/gpu_model_runner.py", line 4410, in capture_model\n'
               "(EngineCore_DP0 pid=9)     self._capture_cudagraphs(\n")
    cut = launch.replace("(APIServer pid=7) Traceback", "(EngineCore_DP0 pid=9) Traceback") + capture
    assert "gemma4-mtp-drafter-flashinfer-trtllm-head-dim-512" in [f.rule_id for f in diagnose_text(cut, catalog).findings]


def test_a_gpu_fact_adds_nothing_to_a_candidate_whose_quantization_is_unknown(catalog):
    """A cut serving traceback on an Ampere card: the FP8-Triton-on-pre-Ada cause needs an FP8 checkpoint, which the
    log does not show; the card alone (a fact that matters only beside the FP8 one) makes no candidate of it. The
    same log with the FP8 checkpoint named brings it back."""
    from qwen3doctor.judge.pipeline import diagnose_text

    log = ("GPU 0: NVIDIA GeForce RTX 3060\nGPU 1: NVIDIA GeForce RTX 3060\n"
           "(Worker_PP1 pid=617) ERROR [multiproc_executor.py:962] WorkerProc hit an exception.\n"
           "(Worker_PP1 pid=617) ERROR [multiproc_executor.py:962] Traceback (most recent call last):\n"
           '(Worker_PP1 pid=617) ERROR [multiproc_executor.py:962]   File "/opt/venv/lib/python3.12/site-packages/vllm/v1/'
           'worker/gpu_worker.py", line 740, in sample_tokens\n')
    ids = [f.rule_id for f in diagnose_text(log, catalog).findings]
    assert "fp8-triton-kernel-on-pre-ada-gpu" not in ids, ids
    fp8 = "vllm serve Qwen/Qwen3-8B-FP8 --pipeline-parallel-size 2\n" + log
    ids = [f.rule_id for f in diagnose_text(fp8, catalog).findings]
    assert "fp8-triton-kernel-on-pre-ada-gpu" in ids, ids


def test_a_cut_loading_traceback_of_a_launch_whose_shapes_cannot_load_names_that_cause(catalog):
    """Qwen3-30B-A3B-FP8 at TP 4 on SGLang, the traceback cut at the MoE experts' construction: the experts' 768
    rows over 4 ranks leave 192, not whole 128-blocks, so the FP8-block cause is first at medium confidence with the
    arithmetic as evidence (before: a low candidate behind a weights-OOM one sharing the loader's frames). The same
    paste at TP 2 (384 per rank) leaves it a low candidate; a paste that keeps its message is not touched."""
    path = Path(__file__).parent.parent / "examples/logs/sglang/fp8-block-quant-tp-indivisible--qwen3-30b-fp8-tp4-cut-at-moe-impl.log"
    log = path.read_text(encoding="utf-8")
    top = diagnose_text(log, catalog).findings[0]
    assert top.rule_id == "fp8-block-quant-tp-indivisible" and top.confidence == "medium"
    assert any(ev.text == "768 / 4 = 192; 192 % 128 = 64" for ev in top.evidence)
    two = log.replace("--tp 4", "--tp 2").replace("tp_size=4", "tp_size=2")
    found = {f.rule_id: f for f in diagnose_text(two, catalog).findings}
    assert found["fp8-block-quant-tp-indivisible"].confidence == "low"
    assert not any(ev.clause == "shape" for f in found.values() for ev in f.evidence)
    said = log + "ValueError: The output_size of gate's and up's weight = 192 is not divisible by weight quantization block_n = 128.\n"
    top = diagnose_text(said, catalog).findings[0]
    assert top.rule_id == "fp8-block-quant-tp-indivisible" and not any(ev.clause == "shape" for ev in top.evidence)
