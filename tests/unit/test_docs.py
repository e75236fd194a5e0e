"""The README and docs/ stay short, current and generated where they show figures or drawings."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

from accord.evals import runner
from accord.evals.benchmarks import who_and_when
from accord.evals.reports import classification, comparable, tables
from accord.graphs import diagram

ROOT = Path(__file__).resolve().parents[2]
HISTORY = re.compile(r"todo-s\d|\bsessions? \d+|\buncommitted\b|\bat commit [0-9a-f]{7}", re.I)
"""Words that narrate how the project was built; that story belongs in commit messages."""


def test_the_readme_is_short_and_links_its_depth_to_docs() -> None:
    readme = (ROOT / "README.md").read_text()
    assert len(readme.splitlines()) <= 250
    for link in re.findall(r"\]\((docs/[\w.-]+\.md)\)", readme):
        assert (ROOT / link).exists(), link


def test_the_drawings_are_the_compiled_graphs() -> None:
    docs = [d for d in diagram.documents() if d.exists() and diagram.MARKED.search(d.read_text())]
    assert ROOT / "README.md" in docs
    assert all(diagram.render(d.read_text()) == d.read_text() for d in docs), "run make diagram"


def test_a_drawing_is_redrawn_from_the_graph() -> None:
    stale = "<!-- lifecycle: development -->\n```mermaid\ngraph TD;\n```\n<!-- /lifecycle -->\n"
    drawn = diagram.render(stale)
    assert "designing_tests -. &nbsp;budget&nbsp; .-> failed;" in drawn and drawn != stale


def test_the_result_tables_are_their_summaries() -> None:
    assert tables.stale() == [], "run make tables"


def test_a_result_table_comes_from_its_summary(tmp_path: Path) -> None:
    folder = tmp_path / "results" / "demo"
    folder.mkdir(parents=True)
    summary = {
        "single": {
            "tasks": 10,
            "solved": 7,
            "pass@1": 0.7,
            "tokens_per_solved": 1234,
            "median_latency_s": 3.25,
            "llm_calls_per_task": 1.0,
            "models": ["m"],
            "dates": ["2026-01-02"],
            "verdicts": {"agreement": 0.5},
        }
    }
    summary["simple"] = {
        **summary["single"],
        "solved": 0,
        "pass@1": 0.0,
        "tokens_per_solved": None,
        "versus": {
            "reference": "accountable",
            "tasks": 10,
            "both": 0,
            "only_this": [],
            "only_reference": [f"t/{i}" for i in range(7)],
        },
    }
    (folder / "summary.json").write_text(json.dumps(summary))
    doc = "<!-- results: results/demo -->\n| typed by hand |\n<!-- /results -->\n"
    rendered = tables.render(doc, tmp_path)
    # Every rate with its Wilson interval; a configuration paired with accountable, with McNemar's p.
    assert (
        "| `single` | 7 / 10 | 70.0% [39.7–89.2] | — | 1,234 | 3.2 | 1.0 | 50.0% | m | 2026-01-02 |"
        in rendered
    )
    assert (
        "| `simple` | 0 / 10 | 0.0% [0.0–27.8] | +0 −7 of 10, p = 0.016: worse | — |" in rendered
    )  # nothing solved: no tokens per solved task
    assert "typed by hand" not in rendered


def test_run_time_blames_agreement_is_a_table_from_its_summary(tmp_path: Path) -> None:
    folder = tmp_path / "results" / "demo"
    folder.mkdir(parents=True)
    agreement = {
        "tasks": 40,
        "same_origin": 34,
        "origin_kappa": 0.58,
        "same_final": 34,
        "final_kappa": 0.58,
        "role_runs": 113,
        "same_acts": 112,
    }
    (folder / "summary.json").write_text(
        json.dumps({"single": {"tasks": 40}, "accountable": {"live_blame": agreement}})
    )
    doc = "<!-- live-blame: results/demo -->\n| typed by hand |\n<!-- /live-blame -->\n"
    rendered = tables.render(doc, tmp_path)
    assert (
        "| accountable | 40 | 85.0% [70.9–92.9] | 0.58 | 85.0% [70.9–92.9] | 0.58 | 99.1% [95.2–99.8] "
        "(113) |\n<!-- /live-blame -->"
    ) in rendered
    assert "typed by hand" not in rendered and "| single |" not in rendered


def test_every_published_table_comes_from_one_commit_and_one_task_set() -> None:
    shown = []
    for doc in tables.documents():
        for match in tables.MARKED.finditer(doc.read_text()):
            names = match["spec"].split()
            folders = names if match["kind"] in tables.PAPER or match["kind"] == "goals" else names[:1]
            configs = [] if match["kind"] in tables.PAPER or match["kind"] == "goals" else names[1:]
            if match["kind"] == "goals":  # one table across folders: one commit, or it says it is not
                codes = {comparable.code_of(r) for f in folders for r in runner.read_rows(ROOT / f)}
                assert len(codes) <= 1 or "they are not one experiment" in match["body"], doc.name
            for folder in (ROOT / f for f in folders if f.startswith("results/")):
                if f"`{folder.relative_to(ROOT)}` holds" in match["body"]:
                    continue  # withheld, with its reason
                if match["kind"] in tables.PAPER and not (folder / runner.RESULTS).exists():
                    continue  # a set not run yet, shown as not run
                if match["kind"] == "who-and-when":  # a judge's rows: one judge per subset
                    judges: dict[str, set[str]] = {}
                    results = folder / runner.RESULTS
                    for line in results.read_text().splitlines() if results.exists() else []:
                        r = json.loads(line)
                        judges.setdefault(r["subset"], set()).add(who_and_when.judge(r))
                    assert all(len(j) == 1 for j in judges.values()), f"{folder} mixes judges"
                    continue
                rows = runner.read_rows(folder)
                running = comparable.in_progress(rows)  # left out of the table, named under it
                rows = [
                    r for r in rows if (not configs or r["config"] in configs) and r["config"] not in running
                ]
                shown.append(folder.name)
                assert len({comparable.code_of(r) for r in rows}) == 1, f"{doc.name}: {folder} mixes code"
                per_config: dict[str, set[str]] = {}
                for r in rows:
                    per_config.setdefault(r["config"], set()).add(r["id"])
                assert len({frozenset(ids) for ids in per_config.values()}) == 1, f"{folder} mixes task sets"
    assert "humaneval-164-goals" in shown


def test_a_labelled_table_pairs_each_configuration_with_accountable(tmp_path: Path) -> None:
    folder = tmp_path / "results" / "audit"
    folder.mkdir(parents=True)
    labels = [True, True, False, False]

    def summary(predicted: list[bool], versus: dict | None = None) -> dict:
        rows = [
            {"label": label, "predicted": said, "votes": {}, "final_votes": {}}
            for label, said in zip(labels, predicted, strict=True)
        ]
        right = sum(r["label"] == r["predicted"] for r in rows)
        return {
            "tasks": 4,
            "solved": right,
            "classification": classification.metrics(rows),
            "mast": {"total": 0, "per_task": 0.0},
            "tokens_per_task": 10,
            "median_latency_s": 1.0,
            "llm_calls_per_task": 1.0,
            **({"versus": versus} if versus else {}),
        }

    versus = {
        "reference": "accountable",
        "tasks": 4,
        "both": 2,
        "only_this": [],
        "only_reference": ["a", "b"],
    }
    (folder / "summary.json").write_text(
        json.dumps(
            {
                "accountable": summary([True, True, False, False]),
                "single": summary([True, True, True, True], versus),
            }
        )
    )
    rendered = tables.render("<!-- results: results/audit -->\n<!-- /results -->\n", tmp_path)
    assert (
        "| `single` (no better than a constant) | 4 | 50.0% [15.0–85.0] | +0 −2 of 4, p = 0.5: "
        "no difference measured | 0.50 |"
    ) in rendered
    # 4 of 4 is above the constants' 2 of 4 only by its point estimate (p = 0.0625): no claim is made
    assert "| `accountable` (no better than a constant) | 4 | 100.0% [51.0–100.0] | — | 1.00 |" in rendered
    assert "| all-vulnerable (constant) | 4 | 50.0% [15.0–85.0] | — | — | — | 0.67 | 0.50 |" in rendered


def test_a_table_whose_experiment_has_not_finished_a_configuration_says_so(tmp_path: Path) -> None:
    doc = "<!-- {0}: results/fresh -->\n| old table |\n<!-- /{0} -->\n"
    rendered = tables.render(doc.format("results"), tmp_path)
    assert "*Not run yet: `results/fresh` holds no results.*\n<!-- /results -->" in rendered
    folder = tmp_path / "results" / "fresh"
    folder.mkdir(parents=True)
    row = {"config": "single", "id": "T/0", "commit": "a" * 40}
    (folder / "results.jsonl").write_text(json.dumps(row) + "\n")
    rendered = tables.render(doc.format("live-blame"), tmp_path)
    assert "*In progress: `results/fresh` holds rows, none of a finished configuration yet.*" in (rendered)
    assert "old table" not in rendered


def test_a_configuration_still_running_is_left_out_and_named_under_the_table(tmp_path: Path) -> None:
    folder = tmp_path / "results" / "running"
    folder.mkdir(parents=True)
    done = {
        "tasks": 2,
        "solved": 1,
        "pass@1": 0.5,
        "tokens_per_solved": 10,
        "median_latency_s": 1.0,
        "llm_calls_per_task": 1.0,
        "models": ["m"],
        "dates": ["2026-01-02"],
    }
    (folder / "summary.json").write_text(json.dumps({"single": done, "peer": {**done, "tasks": 1}}))

    def rows(experiment: str | None) -> str:
        ran = [("single", "T/0"), ("single", "T/1"), ("peer", "T/0")]
        return "".join(
            json.dumps({"config": c, "id": i, "commit": "a" * 40, "experiment": experiment}) + "\n"
            for c, i in ran
        )

    doc = "<!-- results: results/running -->\n| old table |\n<!-- /results -->\n"
    (folder / "results.jsonl").write_text(rows("an-experiment"))
    rendered = tables.render(doc, tmp_path)
    assert "| `single` | 1 / 2 |" in rendered and "`peer` |" not in rendered
    assert "*In progress in `results/running`: `peer` 1 of 2 tasks" in rendered
    # Outside a declared experiment nothing says the configuration is unfinished: it ran other tasks.
    (folder / "results.jsonl").write_text(rows(None))
    assert "holds configurations that ran different tasks" in tables.render(doc, tmp_path)


def _declared(root: Path, name: str, declaration: str) -> Path:
    """Write the experiment ``name``'s declaration under ``root`` and return its (empty) result folder."""
    folder, experiments = root / "results" / name, root / "evals" / "experiments"
    folder.mkdir(parents=True)
    experiments.mkdir(parents=True)
    (experiments / f"{name}.toml").write_text(declaration)
    return folder


def test_a_table_naming_its_configurations_names_only_those_in_progress(tmp_path: Path) -> None:
    # The folder ran the experiment before its declaration gained a configuration on another model.
    folder = _declared(
        tmp_path,
        "earlier",
        'description = "x"\nbenchmark = "humaneval"\n'
        '[[configurations]]\nconfig = "single"\n'
        '[[configurations]]\nconfig = "simple"\nmodel = "C"\n',
    )
    done = {
        "tasks": 2,
        "solved": 1,
        "pass@1": 0.5,
        "tokens_per_solved": 10,
        "median_latency_s": 1.0,
        "llm_calls_per_task": 1.0,
        "models": ["m"],
        "dates": ["2026-01-02"],
    }
    (folder / "summary.json").write_text(json.dumps({"single": done}))
    (folder / "results.jsonl").write_text(
        "".join(
            json.dumps({"config": "single", "id": i, "commit": "a" * 40, "experiment": "earlier"}) + "\n"
            for i in ("T/0", "T/1")
        )
    )
    doc = "<!-- results: results/earlier{} -->\n| old table |\n<!-- /results -->\n"
    assert "`simple@qwen2.5-coder-1.5b` 0 of 2 tasks" in tables.render(doc.format(""), tmp_path)
    rendered = tables.render(doc.format(" single"), tmp_path)
    assert "| `single` | 1 / 2 |" in rendered and "In progress" not in rendered


def test_a_declared_configuration_not_started_holds_back_the_findings_on_its_set(tmp_path: Path) -> None:
    folder = _declared(
        tmp_path,
        "paper-run",
        'description = "both models alone"\nbenchmark = "logiqa"\n'
        '[[configurations]]\nconfig = "single"\nmodel = "B"\n'
        '[[configurations]]\nconfig = "single"\nmodel = "C"\n',
    )
    alone = {"tasks": 2, "solved": 1, "pass@1": 0.5, "tokens_per_task": 10, "by_role_model": {}}

    def ran(configs: list[str]) -> None:
        (folder / "summary.json").write_text(json.dumps({c: alone for c in configs}))
        (folder / "results.jsonl").write_text(
            "".join(
                json.dumps(
                    {
                        "config": c,
                        "id": i,
                        "commit": "a" * 40,
                        "experiment": "paper-run",
                        "benchmark": "logiqa",
                    }
                )
                + "\n"
                for c in configs
                for i in ("L/0", "L/1")
            )
        )

    doc = "<!-- anchors: results/paper-run -->\n| old |\n<!-- /anchors -->\n"
    ran(["single"])  # the 1.5B model's configuration has not started: the set is not judged on one model
    rendered = tables.render(doc, tmp_path)
    assert "1 / 2" not in rendered
    assert "`single@qwen2.5-coder-1.5b` 0 of 2 tasks" in rendered
    ran(["single", "single@qwen2.5-coder-1.5b"])
    rendered = tables.render(doc, tmp_path)
    assert "1 / 2 (50.0%)" in rendered and "In progress" not in rendered


def test_a_goal_names_a_configuration_still_running_and_compares_it_on_tasks_both_ran(tmp_path: Path) -> None:
    results = tmp_path / "results"
    humaneval, functions = results / "humaneval", results / "functions"
    for folder in (humaneval, functions):
        folder.mkdir(parents=True)
    (humaneval / "summary.json").write_text("{}")

    def summary(solved: list[str], ids: list[str]) -> dict:
        return {
            "tasks": len(ids),
            "solved": len(solved),
            "pass@1": len(solved) / len(ids),
            "ids": ids,
            "solved_ids": solved,
            "tokens_per_solved": 100 if solved else None,
            "median_latency_s": 1.0,
        }

    every = ["T/0", "T/1", "T/2", "T/3"]
    (functions / "summary.json").write_text(
        json.dumps(
            {
                "single": summary(["T/0"], every),
                "accountable": summary(every[:3], every),
                "mapcoder": summary([], every[:2]),
            }
        )
    )
    ran = [(c, i) for c in ("single", "accountable") for i in every] + [("mapcoder", i) for i in every[:2]]
    (functions / "results.jsonl").write_text(
        "".join(
            json.dumps({"config": c, "id": i, "commit": "a" * 40, "experiment": "goals"}) + "\n"
            for c, i in ran
        )
    )
    doc = "<!-- goals: results/humaneval results/functions -->\n| old |\n<!-- /goals -->\n"
    rendered = tables.render(doc, tmp_path)
    # 2 of the 2 tasks both ran against none: not 3 of 4 against 0 of 2
    assert (
        "| +100.0 points (100.0% against `mapcoder` 0.0% on the 2 tasks both ran; +2 −0, p = 0.5: no "
        "difference measured; the peer solved none) | not yet (`mapcoder` 2 of 4 tasks) |"
    ) in rendered


def test_a_folder_whose_rows_mix_commits_is_withheld_with_its_reason(tmp_path: Path) -> None:
    folder = tmp_path / "results" / "mixed"
    folder.mkdir(parents=True)
    rows = [
        {"config": "single", "id": "T/0", "commit": "a" * 40},
        {"config": "single", "id": "T/1", "commit": "b" * 40},
    ]
    (folder / "results.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    (folder / "summary.json").write_text("{}")  # never read: the rows do not compare
    doc = "<!-- results: results/mixed -->\n| old table |\n<!-- /results -->\n"
    rendered = tables.render(doc, tmp_path)
    assert "*Withheld: `results/mixed` holds rows of 2 code versions" in rendered
    assert "old table" not in rendered


def test_no_code_or_doc_narrates_its_own_history() -> None:
    files = subprocess.run(
        ["git", "ls-files", "*.py", "*.md", "Makefile", "*.toml", ".env.example"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    ours = [
        name
        for name in files
        if not name.startswith(("data/", "results/")) and name != "tests/unit/test_docs.py"
    ]
    told = [
        f"{name}:{n}: {line.strip()}"
        for name in ours
        for n, line in enumerate((ROOT / name).read_text().splitlines(), 1)
        if HISTORY.search(line)
    ]
    assert told == []


def test_a_table_across_folders_of_different_code_says_it_is_not_one_experiment(tmp_path):
    one, other = tmp_path / "results" / "one", tmp_path / "results" / "other"
    for folder, commit in ((one, "a" * 40), (other, "b" * 40)):
        folder.mkdir(parents=True)
        (folder / "results.jsonl").write_text(
            json.dumps({"config": "single", "id": "t/0", "commit": commit}) + "\n"
        )
    said = tables.commits_note([one, other], tmp_path)
    assert said == (
        "\n*These rows ran different code (`results/one` at aaaaaaa; `results/other` at bbbbbbb): "
        "they are not one experiment.*\n"
    )
    assert tables.commits_note([one, one], tmp_path) == ""


COMPARATIVE = re.compile(
    r"\b(better|worse|beats?|beaten|outperform\w*|ahead of|(?:above|below) the (?:\w+ )?floor|gains?)\b", re.I
)
"""Words that claim one measured figure is above another."""
NEGATED = re.compile(r"\b(no|not|neither|nor|without)\b[^.;]{0,40}$", re.I)
P_VALUE = re.compile(r"\bp\s*(=|<)\s*(\d+(?:\.\d+)?(?:e-?\d+)?)")
GENERATED = re.compile(r"<!-- ([a-z-]+):.*?-->.*?<!-- /\1 -->", re.S)


def unbacked_claims(text: str) -> list[str]:
    """Return the sentences of prose that use a comparative word without a paired test at p < 0.05 in the
    same sentence (generated tables word their own cells from the test, and are left out)."""
    prose = re.sub(r"```.*?```", " ", GENERATED.sub(" ", text), flags=re.S)
    found = []
    for paragraph in re.split(r"\n\s*\n", prose):
        for sentence in re.split(r"(?<=[.;:!?])\s+(?=[A-Z`(*])", " ".join(paragraph.split())):
            tested = any(
                float(x) < 0.05 if op == "=" else float(x) <= 0.05 for op, x in P_VALUE.findall(sentence)
            )
            claims = [m for m in COMPARATIVE.finditer(sentence) if not NEGATED.search(sentence[: m.start()])]
            if claims and not tested:
                found.append(sentence)
    return found


def test_every_comparative_word_in_the_docs_is_backed_by_a_paired_test() -> None:
    assert unbacked_claims("The team is better than the plain call.") != []  # the check can fail
    assert unbacked_claims("The team is better than the plain call (+9 −1 of 164, p = 0.021).") == []
    assert unbacked_claims("The team is no better than the plain call (p = 0.4).") == []
    for doc in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]:
        assert unbacked_claims(doc.read_text()) == [], doc.name
