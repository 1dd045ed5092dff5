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
    assert canonical_ref("verl#1368") == canonical_ref("verl-project/verl#1368") == "verl-project/verl#1368"
    assert canonical_ref("llm-compressor#2568") == "vllm-project/llm-compressor#2568"


def test_eval_splits_covered_causes_and_says_why_each_case_missed(catalog):
    result = run_eval(DATA / "eval-misses", catalog)
    by_case = {r.case: r for r in result.results}
    # a bundled rule cites vllm#34948; nothing cites the made-up issues
    assert by_case["vllm-gdn-hit"].covered and by_case["vllm-gdn-bare"].covered
    assert not by_case["vllm-quiet-start"].covered and not by_case["sglang-unknown-assert"].covered
    assert by_case["vllm-gdn-hit"].rank == 1 and by_case["vllm-gdn-hit"].miss is None
    assert by_case["vllm-quiet-start"].miss == "no crash found"
    assert by_case["sglang-unknown-assert"].miss == "unexplained crash"
    bare = by_case["vllm-gdn-bare"]
    assert bare.rank != 1 and bare.miss == "another rule first"
    # a launch pasted without a crash: scored on its risks
    assert by_case["vllm-launch-only"].rank == 1 and by_case["vllm-launch-only"].covered
    fig = result.figures()
    assert fig["covered"] == {"cases": 3, "top1": 2, "top3": 2 if bare.rank is None or bare.rank > 3 else 3}
    assert fig["uncovered"] == {"cases": 2, "top1": 0, "top3": 0}
    assert fig["misses"]["no crash found"] == 1 and fig["misses"]["unexplained crash"] == 1
    text = subprocess.run([sys.executable, "-m", "qwen3doctor.cli", "eval", str(DATA / "eval-misses")],
                          capture_output=True, text=True, timeout=120).stdout
    assert "covered (a bundled rule cites the cause): 3 cases, top-1 2 (66.7%)" in text
    assert "uncovered (no bundled rule cites it): 2 cases, top-1 0 (0.0%), top-3 0 (0.0%)" in text
    assert "sglang-unknown-assert" in text and "unexplained crash" in text


def test_eval_perturb_scores_each_paste_form_against_the_log_as_collected(catalog):
    from qwen3doctor.tools.evaluate import render_perturbed, run_perturbed

    rows = run_perturbed(DATA / "cases", catalog, ["indented", "journald", "last-15-lines"])
    assert [r[0] for r in rows] == ["as-collected", "indented", "journald", "last-15-lines"]
    base = rows[0][2].figures()
    for name, what, result, lost in rows[1:3]:
        assert result.figures()["top3"] == base["top3"] and lost == [] and result.figures()["false_claims"] == 0, name
    text = render_perturbed(rows)
    assert text.splitlines()[0].split()[:4] == ["paste", "top-1", "top-3", "false"] and "journald: read with journalctl" in text


def test_eval_perturb_from_the_command_line_and_an_unknown_form():
    run = lambda *a: subprocess.run([sys.executable, "-m", "qwen3doctor.cli", "eval", str(DATA / "cases"), *a],
                                    capture_output=True, text=True, timeout=300)
    out = run("--transform", "quoted", "--format", "json")
    doc = json.loads(out.stdout)
    assert out.returncode == 0 and [d["paste"] for d in doc] == ["as-collected", "quoted"] and doc[1]["lost"] == []
    bad = run("--transform", "telegram")
    assert bad.returncode == 2 and "unknown transformation 'telegram'" in bad.stderr and "Traceback" not in bad.stderr
    assert len(bad.stderr.strip().splitlines()) == 1
