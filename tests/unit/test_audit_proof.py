"""The Tester's proof attempt on Python: written by the model, run in the sandbox, cited in the finding."""

from __future__ import annotations

import pytest

from accord.nodes.audit import proof
from accord.nodes.audit.artifacts import AuditTask
from accord.runtime import sandbox
from tests.unit.test_audit_graph import VULNERABLE, Audit, critique

EVAL = "def calculate(expression):\n    return eval(expression)\n"
SCRIPT = (
    "```python\nfrom audited import calculate\n\n"
    "if calculate(\"__import__('os').getpid()\") > 0:\n"
    "    print('PROVEN: eval ran the injected code')\n```"
)
QUIET = "```python\nfrom audited import calculate\n\ncalculate('1 + 1')\n```"


def task(code: str = EVAL) -> AuditTask:
    return AuditTask(language="python", code=code, first_line=1)


@pytest.mark.parametrize(
    ("code", "language", "expected"),
    [
        (EVAL, "python", True),
        (
            "import os.path\nimport json\n\ndef f(p):\n    return json.load(open(os.path.join('d', p)))\n",
            "python",
            True,
        ),
        ("import requests\n\ndef f(url):\n    return requests.get(url)\n", "python", False),
        ("from .models import User\n\ndef f(name):\n    return User(name)\n", "python", False),
        ("def f(:\n", "python", False),
        ("def f(name):\n    return db.execute('SELECT * FROM t WHERE n = ' + name)\n", "python", False),
        ("def f(path):\n    return subprocess.run('cat ' + path, shell=True)\n", "python", True),
        ("def f(self, path):\n    return open(path).read()\n", "python", True),
        ("print(eval(input()))\n", "python", False),
        ("int f(void) { return 0; }\n", "c", False),
    ],
)
def test_only_self_contained_python_gets_a_proof_attempt(code, language, expected):
    assert proof.self_contained(AuditTask(language=language, code=code, first_line=1)) is expected


def test_a_function_cut_from_its_file_runs_with_the_standard_modules_it_reads():
    cut = task("def run(command):\n    return subprocess.run(command, shell=True, capture_output=True)\n")
    script = (
        "from audited import run\n"
        "if run('echo injected; true').stdout.strip() == b'injected':\n"
        "    print('PROVEN: the command ran in a shell')\n"
    )
    assert proof.runnable_module(cut).startswith("import subprocess\ndef run(command):")
    assert proof.run_proof(cut, script, timeout_s=20).issues == (
        "the script printed PROVEN: the command ran in a shell",
    )


def test_a_proof_script_runs_in_the_sandbox_and_says_what_it_showed():
    shown = proof.run_proof(task(), proof.code_block(SCRIPT), timeout_s=20)
    assert shown.available and shown.issues == ("the script printed PROVEN: eval ran the injected code",)
    quiet = proof.run_proof(task(), proof.code_block(QUIET), timeout_s=20)
    assert quiet.issues[0].startswith("no proof: the script ended exited, exit 0")
    empty = proof.run_proof(task(), "", timeout_s=20)
    assert empty.issues == ("no proof: the model wrote no script",)
    bare = proof.run_proof(task(), "print('PROVEN:')\n", timeout_s=20)
    assert "without printing PROVEN" in bare.issues[0]


def test_a_script_that_runs_its_own_copy_of_the_code_proves_nothing():
    copy = EVAL + "\nif calculate('2 * 3') == 6:\n    print('PROVEN: eval evaluated it')\n"
    assert proof.run_proof(task(), copy, timeout_s=20).issues == (
        "no proof: the script defines its own calculate instead of importing the audited one",
    )


def test_without_isolation_the_proof_does_not_run_and_says_how_to_fix_it(monkeypatch):
    monkeypatch.setattr(sandbox, "bubblewrap", lambda: None)
    monkeypatch.delenv(sandbox.MODE_VARIABLE, raising=False)
    refused = proof.run_proof(task(), proof.code_block(SCRIPT), timeout_s=20)
    assert not refused.available and "apt-get install bubblewrap" in refused.issues[0]


def test_the_tester_cites_its_proof_and_judges_with_it():
    audit = Audit([VULNERABLE], [critique(VULNERABLE)], [SCRIPT, VULNERABLE])
    values = audit(EVAL, source="calc.py")
    tools = {t["tool"]: t for t in values["findings"]["by_role"]["tester"]["tools"]}
    assert set(tools) == {"bandit", "proof"}
    assert tools["proof"]["issues"] == ["the script printed PROVEN: eval ran the injected code"]
    script_prompt, judgement_prompt = audit.models["tester"].prompts[:2]
    assert "2 |     return eval(expression)" in script_prompt
    assert "from audited import calculate" in script_prompt
    assert "PROVEN: eval ran the injected code" in judgement_prompt
    actions = [e["detail"] for e in values["ledger"] if e["kind"] == "action" and e["role"] == "tester"]
    assert {d.split(":")[0] for d in actions} >= {"bandit", "ProofScript", "prove", "ToolFindingDraft"}


def test_code_that_cannot_run_alone_gets_no_proof_and_no_extra_call():
    uses_requests = "import requests\n\ndef fetch(url):\n    return requests.get(url, verify=False)\n"
    audit = Audit([VULNERABLE], [critique(VULNERABLE)], [VULNERABLE])
    values = audit(uses_requests, source="fetch.py")
    assert [t["tool"] for t in values["findings"]["by_role"]["tester"]["tools"]] == ["bandit"]
    assert audit.models["tester"].calls == 1


def test_a_method_cut_from_its_class_is_proved_with_a_mock_instance(monkeypatch):
    method = task(
        "def add_language(self, language):\n"
        "    self.cursor.execute('insert into langs values (\"%s\")' % language)\n"
    )
    asked = []

    def model(call, system, prompt, what):
        asked.append(prompt)
        return (
            "```\npython\nfrom unittest.mock import MagicMock\nfrom audited import add_language\n"
            "db = MagicMock()\nadd_language(db, 'x\"); drop table langs; --')\n"
            "if 'drop table' in db.cursor.execute.call_args[0][0]:\n"
            "    print('PROVEN: the input reached the SQL text')\n```"
        )

    monkeypatch.setattr(proof, "text", model)
    script = proof.write_proof(None, method)
    assert "add_language take an instance" in asked[0] and "MagicMock()" in asked[0]
    assert script.startswith("from unittest.mock import MagicMock")  # the stray language line is dropped
    assert proof.run_proof(method, script, timeout_s=20).issues == (
        "the script printed PROVEN: the input reached the SQL text",
    )
