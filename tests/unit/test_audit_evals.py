"""The vulnerability benchmarks through the eval runner: labels stay in the oracle, every configuration
runs, and the report gives precision, recall, F1 and each voter's accuracy."""

from __future__ import annotations

from typing import Any

import pytest

from accord.evals import runner
from accord.evals.benchmarks import BENCHMARKS, splits, vulnerabilities
from accord.evals.reports import classification
from accord.evals.reports import summary as report
from accord.nodes.audit.analysts import QUESTION, REASON_FIRST
from accord.state.context import Context
from tests.scripted import ScriptedChatModel
from tests.unit.test_audit_graph import VULNERABLE, critique

DEVIGN = BENCHMARKS["devign100"]


def analysts(auditor: Any, critic: Any, tester: Any) -> dict[str, ScriptedChatModel]:
    return {
        role: ScriptedChatModel(script=[answer], repeat_last=True)
        for role, answer in (("auditor", auditor), ("critic", critic), ("tester", tester))
    }


@pytest.mark.parametrize("name", ["devign100", "vuln-python100"])
def test_sets_are_balanced_and_no_label_or_cwe_reaches_the_agents(name):
    samples = vulnerabilities.samples(name)
    for half, size in (("dev", 100), ("test", {"devign100": 100, "vuln-python100": 78}[name])):
        ids = splits.ids(name, half)
        assert len(ids) == size and sum(samples[i].vulnerable for i in ids) == size // 2
    for task in BENCHMARKS[name].tasks():
        sample = samples[task.id]
        # The agents get the code as the set holds it and a file name that says only the language.
        assert task.prompt == sample.code and task.inputs == {"source": vulnerabilities.source_name(sample)}
        assert vulnerabilities.source_name(sample) in ("function.c", "function.py")


def test_every_configuration_runs_and_rows_carry_the_label_and_the_votes(tmp_path):
    tasks = runner.select(DEVIGN.tasks(), limit=2)
    labels = [vulnerabilities.samples("devign100")[t.id].vulnerable for t in tasks]
    assert labels == [True, False]
    scripted = analysts(VULNERABLE, critique(VULNERABLE), VULNERABLE)
    for name in ("accountable", "no-tools"):
        rows = runner.run(DEVIGN, DEVIGN.configurations[name], tasks, tmp_path, Context(), models=scripted)
        assert [(r["predicted"], r["passed"]) for r in rows] == [(True, True), (True, False)]
        assert rows[0]["votes"] == {"auditor": True, "critic": True, "tester": True}
        assert rows[0]["blame"]["final_correct"] is True and rows[1]["blame"]["final_correct"] is False
        # Run-time blame by the vote's word: it cannot see that the safe sample's verdict is wrong.
        assert [r["live_blame"]["final_correct"] for r in rows] == [True, True]
        assert rows[1]["live_blame"]["origin"] is None and rows[1]["blame"]["origin"]["role"] == "auditor"
    plain = analysts(
        "The pointer is checked before use, so it is not vulnerable.\nVERDICT: SAFE",
        "A vulnerable read? No: the length is bounded. Verdict: safe",
        "It could look vulnerable, but the copy is bounded; not vulnerable.",
    )
    rows = runner.run(DEVIGN, DEVIGN.configurations["simple"], tasks, tmp_path, Context(), models=plain)
    assert [r["predicted"] for r in rows] == [False, False] and rows[0]["llm_calls"] == 3
    # A small model answers the last words it reads: free text ends on "reason, then VERDICT", typed on
    # the question (its schema puts the evidence first).
    assert all(p.endswith(REASON_FIRST) for m in plain.values() for p in m.prompts)
    assert all(p.rstrip().endswith(QUESTION) for p in scripted["auditor"].prompts)
    single = analysts(VULNERABLE, None, None)
    rows = runner.run(DEVIGN, DEVIGN.configurations["single"], tasks, tmp_path, Context(), models=single)
    assert [r["predicted"] for r in rows] == [True, True] and rows[0]["llm_calls"] == 1
    summary = report.summarize(report.collect([tmp_path]))
    assert list(summary) == ["single", "simple", "accountable", "no-tools"]
    assert summary["accountable"]["classification"]["confusion"] == {
        "tp": 1,
        "fp": 1,
        "tn": 0,
        "fn": 0,
        "no_verdict": 0,
    }
    paths = report.write(report.collect([tmp_path]), tmp_path)
    text = (tmp_path / "report.md").read_text()
    assert "## Verdicts against the labels" in text and (tmp_path / "role_accuracy.png") in paths
    # Saying "vulnerable" to both items is what the all-vulnerable constant does: marked, not praised.
    assert "| single | 50.0% [9.5–90.5] |" in text and text.count("| no better than a constant |") == 4
    assert (
        "Constant verdicts on 1 vulnerable and 1 safe items: all-vulnerable: accuracy 0.50, F1 0.67; "
        "all-safe: accuracy 0.50, F1 —"
    ) in text


def test_classification_metrics():
    rows = [
        {"label": True, "predicted": True, "votes": {"a": True, "b": True}, "final_votes": {}},
        {
            "label": True,
            "predicted": False,
            "votes": {"a": False, "b": True},
            "final_votes": {"a": False, "b": False},
        },
        {
            "label": False,
            "predicted": True,
            "votes": {"a": True, "b": False},
            "final_votes": {"a": True, "b": False},
        },
        {"label": False, "predicted": None, "votes": {}, "final_votes": {}},
    ]
    m = classification.metrics(rows)
    assert m["confusion"] == {"tp": 1, "fp": 1, "tn": 0, "fn": 1, "no_verdict": 1}
    assert (m["accuracy"], m["precision"], m["recall"], m["f1"]) == (0.25, 0.5, 0.5, 0.5)
    assert m["balanced_accuracy"] == 0.25 and m["unanimous_first_round"] == round(1 / 3, 4)
    assert m["role_accuracy"]["a"]["first"] == round(1 / 3, 4)
    # a 1-1 first round counts as vulnerable, as the audit's vote does
    assert m["role_accuracy"]["vote"] == {"first": round(2 / 3, 4), "final": round(1 / 3, 4)}
    assert m["wrong_verdicts"] == 2 and m["followed_when_wrong"] == {"a": 2, "b": 1}
    assert (m["positives"], m["negatives"], m["mcc"]) == (2, 2, -0.5)
    assert not classification.beats_constants(m)
    right = [{"label": label, "predicted": label} for label in (True, True, False, False, True)]
    right[-1]["predicted"] = False  # 4 of 5 right: above both constants' 3 of 5 only by its point estimate
    assert not classification.beats_constants(classification.metrics(right))  # p = 0.34
    many = [{"label": i % 5 < 3, "predicted": i % 5 < 3} for i in range(40)]
    many[-1]["predicted"] = not many[-1]["label"]  # 39 of 40 right against the constants' 24: p < 0.05
    assert classification.beats_constants(classification.metrics(many))
