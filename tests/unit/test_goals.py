"""The code goals table: each goal from the folder's summaries, each team against the single call on its
Coder's model."""

from __future__ import annotations

from accord.evals.reports.goals import goals

SMALL, BIG = "qwen2.5-coder-0.5b", "qwen2.5-coder-1.5b"


def _summary(
    solved: int,
    tokens: int,
    model: str,
    coder: str | None = None,
    latency: float = 60.0,
    mast: float = 0.5,
    tasks: int = 100,
    first: int = 0,
) -> dict:
    """A configuration's summary that solved ``solved`` of ``tasks`` tasks, from the ``first``-th on."""
    by_category = {"Specification Issues": 3, "Inter-Agent Misalignment": 0, "Task Verification": 2}
    ids = [f"t/{i}" for i in range(tasks)]
    return {
        "tasks": tasks,
        "solved": solved,
        "pass@1": solved / tasks,
        "tokens_per_solved": tokens,
        "ids": ids,
        "solved_ids": ids[first : first + solved],
        "median_tokens_in": tokens,
        "median_latency_s": latency,
        "models": sorted({model, coder or model}),
        "by_role_model": {"coder": {coder or model: {}}} if coder or model else {},
        "mast": {
            "total": round(mast * tasks),
            "per_task": round(mast, 3),
            "by_category": by_category,
            "left_per_task": 0.1,
        },
    }


def _spent(calls: float, tokens: float, model: float, sandbox: float, total: int = 0) -> dict:
    return {
        "calls_per_task": calls,
        "token_share": tokens,
        "model_time_share": model,
        "sandbox_time_share": sandbox,
        "tokens": total,
    }


def test_each_team_is_held_to_the_single_call_on_its_coders_model():
    summaries = {
        "single": _summary(55, 1000, SMALL),
        "accountable": _summary(72, 2500, SMALL, latency=25.0),
        "simple": _summary(60, 9000, SMALL, mast=0.4),
        "single@qwen2.5-coder-1.5b": _summary(70, 900, BIG),
        "accountable@BCBBB": _summary(81, 4000, SMALL, coder=BIG),
    }
    summaries["accountable"] |= {
        "error_origins": {"coder": 20, "tester": 8},
        "roles": {
            "tester": {"repairs": 5, "wrong_inputs": 30, "harms": 8, "right_inputs": 70},
            "reviewer": {"repairs": 0, "wrong_inputs": 41, "harms": 0, "right_inputs": 59},
        },
        "verdicts": {"agreement": 0.9},
        "cost_by_role": {
            "tasks": 100,
            "roles": {
                "tester": _spent(1.2, 0.3, 0.25, 0.02, total=12_000),
                "coder": _spent(4.0, 0.7, 0.7, 0.01),
                "reviewer": _spent(0.03, 0.009, 0.005, 0.0, total=900),
                "debugger": _spent(0.0, 0.0, 0.0, 0.01),
            },
        },
    }
    table = goals(summaries)
    # What each repair cost is the role's tokens over its repairs; a role that repaired nothing says what
    # it spent for nothing.
    assert (
        "- `accountable`: 28 of 100 unsolved; error origins: coder 20, tester 8; reviewer repaired 0 of "
        "41 wrong inputs, harmed 0 of 59 right ones (no repair for 900 tokens); tester repaired 5 of 30 "
        "wrong inputs, harmed 8 of 70 right ones (2,400 tokens per repair); its verdict agrees with the "
        "hidden tests on 90.0%; "
        "LLM calls per task: coder 4.0 (70% of the tokens, 70% of the wall time), tester 1.2 (30% of the "
        "tokens, 25% of the wall time), reviewer 0.03 (<1% of the tokens, <1% of the wall time); "
        "the sandbox 4% of the wall time (100 tasks)." in table
    )
    assert "| ≥ 80% | 81.0% [72.2–87.5] (`accountable@BCBBB`, 81 / 100) | yes |" in table
    assert "in every role | ≥ 70% | 72.0% [62.5–79.9] (`accountable`, 72 / 100) | yes |" in table
    assert (
        "| `accountable` − `single`, Coder on qwen2.5-coder-0.5b | ≥ +10 points, p < 0.05 "
        "| +17.0 points (72.0% against `single` 55.0%; +17 −0, p = 1.5e-05: better) | yes |"
    ) in table
    # the mix is held to the 1.5B model alone, not to the weaker 0.5B call
    assert (
        "| `accountable@BCBBB` − `single`, Coder on qwen2.5-coder-1.5b | ≥ +10 points, p < 0.05 "
        "| +11.0 points (81.0% against `single@qwen2.5-coder-1.5b` 70.0%; +11 −0, p = 0.00098: better) "
        "| yes |"
    ) in table
    assert "| ≤ 3× | 2.5× (2,500 against 1,000) | yes |" in table
    assert "| ≤ 3× | 4.4× (4,000 against 900) | no |" in table
    assert "| ≤ 30 s | 25.0 s (`accountable`) | yes |" in table
    assert (
        "`accountable` 0.50 (FC1 3 / FC2 0 / FC3 2; 0.10 left after retries) against `simple` 0.40" in table
    )
    assert "left after retries) | no |" in table  # more failures than simple: not met


def test_a_goal_whose_configurations_have_not_run_says_so():
    table = goals({"accountable@BCBBB": _summary(81, 4000, SMALL, coder=BIG)})
    assert (
        "| `accountable@BCBBB` − `single`, Coder on qwen2.5-coder-1.5b | ≥ +10 points, p < 0.05 "
        "| not run yet | — |" in table
    )
    assert "in every role | ≥ 70% | not run yet | — |" in table


def test_a_goal_is_not_judged_while_a_configuration_has_run_only_some_tasks():
    partial = _summary(18, 2500, SMALL, tasks=19)
    table = goals({"single": _summary(55, 1000, SMALL), "accountable": partial})
    # compared on the 19 tasks both ran, not 18 of 19 against 55 of 100
    assert (
        "| ≥ +10 points, p < 0.05 | −5.3 points (94.7% against `single` 100.0% on the 19 tasks both ran; "
        "+0 −1, p = 1: no difference measured) | not yet (`accountable` 19 of 100 tasks) |"
    ) in table
    assert (
        "| ≥ 80% | 94.7% [75.4–99.1] (`accountable`, 18 / 19) | not yet (`accountable` 19 of 100 tasks, "
        "no team "
        "with another model per role has run) |"
    ) in table
    assert "| yes |" not in table and "| no |" not in table


def test_the_best_team_is_the_best_of_those_that_ran_every_task_until_the_rest_have():
    summaries = {
        "single": _summary(55, 1000, SMALL),
        "accountable@BCBBB": _summary(75, 4000, SMALL, coder=BIG),
        "accountable@qwen2.5-coder-1.5b": _summary(10, 400, BIG, tasks=10),
    }
    assert (
        "| ≥ 80% | 75.0% [65.7–82.5] (`accountable@BCBBB`, 75 / 100) | not yet "
        "(`accountable@qwen2.5-coder-1.5b` 10 of 100 tasks) |"
    ) in goals(summaries)


def test_the_one_example_goal_is_checked_on_its_own_folder_and_only_when_given():
    humaneval = {"single": _summary(55, 1000, SMALL), "accountable": _summary(72, 2500, SMALL)}
    assert "one example" not in goals(humaneval)
    # the best mix of models is not judged on the default model alone
    assert (
        "| ≥ 80% | 72.0% [62.5–79.9] (`accountable`, 72 / 100) | not yet (no team with another model "
        "per role "
        "has run) |"
    ) in goals(humaneval)
    checkset = {
        "single": _summary(10, 900, SMALL, tasks=40, first=5, latency=10.0),
        "accountable": _summary(20, 3000, SMALL, tasks=40, latency=19.0),
    }
    table = goals(humaneval, checkset)
    assert (
        "stating one example each (test split: never tuned on) | ≥ +15 points, p < 0.05 "
        "| +25.0 points (50.0% against `single` 25.0%; +10 −0, p = 0.002: better) | yes |"
    ) in table
    assert (
        "| tokens per solved task on those tasks, `accountable` ÷ `single` | ≤ 2× | 3.3× (3,000 against "
        "900) | no |"
    ) in table
    assert (
        "| median wall time per task on those tasks, `accountable` ÷ `single` | ≤ 2× | 1.9× (19.0 s "
        "against 10.0 s) | yes |"
    ) in table
    assert "the same tokens | ≥ +5 points, p < 0.05 | not run yet | — |" in table
    # Blame's account covers the team on the function tasks too: what stands in the way of these goals.
    assert (
        "- `accountable` on function tasks stating one example each (test split): 20 of 40 unsolved;" in table
    )
    checkset["accountable"] |= {"tasks": 12, "pass@1": 4 / 12}
    assert "| not yet (`accountable` 12 of 40 tasks) |" in goals(humaneval, checkset)
    assert "tuned on) | ≥ +15 points, p < 0.05 | not run yet | — |" in goals(humaneval, {})


def test_a_gain_of_points_is_not_met_without_the_paired_test():
    humaneval = {"single": _summary(55, 1000, SMALL), "accountable": _summary(72, 2500, SMALL)}
    # Twenty points more, but the two solve different tasks: 13 only the team, 5 only the call (p = 0.096).
    checkset = {
        "single": _summary(10, 900, SMALL, tasks=40, first=13),
        "accountable": _summary(18, 3000, SMALL, tasks=40),
    }
    assert (
        "| +20.0 points (45.0% against `single` 25.0%; +13 −5, p = 0.096: no difference measured) | no |"
        in goals(humaneval, checkset)
    )
    # The same gain from summaries that list no solved tasks cannot be paired, so it is not met.
    unpaired = {name: {k: v for k, v in s.items() if k != "solved_ids"} for name, s in checkset.items()}
    assert "not paired (the summaries list no solved tasks)) | no |" in goals(humaneval, unpaired)


def test_the_team_is_held_to_the_plain_call_given_the_same_tokens():
    humaneval = {"single": _summary(55, 1000, SMALL), "accountable": _summary(72, 2500, SMALL)}
    ids = [f"T/{i}" for i in range(40)]
    team_spent = dict.fromkeys(ids, 1500)
    matched = {"caps": team_spent}  # each task capped at the team's spend on it
    checkset = {
        "single": _summary(10, 300, SMALL, tasks=40),
        "accountable": _summary(20, 3000, SMALL, tasks=40) | {"tokens_per_task": 1500, "spent": team_spent},
        "best-of-n": _summary(19, 2900, SMALL, tasks=40)
        | {"tokens_per_task": 1450, "spent": dict.fromkeys(ids, 1450), **matched},
        "self-repair": _summary(12, 2000, SMALL, tasks=40)
        | {"tokens_per_task": 900, "spent": dict.fromkeys(ids, 900), **matched},
    }
    table = goals(humaneval, checkset)
    # One task more than best-of-n is neither 5 points nor a paired difference.
    assert (
        "| `accountable` − `best-of-n`, the plain call sampled to the same tokens and chosen by the "
        "stated example | ≥ +5 points, p < 0.05 | +2.5 points (50.0% against `best-of-n` 47.5%; +1 −0, "
        "p = 1: no difference measured; tokens per task 1,500 against 1,450) | no |"
    ) in table
    assert (
        "| `accountable` − `self-repair`, the plain call with its failing stated example fed back, to "
        "the same tokens | ≥ +5 points, p < 0.05 | +20.0 points (50.0% against `self-repair` 30.0%; +8 "
        "−0, p = 0.0078: better; tokens per task 1,500 against 900) | yes |"
    ) in table
    # Uncapped, the same baseline is no comparison at all.
    del checkset["self-repair"]["caps"]
    assert "not compared: its tasks were not capped at the team's spend on each" in goals(humaneval, checkset)


def test_the_team_is_held_to_each_peer_at_no_more_tokens():
    humaneval = {"single": _summary(55, 1000, SMALL), "accountable": _summary(72, 2500, SMALL)}
    checkset = {
        "single": _summary(10, 300, SMALL, tasks=40),
        "accountable": _summary(20, 3000, SMALL, tasks=40),
        "mapcoder": _summary(8, 9000, SMALL, tasks=40),
        "agentcoder": _summary(20, 2000, SMALL, tasks=40),
    }
    table = goals(humaneval, checkset)
    assert (
        "| `accountable` − `mapcoder`, MapCoder's released code on the Coder's model | better, p < 0.05, "
        "at no more tokens per solved task | +30.0 points (50.0% against `mapcoder` 20.0%; +12 −0, "
        "p = 0.00049: better; tokens per solved task 3,000 against 9,000) | yes |"
    ) in table
    # As many solved is not ahead, and more tokens per solved task is not at no more.
    assert (
        "| +0.0 points (50.0% against `agentcoder` 50.0%; +0 −0, p = 1: no difference measured; tokens "
        "per solved task 3,000 against 2,000) | no |"
    ) in table
    checkset["mapcoder"] = _summary(0, 0, SMALL, tasks=40)
    assert "+20 −0, p = 1.9e-06: better; the peer solved none) | yes |" in goals(humaneval, checkset)
    del checkset["agentcoder"]
    assert (
        "AgentCoder's released code on the Coder's model | better, p < 0.05, at no more tokens per "
        "solved task | not run yet | — |" in goals(humaneval, checkset)
    )


def test_a_further_test_set_holds_the_team_to_the_single_call_alone():
    humaneval = {"single": _summary(55, 1000, SMALL), "accountable": _summary(72, 2500, SMALL)}
    checkset = {
        "single": _summary(10, 300, SMALL, tasks=40),
        "accountable": _summary(20, 3000, SMALL, tasks=40),
    }
    unstated = {
        "single": _summary(90, 400, SMALL, tasks=200, latency=5.0),
        "accountable": _summary(96, 3200, SMALL, tasks=200, latency=40.0),
    }
    table = goals(humaneval, checkset, [("odex", unstated)])
    assert (
        "| `accountable` − `single` on ODEX's open-domain function tasks, stating no example (test "
        "split: never tuned on) | ≥ +15 points, p < 0.05 | +3.0 points (48.0% against `single` 45.0%; "
        "+6 −0, p = 0.031: better) | no |"
    ) in table
    assert "| 8.0× (3,200 against 400) | no |" in table and "| 8.0× (40.0 s against 5.0 s) | no |" in table
    # The same-budget baselines and the peers choose by stated examples: held on the first test set alone.
    assert table.count("| `accountable` − `best-of-n`") == 1
    assert table.count("released code on the Coder") == 2
    assert (
        "- `accountable` on ODEX's open-domain function tasks, stating no example (test split): 104 of "
        "200 unsolved;"
    ) in table


def test_the_small_models_goals_read_the_configurations_that_ran_it_in_every_role():
    # A folder at a default team with another Coder: plain `accountable` mixes models, and the 0.5B model
    # in every role is the configuration named for it.
    summaries = {
        "single": _summary(60, 800, BIG),
        "accountable": _summary(75, 4000, SMALL, BIG, latency=50.0),
        "accountable@qwen2.5-coder-0.5b": _summary(71, 5000, SMALL, latency=28.0, mast=0.3),
        "simple@qwen2.5-coder-0.5b": _summary(60, 9000, SMALL, mast=0.4),
        "single@qwen2.5-coder-0.5b": _summary(52, 900, SMALL),
    }
    table = goals(summaries)
    assert (
        "| HumanEval-164 (dev split), qwen2.5-coder-0.5b in every role | ≥ 70% | 71.0% [61.5–79.0] "
        "(`accountable@qwen2.5-coder-0.5b`, 71 / 100) | yes |"
    ) in table
    assert "| 28.0 s (`accountable@qwen2.5-coder-0.5b`) | yes |" in table
    assert (
        "| MAST failures per task, `accountable@qwen2.5-coder-0.5b` against `simple@qwen2.5-coder-0.5b`, "
        "the same detectors | fewer |"
    ) in table


def test_failures_per_task_are_counted_not_read_from_a_rounded_figure():
    # 155 failures on 164 tasks are 0.945..., which the summary stores as 0.945 and which then prints 0.94.
    by_category = {"Specification Issues": 21, "Task Verification": 134}
    small = _summary(100, 2000, SMALL, tasks=164) | {
        "mast": {"total": 155, "per_task": 0.945, "by_category": by_category}
    }
    simple = _summary(90, 7000, SMALL, tasks=164, mast=0.51)
    table = goals(
        {
            "single@qwen2.5-coder-0.5b": _summary(85, 900, SMALL, tasks=164),
            "accountable@qwen2.5-coder-0.5b": small,
            "simple@qwen2.5-coder-0.5b": simple,
        }
    )
    assert "`accountable@qwen2.5-coder-0.5b` 0.95 (FC1 21 / FC2 0 / FC3 134) against" in table


def test_a_team_with_another_model_in_a_role_never_stands_for_the_small_model_alone():
    # The default team's folder: `accountable` has the 1.5B Coder, and nothing ran the 0.5B model alone.
    table = goals(
        {
            "single": _summary(60, 800, BIG),
            "accountable": _summary(75, 4000, SMALL, BIG, latency=25.0),
            "simple": _summary(60, 9000, SMALL, BIG, mast=0.4),
        }
    )
    assert "(dev split), qwen2.5-coder-0.5b in every role | ≥ 70% | not run yet | — |" in table
    assert "| median wall time per task, qwen2.5-coder-0.5b, 2 cores | ≤ 30 s | not run yet | — |" in table
    assert "the same detectors | fewer | not run yet | — |" in table
    assert "| ≥ 80% | 75.0% [65.7–82.5] (`accountable`, 75 / 100) | no |" in table  # the best team is judged
