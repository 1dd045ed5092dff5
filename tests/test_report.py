"""`qwen3doctor report LOG`: a Markdown bug report in the vLLM / SGLang issue templates, the crash trimmed to
what matters, everything redacted."""

import subprocess
import sys

from conftest import EXAMPLES
from qwen3doctor.judge.pipeline import diagnose_text
from qwen3doctor.tools.bugreport import extract_block, numbered_lines, render, shorten_paths

GDN = EXAMPLES / "vllm" / "qwen3.5-gdn-prefill-ima-tp8.log"
SGLANG = EXAMPLES / "sglang" / "fp8-block-quant-tp-indivisible--qwen3-235b-fp8-tp8-ranks.log"


def report_of(path, catalog, template=None):
    report = diagnose_text(path.read_text(errors="replace"), catalog, str(path))
    text, redactor = render(report, numbered_lines(str(path)), template)
    return report, text, redactor


def sections(text):
    return [line for line in text.splitlines() if line.startswith("### ")]


def test_vllm_template_sections_and_content(catalog):
    report, text, _ = report_of(GDN, catalog)
    assert sections(text) == ["### Your current environment", "### 🐛 Describe the bug", "### Before submitting a new issue..."]
    assert text.startswith("<!-- Suggested title: [Bug]: Qwen3.5-397B-A17B-FP8: CUDA illegal memory access in fi_chunk_gated_delta_rule")
    assert "<summary>" in text and "| Version | `0.16.0rc2.dev294+g6a7b85d94` |" in text and "| Tensor parallel | `8` |" in text
    assert "```bash\nvllm serve Qwen/Qwen3.5-397B-A17B-FP8 \\\n  --tensor-parallel-size 8" in text
    assert "[vllm#34948](https://github.com/vllm-project/vllm/issues/34948)" in text and "--enforce-eager" in text


def test_the_first_failing_process_traceback_is_whole_and_clean(catalog):
    _, text, _ = report_of(GDN, catalog)
    block = text.split("Error from process `Worker_TP4 pid=1187` — the first failing process", 1)[1].split("```", 2)[1]
    lines = block.strip("text\n").splitlines()
    assert lines[0] == "Traceback (most recent call last):"
    assert lines[-1] == "torch.AcceleratorError: CUDA error: an illegal memory access was encountered"
    assert any("in fi_chunk_gated_delta_rule" in line for line in lines)
    assert not any(set(line.strip()) <= set("^~") and line.strip() for line in lines)  # caret lines cut
    assert not any("Worker_TP" in line or "CUDA kernel errors might be" in line for line in lines)  # no interleaving, no advice
    # the 7 lines other ranks printed inside the traceback (lines 23-87), not those printed after it ended
    assert "cut: 7 lines of other processes, 16 caret lines, 4 CUDA advice lines" in text
    assert 'File ".../vllm/v1/worker/gpu_model_runner.py"' in block  # installed paths cut to the package
    assert "follow-on error(s) from other ranks" in text


def test_sglang_template(catalog):
    _, text, _ = report_of(SGLANG, catalog)
    assert sections(text) == ["### Checklist", "### Describe the bug", "### Reproduction", "### Environment"]
    assert "- [ ] I searched related issues but found no solution. (qwen3doctor points at: [sglang#10852]" in text
    assert "```bash\npython3 -m sglang.launch_server \\\n  --model-path Qwen/Qwen3-235B-A22B-Instruct-2507-FP8" in text
    assert "Error from process `TP3`" in text and "The same error was raised by 1 other process(es) (TP6)" in text
    assert "python3 -m sglang.check_env" in text
    _, forced, _ = report_of(SGLANG, catalog, template="vllm")
    assert "### Your current environment" in forced


LEAKY = """\
$ HF_TOKEN=hf_abcdefghijklmnopqrstuvwxyzABCDEFGH vllm serve /home/alice/models/Qwen3-8B --api-key sk-proj-abcdefghijklmnopqrstuvwx123 --host node17.corp.example.com --tensor-parallel-size 2
(EngineCore_DP0 pid=312) INFO 05-05 12:36:50 [core.py:90] Initializing a V1 LLM engine (v0.11.0) with config: model='/home/alice/models/Qwen3-8B', tensor_parallel_size=2
(EngineCore_DP0 pid=312) ERROR 05-05 12:36:59 [core.py:1138] EngineCore failed to start.
(EngineCore_DP0 pid=312) ERROR 05-05 12:36:59 [core.py:1138] Traceback (most recent call last):
(EngineCore_DP0 pid=312) ERROR 05-05 12:36:59 [core.py:1138]   File "/home/alice/venv/lib/python3.12/site-packages/vllm/v1/engine/core.py", line 1129, in run_engine_core
(EngineCore_DP0 pid=312) ERROR 05-05 12:36:59 [core.py:1138]     engine_core = EngineCoreProc(*args, **kwargs)
(EngineCore_DP0 pid=312) ERROR 05-05 12:36:59 [core.py:1138]   File "/mnt/shared/team-x/checkouts/vllm/vllm/distributed/parallel_state.py", line 1072, in init_distributed_environment
(EngineCore_DP0 pid=312) ERROR 05-05 12:36:59 [core.py:1138]     torch.distributed.init_process_group(
(EngineCore_DP0 pid=312) ERROR 05-05 12:36:59 [core.py:1138] RuntimeError: connect() timed out to 10.20.30.40:29500 from node17.corp.example.com (user alice@example.org)
"""


def test_everything_is_redacted(catalog, tmp_path):
    log = tmp_path / "leaky.log"
    log.write_text(LEAKY)
    _, text, redactor = report_of(log, catalog)
    for secret in ("hf_abcdefghij", "sk-proj-abcd", "alice", "node17", "corp.example.com", "10.20.30.40", "team-x"):
        assert secret not in text, secret
    assert "<path>/Qwen3-8B" in text  # the model directory keeps its name, not its owner
    assert '".../vllm/v1/engine/core.py"' in text and '".../vllm/distributed/parallel_state.py"' in text
    assert "RuntimeError: connect() timed out" in text
    assert "Redacted before sharing:" in text and redactor.counts


def test_chained_exceptions_stay_together_and_long_tracebacks_are_cut(catalog, tmp_path):
    frames = "".join(f'  File "/usr/lib/python3.12/site-packages/vllm/m{i}.py", line {i}, in f{i}\n    f{i + 1}()\n' for i in range(60))
    log = tmp_path / "chain.log"
    log.write_text(
        "Traceback (most recent call last):\n" + frames + "KeyError: 'model.layers.0.mlp.experts.w2_weight'\n\n"
        "During handling of the above exception, another exception occurred:\n\n"
        'Traceback (most recent call last):\n  File "/usr/lib/python3.12/site-packages/vllm/loader.py", line 9, in load\n'
        "    raise ValueError('bad checkpoint')\nValueError: bad checkpoint\n\nINFO 05-05 12:00:00 [api.py:1] Shutting down\n"
    )
    _, text, _ = report_of(log, catalog)
    assert "KeyError: 'model.layers.0.mlp.experts.w2_weight'" in text and "During handling of the above exception" in text
    assert "ValueError: bad checkpoint" in text and "Shutting down" not in text
    assert "frames cut ..." in text and "33 middle frames" in text


def test_block_of_a_standalone_crash_line(catalog):
    text = "(Worker_TP0 pid=5) ERROR 05-05 12:00:00 [x.py:1] CUDA error: an illegal memory access was encountered\n" \
           "(Worker_TP0 pid=5) ERROR 05-05 12:00:00 [x.py:1] CUDA kernel errors might be asynchronously reported at some other API call\n" \
           "(Worker_TP0 pid=5) INFO 05-05 12:00:01 [x.py:2] shutting down\n"
    report = diagnose_text(text, catalog)
    lines = [(i, line) for i, line in enumerate(text.splitlines(), 1)]
    block = extract_block(lines, report.crash)
    assert block.lines == ["CUDA error: an illegal memory access was encountered"] and block.cut.boilerplate == 1


def test_shorten_paths():
    assert shorten_paths('File "/opt/conda/lib/python3.11/site-packages/sglang/srt/x.py"') == 'File ".../sglang/srt/x.py"'
    assert shorten_paths("/usr/lib/python3.12/threading.py") == "/usr/lib/python3.12/threading.py"
    assert shorten_paths("--model /data/teams/nlp/ckpt/Qwen3.5-27B-FP8") == "--model <path>/Qwen3.5-27B-FP8"
    assert shorten_paths("POST /v1/completions") == "POST /v1/completions"
    assert shorten_paths("https://github.com/vllm-project/vllm/issues/1") == "https://github.com/vllm-project/vllm/issues/1"


def run(*args, stdin=None):
    return subprocess.run([sys.executable, "-m", "qwen3doctor.cli", *args], input=stdin, capture_output=True, text=True,
                          timeout=120, env={"NO_COLOR": "1", "PATH": "/usr/bin:/bin"})


def test_cli(tmp_path):
    out = tmp_path / "bug.md"
    r = run("report", str(GDN), "--output", str(out))
    assert r.returncode == 1 and r.stdout == "" and "bug report written (vllm issue template)" in r.stderr
    assert out.read_text().startswith("<!-- Suggested title: [Bug]:")
    r = run("report", "-", stdin=GDN.read_text(errors="replace"))
    assert r.returncode == 1 and "### 🐛 Describe the bug" in r.stdout
    clean = tmp_path / "clean.log"
    clean.write_text("(APIServer pid=1) INFO 05-05 12:00:00 [api_server.py:1] Starting vLLM API server on http://0.0.0.0:8000\n")
    r = run("report", str(clean))
    assert r.returncode == 0 and "No crash was found" in r.stdout or "no crash was found" in r.stdout
    r = run("report", str(GDN), "--template", "tgi")
    assert r.returncode == 2 and "--template must be vllm or sglang" in r.stderr
    r = run("report", str(tmp_path / "missing.log"))
    assert r.returncode == 2 and "no such file" in r.stderr and "Traceback" not in r.stderr


def test_a_launch_only_report_lists_the_launch_risks_and_counts_what_it_redacted(catalog):
    report, text, _ = report_of(EXAMPLES / "vllm" / "launch-only--qwen3.5-on-vllm-0.10.0-gpustack.log", catalog)
    assert report.findings == () and report.risks
    diagnosis = text.split("#### Diagnosis (qwen3doctor)")[1]
    assert "Known problems this log points to" in diagnosis and "[vllm#22231](" in diagnosis
    assert '`pip install -U "vllm>=0.17.0"`' in diagnosis
    # only paths were redacted: the summary lists them without a stray separator
    assert "Redacted before sharing: 3 private path(s) —" in text
