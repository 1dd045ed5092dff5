"""Reading defects a second held-out sample of real reports found (issue 13, part 1): each paste form below was
misread, and each test fails on the code before the fix."""

from qwen3doctor import vocab
from qwen3doctor.judge.pipeline import diagnose_text
from qwen3doctor.model import Verdict
from conftest import cut_traceback, records

PREFIX = "(EngineCore_DP0 pid=2718) ERROR 07-31 02:52:28 [core.py:586] "
TRACEBACK = [
    "EngineCore failed to start.",
    "Traceback (most recent call last):",
    '  File "/usr/local/lib/python3.12/dist-packages/vllm/v1/engine/core.py", line 577, in run_engine_core',
    "    engine_core = EngineCoreProc(*args, **kwargs)",
    '  File "/usr/local/lib/python3.12/dist-packages/vllm/v1/engine/core.py", line 142, in _initialize_kv_caches',
    "    available_gpu_memory = self.model_executor.determine_available_memory()",
    '  File "/usr/local/lib/python3.12/dist-packages/vllm/v1/worker/gpu_worker.py", line 243, in determine_available_memory',
    "    self.model_runner.profile_run()",
    "ValueError: the profiling run needs 12 blocks, found 0",
]


def own_crashes(report):
    return [c for c in report.crashes if c.role not in ("wrapper", "consequence")]


def test_a_paste_that_lost_its_line_breaks_is_split_at_each_record(catalog):
    flat = "> " + " ".join(PREFIX + line.strip() for line in TRACEBACK) + "\n"
    crash = own_crashes(diagnose_text(flat, catalog))[0]
    assert crash.functions == ("run_engine_core", "_initialize_kv_caches", "determine_available_memory")
    assert crash.exception_type == "ValueError" and crash.message == "the profiling run needs 12 blocks, found 0"


def test_a_line_with_two_records_is_left_whole():
    from qwen3doctor.read.prefixes import unflattened

    line = PREFIX + "first record " + "x" * 200 + " " + PREFIX + "second record"
    assert [t for _, t, _ in unflattened([(1, line, 7)])] == [line]


def test_a_fullwidth_colon_after_the_exception_type_keeps_the_message(catalog):
    crash = own_crashes(diagnose_text("RuntimeError\uff1aE19999: Inner Error!\n", catalog))[0]
    assert crash.exception_type == "RuntimeError" and crash.message.startswith("E19999: Inner Error!")


def test_a_cuda_kernel_assert_line_is_a_crash(catalog):
    for quoted in ("`totalElements <= srcSize`", "totalElements <= srcSize"):
        line = ("/pytorch/aten/src/ATen/native/cuda/IndexKernel.cu:402: masked_scatter_size_check: block: [0,0,0], "
                f"thread: [0,0,0] Assertion {quoted} failed.\n")
        report = diagnose_text(line, catalog)
        assert report.verdict is not Verdict.CLEAN, quoted
        crash = own_crashes(report)[0]
        assert crash.crash_class == "device-assert" and "masked_scatter_size_check" in crash.message


def test_a_warning_that_names_a_caught_exception_is_not_the_crash(catalog):
    log = ("WARNING 08-01 10:00:00 [_custom_ops.py:21] Failed to import from vllm._C with "
           "ModuleNotFoundError(\"No module named 'vllm._C'\")\n"
           "ERROR 08-01 10:00:05 [engine.py:448] 'model.layers.0.self_attn.q_proj.weight'\n")
    crashes = own_crashes(diagnose_text(log, catalog))
    assert [c.exception_type for c in crashes] == ["KeyError"]  # the engine logs a KeyError's str(): the quoted key
    assert crashes[0].message == "'model.layers.0.self_attn.q_proj.weight'"


def test_a_warning_line_that_is_the_exception_itself_still_counts(catalog):
    log = "WARNING 08-01 10:00:00 [utils.py:12] RuntimeError: CUDA error: an illegal memory access was encountered\n"
    assert own_crashes(diagnose_text(log, catalog))


def test_ray_boilerplate_does_not_decide_the_crash_class(catalog):
    log = ("(raylet) A worker died or was killed while executing a task by an unexpected system error. There are some "
           "potential root causes. (1) The process is killed by SIGKILL by OOM killer due to high memory usage.\n"
           "Invalid handle. Cannot load symbol cublasLtGetVersion\n"
           "*** SIGABRT received at time=1700000000 on cpu 3 ***\n")
    crashes = own_crashes(diagnose_text(log, catalog))
    assert crashes[0].message == "Invalid handle. Cannot load symbol cublasLtGetVersion"
    assert all(c.crash_class != "out-of-memory" for c in crashes)
    alone = own_crashes(diagnose_text(log.splitlines()[0] + "\n", catalog))
    assert alone and alone[0].crash_class != "out-of-memory"


def test_a_servers_error_response_is_read_with_its_type_and_message(catalog):
    python_repr = ("Rerank Response: {'object': 'error', 'message': \"'messages' is undefined\", "
                   "'type': 'BadRequestError', 'param': None, 'code': 400}\n")
    json_form = '{"object":"error","message":"The model `Qwen3-8B` does not exist.","type":"NotFoundError","param":null,"code":404}\n'
    bare_json = '{"message": "This model does not appear to be an embedding model.", "type": "BadRequestError", "code": 400}\n'
    for text, kind, message in ((python_repr, "BadRequestError", "'messages' is undefined"),
                                (bare_json, "BadRequestError", "This model does not appear to be an embedding model."),
                                (json_form, "NotFoundError", "The model `Qwen3-8B` does not exist.")):
        crash = own_crashes(diagnose_text(text, catalog))[0]
        assert (crash.exception_type, crash.message) == (kind, message)


def test_a_model_class_in_a_message_names_the_family(catalog):
    assert vocab.family_of_class("Qwen3MoeConfig") == "qwen3-moe"
    assert vocab.family_of_class("Qwen3OmniMoeProcessor") == "qwen3-omni"
    assert vocab.family_of_class("Qwen3NextGatedDeltaNet") == "qwen3-next"
    assert vocab.family_of_class("Qwen3ForCausalLM") is None  # an architecture, read as one elsewhere
    log = "AttributeError: 'Qwen3MoeConfig' object has no attribute 'rope_parameters'\n"
    assert diagnose_text(log, catalog).environment.get("family") == "qwen3-moe"


def test_speculative_decoding_is_read_from_the_decode_metrics(catalog):
    line = ("[2026-07-14 10:40:24] Decode batch, #running-req: 2, #full token: 21312, full token usage: 0.01, "
            "accept len: 3.36, accept rate: 0.79, cuda graph: True, gen throughput (token/s): 551.63, #queue-req: 0\n")
    assert "--speculative-algorithm" in diagnose_text(line + "Scheduler hit an exception: ...\n", catalog).environment.flags
    plain = line.replace("accept len: 3.36, accept rate: 0.79, ", "")
    assert "--speculative-algorithm" not in diagnose_text(plain, catalog).environment.flags


def test_an_ordinary_start_up_line_makes_no_candidate(catalog):
    # `INFO: Started server process` is what every healthy server prints: a rule may list it as support, but a cut
    # traceback beside it must not make that rule (a port already in use) a candidate
    log = ("(APIServer pid=1) INFO:     Started server process [7225]\n"
           "(APIServer pid=1) Traceback (most recent call last):\n"
           '(APIServer pid=1)   File "/usr/local/lib/python3.12/dist-packages/vllm/entrypoints/openai/api_server.py", '
           "line 1920, in run_server\n")
    assert "server-port-already-in-use" not in [f.rule_id for f in diagnose_text(log, catalog).findings]


OLD_VLLM_QWEN3_VL = """(APIServer pid=1) INFO 09-25 10:50:01 [api_server.py:1805] vLLM API server version {version}
(APIServer pid=1) INFO 09-25 10:50:01 [utils.py:328] non-default args: {{'model': 'Qwen/Qwen3-VL-30B-A3B-Instruct', 'tensor_parallel_size': 4}}
(EngineCore_DP0 pid=211) ERROR 09-25 10:53:36 [core.py:708] EngineCore failed to start.
(EngineCore_DP0 pid=211) ERROR 09-25 10:53:36 [core.py:708] Traceback (most recent call last):
(EngineCore_DP0 pid=211) ERROR 09-25 10:53:36 [core.py:708]   File "/usr/local/lib/python3.12/dist-packages/vllm/v1/engine/core.py", line 699, in run_engine_core
(EngineCore_DP0 pid=211) ERROR 09-25 10:53:36 [core.py:708]     engine_core = EngineCoreProc(*args, **kwargs)
(EngineCore_DP0 pid=211) ERROR 09-25 10:53:36 [core.py:708]   File "/usr/local/lib/python3.12/dist-packages/vllm/multimodal/profiling.py", line 268, in _get_mm_max_tokens
(EngineCore_DP0 pid=211) ERROR 09-25 10:53:36 [core.py:708]     max_tokens_per_item = self.processing_info.get_mm_max_tokens_per_item(
"""


def test_a_crash_on_a_release_that_registers_no_architecture_of_the_family(catalog):
    # the logged vLLM predates Qwen3-VL: whatever the cut traceback shows, the model cannot load natively there
    report = diagnose_text(OLD_VLLM_QWEN3_VL.format(version="0.10.1.1"), catalog)
    top = report.findings[0]
    assert top.rule_id == "vllm-too-old-for-architecture" and top.confidence == "medium"
    assert top.fixes[0].command.startswith('pip install -U "vllm>=')
    assert any("registers no qwen3-vl architecture" in ev.text for ev in top.evidence)
    on_new = diagnose_text(OLD_VLLM_QWEN3_VL.format(version="0.11.0"), catalog)
    assert "vllm-too-old-for-architecture" not in [f.rule_id for f in on_new.findings]
    launch_only = OLD_VLLM_QWEN3_VL.format(version="0.10.1.1").split("(EngineCore_DP0")[0]
    clean = diagnose_text(launch_only, catalog)
    assert not clean.findings and clean.verdict is Verdict.CLEAN  # a launch with no crash: a risk, never a finding


def test_a_cpp_signature_cut_at_the_line_start_is_not_an_exception(catalog):
    log = ("Traceback (most recent call last):\n"
           '  File "/usr/local/lib/python3.12/dist-packages/vllm/v1/engine/core.py", line 701, in run_engine_core\n'
           "r::Error(c10::SourceLocation, std::__cxx11::basic_string<char, std::char_traits<char>, "
           "std::allocator<char> >) + 0x80 (0x7fa1ff77eeb0 in /usr/local/lib/python3.12/dist-packages/torch/lib/libc10.so)\n")
    assert all(c.exception_type != "r::Error" for c in diagnose_text(log, catalog).crashes)


def test_a_crash_dated_by_its_functions_to_releases_without_the_family(catalog):
    log = records(
        "(EngineCore_DP0 pid=88) ERROR 09-28 19:19:56 [core.py:708] ",
        "Traceback (most recent call last):",
        '  File "/opt/conda/lib/python3.10/site-packages/vllm/multimodal/profiling.py", line 268, in _get_mm_max_tokens',
        "    max_tokens_per_item = self.processing_info.get_mm_max_tokens_per_item(",
        '  File "/opt/conda/lib/python3.10/site-packages/vllm/model_executor/models/transformers.py", line 227, in get_mm_max_tokens_per_item',
        '    return {"image": self.get_max_image_tokens()}',
        "AttributeError: 'Qwen3OmniMoeProcessor' object has no attribute 'image_token'",
    )
    # (another attribute the Transformers backend wants from the processor: no match alternative names it, the
    # traceback's functions date the build before Qwen3-Omni's first release)
    report = diagnose_text(log, catalog)
    assert report.environment.get("engine_version") is None and report.environment.get("family") == "qwen3-omni"
    top = report.findings[0]
    assert top.rule_id == "vllm-too-old-for-architecture"
    assert "the releases the traceback's functions exist in" in top.evidence[0].text
    # the token-count method the backend calls is a match of its own, whatever the processor's class
    report = diagnose_text(log.replace("'image_token'", "'_get_num_multimodal_tokens'"), catalog)
    assert report.findings[0].rule_id == "vllm-too-old-for-architecture"
    assert report.findings[0].evidence[0].text.startswith("message")


def test_a_crash_while_serving_proves_the_architecture_was_registered(catalog):
    # the engine core's busy loop ran the model's forward pass: whatever release its functions date it to, the class
    # was found (a plugin such as vllm-omni registers Qwen3-Omni on releases that do not)
    log = records(
        "[Stage-0] ERROR 11-03 09:13:44 [core.py:708] ",
        "Traceback (most recent call last):",
        '  File "/usr/local/lib/python3.12/dist-packages/vllm/v1/engine/core.py", line 726, in run_busy_loop',
        "    self._process_engine_step()",
        '  File "/usr/local/lib/python3.12/dist-packages/vllm/model_executor/layers/rotary_embedding/mrope.py", line 300, in get_input_positions_tensor',
        "    llm_positions = torch.cat(llm_pos_ids_list, dim=1)",
        "RuntimeError: Sizes of tensors must match except in dimension 1. Expected size 3 but got size 1 for tensor number 2 in the list.",
    )
    report = diagnose_text("[Stage-0] INFO 11-03 09:12:01 [omni_stage.py:312] Starting stage 0 with model "
                           "Qwen/Qwen3-Omni-30B-A3B-Instruct\n" + log, catalog)
    assert report.environment.get("family") == "qwen3-omni" and report.environment.get("engine_releases")
    assert "vllm-too-old-for-architecture" not in [f.rule_id for f in report.findings]


def test_a_crash_in_the_models_own_forward_proves_the_build_has_the_class(catalog):
    # a fork that backports a newer model keeps its base version in the banner (0.10.0 here, before any release
    # registered Qwen3-Next): the model's forward in the engine's own model file shows this build has the class
    log = ("(APIServer pid=7) INFO 08-28 15:34:23 [api_utils.py:347]  ▄▄ ▄█ █     █     █ ▀▄▀ █  version 0.10.0\n"
           "$ vllm serve /data/model-cache/Qwen3-Next-80B-A3B-Instruct-FP8/ --tensor-parallel-size 4\n" + records(
               "(Worker_TP0 pid=2061) ERROR 08-28 15:40:02 [multiproc_executor.py:703] ",
               "Traceback (most recent call last):",
               '  File "/data/vllm-backport/vllm/compilation/decorators.py", line 509, in __call__',
               "    output = self.compiled_callable(*args, **kwargs)",
               '  File "/data/vllm-backport/vllm/models/qwen3_next/model.py", line 494, in forward',
               "    hidden_states = layer(positions, hidden_states)",
               "RuntimeError: shape '[4, 16, 128]' is invalid for input of size 4096"))
    report = diagnose_text(log, catalog)
    assert report.environment.get("family") == "qwen3-next" and str(report.environment.get("engine_version")) == "0.10.0"
    assert "vllm-too-old-for-architecture" not in [f.rule_id for f in report.findings]


def test_a_traceback_dated_to_the_release_that_fixed_a_cause_may_be_one_of_its_pre_releases(catalog):
    # the thinker's audio path exists from 0.11.1 on; the shape bug lived in 0.11.1's own pre-releases, which carry the
    # same functions: dating the frames to ">= 0.11.1" must not rule the cause out
    log = records(
        "(Worker_TP0 pid=7286) ERROR 11-05 09:18:38 [multiproc_executor.py:703] ",
        "Traceback (most recent call last):",
        '  File "/usr/local/lib/python3.11/site-packages/vllm/model_executor/models/qwen3_omni_moe_thinker.py", line 1067, in _process_audio_input',
        "    audio_feature_lengths = flatten_bn(audio_feature_lengths, concat=True)",
        '  File "/usr/local/lib/python3.11/site-packages/vllm/model_executor/models/utils.py", line 631, in flatten_bn',
    )
    report = diagnose_text(log, catalog)
    assert str(report.environment.get("engine_releases")).startswith("0.11.1")
    assert report.findings[0].rule_id == "qwen3-omni-audio-feature-lengths-shape"


def test_the_lines_of_one_multi_line_error_record_are_one_crash(catalog):
    log = records(
        "(Worker_TP1 pid=265) ERROR 01-09 02:43:59 [multiproc_executor.py:824] ",
        "///------------------[ERROR][Triton][BEG]------------------",
        "[ConvertLinalgRToBinary] encounters error:",
        "bishengir-compile: for the --target option: Cannot find option named 'Ascend910B4-1'!",
    )
    crashes = own_crashes(diagnose_text(log, catalog))
    assert len(crashes) == 1 and "Cannot find option named 'Ascend910B4-1'" in crashes[0].message


def test_a_launchers_record_of_the_vllm_arguments_is_the_serve_command(catalog):
    log = ("2025-07-25 10:11:49.749324+00:00 - gpustack.worker.backends.vllm - INFO - Starting vLLM server: "
           "/var/lib/gpustack/bin/vllm_v0.10.0\n"
           "2025-07-25 10:11:49.749362+00:00 - gpustack.worker.backends.vllm - DEBUG - Run vLLM with arguments: serve "
           "/data/cache/Qwen/Qwen3-4B --max-model-len 8192 --enable-reasoning --reasoning-parser=deepseek_r1\n")
    env = diagnose_text(log, catalog).environment
    assert env.get("model") == "/data/cache/Qwen/Qwen3-4B" and "--enable-reasoning" in env.flags


def test_the_launchers_lower_case_record_is_read_without_a_model_name_to_select_it(catalog):
    # another GPUStack release logs "Run vllm with arguments", and this model path names no Qwen3 to select the line
    log = ("gpustack.worker.backends.vllm - INFO - Starting vllm server\n"
           "gpustack.worker.backends.vllm - DEBUG - Run vllm with arguments: serve /data/models/chat-a --max-model-len "
           "8192 --tensor-parallel-size 2 --host 0.0.0.0 --port 40032 --served-model-name chat-a\n"
           "gpustack.worker.backends.vllm - ERROR - Failed to run the vllm server: exit code 1\n")
    env = diagnose_text(log, catalog).environment
    assert env.get("model") == "/data/models/chat-a" and env.get("tp") == 2 and "--tensor-parallel-size" in env.flags


def test_an_argparse_refusal_names_the_program_not_a_serve_command(catalog):
    # `vllm serve: error: ...` is argparse naming its program: no serve command, no `--tool-call-parser:` flag, and
    # the choices it lists (`llama3_json`) are no model of another family; the program still says which engine
    log = ("usage: vllm serve [model_tag] [options]\n"
           "vllm serve: error: argument --tool-call-parser: invalid choice: 'qwen3_xml' (choose from 'deepseek_v3', "
           "'hermes', 'llama3_json', 'mistral', 'pythonic')\n")
    report = diagnose_text(log, catalog)
    env = report.environment
    assert env.get("serve_command") is None and not env.flags and env.get("family") is None
    assert env.get("engine") == "vllm"
    assert report.findings[0].rule_id == "tool-call-parser-name-not-registered"


def test_sglangs_launch_server_usage_is_sglangs(catalog):
    log = ("usage: launch_server.py [-h] --model-path MODEL_PATH [--tokenizer-path TOKENIZER_PATH]\n"
           "                        [--host HOST] [--port PORT]\n"
           "launch_server.py: error: argument --tool-call-parser: invalid choice: 'qwen3_coder' (choose from 'qwen25', "
           "'mistral', 'llama3', 'deepseekv3', 'pythonic')\n")
    assert diagnose_text(log, catalog).environment.get("engine") == "sglang"


def test_an_npu_core_fault_is_the_crash_and_the_queue_giving_up_is_its_symptom(catalog):
    log = ("        The error from device(chipId:4, dieId:0), serial number is 2, there is an exception of aivec error, "
           "core id is 44, error code = 0, dump info: pc start: 0x12c08124de50\n"
           "Traceback (most recent call last):\n"
           '  File "/vllm-workspace/vllm/vllm/distributed/device_communicators/shm_broadcast.py", line 797, in acquire_read\n'
           '    raise RuntimeError("cancelled")\n'
           "RuntimeError: cancelled [255,255][core.py:1343,run_engine_core]\n")
    crashes = diagnose_text(log, catalog).crashes
    assert crashes[0].message.startswith("The error from device(chipId:4")
    assert [c.role for c in crashes if c.exception_type == "RuntimeError"] == ["consequence"]


def test_an_exception_type_glued_to_a_lowercase_prefix_is_read_whole(catalog):
    crash = own_crashes(diagnose_text("nixl._bindings.nixlNotFoundError: NIXL_ERR_NOT_FOUND\n", catalog))[0]
    assert (crash.exception_type, crash.message) == ("nixlNotFoundError", "NIXL_ERR_NOT_FOUND")


def test_a_frame_without_its_line_number_is_a_frame(catalog):
    log = ("Traceback (most recent call last):\n"
           '  File "/sgl-workspace/sglang/python/sglang/srt/disaggregation/nixl/conn.py", in _init_hetero_tp_prep_handle\n'
           "nixl._bindings.nixlNotFoundError: NIXL_ERR_NOT_FOUND\n")
    crash = own_crashes(diagnose_text(log, catalog))[0]
    assert crash.functions == ("_init_hetero_tp_prep_handle",) and crash.frames[0].line is None
    assert crash.exception_type.endswith("nixlNotFoundError")


def test_compact_frames_a_reporter_summarised_are_frames(catalog):
    # `path.py:N` over its code line (a summarised traceback) and a type whose dotted path was elided
    summary = ("sglang/srt/layers/attention/qwen_sparse_attn_backend.py:1741\n"
               "    output = flash_attn_varlen_func(...)\n"
               "flash_attn/cute/flash_fwd.py:1068\n"
               "    self.epilogue(...)\n"
               "...\n"
               "cutlass._mlir...MLIRError: Operation creation failed:\n"
               "error: unknown: expects `coord` and shape of view are weakly congruent\n")
    crash = own_crashes(diagnose_text(summary, catalog))[0]
    assert [f.file for f in crash.frames] == ["sglang/srt/layers/attention/qwen_sparse_attn_backend.py",
                                              "flash_attn/cute/flash_fwd.py"]
    assert crash.exception_type == "cutlass._mlir.MLIRError" and crash.message.startswith("Operation creation failed")


def test_a_call_chain_under_the_exception_is_its_frames_not_its_message(catalog):
    chain = ("RuntimeError: Assertion error (csrc/apis/layout.hpp:60): Unknown SF transformation\n"
             "fp8.py:169  process_weights_after_loading\n"
             "  -> quantization/utils/fp8_utils.py:1138  deepgemm_post_process_fp8_weight_block\n"
             "    -> utils/deep_gemm.py:494  transform_sf_into_required_layout\n"
             "      -> _transform_sf_into_required_layout_impl\n")
    crash = own_crashes(diagnose_text(chain, catalog))[0]
    assert crash.message == "Assertion error (csrc/apis/layout.hpp:60): Unknown SF transformation"
    assert crash.functions == ("process_weights_after_loading", "deepgemm_post_process_fp8_weight_block",
                               "transform_sf_into_required_layout", "_transform_sf_into_required_layout_impl")


def test_a_warning_with_a_path_and_line_is_not_a_frame(catalog):
    line = ("/usr/lib/python3.12/multiprocessing/resource_tracker.py:254: UserWarning: resource_tracker: There appear "
            "to be 1 leaked shared_memory objects to clean up at shutdown\n")
    assert all(not c.frames for c in diagnose_text(line, catalog).crashes)


def test_a_flattened_traceback_of_the_api_server_is_split_at_its_process_tags(catalog):
    flat = ("(APIServer pid=237) Traceback (most recent call last): (APIServer pid=237)   File "
            '"/vllm-workspace/vllm/vllm/entrypoints/openai/api_server.py", line 656, in run_server (APIServer pid=237) '
            "    await run_server_worker(listen_address, sock, args, **uvicorn_kwargs) (APIServer pid=237) "
            "ValueError: the model's max seq len (40960) is larger than the maximum number of tokens\n")
    crash = own_crashes(diagnose_text(flat, catalog))[0]
    assert crash.functions == ("run_server",) and crash.exception_type == "ValueError"


def test_a_kernel_assert_whose_kernel_is_on_the_line_above_keeps_it(catalog):
    log = ("/pytorch/aten/src/ATen/native/cuda/Indexing.cu:1515: indexSelectSmallIndex:\n"
           "  block: [16,0,0], thread: [64,0,0] Assertion `srcIndex < srcSelectDimSize` failed.\n")
    crash = own_crashes(diagnose_text(log, catalog))[0]
    assert crash.crash_class == "device-assert" and crash.message.startswith("/pytorch/aten/src/ATen/native/cuda/Indexing.cu")
    assert "indexSelectSmallIndex" in crash.message and crash.message.endswith("failed.")


def test_a_command_pasted_under_a_crash_line_is_not_its_message(catalog):
    for command in ("--speculative-algorithm EAGLE --speculative-num-steps 3",
                    "python3 -m sglang.launch_server --model-path /root/model/Qwen3-4B --tp 2"):
        crash = own_crashes(diagnose_text("Killed\n" + command + "\n", catalog))[0]
        assert crash.message == "Killed", command


def test_a_model_that_reuses_another_models_layers_names_the_family_whatever_frame_comes_first(catalog):
    # an interleaved, cut paste that shows Qwen3.5's GDN layer (qwen3_next.py) before the Qwen3.5 model's own frame
    site = "/data/venv_qwen3.5/lib/python3.10/site-packages/vllm/model_executor/models"
    log = "".join(f'{PREFIX}  File "{site}/{f}", line {n}, in forward\n{PREFIX}    {code}\n' for f, n, code in (
        ("qwen3_next.py", 1048, "self.linear_attn("), ("qwen3_5.py", 733, "hidden_states = self.language_model.model("),
        ("qwen3_5.py", 201, "core_attn_out = self.norm(core_attn_out, z)")))
    assert diagnose_text(log, catalog).environment.get("family") == "qwen3.5"


def test_where_python_is_installed_is_no_log_evidence(catalog):
    # `venv_qwen3.5` in the install path is the user's directory name, not the model a rule's log pattern looks for
    log = (PREFIX + 'File "/data/venv_qwen3.5/lib/python3.10/site-packages/vllm/v1/worker/gpu_worker.py", line 290, '
           "in determine_available_memory\n" + PREFIX + "    self.model_runner.profile_run()\n")
    for f in diagnose_text(log, catalog).findings:
        assert not any("venv_qwen3.5" in ev.text for ev in f.evidence if ev.state == "hit"), f.rule_id


def test_a_vllm_omni_stage_tag_is_a_prefix(catalog):
    stage = "[Stage-0] ERROR 03-25 09:25:32 [omni_stage.py:1494] "
    log = records(stage, "Traceback (most recent call last):",
                  '  File "/w/vllm/v1/engine/async_llm.py", line 583, in generate', "    out = await q.get()",
                  "RuntimeError: the talker stage exited")
    crash = own_crashes(diagnose_text(log, catalog))[0]
    assert crash.functions == ("generate",) and crash.exception_type == "RuntimeError" and crash.process == "Stage-0"


def test_an_sglang_traceback_inside_a_ray_actors_tag_keeps_its_frames(catalog):
    log = ("(WorkerDict pid=1) [2025-03-22 01:05:30 TP0] Scheduler hit an exception: Traceback (most recent call last):\n"
           '(WorkerDict pid=1)   File "/u/sglang/srt/managers/scheduler.py", line 218, in __init__\n'
           "(WorkerDict pid=1)     self.tp_worker = TpWorkerClass(\n")
    crash = diagnose_text(log, catalog).crash  # cut above its exception: one traceback, not a header and stray frames
    assert crash.functions == ("__init__",) and crash.process == "WorkerDict pid=1"


def test_a_cann_error_record_is_a_crash_line_with_its_message(catalog):
    line = ("EH9999: [PID: 56178] 2025-07-30-06:16:22.730.302 wait for compute device to finish failed, runtime result "
            "= 507018.[FUNC:ReportCallError][FILE:log_inner.cpp][LINE:161]\n")
    crash = own_crashes(diagnose_text(line, catalog))[0]
    assert crash.exception_type is None
    assert crash.message == "EH9999: wait for compute device to finish failed, runtime result = 507018"


def test_an_error_record_before_a_traceback_cut_at_its_header_is_the_crash(catalog):
    # vLLM V0 logs the exception's str() as an ERROR record, then its traceback; the paste stops at the header
    log = ("INFO 06-13 06:59:07 [model_runner.py:943] Starting to load model /models/Qwen3-14B-AWQ...\n"
           "ERROR 06-13 06:59:07 [engine.py:448] 'model.layers.0.self_attn.q_proj.weight'\n"
           "ERROR 06-13 06:59:07 [engine.py:448] Traceback (most rece\n")
    crash = diagnose_text(log, catalog).crash
    assert crash.exception_type == "KeyError" and crash.message == "'model.layers.0.self_attn.q_proj.weight'"


def test_a_warning_is_never_a_crash_fragment(catalog):
    # a deprecation notice is what the server said and went on with, not a crash message pasted without its line
    from qwen3doctor.model import Verdict

    for line in ("WARNING 05-22 10:02:30 [config.py:70] Support for Transformers v4 is deprecated.",
                 "(APIServer pid=1) WARNING 05-22 10:02:31 [processing.py:12] `Qwen2VLImageProcessorFast` is dep",
                 "Support for Transformers v4 is deprecated."):
        report = diagnose_text(line + "\nINFO 05-22 10:02:32 [api_server.py:1] Starting vLLM API server 0\n", catalog)
        assert report.verdict is Verdict.CLEAN, line


def test_colour_codes_inside_a_json_log_record_are_removed(catalog):
    rec = '{{"log":"\\u001b[36m(WorkerDict pid=616, ip=10.0.0.4)\\u001b[0m {}\\n","stream":"stderr"}}\n'
    log = (rec.format("RuntimeError: CUDA error: an illegal memory access was encountered")
           + rec.format("Search for `cudaErrorIllegalAddress' in https://docs.nvidia.com/cuda/ for more information."))
    crash = own_crashes(diagnose_text(log, catalog))[0]
    assert crash.process == "WorkerDict pid=616" and crash.message == "CUDA error: an illegal memory access was encountered"


def test_a_frame_line_wrapped_after_its_line_number_keeps_its_function(catalog):
    log = ("Traceback (most recent call last):\n"
           '  File "/x/vllm/model_executor/layers/mamba/ops/causal_conv1d.py", line 1160,\n'
           "  in causal_conv1d_update\n"
           "    assert x.dim() == 2\n"
           "AssertionError\n")
    assert own_crashes(diagnose_text(log, catalog))[0].functions == ("causal_conv1d_update",)


def test_a_service_tag_with_a_colon_is_a_prefix(catalog):
    log = records("[service]: (APIServer pid=7) ", "Traceback (most recent call last):",
                  '  File "/usr/local/lib/python3.12/dist-packages/vllm/v1/engine/core_client.py", line 102, in make_async_mp_client',
                  "    return AsyncMPClient(*client_args)",
                  "RuntimeError: Engine core initialization failed. See root cause above. Failed core proc(s): {}")
    report = diagnose_text(log, catalog)
    assert report.crashes and report.crashes[0].functions == ("make_async_mp_client",)
    assert report.crashes[0].process == "APIServer pid=7"


def test_a_traceback_flattened_into_an_http_error_body_is_read(catalog):
    body = ("worker error: {'error': {'traceback': Traceback (most recent call last): File \"/src/handler.py\", line 206, "
            "in generate results = await f() File \"/src/engine.py\", line 88, in f return self.cfg['api'] "
            "KeyError: 'api'}, status: 200}}\n")
    crash = own_crashes(diagnose_text(body, catalog))[0]
    assert crash.functions == ("generate", "f") and (crash.exception_type, crash.message) == ("KeyError", "'api'")


def test_an_aborting_cpp_exception_keeps_the_thread_dump_that_follows(catalog):
    log = ("terminate called after throwing an instance of 'xgrammar::LoggingError'\n"
           "  what():  RecursionGuard: Maximum recursion depth exceeded.\n\n"
           "Fatal Python error: Aborted\n\n"
           "Thread 0x00007fe473fff640 (most recent call first):\n"
           '  File "/usr/local/lib/python3.10/dist-packages/xgrammar/compiler.py", line 135 in compile_json_schema\n'
           '  File "/sgl-workspace/sglang/python/sglang/srt/constrained/xgrammar_backend.py", line 182 in dispatch_json\n')
    crash = diagnose_text(log, catalog).crash
    assert crash.message.startswith("terminate called") and "RecursionGuard" in crash.message
    assert crash.functions == ("dispatch_json", "compile_json_schema")


def test_the_error_tritons_compilation_error_quotes_is_part_of_its_message(catalog):
    log = records("(Worker_TP1 pid=34514) ERROR 04-12 01:50:23 [multiproc_executor.py:971] ",
                  "Traceback (most recent call last):",
                  '  File "/x/triton/compiler/compiler.py", line 80, in make_ir',
                  "    return ast_to_ttir(self.fn, self, context=context, options=options)",
                  "triton.compiler.errors.CompilationError: at 1:0:",
                  "def _w8a8_triton_block_scaled_mm(",
                  "^",
                  "ValueError(\"type fp8e4nv not supported in this architecture. The supported fp8 dtypes are ('fp8e4b15', 'fp8e5')\")")
    crashes = own_crashes(diagnose_text(log, catalog))
    assert len(crashes) == 1 and crashes[0].exception_type == "triton.compiler.errors.CompilationError"
    assert "type fp8e4nv not supported in this architecture" in crashes[0].message


def test_a_cann_record_without_a_colon_is_an_npu_crash_with_its_next_step(catalog):
    line = ("(Worker_TP3 pid=26762) ERROR 06-23 17:20:43 [multiproc_executor.py:962] E39999[PID: 26762] "
            "2026-06-23-17:20:43.940.189 (E39999):  Kernel task happen error, retCode=0x2a, [aicpu exception]."
            "[FUNC:PreCheckTaskErr][FILE:davinci_kernel_task.cc][LINE:1516]\n")
    report = diagnose_text(line, catalog)
    assert report.crash.message == "E39999: Kernel task happen error, retCode=0x2a, [aicpu exception]"
    assert report.environment.get("platform") == "npu"
    assert "ASCEND_LAUNCH_BLOCKING=1" in report.next_steps[0] and any("npu-smi" in s for s in report.next_steps)


def test_second_reading_hunt_paste_forms(catalog):
    # colour codes whose ESC byte a web page dropped
    tag = "[1;36m(EngineCore_0 pid=399)[0;0m ERROR 09-11 06:29:59 [core.py:702] "
    log = records(tag, "Traceback (most recent call last):", '  File "/u/vllm/v1/engine/core.py", line 274, in step',
                  "    x()", "RuntimeError: boom") + "[1;36m(APIServer pid=1)[0;0m INFO:     Shutting down\n"
    crash = own_crashes(diagnose_text(log, catalog))[0]
    assert (crash.process, crash.message, crash.functions) == ("EngineCore_0 pid=399", "boom", ("step",))
    # journald in a Chinese locale
    zh = records("6月 10 16:45:05 host bash[107468]: ", "Traceback (most recent call last):",
                 '  File "/h/site-packages/vllm/worker/model_runner.py", line 738, in execute_model',
                 "    output = self.model.sample(", "RuntimeError: CUDA error: an illegal memory access was encountered")
    assert own_crashes(diagnose_text(zh, catalog))[0].functions == ("execute_model",)
    # and in a French or German one: the month is a word of that language
    for month in ("déc.", "Okt", "mai"):
        local = zh.replace("6月 10 16:45:05 host bash[107468]: ", f"{month} 19 02:07:16 s-a60003 bash[2211352]: ")
        assert own_crashes(diagnose_text(local, catalog))[0].functions == ("execute_model",)
    # a tmux copy padded to the window's width
    padded = "".join(f"{line:<100}\n" for line in (
        "Traceback (most recent call last):", '  File "/u/vllm/a.py", line 54, in g', "    h()", "RuntimeError: boom"))
    crash = own_crashes(diagnose_text(padded, catalog))[0]
    assert (crash.exception_type, crash.message, crash.functions) == ("RuntimeError", "boom", ("g",))
    # vLLM V0 logs the message, then its traceback
    v0 = records("ERROR 06-04 22:38:36 [engine.py:458] ", "CUDA error: no kernel image is available for execution on the device",
                 "Traceback (most recent call last):",
                 '  File "/u/vllm/engine/multiprocessing/engine.py", line 446, in run_mp_engine',
                 "    engine = MQLLMEngine.from_vllm_config(")
    [crash] = own_crashes(diagnose_text(v0, catalog))
    assert crash.message.startswith("CUDA error: no kernel image") and crash.functions == ("run_mp_engine",)


def test_second_reading_hunt_environment_facts(catalog):
    env = diagnose_text("sglang: 0.5.2rc1\nvllm: 0.6.7.dev2+g113274a0.rocm630\nRuntimeError: x\n", catalog).environment
    assert (env.get("engine"), env.get("engine_version")) == ("sglang", "0.5.2rc1")  # check_env lists vllm as a package
    frame = '  File "C:\\\\work\\\\site-packages\\\\vllm\\\\compilation\\\\decorators.py", line 234, in f\n    x()\nRuntimeError: boom\n'
    assert diagnose_text(frame.replace("\\\\", "\\"), catalog).environment.get("engine") == "vllm"
    loaded = "INFO 05-02 10:00:00 [gpu_model_runner.py:2602] Starting to load model /data/Qwen3VL_8B_Instruct...\nRuntimeError: x\n"
    assert diagnose_text(loaded, catalog).environment.get("family") == "qwen3-vl"
    kv = records("(E pid=7) ERROR 09-08 09:02:44 [core.py:718] ", "Traceback (most recent call last):",
                 '  File "/u/vllm_ascend/worker/model_runner_v1.py", line 3045, in initialize_kv_cache_tensors',
                 "    v = f()", "RuntimeError: boom")
    assert diagnose_text(kv, catalog).crash.during.startswith("sizing the KV cache")


def test_third_reading_hunt_frames(catalog):
    # a terminal wrapped a frame line inside its line number
    wrapped = ('  File "/u/vllm/a.py", line 54, in g\n    g()\n  File "/u/vllm/b.py", line 4\n9, in h\n    h()\n'
               "RuntimeError: boom\n")
    crash = own_crashes(diagnose_text(wrapped, catalog))[0]
    assert [(f.function, f.line) for f in crash.frames] == [("g", 54), ("h", 49)]
    # a SyntaxError's frame has no function: the code line under it stays a code line
    syntax = '  File "/u/vllm/b.py", line 49\n    x = = 1\nSyntaxError: invalid syntax\n'
    crash = own_crashes(diagnose_text(syntax, catalog))[0]
    assert crash.exception_type == "SyntaxError" and crash.frames[0].line == 49
    # a traceback that lost its line breaks and its header (a launcher's error string)
    flat = ('line 111, in _m    raise x()  File "/x/xoscar/backends/pool.py", line 689, in send    r = await c  '
            'File "/x/xinference/model/llm/vllm/core.py", line 503, in wait_for_load    raise err ValueError: bad thing\n')
    crash = own_crashes(diagnose_text(flat, catalog))[0]
    assert crash.functions == ("send", "wait_for_load") and crash.message == "bad thing"
    # vLLM's JSON logging pretty-printed: the traceback is a list of JSON strings
    pretty = "\n".join((
        "{", '  "levelname": "CRITICAL",', '  "message": "Uncaught exception",', '  "exc_info": [',
        '    "Traceback (most recent call last):",',
        '    "File \\"/v/site-packages/requests/models.py\\", line 1026, in raise_for_status\\n    raise HTTPError(e)",',
        '    "requests.exceptions.HTTPError: 401 Client Error: Unauthorized for url: https://huggingface.co/x/config.json"',
        "  ]", "}", ""))
    crash = own_crashes(diagnose_text(pretty, catalog))[0]
    assert crash.exception_type == "requests.exceptions.HTTPError" and crash.message.startswith("401 Client Error")
    assert crash.functions == ("raise_for_status",)


def test_third_reading_hunt_platforms(catalog):
    boom = "RuntimeError: boom\n"
    cases = {
        "INFO 07-18 10:13:27 [__init__.py:238] Platform plugin metax is activated\n": "maca",
        "INFO 07-18 10:13:28 [fa_utils.py:19] Using Maca version of flash attention\n": "maca",
        "(Worker_TP0 pid=109) INFO 02-05 08:06:44 [acl_graph.py:185] Replaying aclgraph\n": "npu",
        "[rank0]:[W1015 16:32:16.54 compiler_depend.ts:62] Warning: Cannot create tensor with NZ format while dim < 2\n": "npu",
        "INFO - With image: gpustack/runner:cann8.2-310p-vllm0.10.0, command: [], arguments: [vllm serve /x]\n": "npu",
        ('(APIServer pid=1)   File "/Users/w/.local/share/uv/python/cpython-3.12.10-macos-aarch64-none/lib/python3.12/'
         'asyncio/runners.py", line 195, in run\n'): "cpu",
    }
    for line, platform in cases.items():
        assert diagnose_text(line + boom, catalog).environment.get("platform") == platform, line
    # a client's traceback from a Mac pasted beside the server's says nothing about the server's platform
    client = ('  File "/Users/w/bench/client.py", line 19, in main\n    r = client.chat.completions.create()\n'
              "openai.APIConnectionError: Connection error.\n")
    assert diagnose_text(client, catalog).environment.get("platform") is None
    # the fused-MoE config a MoE model looks up is named after the running device
    moe = ("[2025-09-16 10:00:00 TP1] Config file not found at /s/configs/triton_3_4_0/"
           "E=512,N=128,device_name=NVIDIA_RTX_PRO_6000_Blackwell_Server_Edition.json, you can create them\n")
    env = diagnose_text(moe + boom, catalog).environment
    assert env.get("gpu") == "NVIDIA RTX PRO 6000 Blackwell Server Edition" and env.get("platform") == "cuda"
    amd = "INFO Using configuration from /x/E=128,N=384,device_name=AMD_Instinct_MI300X,dtype=fp8_w8a8.json for MoE layer.\n"
    assert diagnose_text(amd + boom, catalog).environment.get("platform") == "rocm"


def test_sixth_held_out_sample_crash_lines(catalog):
    # SGLang logs the exception's text, then its traceback; a paste cut above the exception keeps that text
    sglang = ("[2026-05-11 11:19:09] Error in request: _preprocess() missing 1 required positional argument: 'interpolation'\n"
              "Traceback (most recent call last):\n"
              '  File "/sgl-workspace/sglang/python/sglang/srt/managers/tokenizer_manager.py", line 555, in generate_request\n'
              "    tokenized_obj = await self._tokenize_one_request(obj)\n")
    crash = own_crashes(diagnose_text(sglang, catalog))[0]
    assert crash.message == "_preprocess() missing 1 required positional argument: 'interpolation'"
    assert crash.functions == ("generate_request",)
    # Ray names the exception it wraps in brackets; the wrapped one is the cause
    ray = ("ray.exceptions.RayTaskError(RuntimeError): ray::AgentLoopWorker.generate_sequences() (pid=1, ip=10.0.0.1)\n"
           '  File "/x/transformers/models/qwen3_vl/modeling_qwen3_vl.py", line 1126, in get_rope_index\n'
           "    grid_thw = next(grid_iters[modality_type])\n"
           "RuntimeError: coroutine raised StopIteration\n")
    report = diagnose_text(ray, catalog)
    wrapper = next(c for c in report.crashes if c.exception_type.endswith("RayTaskError"))
    assert wrapper.role == "wrapper" and wrapper.message.startswith("ray::AgentLoopWorker")
    assert report.crash.exception_type == "RuntimeError" and report.environment.get("family") == "qwen3-vl"
    # a subprocess's stderr under vLLM's wrapper: a Python warning, then glibc aborting on a corrupted heap
    sub = records("ERROR 12-27 03:02:29 [registry.py:735] ", "Traceback (most recent call last):",
                  '  File "/v/vllm/model_executor/models/registry.py", line 1160, in _run_in_subprocess',
                  "    raise RuntimeError(", "RuntimeError: Error raised in subprocess:",
                  "<frozen runpy>:128: RuntimeWarning: 'vllm.model_executor.models.registry' found in sys.modules",
                  "corrupted size vs. prev_size")
    report = diagnose_text(sub, catalog)
    assert report.crash.message == "corrupted size vs. prev_size" and report.crash.crash_class == "segfault"
    assert not any("RuntimeWarning" in c.message for c in report.crashes)


def test_third_reading_hunt_commands(catalog):
    def facts(text):
        env = diagnose_text(text + "RuntimeError: boom\n", catalog).environment
        return env.get("engine"), env.get("model"), env.get("tp"), env.flags
    # a `docker run` continued over lines, the image on a line of its own
    docker = ("docker run --gpus all \\\n    vllm/vllm-openai:latest \\\n    --model Qwen/Qwen3-8B \\\n"
              "    --tensor-parallel-size 4 --enable-expert-parallel\n")
    engine, model, tp, flags = facts(docker)
    assert (engine, model, tp) == ("vllm", "Qwen/Qwen3-8B", 4) and "--enable-expert-parallel" in flags
    # a command quoted for a shell, and one in inline code: the quote ends it
    assert facts("nohup bash -c 'vllm serve /m/Qwen3-8B -tp 8' > q.log 2>&1 &\n")[:3] == ("vllm", "/m/Qwen3-8B", 8)
    assert facts("Qwen3: `vllm serve ./model/Qwen3-4B --tensor-parallel-size 2` fails\n")[:3] == ("vllm", "./model/Qwen3-4B", 2)
    # a bulleted environment in prose
    env = diagnose_text("- GPUs: NVIDIA 4090\n- vLLM version: 0.10.1\nRuntimeError: boom\n", catalog).environment
    assert (env.get("gpu"), env.get("compute_capability"), env.get("engine_version")) == ("NVIDIA 4090", "8.9", "0.10.1")
    # sglang.check_env flattened into one line: sglang's own version, not a package it lists
    flat = ("Python: 3.11.13 (main, Jul 26 2025) [GCC 11.4.0] PyTorch: 2.6.0+cpu torch_npu: 2.6.0 sglang: 0.5.2 "
            "sgl_kernel: Module Not Found vllm: 0.8.5.post1+empty\nRuntimeError: boom\n")
    env = diagnose_text(flat, catalog).environment
    assert (env.get("engine"), env.get("engine_version"), env.get("platform")) == ("sglang", "0.5.2", "npu")
    # a CANN release in an SGLang image's tag is no SGLang release
    tag = "[Version Information] swr.example/dockerhub/lmsysorg/sglang:cann8.5.0-a3-fia-poc\nRuntimeError: boom\n"
    env = diagnose_text(tag, catalog).environment
    assert env.get("engine_version") is None and env.get("platform") == "npu"
    # a model path keeps its leading slash
    loaded = "INFO 05-02 10:00:00 [gpu_model_runner.py:2602] Starting to load model /data/Qwen3VL_8B_Instruct...\nRuntimeError: x\n"
    assert diagnose_text(loaded, catalog).environment.get("model_mention") == "/data/Qwen3VL_8B_Instruct"


def test_third_reading_hunt_more_platforms(catalog):
    boom = "RuntimeError: boom\n"
    cases = {
        "GPU models and configuration : GPU 0: NVIDIA Thor\n": ("cuda", "NVIDIA Thor"),
        "device info: TPU7x-8, 8 local devices\n": ("tpu", None),
        (":0:rocdevice.cpp:3586: Callback: Queue 0x7f78cb400000 aborting with error : HSA_STATUS_ERROR_EXCEPTION: "
         "An HSAIL operation resulted in a hardware exception. code: 0x1016\n"): ("rocm", None),
        "INFO 09-04 11:32:20 [__init__.py:235] Platform plugin musa is activated\n": ("musa", None),
        ('  File "/h/site-packages/vllm-0.11.1rc6.dev33+g3a5de7d2d.cpu-py3.12-linux-x86_64.egg/vllm/entrypoints/cli/'
         'main.py", line 73, in main\n    args.dispatch_function(args)\n'): ("cpu", None),
    }
    for text, (platform, gpu) in cases.items():
        env = diagnose_text(text + boom, catalog).environment
        assert (env.get("platform"), env.get("gpu")) == (platform, gpu), text
    env = diagnose_text("sglang: 0.5.2rc1\nvllm: 0.6.7.dev2+g113274a0.rocm630\n" + boom, catalog).environment
    assert env.get("platform") == "rocm"  # a ROCm build of a package the listing names
    ray = "(RolloutRayActor pid=3549160) [2025-08-05 12:15:15 TP0] Capture cuda graph end. Time elapsed: 3.53 s.\n"
    assert diagnose_text(ray + boom, catalog).environment.get("engine") == "sglang"  # SGLang's record in Ray's tag
    router = "2025-07-30 00:09:07  INFO sglang_router_rs::server: src/server.rs:245: Initializing router on 127.0.0.1:30000\n"
    assert diagnose_text(router + boom, catalog).environment.get("engine") == "sglang"


def test_third_reading_hunt_crash_lines(catalog):
    # an exception line indented like the code line above it (frames pasted at column 0)
    indented = ('File "/x/vllm/lora/ops/triton_ops/lora_shrink_op.py", line 149, in _lora_shrink\n'
                "    assert token_lora_mapping.size(0) == M\n    AssertionError\n")
    crash = own_crashes(diagnose_text(indented, catalog))[0]
    assert crash.exception_type == "AssertionError" and crash.functions == ("_lora_shrink",)
    # a warning that names an exception it caught is no crash, even in a short paste
    warning = ("WARNING 09-04 11:32:20 [_custom_ops.py:20] Failed to import from vllm._C with "
               "ModuleNotFoundError(\"No module named 'vllm._C'\")\n")
    assert diagnose_text(warning, catalog).verdict is Verdict.CLEAN
    # JAX's separator and note under an exception are not its message
    jax = records("(EngineCore pid=530) ", '  File "/w/vllm/model_executor/models/qwen3_vl.py", line 1609, in forward',
                  "    hidden_states", "TypeError: unsupported operand type(s) for +: 'Tensor' and 'Tensor'",
                  "--------------------", "For simplicity, JAX has removed its internal frames from the traceback.")
    assert own_crashes(diagnose_text(jax, catalog))[0].message == "unsupported operand type(s) for +: 'Tensor' and 'Tensor'"
    # two loggers' ERROR records on consecutive lines are two records
    two = ("2025-08-03 19:16:47,111 - modelscope - ERROR - The request model: Qwen3-8B does not exist!\n"
           "ERROR 08-03 19:16:47 [config.py:114] Error retrieving file list: boom, retrying 1 of 2\n")
    assert diagnose_text(two, catalog).crash.message == "The request model: Qwen3-8B does not exist!"
    # IPython's traceback
    ipy = ("APIConnectionError                        Traceback (most recent call last)\n"
           "File ~/env/lib/python3.12/site-packages/litellm/utils.py:1775, in client.<locals>.wrapper(*args, **kwargs)\n"
           "-> 1775 raise e\nAPIConnectionError: litellm.APIConnectionError: Connection error.\n")
    crash = own_crashes(diagnose_text(ipy, catalog))[0]
    assert crash.exception_type == "APIConnectionError" and crash.functions == ("wrapper",)
    # torch's verbose (V) log prefix with the compile frame's id
    verbose = records("(VllmWorker rank=0 pid=7) [rank0]:V0223 22:09:10.952000 7 torch/_dynamo/convert_frame.py:864] [0/0] ",
                      '  File "/u/vllm/v1/worker/gpu_worker.py", line 154, in determine_available_memory',
                      "    self.model_runner.profile_run()", "RuntimeError: boom")
    assert own_crashes(diagnose_text(verbose, catalog))[0].functions == ("determine_available_memory",)


def test_fourth_reading_hunt_environment(catalog):
    def env_of(*lines):
        return diagnose_text("\n".join(lines) + "\nRuntimeError: boom\n", catalog).environment
    # vLLM's logging format names the engine even without a process tag; SGLang's own env variables name SGLang
    assert env_of("WARNING 06-26 15:45:02 [utils.py:79] Qwen3ForSequenceClassification has no vLLM implementation, "
                  "falling back to Transformers implementation.").get("engine") == "vllm"
    assert env_of("ValueError: not compatible with radix cache when using --mamba-scheduler-strategy no_buffer; "
                  "set SGLANG_ENABLE_SPEC_V2=1.").get("engine") == "sglang"
    # Ascend-only words
    assert env_of("(EngineCore_DP0 pid=26418) INFO 10-27 11:59:28 [utils.py:390] No adjustment needed for ACL graph "
                  "batch sizes: Qwen3VLMoeForConditionalGeneration model (layers: 94) with 3 sizes").get("platform") == "npu"
    # a variable the paste sets before the command
    env = env_of('export MODEL="Qwen/Qwen3-VL-235B-A22B-Thinking-FP8"', "vllm serve $MODEL -tp 4 --enable-expert-parallel")
    assert (env.get("model"), env.get("quantization"), env.get("tp")) == ("Qwen/Qwen3-VL-235B-A22B-Thinking-FP8", "fp8-block", 4)
    # KServe's Hugging Face server with the vLLM backend
    env = env_of("python -m huggingfaceserver --model_id=Qwen/Qwen3-14B --backend vllm --tensor-parallel-size 4 --max-model-len=4096")
    assert (env.get("engine"), env.get("model"), env.get("tp"), env.get("max_model_len")) == ("vllm", "Qwen/Qwen3-14B", 4, 4096)
    # ms-swift's launch with the vLLM backend
    env = env_of("CUDA_VISIBLE_DEVICES=1 swift rollout --model Qwen/Qwen3-VL-8B-Instruct --vllm_tensor_parallel_size 2 "
                 "--max_model_len 8192")
    assert (env.get("engine"), env.get("model"), env.get("tp"), env.get("max_model_len")) == (
        "vllm", "Qwen/Qwen3-VL-8B-Instruct", 2, 8192)
    assert "--enable-lora" not in env.flags
    # its LoRA reaches vLLM as enable_lora: `--vllm_enable_lora true`, or an adapter left unmerged (vllm#31205)
    assert "--enable-lora" in env_of("swift rollout --model Qwen/Qwen3-VL-8B-Instruct --vllm_enable_lora true "
                                     "--vllm_max_model_len 8192").flags
    assert "--enable-lora" in env_of("swift infer --model Qwen/Qwen3-VL-4B-Instruct --adapters out/checkpoint-900 "
                                     "--merge_lora false --infer_backend vllm --vllm_max_model_len 8192").flags
    assert "--enable-lora" not in env_of("swift infer --model Qwen/Qwen3-VL-4B-Instruct --adapters out/checkpoint-900 "
                                         "--merge_lora true --infer_backend vllm --vllm_max_model_len 8192").flags
    # torch's own glog-format records name a Python file but are no vLLM record (sgl-kernel-npu#136's spawn warning)
    assert env_of("W1021 08:47:47.557000 4951 site-packages/torch/multiprocessing/spawn.py:169] Terminating process "
                  "5091 via signal SIGTERM").get("engine") is None
    # docker inspect's argument list, one JSON string a line
    env = env_of('        "Args": [', '            "serve",', '            "/Qwen3.5-35B-A3B",',
                 '            "--tensor-parallel-size",', '            "2"', "        ],")
    assert (env.get("engine"), env.get("model"), env.get("tp")) == ("vllm", "/Qwen3.5-35B-A3B", 2)
    # nvidia-smi's driver, `pip show`'s version
    assert env_of("| NVIDIA-SMI 580.142                Driver Version: 580.142        CUDA Version: 13.0     |").get("driver") == "580.142"
    env = env_of("# pip show vllm", "Name: vllm", "Version: 0.11.0rc2.dev137+g392edee34")
    assert (env.get("engine"), env.get("engine_version")) == ("vllm", "0.11.0rc2.dev137+g392edee34")


def test_fourth_reading_hunt_crashes(catalog):
    # a batch dump's header above a cut traceback: the traceback is the crash
    dump = ("ERROR 05-28 19:38:44 [dump_input.py:68] Dumping input data\nTraceback (most recent call last):\n"
            '  File "/x/vllm/v1/engine/core.py", line 207, in execute_model\n'
            "    return self.model_executor.execute_model(scheduler_output)\n")
    crash = diagnose_text(dump, catalog).crash
    assert crash.functions == ("execute_model",) and crash.during.startswith("serving")
    # a frame line with escaped quotes, out of a JSON string
    escaped = ('Traceback (most recent call last):\nFile \\"/sgl-workspace/sglang/python/sglang/srt/managers/scheduler.py\\", '
               "line 3805, in run_scheduler_process\n  scheduler.run_event_loop()\nAssertionError: stale eviction\n")
    assert diagnose_text(escaped, catalog).crash.functions == ("run_scheduler_process",)
    # the next c10d record is not the message's continuation
    nccl = ("[rank7]:[E226 16:00:37.342220332 ProcessGroupNCCL.cpp:685] [Rank 1] Watchdog caught collective operation "
            "timeout: WorkNCCL(SeqNum=262) ran for 1800082 milliseconds before timing out.\n"
            "[rank7]:[E226 16:00:37.342559100 ProcessGroupNCCL.cpp:732] Stack trace of the failed collective not found.\n")
    assert diagnose_text(nccl, catalog).crash.message.endswith("before timing out.")
    # torch_npu's detail lines inside the same record are the message
    npu = records("(Worker_TP0 pid=5536) ERROR 11-10 01:25:12 [multiproc_executor.py:671] ", "Traceback (most recent call last):",
                  '  File "/x/torch/_ops.py", line 1158, in __call__', "    return self._op(*args)",
                  "RuntimeError: NPU function error: AclrtSynchronizeDeviceWithTimeout, error code is 507013",
                  "[ERROR] 2025-11-10-01:25:12 (PID:5536, Device:0, RankID:-1) ERR00100 PTA call acl api failed",
                  "[Error]: System Direct Memory Access (DMA) hardware execution error.")
    assert diagnose_text(npu, catalog).crash.message.endswith("(DMA) hardware execution error.")
    # compile_or_warm_up_model runs after the KV cache is sized
    warm = records("(EngineCore_DP0 pid=24995) ERROR 10-02 11:36:03 [core.py:718] ", "Traceback (most recent call last):",
                   '  File "/x/vllm/v1/worker/gpu_worker.py", line 215, in compile_or_warm_up_model',
                   "    self.model_runner.capture_model()", "RuntimeError: boom")
    assert diagnose_text(warm, catalog).crash.during == "capturing CUDA graphs"
    # an attribute a None lacks is no version mismatch
    none = diagnose_text("AttributeError: 'NoneType' object has no attribute 'shape'\n", catalog).crash
    assert none.crash_class == "error"


def test_fourth_reading_hunt_banners_configs_and_dead_engines(catalog):
    banner = ("(APIServer pid=1) INFO 02-28 07:55:18 [utils.py:287]   █▄█▀ █     █     █     █  model   "
              "/var/lib/gpustack/cache/huggingface/Qwen/Qwen3-0.6B\nRuntimeError: boom\n")
    env = diagnose_text(banner, catalog).environment
    assert (env.get("engine"), env.get("model")) == ("vllm", "/var/lib/gpustack/cache/huggingface/Qwen/Qwen3-0.6B")
    stage = ("stage_args:\n- stage_id: 0\n  engine_args:\n    model_arch: Qwen3OmniMoeForConditionalGeneration\n"
             "    tensor_parallel_size: 2\nRuntimeError: boom\n")
    assert diagnose_text(stage, catalog).environment.get("tp") == 2
    # the API server's note that the engine process died is kept beside the client traceback under it
    dead = ("ERROR 01-29 08:37:48 [core_client.py:564] Engine core proc EngineCore_DP1 died unexpectedly, shutting down client.\n"
            "Traceback (most recent call last):\n"
            '  File "/usr/local/lib/python3.12/dist-packages/vllm/v1/engine/llm_engine.py", line 240, in add_request\n'
            "    self.engine_core.add_request(request)\n")
    report = diagnose_text(dead, catalog)
    assert any(c.role == "wrapper" and "EngineCore_DP1 died" in c.message for c in report.crashes)


def test_fifth_reading_hunt(catalog):
    def env_of(*lines):
        return diagnose_text("\n".join(lines) + "\nRuntimeError: boom\n", catalog).environment
    # launch commands written as lists (a Python script's, docker inspect's on one line)
    env = env_of('command = ["python3", "-m", "vllm.entrypoints.openai.api_server", "--model", "Qwen/Qwen3-8B", '
                 '"--enable-lora", "--max-lora-rank", "16"]')
    assert (env.get("engine"), env.get("model")) == ("vllm", "Qwen/Qwen3-8B") and "--enable-lora" in env.flags
    assert env_of('"Args": ["vllm","serve","/models/Qwen3-32B","--pipeline-parallel-size","2"],').get("pp") == 2
    # vLLM 0.8's argument namespace; SGLang's start-up lines; npu-smi rows without their header
    env = env_of("INFO 05-01 10:00:00 api_server.py:1000] args: Namespace(host=None, model='Qwen/Qwen3-30B-A3B', "
                 "tensor_parallel_size=4, enforce_eager=False)")
    assert (env.get("model"), env.get("tp")) == ("Qwen/Qwen3-30B-A3B", 4)
    assert env_of("[2025-09-17 16:23:13 TP0] KV Cache is allocated. #tokens: 1000000, K size: 10 GB").get("engine") == "sglang"
    env = env_of("| 2     910B2               | OK            | 93.1        41                0    / 0             |")
    assert (env.get("gpu"), env.get("platform")) == ("Ascend 910B2", "npu")
    # a community FP8-dynamic export is per-channel FP8; the shell's redirection is not the server's
    env = env_of("vllm serve RedHatAI/Qwen3-32B-FP8-dynamic --tensor-parallel-size 4 > out.txt 2>&1")
    assert env.get("quantization") == "fp8" and env.get("serve_command").endswith("--tensor-parallel-size 4")
    assert env_of("- vLLM: `0.26.1rc1.dev1045+g3406ec1da`").get("engine_version") == "0.26.1rc1.dev1045+g3406ec1da"
    # an exception printed with its constructor's arguments; the same crash on two ranks: the earlier rank
    kv = ("[2025-09-17 16:23:13 TP1] Decode transfer failed with exception KVTransferError(bootstrap_room=165): Failed "
          "due to an unknown reason from another rank\n"
          "[2025-09-17 16:23:13 TP2] Decode transfer failed with exception KVTransferError(bootstrap_room=165): Failed "
          "due to an unknown reason from another rank\n"
          '[2025-09-17 16:23:13] INFO:     10.10.11.1:41698 - "POST /v1/chat/completions HTTP/1.1" 200 OK\n')
    crash = diagnose_text(kv, catalog).crash
    assert (crash.message, crash.process) == ("Failed due to an unknown reason from another rank", "TP1")
    # a line set in bold: its prefixes are peeled as without the markers
    bold = ("**qwen3-32b-prefill-0-1  | E0430 16:02:26.014493   391 tcp_transport.cpp:542] TcpTransport::startTransfer "
            "encountered an ASIO exception. Exception: connect: Cannot assign requested address**\n")
    report = diagnose_text(bold, catalog)
    assert report.crash.message.endswith("requested address") and report.environment.get("model_mention") is None
    # a YAML listing pasted under an exception line is not its message
    yaml_below = "json.decoder.JSONDecodeError: Extra data: line 1 column 528 (char 527)\nargs:\n- --model\n- Qwen/Qwen3-32B\n"
    assert diagnose_text(yaml_below, catalog).crash.message == "Extra data: line 1 column 528 (char 527)"


def test_a_native_librarys_record_quoting_an_exception_is_not_a_python_exception(catalog):
    # Mooncake's C++ transport logs the ASIO exception's text after the word `Exception:` (sglang#15665, #23272); it
    # is the transfer's own error, earlier than (and the cause of) the KVTransferError SGLang raises from it
    native = ("E1219 10:38:57.898806 14747 tcp_transport.cpp:480] TcpTransport::startTransfer encountered an ASIO "
              "exception. Slice details - target_id: 3. Exception: connect: Cannot assign requested address\n"
              "[2025-12-19 10:38:57 TP0] Decode transfer failed with exception KVTransferError(bootstrap_room=7): "
              "Failed to send kv chunk\n")
    crashes = diagnose_text(native, catalog).crashes
    assert crashes[0].exception_type is None and crashes[0].message.startswith("TcpTransport::startTransfer")
    assert crashes[0].message.endswith("Cannot assign requested address")
    assert (crashes[1].exception_type, crashes[1].role) == ("KVTransferError", "cause")
    # a native library's warning that names an exception it went on from is no crash; a Python exception is one
    warning = "W1219 10:38:57.898806 14747 transfer_engine.cpp:90] retrying after Exception: timed out\n"
    assert diagnose_text(warning, catalog).verdict is Verdict.CLEAN
    assert diagnose_text("RuntimeError: boom\n" + warning, catalog).crash.exception_type == "RuntimeError"


def test_a_module_not_found_message_printed_alone_is_the_crash(catalog):
    # GPUStack's runner prints what the engine's import raised without its type (gpustack ROCm SGLang runner)
    paste = ("No module named 'IPython'\n"
             "2025-11-18 10:58:01.918184+08:00 - gpustack.worker.backends.sglang - INFO - With image: "
             "gpustack/runner:rocm7.0-sglang0.5.5, arguments: [python -m sglang.launch_server --model-path Qwen/Qwen3-0.6B]\n")
    crash = diagnose_text(paste, catalog).crash
    assert (crash.exception_type, crash.message) == ("ModuleNotFoundError", "No module named 'IPython'")
    # a warning about an optional import is what the server went on with
    warning = "WARNING 09-06 23:24:51 [_ipex_ops.py:16] No module named 'intel_extension_for_pytorch'\n"
    assert diagnose_text(warning, catalog).verdict is Verdict.CLEAN


def test_sixth_reading_hunt(catalog):
    def read(*lines):
        return diagnose_text("\n".join(lines) + "\n", catalog)
    # a server's error body whose type is the HTTP status phrase, in JSON and in Python-dict form (vllm-ascend#3955)
    for body in ('{"error":{"message":"EngineCore encountered an issue. See stack trace (above) for the root cause.",'
                 '"type":"Internal Server Error","param":null,"code":500}}',
                 "{'error': {'message': 'EngineCore encountered an issue. See stack trace (above) for the root cause.', "
                 "'type': 'Internal Server Error', 'param': None, 'code': 500}}"):
        crash = read(body).crash
        assert (crash.exception_type, crash.message) == (
            None, "EngineCore encountered an issue. See stack trace (above) for the root cause.")
    # a client's exception quoting the response, cut inside its message: the server's message is the crash's
    crash = read("openai.BadRequestError: Error code: 400 - {'object': 'error', 'message': '\"auto\" tool choice "
                 "requires --enable-auto-tool-choice and --tool-call-parser").crash
    assert crash.message == '"auto" tool choice requires --enable-auto-tool-choice and --tool-call-parser'
    # what a kernel requires is not what the GPU is (FreeToken#119 ran on an sm_120 card)
    env = read("RuntimeError: FlashInfer requires GPU's with sm75 or higher.").environment
    assert env.get("compute_capability") is None and env.get("platform") == "cuda"
    assert read("INFO Detected compute capability 8.9", "RuntimeError: x").environment.get("compute_capability") == "8.9"
    # the assembler refusing an architecture; the kernel's GPU fault records (dmesg)
    crash = read("ptxas fatal   : Value 'sm_110a' is not defined for option 'gpu-name'").crash
    assert crash.crash_class == "no-kernel-image"
    report = read("[  +0.000012] amdgpu 0000:03:00.0: amdgpu: [gfxhub] page fault (src_id:0 ring:40 vmid:8 pasid:32781)")
    assert report.crash.crash_class == "illegal-memory-access" and report.crash.message.startswith("amdgpu 0000:03:00.0")
    assert report.environment.get("platform") == "rocm"
    assert read("[123456.789012] NVRM: Xid (PCI:0000:3b:00): 31, pid=1234, name=python3, Ch 00000008. MMU Fault: "
                "ENGINE GRAPHICS").crash.crash_class == "illegal-memory-access"
    # a GGUF file is its own quantization
    env = read("vllm serve /models/Qwen3-8B-Q4_K_M.gguf --tokenizer Qwen/Qwen3-8B", "RuntimeError: x").environment
    assert env.get("quantization") == "gguf"
    # an error the engine retries is not how it died (Qwen3-ASR#15)
    retried = ("(APIServer pid=1) ERROR 01-30 10:43:06 [repo_utils.py:65] Error retrieving safetensors: Repo id must be "
               "in the form 'repo_name' or 'namespace/repo_name': '/m/Qwen3-8B'., retrying 1 of 2")
    assert read(retried).verdict is Verdict.CLEAN


def test_pastes_of_the_reports_the_rules_cite(catalog):
    def read(*lines):
        return diagnose_text("\n".join(lines) + "\n", catalog)
    # an old SGLang logged vLLM's loader lines in vLLM's format; its own warm-up failure and frames say SGLang
    report = read("INFO 11-26 14:23:34 weight_utils.py:243] Using model weights format ['*.safetensors']",
                  "[2024-11-26 14:25:58] Initialization failed. warmup error: Traceback (most recent call last):",
                  '  File "/home/u/sglang/srt/server.py", line 579, in _wait_and_warmup',
                  '    assert res.status_code == 200, f"{res=}, {res.text=}"',
                  "AssertionError: res=<Response [502]>, res.text=''")
    assert report.environment.get("engine") == "sglang"
    # a pip listing's line under an exception line is not its message
    crash = read("AttributeError: 'Qwen3OmniMoeCode2WavConfig' object has no attribute 'rope_parameters'",
                 "transformers                      5.0.0.dev0").crash
    assert crash.message == "'Qwen3OmniMoeCode2WavConfig' object has no attribute 'rope_parameters'"
    # a module-qualified exception class whose name does not end in Error, alone on its line
    crash = read("triton.runtime.errors.OutOfResources: out of resource: shared memory, Required: 81920, "
                 "Hardware limit: 65536.").crash
    assert (crash.exception_type, crash.message[:23]) == ("triton.runtime.errors.OutOfResources", "out of resource: shared")
    # Python's own message for a missing value is no rule's claim without the frames it was raised in
    findings = read("AttributeError: 'NoneType' object has no attribute 'shape'").findings
    assert all(f.confidence == "low" for f in findings)
    # the official image's name is in most SGLang launches: no candidate from it
    findings = read("CUDA error: an illegal memory access was encountered", "image: lmsysorg/sglang:dev").findings
    assert not any(f.rule_id == "ct-scheme-requires-vllm" for f in findings)


def test_a_pretty_printed_response_is_matched_as_one_object(catalog):
    # QuantumNous/new-api#1255: the response pasted with one member per line; the rule reads the two members together
    paste = ('{\n  "id": "chatcmpl-8fd7",\n  "object": "chat.completion",\n  "choices": [\n    {\n'
             '      "index": 0,\n      "message": {\n        "role": "assistant",\n'
             '        "reasoning_content": "I am Qwen3, a large language model.",\n        "content": null,\n'
             '        "tool_calls": []\n      },\n      "finish_reason": "stop"\n    }\n  ]\n}\n')
    findings = diagnose_text(paste, catalog).findings
    assert findings and findings[0].rule_id == "reasoning-parser-swallows-non-thinking-answer"
    assert any("reasoning_content" in e.text for e in findings[0].evidence)
    # the answer in content: nothing to say
    fine = paste.replace('"content": null', '"content": "Hello"')
    assert not any(f.rule_id == "reasoning-parser-swallows-non-thinking-answer" for f in diagnose_text(fine, catalog).findings)


def test_argparse_refusing_the_command_line_is_the_crash(catalog):
    # vllm#9312's paste: the server's argparse error, then the client's 400 from whatever answered instead
    paste = ("api_server.py: error: argument --tool-call-parser: invalid choice: 'llama3_json' (choose from 'mistral', "
             "'hermes')\n"
             "openai.BadRequestError: Error code: 400 - {'object': 'error', 'message': 'Extra inputs are not permitted', "
             "'type': 'BadRequestError', 'param': None, 'code': 400}\n")
    report = diagnose_text(paste, catalog)
    assert report.crash.message.startswith("api_server.py: error: argument --tool-call-parser: invalid choice")
    assert report.crash.crash_class == "version-mismatch"
    assert (report.findings[0].rule_id, report.findings[0].confidence) == ("tool-call-parser-name-not-registered", "medium")


def test_more_pastes_of_the_reports_the_rules_cite(catalog):
    def read(*lines):
        return diagnose_text("\n".join(lines) + "\n", catalog)
    # LLVM aborting in Triton's compiler is the crash, not the abseil signal line after it
    crash = read("(WorkerDict pid=1) LLVM ERROR: Failed to compute parent layout for slice layout.",
                 "(WorkerDict pid=1) *** SIGABRT received at time=1744180215 on cpu 46 ***").crash
    assert crash.message == "LLVM ERROR: Failed to compute parent layout for slice layout."
    # vLLM's custom all-reduce CUDACHECK line is a crash line of its own, not glued to the NCCL banner above it
    crash = read("NCCL version 2.20.5+cuda12.4",
                 "Failed: Cuda error /workspace/csrc/custom_all_reduce.cuh:307 'peer access is not supported between "
                 "these two devices'").crash
    assert crash.message.startswith("Failed: Cuda error")
    # NPU in a list of platforms a feature needs names no platform
    assert read("AssertionError: extra_buffer needs CUDA/MUSA/NPU (FLA).").environment.get("platform") is None
    # a rule keyed on a weight name rejects the doubled name of another bug (sglang#13214)
    top = read("KeyError: 'model.layers.14.mlp.shared_expert.gate_gate_up_proj.weight'").findings[0]
    assert top.rule_id == "stacked-mapping-substring-rename-keyerror"


def test_sglangs_benchmark_entry_points_are_its_launch(catalog):
    # sglang#1509: the crash came from `python3 -m sglang.bench_latency`, which takes the server's arguments
    env = diagnose_text("python3 -m sglang.bench_latency --model-path Qwen/Qwen3-8B --batch 1 --tp 2\n"
                        "RuntimeError: x\n", catalog).environment
    assert (env.get("engine"), env.get("model"), env.get("tp")) == ("sglang", "Qwen/Qwen3-8B", 2)


def test_cited_pastes_of_the_sixth_session(catalog):
    def read(*lines):
        return diagnose_text("\n".join(lines) + "\n", catalog)
    # one error of a pydantic ValidationError, pasted alone, is a ValueError with its own message
    crash = read("Value error, Eagle3 is only supported for Llama models. Got self.target_model_config.hf_text_config."
                 "model_type='qwen3' [type=value_error, input_value=ArgsKwargs((), {}), input_type=ArgsKwargs]").crash
    assert crash.exception_type == "ValueError" and crash.message.endswith("model_type='qwen3'")
    # a cut traceback in vLLM's own qwen3_next.py is no candidate for the Ascend port's rule of that model
    findings = read('ERROR 02-26 22:14:27 [multiproc_executor.py:863]   File "/usr/local/lib/python3.12/dist-packages/vllm/'
                    'model_executor/models/qwen3_next.py", line 1152, in forward',
                    "ERROR 02-26 22:14:27 [multiproc_executor.py:863]     hidden_states, residual = layer(").findings
    assert "ascend-qwen3-next-graph-mode-unsupported" not in [f.rule_id for f in findings]
    # the driver's refusal retyped without its version note (vllm#1772)
    top = read("RuntimeError: The NVIDIA driver on your system is too old").findings[0]
    assert top.rule_id == "cuda-driver-too-old-for-wheel"


def test_cited_pastes_g_and_h(catalog):
    def read(*lines):
        return diagnose_text("\n".join(lines) + "\n", catalog)
    # a wrapper line that carries a module-qualified exception whose name ends in neither Error nor Exception
    top = read("[2026-02-28 15:04:30 TP0] Scheduler hit an exception: torch._dynamo.exc.Unsupported: Logger not "
               "supported for non-export cases.").findings[0]
    assert top.rule_id == "piecewise-cuda-graph-failure"
    # loguru's record format: a warning is what the model code said and went on with
    assert read('(APIServer pid=1) INFO:     172.17.0.1:56956 - "POST /v1/completions HTTP/1.1" 200 OK',
                "(EngineCore_DP0 pid=245) 2026-03-12 00:20:19.577 | WARNING  | models.demos.qwen3_vl.tt.generator_vllm:"
                "prefill_forward:188 - Tracing in prefill mode is not supported for Qwen3VL").verdict is Verdict.CLEAN
    # huggingface_hub's error whose explanation paragraph the paste cut
    top = read("(APIServer pid=1) huggingface_hub.errors.RepositoryNotFoundError: 401 Client Error. (Request ID: "
               "Root=1-69aa)").findings[0]
    assert top.rule_id == "model-repo-not-accessible"
    # Turing's 64 KB shared-memory limit, the response printed as a Python dict
    assert read("GPU 0: Tesla T4", "triton.runtime.autotuner.OutOfResources: out of resource: shared memory, "
                "Required: 65538, Hardware limit: 65536.").findings[0].rule_id == "triton-prefill-attention-smem-old-gpu"
    assert read("{'content': None, 'reasoning_content': '<tool_call>\\n<function=get_current_weather>'}").findings[0].rule_id \
        == "qwen3-reasoning-parser-swallows-tool-call"


def test_cited_pastes_i_to_k(catalog):
    def read(*lines):
        return diagnose_text("\n".join(lines) + "\n", catalog)
    # a GPU fault record without the driver's prefix, cuda-gdb's warp report: crash lines of their own class
    crashes = read("CUDA error: unspecified launch failure",
                   "Xid 31: MMU Fault: ENGINE GRAPHICS HUBCLIENT_FE FAULT_PDE ACCESS_TYPE_VIRT_WRITE").crashes
    assert crashes[0].message == "CUDA error: unspecified launch failure" and crashes[1].crash_class == "illegal-memory-access"
    assert read("CUDA Exception: Warp Illegal Address").crash.crash_class == "illegal-memory-access"
    # SGLang's argparse names its launcher; prose after `vllm serve` names no model
    assert read("launch_server.py: error: argument --tool-call-parser: invalid choice: 'llama4' (choose from "
                "'qwen25', 'pythonic')").environment.get("engine") == "sglang"
    assert read("vllm serve fails with ValueError", "RuntimeError: x").environment.get("model") is None
    # the alternative the paste satisfies whole wins over the same message beside frames it does not show
    top = read("out of resource: shared memory, Required: 98304, Hardware limit: 49152").findings[0]
    assert top.rule_id == "triton-prefill-attention-smem-old-gpu"
    # a quantized MoE gate's tensor is not an embedding checkpoint's missing prefix (vllm#22017)
    assert read("KeyError: 'layers.14.mlp.gate.g_idx'").findings[0].rule_id == "qwen3-moe-gptq-gate-gidx-keyerror"


def test_seventeenth_session_pastes(catalog):
    def read(*lines):
        return diagnose_text("\n".join(lines) + "\n", catalog)
    # a newer npu-smi puts the chip's full name in its own cell
    env = read("| 0      | Ascend950PR      | OK            | 206.9       58                0     / 0             |",
               "RuntimeError: call aclnnGemmaRmsNorm failed, error code is 561103").environment
    assert env.get("platform") == "npu" and "950PR" in env.get("gpu")
    # a Windows path keeps its backslashes (the model's name decides the family and the quantization)
    env = read(r"python -m sglang.launch_server --model-path C:\models\Qwen3-8B-AWQ --tp 2").environment
    assert (env.get("model"), env.get("quantization"), env.get("tp")) == (r"C:\models\Qwen3-8B-AWQ", "awq", 2)
    # a date whose year's first digits the selection cut is still a prefix: the traceback under it is read
    report = read("026-07-29 11:18:04: Traceback (most recent call last):",
                  '2026-07-29 11:18:04:   File "/x/vllm/v1/worker/gpu_worker.py", line 310, in determine_available_memory',
                  "2026-07-29 11:18:04:     self.model_runner.profile_run()",
                  "2026-07-29 11:18:04: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB.")
    assert report.crash.functions == ("determine_available_memory",) and report.crash.crash_class == "out-of-memory"
    # a llama.cpp log is not a vLLM / SGLang crash: no engine's cause is offered for its generic OOM
    report = read("Run Qwen3_6-35B-A3B-IQ2_M with llama-server",
                  "ggml_backend_cuda_buffer_type_alloc_buffer: allocating 20480.00 MiB on device 0: cudaMalloc failed: out of memory",
                  "bug: GGML backend encountered an error 0.02.396.005 E CUDA error: out of memory")
    assert report.environment.get("runtime") == "llama.cpp" and not report.findings
    assert report.next_steps[0].startswith("This log is from llama.cpp")
    from qwen3doctor.render.plain import headline
    assert headline(report).startswith("A llama.cpp crash, not a vLLM or SGLang one: ")
    # vLLM's CLI module run directly is a launch, its first bare word the model
    env = read("python -m vllm.entrypoints.cli.main Qwen/Qwen3.5-35B-A3B-FP8 --tensor-parallel-size 2 --no-async-scheduling",
               "RuntimeError: x").environment
    assert (env.get("model"), env.get("tp"), env.get("engine")) == ("Qwen/Qwen3.5-35B-A3B-FP8", 2, "vllm")
    # a family named without a checkpoint, a DGX Spark, an Atlas card, a folder named after a release
    env = read("GDN gather out of bounds with prefix caching (DFlash, DGX Spark sm_121a, Qwen3.6 hybrid)",
               "torch.AcceleratorError: CUDA error: device-side assert triggered").environment
    assert (env.get("family"), env.get("compute_capability")) == ("qwen3.5", "12.1")
    assert read("Atlas 300I Duo: Qwen3-32B-w8a8sc will not start", "AssertionError").environment.get("platform") == "npu"
    env = read(r'  File "C:\Users\me\Downloads\vllm_0.25\venv312\Lib\site-packages\vllm\v1\executor\abstract.py", '
               "line 147, in determine_available_memory", "RuntimeError: x").environment
    assert env.get("engine_version") is None
    # a FlashInfer cause is no candidate on a platform that never loads FlashInfer
    report = read("INFO 05-01 10:00:00 [__init__.py:207] Platform plugin ascend is activated",
                  "RuntimeError: FlashInfer requires GPUs with sm75 or higher")
    assert not any(f.rule_id.startswith("flashinfer-") and f.confidence != "low" for f in report.findings)
    # a CUDA driver call's failure reported by a native library is a crash line
    crash = read("[torch_memory_saver.cpp] CUresult error  result=1 file=csrc/torch_memory_saver.cpp func=resume line=214",
                 "Child process unexpectedly failed with an exit code 256. pid=97721").crash
    assert crash is not None and crash.message.startswith("CUresult error")
    # a platform plugin's own variable is the plugin's to read: no "silently ignored" warning for it, as for a typo
    report = read("$ VLLM_ASCEND_ENABLE_NZ=0 VLLM_NOT_A_VAR=1 vllm serve Qwen/Qwen3-8B --tensor-parallel-size 2",
                  "INFO 10-02 10:00:00 [api_server.py:1896] vLLM API server version 0.11.0",
                  "RuntimeError: call aclnnGemmaRmsNorm failed, error code is 561103")
    assert any("VLLM_NOT_A_VAR" in w for w in report.warnings) and not any("VLLM_ASCEND" in w for w in report.warnings)
    # ... while a vLLM log that names its GGUF kernels stays a vLLM log
    assert read("INFO 05-01 10:00:00 [api_server.py:1000] vLLM API server version 0.11.0",
                "RuntimeError: ggml_mul_mat_a8 failed").environment.get("runtime") is None


def test_a_template_error_under_a_chat_request_is_not_a_missing_template(catalog):
    # transformers rendered the template (render_jinja_template ran) and vLLM logged the render failure: the template
    # exists, so the cut traceback points at what the template rejected, not at a tokenizer without one
    tag = "(APIServer pid=1) ERROR 03-09 06:45:31 [hf.py:484] "
    log = records(tag, "An error occurred in `transformers` while applying chat template",
                  "Traceback (most recent call last):",
                  '  File "/usr/local/lib/python3.12/dist-packages/vllm/renderers/hf.py", line 472, in safe_apply_chat_template',
                  "    return tokenizer.apply_chat_template(",
                  '  File "/usr/local/lib/python3.12/dist-packages/transformers/tokenization_utils_base.py", line 1667, in apply_chat_template',
                  "    rendered_chat, generation_indices = render_jinja_template(",
                  '  File "/usr/local/lib/python3.12/dist-packages/transformers/utils/chat_template_utils.py", line 539, in render_jinja_template',
                  "    rendered_chat = compiled_template.render(")
    ids = [f.rule_id for f in diagnose_text(log, catalog).findings]
    assert ids[0] == "qwen3-chat-template-rejects-message-shape" and "tokenizer-has-no-chat-template" not in ids[:1]


def test_ray_one_line_task_error_and_a_sentence_glued_to_the_type(catalog):
    # Ray's caller line that carries the task's message after its name and place: the wrapped type and that message
    crash = diagnose_text("(LLMRayActor pid=20431) ray.exceptions.RayTaskError(ValueError): ray::LLMRayActor.update_weight() "
                          "(pid=20431, ip=10.0.3.17) failed: There is no module or parameter named 'base_model' in "
                          "Qwen3MoeForCausalLM\n", catalog).crash
    assert (crash.exception_type, crash.message_cut) == ("ValueError", False)
    assert crash.message == "There is no module or parameter named 'base_model' in Qwen3MoeForCausalLM"
    # a Chinese sentence written right before the exception's name is not part of the name
    crash = diagnose_text("LoRA训练train_ppo_ray时出现报错ValueError: There is no module or parameter named 'base_model' in "
                          "LlamaForCausalLM\n", catalog).crash
    assert crash.exception_type == "ValueError" and crash.message.startswith("There is no module")


def test_native_stacks_panics_json_values_and_zoned_timestamps(catalog):
    def read(*lines):
        return diagnose_text("\n".join(lines) + "\n", catalog)
    # SGLang's segfault banner over a native stack without sources, most recent call first: one segfault, its frames
    crash = read("!!!!!!! Segfault encountered !!!!!!!", '  File "<unknown>", line 0, in gsignal',
                 '  File "<unknown>", line 0, in cuEventQuery', '  File "<unknown>", line 0, in ucp_worker_arm').crash
    assert crash.crash_class == "segfault" and crash.functions[-1] == "gsignal" and crash.functions[0] == "ucp_worker_arm"
    # the same stack under Python's fatal-error line, a blank line between
    crash = read("Fatal Python error: Segmentation fault", "", '  File "<unknown>", line 0, in pthread_kill',
                 '  File "<unknown>", line 0, in cuEventQuery').crash
    assert crash.message == "Fatal Python error: Segmentation fault" and "cuEventQuery" in crash.functions
    # a Rust panic is a crash, its message the line after it
    crash = read("thread 'actix-rt|system:0|arbiter:12' panicked at src/router.rs:463:40:",
                 "called `Result::unwrap()` on an `Err` value").crash
    assert crash is not None and "panicked at src/router.rs" in crash.message and "unwrap()" in crash.message
    # an error inside a JSON value ends at its closing quote
    crash = read('{"text":"","meta_info":{"finish_reason":{"type":"abort","message":"Decode transfer failed with exception '
                 'KVTransferError(bootstrap_room=2170): Failed to get kvcache from prefill instance, it might be dead",'
                 '"status_code":500,"err_type":null},"prompt_tokens":8}}').crash
    assert crash.message == "Failed to get kvcache from prefill instance, it might be dead"
    # an ISO timestamp with its zone written apart is a prefix: the next record is not glued to the message
    crash = read('2025-10-24T17:12:08.363548947 +08:00 CST (APIServer pid=1) ERROR 10-24 17:12:08 [async_llm.py:480] '
                 'vllm.v1.engine.exceptions.EngineDeadError: EngineCore encountered an issue. See stack trace (above) for the root cause.',
                 '2025-10-24T17:12:08.366951828 +08:00 CST (APIServer pid=1) INFO:     127.0.0.1:39180 - "POST /v1/chat/completions '
                 'HTTP/1.1" 500 Internal Server Error').crash
    assert crash.process == "APIServer pid=1" and crash.message.endswith("for the root cause.")


def test_a_cut_in_the_engines_plumbing_modules_names_no_rule_by_its_id(catalog):
    # a traceback cut inside SGLang's model_runner.py is on every forward's path: a rule whose id says model-runner
    # (the MLX backend's stub) is no candidate for it
    log = records("[2025-10-02 10:00:00 TP0] ", "Scheduler hit an exception: Traceback (most recent call last):",
                  '  File "/x/sglang/srt/managers/scheduler.py", line 2109, in run_batch',
                  "    batch_result = self.model_worker.forward_batch_generation(",
                  '  File "/x/sglang/srt/managers/tp_worker.py", line 250, in forward_batch_generation',
                  "    logits_output, can_run_cuda_graph = self.model_runner.forward(",
                  '  File "/x/sglang/srt/model_executor/model_runner.py", line 1990, in forward',
                  "    output = self._forward_raw(")
    ids = [f.rule_id for f in diagnose_text(log, catalog).findings]
    assert "mlx-model-runner-stub-missing-base-state" not in ids
    # nor a cut in vLLM's tracing decorator, which wraps every worker call (`tracing/otel.py sync_wrapper`)
    log = records("(Worker_TP1 pid=448) ERROR 07-03 08:03:51 [multiproc_executor.py:870] ",
                  "Traceback (most recent call last):",
                  '  File "/vllm-workspace/vllm/vllm/v1/executor/multiproc_executor.py", line 837, in worker_main',
                  "    output = func(*args, **kwargs)",
                  '  File "/vllm-workspace/vllm/vllm/tracing/otel.py", line 178, in sync_wrapper',
                  "    return func(*args, **kwargs)")
    assert "otel-tracing-packages-missing" not in [f.rule_id for f in diagnose_text(log, catalog).findings]
    # the whole message of another cause that opens with a rule's long literal is no fragment of that rule's message
    line = ("(APIServer pid=1) ERROR 01-30 10:43:06 [repo_utils.py:65] Error retrieving safetensors: Repo id must be in the "
            "form 'repo_name' or 'namespace/repo_name': '/m/Qwen3-8B'., retrying 1 of 2\n")
    assert not [f for f in diagnose_text(line, catalog).findings if f.rule_id.startswith("runai-streamer")]
    staged = line.replace("'/m/Qwen3-8B'.", "'/root/.cache/vllm/assets/model_streamer/3f2a9c1b'.")
    assert [f for f in diagnose_text(staged, catalog).findings if f.rule_id.startswith("runai-streamer")]


def test_tenth_round_reading(catalog):
    def read(*lines):
        return diagnose_text("\n".join(lines) + "\n", catalog)
    # torch.compile's own refusal is a compile failure, a CUDA runtime status a CUDA error: no "unsupported model"
    assert read("torch._dynamo.exc.Unsupported: torch.* op returned non-Tensor").crash.crash_class == "compile"
    assert read("torch.AcceleratorError: CUDA error: OS call failed or operation not supported on this OS").crash.crash_class \
        == "cuda-error"
    # an Intel GPU from sycl-ls's Level Zero devices or the build target; its listing tool in the next steps
    report = read("[level_zero:gpu][level_zero:0] Intel(R) oneAPI Unified Runtime over Level-Zero V2, Intel(R) Graphics [0xe223]",
                  "RuntimeError: boom")
    assert report.environment.get("platform") == "xpu" and any("xpu-smi" in s for s in report.next_steps)
    assert read("VLLM_TARGET_DEVICE=xpu", "RuntimeError: x").environment.get("platform") == "xpu"
    # a model served from a folder (`--model .`) takes its family from the name it is served under
    env = read("(APIServer pid=1) INFO 03-06 10:56:46 [utils.py:223] non-default args: {'model': '.', "
               "'served_model_name': ['Qwen3-VL-2B-Instruct'], 'enforce_eager': True}", "RuntimeError: x").environment
    assert (env.get("model"), env.get("family")) == (".", "qwen3-vl")
    # a crash while profiling memory ran the model's class: the release index's "cannot load" is no finding then
    tag = "(Worker_TP0 pid=5399) ERROR 04-25 19:54:03 [multiproc_executor.py:822] "
    log = ("vllm serve /llm/models/Qwen3.6-35B-A3B --tensor-parallel-size 4\nvLLM API server version 0.14.0\n"
           + records(tag, "Traceback (most recent call last):",
                     '  File "/usr/local/lib/python3.12/dist-packages/vllm/v1/worker/gpu_worker.py", line 300, in determine_available_memory',
                     "    self.model_runner.profile_run()",
                     '  File "/usr/local/lib/python3.12/dist-packages/vllm/v1/worker/gpu_model_runner.py", line 4000, in profile_run',
                     "    self._dummy_run(self.max_num_tokens)",
                     "RuntimeError: oneCCL: ze_handle_manager.cpp:226 get_ptr: EXCEPTION: unknown memory type"))
    assert "vllm-too-old-for-architecture" not in [f.rule_id for f in diagnose_text(log, catalog).findings]


def test_a_container_runtime_refusal_is_a_crash_of_its_own_class(catalog):
    report = diagnose_text("  Warning  Failed   7s    kubelet  Error: failed to create containerd task: failed to create shim "
                           "task: OCI runtime create failed: could not apply required modification to OCI specification: "
                           "error modifying OCI spec: failed to inject CDI devices: unresolvable CDI devices nvidia.com/gpu=all\n",
                           catalog)
    assert report.crash.crash_class == "container-runtime"
    assert report.findings[0].rule_id == "container-toolkit-cdi-spec-missing"
    # one no rule knows gets the class's own next step
    report = diagnose_text("docker: Error response from daemon: OCI runtime create failed: runc create failed: unable "
                           "to start container process: exec: \"vllm\": executable file not found in $PATH\n", catalog)
    assert report.crash.crash_class == "container-runtime" and not report.findings
    assert any("Container Toolkit" in s for s in report.next_steps)


def test_a_failed_child_command_is_generic(catalog):
    # a pip install a platform ran for the model is no FlashInfer JIT build: CalledProcessError's wording is shared
    report = diagnose_text("subprocess.CalledProcessError: Command '['/usr/local/bin/uv', 'pip', 'install', "
                           "'vllm==0.19.0+cu130']' returned non-zero exit status 2.\n", catalog)
    assert not any(f.confidence != "low" for f in report.findings)


def test_pip_show_of_any_listed_package_and_a_bare_timeout(catalog):
    env = diagnose_text("Name: flashinfer-python\nVersion: 0.6.14\nRuntimeError: x\n", catalog).environment
    assert env.get("flashinfer") == "0.6.14"
    # an asyncio timeout carries no message: the line is whole, not cut
    crash = diagnose_text("asyncio.exceptions.TimeoutError\n", catalog).crash
    assert crash.exception_type.endswith("TimeoutError") and not crash.message_cut


def test_a_note_under_the_error_is_not_its_message(catalog):
    # the reporter's own line under the exception (the model's name, `Model: ...`) is no part of the message
    for note in ("qwen3-next-80b", "Model: Qwen/Qwen3.5-397B-A17B", "GPU: H100 (sm_90), Triton 3.6"):
        crash = diagnose_text("AssertionError: Incorrect LRU list, self.mamba=True\n" + note + "\n", catalog).crash
        assert crash.message == "Incorrect LRU list, self.mamba=True", note


def test_an_ascend_quantized_export_is_not_read_from_its_name(catalog):
    env = diagnose_text("vllm serve /data/Qwen3-32B-W4A4 --tensor-parallel-size 8 --quantization ascend\nRuntimeError: x\n",
                        catalog).environment
    assert env.get("quantization") is None
    # a container method leaves the format to the name
    env = diagnose_text("vllm serve RedHatAI/Qwen3-32B-NVFP4 --quantization compressed-tensors\nRuntimeError: x\n",
                        catalog).environment
    assert env.get("quantization") == "nvfp4"


def test_a_hip_source_assert_is_rocm(catalog):
    env = diagnose_text("/app/vllm/build/temp.linux-x86_64-cpython-312/csrc/rocm/skinny_gemms.hip:497: void wvSplitK_hf_sml_"
                        "(const int): Device-side assertion `false' failed.\n", catalog).environment
    assert env.get("platform") == "rocm"


def test_a_gpu_named_by_hand(catalog):
    for line, gpu, count in (("GPU: H100 (sm_90), Triton 3.6", "NVIDIA H100", None), ("- GPU: 8x H20", "NVIDIA H20", 8),
                             ("GPU: L40S", "NVIDIA L40S", None)):
        env = diagnose_text(line + "\nRuntimeError: x\n", catalog).environment
        assert (env.get("gpu"), env.get("gpu_count")) == (gpu, count), line


def test_an_inline_exception_keeps_its_own_closing_quote(catalog):
    crash = diagnose_text("[2026-03-19 13:32:54 DP3 PP0 TP3 EP3] Scheduler hit an exception: AttributeError: "
                          "'KimiK25ForConditionalGeneration' object has no attribute 'routed_experts_weights_of_layer'\n",
                          catalog).crash
    assert crash.message.endswith("'routed_experts_weights_of_layer'")
    # a wrapper's quotes around the exception still go
    crash = diagnose_text("(EngineCore pid=1) ERROR 01-01 00:00:00 [core.py:1] RuntimeError: Worker failed with error "
                          "'KeyError: layers.0.mlp', please check the stack trace above for the root cause\n", catalog).crash
    assert (crash.exception_type, crash.message) == ("KeyError", "layers.0.mlp")


def test_a_shell_prompt_after_a_pasted_error_is_a_line_of_its_own(catalog):
    crash = diagnose_text("Error response from daemon: CDI device injection failed: unresolvable CDI devices "
                          "nvidia.com/gpu=GPU-3f9a2c1b\n$ docker info | grep -A4 'CDI spec directories'\n"
                          " CDI spec directories:\n", catalog).crash
    assert crash.crash_class == "container-runtime" and "docker info" not in crash.message


def test_a_message_that_quotes_json_keeps_it(catalog):
    crash = diagnose_text('ValueError: Failed to parse tool call arguments {"name": "get_weather", "city": "Paris"}\n',
                          catalog).crash
    assert crash.message == 'Failed to parse tool call arguments {"name": "get_weather", "city": "Paris"}'


def test_vllms_scheduler_stats_dump_is_no_crash_message(catalog):
    """vLLM's dump_input prints the scheduler's stats at ERROR level as the engine dies: a sign of the crash, not its
    message (tenstorrent/tt-metal#48536 showed only this line above a wrapper's traceback)."""
    dump = ("(EngineCore_DP0 pid=1470819) ERROR 06-30 20:55:05 [dump_input.py:81] Dumping scheduler stats: "
            "SchedulerStats(num_running_reqs=1, num_waiting_reqs=0, step_counter=0, current_wave=0, "
            "kv_cache_usage=0.09090909090909094, encoder_cache_usage=0.0)\n")
    report = diagnose_text(dump, catalog)
    assert report.crash is not None and "SchedulerStats" not in report.crash.message


def test_a_build_flag_saying_rocm_is_disabled_is_no_rocm(catalog):
    """vLLM's collect_env prints `ROCm: Disabled` among the build flags of every non-ROCm build (vllm#38994, an XPU
    build): no sign of ROCm; the XPU target still reads as xpu."""
    def env_of(*lines):
        return diagnose_text("\n".join(lines) + "\nRuntimeError: boom\n", catalog).environment
    env = env_of("vLLM Build Flags:", "  CUDA Archs: Not Set; ROCm: Disabled")
    assert env.get("platform") is None
    assert env_of("  CUDA Archs: Not Set; ROCm: Disabled", "VLLM_TARGET_DEVICE=xpu").get("platform") == "xpu"
    assert env_of("  CUDA Archs: Not Set; ROCm: Enabled").get("platform") == "rocm"


def test_sglangs_amd_only_attention_backends_are_a_sign_of_rocm(catalog):
    """`--attention-backend aiter` (or `wave`) exists only on AMD GPUs: a launch naming it runs on ROCm, so a
    Blackwell-only cause is no candidate of its crash (the aiter-wave-backend rule's near-miss log)."""
    def env_of(*lines):
        return diagnose_text("\n".join(lines) + "\nRuntimeError: boom\n", catalog).environment
    assert env_of("python3 -m sglang.launch_server --model-path Qwen/Qwen3-Next-80B-A3B-Instruct --tp 4 "
                  "--attention-backend aiter").get("platform") == "rocm"
    assert env_of("python3 -m sglang.launch_server --model-path Qwen/Qwen3.5-35B-A3B --attention-backend=wave").get(
        "platform") == "rocm"
    assert env_of("python3 -m sglang.launch_server --model-path Qwen/Qwen3-8B --attention-backend triton").get("platform") != "rocm"


WARNED = """\
INFO 08-01 10:00:01 [__init__.py:239] Automatically detected platform cuda.
WARNING 08-01 10:00:05 [utils.py:190] Failed to load the chat template; falling back to the default
WARNING 08-01 10:00:05 [utils.py:190] Traceback (most recent call last):
WARNING 08-01 10:00:05 [utils.py:190]   File "/usr/lib/python3/dist-packages/vllm/transformers_utils/tokenizer.py", line 88, in get_chat_template
WARNING 08-01 10:00:05 [utils.py:190]     return load_template(path)
WARNING 08-01 10:00:05 [utils.py:190] FileNotFoundError: [Errno 2] No such file or directory: '/models/q/chat_template.jinja'
INFO 08-01 10:00:30 [gpu_model_runner.py:1700] Model loading took 15.2 GiB and 20.1 seconds
"""


def test_a_traceback_logged_as_a_warning_is_no_crash(catalog):
    report = diagnose_text(WARNED, catalog)
    assert report.crashes == () and report.verdict.value == "no-crash"


def test_a_warning_traceback_does_not_hide_the_error_that_follows(catalog):
    died = WARNED + """\
ERROR 08-01 10:00:40 [core.py:515] EngineCore failed to start.
ERROR 08-01 10:00:40 [core.py:515] Traceback (most recent call last):
ERROR 08-01 10:00:40 [core.py:515]   File "/usr/lib/python3/dist-packages/vllm/v1/engine/core.py", line 506, in run_engine_core
ERROR 08-01 10:00:40 [core.py:515]     engine_core = EngineCoreProc(*args, **kwargs)
ERROR 08-01 10:00:40 [core.py:515] ValueError: No available memory for the cache blocks.
"""
    crashes = diagnose_text(died, catalog).crashes
    assert (crashes[0].exception_type, crashes[0].role) == ("ValueError", "primary")
    assert [c.role for c in crashes if c.exception_type == "FileNotFoundError"] == ["consequence"]


CUT_AT_ENGINE_START = (
    "$ vllm serve /data/models/Qwen3-VL-4B-Instruct --data-parallel-size 2\n" + records(
        "(EngineCore_1 pid=4242) ERROR 10-17 14:16:06 [core.py:700] ",
        "EngineCore failed to start.",
        "Traceback (most recent call last):",
        '  File "/opt/venv/lib/python3.11/site-packages/vllm/v1/engine/core.py", line 687, in run_engine_core',
        "    engine_core = DPEngineCoreProc(*args, **kwargs)",
        '  File "/opt/venv/lib/python3.11/site-packages/vllm/v1/engine/core.py", line 954, in __init__',
        "    super().__init__(vllm_config, local_client, handshake_address,",
        '  File "/opt/venv/lib/python3.11/site-packages/vllm/v1/engine/core.py", line 492, in __init__',
        "{last}",
    ))


def test_a_cut_start_up_dated_to_releases_only_some_of_which_register_the_family(catalog):
    # the frames' lines date it to vLLM 0.10.1-0.11.0 and only 0.11.0 registers Qwen3-VL: a low candidate that the
    # version would confirm, never a claim
    report = diagnose_text(CUT_AT_ENGINE_START.format(last="    super().__init__(vllm_config, executor_class, log_stats,"),
                           catalog)
    assert report.environment.get("engine_releases") == "0.10.1-0.11.0"
    top = report.findings[0]
    assert top.rule_id == "vllm-too-old-for-architecture" and top.confidence == "low"
    assert "0.11.0 is the first that does" in top.evidence[0].text
    # the same start-up with its exception line says what broke: the release window is no candidate then
    said = diagnose_text(CUT_AT_ENGINE_START.format(last="ValueError: Invalid repository ID or local directory "
                                                         "specified: '/data/models/Qwen3-VL-4B-Instruct'"), catalog)
    assert "vllm-too-old-for-architecture" not in [f.rule_id for f in said.findings]


def test_a_c10_error_record_is_the_message_of_the_native_stack_under_it(catalog):
    # torch_npu prints the C++ error as a c10 record, then "Exception raised from ..." and the stack: one crash
    log = ("[rank0]:[E1201 06:31:02.635822600 compiler_depend.ts:444] SelfAttentionOperation setup failed!\n"
           "Exception raised from OperationSetup at build/third_party/op-plugin/op_plugin/CMakeFiles/op_plugin_atb.dir/"
           "compiler_depend.ts:203 (most recent call first):\n"
           "frame #0: c10::Error::Error(c10::SourceLocation, std::string) + 0xd4 (0xffff80553ea4 in /usr/local/lib/"
           "python3.11/site-packages/torch/lib/libc10.so)\n"
           "frame #1: atb::OperationSetup(atb::VariantPack, atb::Operation*, atb::Context*) + 0x1a0 (0xffff6d2a1c40 in "
           "/usr/local/lib/python3.11/site-packages/torch_npu/lib/libop_plugin_atb.so)\n")
    crash = diagnose_text(log, catalog).crash
    assert crash.message == "SelfAttentionOperation setup failed!" and crash.line_no == 1 and crash.native


def test_an_ascend_plog_is_peeled_and_names_the_platform(catalog):
    log = ("[INFO] HCCL(31207,python3):2026-05-14-10:20:44.117.051 [op_base.cc:1201] [31207][InitGroupStage]"
           "HcclCommInitRootInfoConfig:ranks[16], rank[2], rootinfo: host ip[10.20.3.11] port[60000]\n"
           "[ERROR] HCCL(31207,python3):2026-05-14-10:22:41.630.711 [op_base.cc:1248] [31207][InitGroupStage]"
           "HcclCommInitRootInfoConfig failed, rank[2] ret[1]\n")
    report = diagnose_text(log, catalog)
    assert report.environment.get("platform") == "npu"
    assert report.crash.message.startswith("[InitGroupStage]HcclCommInitRootInfoConfig failed")


def test_a_frame_of_the_ascend_plugin_is_vllms(catalog):
    log = ('  File "/vllm-workspace/vllm-ascend/vllm_ascend/quantization/methods/w8a8_dynamic.py", line 190, in __init__\n'
           "    self.moe_all_to_all_group_name = backend.get_hccl_comm_name(local_rank)\n"
           "RuntimeError: create_config:../torch_npu/csrc/distributed/HCCLUtils.cpp:140 HCCL function error: "
           "hcclCommInitRootInfoConfig(numRanks, &rootInfo, rank, config, &(comm->hcclComm_)), error code is 1\n")
    assert diagnose_text(log, catalog).environment.get("engine") == "vllm"


def test_amdgpus_fault_status_lines_under_dmesg_t_are_the_crash(catalog):
    # `dmesg -T` dates each line in brackets; a paste that kept only the lines under the fault's header still shows
    # the GPU's protection fault
    log = ("[Tue Sep  9 02:30:28 2025] amdgpu 0000:c6:00.0: amdgpu:   in page starting at address 0x00007ee24e9fe000 "
           "from IH client 0x1b (UTCL2)\n"
           "[Tue Sep  9 02:30:28 2025] amdgpu 0000:c6:00.0: amdgpu: VM_L2_PROTECTION_FAULT_STATUS:0x00341051\n"
           "[Tue Sep  9 02:30:28 2025] amdgpu 0000:c6:00.0: amdgpu:          Faulty UTCL2 client ID: TCP (0x8)\n")
    report = diagnose_text(log, catalog)
    assert report.verdict is not Verdict.CLEAN and report.crash.crash_class == "illegal-memory-access"
    assert report.environment.get("platform") == "rocm"


def test_hips_advice_lines_are_not_the_message_and_name_no_device_assert(catalog):
    log = ("torch.AcceleratorError: HIP error: no kernel image is available for execution on the device\n"
           "Search for `hipErrorNoBinaryForGpu' in https://docs.nvidia.com/cuda/cuda-runtime-api/group__HIPRT__TYPES.html "
           "for more information.\n"
           "HIP kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be "
           "incorrect.\n"
           "For debugging consider passing AMD_SERIALIZE_KERNEL=3\n"
           "Compile with `TORCH_USE_HIP_DSA` to enable device-side assertions.\n")
    crash = diagnose_text(log, catalog).crash
    assert crash.crash_class == "no-kernel-image"
    assert crash.message == "HIP error: no kernel image is available for execution on the device"


def test_hipblaslt_names_rocm(catalog):
    log = ("UserWarning: bgemm_internal_cublaslt error: HIPBLAS_STATUS_INTERNAL_ERROR when calling hipblasLtMatmul with "
           "transpose_mat1 n transpose_mat2 n m 1024 n 1024 k 1024\n"
           "RuntimeError: CUDA error: file not found\n")
    assert diagnose_text(log, catalog).environment.get("platform") == "rocm"


def test_an_elision_line_inside_a_continued_command_does_not_end_it(catalog):
    log = ("sglang serve \\\n"
           "  --model-path Qwen/Qwen3-32B \\\n"
           "  --tp 2 \\\n"
           "  .....\n"
           "  --page-size 64 \\\n"
           "  --enable-hierarchical-cache \\\n"
           "  --hicache-ratio 1\n"
           "[2026-05-01 10:00:00 TP0] Scheduler hit an exception: Traceback (most recent call last):\n")
    flags = diagnose_text(log, catalog).environment.flags
    assert {"--tp-size", "--page-size", "--enable-hierarchical-cache", "--hicache-ratio"} <= flags


def test_an_exception_line_without_its_type_is_typed_by_pythons_wording(catalog):
    log = ("(APIServer pid=21) ERROR 12-16 21:13:16 [serving_chat.py:1145] Traceback (most recent call last):\n"
           "(APIServer pid=21) ERROR 12-16 21:13:16 [serving_chat.py:1145]   File \"/usr/local/lib/python3.12/dist-packages/"
           "vllm/entrypoints/openai/serving_chat.py\", line 575, in chat_completion_stream_generator\n"
           "(APIServer pid=21) ERROR 12-16 21:13:16 [serving_chat.py:1145]     if res.prompt_token_ids is not None:\n"
           "'OmniRequestOutput' object has no attribute 'prompt_token_ids'\n")
    crash = diagnose_text(log, catalog).crash
    assert crash.exception_type == "AttributeError" and crash.message.startswith("'OmniRequestOutput' object")


def test_a_traceback_inside_an_exception_group_is_read_behind_its_bar(catalog):
    log = ("[2026-02-21 17:48:27] ERROR:    Exception in ASGI application\n"
           "  + Exception Group Traceback (most recent call last):\n"
           "  |     raise BaseExceptionGroup(\n"
           "  | ExceptionGroup: unhandled errors in a TaskGroup (1 sub-exception)\n"
           "  +-+---------------- 1 ----------------\n"
           "    | Traceback (most recent call last):\n"
           '    |   File "/usr/local/lib/python3.12/dist-packages/sglang/srt/entrypoints/openai/serving_chat.py", '
           "line 620, in _generate_chat_stream\n"
           '    |     prompt_tokens[index] = content["meta_info"]["prompt_tokens"]\n'
           "    | KeyError: 'prompt_tokens'\n"
           "    +------------------------------------\n")
    crash = diagnose_text(log, catalog).crash
    assert crash.exception_type == "KeyError" and crash.functions[-1:] == ("_generate_chat_stream",)


def test_a_custom_ops_xpu_branch_names_an_intel_gpu(catalog):
    log = ("Traceback (most recent call last):\n"
           '  File "/usr/local/lib/python3.12/dist-packages/vllm/model_executor/custom_op.py", line 46, in forward\n'
           "    return self._forward_method(*args, **kwargs)\n"
           '  File "/usr/local/lib/python3.12/dist-packages/vllm/model_executor/layers/layernorm.py", line 190, in forward_xpu\n'
           "    ops.rms_norm(out, x, self.weight.data, self.variance_epsilon)\n"
           "RuntimeError: UR error\n")
    assert diagnose_text(log, catalog).environment.get("platform") == "xpu"


def test_a_library_tail_leaves_the_engine_frames_above_it_unknown(catalog):
    # a paste of a traceback's last lines inside Triton: the MoE-LoRA frames that called `dot` are above the paste
    tail = ('  File "/opt/venv/lib/python3.12/site-packages/triton/language/semantic.py", line 1503, in dot\n'
            "    assert lhs.dtype == rhs.dtype, f\"Unsupported lhs dtype {lhs.dtype}\"\n"
            "AssertionError: Unsupported lhs dtype fp8e4nv\n")
    report = diagnose_text(tail, catalog)
    assert report.findings and report.findings[0].rule_id == "fp8-moe-lora-triton-fp8-activation-dot"
    # the whole traceback, headed, through another engine path: the frames it shows rule the MoE-LoRA kernel out
    whole = ("Traceback (most recent call last):\n"
             '  File "/opt/venv/lib/python3.12/site-packages/vllm/v1/sample/ops/topk_topp_triton.py", line 212, in apply_top_k_top_p\n'
             "    _topk_kernel[grid](logits, k)\n" + tail)
    assert "fp8-moe-lora-triton-fp8-activation-dot" not in [f.rule_id for f in diagnose_text(whole, catalog).findings]
    # a short tail whose frame is the engine's own says where it raised: the same message from the engine's code
    own = tail.replace("triton/language/semantic.py", "vllm/lora/ops/triton_ops/utils.py")
    assert "fp8-moe-lora-triton-fp8-activation-dot" not in [f.rule_id for f in diagnose_text(own, catalog).findings]


def test_vllms_cpu_worker_in_a_frame_names_the_cpu_platform(catalog):
    log = records("(EngineCore_DP0 pid=3107) ERROR 03-04 11:34:06 [core.py:1100] ",
                  "Traceback (most recent call last):",
                  '  File "/opt/conda/envs/v/lib/python3.12/site-packages/vllm/v1/worker/cpu_model_runner.py", line 63, in load_model',
                  "    self.model = get_model(vllm_config=self.vllm_config)",
                  '  File "/opt/conda/envs/v/lib/python3.12/site-packages/vllm/model_executor/model_loader/__init__.py", line 136, in get_model')
    report = diagnose_text(log, catalog)
    assert report.environment.get("platform") == "cpu"
    # a CUDA-only kernel library's cause is no candidate for a CPU worker's crash
    assert not [f.rule_id for f in report.findings if "marlin" in f.rule_id.split("-")]


def test_words_that_begin_in_a_label_like_prefix_and_go_on_are_the_errors_own(catalog):
    # a one-line paste of Triton's refusal: `out of resource: shared memory` is the error's own wording, not a step's
    # label, so the kernels whose frames or log lines would say which one ran stay candidates
    line = ("triton.runtime.errors.OutOfResources: out of resource: shared memory, Required: 180224, Hardware limit: "
            "101376. Reducing block sizes or `num_stages` may help.\n")
    ids = [f.rule_id for f in diagnose_text(line, catalog).findings]
    assert "triton-fused-moe-config-exceeds-smem" in ids
    assert all(f.confidence == "low" for f in diagnose_text(line, catalog).findings)


def test_a_short_paste_ending_at_an_error_record_the_reader_peeled_lists_that_cause_as_a_risk(catalog):
    # async_cosyvoice#99: two lines of a T4 running vLLM 0.7.3's V1 engine; the level is in the peeled prefix only
    def risks(*lines):
        report = diagnose_text("".join(line + "\n" for line in lines), catalog)
        assert report.verdict is Verdict.CLEAN and report.findings == ()
        return [r.rule_id for r in report.risks]

    fa = ("Cannot use FA version 2 is not supported due to FA3 is only supported on devices with compute capability >= 8 "
          "excluding 8.6 and 8.9")
    v1 = "INFO 05-19 06:43:27 cuda.py:157] Using Flash Attention backend on V1 engine."
    assert risks(v1, "ERROR 05-19 06:43:27 utils.py:608] " + fa)[:1] == ["v1-engine-forced-on-pre-ampere-gpu"]
    # the same sentence as an INFO record is what the server reported and went on with: no risk
    assert "v1-engine-forced-on-pre-ampere-gpu" not in risks(v1, "INFO 05-19 06:43:27 utils.py:608] " + fa)
    # nor do the warnings healthy starts print that name a cause's setting (a Kubernetes Service's env)
    assert risks("INFO 03-02 11:00:01 [__init__.py:239] Automatically detected platform cuda.",
                 "WARNING 03-02 11:00:02 [envs.py:1120] Unknown vLLM environment variable detected: VLLM_SERVICE_HOST",
                 "INFO 03-02 11:00:40 [api_server.py:1800] Starting vLLM API server 0 on http://0.0.0.0:8000") == []


def test_a_message_cut_mid_word_that_one_alternative_fits_is_not_ruled_out_by_another(catalog):
    # club-3090#750: the paste stops inside `ValueError: invalid literal for int() with base 10: 'GPU-...'`; the rule's
    # later alternative ("Non-integer device ID ...") cannot fit it, the first still can
    paste = ('  File ".../vllm/platforms/cuda.py", line 615, in get_device_capability\n'
             "    physical_device_id = cls.device_id_to_physical_device_id(device_id)\n"
             '  File ".../vllm/platforms/interface.py", line 237, in device_id_to_physical_device_id\n'
             "    return int(physical_device_id)\n"
             "ValueError: invalid l\n")
    top = diagnose_text(paste, catalog).findings[0]
    assert (top.rule_id, top.confidence) == ("cuda-visible-devices-uuid-not-integer", "low")
    # a whole message of another kind rules it out
    assert not diagnose_text(paste.replace("invalid l\n", "too many values to unpack (expected 2)\n"), catalog).findings


def test_a_frame_line_of_scaffolding_places_a_cut_traceback_on_no_cause_path(catalog):
    # a traceback cut in a model's forward: a rule pattern that meets its `in forward` frame line says nothing
    from pathlib import Path
    log = Path(__file__).parent.parent / "examples/logs/vllm/qwen3-vl-deepstack-buffer-token-count-mismatch--neg-cut-in-forward.log"
    ids = [f.rule_id for f in diagnose_text(log.read_text(), catalog).findings]
    assert "vision-tower-cu-seqlens-on-cpu" not in ids


def test_the_model_name_in_the_launch_line_makes_no_candidate_of_a_cut_traceback(catalog):
    # a rule may list a model among its supporting lines (a Gemma 3 sliding-window server for the KV block pool); on a
    # traceback cut in the engine's scaffolding that name is all the paste shows of it: a gate, not evidence
    def cut(model):
        p = "(EngineCore_DP0 pid=88) ERROR 06-01 10:00:00 [core.py:700] "
        return (f"$ vllm serve {model} --tensor-parallel-size 2\n" + p + "EngineCore failed to start.\n" + p +
                "Traceback (most recent call last):\n" + p +
                '  File "/usr/lib/python3/dist-packages/vllm/v1/engine/core.py", line 691, in run_engine_core\n' + p +
                "    engine_core = EngineCoreProc(*args, **kwargs)\n")
    plain = {f.rule_id for f in diagnose_text(cut("org/plain-model"), catalog).findings}
    for model in ("google/gemma-3-27b-it", "openai/gpt-oss-120b"):
        assert {f.rule_id for f in diagnose_text(cut(model), catalog).findings} <= plain, model


def test_a_supporting_frame_the_match_clause_already_counted_is_not_called_missing_from_itself(catalog):
    # standalone-compile-fake-tensor-mode-patch-py310 names `get_original` in both match and supports
    from pathlib import Path
    from qwen3doctor.judge.match import evaluate
    from qwen3doctor.judge.pipeline import scan_source
    from qwen3doctor.read.reader import LineSource
    import io
    log = Path(__file__).parent.parent / "examples/logs/vllm/standalone-compile-fake-tensor-mode-patch-py310--qwen3.5-27b-tp2-aot.log"
    scan = scan_source(LineSource("x", io.BytesIO(log.read_bytes())), catalog)
    rm = evaluate(catalog.rules["standalone-compile-fake-tensor-mode-patch-py310"], scan)
    texts = [ev.text for ev in rm.supports if ev.clause == "supports.frames"]
    assert texts and "already counts" in texts[0] and "ends in `get_original`, not in" not in texts[0]


def test_a_python_exception_a_native_host_logs_with_its_pybind_stack_is_the_crash(catalog):
    """Triton's python backend logs, at info level and in a quoted glog message, that the embedded vLLM model failed
    with a Python exception, its stack after pybind11's `At:` on escaped line breaks; the error record above it says
    only `NoneType: None`. The exception is the crash, its stack its frames (deepest first in the listing), and the
    glog quotes are not part of either message."""
    stub = ('I0311 04:18:07.551930 212 pb_stub.cc:388] "Failed to initialize Python stub: TypeError: '
            "build_async_engine_client_from_engine_args() got an unexpected keyword argument 'stat_loggers'"
            "\\n\\nAt:\\n  /usr/lib/python3.12/contextlib.py(105): __init__\\n"
            "  /opt/tritonserver/backends/vllm/model.py(301): _run_llm_engine\\n"
            '  /usr/lib/python3.12/asyncio/events.py(103): _run\\n"\n')
    log = ('I0311 04:18:01.204417 212 model_lifecycle.cc:473] "loading: vllm_model:1"\n'
           "INFO 03-11 04:18:05 [__init__.py:216] Automatically detected platform cuda.\n"
           'E0311 04:18:07.551702 212 model.py:248] "[vllm] Failed to start engine: NoneType: None\\n"\n' + stub)
    crash = own_crashes(diagnose_text(log, catalog))[0]
    assert crash.exception_type == "TypeError"
    assert crash.message == "build_async_engine_client_from_engine_args() got an unexpected keyword argument 'stat_loggers'"
    assert crash.functions == ("_run", "_run_llm_engine", "__init__")
    # the error record alone: its message without the quotes and the escaped line break
    alone = diagnose_text(log.split("\n")[2] + "\n", catalog).crashes[0]
    assert alone.message == "[vllm] Failed to start engine: NoneType: None"


def test_a_traceback_cut_inside_its_next_frame_line_names_that_frame_by_the_call_above_it(catalog):
    """A paste that stops in the middle of a frame line (`File "/root/anaconda3/`), right under the code line that
    made the call (`self._init_pooler(vllm_config, prefix=prefix)`): that call names the frame the cut hid, and a rule
    whose frames name it exactly stands on it, as a low-confidence candidate (the exception is not shown). A code
    line that calls nothing by name leaves it unknown."""
    prefix = "(EngineCore_DP0 pid=4410) "
    site = "/opt/venv/lib/python3.12/site-packages/vllm"
    head = cut_traceback(prefix, site, [
        ("v1/engine/core.py", 699, "run_engine_core", "engine_core = EngineCoreProc(*args, **kwargs)"),
        ("model_executor/model_loader/utils.py", 64, "initialize_model", "return model_class(vllm_config=vllm_config, prefix=prefix)"),
        ("model_executor/models/adapters.py", 189, "__init__", "self._init_pooler(vllm_config, prefix=prefix)")])
    log = head + prefix + '  File "/opt/venv/\n'
    report = diagnose_text(log, catalog)
    crash = report.crashes[0]
    assert not crash.complete and crash.next_call == "_init_pooler"
    top = report.findings[0]
    assert top.rule_id == "pooling-converter-on-generate-runner-no-pooler-config" and top.confidence == "low"
    assert any("cut on its call to `_init_pooler`" in ev.text for ev in top.evidence)
    plain = diagnose_text(log.replace("self._init_pooler(vllm_config, prefix=prefix)", "pooler = None"), catalog)
    assert plain.crashes[0].next_call == ""
    assert not any(f.rule_id == "pooling-converter-on-generate-runner-no-pooler-config" for f in plain.findings)


def test_a_ray_tasks_record_after_the_exception_is_not_its_message(catalog):
    """Ray tags a task's output with its pid alone (`(pid=718453) INFO ...`): the record after an exception line is a
    line of its own, not more of the message."""
    site = "/home/u/envs/eval/lib/python3.11/site-packages"
    log = ("RayTaskError(TypeError): ray::run_inference_one_model() (pid=718457, ip=10.1.8.13)\n"
           + cut_traceback("", site, [("lighteval/models/vllm/vllm_model.py", 336, "run_inference_one_model",
                                       "llm = LLM(**model_args)"),
                                      ("vllm/entrypoints/llm.py", 210, "__init__", "engine_args = EngineArgs(")])
           + "TypeError: EngineArgs.__init__() got an unexpected keyword argument 'worker_use_ray'\n"
           "(pid=718453) INFO 02-03 16:25:25 __init__.py:183] Automatically detected platform cuda.\n")
    crash = own_crashes(diagnose_text(log, catalog))[0]
    assert crash.message == "EngineArgs.__init__() got an unexpected keyword argument 'worker_use_ray'"


def test_a_syslog_copy_with_its_escaped_colour_codes_keeps_the_worker_traceback(catalog):
    """rsyslog writes the ESC byte of a colour code as `#033`: the worker tag behind it is a prefix, so the frames and
    the exception line under it are read."""
    tag = "Apr  3 17:38:57 gpu-node-2 vllm[140320]: #033[1;36m(VllmWorker rank=2 pid=140320)#033[0;0m "
    site = "/opt/pytorch/lib/python3.12/site-packages"
    log = (cut_traceback(tag, site, [("torch/utils/cpp_extension.py", 2250, "_import_module_from_library",
                                      "torch.ops.load_library(filepath)"),
                                     ("torch/_ops.py", 1357, "load_library", "ctypes.CDLL(path)")])
           + tag + "OSError: /root/.cache/torch_extensions/py312_cu124/xgrammar/xgrammar.so: cannot open shared object"
           " file: No such file or directory\n" + tag + "\n")
    crash = own_crashes(diagnose_text(log, catalog))[0]
    assert crash.functions == ("_import_module_from_library", "load_library")
    assert crash.exception_type == "OSError" and crash.message.endswith("No such file or directory")
