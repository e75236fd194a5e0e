"""The sandbox holds: timeouts, floods, network, writes and reads outside, environment, processes."""

from __future__ import annotations

import os
import socket
import threading
from pathlib import Path

import pytest

from accord.runtime import sandbox
from accord.runtime.sandbox import Limits, python, run

needs_bwrap = pytest.mark.skipif(sandbox.bubblewrap() is None, reason="bubblewrap is not installed")


def test_a_program_runs_in_its_workspace_and_returns_its_files():
    result = run(python("main.py"), {"main.py": "open('out.txt', 'w').write('hi')\nprint('done')\n"})
    assert result.ok and result.stdout.strip() == "done"
    assert result.files["out.txt"] == "hi"


def test_infinite_loop_is_killed_at_the_wall_clock_timeout():
    result = run(python("-c", "import time\nwhile True: time.sleep(0.01)"), {}, Limits(timeout_s=1))
    assert result.ending == "timeout" and result.exit_code is None
    assert result.duration_s < 5


def test_cpu_burner_hits_the_cpu_limit():
    result = run(python("-c", "while True: pass"), {}, Limits(timeout_s=10, cpu_s=1))
    assert result.ending == "cpu_limit"


def test_output_flood_is_capped():
    result = run(python("-c", "while True: print('x' * 1000)"), {}, Limits(timeout_s=10, file_mb=1))
    assert result.ending == "file_limit"
    assert result.truncated and len(result.stdout) < 25_000


def test_memory_bomb_fails():
    result = run(python("-c", "x = bytearray(4 * 1024 ** 3)"), {}, Limits(memory_mb=512))
    assert not result.ok and "MemoryError" in result.stderr


def test_paths_outside_the_workspace_are_refused():
    for name in ("../escape.py", "/etc/x.py"):
        with pytest.raises(sandbox.SandboxError):
            run(python("-c", "pass"), {name: "x"})


def test_environment_is_scrubbed():
    os.environ["ACCORD_TEST_SECRET"] = "sk-should-not-leak"
    try:
        result = run(python("-c", "import os; print(sorted(os.environ))"), {})
    finally:
        del os.environ["ACCORD_TEST_SECRET"]
    assert "ACCORD_TEST_SECRET" not in result.stdout and "sk-should-not-leak" not in result.stdout


@needs_bwrap
def test_no_network_even_to_loopback():
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(1)
    port = server.getsockname()[1]
    accepted: list[object] = []
    threading.Thread(target=lambda: accepted.append(server.accept()), daemon=True).start()
    code = f"import socket\ns = socket.socket(); s.settimeout(2); s.connect(('127.0.0.1', {port}))"
    result = run(python("-c", code), {}, Limits(timeout_s=5))
    server.close()
    assert not result.ok and "Error" in result.stderr
    assert accepted == []


@needs_bwrap
def test_no_writes_outside_the_workspace(tmp_path):
    target = tmp_path / "escaped.txt"
    code = f"open({str(target)!r}, 'w').write('x')"
    result = run(python("-c", code), {}, Limits(timeout_s=5))
    assert not result.ok
    assert not target.exists()


@needs_bwrap
def test_home_and_project_are_not_visible(tmp_path):
    secret = tmp_path / "secret.env"
    secret.write_text("KEY=1")
    code = f"import os\nprint(os.path.exists({str(secret)!r}), os.path.exists(os.path.expanduser('~/.ssh')))"
    result = run(python("-c", code), {}, Limits(timeout_s=5))
    assert result.stdout.split() == ["False", "False"]


def _processes_with(token: str) -> list[str]:
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                if token.encode() in f.read():
                    found.append(pid)
        except OSError:
            continue
    return found


@needs_bwrap
def test_detached_process_does_not_outlive_the_run():
    token = f"accord-detach-{os.getpid()}"
    child = f"import time\ntime.sleep(60)  # {token}"
    code = (
        f"import subprocess, sys\nsubprocess.Popen([sys.executable, '-c', {child!r}], start_new_session=True)"
    )
    result = run(python("-c", code), {}, Limits(timeout_s=5))
    assert result.ok
    assert _processes_with(token) == []


@needs_bwrap
def test_accords_own_working_copy_and_checkpoints_are_out_of_reach(workdir):
    from accord.graphs import store

    with store.checkpointer() as saver:  # the run store a real run writes (.accord/checkpoints.sqlite)
        saver.setup()
    # The checkpoint database, the user's task file, and Accord's own source (its working copy).
    own = [store.db_path().resolve(), (workdir / "stub.py").resolve(), sandbox.__file__]
    before = {str(p): Path(p).read_bytes() for p in own}
    code = (
        f"paths = {list(before)!r}\n"
        "for p in paths:\n"
        "    try:\n"
        "        open(p, 'ab').write(b'tampered')\n"
        "        print('WROTE', p)\n"
        "    except OSError as exc:\n"
        "        print('DENIED', type(exc).__name__)\n"
    )
    result = run(python("-c", code), {}, Limits(timeout_s=5))
    assert result.stdout.split().count("DENIED") == len(own) and "WROTE" not in result.stdout
    assert {p: Path(p).read_bytes() for p in before} == before


@needs_bwrap
def test_the_program_holds_no_capabilities_even_when_accord_runs_as_root():
    code = "print([line for line in open('/proc/self/status') if line.startswith('CapEff')][0])"
    result = run(python("-c", code), {}, Limits(timeout_s=5))
    assert result.stdout.split() == ["CapEff:", "0000000000000000"]


@pytest.mark.skipif(os.getuid() != 0, reason="the warning is about root")
def test_root_without_a_pids_cgroup_is_warned_about(monkeypatch, caplog):
    monkeypatch.setattr(sandbox, "pids_hierarchy", lambda: None)
    sandbox._warn_once.cache_clear()
    assert not sandbox.process_limit_enforced()
    assert run(python("-c", "pass"), {}).ok
    assert "no process limit" in caplog.text


# Refusing to run unisolated ------------------------------------------------------------------------


def test_without_bubblewrap_nothing_runs_and_the_error_names_the_fix(monkeypatch, tmp_path):
    monkeypatch.delenv(sandbox.MODE_VARIABLE, raising=False)
    monkeypatch.setattr(sandbox, "bubblewrap", lambda: None)
    marker = tmp_path / "ran"
    with pytest.raises(sandbox.SandboxUnavailable) as refused:
        run(python("-c", f"open({str(marker)!r}, 'w').write('x')"), {})
    assert not marker.exists()
    assert "apt-get install bubblewrap" in str(refused.value)
    assert f"{sandbox.MODE_VARIABLE}={sandbox.UNSAFE}" in str(refused.value)


def test_bubblewrap_that_cannot_create_namespaces_is_refused_too(monkeypatch):
    monkeypatch.delenv(sandbox.MODE_VARIABLE, raising=False)
    monkeypatch.setattr(sandbox, "namespaces_refused", lambda bwrap: "setting up uid map: Permission denied")
    with pytest.raises(sandbox.SandboxUnavailable, match=r"cannot create its namespaces.*Permission denied"):
        sandbox.isolation()


def test_the_unsafe_opt_in_runs_with_rlimits_and_says_so_in_the_result(monkeypatch):
    monkeypatch.setenv(sandbox.MODE_VARIABLE, sandbox.UNSAFE)
    monkeypatch.setattr(sandbox, "bubblewrap", lambda: None)
    result = run(python("-c", "print('hi')"), {})
    assert result.ok and result.isolation == "rlimits"


def test_an_unknown_sandbox_mode_is_refused(monkeypatch):
    monkeypatch.setenv(sandbox.MODE_VARIABLE, "none")
    with pytest.raises(sandbox.SandboxUnavailable, match="not a sandbox mode"):
        sandbox.isolation()


@needs_bwrap
def test_by_default_programs_run_in_bubblewrap(monkeypatch):
    monkeypatch.delenv(sandbox.MODE_VARIABLE, raising=False)
    assert run(python("-c", "print('hi')"), {}).isolation == "bubblewrap"
