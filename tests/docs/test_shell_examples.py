"""Every shell example in README.md and docs/ runs, and prints what the page shows (issue 31).

The format (a ```console block):

* a line starting with ``$ `` is a command; the lines after it, up to the next command or the end
  of the block, are its expected stdout (trailing spaces and trailing blank lines ignored);
* ``$ CMD 2>&1`` compares stderr too, written into the same stream in the order printed;
* a last output line ``[exit N]`` is the exit code; without it the command must exit 0;
* ``...`` inside a line matches any text in that line; a line that is exactly ``...`` matches
  zero or more lines (for timings and paths only);
* the commands are ``gdpproof ARGS`` (or ``python -m gdpproof.cli ARGS``), run in-process through
  ``gdpproof.cli.main`` (a process each would pay the imports again), and ``cat FILE``;
* each block runs in a fresh directory holding links to the clone's ``examples/`` and ``gdpproof/``.

Commands that cannot run here (installing, ``make test`` itself) are in ```bash blocks, and only
the lines listed in ``NOT_RUN`` may appear there; no other fence may hold a ``$ `` line.
"""

from __future__ import annotations

import contextlib
import io
import re
import shlex
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]

#: the only command lines a ```bash block may hold: they install, build or run the whole suite
#: (patterns, matched against the whole line with its comment removed)
NOT_RUN = [
    r"make (venv|test|report|docs)",
    r"\. \.venv/bin/activate",
    r"pip install -e '\.\[[a-z,]+\]'",
    r"pip install 'gdpproof\[[a-z,]+\]'",
    r"jupyter execute notebooks/\w+\.ipynb --output=\w+\.executed\.ipynb",
    r"python -m gdpproof\.cli\._reference --update \S+",
    r"python benchmarks/bench_\w+\.py( [-\w.=:,]+)*",
    r"mkdocs (build|serve)( --strict)?",
]

FENCE = re.compile(r"^(`{3,})\s*([\w+-]*)(.*)$")


@dataclass
class Block:
    page: Path
    line: int  # 1-based line of the opening fence
    lang: str
    lines: list[str]

    @property
    def id(self) -> str:
        return f"{self.page.relative_to(ROOT)}:{self.line}"


def blocks(page: Path) -> list[Block]:
    """The fenced blocks of a Markdown page (fences of three or more backticks, unindented)."""
    found: list[Block] = []
    lines = page.read_text(encoding="utf-8").splitlines()
    i = 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        ticks, lang, start = m.group(1), m.group(2), i
        i += 1
        body = []
        while i < len(lines) and lines[i].rstrip() != ticks:
            body.append(lines[i])
            i += 1
        found.append(Block(page, start + 1, lang, body))
        i += 1
    return found


ALL = [b for page in PAGES for b in blocks(page)]
CONSOLE = [b for b in ALL if b.lang == "console"]


@dataclass
class Command:
    argv: list[str]
    merge_stderr: bool
    expected: list[str]
    exit_code: int


def commands(block: Block) -> list[Command]:
    out: list[Command] = []
    for line in block.lines:
        if line.startswith("$ "):
            words = shlex.split(line[2:])
            # as a shell reads it: a word holding ( ) ; & | < > unquoted is not what is run here
            lexer = shlex.shlex(line[2:], posix=True, punctuation_chars=True)
            lexer.whitespace_split = True
            shell_words = list(lexer)
            assert shell_words == words or shell_words == words[:-1] + ["2>&1"] or (
                words[-1:] == ["2>&1"] and shell_words[:-3] == words[:-1]), (
                f"{block.id}: {line!r} needs quotes to run in a shell (it splits as {shell_words})")
            merge = words[-1:] == ["2>&1"]
            out.append(Command(words[:-1] if merge else words, merge, [], 0))
        elif not out:
            raise AssertionError(f"{block.id}: output before any '$ ' command: {line!r}")
        else:
            out[-1].expected.append(line.rstrip())
    for c in out:
        while c.expected and not c.expected[-1]:
            c.expected.pop()
        m = re.fullmatch(r"\[exit (\d+)\]", c.expected[-1]) if c.expected else None
        if m:
            c.exit_code = int(m.group(1))
            c.expected.pop()
    return out


def _line_pattern(line: str) -> re.Pattern[str]:
    return re.compile(".*".join(re.escape(part) for part in line.split("...")))


def matches(expected: list[str], actual: list[str]) -> bool:
    """Whether ``actual`` fits ``expected``, where ``...`` in a line is any text and a line
    ``...`` any number of lines."""
    memo: dict[tuple[int, int], bool] = {}

    def fit(i: int, j: int) -> bool:
        if (i, j) in memo:
            return memo[i, j]
        if i == len(expected):
            ok = j == len(actual)
        elif expected[i] == "...":
            ok = any(fit(i + 1, k) for k in range(j, len(actual) + 1))
        else:
            ok = j < len(actual) and bool(_line_pattern(expected[i]).fullmatch(actual[j]))
            ok = ok and fit(i + 1, j + 1)
        memo[i, j] = ok
        return ok

    return fit(0, 0)


#: options that read or write files: commands with them depend on the block's folder
FILE_OPTIONS = {"--out", "--verify", "--module", "--spec", "--plot", "--resume", "--in", "--scores", "--guesses"}
#: the same command shown on two pages runs once (its output depends on nothing but its argv)
_RUN: dict[tuple[str, ...], tuple[int, list[str], str]] = {}


def run(command: Command, cwd: Path) -> tuple[int, list[str], str]:
    """Run one command in-process; its exit code, printed lines, and stderr (when not merged)."""
    key = (*command.argv, "2>&1" if command.merge_stderr else "")
    if key not in _RUN or FILE_OPTIONS & set(command.argv):
        _RUN[key] = _run(command, cwd)
    return _RUN[key]


def _run(command: Command, cwd: Path) -> tuple[int, list[str], str]:
    from gdpproof.cli import main

    argv = command.argv
    if argv[:3] == ["python", "-m", "gdpproof.cli"]:
        argv = ["gdpproof", *argv[3:]]
    out, err = io.StringIO(), io.StringIO()
    if argv[0] == "cat" and len(argv) == 2:
        text, code = (cwd / argv[1]).read_text(encoding="utf-8"), 0
    elif argv[0] == "gdpproof":
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out if command.merge_stderr else err):
            code = main(argv[1:])
        text = out.getvalue()
    else:
        raise AssertionError(f"not a command the examples may run: {shlex.join(argv)}")
    lines = [line.rstrip() for line in text.splitlines()]
    while lines and not lines[-1]:
        lines.pop()
    return code, lines, err.getvalue()


@pytest.mark.parametrize("block", CONSOLE, ids=[b.id for b in CONSOLE])
def test_console_example_prints_what_the_page_shows(block: Block, tmp_path, monkeypatch) -> None:
    for name in ("examples", "gdpproof"):
        (tmp_path / name).symlink_to(ROOT / name, target_is_directory=True)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("GDPPROOF_KEY_FILE", str(tmp_path / "journal.key"))
    monkeypatch.setenv("COLUMNS", "100")
    monkeypatch.syspath_prepend(str(tmp_path))
    for name, module in list(sys.modules.items()):  # an example imported by another test, from the clone
        if str(getattr(module, "__file__", None) or "").startswith(str(ROOT / "examples")):
            monkeypatch.delitem(sys.modules, name)
    cmds = commands(block)
    assert cmds, f"{block.id}: a console block without a '$ ' command"
    before = set(sys.modules)
    try:
        for c in cmds:
            code, lines, err = run(c, tmp_path)
            shown = "\n".join(lines) + (f"\n--- stderr ---\n{err}" if err else "")
            assert code == c.exit_code, (
                f"{block.id}: `{shlex.join(c.argv)}` exited {code}, the page says {c.exit_code}\n{shown}")
            assert matches(c.expected, lines), (
                f"{block.id}: `{shlex.join(c.argv)}` printed\n{shown}\n--- the page shows ---\n" + "\n".join(c.expected))
    finally:  # a --module file imported from this block's folder is forgotten with the folder
        for name in set(sys.modules) - before:
            if str(getattr(sys.modules[name], "__file__", None) or "").startswith(str(tmp_path)):
                del sys.modules[name]


def test_there_are_examples_and_every_shell_line_is_run_or_listed() -> None:
    assert len(CONSOLE) >= 10 and any(b.page.name == "README.md" for b in CONSOLE)
    allowed = [re.compile(p) for p in NOT_RUN]
    for b in ALL:
        if b.lang == "console":
            continue
        if b.lang == "bash":
            for line in b.lines:
                cmd = line.split("#", 1)[0].strip()
                assert not cmd or any(p.fullmatch(cmd) for p in allowed), (
                    f"{b.id}: `{cmd}` is in a bash block, which is not run: make it a console example or "
                    "add it to NOT_RUN if it cannot run in the suite")
        else:
            assert not any(line.startswith("$ ") for line in b.lines), (
                f"{b.id}: a '$ ' command in a ```{b.lang} block: shell examples are ```console blocks")


def test_the_matcher() -> None:
    assert matches(["a ... c", "...", "z"], ["a b c", "x", "y", "z"])
    assert matches(["...", "z"], ["z"]) and not matches(["a"], ["a", "b"])
    assert not matches(["a ... c"], ["a b d"]) and matches(["1.0"], ["1.0"]) and not matches(["1.0"], ["1x0"])
    block = Block(ROOT / "README.md", 1, "console", ["$ gdpproof x 2>&1", "out", "[exit 3]", "", "$ cat f"])
    c1, c2 = commands(block)
    assert (c1.argv, c1.merge_stderr, c1.expected, c1.exit_code) == (["gdpproof", "x"], True, ["out"], 3)
    assert (c2.argv, c2.expected, c2.exit_code) == (["cat", "f"], [], 0)


if __name__ == "__main__":  # pragma: no cover - print the blocks found
    for b in CONSOLE:
        print(b.id, len(commands(b)), file=sys.stderr)
