"""Re-detection: this checkout's MAST detectors on a folder's stored runs, beside what its rows recorded."""

from __future__ import annotations

import json

from accord.evals import runner
from accord.evals.probes.redetect import main, redetect
from tests.unit.test_evals import evaluate, models


def test_the_rows_record_and_the_detectors_find_are_counted_apart(tmp_path, capsys):
    [row] = evaluate(tmp_path, "single", models())
    assert [f["mode"] for f in row["mast"]] == ["FM-3.3"]
    # The row as a detector that also found FM-3.2 recorded it, and a row whose run is not stored here.
    recorded = {**row, "mast": [*row["mast"], {**row["mast"][0], "mode": "FM-3.2"}]}
    elsewhere = {**row, "id": "HumanEval/1", "thread": "humaneval/single/HumanEval/1"}
    (tmp_path / runner.RESULTS).write_text("".join(json.dumps(r) + "\n" for r in (recorded, elsewhere)))
    found = redetect(tmp_path)["single"]
    assert (found["tasks"], found["missing"]) == (1, 1)
    assert found["recorded"] == {"FM-3.3": 1, "FM-3.2": 1} and found["now"] == {"FM-3.3": 1}
    assert main([str(tmp_path), "single"]) == 0
    out = capsys.readouterr().out
    assert "its rows' detectors: 2.00 per task (FM-3.2 1, FM-3.3 1)" in out
    assert "this checkout's detectors: 1.00 per task (FM-3.3 1)" in out


def test_a_folder_without_its_runs_is_a_clear_error(tmp_path, capsys):
    assert main([str(tmp_path)]) == 2
    assert "no checkpoints in" in capsys.readouterr().out
