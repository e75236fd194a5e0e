"""Writing code with a model, shared by every role and workflow that writes it: prompts, fenced replies,
candidate functions, classes method by method, applications step by step and their tests."""
