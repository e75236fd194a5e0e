"""Accountability for any thread of any workflow: blame, MAST failures, the trace, cost and exports.

Everything here reads a branch of checkpoints and the lifecycle table it ran under, never a workflow's
roles, so a workflow built outside Accord is blamed, costed and exported like the built-in ones.
"""
