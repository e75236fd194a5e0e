"""Dev and test splits: which of a benchmark's tasks may shape Accord, and which only measure it.

Each set's split is frozen in ``SPLIT.json`` beside its data and PROVENANCE.md::

    {"rule": "why these ids are dev", "dev": ["..."], "test": ["..."]}

Prompt and rule changes, probes and ablations run on ``dev``; published tables run on ``test``. A task
whose results were read while Accord's prompts or rules changed is ``dev`` for good; a set with no
``test`` ids publishes nothing until fresh items are added. The files are written once and never
regenerated, so a test id stays test however often it is run.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from accord.evals.paths import data_dir

SPLIT_FILE = "SPLIT.json"
SPLITS = ("dev", "test")

FOLDERS = {
    "humaneval": "humaneval",
    "humaneval-pipeline": "humaneval",
    "classeval": "classeval",
    "programdev": "programdev",
    "devign100": "devign100",
    "vuln-python100": "python_vuln100_sven",
    "logiqa": "logiqa",
    "agieval": "agieval",
}
"""Each built-in benchmark's data folder; a user's JSONL set keeps its split beside its file."""


@dataclass(frozen=True)
class Split:
    """A set's frozen split, and the rule that made it."""

    rule: str
    dev: tuple[str, ...]
    test: tuple[str, ...]

    def ids(self, split: str) -> tuple[str, ...]:
        """Return the ids of ``split`` (``dev`` or ``test``)."""
        if split not in SPLITS:
            raise ValueError(f"no split {split!r} (known: {', '.join(SPLITS)})")
        return self.dev if split == "dev" else self.test


def path_of(benchmark: str, task_file: Path | None = None) -> Path:
    """Return where a benchmark's split lives: beside a user's task file, else in its data folder.

    Raises:
        ValueError: a built-in benchmark with no data folder named here.
    """
    if task_file is not None:
        return task_file.parent / SPLIT_FILE
    if benchmark not in FOLDERS:
        raise ValueError(f"{benchmark} declares no split (known: {', '.join(FOLDERS)}, or a jsonl set)")
    return data_dir() / FOLDERS[benchmark] / SPLIT_FILE


def load(path: Path) -> Split:
    """Return the split frozen at ``path``.

    Raises:
        ValueError: no such file, or it is not a split (an id in both halves, a missing key).
    """
    if not path.is_file():
        raise ValueError(f"no split at {path}: a set is split once, by hand, before its test ids run")
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
        split = Split(rule=str(raw["rule"]), dev=tuple(raw["dev"]), test=tuple(raw["test"]))
    except (json.JSONDecodeError, KeyError, TypeError) as exc:
        raise ValueError(f"{path} is not a split: {exc}") from exc
    if both := sorted(set(split.dev) & set(split.test)):
        raise ValueError(f"{path}: ids in both dev and test: {', '.join(both[:5])}")
    return split


def ids(benchmark: str, split: str, task_file: Path | None = None) -> tuple[str, ...]:
    """Return the ids of a benchmark's ``split`` (a user's set: the split beside ``task_file``).

    Raises:
        ValueError: no split for the benchmark, an unknown split name, or a split with no such ids.
    """
    chosen = load(path_of(benchmark, task_file)).ids(split)
    if not chosen:
        raise ValueError(
            f"{benchmark} has no {split} tasks: every one has shaped Accord (its split's rule "
            "says why); a published figure needs fresh items"
        )
    return chosen


def narrowed(
    benchmark: str,
    split: str,
    named: tuple[str, ...] = (),
    task_file: Path | None = None,
) -> tuple[str, ...]:
    """Return the ids a run of ``split`` takes: those ``named``, else the whole split.

    Raises:
        ValueError: as ``ids``, or a named id that is not in the split.
    """
    halved = ids(benchmark, split, task_file)
    if outside := [i for i in named if i not in halved]:
        raise ValueError(f"not in the {split} split of {benchmark}: {', '.join(outside[:5])}")
    return named or halved
