"""A ClassEval class, given as its skeleton, through `accord run` on the real local model."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from accord.evals.benchmarks import classeval
from accord.runtime import sandbox
from accord.state.artifacts import CodeArtifact

pytestmark = pytest.mark.integration


def test_accord_run_completes_a_class_skeleton_into_a_module_a_user_can_import(tmp_path, gguf):
    problem = classeval.problems()["ClassEval_9"]  # BigNumCalculator: add, subtract, multiply
    (tmp_path / "skeleton.py").write_text(problem["skeleton"])
    env = {**os.environ, "ACCORD_DB": str(tmp_path / "runs.sqlite")}
    ran = subprocess.run(
        [
            sys.executable,
            "-m",
            "accord.cli",
            "run",
            "--file",
            str(tmp_path / "skeleton.py"),
            "--out",
            str(tmp_path / "out"),
            "--max-rounds",
            "2",
        ],
        capture_output=True,
        text=True,
        timeout=900,
        env=env,
    )
    assert ran.returncode in (0, 1), ran.stderr[-2000:]  # completed or failed: a defined end either way
    assert "class task, 3 examples" in ran.stdout + ran.stderr
    solution = (tmp_path / "out" / "solution.py").read_text()
    assert "class BigNumCalculator" in solution
    # The module imports and the class is there for a user, whatever the hidden tests say of it (imported
    # in the sandbox: the module is model-written).
    check = "import solution\nprint(solution.BigNumCalculator)\n"
    imported = sandbox.run(sandbox.python("check.py"), {"solution.py": solution, "check.py": check})
    assert imported.exit_code == 0 and "BigNumCalculator" in imported.stdout, imported.stderr[-1000:]
    passed, failure, methods = classeval.passes(problem, CodeArtifact(files={"solution.py": solution}))
    print(f"ClassEval_9: exit {ran.returncode}; class level {passed}; methods {methods}; {failure[:200]}")
