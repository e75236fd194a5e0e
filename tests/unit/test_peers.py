"""Published coders run from their released code: the checkout is pinned, the released strategy runs
unchanged on the run's model (each call in the ledger) and its sample tests run in the sandbox."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import pytest

from accord.cli import main
from accord.evals import runner
from accord.evals.benchmarks import user_set
from accord.evals.configs.development import CONFIGURATIONS
from accord.graphs import store
from accord.nodes.development import peers
from accord.state.context import Context
from tests.scripted import ScriptedChatModel

ROOT = Path(__file__).resolve().parents[2]
FUNCTIONS = user_set(ROOT / "data" / "functions40" / "functions40.jsonl")
WRONG = "```python\ndef count_vowels(s: str) -> int:\n    return 0\n```"
RIGHT = (
    "## Modified Planning: count them\n```python\ndef count_vowels(s: str) -> int:\n"
    "    return sum(c in 'aeiouAEIOU' for c in s)\n```"
)

# A strategy shaped as the released one: the same imports, the same model and dataset calls.
STRATEGY = """
import re
from .Base import BaseStrategy
from models.Base import BaseModel
from datasets.HumanEvalDataset import HumanDataset
from results.Results import Results
from evaluations.func_evaluate import evaluate_io


class MapCoder(BaseStrategy):
    def parse_code(self, response):
        found = re.findall(r"```python((.|\\n)*?)```", response)
        return found[-1][0] if found else response

    def run_single_pass(self, item):
        print("the released code prints every prompt")
        code, pr, co = self.gpt_chat([{"role": "user", "content": "Solve:\\n" + self.data.get_prompt(item)}])
        code = self.parse_code(code)
        passed, log = self.data.evaluate_sample_io(item, code, self.language)
        if not passed:
            reply, pr_1, co_1 = self.gpt_chat([{"role": "user", "content": "## Test Report:\\n" + log}])
            code, pr, co = self.parse_code(reply), pr + pr_1, co + co_1
        if "<root>" in code:
            raise SyntaxError("not well-formed")
        return code, pr, co
"""
BASE = """
from models.Base import BaseModel
from utils.parse import parse_response


class BaseStrategy(object):
    def __init__(self, model, data, language, pass_at_k, results, verbose=True):
        self.model, self.data, self.language = model, data, language

    def gpt_chat(self, processed_input):
        return self.model.prompt(processed_input=processed_input)
"""
MODEL = """
from abc import ABC, abstractmethod


class BaseModel(ABC):
    @abstractmethod
    def prompt(self, processed_input):
        pass
"""


def _released(tmp_path: Path) -> peers.Peer:
    """Return a peer whose checkout in ``tmp_path`` holds STRATEGY, committed."""
    where = tmp_path / "peers" / "MapCoder"
    for path, text in {
        "src/promptings/MapCoder.py": STRATEGY,
        "src/promptings/Base.py": BASE,
        "src/models/Base.py": MODEL,
    }.items():
        (where / path).parent.mkdir(parents=True, exist_ok=True)
        (where / path).write_text(text)
    git = ["git", "-C", str(where), "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run([*git[:3], "init", "-q"], check=True)
    subprocess.run([*git, "add", "."], check=True)
    subprocess.run([*git, "commit", "-qm", "released"], check=True)
    commit = subprocess.run([*git, "rev-parse", "HEAD"], capture_output=True, text=True, check=True)
    return peers.Peer("MapCoder", "https://example.org/MapCoder", commit.stdout.strip())


def _run(tmp_path: Path, script: list[Any]) -> tuple[dict[str, Any], dict[str, Any], ScriptedChatModel]:
    return _run_config(tmp_path, "mapcoder", script)


def _run_config(
    tmp_path: Path,
    config: str,
    script: list[Any],
) -> tuple[dict[str, Any], dict[str, Any], ScriptedChatModel]:
    coder = ScriptedChatModel(script=script)
    tasks = runner.select(FUNCTIONS.tasks(), ("functions40/0",))
    out = tmp_path / "out"
    [row] = runner.run(FUNCTIONS, CONFIGURATIONS[config], tasks, out, Context(), models={"coder": coder})
    with store.checkpointer(out / runner.CHECKPOINTS) as saver:
        graph = CONFIGURATIONS[config].build(checkpointer=saver)
        values = dict(graph.get_state(store.config(row["thread"])).values)
    return row, values, coder


@pytest.fixture
def released(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> peers.Peer:
    peer = _released(tmp_path)
    monkeypatch.setenv("ACCORD_PEERS", str(tmp_path / "peers"))
    monkeypatch.setattr(peers, "MAPCODER", peer)
    return peer


def test_the_released_strategy_runs_on_the_runs_model_and_its_sample_tests_in_the_sandbox(released, tmp_path):
    row, values, coder = _run(tmp_path, [WRONG, RIGHT])
    assert row["passed"] and row["llm_calls"] == coder.calls == 2 and row["tokens_in"] > 0
    # The released feedback: the sample test's log in the harness's own words.
    assert 'failed in test case: assert count_vowels("Hello World") == 3' in coder.prompts[1]
    sandbox = [e for e in values["ledger"] if e["kind"] == "sandbox" and "MapCoder sample" in e["detail"]]
    assert len(sandbox) == 1 and sandbox[0]["detail"].startswith("MapCoder sample test [")
    # The answer is scored as single's is: the stub, then the code.
    assert "return sum(c in 'aeiouAEIOU' for c in s)" in values["code"]["files"]["solution.py"]


def test_a_reply_the_strategy_cannot_read_leaves_no_answer_and_says_why(released, tmp_path):
    row, values, _ = _run(tmp_path, ["<root>", "```python\n<root>\n```"])
    assert not row["passed"] and row["status"] == "completed"
    [error] = [e for e in values["ledger"] if e["kind"] == "error"]
    assert error["outcome"] == "peer stopped" and "SyntaxError: not well-formed" in error["detail"]


def test_a_checkout_missing_or_at_another_commit_is_refused_with_the_fix(tmp_path, monkeypatch):
    monkeypatch.setenv("ACCORD_PEERS", str(tmp_path / "peers"))
    with pytest.raises(
        peers.PeerUnavailable, match=r"git clone https://github\.com/Md-Ashraful-Pramanik/MapCoder"
    ):
        peers.MAPCODER.checkout()
    other = _released(tmp_path)
    with pytest.raises(peers.PeerUnavailable, match=f"is at {other.commit}, not MapCoder's"):
        peers.MAPCODER.checkout()
    (tmp_path / "peers" / "MapCoder" / "src" / "models" / "Base.py").write_text("changed = True\n")
    with pytest.raises(peers.PeerUnavailable, match="src differs from MapCoder's released code"):
        other.checkout()


def _checked_out() -> bool:
    try:
        peers.MAPCODER.checkout()
    except peers.PeerUnavailable:
        return False
    return True


KB = """<root>
<problem><description>Count letters.</description><code>def f(s): return len(s)</code>
<planning>Loop over s.</planning></problem>
<problem><description>Count digits.</description><code>def g(s): return 0</code>
<planning>Check.</planning></problem>
<problem><description>Count spaces.</description><code>def h(s): return 0</code>
<planning>Count.</planning></problem>
<algorithm>Brute-force: look at every character.</algorithm>
</root>"""
PLAN, VERIFY = (
    "1. Loop over the characters. 2. Count the vowels.",
    ("<root><explanation>Fine.</explanation><confidence>90</confidence></root>"),
)


@pytest.mark.skipif(not _checked_out(), reason="MapCoder's released code is not checked out (ACCORD_PEERS)")
def test_mapcoders_released_strategy_recalls_plans_codes_and_improves_on_its_sample_test(tmp_path):
    # Its defaults: 3 recalled problems, each planned and the plan verified, then the most confident
    # plan's code, improved once on the failing sample test.
    row, _, coder = _run(tmp_path, [KB, PLAN, VERIFY, PLAN, VERIFY, PLAN, VERIFY, WRONG, RIGHT])
    assert row["passed"] and coder.calls == row["llm_calls"] == 9
    assert "Recall three (03) relevant and distinct problems" in coder.prompts[0]
    assert "## Test Report:\nfailed in test case: assert count_vowels" in coder.prompts[-1]


def _agentcoder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Check out a stand-in of AgentCoder's prompts, committed, as the peer Accord runs."""
    where = tmp_path / "peers" / "AgentCoder"
    (where / "prompts").mkdir(parents=True)
    (where / "prompts" / "humaneval_prompt_update.txt").write_text("**Role**: You are a software programmer.")
    (where / "prompts" / "test_designer_humaneval_prompt_update.txt").write_text("**Role**: tester.")
    git = ["git", "-C", str(where), "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run([*git[:3], "init", "-q"], check=True)
    subprocess.run([*git, "add", "."], check=True)
    subprocess.run([*git, "commit", "-qm", "released"], check=True)
    commit = subprocess.run([*git, "rev-parse", "HEAD"], capture_output=True, text=True, check=True)
    monkeypatch.setenv("ACCORD_PEERS", str(tmp_path / "peers"))
    peer = peers.Peer("AgentCoder", "https://example.org/AgentCoder", commit.stdout.strip(), ("prompts",))
    monkeypatch.setattr(peers, "AGENTCODER", peer)


def test_agentcoder_keeps_the_completion_passing_most_sets_and_stops_at_three(tmp_path, monkeypatch):
    _agentcoder(tmp_path, monkeypatch)
    tests = [
        '```python\nassert count_vowels("aei") == 3\n```',
        "```python\nassert count_vowels('') == 0\n```",
        "```python\nassert count_vowels('xyz') == 0\n```",
        "no assertion on the entry point",
    ]
    # Round one: five completions, one right, and ten test sets, eight of them asserting on the function.
    script = [WRONG, WRONG, RIGHT, WRONG, "prose, no code", *tests, *tests, tests[0], tests[1]]
    row, values, coder = _run_config(tmp_path, "agentcoder", script)
    assert row["passed"] and coder.calls == 15  # one round: the right completion passes 3 or more sets
    assert coder.prompts[0].startswith("system: You are a software programmer.\nhuman: \n**Role**")
    assert coder.prompts[0].endswith("```\n## Completion 3:\n")
    assert coder.prompts[5].startswith("system: You are a code developer assistant.")
    [executor] = [e for e in values["ledger"] if e["detail"].startswith("AgentCoder executor")]
    # 4 completions define the function, 8 sets assert on it: each `return 0` passes the 5 sets expecting
    # 0, the right one all 8; the prose and the set with no assertion are not run.
    assert executor["outcome"] == "23/32" and executor["latency_s"] > 0
    assert "return sum(c in 'aeiouAEIOU' for c in s)" in values["code"]["files"]["solution.py"]


def test_agentcoder_draws_six_rounds_at_most_when_no_completion_passes_three_sets(tmp_path, monkeypatch):
    _agentcoder(tmp_path, monkeypatch)
    row, _, coder = _run_config(tmp_path, "agentcoder", ["no code at all"] * 90)
    assert not row["passed"] and coder.calls == row["llm_calls"] == 90


def test_an_eval_of_a_peer_not_checked_out_stops_before_any_task(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("ACCORD_PEERS", str(tmp_path / "peers"))
    out = tmp_path / "out"
    code = main(
        [
            "eval",
            "jsonl",
            "--file",
            str(ROOT / "data" / "functions40" / "functions40.jsonl"),
            "--config",
            "agentcoder",
            "--ids",
            "functions40/0",
            "--out",
            str(out),
        ]
    )
    assert code == 2 and not out.exists()
    assert "git clone https://github.com/huangd1999/AgentCoder" in capsys.readouterr().err.replace("\n", "")
