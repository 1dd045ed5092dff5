"""What the server was doing when it crashed (read.phases): the last start-up or serving line before the crash."""
from __future__ import annotations

from qwen3doctor.judge.pipeline import diagnose_text
from qwen3doctor.read.phases import phase_of

CUT = """\
ERROR 06-06 11:53:56 [core.py:515] EngineCore failed to start.
ERROR 06-06 11:53:56 [core.py:515] Traceback (most recent call last):
ERROR 06-06 11:53:56 [core.py:515]   File "/usr/local/lib/python3.12/dist-packages/vllm/v1/engine/core.py", line 506, in run_engine_core
ERROR 06-06 11:53:56 [core.py:515]     engine_core = EngineCoreProc(*args, **kwargs)
"""


def test_each_phase_from_its_engine_lines():
    assert phase_of("Loading safetensors checkpoint shards:  29% Completed | 2/7 [00:02<00:06,  1.23s/it]") == \
        "loading the checkpoint (shard 2 of 7 loaded)"
    assert phase_of("Loading safetensors checkpoint shards: 100% Completed | 7/7 [00:08<00:00,  1.20s/it]").startswith(
        "processing the weights (all 7")
    assert phase_of("[2025-12-01 01:07:23] Capture cuda graph begin. This can take up to several minutes.") == "capturing CUDA graphs"
    assert phase_of("INFO 07-18 19:55:40 [gpu_model_runner.py:2567] Capturing CUDA graphs (mixed prefill-decode, PIECEWISE): 45%") \
        == "capturing CUDA graphs"
    assert phase_of('INFO:     10.0.0.7:51234 - "POST /v1/chat/completions HTTP/1.1" 200 OK').startswith("serving requests")
    assert phase_of("[2026-09-02 19:17:33 TP0 EP0] Decode batch, #running-req: 21, #full token: 348160").startswith("serving")
    assert phase_of("INFO 05-05 01:45:19 [__init__.py:239] Automatically detected platform cuda.") is None


def test_a_crash_is_placed_in_the_last_phase_before_it(catalog):
    head = ("INFO 06-06 11:53:40 [gpu_model_runner.py:1595] Starting to load model Qwen/Qwen3-Embedding-0.6B...\n"
            "Loading safetensors checkpoint shards:   0% Completed | 0/1 [00:00<?, ?it/s]\n")
    report = diagnose_text(head + CUT, catalog)
    assert report.crash.during == "loading the checkpoint (shard 0 of 1 loaded)"
    assert "while: loading the checkpoint" in __import__("qwen3doctor.render.plain", fromlist=["render"]).render(report)
    # serving lines after the crash do not move it; a crash with no phase line before it has none
    later = diagnose_text(head + CUT + 'INFO:     10.0.0.7:5 - "POST /v1/completions HTTP/1.1" 500 Internal Server Error\n', catalog)
    assert later.crash.during.startswith("loading the checkpoint")
    assert diagnose_text(CUT, catalog).crash.during == ""
