"""`rules lint` against the release index, fixes fitted to the user's version, and the index-only diagnoses."""
from __future__ import annotations

from pathlib import Path

import pytest

from qwen3doctor.knowledge.catalog import Catalog, load_catalog
from qwen3doctor.judge.pipeline import Overrides, diagnose_text
from qwen3doctor.knowledge import releases as rel
from qwen3doctor.tools.ruletools import lint

pytestmark = pytest.mark.skipif(not rel.available(), reason="the release index is not generated in this checkout")

ROOT = Path(__file__).resolve().parent.parent
LOGS = ROOT / "examples" / "logs"

RULE = """\
title: A GDN prefill crash whose fix names a flag younger than the rule's window
status: likely
references: [vllm#99999]
families: [qwen3.5]
match:
  - frames: [{frame}]
    message: ['illegal memory access']
when:
  engine_version: "{window}"
cause: test rule
symptoms: [a crash]
fixes:
{fixes}
{fixed_in}
tests:
  match: [{match}]
  no_match: [{no_match}]
"""

GDN_FIX = """\
  - title: Use the Triton GDN prefill kernel
    command: vllm serve {model} {serve_args} --gdn-prefill-backend triton
    cost: slower prefill
"""


def _catalog(tmp_path, window=">=0.16.0", fixes=GDN_FIX, frame="fi_chunk_gated_delta_rule", fixed_in=""):
    folder = tmp_path / "rules" / "vllm"
    folder.mkdir(parents=True)
    text = RULE.format(window=window, fixes=fixes, frame=frame, fixed_in=fixed_in,
                       match=LOGS / "vllm" / "gdn-cudagraph-illegal-memory-access--vllm-34948.log",
                       no_match=LOGS / "vllm" / "qwen3-next-fp8-ima-deepgemm.log")
    (folder / "wrong-window.yaml").write_text(text)
    return load_catalog([tmp_path / "rules"])


def test_lint_fails_a_fix_flag_outside_the_rule_window(tmp_path):
    problems = lint(_catalog(tmp_path))
    [p] = [p for p in problems if "--gdn-prefill-backend" in p]
    assert "0.18.0-" in p and "0.16.0" in p and "fixes[0].command" in p


def test_a_fix_with_its_own_range_passes(tmp_path):
    fixes = GDN_FIX + '    engine_version: ">=0.18.0"\n'
    assert not [p for p in lint(_catalog(tmp_path, fixes=fixes)) if "fixes[" in p]


def test_lint_fails_a_value_and_a_variable_outside_the_window(tmp_path):
    fixes = ("  - title: Skip the warm-up\n    command: VLLM_DEEP_GEMM_WARMUP=skip vllm serve {model}\n    cost: none\n"
             "  - title: Outlines\n    command: vllm serve {model} --guided-decoding-backend lm-format-enforcer\n    cost: none\n")
    problems = lint(_catalog(tmp_path, window=">=0.10.0,<0.11.0", fixes=fixes, frame="forward"))
    # the variable arrived in 0.11.1; the value is missing from 0.10.1 and 0.10.1.1
    assert any("fixes[0]" in p and "VLLM_DEEP_GEMM_WARMUP is in vLLM 0.11.1-" in p for p in problems)
    assert any("fixes[1]" in p and "value --guided-decoding-backend lm-format-enforcer" in p for p in problems)


def test_lint_fails_a_frame_no_release_of_the_window_defines(tmp_path):
    # the GDN attention op exists only in releases that serve Qwen3-Next / Qwen3.5
    problems = lint(_catalog(tmp_path, window="<0.10.0", fixes=GDN_FIX.replace("--gdn-prefill-backend triton", "--enforce-eager"),
                             frame="gdn_attention_core"))
    assert any("frames: 'gdn_attention_core'" in p for p in problems), problems


def test_lint_fails_a_fixed_in_that_was_never_released(tmp_path):
    problems = lint(_catalog(tmp_path, fixes=GDN_FIX.replace("--gdn-prefill-backend triton", "--enforce-eager"),
                             fixed_in="fixed_in:\n  version: 0.17.3"))
    assert any("fixed_in.version: 0.17.3" in p for p in problems)


def test_fit_fix_for_a_known_and_an_unknown_version():
    cmd = "vllm serve Qwen/Qwen3.5-27B --gdn-prefill-backend triton"
    keep, note = rel.fit_fix("vllm", "0.17.1", ">=0.16.0", cmd)
    assert keep and note.startswith("needs vLLM >= 0.18.0") and "0.17.1" in note
    assert rel.fit_fix("vllm", "0.19.1", ">=0.16.0", cmd) == (True, "")
    assert rel.fit_fix("vllm", None, ">=0.16.0", cmd) == (True, "needs vLLM >= 0.18.0")
    # a spelling written for other releases is dropped for this one
    assert rel.fit_fix("vllm", "0.10.2", "", "vllm serve m --structured-outputs-config.backend xgrammar", ">=0.11.0")[0] is False
    # a release older than the index, inside the range its spelling was written for: printed as written
    cmd = "VLLM_USE_V1=0 vllm serve m --guided-decoding-backend outlines"
    assert rel.fit_fix("vllm", "0.8.3", "", cmd, "<0.8.4") == (True, "")
    assert rel.fit_fix("vllm", "0.9.2", "", cmd, "<0.8.4")[0] is False


def _diagnose(name, catalog, version=None):
    text = (LOGS / name).read_text()
    opts = {"engine_version": version} if version else {}
    return diagnose_text(text, catalog, overrides=Overrides(options=opts))


# ---------------------------------------------------------------- diagnoses from the index alone

@pytest.fixture(scope="module")
def bundled():
    from qwen3doctor.knowledge.discover import rule_dirs

    return load_catalog(rule_dirs())


def test_unrecognized_flag_no_rule_names(bundled):
    report = _diagnose("vllm/release-index--task-flag-removed-0.13.0.log", bundled)
    top = report.findings[0]
    assert top.rule_id == "release-index/flag"
    text = " ".join(ev.text for ev in top.evidence)
    assert "`--task` is accepted by vLLM 0.8.5-0.12.0" in text and "removed after 0.12.0" in text
    assert any('vllm==0.12.0' in f.command for f in top.fixes)
    # what took over from --task comes first: dropping it alone would serve an embedding model as a generator
    assert "--runner pooling --convert embed" in top.fixes[0].title


def test_every_successor_of_a_removed_flag_is_in_the_releases_that_lack_the_flag():
    """A fix naming the flag that took over must work where the old one is gone: the successor is accepted from
    before the old flag's last release through the newest one the index holds."""
    from qwen3doctor.knowledge.releases import flag_fact, table
    from qwen3doctor.knowledge.releases.generic import TOOK_OVER

    for (engine, old), (new, title, _) in TOOK_OVER.items():
        t = table(engine, "flags")
        old_spans, new_spans = t.spans(flag_fact(engine, old)), t.spans(flag_fact(engine, new))
        assert old_spans and new_spans, (old, new)
        assert t.releases.index(new_spans[0][0]) <= t.releases.index(old_spans[-1][1]), (old, new)
        assert new_spans[-1][1] == t.releases[-1], (old, new)
        assert new.split()[0] in title


def test_an_engine_argument_a_framework_passes_is_read_as_its_flag(bundled):
    """RL and fine-tuning frameworks build the engine in-process: `EngineArgs.__init__() got an unexpected keyword
    argument 'x_y'` is the flag --x-y this release lacks. Added later: the upgrade (high confidence with the version);
    removed: stop passing it. A keyword no indexed release has as a flag (gone before the oldest one, or never an
    engine argument) is a low candidate: the caller and the engine were written for different releases."""
    report = _diagnose("sglang/release-index--server-args-keyword-too-new-0.5.2.log", bundled)
    top = report.findings[0]
    assert top.rule_id == "release-index/flag" and top.confidence == "high"
    text = " ".join(ev.text for ev in top.evidence)
    assert "added in 0.5.7; SGLang 0.5.2 predates it" in text
    assert [f.command for f in top.fixes] == ['pip install -U "sglang>=0.5.7"']
    report = _diagnose("vllm/release-index--engine-args-keyword-removed-verl-rollout.log", bundled)
    top = report.findings[0]
    assert top.rule_id == "release-index/flag" and "`task` is not an engine argument of vLLM" in top.title
    # no pin for a removed keyword: a flag can outlive its field as a deprecated alias
    assert [f.title.split(" (")[0] for f in top.fixes] == ["Stop passing `task` to the engine"]
    assert not any(f.command for f in top.fixes)
    made_up = ("Traceback (most recent call last):\n  File \"/opt/venv/lib/python3.12/site-packages/vllm/entrypoints/llm.py\", "
               "line 292, in __init__\n    engine_args = EngineArgs(\nTypeError: EngineArgs.__init__() got an unexpected "
               "keyword argument 'rollout_backend_hint'\n")
    [found] = [f for f in diagnose_text(made_up, bundled).findings if f.rule_id.startswith("release-index/")]
    assert found.confidence == "low" and "`rollout_backend_hint` is an engine argument of no vLLM release from 0.8.5 on" in found.title
    assert not any(f.command for f in found.fixes)  # (no release to pin: the index does not know one that takes it)
    # OpenRLHF still passing `worker_use_ray`, which vLLM dropped (0.7.0) before the oldest indexed release
    report = _diagnose("vllm/release-index--engine-args-keyword-older-than-index-openrlhf.log", bundled)
    top = report.findings[0]
    assert top.rule_id == "release-index/flag" and top.confidence == "low" and "`worker_use_ray`" in top.title
    assert any("no vLLM release from 0.8.5 to " in ev.text and "`--worker-use-ray`" in ev.text for ev in top.evidence)


def test_the_engines_refusal_of_its_own_settings_is_the_diagnosis(bundled):
    """vLLM's pydantic report for a config class (even without frames, as a trainer's log shows it) and SGLang's
    argument checks: the message is the finding, with the flags it names; a rule that knows the refusal keeps its
    place, and a ValueError raised outside the argument checks is no refusal."""
    report = _diagnose("vllm/release-index--scheduler-config-refused-chunked-prefill-off.log", bundled)
    top = report.findings[0]
    assert top.rule_id == "release-index/config" and top.confidence == "medium"
    assert "max_num_batched_tokens (8192) is smaller than max_model_len (40960)" in top.title
    text = " ".join(ev.text for ev in top.evidence)
    assert "`--max-num-batched-tokens` sets" in text and "`--max-model-len` sets" in text
    report = _diagnose("sglang/release-index--server-args-check-refuses-mamba-extra-buffer.log", bundled)
    top = report.findings[0]
    assert top.rule_id == "release-index/config" and top.title.startswith("SGLang refused its own settings: mamba extra_buffer")
    assert "--disable-radix-cache, --mamba-scheduler-strategy" in top.fixes[0].title
    # known to a rule: the rule first, and the refusal adds no notes to it
    report = _diagnose("vllm/max-model-len-exceeds-derived--llama31-pydantic-0.10.log", bundled)
    assert report.findings[0].rule_id == "max-model-len-exceeds-derived"
    assert not any("` sets `" in n for n in report.findings[0].notes)
    model_code = ("Traceback (most recent call last):\n"
                  "  File \"/usr/local/lib/python3.12/dist-packages/vllm/model_executor/models/qwen3_moe.py\", line 210, in __init__\n"
                  "    raise ValueError(f\"Unsupported activation: {hidden_act}. Only silu is supported for now.\")\n"
                  "ValueError: Unsupported activation: gelu. Only silu is supported for now.\n")
    assert not any(f.rule_id == "release-index/config" for f in diagnose_text(model_code, bundled).findings)
    # only the error line, as a trainer prints it: the raise site in the engine's argument checks says it is a refusal
    report = _diagnose("vllm/release-index--config-check-error-line-only-verl.log", bundled)
    top = report.findings[0]
    assert top.rule_id == "release-index/config" and top.confidence == "medium"
    assert top.title.startswith("vLLM refused its own settings: max_num_batched_tokens (8192) is smaller than max_model_len (9216)")
    assert any(ev.text.startswith("_verify_args: ") for ev in top.evidence)
    # (Hydra's `Error executing job with overrides: [...]` under it is a line of its own, not the message's rest)
    assert not any("Error executing job" in ev.text for ev in top.evidence)
    # ... and an error line raised outside the checks (a model's constructor) stays unexplained
    bare = ("INFO 03-02 10:15:20 [api_server.py:1885] vLLM API server version 0.11.0\n"
            "ERROR 03-02 10:15:22 [core.py:708] ValueError: Unsupported activation: gelu. Only silu is supported for now.\n")
    report = diagnose_text(bare, bundled)
    assert not report.findings and any("raised by `vllm/model_executor/models/" in s for s in report.next_steps)
    # torch's own config check, in a virtual environment named `vllm`: no engine module
    torch_check = ("Traceback (most recent call last):\n"
                   "  File \"/home/u/vllm/lib/python3.12/site-packages/torch/_dynamo/config.py\", line 40, in _check_value\n"
                   "    raise ValueError(\"cache_size_limit must be positive\")\n"
                   "ValueError: cache_size_limit must be positive\n")
    assert not any(f.rule_id == "release-index/config" for f in diagnose_text(torch_check, bundled).findings)


def test_unregistered_architecture_gets_its_first_release(bundled):
    report = _diagnose("vllm/release-index--glm4-moe-arch-on-0.9.2.log", bundled)
    notes = [n for f in report.findings for n in f.notes] + [ev.text for f in report.findings for ev in f.evidence]
    assert any("`Glm4MoeForCausalLM` is registered by vLLM" in n and "first release with it is 0.10.0" in n for n in notes)


def test_a_variable_the_release_does_not_read_is_a_warning(bundled):
    report = _diagnose("vllm/release-index--attention-backend-variable-ignored-0.15.1.log", bundled)
    [w] = [w for w in report.warnings if "VLLM_ATTENTION_BACKEND" in w]
    assert "vLLM 0.15.1 does not read it" in w and "silently ignored" in w
    assert "this release takes it as `--attention-backend`" in w  # the flag that carries the setting now
    assert not report.findings


def test_the_index_is_read_only_when_a_diagnosis_needs_it(bundled, monkeypatch):
    read = []
    real = rel.table

    def spy(engine, kind, *a):
        read.append(kind)
        return real(engine, kind, *a)

    monkeypatch.setattr(rel, "table", spy)
    clean = (LOGS / "vllm" / "release-index--attention-backend-variable-ignored-0.15.1.log").read_text()
    clean = "\n".join(ln for ln in clean.splitlines() if "VLLM_" not in ln)
    report = diagnose_text(clean, bundled)
    # a crash-free log is checked for launch risks, whose fixes are fitted to the version: the small tables only
    assert not report.findings and set(read) <= {"flags", "choices", "env"}
    read.clear()
    diagnose_text("Traceback (most recent call last):\n  File \"x.py\", line 1, in <module>\nKeyError: 'q'\n", bundled)
    assert read == []
    # a finding whose fixes name flags reads the small tables, never the functions or the raise sites
    report = _diagnose("vllm/gdn-cudagraph-illegal-memory-access--vllm-34948.log", bundled)
    assert report.findings and set(read) <= {"flags", "choices", "env"}


def test_explain_a_flag_and_a_variable():
    from qwen3doctor.knowledge.releases.generic import describe

    lines = describe("--gdn-prefill-backend")
    assert lines[0].startswith("--gdn-prefill-backend: accepted by vLLM 0.18.0-")
    assert any("triton" in ln for ln in lines)
    assert describe("VLLM_DEEP_GEMM_WARMUP")[0].startswith("VLLM_DEEP_GEMM_WARMUP: read by vLLM 0.11.1-")
    assert describe("--no-such-flag-anywhere")[0].startswith("--no-such-flag-anywhere: no indexed release")
    assert describe("Qwen3ForCausalLM") is None
    assert "  as a flag: --attention-backend (0.13.0-" in "\n".join(describe("VLLM_ATTENTION_BACKEND"))
    assert not any("as a flag" in ln for ln in describe("VLLM_USE_V1"))
    # the ids diagnoses and risks show without a rule explain too (a user copies them from the output)
    arch = "\n".join(describe("release:arch:qwen3.5"))
    assert "`Qwen3_5ForConditionalGeneration` is registered by 0.17.0-" in arch and "SGLang:" in arch
    assert describe("release-index/flag")[0].startswith("release-index/flag: no rule; a diagnosis from the release index")
    assert describe("release:arch:no-such-family") is None
    # every kind the release index reports explains (import and removed once answered "no rule is known")
    import inspect
    import re as _re

    from qwen3doctor.knowledge.releases import findings

    kinds = set(_re.findall(r'_finding\("([\w-]+)"', inspect.getsource(findings)))
    assert {"flag", "choice", "architecture", "import", "removed", "renamed-architecture"} <= kinds
    for kind in kinds:
        assert describe(f"release-index/{kind}")[0].startswith(f"release-index/{kind}: no rule;"), kind


def test_check_flags_a_flag_the_planned_release_lacks():
    from qwen3doctor.knowledge.releases.generic import command_alerts

    found, skipped = command_alerts("vllm", "0.17.1", "vllm serve Qwen/Qwen3.5-27B --gdn-prefill-backend triton --max-num-seqs 64")
    assert skipped is None
    [(name, title, detail)] = found
    assert name == "--gdn-prefill-backend" and "0.17.1" in title and "needs vLLM >= 0.18.0" in detail
    assert command_alerts("vllm", "0.18.0", "vllm serve m --gdn-prefill-backend triton") == ([], None)


def test_check_flags_a_model_family_the_planned_release_does_not_register():
    from qwen3doctor.knowledge.releases.generic import family_alert

    name, title, detail = family_alert("vllm", "0.12.0", "qwen3.5")
    assert name == "arch:qwen3.5" and "vLLM 0.12.0 registers no qwen3.5 architecture" in title
    assert "Qwen3_5ForConditionalGeneration" in detail and "0.17.0" in detail
    assert family_alert("vllm", "0.17.0", "qwen3.5") is None  # the first release that registers it
    assert family_alert("sglang", "0.4.6", "qwen3-next")[1].startswith("SGLang 0.4.6 registers no qwen3-next")
    assert family_alert("vllm", "0.12.0", "other") is None and family_alert("vllm", None, "qwen3.5") is None
    # a development build may hold the next release's registry (vllm#40856: 0.16.0rc2.dev496 served Qwen3.6-35B-A3B);
    # one that precedes a release still lacking the family is still flagged
    assert family_alert("vllm", "0.16.0rc2.dev496+g1234abcd", "qwen3.5-moe") is None
    assert family_alert("vllm", "0.16.0", "qwen3.5-moe") is not None
    assert family_alert("vllm", "0.12.0rc1.dev20", "qwen3.5") is not None
    # (the speech families are served by their own packages as often as by the engine's registry)
    assert family_alert("vllm", "0.15.1", "qwen3-asr") is None


def test_check_command_warns_on_a_family_the_planned_release_cannot_load():
    import subprocess
    import sys

    cmd = [sys.executable, "-m", "qwen3doctor.cli", "check", "--engine-version", "0.12.0", "--",
           "vllm", "serve", "Qwen/Qwen3.5-27B", "--tensor-parallel-size", "2"]
    r = subprocess.run(cmd, capture_output=True, text=True)
    assert r.returncode == 1 and "vLLM 0.12.0 registers no qwen3.5 architecture" in r.stdout
    cmd[cmd.index("0.12.0")] = "0.17.0"
    assert "registers no qwen3.5" not in subprocess.run(cmd, capture_output=True, text=True).stdout


def test_a_fix_the_detected_version_lacks_says_what_it_needs(bundled):
    log = "vllm/gdn-cudagraph-illegal-memory-access--vllm-34948.log"  # a 0.16.0rc2 nightly
    [fix] = [f for f in _diagnose(log, bundled).findings[0].fixes if "Triton/FLA" in f.title]
    assert fix.command == "" and "needs vLLM >=0.18.0" in fix.title
    [fix] = [f for f in _diagnose(log, bundled, version="0.19.1").findings[0].fixes if "Triton/FLA" in f.title]
    assert "--gdn-prefill-backend triton" in fix.command and "needs" not in fix.title


def test_a_fix_written_twice_shows_the_spelling_of_the_release(bundled):
    log = "vllm/deepgemm-moe-warmup-oom--qwen3-235b-fp8-dp4-ep-h100.log"
    old = [f.command for f in _diagnose(log, bundled, version="0.10.2").findings[0].fixes]
    new = [f.command for f in _diagnose(log, bundled, version="0.12.0").findings[0].fixes]
    assert any("VLLM_SKIP_DEEP_GEMM_WARMUP=1" in c for c in old) and not any("VLLM_DEEP_GEMM_WARMUP=skip" in c for c in old)
    assert any("VLLM_DEEP_GEMM_WARMUP=skip" in c for c in new) and not any("VLLM_SKIP_DEEP_GEMM_WARMUP" in c for c in new)


def test_a_flag_no_release_has_fails_only_where_the_index_covers_the_window(tmp_path):
    fixes = GDN_FIX.replace("--gdn-prefill-backend triton", "--brand-new-flag 1")
    closed = lint(_catalog(tmp_path / "a", window=">=0.16.0,<0.20.0", fixes=fixes))
    assert any("--brand-new-flag" in p and "no release from 0.8.5" in p for p in closed)
    # an open window reaches releases newer than the index, which may have added it
    assert not [p for p in lint(_catalog(tmp_path / "b", window=">=0.16.0", fixes=fixes)) if "--brand-new-flag" in p]


def test_explain_and_check_from_the_command_line():
    import subprocess
    import sys

    def run(*args):
        return subprocess.run([sys.executable, "-m", "qwen3doctor.cli", *args], capture_output=True, text=True)

    r = run("explain", "--cuda-graph-max-bs")
    assert r.returncode == 0 and "SGLang 0.4.6-0.5.19" in r.stdout
    r = run("explain", "VLLM_ATTENTION_BACKEND")
    assert r.returncode == 0 and "read by vLLM 0.8.5-0.14.1" in r.stdout
    r = run("check", "--engine-version", "0.5.21", "--no-local", "--", "python", "-m", "sglang.launch_server",
            "--model-path", "Qwen/Qwen3-8B", "--cuda-graph-max-bs", "64")
    assert r.returncode == 1 and "SGLang 0.5.21 does not accept the flag --cuda-graph-max-bs" in r.stdout


# ---------------------------------------------------------------- releases dated by the traceback's functions

CUT_LOAD = """\
(Worker_TP0 pid=331) ERROR 09-06 00:38:50 [multiproc_executor.py:944] WorkerProc failed to start.
(Worker_TP0 pid=331) ERROR 09-06 00:38:50 [multiproc_executor.py:944] Traceback (most recent call last):
(Worker_TP0 pid=331) ERROR 09-06 00:38:50 [multiproc_executor.py:944]   File "/usr/local/lib/python3.12/dist-packages/vllm/v1/executor/multiproc_executor.py", line 680, in __init__
(Worker_TP0 pid=331) ERROR 09-06 00:38:50 [multiproc_executor.py:944]     self.worker.load_model()
(Worker_TP0 pid=331) ERROR 09-06 00:38:50 [multiproc_executor.py:944]   File "/usr/local/lib/python3.12/dist-packages/vllm/tracing/otel.py", line 178, in sync_wrapper
(Worker_TP0 pid=331) ERROR 09-06 00:38:50 [multiproc_executor.py:944]     return func(*args, **kwargs)
(Worker_TP0 pid=331) ERROR 09-06 00:38:50 [multiproc_executor.py:944]   File "/usr/local/lib/python3.12/dist-packages/vllm/v1/worker/gpu_worker.py", line 502, in load_model
(Worker_TP0 pid=331) ERROR 09-06 00:38:50 [multiproc_executor.py:944]     self.model_runner.load_model(load_dummy_weights=load_dummy_weights)
"""


def test_the_frames_date_a_traceback_the_log_gives_no_version_for():
    from qwen3doctor.knowledge.releases.frames import function_key, release_window
    from qwen3doctor.model import Frame

    assert function_key("vllm", "/home/u/src/vllm/vllm/v1/worker/gpu_worker.py") == "vllm.v1.worker.gpu_worker"
    assert function_key("sglang", "/sgl-workspace/sglang/python/sglang/srt/managers/scheduler.py") == "sglang.srt.managers.scheduler"
    w = release_window("vllm", [Frame("/x/site-packages/vllm/tracing/otel.py", 178, "sync_wrapper"),
                                Frame("/x/site-packages/vllm/v1/worker/gpu_worker.py", 502, "load_model")])
    assert w.first == "0.16.0" and w.last == rel.releases("vllm")[-1] and "vllm.tracing.otel:sync_wrapper" in w.because[0]
    # a function every release has says nothing; frames that disagree (a fork) date nothing
    assert release_window("vllm", [Frame("/x/vllm/v1/worker/gpu_worker.py", 1, "load_model")]) is None
    assert release_window("vllm", [Frame("/x/vllm/tracing/otel.py", 1, "sync_wrapper"),
                                   Frame("/x/vllm/executor/uniproc_executor.py", 1, "_init_executor")]) is None


def test_line_numbers_date_a_traceback_only_when_two_functions_agree():
    from qwen3doctor.knowledge.releases.frames import release_window
    from qwen3doctor.model import Frame

    worker_proc = Frame("/x/site-packages/vllm/v1/executor/multiproc_executor.py", 680, "__init__")
    load_model = Frame("/x/site-packages/vllm/v1/worker/gpu_worker.py", 502, "load_model")
    w = release_window("vllm", [worker_proc, load_model])
    assert (w.first, w.last) == ("0.29.0", "0.30.0")
    # one long function holds a line in many releases: alone it dates nothing
    assert release_window("vllm", [worker_proc]) is None
    # a line no release has inside that function (a build between releases, a patched file): no dating by lines
    assert release_window("vllm", [worker_proc, Frame(load_model.file, 9502, "load_model")]) is None


def test_a_cut_traceback_without_a_version_drops_candidates_fixed_before_its_release(bundled, monkeypatch):
    # no function the index dates, and line numbers no release has (a source build between releases)
    undated = CUT_LOAD.replace("/vllm/tracing/otel.py", "/vllm/tracing/spans.py").replace("line 680", "line 9680")
    before = diagnose_text(undated, bundled)
    assert before.environment.get("engine_releases") is None
    assert "eagle3-interface-unsupported-model" in [f.rule_id for f in _all_candidates(undated, bundled)]
    by_functions = diagnose_text(CUT_LOAD.replace("line 680", "line 9680"), bundled)
    assert by_functions.environment.get("engine_releases") == "0.16.0-" + rel.releases("vllm")[-1]
    assert "otel:sync_wrapper" in by_functions.environment.facts["engine_releases"].source
    # the lines date it closer: WorkerProc.__init__ calls load_model at line 680 in 0.29.0 and 0.30.0 only, and
    # Worker.load_model spans line 502 in both (the paste is a build between them)
    report = diagnose_text(CUT_LOAD, bundled)
    assert report.environment.get("engine_releases") == "0.29.0-0.30.0"
    assert "multiproc_executor:__init__ at line 680" in report.environment.facts["engine_releases"].source
    # fixed in 0.11.1: a traceback through a 0.16.0+ function is past the fix
    assert "eagle3-interface-unsupported-model" not in [f.rule_id for f in _all_candidates(CUT_LOAD, bundled)]
    # a version in the log wins: no dating, and the function table is not read
    read = []
    real = rel.table
    monkeypatch.setattr(rel, "table", lambda e, k, *a: read.append(k) or real(e, k, *a))
    stated = diagnose_text("INFO 09-06 00:38:01 [__init__.py:216] vLLM API server version 0.10.1\n" + CUT_LOAD, bundled)
    assert stated.environment.get("engine_releases") is None and "func" not in read


def _all_candidates(text, catalog):
    """Every finding `score` gives, before `rank` keeps three."""
    from qwen3doctor.judge import pipeline

    kept = []
    real = pipeline.rank
    pipeline.rank = lambda findings, scan=None: kept.extend(findings) or real(findings, scan)
    try:
        diagnose_text(text, catalog)
    finally:
        pipeline.rank = real
    return kept


def test_a_message_no_rule_explains_gets_its_raise_site_and_engine(bundled):
    # the paste names neither engine: only SGLang's sources raise this message
    report = diagnose_text("NotImplementedError: get_hidden_dim not implemented for linear_fc2\n", bundled)
    assert not report.findings
    assert any(s.startswith("the message is raised by `sglang/srt/lora/") and "present in SGLang" in s
               for s in report.next_steps)


def test_pythons_own_messages_have_no_raise_site(bundled):
    # `'X' object has no attribute 'y'` is raised by Python; a wrapper's __getattr__ that words it alike is no site
    log = ("[2026-05-12 10:01:12 TP0] Scheduler hit an exception: Traceback (most recent call last):\n"
           '  File "/sgl-workspace/sglang/python/sglang/srt/speculative/eagle_worker.py", line 910, in _mamba_verify_update\n'
           "    self.draft_attn_backend.update_mamba_state_after_mtp_verify(batch, accepted_length)\n"
           "AttributeError: 'HybridAttnBackend' object has no attribute 'update_mamba_state_after_mtp_verify'\n")
    report = diagnose_text(log, bundled)
    assert not any("the message is raised by" in s or "rules naming" in s for s in report.next_steps)
    # nor Python's import error for a package that is not installed, which vLLM's import_from_path words alike
    log = ("Traceback (most recent call last):\n"
           '  File "/usr/local/lib/python3.10/dist-packages/vllm/utils.py", line 1813, in __getattr__\n'
           "    importlib.import_module(name)\n"
           '  File "/usr/lib/python3.10/importlib/__init__.py", line 126, in import_module\n'
           "    return _bootstrap._gcd_import(name[level:], package, level)\n"
           "ModuleNotFoundError: No module named 'decord'\n")
    report = diagnose_text(log, bundled)
    assert not any("the message is raised by" in s or "no longer raise it" in s for s in report.next_steps)


def test_an_engine_module_the_release_lacks_is_dated_by_the_index(bundled):
    # a package written for a newer vLLM imports a module 0.15.1 does not have: upgrade to the first release with it
    # (the plugin rule names the class from the quoted module name; the index adds the releases and the command)
    report = _diagnose("vllm/release-index-module-missing-0.15.1.log", bundled)
    top = report.findings[0]
    assert top.rule_id == "platform-plugin-vllm-version-mismatch"
    assert "`vllm.transformers_utils.configs.qwen3_asr` is in vLLM 0.16.0-0.33.0" in top.notes
    assert "vLLM 0.15.1 predates it" in top.notes
    assert top.fixes[-1].command == 'pip install -U "vllm>=0.16.0"'
    # the same line as a reporter pastes it, without the quotes the rule's pattern wants: the index alone answers
    line = "ModuleNotFoundError: No module named vllm.transformers_utils.configs.qwen3_asr\n"
    report = diagnose_text("INFO 02-08 03:20:00 [api_server.py:1] vLLM API server version 0.15.1\n" + line, bundled)
    top = report.findings[0]
    assert top.rule_id == "release-index/import" and top.confidence == "high"
    assert [f.command for f in top.fixes] == ['pip install -U "vllm>=0.16.0"']


def test_an_import_the_index_cannot_date_is_left_to_the_rules(bundled):
    head = "INFO 01-01 10:00:00 [api_server.py:1] vLLM API server version 0.12.0\nTraceback (most recent call last):\n" \
           '  File "/srv/app.py", line 3, in <module>\n    import plugin\n'
    # a compiled module, a name the module only imports, and this release's own function: no finding from the index
    for tail in ("ModuleNotFoundError: No module named 'vllm._C'",
                 "ImportError: cannot import name 'Any' from 'vllm.utils'",
                 "ImportError: cannot import name 'random_uuid' from 'vllm.utils'"):
        report = diagnose_text(head + tail + "\n", bundled)
        assert not any(f.rule_id == "release-index/import" for f in report.findings), tail
    # a function the release no longer has: removed after 0.11.0, so the fix pins the last release with it
    report = diagnose_text(head + "ImportError: cannot import name 'get_ip' from 'vllm.utils'\n", bundled)
    top = next(f for f in report.findings if f.rule_id == "release-index/import")
    assert "vLLM 0.12.0 no longer has it" in " ".join(ev.text for ev in top.evidence)
    # where the helper went in this release, from the same table
    assert "in vLLM 0.12.0 `get_ip` is defined in `vllm.utils.network_utils`: import it from there" in [
        ev.text for ev in top.evidence]
    assert any(f.command == 'pip install "vllm==0.11.0"' for f in top.fixes)
    # a class is dated as a function is: `vllm.utils` kept FlexibleArgumentParser up to 0.11.0, and where it went
    report = diagnose_text(head + "ImportError: cannot import name 'FlexibleArgumentParser' from 'vllm.utils'\n", bundled)
    top = next(f for f in report.findings if f.rule_id == "release-index/import")
    texts = [ev.text for ev in top.evidence]
    assert "`FlexibleArgumentParser` in `vllm.utils` is in vLLM 0.8.5-0.11.0" in texts
    assert "in vLLM 0.12.0 `FlexibleArgumentParser` is defined in `vllm.utils.argparse_utils`: import it from there" in texts
    # an SGLang module is not dated by the vLLM version of the same log (moe_runner: SGLang 0.5.1 and later)
    report = diagnose_text(head + "ModuleNotFoundError: No module named 'sglang.srt.layers.moe.moe_runner'\n", bundled)
    top = next(f for f in report.findings if f.rule_id == "release-index/import")
    assert top.confidence == "medium" and "0.12.0" not in top.title
    assert [f.command for f in top.fixes] == ['pip install -U "sglang>=0.5.1"']
    # a module every indexed SGLang release has: no release to move to, so nothing from the index
    report = diagnose_text(head + "ModuleNotFoundError: No module named 'sglang.srt.layers.moe.fused_moe_triton'\n", bundled)
    assert not any(f.rule_id == "release-index/import" for f in report.findings)


def test_an_undated_import_offers_only_the_moves_the_index_can_back(bundled):
    # no version in the paste. GuidedDecodingParams is in every indexed release up to 0.11.2 and may be older than
    # the index, so "upgrade to 0.8.5, the first release with it" would be false: only the pin (or a newer caller)
    tail = "ImportError: cannot import name 'GuidedDecodingParams' from 'vllm.sampling_params'\n"
    report = diagnose_text('Traceback (most recent call last):\n  File "/srv/app.py", line 3, in <module>\n'
                           "    from vllm.sampling_params import GuidedDecodingParams\n" + tail, bundled)
    top = next(f for f in report.findings if f.rule_id == "release-index/import")
    assert [f.command for f in top.fixes] == ['pip install "vllm==0.11.2"']
    assert not any("first release" in f.title for f in top.fixes)
    # a name every indexed release has: the index has no release to move to, so it says nothing
    report = diagnose_text('Traceback (most recent call last):\n  File "/srv/app.py", line 3, in <module>\n'
                           "    from vllm import LLM\nImportError: cannot import name 'LLM' from 'vllm'\n", bundled)
    assert not any(f.rule_id == "release-index/import" for f in report.findings)


def test_an_attribute_of_an_engine_module_the_release_lacks_is_dated_by_the_index(bundled):
    # a framework reads vllm.envs.VLLM_USE_V1, which vLLM read up to 0.11.0: on 0.12.0 the lookup fails
    head = "INFO 01-01 10:00:00 [api_server.py:1] vLLM API server version 0.12.0\n"
    report = diagnose_text(head + "AttributeError: module 'vllm.envs' has no attribute 'VLLM_USE_V1'\n", bundled)
    top = next(f for f in report.findings if f.rule_id == "release-index/import")
    texts = [ev.text for ev in top.evidence]
    assert "`VLLM_USE_V1` in `vllm.envs` is in vLLM 0.8.5-0.11.0" in texts and "vLLM 0.12.0 no longer has it" in texts
    assert top.confidence == "high" and [f.command for f in top.fixes] == ['pip install "vllm==0.11.0"']
    # a function looked up as a module attribute is dated as its import is (get_ip left vllm.utils after 0.11.0)
    report = diagnose_text(head + "AttributeError: module 'vllm.utils' has no attribute 'get_ip'\n", bundled)
    top = next(f for f in report.findings if f.rule_id == "release-index/import")
    assert "vLLM 0.12.0 no longer has it" in [ev.text for ev in top.evidence]
    # a variable this release still reads, or a name no release has: the index says nothing
    for name in ("VLLM_HOST_IP", "VLLM_NO_SUCH_KNOB"):
        report = diagnose_text(head + f"AttributeError: module 'vllm.envs' has no attribute '{name}'\n", bundled)
        assert not any(f.rule_id == "release-index/import" for f in report.findings), name


def test_an_engine_message_that_something_was_removed_is_dated_by_its_raise_site(bundled):
    # an app logs (basicConfig format) what vLLM raised for a hook that moved in 0.16: the index names the release
    # that first raises it and the last one before
    report = _diagnose("vllm/release-index-removed-hook-0.16.0.log", bundled)
    # (a rule now names this hook's cause - an ASR plugin written for 0.14 - and leads: the index's dating is what
    # a message no rule knows gets, so it is tested without that rule)
    assert report.findings[0].rule_id == "mm-plugin-processor-data-parser-moved"
    without = Catalog(rules={k: r for k, r in bundled.rules.items() if k != "mm-plugin-processor-data-parser-moved"})
    report = _diagnose("vllm/release-index-removed-hook-0.16.0.log", without)
    top = report.findings[0]
    assert top.rule_id == "release-index/removed" and top.title.startswith("vLLM 0.16.0 and later removed")
    text = " ".join(ev.text for ev in top.evidence)
    assert "raised by `vllm/multimodal/processing/processor.py`" in text and "vLLM 0.15.1 and earlier do not raise it" in text
    assert any(f.command == 'pip install "vllm==0.15.1"' for f in top.fixes)
    # the same words the index has no raise site for: no finding from it
    report = diagnose_text("ERROR:app:Failed: the frobnicator has been removed, sorry\n", bundled)
    assert not any(f.rule_id == "release-index/removed" for f in report.findings)


def test_a_fix_whose_own_range_excludes_the_logged_release_is_not_shown(bundled):
    # an upgrade "before 0.22.0" names no flag the release index could judge; on a 0.23.0 log it is no fix
    from qwen3doctor.judge.pipeline import diagnose_text

    def titles(version):
        log = (f"(APIServer pid=7) INFO 05-05 11:42:07 [api_server.py:1885] vLLM API server version {version}\n"
               "(APIServer pid=7) ValueError: Chunked MM input disabled but max_tokens_per_mm_item (2496) is larger than "
               "max_num_batched_tokens (2048). Please increase max_num_batched_tokens.\n")
        top = diagnose_text(log, bundled).findings[0]
        assert top.rule_id == "mm-item-exceeds-max-num-batched-tokens"
        return [f.title for f in top.fixes]

    assert any("before vLLM 0.22.0" in t for t in titles("0.20.0"))
    assert not any("before vLLM 0.22.0" in t for t in titles("0.23.0"))


def test_a_fix_for_another_platform_is_not_shown(bundled, tmp_path):
    """A fix marked `platform: [cpu]` (a CPU build's remedy) is left out on a CUDA log, shown on a CPU log and on a log
    that names no platform; a fix for CUDA only is left out on the CPU log. A bad platform name is a rule error."""
    from qwen3doctor.errors import RuleError
    from qwen3doctor.judge.pipeline import diagnose_text

    message = ("ValueError: torch.bfloat16 is not supported for quantization method gptq. Supported dtypes: "
               "[torch.float16]\n")

    def titles(platform_line):
        top = diagnose_text(platform_line + message, bundled).findings[0]
        assert top.rule_id == "quant-method-rejects-model-dtype"
        return " | ".join(f.title for f in top.fixes)

    cuda = titles("INFO 05-05 11:42:07 [__init__.py:239] Automatically detected platform cuda.\n")
    cpu = titles("INFO 05-05 11:42:07 [__init__.py:239] Automatically detected platform cpu.\n")
    none = titles("")
    assert "vLLM CPU backend 0.6.3 or older" not in cuda and "leave --quantization out" in cuda
    assert "vLLM CPU backend 0.6.3 or older" in cpu and "leave --quantization out" not in cpu
    assert "vLLM CPU backend 0.6.3 or older" in none and "leave --quantization out" in none
    rule = (LOGS.parent.parent / "rules" / "common" / "quant-method-rejects-model-dtype.yaml").read_text()
    folder = tmp_path / "rules" / "common"
    folder.mkdir(parents=True)
    (folder / "bad.yaml").write_text(rule.replace("platform: [cpu]", "platform: [gpu]").replace("../../examples", str(LOGS.parent)))
    with pytest.raises(RuleError, match=r"bad\.yaml:\d+: fixes\[\d\]\.platform: must be a non-empty list of platforms"):
        load_catalog([tmp_path / "rules"])


def test_a_pin_to_the_logged_release_leaves_out_its_local_build_tag(bundled):
    """vllm-ascend builds vLLM as `0.9.1+empty`: a fix that pins the logged release pins `vllm==0.9.1`, which the
    package index has; the environment still shows the version as logged."""
    report = _diagnose("common/torch-custom-op-registered-twice--vllm-ascend-0.9.1-c-namespace-cpu-build-abort.log", bundled)
    assert report.environment.get("engine_version") == "0.9.1+empty"
    commands = " ".join(f.command for f in report.findings[0].fixes)
    assert '"vllm==0.9.1"' in commands and "+empty" not in commands


def test_lint_advises_against_engine_steps_as_supporting_frames(bundled):
    # an engine step (load_model, init_device, capture_model, execute_model ...) as a supporting frame makes a rule a
    # candidate for every cut traceback through it; lint says so, as advice
    from qwen3doctor.tools.ruletools import lint_warnings

    warned = [w for w in lint_warnings(bundled) if "(an engine step where many causes fail)" in w]
    assert any("aiter-ck-moe-gemm-unsupported-shape.yaml" in w and "profile_run" in w for w in warned)
    # the import step too: every traceback cut while the engine's modules load passes it
    assert any("engine-extension-torch-abi-mismatch.yaml" in w and "<import>" in w for w in warned)
    # the rules whose supports name only their own cause's frames are not warned about
    assert not any("nvswitch-fabric-manager-not-running" in w or "safetensors-shard-corrupt" in w for w in warned)


def test_an_assert_of_the_engine_is_a_raise_site_dated_by_the_releases_that_have_it(bundled):
    # `assert cond, "message"` sites are in the raise table: a crash no rule explains names where its check lives,
    # and, on a release that still has it, the first release whose code no longer raises it
    head = "INFO 03-01 10:00:00 [api_server.py:1] vLLM API server version {}\n"
    crash = ('(EngineCore_DP0 pid=7) ERROR 03-01 10:00:05 [core.py:708] Traceback (most recent call last):\n'
             '(EngineCore_DP0 pid=7) ERROR 03-01 10:00:05 [core.py:708]   File "/usr/local/lib/python3.12/dist-packages/'
             'vllm/v1/attention/backends/flashinfer.py", line 561, in __init__\n'
             '(EngineCore_DP0 pid=7) ERROR 03-01 10:00:05 [core.py:708]     assert not (self.block_size == 16 and '
             'self.head_dim == 256), (\n'
             '(EngineCore_DP0 pid=7) ERROR 03-01 10:00:05 [core.py:708] AssertionError: There is a bug in FlashInfer '
             'block_size 16 head size 256 support. Please avoid this combination by passing --block-size 32 or '
             '--block-size 64.\n')
    report = diagnose_text(head.format("0.15.1") + crash, bundled)
    steps = " ".join(report.next_steps)
    assert "raised by `vllm/v1/attention/backends/flashinfer.py` in `__init__`, present in vLLM 0.11.1-0.17.1" in steps
    assert "vLLM 0.18.0 and later no longer raise it" in steps and 'pip install -U "vllm>=0.18.0"' in steps
    # a release past the last one with the check: the message comes from other code, no upgrade step
    report = diagnose_text(head.format("0.18.0") + crash, bundled)
    assert "no longer raise it" not in " ".join(report.next_steps)


def test_a_message_cut_after_its_first_sentences_still_finds_its_raise_site(bundled):
    """A one-line paste of vLLM's CPU autobind check that kept its first two sentences (`... Allowed NUMA nodes are
    [0, 1].`) of a message that goes on (`Please try to bind threads manually.`): the template's first sentences,
    ending where the paste ends, name the site (0.16.0-0.17.1: 0.18.0 counts local workers, `of * local
    CPUWorkers`, which this message does not match). A message that stops mid-sentence is no such match."""
    line = "AssertionError: Not enough allowed NUMA nodes to bind threads of 4 CPUWorkers. Allowed NUMA nodes are [0, 1].\n"
    steps = " ".join(diagnose_text(line, bundled).next_steps)
    assert "raised by `vllm/v1/worker/cpu_worker.py` in `_get_autobind_cpu_ids`, present in vLLM 0.16.0-0.17.1" in steps
    assert "vLLM 0.18.0 and later no longer raise it" in steps
    cut = "AssertionError: Not enough allowed NUMA nodes to bind threads of 4 CPUWorkers. Allowed NUMA\n"
    assert "_get_autobind_cpu_ids" not in " ".join(diagnose_text(cut, bundled).next_steps)


def test_lint_fails_a_plain_word_as_a_log_anchor(tmp_path):
    """A log pattern whose anchor is a plain word (`' install '`, a caseless `quantization`) selects every request line
    whose prompt holds it: `rules lint` fails a user's rule for it (exit 2), naming file, line, field and word and what
    to do; a distinctive anchor passes, and so does a word that is only context in a look-around. No bundled rule
    has one, and the bundled rules lint clean."""
    import subprocess
    import sys

    def rule(name, pattern):
        folder = tmp_path / name / "rules" / "common"
        folder.mkdir(parents=True)
        # (the fix with its own range: the rule's one problem, if any, is its anchor)
        text = RULE.format(window=">=0.16.0", fixes=GDN_FIX + '    engine_version: ">=0.18.0"\n',
                           frame="fi_chunk_gated_delta_rule", fixed_in="",
                           match=LOGS / "vllm" / "gdn-cudagraph-illegal-memory-access--vllm-34948.log",
                           no_match=LOGS / "vllm" / "qwen3-next-fp8-ima-deepgemm.log")
        text = text.replace("    message: ['illegal memory access']\n", f"    log: ['{pattern}']\n")
        (folder / "anchored.yaml").write_text(text)
        return folder / "anchored.yaml"

    def plain(path):
        return [p for p in lint(load_catalog([path.parent.parent])) if "plain words a request's prompt may hold" in p]

    path = rule("plain", "(?i)\\bquantization\\b")
    r = subprocess.run([sys.executable, "-m", "qwen3doctor.cli", "rules", "lint", str(path)], capture_output=True,
                       text=True)
    assert r.returncode == 2, r.stdout + r.stderr
    assert (f"{path}:7: match[0].log[0]: anchor(s) 'quantization' are plain words a request's prompt may hold: with "
            "request logging on, every line of a large log that holds one reaches the reader") in r.stdout
    assert "anchor the pattern on a distinctive literal" in r.stdout and "1 problem(s) in 1 rule(s)" in r.stderr
    assert lint(load_catalog([rule("distinctive", "nvidia-container-cli: mount error: file exists").parent.parent])) == []
    # a word as a prompt's sentence ends it is one too; the package's name as context of its release is not (the
    # release anchors the pattern)
    assert any("'deepspeed.'" in p for p in plain(rule("stop", "(?i)\\bdeepspeed\\.")))
    assert plain(rule("context", "(?<=transformers[ =:]+)5\\.3\\.0")) == []
    # a capitalised word is one when it is a whole branch (a prompt's sentence matches it), not when it is the tail
    # of a class name or a line of its own
    assert any("'Mooncake'" in p for p in plain(rule("proper", "kv_connector|Mooncake")))
    assert plain(rule("classname", "(?:Nixl|Mooncake|LMCache)Connector")) == []
    assert plain(rule("ownline", "^Killed$")) == []
    # (the bundled rules lint clean, this check included: tests/test_cli.py's `rules lint` exits 0)


def test_a_struct_keyword_or_an_attribute_outside_callers_use_is_a_release_skew(bundled):
    """msgspec's refusal names no class (`TypeError: Unexpected keyword argument 'use_beam_search'`): the call on the
    code line that raised does (`SamplingParams(`), here under a flattened prefix. An attribute a caller reads of an
    engine class (`'AsyncLLM' object has no attribute 'engine'`) is the same skew; only vLLM defines AsyncLLM, so the
    class names the engine of a log that does not."""
    prefix = "2025-03-24 22:04:27 | ERROR | stderr | "
    struct = "".join(prefix + line + "\n" for line in (
        'File "/srv/venv/lib/python3.12/site-packages/fastchat/serve/vllm_worker.py", line 106, in generate_stream',
        "sampling_params = SamplingParams(",
        "^^^^^^^^^^^^^^^",
        "TypeError: Unexpected keyword argument 'use_beam_search'"))
    head = "INFO 11-22 02:50:00 [api_server.py:1] vLLM API server version 0.6.4\n"
    report = diagnose_text(head + struct, bundled)
    assert report.crashes[0].raised_at == "SamplingParams"
    top = report.findings[0]
    assert top.rule_id == "release-index/signature" and top.confidence == "low"
    assert top.title.startswith("vLLM 0.6.4's `SamplingParams()` takes no keyword `use_beam_search`, which `fastchat` passes")
    read = "".join(prefix + line + "\n" for line in (
        "Traceback (most recent call last):",
        '  File "/p/llama/FastChat/fastchat/serve/vllm_worker.py", line 57, in __init__',
        "    self.tokenizer = llm_engine.engine.tokenizer",
        "AttributeError: 'AsyncLLM' object has no attribute 'engine'"))
    top = diagnose_text(read, bundled).findings[0]
    assert top.rule_id == "release-index/signature"
    assert top.title == ("vLLM's `AsyncLLM` has no attribute `engine`, which `fastchat/serve/vllm_worker.py` reads: the "
                         "two were written for different vLLM releases")
    # the same read inside the engine's own code is that release's bug; a class no engine defines names nothing
    own = read.replace("/p/llama/FastChat/fastchat/serve/vllm_worker.py",
                       "/usr/lib/python3.12/site-packages/vllm/v1/engine/async_llm.py")
    assert not any(f.rule_id == "release-index/signature" for f in diagnose_text(own, bundled).findings)
    other = read.replace("'AsyncLLM'", "'ChatSession'")
    assert not any(f.rule_id == "release-index/signature" for f in diagnose_text(other, bundled).findings)


def test_a_one_line_call_skew_with_no_traceback_is_answered_only_when_the_api_table_dates_it(bundled):
    """The issue title's line alone, `TypeError: LLM.generate() got an unexpected keyword argument 'prompt_token_ids'`:
    no frame says who called, but the `api` table says `LLM.generate` took the keyword up to 0.10.1.1 and not after,
    so the finding is the removal (low with no version; the pin first). With a version line of a release that still
    took it, or for a keyword no release's `LLM.generate` took, a frameless paste gets no such finding."""
    line = "TypeError: LLM.generate() got an unexpected keyword argument 'prompt_token_ids'\n"
    found = [f for f in diagnose_text(line, bundled).findings if f.rule_id == "release-index/signature"]
    assert found and found[0].confidence == "low" and found[0].engines == ("vllm",)
    assert found[0].title == ("vLLM's `LLM.generate()` takes no keyword `prompt_token_ids`, which the calling code passes: "
                              "the two were written for different vLLM releases")
    assert found[0].fixes[0].command == 'pip install "vllm==0.10.1.1"'
    head = "INFO 11-22 02:50:00 [api_server.py:1] vLLM API server version {}\n"
    dated = [f for f in diagnose_text(head.format("0.12.0") + line, bundled).findings if f.rule_id == "release-index/signature"]
    assert dated and dated[0].confidence == "medium"
    # a keyword a later release brought (`LLM.reset_prefix_cache`'s `reset_running_requests`, 0.12.0) is an upgrade; a
    # parameter a later
    # release made the caller pass (`LLM.score`'s `data_1`, 0.10.0) is a pin to the release before it
    newer = head.format("0.11.0") + "TypeError: LLM.reset_prefix_cache() got an unexpected keyword argument 'reset_running_requests'\n"
    [found] = [f for f in diagnose_text(newer, bundled).findings if f.rule_id == "release-index/signature"]
    assert found.confidence == "medium" and [f.command for f in found.fixes[:1]] == ['pip install -U "vllm>=0.12.0"']
    wants = head.format("0.10.0") + "TypeError: LLM.score() missing 1 required positional argument: 'data_1'\n"
    [found] = [f for f in diagnose_text(wants, bundled).findings if f.rule_id == "release-index/signature"]
    assert found.confidence == "medium" and [f.command for f in found.fixes[:1]] == ['pip install "vllm==0.9.2"']
    # (an attribute read with no frame may be the engine's own code: an `__init__` chain that skipped the base class
    # that sets it, SGLang's MLX state component, is no skew whatever the table says of the base's attributes)
    missing = "AttributeError: 'MlxAuxiliaryStateComponent' object has no attribute 'mamba_checkpoint_grid'\n"
    for text in (head.format("0.9.2") + line, line.replace("prompt_token_ids", "prompt_ids"), missing):
        assert not any(f.rule_id == "release-index/signature" for f in diagnose_text(text, bundled).findings), text


def test_an_architecture_a_tool_prefixed_to_a_registered_one_is_a_renamed_class_not_an_old_engine(bundled):
    """optimum-habana's trainer saved `GaudiLlamaForCausalLM` in config.json (HabanaAI/vllm-fork#511): no release
    registers it, and `LlamaForCausalLM` with a tool's prefix is registered by every one, so no upgrade helps; the
    finding says so first, with each engine's launch override when the log names none. A class a later release
    registers stays the too-old rule's; another word in front of a registered name (a new model) is left alone."""
    line = "ValueError: Model architectures ['GaudiLlamaForCausalLM'] are not supported for now.\n"
    top = diagnose_text(line, bundled).findings[0]
    assert top.rule_id == "release-index/renamed-architecture" and top.confidence == "high"
    assert [f.command for f in top.fixes] == [
        "vllm serve <model> --hf-overrides '{\"architectures\": [\"LlamaForCausalLM\"]}'",
        "python -m sglang.launch_server --model-path <model> --json-model-override-args "
        "'{\"architectures\": [\"LlamaForCausalLM\"]}'"]
    head = "INFO 11-22 02:50:00 [api_server.py:1] vLLM API server version 0.10.1\n"
    top = diagnose_text(head + line, bundled).findings[0]
    assert top.rule_id == "release-index/renamed-architecture" and len(top.fixes) == 1
    for other in ("Qwen3NextForCausalLM", "FastLlavaForConditionalGeneration"):
        ids = [f.rule_id for f in diagnose_text(head + line.replace("GaudiLlamaForCausalLM", other), bundled).findings]
        assert "release-index/renamed-architecture" not in ids, (other, ids)


def test_a_config_jsons_field_the_release_refuses_is_dated_by_the_api_table(bundled):
    """`--compilation-config '{"full_cuda_graph": true}'` on vLLM 0.12.0: pydantic refuses the field (`Unexpected
    keyword argument`); the `api` table says `CompilationConfig` had it in 0.9.0-0.11.0, so the JSON was written for
    those: high, the pin first, then taking the field out. A misspelt field no release has names the closest fields;
    on a release whose class has the field, the refusal is something else's (no such finding)."""
    head = "(APIServer pid=1) INFO 10-02 11:20:05 [api_server.py:1839] vLLM API server version {}\n"
    crash = ("Traceback (most recent call last):\n"
             '  File "/usr/local/lib/python3.12/dist-packages/vllm/engine/arg_utils.py", line 1106, in create_engine_config\n'
             "    compilation_config = CompilationConfig(**self.compilation_config)\n"
             "pydantic_core._pydantic_core.ValidationError: 1 validation error for CompilationConfig\n"
             "{field}\n"
             "  {words} [type=unexpected_keyword_argument, input_value=True, input_type=bool]\n")
    log = head.format("0.12.0") + crash.format(field="full_cuda_graph", words="Unexpected keyword argument")
    top = diagnose_text(log, bundled).findings[0]
    assert top.rule_id == "release-index/config-field" and top.confidence == "high"
    assert top.title.startswith("`full_cuda_graph` is no field of vLLM 0.12.0's `CompilationConfig`: `--compilation-config` "
                                "was written for vLLM 0.9.0-0.11.0")
    assert [f.command for f in top.fixes][:1] == ['pip install "vllm==0.11.0"']
    typo = head.format("0.12.0") + crash.format(field="cudagraph_mod", words="Extra inputs are not permitted")
    top = diagnose_text(typo, bundled).findings[0]
    assert top.rule_id == "release-index/config-field" and "(closest: cudagraph_mode)" in top.title
    # (the error alone, no engine named: both engines have a `CompilationConfig`, only vLLM's ever had the field)
    bare = crash.format(field="full_cuda_graph", words="Unexpected keyword argument").split("pydantic_core", 1)[1]
    found = [f for f in diagnose_text("pydantic_core" + bare, bundled).findings if f.rule_id == "release-index/config-field"]
    assert found and found[0].engines == ("vllm",) and found[0].confidence == "medium"
    own = head.format("0.10.1") + crash.format(field="full_cuda_graph", words="Unexpected keyword argument")
    assert not any(f.rule_id == "release-index/config-field" for f in diagnose_text(own, bundled).findings)


def test_a_call_from_outside_the_engine_its_signature_refuses_is_a_release_skew(bundled):
    """`LLM.generate() got an unexpected keyword argument 'prompt_token_ids'` raised at a trainer's call into vLLM (the
    keyword is gone from the installed release), or Triton's backend passing `stat_loggers`: the caller and the engine
    were written for different releases, a low candidate from the release index naming both. The same TypeError at a
    call the engine's own code makes (its parser's constructor) is that release's bug, not a skew: no finding."""
    report = _diagnose("vllm/release-index--llm-generate-keyword-removed-verl-rollout.log", bundled)
    top = report.findings[0]
    # (the `api` table dates the keyword: `LLM.generate` took it up to 0.10.1.1, so 0.11.0's refusal is a removal,
    # medium with the version in the log, and the pin is the last release with it)
    assert top.rule_id == "release-index/signature" and top.confidence == "medium"
    assert top.title.startswith("vLLM 0.11.0's `LLM.generate()` takes no keyword `prompt_token_ids`, which `verl` passes")
    assert any("defined in `vllm.entrypoints.llm`" in ev.text and "vllm_rollout.py, line 265" in ev.text for ev in top.evidence)
    assert any(ev.text.endswith("`prompt_token_ids` in every indexed vLLM release up to 0.10.1.1 (the index starts at 0.8.5)")
               for ev in top.evidence)
    assert top.fixes[0].command == 'pip install "vllm==0.10.1.1"'
    tail = "TypeError: OpenAIServingChat.__init__() got an unexpected keyword argument 'tool_server'\n"
    platform = "INFO 12-16 10:12:37 [__init__.py:216] Automatically detected platform cuda.\n"
    for site, head, expected in (("/opt/tritonserver/backends/vllm/model.py", platform, True),
                                 ("/src/vllm/vllm/entrypoints/openai/api_server.py", platform, False),
                                 # (no sign that vLLM ran: a name such as `LLM.chat` is other libraries' own too)
                                 ("/opt/tritonserver/backends/vllm/model.py", "", False)):
        text = (f'{head}Traceback (most recent call last):\n  File "{site}", line 301, in init_app_state\n'
                f"    state.openai_serving_chat = OpenAIServingChat(\n" + tail)
        found = [f for f in diagnose_text(text, bundled).findings if f.rule_id == "release-index/signature"]
        assert bool(found) == expected, (site, head)
