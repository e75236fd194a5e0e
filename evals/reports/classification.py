"""Classification metrics for labelled verdicts (vulnerability detection): from result rows that carry a
``label``, the ``predicted`` verdict (None: no verdict) and each voter's first-round and final ``votes``."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from typing import Any

from accord.evals.reports.stats import ALPHA, above_floor, constant_verdicts, mcc
from accord.graphs.audit import majority


def _ratio(hits: int, chances: int) -> float | None:
    return round(hits / chances, 4) if chances else None


def metrics(rows: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """Return the confusion matrix, the labels' counts, accuracy, precision, recall, F1, balanced accuracy,
    the Matthews correlation (None for a constant verdict), how often the
    voters agreed at once, each voter's accuracy in the first round and at the end (the vote's too: the
    verdict the first round's votes reached, against the final one), and, over the wrong
    verdicts, how often each voter's final finding said what the wrong verdict said (whom it followed).

    A run without a verdict counts as wrong in accuracy and is listed apart (``no_verdict``): it says
    neither vulnerable nor safe, so it is neither a positive nor a negative.
    """
    tp = sum(r["predicted"] is True and r["label"] for r in rows)
    fp = sum(r["predicted"] is True and not r["label"] for r in rows)
    tn = sum(r["predicted"] is False and not r["label"] for r in rows)
    fn = sum(r["predicted"] is False and r["label"] for r in rows)
    positives, negatives = sum(bool(r["label"]) for r in rows), sum(not r["label"] for r in rows)
    precision, recall = _ratio(tp, tp + fp), _ratio(tp, positives)
    f1 = (
        round(2 * precision * recall / (precision + recall), 4)
        if precision is not None and recall is not None and precision + recall
        else None
    )
    specificity = _ratio(tn, negatives)
    balanced = (
        round((recall + specificity) / 2, 4) if recall is not None and specificity is not None else None
    )
    voted = [r for r in rows if len(r.get("votes", {})) > 1]
    unanimous = sum(len(set(r["votes"].values())) == 1 for r in voted)
    per_role: dict[str, dict[str, list[bool]]] = defaultdict(lambda: {"first": [], "final": []})
    for r in rows:
        for role, said in r.get("votes", {}).items():
            per_role[role]["first"].append(said == r["label"])
        for role, said in r.get("final_votes", {}).items():
            per_role[role]["final"].append(said == r["label"])
    for r in voted:  # the vote itself: the verdict the first round reached, and the final one
        first_verdict = majority({role: {"vulnerable": said} for role, said in r["votes"].items()})
        per_role["vote"]["first"].append(first_verdict == r["label"])
        per_role["vote"]["final"].append(r["predicted"] == r["label"])
    wrong = [r for r in rows if r["predicted"] is not None and r["predicted"] != r["label"]]
    followed = {
        role: sum(r.get("final_votes", {}).get(role) == r["predicted"] for r in wrong)
        for role in sorted({role for r in wrong for role in r.get("final_votes", {})})
    }
    correlation = mcc(tp, fp, tn, fn)
    return {
        "confusion": {
            "tp": tp,
            "fp": fp,
            "tn": tn,
            "fn": fn,
            "no_verdict": sum(r["predicted"] is None for r in rows),
        },
        "positives": positives,
        "negatives": negatives,
        "accuracy": _ratio(tp + tn, len(rows)),
        "precision": precision,
        "recall": recall,
        "f1": f1,
        "balanced_accuracy": balanced,
        "mcc": None if correlation is None else round(correlation, 4),
        "unanimous_first_round": _ratio(unanimous, len(voted)),
        "role_accuracy": {
            role: {
                "first": _ratio(sum(v["first"]), len(v["first"])),
                "final": _ratio(sum(v["final"]), len(v["final"])),
            }
            for role, v in sorted(per_role.items())
        },
        "wrong_verdicts": len(wrong),
        "followed_when_wrong": followed,
    }


def constants(c: Mapping[str, Any]) -> dict[str, dict[str, float | None]]:
    """Return what the two constant verdicts score on the items of ``c`` (a ``metrics`` result)."""
    return constant_verdicts(c["positives"], c["negatives"])


def beats_constants(c: Mapping[str, Any]) -> bool:
    """Return whether verdicts ``c`` do better than answering one verdict for every item: an accuracy above
    the better constant's by the exact binomial test at p < ``ALPHA``, and an F1 above all-vulnerable's
    (all-safe finds nothing, so it has none)."""
    floors = constants(c)
    accuracy = max(f["accuracy"] or 0.0 for f in floors.values())
    f1 = floors["all-vulnerable"]["f1"] or 0.0
    n = c["positives"] + c["negatives"]
    right = c["confusion"]["tp"] + c["confusion"]["tn"]
    return n > 0 and above_floor(right, n, accuracy) < ALPHA and (c["f1"] or 0.0) > f1
