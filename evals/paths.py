"""Where an eval's files live in a checkout: the benchmark data, the declared experiments, the results.

The benchmark data can live elsewhere (``$ACCORD_DATA``); results are written where ``--out`` says,
by default under the repository's ``results/`` folder, which is not part of the installed package.
"""

from __future__ import annotations

from pathlib import Path

from accord.state.settings import Settings

REPOSITORY = Path(__file__).resolve().parents[1]
"""The checkout's root (the ``accord/evals`` link resolves to the top-level ``evals/``)."""

REPOSITORY_DATA = REPOSITORY / "data"
"""The benchmark sets copied into the repository, each with its PROVENANCE.md."""

EXPERIMENTS = REPOSITORY / "evals" / "experiments"
"""The declared experiments, beside the code that runs them."""

RESULTS_ROOT = REPOSITORY / "results"
"""Each experiment's result folder (rows, summaries, reports, checkpoints)."""


def data_dir() -> Path:
    """Return the benchmark data directory.

    Raises:
        FileNotFoundError: the directory ``$ACCORD_DATA`` names, or the repository's ``data/``, is missing.
    """
    path = Settings().data or REPOSITORY_DATA
    if not path.is_dir():
        raise FileNotFoundError(f"no benchmark data at {path}: set ACCORD_DATA to a folder of benchmark sets")
    return path
