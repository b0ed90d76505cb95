"""A file deleted on a page's terminal (``agent.terminal``), on pages written for these tests: the directory is
listed with ``ls``, the listed file the task describes removed with ``rm``, each command typed key by key and
run with Enter (a newline where the protocol has no key tool, one key a step where it has one); nothing is
sent when nothing listed fits."""

from __future__ import annotations

from agenthost.agent import Action
from agenthost.agent.actions import PROXY_TOOLS
from tests.support.policy import decide, snapshot_of, wire


def _console(lines: str) -> str:
    return (f'- heading "Build box"\n- text: "{lines}"\n- textbox\n'
            '- text: "Session time: 00:41"')


TASK = "Using the console below, remove the file whose extension is .log."


def test_the_directory_is_listed_then_the_file_with_the_extension_removed():
    fresh = _console("Shell ready. guest@lab:~$ █")
    d = decide(TASK, fresh)
    assert wire(d) == [("type", "", "ls\n")]
    assert d.olympics()["actions"][0]["args"]["clear"] is False  # typed key by key: a terminal reads keys
    listed = _console("Shell ready. guest@lab:~$ ls notes.txt server.log todo guest@lab:~$ █")
    assert wire(decide(TASK, listed, history=d.actions)) == [("type", "", "rm server.log\n")]


def test_a_file_with_no_extension_and_a_half_typed_command():
    task = "Delete the file without an extension in the terminal."
    listed = "root# ls backup.tar.gz readme.md scratch root# rm scr"
    assert wire(decide(task, _console(listed))) == [("type", "", "atch\n")]  # the rest of the command


def test_nothing_is_typed_when_no_listed_file_fits_or_the_file_is_removed():
    none = _console("guest@lab:~$ ls notes.txt todo guest@lab:~$ █")
    d = decide(TASK, none, history=[Action("type", {"element": "", "text": "ls\n", "clear": False})])
    assert not [a for a in wire(d) if a[0] == "type"]
    assert d.done and d.success is False
    removed = _console("guest@lab:~$ ls a.log guest@lab:~$ rm a.log guest@lab:~$ █")
    assert not [a for a in wire(decide(TASK, removed)) if a[0] == "type"]
    # a form that only mentions files is no terminal: the usual rules act
    form = '- text: Remove the file named draft.doc from the list\n- button "Remove draft.doc"'
    assert wire(decide("Remove the file named draft.doc.", form)) == [("click", "Remove draft.doc", None)]


def test_with_a_key_tool_the_command_goes_one_key_a_step():
    page = snapshot_of(["Deploy shell", "ops$ ls app.log cache ops$ rm app", {"id": "k1", "tag": "input",
                                                                                "type": "text"}])
    d = decide(TASK, page, tools=PROXY_TOOLS)
    assert [(a.tool, a.args.get("key"), a.resolved.ref) for a in d.actions] == [("press", "Period", "k1")]


def test_a_space_just_pressed_counts_though_the_prompt_line_does_not_show_it():
    """The page's text collapses the space at the end of the prompt line ("ops$ rm " reads "ops$ rm"): the
    space the agent pressed last is counted, so the file name comes next, not a second space."""
    task = "In the shell below, erase the file that has no extension."
    page = snapshot_of(["Deploy shell", "ops$ ls build.sh notes ops$ rm", {"id": "k1", "tag": "input",
                                                                           "type": "text"}])
    fresh = decide(task, page, tools=PROXY_TOOLS)
    assert [(a.tool, a.args.get("key")) for a in fresh.actions] == [("press", "Space")]
    pressed = [Action("press", {"key": "Space", "element": ""}), Action("observe", {})]
    d = decide(task, page, tools=PROXY_TOOLS, history=pressed)
    assert [(a.tool, a.args.get("key")) for a in d.actions] == [("press", "n")]


def test_a_whole_command_goes_through_key_by_key_without_the_loop_guards_stopping_it():
    """Played as the Proxy API plays it: each step's page shows what the keys typed so far (a space at the end
    of the line collapsed), the decision's memory goes on to the next step; every key of ``ls`` and of the
    ``rm`` command is pressed in order and the run never stops as a loop."""
    task = "Remove the file with the extension .csv using the terminal on this page."
    box = {"id": "t9", "tag": "input", "type": "text"}
    prompt, listing = "dev@ci:/srv$", ""
    typed, pressed, memory, history = "", [], {}, []
    for _ in range(40):
        line = f"{prompt} {listing}{prompt} {typed}".rstrip()
        d = decide(task, snapshot_of(["Runner console", line, box]), tools=PROXY_TOOLS, history=history,
                   memory=memory)
        if not d.actions or d.actions[0].tool != "press":
            break
        key = d.actions[0].args["key"]
        pressed.append(key)
        memory, history = d.memory, [*history, *d.actions]
        if key == "Enter":
            if typed == "ls":
                listing = "ls report.csv setup.py "
            else:
                listing += f"{prompt} {typed} "
            typed = ""
        else:
            typed += {"Space": " ", "Period": "."}.get(key, key)
    assert "".join({"Space": " ", "Period": ".", "Enter": "\n"}.get(k, k) for k in pressed) == \
        "ls\nrm report.csv\n"


def test_a_terminal_that_ignores_the_keys_pressed_is_a_loop_the_agent_ends():
    """The prompt line never shows what the keys type (the console is frozen): the same key on the same page is
    withheld, then the run ends honestly; it is never pressed on and on."""
    task = "Remove the file with the extension .csv using the terminal on this page."
    page = snapshot_of(["Runner console", "dev@ci:/srv$", {"id": "t9", "tag": "input", "type": "text"}])
    memory, history, keys = {}, [], []
    d = None
    for _ in range(12):
        d = decide(task, page, tools=PROXY_TOOLS, history=history, memory=memory)
        if d.done:
            break
        keys += [a.args.get("key") for a in d.actions if a.tool == "press"]
        memory, history = d.memory, [*history, *d.actions]
    assert d is not None and d.done and d.success is False
    assert keys.count("l") <= 2
