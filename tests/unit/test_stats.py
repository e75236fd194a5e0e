"""The statistics reports print: checked against values published tools give for the same counts."""

from __future__ import annotations

import pytest

from accord.evals.reports import stats


def test_wilson_matches_the_score_interval_and_stays_inside_zero_and_one():
    # R: prop.test(17, 20, correct = FALSE)$conf.int -> 0.6395811 0.9476313
    low, high = stats.wilson(17, 20)
    assert low == pytest.approx(0.6395811, abs=1e-6) and high == pytest.approx(0.9476313, abs=1e-6)
    assert stats.wilson(0, 40)[0] == 0.0 and 0.08 < stats.wilson(0, 40)[1] < 0.09
    assert stats.wilson(40, 40)[1] == 1.0 and stats.wilson(40, 40)[0] < 1.0
    assert stats.rate(17, 20) == "85.0% [64.0–94.8]"
    with pytest.raises(ValueError):
        stats.wilson(3, 0)
    with pytest.raises(ValueError):
        stats.wilson(5, 4)


def test_mcnemar_is_the_exact_binomial_test_on_the_discordant_items():
    # R: binom.test(2, 12)$p.value -> 0.03857422; binom.test(1, 7)$p.value -> 0.125
    assert stats.mcnemar(10, 2) == pytest.approx(0.03857422, abs=1e-8)
    assert stats.mcnemar(2, 10) == stats.mcnemar(10, 2)
    assert stats.mcnemar(1, 6) == pytest.approx(0.125)
    assert stats.mcnemar(0, 0) == 1.0 and stats.mcnemar(3, 3) == 1.0
    assert stats.compared(10, 2) == "better" and stats.compared(2, 10) == "worse"
    # Seven more solved and none lost is not enough at p < 0.05 on its own... (p = 0.0156 is)
    assert stats.compared(6, 1) == "no difference measured"
    assert stats.compared(6, 0) == "better"


def test_mcc_and_the_constant_verdicts_a_classifier_must_beat():
    assert stats.mcc(40, 10, 30, 20) == pytest.approx(0.4082483)
    assert stats.mcc(50, 50, 0, 0) is None  # a constant verdict: undefined, not zero
    floors = stats.constant_verdicts(50, 50)
    assert floors["all-vulnerable"]["f1"] == pytest.approx(2 / 3)
    assert floors["all-vulnerable"]["accuracy"] == floors["all-safe"]["accuracy"] == 0.5
    assert floors["all-safe"]["f1"] is None


def test_answer_floors_are_chance_and_the_most_frequent_gold_letter():
    floors = stats.answer_floors("DDADBC", [4, 4, 4, 4, 5, 5])
    assert floors["majority_answer"] == "D" and floors["majority"] == 0.5
    assert floors["random"] == pytest.approx((4 * 0.25 + 2 * 0.2) / 6)
    with pytest.raises(ValueError):
        stats.answer_floors("AB", [4])


def test_kappa_is_agreement_beyond_chance():
    # Two raters, 50 items: 20 yes/yes, 15 no/no, 5 yes/no, 10 no/yes -> po = 0.7, pe = 0.5, kappa = 0.4
    pairs = [("y", "y")] * 20 + [("n", "n")] * 15 + [("y", "n")] * 5 + [("n", "y")] * 10
    assert stats.kappa(pairs) == pytest.approx(0.4)
    assert stats.kappa([("a", "a"), ("b", "b")]) == 1.0
    assert stats.kappa([("a", "a")] * 3) is None  # one label throughout: undefined
    with pytest.raises(ValueError):
        stats.kappa([])


def test_above_a_floor_is_the_exact_one_sided_binomial_test():
    # R: binom.test(7, 10, 0.5, alternative = "greater")$p.value -> 0.171875 (176 / 1024)
    assert stats.above_floor(7, 10, 0.5) == pytest.approx(0.171875)
    assert stats.above_floor(0, 10, 0.3) == pytest.approx(1.0)
    # 30% of 50 against a 26% floor is above it by the point estimate, not by the test
    assert stats.above_floor(15, 50, 0.26) > stats.ALPHA
    assert stats.above_floor(22, 50, 0.26) < stats.ALPHA
    with pytest.raises(ValueError):
        stats.above_floor(11, 10, 0.5)
