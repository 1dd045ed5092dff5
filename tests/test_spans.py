"""Issue 12, bug 3 and "one exit-code function": crashes carry their line spans, `report` prints those lines
(no traceback reader of its own), and `check` decides its exit code by diagnose's policy."""

import ast
from pathlib import Path

import qwen3doctor
from qwen3doctor.judge.pipeline import diagnose_text
from qwen3doctor.tools.bugreport import extract_block, numbered_lines, render, spans_of

LOG = """\
INFO 05-05 12:00:00 [api_server.py:1] vLLM API server version 0.11.0
ERROR 05-05 12:00:01 [core.py:7] Traceback (most recent call last):
ERROR 05-05 12:00:01 [core.py:7]   File "/usr/lib/python3/dist-packages/vllm/v1/engine/core.py", line 88, in run
ERROR 05-05 12:00:01 [core.py:7]     self.step()
ERROR 05-05 12:00:01 [core.py:7]   File "/usr/lib/python3/dist-packages/vllm/model_executor/layers/x.py", line 12, in frob
ERROR 05-05 12:00:01 [core.py:7]     raise ValueError("bad block size")
ERROR 05-05 12:00:01 [core.py:7] ValueError: bad block size 96 for this layer
ERROR 05-05 12:00:01 [core.py:7]   (the weights were saved with block size 128)

INFO 05-05 12:00:02 [launcher.py:40] shutting down
ERROR 05-05 12:00:03 [core.py:9] RuntimeError: CUDA error: an illegal memory access was encountered
"""


def test_each_crash_records_the_first_and_last_line_of_its_block(catalog):
    report = diagnose_text(LOG, catalog)
    by_type = {c.exception_type: c for c in report.crashes}
    tb = by_type["ValueError"]
    assert (tb.line_no, tb.last_line) == (2, 8) and tb.span == (2, 8)  # header to the message's second line
    assert by_type["RuntimeError"].span == (11, 11)


def test_a_chained_traceback_spans_both_and_report_prints_the_chain(catalog, tmp_path):
    text = ("Traceback (most recent call last):\n"
            '  File "/usr/lib/python3/dist-packages/vllm/config.py", line 5, in load\n'
            "KeyError: 'rope_scaling'\n"
            "\n"
            "During handling of the above exception, another exception occurred:\n"
            "\n"
            "Traceback (most recent call last):\n"
            '  File "/usr/lib/python3/dist-packages/vllm/config.py", line 9, in load\n'
            "ValueError: the model config has no rope_scaling\n"
            "INFO: uvicorn stopped\n")
    p = tmp_path / "chain.log"
    p.write_text(text, encoding="utf-8")
    report = diagnose_text(text, catalog, source=str(p))
    later = next(c for c in report.crashes if c.exception_type == "ValueError")
    assert later.span == (7, 9) and [c.line_no for c in later.chained] == [1]
    assert (1, 9) in spans_of(report)
    md, _ = render(report, numbered_lines(str(p), spans_of(report)))
    assert "KeyError: 'rope_scaling'" in md and "ValueError: the model config has no rope_scaling" in md
    assert "uvicorn stopped" not in md


def test_report_counts_only_the_other_processes_lines_inside_the_block(catalog):
    # the old reader counted the other rank's lines printed after the traceback ended as cut from it
    text = ("(Worker_TP0 pid=5) ERROR 05-05 12:00:01 [x.py:1] Traceback (most recent call last):\n"
            '(Worker_TP0 pid=5) ERROR 05-05 12:00:01 [x.py:1]   File "/usr/lib/python3/dist-packages/vllm/x.py", line 3, in f\n'
            "(Worker_TP0 pid=5) ERROR 05-05 12:00:01 [x.py:1] TypeError: f() got an unexpected keyword argument 'k'\n"
            "(Worker_TP1 pid=6) INFO 05-05 12:00:01 [y.py:2] loading weights\n"
            "(Worker_TP1 pid=6) INFO 05-05 12:00:01 [y.py:2] loading weights done\n"
            "(Worker_TP1 pid=6) INFO 05-05 12:00:01 [y.py:2] warming up\n"
            "(Worker_TP0 pid=5) INFO 05-05 12:00:02 [x.py:9] shutting down\n")
    report = diagnose_text(text, catalog)
    lines = list(enumerate(text.splitlines(), 1))
    block = extract_block(lines, report.crash, report.crashes)
    assert block.lines[-1].endswith("TypeError: f() got an unexpected keyword argument 'k'") and len(block.lines) == 3
    assert block.cut.note() == "nothing cut"


def test_report_reads_no_traceback_itself():
    """bugreport.py takes no private name from read/crash.py and defines no traceback regex of its own."""
    src = Path(qwen3doctor.__file__).parent / "tools" / "bugreport.py"
    tree = ast.parse(src.read_text(encoding="utf-8"))
    borrowed = [a.name for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) and (node.module or "").endswith("crash")
                for a in node.names]
    assert borrowed and not [n for n in borrowed if n.startswith("_")], borrowed
    assert "Traceback" not in src.read_text(encoding="utf-8").split('"""', 2)[2]


def test_check_maps_its_verdict_through_diagnoses_exit_code_function(monkeypatch):
    from qwen3doctor.commands.check import verdict_exit_code
    from qwen3doctor.judge import summary

    assert [verdict_exit_code(v) for v in ("warning", "possible", "clean")] == [1, 3, 0]
    seen = []
    monkeypatch.setattr(summary, "exit_code", lambda *a, **k: seen.append(a) or (7, []))
    assert verdict_exit_code("warning") == 7 and seen == [(1, 1, 0)]


def test_a_crash_ends_before_a_logged_line_or_multiprocessings_process_header(catalog):
    # the report shows what the parser read, so its block boundaries must be right: a bare exception line is not
    # continued by a logging call's line, and `Process EngineCore_DP0:` heads the next traceback
    text = ("ValueError: Weight input_size_per_partition = 14784 is not divisible by min_thread_k = 128.\n"
            "INFO 02-13 14:17:57 __init__.py:190] Automatically detected platform cuda.\n"
            "(EngineCore_DP0 pid=7) ERROR 08-05 14:26:03 [core.py:700] Traceback (most recent call last):\n"
            '(EngineCore_DP0 pid=7) ERROR 08-05 14:26:03 [core.py:700]   File "/usr/lib/python3/dist-packages/vllm/x.py", line 4, in load\n'
            "(EngineCore_DP0 pid=7) ERROR 08-05 14:26:03 [core.py:700] KeyError: 'layers.0.mlp.down_proj.g_idx'\n"
            "(EngineCore_DP0 pid=7) Process EngineCore_DP0:\n"
            "(EngineCore_DP0 pid=7) Traceback (most recent call last):\n")
    report = diagnose_text(text, catalog)
    by_type = {c.exception_type: c for c in report.crashes}
    assert by_type["ValueError"].span == (1, 1) and by_type["ValueError"].message.endswith("min_thread_k = 128.")
    assert by_type["KeyError"].span == (3, 5) and by_type["KeyError"].message == "'layers.0.mlp.down_proj.g_idx'"
