"""Each set's frozen dev/test split covers its tasks exactly once, and runs take the half they name."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from accord.cli import main
from accord.evals import declared, runner
from accord.evals.benchmarks import BENCHMARKS, EvalTask, classeval, splits, user_set
from accord.evals.paths import REPOSITORY_DATA
from accord.evals.reports import summary as report

FUNCTIONS40 = REPOSITORY_DATA / "functions40" / "functions40.jsonl"
JSONL_SETS = {"functions40": FUNCTIONS40, "odex": REPOSITORY_DATA / "odex" / "odex.jsonl"}
"""Frozen as test before any run, then read while Accord changed: dev now."""
HELD_BACK = {
    name: REPOSITORY_DATA / name / f"{name}.jsonl"
    for name in ("mbpp_stated", "mbpp_unstated", "mbpp_holdout")
}
"""The held-back function sets kept as task files, each with its split beside it."""
UNSTATED = REPOSITORY_DATA / "humaneval_unstated" / "humaneval_unstated.jsonl"


@pytest.mark.parametrize("name", sorted(splits.FOLDERS))
def test_every_task_of_a_set_is_dev_or_test_and_never_both(name: str) -> None:
    split = splits.load(splits.path_of(name))
    every = list(classeval.problems()) if name == "classeval" else [t.id for t in BENCHMARKS[name].tasks()]
    assert sorted(split.dev + split.test) == sorted(every)
    assert split.rule


def test_what_was_tuned_on_is_dev_and_the_held_back_sets_are_test() -> None:
    assert splits.load(splits.path_of("humaneval")).test == ()  # the tuning set publishes nothing as test
    classes = splits.load(splits.path_of("classeval"))
    assert len(classes.dev) == 40 and len(classes.test) == 60
    for name, file in HELD_BACK.items():  # frozen before any run: all test
        held_back = splits.load(splits.path_of("jsonl", file))
        assert held_back.dev == () and held_back.test == tuple(t.id for t in user_set(file).tasks()), name
    for name, file in JSONL_SETS.items():  # read while Accord changed: all dev, for good
        tuned = splits.load(splits.path_of("jsonl", file))
        assert tuned.test == () and tuned.dev == tuple(t.id for t in user_set(file).tasks()), name
    every = [t.id for file in HELD_BACK.values() for t in user_set(file).tasks()]
    assert len(every) == len(set(every)) == 497  # no MBPP problem in two sets
    with pytest.raises(ValueError, match="humaneval has no test tasks"):
        splits.ids("humaneval", "test")
    unstated = splits.load(splits.path_of("jsonl", UNSTATED))  # HumanEval without its examples: tuned on
    assert unstated.test == () and unstated.dev == tuple(t.id for t in user_set(UNSTATED).tasks())


def test_a_split_with_an_id_in_both_halves_is_refused(tmp_path: Path) -> None:
    path = tmp_path / splits.SPLIT_FILE
    path.write_text(json.dumps({"rule": "r", "dev": ["a", "b"], "test": ["b"]}))
    with pytest.raises(ValueError, match="ids in both dev and test: b"):
        splits.load(path)
    with pytest.raises(ValueError, match="no split at"):
        splits.load(tmp_path / "missing.json")


def test_an_experiment_on_a_split_runs_that_half_only(tmp_path: Path) -> None:
    path = tmp_path / "logic.toml"
    path.write_text(
        'description = "d"\nbenchmark = "logiqa"\nsplit = "test"\n[[configurations]]\nconfig = "single"\n'
    )
    experiment = declared.load(str(path))
    test = declared.task_ids(experiment)
    assert len(test) == 250 and not set(test) & set(splits.ids("logiqa", "dev"))
    path.write_text(path.read_text().replace('split = "test"', 'split = "test"\nids = ["logiqa_000"]'))
    with pytest.raises(ValueError, match="not in the test split of logiqa: logiqa_000"):
        declared.task_ids(declared.load(str(path)))


def test_eval_refuses_a_split_with_no_tasks_before_anything_runs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    assert main(["eval", "humaneval", "--split", "test", "--out", str(out)]) == 2
    assert "humaneval has no test tasks" in capsys.readouterr().err and not out.exists()


def test_the_data_readme_counts_each_split_as_its_file_does() -> None:
    rows = dict(
        re.findall(r"^\| (\S+)[^|]* \| (\d+ \| \d+) \|$", (REPOSITORY_DATA / "README.md").read_text(), re.M)
    )
    task_files = {**JSONL_SETS, **HELD_BACK, "humaneval_unstated": UNSTATED}
    folders = {folder: name for name, folder in splits.FOLDERS.items()} | dict.fromkeys(task_files, "jsonl")
    assert set(rows) == set(folders)
    for folder, counts in rows.items():
        split = splits.load(splits.path_of(folders[folder], task_files.get(folder)))
        assert counts == f"{len(split.dev)} | {len(split.test)}", folder


def test_a_whole_split_leaves_out_by_name_the_tasks_this_machine_cannot_run() -> None:
    offered = [EvalTask(id=i, prompt=i) for i in ("a", "c", "d")]  # "b" is in the data, not offered here
    tasks, left_out = runner.select_split(offered, ("d", "b", "a"))
    assert [t.id for t in tasks] == ["d", "a"] and left_out == ["b"]
    assert [t.id for t in runner.select_split(offered, ("d", "b", "a"), limit=1)[0]] == ["d"]
    with pytest.raises(KeyError, match="no such tasks: \\['b'\\]"):  # an id a user names is never skipped
        runner.select(offered, ["b", "a"])


def test_a_split_run_names_the_classes_it_leaves_out_and_runs_the_rest(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    test = splits.ids("classeval", "test")
    here = {tid: p for tid, p in classeval.problems().items() if tid != test[0]}  # one reference fails here
    monkeypatch.setattr(classeval, "runnable", lambda: here)
    ran: list[str] = []
    monkeypatch.setattr(runner, "run", lambda _b, _c, tasks, *a, **k: ran.extend(t.id for t in tasks) or [])
    monkeypatch.setattr(report, "collect", lambda dirs: [])  # nothing ran, so nothing to report
    monkeypatch.setattr(report, "write", lambda rows, out: [])
    assert main(["eval", "classeval", "--split", "test", "--out", str(tmp_path / "out")]) == 0
    assert f"cannot run here and are left out: {test[0]}" in " ".join(capsys.readouterr().err.split())
    assert ran == list(test[1:])
