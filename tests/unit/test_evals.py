"""The eval runner, its configurations and its reports, on HumanEval/0 with scripted models."""

from __future__ import annotations

import fcntl
import json
import os
import re
import threading
import time
from typing import Any

import pytest

from accord.accountability import mast
from accord.cli import main
from accord.evals import configs, runner
from accord.evals.benchmarks import BENCHMARKS, humaneval
from accord.evals.benchmarks.humaneval import problems
from accord.evals.configs import fixed_sequence, rerouting, skipping
from accord.evals.configs import pipeline as pipeline_configs
from accord.evals.configs.development import CONFIGURATIONS, PIPELINE
from accord.evals.reports import plots
from accord.evals.reports import summary as report
from accord.graphs.development import LIFECYCLE
from accord.nodes.development import peers
from accord.runtime.local_model import DEFAULT_MODEL
from accord.state.artifacts import Example, Plan, Subtask
from accord.state.context import Context
from tests.conftest import fenced
from tests.scripted import ScriptedChatModel

HUMANEVAL = BENCHMARKS["humaneval"]
ZERO = problems()["HumanEval/0"]
SOLVED = fenced(
    "def has_close_elements(numbers, threshold):\n" + problems()["HumanEval/0"]["canonical_solution"]
)
WRONG = fenced("def has_close_elements(numbers, threshold):\n    return False\n")
TESTS = "```python\nassert has_close_elements([], 0.5) == False\n```"
PLAN = {
    "subtasks": [
        {
            "title": "compare pairs",
            "description": "check every pair's distance",
            "function": "has_close_elements(numbers, threshold)",
            "acceptance_criteria": ["two numbers closer than threshold -> True"],
        }
    ]
}
APPROVE = {"decision": "approve", "issues": []}


def models(code: str = SOLVED, reviewer: Any = APPROVE) -> dict[str, ScriptedChatModel]:
    scripts = {
        "planner": [PLAN],
        "coder": [code],
        "tester": [TESTS],
        "debugger": [code],
        "reviewer": [reviewer],
    }
    return {role: ScriptedChatModel(script=s, repeat_last=True) for role, s in scripts.items()}


def evaluate(
    tmp_path: Any,
    config: str,
    scripted: dict[str, ScriptedChatModel],
    ids: tuple[str, ...] = ("HumanEval/0",),
) -> list[dict[str, Any]]:
    tasks = runner.select(HUMANEVAL.tasks(), ids)
    return runner.run(
        HUMANEVAL, CONFIGURATIONS[config], tasks, tmp_path, Context(first_attempt=False), models=scripted
    )


def test_a_fixed_sequence_runs_each_stage_once_and_fails_only_on_fail():
    pipeline = fixed_sequence(LIFECYCLE, PIPELINE)
    assert pipeline.delta[("testing", "tests_failed")].target == "debugging"
    assert pipeline.delta[("debugging", "pass")].target == "reviewing"  # never back to testing
    # Where the lifecycle goes past stages, so does the sequence: tests that pass need no fix, and an
    # application's code (no candidates) has no test design or selection.
    assert pipeline.delta[("testing", "pass")].target == "reviewing"
    assert pipeline.delta[("implementing", "pass")].target == "testing"
    assert pipeline.delta[("implementing", "tests_needed")].target == "designing_tests"
    assert pipeline.delta[("reviewing", "changes")].target == "completed"
    assert pipeline.delta[("planning", "fail")].target == "failed"
    assert not pipeline.counters


def test_skipping_a_stage_sends_what_entered_it_where_its_pass_led():
    without = skipping(LIFECYCLE, "designing_tests")
    assert "designing_tests" not in without.by_name
    assert without.delta[("implementing", "tests_needed")].target == "selecting"
    assert without.counters == LIFECYCLE.counters  # the loops stay bounded


def test_rerouting_changes_one_transition_and_refuses_one_that_does_not_exist():
    rerouted = rerouting(LIFECYCLE, "selecting", "unsolved", "testing")
    assert rerouted.delta[("selecting", "unsolved")].target == "testing"
    assert {k: t for k, t in rerouted.delta.items() if k != ("selecting", "unsolved")} == {
        k: t for k, t in LIFECYCLE.delta.items() if k != ("selecting", "unsolved")
    }
    current = LIFECYCLE.delta[("selecting", "unsolved")].target
    assert rerouting(LIFECYCLE, "selecting", "unsolved", current).transitions == LIFECYCLE.transitions
    with pytest.raises(ValueError, match="no transition from selecting on nonsense"):
        rerouting(LIFECYCLE, "selecting", "nonsense", "testing")


def _path(tmp_path: Any, config: str, scripted: dict[str, ScriptedChatModel]) -> list[str]:
    evaluate(tmp_path, config, scripted)
    return [v["stage"] for v in _final_state(tmp_path, config)["verdicts"] if v.get("target")]


def test_the_accuracy_ablations_each_drop_one_ingredient(tmp_path):
    full = _path(tmp_path / "a", "accountable", scripted := models())
    assert full[2:5] == ["implementing", "designing_tests", "selecting"] and scripted["coder"].calls == 4
    no_tester = _path(tmp_path / "t", "no-tester", scripted := models())
    assert "designing_tests" not in no_tester and "selecting" in no_tester and scripted["tester"].calls == 0
    _path(tmp_path / "d", "no-diversity", scripted := models())
    assert scripted["coder"].calls == 1
    no_selection = _path(tmp_path / "s", "no-selection", models())
    assert "designing_tests" in no_selection and "selecting" not in no_selection


def test_debug_unsolved_sends_the_pool_that_accountable_fails_to_the_debugger(tmp_path):
    # Each candidate passes one of the two examples: a pool with no candidate passing both.
    pool = [WRONG, fenced("def has_close_elements(numbers, threshold):\n    return True\n")]

    def drawing_the_pool() -> dict[str, ScriptedChatModel]:
        return {**models(), "coder": ScriptedChatModel(script=pool, repeat_last=True)}

    full = _path(tmp_path / "a", "accountable", scripted := drawing_the_pool())
    assert full[-1] == "selecting" and scripted["debugger"].calls == 0
    assert _final_state(tmp_path / "a", "accountable")["verdicts"][-1]["outcome"] == "unsolved"
    debugged = _path(tmp_path / "d", "debug-unsolved", scripted := drawing_the_pool())
    assert debugged[4:7] == ["selecting", "testing", "debugging"] and scripted["debugger"].calls > 0


@pytest.mark.parametrize("config", ["single", "single-coder", "single-holistic"])
def test_single_is_one_call_that_sees_only_the_prompt(tmp_path, config):
    scripted = models()
    [row] = evaluate(tmp_path, config, scripted)
    assert row["passed"] and row["llm_calls"] == 1 and row["status"] == "completed"
    assert scripted["coder"].calls == 1 and scripted["planner"].calls == 0
    # The detectors see that nothing tested the code before completion.
    assert [f["mode"] for f in row["mast"]] == ["FM-3.3"]


def test_best_of_n_keeps_the_sample_that_passes_most_stated_examples(tmp_path):
    always = fenced("def has_close_elements(numbers, threshold):\n    return True\n")
    coder = ScriptedChatModel(script=[WRONG, WRONG, always, SOLVED], repeat_last=True)
    tasks = runner.select(HUMANEVAL.tasks(), ("HumanEval/0",))
    [row] = runner.run(
        HUMANEVAL,
        CONFIGURATIONS["best-of-n"],
        tasks,
        tmp_path,
        Context(best_of=4),
        models={**models(), "coder": coder},
    )
    # WRONG and `always` each pass one of the docstring's two examples; only SOLVED passes both, and the
    # sampling stops there, within best_of; a repeated reply is not run again.
    assert row["passed"] and row["llm_calls"] == 4 and coder.calls == 4
    ledger = _final_state(tmp_path, "best-of-n")["ledger"]
    assert [e["detail"] for e in ledger if e["kind"] == "sandbox"] == [
        "sample 1: 1/2 examples",
        "sample 2: 1/2 examples",
        "sample 3: 2/2 examples",
    ]
    assert any(e["kind"] == "retry" and "sample 2 repeats" in e["detail"] for e in ledger)
    # Among equals the earliest is kept: the first call is single's own, so best-of-n never does worse
    # than single on the examples.
    tied = ScriptedChatModel(script=[WRONG, always], repeat_last=True)
    [row] = runner.run(
        HUMANEVAL,
        CONFIGURATIONS["best-of-n"],
        tasks,
        tmp_path / "tied",
        Context(best_of=2),
        models={**models(), "coder": tied},
    )
    assert (
        not row["passed"]
        and "return False" in _final_state(tmp_path / "tied", "best-of-n")["code"]["files"]["solution.py"]
    )


def test_self_repair_feeds_the_failing_examples_back_until_the_answer_passes_them(tmp_path):
    always = fenced("def has_close_elements(numbers, threshold):\n    return True\n")
    coder = ScriptedChatModel(script=[WRONG, always, SOLVED, WRONG], repeat_last=True)
    tasks = runner.select(HUMANEVAL.tasks(), ("HumanEval/0",))
    [row] = runner.run(
        HUMANEVAL,
        CONFIGURATIONS["self-repair"],
        tasks,
        tmp_path,
        Context(best_of=5),
        models={**models(), "coder": coder},
    )
    # The third answer passes both examples, so no fourth call is made.
    assert row["passed"] and row["llm_calls"] == 3 and coder.calls == 3
    ledger = _final_state(tmp_path, "self-repair")["ledger"]
    assert [e["detail"] for e in ledger if e["kind"] == "sandbox"] == [
        "answer 1: 1/2 examples",
        "answer 2: 1/2 examples",
        "answer 3: 2/2 examples",
    ]
    # A repair sees the task, its own latest answer and that answer's failures, as one chat.
    first, repair = coder.prompts[0], coder.prompts[2]
    assert repair.startswith(first) and "return True" in repair and "return False" not in repair
    assert (
        "Running the script on the problem's examples fails" in repair
        and "returned True, expected False" in repair
    )
    # At most best_of calls; the answer passing most examples is kept, the earliest among equals.
    stuck = ScriptedChatModel(script=[WRONG, always], repeat_last=True)
    [row] = runner.run(
        HUMANEVAL,
        CONFIGURATIONS["self-repair"],
        tasks,
        tmp_path / "stuck",
        Context(best_of=3),
        models={**models(), "coder": stuck},
    )
    assert not row["passed"] and stuck.calls == 3
    assert "return False" in _final_state(tmp_path / "stuck", "self-repair")["code"]["files"]["solution.py"]


def test_blame_by_the_stated_examples_is_set_beside_blame_by_the_hidden_tests(tmp_path):
    # Passes both examples the docstring states, fails the hidden tests: only the benchmark knows.
    lucky = fenced("def has_close_elements(numbers, threshold):\n    return len(numbers) > 5\n")
    [fooled] = evaluate(tmp_path, "single", models(code=lucky))
    assert fooled["blame"]["final_correct"] is False and fooled["blame"]["origin"]["role"] == "coder"
    assert fooled["live_blame"]["final_correct"] is True and fooled["live_blame"]["origin"] is None
    [right] = evaluate(tmp_path, "accountable", models())
    assert right["live_blame"]["final_correct"] is right["blame"]["final_correct"] is True
    summary = report.summarize(runner.read_rows(tmp_path))
    assert summary["single"]["live_blame"] == {
        "tasks": 1,
        "same_origin": 0,
        "origin_kappa": 0.0,
        "same_final": 0,
        "final_kappa": 0.0,
        "role_runs": 0,
        "same_acts": 0,
    }
    agreement = summary["accountable"]["live_blame"]
    assert agreement["same_origin"] == agreement["same_final"] == 1
    assert agreement["same_acts"] == agreement["role_runs"] > 0
    assert "## Blame without the benchmark's answers" in report.markdown(summary)


def test_single_completion_continues_the_stub_exactly_as_given(tmp_path):
    scripted = models(code=ZERO["canonical_solution"])
    [row] = evaluate(tmp_path, "single-completion", scripted)
    assert row["passed"] and row["llm_calls"] == 1 and scripted["coder"].calls == 1
    assert scripted["coder"].prompts == [f"human: {ZERO['prompt']}"]  # no instruction, no system prompt
    # The continuation is scored as it is: a body that breaks the function is not repaired.
    [row] = evaluate(tmp_path / "broken", "single-completion", models(code="    return (\n"))
    assert not row["passed"] and row["llm_calls"] == 1


def test_simple_runs_every_role_once_with_free_text_handoffs(tmp_path):
    scripted = models(
        reviewer={
            "decision": "request_changes",
            "issues": [{"severity": "major", "location": "solution.py", "description": "style"}],
        }
    )
    [row] = evaluate(tmp_path, "simple", scripted)
    assert row["status"] == "completed" and row["passed"]  # the review's changes are not acted on
    # The Coder is asked for max_candidates implementations; the Planner and the Tester once. The tests
    # pass, so the Debugger has nothing to fix; the Reviewer runs the integration cases, and with all
    # passing it needs no model review.
    assert {role: m.calls for role, m in scripted.items()} == {
        "planner": 1,
        "coder": 4,
        "tester": 1,
        "debugger": 0,
        "reviewer": 0,
    }
    graph = CONFIGURATIONS["simple"].build(checkpointer=None)
    assert "reviewing" in graph.get_graph().nodes
    state = _final_state(tmp_path, "simple")
    assert state["handoffs"] == []
    assert not [e for e in state["ledger"] if e["kind"] == "contract"]
    handoffs = [(e["role"], e["outcome"]) for e in state["ledger"] if e["kind"] == "handoff"]
    assert handoffs[:4] == [
        ("intake", "planner"),
        ("planner", "coder"),
        ("coder", "tester"),
        ("tester", "tester"),
    ]


def _final_state(out: Any, config: str) -> dict[str, Any]:
    from accord.graphs import store

    with store.checkpointer(out / runner.CHECKPOINTS) as saver:
        graph = CONFIGURATIONS[config].build(checkpointer=saver)
        return dict(graph.get_state(store.config(f"humaneval/{config}/HumanEval/0")).values)


def test_accountable_blames_the_coder_for_wrong_code_and_the_debugger_for_nothing(tmp_path):
    [row] = evaluate(tmp_path, "accountable", models(code=WRONG))
    assert not row["passed"] and row["status"] == "failed"
    assert row["blame"]["final_correct"] is False
    assert row["blame"]["origin"]["role"] == "coder"
    assert row["blame"]["roles"]["debugger"]["repairs"] == 0
    # The second round's review meets the first's failing cases again: the run ends there.
    assert row["rounds"] == 2 and row["reason"].startswith("evidence repeats:")


def _released(peer: peers.Peer) -> bool:
    try:
        peer.checkout()
    except peers.PeerUnavailable:
        return False
    return True


PEERS = {"mapcoder": peers.MAPCODER, "agentcoder": peers.AGENTCODER}
"""The configurations that run a peer's released code, which only a checkout of it makes runnable."""


@pytest.mark.parametrize(
    "config",
    [
        pytest.param(
            name,
            marks=pytest.mark.skipif(
                name in PEERS and not _released(PEERS[name]),
                reason=f"{name}'s released code is not checked out (ACCORD_PEERS)",
            ),
        )
        for name in CONFIGURATIONS
    ],
)
def test_no_hidden_test_text_ever_reaches_a_prompt(tmp_path, config):
    test = problems()["HumanEval/0"]["test"]
    hidden = [line.strip() for line in test.splitlines() if len(line.strip()) > 12]
    assert len(hidden) >= 5
    scripted = models(code=WRONG)  # failing code makes every role run, retry and see feedback
    [row] = evaluate(tmp_path, config, scripted)
    # ...through a second round: each configuration's handoffs reach roles that take them (a refused
    # message is MAST's FM-2.4).
    assert "FM-2.4" not in [f["mode"] for f in row["mast"]], row["reason"]
    prompts = "\n".join(p for m in scripted.values() for p in m.prompts)
    assert "has_close_elements" in prompts
    leaked = [line for line in hidden if line in prompts]
    assert leaked == [], f"leaked hidden tests: {leaked}"
    assert "def check(" not in prompts


def test_an_interrupted_eval_resumes_without_redoing_finished_work(tmp_path):
    def down(messages: Any) -> Any:
        raise RuntimeError("tester endpoint down")

    broken = models()
    broken["tester"].script = [down]
    with pytest.raises(RuntimeError, match="1 tasks did not finish"):
        evaluate(tmp_path, "accountable", broken)
    assert runner.read_rows(tmp_path) == []
    assert broken["planner"].calls == 1

    again = models()
    [row] = evaluate(tmp_path, "accountable", again)
    assert row["passed"] and row["resumed"]
    assert re.fullmatch(r"[0-9a-f]{7,}(\+dirty)?", row["version"])  # the commit that produced it
    assert again["planner"].calls == 0 and again["coder"].calls == 0 and again["tester"].calls == 1

    third = models()
    assert evaluate(tmp_path, "accountable", third) == [row]  # a task with a row is never rerun
    assert all(m.calls == 0 for m in third.values())


def test_reports_compare_configurations_with_deltas_and_plots(tmp_path):
    first, second = tmp_path / "a", tmp_path / "b"
    evaluate(first, "simple", models(code=WRONG))
    evaluate(second, "accountable", models())
    assert main(["eval", "compare", str(first), str(second), "--out", str(tmp_path / "both")]) == 0
    summary = json.loads((tmp_path / "both" / "summary.json").read_text())
    assert list(summary) == ["simple", "accountable"]
    assert summary["simple"]["pass@1"] == 0.0 and summary["accountable"]["pass@1"] == 1.0
    text = (tmp_path / "both" / "report.md").read_text()
    assert "| accountable | 1 | 1 | 100.0% [20.7–100.0] | +100.0 pts |" in text
    assert "| simple | 1 | 0 | 0 | 1 (HumanEval/0) | -1 | 1 | no difference measured |" in text
    for png in ("failures_per_round.png", "accuracy_cost.png"):
        assert (tmp_path / "both" / png).read_bytes()[:4] == b"\x89PNG"


def test_each_row_says_where_its_tokens_and_time_go_and_compare_fills_rows_written_without(tmp_path):
    [row] = evaluate(tmp_path, "accountable", models())
    spent = row["by_role"]
    assert spent["planner"]["llm_calls"] == 1 and spent["coder"]["llm_calls"] >= 1
    assert sum(r["tokens"] for r in spent.values()) == row["tokens_in"] + row["tokens_out"]
    assert spent["tester"]["sandbox_s"] > 0  # the tester runs the candidates against its tests

    results = tmp_path / runner.RESULTS  # a row from before rows carried it: the checkpoints still know
    results.write_text(json.dumps({k: v for k, v in row.items() if k != "by_role"}) + "\n")
    assert main(["eval", "compare", str(tmp_path)]) == 0
    assert runner.read_rows(tmp_path) == [row]
    assert runner.fill_role_costs(tmp_path) == 0  # nothing left to fill
    costs = json.loads((tmp_path / "summary.json").read_text())["accountable"]["cost_by_role"]
    assert costs["tasks"] == 1 and costs["roles"]["planner"]["calls_per_task"] == 1.0
    assert sum(r["token_share"] for r in costs["roles"].values()) == pytest.approx(1.0, abs=0.01)


def test_a_row_appended_while_compare_rewrites_the_results_is_kept(tmp_path, monkeypatch):
    [row] = evaluate(tmp_path, "accountable", models())
    results = tmp_path / runner.RESULTS
    results.write_text(json.dumps({k: v for k, v in row.items() if k != "by_role"}) + "\n")
    late = {**row, "id": "HumanEval/1", "thread": "late"}
    appending = threading.Thread(target=runner.Recorder(tmp_path).add, args=(late,))
    costs = runner.role_costs

    def append_midway(ledger: Any) -> dict[str, Any]:  # an eval finishes a task during the rewrite
        folder = os.open(tmp_path, os.O_RDONLY)  # a descriptor of its own: flock sees another holder
        try:
            with pytest.raises(BlockingIOError):  # the rewrite holds the results lock...
                fcntl.flock(folder, fcntl.LOCK_EX | fcntl.LOCK_NB)
        finally:
            os.close(folder)
        appending.start()  # ...so the eval's append waits for it, then lands in the rewritten file
        return costs(ledger)

    monkeypatch.setattr(runner, "role_costs", append_midway)
    assert runner.fill_role_costs(tmp_path) == 1
    appending.join()
    assert runner.read_rows(tmp_path) == [row, late]


def _row(config: str, task: str, passed: bool, status: str = "completed") -> dict[str, Any]:
    return {
        "config": config,
        "id": task,
        "passed": passed,
        "status": status,
        "mast": [],
        "cost": 0.0,
        "tokens_in": 10,
        "tokens_out": 5,
        "model": "m",
        "date": "2026-11-23",
        "latency_s": 1.0,
        "llm_calls": 1,
        "blame": {"roles": {}, "origin": None},
    }


def test_compare_pairs_each_configuration_with_accountable_on_the_tasks_both_ran(tmp_path):
    full, ablation = tmp_path / "full", tmp_path / "ablation"
    folders = {
        full: [
            _row("accountable", "T/1", True),
            _row("accountable", "T/2", True),
            _row("accountable", "T/3", False),
            _row("single", "T/1", True),
            _row("single", "T/2", False),
            _row("single", "T/3", True),
        ],
        ablation: [_row("no-tester", "T/1", False), _row("no-tester", "T/2", True)],
    }
    for folder, rows in folders.items():
        folder.mkdir()
        (folder / "results.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))

    assert main(["eval", "compare", str(full), str(ablation), "--common", "--out", str(tmp_path / "c")]) == 0
    summary = json.loads((tmp_path / "c" / "summary.json").read_text())
    assert {name: s["ids"] for name, s in summary.items()} == {
        "single": ["T/1", "T/2"],
        "accountable": ["T/1", "T/2"],
        "no-tester": ["T/1", "T/2"],
    }
    assert summary["no-tester"]["versus"] == {
        "reference": "accountable",
        "tasks": 2,
        "both": 1,
        "only_this": [],
        "only_reference": ["T/1"],
    }
    assert "versus" not in summary["accountable"]
    text = (tmp_path / "c" / "report.md").read_text()
    assert "| no-tester | 2 | 1 | 0 | 1 (T/1) | -1 |" in text

    everything = report.summarize(report.collect([full, ablation]))
    assert everything["single"]["versus"] == {
        "reference": "accountable",
        "tasks": 3,
        "both": 1,
        "only_this": ["T/3"],
        "only_reference": ["T/2"],
    }


def test_the_report_compares_each_configuration_with_simple_on_the_tasks_both_ran(tmp_path):
    failure = {
        "mode": "FM-3.3",
        "category": "Task Verification",
        "round": 1,
        "role": "coder",
        "retried": False,
    }
    caught = {**failure, "mode": "FM-1.2", "category": "Specification Issues", "retried": True}
    rows = [
        {**_row("simple", "T/1", False), "mast": [failure, failure]},
        _row("simple", "T/2", True),
        {**_row("simple", "T/3", False), "mast": [failure]},
        _row("accountable", "T/1", True),
        {**_row("accountable", "T/2", True), "mast": [failure, caught]},
    ]
    summary = report.summarize(rows)
    assert summary["accountable"]["against_baseline"] == {
        "tasks": 2,
        "mast_change": 0.0,
        "baseline": {
            "pass@1": 0.5,
            "mast_per_task": 1.0,
            "mast_left_per_task": 1.0,
            "mast_by_category": {
                "Specification Issues": 0,
                "Inter-Agent Misalignment": 0,
                "Task Verification": 2,
            },
        },
        "this": {
            "pass@1": 1.0,
            "mast_per_task": 1.0,
            "mast_left_per_task": 0.5,
            "mast_by_category": {
                "Specification Issues": 1,
                "Inter-Agent Misalignment": 0,
                "Task Verification": 1,
            },
        },
    }
    assert "against_baseline" not in summary["simple"]
    assert summary["accountable"]["mast"]["left_per_task"] == 0.5  # the caught one is counted apart
    text = report.markdown(summary)
    assert (
        "| accountable | 2 | 50.0% → 100.0% | 1.00 → 1.00 | +0% | 0 / 0 / 2 → 1 / 0 / 1 | 1.00 → 0.50 |"
        in text
    )
    assert "- `accountable`: 0.50 of 1.00" in text
    # Rows recorded before findings said whether they were retried give no split, not a wrong one.
    old = [{**r, "mast": [{k: v for k, v in f.items() if k != "retried"} for f in r["mast"]]} for r in rows]
    assert report.summarize(old)["accountable"]["mast"]["left_per_task"] is None


def test_the_report_checks_each_run_verdict_against_the_hidden_tests(tmp_path):
    rows = [
        _row("accountable", "T/1", True),
        _row("accountable", "T/2", False),
        _row("accountable", "T/10", True, "failed"),
        _row("accountable", "T/3", True, "failed"),
        _row("accountable", "T/4", False, "failed"),
    ]
    (tmp_path / "results.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))

    assert main(["eval", "compare", str(tmp_path), "--out", str(tmp_path / "r")]) == 0
    summary = json.loads((tmp_path / "r" / "summary.json").read_text())
    assert summary["accountable"]["verdicts"] == {
        "completed_correct": 1,
        "completed_wrong": 1,
        "failed_correct": ["T/3", "T/10"],
        "failed_wrong": 1,
        "agreement": 0.4,
    }
    assert "| accountable | 1 | 1 | 2 (T/3, T/10) | 1 | 40.0% |" in (tmp_path / "r" / "report.md").read_text()


def test_the_report_names_each_model_a_configuration_called_once():
    every, critic_unreached = "gemma3-270m, qwen2.5-coder-0.5b, qwen2.5-coder-1.5b", "qwen2.5-coder-1.5b"
    rows = [
        {**_row("simple@CBA", "T/1", True), "model": every},
        {**_row("simple@CBA", "T/2", True), "model": critic_unreached},
    ]
    summary = report.summarize(rows)
    assert summary["simple@CBA"]["models"] == ["gemma3-270m", "qwen2.5-coder-0.5b", "qwen2.5-coder-1.5b"]
    assert "model gemma3-270m, qwen2.5-coder-0.5b, qwen2.5-coder-1.5b, run" in report.markdown(summary)


def test_pareto_frontier_keeps_only_undominated_points():
    points = [(10.0, 50.0), (5.0, 40.0), (20.0, 45.0), (30.0, 70.0), (5.0, 30.0)]
    assert plots.pareto(points) == [(5.0, 40.0), (10.0, 50.0), (30.0, 70.0)]


def test_selecting_unknown_ids_is_a_clear_error():
    with pytest.raises(KeyError, match="HumanEval/999"):
        runner.select(HUMANEVAL.tasks(), ["HumanEval/999"])
    assert [t.id for t in runner.select(HUMANEVAL.tasks(), limit=3)] == [f"HumanEval/{i}" for i in range(3)]


def test_results_become_a_langsmith_experiment_offline_with_nothing_sent(tmp_path, monkeypatch, capsys):
    import socket

    from accord.evals import langsmith_experiment

    for name in [k for k in os.environ if k.startswith(("LANGSMITH_", "LANGCHAIN_"))]:
        monkeypatch.delenv(name)
    [row] = evaluate(tmp_path, "accountable", models(code=WRONG))
    assert not row["passed"]
    connections: list[Any] = []
    for name in ("create_connection", "getaddrinfo"):  # any lookup or connection attempt is caught
        monkeypatch.setattr(socket, name, lambda *a, **k: connections.append(a) or 1 / 0)
    results = langsmith_experiment.push(
        "humaneval", "accountable", runner.select(HUMANEVAL.tasks(), ("HumanEval/0",)), [row], upload=False
    )
    [result] = list(results)
    scores = {e.key: e.score for e in result["evaluation_results"]["results"]}
    assert scores["pass@1"] == 0.0 and scores["tokens"] == row["tokens_in"] + row["tokens_out"] > 0
    assert scores["mast_failures"] == len(row["mast"])
    assert result["example"].inputs["prompt"] == problems()["HumanEval/0"]["prompt"]
    assert problems()["HumanEval/0"]["test"] not in json.dumps(result["example"].inputs)  # no hidden tests

    # The CLI: the task already has its row, so no model is called; the experiment follows the report.
    assert main(["eval", "humaneval", "--ids", "HumanEval/0", "--out", str(tmp_path), "--langsmith"]) == 0
    assert "pass@1 0.0% over 1 tasks; evaluated locally (no LANGSMITH_API_KEY)" in capsys.readouterr().err
    time.sleep(1)  # a client's background thread would have asked for the endpoint's /info by now
    assert connections == []


def test_a_run_on_named_models_carries_them_in_its_configuration_name():
    single, pipeline = CONFIGURATIONS["single"], pipeline_configs.CONFIGURATIONS["accountable"]
    assert configs.on_models(single, Context()) is single
    # The default team's Coder is the 1.5B model: naming it names the default; the 0.5B model is not.
    assert configs.on_models(single, Context(model="qwen2.5-coder-1.5b")) is single
    smaller = configs.on_models(single, Context(model=DEFAULT_MODEL))
    assert smaller.name == "single@qwen2.5-coder-0.5b" and configs.base_name(smaller.name) == "single"
    team = CONFIGURATIONS["accountable"]
    assert configs.on_models(team, Context()) is team
    assert configs.on_models(team, Context(model=DEFAULT_MODEL)).name == "accountable@qwen2.5-coder-0.5b"
    assert configs.speakers(pipeline) == ["planner", "executor", "critic"]  # stage order, no intake
    mix = {"planner": {"model": "gemma3-270m"}, "critic": {"model": "qwen2.5-coder-1.5b"}}
    assert configs.on_models(pipeline, Context(role_models=mix)).name == "accountable@ABC"
    endpoint = Context(role_models={"critic": {"model": "gpt-4o"}})
    assert configs.on_models(pipeline, endpoint).name == (
        "accountable@planner=qwen2.5-coder-0.5b,executor=qwen2.5-coder-0.5b,critic=gpt-4o"
    )


def test_a_plan_is_judged_by_whether_its_examples_hold_on_the_reference_solution():
    steps = (Subtask(title="compare pairs", acceptance_criteria=("close pairs -> True",)),)
    holds = Example(call="has_close_elements([1.0, 2.0], 0.5)", expected="False")
    wrong = Example(call="has_close_elements([1.0, 1.1], 0.5)", expected="False")
    quoted = Example(call="has_close_elements([1.0], 0.5)", expected="'it\\'s'")
    assert humaneval.plan_holds(ZERO, Plan(subtasks=steps, examples=(holds,)))[0] is True
    assert humaneval.plan_holds(ZERO, Plan(subtasks=steps, examples=(holds, wrong))) == (
        False,
        "does not hold: has_close_elements([1.0, 1.1], 0.5) == False",
    )
    assert humaneval.plan_holds(ZERO, Plan(subtasks=steps, examples=(quoted,)))[0] is False
    assert humaneval.plan_holds(ZERO, Plan(subtasks=steps)) is None  # it commits to nothing
    oracle = humaneval.hidden_tests_oracle(ZERO)
    state = {"plan": Plan(subtasks=steps, examples=(wrong,)).model_dump(mode="json")}
    assert oracle.judges["plan"](state, None)[0] is False


def test_the_mast_judge_reads_every_configurations_trajectory_alike(tmp_path):
    seen: list[tuple[list[str], list[str]]] = []

    def judge(trace: Any, codes: list[str]) -> list[Any]:
        seen.append(([s.role for s in trace], codes))
        return [mast.finding("FM-2.2", trace[-1], "asked nothing", judged=True)]

    for config in ("single", "accountable"):
        tasks = runner.select(HUMANEVAL.tasks(), ["HumanEval/0"])
        [row] = runner.run(
            HUMANEVAL,
            CONFIGURATIONS[config],
            tasks,
            tmp_path / config,
            Context(first_attempt=False),
            models=models(),
            judge=judge,
        )
        judged = [f for f in row["mast"] if f["judged"]]
        assert [f["mode"] for f in judged] == ["FM-2.2"], config
        assert all(not f["judged"] for f in row["mast"] if f not in judged)  # the detectors' own
    assert [roles[-1] for roles, _ in seen] == ["coder", "reviewer"]
    assert all("FM-2.2" in codes for _, codes in seen)  # only modes no detector found are asked for


def test_per_task_failures_print_from_the_exact_figure(tmp_path):
    # 155 failures on 164 tasks are 0.9451 a task; rounded to 0.945 first, they would print 0.94.
    failure = {
        "mode": "FM-3.3",
        "category": "Task Verification",
        "round": 1,
        "role": "coder",
        "retried": False,
    }
    rows = [
        {**_row(config, f"T/{i}", True), "mast": [failure] * (i < 155)}
        for config in ("simple", "accountable")
        for i in range(164)
    ]
    summary = report.summarize(rows)
    text = report.markdown(summary)
    assert "| accountable | 164 | 100.0% → 100.0% | 0.95 → 0.95 | +0% |" in text
    assert "- `accountable`: 0.95 of 0.95" in text
