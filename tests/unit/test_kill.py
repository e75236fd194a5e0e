"""``accord run`` killed with SIGKILL mid-run resumes from its last checkpoint with nothing redone."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

from evals.endpoint import FakeEndpoint, Hang, Text, Tool
from tests.conftest import GOOD, PLAN, TESTS

ACCORD = [sys.executable, "-c", "from accord.cli import main; raise SystemExit(main())"]


def options(url: str) -> list[str]:
    return ["--base-url", url, "--model", "fake", "--max-candidates", "1"]


def test_sigkill_between_steps_then_resume_redoes_nothing(workdir):
    env = {**os.environ, "ACCORD_DB": str(workdir / "db.sqlite")}
    # The Planner answers; the Coder's request hangs, and the process is killed while it waits.
    with FakeEndpoint([Tool(json.dumps(PLAN)), Hang(60)]) as endpoint:
        process = subprocess.Popen(
            [*ACCORD, "run", "--file", "stub.py", "--thread", "k", *options(endpoint.url)], env=env,
            cwd=workdir, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 60
        while len(endpoint.requests) < 2 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert len(endpoint.requests) == 2, "the run never reached the Coder"
        process.send_signal(signal.SIGKILL)
        assert process.wait(timeout=10) == -signal.SIGKILL
    with FakeEndpoint([Text(GOOD), Text(TESTS)]) as endpoint:
        resumed = subprocess.run([*ACCORD, "resume", "k", *options(endpoint.url)], env=env, cwd=workdir,
                                 capture_output=True, text=True, timeout=120)
        prompts = endpoint.prompts()
    assert resumed.returncode == 0, resumed.stderr
    # Only the Coder and the Tester were asked again: the plan came from the checkpoint.
    assert len(prompts) == 2 and "You are the Coder" in prompts[0] and "You are the Tester" in prompts[1]
