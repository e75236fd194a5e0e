"""The repair workflow's own artifact: the project to repair and the command that shows the failure."""

from __future__ import annotations

from typing import Literal

from accord import Frozen, register_artifact


@register_artifact
class RepairTask(Frozen):
    """A Python project (its files as they were given) and the test command that fails on it."""

    kind: Literal["repair_task"] = "repair_task"
    project: str
    """Where the project was read from (shown to people; the files travel in ``original``)."""
    test_command: tuple[str, ...]
    """The command, as argv, run in the project's root, e.g. ``("python", "-m", "pytest", "-q")``."""
    original: dict[str, str]
    """The project's files before any change: relative path -> content (the diff's left side)."""
    test_files: tuple[str, ...] = ()
    """The project's own test files: a fix may not change them."""

    def text(self) -> str:
        """Return the task in one line, for traces and free-text handoffs."""
        return f"{self.project}: `{' '.join(self.test_command)}` over {len(self.original)} files"
