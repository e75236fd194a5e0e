"""A real run on the local model, then every accountability command on its thread."""

from __future__ import annotations

import json

import pytest

from accord import cli
from accord.evals.benchmarks.humaneval import problems
from accord.evals.paths import data_dir
from accord.runtime import local_model

pytestmark = pytest.mark.integration


def _json(capsys, *argv: str):
    assert cli.main(list(argv)) == 0
    return json.loads(capsys.readouterr().out)


def test_blame_cost_history_fork_and_export_on_a_local_model_run(server, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("ACCORD_DB", str(tmp_path / "runs.sqlite"))
    (tmp_path / "he0.py").write_text(problems()["HumanEval/0"]["prompt"])
    assert cli.main(
        ["run", "--file", "he0.py", "--thread", "he0", "--max-rounds", "2", "--max-candidates", "2"]
    ) in (0, 1)
    shown = _json(capsys, "show", "he0", "--json")

    cost = _json(capsys, "cost", "he0", "--json")
    assert cost["total"]["tokens_in"] == shown["tokens_in"] > 0
    # The plain attempt is the Coder's, on the default team's 1.5B model; any other role's on the 0.5B.
    assert local_model.default_model("coder") in cost["by_model"]
    assert set(cost["by_model"]) <= set(local_model.default_team())

    result = _json(capsys, "blame", "he0", "--json")
    judged = [s for s in result["stages"] if s["oracle"] == "visible tests"]
    assert judged and judged == result["stages"]
    assert (result["origin"] is None) == result["final_correct"]
    hidden = _json(capsys, "blame", "he0", "--json", "--hidden", "HumanEval/0")
    assert {s["oracle"] for s in hidden["stages"]} == {"hidden tests of HumanEval/0"}

    assert cli.main(["history", "he0"]) == 0
    rows = [line.split() for line in capsys.readouterr().out.splitlines()]
    assert len(rows) == len(shown["path"]) + 2  # the input and start checkpoints, then one per stage
    planned_row = next(row for row in rows if row[3] == "planning")
    planned, planned_step = planned_row[2], int(planned_row[1])

    reference = json.loads((data_dir() / "who_and_when" / "Algorithm-Generated" / "1.json").read_text())
    record = _json(capsys, "export", "he0", "--format", "whowhen")
    assert set(record) == set(reference)
    assert record["is_correct"] == result["final_correct"]

    # A new branch from the plan: the coder writes again; blame reads the new branch only.
    assert cli.main(
        ["fork", "he0", planned, "--temperature", "0.6", "--max-rounds", "1", "--max-candidates", "2"]
    ) in (0, 1)
    capsys.readouterr()
    forked = _json(capsys, "blame", "he0", "--json")
    assert all(s["step"] > planned_step for s in forked["stages"])  # visible tests do not judge a plan
    assert cli.main(["history", "he0"]) == 0
    ids = [line.split()[2] for line in capsys.readouterr().out.splitlines()]
    original = {row[2] for row in rows}
    after_fork = ids[ids.index(planned) + 1 :]
    assert after_fork and not original & set(after_fork)  # the branch goes on from the plan, all new
