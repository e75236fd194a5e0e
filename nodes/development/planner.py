"""The Planner: decomposes the task into ordered subtasks with acceptance criteria (LLM), and decides from the
task's words what the calls cross-checked candidates answered differently must return (``adjudicate``)."""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable, Mapping
from typing import Any, Literal

from pydantic import BaseModel, Field

from accord.nodes import sessions
from accord.nodes.development.artifacts import Approval, Dispute, Selection
from accord.nodes.llm import retry_temperature, structured, text
from accord.nodes.signatures import FILE_PARAMETERS, PICKS, SIGNATURE, STORAGE_NAMES, bare, parameters
from accord.nodes.views import artifacts, code_block, plan_view, task_view, turn_view
from accord.runtime.executor import perform
from accord.state.artifacts import Design, Example, Plan, Subtask, TaskSpec, Turn
from accord.state.graph_state import dump, read
from accord.state.stage import OutputError, StageCall

SYSTEM = """Break the task into a short ordered list of subtasks that a Coder can implement one at a time.
Each subtask has a title, a one-sentence description and acceptance criteria: concrete, checkable
statements about inputs and expected results, including edge cases such as empty input.
For an application, keep logic apart from input and output: each feature is a function that takes
arguments and returns a result (no input() inside it), the data file's name is a constant, and the last
subtask is the command-line interface that calls those functions.
For a single function, use 1 to 3 subtasks. Never more than 8 subtasks.
Example subtask: title "Parse the input", description "Split the text into words.",
acceptance criteria ["split('a b') gives ['a', 'b']", "an empty string gives []"]."""
"""For a function stub: the prompt the HumanEval results are measured with (a small model's greedy output
shifts with any change of wording)."""

FEATURES_SYSTEM = """List the features the task asks for, one per command the user can run, in the order the
task names them. Each feature is one Python function that takes the items (a list) and the command's
arguments and returns the new items or a result: no input(), print() or file access inside it (the data
file is already handled by load_items(path) and save_items(path, items), and the command-line interface
comes later). Give its title, the function (name and parameters) and acceptance criteria: concrete,
checkable statements about inputs and expected results, including edge cases such as an empty list.
Example feature: title "Count words", function "count_words(items, word)", acceptance criteria
["count_words(['a', 'b', 'a'], 'a') returns 2", "an empty list gives 0"]."""
"""For an application the model lists only the features: asked for a whole plan (storage, features,
interface), the small local model often returned the storage steps alone and no feature."""

DESIGN_SYSTEM = """Design the program as a few Python functions and a main() entry point.
Keep logic apart from input and output: each function takes arguments and returns a result (no input()
or print() inside it); main() reads what the user types, calls the functions and prints what they return.
What lasts from one input to the next is made by a function that main() calls once at the start, and is
passed as an argument to the functions that read or change it.
For each function give a title, its signature, and up to three examples that check it: a call with
concrete arguments and the value it must then return, e.g. "count_vowels('banana') == 3".
Say how main() is used: "interactive" (it reads lines with input() until the program is over or the
input ends) or "arguments" (each run takes its input from the command-line arguments).
Then write a short session: what the user types, in order (a move, a command, a number: never the
program's own question), each with a short text the program must print after it (a word such as "wins"
or "invalid", or "" when anything goes). If the program reads a file, the session names one, and under
files you give that file's name and a few lines of its text. Never more than 6 functions; main() is not
one of them."""
"""A program's design: its units are checked by their examples as they are written, its ``main()`` by the
session (``nodes.sessions``). Its example is not a board game's: the local model copied the first
wording's ``is_full([['X', 'O']]) == True`` into a tic-tac-toe design, and wrote the program's own questions
as the user's inputs."""

FUNCTION_PLAN_TOKENS = 512
"""A function's plan (at most 3 subtasks) takes about 250 tokens; once the local model rambled in prose
instead of calling the tool and spent 1024 tokens and minutes before the retry."""
CLASS_PLAN_TOKENS = 1024
"""A class's plan, one subtask per method (at most 8), takes up to about 700 tokens."""

INPUT_FILE_SYSTEM = "You write the data files that a program reads. A data file holds data, never code."
INPUT_FILE_PROMPT = """The program: {request}

A session with the program reads the data file `{name}`:
{runs}

Write the contents of `{name}` (data, not code) so that the session prints what it shows: a few short
lines, in one ``` block."""
"""Asks for one data file a program's session names (``input_file``). It shows the request, not the task
as the roles see it: told to build the application, the local model wrote the program as the file."""
INPUT_FILE_TRIES = 3
"""Replies asked for one data file before the planning stage fails on it (the second and third sampled)."""

DESIGN_TOKENS = 1024
"""A design of up to 6 units with 3 examples each and a session."""

STORAGE = (
    Subtask(
        title="Load the items",
        function="load_items(path)",
        description="Read the items from the data file (JSON); a missing file means no items yet.",
        acceptance_criteria=(
            "a missing file gives []",
            "items written by save_items(path, items) load back equal",
        ),
    ),
    Subtask(
        title="Save the items",
        function="save_items(path, items)",
        description="Write the items to the data file as JSON.",
        acceptance_criteria=("save_items(path, items) then load_items(path) gives items",),
    ),
)
INTERFACE = Subtask(
    title="Command-line interface",
    function="main()",
    description="Read commands with input('> ') in a loop and call the feature functions.",
    acceptance_criteria=(
        "every feature has a command",
        "items are loaded at start and saved after a change",
        "'quit' or the end of input (EOFError) ends the program",
    ),
)
"""Every application plan has these steps; the Planner's model supplies the features between them."""
ADDS = re.compile(r"\b(add|adds|adding|create|insert|append|record|log)\b", re.I)
MANAGES = re.compile(r"\b(remov|delet|mark|edit|updat|list|show|view|search|display)\w*", re.I)
"""Verbs of a request for records: it adds items and removes, marks, edits or lists them."""
PERSISTENCE = re.compile(r"\b(files?|sav(e|es|ed|ing)|persist\w*|surviv\w*|stor(e|es|ed|age)|disk)\b", re.I)
"""Words of a request that asks for data kept between runs."""
ARGUMENTS = re.compile(
    r"\b(command[- ]line arguments?|(on|from|in) (its|the) command[- ]line|(sys\.)?argv)\b", re.I
)
"""Words of a request for a program that takes its input from the command line: asked to choose, the
local model designs such a program as interactive and writes its ``main()`` with ``input()``."""
INPUT_FILE = re.compile(r"^\w[\w.-]*$")
"""An input file's name: one plain name in the program's folder."""
CODE_LINE = re.compile(r"^\s*(def |class |import |from \w+ import |if __name__)", re.M)
"""A line of a data file that is Python code: the model wrote the program instead."""
DATA_FILE = re.compile(r"^[\w.-]+\.(txt|csv|tsv|json|log|md|dat|ini|xml|ya?ml)$", re.I)
"""A word of a session's input that names a data file the program reads: the design must supply it (the
local model's sessions name ``example.txt`` and expect its most frequent word, with no such file; the
Planner is asked for each one, ``input_file``)."""
ECHO_RUN = 6
"""Words in a row shared with the instructions that make a criterion a copy of them."""
COMMAND = re.compile(r"^(\$\s*)?python3?\s+([\w.-]+/)*[\w.-]+\.py\b\s*")
"""The command a session's turn starts with (``python count_lines.py notes.txt``): the 1.5B model, planning,
writes the whole command line a user types where the program's arguments go."""
QUESTION = re.compile(r"^\s*(enter|please|press|type|input|choose|select)\b|[?:]\s*$", re.I)
"""A session input that reads like the program's question or instruction ("Enter your move", "Press arrow
keys to slide tiles"): the local model writes the program's prompts as what the user types, and a program
played that way fails on them every round."""


class SubtaskDraft(BaseModel):
    """One subtask of the plan."""

    title: str
    description: str
    acceptance_criteria: list[str] = Field(max_length=4)


class FeatureDraft(BaseModel):
    """One feature of the application: the function the user's command calls."""

    title: str
    function: str = Field(
        pattern=SIGNATURE, description="the function it writes, with parameters, e.g. add_item(items, text)"
    )
    acceptance_criteria: list[str] = Field(max_length=3)


class UnitDraft(BaseModel):
    """One unit of a program's design: a function and the examples it must satisfy."""

    title: str
    function: str = Field(
        pattern=SIGNATURE, description="the function with its parameters, e.g. count_vowels(text)"
    )
    examples: list[str] = Field(
        max_length=3, description="a call and the value it must return, e.g. count_vowels('banana') == 3"
    )


class TurnDraft(BaseModel):
    """One step of the session: what the user types, what the program prints after it."""

    input: str
    expect: str


class FileDraft(BaseModel):
    """An input file the session reads: its name and its text."""

    name: str = Field(description="a file name, e.g. notes.txt")
    text: str


class DesignDraft(BaseModel):
    """A program's design: its units, how main() is used, a session with it and the files it reads."""

    units: list[UnitDraft] = Field(min_length=1, max_length=6)
    interface: Literal["interactive", "arguments"]
    session: list[TurnDraft] = Field(max_length=8)
    files: list[FileDraft] = Field(default_factory=list, max_length=3)


class PlanDraft(BaseModel):
    """The plan: ordered subtasks."""

    # Bounded lists: the server's grammar enforces maxItems, so a small model cannot ramble on.
    subtasks: list[SubtaskDraft] = Field(max_length=8)


class FeaturesDraft(BaseModel):
    """The features the task asks for, in order."""

    features: list[FeatureDraft] = Field(min_length=1, max_length=6)


def _words(text: str) -> list[str]:
    return re.findall(r"\w+|[^\w\s\"']", text.lower())


def echoes(criterion: str, instructions: str) -> bool:
    """Return whether ``criterion`` copies ``instructions`` rather than saying something of its own: it is
    a run of their words, or shares ``ECHO_RUN`` words in a row with them.

    The local model fills a feature's criteria with pieces of its prompt: its example's "an empty list
    gives 0", or "no input(), print() or file access inside it" split at the comma into "no input()" and
    "print() or file access inside it", which then tells the Coder the opposite.
    """
    said, source = _words(criterion), f" {' '.join(_words(instructions))} "
    runs = [said] + [said[i : i + ECHO_RUN] for i in range(len(said) - ECHO_RUN + 1)]
    return not said or any(f" {' '.join(run)} " in source for run in runs)


def _index_named(signature: str) -> str:
    """Return ``signature`` with its one item-picking parameter called ``index``, which it receives.

    Given ``mark_task_as_done(items, task_id)``, the local model looks items up by an ``'id'`` field no
    add has given them, in every sample.
    """
    names = parameters(signature)
    pickers = [p for p in names if PICKS.search(p)]
    if len(pickers) != 1 or "index" in names:
        return signature
    head, _, rest = signature.partition("(")
    return f"{head}(" + re.sub(rf"(?<![\w.]){re.escape(pickers[0])}\b", "index", rest, count=1)


def feature_subtasks(draft: FeaturesDraft) -> tuple[Subtask, ...]:
    """Return the features as subtasks, without the ones the storage and interface steps already cover.

    Raises:
        OutputError: no feature is left.
    """
    kept, names = [], []
    for feature in draft.features:
        signature = bare(feature.function)
        name = signature.split("(")[0]
        # A repeat adds nothing to write: the local model lists one function several times.
        if name in STORAGE_NAMES or name in names or FILE_PARAMETERS & set(parameters(signature)):
            continue
        criteria = tuple(c.strip() for c in feature.acceptance_criteria if not echoes(c, FEATURES_SYSTEM))
        kept.append(
            Subtask(
                title=feature.title.strip() or name,
                description=feature.title.strip(),
                function=_index_named(signature),
                acceptance_criteria=criteria or (feature.title.strip() or name,),
            )
        )
        names.append(name)
    if not kept:
        raise OutputError(
            "no feature left: list what the user can do, each as a function of the items "
            "(storage and the command-line interface are separate steps)"
        )
    return tuple(kept)


def example(statement: str) -> Example | None:
    """Return the example a statement like ``f(1) == 2`` states, or None when it is not one comparison."""
    try:
        tree = ast.parse(statement.strip().removeprefix("assert "), mode="eval").body
    except SyntaxError:
        return None
    if not (isinstance(tree, ast.Compare) and len(tree.ops) == 1 and isinstance(tree.ops[0], ast.Eq)):
        return None
    return Example(call=ast.unparse(tree.left), expected=ast.unparse(tree.comparators[0]))


DESIGN_CALLS = frozenset(re.findall(r"(\w+)\(", DESIGN_SYSTEM))
"""The functions the design's instructions call in their example and rules (``count_vowels``)."""


def _copied(statement: str) -> bool:
    """Return whether a unit's example is the design instructions' own: a run of their words, or a call of
    a function they name with other arguments (``count_vowels('apple') == 2``)."""
    stated = example(statement)
    return echoes(statement, DESIGN_SYSTEM) or (stated is not None and _called(stated) in DESIGN_CALLS)


def _called(each: Example) -> str | None:
    """Return the name of the function an example calls (``f`` of ``f(1)``), or None for another call."""
    call = ast.parse(each.call, mode="eval").body
    return call.func.id if isinstance(call, ast.Call) and isinstance(call.func, ast.Name) else None


def consistent(examples: Iterable[Example]) -> tuple[Example, ...]:
    """Return the examples less those that give a call already stated another result: a unit takes
    arguments and returns a result, so the same call cannot return two (the local model states
    ``create_board()`` both empty and with two moves on it; no code satisfies both)."""
    results: dict[str, Example] = {}
    for each in examples:
        results.setdefault(each.call.replace(" ", ""), each)
    return tuple(results.values())


ENTRY = {
    "interactive": "Read what the user types with input() in a loop, call the functions above and print "
    "what they return; stop when the program is over, or at the end of the input (EOFError).",
    "arguments": "Read the input from the command-line arguments (sys.argv[1:], never input()), call the "
    "functions above and print the result.",
}
"""What ``main()`` does, by how a program is used."""


def design_plan(draft: DesignDraft, request: str = "") -> tuple[tuple[Subtask, ...], Design]:
    """Return a program's subtasks (its units, then ``main()``) and its design. A request that says the
    program takes its input on the command line (``ARGUMENTS``) makes it an ``arguments`` program whatever
    the draft says; input files keep plain names that are not Python files (code comes from the Coder).

    Raises:
        OutputError: no unit is left besides main().
    """
    units, names = [], []
    for unit in draft.units:
        # An example copied from the instructions says nothing about this program, and a unit whose every
        # example is one is the instructions' own (count_vowels in a program that counts words).
        said = tuple(e.strip() for e in unit.examples if e.strip() and not _copied(e))
        if unit.examples and not said:
            continue
        found = consistent(e for e in map(example, said) if e is not None)
        signature = bare(unit.function)
        if len(called := {_called(e) for e in found} - {None}) == 1:
            # The examples run, so their name is the function's: the local model names it in its examples
            # and describes it in the signature (read_file('notes.txt') beside Readstextfile(filename)).
            signature = f"{called.pop()}{signature[signature.index('(') :]}"
        name = signature.split("(")[0]
        # main() is the entry point, written from the design's interface and session; a repeat adds
        # nothing to write (the local model lists one function six times).
        if name == "main" or name in names:
            continue
        units.append(
            Subtask(
                title=unit.title.strip() or name,
                description=unit.title.strip(),
                function=signature,
                acceptance_criteria=said or (unit.title.strip() or name,),
                examples=found,
            )
        )
        names.append(name)
    if not units:
        raise OutputError("no unit left: list the functions the program needs besides main()")
    used = "arguments" if ARGUMENTS.search(request) else draft.interface
    # An input that is the program's question, or its own answer echoed, is not what a user types; the
    # command that starts the program is not one of its arguments.
    session = tuple(
        Turn(
            input=COMMAND.sub("", t.input.strip()) if used == "arguments" else t.input.strip(),
            expect=t.expect.strip(),
        )
        for t in draft.session
        if not QUESTION.search(t.input) and sessions.plain(t.input) != sessions.plain(t.expect)
    )
    shown = [f"after {t.input!r} it prints {t.expect!r}" for t in session if t.expect] or [
        "a session with it runs to its end without a crash"
    ]
    files = {
        f.name.strip(): f.text
        for f in draft.files
        if INPUT_FILE.match(f.name.strip()) and not f.name.strip().endswith(".py")
    }
    entry = Subtask(
        title="Entry point", function="main()", description=ENTRY[used], acceptance_criteria=tuple(shown[:4])
    )
    return (*units, entry), Design(shape="program", interface=used, session=session, files=files)


def session_files(design: Design) -> list[str]:
    """Return the data files the session names (``DATA_FILE``)."""
    named = {w.strip("'\"") for t in design.session for w in t.input.split()}
    return sorted(n for n in named if DATA_FILE.match(n))


def input_file(call: StageCall, task: TaskSpec, design: Design, name: str) -> str:
    """Ask for the text of a data file the session names, shown the runs that read it and what they must
    print. The design's own text is not kept: the local model leaves a design's files out even when told
    to give them, and writes those it gives apart from what the session expects of them (``notes.txt``
    "This is a sample text file with some words." for a run that must print ``banana``), a session no
    code can pass. A reply with no text, or one that is code, is asked for again, sampled.

    Raises:
        OutputError: none of ``INPUT_FILE_TRIES`` replies is data; the run fails in planning with the
            reason, where a session that reads a missing file would fail every round.
    """
    runs = "\n".join(turn_view(design, t) for t in design.session if name in t.input)
    prompt = INPUT_FILE_PROMPT.format(request=task.request.strip(), name=name, runs=runs)

    def write(prompt: str) -> str:
        problem = ""
        for attempt in range(INPUT_FILE_TRIES):
            temperature = retry_temperature(call) if attempt else None
            reply = text(
                call, INPUT_FILE_SYSTEM, prompt + problem, temperature=temperature, what=f"input file {name}"
            )
            written = code_block(reply).strip("\n")
            if not written.strip():
                problem = f"\n\nThat reply held no text for {name}: write its lines in one ``` block."
            elif CODE_LINE.search(written):
                problem = f"\n\nThat was a program. Write what {name} holds: data only, no code."
            else:
                return written + "\n"
        raise OutputError(f"no data for {name}: {problem.strip()}")

    return str(perform(call, "input_file", write, prompt=prompt))


def shape(request: str) -> Literal["records", "program"]:
    """Return the shape an application request asks for: ``records`` when it adds items and manages them
    (a to-do list, contacts, expenses kept and listed), else ``program``.

    Code reads the request: asked to choose, the local model answered ``program`` for the to-do list (and
    for every ProgramDev requirement), and ``True`` or the first option for all of them in other wordings.
    """
    return "records" if ADDS.search(request) and MANAGES.search(request) else "program"


def rejected(state: Mapping[str, Any]) -> str:
    """Return what the Planner reads after a person rejected its plan: that plan and the reason ("" when
    no plan was rejected)."""
    approval, previous = read(state, "approval", Approval), read(state, "plan", Plan)
    if approval is None or approval.decision != "rejected" or previous is None:
        return ""
    return (
        f"\n\nA person rejected this plan:\n{plan_view(previous)}\nTheir reason: {approval.reason}\n"
        "Write a plan that answers it."
    )


DECIDE_SYSTEM = """Independent implementations of a task returned different values for the same calls. You
decide, from the task's words alone, which value each call must return. Quote the words that decide it;
when the words decide none of the values, answer none."""

DECIDE_PROMPT = """{task}

The implementations disagree on these calls:
{disputes}

For each call write one line: its number, the letter of the value the task's words require (or none), and
those words in quotes, e.g.
1: B "returns the largest element"

Answer with one line per call and nothing else."""

DECISION = re.compile(r"^\W*(\d+)\W+(none|[A-Za-z])\b[\s.:,;)-]*(.*)$", re.IGNORECASE)
"""One decision line: the call's number, its letter (or none), and the quoted words."""


def adjudicate(state: Mapping[str, Any], call: StageCall) -> dict[str, Any]:
    """State the intended behaviour on the inputs the candidates disputed, as the plan's examples: for
    each, the value the task's words require of those the candidates returned, or none.

    Raises:
        OutputError: no line of the answer decides a disputed call (the contract wrapper asks again).
    """
    task = read(state, "task", TaskSpec)
    selection = read(state, "selection", Selection)
    assert task is not None and selection is not None and selection.disputes

    def decide(task: TaskSpec) -> Plan:
        reply = text(
            call,
            DECIDE_SYSTEM,
            DECIDE_PROMPT.format(task=task_view(task), disputes=disputes_view(selection.disputes)),
            what="decisions",
        )
        decided = decisions(reply, selection.disputes)
        said = tuple(f"{e.call} == {e.expected}" + (f": {words}" if words else "") for e, words in decided)
        behaviour = Subtask(
            title="Behave as the task's words require on the disputed calls",
            description="The calls the candidates answered differently, decided from the task's text.",
            acceptance_criteria=said or ("the task's words decide none of the disputed calls",),
        )
        return Plan(subtasks=(behaviour,), examples=tuple(e for e, _ in decided))

    return {"plan": dump(perform(call, "decisions", decide, task=task))}


def disputes_view(disputes: Iterable[Dispute]) -> str:
    """Return the disputed calls, numbered, each with its values lettered A, B, ..."""
    lines = []
    for n, dispute in enumerate(disputes, 1):
        lines.append(f"{n}. {'; '.join((*dispute.case.setup, dispute.case.call))}")
        lines += [f"   {chr(ord('A') + i)}. {answer}" for i, answer in enumerate(dispute.answers)]
    return "\n".join(lines)


def decisions(reply: str, disputes: tuple[Dispute, ...]) -> tuple[tuple[Example, str], ...]:
    """Return each disputed case the reply decides, with the chosen value as its expected one and the
    words quoted for it; a call decided twice keeps its first line.

    Raises:
        OutputError: no line of the reply reads as a decision.
    """
    decided: dict[int, tuple[Example, str] | None] = {}
    for line in reply.splitlines():
        if not (match := DECISION.match(line)):
            continue
        number, letter, words = int(match[1]), match[2].upper(), match[3].strip()
        if not 1 <= number <= len(disputes) or number in decided:
            continue
        answers = disputes[number - 1].answers
        index = ord(letter) - ord("A") if letter != "NONE" else -1
        case = disputes[number - 1].case
        decided[number] = (
            (case.model_copy(update={"expected": answers[index]}), words[:200])
            if 0 <= index < len(answers)
            else None
        )
    if not decided:
        raise OutputError('no line reads `N: LETTER "the task\'s words"` for a disputed call')
    return tuple(d for d in decided.values() if d is not None)


def plan(state: Mapping[str, Any], call: StageCall) -> dict[str, Any]:
    """Write the plan; the task's own examples are carried over by code, not retyped by the model.

    An application's shape comes from its request (``shape``). A records application's plan is its
    storage steps (when the request asks to keep data), the features the model lists, then the
    command-line interface; any other program's is the units the model designs, then ``main()``.

    Raises:
        OutputError: an application's model answer has no usable feature (the contract wrapper retries
            with the reason as feedback).
    """
    task, _, _ = artifacts(state)
    asked = task_view(task) + rejected(state)
    design: Design | None = None
    if task.level == "application":
        # A refused answer is asked for again by sampling, not greedily.
        temperature = retry_temperature(call) if call.feedback else None

        def list_features(task: TaskSpec) -> FeaturesDraft:
            return structured(call, FeaturesDraft, FEATURES_SYSTEM, asked, temperature=temperature)

        def draft_design(task: TaskSpec) -> DesignDraft:
            return structured(
                call, DesignDraft, DESIGN_SYSTEM, asked, temperature=temperature, max_tokens=DESIGN_TOKENS
            )

        if shape(task.request) == "records":
            features = perform(call, "FeaturesDraft", list_features, task=task)
            storage = STORAGE if PERSISTENCE.search(task.request) else ()
            subtasks = (*storage, *feature_subtasks(features), INTERFACE)
            design = Design(shape="records")
        else:
            drafted = perform(call, "DesignDraft", draft_design, task=task)
            subtasks, design = design_plan(drafted, task.request)
            written = {name: input_file(call, task, design, name) for name in session_files(design)}
            design = design.model_copy(update={"files": {**design.files, **written}})
    else:

        def draft_plan(task: TaskSpec) -> PlanDraft:
            limit = CLASS_PLAN_TOKENS if task.level == "class" else FUNCTION_PLAN_TOKENS
            return structured(call, PlanDraft, SYSTEM, asked, max_tokens=limit)

        draft = perform(call, "PlanDraft", draft_plan, task=task)
        subtasks = tuple(
            Subtask(
                title=s.title.strip() or f"step {i}",
                description=s.description.strip(),
                acceptance_criteria=tuple(c for c in s.acceptance_criteria if c.strip())
                or (s.description.strip() or s.title,),
            )
            for i, s in enumerate(draft.subtasks, 1)
        )
    # Small models repeat themselves; a subtask said twice is still one subtask.
    firsts = {s.title.lower(): s for s in reversed(subtasks)}
    unique = tuple(s for s in subtasks if firsts[s.title.lower()] is s)
    return {"plan": dump(Plan(subtasks=unique, examples=task.examples, design=design))}
