"""`--env-file` inputs: what a user pastes to describe a machine, parsed into facts.

Recognised, alone or concatenated in one file:

    vllm collect-env    the legacy PyTorch-style layout (`vLLM Version: 0.5.3`, `[pip3] torch==2.3.1`) and the
                        sectioned layout of 0.9+ (`vLLM Version                 : 0.11.0`, `=====` headers)
    sglang check_env    `python -m sglang.check_env`, old keys (`flashinfer:`, `multipart:`) and new ones
                        (`flashinfer_python:`, `sgl_kernel:`), CUDA, ROCm (`ROCM available`) and NPU variants
    pip freeze / list   `torch==2.7.1`, `deep_gemm @ file:///...`, the `Package  Version` table
    nvidia-smi          the default table (old and new column layouts), `nvidia-smi -L`, `--query-gpu` CSV
    rocm-smi            `--showproductname` / `--showdriverversion` lines
    qwen3doctor env     the JSON written by `qwen3doctor env --save`

Lines none of these claim go to the log's own EnvCollector, so a pasted serve command or engine start-up
line in the same file still counts. Facts carry the source `env-file PATH (kind)`. Nothing here decides
precedence: the caller layers options > env file > log > local machine.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass, field

from .. import vocab
from .environment import EnvCollector
from ..errors import InputError
from ..model import Fact
from .prefixes import peel
from ..versions import clean_version

# Installed distributions that matter to a diagnosis -> the fact they fill. Names are normalised
# (lower case, `_` -> `-`) before lookup; CUDA-suffixed NVIDIA wheels match by pattern.
PACKAGE_FACTS = {
    "vllm": "vllm", "sglang": "sglang", "sgl-kernel": "sgl_kernel", "torch": "torch", "transformers": "transformers",
    "flashinfer-python": "flashinfer", "flashinfer": "flashinfer", "triton": "triton", "pytorch-triton-rocm": "triton",
    "deep-gemm": "deep_gemm", "xformers": "xformers", "vllm-ascend": "vllm_ascend", "torch-npu": "torch_npu",
    "flash-attn": "flash_attn", "deep-ep": "deep_ep", "nvidia-cutlass-dsl": "cutlass_dsl", "torchao": "torchao",
    "xgrammar": "xgrammar", "sgl-kernel-npu": "sgl_kernel_npu",
}
_NVIDIA_WHEEL = re.compile(r"^nvidia-(?P<lib>nccl|cudnn)-cu\d+$")
ENGINES = ("vllm", "sglang")

KIND_VLLM_LEGACY = "vllm collect-env (legacy layout)"
KIND_VLLM_SECTIONED = "vllm collect-env (sectioned layout)"
KIND_SGLANG = "sglang check_env"
KIND_PIP_FREEZE = "pip freeze"
KIND_PIP_LIST = "pip list"
KIND_NVIDIA_SMI = "nvidia-smi"
KIND_ROCM_SMI = "rocm-smi"
KIND_QWEN3DOCTOR = "qwen3doctor env"
KIND_LOG = "log lines"

_NOT_INSTALLED = re.compile(r"(?i)^(?:module not found|package not found|not found|not installed|none)$")
_UNKNOWN_VALUE = re.compile(r"(?i)^(?:n/?a|could not collect|no cuda|no xpu|none|not available|not set|)$")

_KV = re.compile(r"^(?P<k>[A-Za-z_][\w .()/+,:-]{0,50}?)\s*:\s(?P<v>.*)$|^(?P<k2>[A-Za-z_][\w .()/+,-]{0,50}?)\s*:$")
_PIP_BRACKET = re.compile(r"^\[(?P<tool>pip3?|conda)\]\s+(?P<rest>.*)$")
_FREEZE = re.compile(r"^(?P<name>[A-Za-z0-9][\w.-]*)\s*==\s*(?P<ver>\S+)\s*$")
_FREEZE_URL = re.compile(r"^(?P<name>[A-Za-z0-9][\w.-]*)\s+@\s+(?P<url>\S+)\s*$")
_FREEZE_EDITABLE = re.compile(r"^-e\s+\S*#egg=(?P<name>[\w.-]+)")
_PIP_LIST_HEADER = re.compile(r"^Package\s+Version(\s+\S.*)?$")
_PIP_ROW = re.compile(r"^(?P<name>[A-Za-z0-9][\w.-]*)\s{2,}(?P<ver>\d[\w.+!-]*)(?:\s+\S.*)?$")
_CONDA_ROW = re.compile(r"^(?P<name>[A-Za-z0-9][\w.-]*)\s+(?P<ver>\d[\w.+!-]*)(?:\s+\S+){0,2}\s*$")
_SECTION_RULE = re.compile(r"^=+$")
_GPU_ROW = re.compile(r"^GPU (?P<idx>\d+): (?P<name>.+?)(?: \(UUID: [^)]*\))?\s*$")
_SGLANG_GPU = re.compile(r"^(?P<dev>GPU|NPU) (?P<ids>\d+(?:,\d+)*)$")
_SGLANG_CC = re.compile(r"^GPU (?P<ids>\d+(?:,\d+)*) Compute Capability$")
_SMI_HEAD = re.compile(r"NVIDIA-SMI\s+(?P<smi>[\d.]+)\s+Driver Version:\s*(?P<drv>[\d.]+)(?:\s+CUDA Version:\s*(?P<cuda>[\d.]+|N/A))?")
_SMI_GPU_ROW = re.compile(r"^\|\s+(?P<idx>\d+)\s+(?P<name>\S.*?)\s+(?:On|Off)\s*\|")
_SMI_MEMORY = re.compile(r"(?P<used>\d+)MiB\s*/\s*(?P<total>\d+)MiB")
_ROCM_SMI_NAME = re.compile(r"^GPU\[(?P<idx>\d+)\]\s*:\s*(?P<key>Card [Ss]eries|Card SKU|Card [Mm]odel|Marketing Name|GFX Version)\s*:\s*(?P<v>.+?)\s*$")
_ROCM_SMI_DRIVER = re.compile(r"^(?:GPU\[\d+\]\s*:\s*)?Driver version\s*:\s*(?P<v>\S+)")
_ENV_VAR = re.compile(r"^(?P<k>(?:VLLM|SGLANG|NCCL|CUDA|TORCH|PYTORCH|HIP|ROCR|HSA|NVIDIA|FLASHINFER|TRITON)_?[A-Z0-9_]*)=(?P<v>.*)$")
_SECRET_NAME = re.compile(r"(?i)key|token|secret|passw|credential|auth")
_CUDNN_LIB = re.compile(r"libcudnn(?:_\w+)?\.so\.(?P<v>\d+\.\d+\.\d+)")
_TOPOLOGY = re.compile(r"^(?:GPU Topology|NVIDIA Topology|AMD Topology|Ascend Topology)\s*:?\s*$")
_SECTION_TITLES = {  # the sectioned collect-env layout's headings, each between two `=====` rules
    "System Info", "PyTorch Info", "Python Environment", "CUDA / GPU Info", "Intel XPU / GPU Info", "CPU Info",
    "Versions of relevant libraries", "vLLM Info", "Environment Variables",
}


def normalise_package(name: str) -> str:
    return name.strip().lower().replace("_", "-")


def package_fact(name: str) -> str | None:
    """The fact an installed distribution fills (`flashinfer_python` -> flashinfer, `nvidia-nccl-cu13` -> nccl)."""
    norm = normalise_package(name)
    if norm in PACKAGE_FACTS:
        return PACKAGE_FACTS[norm]
    m = _NVIDIA_WHEEL.match(norm)
    return m.group("lib") if m else None


@dataclass(frozen=True)
class EnvFile:
    """What one env file says. `facts` are raw (nothing derived); `engine` is the engine the file speaks for
    (a collect-env output is vLLM's, a check_env output SGLang's, a package list with one engine names it)."""

    path: str
    kinds: tuple[str, ...]
    facts: dict[str, Fact]
    flags: frozenset[str] = frozenset()
    engine: str | None = None
    not_installed: tuple[str, ...] = ()
    warnings: tuple[str, ...] = ()


@dataclass
class _Parse:
    """What one environment file yielded, gathered before it becomes facts."""

    path: str
    facts: dict[str, tuple[object, str]] = field(default_factory=dict)  # key -> (value, kind)
    kinds: list[str] = field(default_factory=list)
    not_installed: list[str] = field(default_factory=list)
    gpu_names: dict[int, tuple[str, str]] = field(default_factory=dict)  # index -> (name, kind) from GPU listings
    gpu_groups: list[tuple[str, int]] = field(default_factory=list)  # (name, count) from check_env
    gpu_memory: list[int] = field(default_factory=list)
    cudnn_libs: list[str] = field(default_factory=list)
    leftovers: list[str] = field(default_factory=list)
    mode: str = ""  # "", "cpu-legacy", "cpu-open", "cpu", "topology", "gpu-list", "cudnn", "build-flags", "pip-list", "smi"

    def kind(self, kind: str) -> None:
        if kind not in self.kinds:
            self.kinds.append(kind)

    def put(self, key: str, value: object, kind: str, *, replace: bool = True) -> None:
        if value is None or value == "":
            return
        if replace or key not in self.facts:
            self.facts[key] = (value, kind)
        self.kind(kind)

    def package(self, name: str, version: str | None, kind: str) -> bool:
        fact = package_fact(name)
        if fact is None:
            return False
        self.kind(kind)
        if version is None or _NOT_INSTALLED.match(version.strip()):
            if version is not None:
                self.not_installed.append(normalise_package(name))
            return True
        cleaned = clean_version(version)
        if cleaned:
            # the first listing wins: a `[pip3] torch==2.8.0` line must not replace `PyTorch version: 2.8.0+cu128`
            self.put(fact, cleaned, kind, replace=False)
        return True


def read_env_file(path: str) -> EnvFile:
    """Parse a saved environment listing. Raises InputError (one line) for a missing / binary / unreadable file."""
    from .reader import open_source

    src = open_source(path)
    try:
        lines = list(src)
    finally:
        src.close()
    env = parse_env_lines(lines, path)
    if not env.facts and not env.flags:
        raise InputError(
            f"{path}: no environment facts found (expected `vllm collect-env`, `python -m sglang.check_env`, "
            "`pip list` / `pip freeze`, `nvidia-smi` or `qwen3doctor env --save` output)"
        )
    return env


def parse_env_text(text: str, path: str = "-") -> EnvFile:
    return parse_env_lines(text.splitlines(), path)


def parse_env_lines(lines: Iterable[str], path: str = "-") -> EnvFile:
    lines = list(lines)
    head = "\n".join(lines).lstrip()
    if head.startswith("{"):
        doc = _json(head)
        if doc is not None:
            return _from_json(doc, path)
    p = _Parse(path)
    for raw in lines:
        _line(p, raw.rstrip())
    return _finish(p)


# -- one line ---------------------------------------------------------------------------------------
def _line(p: _Parse, line: str) -> None:
    text = line.strip()
    if p.mode == "cpu-legacy":  # `CPU:` ... up to a blank line
        if not text:
            p.mode = ""
        return
    if p.mode == "cpu-open":  # `CPU Info` between two `=====` rules, then the lscpu lines up to the next rule
        p.mode = "cpu"
        if _SECTION_RULE.match(text):
            return
    if p.mode == "cpu":
        if _SECTION_RULE.match(text):
            p.mode = ""
        return
    if p.mode == "topology":
        if _topology_ends(text):
            p.mode = ""
        else:
            return
    if p.mode == "gpu-list":
        m = _GPU_ROW.match(text)
        if m:
            p.gpu_names[int(m.group("idx"))] = (m.group("name"), _vllm_kind(p))
            return
        p.mode = ""
        if not text:
            return
    if p.mode == "cudnn":
        if _CUDNN_LIB.search(text):
            p.cudnn_libs.append(text)
            return
        p.mode = ""
    if p.mode == "build-flags":
        p.mode = ""
        if "CUDA Archs" in text or "ROCm:" in text:
            _build_flags(p, text)
            return
    if not text:
        if p.mode == "pip-list":
            p.mode = ""
        return
    if _SECTION_RULE.match(text):
        p.kind(KIND_VLLM_SECTIONED)
        return
    if text.startswith("Collecting environment information"):
        p.kind(KIND_VLLM_LEGACY)
        return
    if text in _SECTION_TITLES:
        p.kind(KIND_VLLM_SECTIONED)
        if text == "CPU Info":
            p.mode = "cpu-open"
        return
    if text == "CPU:":
        p.mode = "cpu-legacy"
        return
    if _TOPOLOGY.match(text):
        p.mode = "topology"
        return
    if _smi(p, text) or _rocm_smi(p, text):
        return
    m = _PIP_BRACKET.match(text)
    if m:
        _bracket_package(p, m.group("tool"), m.group("rest"))
        return
    if _PIP_LIST_HEADER.match(text):
        p.mode = "pip-list"
        p.kind(KIND_PIP_LIST)
        return
    if p.mode == "pip-list" and set(text) <= {"-", " "}:
        return
    m = _FREEZE.match(text)
    if m:
        if not p.package(m.group("name"), m.group("ver"), KIND_PIP_FREEZE):
            p.kind(KIND_PIP_FREEZE)
        return
    m = _FREEZE_URL.match(text) or _FREEZE_EDITABLE.match(text)
    if m:
        url = m.groupdict().get("url") or ""
        wheel = re.search(r"/" + re.escape(m.group("name").replace("-", "_")) + r"-(\d[^-/]*)-", url, re.I)
        p.package(m.group("name"), wheel.group(1) if wheel else None, KIND_PIP_FREEZE)
        p.put(f"{package_fact(m.group('name')) or normalise_package(m.group('name'))}_source", url or "editable", KIND_PIP_FREEZE)
        return
    m = _PIP_ROW.match(text)
    if m and (p.mode == "pip-list" or package_fact(m.group("name"))):
        p.package(m.group("name"), m.group("ver"), KIND_PIP_LIST)
        return
    m = _GPU_ROW.match(text)
    if m:
        kind = KIND_NVIDIA_SMI if "(UUID:" in text or not _vllm_kinds(p) else _vllm_kind(p)
        p.gpu_names[int(m.group("idx"))] = (m.group("name"), kind)
        p.kind(kind)
        return
    m = _ENV_VAR.match(text)
    if m:
        value = "<redacted>" if _SECRET_NAME.search(m.group("k")) else m.group("v")
        p.put(m.group("k"), value, "environment variables", replace=False)
        return
    m = _KV.match(text)
    if m and _key_value(p, (m.group("k") or m.group("k2")).strip(), (m.group("v") or "").strip()):
        return
    p.leftovers.append(line)


def _topology_ends(text: str) -> bool:
    if _SECTION_RULE.match(text):
        return True
    if not text or text.startswith(("GPU", "NIC", "Legend", "X ", "SYS", "NODE", "PHB", "PXB", "PIX", "NV", "=")):
        return False
    if text.startswith(("CPU Affinity", "\t")):
        return False
    return bool(_ENV_VAR.match(text) or _KV.match(text) or _SECTION_RULE.match(text))


# key (lower case) -> handler name; every collect-env and check_env key that carries a fact
def _key_value(p: _Parse, key: str, value: str) -> bool:
    low = key.lower().rstrip(":").strip()
    v = value.strip()
    sg = _SGLANG_GPU.match(key)
    if sg:
        ids = sg.group("ids").split(",")
        p.gpu_groups.append((v, len(ids)))
        p.put("gpu", v, KIND_SGLANG, replace=False)
        if sg.group("dev") == "NPU":
            p.put("platform", "npu", KIND_SGLANG)
        return True
    if _SGLANG_CC.match(key):
        p.put("compute_capability", v, KIND_SGLANG, replace=False)
        return True
    handler = _KEYS.get(low)
    if handler is not None:
        handler(p, v)
        return True
    if package_fact(key) is not None:
        kind = KIND_SGLANG if (low in ("sglang", "sgl_kernel", "flashinfer_python") or KIND_SGLANG in p.kinds) else KIND_PIP_LIST
        p.package(key, v, kind)
        return True
    if KIND_SGLANG in p.kinds and re.fullmatch(r"[\w.-]+", key) and (_NOT_INSTALLED.match(v) or clean_version(v)):
        return True  # one of check_env's other packages (aiohttp, fastapi, ...): nothing a rule asks about
    return low in _IGNORED_KEYS


def _version_fact(key: str, kind: str, *, platform: str | None = None):
    def handler(p: _Parse, v: str) -> None:
        if _UNKNOWN_VALUE.match(v):
            p.kind(kind)
            return
        version = clean_version(v)
        if version:
            p.put(key, version, kind)
            if platform:
                p.put("platform", platform, kind)
    return handler


def _text_fact(key: str, kind: str):
    def handler(p: _Parse, v: str) -> None:
        if not _UNKNOWN_VALUE.match(v):
            p.put(key, v, kind)
        else:
            p.kind(kind)
    return handler


def _gpu_models(p: _Parse, v: str) -> None:
    p.kind(KIND_VLLM_LEGACY if KIND_VLLM_SECTIONED not in p.kinds else KIND_VLLM_SECTIONED)
    if not v:
        p.mode = "gpu-list"
        return
    m = _GPU_ROW.match(v)
    if m:
        p.gpu_names[int(m.group("idx"))] = (m.group("name"), _vllm_kind(p))
    elif not _UNKNOWN_VALUE.match(v):
        name = re.sub(r"\s*\((gfx[^)]*)\)\s*$", "", v)
        gfx = re.search(r"\((gfx\w+)", v)
        p.gpu_names.setdefault(0, (name, _vllm_kind(p)))
        if gfx:
            p.put("gfx", gfx.group(1), _vllm_kind(p))


def _cudnn(p: _Parse, v: str) -> None:
    if v.startswith("Probably one of the following"):
        p.mode = "cudnn"
    elif _CUDNN_LIB.search(v):
        p.cudnn_libs.append(v)
    else:
        _version_fact("cudnn", _vllm_kind(p))(p, v)


def _vllm_kind(p: _Parse) -> str:
    return KIND_VLLM_SECTIONED if KIND_VLLM_SECTIONED in p.kinds else KIND_VLLM_LEGACY


def _vllm_version(p: _Parse, v: str) -> None:
    kind = _vllm_kind(p)
    p.kind(kind)
    if not _UNKNOWN_VALUE.match(v) and "dev)" not in v:
        version = clean_version(v)
        if version:
            p.put("vllm", version, kind)


def _build_flags(p: _Parse, v: str) -> None:
    if not v:
        p.mode = "build-flags"
        return
    kind = _vllm_kind(p)
    archs = re.search(r"CUDA Archs:\s*([^;]+)", v)
    if archs and archs.group(1).strip() not in ("Not Set", ""):
        p.put("cuda_archs", archs.group(1).strip(), kind)
    if re.search(r"ROCm:\s*Enabled", v):
        p.put("platform", "rocm", kind)


def _bool_fact(key: str, kind: str, platform: str | None = None):
    def handler(p: _Parse, v: str) -> None:
        truth = v.lower() in ("true", "yes")
        p.put(key, "yes" if truth else "no", kind)
        if platform and truth:
            p.put("platform", platform, kind)
    return handler


def _nvcc(p: _Parse, v: str) -> None:
    m = re.search(r"release [\d.]+, V(?P<full>[\d.]+)|release (?P<short>[\d.]+)", v)
    if m:
        p.put("cuda", m.group("full") or m.group("short"), KIND_SGLANG)
    else:
        p.kind(KIND_SGLANG)


def _hipcc(p: _Parse, v: str) -> None:
    version = clean_version(v.replace("HIP version:", ""))
    p.put("rocm", version, KIND_SGLANG)
    p.put("platform", "rocm", KIND_SGLANG)


def _python(kind: str):
    def handler(p: _Parse, v: str) -> None:
        m = re.match(r"(\d+\.\d+\.\d+)", v)
        if m:
            p.put("python", m.group(1), kind)
    return handler


def _legacy_or_sectioned(handler_of_kind):
    def handler(p: _Parse, v: str) -> None:
        handler_of_kind(_vllm_kind(p))(p, v)
    return handler


_KEYS = {
    # vllm collect-env (both layouts)
    "pytorch version": _legacy_or_sectioned(lambda k: _version_fact("torch", k)),
    "cuda used to build pytorch": _legacy_or_sectioned(lambda k: _version_fact("cuda_build", k, platform=None)),
    "rocm used to build pytorch": _legacy_or_sectioned(lambda k: _version_fact("rocm", k, platform="rocm")),
    "xpu used to build pytorch": _legacy_or_sectioned(lambda k: _version_fact("xpu", k, platform="xpu")),
    "os": _legacy_or_sectioned(lambda k: _text_fact("os", k)),
    "python version": _legacy_or_sectioned(_python),
    "is cuda available": _legacy_or_sectioned(lambda k: _bool_fact("cuda_available", k)),
    "cuda runtime version": _legacy_or_sectioned(lambda k: _version_fact("cuda", k)),
    "gpu models and configuration": _gpu_models,
    "nvidia driver version": _legacy_or_sectioned(lambda k: _version_fact("driver", k)),
    "cudnn version": _cudnn,
    "hip runtime version": _legacy_or_sectioned(lambda k: _version_fact("hip_runtime", k, platform="rocm")),
    "rocm version": _legacy_or_sectioned(lambda k: _version_fact("rocm", k, platform="rocm")),
    "vllm version": _vllm_version,
    "vllm build flags": _build_flags,
    # sglang check_env
    "python": _python(KIND_SGLANG),
    "cuda available": _bool_fact("cuda_available", KIND_SGLANG),
    "rocm available": _bool_fact("rocm_available", KIND_SGLANG, platform="rocm"),
    "npu available": _bool_fact("npu_available", KIND_SGLANG, platform="npu"),
    "nvcc": _nvcc,
    "hipcc": _hipcc,
    "cuda driver version": _version_fact("driver", KIND_SGLANG),
    "cuda driver versions": _text_fact("driver", KIND_SGLANG),
    "rocm driver version": _version_fact("rocm_driver", KIND_SGLANG),
    "pytorch": _version_fact("torch", KIND_SGLANG),
    "cann": _text_fact("cann", KIND_SGLANG),
    "ascend driver version": _text_fact("ascend_driver", KIND_SGLANG),
}
_IGNORED_KEYS = {
    "is debug build", "gcc version", "clang version", "cmake version", "libc version", "python platform",
    "cuda_module_loading set to", "miopen runtime version", "is xnnpack available", "neuron sdk version",
    "cuda_home", "rocm_home", "cann_home", "bisheng", "hypervisor vendor", "ulimit soft", "xpu runtime version",
    "is xpu available", "intel gpu models", "versions of relevant libraries",
}


def _bracket_package(p: _Parse, tool: str, rest: str) -> None:
    kind = _vllm_kind(p)
    p.kind(kind)
    if tool == "conda":
        m = _CONDA_ROW.match(rest)
        if m:
            p.package(m.group("name"), m.group("ver"), kind)
        return
    m = _FREEZE.match(rest)
    if m:
        p.package(m.group("name"), m.group("ver"), kind)


def _smi(p: _Parse, text: str) -> bool:
    m = _SMI_HEAD.search(text)
    if m:
        p.put("driver", m.group("drv"), KIND_NVIDIA_SMI)
        if m.group("cuda") and m.group("cuda") != "N/A":
            p.put("cuda_driver_max", m.group("cuda"), KIND_NVIDIA_SMI)
        p.mode = "smi"
        return True
    if not text.startswith(("|", "+")) or p.mode != "smi":
        return False
    m = _SMI_GPU_ROW.match(text)
    if m:
        name = m.group("name").rstrip(".").strip()  # the pre-2023 table cuts long names: `Tesla V100-SXM2...`
        p.gpu_names[int(m.group("idx"))] = (name, KIND_NVIDIA_SMI)
        return True
    mem = _SMI_MEMORY.search(text)
    if mem:
        p.gpu_memory.append(int(mem.group("total")))
    return True


def _rocm_smi(p: _Parse, text: str) -> bool:
    m = _ROCM_SMI_NAME.match(text)
    if m:
        key, value = m.group("key").lower(), m.group("v")
        if key == "gfx version":
            p.put("gfx", value, KIND_ROCM_SMI)
        elif "instinct" in value.lower() or "radeon" in value.lower() or key == "marketing name":
            p.gpu_names[int(m.group("idx"))] = (value if value.startswith("AMD") else f"AMD {value}", KIND_ROCM_SMI)
        p.put("platform", "rocm", KIND_ROCM_SMI)
        return True
    m = _ROCM_SMI_DRIVER.match(text)
    if m and ("GPU[" in text or KIND_ROCM_SMI in p.kinds):
        p.put("rocm_driver", m.group("v"), KIND_ROCM_SMI)
        return True
    return False


# -- results ----------------------------------------------------------------------------------------
def _finish(p: _Parse) -> EnvFile:
    if KIND_VLLM_SECTIONED in p.kinds:  # `Collecting environment information...` came before the first section
        p.kinds = [k for k in p.kinds if k != KIND_VLLM_LEGACY]
        p.facts = {k: (v, KIND_VLLM_SECTIONED if kind == KIND_VLLM_LEGACY else kind) for k, (v, kind) in p.facts.items()}
    if _vllm_kinds(p):  # the variables collect-env lists are part of its output
        p.kinds = [k for k in p.kinds if k != "environment variables"]
    if p.gpu_names:
        names = [p.gpu_names[i][0] for i in sorted(p.gpu_names)]
        kind = p.gpu_names[min(p.gpu_names)][1]
        p.put("gpu", names[0], kind)
        p.put("gpu_count", len(names), kind)
        if len(set(names)) > 1:
            p.put("gpus", ", ".join(names), kind)
    if p.gpu_groups:
        p.put("gpu_count", sum(n for _, n in p.gpu_groups), KIND_SGLANG)
        if len(p.gpu_groups) > 1:
            p.put("gpus", ", ".join(name for name, _ in p.gpu_groups), KIND_SGLANG)
    if p.gpu_memory:
        p.put("gpu_memory_mib", p.gpu_memory[0], KIND_NVIDIA_SMI)
    if p.cudnn_libs:
        versions = sorted({m.group("v") for lib in p.cudnn_libs for m in [_CUDNN_LIB.search(lib)] if m},
                          key=lambda s: tuple(int(x) for x in s.split(".")))
        if versions:
            p.put("cudnn", versions[-1], _vllm_kind(p))
    platform = p.facts.get("platform", (None,))[0]
    gpu = p.facts.get("gpu", (None,))[0]
    if platform is None and gpu:
        plat = vocab.platform_of_gpu(str(gpu))
        if plat:
            p.facts["platform"] = (plat, p.facts["gpu"][1])
    if platform in ("rocm", "npu") and "compute_capability" in p.facts:
        # check_env prints torch's device capability; on ROCm that is the gfx number (9.4 = gfx942), not CUDA's
        value, kind = p.facts.pop("compute_capability")
        p.facts.setdefault("gfx_capability", (value, kind))
    collector = EnvCollector()
    for line in p.leftovers:
        process, text = peel(line)
        collector.feed(text, process)
    fallback = collector.facts(derived=False)
    if p.leftovers and (collector.flags or fallback):
        p.kind(KIND_LOG)
    facts: dict[str, Fact] = {}
    for key, fact in fallback.items():
        if key not in p.facts:
            facts[key] = Fact(fact.value, f"env-file {p.path} ({KIND_LOG}: {fact.source.removeprefix('log: ')})")
    for key, (value, kind) in p.facts.items():
        facts[key] = Fact(value, f"env-file {p.path} ({kind})")
    return EnvFile(
        path=p.path, kinds=tuple(p.kinds), facts=facts, flags=frozenset(collector.flags),
        engine=_engine(p, facts), not_installed=tuple(dict.fromkeys(p.not_installed)),
    )


def _vllm_kinds(p: _Parse) -> bool:
    return KIND_VLLM_LEGACY in p.kinds or KIND_VLLM_SECTIONED in p.kinds


def _engine(p: _Parse, facts: dict[str, Fact]) -> str | None:
    """The engine the file speaks for: collect-env is vLLM's tool and check_env SGLang's; otherwise the one
    engine installed, if exactly one is."""
    if KIND_SGLANG in p.kinds and "sglang" in facts:
        return "sglang"
    if _vllm_kinds(p) and "vllm" in facts:
        return "vllm"
    installed = [e for e in ENGINES if e in facts and (facts[e].source.endswith(f"({KIND_PIP_FREEZE})")
                                                         or facts[e].source.endswith(f"({KIND_PIP_LIST})"))]
    return installed[0] if len(installed) == 1 else None


def _json(text: str):
    try:
        doc = json.loads(text)
    except ValueError:
        return None
    return doc if isinstance(doc, dict) and "qwen3doctor_env" in doc else None


def _from_json(doc: dict, path: str) -> EnvFile:
    facts_in = doc.get("facts") or {}
    if not isinstance(facts_in, dict):
        raise InputError(f"{path}: `facts` must be an object in a qwen3doctor env file")
    facts = {
        str(k): Fact(v, f"env-file {path} ({KIND_QWEN3DOCTOR})")
        for k, v in facts_in.items() if v not in (None, "") and k != "engine"
    }
    packages = doc.get("packages") or {}
    not_installed = tuple(k for k, v in packages.items() if v is None) if isinstance(packages, dict) else ()
    engine = facts_in.get("engine") if facts_in.get("engine") in ENGINES else None
    return EnvFile(path=path, kinds=(KIND_QWEN3DOCTOR,), facts=facts, engine=engine, not_installed=not_installed)
