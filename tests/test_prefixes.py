import pytest

from qwen3doctor.read.prefixes import peel

CASES = [
    ("(EngineCore_DP0 pid=312) ERROR 05-05 12:36:59 [core.py:1138] Traceback (most recent call last):",
     "EngineCore_DP0 pid=312", "Traceback (most recent call last):"),
    ("(VllmWorker rank=0 pid=106) ERROR 04-29 01:10:12 [multiproc_executor.py:470] WorkerProc hit an exception.",
     "VllmWorker rank=0 pid=106", "WorkerProc hit an exception."),
    ("(Worker_TP4) ERROR [multiproc_executor.py:863] WorkerProc hit an exception.", "Worker_TP4", "WorkerProc hit an exception."),
    ("(Worker_DP0_TP0_EP0 pid=1539019) ERROR 10-27 20:05:10 [multiproc_executor.py:699] torch.AcceleratorError: x",
     "Worker_DP0_TP0_EP0 pid=1539019", "torch.AcceleratorError: x"),
    ("(APIServer pid=1) INFO 05-05 12:36:59 [api_server.py:1851] vLLM API server version 0.9.1",
     "APIServer pid=1", "vLLM API server version 0.9.1"),
    ("[rank3]:[W1027 20:05:15.052888213 TCPStore.cpp:125] [c10d] recvValue failed", "rank3", "[c10d] recvValue failed"),
    ("[2025-05-01 10:00:00 TP0] Load weight end.", "TP0", "Load weight end."),
    ("[2025-05-01 10:00:00 DP0 TP3 EP3] Scheduler hit an exception: Traceback (most recent call last):",
     "DP0 TP3 EP3", "Scheduler hit an exception: Traceback (most recent call last):"),
    ("[2026-04-23 07:32:01] INFO:     Started server process [1579366]", None, "INFO:     Started server process [1579366]"),
    ("(VllmWorker TP3 pid=2211) ERROR 08-01 10:00:00 [multiproc_executor.py:546] Traceback (most recent call last):",
     "VllmWorker TP3 pid=2211", "Traceback (most recent call last):"),
    ("qwen3-1  | (VllmWorker rank=1 pid=106) ERROR 04-29 01:10:12 [multiproc_executor.py:470]   File \"x.py\", line 3, in f",
     "VllmWorker rank=1 pid=106", '  File "x.py", line 3, in f'),
    ("[llm]        | (APIServer pid=1) Traceback (most recent call last):", "APIServer pid=1", "Traceback (most recent call last):"),
    ("2025-05-01T10:00:00.123456789Z [2025-05-01 10:00:00 TP1] Decode batch", "TP1", "Decode batch"),
    ("2024-11-02T08:15:22.1234567Z ERROR 11-02 08:15:22 [core.py:1138] EngineCore failed to start.", None, "EngineCore failed to start."),
    ("(EngineCore_DP0 pid=2577918) (RayWorkerWrapper pid=2578259, ip=192.168.31.21) ERROR 02-26 07:57:27 [worker_base.py:340] boom",
     "RayWorkerWrapper pid=2578259", "boom"),
    # a Ray actor a framework named with a hyphen (ROLL's `ActorInfer-0`); a hyphenated word in parentheses is no tag
    ("(ActorInfer-0 pid=4242) RuntimeError: pidfd_open:Operation not permitted", "ActorInfer-0 pid=4242",
     "RuntimeError: pidfd_open:Operation not permitted"),
    ("(see-also) the notes", None, "(see-also) the notes"),
    # a Ray task's output carries no actor name, only its pid (and ip): the record after it is a line of its own
    ("(pid=718453) INFO 02-03 16:25:25 __init__.py:183] Automatically detected platform cuda.", "pid=718453",
     "Automatically detected platform cuda."),
    ("(pid=2211, ip=10.0.0.7) ValueError: boom", "pid=2211", "ValueError: boom"),
    # a Ray Serve replica names its application and deployment, colon-separated, before its pid; a colon in
    # parenthesised prose is no tag
    ("(ServeReplica:default:LLMServer:qwen3-8b pid=23841) ERROR 06-19 14:02:48 [core.py:515] EngineCore failed to start.",
     "ServeReplica:default:LLMServer:qwen3-8b pid=23841", "EngineCore failed to start."),
    ("(note: see above) the notes", None, "(note: see above) the notes"),
    # a date alone stamps the line (the indentation of a frame line after it is kept); a date and a time are one stamp
    ('2025-02-19   File "/usr/lib/python3.10/importlib/__init__.py", line 126, in import_module', None,
     '  File "/usr/lib/python3.10/importlib/__init__.py", line 126, in import_module'),
    ("2025-02-19 **ModuleNotFoundError: No module named 'decord'**", None, "ModuleNotFoundError: No module named 'decord'"),
    # Python logging's basicConfig format, as an app that wraps the engine logs what it caught
    ("ERROR:app.services.asr.qwen3_engine:Failed to load Qwen3-ASR model: boom", None, "Failed to load Qwen3-ASR model: boom"),
    # progress dots a compiler printed without a newline, glued to the next record; dots alone are text
    ("..[ERROR] the socversion Ascend910B1 of bin package does not match", None,
     "the socversion Ascend910B1 of bin package does not match"),
    ("....INFO 05-13 07:15:10 [importing.py:53] Triton is installed", None, "Triton is installed"),
    ("... 12 more frames", None, "... 12 more frames"),
]


@pytest.mark.parametrize("line,process,text", CASES)
def test_prefixes_are_peeled_and_name_the_process(line, process, text):
    assert peel(line) == (process, text)


def test_lines_without_prefix_are_left_alone():
    assert peel('  File "/usr/x.py", line 3, in f') == (None, '  File "/usr/x.py", line 3, in f')
    assert peel("RuntimeError: size_n = 5472 is not divisible by tile_n_size = 64")[1].startswith("RuntimeError")
    row = "| NVIDIA-SMI 570.133.20             Driver Version: 570.133.20     CUDA Version: 12.8     |"
    assert peel(row) == (None, row)
    # a level and a colon that are no logging record: a time, a key of a listing
    assert peel("WARNING:12:30 retry")[1] == "WARNING:12:30 retry"
    assert peel("WARNING:root")[1] == "WARNING:root"


def test_an_nccl_debug_line_keeps_its_level_and_a_failing_warn_is_an_error_record():
    from qwen3doctor.read.crash import CrashParser
    from qwen3doctor.read.prefixes import peel_record

    def scan_text(text):
        parser = CrashParser()
        for n, line in enumerate(text.splitlines(), 1):
            process, body, record = peel_record(line)
            parser.feed(n, process, body, process is not None, record)
        return parser.finish()

    warn = ("qwen-decode-7f9c6d8b5-x2kqp-with-a-long-pod-name:412:1201 [3] misc/shmutils.cc:129 NCCL WARN Error while "
            "creating shared memory segment /dev/shm/nccl-Qm83Tz (size 33030528), error: No space left on device (28)")
    assert peel_record(warn)[1:] == (warn[warn.index("NCCL WARN"):], "NCCL WARN")
    assert peel_record("[2025-10-13 09:06:25] node1:5:9 [0] NCCL INFO Bootstrap")[1:] == ("NCCL INFO Bootstrap", "NCCL INFO")
    # NCCL's own error record is the crash a paste of NCCL_DEBUG output holds; a WARN about a fallback is none
    failed = scan_text(warn + "\nnode1:412:1201 [3] NCCL INFO proxy.cc:1336 -> 2\n")
    assert [c.message for c in failed] == [warn[warn.index("NCCL WARN"):]]
    assert not scan_text("node1:2211:2245 [0] NCCL WARN NET/IB : No device found.\n"
                         "node1:2211:2245 [0] NCCL INFO NET/Socket : Using [0]eth0:10.0.3.14<0>\n")


def test_progress_dots_before_an_error_tag_leave_an_error_record():
    from qwen3doctor.read.prefixes import peel_record
    assert peel_record("..[ERROR] the socversion Ascend910B1 of bin package does not match")[2] == "ERROR"


def test_a_logfmt_record_around_each_line_is_peeled_to_its_msg(catalog):
    """A Go launcher (Docker Model Runner) wraps each line of the engine it runs in a logfmt record: the traceback is
    in the `msg` fields, quotes escaped; a logfmt line without a quoted msg stays as it is."""
    from qwen3doctor.judge.pipeline import diagnose_text

    lines = ['Traceback (most recent call last):',
             '  File "/opt/vllm-env/lib/python3.12/site-packages/vllm/entrypoints/openai/api_server.py", line 1880, in run_server',
             '    await run_server_worker(listen_address, sock, args, **uvicorn_kwargs)',
             "ValueError: Model architectures ['BertModel'] are not supported for the generate runner."]
    log = "".join('time="2026-01-29T14:55:54Z" level=info msg="{}" component=vllm\n'.format(
        line.replace("\\", "\\\\").replace('"', '\\"')) for line in lines)
    assert peel('time="2026-01-29T14:55:54Z" level=info msg="  File \\"/x.py\\", line 1, in f" component=vllm')[1] == \
        '  File "/x.py", line 1, in f'
    assert peel("time=now level=info msg=plain")[1] == "time=now level=info msg=plain"
    report = diagnose_text(log, catalog)
    assert report.crash is not None and report.crash.exception_type == "ValueError"
    assert report.crash.functions[-1] == "run_server"
