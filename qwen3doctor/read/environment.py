"""Engine, version, model, family, quantization, parallel sizes, GPU, CUDA and flags, read from the log.

`EnvCollector.feed(text)` takes each line (prefixes already peeled) once; `facts()` returns what was found,
each value with where it came from. When two lines disagree the more reliable source wins (a collect-env
listing beats a docker image tag); ties keep the first seen.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass

import re

from .. import vocab
from ..model import Environment, Fact
from ..versions import clean_version, parse_version
from .command import read_command
from .crash import CANN_RECORD, CANN_RUNTIME_LINE
from .literals import Gated

# how much a source is trusted, per kind of line
P_OPTION, P_ENV_FILE, P_LISTING, P_CONFIG, P_COMMAND, P_STARTUP, P_HINT, P_GUESS = 100, 90, 60, 55, 50, 40, 25, 10


_QUICK_WORDS = tuple(
    w.lower() for w in (
        "vllm", "sglang", "version", "torch", "cuda", "gpu", "nvidia", "transformers", "flashinfer", "triton", "model",
        "serve", "launch_server", "qwen", "tensor_parallel", "tp_size", "quantiz", "serverargs", "non-default", "config",
        "capability", "rtx", "instinct", "mi300", "mi250", "mi325", "mi355", "ascend", "nccl", "forcausallm",
        "forconditionalgeneration", "speculative", "enforce", "eager", "--", "pip", "==", "nvcc", "driver", "image",
        "h100", "h200", "h800", "h20", "a100", "a800", "b200", "b300", "l40", "gb200", "gb10", "python", "rocm", "hip",
        "platform", "█", "sigquit", "scheduler hit", "linearmethod", "npu", "cann", "[pid: ", "aicpu", "aicore",
        "aclgraph", "acl_graph", "nz format", "metax", "maca", "macos", "darwin", "/users/", "device_name=",
        "hsa_status", "rocdevice", "tpu", "thor", "orin", "jetson", "acl graph", "hccl_", "ffts+", "bishengir",
        "export ", "name: ", "version: ", "huggingfaceserver", "sglang_", "vllm_", "910", "310p", "namespace(",
        "kv cache is allocated", "#running-req", "#new-seq", "warmup error", "deepgemm", "deep_gemm", "ptxas", "amdgpu",
        "nvrm", "tp:", "tp size", "tensor parallel", "quant:", "**", "mlx", "metal", "aiter", "gfx", "miopen", "rocblas",
        "stageenginecore", "aclnn", "aclrt", "happen error", "runtime result", "failed, reason=", "device_error_core",
        "stars_engine", "exception of", "llm-scaler", "oneccl", "ze_handle", " arc", "gpu max", "hf snapshot",
        "habana", "gaudi", "hl-smi", "hl-2", "hl-3", "synstatus", "hpu", "/usr/local/python3.", "failed for request rank=",
        "kvtransfererror", "tesla ", "quadro ",
    )
)


def _quick(text: str) -> bool:
    low = text.lower()
    return any(w in low for w in _QUICK_WORDS)


_KV = re.compile(r"^\s*(?:\[(?:pip3?|conda)\]\s*)?(?P<k>[A-Za-z][\w .()/+-]{0,40}?)\s*(?::|==|=)\s*(?P<v>\S.*?)\s*$")
_VERSION_FIRST = re.compile(r"""['"`]?v?\d""")
# a package's version asked on the command line, its answer on the next line alone (`python -c "import vllm;
# print(vllm.__version__)"` then `0.6.3.dev156+g07c11cf4`; `vllm --version` then `0.11.0`)
_VERSION_QUESTION = re.compile(r"\bimport (?P<p>vllm|sglang|torch|transformers|triton|flashinfer|xformers)\s*;\s*"
                               r"print\(\s*(?P=p)\.__version__\s*\)|^\S*\$?\s*(?P<cli>vllm) --version\s*$")
_VERSION_ANSWER = re.compile(r"^\s*v?(?P<v>\d+\.\d+(?:\.\d+)?(?:\.?(?:dev|rc|post|a|b)\d*)?(?:\+[\w.]+)?)\s*$")
_LISTED = re.compile(r"\b(?:sglang|vllm|torch|transformers|flashinfer\w*|triton)\s*(?::|==)\s*v?\d")
# a shell assignment (`export MODEL="Qwen/Qwen3-8B"`, `TP=4`) and a reference to one (`$MODEL`, `${TP}`)
_SHELL_ASSIGN = re.compile(r"^\s*(?:\$\s+)?(?:export\s+)?(?P<name>[A-Za-z_][A-Za-z0-9_]*)=(?P<value>\"[^\"]*\"|'[^']*'|\S+)\s*$")
_SHELL_REF = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}|\$([A-Za-z_][A-Za-z0-9_]*)")
# nvidia-smi's header: `| NVIDIA-SMI 580.142   Driver Version: 580.142   CUDA Version: 13.0 |`
_SMI_DRIVER = re.compile(r"Driver Version:\s*(?P<v>\d+\.\d+(?:\.\d+)?)")
# KServe's Hugging Face server handing the model to vLLM: `python -m huggingfaceserver --model_id=X --backend vllm ...`
_KSERVE = re.compile(r"huggingfaceserver\b(?P<args>.*?--backend[ =]vllm\b.*)")
# an engine's own environment variables named in a message (`set SGLANG_ENABLE_SPEC_V2=1`, `VLLM_USE_V1=1`)
_ENGINE_ENV = re.compile(r"\b(SGLANG|VLLM)_[A-Z0-9_]{3,}")
# ms-swift's arguments that reach vLLM (its own `--vllm_` prefix, underscores as in Python names)
# the engine's sizes under their Python names, as configs and launchers other than the CLI spell them
_SIZE_KEYS = "tensor_parallel_size|pipeline_parallel_size|data_parallel_size|max_model_len|max_num_seqs"
_SWIFT_ARG = re.compile(rf"--(?:vllm_)?(?P<k>model|{_SIZE_KEYS})[ =](?P<v>\S+)")
# ms-swift starting vLLM with LoRA: `--vllm_enable_lora true` (rollout, GRPO), or an adapter it does not merge
# (`swift infer --adapters X --merge_lora false --infer_backend vllm`, vllm#31205)
_SWIFT_LORA = re.compile(r"--vllm_enable_lora[ =](?:[Tt]rue|1)\b")
_SWIFT_UNMERGED = re.compile(r"--merge_lora[ =](?:[Ff]alse|0)\b")
_REDIRECT = re.compile(r"\s(?:[12]?>>?|&>|\|)\s*(?=\S)|\s&\s*$")
_LISTING_KEY = re.compile(r"\s+(?=[A-Za-z_][\w-]*:\s)")
# a hand-written listing's key in Markdown bold (`- **CUDA**: 12.8`), and the keys such listings use that no tool
# prints: the tensor-parallel size, the quantization, the CUDA release
_MARKDOWN_KEY = re.compile(r"^\s*(?:[-*+]\s+)?\*\*(?P<k>[^*]{1,40}?)\s*[:：]?\*\*\s*[:：]?\s*(?P<v>\S.*?)\s*$")
# a two-column Markdown table's row in a report template: `| vLLM version | `v0.23.1rc1.dev1053+gf2317c227` |`
_MARKDOWN_ROW = re.compile(r"^\|\s*(?P<k>[A-Za-z][\w .-]{1,38}?)\s*\|\s*`?(?P<v>[^|`]+?)`?\s*\|\s*$")
_HAND_KEY = re.compile(r"^\s*(?:(?P<tp>TP|TP size|tensor[ _]parallel(?:[ _]size)?)|(?P<quant>quantization|quant)|"
                       r"(?P<cuda>CUDA|CUDA version))\s*[:=：]\s*[`'\"]?(?P<v>\d+(?:\.\d+)*|[A-Za-z][\w-]*)[`'\"]?\s*$", re.I)
_QUANT_WORDS = frozenset(("fp8", "awq", "awq_marlin", "gptq", "gptq_marlin", "int4", "int8", "w8a8", "nvfp4", "mxfp4",
                          "bitsandbytes", "gguf", "compressed-tensors", "modelopt", "modelopt_fp4", "bf16", "fp16"))
# torch's CUDA OOM figures: before torch 2.1 `(GPU 0; 44.56 GiB total capacity; 27.91 GiB already allocated; 565.31 MiB
# free; 27.93 GiB reserved in total by PyTorch)`; later `GPU 0 has a total capacity of 79.19 GiB of which 1.2 GiB is
# free. ... this process has 45.1 GiB memory in use.`
_SIZE = r"(?P<{0}>[\d.]+) ?(?P<{0}_u>[KMG]i?B)"
_OOM_OLD = re.compile(rf"GPU \d+; {_SIZE.format('total')} total capacity; [\d.]+ ?[KMG]i?B already allocated; "
                      rf"{_SIZE.format('free')} free; {_SIZE.format('own')} reserved in total by PyTorch")
_OOM_NEW = re.compile(rf"total capacity of {_SIZE.format('total')} of which {_SIZE.format('free')} is free\..*?"
                      rf"this process has {_SIZE.format('own')} memory in use")


def _gib(value: str, unit: str) -> float:
    return float(value) / {"K": 1024 ** 2, "M": 1024, "G": 1}[unit[0]]


_PIP_ROW = re.compile(r"^(?P<k>[A-Za-z][\w.-]+)\s{2,}(?P<v>\d[\w.+-]*)\s*$")

_PACKAGE_KEYS = {
    "vllm": "vllm", "vllm version": "vllm", "vllm_version": "vllm",
    "sglang": "sglang", "sglang version": "sglang",
    "torch": "torch", "pytorch": "torch", "pytorch version": "torch",
    "transformers": "transformers", "flashinfer": "flashinfer", "flashinfer-python": "flashinfer",
    "flashinfer_python": "flashinfer", "triton": "triton", "sgl_kernel": "sgl_kernel", "sgl-kernel": "sgl_kernel",
    "deep_gemm": "deep_gemm", "deep-gemm": "deep_gemm", "xformers": "xformers",
    "cuda runtime version": "cuda", "cuda used to build pytorch": "cuda_build", "nvcc": "cuda",
    "cuda driver version": "driver", "nvidia driver version": "driver", "driver version": "driver",
    "rocm used to build pytorch": "rocm", "hip runtime version": "rocm",
    "python version": "python", "python": "python",
    "vllm-ascend": "vllm_ascend", "vllm_ascend": "vllm_ascend",
}

_ENGINE_CONFIG = re.compile(
    r"Initializing an? (?:V\d )?LLM engine (?:\(v(?P<ver>[^)]+)\) )?with config: (?P<cfg>.*)|"
    r"Dumping input data for V1 LLM engine \(v(?P<ver2>[^)]+)\) with config: (?P<cfg2>.*)"
)
# also an image tag or install folder that names the release: `runner:cann8.2-310p-vllm0.10.0`, `venvs/vllm-v0-10-0/`
_VLLM_VERSION = re.compile(
    # (not a Windows folder named after a release, `C:\Downloads\vllm_0.25\venv`: what it holds may be any build;
    # an egg's folder, `vllm-0.11.1rc6...cpu-py3.12-linux-x86_64.egg/vllm/`, is the installed distribution)
    r"vLLM API server version (?P<v>\S+)|\bvllm(?:\s+version)?(?:[=\s:`'_-]+|(?=\d))(?P<v2>v?\d+\.\d+[\w.+-]*)(?![\w.+-]*\\)|vllm-(?P<v3>\d+\.\d+[\w.+-]*?)(?:-cp\d|\.whl|$)"
    r"|\bvllm-v(?P<v4>\d+-\d+-\d+)(?=[/-])", re.I)
# the words before a release that is not the one running: a deprecation's deadline, a requirement, a suggestion
# (and the release an SGLang refusal asks for: "awq quantization requires some operators from vllm. Please install vllm by
# `pip install vllm==0.9.0.1`" names the vLLM that SGLang wants beside it, not the engine that ran)
_OTHER_RELEASE = re.compile(r"(?:\b(?:in|since|from|until|before|after|than|to|requires?|removed|deprecated)|[<>=~!]=?"
                            # (an install command a message suggests, quoted or after "by" / "try" / "run": "Please
                            # install vllm by `pip install vllm==0.9.0.1`"; not a user's own `$ pip install vllm==0.9.2`
                            # or a Dockerfile's `RUN pip install ...`, which set up the release that runs)
                            r"|(?:[`'\"]|\b(?:by|try|please|via|using|with|(?-i:run))\s+)(?:uv\s+)?(?:python3?\s+-m\s+)?"
                            r"pip3?\s+install(?:\s+-\S+)*)\s*$", re.I)
# (also glued to its version: `gpustack/runner:rocm7.0-sglang0.5.8.post1`, "Sglang0.5.3 doesn't work on ...")
_SGLANG_VERSION = re.compile(r"\bsglang(?:[=\s:`'-]+|(?=\d+\.\d))(?P<v>v?\d+\.\d+[\w.+-]*)|sglang version:? (?P<v2>\S+)", re.I)
# an image tag that names the ROCm release it was built on (`gpustack/runner:rocm7.0-sglang0.5.8.post1`)
_ROCM_TAG = re.compile(r"\b[\w.-]+/[\w.-]+:(?:[\w.]+-)*rocm\d")
# and the CUDA release (`gpustack/runner:cuda12.8-vllm0.13.0`, `lmsysorg/sglang:v0.5.5-cu129`,
# `vllm/vllm-openai:cu130-nightly`): an image built for CUDA runs on NVIDIA GPUs only
_CUDA_TAG = re.compile(r"\b[\w.-]+/[\w.-]+:(?:[\w.]+-)*(?:cuda\d+\.\d|cu1\d\d\b)")
# tpu-inference's own modules in a record's source location (`INFO 11-07 01:43:57 [tpu_jax_runner.py:287]`)
_TPU_RECORD = re.compile(r"\btpu_\w+\.py:\d+$")


def _vendor_tag(text: str, m: re.Match) -> bool:
    """The release a match read is the tag of an image whose name only ends in `vllm` (`intel/llm-scaler-vllm:0.14.0`)."""
    start = m.start("v2") if m.group("v2") else -1
    word = text.rfind(" ", 0, m.start()) + 1
    return start > 0 and text[start - 1] == ":" and "/" in text[word: m.start()]


def _base_release(version: str) -> str:
    """The release a vLLM-Ascend release is made for: its number without pre-release parts (0.19.1rc1 -> 0.19.1)."""
    return re.sub(r"(?:(?:rc|\.post|\.dev)\d+)+$", "", version)


# an import of the engine's own module that failed: `No module named 'vllm.transformers_utils.tokenizer'`,
# `cannot import name 'X' from 'sglang.srt.utils'` (a plug-in or trainer patching the engine it runs with)
_ENGINE_IMPORT = re.compile(r"(?:No module named|from) '(?P<e>vllm|sglang)\.")
_IMAGE = re.compile(r"(?P<img>vllm/vllm-openai|lmsysorg/sglang|rocm/vllm|rocm/sgl-dev|lmsysorg/sglang-rocm|ascend/vllm-ascend)"
                    r"(?::(?P<tag>[\w.+-]+))?")
_NAMESPACE = re.compile(r"\bargs: Namespace\((?P<a>.*)\)\s*$")
_NON_DEFAULT = re.compile(r"non-default args: (?P<d>\{.*\})")
_SERVER_ARGS = re.compile(r"server_args=ServerArgs\((?P<a>.*)\)?")
_SERVE = re.compile(
    r"(?:^|[\s;&|$#>\[('\"`])(?P<cmd>(?:[\w./-]*python[\d.]*\s+-m\s+)?(?:vllm\.entrypoints\.openai\.api_server|vllm\s+serve|"
    # (vLLM's CLI module run directly: `python -m vllm.entrypoints.cli.main [serve] <model> ...`)
    r"vllm\.entrypoints\.cli\.main|"
    # (SGLang's benchmark entry points take the server's arguments: `python -m sglang.bench_one_batch --model-path ...`)
    r"sglang\.launch_server|sglang(?:\.cli)?\s+serve|sgl-omni\s+serve|sglang_router\.launch_server|"
    r"sglang\.bench_(?:latency|one_batch|one_batch_server|offline_throughput))\b.*)"
)
# (the image's entrypoint is `vllm serve`: what follows the image is its arguments, the model first when it is given
# as a positional, `vllm/vllm-openai:v0.28.0 /models/X --tensor-parallel-size 8`)
_DOCKER_VLLM = re.compile(r"docker run .*vllm/vllm-openai\S*\s+(?P<args>(?:[^\s-]\S*\s+)?--.*)")
# a launcher that logs the arguments it hands the vllm CLI (GPUStack: `Run vLLM with arguments: serve /data/... --flag`,
# `Run vllm with arguments: serve ...` in other releases)
_LAUNCHER_ARGS = re.compile(r"Run (?:vLLM|vllm) with arguments: serve (?P<args>.+)")
_YAML_SETTING = re.compile(rf"^\s*-?\s*(?P<key>{_SIZE_KEYS}|tp_size|quantization|kv_cache_dtype):\s*(?P<value>[\w.-]+)\s*$")
# one string of a JSON list spread over lines, as `docker inspect` prints a container's `"Args": [`
_JSON_ITEM = re.compile(r'^\s*"(?P<item>[^"\\]*)",?\s*$')
_YAML_ITEM = re.compile(r"^\s*-\s+(?P<item>.+?)\s*$")
# a Kubernetes / compose command or args list in flow style: `args: ["Qwen/Qwen3-8B", "--tensor-parallel-size", "4"]`
# also a JSON or Python list on one line: `"Args": ["serve", ...],`, `command = ["python3", "-m", "vllm...", ...]`
_YAML_FLOW = re.compile(r"^\s*-?\s*[\"']?(?:command|args|entrypoint|cmd)[\"']?\s*[:=]\s*\[(?P<items>.*)\]\s*,?\s*$", re.I)
# a class of the model's own code named in a message (`'Qwen3MoeConfig' object has no attribute ...`): which
# suffixes make a model class is vocab.family_of_class's to say
_QWEN_CLASS = re.compile(r"\bQwen3\w+")
# a family named without a checkpoint (`Qwen3.6 hybrid`, `Qwen3-Next with MTP`): the family, as a last resort
_FAMILY_WORD = re.compile(r"(?<![\w/.-])Qwen3(?:\.\d|-Next|-VL|-Omni|-Coder-Next|-Coder|-ASR|-TTS)(?![\w.]|-\d)")
# (any family's class: `Olmo2ForCausalLM`, `Cohere2MoeForCausalLM`, `DbrxForCausalLM` are what the model is too)
_ARCH = re.compile(r"\b(?P<a>[A-Z][A-Za-z0-9_]*For(?:CausalLM|ConditionalGeneration)\w*)")
_MODEL_ID = re.compile(r"(?<![\w-])(?P<m>(?:(?<![/:])\.{0,2}/)?(?:[\w.-]+/)*Qwen3[\w.-]*?[-_]\d+(?:\.\d+)?B(?:[\w.-]*\w)?|Qwen/Qwen3[\w.-]+)", re.I)
# what comes before the GPU's name on a row of a listing: nothing (`--query-gpu` CSV), an index (`0: `, `0, `, `GPU 0: `,
# `GPU[0]`), nvidia-smi's table border and index (`|   0  `); not a sentence naming the GPU
_GPU_ROW = re.compile(r"\s*(?:\|\s*)?(?:(?:GPU\s*)?\[?\d+\]?\s*[:,|]?\s*)?")
# a model of another family named anywhere (`deepseek-ai/DeepSeek-V4-Flash`, "gpt-oss-120b", "Kimi-K2.5"): the
# family when nothing else names one (a Qwen3 model named anywhere wins: a draft or a teacher may be another family's)
_OTHER_MODEL = re.compile(r"(?i)(?<![\w./-])(?:deepseek-ai/|meta-llama/|mistralai/|google/|openai/|moonshotai/|zai-org/|THUDM/|"
                          r"MiniMaxAI/|microsoft/|ibm-granite/|OpenGVLab/|baidu/)?(?P<m>(?:DeepSeek-(?:V\d|R\d|OCR)|"
                          r"(?:Meta-)?Llama-?\d|gpt-oss-\d+b|Kimi-(?:K\d|VL|Linear)|GLM-\d|MiniMax-M\d|Mistral-|Mixtral-|"
                          r"Ministral-|Devstral-|Magistral-|gemma-?\d|Phi-\d|Nemotron|granite-\d|InternVL\d|ERNIE-\d)[\w.-]*)")
# argparse's own lines (vocab.ARGPARSE_ERROR): no command line, and the program they name votes the engine
_ARGPARSE_ERROR = re.compile(rf"\s*{vocab.ARGPARSE_ERROR}")
_ARGPARSE_PROG = re.compile(rf"\s*{vocab.ARGPARSE_PROG}")
# a model named in prose with its size apart (`Qwen3 235B`, `Qwen3.5 397B A17B`)
_MODEL_PROSE = re.compile(r"(?<![\w./-])Qwen3(?:\.\d)?(?:-[A-Za-z]+)? \d+(?:\.\d+)?B(?: A\d+B)?(?![\w.-])")
# a model named in a hand-written environment listing or a report template: `model: org/Name-7B`, `- **Model**: X`
_MODEL_LINE = re.compile(r"^[\s>*`-]*\**(?:model|model[ _-]?(?:name|path|id)|模型)\**\s*[:：=]\s*\**[`'\"]?"
                         r"(?P<m>[A-Za-z0-9._~-]*[/\d][\w.~-]*(?:/[\w.~-]+)*)[`'\"]?\s*$", re.I)
# the engine's own word for the checkpoint it is about to load: SGLang's `Found local HF snapshot for X at /path;
# skipping download.`
_SNAPSHOT_MODEL = re.compile(r"\bFound local HF snapshot for (?P<m>[\w.~-]+/[\w.~-]+) at ")
# where a GPU's name ends on a listing's row: two spaces, a bracket, the line's end, its memory, a table cell
_GPU_NAME_END = r"(?=\s{2,}|\s*\(|\s*$|\s+\d+MiB|\s+On\b|\s+Off\b|,|\|)"
_GPU_NAME = re.compile(
    r"(?P<g>NVIDIA [\w -]*?(?:[ABHLTV]\d{2,3}[\w-]*|GB\d+[\w-]*|RTX[\w -]+?|GeForce[\w -]+?|TITAN[\w ]+?|Tesla[\w -]+?|"
    r"(?:Jetson )?(?:AGX )?(?:Thor|Orin)\b[\w -]*?|[2-5]0[6-9]0(?: ?Ti)?\b)(?:\s(?:NVL|PCIe|SXM\d?|HBM\d\w*|80GB|141GB|\d+GB|AC))*" + _GPU_NAME_END + r"|"
    r"AMD Instinct MI\d+\w*|Instinct MI\d+\w*|Ascend\s?9[15]0\w*|(?<![\w-])DGX Spark\b|"
    # data-centre and workstation cards as older drivers and torch name them, without "NVIDIA" (nvidia-smi's table,
    # collect-env's `GPU 0: Tesla V100-SXM2-32GB`): Tesla V100 / T4 / P40 / K80 / A100, Quadro RTX 6000 / GV100 / P6000
    r"(?<![\w-])(?:Tesla [VTPKM]\d{1,3}|Tesla A\d{2,3}|Quadro (?:RTX )?[A-Z]{0,2}\d{3,4})[\w-]*(?:\s(?:PCIe|SXM\d?|\d+GB))*"
    + _GPU_NAME_END + ")"
)
# the words that make a chip or a compute capability what something was built for or needs, not the device it ran
# on (CANN's `the socversion Ascend910B1 of the kernel package ...`, `built for NVIDIA H100`, `requires sm_90`)
_NEEDS = (r"requires?|required|needs?|supports?|supported(?: on)?|not support(?:ed)?(?: on)?|only(?: on)?|built for|"
          r"compiled for|target(?:ed|ing)?|socversion")
# ... right before a chip's name
_GPU_TARGET = re.compile(rf"(?i)\b(?:{_NEEDS})\s*(?:the\s+)?$")
# a count glued to a short GPU name: `8xH100`, `4x H200`, `2 × A100-80GB`, `8xMI300X`
_GPU_GLUED = re.compile(r"(?<![\w.])(?P<n>\d{1,2})\s?[x×]\s?(?:NVIDIA\s+)?(?P<g>(?:[ABHL]\d{2,3}|GB\d{3}|B\d{3}|RTX\s?\d{4}(?:\s?Ti)?|MI\d{3}[A-Z]?)(?:[-\s](?:SXM\d?|PCIe|NVL|\d+GB))?)\b")
_GPU_LABEL = re.compile(r"^[\s>*`-]*\**(?:GPUs?|Hardware|Device|显卡)\**\s*[:=：]\s*(?:(?P<n>\d{1,2})\s?[x×]\s?)?(?:NVIDIA\s+)?"
                        r"(?P<g>(?:[ABHLT]\d{2,3}[A-Z]?|GB\d{2,3}|B\d{3}|RTX\s?(?:PRO\s)?\d{4}(?:\s?Ti)?|MI\d{3}[A-Z]?)"
                        r"(?:[-\s](?:SXM\d?|PCIe|NVL|\d+GB))?)\b", re.I)


def _vendor_name(short: str) -> str:
    """A short GPU name as a listing spells it: `H20` -> `NVIDIA H20`, `RTX 4090` -> `NVIDIA RTX4090`, `MI300X` ->
    `AMD Instinct MI300X`."""
    short = re.sub(r"\s+", " ", short).replace("RTX ", "RTX")
    return ("AMD Instinct " if short.startswith("MI") else "NVIDIA ") + short


_GPU_SIZE = re.compile(r"(?<![\w.])(\d{2,3})\s?GB\b")  # the memory a GPU's name states
_GPU_COUNT = re.compile(r"(?P<n>\d+)\s*x\s*(?:NVIDIA|AMD|H\d|A\d|B\d)|GPU (?P<list>\d+(?:,\d+)+):")
# a requirement stated around a compute capability
_CC_NEEDED = re.compile(rf"(?i)\b(?:{_NEEDS}|at least|minimum|below|or (?:higher|newer|above|later)|and (?:above|later|newer))\b|>=")
# (SGLang's `Compute capability below sm80. Use float16 ...` names a threshold, not the GPU)
# (not a list of targets a kernel supports, `(sm100/sm103 + CUDA 13 ...)`: that is what it needs, not the GPU)
_CC = re.compile(r"Compute Capability:?\s*(?P<cc>\d+\.\d+)|compute capability (?P<cc2>\d+\.\d+)|"
                 r"(?<!/)sm_?(?P<sm>\d{2,3})\b(?!\s*/\s*sm)|\(sm(?P<sm2>\d{2,3})\)(?!\s*/)")
# vLLM's bfloat16 check names the device it runs on and its capability, as torch spells the name (`Your Tesla T4 GPU
# has compute capability 7.5.`: a Tesla or Quadro name has no `NVIDIA ` in front, and the `at least 8.0` before it
# reads as a requirement)
_DEVICE_CC = re.compile(r"\bYour (?P<g>\S.{0,60}?) GPU has compute capability (?P<cc>\d+\.\d+)")
_CUDA_IN_SMI = re.compile(r"CUDA Version:\s*(?P<v>\d+\.\d+)")
_NVCC = re.compile(r"Cuda compilation tools, release (?P<v>\d+\.\d+)")

_VALUE_FACTS = {
    "--tensor-parallel-size": "tp", "--tp-size": "tp", "--pipeline-parallel-size": "pp", "--pp-size": "pp",
    "--data-parallel-size": "dp", "--dp-size": "dp", "--ep-size": "ep", "--expert-parallel-size": "ep",
    "--max-model-len": "max_model_len", "--context-length": "max_model_len", "--max-num-seqs": "max_num_seqs",
    "--max-running-requests": "max_num_seqs", "--dtype": "dtype", "--quantization": "quantization_method",
    "--kv-cache-dtype": "kv_cache_dtype", "--speculative-algorithm": "speculative",
    "--speculative-config": "speculative", "--served-model-name": "served_model_name",
}
# what the launch asked the engine to run the model as (vLLM's --task before 0.13, --runner / --convert from 0.10.1,
# SGLang's --is-embedding): `runner` is "pooling" for an embedding / classify / score / reward model, "generate"
# when the launch asked for generation ("auto" and anything else says nothing)
_RUNNER_OF = {**dict.fromkeys(("embed", "embedding", "classify", "score", "reward", "pooling"), "pooling"),
              **dict.fromkeys(("generate", "draft"), "generate")}
_RUNNER_FLAGS = ("--task", "--runner", "--convert")


_CONFIG_FACTS = {
    "tensor_parallel_size": "tp", "tp_size": "tp", "pipeline_parallel_size": "pp", "pp_size": "pp",
    "data_parallel_size": "dp", "dp_size": "dp", "ep_size": "ep", "max_seq_len": "max_model_len",
    "max_model_len": "max_model_len", "context_length": "max_model_len", "max_num_seqs": "max_num_seqs",
    "max_running_requests": "max_num_seqs", "dtype": "dtype", "quantization": "quantization_method",
    "kv_cache_dtype": "kv_cache_dtype", "speculative_algorithm": "speculative", "speculative_config": "speculative",
    "model": "model", "model_path": "model", "model_tag": "model", "served_model_name": "served_model_name",
}
# (and the one-line form of 0.16, `vLLM server version 0.16.0, serving model Qwen/Qwen3-8B`)
_BANNER = re.compile(r"(?:█.*|vLLM server )\bversion\s+v?(\d+\.\d+[\w.+-]*?),?(?:\s|$)")
_BANNER_MODEL = re.compile(r"█.*\bmodel\s+(\S+)\s*$|"  # the 2026 banner's `model   /data/Qwen3-8B`
                           r"vLLM server version \S+ serving model (\S+)\s*$")
# the banner's lines with their block art gone (a rendered page, a copy that dropped the glyphs), known by the
# record that logged them (`INFO 08-20 10:11:02 [utils.py:299]   version 0.27.0`)
_PLAIN_BANNER = re.compile(r"\s*version\s+v?(\d+\.\d+[\w.+-]*)\s*$")
_PLAIN_BANNER_MODEL = re.compile(r"\s*model\s+(\S+)\s*$")
_PLATFORM_LINE = re.compile(r"(?:Automatically detected platform|Platform plugin) (cuda|rocm|ascend|npu|xpu|hpu|cpu|tpu|metax|maca|musa|metal)\b", re.I)
_PLATFORM_NAMES = {"ascend": "npu", "npu": "npu", "metax": "maca", "maca": "maca"}
_BUILD_PLATFORM = re.compile(r"\+(?:\w+\.)*?(cpu|rocm|xpu|tpu)")
# Google's TPUs: the device listing (`TPU7x-8`, `TPU v5e`), tpu-inference's worker, libtpu
# Apple silicon: vllm-metal (MLX's device, Metal's wired memory limit, the plugin's own package) and the MLX servers
# with a vLLM-style API, known by their own packages (vllm-mlx and its fork Rapid-MLX as `vllm_mlx`, vMLX as
# `vmlx_engine`): MLX runs only on Apple silicon, so their macOS paths are no CPU build of vLLM
_METAL_HINT = re.compile(r"MLX device set to|Metal wired_limit|\bvllm[_-]metal\b|\bmx\.metal\.|PyTorch device set to: mps|"
                         r"\bvllm[_-]mlx\b|\bvmlx_engine\b|\brapid[_-]mlx\b")
# vLLM's DEBUG report of its platform probe (`TPU platform is not available because: No module named 'libtpu'`,
# `Checking if ROCm platform is available.`): it names every platform it rules out, so it is no sign of any
_PLATFORM_PROBE = re.compile(r"\b(?:Checking if \w+ platform is available|\w+ platform is not available because\b)")
# another serving runtime's own records: llama.cpp / GGML (also under Ollama, LM Studio), Ollama's Go records,
# Hugging Face TGI's launcher and router; a paste of one of them is not a vLLM or SGLang crash
_OTHER_RUNTIME = (
    ("llama.cpp", re.compile(r"\bggml_(?:cuda|backend|vulkan|metal)_\w+|\bGGML backend\b|ggml-cuda\.cu\b|\bllama_model_load\b|"
                             r"\bllm_load_tensors\b|\bllama_(?:context|init_from_model|new_context_with_model)\b|\bllama-server\b")),
    ("Ollama", re.compile(r"\blevel=(?:ERROR|WARN|INFO) source=\S+\.go:\d+|\bollama (?:runner|serve)\b")),
    ("TGI", re.compile(r"\btext_generation_(?:launcher|router|server)\b")),
)
# Intel GPUs: the build target, Level Zero devices as sycl-ls lists them, Intel's runtime error records
_XPU_HINT = re.compile(r"\bVLLM_TARGET_DEVICE=xpu\b|^\[level_zero:gpu\]|\bUR_RESULT_ERROR_\w+|\bintel_extension_for_pytorch\b|"
                       # Intel's vLLM image, its collective library and Level Zero handle code, its GPU names
                       r"\bxpu-smi\b|\bllm-scaler-vllm\b|\boneCCL\b|\bze_handle_manager\b|\bIntel(?:\(R\))? Arc\b|\bArc Pro B\d+|"
                       r"\bData Center GPU Max\b|"
                       # (the branch a custom op takes on an Intel GPU, as `forward_hip` is ROCm's)
                       r"\bin forward_xpu$|/platforms/xpu\.py\b")
# vLLM's CPU backend's own modules in a frame: its worker and model runner run only there (Linux CPU builds, macOS)
_CPU_HINT = re.compile(r"/worker/cpu_(?:model_runner|worker)\.py\b|/platforms/cpu\.py\b")
_TPU_HINT = re.compile(r"\bTPU ?v?\d|\btpu_(?:worker|inference)|\blibtpu\b")
# Intel Gaudi (HPU): its PyTorch bridge, vLLM's Gaudi plugin and fork, the device listing, the graph runtime's status
_HPU_HINT = re.compile(r"\bhabana_frameworks\b|\bvllm[-_]gaudi\b|\bhl-smi\b|\bHL-[23]\d\d\b|\bGaudi ?[123]?\b|\bsynStatus\b|"
                       r"\bPT_HPU_\w+|/platforms/hpu\.py\b|\bhpu_(?:model_runner|worker)\b")
# The platform's weakest signs, strongest first: each names the platform only when no other sign in the log does, and
# an earlier one rules out a later one (EnvCollector.weak_platform). NVIDIA-only libraries, tools and driver lines, and
# PyTorch's `device='cuda'` in a config dump (which ROCm prints too): a port's log may name a CUDA library it replaced,
# so any other platform's sign outranks them. The CANN base images build Python under its full version
# (`/usr/local/python3.11.14/lib/python3.11/...`): every log of the examples and the corpus with such a home is
# Ascend's, but other images could do the same, so it is weaker still than a CUDA line.
WEAK_PLATFORMS = ("cuda", "npu")
# (CUDA_VISIBLE_DEVICES set in a launch script: NVIDIA's device mask; Ascend's is ASCEND_RT_VISIBLE_DEVICES, ROCm's
# HIP_VISIBLE_DEVICES, and any ROCm or NPU line in the log outranks this sign)
_CUDA_HINT = re.compile(r"DeepGEMM|deep_gemm\.|FlashInfer|NVRM: Xid|ptxas|NVIDIA-SMI|cudaError\w+|\bCUDA_VISIBLE_DEVICES=\d")
_CANN_PYTHON_HOME = re.compile(r"/usr/local/python3\.\d+\.\d+/lib/python3\.")
# Ascend's own words: the NPU graph mode (`acl_graph.py`, "Replaying aclgraph"), its NZ weight format, a CANN image
# (`NPU` in a list of platforms, `needs CUDA/MUSA/NPU`, names none of them)
# (not a name in a list of choices: SGLang's deterministic-inference check lists `['flashinfer', 'fa3', 'triton',
# 'ascend']` on any GPU, argparse's `(choose from 'fa3', 'ascend', ...)` too)
_NPU_HINT = re.compile(r"(?<!\[')(?<!, ')(?<!\[\")(?<!, \")Ascend|\bAtlas\s?(?:300I|300V|800I?|900|A2|A3)\b|torch_npu|(?<!/)\bNPU\b(?!/)|vllm[-_]ascend|\bbackend=cann\b|\bcann\d|\bacl_?graph\b|\bNZ format\b|"
                       r"\bACL graphs?\b|\bHCCL_\w+|\bFFTS\+|bishengir|triton/backends/ascend|"
                       # (HCCL, Ascend's collective library, by its own API names: `HcclCommInitRootInfoConfig failed`)
                       r"\b[Hh]ccl(?:Comm|AllReduce|Allreduce|Broadcast|Send|Recv|GetRootInfo)\w*|"
                       # modules and calls that exist only for Ascend: SGLang's NPU kernels, torch_npu's C++ namespace,
                       # CANN's operator and runtime APIs (`call aclnnNonzero failed`, `aclrtSynchronizeStreamWithTimeout`)
                       r"\bsgl_kernel_npu\b|\bc10_npu\b|\baclnn[A-Z]\w*|\baclrt[A-Z]\w*|"
                       # the CANN runtime's dump of a device fault (`[FILE:device_error_core_proc.cc]`, `there is an
                       # exception of aivec error`, `[stars_engine.cc:1534]472 ProcLogicCqReport:Task run failed`)
                       r"\bdevice_error_core_proc\.cc\b|\bstars_engine\.cc\b|there is an exception of \w+ error\b|"
                       # the runtime's stream-exception dump of an AI CPU / hardware task scheduler fault (`Message
                       # info[0]:RTS_HWTS: Aicpu exception, slot_id=7`, `function=process_hwts_error_exception`)
                       r"\bRTS_HWTS\b|\bprocess_hwts_error_exception\b|\bAicpu (?:exception|kernel execute failed)\b", re.I)
# a Python installed the macOS way (`/Users/...`, `cpython-3.12-macos-aarch64`, `/Library/Frameworks/Python`): no CUDA
_MACOS = re.compile(r"macos-(?:aarch64|arm64|x86_64)|/Library/Frameworks/Python\.framework/|\bdarwin\b|^\s*File \"/Users/", re.I)
# the fused-MoE kernel config a MoE model looks up names the running device: `E=128,N=384,device_name=NVIDIA_H20.json`
# an npu-smi row, with or without its header: `| 2     910B2     | OK   | 93.1   41   0 / 0 |`
# (newer npu-smi releases put the name in a cell of its own, spelled out: `| 0      | Ascend950PR      | OK |`)
_NPU_ROW = re.compile(r"^\|\s*\d+\s+(?:\|\s*)?(?:Ascend\s?)?(?P<chip>9[15]0[A-Z]{0,2}\d?|310P\d?)\s+\|")
_MOE_CONFIG_DEVICE = re.compile(r"device_name=(?P<d>(?:NVIDIA|AMD)_[A-Za-z0-9_-]+?)(?:,|\.json)")
# (transformers keeps a folder per model: `models/qwen3_vl/modeling_qwen3_vl.py`)
_MODEL_FILE = re.compile(r"models/(?:qwen3\w*/modeling_)?(qwen3\w*)\.py$")
# any model implementation of the engines (`model_executor/models/deepseek_v2.py`, `srt/models/llama4.py`, vLLM-Omni's
# `diffusion/models/hunyuan_image3/hunyuan_fused_moe.py`) or of transformers (`models/gemma3/modeling_gemma3.py`)
_ANY_MODEL_FILE = re.compile(r"(?:model_executor|/srt|vllm_omni(?:/\w+)*?|vllm_ascend|transformers)/models/"
                             r"(?:(?P<dir>\w+)/)?(?P<file>\w+)\.py$")
# model files that any family's traceback may pass: the engine's shared helpers and backends, the vision towers and
# text encoders that serve other families' models, and every Qwen file (Qwen3-VL reuses Qwen2.5-VL's layers)
_SHARED_MODEL_FILE = re.compile(r"^(?:__init__|auto|common|utils|interfaces(?:_base)?|adapters|registry|module_mapping|config|vision"
                                r"|transformers\w*|siglip\w*|clip|intern_vit|whisper\w*|\w*qwen\w*|bert\w*|roberta)$", re.I)
# a draft model's file: the target it drafts for may be of any family
_DRAFT_MODEL_FILE = re.compile(r"eagle|mtp|medusa|speculator|draft|dflash|nextn", re.I)
_MODEL_FILE_FAMILY = {
    "qwen3": "qwen3", "qwen3_moe": "qwen3-moe", "qwen3_next": "qwen3-next", "qwen3_next_mtp": "qwen3-next",
    "qwen3_5": "qwen3.5", "qwen3_5_moe": "qwen3.5-moe", "qwen3_5_mtp": "qwen3.5", "qwen3_vl": "qwen3-vl",
    "qwen3_vl_moe": "qwen3-vl", "qwen3_omni_moe_thinker": "qwen3-omni", "qwen3_omni_moe": "qwen3-omni",
    "qwen3_omni": "qwen3-omni",
}
# model files whose layers others reuse: a traceback through both is the reusing model's (Qwen3.5 runs its GDN layers
# from qwen3_next.py, Qwen3-VL its language model from qwen3.py), whichever frame a cut or interleaved paste shows first
_BASE_OF = {
    "qwen3_next": ("qwen3_5", "qwen3_5_moe", "qwen3_5_mtp", "qwen3_next_mtp"), "qwen3": ("qwen3_vl",),
    "qwen3_moe": ("qwen3_vl_moe", "qwen3_omni_moe_thinker", "qwen3_omni_moe"), "qwen3_vl": ("qwen3_vl_moe",),
}
# vLLM's own modules in a frame or a logger name (`/vllm/worker/`, `\vllm\model_executor\`, `vllm.v1.engine.core_client`,
# a frame's path relative to the checkout, `File "vllm/v1/worker/gpu_model_runner.py"`)
_VLLM_MODULE = re.compile(r"(?:[/\\.\"']|(?<=\s)|^)vllm[/\\.](?:v1|entrypoints|model_executor|compilation|worker|engine|executor|distributed|"
                          r"attention|lora|multimodal|platforms|transformers_utils|config|spec_decode|scripts)\b")
# a line a reporter put in a command for the arguments left out (`  .....`, `...`, `…`, `# ...`)
_ELISION = re.compile(r"(?:#\s*)?(?:\.{3,}|…+)")
# the platform and model plugins that run inside vLLM (`/vllm-ascend/vllm_ascend/quantization/...`, `vllm_omni.entrypoints`)
_VLLM_PLUGIN_MODULE = re.compile(r"(?:[/\\\"']|(?<=\s)|^)vllm_(?:ascend|omni)[/\\.]\w")
# the code of vLLM's that SGLang imports and runs as a library (its quantization methods, fused MoE, custom ops)
_VLLM_LIBRARY = re.compile(r"vllm[/\\.](?:model_executor[/\\.]layers|_custom_ops)\b")
# SGLang's own messages: its launcher's note on a dead child, its router's modules, its health check, its PD transfers
_SGLANG_OWN = re.compile(r"Received sigquit from a child process|Scheduler hit an exception|sglang_router\w*::|"
                         r"Initialization failed\. warmup error|^launch_server\.py: error: |"
                         r"Health check failed\. Server couldn't get a response from detokenizer|KV Cache is allocated\. #tokens|"
                         r"Capture cuda graph (?:begin|end)|Decode batch, #running-req|Prefill batch\. #new-seq|max_total_num_tokens=|"
                         r"but the state was deleted in TokenizerManager|(?:Detokenizer|Tokenizer)Manager hit an exception|"
                         # its prefill-decode disaggregation's request failures and their exception (sglang/srt/disaggregation)
                         r"(?:Prefill bootstrap|Prefill transfer|Decode transfer) failed for request rank=|"
                         r"KVTransferError\(bootstrap_room=")
# vLLM's own lines that name no module (its shared-memory broadcast queue waiting on a reader)
_VLLM_OWN = re.compile(r"No available shared memory broadcast block found in \d+ seconds")
# the quantized linear method a vLLM layer uses: `Using MarlinLinearKernel for GPTQMarlinLinearMethod`
_LINEAR_METHOD = re.compile(r"\b(?P<q>GPTQ|AWQ|Fp8|ModelOpt\w*?|CompressedTensors)(?:Marlin)?LinearMethod\b")
# vLLM's model config warns once per launch of a method it has not tuned: `bitsandbytes quantization is not fully
# optimized yet. The speed can be slower than non-quantized models.` (the method the engine resolved, whatever the flags)
_UNOPTIMIZED = re.compile(r"\b(?P<q>[\w-]+) quantization is not fully optimized yet\b")
# the Hugging Face cache's folder for a model: `models--Qwen--Qwen3-0.6B`
_HF_CACHE = re.compile(r"\S*/models--([\w.-]+?)--([\w.-]+)(?:/snapshots/\w+)?/?")
_FALSY = {"none", "false", "0", "", "null", "[]", "{}", "''", '""'}


# the reader's costlier hints run only on a line holding the literals one of their branches needs
(_ENGINE_CONFIG, _PLATFORM_LINE, _METAL_HINT, _PLATFORM_PROBE, _XPU_HINT, _TPU_HINT, _CUDA_HINT, _NPU_HINT, _MACOS,
 _SGLANG_OWN, _VLLM_OWN) = (Gated(p) for p in (_ENGINE_CONFIG, _PLATFORM_LINE, _METAL_HINT, _PLATFORM_PROBE, _XPU_HINT,
                                                _TPU_HINT, _CUDA_HINT, _NPU_HINT, _MACOS, _SGLANG_OWN, _VLLM_OWN))
_CANN_RUNTIME = Gated(CANN_RUNTIME_LINE)

def split_top_level(text: str, sep: str = ",") -> list[str]:
    """Split `a=1, b=[1, 2], c={'x': (1, 2)}` on separators outside brackets and quotes."""
    parts, depth, quote, start = [], 0, "", 0
    for i, ch in enumerate(text):
        if quote:
            if ch == quote and text[i - 1] != "\\":
                quote = ""
        elif ch in "'\"":
            quote = ch
        elif ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth = max(0, depth - 1)
        elif ch == sep and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    parts.append(text[start:])
    return [p.strip() for p in parts if p.strip()]


# a list of what is supported opened before a name and not yet closed (`supported architectures are ['...', `,
# `Supported architectures: dict_keys(['...`); an `Unsupported architecture X` names the model's own
_ALLOW_LIST_OPEN = re.compile(r"(?i)\b(?:supported|allowed|validated)\b[^\[\]]*\[[^\]]*$")


# quantization methods whose checkpoints are in a format of their own, outside the vocabulary: the model's name does
# not say which of the vocabulary's formats it is (`qwen3-8b-ao-int4` served with `quantization=torchao` holds
# torchao's tensor subclasses, not a GPTQ checkpoint that Marlin would run)
OWN_FORMAT_METHODS = frozenset({"ascend", "torchao", "bitsandbytes", "hqq"})


def _model_architecture(text: str) -> str | None:
    """The architecture a line names as the model's: not one of a list of what is supported (`supported
    architectures are ['DeepseekV3ForCausalLM', ...]`), nor a line that carries on such a list wrapped over lines
    (`  'Qwen3MoeForCausalLM']. Other model workflows...`), which a newest-first export shows before its start. A
    config.json's `"architectures": [` puts the model's own alone on the next line, with nothing after it."""
    # (a listing of eight names or more, whatever its header: a line cut from the middle of the registry's list of
    # every architecture it supports, `...aForSequenceClassification', 'AriaForConditionalGeneration', ...`)
    if text.count("', '") + text.count('", "') >= 8:
        return None
    for m in _ARCH.finditer(text):
        before = text[: m.start()]
        carried_on = ("[" not in before and before.strip() in ("'", '"')
                      and text[m.end():m.end() + 2] in ("',", "']", '",', '"]'))
        if carried_on or "upported" in before and _ALLOW_LIST_OPEN.search(before):
            continue
        return m.group("a")
    return None


def _upside_down(items: list[str]) -> bool:
    """A command list read bottom to top: its launcher word (`serve`, `sglang.launch_server`) comes after its
    long flags and none follows it. In the order written no long flag precedes the launcher (`- vllm`, `- serve`,
    `- MODEL`, `- --flag`...); `python -m` has a short one on either side."""
    at = next((i for i in range(len(items) - 1, -1, -1)
               if items[i] == "serve" or items[i].endswith("sglang.launch_server")), None)
    if at is None:
        return False
    long_flags = [i for i, item in enumerate(items) if item.startswith("--") and len(item) > 2]
    return bool(long_flags) and long_flags[-1] < at


def _unquote(value: str) -> str:
    value = value.strip()
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
        return value[1:-1]
    return value


@dataclass
class _Candidate:
    """One value seen for a fact, with where it came from and how much that source is trusted."""

    value: object
    source: str
    priority: int


class EnvCollector:
    def __init__(self) -> None:
        self._facts: dict[str, _Candidate] = {}
        self.flags: set[str] = set()
        self.flags_known = False
        self._pending_command: list[str] | None = None
        self._last_line: int | None = None
        self._yaml_items: list[str] = []
        self._engine_votes = {"vllm": 0, "sglang": 0}
        self._sglang_code = False  # a line of SGLang's own code (`sglang/srt/...`) was read
        self._vllm_library = 0  # lines of vLLM's layer code that SGLang imports too (engine_votes)
        self._loose_flags: set[str] = set()  # `--flag` words anywhere (prose, inline code): `loose_flags`
        self.serve_command: str | None = None
        self._gpu_listing = False
        self._shell_vars: dict[str, str] = {}  # `export MODEL=...` before a `vllm serve $MODEL`
        self._listed_package: str | None = None  # `pip show`'s `Name:` line, until its `Version:` line
        # `python -c "import vllm; print(vllm.__version__)"`: the package asked about and the question's line, whose
        # very next line is the answer
        self._asked_version: tuple[str | None, int | None] | None = None
        self._record_voted = False
        self._processes: set[str] = set()  # process tags already read (note_process)
        self._ranks: dict[str, str] = {}  # parallel kind -> the first tag that showed it active

    # -- recording -------------------------------------------------------------------------------
    def put(self, key: str, value: object, source: str, priority: int) -> None:
        if value is None or value == "":
            return
        old = self._facts.get(key)
        if old is None or priority > old.priority:
            self._facts[key] = _Candidate(value, source, priority)

    def weak_platform(self, platform: str, source: str) -> None:
        """One of the platform's weakest signs (WEAK_PLATFORMS): it names the platform only when no other sign in the
        log does, and the earlier one in that list wins whatever the order of the lines."""
        self.put("weak_platform", platform, source, P_HINT - WEAK_PLATFORMS.index(platform))

    def vote_engine(self, engine: str, weight: int = 1) -> None:
        self._engine_votes[engine] += weight

    def record_format(self, record: str | None) -> None:
        """A record prefix in vLLM's logging format (`ERROR 05-05 12:36:59 [core.py:1138] `, which SGLang does not
        use): one vote for vLLM, whatever the number of such lines (an SGLang log may hold a few lines vLLM's
        modules logged when it imported them). A glog-format record naming a Python file is torch's own
        (`W1021 08:47:47.557000 4951 site-packages/torch/multiprocessing/spawn.py:169] Terminating process ...`,
        torchrun's and spawn's warnings in any engine's log or in none, sgl-kernel-npu#136): no vote."""
        if not self._record_voted and record is not None and ".py:" in record and not record.startswith("glog "):
            self._record_voted = True
            self.vote_engine("vllm")

    def note_process(self, process: str) -> None:
        """A line's process tag. Both engines name a rank in it only for a parallelism that is active: vLLM's
        workers are `Worker_TP1_EP1` (`_TP` when tensor_parallel_size > 1, `_PP` when pipeline_parallel_size > 1,
        `_EP` with expert parallelism), SGLang's records `[... TP1 EP1]` (TP / PP / EP when that size is > 1); vLLM
        0.10's `VllmWorker TP3` too. So a tag proves the parallelism even where the launch command is not pasted.
        (`EngineCore_DP0` and SGLang's `DP0` are there at any data-parallel size: no fact.)"""
        if process in self._processes or len(self._processes) >= MAX_PROCESS_TAGS:
            return
        self._processes.add(process)
        if _RANKED_PROCESS.match(process):
            for m in _RANK.finditer(process):
                self._ranks.setdefault(m.group(1), process.split(" pid=")[0])

    # -- lines -----------------------------------------------------------------------------------
    def feed(self, text: str, process: str | None = None, line_no: int | None = None, last_no: int | None = None,
             record: str | None = None) -> None:
        """One line of the log. With line numbers, a gap (lines the scan did not select) ends a command
        continued with backslashes: what comes after the gap is not part of it. (`last_no`: the number of the last
        line of a line that a terminal's wrap had cut into several; `record`: the logging prefix peeled off it.)"""
        if line_no is not None:
            if self._pending_command is not None and self._last_line is not None and line_no > self._last_line + 1:
                self._end_command()
            self._last_line = line_no if last_no is None else max(line_no, last_no)
        if process:
            if process.startswith(("EngineCore", "VllmWorker", "Worker_", "APIServer", "RayWorkerWrapper")):
                self.vote_engine("vllm")
            elif re.match(r"(?:DP\d+ )?(?:PP\d+ )?TP\d+|SGLang", process):
                self.vote_engine("sglang")
        if self._pending_command is not None:
            stripped = text.strip()
            if _ELISION.fullmatch(stripped):
                return  # the reporter's `.....` for flags left out: the command goes on below it
            self._pending_command.append(stripped.rstrip("\\").strip())
            if not stripped.endswith("\\") or len(self._pending_command) > 200:
                self._end_command()
            return
        flow = _YAML_FLOW.match(text) if "[" in text else None
        if flow:
            self._yaml_items.extend(_unquote(i.strip()) for i in split_top_level(flow.group("items")) if i.strip())
            return
        setting = _YAML_SETTING.match(text) if ":" in text else None
        if setting:
            # an engine config pasted as YAML (vllm-omni's stage_args, a serve config file): `tensor_parallel_size: 2`
            self.put(_CONFIG_FACTS[setting.group("key")], _number(setting.group("value")), "log: YAML config", P_HINT)
            return
        item = _YAML_ITEM.match(text) or (_JSON_ITEM.match(text) if '"' in text else None)
        if item:
            self._yaml_items.append(_unquote(item.group("item")))
            return
        if self._yaml_items:
            self._flush_yaml()
        if self._asked_version is not None:
            (fact, asked_at), self._asked_version = self._asked_version, None
            answer = _VERSION_ANSWER.match(text)
            adjacent = asked_at is None or line_no is None or line_no == asked_at + 1
            version = clean_version(answer.group("v")) if answer and fact and adjacent else None
            if version:
                self.put(fact, version, "log: printed version", P_LISTING)
                if fact in ("vllm", "sglang"):
                    self.vote_engine(fact, 2)
                return
        asked = _VERSION_QUESTION.search(text) if "version" in text else None
        if asked:
            self._asked_version = (_PACKAGE_KEYS.get(asked.group("p") or asked.group("cli")), line_no)
        if record is not None and "tpu_" in record and _TPU_RECORD.search(record):
            self.put("platform", "tpu", "log: tpu-inference's records", P_HINT)
        if not _quick(text):
            return
        if (process or "vllm" in text or "sglang" in text) and _MACOS.search(text):
            # the engine's own process runs from a macOS install (a client's traceback pasted beside a Linux
            # server's log says nothing about the server)
            self.put("platform", "cpu", "log: the engine runs from a macOS install (no CUDA)", P_GUESS)
        self._line(text, record)

    def _flush_yaml(self) -> None:
        items, self._yaml_items = self._yaml_items, []
        if _upside_down(items):  # a newest-first export (Loki, Kibana) lists a manifest's command last item first
            items.reverse()
        joined = " ".join(shlex.quote(i) for i in items)
        if "serve" in items or any(i.startswith("--model") for i in items) or "sglang.launch_server" in joined:
            if "vllm" not in items and "sglang.launch_server" not in joined and not items[0].startswith("python"):
                joined = ("vllm " + joined) if "serve" in items else joined
            self._take_command(joined, P_COMMAND)
        else:
            for item in items:  # a bulleted list in prose (`- GPUs: NVIDIA 4090`): each bullet is a line
                if _quick(item):
                    self._line(item)

    def _end_command(self) -> None:
        """A command continued over lines with backslashes is complete: read it as one line."""
        joined, self._pending_command = " ".join(self._pending_command or ()), None
        if _SERVE.search(joined) or _DOCKER_VLLM.search(joined):
            self._line(joined)

    def _line(self, text: str, record: str | None = None) -> None:
        if "--" in text and len(self._loose_flags) < 40:
            self._loose_flags.update(m.group(0) for m in _LOOSE_FLAG.finditer(text))
        md = _MARKDOWN_KEY.match(text) if "**" in text else _MARKDOWN_ROW.match(text) if text[:1] == "|" else None
        if md:  # a report template's `- **vLLM version**: 0.10.2`: read as the listing line it stands for
            text = f"{md.group('k').strip()}: {md.group('v').strip()}"
        hand = _HAND_KEY.match(text) if ":" in text or "=" in text else None
        if hand:
            value = hand.group("v")
            if hand.group("tp") and value.isdigit():
                self.put("tp", int(value), "log: environment listing", P_LISTING)
            elif hand.group("quant") and value.lower() in _QUANT_WORDS:
                self.put("quantization_method", value.lower(), "log: environment listing", P_LISTING)
            elif hand.group("cuda") and value[:1].isdigit():  # (a release, not `CUDA: available`)
                self.put("cuda", value, "log: environment listing", P_LISTING)
        assign = _SHELL_ASSIGN.match(text) if "=" in text else None
        if assign and len(self._shell_vars) < 50:
            self._shell_vars[assign.group("name")] = _unquote(assign.group("value"))
        if "\\" in text and (_SERVE.search(text.replace(" \\ ", " ")) or "docker run" in text):
            flat = text.replace(" \\ ", " ")
            if flat.rstrip().endswith("\\"):
                # not the shell prompt (`$ vllm serve ...`) before it; a `docker run` whose image and arguments follow
                m = _SERVE.search(flat)
                start = m.start("cmd") if m else flat.index("docker run")
                if m and start > 0 and flat[start - 1] in "'\"`":
                    start -= 1  # the quote it opens ends it (`bash -c 'vllm serve ... \` ... `' > q.log &`)
                self._pending_command = [flat[start:].rstrip().rstrip("\\").strip()]
                return
            text = flat
        m = _SERVE.search(text)
        if m and not text.lstrip().startswith(("usage:", "File ")) and not _ARGPARSE_ERROR.match(text):
            cmd = m.group("cmd")
            opener = text[m.start("cmd") - 1: m.start("cmd")]
            # a launcher's record of its argument list (`arguments: [vllm serve ... --port 40021]`), a shell's quoted
            # command (`bash -c 'vllm serve ...' > q.log`), inline code in prose (`` `vllm serve ...` ``)
            closer = {"[": "]", "(": ")", "'": "'", '"': '"', "`": "`"}.get(opener)
            if closer:
                cmd = cmd.split(closer, 1)[0]
            self._take_command(cmd, P_COMMAND)
        else:
            d = _DOCKER_VLLM.search(text) or _LAUNCHER_ARGS.search(text)
            k = _KSERVE.search(text) if d is None and "huggingfaceserver" in text else None
            if d:
                self.vote_engine("vllm", 3)
                self._take_command("vllm serve " + d.group("args"), P_COMMAND)
            elif k:
                self.vote_engine("vllm", 3)
                args = re.sub(r"--model_id[ =]", "--model ", k.group("args")).replace("--backend vllm", "").replace("--backend=vllm", "")
                self._take_command("vllm serve " + args, P_COMMAND)
        prog = _ARGPARSE_PROG.match(text) if "usage: " in text or ": error: " in text else None
        if prog:  # the program argparse names: `vllm serve` / `vllm` is vLLM's CLI, `launch_server.py` SGLang's module
            self.vote_engine("sglang" if "launch_server" in prog.group("prog") else "vllm", 3)
        if "swift " in text and "--vllm_" in text:
            self._swift(text)
        if "_" in text and ("SGLANG_" in text or "VLLM_" in text):
            for name in {m.group(1).lower() for m in _ENGINE_ENV.finditer(text)}:
                self.vote_engine(name)
        if "docker" in text or "image" in text or "/" in text:
            im = _IMAGE.search(text)
            if im:
                engine = "sglang" if "sgl" in im.group("img") else "vllm"
                self.vote_engine(engine, 3)
                if im.group("tag") and im.group("tag")[:1] in "v0123456789":  # (not `cann8.5.0-a3`: a CANN release)
                    tag = clean_version(im.group("tag"))
                    if "ascend" in im.group("img"):
                        # vLLM-Ascend's image: its tag is the plugin's release, made for the vLLM release of the
                        # same number (v0.19.1rc1 runs on vLLM 0.19.1)
                        self.put("vllm_ascend", tag, "log: docker image tag", P_HINT)
                        self.put("platform", "npu", "log: vLLM-Ascend image", P_HINT)
                        tag = _base_release(tag)
                    self.put(f"{engine}_version_image", tag, "log: docker image tag", P_HINT)
        cfg = _ENGINE_CONFIG.search(text)
        if cfg:
            self.vote_engine("vllm", 5)
            version = cfg.group("ver") or cfg.group("ver2")  # (vLLM before 0.2 logged no version there)
            if version:
                self.put("vllm", clean_version(version), "log: engine start-up", P_STARTUP + 10)
            self._take_config(cfg.group("cfg") or cfg.group("cfg2") or "", "log: engine config", defaults=_VLLM_DEFAULT_VALUES)
            return
        ns = _NAMESPACE.search(text) if "Namespace(" in text else None
        if ns:  # vLLM 0.8's api server logs its whole argument namespace at start-up
            self.vote_engine("vllm", 3)
            self._take_config(ns.group("a"), "log: args Namespace", defaults=_VLLM_DEFAULT_VALUES)
            return
        nd = _NON_DEFAULT.search(text)
        if nd:
            self.vote_engine("vllm", 3)
            self._take_config(nd.group("d")[1:-1], "log: non-default args", colon=True)  # (one pair: a nested dict may end it)
            return
        sa = _SERVER_ARGS.search(text)
        if sa:
            self.vote_engine("sglang", 5)
            self._take_config(sa.group("a").rstrip(")"), "log: server_args", defaults=_SGLANG_DEFAULT_VALUES)
            return
        self._packages(text)
        self._hardware(text, record)
        if "out of memory" in text and "total capac" in text:
            self._memory_elsewhere(text)
        arch = _model_architecture(text) if "For" in text else None
        if arch and "is already registered" not in text:  # (a platform plugin re-registering classes at start-up)
            self.put("architecture", arch, "log", P_STARTUP)
        lm = _LINEAR_METHOD.search(text) if "LinearMethod" in text else None
        if lm:
            self.put("quantization_method", lm.group("q").lower(), "log: linear method " + lm.group(0), P_HINT)
        uq = _UNOPTIMIZED.search(text) if "not fully optimized yet" in text else None
        if uq:
            self.put("quantization_method", uq.group("q").lower(), "log: the engine's warning on its method", P_HINT)
        if "accept len: " in text and "Decode batch" in text:
            self.flags.add("--speculative-algorithm")  # SGLang reports the draft tokens accepted only when it drafts
        elif "SpecDecoding metrics:" in text:
            self.flags.add("--speculative-config")
        if "Qwen3" in text and "model_class" not in self._facts:
            cls = next((c for c in _QWEN_CLASS.findall(text) if vocab.family_of_class(c)), None)
            if cls:
                self.put("model_class", cls, "log: class " + cls, P_GUESS)
        ml = _MODEL_LINE.match(text) if ":" in text or "=" in text or "：" in text else None
        if ml and re.search(r"[A-Za-z]{2}", ml.group("m")):
            self.put("model", ml.group("m"), "log: environment listing (model)", P_HINT)
        snap = _SNAPSHOT_MODEL.search(text) if "HF snapshot" in text else None
        if snap:
            self.put("model", snap.group("m"), "log: the engine's weight download check", P_HINT)
        if "family_mention" not in self._facts and "Qwen" in text:
            fm = _FAMILY_WORD.search(text)
            if fm:
                self.put("family_mention", fm.group(0), "log: model family mentioned", P_GUESS)
        mid = _MODEL_ID.search(text if "models--" not in text else _HF_CACHE.sub(r"\1/\2", text))
        prose = _MODEL_PROSE.search(text) if mid is None and "Qwen" in text and "model_mention" not in self._facts else None
        if prose:  # a size in prose, `Qwen3 235B RL training hangs`: the model it names, spelled as a model id is
            self.put("model_mention", prose.group(0).replace(" ", "-"), "log: model name mentioned", P_GUESS)
        # (not a refusal's list of accepted names: argparse's "(choose from ...)", vLLM's parser check "(chose from {")
        if mid is None and "other_model_mention" not in self._facts and "se from " not in text:
            other = _OTHER_MODEL.search(text)
            if other and vocab.family_of_model(other.group("m")) == vocab.OTHER:
                self.put("other_model_mention", other.group("m"), "log: another family's model named", P_GUESS)
        if mid:
            old = self._facts.get("model_mention")
            new, prev = mid.group("m"), str(old.value) if old is not None else ""
            if old is not None and old.priority == P_GUESS and new.lower().startswith(prev.lower()) \
                    and re.fullmatch(r"[-_][\w.-]*\w", new[len(prev):]):
                del self._facts["model_mention"]  # a later, fuller name of the same model: Qwen3-235B -> Qwen3-235B-A22B-FP8
            self.put("model_mention", mid.group("m"), "log: model name mentioned", P_GUESS)
        # a line that merely names an engine (a container `vllm-server-1`, a path, a prose mention) is no evidence
        # of which engine wrote the log; the engine's own imports and modules are
        if "sglang/srt/" in text or "sglang.srt." in text or "sgl_kernel" in text or _SGLANG_OWN.search(text):
            self.vote_engine("sglang")
            self._sglang_code = True
        if "vllm" in text and (_VLLM_MODULE.search(text) or _VLLM_PLUGIN_MODULE.search(text)) \
                or "StageEngineCoreProc" in text or _VLLM_OWN.search(text):
            if _VLLM_LIBRARY.search(text):
                self._vllm_library += 1  # (counted in engine_votes: SGLang may be the one running it)
            else:
                self.vote_engine("vllm")  # (vLLM-Omni's stage engines are vLLM's engine cores)

    def _memory_elsewhere(self, text: str) -> None:
        """torch's OOM message gives the device's total, its free memory and what this process holds: what is left
        over is held by another process (a second server, an orphaned worker), even where NVML cannot name it."""
        m = _OOM_OLD.search(text) or _OOM_NEW.search(text)
        if m is None:
            return
        total, free, own = (_gib(m.group(k), m.group(k + "_u")) for k in ("total", "free", "own"))
        elsewhere = total - free - own
        held = f"{elsewhere:.1f} GiB" if elsewhere >= max(1.0, 0.1 * total) else "none"
        self.put("memory_held_elsewhere", held, "log: the figures of the OOM message", P_LISTING)

    def _swift(self, text: str) -> None:
        """ms-swift's launch with its vLLM backend (`swift rollout --model X --vllm_tensor_parallel_size 2 ...`): read
        as the vLLM command its arguments stand for."""
        args = " ".join(f"--{key.replace('_', '-')} {value}" for key, value in _SWIFT_ARG.findall(text))
        if _SWIFT_LORA.search(text) or "--adapters" in text and _SWIFT_UNMERGED.search(text):
            args += " --enable-lora"  # (its LoRA reaches vLLM as enable_lora=True, whatever the flag's spelling)
        self._take_command("vllm serve " + args, P_COMMAND)

    def _packages(self, text: str) -> None:
        if len(_LISTED.findall(text)) >= 2:
            # a listing flattened into one line (`Python: 3.11.13 ... sglang: 0.5.2 sgl_kernel: Module Not Found ...`)
            pieces = _LISTING_KEY.split(text)
            if len(pieces) > 1:
                for piece in pieces:
                    self._packages(piece)
                return
        kv = _KV.match(text) or _PIP_ROW.match(text)
        if kv:
            key = kv.group("k").strip().lower()
            fact = _PACKAGE_KEYS.get(key)
            if fact:
                value = kv.group("v")
                if "not found" in value.lower() or "could not collect" in value.lower() or value.upper() == "N/A":
                    return
                # a listing's value starts with the version ("vllm: 0.11.0", "torch==2.9.0+cu128"); a line such as
                # `vllm: error: unrecognized arguments: ... "factor":4.0` only looks like one
                version = clean_version(value.strip("`")) if _VERSION_FIRST.match(value) else None
                if version:
                    self.put(fact, version, "log: environment listing", P_LISTING)
                    if fact in ("vllm", "sglang"):
                        # SGLang's check_env lists vllm among its optional packages; vLLM's listing never names SGLang
                        self.vote_engine(fact, 3 if fact == "sglang" else 2)
                    return
        if text.startswith("Name: "):
            self._listed_package = text[6:].strip().lower()  # `pip show vllm`: its Version: line follows
        elif text.startswith("Version: ") and self._listed_package in _PACKAGE_KEYS:
            # (every package a listing names: `pip show flashinfer-python` gives flashinfer's release as well)
            fact = _PACKAGE_KEYS[self._listed_package]
            version = clean_version(text[9:].strip())
            if version and fact not in ("python", "cuda", "cuda_build", "driver", "rocm"):
                self.put(fact, version, "log: pip show", P_LISTING)
                if fact in ("vllm", "sglang"):
                    self.vote_engine(fact, 2)
            self._listed_package = None
        drv = _SMI_DRIVER.search(text) if "Driver Version" in text else None
        if drv:
            self.put("driver", drv.group("v"), "log: nvidia-smi", P_LISTING - 5)
        nv = _NVCC.search(text)
        if nv:
            self.put("cuda", nv.group("v"), "log: nvcc", P_LISTING - 5)
        smi = _CUDA_IN_SMI.search(text)
        if smi:
            self.put("cuda_driver_max", smi.group("v"), "log: nvidia-smi", P_HINT)
        if "vllm" in text.lower() and "python" not in text.lower()[:20]:
            # (not another release named in a sentence: "This will be removed in vLLM v0.24.0")
            found = [v for v in _VLLM_VERSION.finditer(text) if not _OTHER_RELEASE.search(text[: v.start()])][:4]
            # a vendor's image tag is the vendor's release numbering, not vLLM's: the build the same line names wins
            # (`intel/llm-scaler-vllm:0.14.0-b8.3.1 (vLLM 0.14.1.dev0+gb17039bcc)`)
            plain = [v for v in found if not _vendor_tag(text, v)]
            v = (plain or found or [None])[0]
            if v:
                version = clean_version(v.group("v") or v.group("v2") or v.group("v3") or (v.group("v4") or "").replace("-", "."))
                if version:
                    self.put("vllm", version, "log: version mention" if plain else "log: a vendor image's tag", P_HINT if plain else P_HINT - 5)
                    self.vote_engine("vllm")
        asc = _ASCEND_VERSION.search(text) if "scend" in text else None
        if asc and not _OTHER_RELEASE.search(text[: asc.start()]):
            # the plugin's release named with it (`vLLM-ascend0.11.0rc2-310p`, `vllm-ascend v0.13.0rc1`): made for the
            # vLLM release of the same number
            self.put("vllm_ascend", clean_version(asc.group("v")), "log: version mention", P_HINT)
            self.put("vllm", _base_release(clean_version(asc.group("v")) or ""), "log: the vLLM-Ascend release named",
                     P_HINT - 5)
            self.put("platform", "npu", "log: vLLM-Ascend", P_HINT)
            self.vote_engine("vllm")
        imp = _ENGINE_IMPORT.search(text) if "'" in text else None
        if imp:
            self.vote_engine(imp.group("e"), 2)
        if "sglang" in text.lower():
            v = _SGLANG_VERSION.search(text)
            if v and _OTHER_RELEASE.search(text[: v.start()]):
                v = None
            if v:
                version = clean_version(v.group("v") or v.group("v2") or "")
                if version:
                    self.put("sglang", version, "log: version mention", P_HINT)
                    # (as in a listing: SGLang needs vllm installed for its borrowed layers, vLLM never needs SGLang,
                    # so a paste naming both releases is SGLang's: "Sglang 0.4.6.post2 ... install vllm 0.8.4", sglang#6000)
                    self.vote_engine("sglang", 2)

    def _hardware(self, text: str, record: str | None = None) -> None:
        own = _DEVICE_CC.search(text) if "GPU has compute capability" in text else None
        if own:
            self.put("gpu", " ".join(own.group("g").split()), "log: the engine's dtype check", P_LISTING)
            self.put("compute_capability", own.group("cc"), "log: the engine's dtype check", P_LISTING)
        g = next((m for m in _GPU_NAME.finditer(text) if not _GPU_TARGET.search(text, max(0, m.start() - 40), m.start())), None)
        if g:
            name = " ".join(g.group("g").split())
            self.put("gpu", name, "log", P_LISTING)
            n = _GPU_COUNT.search(text)
            if n:
                count = int(n.group("n")) if n.group("n") else len(n.group("list").split(","))
                self.put("gpu_count", count, "log", P_LISTING)
            elif _GPU_ROW.fullmatch(text, 0, g.start()):
                self._gpu_seen(name)  # (a row of a listing, not prose naming the GPU twice: `an NVIDIA GB10 (Grace ...)`)
        elif (labelled := _GPU_LABEL.match(text) if ":" in text or "=" in text else None) is not None:
            # a reporter's `GPU: H100 (sm_90)` / `Hardware: 8x H20`: a short name, no vendor in front
            self.put("gpu", _vendor_name(labelled.group("g")), "log: a GPU named by hand", P_HINT)
            if labelled.group("n"):
                self.put("gpu_count", int(labelled.group("n")), "log: a GPU named by hand", P_HINT)
        elif "x" in text or "×" in text:
            glued = _GPU_GLUED.search(text)
            if glued:
                self.put("gpu", _vendor_name(glued.group("g")), "log", P_HINT)
                self.put("gpu_count", int(glued.group("n")), "log", P_HINT)
        cc = _CC.search(text)
        if cc and not cc.group("cc") and _CC_NEEDED.search(text, max(0, cc.start() - 40), cc.end() + 25):
            cc = None  # what a kernel needs (`FlashInfer requires GPU's with sm75 or higher`), not what the GPU is
        if cc and ("Capability" in text or "capability" in text or "sm" in text):
            value = cc.group("cc") or cc.group("cc2")
            if not value:
                sm = cc.group("sm") or cc.group("sm2")
                value = f"{sm[:-1]}.{sm[-1]}" if sm and "sm" in text and not text.lstrip().startswith("File") else None
            if value:
                self.put("compute_capability", value, "log", P_LISTING)
        banner_record = record is not None and " utils.py:" in record  # (vLLM's banner logs from utils.py)
        if "█" in text or "version" in text:
            banner = _BANNER.search(text) or (_PLAIN_BANNER.match(text) if banner_record else None)
            if banner:
                self.put("vllm", banner.group(1), "log: start-up banner", P_STARTUP)
                self.vote_engine("vllm", 2)
        if ("█" in text or banner_record or "vLLM server" in text) and "model" in text:
            shown = _BANNER_MODEL.search(text) or (_PLAIN_BANNER_MODEL.match(text) if banner_record else None)
            if shown:
                self.put("model", shown.group(1) or shown.group(2), "log: start-up banner", P_STARTUP)
                self.vote_engine("vllm", 2)
        plat = _PLATFORM_LINE.search(text)
        if plat:
            name = plat.group(1).lower()
            self.put("platform", _PLATFORM_NAMES.get(name, name), "log: platform line", P_STARTUP)
        elif _PLATFORM_PROBE.search(text):
            pass
        elif re.search(r"ROCm(?!: Disabled)|HIP error|hipError|hipBLASLt|hipblasLt\w|HIPBLAS_STATUS_|ATen/hip/|rocdevice|HSA_STATUS|gfx9\d\d|gfx1[0-2]\d\d|amdgpu(?: [\da-fA-F]{4}:[\da-fA-F:.]+)?: |/aiter(?:_meta)?/|"
                       # (a HIP source's own assert: `csrc/rocm/skinny_gemms.hip:497: ... Device-side assertion`)
                       r"\.hip:\d+: |/csrc/rocm/|"
                       r"^\[aiter\]|^MIOpen\(HIP\)|\brocBLAS\b|\bin forward_hip$|"
                       # (vLLM's ROCm-only AITER modules in a frame: `v1/attention/backends/mla/rocm_aiter_mla.py`)
                       r"/rocm_aiter_\w+\.py\b|"
                       # (SGLang's AMD-only attention backends, chosen on the command line)
                       r"--attention-backend[= ](?:aiter|wave)\b", text):
            # (AITER, AMD's kernel library, exists only for ROCm; so do MIOpen and rocBLAS, the RDNA gfx1xxx names, and
            # the `forward_hip` branch a custom op takes there)
            self.put("platform", "rocm", "log", P_HINT)
        elif _NPU_HINT.search(text) or CANN_RECORD.match(text) or _CANN_RUNTIME.search(text):
            # (the CANN runtime's report of a failed device task is an NPU's, as a CUDA error is a GPU's: sglang#10421)
            self.put("platform", "npu", "log", P_HINT)
        elif "Maca" in text and "flash attention" in text:
            self.put("platform", "maca", "log: MetaX's flash attention", P_HINT)
        elif _XPU_HINT.search(text):
            self.put("platform", "xpu", "log: an Intel GPU", P_HINT)
        elif _HPU_HINT.search(text):
            self.put("platform", "hpu", "log: an Intel Gaudi", P_HINT)
        elif ".py" in text and _CPU_HINT.search(text):
            self.put("platform", "cpu", "log: vLLM's CPU worker", P_HINT)
        elif _TPU_HINT.search(text):
            self.put("platform", "tpu", "log: a TPU", P_HINT)
        elif "rocm" in text and _ROCM_TAG.search(text):
            self.put("platform", "rocm", "log: a ROCm image", P_HINT)
        elif "cu" in text and _CUDA_TAG.search(text):
            self.put("platform", "cuda", "log: a CUDA image", P_HINT)
        elif _METAL_HINT.search(text):
            self.put("platform", "metal", "log: Apple silicon (an MLX server or vllm-metal)", P_HINT)
        elif _CUDA_HINT.search(text):
            self.weak_platform("cuda", "log: an NVIDIA-only library, driver or device-mask line")
        elif _CANN_PYTHON_HOME.search(text):
            self.weak_platform("npu", "log: the CANN images' Python home")
        if "gml" in text or "GML" in text or "llama" in text or "level=" in text or "ollama" in text or "text_generation_" in text:
            other = next((name for name, pattern in _OTHER_RUNTIME if pattern.search(text)), None)
            if other:
                self.put("runtime", other, "log: its own records", P_HINT)
        row = _NPU_ROW.match(text) if "|" in text else None
        if row:
            self.put("gpu", "Ascend " + row.group("chip"), "log: npu-smi", P_LISTING)
            self.put("platform", "npu", "log: npu-smi", P_LISTING)
        if "device_name=" in text:
            dev = _MOE_CONFIG_DEVICE.search(text)
            if dev:
                self.put("gpu", dev.group("d").replace("_", " "), "log: the MoE kernel config's device name", P_HINT)

    def _gpu_seen(self, name: str) -> None:
        self._gpu_rows = getattr(self, "_gpu_rows", 0) + 1
        self._facts["gpu_count_rows"] = _Candidate(self._gpu_rows, "log: GPU listing", 0)

    # -- commands and configs --------------------------------------------------------------------
    def _take_command(self, command: str, priority: int) -> None:
        command = _REDIRECT.split(command, 1)[0]  # `... > out.txt 2>&1 &`, `... | tee x.log`: the shell's, not the server's
        if "$" in command and self._shell_vars:
            # a variable the paste set before the command: `export MODEL=Qwen/Qwen3-8B` ... `vllm serve $MODEL`
            command = _SHELL_REF.sub(lambda m: self._shell_vars.get(m.group(1) or m.group(2), m.group(0)), command)
        cmd = read_command(command.strip())
        if not cmd.tokens:
            return
        engine = cmd.engine
        self.vote_engine(engine, 5)
        if cmd.prose and not cmd.flags:
            # a sentence that names the command ("I run vllm serve and then it crashes:"): the engine, but no launch
            # to read flags or a model from (Qwen3#1349)
            self.put("engine_from_command", engine, "log: serve command", priority)
            return
        if self.serve_command is None:
            self.serve_command = shlex.join(cmd.tokens)
            self.put("serve_command", self.serve_command, "log: serve command", priority)
        self.flags_known = True
        for f in cmd.flags:
            self.flags.add(f.name)
            if f.name in _RUNNER_FLAGS and f.value:
                self._runner(f.value, "log: serve command", priority)
            elif f.name == "--is-embedding" and (f.value is None or f.value.lower() not in _FALSY):
                self._runner("pooling", "log: serve command", priority)
            if f.name in _VALUE_FACTS and f.value is not None and f.name not in ("--model", "--model-path"):
                self.put(_VALUE_FACTS[f.name], _number(f.value), "log: serve command", priority)
            if f.name in ("--enforce-eager", "--disable-cuda-graph"):
                self.put("cuda_graphs", "off", "log: serve command", priority)
            if f.name == "--compilation-config" and f.value and "NONE" in f.value.upper() and "cudagraph_mode" in f.value:
                self.put("cuda_graphs", "off", "log: serve command", priority)
        if cmd.model and "$" not in cmd.model:  # (not a shell variable: `--model "${MODEL_NAME}"`)
            self.put("model", cmd.model, "log: serve command", priority)
        self.put("engine_from_command", engine, "log: serve command", priority)

    def _take_config(self, text: str, source: str, *, colon: bool = False, defaults: dict | None = None) -> None:
        """Facts and flags from a configuration dump: `non-default args` holds only what was set; an engine's whole
        configuration (`defaults` given) makes a flag only of a value that differs from the engine's default."""
        self.flags_known = True
        for part in split_top_level(text):
            if colon:
                key, _, value = part.partition(":")
                key = _unquote(key)
            else:
                key, _, value = part.partition("=")
            key, value = key.strip(), _unquote(value)
            if not key:
                continue
            if key == "served_model_name" and value.startswith("["):
                value = _unquote(value.strip("[]").split(",")[0].strip())  # (a list of names: the first)
            if key in _CONFIG_FACTS and value.lower() not in _FALSY:
                fact = _CONFIG_FACTS[key]
                self.put(fact, _number(value), source, P_CONFIG)
            device = value.strip("'\"").lower() if key in ("device_config", "device") else ""
            if device == "cuda":
                # (PyTorch names a ROCm GPU `cuda` too: SGLang on an MI300X prints device='cuda', so this is only as
                # strong as any other CUDA sign, and a ROCm line or an AMD GPU's name outranks it)
                self.weak_platform("cuda", source)
            elif device in ("npu", "xpu", "cpu", "tpu", "hpu", "rocm"):
                self.put("platform", device, source, P_STARTUP + 5)
            if key in ("task", "runner", "runner_type", "convert", "convert_type") or key == "is_embedding" and value == "True":
                self._runner("pooling" if key == "is_embedding" else value, source, P_CONFIG)
            if key in ("enforce_eager", "disable_cuda_graph") and value == "True":
                self.put("cuda_graphs", "off", source, P_CONFIG)
            if key == "compilation_config" and "'cudagraph_mode': <CUDAGraphMode.NONE" in value:
                self.put("cuda_graphs", "off", source, P_CONFIG)
            flag = "--" + key.replace("_", "-")
            if value.lower() not in _FALSY and (defaults is None or _set_flag(key, value, defaults)):
                self.flags.add(flag)

    def _runner(self, value: str, source: str, priority: int) -> None:
        runner = _RUNNER_OF.get(value.strip("'\"").lower())
        if runner is not None and (runner == "pooling" or self._facts.get("runner") is None):
            # (`--runner pooling --convert embed` and `--task embed --runner generate` both ask for pooling: any flag
            # that asks for it wins)
            self.put("runner", runner, source, priority + (1 if runner == "pooling" else 0))

    def note_frames(self, crashes) -> None:
        """The model implementation a traceback runs through (`models/qwen3_5.py`) names the family when
        nothing else does; the outermost model file wins (Qwen3.5 calls into qwen3_next.py for its GDN layers)."""
        seen: dict[str, str] = {}  # model file -> the frame's file name, outermost first
        other = None  # the first file of another family's own implementation (not a helper any family passes)
        drafted = False  # a draft model's file: an EAGLE drafter of the Llama architecture serves Qwen3 targets
        for crash in crashes:
            for frame in crash.frames:
                m = _MODEL_FILE.search(frame.file)
                if m:
                    seen.setdefault(m.group(1), frame.file.rsplit("/", 1)[-1])
                    continue
                m = _ANY_MODEL_FILE.search(frame.file.replace("\\", "/"))
                if m:
                    parts = [part for part in (m.group("dir"), m.group("file")) if part]
                    drafted = drafted or any(_DRAFT_MODEL_FILE.search(part) for part in parts)
                    if other is None and not any(_SHARED_MODEL_FILE.match(part) for part in parts):
                        other = (parts[0], frame.file.rsplit("/", 1)[-1])
        for name, file in seen.items():
            if not any(base in seen for base in _BASE_OF.get(name, ())):
                self.put("model_file", name, "log: traceback frame " + file, P_GUESS)
                return
        if other is not None and not seen and not drafted:
            # no Qwen file and no drafter: that other family's file says the model is not a Qwen3 one
            self.put("other_model_file", other[0], "log: traceback frame " + other[1], P_GUESS)

    # -- result ----------------------------------------------------------------------------------
    def facts(self, *, derived: bool = True) -> dict[str, Fact]:
        if self._pending_command:
            self._end_command()
        if self._yaml_items:
            self._flush_yaml()
        out: dict[str, Fact] = {k: Fact(c.value, c.source) for k, c in self._facts.items()}
        for kind, tag in self._ranks.items():
            out.setdefault(f"{kind.lower()}_tag", Fact(tag, f"log: process tag `{tag}`"))
        if derived:
            derive(out, self.engine_votes)
        return out

    @property
    def engine_votes(self) -> dict[str, int]:
        """The votes; lines of vLLM's layer code count for vLLM only in a log without SGLang's own code: SGLang (up
        to 0.4.9) runs vLLM's quantization and MoE layers inside its scheduler, so its tracebacks pass through
        `vllm/model_executor/layers/...` while no vLLM engine runs (sglang#6000)."""
        votes = dict(self._engine_votes)
        if not self._sglang_code:
            votes["vllm"] += self._vllm_library
        return votes

    @property
    def loose_flags(self) -> frozenset[str]:
        """The `--flag` words seen anywhere (prose, inline code), for an engine nothing else names."""
        return frozenset(self._loose_flags)


# SGLang prints every argument, defaults included: an argument counts as a flag only when its value is not the
# default (None: the engine fills the argument in itself, such as the attention backend it picks or the memory fraction
# it computes, so its value says nothing of the launch). An argument left out whose unset value prints as None or
# 'none' (the tool-call and reasoning parsers, the MoE all-to-all backend) is a flag whenever it holds anything else.
_SGLANG_DEFAULT_VALUES = {
    "tp_size": "1", "pp_size": "1", "dp_size": "1", "ep_size": "1", "nnodes": "1", "node_rank": "0",
    "page_size": "1", "stream_interval": "1", "random_seed": None, "base_gpu_id": "0", "gpu_id_step": "1",
    "dcp_size": "1",
    **dict.fromkeys((
        "model_path", "tokenizer_path", "tokenizer_mode", "host", "port", "dtype", "kv_cache_dtype",
        "mem_fraction_static", "attention_backend", "sampling_backend", "chunked_prefill_size", "max_prefill_tokens",
        "schedule_policy", "log_level", "load_format", "device", "served_model_name", "context_length",
        "max_running_requests", "grammar_backend", "cuda_graph_max_bs", "cuda_graph_bs", "watchdog_timeout",
        "dist_timeout", "download_dir", "schedule_conservativeness", "decode_log_interval", "file_storage_path",
        "constrained_json_whitespace_pattern", "mm_attention_backend",
        "moe_runner_backend", "hicache_ratio", "hicache_size", "mamba_ssm_dtype",
    )),
}


# vLLM's engine configuration line (`Initializing a V1 LLM engine (v0.11.0) with config: model=..., ...`) prints every
# key, most of them not a flag by that name (max_seq_len, device_config, served_model_name ...)
_VLLM_DEFAULT_VALUES = {
    "tokenizer_mode": "auto", "load_format": "auto", "kv_cache_dtype": "auto", "tensor_parallel_size": "1",
    "pipeline_parallel_size": "1", "data_parallel_size": "1", "seed": "0", "decode_context_parallel_size": "1",
    "prefill_context_parallel_size": "1", "dcp_comm_backend": None, "cp_kv_cache_interleave_size": None,
    **dict.fromkeys((
        "model", "tokenizer", "revision", "tokenizer_revision", "dtype", "max_seq_len", "download_dir", "device_config",
        "served_model_name", "decoding_config", "structured_outputs_config", "observability_config", "pooler_config",
        "compilation_config", "chunked_prefill_enabled", "use_async_output_proc",
        "override_neuron_config", "multi_step_stream_outputs", "num_scheduler_steps", "use_v2_block_manager",
    )),
}


def _set_flag(key: str, value: str, defaults: dict) -> bool:
    """A configuration key is a flag that was set: not at its default (None: the key always carries a value)."""
    if key not in defaults:
        return True
    default = defaults[key]
    return default is not None and value != default


def _number(value: str) -> object:
    try:
        return int(value)
    except (TypeError, ValueError):
        return value


MAX_PROCESS_TAGS = 256  # distinct process tags read for ranks (a Ray cluster's tags carry one pid each)
# a process tag that names ranks: `Worker_TP1_EP1`, `VllmWorker TP3`, SGLang's `DP0 TP3 EP3` (not `EngineCore_DP0`)
_RANKED_PROCESS = re.compile(r"Worker_|VllmWorker |(?:[A-Z_]+\d+(?: |$))+$")
_RANK = re.compile(r"(?:^|[_ ])(TP|PP|EP)\d+(?=[_ ]|$)")
PARALLEL_KINDS = (("TP", "tp"), ("PP", "pp"), ("EP", "ep"))


def _derive_parallel(out: dict[str, Fact]) -> None:
    """`parallel`: the parallelisms the log shows active (`TP`, `PP`, `EP`, space-separated; `none` when the log
    states sizes of 1 and no tag shows one), from the sizes it states (`tensor_parallel_size=4`) and from the ranks
    its process tags name. A rule for a cause only tensor parallelism meets gates on it (`when: env: {parallel:
    TP}`): a log whose launch is cut off but whose workers are `Worker_TP1` still proves it."""
    active: list[str] = []
    sources: list[str] = []
    stated = False
    for kind, key in PARALLEL_KINDS:
        size = out.get(key)
        tag = out.pop(f"{key}_tag", None)
        number = size.value if size is not None and isinstance(size.value, int) else None
        stated = stated or number is not None
        if number is not None and number > 1:
            active.append(kind)
            sources.append(f"{key} {number}")
        elif tag is not None and number is None:
            active.append(kind)
            sources.append(f"process tag `{tag.value}`")
    if active:
        out.setdefault("parallel", Fact(" ".join(active), "log: " + ", ".join(dict.fromkeys(sources))))
    elif stated:
        out.setdefault("parallel", Fact("none", "log: parallel sizes of 1"))


_ASCEND_VERSION = re.compile(r"\bvllm[-_ ]ascend(?:\s+version)?[\s:=`'v-]*(?P<v>\d+\.\d+\.\d+(?:rc\d+)?)(?![\d.])", re.I)
_LOOSE_FLAG = re.compile(r"(?<![\w-])--[a-z][a-z0-9]*(?:-[a-z0-9]+)+")


def derive(out: dict[str, Fact], votes: dict[str, int]) -> None:
    """Fill the derived facts: engine, engine_version, family, quantization, compute capability, platform."""
    if "engine" not in out:
        from_cmd = out.get("engine_from_command")
        if votes["vllm"] or votes["sglang"]:
            engine = "sglang" if votes["sglang"] > votes["vllm"] else "vllm"
            if from_cmd and votes[from_cmd.value] >= votes[engine] - 4:
                engine = from_cmd.value
            out["engine"] = Fact(engine, "log")
    engine = out["engine"].value if "engine" in out else None
    if engine and "engine_version" not in out:
        for key in (engine, f"{engine}_version_image"):
            if key in out and parse_version(str(out[key].value)) is not None and _plausible(engine, out[key].value):
                out["engine_version"] = Fact(out[key].value, out[key].source)
                break
    model = out.get("model") or out.get("served_model_name") or out.get("model_mention")
    if "family" not in out:
        fam = None
        if model:
            fam = vocab.family_of_model(str(model.value))
            if fam:
                out["family"] = Fact(fam, model.source)
        if not fam and "architecture" in out:
            fam = vocab.family_of_architecture(str(out["architecture"].value))
            if fam:
                out["family"] = Fact(fam, "log: architecture " + str(out["architecture"].value))
        if not fam and "served_model_name" in out and model is not out["served_model_name"]:
            # (a local folder, `--model .`, says nothing; the name it is served under often does)
            served = out["served_model_name"].value
            fam = vocab.family_of_model(str(served[0] if isinstance(served, (list, tuple)) and served else served))
            if fam:
                out["family"] = Fact(fam, out["served_model_name"].source + " (served model name)")
        if not fam and "model_mention" in out and model is not out["model_mention"]:
            fam = vocab.family_of_model(str(out["model_mention"].value))
            if fam:
                out["family"] = Fact(fam, out["model_mention"].source)
        if not fam and "model_file" in out:
            fam = _MODEL_FILE_FAMILY.get(str(out["model_file"].value))
            if fam:
                out["family"] = Fact(fam, out["model_file"].source)
        if not fam and "model_class" in out:
            fam = vocab.family_of_class(str(out["model_class"].value))
            if fam:
                out["family"] = Fact(fam, out["model_class"].source)
        if not fam and "family_mention" in out:
            fam = vocab.family_of_model(str(out["family_mention"].value))
            if fam:
                out["family"] = Fact(fam, out["family_mention"].source)
        if not fam and "other_model_file" in out:
            out["family"] = Fact(vocab.OTHER, f"{out['other_model_file'].source} ({out['other_model_file'].value})")
        if not fam and "other_model_mention" in out:
            out["family"] = Fact(vocab.OTHER, f"{out['other_model_mention'].source} ({out['other_model_mention'].value})")
    if "quantization" not in out:
        quant = None
        if "quantization_method" in out:
            quant = vocab.quantization_of(str(out["quantization_method"].value))
            # the model's name may say which of the method's formats it is: `fp8` with Qwen's block-FP8 checkpoint,
            # `gptq_marlin` with a `-GPTQ-Int8` one
            named = vocab.quantization_of(str(model.value), from_model_name=True) if quant and model else None
            if named and named != quant and vocab.quant_covers(quant, named):
                quant = named
            if quant:
                out["quantization"] = Fact(quant, out["quantization_method"].source)
        if not quant and model and str(out["quantization_method"].value if "quantization_method" in out else "") \
                not in OWN_FORMAT_METHODS:
            # (a container method names no format: `compressed-tensors`, `modelopt` leave the model's name to say it;
            # but vLLM-Ascend's `--quantization ascend` export is Ascend's own int format, and its W4A4 is no NVFP4)
            quant = vocab.quantization_of(str(model.value), from_model_name=True)
            if quant:
                out["quantization"] = Fact(quant, model.source + " (model name)")
        if not quant and "dtype" in out and "quantization_method" not in out:
            # (a method the vocabulary cannot place, `sym_int4`, `compressed-tensors` on an unnamed model, is still no
            # unquantized model: the activations' dtype says nothing of the weights then)
            quant = vocab.quantization_of(str(out["dtype"].value))
            if quant in ("bf16", "fp16"):
                out["quantization"] = Fact(quant, out["dtype"].source + " (dtype)")
    if "gpu" in out and "compute_capability" not in out:
        cc = vocab.compute_capability_of(str(out["gpu"].value))
        if cc:
            out["compute_capability"] = Fact(cc, "derived from the GPU name")
    size = _GPU_SIZE.search(str(out["gpu"].value)) if "gpu" in out and "gpu_memory_mib" not in out else None
    if size:  # `A100-SXM4-40GB`, `H100 80GB HBM3`, `Tesla V100-SXM2-32GB`: the card's memory, in the GiB its name means
        out["gpu_memory_mib"] = Fact(int(size.group(1)) * 1024, "derived from the GPU name")
    if "gpu_count" not in out and "gpu_count_rows" in out and out["gpu_count_rows"].value > 1:
        out["gpu_count"] = Fact(out["gpu_count_rows"].value, "log")
    out.pop("gpu_count_rows", None)
    if "platform" not in out:
        if "gpu" in out:
            plat = vocab.platform_of_gpu(str(out["gpu"].value))
            if plat:
                out["platform"] = Fact(plat, "derived from the GPU name")
        elif "rocm" in out:
            out["platform"] = Fact("rocm", out["rocm"].source)
        else:
            # a build for one platform says so in its version's local part: `0.11.1+cpu`, `0.6.7.dev2+g1132.rocm630`
            for key in ("vllm", "sglang"):
                build = _BUILD_PLATFORM.search(str(out[key].value)) if key in out else None
                if build:
                    out["platform"] = Fact(build.group(1), f"{out[key].source} (a {build.group(1)} build of {key})")
                    break
    _derive_parallel(out)
    weak = out.pop("weak_platform", None)
    if "platform" not in out and weak is not None:
        out["platform"] = weak


def build(facts: dict[str, Fact], flags: set[str], flags_known: bool, conflicts: tuple[str, ...] = ()) -> Environment:
    return Environment(facts=dict(facts), flags=frozenset(flags), flags_known=flags_known, conflicts=conflicts)


def _plausible(engine: str, version: object) -> bool:
    """A version the engine could have: vLLM and SGLang are still 0.x; a typed `8.5.1.post1` (for 0.8.5.post1) or a
    CUDA or driver number caught beside the engine's name is no engine version."""
    v = parse_version(str(version))
    return v is not None and v.major <= 1
