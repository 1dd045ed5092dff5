import json
import subprocess
import sys

from conftest import DATA

from qwen3doctor.tools.evaluate import canonical_ref, run_eval


def test_eval_scores_a_small_labelled_set(catalog):
    result = run_eval(DATA / "cases", catalog)
    by_case = {r.case: r for r in result.results}
    assert by_case["gdn-positive"].rank == 1
    assert not by_case["vllm-neg-clean"].positive and by_case["vllm-neg-clean"].top is None
    # a bare IMA line gives candidates at low confidence only, never a confident claim
    bare = by_case["gdn-bare-ima"]
    assert bare.top_confidence in (None, "low")
    assert not by_case["sglang-neg-deepseek"].false_claim
    fig = result.figures()
    assert fig["positive_cases"] == 2 and fig["negative_cases"] == 2 and fig["top1"] >= 1
    assert fig["false_claims"] == 0


def test_eval_command_prints_figures_and_json():
    out = subprocess.run([sys.executable, "-m", "qwen3doctor.cli", "eval", str(DATA / "cases"), "--format", "json"],
                         capture_output=True, text=True, timeout=120)
    doc = json.loads(out.stdout)
    assert doc["figures"]["cases"] == 4 and "top1_rate" in doc["figures"]
    text = subprocess.run([sys.executable, "-m", "qwen3doctor.cli", "eval", str(DATA / "cases")],
                          capture_output=True, text=True, timeout=120).stdout
    assert "top-1:" in text and "false claims: 0" in text


def test_reference_forms_compare_equal():
    assert canonical_ref("sglang-omni#214") == canonical_ref("sgl-project/sglang-omni#214")
    assert canonical_ref("vllm#1") == "vllm-project/vllm#1"
