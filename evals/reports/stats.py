"""The statistics every report shows beside a figure: Wilson intervals for rates, the exact paired McNemar
test for two configurations on the same items, the Matthews correlation, and the floors a score must beat
(constant verdicts, the majority answer, chance).

A report says one configuration is better than another only when McNemar's test on the items both ran
gives p < ``ALPHA``; otherwise it says no difference was measured.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable

ALPHA = 0.05
Z95 = 1.959963984540054
"""The standard normal quantile of a two-sided 95% interval."""


def wilson(hits: int, n: int, z: float = Z95) -> tuple[float, float]:
    """Return the Wilson score interval of ``hits`` out of ``n`` (95% by default).

    Unlike the normal approximation it stays inside [0, 1] and is not empty at 0 or ``n`` hits, which
    small sets of tasks reach.
    """
    if n <= 0:
        raise ValueError("a rate needs at least one item")
    if not 0 <= hits <= n:
        raise ValueError(f"hits must lie in [0, {n}], got {hits}")
    p = hits / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def rate(hits: int, n: int) -> str:
    """Return a rate in percent with its Wilson 95% interval, e.g. ``85.0% [64.0–94.8]`` for 17 of 20."""
    low, high = wilson(hits, n)
    return f"{hits / n:.1%} [{100 * low:.1f}–{100 * high:.1f}]"


def mcnemar(only_a: int, only_b: int) -> float:
    """Return the exact two-sided McNemar p-value for paired outcomes: ``only_a`` items right for A alone,
    ``only_b`` for B alone (the items both or neither got right carry no evidence of a difference).

    Under no difference each discordant item is A's with probability 1/2, so the p-value is twice the
    binomial tail of the smaller count, at most 1.
    """
    if only_a < 0 or only_b < 0:
        raise ValueError("discordant counts cannot be negative")
    n, k = only_a + only_b, min(only_a, only_b)
    if n == 0:
        return 1.0
    tail: float = sum(math.comb(n, i) for i in range(k + 1)) / 2**n
    return min(1.0, 2 * tail)


def compared(only_a: int, only_b: int, alpha: float = ALPHA) -> str:
    """Return what the paired test lets a report say of A against B: ``better``, ``worse``, or ``no
    difference measured`` when p is not below ``alpha``."""
    if mcnemar(only_a, only_b) >= alpha:
        return "no difference measured"
    return "better" if only_a > only_b else "worse"


def above_floor(hits: int, n: int, floor: float) -> float:
    """Return the exact one-sided binomial p-value of ``hits`` of ``n`` or more where each item is right
    with probability ``floor`` (what always giving one answer, or a random one, scores).

    A score is called above a floor only when this is below ``ALPHA``: a point estimate above it on a few
    dozen items is often chance.
    """
    if n <= 0 or not 0 <= hits <= n:
        raise ValueError(f"need 0 <= hits <= n and n > 0, got {hits} of {n}")
    floor = min(1.0, max(0.0, floor))
    return min(1.0, sum(math.comb(n, i) * floor**i * (1 - floor) ** (n - i) for i in range(hits, n + 1)))


def mcc(tp: int, fp: int, tn: int, fn: int) -> float | None:
    """Return the Matthews correlation of a confusion matrix; None when a row or column is empty (a
    constant verdict, or a set of one label), where it is undefined."""
    denominator = (tp + fp) * (tp + fn) * (tn + fp) * (tn + fn)
    if denominator == 0:
        return None
    return (tp * tn - fp * fn) / math.sqrt(denominator)


def constant_verdicts(positives: int, negatives: int) -> dict[str, dict[str, float | None]]:
    """Return what answering one verdict for every item scores on a set of ``positives`` and
    ``negatives``: accuracy, F1 and balanced accuracy of all-vulnerable and of all-safe."""
    n = positives + negatives
    if n == 0:
        raise ValueError("a floor needs at least one item")
    all_positive_f1 = 2 * positives / (2 * positives + negatives) if positives else None
    return {
        "all-vulnerable": {"accuracy": positives / n, "f1": all_positive_f1, "balanced_accuracy": 0.5},
        "all-safe": {"accuracy": negatives / n, "f1": None, "balanced_accuracy": 0.5},
    }


def answer_floors(golds: Iterable[str], options: Iterable[int]) -> dict[str, float | str]:
    """Return the floors of a multiple-choice set: the expected accuracy of a uniformly random answer
    (``options`` counts each item's choices) and the accuracy of always answering the most frequent gold
    letter (named in ``majority_answer``)."""
    golds, options = list(golds), list(options)
    if not golds or len(golds) != len(options):
        raise ValueError("one option count per gold answer, at least one item")
    letter, count = Counter(golds).most_common(1)[0]
    return {
        "random": sum(1 / k for k in options) / len(options),
        "majority": count / len(golds),
        "majority_answer": letter,
    }


def kappa(pairs: Iterable[tuple[object, object]]) -> float | None:
    """Return Cohen's kappa of two raters' labels on the same items: their agreement beyond what their
    label frequencies give by chance. None when chance agreement is already complete (both always say the
    same one label), where kappa is undefined."""
    pairs = list(pairs)
    if not pairs:
        raise ValueError("kappa needs at least one rated item")
    n = len(pairs)
    observed = sum(a == b for a, b in pairs) / n
    first, second = Counter(a for a, _ in pairs), Counter(b for _, b in pairs)
    expected = sum(first[label] * second[label] for label in first) / (n * n)
    if expected == 1:
        return None
    return (observed - expected) / (1 - expected)
