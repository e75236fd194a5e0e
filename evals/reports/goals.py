"""The code goals, checked against one HumanEval result folder's summaries and the test sets' folders
(``<!-- goals: DIR [TEST_DIR ...] -->``).

A goal that compares two configurations is met only when the exact McNemar test on the tasks both ran
says so at p < 0.05 (``evals.reports.stats``); a gain of points without it is reported, not claimed.

Each goal compares configurations of the same folder, so the same tasks, machine and server settings:
``accountable`` on the embedded default in every role, ``accountable`` with another Coder (the best local
mix), each against the ``single`` call on its Coder's model, and against ``simple`` for failures. A second
folder, of function tasks shaped like a user's (one stated example each, a test split), holds
``accountable`` to ``single``, to the baselines that give the plain model its tokens (``SAME_BUDGET``) and
to the published peers (``PEERS``); further test sets (``SETS``) hold ``accountable`` to ``single``.
A goal whose configurations have not run yet says so; nothing is typed by hand.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

from accord.evals.configs import base_name
from accord.evals.reports import stats
from accord.evals.reports.summary import failures_per_task
from accord.runtime.local_model import DEFAULT_MODEL

Summary = Mapping[str, Any]
HEADER = "| goal | aim | measured | met |\n|---|---|---|---|\n"
CATEGORIES = (
    ("FC1", "Specification Issues"),
    ("FC2", "Inter-Agent Misalignment"),
    ("FC3", "Task Verification"),
)


def coder_model(summary: Summary) -> str:
    """Return the model a configuration's Coder ran on (its only model when it names no Coder)."""
    coder = (summary.get("by_role_model") or {}).get("coder") or {}
    models = list(coder) or list(summary.get("models") or [])
    return models[0] if len(models) == 1 else ""


def teams(summaries: Mapping[str, Summary]) -> dict[str, str | None]:
    """Return each ``accountable`` configuration with the ``single`` on its Coder's model (None: not run)."""
    singles = {coder_model(s): name for name, s in summaries.items() if base_name(name) == "single"}
    return {
        name: singles.get(coder_model(s)) for name, s in summaries.items() if base_name(name) == "accountable"
    }


Measured = tuple[str, bool] | None
"""What a goal's configurations measured and whether that meets it; None when they have not run."""


class Goal(NamedTuple):
    """One row of the table: judged only when each configuration in ``names`` ran the folder's whole set
    and nothing it needs is ``missing``."""

    goal: str
    aim: str
    measured: Measured
    names: list[str]
    missing: str = ""


def _pass(name: str, s: Summary) -> str:
    return f"{stats.rate(s['solved'], s['tasks'])} (`{name}`, {s['solved']} / {s['tasks']})"


def _mast(s: Summary) -> str:
    mast = s["mast"]
    by = mast["by_category"]
    left = "" if mast.get("left_per_task") is None else f"; {mast['left_per_task']:.2f} left after retries"
    return f"{failures_per_task(s):.2f} ({' / '.join(f'{k} {by.get(c, 0)}' for k, c in CATEGORIES)}{left})"


def _solved(name: str, s: Summary, aim: float) -> Measured:
    return _pass(name, s), s["pass@1"] >= aim


def _shared(a: Summary, b: Summary) -> tuple[set[str], set[str], set[str]] | None:
    """Return the tasks both ran, and those of them each solved; None when a summary does not list its
    solved tasks (written before summaries did), so the two cannot be paired."""
    if "solved_ids" not in a or "solved_ids" not in b:
        return None
    shared = set(a["ids"]) & set(b["ids"])
    return shared, set(a["solved_ids"]) & shared, set(b["solved_ids"]) & shared


def discordant(a: Summary, b: Summary) -> tuple[int, int] | None:
    """Return the tasks both ran that only ``a`` solved and that only ``b`` solved (None: not paired)."""
    if (both := _shared(a, b)) is None:
        return None
    _, mine, theirs = both
    return len(mine - theirs), len(theirs - mine)


def _paired(a: Summary, b: Summary) -> tuple[str, bool]:
    """Return the paired test of ``a`` against ``b`` as a table says it, and whether ``a`` is better."""
    pairs = discordant(a, b)
    if pairs is None:
        return "not paired (the summaries list no solved tasks)", False
    verdict = stats.compared(*pairs)
    return f"+{pairs[0]} −{pairs[1]}, p = {stats.mcnemar(*pairs):.2g}: {verdict}", verdict == "better"


def _points(points: float) -> str:
    """Return a difference in points, signed as the tables sign it (a minus sign, not a hyphen)."""
    return f"{points:+.1f}".replace("-", "−")


def _rates(a: Summary, b: Summary) -> tuple[float, float, str]:
    """Return the pass@1 of ``a`` and ``b`` on the tasks both ran, and how a table says which tasks those
    are: while one has run only some of the other's tasks, its rate beside the other's whole set would
    compare different tasks."""
    both = _shared(a, b)
    if both is None or not both[0] or set(a["ids"]) == set(b["ids"]):
        return a["pass@1"], b["pass@1"], ""
    shared, mine, theirs = both
    return len(mine) / len(shared), len(theirs) / len(shared), f" on the {len(shared)} tasks both ran"


def _gain(a: Summary, single: str, s: Summary, aim: float = 10, also: str = "") -> tuple[str, bool]:
    """Return ``a``'s gain over ``s`` in points (on the tasks both ran) with its paired test (and ``also``,
    said beside them): met at ``aim`` points and p < 0.05."""
    mine, theirs, where = _rates(a, s)
    points = 100 * (mine - theirs)
    test, better = _paired(a, s)
    against = f"{mine:.1%} against `{single}` {theirs:.1%}{where}"
    return (f"{_points(points)} points ({against}; {test}{also})", points >= aim and better)


def unmatched(team: Summary, baseline: Summary) -> str:
    """Return why a baseline was not given the team's tokens task by task ('' when it was): it ran
    uncapped, under a cap below what the team spent on a task, or spent more than the team there."""
    caps, ours, theirs = baseline.get("caps") or {}, team.get("spent") or {}, baseline.get("spent") or {}
    if not caps:
        return "its tasks were not capped at the team's spend on each (`same_tokens_as`)"
    if below := [t for t in caps if t in ours and caps[t] < ours[t]]:
        return f"its cap was below the team's spend on {len(below)} tasks (first: {below[0]})"
    if over := [t for t in theirs if t in ours and theirs[t] > ours[t]]:
        return f"it spent more than the team on {len(over)} tasks (first: {over[0]})"
    return ""


def _same_budget(a: Summary, name: str, b: Summary, aim: float) -> Measured:
    """Return ``a`` against a baseline given its tokens: the gain and test of ``_gain``, with what each
    spent per task (the budget they were matched on); refused, and not met, where the baseline was not
    matched with ``a``'s spend task by task (``unmatched``)."""
    if why := unmatched(a, b):
        return f"not compared: {why}", False
    spent = (
        f"; tokens per task {a['tokens_per_task']:,} against {b['tokens_per_task']:,}"
        if a.get("tokens_per_task") and b.get("tokens_per_task")
        else ""
    )
    return _gain(a, name, b, aim, spent)


def _tokens(a: Summary, s: Summary, aim: float = 3) -> Measured:
    ours, theirs = a["tokens_per_solved"], s["tokens_per_solved"]
    if not ours or not theirs:
        return "— (nothing solved)", False
    return f"{ours / theirs:.1f}× ({ours:,} against {theirs:,})", ours / theirs <= aim


def _latency(a: Summary, s: Summary, aim: float) -> Measured:
    ours, theirs = a["median_latency_s"], s["median_latency_s"]
    return f"{ours / theirs:.1f}× ({ours:.1f} s against {theirs:.1f} s)", ours <= aim * theirs


def _rate(per_task: float) -> str:
    """Return a per-task rate with one decimal, or two where one would round a role's few calls to 0.0."""
    return f"{per_task:.1f}" if per_task >= 0.05 else f"{per_task:.2f}"


def _share(part: float) -> str:
    """Return a share in whole percent, or "<1%" for a nonzero part under one percent (never "0%")."""
    return "<1%" if 0 < part < 0.01 else f"{part:.0%}"


def _spending(costs: Summary | None) -> str:
    """Return where a team's tokens and wall time go: each calling role's calls per task and shares."""
    if not costs:
        return ""
    spent = sorted(
        ((role, c) for role, c in costs["roles"].items() if c["calls_per_task"]),
        key=lambda item: -item[1]["token_share"],
    )
    calls = ", ".join(
        f"{role} {_rate(c['calls_per_task'])} ({_share(c['token_share'])} of the tokens, "
        f"{_share(c['model_time_share'])} of the wall time)"
        for role, c in spent
    )
    sandbox = sum(c["sandbox_time_share"] for c in costs["roles"].values())
    return (
        f"LLM calls per task: {calls}; the sandbox {_share(sandbox)} of the wall time "
        f"({costs['tasks']} tasks)"
    )


def _per_repair(repairs: int, tokens: int | None) -> str:
    """Return what a role's repairs cost in its tokens ("" for a role that calls no model, or rows that do
    not record tokens by role)."""
    if not tokens:
        return ""
    if repairs:
        return f" ({tokens / repairs:,.0f} tokens per repair)"
    return f" (no repair for {tokens:,} tokens)"


def account(name: str, s: Summary, where: str = "") -> str:
    """Return blame's account of a team (on ``where``, when not the folder's first set): where each
    unrepaired mistake began, what each role repaired and harmed of what it was handed and what its repairs
    cost in tokens, and where its tokens and time go."""
    origins = (
        ", ".join(
            f"{role} {count}"
            for role, count in sorted((s.get("error_origins") or {}).items(), key=lambda item: -item[1])
        )
        or "none"
    )
    spent = (s.get("cost_by_role") or {}).get("roles") or {}
    roles = "; ".join(
        f"{role} repaired {r['repairs']} of {r['wrong_inputs']} wrong inputs, "
        f"harmed {r['harms']} of {r['right_inputs']} right ones"
        f"{_per_repair(r['repairs'], (spent.get(role) or {}).get('tokens'))}"
        for role, r in sorted((s.get("roles") or {}).items())
    )
    agreement = (s.get("verdicts") or {}).get("agreement")
    verdict = "" if agreement is None else f"its verdict agrees with the hidden tests on {agreement:.1%}"
    parts = [
        f"{s['tasks'] - s['solved']} of {s['tasks']} unsolved",
        f"error origins: {origins}",
        roles,
        verdict,
        _spending(s.get("cost_by_role")),
    ]
    return f"- `{name}`{where}: {'; '.join(p for p in parts if p)}.\n"


def _whole_set(summaries: Mapping[str, Summary]) -> int:
    """Return how many tasks the folder's set has: the most any of its configurations ran."""
    return max((summary["tasks"] for summary in summaries.values()), default=0)


def _line(
    summaries: Mapping[str, Summary],
    goal: str,
    aim: str,
    measured: Measured,
    names: list[str],
    missing: str = "",
) -> str:
    """Return one goal's row (see ``Goal``)."""
    full = _whole_set(summaries)
    met = "—"
    if measured:
        running = [
            f"`{n}` {summaries[n]['tasks']} of {full} tasks"
            for n in names
            if n in summaries and summaries[n]["tasks"] < full
        ] + ([missing] if missing else [])
        met = f"not yet ({', '.join(running)})" if running else "yes" if measured[1] else "no"
    return f"| {goal} | {aim} | {measured[0] if measured else 'not run yet'} | {met} |\n"


SAME_BUDGET = {
    "best-of-n": "the plain call sampled to the same tokens and chosen by the stated example",
    "self-repair": "the plain call with its failing stated example fed back, to the same tokens",
}
"""The baselines that give the plain model a team's tokens, and what each does with them."""

PEERS = {"mapcoder": "MapCoder", "agentcoder": "AgentCoder"}
"""The published multi-agent coders run from their released code (``nodes.development.peers``)."""


def _ahead(a: Summary, name: str, b: Summary) -> Measured:
    """Return ``a`` against a peer: ahead means better by the paired test at no more tokens per solved
    task."""
    ours, theirs = a["tokens_per_solved"], b["tokens_per_solved"]
    cheaper = bool(ours) and (not theirs or ours <= theirs)
    spent = f"tokens per solved task {ours or 0:,} against {theirs:,}" if theirs else "the peer solved none"
    said, better = _gain(a, name, b, 0, f"; {spent}")  # better by the paired test is also ≥ 0 points
    return said, better and cheaper


SETS = {
    "functions40": "function tasks stating one example each",
    "odex": "ODEX's open-domain function tasks, stating no example",
}
"""What each test set is, as a goal names it (by its rows' benchmark)."""


def _test_split(runs: Mapping[str, Summary], where: str, baselines: bool) -> list[Goal]:
    """Return the goals judged on a test split (never tuned on): ``accountable`` ahead of ``single`` by 15
    points at p < 0.05, at most twice ``single``'s tokens per solved task and median wall time; with
    ``baselines``, also ahead of each same-budget baseline by 5 points at p < 0.05 and of each peer at no
    more tokens per solved task."""
    team, alone = runs.get("accountable"), runs.get("single")
    return [
        Goal(
            f"`accountable` − `single` on {where} (test split: never tuned on)",
            "≥ +15 points, p < 0.05",
            _gain(team, "single", alone, 15) if team and alone else None,
            ["accountable", "single"],
        ),
        *(
            Goal(
                f"`accountable` − `{name}`, {what}",
                "≥ +5 points, p < 0.05",
                _same_budget(team, name, runs[name], 5) if team and name in runs else None,
                ["accountable", name],
            )
            for name, what in SAME_BUDGET.items()
            if baselines
        ),
        *(
            Goal(
                f"`accountable` − `{name}`, {peer}'s released code on the Coder's model",
                "better, p < 0.05, at no more tokens per solved task",
                _ahead(team, name, runs[name]) if team and name in runs else None,
                ["accountable", name],
            )
            for name, peer in PEERS.items()
            if baselines
        ),
        Goal(
            "tokens per solved task on those tasks, `accountable` ÷ `single`",
            "≤ 2×",
            _tokens(team, alone, 2) if team and alone else None,
            ["accountable", "single"],
        ),
        Goal(
            "median wall time per task on those tasks, `accountable` ÷ `single`",
            "≤ 2×",
            _latency(team, alone, 2) if team and alone else None,
            ["accountable", "single"],
        ),
    ]


def goals(
    summaries: Mapping[str, Summary],
    one_example: Mapping[str, Summary] | None = None,
    others: Sequence[tuple[str, Mapping[str, Summary]]] = (),
) -> str:
    """Return the goals table for one HumanEval folder's summaries, then blame's account of each team.

    ``one_example`` is a second folder's summaries, on function tasks that state one example each (the
    user-style set the gain must also hold on): its ``accountable`` against its ``single``, the same-budget
    baselines and the peers. ``others`` are further test sets, each (its name in ``SETS``, its summaries):
    their ``accountable`` against their ``single`` alone (the baselines choose by stated examples).
    """
    pairs = teams(summaries)
    # The goals of the embedded default model in every role read only the configurations that ran it alone,
    # whatever the folder's default team named them (``accountable`` or ``accountable@<model>``): a team
    # with another model in some role never stands for it, and without one those goals have not run.
    alone = {base_name(n): n for n, s in summaries.items() if set(s.get("models") or []) == {DEFAULT_MODEL}}
    small_name, simple_name = alone.get("accountable", "accountable"), alone.get("simple", "simple")
    small, simple = (summaries[alone[base]] if base in alone else None for base in ("accountable", "simple"))
    # A team part-way through its tasks stands for the best only once none has run them all: a rate on a
    # few tasks is no measure of the best.
    full = _whole_set(summaries)
    best = max(pairs, key=lambda n: (summaries[n]["tasks"] == full, summaries[n]["pass@1"]), default=None)
    # The best mix is judged only once some team has put another model than the default in a role (a
    # summary's models are those of every role's calls).
    mixed = any(set(summaries[n].get("models") or []) - {DEFAULT_MODEL} for n in pairs)
    rows = [
        Goal(
            "HumanEval-164 (dev split: tuned on), best local team (any embedded model per role)",
            "≥ 80%",
            _solved(best, summaries[best], 0.80) if best else None,
            list(pairs),
            "" if mixed else "no team with another model per role has run",
        ),
        Goal(
            f"HumanEval-164 (dev split), {DEFAULT_MODEL} in every role",
            "≥ 70%",
            _solved(small_name, small, 0.70) if small else None,
            [small_name],
        ),
    ]
    for name, single in pairs.items():
        a, s = summaries[name], summaries[single] if single else None
        rows.append(
            Goal(
                f"`{name}` − `single`, Coder on {coder_model(a)}",
                "≥ +10 points, p < 0.05",
                _gain(a, single, s) if single and s else None,
                [name, single or ""],
            )
        )
        rows.append(
            Goal(
                f"tokens per solved task, `{name}` ÷ `single`",
                "≤ 3×",
                _tokens(a, s) if s else None,
                [name, single or ""],
            )
        )
    rows.append(
        Goal(
            f"median wall time per task, {DEFAULT_MODEL}, 2 cores",
            "≤ 30 s",
            (f"{small['median_latency_s']:.1f} s (`{small_name}`)", small["median_latency_s"] <= 30)
            if small
            else None,
            [small_name],
        )
    )
    rows.append(
        Goal(
            f"MAST failures per task, `{small_name}` against `{simple_name}`, the same detectors",
            "fewer",
            (
                f"`{small_name}` {_mast(small)} against `{simple_name}` {_mast(simple)}",
                failures_per_task(small) < failures_per_task(simple),
            )
            if small and simple
            else None,
            [small_name, simple_name],
        )
    )
    table = HEADER + "".join(_line(summaries, *row) for row in rows)
    tests = [("functions40", one_example, True)] if one_example is not None else []
    tests += [(name, runs, False) for name, runs in others]
    for name, runs, baselines in tests:
        table += "".join(_line(runs, *row) for row in _test_split(runs, SETS.get(name, name), baselines))
    accounts = "".join(account(name, summaries[name]) for name in pairs)
    for name, runs, _ in tests:
        if "accountable" in runs:
            where = SETS.get(name, name)
            accounts += account("accountable", runs["accountable"], f" on {where} (test split)")
    return table + (
        f"\nBlame's account (the hidden tests as oracle at every checkpoint):\n\n{accounts}"
        if accounts
        else ""
    )
