"""Running tests in the sandbox (LOCAL_CODE): example harnesses, pytest suites, smoke runs.

Results come back as a TestReport with one CaseResult per case. Example calls and pytest suites run as
harnesses (``runtime.harness``): their cases come from the one record the harness writes when the last
check has run, on a channel the code under test cannot write a valid record to; nothing it prints, no
file it writes and no exit status it ends with makes a case pass.
"""

from __future__ import annotations

import textwrap
import time

from accord.runtime import harness, sandbox
from accord.state.artifacts import CaseResult, CodeArtifact, Example, SandboxLimit, TestReport

TOO_LARGE = "[Errno 27] File too large"
NO_TESTS_COLLECTED = 5
"""pytest's exit status when it collected no test."""
SHOWN_LIMIT = 300
"""A case's result is shown as its repr, cut to 300 characters."""
TRACE_HEAD, TRACE_TAIL, TRACE_WIDTH = 4, 10, 200
"""A traced call keeps its first 4 and last 10 steps, each at most 200 characters: a few hundred tokens of
a prompt, enough to show where a loop starts and how it ends."""

_HARNESS = '''
import collections, linecache, reprlib, signal, sys, traceback
results = []
try:
    from {module} import *
    _source = sys.modules[{module!r}].__file__
    _imported = True
except BaseException as exc:
    results.append({{"name": "import {module}", "passed": False, "message": traceback.format_exc()[-1500:]}})
    _imported = False

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

def _shown(value):
    try:
        return repr(value)[:{shown_limit}]
    except BaseException:
        return "?"

def _main():
    signal.signal(signal.SIGALRM, _too_slow)
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
            if is_plain(want) and not is_plain(got):  # its own __eq__ would answer for it
                ok, message = False, f"{{call}} returned a {{BUILTINS['type'](got).__name__}}, not plain data"
            else:
                ok = got == want or (isinstance(got, float) and isinstance(want, (int, float))
                                     and abs(got - want) <= 1e-6 * max(1.0, abs(want)))
                message = "" if ok else f"{{call}} returned {{_shown(got)}}, expected {{_shown(want)}}"
        except BaseException as exc:
            ok, message = False, f"the expected value {{expected}} raised {{type(exc).__name__}}: {{exc}}"
        results.append({{"name": name, "passed": ok is True, "got": _shown(got), "message": message}})
    # Traced again, the failing calls cannot lose the results above: they stand if the traces die.
    keep(results)
    for i in [i for i, result in enumerate(results) if not result["passed"]][:{traced}]:
        try:
            results[i]["trace"] = _trace(*_cases[i][1:3])
        except BaseException as exc:  # a timer firing as the trace ends: the other traces still count
            results[i]["trace"] = f"(the trace stopped: {{type(exc).__name__}})"

_cases = {cases!r}
if _imported:
    _main()
'''


_EXAMPLES = """
def checks():
    scope = {{"__name__": "__accord_examples__", "__builtins__": __builtins__, "is_plain": is_plain,
             "BUILTINS": BUILTINS, "keep": keep}}
    exec(compile({source!r}, "<examples>", "exec"), scope)
    return scope["results"]
"""


def _report(
    result: sandbox.SandboxResult, cases: list[CaseResult], started: float, problem: str = ""
) -> TestReport:
    output = (result.stdout + ("\n" + result.stderr if result.stderr else "")).strip()
    if problem and not cases:  # no record: say why before what the program printed
        output = f"{problem}\n{output}".strip()
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
        limit=limit_hit(result, cases, problem),
    )


def limit_hit(result: sandbox.SandboxResult, cases: list[CaseResult], problem: str = "") -> SandboxLimit:
    """Name the sandbox limit a run ran into (memory: by the MemoryError the address-space limit raises;
    disk: by the writes that found no space, in its output, its cases or its harness's error)."""
    if result.ending != "exited":
        return result.ending
    if result.process_limit_hit:
        return "process_limit"
    said = (problem, *(c.message for c in cases))
    if result.disk_limit_hit or any(sandbox.NO_SPACE in text for text in said):
        return "disk_limit"
    if any(TOO_LARGE in text for text in said):  # RLIMIT_FSIZE: Python fails the write with EFBIG
        return "file_limit"
    if (
        result.memory_limit_hit
        or "MemoryError" in result.stderr[-2000:]
        or any(c.got == "raised MemoryError" for c in cases)
    ):
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
    module = module_file.removesuffix(".py").replace("/", ".")
    # An example's name shows its setup, so a failure read alone says what ran.
    cases = [
        (f"example {i + 1}: {'; '.join((*ex.setup, ex.call))}", ex.setup, ex.call, ex.expected)
        for i, ex in enumerate(examples)
    ]
    case_timeout = round(max(0.2, 0.8 * limits.timeout_s / max(1, len(cases))), 2)
    # The traces share a tenth of the limit, so a call that hangs again under the tracer still ends within it.
    trace_timeout = round(max(0.1, 0.1 * limits.timeout_s / max(1, traced)), 2)
    harness_source = textwrap.dedent(_HARNESS).format(
        module=module,
        cases=cases,
        case_timeout=case_timeout,
        traced=traced,
        trace_timeout=trace_timeout,
        trace_head=TRACE_HEAD,
        trace_tail=TRACE_TAIL,
        trace_width=TRACE_WIDTH,
        shown_limit=SHOWN_LIMIT,
    )
    started = time.monotonic()
    checked = harness.run_checks(_EXAMPLES.format(source=harness_source), code.files, limits)
    parsed = [CaseResult.model_validate(c) for c in checked.value] if checked.completed else []
    return _report(checked.result, parsed, started, checked.error), checked.result


_PYTEST = """
def checks():
    import pytest

    outcomes = {}

    class Collector:
        def pytest_runtest_logreport(self, report):
            # A test passes when its setup, call and teardown all did; a skip is not a pass.
            case = outcomes.setdefault(report.nodeid, {"name": report.nodeid, "passed": True, "message": ""})
            if report.failed or report.skipped:
                case["passed"] = False
                case["message"] = (case["message"] + "\\n" + str(report.longreprtext))[-1500:]

        def pytest_collectreport(self, report):
            if report.failed:
                outcomes[report.nodeid or "collection"] = {
                    "name": report.nodeid or "collection", "passed": False,
                    "message": str(report.longreprtext)[-1500:],
                }

    status = pytest.main(ARGS, plugins=[Collector()])
    return {"status": int(status), "cases": list(outcomes.values())}
"""


def run_pytest(code: CodeArtifact, limits: sandbox.Limits) -> tuple[TestReport, sandbox.SandboxResult]:
    """Run the code's test files with pytest and report each test case, from the harness's record."""
    started = time.monotonic()
    args = ["-q", "-p", "no:cacheprovider", "--tb=short", *code.test_files]
    checked = harness.run_checks(f"ARGS = {args!r}\n{_PYTEST}", code.files, limits)
    value = checked.value if checked.completed else {}
    cases = [CaseResult.model_validate(c) for c in value.get("cases", [])]
    report = _report(checked.result, cases, started, checked.error)
    if value.get("status") == NO_TESTS_COLLECTED:
        where = f" in {', '.join(code.test_files)}" if code.test_files else ""
        report = report.model_copy(
            update={
                "output": f"pytest found no test{where}: write test functions "
                "named test_... in a test_*.py file\n" + report.output
            }
        )
    return report, checked.result


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
