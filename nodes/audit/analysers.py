"""The Tester's static analysers, as LOCAL_CODE actions: bandit for Python, cppcheck and flawfinder for C.

Each reads the code from a temporary file and never runs it. An analyser that is not installed reports
itself unavailable (``ToolReport.available``), and the Tester's finding says it rests on the model's
reading alone. Reported lines are the file's, shifted by the task's first line.
"""

from __future__ import annotations

import csv
import io
import json
import os
import shutil
import subprocess
import sys
import tempfile
import textwrap
from collections.abc import Callable
from pathlib import Path

from accord.nodes.audit.artifacts import AuditTask, ToolReport

TIMEOUT_S = 60.0
MAX_ISSUES = 12
"""Issues kept per tool, most severe first: the prompt has room for a dozen lines, not a hundred."""
SUFFIX = {"c": ".c", "cpp": ".cpp", "python": ".py"}


def _run(task: AuditTask, command: list[str]) -> subprocess.CompletedProcess[str]:
    with tempfile.TemporaryDirectory(prefix="accord-audit-") as tmp:
        path = Path(tmp) / f"audited{SUFFIX[task.language]}"
        path.write_text(textwrap.dedent(task.code) + "\n")
        return subprocess.run(
            [*command, str(path)],
            capture_output=True,
            text=True,
            timeout=TIMEOUT_S,
            check=False,
            stdin=subprocess.DEVNULL,
        )


def _executable(name: str) -> str | None:
    """Return an analyser's executable: on the PATH, or beside this Python (a dependency's script)."""
    return shutil.which(
        name, path=os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")])
    )


def _line(task: AuditTask, line: str | int) -> int:
    return int(line) + task.first_line - 1


def bandit(task: AuditTask) -> ToolReport:
    """Run bandit (a dependency, so always available) on Python code."""
    done = _run(task, [sys.executable, "-m", "bandit", "-q", "-f", "json"])
    results = json.loads(done.stdout or "{}").get("results", [])
    order = {"HIGH": 0, "MEDIUM": 1, "LOW": 2}
    results.sort(key=lambda r: order.get(r["issue_severity"], 3))
    issues = tuple(
        f"line {_line(task, r['line_number'])}: {r['test_id']} CWE-{r['issue_cwe']['id']} "
        f"({r['issue_severity'].lower()}): {r['issue_text']}"
        for r in results[:MAX_ISSUES]
    )
    return ToolReport(tool="bandit", available=True, issues=issues)


def flawfinder(task: AuditTask) -> ToolReport:
    """Run flawfinder (a dependency) on C/C++ code: risky calls by CWE, levels 1 to 5."""
    if (executable := _executable("flawfinder")) is None:
        return ToolReport(tool="flawfinder", available=False)
    done = _run(task, [executable, "--csv", "--quiet", "--dataonly"])
    rows = sorted(csv.DictReader(io.StringIO(done.stdout)), key=lambda r: -int(r["Level"]))
    issues = tuple(
        f"line {_line(task, r['Line'])}: {r['Name']} {r['CWEs']} (level {r['Level']}): {r['Warning']}"
        for r in rows[:MAX_ISSUES]
    )
    return ToolReport(tool="flawfinder", available=True, issues=issues)


def cppcheck(task: AuditTask) -> ToolReport:
    """Run cppcheck (a system package: ``apt-get install cppcheck``) on C/C++ code."""
    if (executable := _executable("cppcheck")) is None:
        return ToolReport(tool="cppcheck", available=False)
    template = "{line}|{severity}|{id}|{cwe}|{message}"
    done = _run(
        task,
        [
            executable,
            "--enable=warning,style,portability",
            "--quiet",
            f"--template={template}",
            f"--language={'c++' if task.language == 'cpp' else 'c'}",
        ],
    )
    order = {"error": 0, "warning": 1, "portability": 2, "style": 3}
    found = [line.split("|", 4) for line in done.stderr.splitlines() if line.count("|") >= 4]
    found.sort(key=lambda f: order.get(f[1], 4))
    issues = tuple(
        f"line {_line(task, line)}: {rule}"
        + (f" CWE-{cwe}" if cwe not in ("", "0") else "")
        + f" ({severity}): {message}"
        for line, severity, rule, cwe, message in found[:MAX_ISSUES]
        if line.isdigit()
    )
    return ToolReport(tool="cppcheck", available=True, issues=issues)


ANALYSERS: dict[str, tuple[Callable[[AuditTask], ToolReport], ...]] = {
    "python": (bandit,),
    "c": (cppcheck, flawfinder),
    "cpp": (cppcheck, flawfinder),
}
"""The analysers that read each language."""
