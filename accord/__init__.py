"""Accord: accountable multi-agent software engineering on LangGraph."""
