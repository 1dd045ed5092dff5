"""Differential diagnosis: the one fact that separates the top candidates and how to get it; which lines a
wrapper-only or cut log is missing."""

from conftest import EXAMPLES
from qwen3doctor.judge.pipeline import Overrides, diagnose_text
from qwen3doctor.model import Crash, Environment, Evidence, Fact, Finding, Frame, Scan
from qwen3doctor.judge.nextsteps import differential, next_steps


def finding(rule_id, score, confidence="low", when=(), frames="hit"):
    evidence = [Evidence("match.frames", frames, "frames")] + [Evidence(c, s, t, wants=w) for c, s, t, w in when]
    return Finding(rule_id=rule_id, title=rule_id, status="likely", score=score, confidence=confidence, engines=("vllm",),
                   families=(), references=("vllm#1",), evidence=tuple(evidence), fixes=(), fixed_in=None)


def env(**facts):
    return Environment(facts={k: Fact(v, "log") for k, v in facts.items()})


def test_two_close_candidates_are_separated_by_the_version_they_need():
    a = finding("gdn-null-block-id", 0.38, when=[("when.engine_version", "unknown", "no vllm version in the log (rule: >0.19.0,<0.20.0)", ">0.19.0,<0.20.0")])
    b = finding("gdn-prefill-ima", 0.30, when=[("when.engine_version", "unknown", "no vllm version in the log (rule: >=0.16.0rc0)", ">=0.16.0rc0")])
    step, covered = differential([a, b], env(engine="vllm"))
    assert step.startswith("To tell gdn-null-block-id from gdn-prefill-ima: the log does not show the vLLM version")
    assert "gdn-null-block-id needs vLLM >0.19.0,<0.20.0; gdn-prefill-ima needs vLLM >=0.16.0rc0" in step
    assert "`vllm --version`" in step and "qwen3doctor env" in step and "--engine-version" in step
    assert covered == {"engine_version"}


def test_a_fact_only_one_candidate_asks_about_separates_them():
    a = finding("awq-rule", 0.5, when=[("when.quantization", "unknown", "quantization not in the log (rule: awq, gptq-int4)", "awq, gptq-int4")])
    b = finding("other-rule", 0.45)
    step, _ = differential([a, b], env(engine="sglang"))
    assert "the checkpoint's quantization" in step and "awq-rule needs an awq or gptq-int4 checkpoint" in step
    assert "other-rule does not depend on it" in step and "quantization_config" in step


def test_flags_are_named_with_the_engine_s_own_start_up_line():
    a = finding("needs-eager-off", 0.4, when=[("when.not_flags", "unknown", "no serve command or config to check --enforce-eager", "--enforce-eager")])
    b = finding("needs-spec", 0.35, when=[("when.flags", "unknown", "no serve command or config in the log to check --speculative-config", "--speculative-config")])
    step, _ = differential([a, b], env(engine="vllm"))
    assert "must not have --enforce-eager" in step or "needs --speculative-config" in step
    assert "`non-default args: {...}`" in step and "sglang" not in step


def test_far_apart_candidates_are_not_a_differential():
    a = finding("clear-winner", 0.95, confidence="medium")
    b = finding("also-ran", 0.07, when=[("when.platform", "unknown", "platform not in the log", "")])
    step, _ = differential([a, b], env())
    assert step is None


def test_one_finding_with_an_unknown_condition_names_it():
    a = finding("version-bound", 0.5, confidence="medium",
                when=[("when.engine_version", "unknown", "no sglang version in the log (rule: >=0.5.3.post3)", ">=0.5.3.post3")])
    step, _ = differential([a], env(engine="sglang"))
    assert step.startswith("The top finding, version-bound, depends on the SGLang version")
    assert "SGLang >=0.5.3.post3" in step and "`python -m sglang.check_env`" in step
    high = finding("sure", 0.9, confidence="high", when=[("when.engine_version", "unknown", "x (rule: >=1.0)", ">=1.0")])
    assert differential([high], env()) == (None, set())


def test_the_missing_facts_step_does_not_repeat_the_separating_fact():
    a = finding("a", 0.38, when=[("when.engine_version", "unknown", "no vllm version in the log (rule: <0.13.0)", "<0.13.0")])
    b = finding("b", 0.30, when=[("when.engine_version", "unknown", "no vllm version in the log (rule: >=0.16.0)", ">=0.16.0")])
    crash = Crash("illegal-memory-access", "RuntimeError", "CUDA error", "Worker_TP0", 3, (Frame("x.py", 1, "f"), Frame("y.py", 2, "g")), True)
    steps = next_steps(Scan((crash,), (), env(engine="vllm")), [a, b])
    assert sum("engine version" in s or "vLLM version" in s for s in steps) == 1
    assert any("the GPU (`nvidia-smi`)" in s for s in steps)


def test_wrapper_only_logs_say_which_lines_to_paste_per_engine(catalog):
    vllm_log = ("(APIServer pid=1) ERROR 05-05 12:00:00 [async_llm.py:525] AsyncLLM output_handler failed.\n"
                "(APIServer pid=1) ERROR 05-05 12:00:00 [async_llm.py:525] vllm.v1.engine.exceptions.EngineDeadError: "
                "EngineCore encountered an issue. See stack trace (above) for the root cause.\n")
    steps = diagnose_text(vllm_log, catalog).next_steps
    paste = [s for s in steps if s.startswith("The log holds only a wrapper error")]
    assert paste and "(EngineCore_DP0 pid=...)" in paste[0] and "2>&1 | tee server.log" in paste[0]
    assert "dmesg" not in paste[0]  # (an engine that raised: its traceback is above)
    # a process that died without an exception was killed from outside: the kernel's log says by what
    died = "(APIServer pid=1) ERROR 05-05 12:00:00 [core_client.py:564] Engine core proc EngineCore_DP0 died unexpectedly, shutting down client.\n"
    paste = [s for s in diagnose_text(died, catalog).next_steps if s.startswith("The log holds only a wrapper error")]
    assert paste and "dmesg -T | grep -iE 'killed process|oom-kill'" in paste[0]
    sglang_log = "[2025-05-01 10:00:00] Exception: Initialization failed. warmup error: last_gen_throughput: 0\n"
    steps = diagnose_text(sglang_log, catalog, overrides=Overrides(options={"engine": "sglang"})).next_steps
    assert any("Scheduler hit an exception: Traceback" in s and "[... TP0]" in s for s in steps)


def test_a_traceback_cut_before_its_exception_asks_for_the_rest(catalog):
    log = ("(Worker_TP0 pid=7) ERROR 05-05 12:00:00 [multiproc_executor.py:1] Traceback (most recent call last):\n"
           "(Worker_TP0 pid=7) ERROR 05-05 12:00:00 [multiproc_executor.py:1]   File \"/x/vllm/worker.py\", line 3, in run\n"
           "(Worker_TP0 pid=7) ERROR 05-05 12:00:00 [multiproc_executor.py:1]     self.step()\n"
           "(Worker_TP0 pid=7) ERROR 05-05 12:00:00 [multiproc_executor.py:1]   File \"/x/vllm/model.py\", line 9, in step\n")
    steps = diagnose_text(log, catalog).next_steps
    assert any("stops before its exception line" in s for s in steps)


def test_a_real_differential_on_a_bundled_log(catalog):
    text = (EXAMPLES / "vllm" / "gdn-null-block-id-cudagraph-padding--vllm-39025.log").read_text(errors="replace")
    report = diagnose_text(text, catalog)
    assert report.findings[0].rule_id == "gdn-null-block-id-cudagraph-padding"
    assert any(s.startswith("To tell gdn-null-block-id-cudagraph-padding from") and "vLLM version" in s for s in report.next_steps)
    # the version decides it: given 0.19.1, no differential is left to ask for
    told = diagnose_text(text, catalog, overrides=Overrides(options={"engine_version": "0.19.1"}))
    assert not any(s.startswith("To tell") and "version" in s for s in told.next_steps)


def test_an_npu_operator_wrapper_asks_for_the_cann_lines_above_it(catalog):
    from qwen3doctor.judge.pipeline import diagnose_text

    log = ("(EngineCore pid=3571) ERROR 08-05 16:10:10 [core.py:1195] RuntimeError: The Inner error is reported as above. "
           "The process exits for this inner error, and the current working operator name is aclnnAddRmsNormDynamicQuantV2.\n"
           "(EngineCore pid=3571) ERROR 08-05 16:10:10 [core.py:1195] [ERROR] 2026-08-05-16:10:10 (PID:3571, Device:0, "
           "RankID:-1) ERR00100 PTA call acl api failed.\n")
    report = diagnose_text(log, catalog)
    assert not report.findings
    assert report.next_steps[0].startswith("The NPU error is reported above this line") and "ASCEND_LAUNCH_BLOCKING=1" in report.next_steps[0]
    # the runtime's status of a device task that failed earlier (vllm-ascend#3037)
    sync = ("(EngineCore_DP0 pid=931761) ERROR 09-19 10:02:11 [core.py:710] RuntimeError: ACL stream synchronize failed, "
            "error code:507035\n")
    report = diagnose_text(sync, catalog)
    assert not report.findings and report.next_steps[0].startswith("The NPU error is reported above this line")


def test_an_npu_operator_error_asks_for_the_cann_lines_and_the_npu(catalog):
    # (an error code no rule explains: capture_end's 107025 is ascend-aclgraph-capture-end-unjoined-stream's)
    line = ("RuntimeError: capture_begin:torch_npu/csrc/core/npu/NPUGraph.cpp:120 NPU function error: "
            "c10_npu::acl::AclmdlRICaptureBegin(capture_stream_, mode), error code is 107002\n")
    report = diagnose_text(line, catalog)
    assert report.environment.get("platform") == "npu"
    assert report.next_steps[0].startswith("The NPU error is reported above this line")
    assert any("`npu-smi info`" in s for s in report.next_steps) and not any("nvidia-smi" in s for s in report.next_steps)


def test_a_clients_error_asks_for_the_servers_log(catalog):
    client = ("Traceback (most recent call last):\n"
              '  File "/home/u/bench.py", line 19, in main\n'
              '    r = client.chat.completions.create(model="q", messages=m)\n'
              '  File "/home/u/.venv/lib/python3.12/site-packages/openai/_base_client.py", line 1040, in request\n'
              "    raise APIConnectionError(request=request) from err\n"
              "openai.APIConnectionError: Connection error.\n")
    steps = diagnose_text(client, catalog).next_steps
    assert steps[0].startswith("This is the client's error")
    # the same exception type raised inside the engine is the engine's
    server = client.replace("/home/u/bench.py", "/x/site-packages/vllm/entrypoints/openai/serving_chat.py")
    assert not any("client's error" in s for s in diagnose_text(server, catalog).next_steps)


ADVISED = '''(Worker_TP1 pid=107559) ERROR 09-07 14:27:41 [multiproc_executor.py:972] WorkerProc failed to start.
(Worker_TP1 pid=107559) ERROR 09-07 14:27:41 [multiproc_executor.py:972] Traceback (most recent call last):
(Worker_TP1 pid=107559) ERROR 09-07 14:27:41 [multiproc_executor.py:972]   File "/opt/venv/lib/python3.12/site-packages/vllm/distributed/kv_transfer/kv_connector/v1/nixl/worker.py", line 256, in __init__
(Worker_TP1 pid=107559) ERROR 09-07 14:27:41 [multiproc_executor.py:972]     assert is_conv_state_dim_first(), (
(Worker_TP1 pid=107559) ERROR 09-07 14:27:41 [multiproc_executor.py:972] AssertionError: {message}
'''


def test_an_unexplained_crash_whose_message_asks_for_a_change_leads_with_it(catalog):
    report = diagnose_text(ADVISED.format(
        message="transfers between different block sizes require the HND KV cache layout. Set VLLM_KV_CACHE_LAYOUT=HND"),
        catalog)
    assert not report.findings
    assert report.next_steps[0].startswith("The error's own message asks for `VLLM_KV_CACHE_LAYOUT=HND`")
    # (the conv-state layout the same check asks for has a rule of its own: explained, not advice)
    explained = diagnose_text(ADVISED.format(
        message="3-read Mamba conv transfer requires DS conv state layout. Set VLLM_SSM_CONV_STATE_LAYOUT=DS"), catalog)
    assert explained.findings[0].rule_id == "nixl-hybrid-conv-state-layout-not-ds-assert"
    flag = diagnose_text(ADVISED.format(message="chunked prefill is required here; pass --enable-chunked-prefill"), catalog)
    assert any("`--enable-chunked-prefill`: add it to the serve command" in s for s in flag.next_steps)
    knob = diagnose_text(ADVISED.format(message="not enough blocks: try increasing `gpu_memory_utilization` or "
                                                "decreasing `max_model_len`"), catalog)
    assert any("increase `gpu_memory_utilization` (the serve flag `--gpu-memory-utilization`)" in s for s in knob.next_steps)
    # a message with no change in it adds nothing ("set up" is no setting)
    plain = diagnose_text(ADVISED.format(message="conv state was not set up for this layer"), catalog)
    assert not any("own message" in s for s in plain.next_steps)


def test_the_engines_own_launch_carries_the_advised_setting(catalog):
    log = ('[2026-05-01 10:00:00 TP0] Scheduler hit an exception: Traceback (most recent call last):\n'
           '  File "/sgl-workspace/sglang/python/sglang/srt/managers/scheduler.py", line 3487, in run_scheduler_process\n'
           '    scheduler = Scheduler(server_args)\n'
           'AssertionError: the hybrid cache needs a page size of 64. Set SGLANG_MAMBA_PAGE_SIZE=64 to continue\n')
    step = diagnose_text(log, catalog).next_steps[0]
    assert "`SGLANG_MAMBA_PAGE_SIZE=64 python -m sglang.launch_server ...`" in step and "vllm serve" not in step


def test_what_a_message_forbids_is_not_advice():
    from qwen3doctor.judge.nextsteps import own_advice
    from qwen3doctor.model import Crash

    def advice(message):
        return own_advice(Crash("error", "RuntimeError", message, None, 1), "vllm")
    assert advice("Remote engine 1 must not use --headless in external or hybrid dp lb mode") == []
    assert advice("Do not use --enable-expert-parallel with this model") == []
    # a word of the sentence after the flag is not its value; a real value is kept
    assert advice("Remote engine 1 must use --headless unless in internal mode")[0].startswith(
        "The error's own message asks for `--headless`:")
    assert "`--max-model-len 4096`" in advice("try passing --max-model-len 4096 instead")[0]


def test_advice_the_serve_command_already_follows_is_not_repeated():
    """SGLang's NVFP4 MoE refusal ends in "please use --moe-runner-backend flashinfer_cutlass" whatever was passed
    (sglang#38795 passed exactly that): a flag and value the serve command already has is no step to try."""
    from qwen3doctor.judge.nextsteps import own_advice
    from qwen3doctor.model import Crash

    crash = Crash("error", "NotImplementedError", "Unsupported moe_runner_backend for NVFP4 MoE: FLASHINFER_CUTLASS, "
                  "please use --moe-runner-backend flashinfer_cutlass", None, 1)
    base = "python3 -m sglang.launch_server --model-path nvidia/DeepSeek-R1-FP4 --tp 8"
    passed = own_advice(crash, "sglang", base + " --moe-runner-backend flashinfer_cutlass")
    assert len(passed) == 1 and "which the serve command already passes" in passed[0]
    other = own_advice(crash, "sglang", base + " --moe-runner-backend triton")
    assert other[0].startswith("The error's own message asks for `--moe-runner-backend flashinfer_cutlass`: add it")
    assert own_advice(crash, "sglang")[0] == other[0]


def test_the_cann_runtimes_fault_lines_alone_ask_for_the_python_side(catalog):
    """A paste that starts at the CANN runtime's fault lines (the record's head and the traceback cut off, sglang#10421)
    asks for what a CANN record alone asks for: the traceback under ASCEND_LAUNCH_BLOCKING=1."""
    log = ("       Aicore kernel execute failed, device_id=1, stream_id=2, report_stream_id=2, task_id=9012, flip_num=0, "
           "fault kernel_name=_fused_rotary_emb_kernel_3, fault kernel info ext=none, program id=17, hash=1.[FUNC:GetError]"
           "[FILE:stream.cc][LINE:1183]\n"
           "       rtStreamSynchronizeWithTimeout execute failed, reason=[vector core exception][FUNC:FuncErrorReason]"
           "[FILE:error_message_manage.cc][LINE:53]\n")
    report = diagnose_text(log, catalog)
    assert not report.findings and report.environment.get("platform") == "npu"
    assert report.next_steps[0].startswith("The log holds the NPU runtime's (CANN) error record") and \
        "ASCEND_LAUNCH_BLOCKING=1" in report.next_steps[0]


def test_the_version_step_names_only_the_logs_own_engines_command(catalog):
    from qwen3doctor.judge.pipeline import diagnose_text

    sglang = ("[2026-03-01 10:00:00] Scheduler hit an exception: Traceback (most recent call last):\n"
              '  File "/sgl-workspace/sglang/python/sglang/srt/managers/scheduler.py", line 2900, in run_scheduler_process\n'
              "    scheduler.event_loop_overlap()\n"
              "RuntimeError: something broke\n")
    steps = " ".join(diagnose_text(sglang, catalog).next_steps)
    assert "the engine version (`python -m sglang.check_env` or `qwen3doctor env`)" in steps and "vllm --version" not in steps
    vllm = sglang.replace("/sgl-workspace/sglang/python/sglang/srt/managers/scheduler.py",
                          "/usr/local/lib/python3.12/dist-packages/vllm/v1/engine/core.py")
    steps = " ".join(diagnose_text(vllm, catalog).next_steps)
    assert "the engine version (`vllm --version` or `qwen3doctor env`)" in steps and "sglang.check_env" not in steps


def test_an_error_the_server_answered_with_a_4xx_is_about_the_request(catalog):
    from qwen3doctor.judge.pipeline import diagnose_text

    log = ("ERROR 09-07 08:26:00 serving_chat.py:134] Error in applying chat template from request: 1 validation error "
           "for ValidatorIterator\n"
           "ERROR 09-07 08:26:00 serving_chat.py:134] 0.type\n"
           "ERROR 09-07 08:26:00 serving_chat.py:134]   Field required [type=missing, input_value={'text': 'Hi'}, "
           "input_type=dict]\n"
           'INFO:     10.0.0.7:62122 - "POST /v1/chat/completions HTTP/1.1" 400 Bad Request\n')
    steps = diagnose_text(log, catalog).next_steps
    assert steps[0].startswith("The server answered this request with a client error (the access log's 4xx at line 4)")
    # the same error answered with a 200 (or far from any access-log line) gets the usual request for the traceback
    steps = diagnose_text(log.replace('" 400 Bad Request', '" 200 OK'), catalog).next_steps
    assert not any("answered this request" in s for s in steps)
