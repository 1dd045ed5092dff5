"""The known-bad-combination policy (judge/combination.py), shared by ranking and `check` (issue 12).

First its table on small made-up rules and facts, then the promise it exists for: the launch `check` warns
about is a ranking "combination" candidate when the same launch is in a log without crash evidence."""

from __future__ import annotations

import io
import shlex

import pytest

from qwen3doctor.judge.combination import KNOWN, POSSIBLE, known_bad
from qwen3doctor.judge.match import when_states
from qwen3doctor.judge.pipeline import Overrides, scan_source, why_of
from qwen3doctor.judge.preflight import POSSIBLE as CHECK_POSSIBLE, WARNING, plan_environment, planned_command, rule_alert
from qwen3doctor.model import Environment, Fact, Rule, Scan
from qwen3doctor.read.reader import LineSource
from qwen3doctor.versions import bounded_above


def made_up(families=(), fixed_in=None, **when) -> Rule:
    return Rule(id="made-up", path="rules/vllm/made-up.yaml", engines=("vllm",), title="made up", status="likely",
                references=("vllm#1",), aliases=(), families=tuple(families), match=(), supports=(), when=dict(when),
                cause="", symptoms=(), fixes=(), fixed_in=fixed_in, tests={"match": (), "no_match": ()},
                raw_when=dict(when))


def facts(flags=None, **known) -> Environment:
    """`flags=None`: no serve command seen, so flag conditions are unknown."""
    return Environment(facts={k: Fact(v, "test") for k, v in known.items()}, flags=frozenset(flags or ()),
                       flags_known=flags is not None)


def judged(rule: Rule, env: Environment):
    return known_bad(rule, when_states(rule, Scan((), (), env)))


FP8_PRE_ADA = made_up(quantization=["fp8"], compute_capability="<8.9")  # no family: any model's FP8 checkpoint
MTP = made_up(families=["qwen3.5"], flags=["--speculative-config"], engine_version=">=0.10.2")
ASCEND = made_up(families=["qwen3.5"], platform=["npu"], flags=["--speculative-config"])
VLLM = {"engine": "vllm"}

# (case, rule, facts, level or None, enough)
TABLE = [
    ("fp8 on pre-Ada, family-agnostic: two facts hold", FP8_PRE_ADA,
     facts(**VLLM, quantization="fp8", compute_capability="8.0", family="qwen3"), KNOWN, True),
    ("fp8 on pre-Ada, whatever the family", FP8_PRE_ADA,
     facts(**VLLM, quantization="fp8", compute_capability="7.5", family="other"), KNOWN, True),
    ("fp8, GPU unknown", FP8_PRE_ADA, facts(**VLLM, quantization="fp8"), POSSIBLE, False),
    ("fp8 on Hopper: contradicted", FP8_PRE_ADA, facts(**VLLM, quantization="fp8", compute_capability="9.0"), None, False),
    ("bf16 on pre-Ada: contradicted", FP8_PRE_ADA, facts(**VLLM, quantization="bf16", compute_capability="8.0"), None, False),
    ("family-agnostic rule, one fact of two", made_up(quantization=["fp8"]), facts(**VLLM, quantization="fp8"), None, False),
    ("family and a flag hold", MTP, facts(["--speculative-config"], **VLLM, family="qwen3.5", engine_version="0.17.1"),
     KNOWN, True),
    ("an open version range unknown: possible, and the facts are enough", MTP,
     facts(["--speculative-config"], **VLLM, family="qwen3.5"), POSSIBLE, True),
    ("a version outside the range: contradicted", MTP,
     facts(["--speculative-config"], **VLLM, family="qwen3.5", engine_version="0.10.1"), None, False),
    ("contradicted gate: another family", MTP, facts(["--speculative-config"], **VLLM, family="qwen3"), None, False),
    ("contradicted gate: another engine", MTP, facts(["--speculative-config"], engine="sglang", family="qwen3.5"), None, False),
    ("contradicted gate: another platform", ASCEND,
     facts(["--speculative-config"], **VLLM, family="qwen3.5", platform="cuda"), None, False),
    ("platform gate unknown: possible, not enough", ASCEND, facts(["--speculative-config"], **VLLM, family="qwen3.5"),
     POSSIBLE, False),
    ("family and platform hold: gates are no evidence", made_up(families=["qwen3.5"], platform=["npu"]),
     facts(**VLLM, family="qwen3.5", platform="npu"), None, False),
    ("family unknown, the fact holds: possible", MTP, facts(["--speculative-config"], **VLLM, engine_version="0.17.1"),
     POSSIBLE, False),
    ("family holds, the fact unknown: nothing holds beyond the gate", MTP, facts(**VLLM, family="qwen3.5"), None, False),
    ("the family alone", made_up(families=["qwen3.5"]), facts(**VLLM, family="qwen3.5"), None, False),
    ("an env fact counts", made_up(families=["qwen3-vl"], env={"pp": "^[2-9]$"}), facts(**VLLM, family="qwen3-vl", pp=2),
     KNOWN, True),
    ("a bounded version window counts", made_up(families=["qwen3.5"], engine_version=">0.19.1,<0.20.0"),
     facts(**VLLM, family="qwen3.5", engine_version="0.19.2"), KNOWN, True),
    ("an open version range does not", made_up(families=["qwen3.5"], engine_version=">=0.17.0"),
     facts(**VLLM, family="qwen3.5", engine_version="0.18.0"), None, False),
    # vllm 0.22.1 is a release, its rc1 dev builds are main-branch builds: a window of those alone holds no release
    ("a window of main-branch builds only, version unknown: possible, never enough",
     made_up(families=["qwen3.5"], quantization=["fp8"], engine_version=">=0.22.1rc1.dev0,<0.23.0,!=0.22.1"),
     facts(**VLLM, family="qwen3.5", quantization="fp8"), POSSIBLE, False),
    ("the same window with a release in it: enough", made_up(families=["qwen3.5"], quantization=["fp8"],
                                                              engine_version=">=0.22.1rc1.dev0,<0.23.0"),
     facts(**VLLM, family="qwen3.5", quantization="fp8"), POSSIBLE, True),
    ("a main-branch build inside the window: known", made_up(families=["qwen3.5"], quantization=["fp8"],
                                                              engine_version=">=0.22.1rc1.dev0,<0.23.0,!=0.22.1"),
     facts(**VLLM, family="qwen3.5", quantization="fp8", engine_version="0.22.1rc1.dev166+gd0975a4b5"), KNOWN, True),
    ("a bounded window unknown is no fact that holds", made_up(families=["qwen3.5"], engine_version="<0.13.0"),
     facts(**VLLM, family="qwen3.5"), None, False),
    ("a workaround flag not set does not count", made_up(families=["qwen3.5"], not_flags=["--enforce-eager"]),
     facts([], **VLLM, family="qwen3.5"), None, False),
    ("a workaround flag set: contradicted",
     made_up(families=["qwen3.5"], quantization=["fp8"], not_flags=["--enforce-eager"]),
     facts(["--enforce-eager"], **VLLM, family="qwen3.5", quantization="fp8"), None, False),
    ("no serve command to check the workaround: possible, enough",
     made_up(families=["qwen3.5"], quantization=["fp8"], not_flags=["--enforce-eager"]),
     facts(**VLLM, family="qwen3.5", quantization="fp8"), POSSIBLE, True),
    ("a version past the fix: contradicted",
     made_up(families=["qwen3.5"], quantization=["fp8"], fixed_in={"version": "0.18.0"}),
     facts(**VLLM, family="qwen3.5", quantization="fp8", engine_version="0.18.1"), None, False),
    ("a version before the fix holds, and does not count", made_up(families=["qwen3.5"], fixed_in={"version": "0.18.0"}),
     facts(**VLLM, family="qwen3.5", engine_version="0.17.0"), None, False),
]


@pytest.mark.parametrize("case, rule, env, level, enough", TABLE, ids=[row[0] for row in TABLE])
def test_the_policy_table(case, rule, env, level, enough):
    combo = judged(rule, env)
    assert (combo.level if combo else None) == level, case
    if combo is not None:
        assert combo.enough is enough, case
        assert all(e.state == "hit" for e in combo.holds + combo.facts)
        assert all(e.state == "unknown" for e in combo.unknown) and bool(combo.unknown) == (level == POSSIBLE)
        assert not any(e.clause in ("when.engine", "when.family", "when.platform") for e in combo.facts)


def test_a_bounded_version_window():
    assert bounded_above("<0.13.0") and bounded_above(">=0.5.7,<0.5.20") and bounded_above("==0.10.1")
    assert not bounded_above(">=0.17.0") and not bounded_above(">=0.10,!=0.11.0") and not bounded_above("")


def test_check_alerts_follow_the_policy():
    fp8 = facts([], **VLLM, quantization="fp8", compute_capability="8.0", model="Qwen/Qwen3-8B-FP8", family="qwen3")
    alert = rule_alert(FP8_PRE_ADA, Scan((), (), fp8))
    assert alert.level == WARNING and set(alert.because) == {"quantization fp8", "compute capability 8.0"}
    unknown_gpu = facts([], **VLLM, quantization="fp8", family="qwen3")
    alert = rule_alert(FP8_PRE_ADA, Scan((), (), unknown_gpu))
    assert alert.level == CHECK_POSSIBLE and alert.decided_by == "the GPU"
    assert rule_alert(FP8_PRE_ADA, Scan((), (), facts([], **VLLM, quantization="fp8", compute_capability="9.0"))) is None


# launches from the `check` tests: (engine version, GPU, command)
LAUNCHES = [
    ("0.9.2", "NVIDIA A100-SXM4-80GB", "vllm serve Qwen/Qwen3-8B-FP8 --max-model-len 32768"),
    ("0.9.2", None, "vllm serve Qwen/Qwen3-8B-FP8"),
    ("0.17.1", None, "vllm serve Qwen/Qwen3.5-27B --speculative-config '{\"method\":\"qwen3_next_mtp\",\"num_speculative_tokens\":5}'"),
    (None, None, "vllm serve Qwen/Qwen3.5-27B --speculative-config '{\"method\":\"mtp\"}'"),
    ("0.10.1", "NVIDIA H100 80GB HBM3", "vllm serve Qwen/Qwen3-30B-A3B-FP8 --tensor-parallel-size 4"),
    ("0.11.0", "Tesla V100-SXM2-32GB", "vllm serve Qwen/Qwen3-8B"),
    ("0.5.3", None, "python -m sglang.launch_server --model-path Qwen/Qwen3-Next-80B-A3B-Instruct-FP8 --tp 8 --ep-size 8"),
    ("0.17.1", "NVIDIA GeForce RTX 5090", "vllm serve Qwen/Qwen3.5-27B-FP8 --tensor-parallel-size 2"),
]


def _launch_env(version, gpu, command):
    line = planned_command(shlex.split(command))
    options = {k: v for k, v in (("engine_version", version), ("gpu", gpu)) if v}
    return plan_environment(line, Overrides(options=options))


@pytest.mark.parametrize("version, gpu, command", LAUNCHES)
def test_check_and_ranking_agree_on_a_crash_free_launch(catalog, version, gpu, command):
    """Every rule `check` warns about is a combination candidate of the ranking on the same facts (unless a
    `log` clause of every alternative is absent, which rejects it: the log would have to show that line), and
    every combination candidate is at least a `check` possible."""
    scan = Scan((), (), _launch_env(version, gpu, command))
    warned = 0
    for rule in catalog.rules.values():
        alert = rule_alert(rule, scan)
        rm, finding, _ = why_of(rule, scan)
        candidate = finding is not None and finding.basis == "combination"
        if alert is not None and alert.level == WARNING and not rm.rejected:
            warned += 1
            assert candidate, f"{rule.id}: check warns, ranking does not list it ({command})"
        if candidate:
            assert alert is not None and alert.level in (WARNING, CHECK_POSSIBLE), f"{rule.id}: ranked, not in check"
    if "A100" in command or gpu == "NVIDIA A100-SXM4-80GB":
        assert warned  # the FP8 checkpoint on a pre-Ada GPU at least


def test_fp8_on_pre_ada_from_a_log_with_no_crash_evidence(catalog):
    """The family-agnostic case of issue 13: a crash that says nothing (a traceback cut above its exception
    line, in no engine module), from a launch `check` warns about."""
    log = ("$ vllm serve Qwen/Qwen3-8B-FP8 --max-model-len 32768\n"
           "Traceback (most recent call last):\n"
           '  File "/opt/app/serve.py", line 12, in main\n')
    overrides = Overrides(options={"engine_version": "0.9.2", "gpu": "NVIDIA A100-SXM4-80GB"})
    scan = scan_source(LineSource("paste", io.BytesIO(log.encode())), catalog, overrides)
    assert scan.crashes and scan.environment.get("quantization").startswith("fp8")
    rule = catalog.lookup("fp8-triton-kernel-on-pre-ada-gpu")
    assert rule_alert(rule, Scan((), (), scan.environment)).level == WARNING
    rm, finding, _ = why_of(rule, scan)
    assert finding is not None and finding.basis == "combination" and finding.confidence == "low"
    # a Hopper GPU contradicts it: neither a warning nor a candidate
    hopper = scan_source(LineSource("paste", io.BytesIO(log.encode())), catalog,
                         Overrides(options={"engine_version": "0.9.2", "gpu": "NVIDIA H100 80GB HBM3"}))
    assert rule_alert(rule, Scan((), (), hopper.environment)) is None and why_of(rule, hopper)[1] is None


def test_an_env_pattern_that_only_excludes_is_a_workaround_not_set_not_a_fact():
    """`env: {serve_command: '^(?!.*--x[ =]y)'}` holds for nearly every launch, as `not_flags` does: with only such a
    condition beside the gates, a launch is no known-bad combination (it made `check` warn of every Qwen3.5 launch
    on Hopper of a hang most of them never meet)."""
    from qwen3doctor.judge.combination import discriminating

    class R:
        raw_when = {"env": {"serve_command": "^(?!.*--gdn-prefill-backend[ =]triton)", "torch": "^2\\.9"}}

    assert not discriminating(R(), "when.env.serve_command")
    assert discriminating(R(), "when.env.torch")


def test_a_rule_of_other_models_is_never_met_by_a_qwen3_launch_and_needs_two_facts(catalog):
    """`families: [other]` is a gate a known Qwen3 model misses; for the combination it states no family (every model
    that is not Qwen3 is one), so a release window alone does not make a known-bad launch of any non-Qwen model."""
    from qwen3doctor.judge.pipeline import diagnose_text

    rule = catalog.rules["gemma-audio-variable-length-batch-list-squeeze"]
    assert tuple(rule.families) == ("other",)

    def risks(model: str, version: str) -> list[str]:
        log = (f"(APIServer pid=1) INFO 05-05 11:42:07 [api_server.py:1885] vLLM API server version {version}\n"
               f"(APIServer pid=1) INFO 05-05 11:42:07 [utils.py:233] non-default args: {{'model': '{model}'}}\n")
        report = diagnose_text(log, catalog)
        assert report.crash is None
        return [r.rule_id for r in report.risks]

    assert rule.id in risks("google/gemma-3n-E4B-it", "0.20.0")  # the model and the window: the known problem
    assert rule.id not in risks("google/gemma-3n-E4B-it", "0.28.0")  # fixed there
    assert rule.id not in risks("Qwen/Qwen3.5-35B-A3B", "0.20.0")  # a Qwen3 model never meets it
    # another non-Qwen model in the window: the family holds but is no fact of its own
    tool = catalog.rules["mistral-tool-parser-v11-streaming-not-json"]
    assert tuple(tool.families) == ("other",)
    assert tool.id not in risks("/data/models/glm-4-9b-chat", "0.5.4")
