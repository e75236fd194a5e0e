"""Published multi-agent coders, run from their released code on the run's model and sandbox (the evals'
peers).

``mapcoder``: MapCoder (Islam et al., ACL 2024), its ``MapCoder`` strategy exactly as released at
``MAPCODER.commit``: its defaults (3 recalled exemplars, 5 improvements of a plan's code), prompts, parsing
and loop. Accord supplies only what the released harness supplied: the model (each of the strategy's
calls is one call of the run's Coder model, in the ledger with its tokens), the task as an item of its
HumanEval format (the stub as prompt, each stated example as one ``sample_io`` assertion) and the run of
those assertions, which happens in Accord's sandbox where the released harness ran ``exec`` in its own
process, one run per assertion with its 5-second limit and the test log worded as the harness words it.
A strategy that stops on a reply it cannot parse (its harness would stop the whole run there) has no
answer: the stub alone is scored, and the ledger says why.

``agentcoder``: AgentCoder (Huang et al., 2023), huangd1999/AgentCoder at ``AGENTCODER.commit``: its
programmer's and test designer's few-shot prompts read from the checkout, and its loop as its scripts run
it (``implement_agentcoder``), every call on the run's Coder model and every test run in the sandbox.

The released code is not part of Accord. ``Settings.peers`` (``ACCORD_PEERS``; default: the cache's
``peers``) holds a git checkout of each peer at its commit; a missing or different checkout is refused,
with the commands that fetch it.
"""

from __future__ import annotations

import builtins
import contextlib
import io
import subprocess
import types
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from accord.nodes.development.baseline import harness_module
from accord.nodes.llm import plain_text
from accord.nodes.views import artifacts
from accord.runtime import sandbox
from accord.runtime.executor import perform
from accord.state.artifacts import CaseResult, CodeArtifact, TaskSpec, TestReport
from accord.state.graph_state import dump
from accord.state.settings import Settings
from accord.state.stage import OutputError, StageCall


@dataclass(frozen=True)
class Peer:
    """A published method's released code: where it is published and the commit Accord runs."""

    name: str
    repository: str
    commit: str
    released: tuple[str, ...] = ("src",)
    """The checkout's paths Accord reads, which must be as released."""

    def checkout(self) -> Path:
        """Return the peer's checkout, at its commit.

        Raises:
            PeerUnavailable: no checkout, or one at another commit.
        """
        where = Settings().peers_dir() / self.name
        fetch = f"git clone {self.repository} {where} && git -C {where} checkout {self.commit}"
        if not (where / ".git").exists():
            raise PeerUnavailable(f"{self.name}'s released code is not at {where}: {fetch}")
        head = subprocess.run(
            ["git", "-C", str(where), "rev-parse", "HEAD"], capture_output=True, text=True, check=False
        ).stdout.strip()
        if head != self.commit:
            raise PeerUnavailable(
                f"{where} is at {head or 'no commit'}, not {self.name}'s {self.commit}: "
                f"git -C {where} checkout {self.commit}"
            )
        if subprocess.run(
            ["git", "-C", str(where), "diff", "--quiet", "HEAD", "--", *self.released], check=False
        ).returncode:
            raise PeerUnavailable(
                f"{where}: {', '.join(self.released)} differs from {self.name}'s released "
                f"code: git -C {where} checkout {self.commit} -- {' '.join(self.released)}"
            )
        return where


class PeerUnavailable(RuntimeError):
    """Raised when a peer's released code is not where Accord looks for it, at its commit."""


MAPCODER = Peer(
    "MapCoder", "https://github.com/Md-Ashraful-Pramanik/MapCoder", "0027da71030b441cca2bc6f95def86b9aa5c7dea"
)
AGENTCODER = Peer(
    "AgentCoder",
    "https://github.com/huangd1999/AgentCoder",
    "dddd1b99921da63e3ec3e46a75704c8a29170dbe",
    ("prompts",),
)

SAMPLE_TIMEOUT_S = 5.0
"""The released harness's limit on one sample assertion (``evaluate_io``'s ``timeout``)."""


def _stand_ins() -> dict[str, types.ModuleType]:
    """Return the modules MapCoder's strategy imports and never uses on a function task: its other
    datasets (their classes only decide the competition-style input prompt, which a function task does
    not get), its results file and its in-process evaluator (the dataset below runs the sandbox)."""
    datasets = types.ModuleType("datasets")
    for name in (
        "Dataset",
        "APPSDataset",
        "MBPPDataset",
        "XCodeDataset",
        "HumanDataset",
        "CodeContestDataset",
    ):
        setattr(datasets, name, type(name, (), {}))
    results = types.ModuleType("results")
    results.Results = type("Results", (), {})  # type: ignore[attr-defined]
    evaluations = types.ModuleType("evaluations")

    def no_exec(*args: Any, **kwargs: Any) -> Any:
        raise PeerUnavailable("MapCoder's in-process evaluator is not run: sample tests run in the sandbox")

    evaluations.evaluate_io = no_exec  # type: ignore[attr-defined]
    parse = types.ModuleType("parse")
    parse.parse_response = lambda response, *args: response  # type: ignore[attr-defined]
    return {"datasets": datasets, "results": results, "evaluations": evaluations, "utils": parse}


def _load(source: Path, released: Mapping[str, types.ModuleType]) -> types.ModuleType:
    """Execute one released source file as a module, its imports of the peer's own packages answered by
    ``released`` (the package's first name) and its relative imports by ``released`` too."""
    module = types.ModuleType(source.stem)

    def imported(
        name: str, globals: Any = None, locals: Any = None, fromlist: Any = (), level: int = 0
    ) -> Any:
        if level or name.split(".")[0] in released:
            return released[name.split(".")[0] if not level else name]
        return builtins.__import__(name, globals, locals, fromlist, level)

    module.__dict__["__builtins__"] = {**vars(builtins), "__import__": imported}
    exec(compile(source.read_text(encoding="utf-8"), str(source), "exec"), module.__dict__)
    return module


@cache
def mapcoder_class(checkout: Path) -> type:
    """Return the released ``MapCoder`` strategy class from ``checkout``."""
    src = checkout / "src"
    models = _load(src / "models" / "Base.py", {})
    stand_ins = _stand_ins()
    base = _load(src / "promptings" / "Base.py", {**stand_ins, "models": models})
    strategy = _load(src / "promptings" / "MapCoder.py", {**stand_ins, "models": models, "Base": base})
    return strategy.MapCoder  # type: ignore[no-any-return]


def sample_io(task: TaskSpec) -> list[str]:
    """Return the task's stated examples as the released HumanEval items state them: one assertion each."""
    return [
        "\n".join((*example.setup, f"assert {example.call} == {example.expected}"))
        for example in task.examples
    ]


class _Model:
    """The released strategy's model: ``prompt(messages) -> (reply, prompt tokens, completion tokens)``,
    each call the run's Coder model through the ledger."""

    def __init__(self, call: StageCall) -> None:
        self.call = call

    def prompt(self, processed_input: list[dict[str, str]]) -> tuple[str, int, int]:
        before = len(self.call.ledger)
        [message] = processed_input  # every call of the strategy is one user message
        reply = plain_text(self.call, message["content"], what="code")
        spent = [e for e in self.call.ledger[before:] if e.kind == "llm"]
        return reply, sum(e.tokens_in for e in spent), sum(e.tokens_out for e in spent)


class _Dataset:
    """The released strategy's dataset for one function task: its prompt, and its sample tests run in
    the sandbox with the released harness's program and test log."""

    def __init__(self, call: StageCall, task: TaskSpec) -> None:
        self.call, self.task = call, task

    @staticmethod
    def get_prompt(item: Mapping[str, Any]) -> str:
        return str(item["prompt"])

    def evaluate_sample_io(self, item: Mapping[str, Any], cur_imp: str, language: str) -> tuple[bool, str]:
        def run(code: CodeArtifact) -> TestReport:
            cases = []
            for assertion in item["sample_io"]:
                typing = "" if "from typing import *" in cur_imp else "from typing import *\n"
                result = sandbox.run(
                    sandbox.python("sample.py"),
                    {"sample.py": f"{typing}{cur_imp}\n{assertion}\n"},
                    sandbox.Limits(timeout_s=SAMPLE_TIMEOUT_S),
                )
                self.call.record(
                    "sandbox",
                    latency_s=result.duration_s,
                    outcome=result.ending,
                    detail=f"MapCoder sample test [{result.isolation}]: {assertion}"[:300],
                )
                cases.append(CaseResult(name=assertion, passed=result.ok, message=result.stderr[-500:]))
            return TestReport(
                ending="passed" if all(c.passed for c in cases) else "failed", cases=tuple(cases)
            )

        code = CodeArtifact(files={"sample.py": cur_imp}, entry_points=("sample.py",))
        report: TestReport = perform(self.call, "sandbox", run, code=code)
        log = "".join(f"{'passed' if c.passed else 'failed'} in test case: {c.name}\n" for c in report.cases)
        return report.passed, log


def implement_mapcoder(state: Mapping[str, Any], call: StageCall) -> dict[str, Any]:
    """Solve a function task with MapCoder's released strategy (see the module); any other task is refused,
    since the strategy was released for function and competition problems only."""
    task, _, _ = artifacts(state)
    if not task.completes_stub or task.level == "class":
        raise PeerUnavailable(f"MapCoder was released for function problems; this task is a {task.level}")
    strategy = mapcoder_class(MAPCODER.checkout())(
        model=_Model(call),
        data=_Dataset(call, task),
        language="Python3",
        pass_at_k=1,
        results=None,
        verbose=False,
    )
    item = {
        "task_id": task.entry_point,
        "prompt": task.stub or task.request,
        "entry_point": task.entry_point,
        "sample_io": sample_io(task),
    }
    code = ""
    try:
        with contextlib.redirect_stdout(io.StringIO()):  # the strategy prints every prompt and reply
            code, _, _ = strategy.run_single_pass(item)
            code = strategy.parse_code(code)
    except (SyntaxError, LookupError, TypeError, ValueError, AttributeError) as exc:
        # What the strategy raises on a reply it cannot read (its XML, a missing tag, a confidence that is
        # no number, an empty reply); a spent budget or an unreachable model still ends the run as a fault.
        call.record("error", outcome="peer stopped", detail=f"MapCoder: {type(exc).__name__}: {exc}"[:300])
    return {"code": dump(harness_module(task, code))}


PROGRAMMER_SYSTEM, DESIGNER_SYSTEM = "You are a software programmer.", "You are a code developer assistant."
"""AgentCoder's system messages (``src/programmer_humaneval.py``, ``src/test_designer_humaneval.py``)."""
COMPLETIONS, TEST_SETS, EPOCHS, ENOUGH = 5, 10, 5, 3
"""AgentCoder's loop as released: 5 completions and 10 test sets a round, 5 rounds after the first, and a
completion passing at least 3 of the test sets ends it (``src/test_executor_humaneval.py``)."""
AGENTCODER_TEMPERATURE = 1.0
"""The released calls set no temperature, so the API's default samples them."""
TEST_TIMEOUT_S = 3.0
"""The released executor's limit on one completion against one test set."""
IMPORT_HELPER = (
    "import math",
    "import re",
    "import sys",
    "import copy",
    "import datetime",
    "import itertools",
    "import collections",
    "import heapq",
    "import statistics",
    "import functools",
    "import hashlib",
    "import numpy",
    "import numpy as np",
    "import string",
    "from typing import *",
    "from collections import *",
)
"""CodeGeeX's ``IMPORT_HELPER["python"]`` (its ``codegeex/benchmark/utils.py``), which AgentCoder's
executor puts before every test run."""


def _python_block(reply: str) -> str:
    """Return what AgentCoder keeps of a reply: the text after its first ```python up to the next fence,
    else the whole reply (``preprocess_data``)."""
    if "```python" in reply:
        reply = reply[reply.find("```python") + len("```python") :]
        return reply[: reply.find("```")]
    return reply


def implement_agentcoder(state: Mapping[str, Any], call: StageCall) -> dict[str, Any]:
    """Solve a function task with AgentCoder's released prompts and loop.

    Its three scripts run at import time against a dataset they download, so they cannot be called; their
    loop is restated here, each step citing its source: the programmer's and the test designer's few-shot
    prompts are read unchanged from the pinned checkout and wrapped as the scripts wrap them; each round
    draws 5 completions and 10 test sets, runs every completion that defines the entry point against every
    test set that asserts on it (in the sandbox, CodeGeeX's imports first, 3 s each), keeps the completion
    passing most (the first among equals) and ends once one passes at least 3; 5 more rounds at most. An
    empty reply, which the released scripts would ask again for without end, counts as an empty draw.
    """
    task, _, _ = artifacts(state)
    if not task.completes_stub or task.level == "class":
        raise PeerUnavailable(f"AgentCoder was released for function problems; this task is a {task.level}")
    prompts = AGENTCODER.checkout() / "prompts"
    programmer = (prompts / "humaneval_prompt_update.txt").read_text(encoding="utf-8")
    designer = (prompts / "test_designer_humaneval_prompt_update.txt").read_text(encoding="utf-8")
    snippet = f"\n\n**Input Code Snippet**:\n```python\n{task.stub}\n```\n"
    entry = task.entry_point or ""

    def draw(system: str, user: str, count: int) -> list[str]:
        drawn = []
        for _ in range(count):
            try:
                drawn.append(
                    _python_block(plain_text(call, user, "code", AGENTCODER_TEMPERATURE, system=system))
                )
            except OutputError as exc:
                call.record("retry", outcome="empty", detail=f"AgentCoder draw: {exc}"[:300])
                drawn.append("")
        return drawn

    def passes(codes: list[str], tests: list[str]) -> list[int]:
        def run(code: CodeArtifact) -> TestReport:
            cases, seconds = [], 0.0
            for j, completion in enumerate(codes):
                for k, test in enumerate(tests):
                    if f"def {entry}" not in completion or f"assert {entry}(" not in test:
                        continue
                    program = "\n".join(IMPORT_HELPER) + "\n" + "\n" + completion + "\n" + test
                    result = sandbox.run(
                        sandbox.python("check.py"),
                        {"check.py": program},
                        sandbox.Limits(timeout_s=TEST_TIMEOUT_S),
                    )
                    seconds += result.duration_s
                    cases.append(
                        CaseResult(
                            name=f"completion {j + 1}, test set {k + 1}",
                            passed=result.ok,
                            message=result.stderr[-300:],
                        )
                    )
            call.record(
                "sandbox",
                latency_s=seconds,
                outcome=f"{sum(c.passed for c in cases)}/{len(cases)}",
                detail=f"AgentCoder executor: {len(codes)} completions, {len(tests)} test sets",
            )
            ending = "passed" if all(c.passed for c in cases) else "failed"
            return TestReport(ending=ending, cases=tuple(cases))

        drawn = CodeArtifact(
            files={f"completion_{j + 1}.py": c for j, c in enumerate(codes)},
            entry_points=tuple(f"completion_{j + 1}.py" for j in range(len(codes))),
        )
        report: TestReport = perform(call, "sandbox", run, code=drawn)
        return [
            sum(c.passed for c in report.cases if c.name.startswith(f"completion {j + 1},"))
            for j in range(len(codes))
        ]

    for _ in range(EPOCHS + 1):
        codes = draw(PROGRAMMER_SYSTEM, f"\n{programmer}{snippet}## Completion 3:\n", COMPLETIONS)
        tests = draw(DESIGNER_SYSTEM, f"\n{designer}{snippet}", TEST_SETS)
        counts = passes(codes, tests)
        best = counts.index(max(counts))
        if counts[best] >= ENOUGH:
            break
    return {"code": dump(harness_module(task, codes[best]))}
