"""`accord eval` on the real local model: killed with SIGKILL mid-eval, resumed, reported."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import pytest

from accord.runtime import local_model

pytestmark = pytest.mark.integration


def _eval(out, *extra: str) -> subprocess.Popen[bytes]:
    argv = [
        sys.executable,
        "-m",
        "accord.cli",
        "eval",
        "humaneval",
        "--config",
        "single",
        "--limit",
        "3",
        "--out",
        str(out),
        *extra,
    ]
    # A session of its own, so the kill takes the eval and its model server together, like a lost machine.
    return subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True)


def _rows(out) -> list[str]:
    path = out / "results.jsonl"
    return path.read_text().splitlines() if path.exists() else []


def test_an_eval_killed_mid_run_resumes_and_reports(tmp_path, gguf):
    out = tmp_path / "eval"
    first = _eval(out)
    deadline = time.monotonic() + 300
    while not _rows(out) and first.poll() is None and time.monotonic() < deadline:
        time.sleep(0.5)
    assert first.poll() is None, "the eval ended before it could be killed"
    os.killpg(first.pid, signal.SIGKILL)
    first.wait()
    finished = _rows(out)
    assert 1 <= len(finished) < 3

    second = _eval(out)
    _, err = second.communicate(timeout=600)
    assert second.returncode == 0, err.decode()[-2000:]
    rows = _rows(out)
    assert rows[: len(finished)] == finished  # finished tasks were not rerun
    ids = [json.loads(r)["id"] for r in rows]
    assert sorted(ids) == ["HumanEval/0", "HumanEval/1", "HumanEval/2"]
    assert all(json.loads(r)["model"] == local_model.default_model("coder") for r in rows)
    summary = json.loads((out / "summary.json").read_text())
    assert summary["single"]["tasks"] == 3
    assert "| single | 3 |" in (out / "report.md").read_text()
    assert (out / "failures_per_round.png").stat().st_size > 1000
    assert (out / "accuracy_cost.png").stat().st_size > 1000
