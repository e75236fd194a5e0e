"""One self-contained HTML page per thread: what a run did, what it cost, and who is to blame.

The page reads only what every workflow has, so it serves the development graph, the audit, the pipeline
and any graph a user builds: the lifecycle table (drawn as an inline SVG with the run's path on it), the
branch's checkpoints (the steps, blame's verdict on each, the typed messages, the final artifacts), the
ledger (every model call, sandbox run and contract check with its tokens, time and cost) and MAST's
findings with their definitions. Nothing is fetched when the page is viewed: styles are inline and the
drawing is SVG.
"""

from __future__ import annotations

import io
import json
import keyword
import tokenize
from collections.abc import Mapping, Sequence
from html import escape
from typing import Any

from accord.accountability import cost, mast
from accord.accountability.account import UNISOLATED, of_chain, outcome
from accord.accountability.blame import Blame, StageBlame
from accord.accountability.trace import Step
from accord.graphs.oracle import Oracle
from accord.state.graph_state import handoffs
from accord.state.history import Checkpoint
from accord.state.lifecycle import Lifecycle

STYLE = """
body{font:14px/1.45 system-ui,sans-serif;margin:24px auto;max-width:1180px;color:#1d232a;padding:0 16px}
h1{font-size:22px;margin:0 0 4px} h2{font-size:17px;margin:28px 0 8px;border-bottom:1px solid #d8dee4}
table{border-collapse:collapse;width:100%;font-size:13px}
th,td{border:1px solid #d8dee4;padding:3px 6px;text-align:left;vertical-align:top} th{background:#f3f5f7}
td.n{text-align:right;font-variant-numeric:tabular-nums}
pre{background:#f6f8fa;padding:10px;overflow:auto;font-size:12.5px;border:1px solid #e1e4e8}
.tag{display:inline-block;padding:0 6px;border-radius:9px;font-size:12px;color:#fff}
.right{background:#2e8540} .wrong{background:#c0392b} .repair{background:#1f6feb} .harm{background:#d97706}
.unjudged{background:#8a949e} .origin{outline:3px solid #c0392b;outline-offset:1px}
.path{display:flex;flex-wrap:wrap;gap:6px;margin:8px 0}
.path span{padding:3px 8px;border-radius:4px;color:#fff}
.kw{color:#8250df;font-weight:600} .str{color:#0a3069} .com{color:#6e7781;font-style:italic}
.num{color:#0550ae}
details{margin:2px 0} summary{cursor:pointer}
"""

COLOURS = {
    "right": "#2e8540",
    "wrong": "#c0392b",
    "repair": "#1f6feb",
    "harm": "#d97706",
    "unjudged": "#8a949e",
}


def verdict_of(stage: StageBlame | None) -> str:
    """Return blame's word for a step: repair or harm where it changed what it received, else right or
    wrong; ``unjudged`` when the oracle could not judge it."""
    if stage is None:
        return "unjudged"
    if stage.flag in ("repair", "harm"):
        return stage.flag
    return "right" if stage.correct else "wrong"


def of_branch(
    thread: str,
    chain: Sequence[Checkpoint],
    lifecycle: Lifecycle,
    oracle: Oracle | None = None,
    refresh_s: int | None = None,
) -> str:
    """Return the page of a stored branch (oldest checkpoint first): its steps, blame (by the stored
    judgments, or by ``oracle`` given now) and MAST's findings, read from the checkpoints."""
    told = of_chain(chain, lifecycle, oracle)
    return render(thread, told.values, told.trace, lifecycle, told.blame, told.failures, refresh_s)


def render(
    thread: str,
    values: Mapping[str, Any],
    trace: Sequence[Step],
    lifecycle: Lifecycle,
    blamed: Blame,
    findings: Sequence[mast.Finding],
    refresh_s: int | None = None,
) -> str:
    """Return the page of one branch: ``values`` its last state, ``trace`` its working steps;
    ``refresh_s``: the browser reloads it that often (a run still going, served live)."""
    by_step = {s.step: s for s in blamed.stages}
    origin = blamed.origin.step if blamed.origin else None
    final = {True: "right", False: "wrong", None: "not judged"}[blamed.final_correct]
    parts = [
        f"<h1>{escape(thread)}</h1>",
        f"<p>workflow <b>{escape(lifecycle.name)}</b> · status <b>{escape(str(values.get('status', '')))}</b>"
        f" · final result <b>{final}</b>"
        + (
            f" · error origin: step {origin}, {escape(blamed.origin.stage)} ({escape(blamed.origin.role)})"
            if blamed.origin
            else " · no error origin"
        )
        + (f"<br>{escape(str(values['reason']))}" if values.get("reason") else "")
        + "</p>",
        *([f"<p><b>{UNISOLATED}</b></p>"] if outcome(values)["unisolated"] else []),
        "<h2>The path through the lifecycle</h2>",
        _path(trace, by_step, origin),
        _drawing(lifecycle, trace, values, by_step, origin),
        "<h2>Steps</h2>",
        _steps(trace, by_step, origin),
        "<h2>Cost by role</h2>",
        _costs(values.get("ledger", [])),
        "<h2>Ledger</h2>",
        _ledger(values.get("ledger", [])),
        "<h2>Messages between roles</h2>",
        _messages(handoffs(values)),
        "<h2>Failures (MAST)</h2>",
        _findings(findings),
        "<h2>Final artifacts</h2>",
        _artifacts(values, trace),
    ]
    reload = f"<meta http-equiv='refresh' content='{refresh_s}'>" if refresh_s else ""
    return (
        f"<!doctype html><html lang='en'><head><meta charset='utf-8'>{reload}"
        f"<title>{escape(thread)} · Accord</title><style>{STYLE}</style></head><body>"
        + "\n".join(parts)
        + "</body></html>\n"
    )


def _path(trace: Sequence[Step], by_step: Mapping[int, StageBlame], origin: int | None) -> str:
    chips = []
    for step in trace:
        word = verdict_of(by_step.get(step.step))
        mark = " origin" if step.step == origin else ""
        chips.append(
            f"<span class='{word}{mark}' title='{word}'>{step.step} · {escape(step.stage)} · "
            f"{escape(step.role)} · round {step.round}</span>"
        )
    legend = " ".join(f"<span class='tag {w}'>{w}</span>" for w in COLOURS)
    return (
        f"<div class='path'>{''.join(chips) or 'no working step ran'}</div>"
        f"<p>{legend} · outlined: the error origin</p>"
    )


def _drawing(
    lifecycle: Lifecycle,
    trace: Sequence[Step],
    values: Mapping[str, Any],
    by_step: Mapping[int, StageBlame],
    origin: int | None,
) -> str:
    """Return the lifecycle as SVG: a box per stage in the table's order, coloured by blame's verdict on its
    last step, and an arc per transition on the right, those this run took drawn heavy (an arc's tooltip
    names its outcomes and when the run took it)."""
    stages = [s.name for s in lifecycle.stages]
    row, width, height, x = 44, 200, 30, 20
    y = {name: 10 + i * row for i, name in enumerate(stages)}
    last: dict[str, str] = {}
    origin_stage = next((s.stage for s in trace if s.step == origin), None)
    for step in trace:
        last[step.stage] = verdict_of(by_step.get(step.step))
    taken = [
        (v["stage"], v["target"])
        for v in values.get("verdicts", [])
        if v.get("target") and v.get("stage") in y and v["target"] in y
    ]
    edges = dict.fromkeys((t.source, t.target) for t in lifecycle.transitions)
    shapes = []
    for number, (source, target) in enumerate(edges):
        used = [i + 1 for i, pair in enumerate(taken) if pair == (source, target)]
        a, b = y[source] + height / 2, y[target] + height / 2
        bulge = x + width + 14 + abs(b - a) * 0.35 + number % 3 * 4
        style = "stroke:#1f2933;stroke-width:2.2" if used else "stroke:#c3cad2;stroke-width:1"
        outcomes = ", ".join(
            t.outcome for t in lifecycle.transitions if (t.source, t.target) == (source, target)
        )
        label = f"{source} → {target} on {outcomes}" + (f"; taken at transitions {used}" if used else "")
        shapes.append(
            f"<path d='M{x + width},{a} C{bulge},{a} {bulge},{b} {x + width},{b}' "
            f"style='fill:none;{style}' marker-end='url(#arrow)'>"
            f"<title>{escape(label)}</title></path>"
        )
    for name in stages:
        fill = COLOURS.get(last[name], "#ffffff") if name in last else "#f3f5f7"
        text = "#ffffff" if name in last else "#57606a"
        border = "stroke:#c0392b;stroke-width:4" if name == origin_stage else "stroke:#8a949e;stroke-width:1"
        shapes.append(
            f"<rect x='{x}' y='{y[name]}' width='{width}' height='{height}' rx='5' "
            f"style='fill:{fill};{border}'/><text x='{x + 10}' y='{y[name] + 20}' "
            f"style='fill:{text};font-size:13px'>{escape(name)}</text>"
        )
    total = 20 + len(stages) * row
    return (
        f"<svg xmlns='http://www.w3.org/2000/svg' width='760' height='{total}' role='img' "
        f"aria-label='lifecycle {escape(lifecycle.name)}'><defs><marker id='arrow' viewBox='0 0 8 8' "
        "refX='7' refY='4' markerWidth='6' markerHeight='6' orient='auto-start-reverse'>"
        "<path d='M0,0 L8,4 L0,8 z' fill='#57606a'/></marker></defs>" + "".join(shapes) + "</svg>"
    )


def _steps(trace: Sequence[Step], by_step: Mapping[int, StageBlame], origin: int | None) -> str:
    rows = []
    for step in trace:
        judged = by_step.get(step.step)
        word = verdict_of(judged)
        gate = f"{step.verdict['outcome']} → {step.verdict['target']}" if step.verdict else ""
        evidence = judged.evidence if judged else ""
        rows.append(
            f"<tr{' class=origin' if step.step == origin else ''}><td class=n>{step.step}</td>"
            f"<td>{escape(step.stage)}</td><td>{escape(step.role)}</td><td class=n>{step.round}</td>"
            f"<td><span class='tag {word}'>{word}</span></td><td>{escape(gate)}</td>"
            f"<td>{_folded(evidence)}</td><td>{escape(', '.join(step.wrote))}</td></tr>"
        )
    return (
        "<table><tr><th>step</th><th>stage</th><th>role</th><th>round</th><th>blame</th><th>gate</th>"
        "<th>evidence</th><th>wrote</th></tr>" + "".join(rows) + "</table>"
    )


def _costs(ledger: Sequence[Mapping[str, Any]]) -> str:
    totals = cost.breakdown(ledger)
    rows = [
        f"<tr><td>{escape(role)}</td><td class=n>{r['llm_calls']}</td>"
        f"<td class=n>{r['tokens_in']:,}</td><td class=n>{r['tokens_out']:,}</td>"
        f"<td class=n>{r['cost']:.4f}</td><td class=n>{r['llm_s']:.1f}</td>"
        f"<td class=n>{r['sandbox_s']:.1f}</td></tr>"
        for role, r in [*sorted(totals["by_role"].items()), ("total", totals["total"])]
    ]
    return (
        "<table><tr><th>role</th><th>LLM calls</th><th>tokens in</th><th>tokens out</th><th>cost</th>"
        "<th>LLM s</th><th>sandbox s</th></tr>" + "".join(rows) + "</table>"
    )


def _ledger(ledger: Sequence[Mapping[str, Any]]) -> str:
    rows = [
        f"<tr><td class=n>{e.get('step', '')}</td><td>{escape(str(e.get('kind', '')))}</td>"
        f"<td>{escape(str(e.get('role', '')))}</td><td>{escape(str(e.get('stage', '')))}</td>"
        f"<td>{escape(str(e.get('model') or ''))}</td><td class=n>{e.get('tokens_in', 0)}</td>"
        f"<td class=n>{e.get('tokens_out', 0)}</td><td class=n>{float(e.get('latency_s') or 0):.2f}</td>"
        f"<td>{escape(str(e.get('outcome', '')))}</td><td>{_folded(str(e.get('detail', '')))}</td></tr>"
        for e in ledger
    ]
    return (
        f"<details><summary>{len(ledger)} entries</summary><table><tr><th>step</th><th>kind</th>"
        "<th>role</th><th>stage</th><th>model</th><th>tokens in</th><th>tokens out</th><th>s</th>"
        "<th>outcome</th><th>detail</th></tr>" + "".join(rows) + "</table></details>"
    )


def _messages(messages: Sequence[Mapping[str, Any]]) -> str:
    if not messages:
        return "<p>none: this run's roles handed nothing over in typed messages</p>"
    rows = [
        f"<tr><td>{escape(str(m.get('sender', '')))} → {escape(str(m.get('receiver', '')))}</td>"
        f"<td>{escape(str(m.get('kind', '')))}</td>"
        f"<td>{_folded(_bounded(json.dumps(m.get('payload'), indent=1))[0])}"
        "</td></tr>"
        for m in messages
    ]
    return "<table><tr><th>from → to</th><th>kind</th><th>payload</th></tr>" + "".join(rows) + "</table>"


def _findings(findings: Sequence[mast.Finding]) -> str:
    if not findings:
        return "<p>none found</p>"
    modes = mast.modes()
    rows = [
        f"<tr><td>{escape(f.mode)} {escape(f.name)}</td><td>{escape(f.category)}</td>"
        f"<td class=n>{f.step}</td><td>{escape(f.role)}</td>"
        f"<td>{'retried' if f.retried else ''}{' judged' if f.judged else ''}</td>"
        f"<td>{_folded(f.evidence)}</td>"
        f"<td>{_folded(modes.get(f.mode, {}).get('definition_full', ''))}</td></tr>"
        for f in findings
    ]
    return (
        "<table><tr><th>mode</th><th>category</th><th>step</th><th>role</th><th></th><th>evidence</th>"
        "<th>definition</th></tr>" + "".join(rows) + "</table>"
    )


def _artifacts(values: Mapping[str, Any], trace: Sequence[Step]) -> str:
    kinds = list(dict.fromkeys(kind for step in trace for kind in step.wrote))
    out = []
    for kind in kinds:
        artifact = values.get(kind)
        if artifact is None:
            continue
        files = artifact.get("files") if isinstance(artifact, Mapping) else None
        if isinstance(files, Mapping):
            for name, source in files.items():
                head, rest = _bounded(str(source))
                shown = highlighted(head) if str(name).endswith(".py") else escape(head)
                out.append(
                    f"<h3>{escape(kind)}: {escape(str(name))}</h3><pre><code>{shown}</code></pre>{rest}"
                )
        else:
            head, rest = _bounded(json.dumps(artifact, indent=1))
            out.append(f"<h3>{escape(kind)}</h3><pre>{escape(head)}</pre>{rest}")
    return "".join(out) or "<p>none</p>"


SHOWN_CHARS = 20_000
"""The most of one artifact (or one file of it) a page shows; the rest is a command away."""


def _bounded(text: str) -> tuple[str, str]:
    """Return the part of ``text`` a page shows, and a note of what it leaves out ('' when nothing)."""
    if len(text) <= SHOWN_CHARS:
        return text, ""
    left = len(text) - SHOWN_CHARS
    return text[:SHOWN_CHARS], (
        f"<p class=note>… {left:,} more characters: "
        "<code>accord show THREAD --json</code> holds all of it.</p>"
    )


def _folded(text: str, width: int = 140) -> str:
    """Return text on one line, cut at ``width`` with the whole of it one click away."""
    line = " ".join(text.split())
    if len(line) <= width:
        return escape(line)
    return f"<details><summary>{escape(line[:width])}…</summary><pre>{escape(text)}</pre></details>"


def highlighted(source: str) -> str:
    """Return Python source as HTML with keywords, strings, comments and numbers marked (Python's own
    tokenizer; source it cannot read is shown as it is)."""
    marks = {tokenize.STRING: "str", tokenize.COMMENT: "com", tokenize.NUMBER: "num"}
    lines = source.splitlines(keepends=True)
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line))
    spans = []
    try:
        for token in tokenize.generate_tokens(io.StringIO(source).readline):
            named = token.type == tokenize.NAME and keyword.iskeyword(token.string)
            css = marks.get(token.type) or ("kw" if named else None)
            if css:
                begin = starts[token.start[0] - 1] + token.start[1]
                end = starts[token.end[0] - 1] + token.end[1]
                spans.append((begin, end, css))
    except (tokenize.TokenError, IndentationError, SyntaxError):
        return escape(source)
    out, at = [], 0
    for begin, end, css in spans:
        out.append(escape(source[at:begin]) + f"<span class={css}>{escape(source[begin:end])}</span>")
        at = end
    return "".join(out) + escape(source[at:])
