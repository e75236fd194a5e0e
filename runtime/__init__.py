"""Where roles' actions run: the sandbox, the local model and its server, the MCP server, the executor."""
