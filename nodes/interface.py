"""The command-line interface of an application, written from its plan (LOCAL_CODE), and its check.

The interface is glue: one command per planned feature, calling the feature's function with the items and
the command's arguments, printing what it returns and saving after a change. Asked to complete an outline
for it, the small local model keeps the loop and drops every branch (a ``main()`` that knows only
``quit``), so code writes it. It also owns the numbering: the user picks items by their number as listed
(1 for the first) and the feature receives a Python index (0 for the first), which is what the model
writes anyway (``if 0 <= index < len(items)``), so the AgentMesh case study's off-by-one cannot arise
between them.

The same command table gives the scripted sessions the integration run plays: every command once, with
arguments that are valid in that order, and, where the items are kept in a file, each command's effect on
the file as its verb implies it (an add grows the items, a remove shrinks them, a mark changes one).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from accord.nodes.merge import defined_names
from accord.nodes.signatures import PICKS, STORAGE_NAMES, parameters
from accord.runtime import harness, sandbox
from accord.state.artifacts import CaseResult, CodeArtifact, Plan

NUMBER = re.compile(r"(^|_)(id|index|idx|number|num|no|n|position|pos|count|amount|quantity)$")
"""Parameter names that take a whole number (the pickers, ``n``, ``count``): the command's word is int()ed."""
ADDS = frozenset({"add", "create", "new", "append", "insert"})
REMOVES = frozenset({"remove", "delete", "del", "drop", "pop"})
MARKS = frozenset({"mark", "toggle", "complete", "finish", "done", "check", "tick", "update", "set", "edit"})
"""First words whose effect on the stored items the session checks: one more item holding the text, one
item fewer, the same items with one changed."""
QUERIES = frozenset(
    {
        "list",
        "show",
        "view",
        "display",
        "print",
        "search",
        "find",
        "get",
        "count",
        "total",
        "filter",
        "sort",
        "stats",
        "summary",
    }
)
"""First words of features that only read the items: a list they return is shown, never kept as the items
(a search's matches must not replace the data)."""
SAMPLE_TEXT = "example item"
"""The text argument of the scripted session; after the first command it must be in the data file."""
OTHER_TEXT = "other item"
"""A second item the effects check adds, so that picking item 1 is told apart from picking the last."""
DATA_FILE = "items.json"
"""Where the interface keeps the items when the plan stores them (storage steps take it as a parameter)."""
ERROR = "error:"
"""How the interface reports a command that raised; in the scripted session any such line is a failure."""


@dataclass(frozen=True)
class Command:
    """One command of the interface: the word the user types and the feature function it calls."""

    word: str
    function: str
    takes_items: bool
    """Whether the function's first parameter is the items list."""
    arguments: tuple[str, ...]
    """The parameters filled from the command's words, in order."""

    @property
    def verb(self) -> str:
        """Return the first word of the command (``mark_done`` → ``mark``), which says what it does."""
        return self.word.split("_")[0]

    def sample(self) -> str:
        """Return a line that runs this command with valid arguments (numbers pick the first item)."""
        words = ["1" if NUMBER.search(a) else SAMPLE_TEXT for a in self.arguments]
        return " ".join((self.word, *words))


def _is_items(name: str) -> bool:
    """Return whether a first parameter names the collection (``items``, ``tasks``, ``todo_list``)."""
    return not NUMBER.search(name) and (name in {"items", "data", "lst"} or name.endswith(("s", "_list")))


def commands(plan: Plan) -> tuple[Command, ...]:
    """Return one command per feature of ``plan`` (its storage steps and ``main()`` aside).

    A command's word is the first word of its function's name (``mark_task_as_done`` → ``mark``); features
    whose first words collide keep their whole names.
    """
    found = []
    for subtask in plan.subtasks:
        name = subtask.function.split("(")[0].strip()
        if not name or name in STORAGE_NAMES:
            continue
        names = parameters(subtask.function)
        takes_items = bool(names) and _is_items(names[0])
        found.append((name, takes_items, tuple(names[1:] if takes_items else names)))
    firsts = [name.split("_")[0] for name, _, _ in found]
    return tuple(
        Command(
            word=first if firsts.count(first) == 1 else name,
            function=name,
            takes_items=takes_items,
            arguments=arguments,
        )
        for first, (name, takes_items, arguments) in zip(firsts, found, strict=True)
    )


def _call(command: Command) -> list[str]:
    """Return the lines of ``main()``'s branch for ``command`` (inside the loop's try)."""
    conversions = [
        f"int(words[{i}]) - 1"
        if PICKS.search(a)
        else f"int(words[{i}])"
        if NUMBER.search(a)
        else f"words[{i}]"
        for i, a in enumerate(command.arguments)
    ]
    arguments = ", ".join((*(["items"] if command.takes_items else []), *conversions))
    lines = [f"elif command == {command.word!r}:"]
    if command.arguments:
        usage = f"usage: {command.sample().replace(SAMPLE_TEXT, 'TEXT')}"
        lines += [
            f"    words = argument.split(maxsplit={len(command.arguments) - 1})",
            f"    if len(words) < {len(command.arguments)}:",
            f"        print({usage!r})",
            "        continue",
        ]
    lines.append(f"    result = {command.function}({arguments})")
    if command.takes_items and command.verb not in QUERIES:
        lines += ["    if isinstance(result, list):", "        items = result"]
    return lines


def interface(plan: Plan, data_file: str | None) -> str:
    """Return ``main()`` and the ``__main__`` block for ``plan``'s features.

    Args:
        plan: the plan whose features become commands.
        data_file: where the items are kept (loaded at start, saved after every command), or None.
    """
    table = commands(plan)
    known = tuple(c.word for c in table)
    branches = [line for c in table for line in _call(c)] or ["result = None"]
    branches[0] = branches[0].removeprefix("el")
    body = [
        f"items = load_items({data_file!r})" if data_file else "items = []",
        "while True:",
        "    try:",
        "        command, _, argument = input('> ').strip().partition(' ')",
        "    except EOFError:",
        "        return",
        "    if command == 'quit':",
        "        return",
        f"    if command not in {known!r}:",
        f"        print({'commands: ' + ', '.join((*known, 'quit'))!r})",
        "        continue",
        "    try:",
        *(f"        {line}" for line in branches),
        "    except (ValueError, TypeError, IndexError, KeyError, AttributeError) as exc:",
        f"        print({ERROR!r}, f'{{type(exc).__name__}}: {{exc}}')",
        "        continue",
        "    if isinstance(result, list):",
        "        for number, item in enumerate(result, 1):",
        # A stored item reads as text, its set flags after it ("buy milk [done]"), not a dict's repr.
        "            if isinstance(item, dict):",
        "                flags = [str(key).lower() for key, value in item.items() if value is True]",
        "                words = [str(value) for value in item.values() if not isinstance(value, bool)]",
        "                item = ' '.join(words) + (' [' + ', '.join(flags) + ']' if flags else '')",
        "            print(f'{number}. {item}')",
        "    elif result is not None:",
        "        print(result)",
        *([f"    save_items({data_file!r}, items)"] if data_file else []),
    ]
    return (
        "def main():\n"
        + "".join(f"    {line}\n" for line in body)
        + "\n\nif __name__ == '__main__':\n    main()\n"
    )


def data_file(plan: Plan) -> str | None:
    """Return the file the interface keeps the items in, or None when the plan stores nothing."""
    return DATA_FILE if any(s.function.startswith("load_items(") for s in plan.subtasks) else None


def session(plan: Plan) -> list[str]:
    """Return the scripted session's input: every command once, with valid arguments, then ``quit``."""
    return [*(c.sample() for c in commands(plan)), "quit"]


def play(code: CodeArtifact, entry_point: str, plan: Plan, limits: sandbox.Limits) -> list[CaseResult]:
    """Play the scripted sessions against ``entry_point`` in the sandbox; return one case per session.

    The whole session starts with no data, so its numbers pick items it has just added: an off-by-one
    numbering shows up. With a data file, a run adds an item and quits, the item must be in the file, and
    the next run must load it. A session fails on a crash, a hang or an ``error:`` line.
    """
    lines = session(plan)
    result = sandbox.run(sandbox.python(entry_point), code.files, limits, stdin="\n".join(lines) + "\n")
    cases = [_case(f"session: {', '.join(lines)}", lines, result, _problem(result))]
    table, stored = commands(plan), data_file(plan)
    if stored and table:
        cases.append(_kept_between_runs(code, entry_point, table[0].sample(), stored, limits))
        cases.append(_effects(code, entry_point, table, stored, limits)[0])
    return cases


def checkable(plan: Plan, function: str) -> bool:
    """Return whether a step's effect can be checked: the plan keeps a file, and the step is a storage step
    or a feature whose verb implies an effect."""
    return data_file(plan) is not None and (function in STORAGE_CHECKS or _has_effect(plan, function))


def _has_effect(plan: Plan, function: str) -> bool:
    verbs = [c.verb for c in commands(plan) if c.function == function]
    return bool(verbs) and verbs[0] in ADDS | REMOVES | MARKS


STORED = [{"text": SAMPLE_TEXT, "done": False}, {"text": OTHER_TEXT, "done": True}]
STORAGE_CHECKS = {
    "load_items": """got = load_items(DATA_FILE)
if not is_plain(got) or got != []:
    sys.exit('load_items on a missing file gave %r, not []' % (got,))
with open(DATA_FILE, 'w') as file:
    json.dump(STORED, file)
got = load_items(DATA_FILE)
if not is_plain(got) or got != STORED:
    sys.exit('load_items gave %r for a file holding %r' % (got, STORED))
""",
    "save_items": """save_items(DATA_FILE, STORED)
with open(DATA_FILE) as file:
    got = json.load(file)
if got != STORED:
    sys.exit('after save_items(%r, %r) the file holds %r' % (DATA_FILE, STORED, got))
""",
}
"""What each storage step must do with the data file, as scripts run in the sandbox against the app: a
``load_items`` that returns None for every file would otherwise get the features written after it blamed
for the error."""


def storage_effects(
    code: CodeArtifact, entry_point: str, function: str, limits: sandbox.Limits
) -> CaseResult:
    """Check a storage step just written: it must read or write ``DATA_FILE`` as ``STORAGE_CHECKS`` says."""
    module = entry_point.removesuffix(".py").replace("/", ".")
    script = (
        f"import json\nimport sys\n\nfrom {module} import {function}\n\n"
        f"DATA_FILE = {DATA_FILE!r}\nSTORED = {STORED!r}\n{STORAGE_CHECKS[function]}"
    )
    # A harness (runtime.harness): the check passes when it ran to its end, never by an exit status.
    checked = harness.run_script(script, code.files, limits)
    name = f"effects of {function} on {DATA_FILE}"
    if not harness.passed(checked):
        return CaseResult(name=name, passed=False, message=checked.error.removeprefix("SystemExit: "))
    return CaseResult(name=name, passed=True)


def feature_effects(
    code: CodeArtifact, entry_point: str, plan: Plan, function: str, limits: sandbox.Limits
) -> CaseResult | None:
    """Check the effect of one feature as soon as it is written: the adds written so far, then it.

    Returns None when there is nothing to check (no data file, or a verb without an effect) or when a step
    before the feature's own fails (an add written earlier): that is not this feature's to fix.
    """
    if data_file(plan) is None or not _has_effect(plan, function):
        return None
    table, stored = commands(plan), DATA_FILE
    current = next(c for c in table if c.function == function)
    written = defined_names(code.files.get(entry_point, ""))
    adds = [c for c in table if c.verb in ADDS and c.function in written and c is not current]
    case, failed = _effects(code, entry_point, (*adds, current), stored, limits)
    return None if failed is not None and failed is not current else case


def _effects(
    code: CodeArtifact, entry_point: str, table: tuple[Command, ...], stored: str, limits: sandbox.Limits
) -> tuple[CaseResult, Command | None]:
    """Run each command alone on the data file and check the effect its verb implies on the items; return
    the case and the command that failed (None when none did).

    The first add runs twice (``SAMPLE_TEXT``, then ``OTHER_TEXT``), so item 1 is told apart from the last:
    a mark must change item 1 alone and keep its text, a remove must take item 1 away.
    """
    steps: list[tuple[Command, str]] = []
    for command in table:
        line = command.sample()
        steps.append((command, line))
        if command.verb in ADDS and SAMPLE_TEXT in line and not any(OTHER_TEXT in s for _, s in steps):
            steps.append((command, line.replace(SAMPLE_TEXT, OTHER_TEXT)))
    name = f"effects on {stored}: " + ", ".join(line for _, line in steps)
    files, lines = dict(code.files), []
    before: list[object] = []
    for command, line in steps:
        lines.append(line)
        result = sandbox.run(sandbox.python(entry_point), files, limits, stdin=f"{line}\nquit\n")
        after = _stored_items(result.files.get(stored))
        problem = _problem(result) or _wrong_effect(command.verb, line, before, after, stored)
        if problem and command.verb not in ADDS:
            # Which items it met: `error: KeyError: 'id'` alone does not tell the model its items have no
            # id.
            problem = f"{line!r} on the items {before}: {problem}"
        if problem:
            return _case(name, lines, result, problem), command
        files[stored], before = result.files.get(stored, ""), after or []
    return CaseResult(name=name, passed=True), None


def _wrong_effect(verb: str, line: str, before: list[object], after: list[object] | None, stored: str) -> str:
    """Return how ``line`` changed the stored items other than its verb implies, or ''."""
    if after is None:
        return f"{stored} holds no JSON list after {line!r}"
    text = OTHER_TEXT if OTHER_TEXT in line else SAMPLE_TEXT
    if verb in ADDS and (len(after) != len(before) + 1 or text not in json.dumps(after[-1:] + after[:1])):
        return f"{line!r} should add one item holding {text!r}: {before} -> {after}"
    if verb in ADDS and not all(isinstance(item, dict) for item in after[-1:] + after[:1]):
        # The features written after it mark an item by a field: a plain string cannot be marked.
        return (
            f"{line!r} should add the item as a dict of its fields, e.g. {{'text': {text!r}}}: "
            f"{before} -> {after}"
        )
    if verb in REMOVES and before and after != before[1:]:
        return f"{line!r} should remove item 1 alone: {before} -> {after}"
    if (
        verb in MARKS
        and before
        and (
            len(after) != len(before)
            or after[0] == before[0]
            or after[1:] != before[1:]
            or SAMPLE_TEXT not in json.dumps(after[0])
        )
    ):
        return f"{line!r} should change item 1 alone and keep its text: {before} -> {after}"
    return ""


def _stored_items(content: str | None) -> list[object] | None:
    """Return the items a data file holds, or None when it holds no JSON list."""
    try:
        items = json.loads(content or "")
    except ValueError:
        return None
    return items if isinstance(items, list) else None


def _kept_between_runs(
    code: CodeArtifact, entry_point: str, first: str, stored: str, limits: sandbox.Limits
) -> CaseResult:
    """Run ``first`` then quit; the data file must hold what it added, and a new run must load it."""
    name = f"kept between runs: {first!r}, quit; then a new run"
    result = sandbox.run(sandbox.python(entry_point), code.files, limits, stdin=f"{first}\nquit\n")
    saved = result.files.get(stored)
    if problem := _problem(result):
        return _case(name, [first, "quit"], result, problem)
    if saved is None:
        return _case(name, [first, "quit"], result, f"{stored} was not written")
    if SAMPLE_TEXT in first and SAMPLE_TEXT not in saved:
        return _case(name, [first, "quit"], result, f"{stored} lacks {SAMPLE_TEXT!r}: {saved[:300]!r}")
    result = sandbox.run(sandbox.python(entry_point), {**code.files, stored: saved}, limits, stdin="quit\n")
    problem = _problem(result)
    return _case(name, ["quit"], result, problem and f"the next run could not load {stored}: {problem}")


def _problem(result: sandbox.SandboxResult) -> str:
    """Return what went wrong in a session run, or ''."""
    last = (result.stderr.strip().splitlines() or [""])[-1][:200]
    if result.ending != "exited" or result.exit_code != 0:
        return f"{result.ending}, exit {result.exit_code}" + (f": {last}" if last else "")
    if "Traceback" in result.stderr:
        return f"it crashed: {last}"
    if reported := next((line for line in result.stdout.splitlines() if ERROR in line), ""):
        return f"a command reported an error: {reported[reported.index(ERROR) :][:200]}"
    return ""


def _case(name: str, lines: list[str], result: sandbox.SandboxResult, problem: str) -> CaseResult:
    transcript = "input:\n" + "\n".join(lines) + f"\noutput:\n{result.stdout[-1200:]}{result.stderr[-1200:]}"
    return CaseResult(name=name, passed=not problem, message=f"{problem}\n{transcript}" if problem else "")
