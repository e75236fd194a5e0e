"""``accord run`` killed with SIGKILL mid-run resumes from its last checkpoint with nothing redone."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time

from accord.nodes.coding.writing import HARNESS_PROMPT
from tests.conftest import GOOD, PLAN, TESTS
from tests.endpoint import FakeEndpoint, Hang, Text, Tool

ACCORD = [sys.executable, "-c", "from accord.cli import main; raise SystemExit(main())"]


def options(url: str) -> list[str]:
    return ["--base-url", url, "--model", "fake", "--max-candidates", "1"]


def _killed_at_the_coder(workdir, env):
    """Start a run whose Planner answers and whose Coder's request hangs; SIGKILL it while it waits."""
    with FakeEndpoint([Tool(json.dumps(PLAN)), Hang(60)]) as endpoint:
        process = subprocess.Popen(
            [*ACCORD, "run", "--file", "stub.py", "--thread", "k", *options(endpoint.url)],
            env=env,
            cwd=workdir,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + 60
        while len(endpoint.requests) < 2 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert len(endpoint.requests) == 2, "the run never reached the Coder"
        process.send_signal(signal.SIGKILL)
        assert process.wait(timeout=10) == -signal.SIGKILL


def _resume_asks_only_the_coder_and_the_tester(workdir, env):
    with FakeEndpoint([Text(GOOD), Text(TESTS)]) as endpoint:
        resumed = subprocess.run(
            [*ACCORD, "resume", "k", *options(endpoint.url)],
            env=env,
            cwd=workdir,
            capture_output=True,
            text=True,
            timeout=120,
        )
        prompts = endpoint.prompts()
    assert resumed.returncode == 0, resumed.stderr
    # Only the Coder and the Tester were asked again: the plan came from the checkpoint.
    assert len(prompts) == 2 and prompts[0].startswith(HARNESS_PROMPT.splitlines()[0])  # the plain call
    assert "You are the Tester" in prompts[1]


def test_sigkill_between_steps_then_resume_redoes_nothing(workdir):
    env = {**os.environ, "ACCORD_DB": str(workdir / "db.sqlite")}
    _killed_at_the_coder(workdir, env)
    _resume_asks_only_the_coder_and_the_tester(workdir, env)


def test_a_stage_whose_writes_were_saved_without_its_checkpoint_is_resumed_not_ended(workdir):
    """Killed after the Planner's writes were saved but before its checkpoint was: the run goes on."""
    env = {**os.environ, "ACCORD_DB": str(workdir / "db.sqlite")}
    _killed_at_the_coder(workdir, env)
    with sqlite3.connect(workdir / "db.sqlite") as db:  # drop the newest checkpoint, keep every write
        db.execute(
            "DELETE FROM checkpoints WHERE checkpoint_id = (SELECT MAX(checkpoint_id) FROM checkpoints)"
        )
    _resume_asks_only_the_coder_and_the_tester(workdir, env)
