"""The vocabularies: model families, quantization methods, GPUs, Python's error wording. Names in, canonical words out."""

from __future__ import annotations

import functools
import re

# (qwen3-tts, qwen3-asr: the speech models, of their own architectures - not the Qwen3 language model, still Qwen3s)
FAMILIES = ("qwen3", "qwen3-moe", "qwen3-vl", "qwen3-omni", "qwen3-next", "qwen3.5", "qwen3.5-moe", "qwen3-coder",
            "qwen3-tts", "qwen3-asr")
OTHER = "other"
# a rule's `libraries`: the kernel libraries, transports and tools its cause lives in. Those that exist for NVIDIA GPUs
# only (NVIDIA_ONLY: not DeepEP, which Ascend ports; nvcc, NVLink SHARP, NVSHMEM; NVFP4's kernels) rule the cause out
# on a platform that never loads them (an Ascend NPU, an Intel GPU or Gaudi, a CPU, a TPU, Apple silicon); those both
# engines load alike (ENGINE_AGNOSTIC) keep a rule filed under one engine reportable on the other
NVIDIA_ONLY = ("flashinfer", "deepgemm", "cutlass", "marlin", "trtllm", "cudnn", "nvfp4", "nvcc", "nvls", "nvshmem")
ENGINE_AGNOSTIC = ("flashinfer", "nccl", "gloo", "deepep", "triton")
LIBRARIES = NVIDIA_ONLY + ("nccl", "gloo", "deepep", "triton")
# served by packages of their own (vllm-omni, qwen-asr's plugin) as often as by the engine's registry: a release that
# registers none of their architectures is no sign the model cannot load
PLUGIN_SERVED = frozenset({"qwen3-tts", "qwen3-asr"})
# a rule naming the key also covers these detected families
FAMILY_COVERS = {"qwen3.5": {"qwen3.5-moe"}, "qwen3-moe": {"qwen3-coder"}}

QUANTIZATIONS = ("fp8", "fp8-block", "gptq-int4", "gptq-int8", "awq", "int8", "nvfp4", "mxfp4", "gguf", "bf16", "fp16")
# a GPTQ checkpoint with 8-bit weights (`Qwen3-32B-GPTQ-Int8`) runs on the GPTQ machinery (gptq_marlin, the MoE
# WNA16 kernels) that rules name `gptq-int4`, and it is an int8 checkpoint
QUANT_COVERS = {"fp8": {"fp8-block"}, "gptq-int4": {"gptq-int8"}, "int8": {"gptq-int8"}}

# argparse refusing a command line (the server never starts; exit code 2): `vllm serve: error: argument --x: invalid
# choice: ...`, `launch_server.py: error: unrecognized arguments: ...`. Its line names the program, not a command line
# (its choices are no model), and neither it nor the `usage:` line before it continues the line above.
ARGPARSE_ERROR = r"[\w./-]{1,40}(?: [\w./-]{1,20})?: error: "
# the program such a line (or its `usage:` line) names: `vllm` / `vllm serve` is vLLM's CLI, `launch_server` SGLang's
ARGPARSE_PROG = r"(?:usage: )?(?P<prog>vllm(?: serve)?|(?:sglang\.)?launch_server(?:\.py)?)(?:: error: | \[)"

# Python's own wording of an error, about any object: (the fragment every such message holds, the exception type it
# comes with, the shape of a whole line pasted without that type - None when the fragment alone is no safe sign of
# it). A rule pattern's literal inside a fragment is no evidence of that rule (judge.match); a pasted line of the
# shape is read as that exception (read.crash).
PYTHON_ERRORS = (
    ("object has no attribute", "AttributeError", r"^'?[\w.]+'? object has no attribute '\w+'"),
    ("has no attribute", "AttributeError", r"^module '[\w.]+' has no attribute '\w+'"),
    ("object is not subscriptable", "TypeError", r"^'?[\w.]+'? object is not subscriptable\b"),
    ("object is not iterable", "TypeError", r"^'?[\w.]+'? object is not iterable\b"),
    ("object is not callable", "TypeError", r"^'?[\w.]+'? object is not callable\b"),
    ("object does not support item assignment", "TypeError", None),
    ("got an unexpected keyword argument", "TypeError", r"\bgot an unexpected keyword argument '\w+'"),
    ("missing 1 required positional argument", "TypeError", r"\bmissing \d+ required positional arguments?: '\w+'"),
    ("required positional arguments", "TypeError", None),
    ("positional arguments but", "TypeError", None),
    ("were given", "TypeError", None),
    ("unsupported operand type(s) for", "TypeError", None),
    ("cannot import name", "ImportError", r"^cannot import name '\w+' from '[\w.]+'"),
    ("No module named", "ModuleNotFoundError", r"^No module named '[\w.]+'"),
    ("list index out of range", "IndexError", None),
    ("index out of range", "IndexError", None),
    ("not enough values to unpack", "ValueError", None),
    ("too many values to unpack", "ValueError", None),
    ("referenced before assignment", "UnboundLocalError", None),
    ("has no len()", "TypeError", None),
    ("is not in list", "ValueError", None),
    ("invalid literal for int() with base", "ValueError", None),
    ("can only concatenate", "TypeError", None),
    ("argument of type", "TypeError", None),
    ("must be str, not", "TypeError", None),
    ("expected str, bytes or os.PathLike object", "TypeError", r"\bexpected str, bytes or os\.PathLike object, not \w+"),
    ("object cannot be interpreted as an integer", "TypeError", None),
    ("division by zero", "ZeroDivisionError", None),
    # the operating system's words for a path it cannot find or open, about any file (a shell's `bad interpreter:
    # No such file or directory` as much as a missing weight shard): which path, not these words, tells causes apart
    ("No such file or directory", "FileNotFoundError", None),
    ("Permission denied", "PermissionError", None),
)

# maca: MetaX GPUs (the vllm-metax / MACA stack); musa: Moore Threads GPUs; metal: Apple silicon (vllm-metal, on MLX)
PLATFORMS = ("cuda", "rocm", "npu", "xpu", "hpu", "cpu", "tpu", "maca", "musa", "metal")


def family_covers(rule_family: str, detected: str) -> bool:
    return rule_family == detected or detected in FAMILY_COVERS.get(rule_family, ())


def quant_covers(rule_quant: str, detected: str) -> bool:
    return rule_quant == detected or detected in QUANT_COVERS.get(rule_quant, ())


_ARCH_FAMILY = (
    # (Qwen4Exp is the architecture of Qwen3.8-Flash-Next, named as its checkpoint is: a Qwen3-Next successor)
    (r"Qwen3NextFor|Qwen4ExpFor", "qwen3-next"),
    (r"Qwen3_5MoeFor|Qwen3_5_Moe", "qwen3.5-moe"),
    (r"Qwen3_5For|Qwen3_5Model", "qwen3.5"),
    (r"Qwen3OmniMoe|Qwen3Omni", "qwen3-omni"),
    (r"Qwen3TTS|Qwen3Tts", "qwen3-tts"),
    (r"Qwen3ASR|Qwen3Asr", "qwen3-asr"),
    (r"Qwen3VL", "qwen3-vl"),
    (r"Qwen3MoeFor|Qwen3MoeModel", "qwen3-moe"),
    (r"Qwen3For|Qwen3Model", "qwen3"),
    (r"Qwen2|DeepseekV|Llama|Mistral|Mixtral|Glm|GLM|ChatGLM|MiniMax|Kimi|GptOss|Gemma|Phi\d|InternLM|Baichuan", OTHER),
    # any other model class is another family's (`Olmo2ForCausalLM`, `DbrxForCausalLM`); not a Qwen class this table
    # does not know yet, nor the Transformers backend's wrapper, which runs whatever model it is given
    (r"^(?!Qwen|Transformers)[A-Z][A-Za-z0-9_]*For(?:CausalLM|ConditionalGeneration)", OTHER),
)
_ARCH_RES = tuple((re.compile(p), f) for p, f in _ARCH_FAMILY)
# the suffixes of a model's other classes (its config, processor, layers), which name the family as its
# architecture does: `Qwen3MoeConfig`, `Qwen3OmniMoeProcessor`, `Qwen3NextGatedDeltaNet`
_CLASS_SUFFIX = re.compile(r"(?:Text|Vision)?(?:Config|Processor|ImageProcessor|VideoProcessor|ProcessingInfo|"
                           r"Model|DecoderLayer|Attention|SparseMoeBlock|MLP|GatedDeltaNet|TokenizerFast|Tokenizer)$")


def family_of_class(name: str) -> str | None:
    """The family a Qwen3 model class names (`Qwen3MoeConfig` -> qwen3-moe), or None."""
    if not name.startswith("Qwen3"):
        return None
    stem = _CLASS_SUFFIX.sub("", name)
    return family_of_architecture(stem + "For") if stem != name else None


@functools.lru_cache(maxsize=4096)  # (the release index asks it of every architecture it registers, log after log)
def family_of_architecture(arch: str) -> str | None:
    for pattern, family in _ARCH_RES:
        if pattern.search(arch):
            return family
    return None


# (Qwen3's 235B and 30B are MoE models only: "Qwen3-235B" without its -A22B is still the MoE, NVIDIA-NeMo/RL#2140)
_MOE_SIZE = re.compile(r"\d+(?:\.\d+)?b-a\d+(?:\.\d+)?b|[-_]moe\b|a\d+b\b|^qwen3[-_ ]?(?:235|30)b\b")
_OTHER_MODELS = re.compile(
    r"deepseek|glm|llama|mistral|mixtral|minimax|kimi|gpt-oss|gemma|phi-?\d|qwen2|qwq|qwen1|"
    r"internlm|baichuan|yi-|falcon|nemotron|granite|ernie|hunyuan|step-?\d|ling-|opt-\d|facebook/"
)


def family_of_model(name: str) -> str | None:
    """Map a model id or path to a family; None when the name says nothing."""
    # (ModelScope's downloads spell a dot in a repo name `___`: `Qwen3___6-35B-A3B` is Qwen3.6-35B-A3B)
    low = name.lower().replace("___", ".").replace("_", "-")
    base = low.rstrip("/").rsplit("/", 1)[-1] if "/" in low else low
    for text in (base, low):
        fam = _family_of_text(text)
        if fam:
            return fam
    return None


def _family_of_text(low: str) -> str | None:
    if "qwen3" not in low:
        return OTHER if _OTHER_MODELS.search(low) else None
    speech = re.search(r"qwen3-?(tts|asr)", low)
    if speech:
        return f"qwen3-{speech.group(1)}"  # speech models of their own architectures, not the Qwen3 language model
    if re.search(r"qwen3[\w.-]*-next|qwen3next", low):
        return "qwen3-next"
    if re.search(r"qwen3\.[5-9]|qwen3-[5-9](?:-|$)|qwen3[5-9]", low):
        return "qwen3.5-moe" if _MOE_SIZE.search(low) else "qwen3.5"
    if "omni" in low:
        return "qwen3-omni"
    if re.search(r"qwen3-?vl", low):
        return "qwen3-vl"
    if "coder" in low:
        return "qwen3-coder"
    if _MOE_SIZE.search(low):
        return "qwen3-moe"
    return "qwen3"


_QUANT_NAMES = (
    # a llama.cpp file (`Qwen3-8B-Q4_K_M.gguf`): its own block formats, whatever bit width its name says
    (r"\.gguf\b|^gguf$", "gguf"),
    (r"nvfp4|modelopt[-_]?fp4|\bfp4\b|w4a4", "nvfp4"),
    (r"mxfp4", "mxfp4"),
    (r"gptq[-_]?int8|gptq[-_]8bit", "gptq-int8"),
    (r"w8a16|int8|w8a8[-_]?int", "int8"),
    (r"awq", "awq"),
    (r"gptq|int4|autoround|auto-round|w4a16|wna16|marlin", "gptq-int4"),
    (r"fp8|w8a8[-_]?fp8|float8", "fp8"),
    (r"bf16|bfloat16", "bf16"),
    (r"fp16|float16|half", "fp16"),
)
_QUANT_RES = tuple((re.compile(p, flags=re.I), q) for p, q in _QUANT_NAMES)
_ONLINE_INT = re.compile(r"^a?sym_int[48]$", re.I)


def quantization_of(name: str, *, from_model_name: bool = False) -> str | None:
    """Map a method name (`gptq_marlin`, `compressed-tensors`, ...) or a model name to the vocabulary."""
    if not name or name.lower() in ("none", "null"):
        return None
    if _ONLINE_INT.search(name):
        return None  # Intel's online weight-only formats (`--quantization sym_int4`): no GPTQ checkpoint, no Marlin
    for pattern, quant in _QUANT_RES:
        if pattern.search(name):
            if quant == "fp8" and from_model_name and re.search(r"(?i)qwen3", name) \
                    and not re.search(r"(?i)fp8[-_]dynamic|fp8[-_]static|w8a8", name):
                # Qwen's own FP8 checkpoints are fine-grained (128x128 block) FP8; community exports named
                # `-FP8-dynamic` / `-FP8-static` (llm-compressor) are per-channel or per-tensor
                return "fp8-block"
            if from_model_name and quant in ("bf16", "fp16"):
                return None
            return quant
    return None


# Compute capability by GPU name; first match wins, so specific names come first.
_GPU_CC = (
    (r"GB10\b|DGX Spark", "12.1"),
    (r"RTX PRO \d+ Blackwell|RTX 50\d0|RTX 5090|RTX 5080|RTX 5070|RTX 5060|NVIDIA 50[6-9]0|Blackwell Workstation|RTX PRO 6000", "12.0"),
    (r"Thor", "11.0"),
    (r"B300|GB300", "10.3"),
    (r"B200|GB200|B100", "10.0"),
    (r"H100|H200|H800|H20\b|GH200|H20-", "9.0"),
    (r"L40|L4\b|RTX 40\d0|NVIDIA 40[6-9]0|RTX 6000 Ada|RTX 4000 Ada|RTX 5000 Ada|Ada Generation|L20\b", "8.9"),
    (r"A100|A800|A30\b|A10\b", "8.0"),
    (r"RTX 30\d0|NVIDIA 30[6-9]0|A6000|A40\b|A10G|A5000|A4000|A2\b|RTX A\d+", "8.6"),
    (r"Orin", "8.7"),
    (r"T4\b|RTX 20\d0|NVIDIA 20[6-9]0|Quadro RTX|TITAN RTX", "7.5"),
    (r"V100|TITAN V", "7.0"),
    (r"P100", "6.0"),
    (r"P40|P4\b|GTX 10\d0", "6.1"),
)
_GPU_CC_RES = tuple((re.compile(p), cc) for p, cc in _GPU_CC)


def compute_capability_of(gpu: str) -> str | None:
    for pattern, cc in _GPU_CC_RES:
        if pattern.search(gpu):
            return cc
    return None


def platform_of_gpu(gpu: str) -> str | None:
    if re.search(r"(?i)AMD|Instinct|MI\d{3}|Radeon|gfx\d", gpu):
        return "rocm"
    if re.search(r"(?i)Ascend|NPU|910[BC]?", gpu):
        return "npu"
    if re.search(r"(?i)NVIDIA|GeForce|Tesla|RTX|\b[ABHLTV]\d{2,3}\b|GB\d+", gpu):
        return "cuda"
    return None


# Short names of the repositories that issue references use (`vllm#34948`, `verl#1368`) -> GitHub owner/name.
# One table for `explain`, links and `eval`.
REPOSITORIES = {
    "vllm": "vllm-project/vllm", "sglang": "sgl-project/sglang", "sglang-omni": "sgl-project/sglang-omni",
    "vllm-ascend": "vllm-project/vllm-ascend", "vllm-omni": "vllm-project/vllm-omni",
    "llm-compressor": "vllm-project/llm-compressor", "speculators": "vllm-project/speculators",
    "xinference": "xorbitsai/inference", "ascend-sglang": "ascend/sglang", "flashinfer": "flashinfer-ai/flashinfer",
    "deepep": "deepseek-ai/deepep", "verl": "verl-project/verl", "ktransformers": "kvcache-ai/ktransformers",
}
_SHORT_OF = {full.lower(): short for short, full in REPOSITORIES.items() if short in ("vllm", "sglang")}


def full_repository(name: str) -> str:
    """`verl` -> `verl-project/verl`; an owner/name or an unknown short name comes back as given."""
    return REPOSITORIES.get(name.lower(), name)


def short_repository(name: str) -> str:
    """The spelling references use: `vllm-project/vllm` -> `vllm`; other repositories keep owner/name."""
    return _SHORT_OF.get(name.lower(), name)


def canonical_reference(ref: str) -> str:
    """`verl#1368` and `verl-project/verl#1368` -> one lower-case `owner/name#N` to compare references by."""
    repo, _, n = ref.strip().partition("#")
    return f"{full_repository(repo.strip()).lower()}#{n.strip()}"
