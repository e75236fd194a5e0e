"""Whether result rows may stand side by side in one table: one commit, one task set, one set of settings.

A comparison is only as good as its weakest pairing. Rows of different code (another commit, or the same
commit with changes not yet committed), configurations that ran different tasks, or runs whose settings differ
beyond what a configuration fixes for itself, do not compare; ``accord eval compare`` refuses them and says
which, unless asked to show each commit as columns of its own (``separately``). Rows of changed code
(``accord eval run --dev``) are never published.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping
from typing import Any

OWN_SETTINGS = ("model", "role_models")
"""Settings a configuration names itself by (``accountable@BCBBB``), so they may differ between columns."""


def code_of(row: Mapping[str, Any]) -> str:
    """Return the code a row ran: its commit (short, as rows that record only ``version`` name it), marked
    ``+dirty`` when the working copy changed it."""
    commit = str(row.get("commit") or row.get("version") or "unknown").removesuffix("+dirty")[:7]
    dirty = bool(row.get("dirty")) or str(row.get("version") or "").endswith("+dirty")
    return commit + ("+dirty" if dirty else "")


def _counts(rows: Iterable[Mapping[str, Any]]) -> str:
    per_config: dict[str, int] = defaultdict(int)
    for row in rows:
        per_config[row["config"]] += 1
    return ", ".join(f"{config} {n}" for config, n in sorted(per_config.items()))


def _compared_settings(row: Mapping[str, Any], own: set[str]) -> dict[str, Any] | None:
    """Return the settings of a row that every configuration must share: all but ``own``, those some
    configuration sets for itself (None: the row records none)."""
    if "settings" not in row:
        return None
    return {k: v for k, v in row["settings"].items() if k not in own}


def problems(rows: list[dict[str, Any]], dev: bool = False) -> list[str]:
    """Return why ``rows`` do not compare as one table, one line each (none: they do).

    Args:
        dev: accept rows of changed code (``--dev``), which a published table never holds.
    """
    found = []
    if not dev and (marked := [r for r in rows if r.get("dev")]):
        found.append(
            f"{len(marked)} rows ran with --dev on code that differs from its commit "
            f"({_counts(marked)}); they are never published"
        )
    by_code: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for row in rows:
        by_code[code_of(row)].append(row)
    if len(by_code) > 1:
        found.append(
            "rows of different code: "
            + "; ".join(f"{code} ({_counts(group)})" for code, group in sorted(by_code.items()))
        )
    tasks: dict[str, set[str]] = defaultdict(set)
    for row in rows:
        tasks[row["config"]].add(row["id"])
    if len({frozenset(ids) for ids in tasks.values()}) > 1:
        shared = set.intersection(*tasks.values())
        found.append(
            "configurations ran different tasks: "
            + "; ".join(
                f"{config} {len(ids)}"
                + (f" ({len(ids - shared)} beyond the {len(shared)} all ran)" if ids - shared else "")
                for config, ids in sorted(tasks.items())
            )
        )
    settings: dict[str, tuple[dict[str, Any], set[str]]] = {}
    own = set(OWN_SETTINGS).union(*(row.get("own_settings") or {} for row in rows))
    for row in rows:
        if (compared := _compared_settings(row, own)) is not None:
            settings.setdefault(repr(sorted(compared.items())), (compared, set()))[1].add(row["config"])
    if len(settings) > 1:
        runs = list(settings.values())
        first = runs[0][0]
        differ = [
            k
            for k in sorted({k for s, _ in runs for k in s})
            if any((k in s, s.get(k)) != (k in first, first.get(k)) for s, _ in runs)
        ]
        found.append(
            "runs with different settings: "
            + "; ".join(
                f"{', '.join(sorted(configs))}: "
                + ", ".join(f"{k}={s[k]!r}" if k in s else f"{k} unset" for k in differ)
                for s, configs in runs
            )
        )
    return found


def in_progress(
    rows: Iterable[Mapping[str, Any]], declared: Iterable[str] = ()
) -> dict[str, tuple[int, int]]:
    """Return the configurations of a declared experiment that have not run all its tasks yet, by name, with
    how many they ran of how many any of them ran; a configuration the experiment ``declared`` that has no
    rows yet ran 0.

    A declared experiment runs its configurations one after another and a session may end inside one; its
    rows are committed as they come and left out of tables until it has run every task, and a comparison
    across its configurations waits until every one has. Rows run outside a declared experiment have no
    such state: a configuration with fewer tasks there ran different tasks.
    """
    rows = list(rows)
    if not rows or not all(r.get("experiment") for r in rows):
        return {}
    tasks: dict[str, set[str]] = defaultdict(set)
    for row in rows:
        tasks[row["config"]].add(row["id"])
    every = set().union(*tasks.values())
    running = {config: (len(ids), len(every)) for config, ids in tasks.items() if ids < every}
    return running | {config: (0, len(every)) for config in declared if config not in tasks}


def separately(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Return ``rows`` with each configuration named by its code too (``single@3f2a1b7``) when they hold
    more than one commit, so each commit's rows are columns of their own."""
    if len({code_of(r) for r in rows}) < 2:
        return rows
    # The commit moves into the name, so the rows no longer differ in code, only in column.
    return [
        {**r, "config": f"{r['config']}@{code_of(r)}", "commit": "", "version": "", "dirty": False}
        for r in rows
    ]
