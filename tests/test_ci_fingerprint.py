"""Fingerprints of unexplained crashes: stable across runs, ranks, versions' line numbers, install paths and
ids; different for different crashes; built from engine frames only."""

from __future__ import annotations

from ci_fixtures import UNKNOWN
from qwen3doctor.judge.pipeline import diagnose_text
from qwen3doctor.judge.fingerprint import (FINGERPRINT_VERSION, engine_frames, is_engine_file, of_report, template,
                                     template_regex)
from qwen3doctor.model import Frame
import re


def fp_of(text, catalog):
    return of_report(diagnose_text(text, catalog))


def test_engine_files():
    assert is_engine_file("/usr/local/lib/python3.12/dist-packages/vllm/v1/worker/gpu_model_runner.py")
    assert is_engine_file("/sgl-workspace/sglang/python/sglang/srt/managers/scheduler.py")
    assert is_engine_file("/home/u/vllm/vllm/model_executor/layers/fused_moe/layer.py")  # a source checkout
    assert is_engine_file("/opt/venv/lib/python3.12/site-packages/flashinfer/gdn.py")
    assert is_engine_file("/usr/local/lib/python3.11/site-packages/sgl_kernel/sampling.py")
    assert is_engine_file("/usr/local/lib/python3.11/site-packages/vllm_ascend/worker/model_runner_v1.py")
    assert not is_engine_file("/usr/local/lib/python3.12/dist-packages/torch/nn/modules/module.py")
    assert not is_engine_file("/home/u/vllm_env/lib/python3.12/site-packages/torch/utils/_contextlib.py")
    assert not is_engine_file("/usr/lib/python3.12/asyncio/runners.py")
    assert not is_engine_file("/usr/lib/python3.12/multiprocessing/process.py")


def test_engine_frames_fold_recursion_and_keep_the_deepest():
    frames = tuple(Frame(f"/x/site-packages/{pkg}/m.py", 1, fn) for pkg, fn in [
        ("vllm", "a"), ("torch", "_call_impl"), ("vllm", "b"), ("vllm", "b"), ("vllm", "c"), ("vllm", "d"),
        ("vllm", "e"), ("vllm", "f"), ("triton", "run")])
    assert engine_frames(frames) == ("b", "c", "d", "e", "f")


def test_template_masks_what_varies():
    assert template("shape [128, 256, 3] at 0x7f20acb7cb00 in /home/x/vllm/a.py for chatcmpl-abc123def on cuda:0 "
                    "from 10.0.0.1:5000 loading Qwen/Qwen3-8B layers.12.mlp took 1.5e-3 s, id 3f2a9c1e-1b2c-4d5e-8f90-123456789abc") == (
        "shape [<n>, ...] at <addr> in <path> for <id> on cuda:<n> from <ip> loading <path> layers.<n>.mlp took <n> s, id <id>")
    assert template("Bfloat16 is only supported on GPUs with compute capability of at least 8.0") == \
        "Bfloat16 is only supported on GPUs with compute capability of at least <n>"
    assert template("token hf_QwErTyUiOpAsDfGhJkLzXcVbNm1234567890 for a@b.example.com") == "token <hf-token> for <email>"
    long = template("x " * 400)
    assert len(long) <= 200 and not long.endswith("<")


def test_template_regex_matches_the_original_message():
    for message in ("could not broadcast input array from shape (17,) into shape (16,) for request chatcmpl-8c1f2e9a0b7d",
                    "CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 79.19 GiB",
                    "Expected [1, 2, 3] but got [4, 5] at 0xdeadbeef in /home/alice/x.py"):
        assert re.search(template_regex(template(message)), message), message


LOG = UNKNOWN.read_text()


def test_same_crash_same_fingerprint_across_runs_ranks_versions_and_paths(catalog):
    base = fp_of(LOG, catalog)
    assert base.version == FINGERPRINT_VERSION and re.fullmatch(r"fp1-[0-9a-f]{10}", base.id)
    assert base.exception_type == "ValueError"
    assert base.frames == ("worker_busy_loop", "execute_model", "_frobnicate_block_table")  # torch's frame left out
    assert base.template == "could not broadcast input array from shape (<n>,) into shape (<n>,) for request <id>"
    variants = [
        LOG.replace("Worker_TP1 pid=241", "Worker_TP5 pid=9911"),  # another rank
        LOG.replace("line 188", "line 201").replace("line 2402", "line 2511"),  # another version's line numbers
        LOG.replace("/usr/local/lib/python3.12/dist-packages/", "/home/bob/.venv/lib/python3.11/site-packages/"),
        LOG.replace("(17,)", "(33,)").replace("(16,)", "(32,)").replace("chatcmpl-8c1f2e9a0b7d", "chatcmpl-ffff0000aaaa"),
        LOG.replace("torch/utils/_contextlib.py", "torch/utils/_contextlib2.py"),  # non-engine frames do not count
    ]
    for text in variants:
        assert fp_of(text, catalog).id == base.id


def test_different_crashes_differ(catalog):
    base = fp_of(LOG, catalog).id
    assert fp_of(LOG.replace("ValueError", "IndexError"), catalog).id != base
    assert fp_of(LOG.replace("_frobnicate_block_table", "_swizzle_block_table"), catalog).id != base
    assert fp_of(LOG.replace("could not broadcast", "cannot reshape"), catalog).id != base


def test_a_host_redacted_address_keeps_the_template():
    from qwen3doctor.judge.fingerprint import template

    original = "Failed to connect to target: 172.16.100.99:25389, status: 103900"
    assert template(original) == template("Failed to connect to target: <ip>:25389, status: 103900")
