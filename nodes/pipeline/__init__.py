"""The pipeline workflow's roles: intake, Planner, Executor and Critic on a multiple-choice question."""

# Importing any part of the workflow registers its artifact kinds first: its contracts name them.
from accord.nodes.pipeline import artifacts as artifacts
