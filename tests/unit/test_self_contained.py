"""The repository alone is enough: a copy of its tracked files, with nothing beside it, runs an eval task
and blames its thread (benchmark data and the MAST taxonomy travel inside it)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.checkout import copy_tracked
from tests.endpoint import FakeEndpoint, Text

ROOT = Path(__file__).resolve().parents[2]
SOLUTION = """```python
def has_close_elements(numbers, threshold):
    return any(abs(a - b) < threshold for i, a in enumerate(numbers) for b in numbers[i + 1:])
```"""


def copy_of_the_repository(into: Path) -> Path:
    """Copy the tracked files (the benchmark data included) into ``into/repo``; nothing goes beside it."""
    return copy_tracked(into / "repo")


def accord(repo: Path, *args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """Run the copy's own CLI (its packages first on the path) inside the copy."""
    return subprocess.run(
        [sys.executable, "-c", "import sys; from accord.cli import main; sys.exit(main())", *args],
        cwd=repo,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )


def test_an_eval_task_and_its_blame_run_in_a_copy_with_nothing_beside_it(tmp_path: Path) -> None:
    repo = copy_of_the_repository(tmp_path)
    assert not (tmp_path / "shared").exists() and (repo / "data" / "devign100").is_dir()
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("ACCORD_", "OPENAI_", "LANGSMITH_", "LANGCHAIN_"))
    }
    with FakeEndpoint([Text(SOLUTION)]) as endpoint:
        env |= {"PYTHONPATH": str(repo), "OPENAI_BASE_URL": endpoint.url, "HOME": str(tmp_path)}
        ran = accord(repo, "eval", "humaneval", "--config", "single", "--limit", "1", "--out", "out", env=env)
    assert ran.returncode == 0, ran.stderr[-2000:]
    assert "1/1 solved" in ran.stderr
    env["ACCORD_DB"] = str(repo / "out" / "checkpoints.sqlite")
    blamed = accord(repo, "blame", "humaneval/single/HumanEval/0", "--json", env=env)
    assert blamed.returncode == 0, blamed.stderr[-2000:]
    report = json.loads(blamed.stdout)
    assert report["final_correct"] is True and report["origin"] is None
    # `single` completes without testing its code: a finding named from the taxonomy the copy carries
    assert [f["name"] for f in report["failures"]] == ["No or Incorrect Verification"]
    imported = subprocess.run(
        [
            sys.executable,
            "-c",
            "import accord.accountability.mast, accord.evals.paths as data; "
            "print(accord.accountability.mast.__file__); print(data.data_dir())",
        ],
        cwd=repo,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    assert all(Path(path).is_relative_to(repo) for path in imported)
