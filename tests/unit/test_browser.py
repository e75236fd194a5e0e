"""Pages loaded in a real browser (headless Chromium): no script error, the path the browser shows is the
checkpoints' history, filters work, and a screenshot is kept for a person to look at."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from accord.accountability import page
from accord.accountability.trace import steps
from accord.cli import main
from tests.unit import test_evals
from tests.unit.test_page import ran

BROWSER = next(
    (found for name in ("chromium", "chromium-browser", "google-chrome") if (found := shutil.which(name))),
    None,
)
pytestmark = pytest.mark.skipif(
    BROWSER is None,
    reason="no Chromium on this machine: apt-get install chromium to load run pages in a real browser",
)


def headless(url: str, *flags: str) -> subprocess.CompletedProcess[str]:
    """Load ``url`` in headless Chromium (no sandbox of its own: CI runs as root) with its console on
    stderr."""
    assert BROWSER is not None
    command = [BROWSER, "--headless=new", "--no-sandbox", "--disable-gpu", "--enable-logging=stderr", "--v=0"]
    return subprocess.run([*command, *flags, url], capture_output=True, text=True, timeout=120, check=True)


def console(done: subprocess.CompletedProcess[str]) -> list[str]:
    """Return what the page's scripts said or raised (the pages log nothing, so anything is an error)."""
    return [line for line in done.stderr.splitlines() if ":CONSOLE" in line or "Uncaught" in line]


def test_a_runs_page_shows_the_checkpoints_path_in_a_browser_without_errors(tmp_path: Path) -> None:
    thread, chain, config = ran(tmp_path, "development")
    file = tmp_path / "run.html"
    file.write_text(page.of_branch(thread, chain, config.lifecycle))
    dom = headless(file.as_uri(), "--dump-dom")
    assert console(dom) == []
    shown = re.findall(r'<span class="\w+(?: origin)?" title="\w+">(\d+) · (\w+) ·', dom.stdout)
    assert [(int(step), stage) for step, stage in shown] == [
        (s.step, s.stage) for s in steps(chain, config.lifecycle)
    ]
    shot = tmp_path / "run-page.png"
    headless(file.as_uri(), f"--screenshot={shot}", "--window-size=1200,1400", "--hide-scrollbars")
    assert shot.read_bytes()[:4] == b"\x89PNG"
    if folder := os.environ.get("ACCORD_SCREENSHOTS"):  # the README's picture comes from here
        shutil.copy(shot, Path(folder) / shot.name)


def test_an_eval_pages_filters_hide_the_rows_they_do_not_match(tmp_path: Path) -> None:
    ran(tmp_path, "development")  # accountable: unsolved
    test_evals.evaluate(tmp_path, "single", test_evals.models())  # single: solved
    assert main(["eval", "compare", str(tmp_path)]) == 0
    dom = headless((tmp_path / "report.html").as_uri() + "#2=solved", "--dump-dom")
    assert console(dom) == []
    rows = re.findall(r"<tr( hidden=\"\")?><td data-v=\"([\w@-]+)\">", dom.stdout)
    assert sorted(rows) == [("", "single"), (' hidden=""', "accountable")]
