"""--env-file inputs: vllm collect-env of every generation, sglang check_env old / new keys, pip list / freeze,
nvidia-smi tables; and the precedence they take (options > env file > log)."""

import json

import pytest

from conftest import DATA
from qwen3doctor.judge.pipeline import Overrides, diagnose_text, merge_environment
from qwen3doctor.read.envfile import (
    KIND_NVIDIA_SMI, KIND_PIP_FREEZE, KIND_PIP_LIST, KIND_QWEN3DOCTOR, KIND_SGLANG, KIND_VLLM_LEGACY, KIND_VLLM_SECTIONED,
    parse_env_text, read_env_file,
)
from qwen3doctor.read.environment import EnvCollector
from qwen3doctor.errors import InputError
from qwen3doctor.read.prefixes import peel

ENVFILES = DATA / "envfiles"


def facts(name):
    env = read_env_file(str(ENVFILES / name))
    return env, {k: v.value for k, v in env.facts.items()}


def test_vllm_collect_env_legacy_layout_0_5():
    env, f = facts("vllm-collect-env-0.5-legacy.txt")
    assert env.kinds == (KIND_VLLM_LEGACY,) and env.engine == "vllm"
    assert f["vllm"] == "0.5.3.post1"
    assert f["torch"] == "2.3.1+cu121"  # `PyTorch version:` wins over the later `[pip3] torch==2.3.1`
    assert f["cuda_build"] == "12.1" and f["cuda"] == "12.1.105" and f["driver"] == "535.183.06"
    assert f["gpu"] == "NVIDIA A100-SXM4-80GB" and f["gpu_count"] == 2 and f["platform"] == "cuda"
    assert f["cudnn"] == "8.9.2" and f["nccl"] == "2.20.5" and f["transformers"] == "4.43.3"
    assert f["python"] == "3.10.14" and f["os"].startswith("Ubuntu 22.04.4")
    assert "rocm" not in f  # `ROCM used to build PyTorch: N/A` and `ROCm: Disabled` are not ROCm
    assert not any("Xeon" in str(v) or "Vulnerab" in str(v) for v in f.values())  # the CPU block is skipped


def test_vllm_collect_env_legacy_with_platform_line_and_env_vars_0_8():
    env, f = facts("vllm-collect-env-0.8-rtx4090.txt")
    assert env.kinds[0] == KIND_VLLM_LEGACY and f["vllm"] == "0.8.5" and f["platform"] == "cuda"
    assert f["gpu"] == "NVIDIA GeForce RTX 4090" and f["gpu_count"] == 1
    assert f["NCCL_CUMEM_ENABLE"] == "0" and f["cudnn"] == "9.1.0.70"


def test_vllm_collect_env_sectioned_layout_0_11():
    env, f = facts("vllm-collect-env-0.11-sectioned.txt")
    assert env.kinds == (KIND_VLLM_SECTIONED,) and env.engine == "vllm"
    assert f["vllm"] == "0.11.0" and f["torch"] == "2.8.0+cu128" and f["flashinfer"] == "0.3.1"
    assert f["gpu"] == "NVIDIA H100 80GB HBM3" and f["gpu_count"] == 4
    assert f["VLLM_USE_V1"] == "1" and f["nccl"] == "2.27.3"
    assert all(k != "platform" or v == "cuda" for k, v in f.items())


def test_vllm_collect_env_dev_build_cu130_with_xpu_line():
    env, f = facts("vllm-collect-env-0.16-dev-cu130.txt")
    assert f["vllm"] == "0.16.0rc2.dev294+g6a7b85d94" and f["cuda_build"] == "13.0" and f["gpu_count"] == 8
    assert f["nccl"] == "2.28.9" and f["cudnn"] == "9.13.0.50"  # the cu13 wheels
    assert "xpu" not in f


def test_vllm_collect_env_rocm():
    env, f = facts("vllm-collect-env-rocm-mi300x.txt")
    assert f["platform"] == "rocm" and f["rocm"] == "6.3.42134" and f["gfx"] == "gfx942"
    assert f["gpu"] == "AMD Instinct MI300X" and f["vllm"].startswith("0.8.5.dev235")
    assert "compute_capability" not in f


def test_sglang_check_env_old_keys():
    env, f = facts("sglang-check-env-0.4-old-keys.txt")
    assert env.kinds == (KIND_SGLANG,) and env.engine == "sglang"
    assert f["sglang"] == "0.4.1.post7" and f["flashinfer"] == "0.1.6+cu124torch2.4"  # `flashinfer:` (old key)
    assert f["gpu"] == "NVIDIA A100-SXM4-80GB" and f["gpu_count"] == 4 and f["compute_capability"] == "8.0"
    assert f["cuda"] == "12.4.131" and f["driver"] == "550.90.07" and f["torch"] == "2.5.1+cu124"
    assert f["vllm"] == "0.6.4.post1"  # installed alongside; the engine is still SGLang's


def test_sglang_check_env_new_keys():
    env, f = facts("sglang-check-env-0.5-new-keys.txt")
    assert env.engine == "sglang" and f["sglang"] == "0.5.3rc0"
    assert f["sgl_kernel"] == "0.3.14.post1" and f["flashinfer"] == "0.4.0"  # `flashinfer_python:`, `sgl_kernel:`
    assert f["gpu"] == "NVIDIA H20" and f["gpu_count"] == 8 and f["compute_capability"] == "9.0"
    assert "vllm" in env.not_installed and "vllm" not in f


def test_sglang_check_env_rocm_capability_is_not_a_cuda_one():
    env, f = facts("sglang-check-env-rocm.txt")
    assert f["platform"] == "rocm" and f["rocm"] == "6.3.42134" and f["rocm_driver"] == "6.10.5"
    assert "compute_capability" not in f and f["gfx_capability"] == "9.4"  # gfx942, not "CUDA 9.4"
    assert f["gpu"] == "AMD Instinct MI300X" and f["gpu_count"] == 8


def test_sglang_check_env_npu():
    env, f = facts("sglang-check-env-npu.txt")
    assert f["platform"] == "npu" and f["gpu"] == "Ascend910B3" and f["gpu_count"] == 8
    assert f["cann"] == "8.2.RC1" and f["torch_npu"] == "2.6.0"


def test_pip_freeze():
    env, f = facts("pip-freeze.txt")
    assert env.kinds == (KIND_PIP_FREEZE,) and env.engine == "vllm"
    assert f["vllm"] == "0.10.1.1" and f["torch"] == "2.7.1" and f["xformers"] == "0.0.31"
    assert f["deep_gemm_source"].startswith("file:///") and "deep_gemm" not in f  # installed from source: no version


def test_pip_list():
    env, f = facts("pip-list.txt")
    assert env.kinds == (KIND_PIP_LIST,) and env.engine == "sglang"
    assert f["sglang"] == "0.5.2" and f["sgl_kernel"] == "0.3.9.post2" and f["nccl"] == "2.27.3"


def test_a_package_list_with_both_engines_names_no_engine():
    env = parse_env_text("vllm==0.10.1\nsglang==0.5.2\ntorch==2.8.0\n")
    assert env.engine is None and env.facts["vllm"].value == "0.10.1"


def test_nvidia_smi_table():
    env, f = facts("nvidia-smi.txt")
    assert env.kinds == (KIND_NVIDIA_SMI,)
    assert f["gpu"] == "NVIDIA A10G" and f["gpu_count"] == 2 and f["driver"] == "550.54.15"
    assert f["cuda_driver_max"] == "12.4" and f["gpu_memory_mib"] == 23028


def test_nvidia_smi_old_table_with_cut_names():
    env, f = facts("nvidia-smi-2022-truncated-names.txt")
    assert f["gpu"] == "Tesla V100-SXM2" and f["gpu_count"] == 2 and f["cuda_driver_max"] == "11.7"
    env = merge_environment(EnvCollector(), Overrides(env_file=env.facts))
    assert env.get("compute_capability") == "7.0"  # derived from the cut name


def test_nvidia_smi_list_and_query_csv():
    env = parse_env_text("GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-1b2c3d4e-aaaa-bbbb-cccc-0123456789ab)\n"
                         "GPU 1: NVIDIA H100 80GB HBM3 (UUID: GPU-5f6a7b8c-aaaa-bbbb-cccc-0123456789ab)\n")
    assert env.facts["gpu"].value == "NVIDIA H100 80GB HBM3" and env.facts["gpu_count"].value == 2


def test_concatenated_listing_and_serve_command():
    text = (ENVFILES / "pip-freeze.txt").read_text() + (ENVFILES / "nvidia-smi.txt").read_text() + \
        "vllm serve Qwen/Qwen3-30B-A3B-FP8 --tensor-parallel-size 2 --enforce-eager\n"
    env = parse_env_text(text, "mixed.txt")
    f = {k: v.value for k, v in env.facts.items()}
    assert f["vllm"] == "0.10.1.1" and f["gpu"] == "NVIDIA A10G" and f["model"] == "Qwen/Qwen3-30B-A3B-FP8"
    assert "--enforce-eager" in env.flags and "log lines" in env.kinds


def test_qwen3doctor_env_json_round_trip(tmp_path):
    doc = {"qwen3doctor_env": 1, "facts": {"vllm": "0.11.0", "gpu": "NVIDIA L40S", "engine": "vllm", "torch": "2.8.0"},
           "packages": {"vllm": "0.11.0", "sglang": None}}
    path = tmp_path / "env.json"
    path.write_text(json.dumps(doc))
    env = read_env_file(str(path))
    assert env.kinds == (KIND_QWEN3DOCTOR,) and env.engine == "vllm" and "engine" not in env.facts
    assert env.facts["gpu"].value == "NVIDIA L40S" and env.not_installed == ("sglang",)


def test_unrelated_file_is_a_one_line_error(tmp_path):
    path = tmp_path / "notes.txt"
    path.write_text("remember to buy milk\n")
    with pytest.raises(InputError, match="no environment facts found"):
        read_env_file(str(path))
    with pytest.raises(InputError, match="no such file"):
        read_env_file(str(tmp_path / "missing.txt"))


def test_env_file_engine_fills_a_log_that_names_none(catalog):
    log = "torch.AcceleratorError: CUDA error: an illegal memory access was encountered\n"
    env_file = read_env_file(str(ENVFILES / "vllm-collect-env-0.11-sectioned.txt"))
    report = diagnose_text(log, catalog, overrides=Overrides(env_file=env_file.facts, env_file_engine=env_file.engine))
    assert report.environment.get("engine") == "vllm" and report.environment.get("engine_version") == "0.11.0"
    assert report.environment.facts["engine_version"].source.startswith("env-file")


def test_precedence_option_over_env_file_over_log_with_conflicts():
    c = EnvCollector()
    for line in ["vLLM Version                 : 0.10.0", "vllm serve Qwen/Qwen3-8B"]:
        c.feed(*reversed(peel(line)))
    env_file = read_env_file(str(ENVFILES / "vllm-collect-env-0.11-sectioned.txt"))
    env = merge_environment(c, Overrides(env_file=env_file.facts))
    assert env.get("engine_version") == "0.11.0"
    assert any("0.10.0" in x and "env file wins" in x for x in env.conflicts)
    env = merge_environment(c, Overrides(options={"engine_version": "0.12.0"}, env_file=env_file.facts))
    assert env.get("engine_version") == "0.12.0"


def test_cli_env_file_with_collect_env(tmp_path):
    from test_cli import run

    log = tmp_path / "crash.log"
    log.write_text("torch.AcceleratorError: CUDA error: an illegal memory access was encountered\n")
    r = run("diagnose", str(log), "--env-file", str(ENVFILES / "vllm-collect-env-0.16-dev-cu130.txt"), "--format", "json")
    doc = json.loads(r.stdout)
    assert doc["environment"]["engine_version"]["value"] == "0.16.0rc2.dev294+g6a7b85d94"
    assert doc["environment"]["gpu"]["value"] == "NVIDIA H200" and doc["environment"]["gpu_count"]["value"] == 8
    r = run("diagnose", str(log), "--env-file", str(tmp_path / "nope.txt"))
    assert r.returncode == 2 and "nope.txt: no such file" in r.stderr and "Traceback" not in r.stderr
