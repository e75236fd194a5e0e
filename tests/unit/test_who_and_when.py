"""Failure attribution on Who&When's logs: the judge's row per log, and the floors beside it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from accord.evals.benchmarks import who_and_when
from accord.evals.reports import tables
from accord.state.context import Context
from tests.scripted import ScriptedChatModel

HISTORY = [
    {"role": "human", "content": "What is 2 + 2?"},
    {"role": "Orchestrator (thought)", "content": "Ask the WebSurfer."},
    {"role": "WebSurfer", "content": "The page says 5."},
    {"role": "Orchestrator (-> user)", "content": "FINAL ANSWER: 5"},
]
LOG = {
    "file": "Hand-Crafted/1.json",
    "subset": "Hand-Crafted",
    "question": "What is 2 + 2?",
    "ground_truth": "4",
    "history": HISTORY,
    "mistake_agent": "WebSurfer",
    "mistake_step": "2",
}


def test_a_step_is_taken_by_the_agent_its_name_or_role_names():
    assert [who_and_when.agent_of(m) for m in HISTORY] == [
        "human",
        "Orchestrator",
        "WebSurfer",
        "Orchestrator",
    ]
    assert who_and_when.agent_of({"name": "Excel_Expert", "role": "assistant"}) == "Excel_Expert"


def test_a_long_log_is_cut_step_by_step_to_fit_the_judges_context():
    long = [{"role": "WebSurfer", "content": "x" * 10_000} for _ in range(4)]
    # Each of the 4 steps keeps a quarter of the 2,000 characters.
    assert who_and_when.shown(long, limit=2_000).split("\n\n") == [
        f"Step {i} (WebSurfer): " + "x" * 500 for i in range(4)
    ]
    assert who_and_when.shown(HISTORY).endswith("Step 3 (Orchestrator): FINAL ANSWER: 5")


def test_the_floors_need_no_judge():
    other = {**LOG, "history": HISTORY[:3], "mistake_agent": "Orchestrator", "mistake_step": "1"}
    floors = who_and_when.floors([LOG, other])
    # The first agent step is the Orchestrator's step 1: right on the second log only.
    assert floors["first agent step"] == {"agent": 0.5, "step": 0.5}
    # The last step: the Orchestrator at 3 on the first log, the WebSurfer at 2 on the second.
    assert floors["last step"] == {"agent": 0.0, "step": 0.0}
    assert floors["random agent and step (expected)"] == pytest.approx(
        {"agent": 1 / 3, "step": (1 / 4 + 1 / 3) / 2}
    )
    [labels] = [name for name in floors if name.startswith("always ")]
    assert floors[labels]["agent"] == 0.5


def test_the_judge_names_a_step_and_an_agent_and_a_reply_that_does_not_parse_counts_as_none():
    judge = ScriptedChatModel(script=[{"step": 2, "agent": "WebSurfer"}])
    row = who_and_when.attribute(LOG, Context(), {"judge": judge})
    assert row["agent_ok"] and row["step_ok"] and row["tokens"] > 0
    assert "Correct answer: 4" in judge.prompts[0]
    assert "Step 2 (WebSurfer): The page says 5." in judge.prompts[0]
    unreadable = ScriptedChatModel(script=["It was probably the WebSurfer."], repeat_last=True)
    row = who_and_when.attribute(LOG, Context(), {"judge": unreadable})
    assert row["step"] is None and not row["agent_ok"] and not row["step_ok"]


def test_the_summary_sets_the_judge_beside_the_floors_on_the_same_logs(tmp_path: Path):
    folder = tmp_path / "Hand-Crafted"
    folder.mkdir()
    (folder / "1.json").write_text(json.dumps({k: v for k, v in LOG.items() if k not in ("file", "subset")}))
    index = {
        "file": "Hand-Crafted/1.json",
        "subset": "Hand-Crafted",
        "mistake_agent": "WebSurfer",
        "mistake_step": "2",
    }
    (tmp_path / "index.jsonl").write_text(json.dumps(index) + "\n")
    row = {
        "file": "Hand-Crafted/1.json",
        "subset": "Hand-Crafted",
        "agent_ok": True,
        "step_ok": False,
        "step": 1,
        "model": "qwen2.5-coder-0.5b",
        "commit": "0123456789abcdef",
        "dirty": False,
    }
    figures = who_and_when.summary([row], tmp_path)
    assert list(figures) == ["Hand-Crafted"]
    assert figures["Hand-Crafted"]["n"] == 1 and figures["Hand-Crafted"]["agent"] == 1
    assert figures["Hand-Crafted"]["step"] == 0 and figures["Hand-Crafted"]["unparsed"] == 0
    assert figures["Hand-Crafted"]["floors"]["last step"] == {"agent": 0.0, "step": 0.0}
    # The printed summary sets the judge beside the paper's best figures.
    assert who_and_when.printed(figures).startswith(
        "Hand-Crafted: 1 logs, the judge: agent 100.0% [20.7–100.0], step 0.0% [0.0–79.3], unparsed 0 "
        "(published best: agent 53.5%, step 14.2%)"
    )


def test_the_docs_table_shows_the_judge_beside_the_floors_and_withholds_a_subset_of_two_judges(
    tmp_path: Path,
):
    floor = {"agent": 0.25, "step": 0.125}
    judged = {
        "n": 4,
        "agent": 1,
        "step": 0,
        "agent_rate": "25.0% [4.6–69.9]",
        "step_rate": "0.0% [0.0–49.0]",
        "unparsed": 1,
        "judges": ["qwen2.5-coder-0.5b at 0123456"],
        "floors": {"last step": floor},
    }
    (tmp_path / "summary.json").write_text(json.dumps({"Hand-Crafted": judged}))
    assert tables.attribution_table(tmp_path, tmp_path).splitlines()[2:] == [
        "| Hand-Crafted (4) | the judge (qwen2.5-coder-0.5b at 0123456; 1 replies unread) "
        "| 25.0% [4.6–69.9] | 0.0% [0.0–49.0] |",
        "| Hand-Crafted (4) | last step | 25.0% | 12.5% |",
        "| Hand-Crafted (4) | published best (the paper's abstract, GPT-4o) | 53.5% | 14.2% |",
    ]
    two = {**judged, "judges": ["qwen2.5-coder-0.5b at 0123456", "qwen2.5-coder-0.5b at 89abcde"]}
    (tmp_path / "summary.json").write_text(json.dumps({"Hand-Crafted": two}))
    assert tables.attribution_table(tmp_path, tmp_path).startswith("*Withheld: `.` holds rows of 2 judges")
    # Before the judge has run the floors stand alone.
    (tmp_path / "summary.json").unlink()
    floors = {"Hand-Crafted": {"n": 4, "floors": {"last step": floor}}}
    (tmp_path / "floors.json").write_text(json.dumps(floors))
    assert "the judge" not in tables.attribution_table(tmp_path, tmp_path)
