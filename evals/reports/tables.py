"""Result tables in the docs, generated from ``summary.json`` files so that no figure is typed by hand.

A document marks each table with the folder it comes from and, optionally, the configurations it shows::

    <!-- results: results/humaneval-164 single simple accountable -->
    ...generated table...
    <!-- /results -->

A folder with no summary yet (a declared experiment not started, or in its first configuration) gets a line
that says so.

A ``goals`` mark names one HumanEval result folder, then optionally a folder of function tasks with one
stated example each and further test sets' folders, and gets the code goals checked against them
(``evals.reports.goals``)::

    <!-- goals: results/humaneval-164-goals results/functions40 results/odex-test -->

A ``findings`` mark instead names the pipeline's result folders, and gets the accountability paper's
findings beside Accord's (``evals.reports.findings``); a folder not there yet counts as not run::

    <!-- findings: results/logiqa results/agieval -->

A ``live-blame`` mark names one code result folder and gets how often blame by the run's own evidence
agrees with blame by the benchmark's hidden tests, per configuration
(``evals.reports.summary.live_blame_table``)::

    <!-- live-blame: results/functions40-budget -->

A ``who-and-when`` mark names the folder of ``evals.benchmarks.who_and_when`` and gets its judge's attribution
accuracy beside the floors (the floors alone until the judge has run)::

    <!-- who-and-when: results/who-and-when -->

A ``tester-check`` mark names a folder ``evals.probes.tester`` has read and gets how the team's Tester
cases would have judged the plain call's answers (a line saying it has not run, until it has)::

    <!-- tester-check: results/unstated-dev -->

A ``cross-check`` mark names a folder ``evals.probes.cross_check`` has read and gets how right the final
answers were by what the cross-check showed::

    <!-- cross-check: results/odex-cross-check -->

An ``anchors`` mark names the same folders and gets each set's best configuration beside chance and
published small models (``evals.reports.findings.anchors``).

``python -m accord.evals.reports.tables`` rewrites every marked table in the README and ``docs/``; ``--check``
only says which ones differ from their summaries (a test runs it).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from accord.evals import declared
from accord.evals.benchmarks import BENCHMARKS, MultipleChoice, Vulnerabilities, who_and_when
from accord.evals.paths import REPOSITORY
from accord.evals.probes import cross_check
from accord.evals.probes import tester as tester_check
from accord.evals.reports import classification, comparable, stats
from accord.evals.reports.findings import anchors, findings
from accord.evals.reports.goals import goals
from accord.evals.reports.summary import (
    above_majority,
    answers_given,
    failures_per_task,
    floors_line,
    live_blame_table,
)
from accord.evals.runner import RESULTS, read_rows
from accord.state.context import Context

ROOT = REPOSITORY
PAPER = {"findings": findings, "anchors": anchors}
"""The marks whose tables come from the pipeline's result folders together."""

KINDS = "|".join(("results", "goals", "live-blame", "who-and-when", "tester-check", "cross-check", *PAPER))
MARKED = re.compile(
    rf"(<!-- (?P<kind>{KINDS}): (?P<spec>[^>]*?) -->\n)"
    r"(?P<body>.*?)"
    r"(<!-- /(?P=kind) -->)",
    re.S,
)
HEADER = (
    "| configuration | solved | pass@1 [95% CI] | paired with `accountable` | tokens per solved "
    "| median latency (s) | LLM calls / task | verdict agrees with hidden tests | model | run |\n"
    "|---|---|---|---|---|---|---|---|---|---|\n"
)

LABELLED_HEADER = (
    "| configuration | tasks | accuracy [95% CI] | paired with `accountable` | precision "
    "| recall | F1 | balanced accuracy | MCC | TP / FP / TN / FN / no verdict "
    "| MAST failures / task | tokens / task | median latency (s) | LLM calls / task "
    "| model | run |\n"
    "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n"
)


def paired(s: Mapping[str, Any]) -> str:
    """Return a configuration against ``accountable`` on the tasks both ran: net tasks solved, the exact
    McNemar p and what it lets the table say (``stats.compared``); a dash for ``accountable`` itself."""
    versus = s.get("versus")
    if not versus:
        return "—"
    mine, theirs = len(versus["only_this"]), len(versus["only_reference"])
    return (
        f"+{mine} −{theirs} of {versus['tasks']}, p = {stats.mcnemar(mine, theirs):.2g}: "
        f"{stats.compared(mine, theirs)}"
    )


def _row(name: str, s: Mapping[str, Any]) -> str:
    verdicts = s.get("verdicts") or {}
    agreement = f"{verdicts['agreement']:.1%}" if "agreement" in verdicts else "—"
    per_solved = "—" if s["tokens_per_solved"] is None else f"{s['tokens_per_solved']:,}"  # none solved
    return (
        f"| `{name}` | {s['solved']} / {s['tasks']} | {stats.rate(s['solved'], s['tasks'])} "
        f"| {paired(s)} | {per_solved} | {s['median_latency_s']:.1f} | {s['llm_calls_per_task']:.1f} "
        f"| {agreement} "
        f"| {', '.join(s.get('models', []))} | {', '.join(s.get('dates', []))} |\n"
    )


ANSWERED_HEADER = (
    "| configuration | questions | accuracy [95% CI] | paired with `accountable` | unanswered "
    "| answers given | above the majority answer | tokens / task | median latency (s) "
    "| LLM calls / task | model | run |\n"
    "|---|---|---|---|---|---|---|---|---|---|---|---|\n"
)


def f(value: float | None) -> str:
    """Return a metric with two decimals, or a dash where it is undefined."""
    return "—" if value is None else f"{value:.2f}"


def _labelled_row(name: str, s: Mapping[str, Any]) -> str:
    c = s["classification"]
    m = c["confusion"]
    flag = "" if classification.beats_constants(c) else " (no better than a constant)"
    return (
        f"| `{name}`{flag} | {s['tasks']} | {stats.rate(m['tp'] + m['tn'], s['tasks'])} | {paired(s)} "
        f"| {f(c['precision'])} | {f(c['recall'])} | {f(c['f1'])} | {f(c['balanced_accuracy'])} "
        f"| {f(c.get('mcc'))} | {m['tp']} / {m['fp']} / {m['tn']} / {m['fn']} / {m['no_verdict']} "
        f"| {failures_per_task(s):.2f} | {s['tokens_per_task']:,} | {s['median_latency_s']:.1f} "
        f"| {s['llm_calls_per_task']:.1f} | {', '.join(s.get('models', []))} "
        f"| {', '.join(s.get('dates', []))} |\n"
    )


def _answered_row(name: str, s: Mapping[str, Any]) -> str:
    a = s["answers"]
    above = "yes" if above_majority(s) else "no"
    return (
        f"| `{name}` | {s['tasks']} | {stats.rate(s['solved'], s['tasks'])} | {paired(s)} "
        f"| {a['unanswered']} | {answers_given(a)} | {above} | {s['tokens_per_task']:,} "
        f"| {s['median_latency_s']:.1f} | {s['llm_calls_per_task']:.1f} "
        f"| {', '.join(s.get('models', []))} | {', '.join(s.get('dates', []))} |\n"
    )


def _floors(s: Mapping[str, Any]) -> str:
    """Return the line under a multiple-choice table, after a blank one."""
    questions = f"{s['tasks']} questions"
    return f"\n{floors_line(s['answers']['floors'], questions)}\n"


def table(folder: Path, configurations: Iterable[str] = ()) -> str:
    """Return the markdown table of ``folder``'s ``summary.json``: the named configurations, else all.
    Labelled verdicts (vulnerability sets) get the classification columns instead of pass@1, and
    multiple-choice answers their distribution and the set's floors."""
    summary = _summaries(folder)
    names = list(configurations) or list(summary)
    if missing := [n for n in names if n not in summary]:
        raise KeyError(f"{folder}/summary.json has no configuration {missing}")
    if all("classification" in summary[n] for n in names):
        return (
            LABELLED_HEADER
            + "".join(_labelled_row(name, summary[name]) for name in names)
            + _constant_rows(summary[names[0]])
        )
    if all("answers" in summary[n] for n in names):
        return (
            ANSWERED_HEADER
            + "".join(_answered_row(name, summary[name]) for name in names)
            + _floors(summary[names[0]])
        )
    return HEADER + "".join(_row(name, summary[name]) for name in names)


def _constant_rows(s: Mapping[str, Any]) -> str:
    """Return the floors' rows: one verdict for every item of the set ``s`` ran."""
    c, n = s["classification"], s["tasks"]
    rows = []
    for verdict, score in classification.constants(c).items():
        right = c["positives"] if verdict == "all-vulnerable" else c["negatives"]
        rows.append(
            f"| {verdict} (constant) | {n} | {stats.rate(right, n)} | — | — | — | {f(score['f1'])} "
            f"| 0.50 | — | — | — | — | — | — | — | — |\n"
        )
    return "".join(rows)


def _summaries(folder: Path, running: bool = False) -> dict[str, Any]:
    """Return a folder's summaries by configuration (none when it has not run yet), but those still in
    progress (``comparable.in_progress``) unless ``running`` keeps them (goals judge no configuration
    that is, and say how far it has run)."""
    path = folder / "summary.json"
    left_out = {} if running else _in_progress(folder)
    return (
        {name: s for name, s in json.loads(path.read_text()).items() if name not in left_out}
        if path.exists()
        else {}
    )


def _in_progress(folder: Path) -> dict[str, tuple[int, int]]:
    """Return the configurations of ``folder``'s experiment still in progress, those it declares and has not
    started among them (``comparable.in_progress``)."""
    if not (folder / RESULTS).exists():
        return {}
    rows = read_rows(folder)
    return comparable.in_progress(rows, _declared(folder, {r.get("experiment") for r in rows}))


def _declared(folder: Path, experiments: set[str | None]) -> list[str]:
    """Return the configurations the one experiment that ran ``folder`` declares, by the names its rows carry;
    none when the rows ran outside one or its file is gone. Experiment files sit in the checkout that holds
    the result folders (``evals/experiments`` beside ``results``)."""
    name = next(iter(experiments)) if len(experiments) == 1 else None
    if not name or not (path := folder.parent.parent / "evals" / "experiments" / f"{name}.toml").exists():
        return []
    return declared.configuration_names(declared.load(str(path)), Context())


def in_progress_note(folder: Path, root: Path = ROOT, names: Iterable[str] = ()) -> str:
    """Return the line that names a folder's configurations still in progress (none: empty); of ``names``
    alone where a table names its configurations, since a folder that ran an earlier declaration of its
    experiment never runs what the declaration added later."""
    wanted = set(names)
    running = {name: counts for name, counts in _in_progress(folder).items() if not wanted or name in wanted}
    if not running:
        return ""
    listed = "; ".join(f"`{name}` {ran} of {every} tasks" for name, (ran, every) in running.items())
    return (
        f"\n*In progress in `{folder.relative_to(root)}`: {listed}, left out until every task has run "
        "(its rows resume).*\n"
    )


def _benchmark(folder: Path) -> str:
    """Return the benchmark a folder's rows ran ("" before it has run)."""
    return next((r["benchmark"] for r in read_rows(folder)), "") if (folder / RESULTS).exists() else ""


def mixed(folder: Path, configurations: Iterable[str] = ()) -> str:
    """Return why ``folder``'s rows (of the named configurations, else all) do not make one table: rows of
    more than one commit, or configurations that ran different tasks; empty when they do. Configurations
    still in progress are left out."""
    if not (folder / RESULTS).exists():
        return ""
    wanted = set(configurations)
    rows = read_rows(folder)
    running = comparable.in_progress(rows)
    rows = [r for r in rows if (not wanted or r["config"] in wanted) and r["config"] not in running]
    codes = {comparable.code_of(r) for r in rows}
    tasks: dict[str, set[str]] = {}
    for r in rows:
        tasks.setdefault(r["config"], set()).add(r["id"])
    reasons = [f"rows of {len(codes)} code versions"] if len(codes) > 1 else []
    if len({frozenset(t) for t in tasks.values()}) > 1:
        reasons.append("configurations that ran different tasks")
    return " and ".join(reasons)


def attribution_table(folder: Path, root: Path = ROOT) -> str:
    """Return the Who&When attribution table of ``folder``: the judge's summary, else the floors alone; a
    subset judged by more than one model or commit is withheld."""
    summary = folder / "summary.json"
    figures = json.loads((summary if summary.exists() else folder / "floors.json").read_text())
    if judges := sorted({j for s in figures.values() if len(s.get("judges", ())) > 1 for j in s["judges"]}):
        return withheld(folder, f"rows of {len(judges)} judges ({', '.join(judges)})", root)
    return who_and_when.table(figures)


def withheld(folder: Path, reason: str, root: Path = ROOT) -> str:
    """Return what a document shows instead of a table whose rows do not compare."""
    return (
        f"*Withheld: `{folder.relative_to(root)}` holds {reason}, so its figures do not stand side by "
        "side. Its rows stay as they ran; the table returns when a declared experiment reruns it at one "
        "commit (docs/evals.md, Declared experiments).*\n"
    )


def render(text: str, root: Path = ROOT) -> str:
    """Return ``text`` with every marked table regenerated from its summary; a folder whose rows do not
    compare (``mixed``) is withheld, with the reason, instead."""

    def fill(match: re.Match[str]) -> str:
        if match["kind"] in PAPER:
            folders = [root / folder for folder in match["spec"].split()]
            out = [f for f in folders if mixed(f)]
            # A finding compares every configuration of a set: a set still running is not judged yet.
            running = [f for f in folders if f not in out and _in_progress(f)]
            # A folder stands for the set its rows ran (``logiqa-test`` is LogiQA), else for its name.
            summaries = {
                _benchmark(f) or f.name: _summaries(f)
                for f in folders
                if (f / "summary.json").exists() and f not in out + running
            }
            notes = "".join(withheld(f, mixed(f), root) for f in out)
            paper = PAPER[match["kind"]](summaries) if summaries else ""
            return (
                match.group(1)
                + notes
                + paper
                + "".join(in_progress_note(f, root) for f in running)
                + match.group(5)
            )
        folder, *names = match["spec"].split()
        if match["kind"] == "goals":
            folders = [root / folder, *(root / n for n in names)]
            if reasons := [withheld(f, why, root) for f in folders if (why := mixed(f))]:
                return match.group(1) + "".join(reasons) + match.group(5)
            first, *tests = (_summaries(f, running=True) for f in folders)
            body = (
                goals(
                    first,
                    tests[0] if tests else None,
                    [(_benchmark(f), runs) for f, runs in zip(folders[2:], tests[1:], strict=True)],
                )
                + judge_note(folders)
                + commits_note(folders, root)
            )
        elif match["kind"] == "who-and-when":
            body = attribution_table(root / folder, root)
        elif match["kind"] == "tester-check":
            body = tester_check.table(root / folder)
        elif match["kind"] == "cross-check":
            body = cross_check.table(root / folder)
        elif why := mixed(root / folder, names):
            body = withheld(root / folder, why, root)
        elif not (root / folder / "summary.json").exists():
            started = (root / folder / RESULTS).exists()
            body = (
                f"*In progress: `{folder}` holds rows, none of a finished configuration yet.*\n"
                if started
                else f"*Not run yet: `{folder}` holds no results.*\n"
            )
        elif match["kind"] == "live-blame":
            body = "".join(f"{line}\n" for line in live_blame_table(_summaries(root / folder)))
            body += judge_note([root / folder])
        else:
            body = table(root / folder, names) + in_progress_note(root / folder, root, names)
            body += judge_note([root / folder])
        return match.group(1) + body + match.group(5)

    return MARKED.sub(fill, text)


OLD_JUDGE = (
    "\n*Judged before completion records (a clean exit could pass a check, docs/reliability.md): these rows "
    "keep no code to judge again, and a rerun replaces them.*\n"
)


def commits_note(folders: Sequence[Path], root: Path = ROOT) -> str:
    """Return the note a table drawn from several folders gets when their rows ran different code, naming
    each folder's commit ('' when one commit ran them all): its rows are then not one experiment."""
    codes = {f: sorted({comparable.code_of(r) for r in read_rows(f)}) for f in folders}
    if len({code for found in codes.values() for code in found}) <= 1:
        return ""
    said = "; ".join(f"`{f.relative_to(root)}` at {', '.join(found)}" for f, found in codes.items() if found)
    return f"\n*These rows ran different code ({said}): they are not one experiment.*\n"


def judge_note(folders: Iterable[Path]) -> str:
    """Return the note a table gets when any of its code verdicts came from the judge before completion
    records (rows without a ``judge``); '' when none did. Answers and labels were never judged by code."""

    def by_code(row: Mapping[str, Any]) -> bool:
        known = BENCHMARKS.get(row.get("benchmark", ""))
        return not isinstance(known, MultipleChoice | Vulnerabilities)

    rows = [r for folder in folders for r in read_rows(folder)]
    return OLD_JUDGE if any("judge" not in r and by_code(r) for r in rows) else ""


def documents(root: Path = ROOT) -> list[Path]:
    """Return the documents that may hold result tables: the README and every page under ``docs/``."""
    return [root / "README.md", *sorted((root / "docs").glob("*.md"))]


def stale(root: Path = ROOT) -> list[Path]:
    """Return the documents whose tables differ from what their summaries generate."""
    return [
        doc for doc in documents(root) if doc.exists() and render(doc.read_text(), root) != doc.read_text()
    ]


def main(argv: list[str] | None = None) -> int:
    """Rewrite the marked tables, or with ``--check`` list the stale documents (exit 1 when any)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only list documents whose tables are stale")
    args = parser.parse_args(argv)
    if args.check:
        out_of_date = stale()
        for doc in out_of_date:
            print(f"{doc.relative_to(ROOT)}: a result table differs from its summary.json")
        return 1 if out_of_date else 0
    for doc in documents():
        if doc.exists() and (new := render(doc.read_text())) != doc.read_text():
            doc.write_text(new)
            print(f"rewrote {doc.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
