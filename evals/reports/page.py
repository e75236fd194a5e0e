"""An eval's report as one self-contained HTML page, ``report.html``, beside ``report.md``.

It holds the same tables as ``report.md`` (rendered from it, so the two never disagree), the plots as
inline SVG, and every task's row: its configuration, outcome, error origin, tokens and time, filterable by
configuration, outcome and error origin, each linking to its run's page (``accord report``) when ``--pages``
wrote them into ``runs/``. Nothing is fetched when the page is viewed.
"""

from __future__ import annotations

import re
import tempfile
from collections.abc import Callable, Mapping, Sequence
from html import escape
from pathlib import Path
from typing import Any

from markdown_it import MarkdownIt

from accord.accountability import page
from accord.evals.reports import plots
from accord.evals.runner import stored_runs

SCRIPT = """
const picks = [...document.querySelectorAll('select[data-col]')];
function filter() {
  const wanted = picks.map(s => [+s.dataset.col, s.value]);
  document.querySelectorAll('#tasks tbody tr').forEach(r => {
    r.hidden = !wanted.every(([c, x]) => !x || r.cells[c].dataset.v === x);
  });
}
picks.forEach(s => s.addEventListener('change', filter));
new URLSearchParams(location.hash.slice(1)).forEach((value, column) => {
  const pick = picks.find(s => s.dataset.col === column);
  if (pick) pick.value = value;
});
filter();
"""
"""Hide the task rows whose cells do not match every chosen filter (a cell's ``data-v``); a link may choose
filters in its fragment, column=value (``report.html#2=unsolved&3=coder``)."""

FILTERED = {0: "configuration", 2: "outcome", 3: "error origin"}
"""The task table's columns a reader can filter by."""


def page_name(thread: str) -> str:
    """Return the file name of a thread's run page under ``runs/``."""
    return re.sub(r"[^\w.-]+", "_", thread) + ".html"


def render(
    markdown: str,
    summary: Mapping[str, Any],
    rows: Sequence[Mapping[str, Any]],
    linked: frozenset[str] = frozenset(),
) -> str:
    """Return the page: ``markdown`` (``report.md``'s text) as HTML with its plots inline, then the tasks;
    a task whose thread is in ``linked`` links to its run page."""
    text = "\n".join(line for line in markdown.splitlines() if not line.startswith("!["))
    # html off: a task id or a reason in the report is shown as text, never taken as markup.
    tables = MarkdownIt("commonmark", {"html": False}).enable("table").render(text)
    drawings = "".join(_svg(draw, summary) for draw in _drawings(summary))
    return (
        "<!doctype html><html lang='en'><head><meta charset='utf-8'><title>Eval report · Accord</title>"
        f"<style>{page.STYLE}</style></head><body>{tables}<h2>Plots</h2>{drawings}"
        f"<h2>Tasks</h2>{_tasks(rows, linked)}<script>{SCRIPT}</script></body></html>\n"
    )


def _drawings(summary: Mapping[str, Any]) -> list[Callable[[Mapping[str, Any], Path], None]]:
    drawn: list[Callable[[Mapping[str, Any], Path], None]] = [plots.failures_per_round, plots.accuracy_cost]
    if any("classification" in s for s in summary.values()):
        drawn.append(plots.role_accuracy)
    return drawn


def _svg(draw: Callable[[Mapping[str, Any], Path], None], summary: Mapping[str, Any]) -> str:
    """Return one plot as inline SVG (matplotlib writes it; the XML prologue is dropped)."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "plot.svg"
        draw(summary, path)
        svg = path.read_text(encoding="utf-8")
    return svg[svg.index("<svg") :]


def _tasks(rows: Sequence[Mapping[str, Any]], linked: frozenset[str]) -> str:
    body = []
    for r in rows:
        task = escape(r["id"])
        if r.get("thread") in linked:
            task = f"<a href='runs/{escape(page_name(r['thread']))}'>{task}</a>"
        shown = {
            0: escape(r["config"]),
            1: task,
            2: _value(r, 2),
            3: escape(_value(r, 3)),
            4: escape(r["status"]),
            5: f"{r['tokens_in'] + r['tokens_out']:,}",
            6: f"{r['latency_s']:.1f}",
            7: str(r["llm_calls"]),
        }
        # A filtered column's cell carries its plain value for the filter to match.
        body.append(
            "<tr>"
            + "".join(
                f"<td data-v='{escape(_value(r, i))}'>{html}</td>" if i in FILTERED else f"<td>{html}</td>"
                for i, html in shown.items()
            )
            + "</tr>"
        )
    choices = []
    for column, label in FILTERED.items():
        options = "".join(f"<option>{escape(v)}</option>" for v in sorted({_value(r, column) for r in rows}))
        choices.append(
            f"<label>{label} <select data-col='{column}'><option value=''>all</option>"
            f"{options}</select></label>"
        )
    return (
        f"<p>{' '.join(choices)}</p><table id='tasks'><thead><tr><th>configuration</th><th>task</th>"
        "<th>outcome</th><th>error origin</th><th>status</th><th>tokens</th><th>seconds</th>"
        f"<th>LLM calls</th></tr></thead><tbody>{''.join(body)}</tbody></table>"
    )


def _value(row: Mapping[str, Any], column: int) -> str:
    if column == 0:
        return str(row["config"])
    if column == 2:
        return "solved" if row["passed"] else "unsolved"
    return str((row["blame"]["origin"] or {}).get("role") or "none")


def run_pages(rows: Sequence[Mapping[str, Any]], out: Path) -> frozenset[str]:
    """Write the run page of every row whose thread the folder's checkpoints hold into ``out/runs``; return
    the threads written."""
    written = set()
    for row, chain, lifecycle in stored_runs(rows, out):
        (out / "runs").mkdir(exist_ok=True)
        html = page.of_branch(row["thread"], chain, lifecycle)
        (out / "runs" / page_name(row["thread"])).write_text(html, encoding="utf-8")
        written.add(row["thread"])
    return frozenset(written)
