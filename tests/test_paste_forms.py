"""The same crash, pasted the ways users paste it (tools/perturb): each form keeps the diagnosis of the log as
collected. Each transformation was a class of real reports the reader lost before it was handled."""
from __future__ import annotations

from pathlib import Path

import pytest

from qwen3doctor.judge.pipeline import diagnose_text
from qwen3doctor.tools.perturb import TRANSFORMS

LOGS = Path(__file__).parent.parent / "examples" / "logs"
EXAMPLES = [
    "vllm/gdn-cudagraph-illegal-memory-access--vllm-34948.log",  # vLLM process and level prefixes, a long traceback
    "sglang/deepgemm-python-api-mismatch--qwen3-235b-fp8-ep8-forward-deepgemm.log",
    "vllm/qwen3-embedding-served-as-generate--0.8.5-embed-tokens.log",
    "vllm/qwen3.5-moe-int4-expert-weight-name-keyerror--vllm-ext-autoround-1464.log",  # a harness tag before each prefix
]
# forms that lose lines on purpose (a tail), or that the reader can only undo from the timestamps (a newest-first
# export of lines that all carry the same second), measured by `eval --perturb` rather than held to here
LOSSY = {"last-15-lines", "newest-first"}


@pytest.mark.parametrize("name", [n for n in TRANSFORMS if n not in LOSSY])
@pytest.mark.parametrize("example", EXAMPLES)
def test_a_paste_form_keeps_the_diagnosis(catalog, example, name):
    text = (LOGS / example).read_text()
    want = diagnose_text(text, catalog).findings[0].rule_id
    got = diagnose_text(TRANSFORMS[name][1](text), catalog)
    assert got.findings and got.findings[0].rule_id == want, (name, [f.rule_id for f in got.findings[:3]])


def test_a_terminal_wrap_is_undone_only_where_lines_go_on_mid_text(catalog):
    from qwen3doctor.read.prefixes import unwrapped

    wrapped = [(1, "x" * 70, 0), (2, "tail one", 0), (3, "y" * 70, 0), (4, "tail two", 0), (5, "z" * 70, 0), (6, "end", 0)]
    assert [t for _, t, _ in unwrapped(wrapped)] == ["x" * 70 + "tail one", "y" * 70 + "tail two", "z" * 70 + "end"]
    # lines that merely share a length and are followed by new records of the same shape stay apart
    records = [(i, f"[VLLM LOG] (Worker_TP3 pid=51793) ERROR {'a' * 60}", 0) for i in range(1, 7)]
    assert list(unwrapped(records)) == records
    # a later line wider than the width: it was not a wrapped paste, nothing more is joined
    later = wrapped + [(7, "w" * 90, 0), (8, "q" * 70, 0), (9, "next", 0)]
    assert [t for _, t, _ in unwrapped(later)][-2:] == ["q" * 70, "next"]


@pytest.mark.parametrize("example, width", [
    ("sglang/fp8-block-quant-tp-indivisible--sglang-10852.log", 80),  # a frame's function and the message cut mid-word
    ("sglang/fp8-block-quant-tp-indivisible--sglang-10852.log", 100),
    ("vllm/qwen3-omni-audio-feature-lengths-shape--vllm-27906.log", 100),  # a cut that leaves a space in front
    ("vllm/nccl-init-system-error--vllm-neg-minimax-42.log", 100),  # an exception line cut twice
    ("sglang/rocm-hsa-memory-aperture-violation--sglang-neg-22714.log", 132),
])
def test_a_short_paste_copied_from_a_terminal_is_joined_again(catalog, example, width):
    """A paste of a few lines holds one or two lines cut at the window's width, too few to count as a wrapped log:
    it is joined when every line that wide goes on with text that cannot start a line of its own."""
    from qwen3doctor.tools.perturb import _wrap

    text = (LOGS / example).read_text()
    want = diagnose_text(text, catalog).findings[0].rule_id
    got = diagnose_text(_wrap(text, width), catalog)
    assert got.findings and got.findings[0].rule_id == want, [f.rule_id for f in got.findings[:3]]


def test_a_short_paste_is_not_joined_where_a_line_of_its_own_follows():
    from qwen3doctor.read.prefixes import unwrapped

    wide = "x" * 99 + "y"
    # the widest line followed by a record, a frame or an exception line: lines of their own, not the rest of it
    for following in ("INFO 06-01 22:29:39 next record", '  File "a.py", line 1, in f', "KeyError: 'x'",
                      "torch.OutOfMemoryError: CUDA out of memory.",
                      # a progress bar after the widest line (a version line glued to it read 0.8.5...d20250429Capturing)
                      "Capturing CUDA graph shapes:   0%|          | 0/35 [00:00<?, ?it/s]",
                      "Loading safetensors checkpoint shards:  50% Completed | 2/4 [00:01<00:01,  1.43s/it]"):
        lines = [(1, wide, 0), (2, following, 0)]
        assert list(unwrapped(lines)) == lines
    # a word, then a sentence that starts a line of its own (c10's `Exception raised from`, a device guard's line)
    word = "x" * 95 + " warm"
    for following in ("Exception raised from nvfp4_scaled_mm_sm120.cuh:175", "This kernel only supports sm120.",
                      "iv-ydin754t:1458548:1480527 [0] NCCL INFO transport/net_ib.cc:1872 -> 2"):
        lines = [(1, word, 0), (2, following, 0)]
        assert list(unwrapped(lines)) == lines
    # a listing's `Label: value` line after a command that ends in a number
    lines = [(1, "x" * 90 + " --port 8000", 0), (2, "GPU 0: NVIDIA B200", 0)]
    assert list(unwrapped(lines)) == lines
    # a CamelCase name a wrap cut goes on with the name: still joined
    lines = [(1, "x" * 90 + " cudaErrorLaunch", 0), (2, "Failure: unspecified launch failure", 0)]
    assert [t for _, t, _ in unwrapped(lines)] == ["x" * 90 + " cudaErrorLaunchFailure: unspecified launch failure"]
    # a narrower line that also goes on mid-sentence: the text runs over lines by itself, no window cut it
    prose = [(1, "The model failed to load because", 0), (2, "the checkpoint is incomplete", 0), (3, wide, 0), (4, "tail", 0)]
    assert list(unwrapped(prose)) == prose


def test_a_wrapped_serve_command_keeps_its_continued_lines(catalog):
    """A command continued with backslashes whose lines a terminal also cut: the joined pieces leave no gap, so the
    lines after the first still belong to the command (a gap ends it)."""
    from qwen3doctor.tools.perturb import _wrap

    command = ("CUDA_VISIBLE_DEVICES=0,1 python -m sglang.launch_server --model-path Qwen/Qwen3-30B-A3B-Instruct-2507-FP8 \\\n"
               "  --pipeline-parallel-size 2 --context-length 16384 --quantization fp8 --disable-overlap-schedule "
               "--mem-fraction-static 0.85\n")
    env = diagnose_text(_wrap(command, 80), catalog).environment
    assert env.get("pp") == 2 and str(env.get("quantization")).startswith("fp8")


def test_common_indentation_is_removed_but_a_log_at_column_zero_is_left_alone():
    from qwen3doctor.read.prefixes import dedented

    block = [(1, "    Traceback (most recent call last):", 0), (2, '      File "a.py", line 1, in f', 0), (3, "    KeyError: 'x'", 0)]
    assert [t for _, t, _ in dedented(block)] == ["Traceback (most recent call last):", '  File "a.py", line 1, in f', "KeyError: 'x'"]
    plain = [(1, "INFO start", 0), (2, '  File "a.py", line 1, in f', 0)]
    assert list(dedented(plain)) == plain


def test_a_log_shipper_record_of_several_lines_is_read_line_by_line(catalog):
    import json

    text = (LOGS / EXAMPLES[1]).read_text()
    want = diagnose_text(text, catalog).findings[0].rule_id
    # key order, spacing and the field name vary by shipper; an API error body is not a log record of lines
    for record in ({"time": "2026-01-01T00:00:00Z", "msg": text}, {"MESSAGE": text, "_PID": "2211"}):
        assert diagnose_text(json.dumps(record) + "\n", catalog).findings[0].rule_id == want


def test_a_newest_first_export_is_read_in_the_order_it_was_written(catalog):
    from qwen3doctor.read.prefixes import oldest_first

    written = [
        "[2026-05-01 10:00:01] server_args=ServerArgs(model_path='Qwen/Qwen3-30B-A3B', tp_size=2)",
        "[2026-05-01 10:00:03 TP0] Load weight begin. avail mem=78.50 GB",
        "[2026-05-01 10:00:05 TP0] Scheduler hit an exception: Traceback (most recent call last):",
        '[2026-05-01 10:00:05 TP0]   File "/sgl-workspace/sglang/python/sglang/srt/managers/scheduler.py", line 2612, in run_scheduler_process',
        "[2026-05-01 10:00:05 TP0]     scheduler = Scheduler(server_args, port_args, gpu_id, tp_rank)",
        "[2026-05-01 10:00:05 TP0] KeyError: 'model.layers.0.mlp.experts.w2_weight'",
        "[2026-05-01 10:00:06] Received sigquit from a child process. It usually means the child failed.",
        "[2026-05-01 10:00:07] Killed",
    ]
    exported = list(reversed(written))
    numbered = [(i, t, 0) for i, t in enumerate(exported, 1)]
    assert [t for _, t, _ in oldest_first(numbered)] == written
    forward = [(i, t, 0) for i, t in enumerate(written, 1)]
    assert list(oldest_first(forward)) == forward  # already in order: untouched
    report = diagnose_text("\n".join(exported) + "\n", catalog)
    crash = report.crash
    assert crash.exception_type == "KeyError" and crash.functions[-1] == "run_scheduler_process"


def test_the_reading_decisions_hold_back_a_bounded_amount_of_text():
    """Each decision (indentation, terminal wrap, newest-first) looks at the head of the log before yielding it: a
    log of 1 MiB lines must not make any of them hold hundreds of megabytes."""
    from qwen3doctor.read.prefixes import SAMPLE_BYTES, dedented, oldest_first, unwrapped

    for stage in (dedented, unwrapped, oldest_first):
        pulled = 0

        def lines():
            nonlocal pulled
            for i in range(1, 10_000):
                pulled += 1
                yield i, "  x" * (1 << 18), 0  # 768 KiB each

        first = next(iter(stage(lines())))
        assert first[0] == 1 and pulled * 3 * (1 << 18) <= SAMPLE_BYTES + 3 * (1 << 18), (stage.__name__, pulled)


def test_a_wrapped_paste_is_joined_into_lines_no_longer_than_the_reader_keeps():
    from qwen3doctor.read.prefixes import MAX_JOINED, unwrapped

    # a 5 MB JSON body wrapped at 80 columns: every piece is exactly 80 wide and goes on mid-text
    pieces = [(i, f"{i % 10}" + "x" * 79, 0) for i in range(1, 60_001)]
    joined = list(unwrapped(pieces))
    assert max(len(t) for _, t, _ in joined) <= MAX_JOINED + 80 and sum(len(t) for _, t, _ in joined) == 80 * 60_000


def test_a_newest_first_traceback_logged_within_one_second_is_put_back_by_its_carets(catalog):
    """All of a traceback's lines carry the same second, so the timestamps say nothing of the order; Python's caret
    lines do (they sit under their code line). Every example log, written in order, is left as it is."""
    from qwen3doctor.read.prefixes import oldest_first

    stamp = "(Worker_TP1 pid=51790) ERROR 02-25 02:56:51 [multiproc_executor.py:783] "
    written = [stamp + line for line in (
        "Traceback (most recent call last):",
        '  File "/usr/local/lib/python3.12/dist-packages/vllm/model_executor/models/utils.py", line 344, in load_weights',
        '    autoloaded_weights = set(self._load_module("", self.module, weights))',
        "                         ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^",
        '  File "/usr/local/lib/python3.12/dist-packages/vllm/model_executor/models/qwen3_5.py", line 512, in load_weights',
        "    param = params_dict[name]",
        "            ~~~~~~~~~~~^^^^^^",
        "KeyError: 'layers.0.mlp.experts.w13_qweight'",
    )]
    exported = [(i, t, 0) for i, t in enumerate(reversed(written), 1)]
    assert [t for _, t, _ in oldest_first(exported)] == written
    report = diagnose_text("\n".join(t for _, t, _ in exported) + "\n", catalog)
    assert report.crash.exception_type == "KeyError" and report.crash.functions[-1] == "load_weights"
    for path in sorted(LOGS.rglob("*.log")):
        lines = [(i, t, 0) for i, t in enumerate(path.read_text(errors="replace").splitlines(), 1)]
        if len(lines) <= 20_000:
            assert list(oldest_first(lines)) == lines, path.name


def test_a_newest_first_export_without_clock_steps_is_put_back_by_its_progress_bars(catalog):
    """A start-up logged within one second has no timestamps to order it; its progress bars do (their percentage
    only climbs in the order written), whatever prefix and timestamp each line carries."""
    from qwen3doctor.read.prefixes import oldest_first

    for prefix in ("", "(Worker_TP0 pid=311) INFO 12-01 01:07:2{} [default_loader.py:267] "):
        written = [prefix.format(i % 10) + f"Loading safetensors checkpoint shards: {100 * i // 7:3d}% Completed | {i}/7"
                   for i in range(8)]
        written += ["[2025-12-01 01:07:23] Capture cuda graph begin. This can take up to several minutes."]
        exported = [(i, t, 0) for i, t in enumerate(reversed(written), 1)]
        assert [t for _, t, _ in oldest_first(exported)] == written
        forward = [(i, t, 0) for i, t in enumerate(written, 1)]
        assert list(oldest_first(forward)) == forward
    # two workers loading side by side climb on each line of their own: nothing to turn over
    both = [f"(Worker_TP{r} pid=3{r}) Loading safetensors checkpoint shards: {p:3d}% Completed"
            for p in (0, 50, 100) for r in (0, 1)]
    lines = [(i, t, 0) for i, t in enumerate(both, 1)]
    assert list(oldest_first(lines)) == lines


def test_a_paste_whose_first_line_lost_its_indentation_keeps_its_exception_line(catalog):
    # sglang#36005's form: the first `File` line at column 0, the rest of the block two spaces in, and the bare
    # exception at the frames' indentation after a caret line: the assertion, not a traceback cut above it
    paste = ('File "sglang/srt/managers/schedule_batch.py", line 2509, in prepare_for_extend\n'
             "      track_entry = self._mamba_radix_cache_v2_req_prepare_for_extend(req)\n"
             '  File "sglang/srt/managers/schedule_batch.py", line 2654, in _force_track_h\n'
             "      assert i % chunk_size == 0\n"
             "             ^^^^^^^^^^^^^^^^^^^\n"
             "  AssertionError\n")
    crash = diagnose_text(paste, catalog).crash
    assert crash.exception_type == "AssertionError" and crash.complete
    assert crash.assertion == "assert i % chunk_size == 0"
    # a code line under the frame that reads like a name is still code: it is indented deeper than the frames
    code = paste.replace("  AssertionError\n", "").replace("      assert i % chunk_size == 0\n", "      ValueError\n")
    assert diagnose_text(code, catalog).crash.exception_type is None


def test_a_launchers_json_record_keeps_what_failed_beside_its_message(catalog):
    # `"msg":"vllm exited with code 1","error":"...ValidationError..."`: the error field is read as the record's lines
    import json

    record = {"ts": "2026-07-09T08:15:09Z", "level": "error", "component": "launcher", "msg": "vllm exited with code 1",
              "error": "pydantic_core._pydantic_core.ValidationError: 1 validation error for VllmConfig\n  Value error, "
                       "KV connector LMCacheConnectorV1 is incompatible with PYTORCH_CUDA_ALLOC_CONF="
                       "expandable_segments:True unless enable_cumem_allocator is also enabled."}
    report = diagnose_text(json.dumps(record) + "\n", catalog)
    assert report.verdict.value != "no-crash"
    assert report.findings and report.findings[0].rule_id == "kv-connector-rejects-expandable-segments"


def test_ucx_signal_handler_lines_are_a_crash_with_native_frames(catalog):
    # NIXL / Mooncake load UCX, whose handler prints the signal and a backtrace of `lib.so(symbol+0xoff)` frames
    paste = ("[9ec78181b8c7:56683:0:56683] Caught signal 8 (Floating point exception: integer divide by zero)\n"
             "==== backtrace (tid:  56683) ====\n"
             " 0  /opt/hpcx/ucx/lib/libucs.so.0(ucs_handle_error+0x2e4) [0x7d74482f5654]\n"
             " 1  /opt/hpcx/ucx/lib/libucs.so.0(+0x3684c) [0x7d74482f584c]\n"
             " 4  /root/.cache/flashinfer/0.4.1/100a/cached_ops/fused_moe_trtllm_sm100/fused_moe_trtllm_sm100.so"
             "(_ZN3moe3dev7routing15routingDeepSeek7runImplERNS2_4DataEPv+0x4a1) [0x7d7419a1c2d1]\n")
    crash = diagnose_text(paste, catalog).crash
    assert crash is not None and crash.crash_class == "segfault"
    assert crash.message == "Caught signal 8 (Floating point exception: integer divide by zero)"
    assert "_ZN3moe3dev7routing15routingDeepSeek7runImplERNS2_4DataEPv" in [f.function for f in crash.native]


def test_a_rust_tracing_record_ends_the_exception_message_above_it(catalog):
    paste = ("[2025-08-31 07:26:45 TP0 EP0] Prefill bootstrap failed with exception KVTransferError(bootstrap_room=7): "
             "Aborted by AbortReq.\n"
             "2025-08-31 07:32:08 ERROR sglang_router_rs::routers::http::pd_router: src/routers/http/pd_router.rs:1319: "
             "Stream error from decode server\n")
    assert "sglang_router_rs" not in diagnose_text(paste, catalog).crash.message


def test_a_vllm_record_cut_down_to_its_source_location_is_peeled(catalog):
    # an excerpt that kept only `[serving_chat.py:885] ` of each record: the exception line is still the crash's
    paste = ("[serving_chat.py:885] Error in chat completion stream generator.\n"
             "[serving_chat.py:885] Traceback (most recent call last):\n"
             '[serving_chat.py:885]   File "/x/vllm/entrypoints/openai/serving_chat.py", line 487, in chat_completion_stream_generator\n'
             "[serving_chat.py:885]     async for res in result_generator:\n"
             "[serving_chat.py:885] RuntimeError: Failed to apply Qwen2_5_VLProcessor on data={'text': '<|image_pad|>'}\n")
    report = diagnose_text(paste, catalog)
    assert report.crash.exception_type == "RuntimeError" and report.crash.complete
    assert "qwen3-coder-streaming-final-chunk-indexerror" not in [f.rule_id for f in report.findings]


def test_an_llvm_unreachable_abort_is_a_crash(catalog):
    paste = ("UNREACHABLE executed at /project/lib/Dialect/TritonGPU/Transforms/HoistTMEMAlloc.cpp:418!\n"
             "Aborted (core dumped)\n")
    report = diagnose_text(paste, catalog)
    assert report.verdict.value != "no-crash" and "UNREACHABLE executed" in report.crash.message


@pytest.mark.parametrize("paste, words, crash_class", [
    # DeepGEMM's device assert, wrapped by the terminal after the comma (the condition on the next line)
    ("Assertion failed: deep_gemm/include/deep_gemm/impls/smxx_layout.cuh:131,\n"
     "                  condition: (values[j] & 0x807fffffu) == 0\n", "condition: ", "device-assert"),
    # DeepEP's host assert in a C++ source file, behind SGLang's record prefix
    ("[2026-08-10 10:00:01 TP3 EP3] Assertion failed: /sgl-workspace/DeepEP/csrc/deep_ep.cpp:1204, "
     "condition: hidden % 256 == 0\n", "condition: ", "assertion"),
    # macOS's C++ runtime ending the process, Metal's API check, zsh's notice of the signal (Apple-silicon servers)
    ("INFO:     127.0.0.1:50412 - \"POST /v1/completions HTTP/1.1\" 200 OK\n"
     "libc++abi: terminating due to uncaught exception of type std::runtime_error: [METAL] Command buffer execution "
     "failed: Internal Error (0000000e:Internal Error)\n", "libc++abi: terminating", "segfault"),
    ("-[AGXG16XFamilyCommandBuffer tryCoalescingPreviousComputeCommandEncoderWithConfig:nextEncoderClass:]:1091: "
     "failed assertion `A command encoder is already encoding to this command buffer'\n", "failed assertion", "segfault"),
    ("(.venv) user@mac-studio ~ % rapid-mlx serve mlx-community/Qwen3-8B-4bit\n"
     "zsh: segmentation fault  rapid-mlx serve mlx-community/Qwen3-8B-4bit\n", "zsh: segmentation fault", "segfault"),
])
def test_a_native_assert_or_abort_line_is_a_crash(catalog, paste, words, crash_class):
    # DeepEP's and DeepGEMM's assert macros print `Assertion failed: <file>:<line>, condition: <expr>` and then trap or
    # throw; a native runtime ends the process with one line of its own: that line alone is the crash (a CI log
    # ending in it must not pass as clean), with its words in the crash's message
    report = diagnose_text(paste, catalog)
    assert report.verdict.value != "no-crash"
    assert report.crash.crash_class == crash_class and words in report.crash.message


def test_a_kernel_library_assert_in_prose_is_no_crash(catalog):
    paste = "The DG_HOST_ASSERT macro prints Assertion failed: before it throws, see the docs.\n"
    assert diagnose_text(paste, catalog).verdict.value == "no-crash"


def test_a_ci_web_viewers_row_controls_are_left_out(catalog):
    # a log copied out of Buildkite's web viewer: `Actions for L<n>` and the row number between every two lines
    lines = [
        "(EngineCore pid=359) ERROR 07-18 22:18:53 [core.py:176] Traceback (most recent call last):",
        '(EngineCore pid=359) ERROR 07-18 22:18:53 [core.py:176]   File "/usr/local/lib/python3.12/dist-packages/vllm/'
        'tokenizers/hf.py", line 101, in from_pretrained',
        "(EngineCore pid=359) ERROR 07-18 22:18:53 [core.py:176]     tokenizer = AutoTokenizer.from_pretrained(",
        "(EngineCore pid=359) ERROR 07-18 22:18:53 [core.py:176] ValueError: The repository openbmb/VoxCPM2 contains "
        "custom code which must be executed to correctly load the model.",
        "(EngineCore pid=359) ERROR 07-18 22:18:53 [core.py:176] Please pass the argument `trust_remote_code=True` to "
        "allow custom code to be run.",
    ]
    viewer = "".join(f"{line}\nActions for L{346 + i}\n{346 + i}\n" for i, line in enumerate(lines))
    plain, copied = diagnose_text("\n".join(lines) + "\n", catalog).crash, diagnose_text(viewer, catalog).crash
    assert copied.message == plain.message and copied.message.endswith("to allow custom code to be run.")
    assert [f.function for f in copied.frames] == [f.function for f in plain.frames] == ["from_pretrained"]
    assert copied.line_no == 1 and "Actions for" not in copied.message


def test_a_line_set_as_inline_code_is_read_without_its_backticks(catalog):
    log = ("`ValueError: The decoder prompt (length 41234) is longer than the maximum model length of 32768. Make sure "
           "that `max_model_len` is no smaller than the number of text tokens.`\n")
    crash = diagnose_text(log, catalog).crash
    assert crash.exception_type == "ValueError" and crash.message.endswith("number of text tokens.")
