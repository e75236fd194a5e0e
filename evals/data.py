"""Where the benchmark data lives: ``$ACCORD_DATA``, else the repository's ``data/`` folder."""

from __future__ import annotations

from pathlib import Path

from accord.state.settings import Settings

REPOSITORY_DATA = Path(__file__).resolve().parents[1] / "data"
"""The benchmark sets copied into the repository, each with its PROVENANCE.md."""


def data_dir() -> Path:
    """Return the benchmark data directory.

    Raises:
        FileNotFoundError: the directory ``$ACCORD_DATA`` names, or the repository's ``data/``, is missing.
    """
    path = Settings().data or REPOSITORY_DATA
    if not path.is_dir():
        raise FileNotFoundError(f"no benchmark data at {path}: set ACCORD_DATA to a folder of benchmark sets")
    return path
