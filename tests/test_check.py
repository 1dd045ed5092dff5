"""`qwen3doctor check`: known crashes of a planned launch, from the rules' `when` conditions and the bundled
Qwen3-family shapes, before anything runs."""

import json
import shlex

import pytest

from qwen3doctor import vocab
from qwen3doctor.judge.preflight import check, plan_environment, planned_command
from qwen3doctor.knowledge.shapes import shapes_of, shapes_table
from qwen3doctor.judge.pipeline import Overrides
from qwen3doctor.model import Fact


def plan(catalog, command, local=None, **options):
    line = planned_command(shlex.split(command), options.pop("engine", None))
    overrides = Overrides(options={k: v for k, v in options.items() if v}, local=local or {})
    return check(line, plan_environment(line, overrides), catalog)


def keys(report, level=None):
    return [a.key for a in report.alerts if level is None or a.level == level]


def test_qwen35_mtp_on_a_version_with_the_gdn_spec_decode_crash(catalog):
    cmd = "vllm serve Qwen/Qwen3.5-27B --speculative-config '{\"method\":\"qwen3_next_mtp\",\"num_speculative_tokens\":5}'"
    report = plan(catalog, cmd, engine_version="0.17.1")
    assert report.verdict == "warning" and "gdn-mtp-spec-decode-illegal-memory-access" in keys(report, "warning")
    alert = next(a for a in report.alerts if a.key == "gdn-mtp-spec-decode-illegal-memory-access")
    assert "vllm#37035" in alert.references and any("--speculative-config" in b for b in alert.because)
    assert alert.fixes and "num_speculative_tokens" in alert.fixes[0].command
    # without the version it is only possible, and the report says which fact decides it
    report = plan(catalog, cmd)
    assert report.verdict == "possible"
    alert = next(a for a in report.alerts if a.key == "gdn-mtp-spec-decode-illegal-memory-access")
    assert alert.level == "possible" and alert.decided_by == "the engine version"
    # the same launch without MTP does not warn about it
    assert "gdn-mtp-spec-decode-illegal-memory-access" not in keys(plan(catalog, "vllm serve Qwen/Qwen3.5-27B", engine_version="0.17.1"))


def test_fp8_checkpoint_on_a_gpu_without_fp8(catalog):
    report = plan(catalog, "vllm serve Qwen/Qwen3-8B-FP8 --max-model-len 32768", engine_version="0.9.2", gpu="NVIDIA A100-SXM4-80GB")
    assert "fp8-triton-kernel-on-pre-ada-gpu" in keys(report, "warning")
    alert = next(a for a in report.alerts if a.key == "fp8-triton-kernel-on-pre-ada-gpu")
    assert any("compute capability 8.0" in b for b in alert.because)
    ok = plan(catalog, "vllm serve Qwen/Qwen3-8B-FP8 --max-model-len 32768", engine_version="0.9.2", gpu="NVIDIA H100 80GB HBM3")
    assert "fp8-triton-kernel-on-pre-ada-gpu" not in keys(ok)
    unknown_gpu = plan(catalog, "vllm serve Qwen/Qwen3-8B-FP8", engine_version="0.9.2")
    assert "fp8-triton-kernel-on-pre-ada-gpu" in keys(unknown_gpu, "possible")


def test_tp_that_does_not_divide_an_fp8_block_quantized_expert(catalog):
    report = plan(catalog, "vllm serve Qwen/Qwen3-30B-A3B-FP8 --tensor-parallel-size 4", engine_version="0.10.1",
                  gpu="NVIDIA H100 80GB HBM3")
    assert report.shapes_of == "Qwen3-30B-A3B" and report.verdict == "warning"
    alert = next(a for a in report.alerts if a.key == "fp8-block-quant-tp-indivisible")
    assert "768 over 4 ranks leaves 192 per rank" in alert.title and "vllm#17569" in alert.references
    assert alert.fixes[0].command == "vllm serve Qwen/Qwen3-30B-A3B-FP8 --tensor-parallel-size 2"
    assert any("--enable-expert-parallel" in f.command for f in alert.fixes)
    # TP 2 fits (384 = 3 x 128), and expert parallelism keeps the experts whole
    assert "fp8-block-quant-tp-indivisible" not in keys(plan(catalog, "vllm serve Qwen/Qwen3-30B-A3B-FP8 -tp 2", engine_version="0.10.1"))
    assert "fp8-block-quant-tp-indivisible" not in keys(plan(
        catalog, "vllm serve Qwen/Qwen3-30B-A3B-FP8 --tensor-parallel-size 4 --enable-expert-parallel", engine_version="0.10.1"))
    # BF16 has no blocks
    assert "fp8-block-quant-tp-indivisible" not in keys(plan(catalog, "vllm serve Qwen/Qwen3-30B-A3B --tensor-parallel-size 4"))


def test_sglang_shared_expert_stays_tp_split_under_ep(catalog):
    report = plan(catalog, "python -m sglang.launch_server --model-path Qwen/Qwen3-Next-80B-A3B-Instruct-FP8 --tp 8 --ep-size 8",
                  engine_version="0.5.3")
    titles = [a.title for a in report.alerts if a.key == "fp8-block-quant-tp-indivisible"]
    assert titles == ["shared-expert intermediate size 512 over 8 ranks leaves 64 per rank, not a multiple of the FP8 block (128)"]
    fix = next(a for a in report.alerts if a.key == "fp8-block-quant-tp-indivisible").fixes[0]
    assert "--tp-size 4" in fix.command and "--ep-size 4" in fix.command  # EP may not exceed the new TP
    assert any(a.key == "shape:kv-heads" and a.level == "note" for a in report.alerts)  # 2 KV heads replicated 4x


def test_a_clean_launch_exits_clean(catalog):
    report = plan(catalog, "vllm serve Qwen/Qwen3-8B --tensor-parallel-size 2 --max-model-len 32768", engine_version="0.11.0",
                  gpu="NVIDIA H100 80GB HBM3", gpu_count="2")
    assert report.verdict == "clean", [(a.key, a.level) for a in report.alerts]
    assert any("attention heads 32 / 2 = 16" in c for c in report.checked)
    assert any("2 GPU(s) needed, 2 available" in c for c in report.checked)


def test_shape_limits(catalog):
    heads = plan(catalog, "vllm serve Qwen/Qwen3-8B --tensor-parallel-size 3", engine_version="0.11.0")
    assert "shape:attention-heads" in keys(heads, "warning")
    vision = plan(catalog, "vllm serve Qwen/Qwen3.5-27B --tensor-parallel-size 3", engine_version="0.17.1")
    assert "vision-heads-not-divisible-by-tp" in keys(vision, "warning") and "shape:kv-heads" in keys(vision, "warning")
    text_only = plan(catalog, "vllm serve Qwen/Qwen3.5-27B --tensor-parallel-size 3 --mm-encoder-tp-mode data", engine_version="0.17.1")
    assert "vision-heads-not-divisible-by-tp" not in keys(text_only)
    long = plan(catalog, "vllm serve Qwen/Qwen3-8B --max-model-len 131072", engine_version="0.11.0")
    assert "max-model-len-exceeds-derived" in keys(long, "warning")
    yarn = plan(catalog, "vllm serve Qwen/Qwen3-8B --max-model-len 131072 --hf-overrides '{\"rope_scaling\": {\"rope_type\": \"yarn\"}}'",
                engine_version="0.11.0")
    assert "max-model-len-exceeds-derived" not in keys(yarn) and "shape:max-model-len" in keys(yarn, "note")
    gpus = plan(catalog, "vllm serve Qwen/Qwen3-8B --tensor-parallel-size 4", engine_version="0.11.0", gpu_count="2")
    assert "gpu:count" in keys(gpus, "warning")


def test_bf16_on_a_gpu_without_bf16(catalog):
    report = plan(catalog, "vllm serve Qwen/Qwen3-8B", engine_version="0.11.0", gpu="Tesla V100-SXM2-32GB")
    assert "bf16-unsupported-gpu" in keys(report, "warning")
    assert "bf16-unsupported-gpu" not in keys(plan(catalog, "vllm serve Qwen/Qwen3-8B --dtype half", engine_version="0.11.0",
                                                    gpu="Tesla V100-SXM2-32GB"))


def test_local_facts_are_used_but_options_win(catalog):
    local = {"vllm": Fact("0.17.1", "this machine: pip package vllm"), "engine": Fact("vllm", "this machine"),
             "gpu": Fact("NVIDIA H100 80GB HBM3", "this machine: nvidia-smi"), "gpu_count": Fact(8, "this machine: nvidia-smi")}
    cmd = "vllm serve Qwen/Qwen3.5-27B --speculative-config '{\"method\":\"mtp\",\"num_speculative_tokens\":5}'"
    report = plan(catalog, cmd, local=local)
    assert report.environment.get("engine_version") == "0.17.1" and report.verdict == "warning"
    planned_elsewhere = plan(catalog, cmd, local=local, engine_version="0.10.1")
    assert planned_elsewhere.environment.get("engine_version") == "0.10.1"
    assert "gdn-mtp-spec-decode-illegal-memory-access" not in keys(planned_elsewhere)  # outside >=0.10.2


def test_unknown_model_says_what_was_not_checked(catalog):
    report = plan(catalog, "vllm serve /models/my-finetune --tensor-parallel-size 4")
    assert report.shapes_of is None and any("not in the bundled shapes table" in n for n in report.not_checked)


def test_planned_command_forms():
    assert planned_command(["vllm", "serve", "Qwen/Qwen3-8B"]) == "vllm serve Qwen/Qwen3-8B"
    assert planned_command(["Qwen/Qwen3-8B", "--tensor-parallel-size", "2"]) == "vllm serve Qwen/Qwen3-8B --tensor-parallel-size 2"
    assert planned_command(["--model-path", "Qwen/Qwen3-8B", "--tp", "2"]).startswith("python -m sglang.launch_server --model-path")
    with pytest.raises(ValueError):
        planned_command([])
    # the whole command quoted as one argument, as a new user types it
    assert planned_command(["vllm serve Qwen/Qwen3-8B --tensor-parallel-size 2"]) == \
        "vllm serve Qwen/Qwen3-8B --tensor-parallel-size 2"
    assert planned_command(["Qwen/Qwen3-8B"]) == "vllm serve Qwen/Qwen3-8B"
    with pytest.raises(ValueError):
        planned_command(["vllm serve 'Qwen/Qwen3-8B"])


def test_shapes_table_is_consistent():
    table = shapes_table()
    assert table["fp8_block_size"] == 128 and table["fp8_block_sources"]
    for name, s in table["models"].items():
        assert s["sources"], name
        assert vocab.family_covers(s["family"], vocab.family_of_model(s["names"][0])) or \
            vocab.family_of_model(s["names"][0]) == s["family"], name
        if "num_key_value_heads" in s:
            assert s["num_attention_heads"] % s["num_key_value_heads"] == 0, name
        if "linear_num_value_heads" in s:
            assert s["linear_num_value_heads"] % s["linear_num_key_heads"] == 0, name
    assert shapes_of("Qwen/Qwen3-30B-A3B-Instruct-2507-FP8")[0] == "Qwen3-30B-A3B"
    assert shapes_of("Qwen/Qwen3-Coder-30B-A3B-Instruct")[0] == "Qwen3-Coder-30B-A3B"
    assert shapes_of("Qwen/Qwen3.6-35B-A3B-FP8")[0] == "Qwen3.5-35B-A3B"
    assert shapes_of("/data/models/qwen3-next-80b-a3b-thinking")[0] == "Qwen3-Next-80B-A3B"
    assert shapes_of("Qwen/Qwen3-VL-30B-A3B-Instruct") is None  # a different model, not Qwen3-30B-A3B


def test_cli_exit_codes_and_json(tmp_path):
    from test_cli import run

    r = run("check", "--no-local", "--engine-version", "0.17.1", "--", "vllm", "serve", "Qwen/Qwen3.5-27B",
            "--speculative-config", '{"method":"qwen3_next_mtp","num_speculative_tokens":5}')
    assert r.returncode == 1 and "WARNING" in r.stdout and "gdn-mtp-spec-decode-illegal-memory-access" in r.stdout
    # qwen3doctor's own options may also follow `--`; they are taken out of the planned command
    r = run("check", "--no-local", "--format", "json", "--", "vllm", "serve", "Qwen/Qwen3-30B-A3B-FP8",
            "--tensor-parallel-size", "4", "--engine-version", "0.10.1", "--gpu", "NVIDIA A100-SXM4-80GB")
    doc = json.loads(r.stdout)
    assert r.returncode == 1 and doc["verdict"] == "warning" and "--engine-version" not in doc["command"]
    assert {"schema_version", "command", "verdict", "environment", "alerts", "checked", "not_checked"} <= set(doc)
    assert {a["key"] for a in doc["alerts"]} >= {"fp8-block-quant-tp-indivisible", "fp8-triton-kernel-on-pre-ada-gpu"}
    r = run("check", "--no-local", "vllm", "serve", "Qwen/Qwen3.5-27B", "--speculative-config", '{"method":"mtp"}')
    assert r.returncode == 3 and "Depends on the engine version" in r.stdout
    r = run("check", "--no-local", "--engine-version", "0.11.0", "--gpu", "NVIDIA H100 80GB HBM3", "--",
            "vllm", "serve", "Qwen/Qwen3-8B", "--tensor-parallel-size", "2")
    assert r.returncode == 0, r.stdout
    r = run("check")
    assert r.returncode == 2 and "no command to check" in r.stderr and "Traceback" not in r.stderr


def test_a_launch_pasted_without_a_crash_lists_its_risks_and_stays_clean(catalog):
    from qwen3doctor.judge.pipeline import diagnose_text
    from qwen3doctor.render.json import report_dict
    from qwen3doctor.render.plain import render

    log = ("vllm                              0.10.1\n"
           "$ vllm serve Qwen/Qwen3-30B-A3B-FP8 --tensor-parallel-size 4 --max-model-len 32768\n")
    report = diagnose_text(log, catalog)
    assert report.verdict.value == "no-crash" and not report.findings
    assert report.risks[0].rule_id == "fp8-block-quant-tp-indivisible"
    assert all(r.confidence == "low" and r.basis == "risk" for r in report.risks)
    doc = report_dict(report)
    assert doc["findings"] == [] and doc["risks"][0]["rule_id"] == "fp8-block-quant-tp-indivisible"
    assert set(doc["risks"][0]) == set(doc["risks"][0]) & {"rule_id", "title", "status", "score", "confidence", "engines",
                                                            "families", "references", "evidence", "fixes", "fixed_in", "notes"}
    assert "Known problems this log points to" in render(report)
    from qwen3doctor.judge.summary import Outcome
    from qwen3doctor.read.inputs import Input
    from qwen3doctor.render.markdown import report_markdown

    md = report_markdown(Outcome(Input("launch.log", "launch.log"), "clean", report))  # the step-summary / PR-comment form lists them too, with their first fix
    assert "**Known problems this log points to**" in md and "fp8-block-quant-tp-indivisible" in md and "fix: " in md
    # the workaround already set: the risk is gone
    fixed = diagnose_text(log.replace("--max-model-len", "--enable-expert-parallel --max-model-len"), catalog)
    assert "fp8-block-quant-tp-indivisible" not in [r.rule_id for r in fixed.risks]
    # a crash makes it a diagnosis, not a list of risks
    crashed = diagnose_text(log + "RuntimeError: CUDA error: an illegal memory access was encountered\n", catalog)
    assert crashed.risks == ()


def test_an_environment_listing_that_names_no_model_lists_no_risk_of_some_models(catalog):
    """A problem of some models (a rule naming families) is no known problem of a launch whose model the log does not
    show (vllm#38994 pasted an environment listing only, and got a Qwen3-Omni audio-encoder risk)."""
    from qwen3doctor.judge.pipeline import diagnose_text

    listing = ("vLLM Version                 : 0.19.1rc1.dev1+gfa9e68022 (git sha: fa9e68022)\n"
               "vLLM Build Flags:\n  CUDA Archs: Not Set; ROCm: Disabled\nVLLM_TARGET_DEVICE=xpu\n")
    report = diagnose_text(listing, catalog)
    assert report.verdict.value == "no-crash"
    assert not any(catalog.rules[r.rule_id].families for r in report.risks if r.rule_id in catalog.rules)
    named = diagnose_text(listing + "$ vllm serve Qwen/Qwen3-Omni-30B-A3B-Instruct --tensor-parallel-size 8\n", catalog)
    assert "qwen3-omni-audio-encoder-heads-indivisible-by-tp" in [r.rule_id for r in named.risks]


def test_a_launch_only_paste_exits_zero(tmp_path):
    import subprocess
    import sys

    log = tmp_path / "launch.log"
    log.write_text("vllm                              0.10.1\n"
                   "$ vllm serve Qwen/Qwen3-30B-A3B-FP8 --tensor-parallel-size 4\n")
    out = subprocess.run([sys.executable, "-m", "qwen3doctor.cli", "diagnose", str(log), "--format", "json"],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0
    import json

    assert json.loads(out.stdout)["risks"]


def test_a_launch_on_a_release_that_cannot_load_the_family_is_a_risk_citing_the_rule_for_that_crash(catalog):
    """A serving stack's launch record (list-form arguments, the release only in the image tag) of Qwen3.5 on vLLM
    0.10.0: the release index says no architecture of the family is registered; the risk carries the rule that
    explains the crash this launch will hit, and an upgrade to the first release that registers it."""
    from pathlib import Path

    from qwen3doctor.judge.pipeline import diagnose_text

    log = (Path(__file__).parent.parent / "examples/logs/vllm/launch-only--qwen3.5-on-vllm-0.10.0-gpustack.log").read_text()
    report = diagnose_text(log, catalog)
    env = report.environment
    assert env.get("engine") == "vllm" and env.get("engine_version") == "0.10.0" and env.get("family") == "qwen3.5"
    assert "--tensor-parallel-size 2" in str(env.get("serve_command")) and "]" not in str(env.get("serve_command"))
    assert report.verdict.value == "no-crash" and not report.findings
    risk = report.risks[0]
    assert risk.rule_id == "release:arch:qwen3.5" and "vllm#22231" in risk.references
    assert risk.fixes[0].command == 'pip install -U "vllm>=0.17.0"'
    # on a release that registers it, no such risk
    newer = diagnose_text(log.replace("vllm0.10.0", "vllm0.17.0").replace("service_version=0.10.0", "service_version=0.17.0"), catalog)
    assert newer.environment.get("engine_version") == "0.17.0"
    assert not [r for r in newer.risks if r.rule_id.startswith("release:arch:")]


def test_the_engine_version_is_read_from_an_image_tag_or_install_folder_that_names_it(catalog):
    from qwen3doctor.judge.pipeline import diagnose_text

    for line, version in (
        ("INFO - With image: quay.io/gpustack/runner:cann8.2-310p-vllm0.10.0, command: []", "0.10.0"),
        ('  File "/var/lib/gpustack/pipx/venvs/vllm-v0-11-2/lib/python3.11/site-packages/vllm/v1/engine/core.py", line 623, in run_engine_core', "0.11.2"),
    ):
        assert diagnose_text(line + "\n", catalog).environment.get("engine_version") == version, line
    # a throughput figure or a model name is no version
    assert diagnose_text("served vllm2 at 0.5 req/s\n", catalog).environment.get("engine_version") is None


def test_a_known_bad_combination_in_a_crash_free_log_is_a_risk_never_a_finding(catalog, tmp_path):
    """The exit-code contract: with no crash sign the verdict is "no crash" whatever the launch may hit; the rule
    the ranking would list as a combination candidate (Qwen3.5 with MTP on a release inside its window) comes
    back as a risk."""
    import subprocess
    import sys

    from qwen3doctor.judge.pipeline import diagnose_text

    log = ("vllm                              0.17.0\n"
           "$ vllm serve Qwen/Qwen3.5-27B --speculative-config '{\"method\":\"mtp\",\"num_speculative_tokens\":2}' "
           "--tensor-parallel-size 4\n")
    report = diagnose_text(log, catalog)
    assert report.verdict.value == "no-crash" and report.findings == ()
    assert "gdn-mtp-spec-decode-illegal-memory-access" in [r.rule_id for r in report.risks]
    path = tmp_path / "launch.log"
    path.write_text(log)
    out = subprocess.run([sys.executable, "-m", "qwen3doctor.cli", "diagnose", str(path)], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0 and "No crash found" in out.stdout
    # the same launch with a crash line: a diagnosis
    crashed = diagnose_text(log + "RuntimeError: CUDA error: an illegal memory access was encountered\n", catalog)
    assert crashed.verdict.value == "finding" and crashed.risks == ()


def test_a_launch_that_is_a_rules_known_setting_is_a_risk_of_it(catalog):
    # vllm#22507: a thinking-only model under --reasoning-parser qwen3; nothing crashes, the split goes wrong later
    from qwen3doctor.judge.pipeline import diagnose_text

    launch = ("image: vllm/vllm-openai:v0.10.0\n"
              "args: [\"--model\", \"Qwen/Qwen3-4B-Thinking-2507\", \"--reasoning-parser\", \"qwen3\", "
              "\"--tool-call-parser\", \"hermes\", \"--enable-auto-tool-choice\"]\n")
    report = diagnose_text(launch, catalog)
    assert report.verdict.value == "no-crash" and not report.findings
    ids = [r.rule_id for r in report.risks]
    assert "qwen3-reasoning-parser-prompt-opened-think" in ids
    # a pattern that takes any value of a flag (`--tool-call-parser[= ]\S+`) names no setting of this launch
    assert "tool-call-parser-name-not-registered" not in ids
    # the hybrid model under the same parser is fine: one supporting pattern is not a setting
    hybrid = diagnose_text(launch.replace("Qwen3-4B-Thinking-2507", "Qwen3-8B"), catalog)
    assert "qwen3-reasoning-parser-prompt-opened-think" not in [r.rule_id for r in hybrid.risks]


def test_a_development_build_is_no_proof_that_its_release_lacks_the_architecture(catalog):
    # QwenLM/Qwen3-Omni#116: a branch build of vLLM (0.9.3.dev6+g...) ran Qwen3-Omni before any release registered
    # it; the crash was transformers 5's missing rope_parameters, and the release index's guess must not outrank it
    from qwen3doctor.judge.pipeline import diagnose_text

    paste = ("AttributeError: 'Qwen3OmniMoeCode2WavConfig' object has no attribute 'rope_parameters'\n"
             "torch                             2.7.0+cu128\n"
             "transformers                      5.0.0.dev0\n"
             "vllm                              {version}\n")
    dev = diagnose_text(paste.format(version="0.9.3.dev6+gca66cbff0.precompiled /root/vllm"), catalog)
    assert dev.crash.message == "'Qwen3OmniMoeCode2WavConfig' object has no attribute 'rope_parameters'"
    assert dev.findings[0].rule_id == "transformers-v5-rope-parameters-missing"
    arch = [f for f in dev.findings if f.rule_id == "vllm-too-old-for-architecture"]
    assert arch and arch[0].confidence == "low"
    # a release is proof: the registry of 0.9.2 has no Qwen3-Omni class
    released = diagnose_text(paste.format(version="0.9.2"), catalog)
    assert [f.confidence for f in released.findings if f.rule_id == "vllm-too-old-for-architecture"] == ["medium"]


def test_check_lists_a_launch_that_is_a_rules_known_setting_as_a_possible(catalog):
    from qwen3doctor.judge.pipeline import diagnose_text
    from qwen3doctor.judge.preflight import POSSIBLE, check

    env = diagnose_text("vllm serve Qwen/Qwen3-4B-Thinking-2507 --reasoning-parser qwen3\n", catalog).environment
    report = check("vllm serve Qwen/Qwen3-4B-Thinking-2507 --reasoning-parser qwen3", env, catalog)
    found = [a for a in report.alerts if a.key == "qwen3-reasoning-parser-prompt-opened-think"]
    assert found and found[0].level == POSSIBLE and found[0].decided_by == "the server's own output"
    assert any("--reasoning-parser" in b for b in found[0].because)


def test_a_log_that_stops_inside_a_start_up_step_lists_the_known_crashes_of_that_step(catalog):
    """A reporter pastes the log up to where the server died, the exception being in the issue's title: the step
    it stops in (here CUDA-graph capture on SGLang, with batch sizes up to 320) names the causes that crash there.
    Risks only: the verdict stays clean."""
    from pathlib import Path

    from qwen3doctor.judge.pipeline import diagnose_text

    logs = Path(__file__).parent.parent / "examples" / "logs"
    text = (logs / "sglang" / "flashinfer-workspace-buffer-overflow--qwen3-vl-8b-paste-stops-in-capture.log").read_text()
    report = diagnose_text(text, catalog)
    assert report.verdict.value == "no-crash" and not report.findings
    top = report.risks[0]
    assert top.rule_id == "flashinfer-workspace-buffer-overflow" and top.basis == "risk" and top.confidence == "low"
    assert "the log stops while capturing CUDA graphs" in [ev.text for ev in top.evidence]
    # the same launch, with its server up and serving: the step was passed, nothing of it is a risk
    served = text + "[2025-11-20 09:14:41] The server is fired up and ready to roll!\n"
    assert "flashinfer-workspace-buffer-overflow" not in [r.rule_id for r in diagnose_text(served, catalog).risks]
    # a log that stops in capture with nothing but the step's own progress lines ties no cause to it
    plain = (logs / "vllm" / "no-crash--qwen3-8b-paste-stops-in-capture.log").read_text()
    assert diagnose_text(plain, catalog).risks == ()


def test_weights_that_cannot_fit_one_gpu_are_a_warning_citing_the_engines_rule(catalog):
    # 235B parameters in BF16 on one rank: no GPU sold holds 438 GiB, whatever the card
    report = plan(catalog, "python -m sglang.launch_server --model-path Qwen/Qwen3-VL-235B-A22B-Instruct --dp-size 8")
    [alert] = [a for a in report.alerts if a.key == "weights-exceed-gpu-memory-load-oom"]
    assert alert.title.startswith("The weights alone need about 438 GiB per GPU") and alert.references
    # the same eight GPUs as one replica wide enough for 80 GB cards, not 8 x 8
    assert alert.fixes[0].command == "python -m sglang.launch_server --model-path Qwen/Qwen3-VL-235B-A22B-Instruct --tp-size 8"
    # split eight ways it fits; an FP8 build of a 30B model fits one 80 GB card
    report = plan(catalog, "vllm serve Qwen/Qwen3-235B-A22B --tensor-parallel-size 8")
    assert "weights-exceed-gpu-memory-at-load" not in keys(report)
    assert any(c.startswith("weights: 235B parameters x 2 bytes (bf16) / 8 GPUs = 55 GiB") for c in report.checked)
    # the card's own memory, when known, is the limit: a BF16 30B MoE on a 32 GB card
    local = {"gpu": Fact("NVIDIA GeForce RTX 5090", "this machine: nvidia-smi"),
             "gpu_memory_mib": Fact(32607, "this machine: nvidia-smi")}
    report = plan(catalog, "vllm serve Qwen/Qwen3-30B-A3B-Thinking-2507", local=local)
    assert "weights-exceed-gpu-memory-at-load" in keys(report, "warning")
    assert "weights-exceed-gpu-memory-at-load" not in keys(plan(catalog, "vllm serve Qwen/Qwen3-30B-A3B-GPTQ-Int4", local=local))
    # a card whose name states its memory (`--gpu "NVIDIA A100-SXM4-40GB"` for another machine) is that card, not
    # "any GPU": a BF16 32B model is 60 GiB on one rank
    named = {"gpu": Fact("NVIDIA A100-SXM4-40GB", "option")}
    report = plan(catalog, "vllm serve Qwen/Qwen3-32B", local=named)
    [alert] = [a for a in report.alerts if a.key == "weights-exceed-gpu-memory-at-load"]
    assert "more than the 40 GiB of NVIDIA A100-SXM4-40GB" in alert.title
    assert "weights-exceed-gpu-memory-at-load" not in keys(plan(catalog, "vllm serve Qwen/Qwen3-32B",
                                                                 local={"gpu": Fact("NVIDIA A100-SXM4-80GB", "option")}))


def test_an_unstated_tp_size_is_unknown_not_one(catalog):
    # a ServerArgs dump cut before tp_size: the weights check has no split to divide by, so it says nothing
    from qwen3doctor.judge.pipeline import diagnose_text

    cut = ("[2025-05-07 03:02:21] server_args=ServerArgs(model_path='/data/Qwen/Qwen3-235B-A22B', "
           "tokenizer_path='/data/Qwen/Qwen3-235B-A22B', tokenizer_mode='auto', trust_remote_code=True, dtype='auto', dev\n")
    assert not any(r.rule_id.startswith("weights-exceed") for r in diagnose_text(cut, catalog).risks)
    whole = "python -m sglang.launch_server --model-path Qwen/Qwen3-235B-A22B --port 30000\n"
    assert [r.rule_id for r in diagnose_text(whole, catalog).risks][:1] == ["weights-exceed-gpu-memory-load-oom"]
    # a local path that names no quantization may hold a 4-bit export: not assumed to be BF16
    local = "python -m sglang.launch_server --model-path /data/Qwen3-235B-A22B --port 30000\n"
    assert not any(r.rule_id.startswith("weights-exceed") for r in diagnose_text(local, catalog).risks)


def test_the_heads_limit_cites_the_rule_for_the_crash_it_prevents(catalog):
    heads = plan(catalog, "vllm serve Qwen/Qwen3-14B --tensor-parallel-size 3", engine_version="0.11.0")
    [alert] = [a for a in heads.alerts if a.key == "shape:attention-heads"]
    assert "vllm#414" in alert.references
    # the shape arithmetic gives the TP size; a rule fix that needs a value read from a crash message is left out
    assert "--tensor-parallel-size 2" in alert.fixes[0].command
    assert not any("<heads>" in f.command or "{seen." in f.command for f in alert.fixes)


def test_a_short_paste_that_stops_at_a_causes_own_warning_lists_it_as_a_risk(catalog):
    """ai-dynamo/dynamo#6068's form: a prefill worker's warning over SGLang's multimodal length check, and nothing after
    it. No crash, so no finding and exit 0; the cause whose own warning it is comes back as a risk. A token that healthy
    NCCL starts warn with (`NCCL WARN NET/IB : No device found.`, a supporting line of the NCCL rule) lists nothing."""
    from qwen3doctor.judge.pipeline import diagnose_text

    warned = ("2026-02-09T02:30:56.256126Z  INFO scheduler_metrics_mixin.log_prefill_stats: Prefill batch, #new-seq: 1, "
              "#new-token: 512, #cached-token: 0, token usage: 0.00, #running-req: 0, #queue-req: 0,\n"
              "2026-02-09T02:30:56.545294Z  WARN mm_utils._adjust_embedding_length: Number of tokens in multimodal "
              "embedding does not match those in the input text. Got 512 tokens in the text but 480 tokens from "
              "multimodal embeddings.\n")
    report = diagnose_text(warned, catalog)
    assert report.verdict.value == "no-crash" and report.findings == ()
    assert [r.rule_id for r in report.risks][:1] == ["mm-embedding-shorter-than-placeholders"]
    # the same warning in an INFO line is what the server said and went on with: no risk from it
    quiet = diagnose_text(warned.replace("  WARN ", "  INFO "), catalog)
    assert "mm-embedding-shorter-than-placeholders" not in [r.rule_id for r in quiet.risks]
    nccl = ("node1:211:211 [0] NCCL INFO Bootstrap : Using eth0:10.0.0.4<0>\n"
            "node1:211:211 [0] NCCL INFO NET/Plugin: No plugin found (libnccl-net.so)\n"
            "node1:211:211 [0] NCCL WARN NET/IB : No device found.\n"
            "node1:211:211 [0] NCCL INFO NET/Socket : Using [0]eth0:10.0.0.4<0>\n")
    assert "nccl-init-system-error" not in [r.rule_id for r in diagnose_text(nccl, catalog).risks]


def test_a_crash_free_launch_passing_a_flag_its_release_refuses_lists_that_as_a_risk(catalog):
    """gpustack#3991's form: a GPUStack worker starts vLLM 0.13.0 with `--task=embed` (removed after 0.12) and the
    paste stops before vLLM's argument error. The release index's own warning is a risk (it cites no issue: the
    releases are its source); a line cut inside its last flag (`--tensor`) is no flag the user passed."""
    from qwen3doctor.judge.pipeline import diagnose_text

    head = ("2025-12-23 12:11:33.780286+08:00 - gpustack.worker.backends.vllm - INFO - With image: "
            "gpustack/runner:cuda12.8-vllm0.13.0, arguments: [vllm serve /data/models/Qwen/Qwen3-Embedding-0.6B "
            "--max-model-len 8192")
    report = diagnose_text(head + " --task=embed --host 0.0.0.0 --port 42041]\n", catalog)
    assert report.verdict.value == "no-crash" and report.findings == ()
    assert "release:--task" in [r.rule_id for r in report.risks]
    cut = diagnose_text(head + " --tensor\n", catalog)
    assert not any(r.rule_id.startswith("release:--") for r in cut.risks)


def test_a_rule_about_the_refused_flag_replaces_the_release_indexs_line_for_it(catalog):
    """gpustack#2616's form: vLLM 0.10.0 launched with --enable-reasoning. The rule for that removal (its issues, its
    fix) is listed, and the release index's own line for the same flag is not listed twice beside it."""
    from qwen3doctor.judge.pipeline import diagnose_text

    log = ("2025-09-02 10:01:12.554411+08:00 - gpustack.worker.backends.vllm - INFO - With image: "
           "gpustack/runner:cuda12.8-vllm0.10.0, arguments: [vllm serve /data/models/Qwen/Qwen3-4B --enable-reasoning "
           "--reasoning-parser deepseek_r1 --max-model-len 8192 --port 40121]\n")
    ids = [r.rule_id for r in diagnose_text(log, catalog).risks]
    assert ids[:1] == ["enable-reasoning-flag-removed"] and "release:--enable-reasoning" not in ids


def test_a_launch_flag_above_the_step_a_log_stops_in_is_no_line_of_that_step(catalog):
    from qwen3doctor.judge.pipeline import diagnose_text
    # vllm PR #24072's paste: the launch names the qwen3_coder tool parser, the log stops while the KV cache is sized;
    # the streaming parser's crash happens when serving, and its flag is printed before any step began
    log = ("vllm serve Qwen/Qwen3-Coder-480B-A35B-Instruct-FP8 \\\n  --tensor-parallel-size 8 \\\n"
           "  --enable-auto-tool-choice \\\n  --tool-call-parser qwen3_coder\n" + "".join(
               f"(VllmWorker TP{i} pid={4260 + i}) INFO 09-01 15:06:46 [gpu_model_runner.py:1986] Model loading took "
               f"56.3173 GiB and 15.05 seconds\n" for i in range(8)))
    report = diagnose_text(log, catalog)
    assert report.verdict.value == "no-crash"
    assert "qwen3-coder-streaming-final-chunk-indexerror" not in [r.rule_id for r in report.risks]


def test_disable_sliding_window_on_gemma_4_warns_and_an_override_launch_does_not(catalog):
    # the flag makes vLLM write sliding_window = None into Gemma 4's strict config, which declares a plain int
    report = plan(catalog, "vllm serve google/gemma-4-31b-it --tensor-parallel-size 2 --disable-sliding-window")
    assert "strict-hf-config-rejects-engine-assignment" in keys(report, "warning")
    # neither the model without the flag, nor the flag on a model whose config accepts None, nor an override
    assert "strict-hf-config-rejects-engine-assignment" not in keys(plan(catalog, "vllm serve google/gemma-4-31b-it"))
    assert "strict-hf-config-rejects-engine-assignment" not in keys(
        plan(catalog, "vllm serve Qwen/Qwen3-8B --disable-sliding-window"))
    launch = "vllm serve Qwen/Qwen3-8B --hf-overrides '{\"max_position_embeddings\": 65536}'"
    assert not {"strict-hf-config-rejects-engine-assignment", "hf-overrides-value-type-rejected-by-strict-config"} & set(
        keys(plan(catalog, launch)))
