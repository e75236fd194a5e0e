"""Declared experiments: ``evals/experiments/NAME.toml`` names a benchmark, its tasks and every
configuration to run on them; ``accord eval run NAME`` runs them all at one commit.

A file holds::

    description = "what the comparison asks"
    benchmark = "humaneval"            # or "jsonl" with file = "data/functions40/functions40.jsonl"
    split = "test"                     # the set's frozen split (evals/benchmarks/splits.py): dev or test
    limit = 20                         # or ids = ["HumanEval/0", ...]; none: every task of the split
    settings = { max_rounds = 2 }      # Context fields every configuration runs with

    [[configurations]]
    config = "single"

    [[configurations]]
    config = "accountable"
    models = { coder = "qwen2.5-coder-1.5b" }   # a model per role (or model = "..." for every role)
    settings = { max_candidates = 4 }

    [[configurations]]
    config = "best-of-n"
    same_tokens_as = "accountable"     # each task capped at that team's tokens on it, in this run

The run refuses a working copy whose code or data differ from its commit (``--dev`` runs it anyway and
marks every row ``dev``, which no published table takes); every row records the full commit, each
embedded model's SHA-256 and its settings.
"""

from __future__ import annotations

import dataclasses
import tomllib
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from accord.evals import configs
from accord.evals.benchmarks import BENCHMARKS, Benchmark, splits, user_set
from accord.evals.paths import EXPERIMENTS, REPOSITORY
from accord.runtime.local_model import MIX


class Strict(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class ConfigurationRun(Strict):
    """One configuration of the experiment, on its models and settings."""

    config: str
    """A configuration of the benchmark's workflow (``accord eval --help`` lists them)."""
    model: str | None = None
    """Every role's model (an embedded model's name or letter, or an endpoint's)."""
    models: dict[str, str] = Field(default_factory=dict)
    """A model per role."""
    settings: dict[str, Any] = Field(default_factory=dict)
    """Context fields this configuration runs with, over the experiment's."""
    same_tokens_as: str | None = None
    """A team declared before this configuration (e.g. ``accountable``): when this one's turn comes, each
    task's ``token_cap`` is what that team spent on the same task in this run's own rows (``token_caps``),
    so that a baseline is given the team's tokens task by task, never more."""


class Experiment(Strict):
    """A comparison declared before it runs: the tasks, and every configuration to run on them."""

    name: str
    description: str
    benchmark: str
    file: str | None = None
    """For ``jsonl``: the task file, relative to the repository (or absolute)."""
    split: Literal["dev", "test"] | None = None
    """Which half of the set's frozen split runs; None: every task (rows are then neither)."""
    limit: int | None = Field(default=None, ge=1)
    ids: tuple[str, ...] = ()
    settings: dict[str, Any] = Field(default_factory=dict)
    configurations: tuple[ConfigurationRun, ...] = Field(min_length=1)

    @model_validator(mode="after")
    def _matched_after_their_team(self) -> Experiment:
        for i, run in enumerate(self.configurations):
            if run.same_tokens_as is not None:
                team_of(self.configurations[:i], run)
        return self


def team_of(earlier: tuple[ConfigurationRun, ...], run: ConfigurationRun) -> int:
    """Return where in ``earlier`` the team a configuration matches in tokens is.

    Raises:
        ValueError: it is missing or ambiguous, or the configuration bounds its calls itself.
    """
    teams = [i for i, r in enumerate(earlier) if r.config == run.same_tokens_as]
    if {"best_of", "token_cap"} & set(run.settings):
        raise ValueError(f"{run.config}: same_tokens_as caps its tokens; the configuration sets them too")
    if len(teams) != 1:
        raise ValueError(
            f"{run.config}: same_tokens_as needs one {run.same_tokens_as} declared before it "
            f"({len(teams)} are)"
        )
    return teams[0]


def token_caps(rows: Iterable[Mapping[str, Any]], team: str) -> dict[str, int]:
    """Return each task's token cap for a baseline matched with ``team``: what the team spent on it (input
    and output), from ``rows``.

    Raises:
        ValueError: the team has no rows.
    """
    caps = {r["id"]: r["tokens_in"] + r["tokens_out"] for r in rows if r["config"] == team}
    if not caps:
        raise ValueError(f"no rows of {team} to cap a baseline at its tokens")
    return caps


def path_of(name: str) -> Path:
    """Return the file a name or a path gives: ``NAME`` is ``evals/experiments/NAME.toml``."""
    given = Path(name)
    return given if given.suffix == ".toml" else EXPERIMENTS / f"{name}.toml"


def load(name: str) -> Experiment:
    """Return the experiment a name or a path declares.

    Raises:
        ValueError: no such file, or it does not declare an experiment (the reason is named).
    """
    path = path_of(name)
    if not path.is_file():
        known = ", ".join(sorted(p.stem for p in EXPERIMENTS.glob("*.toml"))) or "none"
        raise ValueError(f"no experiment file {path} (declared here: {known})")
    try:
        return Experiment(name=path.stem, **tomllib.loads(path.read_text()))
    except (tomllib.TOMLDecodeError, ValidationError, TypeError) as exc:
        raise ValueError(f"{path}: {exc}") from exc


def benchmark_of(experiment: Experiment) -> Benchmark:
    """Return the benchmark the experiment runs, with every configuration it names checked.

    Raises:
        ValueError: an unknown benchmark or configuration, or a ``jsonl`` experiment without its file.
    """
    benchmark: Benchmark
    if experiment.benchmark == "jsonl":
        if (file := task_file(experiment)) is None:
            raise ValueError(f"{experiment.name}: a jsonl experiment names its task file (file = ...)")
        benchmark = user_set(file)
    elif experiment.benchmark in BENCHMARKS:
        benchmark = BENCHMARKS[experiment.benchmark]
    else:
        raise ValueError(
            f"{experiment.name}: no benchmark {experiment.benchmark!r} "
            f"(known: {', '.join(BENCHMARKS)}, jsonl)"
        )
    if unknown := [c.config for c in experiment.configurations if c.config not in benchmark.configurations]:
        raise ValueError(
            f"{experiment.name}: {benchmark.name} has no configuration {', '.join(unknown)} "
            f"(it has: {', '.join(benchmark.configurations)})"
        )
    return benchmark


def task_file(experiment: Experiment) -> Path | None:
    """Return a ``jsonl`` experiment's task file (None for a built-in benchmark)."""
    if not experiment.file:
        return None
    file = Path(experiment.file)
    return file if file.is_absolute() else REPOSITORY / file


def task_ids(experiment: Experiment) -> tuple[str, ...]:
    """Return the ids the experiment names, else its split's, else none (every task).

    Raises:
        ValueError: the split cannot be read, is empty, or leaves out an id the experiment names.
    """
    if experiment.split is None:
        return experiment.ids
    return splits.narrowed(experiment.benchmark, experiment.split, experiment.ids, task_file(experiment))


def configuration_names(experiment: Experiment, base: Any) -> list[str]:
    """Return the name each configuration's rows carry (``configs.on_models``), in declared order, as run
    from ``base`` (a Context)."""
    benchmark = benchmark_of(experiment)
    return [
        configs.on_models(benchmark.configurations[run.config], context_for(base, experiment, run)).name
        for run in experiment.configurations
    ]


def context_for(base: Any, experiment: Experiment, run: ConfigurationRun) -> Any:
    """Return ``base`` (a Context) with the experiment's settings, then the configuration's and its models.

    Raises:
        ValueError: a setting the Context does not have, or a value it refuses.
    """
    fields = {f.name for f in dataclasses.fields(base)}
    settings = {**experiment.settings, **run.settings}
    if unknown := sorted(set(settings) - fields):
        raise ValueError(f"{experiment.name}: no run setting {', '.join(unknown)}")
    role_models = {role: dict(values) for role, values in base.role_models.items()}
    for role, model in run.models.items():
        role_models.setdefault(role, {})["model"] = MIX.get(model, model)  # a letter names an embedded model
    model = MIX.get(run.model, run.model) if run.model else base.model
    return dataclasses.replace(base, **settings, role_models=role_models, model=model)
