"""Running tests in the sandbox (LOCAL_CODE): example harnesses, pytest suites, smoke runs.

Results come back as a TestReport with one CaseResult per case. The harness prints its results as one
JSON line after a random sentinel, so nothing the program under test prints can forge them.
"""

from __future__ import annotations

import json
import secrets
import textwrap
import time
import xml.etree.ElementTree as ET

from accord.runtime import sandbox
from accord.state.artifacts import CaseResult, CodeArtifact, Example, SandboxLimit, TestReport

JUNIT = ".accord-junit.xml"
NO_TESTS_COLLECTED = 5
"""pytest's exit status when it collected no test."""
TRACE_HEAD, TRACE_TAIL, TRACE_WIDTH = 4, 10, 200
"""A traced call keeps its first 4 and last 10 steps, each at most 200 characters: a few hundred tokens of
a prompt, enough to show where a loop starts and how it ends."""

_HARNESS = '''
import collections, json, linecache, reprlib, signal, sys, traceback
results = []
try:
    from {module} import *
    _source = sys.modules[{module!r}].__file__
except BaseException as exc:
    print({sentinel!r} + json.dumps([{{"name": "import {module}", "passed": False,
          "message": traceback.format_exc()[-1500:]}}]))
    sys.exit(0)

_limit, _tracing = {case_timeout}, False

class _TraceStopped(BaseException):
    """The trace's timer: a BaseException, so no repr and no ``except Exception`` in the code swallows it."""

def _too_slow(signum, frame):
    if _tracing:
        raise _TraceStopped()
    raise TimeoutError(f"took longer than {{_limit}}s")

def _short(value):
    try:
        return reprlib.repr(value)
    except Exception:
        return "?"

def _trace(setup, call):
    # The module's lines the call ran, each with its locals before it ran: the first few and the last.
    global _limit, _tracing
    _limit, _tracing = {trace_timeout}, True
    head, tail, seen, raising = [], collections.deque(maxlen={trace_tail}), [0], set()

    def note(entry):
        seen[0] += 1
        (head if len(head) < {trace_head} else tail).append(entry[:{trace_width}])

    def step(frame, event, arg):
        name = frame.f_code.co_name
        if event == "exception":
            raising.add(id(frame))  # a frame that ends raising it returns None: not a result to show
        elif event == "line":
            raising.discard(id(frame))
            names = ", ".join(f"{{k}}={{_short(v)}}" for k, v in frame.f_locals.items()
                              if not k.startswith("__"))
            note(f"{{name}} line {{frame.f_lineno}}: {{linecache.getline(_source, frame.f_lineno).strip()}}"
                 + (f"   [{{names}}]" if names else ""))
        elif event == "return" and id(frame) not in raising:
            note(f"{{name}} returns {{_short(arg)}}")
        return step

    scope = dict(globals())
    try:
        signal.setitimer(signal.ITIMER_REAL, {trace_timeout})
        sys.settrace(lambda frame, event, arg: step if frame.f_code.co_filename == _source else None)
        for statement in setup:
            exec(statement, scope)
        eval(call, scope)
    except _TraceStopped:
        note(f"raised TimeoutError: took longer than {{_limit}}s")
    except BaseException as exc:
        note(f"raised {{type(exc).__name__}}: {{exc}}")
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        sys.settrace(None)
        _tracing = False
    skipped = seen[0] - len(head) - len(tail)
    return "\\n".join([*head, *([f"... {{skipped}} more ..."] if skipped > 0 else []), *tail])

signal.signal(signal.SIGALRM, _too_slow)
_cases = {cases!r}
for name, setup, call, expected in _cases:
    scope = dict(globals())  # each case on its own: one case's setup never leaks into the next
    try:
        signal.setitimer(signal.ITIMER_REAL, {case_timeout})
        try:
            for statement in setup:
                exec(statement, scope)
            got = eval(call, scope)
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
    except BaseException as exc:
        tb = traceback.format_exc().splitlines()
        results.append({{"name": name, "passed": False, "got": "raised " + type(exc).__name__,
                        "message": f"{{call}} raised {{type(exc).__name__}}: {{exc}}\\n"
                                   + "\\n".join(tb[-6:])}})
        continue
    try:
        want = eval(expected, scope)
        ok = got == want or (isinstance(got, float) and isinstance(want, (int, float))
                             and abs(got - want) <= 1e-6 * max(1.0, abs(want)))
        message = "" if ok else f"{{call}} returned {{got!r}}, expected {{want!r}}"
    except BaseException as exc:
        ok, message = False, f"the expected value {{expected}} raised {{type(exc).__name__}}: {{exc}}"
    results.append({{"name": name, "passed": bool(ok), "got": repr(got)[:300], "message": message}})
print({sentinel!r} + json.dumps(results), flush=True)
# Traced again, the failing calls cannot lose the results above: the last results line printed counts.
_failing = [i for i, result in enumerate(results) if not result["passed"]][:{traced}]
for i in _failing:
    try:
        results[i]["trace"] = _trace(*_cases[i][1:3])
    except BaseException as exc:  # a timer firing as the trace ends: the other traces still count
        results[i]["trace"] = f"(the trace stopped: {{type(exc).__name__}})"
if _failing:
    print({sentinel!r} + json.dumps(results))
'''


def _report(result: sandbox.SandboxResult, cases: list[CaseResult], started: float) -> TestReport:
    output = (result.stdout + ("\n" + result.stderr if result.stderr else "")).strip()
    if result.ending == "timeout":
        ending = "timeout"
    elif not cases:
        ending = "error"
    else:
        ending = "passed" if all(c.passed for c in cases) else "failed"
    return TestReport(
        ending=ending,
        cases=tuple(cases),
        output=output[-4000:],
        duration_s=round(time.monotonic() - started, 3),
        limit=limit_hit(result, cases),
    )


def limit_hit(result: sandbox.SandboxResult, cases: list[CaseResult]) -> SandboxLimit:
    """Name the sandbox limit a run ran into (memory: by the MemoryError the address-space limit raises)."""
    if result.ending != "exited":
        return result.ending
    if result.process_limit_hit:
        return "process_limit"
    if "MemoryError" in result.stderr[-2000:] or any(c.got == "raised MemoryError" for c in cases):
        return "memory_limit"
    return ""


def run_examples(
    code: CodeArtifact,
    module_file: str,
    examples: tuple[Example, ...],
    limits: sandbox.Limits,
    traced: int = 0,
) -> tuple[TestReport, sandbox.SandboxResult]:
    """Run ``examples`` against the module ``module_file`` of ``code``.

    Each call gets an equal share of the time limit, so one that hangs fails alone and the others
    still report. The first ``traced`` failing calls run once more under a line tracer: the module's
    lines they ran, each with the locals before it ran (``CaseResult.trace``), the evidence a person
    fixing the code would step through.
    """
    sentinel = f"@@accord-results-{secrets.token_hex(8)}@@"
    module = module_file.removesuffix(".py").replace("/", ".")
    # An example's name shows its setup, so a failure read alone says what ran.
    cases = [
        (f"example {i + 1}: {'; '.join((*ex.setup, ex.call))}", ex.setup, ex.call, ex.expected)
        for i, ex in enumerate(examples)
    ]
    case_timeout = round(max(0.2, 0.8 * limits.timeout_s / max(1, len(cases))), 2)
    # The traces share a tenth of the limit, so a call that hangs again under the tracer still ends within it.
    trace_timeout = round(max(0.1, 0.1 * limits.timeout_s / max(1, traced)), 2)
    harness = textwrap.dedent(_HARNESS).format(
        module=module,
        sentinel=sentinel,
        cases=cases,
        case_timeout=case_timeout,
        traced=traced,
        trace_timeout=trace_timeout,
        trace_head=TRACE_HEAD,
        trace_tail=TRACE_TAIL,
        trace_width=TRACE_WIDTH,
    )
    started = time.monotonic()
    result = sandbox.run(
        sandbox.python(".accord_harness.py"), {**code.files, ".accord_harness.py": harness}, limits
    )
    parsed: list[CaseResult] = []
    for line in result.stdout.splitlines():
        if line.startswith(sentinel):
            parsed = [CaseResult.model_validate(c) for c in json.loads(line[len(sentinel) :])]
    return _report(result, parsed, started), result


def run_pytest(code: CodeArtifact, limits: sandbox.Limits) -> tuple[TestReport, sandbox.SandboxResult]:
    """Run the code's test files with pytest and report each test case."""
    started = time.monotonic()
    argv = sandbox.python(
        "-m", "pytest", "-q", "-p", "no:cacheprovider", "--tb=short", f"--junitxml={JUNIT}", *code.test_files
    )
    result = sandbox.run(argv, code.files, limits)
    cases: list[CaseResult] = []
    if xml := result.files.get(JUNIT):
        try:
            for case in ET.fromstring(xml).iter("testcase"):
                problem = next((c for c in case if c.tag in ("failure", "error")), None)
                name = f"{case.get('classname', '')}::{case.get('name', '')}".strip(":")
                detail = "" if problem is None else (problem.get("message", "") + "\n" + (problem.text or ""))
                cases.append(CaseResult(name=name, passed=problem is None, message=detail[-1500:]))
        except ET.ParseError:
            cases = []
    report = _report(result, cases, started)
    if result.exit_code == NO_TESTS_COLLECTED:
        where = f" in {', '.join(code.test_files)}" if code.test_files else ""
        report = report.model_copy(
            update={
                "output": f"pytest found no test{where}: write test functions "
                "named test_... in a test_*.py file\n" + report.output
            }
        )
    return report, result


def smoke(code: CodeArtifact, entry_point: str, limits: sandbox.Limits) -> CaseResult:
    """Run an entry point with no input; it passes unless it crashes (end of input is fine) or hangs."""
    result = sandbox.run(sandbox.python(entry_point), code.files, limits, stdin="")
    crashed = "Traceback" in result.stderr and "EOFError" not in result.stderr[-300:]
    passed = result.ending == "exited" and not crashed
    detail = "" if passed else f"{result.ending}, exit {result.exit_code}: {result.stderr[-1200:]}"
    return CaseResult(name=f"smoke: python {entry_point}", passed=passed, message=detail)


def merge(*reports: TestReport) -> TestReport:
    """Return one report holding every case of ``reports``."""
    cases = tuple(c for r in reports for c in r.cases)
    endings = {r.ending for r in reports}
    ending = next((e for e in ("timeout", "error", "failed") if e in endings), "passed")
    if ending == "error" and cases and any(r.ending == "failed" for r in reports):
        ending = "failed"
    return TestReport(
        ending=ending,
        cases=cases,
        output="\n".join(r.output for r in reports if r.output)[-4000:],
        duration_s=round(sum(r.duration_s for r in reports), 3),
        limit=next((r.limit for r in reports if r.limit), ""),
    )
