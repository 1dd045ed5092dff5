"""`qwen3doctor suggest LOG`: a draft rule from an unexplained crash's fingerprint, its log as first test;
`rules lint` names exactly the fields a person must fill, and once filled the rule proves itself."""

from __future__ import annotations

import re

import yaml

from ci_fixtures import CLEAN, KNOWN_A, UNKNOWN, run_cli

HUMAN = {"title", "references", "cause", "fixes[0].title"}


def fill(path):
    text = path.read_text()
    text = text.replace('title: ""', 'title: "Block table row overflows by one block"', 1)
    text = text.replace("references: []", "references: [vllm#99999]", 1)
    text = text.replace('cause: ""', 'cause: "The block table row is one block too short."', 1)
    text = text.replace('  - title: ""', '  - title: "Lower --max-num-seqs"', 1)
    path.write_text(text)


def test_draft_from_an_unexplained_crash(tmp_path):
    (tmp_path / "rules").mkdir()
    (tmp_path / "examples" / "logs").mkdir(parents=True)
    r = run_cli("suggest", str(UNKNOWN), cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    rule = tmp_path / r.stdout.strip()
    assert rule == tmp_path / "rules" / "vllm" / "draft-value-error-frobnicate-block-table.yaml"
    log = tmp_path / "examples" / "logs" / "vllm" / "draft-value-error-frobnicate-block-table--unknown-crash.log"
    assert log.is_file() and "fingerprint fp1-" in r.stderr
    doc = yaml.safe_load(rule.read_text())
    assert doc["match"] == {
        "frames": ["_frobnicate_block_table"],  # the generic worker_busy_loop / execute_model are left out
        "exception": ["ValueError"],
        "message": [doc["match"]["message"][0]],
    }
    message = "could not broadcast input array from shape (40,) into shape (39,) for request chatcmpl-1"
    assert re.search(doc["match"]["message"][0], message)
    assert doc["families"] == ["qwen3"] and doc["status"] == "unconfirmed"
    assert doc["tests"] == {"match": ["../../examples/logs/vllm/draft-value-error-frobnicate-block-table--unknown-crash.log"],
                            "no_match": []}
    # the copy can be committed: redacted
    copy = log.read_text()
    assert "hf_QwErTy" not in copy and "alice" not in copy and "sk-proj" not in copy and "_frobnicate_block_table" in copy

    lint = run_cli("rules", "lint", str(rule), cwd=tmp_path)
    assert lint.returncode == 2
    fields = {m.group(1) for m in re.finditer(r"\.yaml:\d+: ([\w.\[\]]+): ", lint.stdout + lint.stderr)}
    assert fields == HUMAN, lint.stdout + lint.stderr
    fill(rule)
    lint = run_cli("rules", "lint", str(rule), cwd=tmp_path)
    assert "tests.no_match: the rule has no lookalike it must not match" in lint.stdout
    assert len(lint.stdout.strip().splitlines()) == 1
    test = run_cli("rules", "test", str(rule), cwd=tmp_path)
    assert test.returncode == 0 and "1 passed, 0 failed" in test.stdout, test.stdout
    # and with the draft as a rule pack, the crash is explained
    r = run_cli("diagnose", str(UNKNOWN), "--rules", str(tmp_path / "rules"), cwd=tmp_path)
    assert r.returncode == 1 and "draft-value-error-frobnicate-block-table" in r.stdout


def test_without_an_examples_folder_the_log_goes_beside_the_rule(tmp_path):
    r = run_cli("suggest", str(UNKNOWN), "--root", "pack", "--id", "block-table-overflow", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "pack" / "vllm" / "logs" / "block-table-overflow--unknown-crash.log").is_file()
    assert "- 'logs/block-table-overflow--unknown-crash.log'" in (tmp_path / "pack" / "vllm" / "block-table-overflow.yaml").read_text()
    again = run_cli("suggest", str(UNKNOWN), "--root", "pack", "--id", "block-table-overflow", cwd=tmp_path)
    assert again.returncode == 2 and "already exists" in again.stderr


def test_print_only_writes_nothing(tmp_path):
    r = run_cli("suggest", str(UNKNOWN), "--print", cwd=tmp_path)
    assert r.returncode == 0 and r.stdout.startswith("# Draft written by `qwen3doctor suggest`")
    assert str(UNKNOWN) in r.stdout and list(tmp_path.iterdir()) == []


def test_refuses_a_known_crash_and_a_log_without_one(tmp_path):
    r = run_cli("suggest", str(KNOWN_A), cwd=tmp_path)
    assert r.returncode == 1 and "already explained by gdn-cudagraph-illegal-memory-access" in r.stderr
    r = run_cli("suggest", str(CLEAN), cwd=tmp_path)
    assert r.returncode == 2 and "no crash found" in r.stderr and "Traceback" not in r.stderr
    assert run_cli("suggest", str(UNKNOWN), "--id", "Bad Id", cwd=tmp_path).returncode == 2
