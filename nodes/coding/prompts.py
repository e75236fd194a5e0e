"""The Coder's prompts: its system prompt, and what it is asked for a function, an application step,
a missing definition, a test and a revision."""

from __future__ import annotations

from accord.nodes.merge import (
    defined_names,
)
from accord.nodes.views import (
    code_block,
)

SYSTEM = """Write correct, complete, runnable Python. No placeholders, no TODOs. Handle the edge cases the
task implies."""

FUNCTION_PROMPT = """{task}

Plan:
{plan}

Return the complete implementation of `{name}` (with any imports and helper functions it needs) in one
```python code block."""

ALONE_PROMPT = """{task}

Return the complete implementation of `{name}` (with any imports and helpers it needs) in one ```python
code block."""
"""The task alone: the monolithic baseline's one call, and the Coder's first candidate."""

SUBTASK_PROMPT = """{task}

Plan:
{plan}

Current {app}:
{code}

Now implement subtask {number}: {title} ({description}){function}. Return only the new or changed
functions, with the imports and constants they need: they are merged into {app} by name. Do not repeat
unchanged code.
{conventions}
Answer with the code in one ```python code block."""

CONVENTIONS = """
The command-line interface calls each feature with the items and the words the user typed; a number that
picks an item arrives as its index in the list (0 for the first). A feature changes the items in place and
returns them, or returns what it reports. An item is a dict of its fields: marking or updating an item
changes a field (e.g. 'done') and keeps the item and its text in the list. A feature never reads or writes
the data file: the interface loads the items before and saves them after. For example:
```python
def set_priority(items, index, priority):
    items[index]['priority'] = priority
    return items
```
"""
"""What every feature of an application agrees on with the generated interface (``nodes.interface``, which
turns the user's 1-based numbers into indices). Without them the local model's "mark done" deletes the
item, or overwrites the task's text with 'Done'."""

ENDING = """ End the file
with:
```python
if __name__ == '__main__':
    main()
```
"""
ENTRY_CONVENTIONS = {
    "interactive": """
main() plays the session the plan shows: each line there is what one input() returns (split it
yourself when it holds several values), and after it main() prints what the session shows."""
    + ENDING,
    "arguments": """
main() plays the session the plan shows: each line there is one run of the program, its words the
command-line arguments main() reads from sys.argv[1:] (never input()); a file it names is in the
program's folder. Each run prints what the session shows after it."""
    + ENDING,
}
"""What a program's ``main()`` is asked for besides its step, by how it is used: the session checks it
(``nodes.sessions``)."""

EXAMPLE_NAMES = frozenset(defined_names(code_block(CONVENTIONS)))
"""What the conventions' example defines: a step's piece that copies it does not add it to the app, unless
the plan names it (else the local model's to-do list gains a ``set_priority`` nobody asked for)."""

MISSING_PROMPT = """{task}

Current {app}:
{code}

Problems:
{problems}

Define what is missing (the constants, data or functions named above). Return only those definitions,
in one ```python code block."""

TEST_PROMPT = """Here is `{name}` from {app}:
```python
{source}
```

Test it with pytest: complete this test of `{name}` with concrete arguments and the result they must
give (a file path, where one is needed, is `tmp_path / 'items.json'`):
```python
def test_{name}(tmp_path):
    assert {name}(...) == ...
```
Check:
{criteria}

Answer with the test in one ```python code block."""
"""One test per function: asked for a whole test module, the small local model copies the code instead.
The test comes as a fenced block in plain text: through the JSON tool call most of the model's tests had
no tool call, a quote that broke the JSON or no assert."""

REVISE_PROMPT = """{task}

Plan:
{plan}

Current code:
{code}

The Reviewer asked for changes:
{review}

Fix the most important issue. Return {what}."""

CHANGED_DEFINITIONS = (
    "only the functions you change, in one ```python code block (they replace the "
    "same-named ones; a test function goes into the tests)"
)
"""A fix comes as plain text, like all code: in the JSON tool call the local model can write a whole
revision on one line, three times over."""
