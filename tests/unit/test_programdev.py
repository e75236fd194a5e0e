"""ProgramDev: the requirements as tasks, executability and the hand-written acceptance checks."""

from __future__ import annotations

from pathlib import Path

from accord.evals.benchmarks import BENCHMARKS, programdev
from accord.evals.benchmarks.programdev_checks import CHECKS
from accord.state.artifacts import CodeArtifact

TICTACTOE = (Path(__file__).parents[1] / "fixtures" / "tictactoe.py").read_text()
"""A tic-tac-toe that does what the requirement says (a move is the row and the column, from 1)."""


def _app(source: str) -> CodeArtifact:
    return CodeArtifact(files={"app.py": source}, entry_points=("app.py",))


def test_every_requirement_has_acceptance_checks_and_the_agents_see_the_requirement_alone():
    tasks = BENCHMARKS["programdev"].tasks()
    assert len(tasks) == 30 and set(CHECKS) == {t.id for t in tasks}
    ticktacktoe = next(t for t in tasks if t.id == "TicTacToe")
    assert ticktacktoe.prompt.startswith("Design a tic-tac-toe game") and not ticktacktoe.inputs
    for task in tasks:  # no check's name or expected output reaches a prompt
        assert not any(check.name in task.prompt for check in CHECKS[task.id])


def test_a_program_that_does_what_the_requirement_says_passes_every_check():
    result = programdev.judged("TicTacToe", _app(TICTACTOE))
    assert result == {
        "executable": True,
        "solved": True,
        "reason": "",
        "checks": {
            "a win on a row is announced": True,
            "a move to an occupied cell is refused": True,
            "a full board without a line is a draw": True,
        },
    }


def test_each_check_fails_the_program_that_misses_what_it_checks():
    never_wins = TICTACTOE.replace('print(f"{player} wins!")', 'print("next game")')
    result = programdev.judged("TicTacToe", _app(never_wins))
    assert result["checks"]["a win on a row is announced"] is False and result["solved"] is False
    assert result["checks"]["a move to an occupied cell is refused"] is True
    # a notation it cannot read is refused at the first move already: that is no occupied cell refused
    overwrites = TICTACTOE.replace(' or board[row][col] != " "', "")
    assert programdev.judged("TicTacToe", _app(overwrites))["checks"] == {
        "a win on a row is announced": True,
        "a move to an occupied cell is refused": False,
        "a full board without a line is a draw": True,
    }


def test_a_program_that_crashes_is_not_executable_and_passes_nothing():
    crashes = TICTACTOE.replace('board, player = new_board(), "X"', 'board, player = None, "X"')
    result = programdev.judged("TicTacToe", _app(crashes))
    assert result["executable"] is False and "crashed: TypeError" in result["reason"]
    assert not any(result["checks"].values())
    assert programdev.judged("TicTacToe", CodeArtifact(files={}))["reason"] == "no entry point"


def test_a_check_tries_the_notations_a_user_might_type():
    from_zero = TICTACTOE.replace("int(word) - 1", "int(word)")  # row and column counted from 0
    assert programdev.judged("TicTacToe", _app(from_zero))["solved"] is True


def test_a_program_driven_by_its_arguments_and_a_file_is_judged_too():
    palindromes = (
        "import sys\n\n\ndef main():\n    words = open(sys.argv[1]).read().split()\n"
        "    print(' '.join(w for w in words if len(w) > 1 and w == w[::-1]))\n\n\n"
        "if __name__ == '__main__':\n    main()\n"
    )
    assert programdev.judged("DetectPalindromes", _app(palindromes))["solved"] is True


def test_the_oracle_judges_a_checkpoints_code_by_the_same_checks():
    judge = programdev.oracle("TicTacToe").judges["code"]
    assert judge({"code": _app(TICTACTOE).model_dump()}, None) == (
        True,
        "executable and every acceptance check passed",
    )
    never_wins = TICTACTOE.replace('print(f"{player} wins!")', 'print("next game")')
    assert judge({"code": _app(never_wins).model_dump()}, None) == (
        False,
        "acceptance failed: a win on a row is announced",
    )
