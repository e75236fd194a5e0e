"""Sandbox escape suite: hostile programs run as the Debugger and the Tester run code, each one held.

Every attack is a function ``attack()`` in the module under test, executed by ``testing.run_examples``,
the path every generated function takes. Each test checks from outside that nothing escaped, and that
the test report says what the attempt ran into: the sandbox limit that stopped it, or the error the
denied operation raised. Each attack runs twice: under bubblewrap, and under the explicit opt-in to
rlimits and the cgroup alone (``ACCORD_SANDBOX=unsafe-rlimits``), where the attacks that only bubblewrap
stops are skipped with the protection that is then missing (``pytest -rs`` lists them). Where bubblewrap
cannot run, the suite fails: a sandbox that is not there is not a skipped test.
"""

from __future__ import annotations

import contextlib
import os
import socket
import textwrap
import threading
import uuid
from pathlib import Path

import pytest

from accord.nodes import testing
from accord.runtime import sandbox
from accord.runtime.sandbox import Limits
from accord.state.artifacts import CodeArtifact, Example, TestReport

LIMITS = Limits(timeout_s=5, memory_mb=512, file_mb=4)


@pytest.fixture(params=["bubblewrap", "rlimits"])
def isolation(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Run the attack under bubblewrap, then with rlimits alone, as the unsafe opt-in runs it."""
    if request.param == "bubblewrap":
        monkeypatch.delenv(sandbox.MODE_VARIABLE, raising=False)
        try:
            sandbox.isolation()
        except sandbox.SandboxUnavailable as exc:
            pytest.fail(str(exc))
    else:
        monkeypatch.setenv(sandbox.MODE_VARIABLE, sandbox.UNSAFE)
    return str(request.param)


def only_bubblewrap_holds(isolation: str, what: str) -> None:
    if isolation != "bubblewrap":
        pytest.skip(f"not held without bubblewrap: {what}")


def attack(body: str, limits: Limits = LIMITS) -> TestReport:
    """Run ``def attack(): <body>`` through the example harness and return the test report."""
    module = "def attack():\n" + textwrap.indent(textwrap.dedent(body), "    ")
    code = CodeArtifact(files={"attack.py": module}, entry_points=("attack.py",))
    report, _ = testing.run_examples(code, "attack.py", (Example(call="attack()", expected="None"),), limits)
    return report


def raised(report: TestReport) -> str:
    """The error the attack's call raised, as the report records it."""
    (case,) = report.cases
    assert not case.passed and case.got.startswith("raised "), case
    return case.message


def processes_with(token: str) -> list[str]:
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            if token.encode() in Path(f"/proc/{pid}/cmdline").read_bytes():
                found.append(pid)
        except OSError:
            continue
    return found


# Network ---------------------------------------------------------------------------------------


def test_connect_to_a_loopback_service(isolation: str) -> None:
    only_bubblewrap_holds(isolation, "network namespace (loopback and external connections)")
    server = socket.create_server(("127.0.0.1", 0))
    accepted: list[object] = []
    server.settimeout(3)

    def accept() -> None:
        with contextlib.suppress(OSError):
            accepted.append(server.accept())

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    report = attack(f"""
        import socket
        socket.create_connection(("127.0.0.1", {server.getsockname()[1]}), timeout=2).sendall(b"x")
    """)
    thread.join(4)
    server.close()
    assert accepted == []
    assert "Errno" in raised(report)  # unreachable: the sandbox's loopback is down


def test_connect_to_the_internet(isolation: str) -> None:
    only_bubblewrap_holds(isolation, "network namespace (loopback and external connections)")
    report = attack("""
        import socket
        socket.create_connection(("1.1.1.1", 443), timeout=2)  # this machine itself reaches it
    """)
    assert "Network is unreachable" in raised(report)


# Files -----------------------------------------------------------------------------------------


@pytest.mark.parametrize("where", ["home", "dotenv", "checkpoints"])
def test_read_a_secret_outside_the_workspace(isolation: str, where: str, workdir: Path) -> None:
    only_bubblewrap_holds(isolation, "filesystem view (home, project and run store are visible)")
    secret = f"sk-accord-escape-{uuid.uuid4().hex}"
    paths = {
        "home": Path.home() / f".accord-escape-{uuid.uuid4().hex}",
        "dotenv": workdir / ".env",
        "checkpoints": workdir / ".accord" / "checkpoints.sqlite",
    }
    target = paths[where]
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(f"OPENAI_API_KEY={secret}\n")
    try:
        report = attack(f"return open({str(target)!r}).read()")
    finally:
        if where == "home":
            target.unlink()
    assert "FileNotFoundError" in raised(report)
    assert secret not in report.model_dump_json()


def test_write_outside_the_workspace(isolation: str, tmp_path: Path) -> None:
    only_bubblewrap_holds(isolation, "filesystem view (the host's files are writable)")
    targets = [
        tmp_path / "planted.txt",
        Path("/usr/accord-planted.txt"),
        Path.home() / f".accord-planted-{uuid.uuid4().hex}",
    ]
    report = attack(f"""
        outcomes = []
        for path in {[str(t) for t in targets]!r}:
            try:
                open(path, "w").write("planted")
                outcomes.append("wrote " + path)
            except OSError as exc:
                outcomes.append(type(exc).__name__)
        return outcomes
    """)
    (case,) = report.cases
    # The host's /tmp is not mounted; /usr and the sandbox's own root are read-only.
    assert case.got == repr(["FileNotFoundError", "OSError", "OSError"])
    assert not any(t.exists() for t in targets)


def test_change_accords_own_working_copy(isolation: str) -> None:
    only_bubblewrap_holds(isolation, "filesystem view (Accord's source is writable)")
    before = Path(sandbox.__file__).read_bytes()
    report = attack(f"open({sandbox.__file__!r}, 'a').write('# tampered')")
    assert "FileNotFoundError" in raised(report)
    assert Path(sandbox.__file__).read_bytes() == before


# Processes, privileges, environment -----------------------------------------------------------


def test_read_the_parents_environment(isolation: str, monkeypatch: pytest.MonkeyPatch) -> None:
    only_bubblewrap_holds(isolation, "pid namespace (/proc/<parent>/environ is readable)")
    secret = f"sk-accord-escape-{uuid.uuid4().hex}"
    monkeypatch.setenv("OPENAI_API_KEY", secret)
    report = attack(f"""
        import os
        seen = [repr(dict(os.environ))]
        for pid in [os.getppid(), 1, {os.getpid()}]:
            try:
                seen.append(open(f"/proc/{{pid}}/environ").read())
            except OSError as exc:
                seen.append(repr(exc))
        return "".join(seen)
    """)
    (case,) = report.cases
    assert "OPENAI_API_KEY" not in case.got and secret not in report.model_dump_json()


def test_signal_accords_own_process(isolation: str) -> None:
    only_bubblewrap_holds(isolation, "pid namespace (Accord's process can be signalled)")
    report = attack(f"import os, signal\nos.kill({os.getpid()}, signal.SIGTERM)")
    assert "ProcessLookupError" in raised(report)


def test_use_root_privileges(isolation: str) -> None:
    only_bubblewrap_holds(isolation, "dropped capabilities (a root caller's program keeps them)")
    report = attack("""
        import os
        os.chroot("/tmp")
    """)
    assert "PermissionError" in raised(report) or "Operation not permitted" in raised(report)


def test_fork_bomb(isolation: str) -> None:
    if not sandbox.process_limit_enforced():
        pytest.skip("no process limit binds here (uid 0 and no writable pids cgroup): not run")
    token = f"accord-forkbomb-{uuid.uuid4().hex}"
    bomb = f"import os\nwhile True:\n    os.fork()  # {token}"
    report = attack(f"""
        import os, sys
        os.execv(sys.executable, [sys.executable, "-c", {bomb!r}])  # the token is in every copy's argv
    """)
    assert report.limit == "process_limit"
    assert processes_with(token) == []


def test_detached_process_outliving_the_run(isolation: str) -> None:
    if isolation != "bubblewrap" and sandbox.pids_hierarchy() is None:
        pytest.skip("not held without bubblewrap or a pids cgroup: a new session escapes the group kill")
    token = f"accord-detached-{uuid.uuid4().hex}"
    report = attack(f"""
        import subprocess, sys
        subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)  # {token}"],
                         start_new_session=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    """)
    assert report.passed  # the program ran to its end; its child did not survive it
    assert processes_with(token) == []


# Resources -------------------------------------------------------------------------------------


def test_memory_bomb(isolation: str) -> None:
    report = attack("return len(bytearray(4 * 1024 ** 3))")
    assert "MemoryError" in raised(report) and report.limit == "memory_limit"


def test_infinite_loop_that_ignores_the_case_timer(isolation: str) -> None:
    report = attack(
        """
        import signal
        signal.signal(signal.SIGALRM, signal.SIG_IGN)
        while True:
            pass
    """,
        Limits(timeout_s=3, cpu_s=30),
    )
    assert report.ending == "timeout" and report.limit == "timeout"


def test_cpu_burner(isolation: str) -> None:
    report = attack(
        """
        import signal
        signal.signal(signal.SIGALRM, signal.SIG_IGN)
        while True:
            pass
    """,
        Limits(timeout_s=20, cpu_s=1),
    )
    assert report.limit == "cpu_limit"


def test_gigabytes_of_output(isolation: str) -> None:
    report = attack("""
        import sys
        line = "x" * (1 << 20)
        for _ in range(4096):  # 4 GiB
            sys.stdout.write(line)
    """)
    assert report.limit == "file_limit"
    assert len(report.output) <= 4000
