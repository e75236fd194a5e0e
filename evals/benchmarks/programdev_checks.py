"""Acceptance checks for the 30 ProgramDev requirements: the hidden tests of ``evals.benchmarks.programdev``.

Written once, by hand, from each requirement's text alone (``data/programdev/programdev_dataset.json``),
before any program was generated and without looking at one; never shown to the agents. Each check states
one thing the requirement says a user sees, as inputs and a pattern the program's output must match.
Since a requirement does not fix how moves are typed, a check tries each common notation (``grid``) and
passes on the first that works. Patterns are case-insensitive and loose about wording ("wins", "won",
"winner"), strict about the fact (a win is announced, not merely a board drawn).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Literal

COLUMNS = "abcdefghijklmno"


@dataclass(frozen=True)
class Attempt:
    """One way to play a check: lines typed, command-line arguments, files beside the program."""

    lines: tuple[str, ...] = ()
    argv: tuple[str, ...] = ()
    files: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Check:
    """One acceptance check: the attempts to try and what the output must then show."""

    name: str
    attempts: tuple[Attempt, ...]
    shows: re.Pattern[str]
    caused: Literal["", "inputs", "last"] = ""
    """What must cause it: nothing ("", shown at all); the inputs (shown more often than the program shows
    it unprompted: a rule in its instructions is not a game over); the last input (the inputs before it
    do not add it: a notation refused at the first move is not an occupied cell refused)."""


def shows(pattern: str) -> re.Pattern[str]:
    """Return a pattern of what the output must show: any case, across lines."""
    return re.compile(pattern, re.I | re.S)


def board(cols: int, rows: int) -> re.Pattern[str]:
    """Return a pattern of a drawn board: ``rows`` lines of ``cols`` one-character cells apart by spaces or
    bars, each line maybe labelled by a number at either end."""
    line = (
        rf"^[ \t]*(?:\d{{1,2}}[ \t]*)?\|?[ \t]*(?:[^\s|][ \t|]+){{{cols - 1}}}[^\s|][ \t|]*"
        rf"(?:\d{{1,2}})?[ \t]*$"
    )
    return re.compile(rf"(?:{line}.*?){{{rows}}}", re.I | re.S | re.M)


Cell = tuple[int, int]
NOTATIONS: tuple[Callable[[int, int, int], str], ...] = (
    lambda r, c, n: f"{r + 1} {c + 1}",
    lambda r, c, n: f"{r + 1},{c + 1}",
    lambda r, c, n: f"{r} {c}",
    lambda r, c, n: f"{r * n + c + 1}",
    lambda r, c, n: f"{COLUMNS[c]}{r + 1}",
)
"""How a user may type a cell (row and column from 0): row col from 1, the same with a comma, from 0, the
cell's number from 1 (row by row), a letter for the column and a number for the row."""


def grid(moves: Sequence[Cell], size: int, before: Sequence[str] = ()) -> tuple[Attempt, ...]:
    """Return the moves as one attempt per notation, after the ``before`` lines (a level, names)."""
    return tuple(Attempt(lines=(*before, *(form(r, c, size) for r, c in moves))) for form in NOTATIONS)


def lines(*scripts: Sequence[str]) -> tuple[Attempt, ...]:
    """Return one attempt per script of typed lines."""
    return tuple(Attempt(lines=tuple(script)) for script in scripts)


def alternate(first: Sequence[Cell], second: Sequence[Cell]) -> list[Cell]:
    """Return two players' moves interleaved, the first player first."""
    moves: list[Cell] = []
    for i, cell in enumerate(first):
        moves.append(cell)
        if i < len(second):
            moves.append(second[i])
    return moves


WIN = shows(r"\bwins?\b|\bwon\b|winner|victory|congratulations")
REFUSED = shows(
    r"invalid|illegal|occupied|taken|already|not (a )?(valid|legal|allowed|empty|available)|"
    r"can(no|')t|try again|out of (range|bounds)|must be|between"
)
OVER = shows(r"game over|you (lose|lost|died)|\blost\b|\blose\b|game ended|the end")
SCORE = shows(r"score")
CLUES = shows(
    r"across\W*\n\s*\d+[.):]?\s+\w.*down\W*\n\s*\d+[.):]?\s+\w|"
    r"\b\d+\s*(across|a)\b[.:)]?\s+\w.*\b\d+\s*(down|d)\b[.:)]?\s+\w"
)
"""Clues numbered under an Across and a Down heading, or numbered with their direction (``1 across: ...``)."""
DRAW = shows(r"\bdraw\b|\btie\b|nobody|no one|no winner")
FIVE_LETTER_WORDS = ("crane", "slate", "pious", "dumpy", "wrist", "fjord")
ARROWS = (
    ("w", "a", "s", "d", "w", "a", "s", "d"),
    ("up", "left", "down", "right", "up", "left", "down"),
    ("u", "l", "d", "r", "u", "l", "d", "r"),
)
"""Moves of a board game played by direction: by WASD, by word, by initial."""

CHECKS: dict[str, tuple[Check, ...]] = {
    "Checkers": (
        Check(
            "an impossible move is refused",
            lines(["a1-a8"], ["a1 a8"], ["1,1-8,1"], ["0 0 7 0"]),
            REFUSED,
            caused="last",
        ),
        Check("the board is 8x8", lines(["quit"]), board(8, 8)),
    ),
    "Sudoku": (
        Check(
            "a value outside 1-9 is refused",
            lines(["1 1 10"], ["1,1,10"], ["0 0 10"], ["a1 10"], ["1", "1", "10"]),
            REFUSED,
            caused="last",
        ),
        Check("the grid is 9x9", lines(["quit"]), board(9, 9)),
    ),
    "TheCrossword": (
        Check("numbered clues are given across and down", lines(["quit"]), CLUES),
        Check(
            "a wrong word is not accepted",
            lines(
                ["1 across zzzzz"], ["1 a zzzzz"], ["1", "across", "zzzzz"], ["1a zzzzz"], ["1", "a", "zzzzz"]
            ),
            shows(r"incorrect|wrong|not (correct|match|fit)|invalid|doesn't|does not|try again"),
            caused="last",
        ),
    ),
    "DetectPalindromes": (
        Check(
            "the palindromes in a text file are found",
            (
                Attempt(
                    argv=("words.txt",), files={"words.txt": "the racecar and the kayak passed level roads\n"}
                ),
                Attempt(
                    lines=("words.txt",),
                    files={"words.txt": "the racecar and the kayak passed level roads\n"},
                ),
            ),
            shows(r"(?=.*racecar)(?=.*kayak)(?=.*level)"),
        ),
    ),
    "BudgetTracker": (
        Check(
            "expenses are subtracted from income",
            lines(
                ["income 1000", "expense 250", "balance"],
                ["add income 1000", "add expense 250", "balance"],
                ["1", "1000", "2", "250", "3"],
                ["1", "income", "1000", "1", "expense", "250", "3"],
                ["2", "1000", "1", "250", "3"],
            ),
            shows(r"\b750(\.0+)?\b"),
        ),
    ),
    "FibonacciNumbers": (
        Check(
            "the Fibonacci numbers up to 20, no more",
            (Attempt(lines=("20",)), Attempt(argv=("20",))),
            shows(r"\b1\D+1\D+2\D+3\D+5\D+8\D+13\b(?!\D+21)"),
        ),
    ),
    "TicTacToe": (
        Check(
            "a win on a row is announced",
            grid(alternate([(0, 0), (0, 1), (0, 2)], [(1, 0), (1, 1)]), 3),
            WIN,
            caused="last",
        ),
        Check("a move to an occupied cell is refused", grid([(1, 1), (1, 1)], 3), REFUSED, caused="last"),
        Check(
            "a full board without a line is a draw",
            grid(alternate([(0, 0), (0, 2), (1, 0), (1, 2), (2, 1)], [(0, 1), (1, 1), (2, 0), (2, 2)]), 3),
            DRAW,
            caused="last",
        ),
    ),
    "Gomoku": (
        Check(
            "five in a row wins",
            grid(alternate([(7, c) for c in range(3, 8)], [(8, c) for c in range(3, 7)]), 15),
            WIN,
            caused="last",
        ),
        Check("a stone on an occupied point is refused", grid([(7, 7), (7, 7)], 15), REFUSED, caused="last"),
    ),
    "Chess": (
        Check(
            "an illegal move is refused",
            lines(["Ke5"], ["e1e5"], ["e1 e5"], ["e1-e5"]),
            REFUSED,
            caused="last",
        ),
        Check(
            "fool's mate is checkmate",
            lines(
                ["f3", "e5", "g4", "Qh4"],
                ["f2f3", "e7e5", "g2g4", "d8h4"],
                ["f2 f3", "e7 e5", "g2 g4", "d8 h4"],
                ["f2-f3", "e7-e5", "g2-g4", "d8-h4"],
            ),
            shows(r"checkmate|black wins|\bmate\b"),
            caused="last",
        ),
    ),
    "2048": (
        Check(
            "a move shows the score and the highest tile",
            lines(*ARROWS),
            shows(r"(?=.*score)(?=.*(highest|max|best))"),
        ),
    ),
    "Tiny Rouge": (
        Check(
            "the map has walls and the player",
            lines(["d", "d", "s"], ["right", "right", "down"]),
            shows(r"(?m)^[^\n]*#[^\n]*@[^\n]*$|^[^\n]*@[^\n]*#[^\n]*$"),
        ),
        Check("the map is 80 wide", lines(["d"]), shows(r"(?m)(?:^[^\n]{80,82}$.*?){10}")),
    ),
    "Wordle": (
        Check(
            "a guess gets coloured feedback",
            lines(["crane"]),
            shows(r"\x1b\[\d*;?(3[0-9]|4[0-9])m|green|yellow|gr[ae]y|\U0001F7E9|\U0001F7E8|⬜|⬛"),
            caused="last",
        ),
        Check(
            "six wrong guesses lose and tell the word",
            lines(FIVE_LETTER_WORDS),
            shows(
                r"the word was|answer was|game over|you lose|you lost|out of (guesses|tries|turns)|"
                r"better luck|the word is"
            ),
            caused="last",
        ),
        Check(
            "a word that is not five letters is refused", lines(["cat"], ["toolong"]), REFUSED, caused="last"
        ),
    ),
    "Minesweeper": (
        Check(
            "three levels are offered",
            lines(["quit"]),
            shows(r"(?=.*beginner)(?=.*intermediate)(?=.*expert)"),
        ),
        Check(
            "cells can be flagged",
            lines(
                ["1", "f 1 1"],
                ["beginner", "f 1 1"],
                ["1", "flag 1 1"],
                ["beginner", "flag 1 1"],
                ["1", "f", "1", "1"],
                ["1", "1 1 f"],
            ),
            shows(r"\bF\b|⚑|🚩"),
            caused="last",
        ),
    ),
    "ConnectionsNYT": (
        Check(
            "sixteen words are shown in a 4x4 grid",
            lines(["quit"]),
            shows(r"(?m)(?:^[ \t|]*(?:[A-Za-z]+[ \t|,]+){3}[A-Za-z]+[ \t|]*$.*?){4}"),
        ),
        Check(
            "a wrong group counts a mistake",
            lines(["a b c d"], ["a, b, c, d"], ["1 2 3 4"], ["1,2,3,4"]),
            shows(r"mistake"),
            caused="last",
        ),
    ),
    "StrandsNYT": (
        Check(
            "the board is 6x8 letters",
            lines(["quit"]),
            re.compile(f"{board(6, 8).pattern}|{board(8, 6).pattern}", board(6, 8).flags),
        ),
        Check("the theme and the spangram are named", lines(["quit"]), shows(r"(?=.*theme)(?=.*spangram)")),
    ),
    "SnakeGame": (
        Check("the score is shown", lines(["d", "d"], ["right", "right"]), SCORE, caused="inputs"),
        Check(
            "running into the wall ends the game",
            lines(["w"] * 30, ["up"] * 30, ["1", *["w"] * 30], ["easy", *["w"] * 30]),
            OVER,
            caused="inputs",
        ),
    ),
    "ConnectFour": (
        Check(
            "four in a column wins",
            lines(["1", "2", "1", "2", "1", "2", "1"], ["0", "1", "0", "1", "0", "1", "0"]),
            WIN,
            caused="last",
        ),
        Check("a column outside the grid is refused", lines(["9"], ["0", "9"]), REFUSED, caused="last"),
    ),
    "TriviaQuiz": (
        Check(
            "the total correct is shown after the last question",
            lines(["a"] * 30, ["1"] * 30),
            shows(r"(you (got|scored|answered)|final score|total|correct answers)[^\n]{0,40}\d+"),
            caused="inputs",
        ),
    ),
    "DouDizhuPoker": (
        Check(
            "bidding decides the landlord",
            lines(["1", "pass", "pass"], ["bid", "pass", "pass"], ["y", "n", "n"]),
            shows(r"landlord"),
        ),
    ),
    "Tetris": (
        Check(
            "the score is shown", lines(["a", "d", "s"], ["left", "right", "down"]), SCORE, caused="inputs"
        ),
        Check(
            "the game ends when the pieces reach the top",
            lines(["s"] * 200, ["down"] * 200, ["drop"] * 200, [" "] * 200),
            OVER,
            caused="inputs",
        ),
    ),
    "ReversiOthello": (
        Check("a move that flips nothing is refused", grid([(0, 0)], 8), REFUSED, caused="last"),
        Check(
            "a legal opening move is taken",
            grid([(2, 3)], 8),
            shows(r"(white|o|player 2|second)('s)? (turn|move|to (move|play))"),
            caused="last",
        ),
    ),
    "StrandsGame": (
        Check(
            "a wrong merge gets feedback",
            lines(["zz qq"], ["1 2"], ["zzqq"]),
            shows(r"invalid|not (a )?(valid|word)|incorrect|wrong|try again"),
            caused="last",
        ),
    ),
    "MonopolyGo": (
        Check(
            "rolling the dice is shown",
            lines(["r", "y", "n"], ["roll", "y", "n"], ["", "y", "n"], ["1", "1", "2"]),
            shows(r"rolled|you roll|dice[^\n]*\d"),
            caused="inputs",
        ),
    ),
    "EpisodeChooseYourStory": (
        Check(
            "choices lead to an ending",
            lines(["1"] * 20, ["a"] * 20),
            shows(r"the end|ending|\bend\b"),
            caused="inputs",
        ),
    ),
    "CandyCrush": (Check("a swap is scored", grid([(0, 0), (0, 1)], 8), SCORE, caused="inputs"),),
    "FlappyBird": (
        Check("the score is shown", lines(["", " ", "f"], ["flap"]), SCORE, caused="inputs"),
        Check(
            "never flapping ends the game", lines([""] * 60, ["n"] * 60, ["wait"] * 60), OVER, caused="inputs"
        ),
    ),
    "TextBasedSpaceInvaders": (
        Check(
            "lives and score are shown",
            lines(["a", "d", "f"], ["left", "right", "fire"], ["a", "d", " "]),
            shows(r"(?=.*li(fe|ves))(?=.*score)"),
        ),
    ),
    "GoldMiner": (
        Check(
            "the claw and the gold are shown",
            lines(["g", ""], ["grab", ""], [" ", ""]),
            shows(r"(?=.*claw)(?=.*gold)"),
        ),
    ),
    "Pong": (
        Check("each player's score is shown", lines(["w", "s"], ["up", "down"]), SCORE, caused="inputs"),
    ),
    "Mastermind": (
        Check(
            "a guess gets exact and partial feedback",
            lines(["1234"], ["1 2 3 4"], ["RGBY"], ["R G B Y"]),
            shows(
                r"exact|correct position|right (place|position)|black|bulls?\b|partial|wrong position|"
                r"white|cows?\b"
            ),
            caused="last",
        ),
        Check(
            "running out of guesses loses and reveals the code",
            lines(["1234"] * 20, ["1 2 3 4"] * 20, ["RGBY"] * 20),
            shows(r"(the code was|the answer was|secret.*was|you lose|you lost|game over|out of)"),
            caused="inputs",
        ),
    ),
}
"""The acceptance checks by project name (every ProgramDev requirement has at least one)."""
