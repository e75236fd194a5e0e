"""Probes: one role's measured effect alone, on stored or fresh runs."""
