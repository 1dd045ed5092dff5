import gzip

import pytest

from qwen3doctor.errors import InputError
from qwen3doctor.read.reader import MAX_LINE, clean, open_source


def read_all(path, **kw):
    src = open_source(str(path), **kw)
    try:
        return list(src), src
    finally:
        src.close()


def test_ansi_colour_codes_and_their_pasted_forms_are_removed():
    assert clean("\x1b[1;36m(EngineCore_DP0 pid=43065)\x1b[0;0m ERROR x") == "(EngineCore_DP0 pid=43065) ERROR x"
    assert clean("^[[1;36m(EngineCore_DP0 pid=43065)^[[0;0m ERROR x^M") == "(EngineCore_DP0 pid=43065) ERROR x"
    assert clean("\ufffd[0;36m(APIServer pid=1)\ufffd[0m INFO y") == "(APIServer pid=1) INFO y"
    # rsyslog writes the ESC byte as `#033` (/var/log/syslog, `journalctl` exports)
    assert clean("#033[1;36m(VllmWorker rank=2 pid=140)#033[0;0m ERROR z") == "(VllmWorker rank=2 pid=140) ERROR z"


def test_crlf_and_cr_only_line_ends(tmp_path):
    p = tmp_path / "crlf.log"
    p.write_bytes(b"first line\r\nsecond line\r\nprogress 10%\rprogress 100%\rdone\n")
    lines, _ = read_all(p)
    assert lines == ["first line", "second line", "progress 10%", "progress 100%", "done"]


def test_gzip_is_read_transparently(tmp_path):
    p = tmp_path / "server.log.gz"
    p.write_bytes(gzip.compress(b"INFO start\nRuntimeError: boom\n"))
    lines, _ = read_all(p)
    assert lines == ["INFO start", "RuntimeError: boom"]


def test_invalid_utf8_is_replaced_not_an_error(tmp_path):
    p = tmp_path / "bad.log"
    p.write_bytes(b"ok line\nbad \xff\xfe byte\n")
    lines, _ = read_all(p)
    assert lines[1] == "bad \ufffd\ufffd byte"


def test_binary_file_is_refused_unless_forced(tmp_path):
    p = tmp_path / "model.bin"
    p.write_bytes(b"\x00\x01\x02" * 1000)
    with pytest.raises(InputError, match="looks like binary data"):
        open_source(str(p))
    lines, _ = read_all(p, force=True)
    assert lines


def test_missing_file_and_directory_are_one_line_errors(tmp_path):
    with pytest.raises(InputError, match="no such file"):
        open_source(str(tmp_path / "nope.log"))
    with pytest.raises(InputError, match="is a directory"):
        open_source(str(tmp_path))


def test_overlong_line_is_cut_with_a_warning(tmp_path):
    p = tmp_path / "long.log"
    with open(p, "wb") as fh:
        fh.write(b"before\n")
        fh.write(b"x" * (MAX_LINE * 3 + 17) + b"\n")
        fh.write(b"after\n")
    lines, src = read_all(p)
    assert lines[0] == "before" and lines[-1] == "after"
    assert len(lines[1]) == MAX_LINE
    assert any("longer than" in w for w in src.warnings)
