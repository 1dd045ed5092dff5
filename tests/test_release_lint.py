"""`rules lint` against the release index, fixes fitted to the user's version, and the index-only diagnoses."""
from __future__ import annotations

from pathlib import Path

import pytest

from qwen3doctor.catalog import load_catalog
from qwen3doctor.diagnose import Overrides, diagnose_text
from qwen3doctor.knowledge import releases as rel
from qwen3doctor.ruletools import lint

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
             "  - title: MTP\n    command: vllm serve {model} --speculative-config '{\"method\": \"mtp\"}'\n    cost: none\n")
    problems = lint(_catalog(tmp_path, window=">=0.10.0,<0.12.0", fixes=fixes, frame="forward"))
    assert any("VLLM_DEEP_GEMM_WARMUP" in p for p in problems)


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


def _diagnose(name, catalog, version=None):
    text = (LOGS / name).read_text()
    opts = {"engine_version": version} if version else {}
    return diagnose_text(text, catalog, overrides=Overrides(options=opts))
