"""A program the user asks for in words, built by the default team on the local model as a new user runs
it: one that reads a text file named on its command line, its design supplying the file its session runs
it with."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from accord import cli
from accord.runtime import sandbox

pytestmark = pytest.mark.integration

WORDS = (
    "Build a command-line program that reads a text file named on its command line and prints its most "
    "frequent word with its count."
)


def test_a_program_is_run_through_its_command_line_on_the_file_its_design_supplies(
    server, tmp_path, monkeypatch, capsys
):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("ACCORD_DB", str(tmp_path / "runs.sqlite"))
    ended = cli.main(["run", WORDS, "--thread", "words", "--out", "out"])
    capsys.readouterr()
    assert cli.main(["show", "words", "--json"]) == 0
    shown = json.loads(capsys.readouterr().out)
    state = shown["state"]
    assert ended == (0 if shown["status"] == "completed" else 1)
    assert shown["path"][:3] == ["initialized", "planning", "implementing"], shown["reason"]

    design = state["plan"]["design"]
    assert design["interface"] == "arguments"  # the request says so, whatever the draft said
    reading = [t["input"] for t in design["session"] if set(t["input"].split()) & set(design["files"])]
    assert reading, design  # the session runs it on a file its design gives
    # The acceptance session ran the program once per such turn with the file among its arguments, and
    # the file was there: whatever the program printed, it did not miss its input.
    [entry] = state["code"]["entry_points"]
    runs = {c["name"]: c for c in state["review"]["integration"]["cases"] if c["name"].startswith("run: ")}
    assert {f"run: python {entry} {typed}" for typed in reading} <= set(runs), runs
    assert not any("FileNotFoundError" in c["message"] for c in runs.values()), runs

    # The program it left, on a file of ours under another name: it reads the file its command line names.
    written = {p.name: p.read_text() for p in Path("out").glob("*.py")}
    ours = {**written, "fruit.txt": "pear fig pear plum pear\n"}
    result = sandbox.run(sandbox.python(entry, "fruit.txt"), ours, sandbox.Limits(timeout_s=20), stdin="")
    assert result.ok and "pear" in result.stdout, result
