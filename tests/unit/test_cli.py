"""The CLI runs, lists, shows and resumes threads in the SQLite checkpoint database."""

from __future__ import annotations

import json

from accord import cli
from accord.runtime import sandbox
from tests.conftest import APPROVE, BAD, GOOD, PLAN, script_cli


def test_run_writes_files_and_exits_zero_when_completed(workdir, monkeypatch, capsys):
    script_cli(monkeypatch, planner=[PLAN], coder=[GOOD], reviewer=[APPROVE])
    code = cli.main(["run", "--file", "stub.py", "--out", "out", "--thread", "t1", "--max-candidates", "1"])
    assert code == 0
    assert "return a + b" in (workdir / "out" / "solution.py").read_text()
    assert (workdir / ".accord" / "checkpoints.sqlite").exists()
    assert "thread t1: completed" in capsys.readouterr().err


def test_run_exits_one_when_failed_and_show_explains(workdir, monkeypatch, capsys):
    script_cli(monkeypatch, planner=[{"subtasks": []}] * 3)
    assert cli.main(["run", "--file", "stub.py", "--thread", "t2"]) == 1
    capsys.readouterr()
    assert cli.main(["show", "t2", "--json"]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert shown["status"] == "failed" and shown["path"] == ["initialized", "planning", "failed"]
    assert shown["state"]["violations"][0]["role"] == "planner"
    assert cli.main(["show", "t2"]) == 0
    text = capsys.readouterr().out
    assert "path: initialized → planning → failed" in text and "contract checks" in text
    assert "ledger by role" in text and "ledger by model" in text and "\nplanner " in text


def test_runs_lists_threads_newest_first(workdir, monkeypatch, capsys):
    script_cli(monkeypatch, planner=[PLAN, PLAN], coder=[GOOD, GOOD], reviewer=[APPROVE, APPROVE])
    cli.main(["run", "--file", "stub.py", "--thread", "first", "--max-candidates", "1"])
    cli.main(["run", "--file", "stub.py", "--thread", "second", "--max-candidates", "1"])
    capsys.readouterr()
    assert cli.main(["runs"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line.split()[0] for line in lines] == ["second", "first"]
    assert all("completed" in line for line in lines)


def test_resume_continues_an_interrupted_run_without_redoing_steps(workdir, monkeypatch, capsys):
    models = script_cli(monkeypatch, planner=[PLAN], coder=[BAD], debugger=[GOOD], reviewer=[APPROVE])

    def crash(messages):
        raise KeyboardInterrupt  # the user presses Ctrl-C while the debugger's model is working

    models["debugger"].script = [crash, GOOD]
    assert cli.main(["run", "--file", "stub.py", "--thread", "t3", "--max-candidates", "1"]) == 130
    assert models["planner"].calls == models["coder"].calls == 1
    assert cli.main(["resume", "t3", "--out", "out"]) == 0
    assert models["planner"].calls == models["coder"].calls == 1  # finished steps are not redone
    assert models["debugger"].calls == 2
    assert "return a + b" in (workdir / "out" / "solution.py").read_text()


def test_unknown_thread_is_a_clear_error(workdir, capsys):
    assert cli.main(["show", "nope"]) == 2
    assert "no thread 'nope'" in capsys.readouterr().err


def test_an_endpoint_that_stays_down_stops_the_run_resumably(workdir, monkeypatch, capsys):
    import httpx
    import openai

    from accord.graphs import compiler

    monkeypatch.setattr(compiler, "RETRY", compiler.RETRY._replace(initial_interval=0.01, jitter=False))
    models = script_cli(monkeypatch, planner=[PLAN], coder=[GOOD], reviewer=[APPROVE])
    request = httpx.Request("POST", "http://127.0.0.1:9/v1/chat/completions")

    def down(messages):
        raise openai.APIConnectionError(request=request)

    models["planner"].script = [down, down, down, PLAN]
    assert cli.main(["run", "--file", "stub.py", "--thread", "t4"]) == 4
    err = capsys.readouterr().err
    assert "APIConnectionError" in err and "accord resume t4" in err
    assert models["planner"].calls == 3  # LangGraph's retry policy tried three times
    assert cli.main(["resume", "t4", "--max-candidates", "1"]) == 0  # the endpoint is back
    assert models["planner"].calls == 4


def test_an_unreachable_postgres_store_is_a_clear_error_without_the_password(workdir, monkeypatch, capsys):
    from accord.runtime.model_server import free_port

    monkeypatch.setenv("ACCORD_DATABASE_URL", f"postgresql://accord:pw-s3cret@127.0.0.1:{free_port()}/runs")
    assert cli.main(["runs"]) == 5
    err = capsys.readouterr().err
    assert "cannot open the run store postgresql://accord:***@127.0.0.1" in err and "pw-s3cret" not in err
    assert not (workdir / ".accord").exists()  # no silent fallback to SQLite


def test_run_without_bubblewrap_exits_six_before_any_model_call(workdir, monkeypatch, capsys):
    models = script_cli(monkeypatch, planner=[PLAN], coder=[GOOD], reviewer=[APPROVE])
    monkeypatch.delenv(sandbox.MODE_VARIABLE, raising=False)
    monkeypatch.setattr(sandbox, "bubblewrap", lambda: None)
    assert cli.main(["run", "--file", "stub.py", "--thread", "nobwrap"]) == 6
    assert all(model.calls == 0 for model in models.values())
    said = capsys.readouterr().err
    assert "apt-get install bubblewrap" in said and "ACCORD_SANDBOX=unsafe-rlimits" in said


def test_run_with_the_unsafe_opt_in_runs_and_says_so(workdir, monkeypatch, capsys):
    script_cli(monkeypatch, planner=[PLAN], coder=[GOOD], reviewer=[APPROVE])
    monkeypatch.setenv(sandbox.MODE_VARIABLE, sandbox.UNSAFE)
    assert cli.main(["run", "--file", "stub.py", "--thread", "unsafe", "--max-candidates", "1"]) == 0
    assert "rlimits only" in capsys.readouterr().err


def test_doctor_reports_a_missing_sandbox_with_its_fix(workdir, monkeypatch, capsys):
    monkeypatch.delenv(sandbox.MODE_VARIABLE, raising=False)
    monkeypatch.setattr(sandbox, "bubblewrap", lambda: None)
    assert cli.main(["doctor"]) == 1
    out = capsys.readouterr().out
    assert "FAIL  sandbox" in out and "apt-get install bubblewrap" in out
    assert "ok    python" in out and "ok    run store" in out


def test_evidence_is_shown_on_one_line_and_cut_with_an_ellipsis():
    from accord.cli.running import one_line

    assert one_line("E   assert 6.0 == 4\n\n  1 failed", 80) == "E assert 6.0 == 4 1 failed"
    assert one_line("x" * 20, 10) == "x" * 9 + "…" and one_line("short", 10) == "short"
