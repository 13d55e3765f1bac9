"""What a page's shell commands need, and whether a fresh clone (with what the page said first) has it.

A page is read top to bottom as a new user reads it. Every command of a shell block is checked: a ``qlsbench``
command parses with qlsbench's own parser, and each path it reads (its parser's ``reads``) is shipped in the
clone, written by a command above it on the page, or written by a command the text names before the block
("after `qlsbench pinned --out datasets/pinned`"); ``snakemake`` counts as writing every output its config
makes (from ``snakemake --summary``); ``python -m`` names an importable module; any other program is on the path
or shipped, and the repository files it names are shipped. Nothing is run: the blocks here are hours of work
(``docs/in-loop.md``) or need a cluster, and the README's and the card's blocks are run as written by
``tests/test_examples.py``.
"""

from __future__ import annotations

import argparse
import fnmatch
import importlib.util
import re
import shlex
import shutil
import subprocess
import sys
from collections.abc import Callable, Iterable
from contextlib import redirect_stderr, redirect_stdout
from dataclasses import dataclass, field
from functools import cache
from io import StringIO
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
#: A fenced block: its language and text.
FENCE = re.compile(r"^```(\w*)\n(.*?)^```", re.DOTALL | re.MULTILINE)
#: Blocks of shell commands (a block without a language is one).
SHELL = {"", "bash", "sh", "shell", "console"}
#: A command the prose names: a backticked ``qlsbench`` or ``snakemake`` command line.
PROSE_COMMAND = re.compile(r"`((?:qlsbench|snakemake) [^`]+)`")
#: ``for VAR in WORDS; do BODY [&|;] done[; wait]``: the loop is checked as its body once per word.
FOR_LOOP = re.compile(r"^for (\w+) in ([^;]+); do (.+?)\s*[;&]?\s*done(?:\s*;\s*wait)?$")
#: Programs a page may call that are not checked further than being a program (shell built-ins among them).
BUILTINS = {".", "source", "cd", "wait", "export", "xdg-open", "open"}
#: Arguments of other programs that name repository files (a test file, a config, a script).
REPO_FILE = re.compile(r"^[\w.-]+(/[\w.*-]+)+\.(py|yaml|yml|sh|txt|toml|json)$")


@dataclass
class Finding:
    """A command a fresh clone cannot run as written: where it is, what it is and why."""

    page: str
    command: str
    reason: str

    def __str__(self) -> str:
        return f"{self.page}: `{self.command}`: {self.reason}"


@dataclass
class Clone:
    """What a fresh clone holds: the shipped paths (files and the folders above them), and what a config's
    workflow writes (asked of Snakemake once per config)."""

    shipped: set[str]
    workflow_outputs: Callable[[str | None], set[str]]
    written: set[str] = field(default_factory=set)
    installed: set[str] = field(default_factory=set)

    def has(self, path: str) -> bool:
        """Whether ``path`` (a glob matches when any path does) is shipped, written, or inside a written folder."""
        path = path.rstrip("/").removeprefix("./")
        if not path or path == ".":
            return True
        known = self.shipped | self.written
        if any(ch in path for ch in "*?["):
            return any(fnmatch.fnmatchcase(p, path) for p in known)
        return path in known or any(path.startswith(w.rstrip("/") + "/") for w in self.written)

    def write(self, paths: Iterable[str]) -> None:
        """Record ``paths`` as written, with the folders above them."""
        for path in paths:
            path = path.rstrip("/").removeprefix("./")
            self.written.add(path)
            self.written.update(str(parent) for parent in Path(path).parents if str(parent) != ".")


def shipped_paths(repo: Path = REPO) -> set[str]:
    """Every file git tracks in ``repo`` and every folder above one: what a fresh clone holds."""
    files = subprocess.run(["git", "ls-files"], cwd=repo, capture_output=True, text=True, check=True).stdout.split()
    paths = set(files)
    for f in files:
        paths.update(str(parent) for parent in Path(f).parents if str(parent) != ".")
    return paths


def workflow_outputs(config: str | None, repo: Path = REPO, work: Path | None = None) -> set[str]:
    """Every file the workflow makes with ``config`` (the default when ``None``), as ``snakemake --summary``
    lists them, in a copy of the shipped workflow files alone."""
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        shutil.copy(repo / "Snakefile", folder)
        shutil.copytree(repo / "workflows", folder / "workflows")
        cmd = [sys.executable, "-m", "snakemake", "--summary", "--cores", "1"]
        if config:
            cmd += ["--configfile", str(repo / config)]
        done = subprocess.run(cmd, cwd=folder, capture_output=True, text=True, timeout=600)
    if done.returncode != 0:
        raise AssertionError(f"snakemake --summary with {config or 'the default config'}: {done.stderr[-1500:]}")
    rows = done.stdout.splitlines()[1:]
    return {row.split("\t", 1)[0] for row in rows if row.strip()}


def commands_of(block: str) -> list[str]:
    """The simple commands of a shell block: continuation lines joined, comments dropped, ``for`` loops unrolled,
    ``&&``, ``;`` and ``&`` lists split."""
    commands = []
    for line in _lines(block):
        line = re.sub(r"(^|\s)#.*$", "", line).strip()
        if not line:
            continue
        loop = FOR_LOOP.match(line)
        lines = [loop.group(3).replace(f"${loop.group(1)}", word) for word in loop.group(2).split()] if loop else [line]
        for each in lines:
            commands += [c.strip() for c in re.split(r"&&|;|\s&(?:\s|$)", each) if c.strip()]
    return commands


def _lines(block: str) -> list[str]:
    """The block's command lines: a backslash continues a line, and so does a quote left open (a JSON option)."""
    lines, pending = [], ""
    for line in re.sub(r"\\\n\s*", " ", block).splitlines():
        pending = f"{pending} {line.strip()}" if pending else line
        try:
            shlex.split(re.sub(r"(^|\s)#.*$", "", pending))
        except ValueError:
            continue  # a quote still open: the next line belongs to this command
        lines.append(pending)
        pending = ""
    return lines + ([pending] if pending else [])


def extra_programs(extras: Iterable[str], repo: Path = REPO) -> set[str]:
    """The distributions ``pip install -e ".[extras]"`` adds (extras that name other extras followed), by name:
    a program a page runs after that install is one of them (``pre-commit``)."""
    import tomllib

    table = tomllib.loads((repo / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    names, todo = set(), list(extras)
    while todo:
        for requirement in table.get(todo.pop(), []):
            name = re.split(r"[\[<>=!~; ]", requirement, maxsplit=1)[0]
            if name == "qlsbench":
                todo += re.findall(r"[\w-]+", requirement.split("[", 1)[1]) if "[" in requirement else []
            else:
                names.add(name)
    return names


def _placeholder(token: str) -> bool:
    """A word the page asks the user to replace (``RUN``, ``DIR``, ``<name>``)."""
    return bool(re.fullmatch(r"[A-Z][A-Z_]*", token)) or "<" in token


@cache
def _parser() -> argparse.ArgumentParser:
    """qlsbench's parser with every command's arguments (built once: it imports what each command needs)."""
    from qlsbench.cli import build_parser

    return build_parser()


def _parse_qlsbench(argv: list[str]):
    """qlsbench's own parse of ``argv``: the namespace, or the one line it printed."""
    err = StringIO()
    try:
        with redirect_stderr(err), redirect_stdout(StringIO()):
            return _parser().parse_args(argv), None
    except SystemExit as exc:  # --help leaves with 0: it ran as written
        return (argparse.Namespace(), None) if exc.code == 0 else (None, err.getvalue().strip() or "does not parse")


def _values(args, name: str) -> list[str]:
    value = getattr(args, name, None)
    return [str(v) for v in (value if isinstance(value, list) else [value] if value else [])]


def check_qlsbench(argv: list[str], clone: Clone) -> str | None:
    """Why ``qlsbench argv`` cannot run in ``clone``, or ``None``; what it writes is recorded."""
    argv = [a for a in argv if not (a.startswith("[") or a.endswith("]"))]  # an optional part, shown in brackets
    args, error = _parse_qlsbench(argv)
    if args is None:
        return f"qlsbench refuses it: {error}"
    for name in getattr(args, "reads", []):
        for path in _values(args, name):
            if not _placeholder(path) and not clone.has(path):
                return f"reads {path}, which a fresh clone does not have and nothing above on the page writes"
    clone.write(p for name, _, _ in getattr(args, "writes", []) for p in _values(args, name))
    return None


def check_snakemake(argv: list[str], clone: Clone) -> str | None:
    """Why ``snakemake argv`` cannot run, or ``None``; its config's outputs are recorded as written."""
    config = argv[argv.index("--configfile") + 1] if "--configfile" in argv else None
    if config and not clone.has(config):
        return f"its --configfile {config} is not shipped"
    clone.write(clone.workflow_outputs(config))
    return None


def check_other(argv: list[str], clone: Clone) -> str | None:
    """A program that is not qlsbench: installed or shipped, with the repository files it names shipped."""
    program = argv[0]
    if program == "python" and argv[1:2] == ["-m"] and len(argv) > 2:
        module = argv[2]
        if module == "venv":
            clone.write(argv[3:4])
            return None
        sys.path.insert(0, str(REPO))
        try:
            found = importlib.util.find_spec(module) is not None
        except ModuleNotFoundError:
            found = False
        finally:
            sys.path.remove(str(REPO))
        return None if found else f"python -m {module}: no such module"
    if re.fullmatch(r"python3(\.\d+)?", program) and argv[1:3] == ["-m", "venv"]:
        clone.write(argv[3:4])
        return None
    if program == "pip" and argv[1:2] == ["install"]:
        extras = [m for token in argv if token.startswith(".[") for m in re.findall(r"[\w-]+", token)]
        clone.installed |= extra_programs(extras) | {t for t in argv[2:] if re.fullmatch(r"[\w-]+", t)}
    if "/" in program:
        if not clone.has(program):
            return f"{program} is not shipped"
    elif program not in BUILTINS | clone.installed and not (
        shutil.which(program) or (Path(sys.executable).parent / program).exists()
    ):
        return f"{program} is not installed by the README's commands"
    for token in argv[1:]:
        if REPO_FILE.match(token) and not clone.has(token) and not _placeholder(token):
            return f"names {token}, which a fresh clone does not have"
    return None


def check_command(command: str, clone: Clone) -> str | None:
    """Why ``command`` (one simple shell command) cannot run as written in ``clone``, or ``None``."""
    try:
        argv = shlex.split(command)
    except ValueError as exc:
        return f"not a shell command: {exc}"
    while argv and re.fullmatch(r"\w+=\S*", argv[0]):  # VAR=value before the program
        argv = argv[1:]
    if not argv:
        return None
    if argv[0] == "qlsbench":
        return check_qlsbench(argv[1:], clone)
    if argv[0] == "snakemake":
        return check_snakemake(argv[1:], clone)
    return check_other(argv, clone)


def check_page(name: str, text: str, clone: Clone) -> list[Finding]:
    """Every command of ``text``'s shell blocks that a fresh clone cannot run as written, in page order.

    Prose between blocks counts as said first: the commands it names in backticks are taken as run (their
    outputs written) before the next block, so a page can say what a block needs in its own words.
    """
    findings, end = [], 0
    for match in FENCE.finditer(text):
        for said in PROSE_COMMAND.findall(text[end : match.start()]):
            check_command(said, clone)  # a mention may be partial (`qlsbench pauli`): only what it writes counts
        end = match.end()
        if match.group(1) not in SHELL:
            continue
        for command in commands_of(match.group(2)):
            reason = check_command(command, clone)
            if reason:
                findings.append(Finding(name, command, reason))
    return findings
