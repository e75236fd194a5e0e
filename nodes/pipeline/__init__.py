"""The pipeline workflow's roles: intake, Planner, Executor and Critic on a multiple-choice question."""
