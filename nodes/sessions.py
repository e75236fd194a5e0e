"""A program's scripted session, played against its entry point in the sandbox (LOCAL_CODE).

The Planner's design states how ``main()`` is used and a session with it: what the user types, and a
text the program must print after each input. An interactive program gets the whole session on its
standard input in one run; a program driven by its arguments gets one run per turn. The design's input files
lie beside the program in every run (the program's own files win a clash). A session fails on a
crash, a hang, or an expected text that is not printed in order; the end of the input is how every
session ends, so an ``EOFError`` there is not a crash (the records interface's smoke run reads it alike).
"""

from __future__ import annotations

import re
import shlex

from accord.runtime import sandbox
from accord.state.artifacts import CaseResult, CodeArtifact, Design, Turn

SHOWN = 1200
"""Characters of a failing session's output shown to the model and in the report."""


def beside(code: CodeArtifact, design: Design | None) -> CodeArtifact:
    """Return ``code`` with the design's input files beside it, as every run of the program sees them (the
    program's own files win a clash)."""
    return code.model_copy(update={"files": {**design.files, **code.files}}) if design else code


def play(code: CodeArtifact, entry_point: str, design: Design, limits: sandbox.Limits) -> list[CaseResult]:
    """Play ``design``'s session against ``entry_point``; return one case per run."""
    files = beside(code, design).files
    if design.interface == "arguments":
        runs = design.session or (Turn(input=""),)
        return [_with_arguments(files, entry_point, turn, limits) for turn in runs]
    stdin = "".join(f"{t.input}\n" for t in design.session)
    result = sandbox.run(sandbox.python(entry_point), files, limits, stdin=stdin)
    name = "session: " + (", ".join(repr(t.input) for t in design.session) or "no input")
    return [_case(name, stdin, result, crash(result) or unseen(result.stdout, design.session))]


def _with_arguments(
    files: dict[str, str], entry_point: str, turn: Turn, limits: sandbox.Limits
) -> CaseResult:
    try:
        argv = shlex.split(turn.input)
    except ValueError:  # an unbalanced quote: the words as typed
        argv = turn.input.split()
    result = sandbox.run(sandbox.python(entry_point, *argv), files, limits, stdin="")
    name = f"run: python {entry_point} {turn.input}".rstrip()
    return _case(name, turn.input, result, crash(result) or unseen(result.stdout, (turn,)))


def _case(name: str, typed: str, result: sandbox.SandboxResult, problem: str) -> CaseResult:
    if not problem:
        return CaseResult(name=name, passed=True)
    transcript = f"input:\n{typed.rstrip()}\noutput:\n{result.stdout[-SHOWN:]}{result.stderr[-SHOWN:]}"
    return CaseResult(name=name, passed=False, message=f"{problem}\n{transcript}")


def crash(result: sandbox.SandboxResult) -> str:
    """Return how a run failed (a hang, a limit, a traceback other than the input's end), or ''."""
    last = (result.stderr.strip().splitlines() or [""])[-1][:200]
    if result.ending != "exited":
        return f"it did not finish ({result.ending}): it must end when the input ends"
    if "Traceback" in result.stderr and "EOFError" not in last:
        return f"it crashed: {last}"
    if result.exit_code != 0 and "EOFError" not in last:
        return f"it exited with status {result.exit_code}" + (f": {last}" if last else "")
    return ""


def plain(text: str) -> str:
    """Return ``text`` as a session compares it: lower case, runs of spaces as one."""
    return re.sub(r"\s+", " ", text).strip().lower()


def unseen(output: str, turns: tuple[Turn, ...]) -> str:
    """Return the first expected text the output does not show in the session's order (case and spacing
    aside), or ''."""
    said, position = plain(output), 0
    for turn in turns:
        if not turn.expect:
            continue
        found = said.find(plain(turn.expect), position)
        if found < 0:
            return f"after {turn.input!r} the output should show {turn.expect!r}"
        position = found + len(plain(turn.expect))
    return ""
