"""`qwen3doctor env`: this machine's facts without importing heavy packages; what it could not find; the
lowest layer of `diagnose --env-auto` and `check`."""

import json

from qwen3doctor.judge.pipeline import Overrides, diagnose_text
from qwen3doctor.read.envfile import read_env_file
from qwen3doctor.read.localenv import collect, layered, parse_rocm_smi, parse_smi_query, render_plain
from qwen3doctor.model import Environment, Fact

SMI_QUERY = "0, NVIDIA H100 80GB HBM3, 81559, 570.158.01, 9.0\n1, NVIDIA H100 80GB HBM3, 81559, 570.158.01, 9.0\n"
SMI_TABLE = "| NVIDIA-SMI 570.158.01             Driver Version: 570.158.01     CUDA Version: 12.8     |\n"
NVCC = "nvcc: NVIDIA (R) Cuda compiler driver\nCuda compilation tools, release 12.8, V12.8.93\nBuild cuda_12.8.r12.8/compiler.35404655_0\n"
ROCM_SMI = """\
============================ ROCm System Management Interface ============================
====================================== Product Info ======================================
GPU[0]		: Card Series: 		AMD Instinct MI300X
GPU[0]		: Card Model: 		0x74a1
GPU[0]		: Card Vendor: 		Advanced Micro Devices, Inc. [AMD/ATI]
GPU[0]		: Card SKU: 		M3000100
GPU[0]		: GFX Version: 		gfx942
GPU[1]		: Card Series: 		AMD Instinct MI300X
GPU[1]		: GFX Version: 		gfx942
==========================================================================================
"""
TORCH_VERSION_PY = "__version__ = '2.8.0+cu128'\ndebug = False\ncuda: Optional[str] = '12.8'\ngit_version = 'abc'\nhip: Optional[str] = None\n"


def runner_of(outputs):
    """A fake command runner: the first word of the command (or the full command) -> (rc, out, err); None: not on PATH."""
    def run(cmd):
        key = " ".join(cmd)
        for k, v in outputs.items():
            if key.startswith(k) or cmd[0].endswith(k):
                return v
        return None
    return run


def versions_of(installed):
    return lambda dist: installed.get(dist)


def test_a_machine_without_gpu_or_engine_says_what_it_could_not_find():
    local = collect(runner=runner_of({}), version_of=versions_of({}), environ={}, read_torch_version_py=lambda: None,
                    os_release=lambda: "Debian GNU/Linux 12 (bookworm)")
    assert local.engine is None and local.gpus == ()
    assert local.packages["vllm"] is None and local.packages["torch"] is None
    text = " | ".join(local.missing)
    assert "vLLM is not installed" in text and "SGLang is not installed" in text and "torch is not installed" in text
    assert "no GPU: nvidia-smi is not on PATH; rocm-smi is not on PATH" in text
    assert local.get("python") and local.get("os").startswith("Debian GNU/Linux 12")
    out = render_plain(local)
    assert "not installed" in out and "Could not find:" in out and "GPU" in out


def test_a_cuda_machine_with_vllm():
    local = collect(
        runner=runner_of({"nvidia-smi --query-gpu": (0, SMI_QUERY, ""), "nvidia-smi": (0, SMI_TABLE, ""), "nvcc": (0, NVCC, "")}),
        version_of=versions_of({"vllm": "0.11.0", "torch": "2.8.0+cu128", "transformers": "4.57.1",
                                "flashinfer-python": "0.3.1", "nvidia-nccl-cu12": "2.27.3"}),
        environ={"CUDA_VISIBLE_DEVICES": "0,1", "VLLM_USE_V1": "1", "HF_TOKEN": "hf_secret", "VLLM_API_KEY": "abc"},
        read_torch_version_py=lambda: TORCH_VERSION_PY,
    )
    assert local.engine == "vllm" and local.get("vllm") == "0.11.0" and local.get("flashinfer") == "0.3.1"
    assert local.get("nccl") == "2.27.3" and local.get("cuda_build") == "12.8"
    assert local.get("gpu") == "NVIDIA H100 80GB HBM3" and local.get("gpu_count") == 2
    assert local.get("compute_capability") == "9.0" and local.get("driver") == "570.158.01"
    assert local.get("cuda_driver_max") == "12.8" and local.get("gpu_memory_mib") == 81559
    assert local.env_vars == {"CUDA_VISIBLE_DEVICES": "0,1", "VLLM_API_KEY": "<redacted>", "VLLM_USE_V1": "1"}
    assert "HF_TOKEN" not in local.env_vars
    assert not any("GPU" in m for m in local.missing) and any("SGLang" in m for m in local.missing)


def test_old_driver_without_compute_cap_falls_back():
    calls = []

    def run(cmd):
        calls.append(" ".join(cmd))
        if cmd[0] == "nvidia-smi" and "compute_cap" in " ".join(cmd):
            return 2, "", 'Field "compute_cap" is not a valid field to query.'
        if cmd[0] == "nvidia-smi" and cmd[1:2] and cmd[1].startswith("--query"):
            return 0, "0, Tesla V100-SXM2-32GB, 32510, 470.82.01\n", ""
        return None
    local = collect(runner=run, version_of=versions_of({}), environ={}, read_torch_version_py=lambda: None)
    assert local.get("gpu") == "Tesla V100-SXM2-32GB" and local.get("compute_capability") is None
    assert sum("--query-gpu" in c for c in calls) == 2


def test_rocm_machine():
    local = collect(runner=runner_of({"rocm-smi --showproductname": (0, ROCM_SMI, ""),
                                      "rocm-smi --showdriverversion": (0, "Driver version: 6.8.5\n", "")}),
                    version_of=versions_of({"sglang": "0.4.6", "torch": "2.6.0"}), environ={},
                    read_torch_version_py=lambda: "hip = '6.3.42134-a9a80e791'\ncuda = None\n")
    assert local.engine == "sglang" and local.get("platform") == "rocm" and local.get("gpu") == "AMD Instinct MI300X"
    assert local.get("gpu_count") == 2 and local.get("gfx") == "gfx942" and local.get("rocm_driver") == "6.8.5"
    assert local.get("rocm") == "6.3.42134-a9a80e791"


def test_parsers():
    assert [g.name for g in parse_smi_query(SMI_QUERY)] == ["NVIDIA H100 80GB HBM3"] * 2
    assert [g.name for g in parse_rocm_smi(ROCM_SMI)] == ["AMD Instinct MI300X"] * 2


def test_saved_json_is_read_back_by_env_file(tmp_path):
    local = collect(runner=runner_of({"nvidia-smi --query-gpu": (0, SMI_QUERY, "")}), version_of=versions_of({"vllm": "0.11.0"}),
                    environ={}, read_torch_version_py=lambda: None)
    path = tmp_path / "env.json"
    path.write_text(json.dumps(local.to_json()))
    env = read_env_file(str(path))
    assert env.engine == "vllm" and env.facts["vllm"].value == "0.11.0" and env.facts["gpu_count"].value == 2
    assert "sglang" in env.not_installed


def test_layering_local_is_the_lowest_and_conflicts_are_shown():
    env = Environment(facts={"engine": Fact("vllm", "log"), "vllm": Fact("0.10.2", "log: environment listing"),
                             "engine_version": Fact("0.10.2", "log: environment listing")})
    local = {"vllm": Fact("0.11.0", "this machine"), "gpu": Fact("NVIDIA L40S", "this machine: nvidia-smi"),
             "engine": Fact("vllm", "this machine")}
    out = layered(env, None, local)
    assert out.get("engine_version") == "0.10.2" and out.get("vllm") == "0.10.2"  # the log wins
    assert out.get("gpu") == "NVIDIA L40S" and out.get("compute_capability") == "8.9"  # filled and derived
    assert any("the log says 0.10.2, this machine has 0.11.0" in c for c in out.conflicts)


def test_env_auto_fills_what_the_log_does_not_say(catalog):
    log = "torch.AcceleratorError: CUDA error: an illegal memory access was encountered\n"
    local = {"vllm": Fact("0.19.1", "this machine: pip package vllm"), "engine": Fact("vllm", "this machine"),
             "gpu": Fact("NVIDIA H200", "this machine: nvidia-smi")}
    report = diagnose_text(log, catalog, overrides=Overrides(local=local))
    env = report.environment
    assert env.get("engine") == "vllm" and env.get("engine_version") == "0.19.1" and env.get("compute_capability") == "9.0"
    assert env.facts["engine_version"].source.startswith("this machine")
    report = diagnose_text(log, catalog, overrides=Overrides(options={"engine_version": "0.18.0"}, local=local))
    assert report.environment.get("engine_version") == "0.18.0"


def test_cli_env_on_this_machine(tmp_path):
    from test_cli import run

    r = run("env")
    assert r.returncode == 0 and "python" in r.stdout and "Save it with" in r.stdout
    save = tmp_path / "env.json"
    r = run("env", "--format", "json", "--save", str(save))
    doc = json.loads(r.stdout)
    assert r.returncode == 0 and doc["qwen3doctor_env"] == 1 and json.loads(save.read_text()) == doc
    assert isinstance(doc["missing"], list) and "python" in doc["facts"]
    log = tmp_path / "crash.log"
    log.write_text("torch.AcceleratorError: CUDA error: an illegal memory access was encountered\n")
    r = run("diagnose", str(log), "--env-file", str(save), "--format", "json")
    assert json.loads(r.stdout)["environment"]["python"]["source"].startswith("env-file")
    r = run("diagnose", str(log), "--env-auto", "--format", "json")
    assert json.loads(r.stdout)["environment"]["python"]["source"].startswith("this machine")
    r = run("env", "--save", str(tmp_path / "no" / "dir" / "env.json"))
    assert r.returncode == 2 and "cannot write" in r.stderr and "Traceback" not in r.stderr
    r = run("env", "--format", "yaml")
    assert r.returncode == 2 and "unknown format" in r.stderr
