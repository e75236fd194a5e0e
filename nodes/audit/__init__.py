"""The audit workflow's roles: intake, the Auditor, Critic and Tester, their analysers and proofs."""

# Importing any part of the workflow registers its artifact kinds first: its contracts name them.
from accord.nodes.audit import artifacts as artifacts
