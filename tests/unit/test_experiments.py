"""Declared experiments run every configuration at one commit, and ``accord eval compare`` refuses rows
that do not compare: other code, other tasks, other settings, or changed code."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from accord.cli import main
from accord.evals import declared, runner
from accord.evals.reports import comparable, goals
from tests.endpoint import FakeEndpoint, Text

SOLUTION = """```python
def has_close_elements(numbers, threshold):
    return any(abs(a - b) < threshold for i, a in enumerate(numbers) for b in numbers[i + 1:])
```"""
COMMITS = ("a" * 40, "b" * 40)
UNUSED = "http://127.0.0.1:9/v1"
"""An endpoint for runs refused before any model call."""


def row(config: str, task: str, commit: str = COMMITS[0], **more: Any) -> dict[str, Any]:
    return {
        "config": config,
        "id": task,
        "passed": True,
        "status": "completed",
        "mast": [],
        "cost": 0.0,
        "tokens_in": 10,
        "tokens_out": 5,
        "model": "m",
        "date": "2026-11-29",
        "latency_s": 1.0,
        "llm_calls": 1,
        "blame": {"roles": {}, "origin": None},
        "commit": commit,
        "version": commit[:7],
        "dirty": False,
        **more,
    }


def folder(where: Path, rows: list[dict[str, Any]]) -> str:
    where.mkdir(parents=True)
    (where / runner.RESULTS).write_text("".join(json.dumps(r) + "\n" for r in rows))
    return str(where)


def test_compare_refuses_rows_of_two_commits_and_names_them(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    old = folder(tmp_path / "old", [row("single", "T/0"), row("single", "T/1")])
    new = folder(tmp_path / "new", [row("accountable", task, COMMITS[1]) for task in ("T/0", "T/1")])
    assert main(["eval", "compare", old, new, "--out", str(tmp_path / "r")]) == 1
    said = capsys.readouterr().err
    assert "rows of different code: aaaaaaa (single 2); bbbbbbb (accountable 2)" in said
    assert not (tmp_path / "r" / "summary.json").exists()
    assert main(["eval", "compare", old, new, "--separate", "--out", str(tmp_path / "r")]) == 0
    summary = json.loads((tmp_path / "r" / "summary.json").read_text())
    assert {"single@aaaaaaa", "accountable@bbbbbbb"} <= set(summary)


def test_compare_keeps_each_folders_rows_of_a_configuration_that_ran_at_two_commits(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # The same configuration rerun at a later commit in a folder of its own: neither folder's rows may
    # silently stand for both.
    old = folder(tmp_path / "old", [row("single", "T/0", passed=False), row("single", "T/1")])
    new = folder(tmp_path / "new", [row("single", task, COMMITS[1]) for task in ("T/0", "T/1")])
    assert main(["eval", "compare", old, new, "--out", str(tmp_path / "r")]) == 1
    said = capsys.readouterr().err
    assert "rows of different code: aaaaaaa (single 2); bbbbbbb (single 2)" in said
    assert f"the folders hold: {old} aaaaaaa; {new} bbbbbbb" in " ".join(said.split())
    assert main(["eval", "compare", old, new, "--separate", "--out", str(tmp_path / "r")]) == 0
    summary = json.loads((tmp_path / "r" / "summary.json").read_text())
    assert {name: s["solved"] for name, s in summary.items()} == {"single@aaaaaaa": 1, "single@bbbbbbb": 2}


def test_compare_names_only_the_settings_that_differ() -> None:
    shared = {f"setting_{i}": i for i in range(40)}  # enough to hide a difference at the end of a long list
    rows = [
        row("single", "T/0", settings={**shared, "max_rounds": 2}),
        row("accountable", "T/0", settings={**shared, "max_rounds": 5, "max_samples": 3}),
    ]
    assert comparable.problems(rows) == [
        "runs with different settings: single: max_rounds=2, max_samples unset; "
        "accountable: max_rounds=5, max_samples=3"
    ]


def test_compare_refuses_configurations_that_ran_other_tasks(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rows = [row("single", "T/0"), row("single", "T/1"), row("accountable", "T/0")]
    assert main(["eval", "compare", folder(tmp_path / "f", rows)]) == 1
    assert (
        "configurations ran different tasks: accountable 1; single 2 (1 beyond the 1 all ran)"
        in capsys.readouterr().err
    )
    assert main(["eval", "compare", str(tmp_path / "f"), "--common"]) == 0


def test_compare_refuses_other_settings_and_changed_code() -> None:
    same = {"max_rounds": 2, "model": "x"}
    rows = [
        row("single", "T/0", settings=same, own_settings={"max_candidates": 1}),
        row("accountable", "T/0", settings={**same, "model": "y"}),
    ]
    assert comparable.problems(rows) == []  # a configuration's own model and settings may differ
    rows[1]["settings"] = {**same, "max_rounds": 5}
    assert comparable.problems(rows)[0].startswith("runs with different settings")
    dev = [row("single", "T/0", dev=True), row("accountable", "T/0", dev=True)]
    assert comparable.problems(dev) == [
        "2 rows ran with --dev on code that differs from its commit (accountable 1, single 1); "
        "they are never published"
    ]
    assert comparable.problems(dev, dev=True) == []
    dirty = [row("single", "T/0"), row("accountable", "T/0", dirty=True)]
    assert comparable.problems(dirty) == [
        "rows of different code: aaaaaaa (single 1); aaaaaaa+dirty (accountable 1)"
    ]


def experiment(tmp_path: Path, body: str) -> str:
    path = tmp_path / "two-models.toml"
    path.write_text(body)
    return str(path)


TWO_MODELS = """description = "one call on two endpoints' models, the first HumanEval task"
benchmark = "humaneval"
limit = 1
settings = { max_rounds = 2 }

[[configurations]]
config = "single"
model = "fake-a"

[[configurations]]
config = "single"
model = "fake-b"
settings = { temperature = 0.5 }
"""


def test_a_dirty_tree_is_refused_before_anything_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(runner, "changed_files", lambda: ["nodes/llm.py"])
    out = tmp_path / "out"
    ran = main(["eval", "run", experiment(tmp_path, TWO_MODELS), "--out", str(out), "--base-url", UNUSED])
    assert ran == 2
    said = capsys.readouterr().err
    assert "refusing to run two-models on code that differs from its commit: nodes/llm.py" in said
    assert not out.exists()


def test_an_experiment_runs_every_configuration_and_records_its_code(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(runner, "changed_files", lambda: ["nodes/llm.py"])
    out = tmp_path / "out"
    with FakeEndpoint([Text(SOLUTION)]) as endpoint:
        assert (
            main(
                [
                    "eval",
                    "run",
                    experiment(tmp_path, TWO_MODELS),
                    "--dev",
                    "--out",
                    str(out),
                    "--base-url",
                    endpoint.url,
                ]
            )
            == 0
        )
    rows = runner.read_rows(out)
    assert sorted(r["config"] for r in rows) == ["single@fake-a", "single@fake-b"]
    assert all(r["experiment"] == "two-models" and r["dev"] is True and r["passed"] for r in rows)
    assert all(len(r["commit"]) == 40 and r["settings"]["max_rounds"] == 2 for r in rows)
    assert {r["config"]: r["settings"]["temperature"] for r in rows} == {
        "single@fake-a": 0.0,
        "single@fake-b": 0.5,
    }
    assert all(r["model_sha256"] == {} for r in rows)  # endpoint models: no weights to hash
    # A setting the experiment gives one configuration is that configuration's own: the two compare.
    assert {r["config"]: r["own_settings"] for r in rows} == {
        "single@fake-a": {},
        "single@fake-b": {"temperature": 0.5},
    }
    assert main(["eval", "compare", str(out), "--dev"]) == 0


def test_an_interrupted_experiment_reports_the_configurations_that_finished(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(runner, "changed_files", lambda: ["nodes/llm.py"])
    run = runner.run

    def second_fails(benchmark: Any, config: Any, *args: Any, **kwargs: Any) -> Any:
        if config.name == "single@fake-b":
            raise RuntimeError("the model server went away")
        return run(benchmark, config, *args, **kwargs)

    monkeypatch.setattr(runner, "run", second_fails)
    out = tmp_path / "out"
    with FakeEndpoint([Text(SOLUTION)]) as endpoint:
        assert (
            main(
                [
                    "eval",
                    "run",
                    experiment(tmp_path, TWO_MODELS),
                    "--dev",
                    "--out",
                    str(out),
                    "--base-url",
                    endpoint.url,
                ]
            )
            == 1
        )
    # A run spanning sessions shows what has finished while its rows resume.
    assert list(json.loads((out / "summary.json").read_text())) == ["single@fake-a"]


@pytest.mark.parametrize(
    ("body", "problem"),
    [
        (
            TWO_MODELS.replace('config = "single"\nmodel = "fake-b"', 'config = "best"'),
            "humaneval has no configuration best",
        ),
        (TWO_MODELS.replace("max_rounds = 2", "max_round = 2"), "no run setting max_round"),
        (TWO_MODELS.replace('benchmark = "humaneval"', 'benchmark = "mbpp"'), "no benchmark 'mbpp'"),
        ("benchmark = 3", "two-models.toml"),
    ],
)
def test_a_bad_experiment_is_refused_with_its_reason(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], body: str, problem: str
) -> None:
    assert main(["eval", "run", experiment(tmp_path, body), "--out", str(tmp_path / "out")]) == 2
    assert problem in capsys.readouterr().err and not (tmp_path / "out").exists()


def test_the_shipped_experiments_load() -> None:
    shipped = sorted(declared.EXPERIMENTS.glob("*.toml"))
    assert shipped
    for path in shipped:
        declared.benchmark_of(declared.load(path.stem))


def test_a_rerun_at_another_commit_needs_a_folder_of_its_own(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(runner, "changed_files", lambda: [])
    out = folder(tmp_path / "out", [row("single@fake-a", "HumanEval/0")])
    assert main(["eval", "run", experiment(tmp_path, TWO_MODELS), "--out", out, "--base-url", UNUSED]) == 2
    assert "holds rows of other code (aaaaaaa); choose another --out" in capsys.readouterr().err
    assert len(runner.read_rows(Path(out))) == 1


def test_a_model_no_endpoint_serves_is_refused_before_anything_runs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    monkeypatch.delenv("ACCORD_BASE_URL", raising=False)
    assert main(["eval", "run", experiment(tmp_path, TWO_MODELS), "--out", str(tmp_path / "out")]) == 2
    assert "fake-a" in capsys.readouterr().err and not (tmp_path / "out").exists()


MATCHED = """description = "the plain call given another configuration's tokens, the first HumanEval task"
benchmark = "humaneval"
limit = 1

[[configurations]]
config = "single"
model = "fake"

[[configurations]]
config = "best-of-n"
model = "fake"
settings = { best_of = 3 }

[[configurations]]
config = "self-repair"
model = "fake"
same_tokens_as = "best-of-n"
"""


WRONG_SOLUTION = "```python\ndef has_close_elements(numbers, threshold):\n    return False\n```"
"""Right on one of HumanEval/0's stated examples and wrong on the other: no sample ends a baseline early."""


def test_a_baseline_given_a_teams_tokens_is_capped_task_by_task_at_its_spend(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(runner, "changed_files", lambda: [])
    out = tmp_path / "out"
    with FakeEndpoint([Text(WRONG_SOLUTION)]) as endpoint:
        assert (
            main(
                ["eval", "run", experiment(tmp_path, MATCHED), "--out", str(out), "--base-url", endpoint.url]
            )
            == 0
        )
    rows = {r["config"]: r for r in runner.read_rows(out)}
    # best-of-n, uncapped, made its three calls; self-repair, capped at their tokens, as many and no more.
    team = rows["best-of-n@fake"]
    assert team["llm_calls"] == 3
    spent = team["tokens_in"] + team["tokens_out"]
    matched = rows["self-repair@fake"]
    assert matched["settings"]["token_cap"] == spent
    assert matched["llm_calls"] == 3 and matched["tokens_in"] + matched["tokens_out"] <= spent
    said = " ".join(capsys.readouterr().err.split())
    assert (
        f"self-repair@fake: each task capped at best-of-n@fake's tokens on it (mean {spent:,} per task)"
        in said
    )


def test_token_caps_are_the_teams_spend_on_each_task_and_need_it_declared_first() -> None:
    rows = [
        row("single", "T/0", tokens_in=300, tokens_out=31),
        row("accountable", "T/0", tokens_in=300, tokens_out=31),
        row("accountable", "T/1", tokens_in=2000, tokens_out=293),
    ]
    assert declared.token_caps(rows, "accountable") == {"T/0": 331, "T/1": 2293}
    with pytest.raises(ValueError, match="no rows of team"):
        declared.token_caps(rows, "team")
    runs = [declared.ConfigurationRun(config=c) for c in ("single", "accountable")]
    matched = declared.ConfigurationRun(config="best-of-n", same_tokens_as="accountable")
    assert declared.team_of(tuple(runs), matched) == 1
    with pytest.raises(ValueError, match="needs one accountable declared before it"):
        declared.team_of(tuple(runs[:1]), matched)
    with pytest.raises(ValueError, match="caps its tokens; the configuration sets them too"):
        declared.team_of(tuple(runs), matched.model_copy(update={"settings": {"best_of": 2}}))


def test_a_baseline_stops_at_its_first_reply_passing_the_stated_examples(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(runner, "changed_files", lambda: [])
    out = tmp_path / "out"
    with FakeEndpoint([Text(SOLUTION)]) as endpoint:
        main(["eval", "run", experiment(tmp_path, MATCHED), "--out", str(out), "--base-url", endpoint.url])
    rows = {r["config"]: r for r in runner.read_rows(out)}
    assert rows["best-of-n@fake"]["passed"] and rows["best-of-n@fake"]["llm_calls"] == 1


def test_a_same_budget_comparison_is_refused_unless_the_baseline_was_capped_at_the_teams_spend() -> None:
    team = {"spent": {"T/0": 300, "T/1": 900}}
    capped = {"spent": {"T/0": 280, "T/1": 900}, "caps": {"T/0": 300, "T/1": 900}}
    assert goals.unmatched(team, capped) == ""
    assert "not capped" in goals.unmatched(team, {"spent": {"T/0": 300}})
    low = {**capped, "caps": {"T/0": 100, "T/1": 900}}
    assert goals.unmatched(team, low) == "its cap was below the team's spend on 1 tasks (first: T/0)"
    over = {**capped, "spent": {"T/0": 301, "T/1": 900}}
    assert goals.unmatched(team, over) == "it spent more than the team on 1 tasks (first: T/0)"
