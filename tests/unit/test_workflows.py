"""A workflow written outside Accord, through its public API alone, is served like the built-in ones.

The repair workflow in ``examples/repair`` registers its own artifact kind and is found through
``ACCORD_WORKFLOWS``; ``accord run --graph repair``, ``roles``, ``show``, ``blame`` and the eval runner
then serve it, with nothing in the compiler, blame or the detectors that names it.
"""

from __future__ import annotations

import ast
import json
import re
import shutil
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

import accord
from accord import cli
from accord.evals import runner
from accord.evals.benchmarks import EvalTask
from accord.evals.configs import Configuration
from accord.graphs import catalog
from accord.graphs.catalog import Workflow, workflows
from accord.graphs.oracle import Oracle
from accord.state.artifacts import ARTIFACT_MODELS, CodeArtifact, Frozen, register_artifact
from accord.state.context import Context
from accord.state.contracts import Contract
from accord.state.lifecycle import Lifecycle, Stage
from accord.state.messages import Message
from accord.state.stage import StageCall
from tests.endpoint import FakeEndpoint, Text
from tests.scripted import ScriptedChatModel

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "repair"
FIXED = (
    "```python\ndef mean(values):\n    return sum(values) / len(values)\n\n\n"
    "def spread(values):\n    return max(values) - min(values)\n```"
)


@pytest.fixture
def repair(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Any:
    """Register the example's workflow through the setting, as a user's unpackaged workflow would be."""
    monkeypatch.syspath_prepend(str(EXAMPLE))
    monkeypatch.setenv("ACCORD_WORKFLOWS", "accord_repair.workflow:WORKFLOW")
    monkeypatch.setenv("ACCORD_DB", str(tmp_path / "runs.sqlite"))
    monkeypatch.chdir(tmp_path)
    from accord_repair import workflow

    return workflow


def project(where: Path) -> Path:
    shutil.copytree(EXAMPLE / "projects" / "stats", where / "stats")
    return where / "stats"


def accord_imports(source: str) -> list[str]:
    """Return each import of Accord in ``source``, as the module and name it takes (``accord.read``)."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] == "accord":
            found += [f"{node.module}.{a.name}" for a in node.names]
        elif isinstance(node, ast.Import):
            found += [a.name for a in node.names if a.name.split(".")[0] == "accord"]
    return found


def outside_the_api(names: list[str]) -> list[str]:
    """Return the imports that take anything but a name ``accord`` exports."""
    return [
        n for n in names if n.rpartition(".")[0] != "accord" or n.rpartition(".")[2] not in accord.__all__
    ]


def test_the_example_uses_only_the_public_api() -> None:
    used = [n for path in (EXAMPLE / "accord_repair").glob("*.py") for n in accord_imports(path.read_text())]
    assert len(used) > 20 and outside_the_api(used) == []


@pytest.mark.parametrize("doc", ["python.md", "extending.md"])
def test_the_library_docs_use_only_the_public_api(doc: str) -> None:
    blocks = re.findall(r"```python\n(.*?)```", (ROOT / "docs" / doc).read_text(), re.S)
    used = [n for block in blocks for n in accord_imports(block)]
    assert used and outside_the_api(used) == []


def test_the_check_catches_an_import_past_the_api() -> None:
    names = accord_imports(
        "from accord import read\nfrom accord.state.graph_state import dump\nimport accord.nodes\n"
    )
    assert outside_the_api(names) == ["accord.state.graph_state.dump", "accord.nodes"]
    assert outside_the_api(accord_imports("from accord import nothing_exported\n")) == [
        "accord.nothing_exported"
    ]


def test_a_registered_workflow_is_listed_with_its_roles(
    repair: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    found = workflows()
    assert found["repair"] is repair.WORKFLOW and {"development", "audit", "pipeline"} <= set(found)
    assert cli.main(["roles", "--workflow", "repair", "--json"]) == 0
    roles = json.loads(capsys.readouterr().out)
    assert {r["name"] for r in roles} == {"intake", "runner", "fixer", "reviewer"}


def test_a_repair_runs_end_to_end_and_is_blamed(
    repair: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = project(tmp_path)
    with FakeEndpoint([Text(FIXED), Text("APPROVE")]) as endpoint:
        ran = cli.main(
            [
                "run",
                "--graph",
                "repair",
                str(folder),
                "--thread",
                "r",
                "--out",
                "out",
                "--base-url",
                endpoint.url,
                "--model",
                "fake",
            ]
        )
        prompts = endpoint.prompts()
    said = capsys.readouterr().err
    assert ran == 0, said
    assert "reproducing  runner    failing" in said and "completed" in said
    assert "return sum(values) / len(values)" in (tmp_path / "out" / "stats.py").read_text()
    assert len(prompts) == 2 and "assert 6.0 == 4" in prompts[0] and "You are the Fixer" in prompts[0]
    assert "+    return sum(values) / len(values)" in prompts[1]  # the Reviewer reads the diff

    assert cli.main(["show", "r", "--json"]) == 0
    state = json.loads(capsys.readouterr().out)["state"]
    assert state["workflow"] == "repair"
    assert state["repair_task"]["test_command"] == ["python", "-m", "pytest", "-q"]
    handed = [(m["sender"], m["receiver"], [a["kind"] for a in m["payload"]]) for m in state["handoffs"]]
    assert ("intake", "runner", ["repair_task", "code"]) in handed

    assert cli.main(["blame", "r", "--json"]) == 0
    blamed = json.loads(capsys.readouterr().out)
    assert blamed["final_correct"] is True and blamed["origin"] is None
    fixer = next(s for s in blamed["stages"] if s["role"] == "fixer")
    assert fixer["flag"] == "repair" and blamed["rates"]["fixer"]["repairs"] == 1
    assert "E       assert 6.0 == 4" in blamed["stages"][0]["evidence"]  # as pytest printed it in the JSON...

    assert cli.main(["blame", "r"]) == 0
    lines = capsys.readouterr().out.splitlines()
    steps = [line for line in lines if line.startswith("  step ")]
    # ...and one line a step here, its whitespace collapsed
    assert len(steps) == len(blamed["stages"]) and lines[1 : 1 + len(steps)] == steps
    assert "E assert 6.0 == 4" in steps[0]


def test_a_project_whose_tests_pass_has_nothing_to_repair(repair: Any, tmp_path: Path) -> None:
    folder = project(tmp_path)
    source = folder / "stats.py"
    source.write_text(source.read_text().replace("len(values) - 1", "len(values)"))
    fixer = ScriptedChatModel(script=[FIXED])
    values = repair.build_graph(models={"fixer": fixer}).invoke({"request": str(folder)})
    assert values["status"] == "completed" and fixer.calls == 0
    assert [v["outcome"] for v in values["verdicts"] if v["target"]][:2] == ["pass", "passing"]


@pytest.mark.parametrize(
    ("request_", "problem"),
    [
        ("/no/such/folder", "no project folder"),
        ('{"project": 3}', "give a project folder"),
        ("{not json", "not valid JSON"),
    ],
)
def test_a_bad_request_fails_at_intake_before_any_model_call(
    repair: Any, request_: str, problem: str
) -> None:
    fixer = ScriptedChatModel(script=[FIXED])
    values = repair.build_graph(models={"fixer": fixer}).invoke({"request": request_})
    assert values["status"] == "failed" and problem in values["reason"] and fixer.calls == 0


def test_an_artifact_kind_is_registered_once_and_contracts_refuse_unknown_kinds() -> None:
    with pytest.raises(ValidationError, match="no artifact kind 'patch'"):
        Contract(role="fixer", duty="fix", outputs=("patch",))

    class Code(Frozen):  # another model claiming a built-in kind
        kind: str = "code"

    with pytest.raises(ValueError, match="the artifact kind 'code' is"):
        register_artifact(Code)
    with pytest.raises(TypeError, match="declares its kind"):
        register_artifact(Frozen)
    assert ARTIFACT_MODELS["code"] is CodeArtifact


def test_a_message_carries_a_registered_kind_and_round_trips(repair: Any) -> None:
    from accord_repair.artifacts import RepairTask

    task = RepairTask(project="p", test_command=("python", "-m", "pytest"), original={"a.py": "x = 1\n"})
    message = Message(sender="intake", receiver="runner", payload=(task, CodeArtifact(files={"a.py": ""})))
    again = Message.model_validate(json.loads(message.model_dump_json()))
    assert again == message and again.kinds() == ["repair_task", "code"]
    with pytest.raises(ValidationError, match="not an artifact of a registered kind"):
        Message.model_validate({"sender": "a", "receiver": "b", "payload": [{"kind": "patch"}]})


def test_a_bad_registration_is_refused_with_its_source(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ACCORD_WORKFLOWS", "no_such_module:WORKFLOW")
    with pytest.raises(ValueError, match="ACCORD_WORKFLOWS: cannot load 'no_such_module:WORKFLOW'"):
        workflows()
    assert cli.main(["runs"]) == 2  # the CLI says which registration is broken and runs nothing
    monkeypatch.setenv("ACCORD_WORKFLOWS", "graphs.catalog:DEFAULT")
    with pytest.raises(ValueError, match=r"is a str, not an accord\.graphs\.catalog\.Workflow"):
        workflows()
    lifecycle = Lifecycle(
        name="other",
        initial="done",
        stages=(Stage(name="done", terminal=True, status="completed"),),
        transitions=(),
    )
    with pytest.raises(ValueError, match="its lifecycle is named 'other'"):
        Workflow("mine", lifecycle, {}, lambda **_: None)  # type: ignore[arg-type,return-value]
    assert catalog.ENTRY_POINTS == "accord.workflows" and sys.modules.get("no_such_module") is None


class RepairSet:
    """The eval runner's view of a set of repair tasks: each a project folder, scored by its own tests."""

    name = "repair-set"

    def __init__(self, workflow: Any, folders: dict[str, Path]) -> None:
        self.workflow, self.folders = workflow, folders
        self.configurations = {
            "as-is": Configuration(
                "as-is", "the workflow as registered", workflow.LIFECYCLE, workflow.ROLES, workflow.GATES
            )
        }

    def tasks(self) -> list[EvalTask]:
        return [EvalTask(id=name, prompt=str(folder)) for name, folder in self.folders.items()]

    def score(self, task_id: str, values: Mapping[str, Any]) -> tuple[bool, str]:
        correct = self.workflow.PROJECT_TESTS.judges["code"](
            values, StageCall(stage="score", role="oracle", round=0, context=Context(), models={})
        )
        return bool(correct and correct[0]), correct[1] if correct else "no code"

    def oracle(self, task_id: str) -> Oracle:
        return self.workflow.PROJECT_TESTS

    def details(self, task_id: str, values: Mapping[str, Any]) -> dict[str, Any]:
        return {}


def test_the_eval_runner_serves_a_registered_workflow(repair: Any, tmp_path: Path) -> None:
    broken, fine = project(tmp_path / "a"), project(tmp_path / "b")
    (fine / "stats.py").write_text((fine / "stats.py").read_text().replace("len(values) - 1", "len(values)"))
    benchmark = RepairSet(repair, {"broken": broken, "fine": fine})
    models = {"fixer": ScriptedChatModel(script=[FIXED]), "reviewer": ScriptedChatModel(script=["APPROVE"])}
    rows = runner.run(
        benchmark,
        benchmark.configurations["as-is"],
        benchmark.tasks(),
        tmp_path / "out",
        Context(),
        models=models,
    )
    assert {r["id"]: r["passed"] for r in rows} == {"broken": True, "fine": True}
    repaired = next(r for r in rows if r["id"] == "broken")
    assert repaired["blame"]["origin"] is None and repaired["llm_calls"] == 2
    assert models["fixer"].calls == 1  # the project whose tests pass was never sent to the Fixer
