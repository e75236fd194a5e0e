"""Lifecycle compiler and the graphs Accord serves."""
