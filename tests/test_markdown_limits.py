"""The markdown report within GitHub's limits: the step summary's 1 MiB counts UTF-8 bytes (CJK text is
three bytes a character), and the mermaid pie keeps the largest groups and one "other" slice."""

from __future__ import annotations

import re

import pytest

from qwen3doctor.judge.batch import Options, run
from qwen3doctor.read.inputs import expand
from qwen3doctor.render import markdown

CJK = "模型权重加载失败：第{i}号分片的张量形状与配置不一致，请检查检查点是否完整并重新下载。"


def _log(i: int, repeat: int = 1) -> str:
    return (
        "INFO 05-05 12:00:00 [api_server.py:1] Starting vLLM API server\n"
        "Traceback (most recent call last):\n"
        f'  File "/srv/app/loader_{i}.py", line 12, in load_shard_{i}\n'
        "    check(shard)\n"
        f'  File "/srv/app/loader_{i}.py", line 40, in check_{i}\n'
        "    raise RuntimeError(msg)\n"
        f"RuntimeError: {CJK.format(i=i) * repeat}\n"
    )


def _summary(folder, count: int, repeat: int = 1, sizes: list[int] | None = None):
    folder.mkdir(exist_ok=True)
    for i in range(count):
        for k in range(sizes[i] if sizes else 1):
            (folder / f"job-{i:03d}-{k}.log").write_text(_log(i, repeat), encoding="utf-8")
    from ci_fixtures import FIXED_RULES

    from qwen3doctor.knowledge.catalog import load_catalog

    return run(expand([str(folder)]).inputs, load_catalog([FIXED_RULES]), Options(jobs=1, redact=True))


@pytest.fixture(scope="module")
def cjk_summary(tmp_path_factory):
    return _summary(tmp_path_factory.mktemp("cjk") / "logs", 60, repeat=4)


@pytest.mark.parametrize("limit", [60_000, 120_000])
def test_the_limit_counts_utf8_bytes(cjk_summary, limit):
    text = markdown.render(cjk_summary, limit=limit)
    assert len(text.encode("utf-8")) > 1.3 * len(text)  # the logs' text really is CJK
    assert len(text.encode("utf-8")) <= limit
    assert "more log(s) are left out" in text and text.rstrip().endswith("</sub>")


def test_the_step_summary_limit_is_one_mebibyte_of_bytes():
    assert markdown.STEP_SUMMARY_LIMIT <= 1 << 20


def test_a_summary_already_holding_text_gets_only_the_room_left(cjk_summary, tmp_path):
    path = tmp_path / "step_summary.md"
    path.write_bytes(b"x" * (markdown.STEP_SUMMARY_LIMIT - 30_000))
    room = markdown.step_summary_room(str(path))
    text = markdown.render(cjk_summary, limit=room)
    assert path.stat().st_size + len(text.encode("utf-8")) <= markdown.STEP_SUMMARY_LIMIT


def test_pie_keeps_the_largest_groups_and_one_other_slice(tmp_path):
    sizes = [12, 9, 7] + [1] * 40  # three big groups, forty single-log ones
    summary = _summary(tmp_path / "logs", len(sizes), sizes=sizes)
    chart = markdown.pie_chart(summary)
    slices = re.findall(r'^\s+"(.*)" : (\d+)$', chart, re.M)
    assert len(slices) == markdown.MAX_PIE_SLICES
    counts = [int(n) for _, n in slices]
    assert counts[:3] == [12, 9, 7] and sum(counts) == sum(sizes)
    assert slices[-1][0].startswith(f"other ({len(sizes) - markdown.MAX_PIE_SLICES + 1} groups")


def test_a_pie_with_few_groups_has_no_other_slice(tmp_path):
    summary = _summary(tmp_path / "logs", 3, sizes=[2, 1, 1])
    chart = markdown.pie_chart(summary)
    assert "other" not in chart and len(re.findall(r" : \d+$", chart, re.M)) == 3


def test_a_head_over_the_limit_is_cut_on_a_character_boundary(cjk_summary):
    text = markdown.render(cjk_summary, limit=20_000)
    assert len(text.encode("utf-8")) <= 20_000 and "*(cut)*" in text and "\ufffd" not in text


def test_evidence_in_backticks_becomes_inline_code_and_the_rest_is_escaped():
    text = "frame `fi_chunk_gated_delta_rule` (qwen3_next.py:138) and `Running: \\d{2,} reqs`, not `a`b`"
    out = markdown.prose(text)
    assert out.startswith("frame `fi_chunk_gated_delta_rule` (qwen3\\_next.py:138) and `Running: \\d{2,} reqs`")
    assert "\\`" not in out.split("not")[0]
    assert markdown.prose("a lone ` backtick_here") == "a lone \\` backtick\\_here"


def test_the_cli_keeps_the_step_summary_file_under_the_limit(tmp_path):
    from ci_fixtures import run_fixed

    logs = tmp_path / "logs"
    logs.mkdir()
    for i in range(12):
        (logs / f"rank-{i}.log").write_text(_log(i, repeat=20), encoding="utf-8")
    summary = tmp_path / "step-summary.md"
    summary.write_bytes(b"earlier step\n" + b"x" * (markdown.STEP_SUMMARY_LIMIT - 8_000))
    r = run_fixed("diagnose", "logs", "--format", "github", cwd=tmp_path, env={"GITHUB_STEP_SUMMARY": str(summary)})
    assert r.returncode == 3, r.stderr
    size = summary.stat().st_size
    assert markdown.STEP_SUMMARY_LIMIT - 8_000 < size <= markdown.STEP_SUMMARY_LIMIT
    added = summary.read_text(encoding="utf-8").split("x" * 1000)[-1].lstrip("x")
    assert added.startswith("## qwen3doctor: 12 logs") and ("more log(s) are left out" in added or "*(cut)*" in added)
