"""`qwen3doctor env`: the facts of this machine a diagnosis needs, without importing any heavy package.

Installed versions come from package metadata (`importlib.metadata`), the CUDA version PyTorch was built for
from the text of `torch/version.py`, GPUs from `nvidia-smi` / `rocm-smi`, the CUDA toolkit from `nvcc`.
Nothing is imported from torch, vllm or sglang, so it runs in a second even where importing them would
crash. What could not be found is said, in `missing`, not silently left out.

`collect()` returns a `LocalEnv`; `to_json()` is what `--format json` prints and `--save` writes, and it is
what `--env-file` reads back (envfile.KIND_QWEN3DOCTOR). `layered()` adds these facts under the ones a log
and an env file gave (the lowest precedence) for `diagnose --env-auto` and `check`.
"""

from __future__ import annotations

import os
import platform
import re
import shutil
import subprocess
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from .. import __version__
from . import environment as envmod
from .envfile import ENGINES, package_fact
from ..model import Environment, Fact

SOURCE = "this machine"
TIMEOUT = 15  # seconds for one external command (nvidia-smi can be slow when a GPU is wedged)

# distributions asked about, in the order the table shows them (alternatives share a fact)
PACKAGES = (
    "vllm", "sglang", "sgl-kernel", "torch", "transformers", "flashinfer-python", "flashinfer", "triton",
    "pytorch-triton-rocm", "deep_gemm", "deep-gemm", "xformers", "nvidia-nccl-cu13", "nvidia-nccl-cu12",
    "nvidia-nccl-cu11", "nvidia-cudnn-cu13", "nvidia-cudnn-cu12", "nvidia-cudnn-cu11", "vllm-ascend", "torch-npu",
    "flash-attn", "deep-ep", "nvidia-cutlass-dsl",
)
ENV_VARS = re.compile(r"^(?:VLLM_|SGLANG_|NCCL_|CUDA_VISIBLE_DEVICES$|HIP_VISIBLE_DEVICES$|TORCH_CUDA_ARCH_LIST$|"
                      r"PYTORCH_CUDA_ALLOC_CONF$|CUDA_LAUNCH_BLOCKING$|FLASHINFER_|TRITON_)")
_SECRET = re.compile(r"(?i)key|token|secret|passw|credential|auth")
SMI_QUERY = "index,name,memory.total,driver_version,compute_cap"

Runner = Callable[[list[str]], "tuple[int, str, str] | None"]


@dataclass(frozen=True)
class Gpu:
    """One GPU of this machine."""

    index: int
    name: str
    memory_mib: int | None = None
    compute_capability: str | None = None


@dataclass(frozen=True)
class LocalEnv:
    """What this machine says about itself: facts, installed packages, GPUs, variables."""

    facts: dict[str, Fact]
    packages: dict[str, str | None]  # the fact's distribution -> version, None when not installed
    gpus: tuple[Gpu, ...] = ()
    env_vars: dict[str, str] = field(default_factory=dict)
    missing: tuple[str, ...] = ()
    python_executable: str = ""

    def get(self, key: str):
        fact = self.facts.get(key)
        return None if fact is None else fact.value

    @property
    def engine(self) -> str | None:
        installed = [e for e in ENGINES if self.packages.get(e)]
        return installed[0] if len(installed) == 1 else None

    def to_json(self) -> dict:
        """The shareable form (what --save writes): user names in paths and secret-looking values redacted."""
        from ..redact import Redactor

        redactor = Redactor()
        facts = {k: redactor.line(v.value) if isinstance(v.value, str) else v.value for k, v in sorted(self.facts.items())}
        if self.engine:
            facts["engine"] = self.engine
        return {
            "qwen3doctor_env": 1,
            "collected_by": f"qwen3doctor {__version__}",
            "python_executable": redactor.line(self.python_executable),
            "facts": facts,
            "packages": dict(self.packages),
            "gpus": [{"index": g.index, "name": g.name, "memory_mib": g.memory_mib, "compute_capability": g.compute_capability}
                     for g in self.gpus],
            "env_vars": {k: redactor.line(v) for k, v in self.env_vars.items()},
            "missing": [redactor.line(m) for m in self.missing],
        }

    def layer(self) -> dict[str, Fact]:
        """The facts for Overrides.local: this machine's, plus `engine` when exactly one engine is installed."""
        facts = dict(self.facts)
        if self.engine:
            facts["engine"] = Fact(self.engine, f"{SOURCE} (the only engine installed)")
        return facts


# -- collecting -------------------------------------------------------------------------------------
def run_command(cmd: list[str]) -> tuple[int, str, str] | None:
    """(returncode, stdout, stderr), or None when the program is not on PATH. Never raises."""
    exe = shutil.which(cmd[0]) if os.sep not in cmd[0] else cmd[0]
    if exe is None:
        return None
    try:
        proc = subprocess.run([exe, *cmd[1:]], capture_output=True, text=True, timeout=TIMEOUT, errors="replace")
    except subprocess.TimeoutExpired:
        return 124, "", f"timed out after {TIMEOUT} s"
    except OSError as exc:
        return 126, "", str(exc)
    return proc.returncode, proc.stdout, proc.stderr


def _metadata_version(dist: str) -> str | None:
    from importlib import metadata

    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return None
    except Exception:  # noqa: BLE001 - a broken dist-info must not stop the listing
        return None


def _torch_build(read_torch_version_py: Callable[[], str | None]) -> dict[str, str]:
    """`cuda = '12.8'` / `hip = '6.3.42134-...'` from torch/version.py, read as text (torch is never imported)."""
    text = read_torch_version_py()
    if not text:
        return {}
    out = {}
    for key in ("cuda", "hip"):
        m = re.search(rf"^{key}\s*(?::\s*[\w\[\]., ]+)?=\s*['\"]([^'\"]+)['\"]", text, re.M)
        if m:
            out[key] = m.group(1)
    return out


def _read_torch_version_py() -> str | None:
    from importlib import metadata

    try:
        dist = metadata.distribution("torch")
        path = dist.locate_file("torch/version.py")
        return open(path, encoding="utf-8").read()  # noqa: SIM115
    except Exception:  # noqa: BLE001
        return None


def collect(
    runner: Runner = run_command,
    version_of: Callable[[str], str | None] = _metadata_version,
    environ: Mapping[str, str] | None = None,
    read_torch_version_py: Callable[[], str | None] = _read_torch_version_py,
    os_release: Callable[[], str | None] | None = None,
) -> LocalEnv:
    environ = os.environ if environ is None else environ
    facts: dict[str, Fact] = {}
    missing: list[str] = []

    def put(key: str, value, how: str = "") -> None:
        if value not in (None, ""):
            facts[key] = Fact(value, f"{SOURCE}{': ' + how if how else ''}")

    # installed packages
    packages: dict[str, str | None] = {}
    for dist in PACKAGES:
        fact = package_fact(dist)
        if fact is None or packages.get(fact):
            continue
        version = version_of(dist)
        packages[fact] = version
        if version:
            put(fact, version, f"pip package {dist}")
    for engine in ENGINES:
        if not packages.get(engine):
            missing.append(f"{'vLLM' if engine == 'vllm' else 'SGLang'} is not installed in this Python ({sys.executable})")
    if not packages.get("torch"):
        missing.append("torch is not installed, so the CUDA / ROCm version PyTorch was built for is unknown")
    build = _torch_build(read_torch_version_py) if packages.get("torch") else {}
    if build.get("cuda"):
        put("cuda_build", build["cuda"], "torch/version.py")
    if build.get("hip"):
        put("rocm", build["hip"], "torch/version.py")
        put("platform", "rocm", "torch/version.py")

    # Python and the OS
    put("python", platform.python_version())
    release = (os_release or _os_release)()
    put("os", f"{release or platform.system()} ({platform.machine()}), kernel {platform.release()}")
    if "microsoft" in platform.release().lower():
        put("wsl", "yes", "kernel release")

    # CUDA toolkit
    nvcc = _nvcc_path(environ)
    if nvcc:
        res = runner([nvcc, "--version"])
        m = re.search(r"release [\d.]+, V([\d.]+)", res[1]) if res and res[0] == 0 else None
        if m:
            put("cuda", m.group(1), f"nvcc {nvcc}")
    if "cuda" not in facts:
        missing.append("no CUDA toolkit: nvcc is not on PATH, in $CUDA_HOME or /usr/local/cuda (only needed for JIT kernels such as DeepGEMM)")

    # GPUs
    gpus, smi_note = _nvidia_gpus(runner, put)
    if not gpus:
        gpus, rocm_note = _rocm_gpus(runner, put)
        if not gpus:
            missing.append(f"no GPU: {smi_note}; {rocm_note}")
    if gpus:
        put("gpu", gpus[0].name, "nvidia-smi" if "platform" not in facts or facts["platform"].value != "rocm" else "rocm-smi")
        put("gpu_count", len(gpus), facts["gpu"].source.split(": ", 1)[-1])
        if len({g.name for g in gpus}) > 1:
            put("gpus", ", ".join(g.name for g in gpus))
        if gpus[0].compute_capability:
            put("compute_capability", gpus[0].compute_capability, "nvidia-smi")
        if gpus[0].memory_mib:
            put("gpu_memory_mib", gpus[0].memory_mib, facts["gpu"].source.split(": ", 1)[-1])

    env_vars = {}
    for name in sorted(environ):
        if ENV_VARS.match(name):
            env_vars[name] = "<redacted>" if _SECRET.search(name) else environ[name]
    for name, value in env_vars.items():
        put(name, value, "environment variable")
    return LocalEnv(facts=facts, packages=packages, gpus=tuple(gpus), env_vars=env_vars, missing=tuple(missing),
                    python_executable=sys.executable)


def _os_release() -> str | None:
    try:
        with open("/etc/os-release", encoding="utf-8") as fh:
            for line in fh:
                if line.startswith("PRETTY_NAME="):
                    return line.split("=", 1)[1].strip().strip('"')
    except OSError:
        return None
    return None


def _nvcc_path(environ: Mapping[str, str]) -> str | None:
    found = shutil.which("nvcc")
    if found:
        return found
    for home in (environ.get("CUDA_HOME"), environ.get("CUDA_PATH"), "/usr/local/cuda"):
        if home and os.access(os.path.join(home, "bin", "nvcc"), os.X_OK):
            return os.path.join(home, "bin", "nvcc")
    return None


def _nvidia_gpus(runner: Runner, put) -> tuple[list[Gpu], str]:
    res = runner(["nvidia-smi", f"--query-gpu={SMI_QUERY}", "--format=csv,noheader,nounits"])
    if res is None:
        return [], "nvidia-smi is not on PATH"
    if res[0] != 0 and "compute_cap" in (res[1] + res[2]):  # drivers before 510 do not know compute_cap
        res = runner(["nvidia-smi", f"--query-gpu={SMI_QUERY.rsplit(',', 1)[0]}", "--format=csv,noheader,nounits"])
    if res is None or res[0] != 0:
        first = ((res[2] or res[1]).strip().splitlines() or ["no output"])[0] if res else "no output"
        return [], f"nvidia-smi failed ({first[:120]})"
    gpus = parse_smi_query(res[1])
    if gpus:
        put("driver", _smi_field(res[1], 3), "nvidia-smi")
        table = runner(["nvidia-smi"])
        m = re.search(r"CUDA Version:\s*([\d.]+)", table[1]) if table and table[0] == 0 else None
        if m:
            put("cuda_driver_max", m.group(1), "nvidia-smi")
        put("platform", "cuda", "nvidia-smi")
    return gpus, "nvidia-smi lists no GPU"


def _smi_field(text: str, index: int) -> str | None:
    for line in text.splitlines():
        parts = [p.strip() for p in line.split(",")]
        if len(parts) > index:
            return parts[index]
    return None


def parse_smi_query(text: str) -> list[Gpu]:
    """Rows of `nvidia-smi --query-gpu=index,name,memory.total,driver_version[,compute_cap] --format=csv,noheader,nounits`."""
    gpus = []
    for line in text.splitlines():
        parts = [p.strip() for p in line.split(",")]
        if len(parts) < 2 or not parts[0].isdigit():
            continue
        memory = int(float(parts[2])) if len(parts) > 2 and re.fullmatch(r"[\d.]+", parts[2]) else None
        cc = parts[4] if len(parts) > 4 and re.fullmatch(r"\d+\.\d+", parts[4]) else None
        gpus.append(Gpu(int(parts[0]), parts[1], memory, cc))
    return gpus


def _rocm_gpus(runner: Runner, put) -> tuple[list[Gpu], str]:
    res = runner(["rocm-smi", "--showproductname"])
    if res is None:
        return [], "rocm-smi is not on PATH"
    if res[0] != 0:
        return [], "rocm-smi failed"
    gpus = parse_rocm_smi(res[1])
    if not gpus:
        return [], "rocm-smi lists no GPU"
    put("platform", "rocm", "rocm-smi")
    gfx = re.search(r"GFX Version\s*:\s*(gfx\w+)", res[1])
    if gfx:
        put("gfx", gfx.group(1), "rocm-smi")
    drv = runner(["rocm-smi", "--showdriverversion"])
    m = re.search(r"Driver version\s*:\s*(\S+)", drv[1]) if drv and drv[0] == 0 else None
    if m:
        put("rocm_driver", m.group(1), "rocm-smi")
    return gpus, ""


def parse_rocm_smi(text: str) -> list[Gpu]:
    names: dict[int, str] = {}
    for line in text.splitlines():
        m = re.match(r"^GPU\[(\d+)\]\s*:\s*(Card [Ss]eries|Card SKU|Marketing Name|Card [Mm]odel)\s*:\s*(.+?)\s*$", line)
        if m and ("instinct" in m.group(3).lower() or "radeon" in m.group(3).lower() or m.group(2) == "Marketing Name"):
            value = m.group(3)
            names.setdefault(int(m.group(1)), value if value.startswith("AMD") else f"AMD {value}")
    return [Gpu(i, names[i]) for i in sorted(names)]


# -- layering ---------------------------------------------------------------------------------------
COMPARED = ("vllm", "sglang", "torch", "transformers", "flashinfer", "gpu", "driver")


def layered(env: Environment, env_file_engine: str | None = None, local: Mapping[str, Fact] | None = None) -> Environment:
    """`env` (options > env file > log, already merged) with the two lowest layers filled in where it is
    silent: the engine an env file speaks for, then this machine's facts. A local fact that the log, the env
    file or an option contradicts is shown as a conflict, and loses."""
    facts = dict(env.facts)
    conflicts = list(env.conflicts)
    if "engine" not in facts and env_file_engine:
        facts["engine"] = Fact(env_file_engine, "env-file (the engine whose environment listing it is)")
    local = dict(local or {})
    local_engine = local.pop("engine", None)
    for key, fact in local.items():
        old = facts.get(key)
        if old is None:
            facts[key] = fact
        elif key in COMPARED and str(old.value) != str(fact.value):
            conflicts.append(f"{key}: {_where(old)} says {old.value}, this machine has {fact.value} ({_where(old)} wins)")
    if "engine" not in facts and local_engine is not None:
        facts["engine"] = Fact(local_engine.value, f"{SOURCE} (the only engine installed)")
    if "engine" in facts and "engine_version" not in facts:
        engine = facts["engine"].value
        if engine in facts:
            facts["engine_version"] = Fact(facts[engine].value, facts[engine].source)
    envmod.derive(facts, {"vllm": 0, "sglang": 0})
    return Environment(facts=facts, flags=env.flags, flags_known=env.flags_known, conflicts=tuple(dict.fromkeys(conflicts)))


def _where(fact: Fact) -> str:
    if fact.source == "option":
        return "the option"
    if fact.source.startswith("env-file"):
        return "the env file"
    return "the log"


# -- rendering --------------------------------------------------------------------------------------
ROWS = (
    ("engine", "engine"), ("vllm", "vllm"), ("sglang", "sglang"), ("sgl_kernel", "sgl-kernel"), ("torch", "torch"),
    ("cuda_build", "torch built for CUDA"), ("rocm", "ROCm / HIP"), ("transformers", "transformers"),
    ("flashinfer", "flashinfer"), ("triton", "triton"), ("deep_gemm", "deep_gemm"), ("xformers", "xformers"),
    ("nccl", "NCCL (pip)"), ("cudnn", "cuDNN (pip)"), ("python", "python"), ("os", "os"), ("cuda", "CUDA toolkit (nvcc)"),
    ("gpu", "GPU"), ("gpu_count", "GPU count"), ("gpu_memory_mib", "GPU memory (MiB)"),
    ("compute_capability", "compute capability"), ("gfx", "gfx target"), ("driver", "driver"),
    ("cuda_driver_max", "driver's max CUDA"), ("rocm_driver", "ROCm driver"), ("platform", "platform"),
)
PACKAGE_ROWS = {"vllm", "sglang", "sgl_kernel", "torch", "transformers", "flashinfer", "triton", "deep_gemm", "xformers", "nccl", "cudnn"}


def rows(local: LocalEnv) -> list[tuple[str, str, str]]:
    """(label, value, where it came from) for the table; packages that are absent say so."""
    out = []
    for key, label in ROWS:
        if key == "engine":
            installed = [e for e in ENGINES if local.packages.get(e)]
            value = local.engine or (" and ".join(installed) + " (both installed: pass --engine)" if installed else "none (neither vllm nor sglang is installed)")
            out.append((label, value, "installed packages"))
            continue
        fact = local.facts.get(key)
        if fact is not None:
            out.append((label, str(fact.value), fact.source.removeprefix(f"{SOURCE}: ").removeprefix(SOURCE)))
        elif key in PACKAGE_ROWS and key in local.packages:
            out.append((label, "not installed", ""))
        elif key in ("gpu", "cuda"):
            out.append((label, "not found", ""))
    for name, value in local.env_vars.items():
        out.append((name, value, "environment variable"))
    return out


def render_plain(local: LocalEnv) -> str:
    table = rows(local)
    width = max(len(r[0]) for r in table) + 2
    lines = [f"This machine (Python {local.python_executable}):", ""]
    for label, value, source in table:
        lines.append(f"  {label:<{width}}{value}" + (f"   ({source})" if source else ""))
    if local.missing:
        lines += ["", "Could not find:"] + [f"  - {m}" for m in local.missing]
    lines += ["", "Save it with `qwen3doctor env --save env.json`; `diagnose --env-file env.json` (or `--env-auto` here) uses it."]
    return "\n".join(lines) + "\n"


def render_rich(local: LocalEnv) -> str:
    import io

    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    buf = io.StringIO()
    console = Console(file=buf, force_terminal=True, highlight=False)  # the terminal's width (COLUMNS, else its size)
    table = Table(title=f"This machine (Python {local.python_executable})", title_justify="left", show_header=False, box=None)
    for label, value, source in rows(local):
        style = "yellow" if value in ("not installed", "not found") or value.startswith("none") else ""
        table.add_row(Text(label, style="cyan"), Text(value, style=style), Text(source, style="dim"))
    console.print(table)
    if local.missing:
        console.print(Text("Could not find:", style="bold yellow"))
        for m in local.missing:
            console.print(Text(f" • {m}"))
    console.print(Text("Save it with `qwen3doctor env --save env.json`; `diagnose --env-file env.json` (or `--env-auto` here) uses it.", style="dim"))
    return buf.getvalue()
