"""The development workflow's roles: Planner, Coder, Tester, Debugger, Reviewer, the person who approves
the plan, and the single-call baseline. Each role module imports only shared parts of ``nodes``."""

# Importing any part of the workflow registers its artifact kinds first: its contracts name them.
from accord.nodes.development import artifacts as artifacts
