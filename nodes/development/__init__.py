"""The development workflow's roles: Planner, Coder, Tester, Debugger, Reviewer, the person who approves
the plan, and the single-call baseline. Each role module imports only shared parts of ``nodes``."""
