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


def test_python_wording_without_its_type_is_read_as_that_error():
    # a reporter pastes only the message line; Python's wording says which exception it was
    c = prose_crash(["'MergedColumnParallelLinear' object has no attribute 'weight'"])
    assert (c.exception_type, c.message, c.excerpt) == (
        "AttributeError", "'MergedColumnParallelLinear' object has no attribute 'weight'", True)
    assert prose_crash(["forward() got an unexpected keyword argument 'positions'"]).exception_type == "TypeError"
    assert prose_crash(["No module named 'vllm._C'"]).exception_type == "ModuleNotFoundError"
    # the wording inside a sentence about something else is no error line
    assert prose_crash(["the docs say the object has no attribute named like that"]) is None


def test_python_wording_alone_is_no_fragment_of_a_rule_that_names_another_class(catalog):
    # `'(?:HybridAttnBackend|TboAttnBackend)' object has no attribute` shares only Python's wording with this paste
    # (not 'MergedColumnParallelLinear' ... 'weight': since round 26 a rule names that one, sglang#29318)
    report = diagnose_text("'RowParallelLinear' object has no attribute 'bias_loader'\n", catalog)
    assert report.verdict.value == "unexplained-crash" and not report.findings
    # the class a rule names, pasted the same bare way, still finds that rule (at reduced confidence)
    report = diagnose_text("'Qwen3ForEmbedding' object has no attribute 'lm_head'\n", catalog)
    assert report.findings[0].rule_id == "qwen3-embedding-served-as-generate"
    assert report.findings[0].confidence != "high"


def test_a_paste_that_only_says_something_failed_is_not_shown_as_a_cut_traceback(catalog):
    # a ROCm library's own error line (MIOpen), no Python traceback anywhere: the words say it failed, nothing more
    from qwen3doctor.render.plain import crash_line

    paste = ("MIOpen(HIP):  requestAlgoCount = 1\n"
             "MIOpen(HIP): Error [EvaluateInvokers] /src/miopen/src/hipoc/hipoc_kernel.cpp:128: "
             "Failed to launch kernel: invalid configuration argument\n")
    line = crash_line(diagnose_text(paste, catalog).crash)
    assert "no error line or traceback" in line and "line 2" in line
    assert "cut before its exception line" not in line


def test_a_message_line_is_not_glued_to_the_command_line_above_it(catalog):
    # a launch command, then the error a client got, each a line of its own: the message is the second line alone
    paste = ("uv run -m sglang.launch_server \\\n--model-path Qwen/Qwen3-4B \\\n--port 30000\n"
             "\"The input (70000 tokens) is longer than the model's context length (40960).\"\n")
    crash = diagnose_text(paste, catalog).crash
    assert crash.message.startswith('"The input (70000 tokens)') and "--port" not in crash.message


def test_rays_memory_monitor_summary_is_no_cuda_oom(catalog):
    """Ray's raylet summary says "OOM" for the host's memory; with "0 Workers crashed" on the same line it is still
    the account of a kill, and Ray's advice line under it ("how to address the out of memory issue") no CUDA OOM."""
    paste = ("(raylet) [2025-04-02 15:02:00,117 E 135782 135782] (raylet) node_manager.cc:3069: 1 Workers (tasks / "
             "actors) killed due to memory pressure (OOM), 0 Workers crashed due to other reasons at node (ID: 351e4, "
             "IP: 10.0.0.5) over the last time period.\n(raylet) \n"
             "(raylet) Refer to the documentation on how to address the out of memory issue: https://docs.ray.io/\n")
    report = diagnose_text(paste, catalog)
    assert report.crashes and "CUDA" not in report.crashes[0].message
    assert report.findings[0].rule_id == "ray-memory-monitor-kills-worker"


def test_the_kernels_oom_killer_is_no_cuda_oom(catalog):
    """The kernel's OOM-killer lines say "Out of memory" for the host's RAM: a short paste of them is the account of
    a kill, never a CUDA OOM (which would make every GPU-OOM rule a candidate); the engine's rule claims it only when
    the victim is an engine process."""
    assert prose_crash(["Out of memory: Killed process 5512 (ollama) total-vm:41250312kB, anon-rss:20971008kB"]).message == ""
    assert prose_crash(["kubectl: Last State: Terminated, Reason: OOMKilled, Exit Code: 137"]).message == ""
    neighbour = ("Jul 02 21:14:51 spark-a3f2 kernel: ollama invoked oom-killer: gfp_mask=0x140cca(GFP_HIGHUSER_MOVABLE), "
                 "order=0, oom_score_adj=0\n"
                 "Jul 02 21:14:51 spark-a3f2 kernel: Out of memory: Killed process 5512 (ollama) total-vm:41250312kB, "
                 "anon-rss:20971008kB, file-rss:1024kB, shmem-rss:0kB, UID:996 pgtables:48912kB oom_score_adj:0\n")
    report = diagnose_text(neighbour, catalog)
    assert all("CUDA" not in c.message for c in report.crashes) and not report.findings
    engine = neighbour.replace("(ollama)", "(VLLM::EngineCor)").replace("kernel: ollama", "kernel: VLLM::EngineCor")
    assert diagnose_text(engine, catalog).findings[0].rule_id == "host-oom-killer-kills-engine-process"
