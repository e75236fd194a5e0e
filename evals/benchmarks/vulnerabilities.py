"""Vulnerability-detection sets: devign100 (C) and vuln-python100 (Python), each 100 samples that shaped the
audit (its dev split, 50 vulnerable and 50 safe) and fresh ones that only measure it (its test split: 50 and
50 in C, 39 and 39 in Python; ``data/*/SPLIT.json``).

The agents see only a sample's code, under a neutral file name that tells its language. The label and the
CWE id stay here, in the oracle that judges each finding and vote and in the score; a test checks that
neither reaches a prompt.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from typing import Any

from accord.evals.paths import data_dir
from accord.graphs.audit import label_oracle, verdict
from accord.graphs.oracle import Oracle


@dataclass(frozen=True)
class Sample:
    """One labelled sample: the code the agents see, and what only the oracle knows."""

    id: str
    code: str
    language: str
    vulnerable: bool
    cwe: str | None


SETS = {
    "devign100": ("devign100/devign100.jsonl", "code_compact"),
    "vuln-python100": ("python_vuln100_sven/python_vuln100.jsonl", "code"),
}
"""Benchmark name → (file under the data folder, the field holding the code as the agents see it)."""
SUFFIX = {"c": ".c", "cpp": ".cpp", "python": ".py"}


@cache
def samples(name: str) -> dict[str, Sample]:
    """Return a set's samples by id, in the file's order."""
    path, field = SETS[name]
    rows = [json.loads(line) for line in (data_dir() / path).read_text().splitlines() if line.strip()]
    return {
        r["id"]: Sample(
            id=r["id"], code=r[field], language=r["language"], vulnerable=r["label"] == 1, cwe=r.get("cwe")
        )
        for r in rows
    }


def source_name(sample: Sample) -> str:
    """Return the neutral file name the agents see (its suffix tells the language, nothing else)."""
    return f"function{SUFFIX[sample.language]}"


def oracle(name: str, sample_id: str) -> Oracle:
    """Return the oracle that judges every finding and vote of a sample against its label."""
    return label_oracle(samples(name)[sample_id].vulnerable, name=f"label of {sample_id}")


def score(name: str, sample_id: str, values: Mapping[str, Any]) -> tuple[bool, str]:
    """Return whether the audit's verdict matches the label, and what it said."""
    label = samples(name)[sample_id].vulnerable
    said = verdict(values) if values.get("status") == "completed" else None
    if said is None:
        return False, f"no verdict ({values.get('reason', '')[:200]})"
    words = {True: "vulnerable", False: "safe"}
    return said == label, f"said {words[said]}, labelled {words[label]}"


def classification(name: str, sample_id: str, values: Mapping[str, Any]) -> dict[str, Any]:
    """Return what a row needs for classification metrics: the label, the verdict, each analyst's votes."""
    said = verdict(values) if values.get("status") == "completed" else None
    cast = [
        v
        for v in values.get("verdicts", [])
        if v["target"] is None and v["outcome"] in ("vulnerable", "safe")
    ]
    first = min((v["round"] for v in cast), default=1)
    return {
        "label": samples(name)[sample_id].vulnerable,
        "predicted": said,
        "votes": {v["role"]: v["outcome"] == "vulnerable" for v in cast if v["round"] == first},
        "final_votes": {
            role: bool(f["vulnerable"])
            for role, f in (values.get("findings") or {}).get("by_role", {}).items()
        },
    }
