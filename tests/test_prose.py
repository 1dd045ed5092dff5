"""A short paste whose only account of the crash is in words (an issue title above an environment listing)."""
from __future__ import annotations

from qwen3doctor.judge.pipeline import diagnose_text
from qwen3doctor.read.crash import prose_crash


def test_the_words_of_a_title_name_the_crash_in_the_engines_wording():
    c = prose_crash(["Model fails to deploy: Illegal CUDA memory access with FP8 Qwen3-235B in vLLM v0.11.0"])
    assert (c.message, c.role, c.excerpt, c.crash_class) == (
        "CUDA error: an illegal memory access was encountered", "fragment", True, "illegal-memory-access")
    c = prose_crash(["--runner pooling --convert classify crashes with ValueError on Qwen3-Reranker-8B"])
    assert c.exception_type == "ValueError" and c.message_cut
    assert prose_crash(["RuntimeError: Qwen3 MoE gate weight missing"]).message == "Qwen3 MoE gate weight missing"


def test_commands_and_negations_are_no_crash():
    assert prose_crash(["vllm serve Qwen/Qwen3-8B --enforce-eager  # crashes without it"]) is None
    assert prose_crash(["Benchmark finished: 0 crashes, 1200 requests"]) is None
    assert prose_crash(["ran 2 hours without OOM or crash"]) is None
    assert prose_crash(["INFO Uvicorn running on http://0.0.0.0:8000"]) is None


def test_a_title_paste_gets_candidates_and_a_long_log_is_not_read_as_prose(catalog):
    title = ("[Bug]: --runner pooling --convert classify crashes with ValueError on Qwen3-Reranker-8B\n"
             "vLLM Version                 : 0.11.0\nGPU 0: NVIDIA H100 80GB HBM3\n")
    report = diagnose_text(title, catalog)
    assert report.verdict.value in ("finding", "unexplained-crash") and report.crash.excerpt
    assert all(f.confidence != "high" for f in report.findings)
    # the same words in a long log with no crash line: not a crash sign
    long_log = "".join(f"INFO 07-01 10:00:{i % 60:02d} [logger.py:41] request {i} done\n" for i in range(60))
    assert diagnose_text(long_log + title, catalog).verdict.value == "no-crash"
