"""Roles, model access, the sandbox and the embedded local model."""
