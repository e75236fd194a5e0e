"""Evaluations: benchmarks, oracles and reports (see the evals issue)."""
