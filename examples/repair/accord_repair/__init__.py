"""A repair workflow built on Accord's public API alone: reproduce a failing test command, fix the code,
verify with the project's own tests, review the diff.

Registered with Accord through the ``accord.workflows`` entry point (``pyproject.toml``), so ``accord run
--graph repair``, ``accord show | blame | cost | export | roles`` and ``langgraph dev`` serve it.
"""
