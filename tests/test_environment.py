from qwen3doctor.judge.pipeline import Overrides, merge_environment
from qwen3doctor.read.environment import EnvCollector, split_top_level
from qwen3doctor.model import Fact
from qwen3doctor.read.prefixes import peel


def env_of(text, overrides=None):
    c = EnvCollector()
    for line in text.splitlines():
        proc, body = peel(line)
        c.feed(body, proc)
    return merge_environment(c, overrides or Overrides())


def test_collect_env_new_layout():
    env = env_of("""\
==============================
        System Info
==============================
OS                           : Ubuntu 22.04.5 LTS (x86_64)
PyTorch version              : 2.10.0+cu129
CUDA used to build PyTorch   : 12.9
CUDA runtime version         : 12.9.86
GPU models and configuration : GPU 0: NVIDIA H200 NVL
Nvidia driver version        : 565.57.01
vLLM Version                 : 0.16.0rc2.dev294+g6a7b85d94 (git sha: 6a7b85d94)
[pip3] transformers==4.57.6
[pip3] flashinfer-python==0.6.3
""")
    assert env.get("engine") == "vllm"
    assert env.get("engine_version") == "0.16.0rc2.dev294+g6a7b85d94"
    assert env.get("torch") == "2.10.0+cu129" and env.get("cuda") == "12.9.86"
    assert env.get("gpu") == "NVIDIA H200 NVL" and env.get("compute_capability") == "9.0"
    assert env.get("transformers") == "4.57.6" and env.get("flashinfer") == "0.6.3"


def test_collect_env_old_layout_and_gpu_list():
    env = env_of("""\
PyTorch version: 2.5.1+cu124
Is debug build: False
CUDA used to build PyTorch: 12.4
GPU models and configuration:
GPU 0: NVIDIA A100-SXM4-80GB
GPU 1: NVIDIA A100-SXM4-80GB
Nvidia driver version: 550.54.15
vLLM Version: 0.7.3
[pip3] torch==2.5.1
[pip3] transformers==4.51.3
""")
    assert env.get("engine_version") == "0.7.3" and env.get("torch") == "2.5.1+cu124"
    assert env.get("gpu", ).startswith("NVIDIA A100") and env.get("compute_capability") == "8.0"
    assert env.get("gpu_count") == 2


def test_sglang_check_env():
    env = env_of("""\
Python: 3.12.3 (main, Jan 22 2026, 20:57:42) [GCC 13.3.0]
CUDA available: True
GPU 0,1,2,3,4,5,6,7: NVIDIA B200
GPU 0,1,2,3,4,5,6,7 Compute Capability: 10.0
NVCC: Cuda compilation tools, release 12.9, V12.9.86
PyTorch: 2.9.1+cu129
sglang: 0.5.9
sgl_kernel: 0.3.21
flashinfer_python: 0.6.3
vllm: Module Not Found
""")
    assert env.get("engine") == "sglang" and env.get("engine_version") == "0.5.9"
    assert env.get("gpu") == "NVIDIA B200" and env.get("gpu_count") == 8
    assert env.get("compute_capability") == "10.0" and env.get("cuda") == "12.9"


def test_vllm_engine_config_nested_values_split_outside_brackets():
    env = env_of(
        "(EngineCore_DP0 pid=412) INFO 02-21 08:51:27 [core.py:97] Initializing a V1 LLM engine (v0.11.2) with config: "
        "model='Qwen/Qwen3-Next-80B-A3B-Instruct-FP8', speculative_config=None, dtype=torch.bfloat16, max_seq_len=32768, "
        "tensor_parallel_size=4, pipeline_parallel_size=1, quantization=fp8, enforce_eager=False, "
        "compilation_config={'level': 3, 'cudagraph_mode': <CUDAGraphMode.PIECEWISE: 1>, 'sizes': [1, 2, 4]}, seed=0"
    )
    assert env.get("engine_version") == "0.11.2"
    assert env.get("model") == "Qwen/Qwen3-Next-80B-A3B-Instruct-FP8"
    assert env.get("family") == "qwen3-next" and env.get("quantization") == "fp8-block"
    assert env.get("tp") == 4 and env.get("max_model_len") == 32768
    # the whole configuration is printed, defaults too: only values off their default are flags someone set
    assert env.flags == {"--tensor-parallel-size", "--quantization"}
    assert split_top_level("a=1, b=[1, 2], c={'x': (1, 2)}") == ["a=1", "b=[1, 2]", "c={'x': (1, 2)}"]


def test_non_default_args_and_served_model():
    env = env_of("(APIServer pid=1) INFO 05-05 12:36:59 [utils.py:233] non-default args: {'model': 'Qwen/Qwen3-30B-A3B-GPTQ-Int4', "
                 "'tensor_parallel_size': 2, 'enforce_eager': True, 'quantization': 'gptq_marlin'}")
    assert env.get("family") == "qwen3-moe" and env.get("quantization") == "gptq-int4"
    assert "--enforce-eager" in env.flags and env.get("cuda_graphs") == "off"


def test_sglang_server_args():
    env = env_of("[2025-09-18 16:17:20] server_args=ServerArgs(model_path='Qwen/Qwen3-235B-A22B-FP8', tokenizer_path='Qwen/Qwen3-235B-A22B-FP8', "
                 "tp_size=8, quantization=None, disable_cuda_graph=False, speculative_algorithm='EAGLE', enable_dp_attention=True)")
    assert env.get("engine") == "sglang" and env.get("model") == "Qwen/Qwen3-235B-A22B-FP8"
    assert env.get("tp") == 8 and env.get("family") == "qwen3-moe" and env.get("quantization") == "fp8-block"
    assert "--speculative-algorithm" in env.flags and "--enable-dp-attention" in env.flags
    assert "--disable-cuda-graph" not in env.flags


def test_serve_command_with_continuations_and_flattened_backslashes():
    env = env_of("""\
python -m sglang.launch_server \\
  --model-path /models/Qwen/Qwen3-VL-235B-A22B-Instruct \\
  --tp-size 4 \\
  --moe-a2a-backend deepep
""")
    assert env.get("engine") == "sglang" and env.get("family") == "qwen3-vl" and env.get("tp") == 4
    assert "--moe-a2a-backend" in env.flags
    env = env_of("vllm serve Qwen3.5-27B-GPTQ-Int4 \\ --language-model-only \\ --reasoning-parser qwen3 \\ --speculative-config '{\"method\":\"qwen3_next_mtp\"}'")
    assert env.get("model") == "Qwen3.5-27B-GPTQ-Int4" and env.get("family") == "qwen3.5"
    assert env.get("quantization") == "gptq-int4" and "--speculative-config" in env.flags


def test_kubernetes_args_list_and_docker_image_tag():
    env = env_of("""\
    image: vllm/vllm-openai:v0.10.2
    command:
      - vllm
      - serve
      - /mnt/models/qwen3-next
      - --tensor-parallel-size
      - "4"
      - --speculative-config
      - '{"method":"qwen3_next_mtp","num_speculative_tokens":2}'
(Worker_TP2 pid=568) INFO 09-15 04:42:14 [custom_all_reduce.py:203] Registering 10392 cuda graph addresses
""")
    assert env.get("engine") == "vllm" and env.get("engine_version") == "0.10.2"
    assert env.get("family") == "qwen3-next" and env.get("tp") == 4 and "--speculative-config" in env.flags


def test_precedence_options_over_env_file_over_log_with_conflicts_shown():
    log = "vLLM Version                 : 0.11.0\nvllm serve Qwen/Qwen3-8B --max-model-len 8192\n"
    ov = Overrides(options={"engine_version": "0.12.0"}, env_file={"vllm": Fact("0.11.1", "env-file x")})
    env = env_of(log, ov)
    assert env.get("engine_version") == "0.12.0" and env.facts["engine_version"].source == "option"
    assert any("0.11.0" in c and "env file wins" in c for c in env.conflicts)
    env = env_of(log, Overrides(env_file={"vllm": Fact("0.11.1", "env-file x")}))
    assert env.get("engine_version") == "0.11.1"
    env = env_of(log, Overrides(options={"model": "Qwen/Qwen3.5-27B-FP8"}))
    assert env.get("family") == "qwen3.5" and env.get("quantization") == "fp8-block"


def test_nvidia_smi_and_wheel_names():
    env = env_of("""\
vllm-0.15.2rc1.dev93+g11a4c9d30.cu128-cp312-cp312-linux_x86_64.whl
|   0  NVIDIA GeForce RTX 5090        On  |   00000000:01:00.0 Off |                  N/A |
""")
    assert env.get("engine_version") == "0.15.2rc1.dev93+g11a4c9d30.cu128"
    assert env.get("gpu") == "NVIDIA GeForce RTX 5090" and env.get("compute_capability") == "12.0"


def test_not_a_qwen_model_is_family_other():
    env = env_of("python3 -m sglang.launch_server --model-path nvidia/DeepSeek-V3-0324-FP4 --quantization modelopt_fp4 --tp-size 4")
    assert env.get("family") == "other" and env.get("quantization") == "nvfp4"


def test_an_argparse_error_naming_the_engine_is_not_a_version_listing():
    env = env_of(
        "vllm serve Qwen/Qwen3-14B --rope-scaling={\"rope_type\":\"yarn\",\"factor\":4.0}\n"
        "usage: vllm serve [model_tag] [options]\n"
        "vllm: error: unrecognized arguments: --rope-scaling={\"rope_type\":\"yarn\",\"factor\":4.0,"
        "\"original_max_position_embeddings\":32768}\n"
    )
    assert env.get("engine") == "vllm"
    assert env.get("engine_version") is None and env.get("vllm") is None


def test_placeholder_versions_are_unknown():
    env = env_of("vLLM API server version 0.0.0+unknown\nsglang: 0.0.0.dev0\n")
    assert env.get("engine_version") is None
    # setuptools-scm's fallback for a fork cloned without tags: below every release in any range, so no version
    assert env_of("vLLM API server version 0.1.dev21460+gaf9e4dca1\n").get("engine_version") is None
    assert env_of("vLLM API server version 0.1.7\n").get("engine_version") == "0.1.7"  # (a real 2023 release)


def test_gpu_count_glued_to_the_name():
    env = env_of("Hardware: 8xH100 SXM, driver 570\nvllm serve Qwen/Qwen3-8B -tp 8\n")
    assert env.get("gpu") == "NVIDIA H100 SXM" and env.get("gpu_count") == 8
    assert env.get("compute_capability") == "9.0"


def test_platform_from_the_engine_config_line():
    env = env_of("INFO 01-01 00:00:00 [core.py:77] Initializing a V1 LLM engine (v0.11.0) with config: "
                 "model='Qwen/Qwen3-8B', device_config=npu, seed=0\n")
    assert env.get("platform") == "npu"


def test_the_cann_runtimes_fault_lines_and_ascend_only_modules_say_the_platform_is_npu():
    """What exists only on Ascend is NPU evidence, as a CUDA error line is a GPU's: the CANN runtime's own fault lines
    (sglang#10421, quoted or not), SGLang's NPU kernel package, torch_npu's C++ namespace and CANN's operator API."""
    for line in (
            "       Aicore kernel execute failed, device_id=4, stream_id=2, report_stream_id=2, task_id=433, flip_num=0, "
            "fault kernel_name=_fused_rotary_emb_kernel_3, fault kernel info ext=none, program id=3, hash=1.[FUNC:GetError]",
            ">        rtStreamSynchronizeWithTimeout execute failed, reason=[vector core exception][FUNC:FuncErrorReason]",
            "       synchronize stream failed, runtime result = 507035[FUNC:ReportCallError][FILE:log_inner.cpp][LINE:161]",
            '  File "/usr/local/python3.11.13/lib/python3.11/site-packages/sgl_kernel_npu/fla/chunk.py", line 212, in chunk_gated_delta_rule_fwd',
            "[rank4]:[E908 09:20:07.123185212 OpParamMaker.cpp:454] operator():NonzeroKernelNpuOpApi.cpp:33 call aclnnNonzero failed, "
            "error code is 507035",
            "frame #2: c10_npu::NPUCachingAllocator::emptyCache(bool) + 0x3c (0xfffd4b0a1234 in /opt/lib/libc10.so)"):
        assert env_of(line + "\n").get("platform") == "npu", line
    # a sentence is no sign of any platform (nor is a Python built under /usr/local beside an NVIDIA-only line: below)
    for line in ("Download failed, reason=[timeout], retrying",
                 "RuntimeError: CUDA error: an illegal memory access was encountered",
                 # a list of choices names every backend, on any device (SGLang 0.5.13+'s deterministic-inference check)
                 "ValueError: Currently only ['flashinfer', 'fa3', 'triton', 'ascend'] attention backends are supported "
                 "for deterministic inference, but you explicitly specified 'trtllm_mha'.",
                 "launch_server.py: error: argument --attention-backend: invalid choice: 'fa4' (choose from 'fa3', 'ascend')"):
        assert env_of(line + "\n").get("platform") != "npu", line
    # the value a launch chose is the device's
    assert env_of("server_args=ServerArgs(model_path='Qwen/Qwen3-8B', attention_backend='ascend', device='npu')\n").get("platform") == "npu"


def test_the_chip_a_kernel_package_was_built_for_is_not_the_device():
    env = env_of("..[ERROR] the socversion Ascend910B1 of bin package does not match the current device socverison "
                 "Ascend310P3. Please modify default socversion in run.sh\n")
    assert env.get("gpu") != "Ascend910B1" and env.get("platform") == "npu"
    # the same for a GPU a wheel or a kernel names as its target, while the device's own listing still counts
    for line in ("RuntimeError: this flash-attn wheel was built for NVIDIA H100 80GB HBM3 (sm_90a) only\n",
                 "ValueError: the FP8 MoE kernel is only supported on NVIDIA H100, H200 and B200\n",
                 "NotImplementedError: the fused kernel requires NVIDIA B200 or newer\n"):
        assert env_of(line).get("gpu") is None, line
    env = env_of("ValueError: the FP8 MoE kernel is only supported on NVIDIA H100\n"
                 "|   0  NVIDIA L40S                    On  |   00000000:01:00.0 Off |                    0 |\n")
    assert env.get("gpu") == "NVIDIA L40S"


def test_a_container_named_after_vllm_does_not_make_a_sglang_log_vllm():
    env = env_of('Attaching to vllm-server-1\n'
                 "vllm-server-1  | [2025-05-01 10:00:00] server_args=ServerArgs(model_path='Qwen/Qwen3-8B', tp_size=1)\n"
                 "vllm-server-1  | [2025-05-01 10:00:05 TP0] Load weight begin. avail mem=78.12 GB\n"
                 "docker logs vllm-server-1 shows the vllm container exited\n")
    assert env.get("engine") == "sglang"


def test_serve_arguments_in_yaml_list_forms():
    block = env_of('''      containers:
        - name: server
          image: vllm/vllm-openai:v0.11.0
          args:
            - "--model"
            - "Qwen/Qwen3-30B-A3B-FP8"
            - "--tensor-parallel-size=4"
''')
    assert block.get("model") == "Qwen/Qwen3-30B-A3B-FP8" and block.get("tp") == 4 and block.get("engine_version") == "0.11.0"
    flow = env_of('''        command: ["vllm", "serve"]
        args: ["Qwen/Qwen3-30B-A3B-FP8", "--tensor-parallel-size", "4", "--enable-expert-parallel"]
''')
    assert flow.get("model") == "Qwen/Qwen3-30B-A3B-FP8" and flow.get("tp") == 4
    assert "--enable-expert-parallel" in flow.flags


def test_a_later_fuller_model_name_wins_and_an_impossible_engine_version_is_no_version(catalog):
    from qwen3doctor.judge.pipeline import diagnose_text

    env = diagnose_text("vllm qwen3-235B, max_model_len is greater than max_position=40960\n"
                        "Qwen3-235B-A22B-FP8\nvllm 8.5.1.post1\nGPUs: 4 x NVIDIA H20\n", catalog).environment
    assert env.get("model_mention") == "Qwen3-235B-A22B-FP8"
    assert env.get("family") == "qwen3-moe" and env.get("quantization") == "fp8-block"
    assert env.get("engine_version") is None  # vLLM is 0.x: "8.5.1.post1" is a typo of 0.8.5.post1, not a release
    assert diagnose_text("vllm 0.8.5.post1\n", catalog).environment.get("engine_version") == "0.8.5.post1"


def test_a_release_named_in_a_sentence_is_not_the_running_one():
    # a deprecation's deadline, a requirement: neither is the version that crashed (a reading hunt on real pastes)
    assert env_of("WARNING 05-22 10:02:30 [config.py:70] This will be removed in vLLM v0.24.0.").get("engine_version") is None
    assert env_of("ImportError: this build needs sglang>=0.5.4").get("engine_version") is None
    assert env_of("Using vllm 0.9.2 with CUDA 12.8").get("engine_version") == "0.9.2"
    # SGLang's refusal of a vLLM-borrowed quantization method names the vllm it wants installed, not a running vLLM
    refusal = env_of("ValueError: gguf quantization requires some operators from vllm. "
                     "Please install vllm by `pip install vllm==0.9.0.1`")
    assert refusal.get("engine_version") is None and refusal.get("engine") != "vllm"
    # any install command a message suggests names a release to get, whatever the sentence around it ...
    for advice in ("RuntimeError: the fused kernel is missing; try `pip install -U vllm==0.10.1.1` and restart",
                   "ImportError: flashinfer is too old, run pip install vllm==0.11.0 to get a matching wheel",
                   "hint: reinstall with 'uv pip install vllm==0.12.0'"):
        assert env_of(advice).get("engine_version") is None, advice
    # ... while the user's own install line, at a prompt or in a Dockerfile, set up the release that runs
    for setup in ("$ pip install vllm==0.9.2", "Step 3/6 : RUN pip install vllm==0.9.2", "+ uv pip install vllm==0.9.2"):
        assert env_of(setup).get("engine_version") == "0.9.2", setup


def test_a_plugin_re_registering_an_architecture_names_no_model():
    # vllm-ascend overrides the Qwen3-MoE class on every start, whatever model is served
    env = env_of("WARNING 07-01 10:00:00 [registry.py:413] Model architecture Qwen3MoeForCausalLM is already registered, "
                 "and will be overwritten by the new model class vllm_ascend.models.qwen3_moe:CustomQwen3MoeForCausalLM.")
    assert env.get("architecture") is None and env.get("family") is None


def test_qwen3_speech_models_are_families_of_their_own():
    """Qwen3-TTS and Qwen3-ASR are Qwen3s of their own architectures: neither the Qwen3 language model (a rule for
    that does not hold for them) nor "not a Qwen3 model"."""
    for model, family in (("Qwen/Qwen3-TTS-12Hz-1.7B-CustomVoice", "qwen3-tts"), ("Qwen/Qwen3-ASR-0.6B", "qwen3-asr"),
                          ("/models/qwen3_asr_1.7b", "qwen3-asr")):
        assert env_of(f"vllm serve {model} --port 8000").get("family") == family, model
    arch = env_of("INFO 09-01 10:00:00 [model.py:547] Resolved architecture: Qwen3TTSForConditionalGeneration")
    assert arch.get("family") == "qwen3-tts"


def test_the_engine_configuration_line_makes_flags_only_of_values_off_their_default():
    env = env_of("INFO 05-02 10:00:00 [llm_engine.py:240] Initializing a V0 LLM engine (v0.8.5.post1) with config: "
                 "model='/m/qwen3-32b', tokenizer_mode=auto, load_format=auto, device_config=cuda, max_seq_len=40960, "
                 "kv_cache_dtype=auto, tensor_parallel_size=1, enable_prefix_caching=True, seed=0")
    assert env.flags == {"--enable-prefix-caching"}  # prefix caching is on; the rest are defaults or not flags


def test_sglang_server_args_dump_counts_decode_context_parallelism_only_above_one():
    # SGLang 0.5.15+ prints dcp_size in every ServerArgs dump; only a size above 1 is DCP someone turned on
    dump = "[2026-09-08 16:02:11] server_args=ServerArgs(model_path='moonshotai/Kimi-Linear-48B-A3B-Instruct', tp_size=8, dcp_size={})"
    assert "--dcp-size" not in env_of(dump.format(1)).flags
    assert "--dcp-size" in env_of(dump.format(8)).flags


def test_sglang_server_args_dump_counts_a_chosen_parser_or_all_to_all_backend():
    # an argument whose unset value prints as None / 'none' was given when it holds anything else; one the engine fills
    # in itself (the attention backend it picks) says nothing of the launch
    dump = ("[2026-07-23 15:22:58] server_args=ServerArgs(model_path='Qwen/Qwen3-235B-A22B', tp_size=8, "
            "attention_backend='fa3', tool_call_parser={}, reasoning_parser={}, moe_a2a_backend={})")
    given = env_of(dump.format("'qwen3_coder'", "'qwen3'", "'deepep'")).flags
    assert {"--tool-call-parser", "--reasoning-parser", "--moe-a2a-backend"} <= given
    assert "--attention-backend" not in given
    unset = env_of(dump.format("None", "None", "'none'")).flags
    assert not unset & {"--tool-call-parser", "--reasoning-parser", "--moe-a2a-backend", "--attention-backend"}


def test_a_launch_scripts_cuda_device_mask_is_a_weak_cuda_sign():
    script = "export CUDA_VISIBLE_DEVICES=3\nvllm serve /models/Qwen3.5-35B-A3B --gpu-memory-utilization 0.85\n"
    assert env_of(script).get("platform") == "cuda"
    # any line of another platform outranks it
    assert env_of(script + "INFO 03-02 10:15:01 [__init__.py:207] Platform plugin ascend is activated\n"
                  ).get("platform") == "npu"
    assert env_of("export CUDA_VISIBLE_DEVICES=\nvllm serve Qwen/Qwen3-8B\n").get("platform") is None


def test_tesla_and_quadro_cards_are_read_without_the_vendor_in_front():
    # older drivers' nvidia-smi and torch's device name leave "NVIDIA" out: the card and its capability still count
    row = "|   0  Tesla T4            Off  | 00000000:00:1E.0 Off |                    0 |\n"
    assert env_of(row).get("gpu") == "Tesla T4" and env_of(row).get("compute_capability") == "7.5"
    listing = "GPU models and configuration: \nGPU 0: Tesla V100-SXM2-32GB\nGPU 1: Tesla V100-SXM2-32GB\n"
    assert env_of(listing).get("gpu") == "Tesla V100-SXM2-32GB" and env_of(listing).get("compute_capability") == "7.0"
    assert env_of("GPU 0: Quadro RTX 6000\n").get("compute_capability") == "7.5"
    assert env_of("Our fleet's Tesla Model 3 telemetry service calls vllm serve Qwen/Qwen3-8B\n").get("gpu") is None


def test_sglang_float16_fallback_line_is_a_threshold_not_the_gpu_capability():
    # SGLang logs "Compute capability below sm80" on every pre-Ampere card: the sm80 is the threshold, so the V100
    # named beside it keeps its own 7.0 (rules gated on compute_capability < 7.5 depend on it)
    log = ("[2025-10-08 09:14:37] Compute capability below sm80. Use float16 due to lack of bfloat16 support.\n"
           "Tesla V100-PCIE-16GB, 7.0\n")
    assert env_of(log).get("compute_capability") == "7.0"
    assert env_of("[2025-10-08 09:14:37] Compute capability below sm80. Use float16 due to lack of bfloat16 "
                  "support.\n").get("compute_capability") is None


def test_facts_from_what_engines_and_launchers_print_around_a_crash():
    # each line alone, from real pastes that showed no other sign of the fact
    assert env_of("[2026-01-01 00:00:00] Received sigquit from a child process. It usually means the child failed."
                  ).get("engine") == "sglang"
    assert env_of("gpustack _resolve_image query: backend=cann, backend_variant=910b, service=vllm").get("platform") == "npu"
    assert env_of("/x/torch/nn/modules/linear.py:125: UserWarning: Attempting to use hipBLASLt on an unsupported "
                  "architecture! Overriding blas backend to hipblas").get("platform") == "rocm"
    # vllm-metal on Apple silicon: its platform plugin line, and MLX's own start-up lines without it
    assert env_of("INFO 03-17 12:25:52 [__init__.py:217] Platform plugin metal is activated").get("platform") == "metal"
    assert env_of("(EngineCore_DP0 pid=93148) [2026-02-14 19:02:40] INFO utils.py:73: Set Metal wired_limit to 25.0 GB"
                  ).get("platform") == "metal"
    # vLLM's DEBUG platform probe names each platform it rules out: no sign of any of them
    probe = env_of("DEBUG 11-04 09:12:06 [platforms/__init__.py:55] TPU platform is not available because: No module "
                   "named 'libtpu'\nDEBUG 11-04 09:12:06 [platforms/__init__.py:65] Checking if ROCm platform is available.\n"
                   "DEBUG 11-04 09:12:06 [platforms/__init__.py:80] ROCm platform is not available because: No module named 'amdsmi'")
    assert probe.get("platform") is None
    assert env_of("INFO 05-02 10:00:00 [gptq_marlin.py:266] Using MarlinLinearKernel for GPTQMarlinLinearMethod"
                  ).get("quantization") == "gptq-int4"
    cached = env_of("INFO 05-02 10:00:00 [__init__.py:1] model   "
                    "/home/u/.cache/huggingface/hub/models--Qwen--Qwen3-0.6B/snapshots/9f2a1c0/")
    assert cached.get("model_mention") == "Qwen/Qwen3-0.6B" and cached.get("family") == "qwen3"


def test_a_serve_command_wrapped_inside_a_flag_or_a_name_is_joined(catalog):
    from qwen3doctor.judge.pipeline import diagnose_text

    wrapped = ("vllm serve /m/Qwen3-Coder-Next/ --tensor-parallel-size 4 --enable-auto-tool-c\n"
               "hoice --tool-call-parser qwen3_coder --gpu-memory-utilization 0.8\nRuntimeError: x\n")
    env = diagnose_text(wrapped, catalog).environment
    assert {"--enable-auto-tool-choice", "--tool-call-parser", "--gpu-memory-utilization"} <= env.flags
    named = "cmd: vllm serve Qwen3-Omni-30B-A3B-Instruct-Clean-\nOrigin_step1000 --host :: --port 10702\nRuntimeError: x\n"
    assert diagnose_text(named, catalog).environment.get("model") == "Qwen3-Omni-30B-A3B-Instruct-Clean-Origin_step1000"
    # a whole flag at the end of a line is not glued to the next line's first word
    whole = "vllm serve Qwen/Qwen3-8B --enforce-eager\nfoo --x\nRuntimeError: x\n"
    assert diagnose_text(whole, catalog).environment.get("serve_command") == "vllm serve Qwen/Qwen3-8B --enforce-eager"


def test_a_model_named_in_a_hand_written_listing_is_the_model(catalog):
    from qwen3doctor.judge.pipeline import diagnose_text

    env = diagnose_text("model: sgl-project/DeepSeek-V4-Flash-FP8\nGPU: 8x NVIDIA H100 80GB HBM3\n", catalog).environment
    assert env.get("model") == "sgl-project/DeepSeek-V4-Flash-FP8" and env.get("family") == "other"
    env = diagnose_text("- **Model**: Qwen/Qwen3-Embedding-0.6B\n- **Python Version**: 3.12\n", catalog).environment
    assert env.get("model") == "Qwen/Qwen3-Embedding-0.6B"
    # a config key with a section under it, or a word that names no checkpoint, is no model
    assert diagnose_text("model:\n  path: /data/ckpt\n", catalog).environment.get("model") is None
    assert diagnose_text("Model: default\n", catalog).environment.get("model") is None


def test_a_report_templates_markdown_listing_is_read(catalog):
    from qwen3doctor.judge.pipeline import diagnose_text

    report = diagnose_text("- **Model**: Qwen/Qwen3-30B-A3B-FP8\n- **vLLM version**: 0.10.2\n- **CUDA**: 12.8\n"
                           "- **TP**: 4\n- **PyTorch**: 2.8.0\n", catalog)
    env = report.environment
    assert (env.get("engine_version"), env.get("cuda"), env.get("tp"), env.get("torch")) == ("0.10.2", "12.8", 4, "2.8.0")
    assert "fp8-block-quant-tp-indivisible" in [r.rule_id for r in report.risks]
    plain = diagnose_text("CUDA: 12.8\nTP: 4\nModel: Qwen/Qwen3-30B-A3B-FP8\n", catalog)
    assert plain.environment.get("tp") == 4 and plain.risks


def test_an_old_engine_config_line_without_a_version_is_read(catalog):
    from qwen3doctor.judge.pipeline import diagnose_text

    env = diagnose_text("INFO 07-10 12:01:33 llm_engine.py:60] Initializing an LLM engine with config: "
                        "model='Qwen/Qwen3-8B', tokenizer='Qwen/Qwen3-8B', dtype=torch.float16, tensor_parallel_size=4, "
                        "seed=0)\n", catalog).environment
    assert (env.get("model"), env.get("tp"), env.get("engine")) == ("Qwen/Qwen3-8B", 4, "vllm")
    assert env.get("engine_version") is None


def test_the_oom_messages_figures_say_how_much_another_process_holds(catalog):
    from qwen3doctor.judge.pipeline import diagnose_text

    old = ("torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.63 GiB (GPU 0; 44.56 GiB total "
           "capacity; 27.91 GiB already allocated; 565.31 MiB free; 27.93 GiB reserved in total by PyTorch)\n")
    assert diagnose_text(old, catalog).environment.get("memory_held_elsewhere") == "16.1 GiB"
    new = ("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of "
           "79.19 GiB of which 1.06 GiB is free. Including non-PyTorch memory, this process has 78.12 GiB memory in use.\n")
    report = diagnose_text(new, catalog)
    assert report.environment.get("memory_held_elsewhere") == "none"
    assert "gpu-memory-held-by-other-process" not in [f.rule_id for f in report.findings]


def test_hand_written_keys_take_only_values_of_their_kind(catalog):
    from qwen3doctor.judge.pipeline import diagnose_text

    env = diagnose_text("CUDA: available\nTP: 4\nquant: awq\nCUDA version: 12.8\n", catalog).environment
    assert (env.get("cuda"), env.get("tp"), env.get("quantization")) == ("12.8", 4, "awq")


def _tags(*processes):
    c = EnvCollector()
    for p in processes:
        c.note_process(p)
    return merge_environment(c, Overrides())


def test_process_tags_name_the_active_parallelisms():
    # vLLM names a worker's TP / PP / EP rank only when that parallelism is on; SGLang its records the same way
    assert _tags("Worker_TP3_EP3 pid=12").get("parallel") == "TP EP"
    assert _tags("Worker_PP1_TP0 pid=12").get("parallel") == "TP PP"
    assert _tags("VllmWorker TP3 pid=2211").get("parallel") == "TP"
    assert _tags("DP0 TP3 EP3").get("parallel") == "TP EP"
    # the engine core carries a DP rank at any size, and a plain worker tag names no rank
    assert _tags("EngineCore_DP0 pid=300", "Worker pid=301", "APIServer pid=1").get("parallel") is None


def test_stated_sizes_beat_process_tags():
    env = env_of("INFO 09-06 00:38:00 [core.py:74] Initializing a V1 LLM engine (v0.11.0) with config: "
                 "model='Qwen/Qwen3-8B', tensor_parallel_size=2, pipeline_parallel_size=1")
    assert env.get("parallel") == "TP"
    assert env_of("$ python -m sglang.launch_server --model-path Qwen/Qwen3-8B --tp-size 1").get("parallel") == "none"


def test_the_runner_a_launch_asks_for():
    assert env_of("$ vllm serve Qwen/Qwen3-Embedding-8B --task embed").get("runner") == "pooling"
    assert env_of("$ vllm serve Qwen/Qwen3-Embedding-8B --runner draft").get("runner") == "generate"
    # any flag that asks for pooling wins over one that names generation
    assert env_of("$ vllm serve Qwen/Qwen3-Embedding-8B --runner generate --convert embed").get("runner") == "pooling"
    assert env_of("$ python -m sglang.launch_server --model-path Qwen/Qwen3-Embedding-8B --is-embedding").get("runner") == "pooling"
    assert env_of("(APIServer pid=1) INFO 10-21 09:14:06 [utils.py:233] non-default args: "
                  "{'model_tag': 'Qwen/Qwen3-Embedding-8B', 'runner': 'pooling'}").get("runner") == "pooling"
    # no runner flag, or `auto`: the engine decides, and the log says nothing
    assert env_of("$ vllm serve Qwen/Qwen3-Embedding-8B --runner auto").get("runner") is None
    assert env_of("$ vllm serve Qwen/Qwen3-8B").get("runner") is None


def test_a_version_printed_under_the_command_that_asked_for_it():
    env = env_of('$ python -c "import torch; print(torch.__version__)"\n2.6.0.dev20241008+rocm6.2\n\n'
                 'python -c "import vllm; print(vllm.__version__)"\n0.6.3.dev156+g07c11cf4\n')
    assert env.get("engine") == "vllm" and env.get("engine_version") == "0.6.3.dev156+g07c11cf4"
    assert env.get("torch") == "2.6.0.dev20241008+rocm6.2"
    # the line after is no version: nothing is taken, and a later number is not the answer
    env = env_of('python -c "import vllm; print(vllm.__version__)"\nTraceback (most recent call last):\n'
                 "ModuleNotFoundError: No module named 'vllm'\n0.9.1\n")
    assert env.get("engine_version") is None


def test_a_manifest_command_exported_newest_line_first_is_read_in_its_written_order():
    # Loki / Kibana list the newest line first: a Kubernetes manifest's command list arrives last item first, and
    # read as it stands every value would land on the flag written after it (`--tool-call-parser` was read as TP)
    written = ["- vllm", "- serve", "- /mnt/models/qwen3-next", "- --tool-call-parser", "- hermes",
               "- --tensor-parallel-size", '- "4"', "- --speculative-config",
               """- '{"method":"qwen3_next_mtp","num_speculative_tokens":2}'"""]
    for lines in (written, written[::-1]):
        env = env_of("    command:\n" + "".join(f"      {line}\n" for line in lines) + "INFO starting\n")
        assert env.get("model") == "/mnt/models/qwen3-next" and env.get("tp") == 4
        assert "qwen3_next_mtp" in str(env.get("speculative"))
    sglang = ["- python3", "- -m", "- sglang.launch_server", "- --model-path", "- Qwen/Qwen3-8B", "- --tp", '- "2"']
    for lines in (sglang, sglang[::-1]):
        env = env_of("    command:\n" + "".join(f"      {line}\n" for line in lines) + "INFO starting\n")
        assert env.get("model") == "Qwen/Qwen3-8B" and env.get("tp") == 2


def test_an_allow_list_of_architectures_does_not_name_the_model():
    message = ("ValueError: DeepEP v2 MoE is not validated for 'Qwen3_5MoeForConditionalGeneration';\n"
               "  supported architectures are ['DeepseekV3ForCausalLM', 'DeepseekV4ForCausalLM',\n"
               "  'Qwen3MoeForCausalLM']. Other model workflows may require an all-reduce after A2A\n")
    for text in (message, "\n".join(reversed(message.splitlines()))):  # (a newest-first export: the list's end first)
        assert env_of(text).get("architecture") == "Qwen3_5MoeForConditionalGeneration"
    config = '{\n  "architectures": [\n    "Qwen3MoeForCausalLM"\n  ],\n  "model_type": "qwen3_moe"\n}\n'
    assert env_of(config).get("architecture") == "Qwen3MoeForCausalLM"
    # an architecture the engine says it does not support is still the model's own
    assert env_of("ValueError: Unsupported architectures: Qwen3_5ForConditionalGeneration\n").get("architecture") \
        == "Qwen3_5ForConditionalGeneration"
    vllm = ("ValueError: Model architectures ['Qwen3NextForCausalLM'] are not supported for now. Supported "
            "architectures: dict_keys(['AquilaModel', 'Qwen3ForCausalLM', 'Qwen3MoeForCausalLM'])\n")
    assert env_of(vllm).get("architecture") == "Qwen3NextForCausalLM"


def test_a_rocm_server_whose_arguments_say_cuda_is_read_as_rocm():
    # PyTorch calls a ROCm GPU `cuda`: SGLang on an MI355X prints device='cuda' in its server arguments
    args = "[2026-05-01 10:00:00] server_args=ServerArgs(model_path='Qwen/Qwen3.5-35B-A3B', tp_size=8, device='cuda')\n"
    assert env_of(args + "  GPU 0: AMD Instinct MI355X\n").get("platform") == "rocm"
    assert env_of(args + "[aiter] import [module_aiter_enum] under /sgl-workspace/aiter/aiter/jit\n").get("platform") == "rocm"
    assert env_of(args).get("platform") == "cuda"  # nothing else said: a CUDA GPU, as before
    assert env_of(args.replace("'cuda'", "'npu'")).get("platform") == "npu"


def test_amd_libraries_and_rdna_names_say_rocm_without_a_platform_line():
    # MIOpen's own log lines, an RDNA gfx name, and the branch a custom op takes on ROCm (a Radeon paste has no
    # `Automatically detected platform` line and no Instinct name)
    assert env_of("MIOpen(HIP): Error [EvaluateInvokers] hipoc_kernel.cpp:128: Failed to launch kernel\n").get("platform") == "rocm"
    assert env_of("Device 0 is gfx1151 (Radeon 8060S Graphics)\n").get("platform") == "rocm"
    frame = '  File "/opt/venv/lib/python3.12/site-packages/vllm/model_executor/custom_op.py", line 70, in forward_hip\n'
    assert env_of("Traceback (most recent call last):\n" + frame).get("platform") == "rocm"
    assert env_of('  File "/x/vllm/model_executor/custom_op.py", line 66, in forward_cuda\n').get("platform") != "rocm"
    # vLLM's AITER backends exist only on ROCm (ROCm/aiter#2870's workers die importing from rocm_aiter_mla.py)
    mla = '  File "/usr/local/lib/python3.12/dist-packages/vllm/v1/attention/backends/mla/rocm_aiter_mla.py", line 377, in __init__\n'
    assert env_of(mla).get("platform") == "rocm"
    assert env_of('  File "/x/vllm/v1/attention/backends/mla/flashmla.py", line 77, in __init__\n').get("platform") != "rocm"


def test_a_b300_is_named_with_its_suffixes_and_dated_by_its_compute_capability():
    for line in ("|   0  NVIDIA B300 SXM6 AC   On  |   00000000:1B:00.0 Off |", "GPU 0: NVIDIA B300 SXM6 AC (UUID: GPU-1)"):
        env = env_of(line + "\n")
        assert env.get("gpu") == "NVIDIA B300 SXM6 AC" and env.get("compute_capability") == "10.3"


def test_a_vllm_ascend_image_tag_names_the_plugin_its_vllm_release_and_the_npu():
    env = env_of("- Image: `m.daocloud.io/quay.io/ascend/vllm-ascend:v0.19.1rc1`\n")
    assert env.get("engine") == "vllm" and env.get("engine_version") == "0.19.1"
    assert env.get("vllm_ascend") == "0.19.1rc1" and env.get("platform") == "npu"
    assert env_of("image: vllm/vllm-openai:v0.11.0\n").get("engine_version") == "0.11.0"


def test_an_engine_named_in_prose_with_code_quotes_or_by_a_failed_import_of_its_modules():
    env = env_of("We are serving `Qwen/Qwen3.5-397B-A17B-FP8` with SGLang `v0.5.16` on 8x NVIDIA H800 80GB (TP=8).\n")
    assert env.get("engine") == "sglang" and env.get("engine_version") == "0.5.16"
    # a trainer's patch of the engine it runs with: the module it could not import is the engine's
    assert env_of("Unsloth: Patching vLLM\nNo module named 'vllm.transformers_utils.tokenizer'\n").get("engine") == "vllm"
    assert env_of("ImportError: cannot import name 'get_bool_env_var' from 'sglang.srt.utils'\n").get("engine") == "sglang"
    assert env_of("No module named 'vllm_ascend'\n").get("engine") is None  # (a plug-in's own name is no engine module)
    # vLLM-Omni's stage engines are vLLM engine cores
    assert env_of("StageEngineCoreProc failed to start\nKeyError: 'layers.0.mlp.gate_up_proj.qweight'\n").get("engine") == "vllm"


def test_the_vllm_banner_is_read_without_its_block_art_and_in_its_one_line_form(catalog):
    from qwen3doctor.judge.pipeline import diagnose_text

    def env_of(text):  # (the banner is known by the record that logged it: the whole reading path)
        return diagnose_text(text, catalog).environment

    plain = ("(APIServer pid=1) INFO 08-20 10:11:02 [utils.py:299]   version 0.27.0\n"
             "(APIServer pid=1) INFO 08-20 10:11:02 [utils.py:299]   model   Qwen/Qwen3.5-122B-A10B-FP8\n")
    env = env_of(plain)
    assert env.get("engine_version") == "0.27.0" and env.get("model") == "Qwen/Qwen3.5-122B-A10B-FP8"
    one = "(APIServer pid=1) INFO 04-01 06:20:11 [utils.py:287] vLLM server version 0.16.0, serving model Qwen/Qwen3-8B\n"
    env = env_of(one)
    assert env.get("engine_version") == "0.16.0" and env.get("model") == "Qwen/Qwen3-8B"
    # another module's line that happens to say "version" is no banner
    assert env_of("INFO 08-20 10:11:02 [loader.py:88]   version 2.1\n").get("engine_version") is None


def test_non_default_args_ending_in_a_nested_dict_keep_its_closing_brace():
    line = ("(APIServer pid=1) INFO 05-05 12:36:59 [utils.py:233] non-default args: {'model': "
            "'/models/Qwen3.5-397B-A17B-MXFP4', 'speculative_config': {'method': 'qwen3_next_mtp', "
            "'num_speculative_tokens': 2}}\n")
    assert str(env_of(line).get("speculative")).endswith("2}")


def test_a_kernels_list_of_supported_targets_is_not_the_gpu():
    text = ("RuntimeError: GDN prefill requires the flashinfer Blackwell fast-path\n"
            "(sm100/sm103 + CUDA 13 + bf16 + head_dim=128 + head_v == head_k + num_v >= num_q).\n")
    assert env_of(text).get("compute_capability") is None
    assert env_of("GPU 0 (sm100) is ready\n").get("compute_capability") == "10.0"

def test_the_bfloat16_check_names_the_gpu_and_its_compute_capability():
    # vLLM's dtype check (platforms/cuda.py check_if_supports_dtype; the worker's own check before 0.10.2) names the
    # device as torch does, without `NVIDIA ` in front of a Tesla or Quadro, and its capability after an `at least 8.0`
    prefix = ("(EngineCore_DP0 pid=311) ERROR 11-03 09:12:44 [core.py:843] ValueError: Bfloat16 is only supported on GPUs "
              "with compute capability of at least 8.0. Your ")
    tail = " You can use float16 instead by explicitly setting the `dtype` flag in CLI, for example: --dtype=half.\n"
    for name, cc in (("Tesla T4", "7.5"), ("Tesla V100-SXM2-32GB", "7.0"), ("Quadro RTX 8000", "7.5"),
                     ("NVIDIA GeForce RTX 2080 Ti", "7.5"), ("Tesla P100-PCIE-16GB", "6.0")):
        env = env_of(f"{prefix}{name} GPU has compute capability {cc}.{tail}")
        assert (env.get("gpu"), env.get("compute_capability")) == (name, cc)
    # the requirement alone names no device
    assert env_of("Bfloat16 is only supported on GPUs with compute capability of at least 8.0.\n").get("gpu") is None



def test_a_modelscope_path_and_more_spellings_of_the_vllm_version():
    # ModelScope writes the dot of `Qwen3.6-35B-A3B` as `___` in its download folders
    env = env_of("vllm serve /models/Qwen/Qwen3___6-35B-A3B --tensor-parallel-size 8\n")
    assert env.get("family") == "qwen3.5-moe"
    assert env_of("VLLM version: 0.16.0rc2.dev496+g4a9c07a0a\n").get("engine_version") == "0.16.0rc2.dev496+g4a9c07a0a"
    assert env_of("deployed with vllm_v0.17.0 on 8x H100\n").get("engine_version") == "0.17.0"
    assert env_of("vllm_ascend 0.9 plugin\n").get("engine_version") is None


def test_prose_after_the_words_vllm_serve_is_no_model_and_no_launch(catalog):
    from qwen3doctor.judge.pipeline import diagnose_text
    from qwen3doctor.read.command import read_command

    tb = ("Traceback (most recent call last):\n"
          '  File "/data/vllm/.venv/lib/python3.10/site-packages/vllm/entrypoints/cli/serve.py", line 27, in cmd\n'
          "    uvloop.run(run_server(args))\n")
    # a CJK sentence ending in a full-width colon (Qwen3#1349) and an English one: no model, no flags known
    for said in ("A100 transformers 4.51.3   vllm 0.8.5 使用命令 vllm serve 启动的时候提示错误：",
                 "I run vllm serve and then it crashes:",
                 "After vllm serve starts, the first chat request kills the engine. Startup lines:"):
        env = diagnose_text(f"{said}\n{tb}", catalog).environment
        assert env.get("model") is None and env.get("serve_command") is None, said
        assert not env.flags_known and env.get("engine") == "vllm", said
    assert read_command("vllm serve 启动的时候提示错误:").model is None
    assert read_command("vllm serve Qwen3-8B，然后报错").model is None
    # ids and paths stay models, a folder named in CJK included
    for model in ("Qwen/Qwen3-8B", "/data/模型/Qwen3-8B", "./qwen3", "qwen3:8b", "Qwen3-8B"):
        assert read_command(f"vllm serve {model} --port 8000").model == model
    env = diagnose_text(f"vllm serve /data/模型/Qwen3-8B --enforce-eager\n{tb}", catalog).environment
    assert env.get("model") == "/data/模型/Qwen3-8B" and "--enforce-eager" in env.flags


def test_an_sglang_paste_that_names_its_vllm_install_is_sglangs(catalog):
    from qwen3doctor.judge.pipeline import diagnose_text

    # sglang#6000: SGLang 0.4.6 asks for vllm installed (its AWQ path is vLLM's code); the report names both
    said = ("Yes, I also hit this on Sglang 0.4.6.post2 with swift/Qwen3-30B-A3B-AWQ, it prompts that I need to install "
            "vllm 0.8.4, so I installed it.\n"
            "AttributeError: 'FusedMoE' object has no attribute 'hidden_size'\n")
    env = diagnose_text(said, catalog).environment
    assert env.get("engine") == "sglang" and env.get("engine_version") == "0.4.6.post2"
    # an SGLang traceback through the vLLM layer code it imports is SGLang's crash, however many vLLM frames it shows
    tb = ("Traceback (most recent call last):\n"
          '  File "/usr/local/lib/python3.10/dist-packages/sglang/srt/model_loader/loader.py", line 381, in load_model\n'
          "    model = _initialize_model(\n"
          '  File "/usr/local/lib/python3.10/dist-packages/vllm/model_executor/layers/quantization/awq_marlin.py", line 164, in get_quant_method\n'
          "    if not check_moe_marlin_supports_layer(layer, self.group_size):\n"
          '  File "/usr/local/lib/python3.10/dist-packages/vllm/model_executor/layers/quantization/utils/marlin_utils.py", line 170, in check_moe_marlin_supports_layer\n'
          "    hidden_size = layer.hidden_size\n"
          '  File "/usr/local/lib/python3.10/dist-packages/vllm/model_executor/layers/quantization/utils/marlin_utils.py", line 171, in check_moe_marlin_supports_layer\n'
          "AttributeError: 'FusedMoE' object has no attribute 'hidden_size'\n")
    assert diagnose_text(tb, catalog).environment.get("engine") == "sglang"
    # the other way: a vLLM log whose listing also names sglang, its traceback in vLLM's layers, stays vLLM's
    vllm_log = ("vllm: 0.8.5\nsglang: 0.4.6.post2\n"
                "INFO 05-05 08:12:30 [api_server.py:1043] vLLM API server version 0.8.5\n"
                "ERROR 05-05 08:12:40 [core.py:396] EngineCore failed to start.\n"
                "ERROR 05-05 08:12:40 [core.py:396] Traceback (most recent call last):\n"
                'ERROR 05-05 08:12:40 [core.py:396]   File "/usr/local/lib/python3.12/dist-packages/vllm/model_executor/layers/quantization/awq_marlin.py", line 164, in get_quant_method\n'
                'ERROR 05-05 08:12:40 [core.py:396]   File "/usr/local/lib/python3.12/dist-packages/vllm/model_executor/layers/fused_moe/layer.py", line 512, in __init__\n'
                "ERROR 05-05 08:12:40 [core.py:396] ValueError: Unsupported FusedMoe scoring func\n")
    env = diagnose_text(vllm_log, catalog).environment
    assert env.get("engine") == "vllm" and env.get("engine_version") == "0.8.5"
    # a vLLM paste without SGLang's code still counts vLLM's layer frames for vLLM
    layers_only = ('  File "/usr/local/lib/python3.12/dist-packages/vllm/model_executor/layers/fused_moe/layer.py", line 512, in __init__\n'
                   "ValueError: Unsupported FusedMoe scoring func\n")
    assert diagnose_text(layers_only, catalog).environment.get("engine") == "vllm"


def test_qwen3_sizes_that_exist_only_as_moe_read_as_moe_without_their_active_size():
    """Qwen3 has no dense 235B or 30B: a name that drops the `-A22B` / `-A3B` is still the MoE model."""
    for model in ("Qwen/Qwen3-235B", "Qwen3-30B", "/models/qwen3_235b_fp8"):
        assert env_of(f"vllm serve {model} --port 8000").get("family") == "qwen3-moe", model
    assert env_of("vllm serve Qwen/Qwen3-32B --port 8000").get("family") == "qwen3"


def test_a_vendor_image_tag_yields_to_the_vllm_build_the_same_line_names():
    """Intel's llm-scaler numbers its images after vLLM but ships another build: the build named beside it wins."""
    env = env_of("- Image: `intel/llm-scaler-vllm:0.14.0-b8.3.1` (vLLM 0.14.1.dev0+gb17039bcc.d20260605)\n")
    assert env.get("engine_version") == "0.14.1.dev0+gb17039bcc.d20260605"
    # alone, the tag is still the best guess there is
    assert env_of("With image: intel/llm-scaler-vllm:0.14.0-b8.3.1\n").get("engine_version") == "0.14.0"


def test_an_image_tag_with_the_engine_release_glued_to_its_rocm_release():
    env = env_of("INFO - With image: gpustack/runner:rocm7.0-sglang0.5.8.post1\n")
    assert env.get("engine") == "sglang" and env.get("engine_version") == "0.5.8.post1" and env.get("platform") == "rocm"
    # the CUDA build's tag likewise names NVIDIA (gpustack#3991's embedding launch on cuda12.8-vllm0.13.0 had listed a
    # 310P Ascend risk); a tag that names no build (`vllm/vllm-openai:v0.11.0`) says nothing
    cuda = env_of("With image: gpustack/runner:cuda12.9-sglang0.5.9\n")
    assert cuda.get("platform") == "cuda" and cuda.facts["platform"].source == "log: a CUDA image"
    assert env_of("docker run --gpus all lmsysorg/sglang:v0.5.5-cu129 python3 -m sglang.launch_server\n").get("platform") == "cuda"
    assert env_of("docker run --gpus all vllm/vllm-openai:v0.11.0 --model Qwen/Qwen3-8B\n").get("platform") is None


def test_intels_online_int4_is_no_gptq_checkpoint_and_its_dtype_no_unquantized_model():
    env = env_of("python3 -m vllm.entrypoints.openai.api_server --model /llm/models/Qwen3.6-35B-A3B --dtype=float16 "
                 "--quantization sym_int4 -tp=1\n")
    assert env.get("quantization_method") == "sym_int4" and env.get("quantization") is None
    assert env_of("vllm serve /m/Qwen3-8B --dtype float16\n").get("quantization") == "fp16"


def test_tpu_inference_records_and_canns_fault_dump_name_their_platforms():
    c = EnvCollector()
    c.feed("Init mesh | mesh=Mesh('data': 1, 'model': 4)", "EngineCore_DP0", record="INFO tpu_jax_runner.py:287")
    assert merge_environment(c, Overrides()).get("platform") == "tpu"
    dump = ("       The error from device(chipId:3, dieId:0), serial number is 1, there is an exception of aivec error, "
            "core id is 46, error code = 0, dump info: pc start: 0x1240027ec000.[FUNC:PrintCoreInfo]"
            "[FILE:device_error_core_proc.cc][LINE:347]\n")
    assert env_of(dump).get("platform") == "npu"
    assert env_of("Capturing ACL graphs (decode, FULL):  14%|█▍        | 1/7 [00:03<00:21,  3.67s/it]\n").get("platform") == "npu"


def test_a_qwen3_size_written_apart_in_prose_names_the_model():
    env = env_of("[Bug]: Qwen3 235B RL Training: multi-level graph compilation hangs\n")
    assert env.get("model_mention") == "Qwen3-235B" and env.get("family") == "qwen3-moe"


def test_intels_image_collectives_and_gpu_names_say_xpu():
    assert env_of("- Image: intel/llm-scaler-vllm:0.14.0-b8.2.1\n").get("platform") == "xpu"
    assert env_of("RuntimeError: Worker failed with error 'oneCCL: ze_handle_manager.cpp:226 get_ptr: EXCEPTION: "
                  "unknown memory type'\n").get("platform") == "xpu"
    assert env_of("GPU: 4x Intel Arc Pro B70 (32 GB), TP=4\n").get("platform") == "xpu"


def test_a_gpu_named_twice_in_prose_is_no_count_but_listing_rows_are():
    prose = ("- GPU: NVIDIA GB10 (Grace Blackwell)\n"
             "When running on an ARM64 server with an NVIDIA GB10 (Grace Blackwell) GPU, the engine crashes\n")
    assert env_of(prose).get("gpu_count") is None
    rows = "0: NVIDIA GeForce RTX 5070 Ti 16303MiB\n1: NVIDIA GeForce RTX 5090 D 32607MiB\n"
    assert env_of(rows).get("gpu_count") == 2
    assert env_of("NVIDIA L40S, 580.95.05\nNVIDIA L40S, 580.95.05\n").get("gpu_count") == 2


def test_a_two_column_markdown_table_row_is_a_listing_line():
    env = env_of("| GPU Driver / CUDA | 580.142 / 13.0 |\n| vLLM version | `v0.23.1rc1.dev1053+gf2317c227.d20260712` |\n")
    assert env.get("engine") == "vllm" and env.get("engine_version") == "0.23.1rc1.dev1053+gf2317c227.d20260712"


def test_flags_only_one_engine_accepts_name_it_when_nothing_else_does():
    """`--speculative-algorithm` is SGLang's, `--enable-prefix-caching` vLLM's (per the release index): in a paste
    that names no engine otherwise, such flags in prose or inline code decide it; they never outvote real evidence."""
    prose = "Starting with `--speculative-algorithm EAGLE3` but without `--speculative-draft-model-path` crashes.\n"
    assert env_of(prose).get("engine") == "sglang"
    assert env_of("Qwen3.8-Flash-Next, --enable-prefix-caching\nAssertionError: block_size must be divisible\n").get(
        "engine") == "vllm"
    assert env_of("(EngineCore_DP0 pid=1) ERROR 01-01 00:00:00 [core.py:1] x --speculative-algorithm y\n").get(
        "engine") == "vllm"


def test_the_vllm_ascend_release_named_with_its_plugin_name():
    env = env_of("vLLM-ascend0.11.0rc2-310p\nQwen3-32B-w4a4\n")
    assert env.get("vllm_ascend") == "0.11.0rc2" and env.get("engine_version") == "0.11.0"
    assert env.get("platform") == "npu" and env.get("engine") == "vllm"


def test_qwen3_8_flash_nexts_architecture_names_its_family():
    env = env_of("(APIServer pid=1) INFO 09-03 21:05:19 [model.py:563] Resolved architecture: "
                 "Qwen4ExpForConditionalGeneration\n")
    assert env.get("family") == "qwen3-next"


def test_sglangs_release_glued_to_its_name_in_prose():
    assert env_of("Sglang0.5.3 doesn't work on RTX 5090 with Qwen3-32B-FP8\n").get("engine_version") == "0.5.3"


def test_a_docker_run_with_the_model_as_the_images_first_argument():
    # the vllm-openai image's entrypoint is `vllm serve`: the positional after the image is the model
    env = env_of("docker run --gpus all --ipc=host vllm/vllm-openai:v0.28.0 /models/DeepSeek-V4-Pro "
                 "--tensor-parallel-size 8 --data-parallel-size 3 --kv-cache-dtype fp8\n")
    assert env.get("model") == "/models/DeepSeek-V4-Pro" and env.get("tp") == 8 and env.get("dp") == 3
    assert env.get("family") == "other" and env.get("engine_version") == "0.28.0"
    # a shell command after the image is no model
    assert env_of("docker run --gpus all vllm/vllm-openai:latest bash -c 'sleep 1'\n").get("model") is None


def test_another_familys_model_named_in_prose_makes_the_family_other_unless_a_qwen3_model_is_named():
    assert env_of("vLLM 0.26.0, 8x H20-3e, DeepSeek-V4-Flash\n").get("family") == "other"
    assert env_of("Serving gpt-oss-120b on 2x B200\n").get("family") == "other"
    # a Qwen3 model named anywhere wins over a draft or a teacher of another family
    both = env_of("draft: meta-llama/Llama-3.2-1B-Instruct\ntarget: Qwen/Qwen3-32B\n")
    assert both.get("family") == "qwen3"
    assert env_of("the Qwen3 team's RL recipe, nothing else\n").get("other_model_mention") is None


def test_a_traceback_with_paths_relative_to_the_checkout_is_vllms():
    # (a paste trimmed to the repository's paths: `File "vllm/v1/..."`, no site-packages in front)
    env = env_of('  File "vllm/v1/attention/backends/mamba2_attn.py", line 153, in build\n'
                 '  File "vllm/entrypoints/openai/completion/serving.py", line 591, in _create_completion_logprobs\n')
    assert env.get("engine") == "vllm"
    # a quoted image name is no module of vLLM's
    assert env_of('image: "vllm/vllm-openai:latest"\n').get("engine") != "sglang"


def test_the_engines_warning_on_an_untuned_method_names_the_quantization():
    env = env_of("WARNING 08-08 17:18:49 config.py:254] gptq quantization is not fully optimized yet. The speed can be "
                 "slower than non-quantized models.\n")
    assert env.get("quantization_method") == "gptq" and env.get("quantization") == "gptq-int4"
    # a method outside the vocabulary is still the method the engine resolved
    env = env_of("WARNING 08-08 17:18:49 config.py:254] bitsandbytes quantization is not fully optimized yet.\n")
    assert env.get("quantization_method") == "bitsandbytes" and env.get("quantization") is None


def test_an_8_bit_gptq_checkpoint_is_gptq_int8_and_gptq_rules_cover_it():
    log = ("INFO 05-10 10:01:02 [api_server.py:1044] args: Namespace(model='Qwen/Qwen3-30B-A3B-GPTQ-Int8', "
           "tensor_parallel_size=2)\n"
           "INFO 05-10 10:01:09 [gptq_marlin.py:143] The model is convertible to gptq_marlin during runtime. "
           "Using gptq_marlin kernel.\n")
    assert env_of(log).get("quantization") == "gptq-int8"
    # the method line alone names the format, the model's name which of its widths it is
    env = env_of("WARNING 08-08 17:18:49 config.py:254] gptq_marlin quantization is not fully optimized yet.\n"
                 "INFO 08-08 17:18:50 Initializing an LLM engine with config: model='Qwen/Qwen3-14B-GPTQ-Int8'\n")
    assert env.get("quantization") == "gptq-int8"
    from qwen3doctor import vocab
    assert vocab.quant_covers("gptq-int4", "gptq-int8") and vocab.quant_covers("int8", "gptq-int8")
    assert not vocab.quant_covers("gptq-int4", "int8") and not vocab.quant_covers("awq", "gptq-int8")
    # a W8A8 int8 export is no GPTQ checkpoint
    assert env_of("args: Namespace(model='Qwen3-8B-W8A8-INT8')\n").get("quantization") == "int8"


def test_an_intel_gaudi_log_is_the_hpu_platform_and_no_cuda_one():
    log = ('  File "/usr/local/lib/python3.10/dist-packages/habana_frameworks/torch/core/step_closure.py", line 71, in mark_step\n'
           "RuntimeError: synStatus=26 [Generic failure] Device acquire failed.\n")
    assert env_of(log).get("platform") == "hpu"
    assert env_of("INFO 01-20 09:12:01 [__init__.py:43] Platform plugin hpu is activated\n").get("platform") == "hpu"
    assert env_of("INFO 01-20 09:12:01 [cuda.py:302] Using Flash Attention backend.\n").get("platform") != "hpu"


def test_the_cann_images_python_prefix_names_the_ascend_platform():
    frame = ('ERROR 05-07 08:23:58 [core.py:398]   File "/usr/local/python3.10.17/lib/python3.10/site-packages/ray/'
             'experimental/compiled_dag_ref.py", line 150, in get\n')
    assert env_of(frame).get("platform") == "npu"
    # the usual homes of Python in other images say nothing of the platform
    for home in ("/usr/local/lib/python3.12/dist-packages", "/opt/conda/lib/python3.10/site-packages",
                 "/root/.pyenv/versions/3.11.9/lib/python3.11/site-packages"):
        assert env_of(f'  File "{home}/vllm/v1/engine/core.py", line 1, in f\n').get("platform") != "npu"
    # a platform line outranks it, and so does any NVIDIA-only library or device line (other images may build Python
    # there too)
    assert env_of(frame + "INFO 05-07 08:20:01 [__init__.py:241] Automatically detected platform cuda.\n").get("platform") == "cuda"
    assert env_of(frame + "| NVIDIA-SMI 570.86.15    Driver Version: 570.86.15    CUDA Version: 12.8 |\n").get("platform") == "cuda"


def test_sglangs_prefill_decode_transfer_failures_name_the_engine():
    for line in ("[2026-02-27 15:01:51 ] Decode transfer failed for request rank=3 decode_req.req.rid='63b1' "
                 "decode_req.req.bootstrap_room=659 with exception KVTransferError(bootstrap_room=659): Failed to get "
                 "kvcache from prefill instance, it might be dead",
                 "Prefill bootstrap failed for request rank=0 req.rid='abc' with exception KVTransferError(bootstrap_room=123): "
                 "Request 123 timed out after 300.0s in KVPoll.Bootstrapping"):
        assert env_of(line + "\n").get("engine") == "sglang", line
    # a transfer that failed in a sentence of another program is no SGLang line
    assert env_of("Upload failed for request 12 after 3 retries\n").get("engine") is None


def test_a_method_with_a_format_of_its_own_leaves_the_model_name_unread():
    """`quantization=torchao` (or bitsandbytes, hqq, Ascend's export) says the weights are in that method's own format:
    `int4` in the model's name is no GPTQ checkpoint. A container method (`compressed-tensors`) still lets the name say."""
    line = ("INFO 12-09 14:02:29 [core.py:77] Initializing a V1 LLM engine (v0.11.0) with config: model='/models/{m}', "
            "quantization={q}, enforce_eager=False\n")
    assert env_of(line.format(m="qwen3-8b-ao-int4-opaque", q="torchao")).get("quantization") is None
    assert env_of(line.format(m="Qwen3-8B-bnb-int4", q="bitsandbytes")).get("quantization") is None
    assert env_of(line.format(m="Qwen3-8B-W4A16-int4", q="compressed-tensors")).get("quantization") == "gptq-int4"
