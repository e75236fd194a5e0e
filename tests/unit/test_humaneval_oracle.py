"""The hidden-test oracle accepts a canonical solution and rejects a wrong one."""

from __future__ import annotations

from accord.evals.benchmarks.humaneval import passes_hidden_tests, problems
from accord.state.artifacts import CodeArtifact


def test_oracle_scores_canonical_and_wrong_solutions():
    problem = problems()["HumanEval/0"]
    right = CodeArtifact(files={"solution.py": problem["prompt"] + problem["canonical_solution"]})
    wrong = CodeArtifact(files={"solution.py": problem["prompt"] + "    return False\n"})
    assert passes_hidden_tests(problem, right) == (True, "")
    ok, detail = passes_hidden_tests(problem, wrong)
    assert not ok and "AssertionError" in detail
    assert len(problems()) == 164
