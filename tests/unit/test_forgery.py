"""Hostile solutions cannot forge a pass: every check path judges them failed, and honest code passes.

Each forgery is a module whose ``add`` is wrong (or never answers) and which tries to make its check pass
anyway: by its exit status, by what it prints, by files it writes, by reading or killing the harness, by
answering on the harness's record channel, or by returning an object that equals everything. Each is
judged on every path a verdict comes from: the hidden-test oracle, the stated-example harness, the pytest
path, ClassEval's unittest oracle, and a check script (the application's storage checks, the plan's
examples).
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from accord.evals.benchmarks import classeval
from accord.evals.benchmarks.humaneval import passes_hidden_tests
from accord.nodes import testing
from accord.runtime import harness, sandbox
from accord.state.artifacts import CodeArtifact, Example

WRONG = "def add(a, b):\n    return a - b\n"
FORGERIES = {
    "exits 0 at exit (atexit)": "import atexit, os\natexit.register(lambda: os._exit(0))\n" + WRONG,
    "exits 0 while imported": "import sys\nsys.exit(0)\n" + WRONG,
    "ends the process while imported": "import os\nos._exit(0)\n" + WRONG,
    "prints a results line at exit": (
        "import atexit\n"
        'LINE = \'@@accord-results-0@@[{"name": "example 1", "passed": true}]\'\n'
        "atexit.register(lambda: print(LINE, flush=True))\n" + WRONG
    ),
    "reads the harness and forges its format": (
        "import os, re\n"
        "for name in os.listdir('/proc/self/fd'):\n"
        "    try:\n"
        "        text = open('/proc/self/fd/' + name).read()\n"
        "    except OSError:\n"
        "        continue\n"
        "    for token in re.findall(r'@@[\\w-]+@@', text):\n"
        '        print(token + \'[{"name": "x", "passed": true}]\')\n' + WRONG
    ),
    "returns an object equal to everything": (
        "class Anything:\n"
        "    def __eq__(self, other):\n        return True\n"
        "    def __ne__(self, other):\n        return False\n"
        "    def __repr__(self):\n        return '5'\n"
        "def add(a, b):\n    return Anything()\n"
    ),
    "exits 0 from sys.excepthook": (
        "import os, sys\nsys.excepthook = lambda *exc: os._exit(0)\n"
        "def add(a, b):\n    raise ValueError('no')\n"
    ),
    "exits 0 from a signal handler": (
        "import os, signal\n"
        "for sig in (signal.SIGALRM, signal.SIGTERM, signal.SIGINT):\n"
        "    signal.signal(sig, lambda *a: os._exit(0))\n"
        "def add(a, b):\n    while True:\n        pass\n"
    ),
    "kills the harness": "import os, signal\nos.kill(os.getpid(), signal.SIGKILL)\n" + WRONG,
    "writes a passing report file": (
        'XML = (\'<testsuite><testcase classname="test_solution" name="test_add"/></testsuite>\')\n'
        "for name in ('.accord-junit.xml', 'junit.xml', 'report.xml'):\n"
        "    open(name, 'w').write(XML)\n" + WRONG
    ),
    "a thread exits 0 while the checks run": (
        "import os, threading, time\n"
        "threading.Thread(target=lambda: (time.sleep(0.3), os._exit(0)), daemon=True).start()\n"
        "def add(a, b):\n    time.sleep(3)\n    return a - b\n"
    ),
    "writes records on every descriptor": (
        "import os\n"
        "for fd in range(3, 64):\n"
        "    for n in (1, 2):\n"
        "        try:\n"
        '            os.write(fd, b\'x %d {"value": "passed"}\\n\' % n)\n'
        "        except OSError:\n"
        "            pass\n" + WRONG
    ),
    "a child process answers for it": (
        "import os\n"
        "if os.fork() == 0:\n"
        "    for fd in range(3, 64):\n"
        "        for n in (1, 2):\n"
        "            try:\n"
        '                os.write(fd, b\'%d {"value": "passed"}\\n\' % n)\n'
        "            except OSError:\n"
        "                pass\n"
        "    os._exit(0)\n" + WRONG
    ),
}
"""Each forgery's module."""
HONEST = "def add(a, b):\n    return a + b\n"
CALCULATOR = "\nclass Calculator:\n    def add(self, a, b):\n        return add(a, b)\n"
LIMITS = sandbox.Limits(timeout_s=4, cpu_s=4)
PYTEST_LIMITS = sandbox.Limits(timeout_s=30, cpu_s=8)
"""pytest's own start takes seconds of wall time on 2 loaded cores; a spinning forgery still meets the CPU
limit."""
TESTS = (
    "from solution import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n    assert add(-1, 1) == 0\n"
)


def hidden_tests(module: str) -> tuple[bool, str]:
    problem = {
        "entry_point": "add",
        "test": "def check(candidate):\n    assert candidate(2, 3) == 5\n    assert candidate(-1, 1) == 0\n",
    }
    return passes_hidden_tests(problem, CodeArtifact(files={"solution.py": module}), timeout_s=4)


def stated_examples(module: str) -> tuple[bool, str]:
    examples = (Example(call="add(2, 3)", expected="5"), Example(call="add(-1, 1)", expected="0"))
    code = CodeArtifact(files={"solution.py": module})
    report, _ = testing.run_examples(code, "solution.py", examples, LIMITS, traced=1)
    return report.ending == "passed", report.output


def pytest_suite(module: str) -> tuple[bool, str]:
    files = {"solution.py": module, "test_solution.py": TESTS}
    report, _ = testing.run_pytest(CodeArtifact(files=files, test_files=("test_solution.py",)), PYTEST_LIMITS)
    return report.ending == "passed", report.output


def classeval_tests(module: str) -> tuple[bool, str]:
    problem = {
        "import_statement": ["import unittest"],
        "test": (
            "class CalculatorTest(unittest.TestCase):\n"
            "    def test_add(self):\n        self.assertEqual(Calculator().add(2, 3), 5)\n"
        ),
        "test_classes": ["CalculatorTest"],
    }
    results = classeval.run_tests(problem, CodeArtifact(files={"solution.py": module + CALCULATOR}), 4)
    return all(r["passed"] for r in results.values()), str(results)


def check_script(module: str) -> tuple[bool, str]:
    script = "from solution import add\ngot = add(2, 3)\nassert is_plain(got) and got == 5\n"
    checked = harness.run_script(script, {"solution.py": module}, LIMITS)
    return harness.passed(checked), checked.error


PATHS: dict[str, Callable[[str], tuple[bool, str]]] = {
    "hidden tests": hidden_tests,
    "stated examples": stated_examples,
    "pytest": pytest_suite,
    "classeval": classeval_tests,
    "check script": check_script,
}


SELF_COMPARED = {("returns an object equal to everything", "pytest")}
"""A pytest suite compares values in its own asserts, out of the harness's reach: docs/reliability.md."""


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("forgery", FORGERIES)
def test_a_forged_pass_fails(forgery: str, path: str) -> None:
    if (forgery, path) in SELF_COMPARED:
        pytest.skip("the suite's own == decides")
    passed, output = PATHS[path](FORGERIES[forgery])
    assert not passed, f"{forgery} passed the {path}: {output[-300:]}"


@pytest.mark.parametrize("path", PATHS)
def test_honest_code_passes(path: str) -> None:
    passed, output = PATHS[path](HONEST)
    assert passed, output[-500:]


def test_honest_code_passes_even_when_it_prints_and_writes_files() -> None:
    chatty = (
        "import atexit\nprint('hello')\nopen('notes.txt', 'w').write('x')\natexit.register(print, 'bye')\n"
    )
    for path, judge in PATHS.items():
        passed, output = judge(chatty + HONEST)
        assert passed, f"{path}: {output[-300:]}"


def test_a_forged_record_names_why_it_fails() -> None:
    checked = harness.run_script(
        "import solution\n", {"solution.py": FORGERIES["writes records on every descriptor"]}, LIMITS
    )
    assert not harness.passed(checked) and "forged or repeated record" in checked.error
    checked = harness.run_script(
        "import solution\n", {"solution.py": FORGERIES["ends the process while imported"]}, LIMITS
    )
    assert "no completion record" in checked.error and checked.result.exit_code == 0
