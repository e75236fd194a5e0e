"""A run's page: one self-contained HTML file for any workflow, read from the lifecycle table, the
checkpoints and the ledger alone."""

from __future__ import annotations

import re
import threading
import urllib.error
import urllib.parse
import urllib.request
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest

from accord.accountability import mast, page
from accord.accountability.blame import blame
from accord.accountability.trace import steps
from accord.cli import main, report_server
from accord.evals import runner
from accord.evals.benchmarks import BENCHMARKS
from accord.graphs import store
from accord.state.context import Context
from accord.state.history import from_graph
from tests.unit import test_audit_evals, test_evals, test_pipeline_evals
from tests.unit.test_audit_graph import VULNERABLE, critique
from tests.unit.test_pipeline_graph import answer, plan
from tests.unit.test_pipeline_graph import critique as verdict


def scripted(workflow: str) -> tuple[str, str, dict[str, Any]]:
    """Return a benchmark, a task of it and scripted models for one workflow's accountable run."""
    if workflow == "development":
        return "humaneval", "HumanEval/0", test_evals.models(code=test_evals.WRONG)
    if workflow == "audit":
        return (
            "devign100",
            "devign100_001",
            test_audit_evals.analysts(VULNERABLE, critique(VULNERABLE), VULNERABLE),
        )
    return "logiqa", "logiqa_002", test_pipeline_evals.roles(plan("A"), answer("A"), verdict("A"))


def ran(tmp_path: Path, workflow: str) -> tuple[str, list[Any], Any]:
    """Run one workflow's task to its end with scripted models; return its thread, branch and config."""
    name, task, models = scripted(workflow)
    benchmark = BENCHMARKS[name]
    config = benchmark.configurations["accountable"]
    runner.run(
        benchmark,
        config,
        runner.select(benchmark.tasks(), (task,)),
        tmp_path,
        Context(first_attempt=False),
        models=models,
    )
    thread = f"{name}/accountable/{task}"
    with store.checkpointer(tmp_path / runner.CHECKPOINTS) as saver:
        chain = from_graph(config.build(checkpointer=saver), thread)
    return thread, chain, config


class Tags(HTMLParser):
    """Counts what a browser would open and close, so a page that does not nest is caught."""

    VOID = frozenset({"meta", "br"})

    def __init__(self) -> None:
        super().__init__()
        self.open: list[str] = []
        self.broken: list[str] = []

    def handle_starttag(self, tag: str, attrs: Any) -> None:
        if tag not in self.VOID:
            self.open.append(tag)

    def handle_startendtag(self, tag: str, attrs: Any) -> None:
        pass

    def handle_endtag(self, tag: str) -> None:
        if tag in self.VOID:
            return
        if not self.open or self.open[-1] != tag:
            self.broken.append(tag)
        else:
            self.open.pop()


@pytest.mark.parametrize("workflow", ["development", "audit", "pipeline"])
def test_a_page_shows_the_path_blame_cost_and_failures_of_any_workflow(tmp_path: Path, workflow: str) -> None:
    thread, chain, config = ran(tmp_path, workflow)
    trace = steps(chain, config.lifecycle)
    blamed = blame(chain, config.lifecycle)
    values = chain[-1].values
    html = page.render(thread, values, trace, config.lifecycle, blamed, mast.classify(trace, values))
    # The path, in the order the checkpoints hold it, each step coloured by blame's verdict on it.
    chips = re.findall(r"<span class='(\w+)(?: origin)?' title='\w+'>(\d+) · ([\w]+) ·", html)
    assert [(int(step), stage) for _, step, stage in chips] == [(s.step, s.stage) for s in trace]
    verdicts = {s.step: page.verdict_of(s) for s in blamed.stages}
    assert [word for word, *_ in chips] == [verdicts.get(s.step, "unjudged") for s in trace]
    if blamed.origin is not None:
        assert f"error origin: step {blamed.origin.step}, {blamed.origin.stage}" in html
    # Every stage of the table is drawn, and each transition the run took is drawn heavy.
    assert all(f">{stage.name}</text>" in html for stage in config.lifecycle.stages)
    taken = {(v["stage"], v["target"]) for v in values["verdicts"] if v.get("target")}
    heavy = set(re.findall(r"<title>(\w+) → (\w+) on [^<]*taken at", html))
    assert heavy == {pair for pair in taken if pair[0] in config.lifecycle.by_name}
    assert f"{len(values['ledger'])} entries" in html
    parser = Tags()
    parser.feed(html)
    assert parser.broken == [] and parser.open == []
    assert "http://" not in html.replace("http://www.w3.org/2000/svg", "")  # nothing fetched at view time


def test_accord_report_writes_the_page_of_a_stored_thread(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    thread, _, _ = ran(tmp_path, "development")
    monkeypatch.setenv("ACCORD_DB", str(tmp_path / runner.CHECKPOINTS))
    out = tmp_path / "run.html"
    assert main(["report", thread, "-o", str(out)]) == 0
    html = out.read_text()
    assert html.startswith("<!doctype html>") and thread in html
    assert "<span class=kw>def</span> has_close_elements" in html  # the final code, highlighted
    assert main(["report", "no/such/thread", "-o", str(tmp_path / "none.html")]) == 2
    assert not (tmp_path / "none.html").exists() and "no thread 'no/such/thread'" in capsys.readouterr().out


def test_code_is_highlighted_by_pythons_tokenizer_and_unreadable_code_is_shown_as_it_is() -> None:
    shown = page.highlighted("def f(x):  # add one\n    return x + 1 < 'a'\n")
    assert shown.startswith("<span class=kw>def</span> f(x):  <span class=com># add one</span>")
    assert "<span class=num>1</span> &lt; <span class=str>&#x27;a&#x27;</span>" in shown
    assert page.highlighted("def f(:\n  '''open") == "def f(:\n  &#x27;&#x27;&#x27;open"


def test_an_eval_page_has_the_report_its_plots_and_each_task_linked_to_its_run(tmp_path: Path) -> None:
    thread, _, _ = ran(tmp_path, "development")
    test_evals.evaluate(tmp_path, "single", test_evals.models())  # a second configuration, solved
    assert main(["eval", "compare", str(tmp_path), "--pages"]) == 0
    html = (tmp_path / "report.html").read_text()
    markdown = (tmp_path / "report.md").read_text()
    tables = sum(line.startswith("|---") for line in markdown.splitlines())
    assert "<h1>Eval report</h1>" in html and html.count("<table>") == tables > 3  # each of report.md's
    assert html.count("<svg") >= 2 and "<img" not in html  # the plots inline, nothing to fetch
    links = re.findall(r"<a href='runs/([^']+)'>HumanEval/0</a>", html)
    assert len(links) == 2 and all((tmp_path / "runs" / name).exists() for name in links)
    assert thread in (tmp_path / "runs" / links[0]).read_text() + (tmp_path / "runs" / links[1]).read_text()
    # Each run is drawn on the lifecycle its configuration ran: single's has no Tester.
    single = (tmp_path / "runs" / "humaneval_single_HumanEval_0.html").read_text()
    assert ">implementing</text>" in single and ">designing_tests</text>" not in single
    team = (tmp_path / "runs" / "humaneval_accountable_HumanEval_0.html").read_text()
    assert ">designing_tests</text>" in team
    # Each filtered cell carries the value its filter matches.
    assert "<td data-v='unsolved'>unsolved</td><td data-v='coder'>coder</td>" in html
    assert "<td data-v='solved'>solved</td><td data-v='none'>none</td>" in html
    assert (
        "<select data-col='3'><option value=''>all</option><option>coder</option><option>none</option>"
        in html
    )


def test_the_run_stores_pages_are_served_read_only(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    thread, _, _ = ran(tmp_path, "development")
    monkeypatch.setenv("ACCORD_DB", str(tmp_path / runner.CHECKPOINTS))
    pages = report_server.server("127.0.0.1", 0)
    threading.Thread(target=pages.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{pages.server_address[1]}"
    try:
        listed = urllib.request.urlopen(f"{base}/").read().decode()
        link = f"/thread/{urllib.parse.quote(thread, safe='')}"
        assert f"<a href='{link}'>{thread}</a></td><td>failed</td>" in listed
        shown = urllib.request.urlopen(base + link).read().decode()
        assert f"<h1>{thread}</h1>" in shown and "http-equiv='refresh'" not in shown  # it has ended
        with pytest.raises(urllib.error.HTTPError) as missing:
            urllib.request.urlopen(f"{base}/thread/no%2Fsuch")
        assert missing.value.code == 404
        with pytest.raises(urllib.error.HTTPError) as written:
            urllib.request.urlopen(urllib.request.Request(f"{base}/", data=b"x", method="POST"))
        assert written.value.code == 501  # read-only: nothing but GET is answered
    finally:
        pages.shutdown()
        pages.server_close()
    live = page.render(
        "t",
        {"status": "running"},
        [],
        config_lifecycle(),
        blame([], config_lifecycle()),
        [],
        refresh_s=report_server.LIVE_REFRESH_S,
    )
    assert "<meta http-equiv='refresh' content='5'>" in live


def config_lifecycle() -> Any:
    return BENCHMARKS["humaneval"].configurations["accountable"].lifecycle


def test_text_in_an_eval_report_is_never_taken_as_markup() -> None:
    from accord.evals.reports import page as report_page

    shown = report_page.render("# Eval report\n\n| reason |\n|---|\n| <script>alert(1)</script> |\n", {}, [])
    assert "<td>&lt;script&gt;alert(1)&lt;/script&gt;</td>" in shown


def test_a_page_shows_a_bounded_part_of_a_large_artifact_and_says_where_the_rest_is(tmp_path: Path) -> None:
    thread, chain, config = ran(tmp_path, "development")
    trace = steps(chain, config.lifecycle)
    values = dict(chain[-1].values)
    huge = "x = 1\n" * 500_000  # 3 MB of code
    values["code"] = {**values["code"], "files": {"solution.py": huge}}
    html = page.render(thread, values, trace, config.lifecycle, blame(chain, config.lifecycle), [])
    assert len(html) < len(huge) // 10
    assert f"{len(huge) - page.SHOWN_CHARS:,} more characters" in html and "accord show THREAD --json" in html
