"""The audit workflow's own artifacts: the code to audit and the analysts' findings, merged by role."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from accord.state.artifacts import Frozen, register_artifact
from accord.state.graph_state import merge_by_role

Language = Literal["c", "cpp", "python"]


@register_artifact
class AuditTask(Frozen):
    """Code to audit for vulnerabilities, normalised by the audit intake: one function or one file."""

    kind: Literal["audit_task"] = "audit_task"
    language: Language
    code: str = Field(min_length=1)
    first_line: int = Field(default=1, ge=1)
    """The line number of the code's first line in its file, so findings cite the file's lines."""
    function: str | None = None
    """The function audited, when one was picked out of a file."""
    source: str = ""
    """Where the code came from (a file name), for the reader; never a label."""

    def numbered(self) -> str:
        """Return the code with its file's line numbers, as the roles read it."""
        width = len(str(self.first_line + self.code.count("\n")))
        return "\n".join(
            f"{n:>{width}} | {line}" for n, line in enumerate(self.code.splitlines(), start=self.first_line)
        )

    def text(self) -> str:
        """Return the language and the length of the code."""
        return f"{self.language} code, {self.code.count(chr(10)) + 1} lines"


Cwe = Annotated[str, Field(pattern=r"^CWE-[0-9]{1,4}$")]


class ToolReport(Frozen):
    """What one static analyser said about the code, or that it could not run here."""

    tool: str
    available: bool
    """False when the analyser is not installed, or a proof cannot run isolated here (its issue says why);
    the finding then rests on the other reports and the model's reading."""
    issues: tuple[str, ...] = ()
    """One line per issue: line, rule or CWE, message."""


class Finding(Frozen):
    """One role's judgement of the code: vulnerable or not, where, why, how sure."""

    vulnerable: bool
    cwe: Cwe | None = None
    lines: tuple[int, ...] = ()
    """Lines of the file the evidence is about."""
    evidence: str = Field(min_length=1)
    confidence: float = Field(ge=0.0, le=1.0)
    tools: tuple[ToolReport, ...] = ()
    """The analysers' reports the finding cites (the Tester's)."""


@register_artifact(reducer=merge_by_role)
class Findings(Frozen):
    """The findings of a fan-out stage's roles, by role: each role writes its own, the state merges them."""

    kind: Literal["findings"] = "findings"
    by_role: dict[str, Finding] = Field(min_length=1)

    def text(self) -> str:
        """Return each role's finding on one line."""
        return "; ".join(
            f"{role}: {'vulnerable' if f.vulnerable else 'safe'}"
            + (f" ({f.cwe})" if f.cwe else "")
            + f", {f.evidence}"
            for role, f in self.by_role.items()
        )
