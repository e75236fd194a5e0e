"""The protocol as data: artifacts, messages, contracts, lifecycles and the graph state."""
