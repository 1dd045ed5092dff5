"""Inputs: files, folders (recursive *.log / *.txt / *.gz), globs, GitHub Actions log archives, and what
happens to binary or unreadable files found in a scan (skipped) versus named ones (exit 2)."""

from __future__ import annotations

import gzip
import json
import zipfile

import pytest

from ci_fixtures import BINARY, KNOWN_A, build_mixed, run_cli
from qwen3doctor.errors import InputError
from qwen3doctor.read.inputs import archive_members, expand


def names(expansion):
    return [i.name for i in expansion.inputs]


def test_folder_is_searched_recursively_for_log_names_in_order(tmp_path, monkeypatch):
    build_mixed(tmp_path)
    (tmp_path / "logs" / ".git").mkdir()
    (tmp_path / "logs" / ".git" / "x.log").write_text("hidden\n")
    (tmp_path / "logs" / "weights.safetensors").write_bytes(b"\0" * 10)
    monkeypatch.chdir(tmp_path)
    ex = expand(["logs"])
    assert names(ex) == ["logs/nightly-a/server.log", "logs/nightly-b/server.log.gz", "logs/nightly-c/server.log",
                         "logs/nightly-d/worker.log", "logs/nightly-e/server.log", "logs/nightly-f/core.log"]
    assert not any(i.explicit for i in ex.inputs)


def test_globs_name_their_matches_explicitly_and_duplicates_are_read_once(tmp_path, monkeypatch):
    build_mixed(tmp_path)
    monkeypatch.chdir(tmp_path)
    ex = expand(["logs/**/server.log", "logs/nightly-a/server.log", "./logs/nightly-a/server.log"])
    assert names(ex) == ["logs/nightly-a/server.log", "logs/nightly-c/server.log", "logs/nightly-e/server.log"]
    assert all(i.explicit for i in ex.inputs)
    missing = expand(["logs/*.nothing"]).inputs[0]
    with pytest.raises(InputError, match="no file matches this pattern"):
        missing.open()


def actions_archive(path):
    """The layout of a GitHub Actions run log archive: <n>_<job>.txt per job, and <job>/<n>_<step>.txt."""
    log = KNOWN_A.read_text()
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr("0_serve.txt", log)
        zf.writestr("serve/1_Set up job.txt", "setting up\n")
        zf.writestr("serve/2_Run vllm.txt", log)
        zf.writestr("1_lint.txt", "2025-06-02T09:14:03.1234567Z ruff check .\n2025-06-02T09:14:04.1234567Z All checks passed!\n")
        zf.writestr("lint/1_Run ruff.txt", "All checks passed!\n")
        zf.writestr("artifacts/core.log", BINARY)
        zf.writestr("artifacts/server.log.gz", gzip.compress(log.encode()))
        zf.writestr("notes.md", "not a log\n")
    return path


def test_actions_archive_reads_each_job_log_once(tmp_path):
    archive = actions_archive(tmp_path / "logs_123.zip")
    assert archive_members(archive) == ["0_serve.txt", "1_lint.txt", "artifacts/core.log", "artifacts/server.log.gz"]
    r = run_cli("diagnose", str(archive), "--format", "json")
    assert r.returncode == 1, r.stderr
    assert "warning: skipped: " + str(archive) + "!artifacts/core.log: looks like binary data" in r.stderr
    import json

    docs = [json.loads(line) for line in r.stdout.splitlines()]
    assert [(d["source"].split("!")[1], d["verdict"]) for d in docs] == [
        ("0_serve.txt", "finding"), ("1_lint.txt", "no-crash"), ("artifacts/server.log.gz", "finding")]


def test_a_broken_archive_named_explicitly_exits_2(tmp_path):
    bad = tmp_path / "logs.zip"
    bad.write_bytes(b"PK\x03\x04 this is not a zip")
    r = run_cli("diagnose", str(bad))
    assert r.returncode == 2 and "not a readable zip archive" in r.stderr and "Traceback" not in r.stderr


def test_binary_in_a_scan_is_skipped_but_named_explicitly_exits_2(tmp_path):
    build_mixed(tmp_path)
    r = run_cli("diagnose", "logs/nightly-e", "logs/nightly-f", cwd=tmp_path)
    assert r.returncode == 0 and "warning: skipped: logs/nightly-f/core.log" in r.stderr
    r = run_cli("diagnose", "logs/nightly-e/server.log", "logs/nightly-f/core.log", cwd=tmp_path)
    assert r.returncode == 2 and "logs/nightly-f/core.log: looks like binary data" in r.stderr
    r = run_cli("diagnose", "logs/nightly-e/server.log", "logs/nightly-f/core.log", "--fail-on", "never", cwd=tmp_path)
    assert r.returncode == 2  # an unreadable named input is the tool failing, whatever the policy


def test_a_folder_without_logs_is_an_error_not_a_pass(tmp_path):
    (tmp_path / "empty").mkdir()
    r = run_cli("diagnose", str(tmp_path / "empty"))
    assert r.returncode == 2 and "no *.log, *.txt, *.gz or *.zip files in this folder" in r.stderr


def test_unreadable_file_in_a_scan_is_skipped(tmp_path):
    import os

    if os.geteuid() == 0:
        pytest.skip("root reads any file")
    build_mixed(tmp_path)
    locked = tmp_path / "logs" / "nightly-e" / "server.log"
    locked.chmod(0)
    r = run_cli("diagnose", "logs", cwd=tmp_path)
    assert "warning: skipped: logs/nightly-e/server.log: permission denied" in r.stderr and r.returncode == 1


def test_a_copytruncated_log_in_a_folder_scan_is_diagnosed_with_one_warning(tmp_path):
    """copytruncate leaves the file's old length as NULs before what the server writes next: log damage, not binary."""
    (tmp_path / "logs").mkdir()
    (tmp_path / "logs" / "server.log").write_bytes(b"\0" * 3_000_000 + KNOWN_A.read_bytes())
    (tmp_path / "logs" / "core.log").write_bytes(BINARY)  # genuinely binary: still skipped
    r = run_cli("diagnose", "logs", "--format", "json", cwd=tmp_path)
    assert r.returncode == 1, r.stderr
    docs = [json.loads(line) for line in r.stdout.splitlines()]
    assert [(d["source"], d["verdict"]) for d in docs if d.get("verdict") != "skipped"] == [("logs/server.log", "finding")]
    assert [w for d in docs for w in d.get("warnings", []) if "NUL" in w] == [
        "logs/server.log: NUL bytes removed (log damage, such as copytruncate rotation leaves); read the text around them"]
    assert "skipped: logs/core.log: looks like binary data" in r.stderr
    single = run_cli("diagnose", "logs/server.log", "--format", "plain", cwd=tmp_path)
    assert single.returncode == 1 and "gdn-cudagraph-illegal-memory-access" in single.stdout
    assert single.stdout.count("NUL bytes removed") == 1


def test_nul_runs_inside_a_log_are_removed(tmp_path):
    text = KNOWN_A.read_bytes()
    cut = text.index(b"Traceback")
    (tmp_path / "a.log").write_bytes(b"INFO start\n" + b"\0" * 500 + text[:cut] + b"\0" * 70_000 + text[cut:])
    r = run_cli("diagnose", "a.log", "--format", "plain", cwd=tmp_path)
    assert r.returncode == 1 and "gdn-cudagraph-illegal-memory-access" in r.stdout and "\0" not in r.stdout


def test_a_gz_missing_its_trailer_gives_what_decompresses(tmp_path):
    data = gzip.compress(KNOWN_A.read_bytes())
    (tmp_path / "no-trailer.log.gz").write_bytes(data[:-8])
    r = run_cli("diagnose", "no-trailer.log.gz", "--format", "plain", cwd=tmp_path)
    assert r.returncode == 1 and "gdn-cudagraph-illegal-memory-access" in r.stdout
    assert r.stdout.count("no-trailer.log.gz: the gzip data ends early") == 1
    (tmp_path / "garbage.gz").write_bytes(b"\x1f\x8b\x08\x00garbage")
    r = run_cli("diagnose", "garbage.gz", cwd=tmp_path)
    assert r.returncode == 2 and "garbage.gz: cannot read" in r.stderr and "Traceback" not in r.stderr


def test_a_zip_found_in_a_folder_is_read_and_step_files_are_skipped_with_a_warning(tmp_path):
    (tmp_path / "logs").mkdir()
    log = KNOWN_A.read_text()
    with zipfile.ZipFile(tmp_path / "logs" / "run-42.zip", "w") as zf:  # the layout of a matrix run's archive
        zf.writestr("0_serve (tp2).txt", log)
        zf.writestr("1_serve (tp4).txt", "2025-06-02T09:14:03.1234567Z all good\n")
        zf.writestr("serve/1_Set up job.txt", "Current runner version: '2.323.0'\n")
        zf.writestr("serve/2_Run vllm.txt", log)
        zf.writestr("serve/3_Complete job.txt", "Cleaning up orphan processes\n")
        zf.writestr("serve/system.txt", "Requested labels: gpu\n")
        zf.writestr("orphan/1_Set up job.txt", "Current runner version: '2.323.0'\n")
        zf.writestr("orphan/2_Run vllm.txt", log)  # a job folder without its job log: read step by step
    (tmp_path / "logs" / "broken.zip").write_bytes(b"PK\x03\x04 not a zip")
    r = run_cli("diagnose", "logs", "--format", "json", cwd=tmp_path)
    assert r.returncode == 1, r.stderr
    docs = [json.loads(line) for line in r.stdout.splitlines()]
    read = [(d["source"], d["verdict"]) for d in docs if d.get("verdict") != "skipped"]
    assert read == [("logs/run-42.zip!0_serve (tp2).txt", "finding"), ("logs/run-42.zip!1_serve (tp4).txt", "no-crash"),
                    ("logs/run-42.zip!orphan/2_Run vllm.txt", "finding")]
    assert "logs/run-42.zip: 5 step file(s) of GitHub Actions jobs skipped" in r.stderr
    assert "logs/broken.zip: not a readable zip archive" in r.stderr  # found in a folder: a warning, not exit 2


def test_a_long_nul_run_deep_inside_a_log_is_removed_with_one_warning(tmp_path):
    """Past the sniffed head (where the reader cannot see it coming), a 3 MiB run of NULs glued to the traceback's
    first line: removed by the scan, the traceback read whole, one warning (also from a 70 MiB file that is
    scanned in two parts)."""
    text = KNOWN_A.read_bytes()
    cut = text.index(b"(Worker_TP4 pid=1187) ERROR 02-21 09:14:07 [multiproc_executor.py:863] WorkerProc hit")
    traffic = b"(APIServer pid=1) INFO:     10.12.0.7:52214 - \"POST /v1/chat/completions HTTP/1.1\" 200 OK\n"
    for name, filler in (("small.log", 200), ("large.log", 900_000)):
        (tmp_path / name).write_bytes(text[:cut] + traffic * filler + b"\0" * (3 << 20) + text[cut:] + b"\0" * 5000)
        r = run_cli("diagnose", name, "--format", "json", cwd=tmp_path)
        doc = json.loads(r.stdout)
        assert r.returncode == 1 and doc["findings"][0]["rule_id"] == "gdn-cudagraph-illegal-memory-access", name
        assert [w for w in doc["warnings"] if "NUL" in w] == [f"{name}: NUL bytes removed (log damage, such as "
                                                             "copytruncate rotation leaves); read the text around them"]
