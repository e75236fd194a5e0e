"""Merging code by definitions: replace same-named, union imports, keep __main__ last; a function task's
module keeps its definitions, not the model's checks."""

from __future__ import annotations

import ast

import pytest

from accord.nodes.coding.writing import function_module
from accord.nodes.development.baseline import harness_module
from accord.nodes.merge import (
    clean_test_module,
    definition,
    merge_module,
    named_tests,
    without_calls,
    without_checks,
)
from accord.nodes.requests import parse_request
from accord.nodes.views import strip_fences

APP = """import json

FILE = "todo.json"


def load():
    return []


if __name__ == "__main__":
    print(load())
"""


def test_new_definitions_are_added_and_same_named_ones_replaced():
    piece = "import os\n\n# save the tasks\ndef save(tasks):\n    pass\n\ndef load():\n    return [1]\n"
    merged = merge_module(APP, piece)
    ast.parse(merged)
    assert merged.count("def load") == 1 and "return [1]" in merged
    assert "# save the tasks\ndef save(tasks)" in merged
    assert merged.index("import os") < merged.index("FILE =") < merged.index("def save")
    assert merged.rstrip().endswith("print(load())")


def test_a_new_main_block_replaces_the_old_one():
    merged = merge_module(APP, 'if __name__ == "__main__":\n    main()\n')
    assert merged.count("__main__") == 1 and merged.rstrip().endswith("main()")


def test_merging_into_nothing_and_the_same_import_twice():
    assert merge_module("", "import json\n\nx = 1\n") == "import json\n\n\nx = 1\n"
    assert merge_module(APP, "import json\n").count("import json") == 1


def test_unparsable_addition_is_refused():
    with pytest.raises(SyntaxError):
        merge_module(APP, "def broken(:\n")


def test_test_module_imports_the_app_and_drops_shadowing_copies():
    tests = "def load():\n    return ['fake']\n\ndef test_load():\n    assert load() == []\n"
    cleaned = clean_test_module(tests, "app", {"load"})
    assert cleaned.startswith("from app import *")
    assert "fake" not in cleaned and "def test_load" in cleaned


def test_under_escaped_newlines_in_strings_are_repaired():
    from accord.nodes.merge import repaired

    broken = "def add(task):\n    with open('t.txt', 'a') as f:\n        f.write(f'{task}\n')  # it's\n"
    fixed = repaired(broken)
    assert "f.write(f'{task}\\n')  # it's" in fixed
    namespace: dict = {}
    exec(compile(fixed, "x", "exec"), namespace)
    assert repaired("x = '''a\nb'''\n") == "x = '''a\nb'''\n"  # valid code is left alone
    with pytest.raises(SyntaxError):
        repaired("def f(:\n")


def test_merge_repairs_the_piece_it_is_given():
    merged = merge_module("", "def greet(name):\n    return f'hi {name}\n'\n")
    assert "return f'hi {name}\\n'" in merged


def test_a_module_never_imports_itself():
    piece = "from app import add, done\nimport app\nimport json\n\ndef add(x):\n    return x\n"
    merged = merge_module("", piece, module="app")
    assert "from app import" not in merged and "import app\n" not in merged and "import json" in merged


def test_new_data_goes_above_the_functions_unless_it_names_one():
    merged = merge_module(APP, "tasks = []\n\nHANDLERS = {'load': load}\n")
    assert merged.index("tasks = []") < merged.index("def load")
    assert merged.index("HANDLERS = {'load': load}") > merged.index("def load")
    assert merged.index('FILE = "todo.json"') < merged.index("tasks = []")


def test_module_level_assignments_that_call_the_modules_functions_are_dropped():
    # what the local model appends to its features: run on every import
    piece = (
        "def add_task(items, text):\n    items.append(text)\n    return items\n\n"
        "# Example usage\nnew_item = add_task(items, 'Buy groceries')\nPATTERN = re.compile('x')\n"
    )
    merged = merge_module(APP + "\nimport re\n", piece)
    assert "new_item" not in merged and "default = load()" not in merge_module(APP, "default = load()\n")
    assert "PATTERN = re.compile('x')" in merged and "def add_task" in merged


def test_statements_that_cannot_run_at_module_level_are_dropped():
    merged = merge_module(APP, "def total(items):\n    return len(items)\n\n\nreturn items\n")
    compile(merged, "app.py", "exec")
    assert "def total(items)" in merged and "\nreturn items" not in merged


def test_example_usage_calls_at_module_level_are_dropped_but_docstrings_kept():
    piece = (
        '"""A to-do list."""\n\ndef add(items, text):\n    return items + [text]\n\n'
        "# Example usage:\nadd([], 'a')\nr\n"
    )
    merged = merge_module("", piece)
    assert merged.startswith('"""A to-do list."""') and "def add" in merged
    assert "add([], 'a')" not in merged and "\nr\n" not in merged


def test_a_lone_opening_or_closing_fence_is_dropped():
    assert strip_fences("```python\ndef f():\n    return 1\n") == "def f():\n    return 1\n"
    assert strip_fences("def f():\n    return 1\n```") == "def f():\n    return 1\n"
    assert strip_fences("```python\nx = 1\n```\n") == "x = 1\n"
    assert strip_fences("x = '```'\n") == "x = '```'\n"


def test_named_tests_keeps_only_the_tests_of_a_function_and_imports():
    answer = (
        "import pytest\n\ndef add(n):\n    return n\n\n"
        "def test_count_words(tmp_path):\n    assert count_words([], 'x') == 0\n\n"
        "def test_add(tmp_path):\n    assert add(1) == 1\n\n"
        "def test_add_negative():\n    assert add(-1) == -1\n"
    )
    kept = named_tests(answer, "add")
    assert "import pytest" in kept and "def test_add(tmp_path)" in kept and "def test_add_negative" in kept
    assert "def add(n)" not in kept and "test_count_words" not in kept  # the code and the prompt's example
    assert named_tests("def add(n):\n    return n\n", "add") == ""


def test_definition_returns_one_top_level_function():
    source = "import os\n\n# reads\ndef load(p):\n    return p\n\ndef save(p):\n    pass\n"
    assert definition(source, "load") == "# reads\ndef load(p):\n    return p"
    assert definition(source, "missing") == "" and definition("def broken(:", "broken") == ""


def test_a_kept_definition_and_its_main_block_are_not_replaced():
    piece = (
        "def main():\n    print('mine')\n\n\nif __name__ == '__main__':\n    main()\n\n\n"
        "def load():\n    return [1]\n"
    )
    app = APP.replace(
        'if __name__ == "__main__":\n    print(load())',
        'def main():\n    print(load())\n\n\nif __name__ == "__main__":\n    main()',
    )
    merged = merge_module(app, piece, keep=frozenset({"main"}))
    assert "print('mine')" in merge_module(app, piece)  # nothing kept: replaced as usual
    assert "print('mine')" not in merged and "print(load())" in merged and "return [1]" in merged
    assert merged.count("__main__") == 1 and merged.rstrip().endswith("main()")


STORAGE = frozenset({"load_items", "save_items"})


def test_features_lose_their_storage_calls_but_main_and_path_helpers_keep_theirs():
    source = (
        "def add(items, text):\n    items.append(text)\n    save_items(path, items)  # keep it\n"
        "    return items\n\n\ndef clear(items):\n    if items:\n"
        "        save_items(\n            'x.json', [])\n    return items\n\n\n"
        "def export(items, path):\n    save_items(path, items)\n\n\n"
        "def main():\n    save_items('items.json', [])\n"
    )
    result = without_calls(source, STORAGE, exempt=frozenset({"main"}), file_parameters=frozenset({"path"}))
    ast.parse(result)
    assert "save_items(path, items)  #" not in result and "'x.json'" not in result
    assert "    if items:\n        pass\n    return items" in result  # an emptied block gets `pass`
    assert "def export(items, path):\n    save_items(path, items)" in result
    assert "save_items('items.json', [])" in result
    assert without_calls("def f(items):\n    return items\n", STORAGE) == "def f(items):\n    return items\n"


def test_a_storage_call_sharing_its_line_is_left_alone():
    source = (
        "def add(items, t):\n    if t: save_items('x', items)\n    items.append(t); save_items('x', items)\n"
    )
    assert without_calls(source, STORAGE) == source


def test_dropped_definitions_are_not_merged():
    piece = "def set_priority(items, i, p):\n    return items\n\n\ndef load():\n    return [2]\n"
    merged = merge_module(APP, piece, drop=frozenset({"set_priority"}))
    assert "set_priority" not in merged and "return [2]" in merged


CHECKED = """from typing import List


def has_close_elements(numbers: List[float], threshold: float) -> bool:
    # Compare every pair.
    return any(abs(a - b) < threshold for i, a in enumerate(numbers) for b in numbers[i + 1:])

# Test cases
assert has_close_elements([-1.0, -2.0, -3.0], 0.4) == True
print(has_close_elements([1.0, 2.0], 0.5))


def test_has_close_elements():
    assert has_close_elements([1.0, 1.1], 0.5)

test_has_close_elements()
for case in ([1.0], [2.0]):
    assert not has_close_elements(case, 0.1)
LIMIT = 3; assert LIMIT
"""


def test_a_function_module_drops_the_models_checks_and_keeps_its_code_as_written():
    kept = without_checks(CHECKED, "has_close_elements")
    # The wrong assert, the print, the call of the test and the asserting loop would run on import.
    assert "assert has_close_elements([-1.0" not in kept and "print(" not in kept
    assert "\ntest_has_close_elements()" not in kept and "for case" not in kept
    # Definitions, comments and a check sharing a line with code stay, character for character.
    assert kept.startswith(CHECKED.split("# Test cases")[0])
    assert "    assert has_close_elements([1.0, 1.1], 0.5)" in kept and "LIMIT = 3; assert LIMIT" in kept
    namespace: dict[str, object] = {}
    exec(compile(kept, "solution.py", "exec"), namespace)  # the module imports: no check of its own fails
    assert namespace["has_close_elements"]([1.0, 1.2], 0.3) is True


def test_a_reply_cut_off_in_its_checks_keeps_its_function_but_one_cut_in_the_function_is_refused():
    cut = "def f(x):\n    return x + 1\n\n\nassert f(1) == 2\nassert f([1, 2,\n"
    assert without_checks(cut, "f") == "def f(x):\n    return x + 1\n"
    with pytest.raises(SyntaxError):
        without_checks("def f(x):\n    return [x,\n", "f")
    # The stub repeated ahead of a cut-off body is not taken for the function.
    with pytest.raises(SyntaxError):
        without_checks('def f(x):\n    """Add one."""\n\n\ndef f(x):\n    return [x,\n', "f")


def test_every_configuration_scores_a_function_without_the_models_checks():
    task = parse_request('def inc(x: int) -> int:\n    """Return x plus one."""\n')
    reply = "```python\ndef inc(x: int) -> int:\n    return x + 1\n\nassert inc(1) == 3\n```"
    for module in (
        harness_module(task, reply),
        function_module(task, "def inc(x):\n    return x + 1\n\nprint(inc(1))\nassert inc(1) == 3\n"),
    ):
        source = module.files["solution.py"]
        assert source.startswith(task.stub) and "return x + 1" in source and "assert" not in source
        assert "print" not in source
