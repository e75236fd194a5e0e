"""Static checks: names used but never defined, found without running the code."""

from __future__ import annotations

from accord.nodes import static_check
from accord.nodes.static_check import check, unbound_in, undefined_names


def test_static_check_names_what_is_used_but_never_defined():
    files = {
        "app.py": "def add(t):\n    tasks.append(t)\n\ndef n():\n    return len(tasks)\n",
        "test_app.py": "from app import *\n\ndef test_add(tmp_path):\n    add(1)\n    assert n() == 1\n",
        "other.py": "from os.path import *\n\nprint(join('a', mystery))\n",
    }
    assert undefined_names("app.py", files) == ["`tasks` is used in add(), n() but never defined or imported"]
    # names come in through a star import of a file in the map; one of a package is unknowable
    assert undefined_names("test_app.py", files) == [] and undefined_names("other.py", files) == []
    assert undefined_names("test_app.py", {**files, "test_app.py": "def test_x():\n    assert y\n"}) == [
        "`y` is used in test_x() but never defined or imported"
    ]
    assert [c.passed for c in check(files)] == [False, True, True]


def test_test_functions_are_found_by_name():
    module = "import json\n\ndef helper():\n    pass\n\ndef test_a():\n    pass\n"
    assert static_check.test_functions(module) == ["test_a"]
    assert static_check.test_functions("def test_(:\n") == []


def test_test_methods_of_test_classes_count():
    module = "import unittest\n\nclass TestApp(unittest.TestCase):\n    def test_add(self):\n        pass\n"
    assert static_check.test_functions(module) == ["TestApp.test_add"]
    assert static_check.test_functions("class Helper:\n    def test_x(self):\n        pass\n") == []


def test_a_functions_unbound_names_include_its_comprehensions_and_inner_functions():
    source = (
        "LIMIT = 3\n\ndef is_full(board):\n    return all(cell != ' ' for row in board) and LIMIT\n\n"
        "def main():\n    def show():\n        print(board, LIMIT)\n    show()\n\n"
        "def fine(board):\n    return [cell for row in board for cell in row]\n"
    )
    assert unbound_in(source, "is_full") == ["cell"] and unbound_in(source, "main") == ["board"]
    assert unbound_in(source, "fine") == [] and unbound_in(source, "absent") == []
    assert unbound_in("def broken(:\n", "broken") == []
