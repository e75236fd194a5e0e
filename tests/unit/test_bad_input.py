"""Bad input is refused in one line, exit 2, before anything is written; the sandbox's own limits on what a
program writes hold and are named; unsafe mode is never taken from a file."""

from __future__ import annotations

from pathlib import Path

import pytest

from accord.cli import main
from accord.nodes import testing
from accord.runtime import sandbox
from accord.state.artifacts import CodeArtifact, Example
from accord.state.context import Context


@pytest.fixture
def here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("ACCORD_DB", str(tmp_path / "runs.sqlite"))
    return tmp_path


def written(where: Path) -> list[str]:
    return sorted(p.name for p in where.iterdir())


@pytest.mark.parametrize(
    ("option", "value", "said"),
    [
        ("--max-rounds", "-1", "max_rounds must be at least 1, not -1"),
        ("--max-rounds", "0", "max_rounds must be at least 1, not 0"),
        ("--max-candidates", "0", "max_candidates must be at least 1, not 0"),
        ("--sandbox-timeout-s", "0", "sandbox_timeout_s must be greater than 0, not 0.0"),
        ("--sandbox-timeout-s", "-5", "sandbox_timeout_s must be greater than 0, not -5.0"),
        ("--max-llm-calls", "-1", "max_llm_calls must be at least 0, not -1"),
    ],
)
def test_an_option_out_of_range_exits_2_in_one_line_and_writes_nothing(here, capsys, option, value, said):
    with pytest.raises(SystemExit) as ended:
        main(["run", "write a function", option, value])
    assert ended.value.code == 2
    err = capsys.readouterr().err.strip()
    assert err == f"accord: error: {said}" and written(here) == []


def test_a_context_out_of_range_is_refused_from_python_too():
    with pytest.raises(ValueError, match="max_tests must be at least 1, not 0"):
        Context(max_tests=0)
    assert Context(max_llm_calls=0).max_llm_calls == 0  # 0: no budget


def test_a_task_file_that_cannot_be_read_exits_2_in_one_line_and_writes_nothing(here, capsys):
    (here / "folder").mkdir()
    (here / "binary.dat").write_bytes(b"\xff\xfe\x00\x81" * 10)
    (here / "huge.txt").write_text("x" * 60_001)
    for name, said in (
        ("missing.py", "cannot read missing.py: No such file or directory"),
        ("folder", "cannot read folder: Is a directory"),
        ("binary.dat", "binary.dat is not text (binary or not UTF-8)"),
        ("huge.txt", "the task has 60,001 characters; the limit is 50,000"),
    ):
        with pytest.raises(SystemExit) as ended:
            main(["run", "--file", name])
        assert ended.value.code == 2
        assert capsys.readouterr().err.strip() == f"accord: error: {said}"
    assert written(here) == ["binary.dat", "folder", "huge.txt"]


def test_a_dot_env_asking_for_unsafe_mode_leaves_bubblewrap_on(here, monkeypatch):
    monkeypatch.delenv("ACCORD_SANDBOX", raising=False)
    (here / ".env").write_text("ACCORD_SANDBOX=unsafe-rlimits\n")
    assert sandbox.chosen_mode() == "bubblewrap"
    assert sandbox.isolation() == "bubblewrap"
    monkeypatch.setenv("ACCORD_SANDBOX", "unsafe-rlimits")  # the process environment is a choice
    assert sandbox.chosen_mode() == "unsafe-rlimits"


WRITE_TMP = (
    "def f():\n    for i in range(200):\n        with open(f'/tmp/big{i}', 'wb') as out:\n"
    "            out.write(b'x' * (10 << 20))\n    return 1\n"
)
WRITE_WORKSPACE = (
    "def f():\n    for i in range(2048):\n        with open(f'chunk{i}', 'wb') as out:\n"
    "            out.write(b'x' * (1 << 20))\n    return 1\n"
)
MANY_FILES = (
    "def f():\n    for i in range(3000):\n        open(f'f{i}.txt', 'w').write('y' * 2000)\n    return 1\n"
)


@pytest.mark.parametrize("body", [WRITE_TMP, WRITE_WORKSPACE], ids=["2 GB to /tmp", "2 GB to the workspace"])
def test_writing_gigabytes_ends_with_the_disk_limit_named(body):
    limits = sandbox.Limits(timeout_s=30, cpu_s=30)
    code = CodeArtifact(files={"solution.py": body})
    report, result = testing.run_examples(code, "solution.py", (Example(call="f()", expected="1"),), limits)
    assert report.ending != "passed" and report.limit == "disk_limit"
    assert sum(len(text) for text in result.files.values()) <= limits.bytes_back


def test_the_host_reads_back_no_more_than_its_cap_and_says_what_it_left():
    limits = sandbox.Limits(timeout_s=30, cpu_s=30)
    code = CodeArtifact(files={"solution.py": MANY_FILES})
    report, result = testing.run_examples(code, "solution.py", (Example(call="f()", expected="1"),), limits)
    assert report.ending == "passed"
    assert len(result.files) <= limits.files_back
    assert sum(len(text.encode()) for text in result.files.values()) <= limits.bytes_back
    assert "workspace files not read back" in result.files_cut


def test_processes_that_together_pass_the_memory_cap_are_stopped_where_a_memory_cgroup_can_be_made():
    if sandbox.hierarchy("memory") is None:
        pytest.skip("no writable memory cgroup here: each process is bounded by RLIMIT_AS alone")
    program = (
        "import os, time\n"
        "for _ in range(4):\n"
        "    if os.fork() == 0:\n"
        "        block = bytearray(800 << 20)\n"
        "        for at in range(0, len(block), 4096):\n"
        "            block[at] = 1\n"
        "        time.sleep(5)\n"
        "        os._exit(0)\n"
        "for _ in range(4):\n"
        "    print(os.wait())\n"
    )
    limits = sandbox.Limits(timeout_s=30, cpu_s=30)  # 800 MiB each is under RLIMIT_AS; 3.2 GB is not
    result = sandbox.run(sandbox.python("p.py"), {"p.py": program}, limits)
    assert result.memory_limit_hit
    assert ", 9)" in result.stdout  # a child the kernel killed
