"""The load benchmark's command, small: concurrent runs against a flaky endpoint all end well."""

from __future__ import annotations

from bench import load


def test_every_run_under_load_and_faults_ends_terminal_with_consistent_checkpoints(capsys):
    # At a 60% fault rate some runs outlast the retries and are resumed from their checkpoints.
    assert load.main(["--runs", "8", "--fault-rate", "0.6", "--max-delay-s", "0.05"]) == 0
    out = capsys.readouterr().out
    assert "not terminal 0" in out and "checkpoints consistent 8/8" in out
