"""Multiple-choice sets: LogiQA (300 of its English test set) and AGIEval's English mix (300: 75 each of
LSAT-LR, SAT-Math, LogiQA-en and AQuA-RAT).

The agents see a question as the pipeline's intake reads it: the passage and the question, then the options
one per line, lettered from A. The gold option stays here, in the oracle that judges every stage's answer
and in the score; a test checks that it reaches no prompt.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from itertools import chain, zip_longest
from typing import Any

from accord.evals.paths import data_dir
from accord.graphs.oracle import Oracle
from accord.graphs.pipeline import gold_oracle

LETTERS = "ABCDEFGHIJ"
PREFIX = re.compile(r"^\s*\(([A-J])\)\s*")
"""AGIEval's option prefix, ``(A)``."""


@dataclass(frozen=True)
class Item:
    """One question: what the agents see, and the gold option only the oracle knows."""

    id: str
    text: str
    options: tuple[str, ...]
    gold: str

    def prompt(self) -> str:
        """Return the question as the agents get it: the text, then one lettered option per line."""
        lettered = zip(LETTERS, self.options, strict=False)
        return self.text + "\n\n" + "\n".join(f"{letter}. {' '.join(o.split())}" for letter, o in lettered)


def _logiqa(row: Mapping[str, Any]) -> Item:
    return Item(
        id=row["id"],
        text=f"{row['context'].strip()}\n\n{row['question'].strip()}",
        options=tuple(row["options"]),
        gold=row["answer"],
    )


def _agieval(row: Mapping[str, Any]) -> Item:
    text = "\n\n".join(part.strip() for part in (row.get("passage") or "", row["question"]) if part.strip())
    return Item(
        id=row["id"],
        text=text,
        options=tuple(PREFIX.sub("", o) for o in row["options"]),
        gold=LETTERS[row["answer_index"]],
    )


SETS = {
    "logiqa": ("logiqa/logiqa_test_sample300.jsonl", _logiqa),
    "agieval": ("agieval/agieval_en_mcq_mixed300.jsonl", _agieval),
}
"""Benchmark name → (file under the data folder, how a row becomes an item)."""


@cache
def items(name: str) -> dict[str, Item]:
    """Return a set's questions by id, in the order a run takes them (``--limit N`` takes the first N)."""
    path, parse = SETS[name]
    rows = [json.loads(line) for line in (data_dir() / path).read_text().splitlines() if line.strip()]
    return {item.id: item for item in map(parse, interleaved(rows))}


def interleaved(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Return rows that name a ``subset`` one from each subset in turn, each subset in the file's order.

    A mixed set's file holds its subsets one after another, so its first 50 rows would be one subset
    alone; taken in turn, any prefix of the set is as mixed as the whole. Rows without a subset keep
    the file's order.
    """
    subsets: dict[Any, list[dict[str, Any]]] = {}
    for row in rows:
        subsets.setdefault(row.get("subset"), []).append(row)
    return [row for row in chain.from_iterable(zip_longest(*subsets.values())) if row is not None]


def score(name: str, item_id: str, values: Mapping[str, Any]) -> tuple[bool, str]:
    """Return whether the run completed with the gold option, and what it answered."""
    gold = items(name)[item_id].gold
    answer = (values.get("answer") or {}).get("choice") if values.get("status") == "completed" else None
    if answer is None:
        return False, f"no answer ({values.get('reason', '')[:200]})"
    return answer == gold, f"answered {answer}, gold {gold}"


def oracle(name: str, item_id: str) -> Oracle:
    """Return the oracle that judges every stage's answer against the gold option."""
    return gold_oracle(items(name)[item_id].gold, name=f"gold option of {item_id}")


def details(name: str, item_id: str, values: Mapping[str, Any]) -> dict[str, Any]:
    """Return the final answer (None: the run gave none), the option the plan led to, and what the report's
    floors need: the gold option and how many options the item has."""
    completed = values.get("status") == "completed"
    item = items(name)[item_id]
    return {
        "answer": (values.get("answer") or {}).get("choice") if completed else None,
        "plan_leads_to": (values.get("reasoning") or {}).get("leads_to"),
        "gold": item.gold,
        "options": len(item.options),
    }
