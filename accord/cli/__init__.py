"""The ``accord`` command line: one module per group of commands, each importing its layers lazily."""

from accord.cli.main import main, parser

__all__ = ["main", "parser"]
