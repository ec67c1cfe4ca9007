"""Study the practice problems in one terminal: ``make practice``.

The problems come in the plan's order (the toctrees of practice/index.md
and its sections). The current starter is checked on every save by a
worker process that imported JAX once and runs ``make check``'s code,
:func:`jaxbook.practice.check_problem`; a check past ``--limit`` seconds kills the
worker, and the next check starts another. Progress is kept in
``.study/progress.json``; without a terminal the table is printed.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import multiprocessing
import os
import re
import select
import shutil
import subprocess
import sys
import textwrap
import time
from dataclasses import dataclass
from pathlib import Path

from jaxbook import ROOT, layout, pages, runtime
from jaxbook.practice import (
    PRACTICE,
    SOLVED,
    ProblemNameError,
    check_problem,
    find_problem,
    summary_line,
)

STATE = ".study"  # beside practice/: progress, backups, logs (git ignores it)
PASSED, ATTEMPTED, NOT_STARTED = "passed", "attempted", "not started"
LIMIT = 120  # seconds a check may run before the worker is stopped
KEYS = "h hint · r reset · s skip · l list · q quit"
CLEAR = "\x1b[H\x1b[2J"
IMPL = re.compile(r"\n *impl=<module .*>,")  # an argument the learner knows


@dataclass(frozen=True)
class Problem:
    folder: Path  # practice/<section>/<problem>/, with starter.py
    page: Path  # its statement, practice/<section>/<problem>.md

    @property
    def name(self) -> str:
        """``arrays/masked-mean``: what PROBLEM= accepts."""
        name = self.folder.name.replace("_", "-")
        return f"{self.folder.parent.name}/{name}"

    @property
    def starter(self) -> Path:
        return self.folder / "starter.py"

    def title(self) -> str:
        """The page's first heading."""
        lines = self.page.read_text(encoding="utf-8").splitlines()
        titles = (line[2:].strip() for line in lines if line[:2] == "# ")
        return next(titles, self.name)


def plan(practice: Path = PRACTICE) -> list[Problem]:
    """Every problem, in the toctrees' order."""
    return [
        Problem(page.with_suffix(""), page)
        for section in pages.read(practice / "index.md").children()
        for page in pages.read(section).children()
        if (page.with_suffix("") / "starter.py").is_file()
    ]


def hints(page: Path) -> list[tuple[str, str]]:
    """The page's ``{dropdown} Hint: ...`` blocks as (title, text), read
    with MyST's parser, as the page renders them."""
    found = []
    for token in pages.tokens(page.read_text(encoding="utf-8")):
        directive, _, title = token.info.partition(" ")
        is_hint = directive == "{dropdown}" and title.startswith("Hint")
        if token.type == "fence" and is_hint:
            found.append((title.strip(), token.content.strip()))
    return found


def links(problem: Problem, root: Path) -> list[str]:
    """The built page, and its address on the hosted book."""
    page = problem.page.relative_to(root).with_suffix(".html").as_posix()
    env = os.environ
    base = env.get("READTHEDOCS_CANONICAL_URL") or env.get("JAXBOOK_BASE_URL")
    address = (base or "<the book's address>").rstrip("/")
    return [
        f"page:   {layout.HTML.as_posix()}/{page} (after make html)",
        f"online: {address}/{page}",
    ]


# --- progress: {problem name: PASSED or ATTEMPTED}; others not started ---


def load_progress(root: Path) -> dict[str, str]:
    path = root / STATE / "progress.json"
    try:
        return json.loads(path.read_text("utf-8")) if path.is_file() else {}
    except json.JSONDecodeError as error:
        raise SystemExit(
            f"{path}: not the progress make practice writes ({error}); RECOMPUTE=1 rebuilds it"
        ) from None


def save_progress(root: Path, progress: dict[str, str]) -> None:
    path = root / STATE / "progress.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    text = json.dumps(progress, indent=1, sort_keys=True)
    path.write_text(text + "\n", encoding="utf-8")


def original(problem: Problem) -> bytes:
    """The starter as git has it (what ``r`` restores)."""
    command = ["git", "show", "HEAD:./starter.py"]
    done = subprocess.run(command, cwd=problem.folder, capture_output=True, check=True)
    return done.stdout


def contents(path: Path) -> bytes | None:
    """The file's bytes; None while it is missing (an editor replacing it)."""
    try:
        return path.read_bytes()
    except FileNotFoundError:
        return None


def untouched(problem: Problem) -> bool:
    """The starter is git's: not started, whatever its check says."""
    try:
        return contents(problem.starter) == original(problem)
    except subprocess.CalledProcessError:  # not in git: always an attempt
        return False


def state(problem: Problem, progress: dict[str, str]) -> str:
    return progress.get(problem.name, NOT_STARTED)


def counts(problems: list[Problem], progress: dict[str, str]) -> str:
    """``3 passed, 1 attempted, 31 not started (of 35)``."""
    found = [
        f"{sum(state(p, progress) == s for p in problems)} {s}" for s in (PASSED, ATTEMPTED, NOT_STARTED)
    ]
    return f"{', '.join(found)} (of {len(problems)})"


def table(problems, progress, current: Problem | None = None) -> str:
    """A count, then one line per problem in plan order."""
    lines = [f"Study plan: {counts(problems, progress)}"]
    for p in problems:
        mark = ">" if p == current else " "
        lines.append(f"{mark} {state(p, progress):12} {p.name:40} {p.title()}")
    return "\n".join(lines)


# --- the warm worker --------------------------------------------------------


def check_starter(practice: Path, folder: Path, width: int) -> dict:
    """Check ``folder``'s starter with ``make check``'s code: its status,
    and the import error or the report the screen shows (each requirement's
    state, the smallest failing examples, the verdict)."""
    shown = (folder / "starter.py").relative_to(practice.parent).as_posix()
    code, summary, error = check_problem(folder, "starter", practice)
    if summary is None:
        error = f"{shown} does not import, so no test can run:\n\n{error}"
        return {"status": ATTEMPTED, "error": error}
    lines = ["Requirements (PASS when every test that checks it passes; tests passed / tests):"]
    for number, sentence in summary.requirements.items():
        outcomes = [
            summary.outcomes.get(test) for test, numbers in summary.checks.items() if number in numbers
        ]
        passed = sum(outcome == "passed" for outcome in outcomes)
        mark = "PASS" if passed == len(outcomes) else "FAIL"
        mark = f"{mark} {passed}/{len(outcomes)}" if outcomes else "no test"
        lines += textwrap.wrap(
            f"{number}. {sentence}",
            width - 2,
            initial_indent=f"  {mark:8}  ",
            subsequent_indent=" " * 15,
        )
    for test, example in summary.examples.items():
        if example:
            lines += ["", f"Smallest failing example of {test}:"]
            lines.append(textwrap.indent(IMPL.sub("", example), "  "))
    if summary.collect_errors:
        lines += ["", "The tests could not be collected."]
    last = summary_line(summary, code)
    lines += [
        "",
        last,
        f"(pytest's report of each test: {STATE}/last-check.log)",
    ]
    status = PASSED if last.endswith(SOLVED) else ATTEMPTED
    return {"status": status, "report": "\n".join(lines)}


def serve(connection, practice: Path) -> None:
    """The worker: import JAX once, then answer each problem folder with its
    check, until the study ends. It writes to .study/worker.log, pytest's
    report of the last check to .study/last-check.log."""
    state = practice.parent / STATE
    with open(state / "worker.log", "a") as log:
        os.dup2(log.fileno(), 1)
        os.dup2(log.fileno(), 2)
    runtime.configure(compilation_cache=ROOT / layout.JAX_CACHE)
    import hypothesis  # noqa: F401  (imported once here, not by each check)
    import jax.numpy as jnp

    jnp.zeros(1).block_until_ready()  # starts the CPU backend
    connection.send("ready")
    with contextlib.suppress(EOFError):  # the study ended
        while request := connection.recv():
            with open(state / "last-check.log", "w") as out:
                os.dup2(out.fileno(), 1)
                result = check_starter(practice, *request)
                sys.stdout.flush()
            connection.send(result)


class Worker:
    """A warm worker process; a check that runs past ``limit`` seconds kills
    it, and the next check starts another."""

    def __init__(self, practice: Path, limit: float):
        self.practice, self.limit, self.process = practice, limit, None

    def stop(self) -> None:
        if self.process is not None:
            self.process.kill()
            self.process.join()
            self.connection.close()
            self.process = None

    def answer(self, timeout: float):
        """The worker's next answer: None if none came in time, "" if it
        ended."""
        try:
            ready = self.connection.poll(timeout)
            return self.connection.recv() if ready else None
        except EOFError:
            return ""

    def check(self, folder: Path) -> dict:
        log = f"{STATE}/worker.log"
        if self.process is None:
            (self.practice.parent / STATE).mkdir(exist_ok=True)
            spawn = multiprocessing.get_context("spawn")  # JAX forbids fork
            self.connection, theirs = spawn.Pipe()
            self.process = spawn.Process(target=serve, args=(theirs, self.practice), daemon=True)
            self.process.start()
            theirs.close()  # so that its end shows as the pipe's end here
            if self.answer(LIMIT) != "ready":  # the start, JAX's import
                self.stop()
                error = f"The checker did not start: see {log}."
                return {"status": ATTEMPTED, "error": error}
        width = shutil.get_terminal_size().columns  # the learner's
        self.connection.send((folder, width))
        answer = self.answer(self.limit)
        if isinstance(answer, dict):
            return answer
        self.stop()
        if answer == "":
            error = f"The checker ended during the check: see {log}."
        else:
            error = (
                f"Stopped: the check did not finish within {self.limit:g} s "
                "(a loop that never ends?). The checker was restarted; fix "
                "the starter and save again."
            )
        return {"status": ATTEMPTED, "error": error}


# --- the terminal -----------------------------------------------------------


def screen(study: Study) -> str:
    """Progress, the current problem, its last check, hints and keys."""
    p = study.current
    problems, progress = study.problems, study.progress
    lines = [
        f"Study plan: {counts(problems, progress)}",
        f"Problem {problems.index(p) + 1} of {len(problems)}: {p.name} ({state(p, progress)})",
        "",
        p.title(),
        *(f"  {link}" for link in links(p, study.root)),
        f"  edit:   {p.starter.relative_to(study.root)} (checked on every save)",
        "",
    ]
    result = study.result or {"report": "Checking..."}
    lines += [(result.get("error") or result["report"]).rstrip(), ""]
    shown = study.hints[: study.shown_hints]
    for number, (title, text) in enumerate(shown, 1):
        lines.append(f"{title} ({number}/{len(study.hints)})")
        lines += [textwrap.indent(text, "  "), ""]
    if study.message:
        lines += [study.message, ""]
    lines.append(KEYS)
    return "\n".join(lines)


class Study:
    """The plan, the progress, the current problem and its last check."""

    def __init__(self, practice: Path, start: Problem | None, limit: float):
        self.practice, self.root = practice, practice.parent
        self.problems = plan(practice)
        self.progress = load_progress(self.root)
        todo = [p for p in self.problems if state(p, self.progress) != PASSED]
        self.worker = Worker(practice, limit)
        self.message = ""
        self.go(start or (todo or self.problems)[0])

    def go(self, problem: Problem) -> None:
        self.current, self.result, self.shown_hints = problem, None, 0
        self.hints = hints(problem.page)

    def draw(self, text: str | None = None) -> None:
        sys.stdout.write(CLEAR + (text or screen(self)) + "\n")
        sys.stdout.flush()

    def check(self) -> None:
        """Check the current starter, record the progress, and move on to
        the next problem when it passes."""
        self.result, self.checked_text = None, contents(self.current.starter)
        self.draw()
        self.result = self.worker.check(self.current.folder)
        self.progress[self.current.name] = self.result["status"]
        if self.result["status"] != PASSED and untouched(self.current):
            del self.progress[self.current.name]
        save_progress(self.root, self.progress)
        if self.result["status"] == PASSED:
            solved = self.current.name
            if all(state(p, self.progress) == PASSED for p in self.problems):
                self.message = f"Solved {solved}: every problem of the plan passes. Well done!"
            else:
                self.next()
                self.message = f"Solved {solved}! Next in the plan: {self.current.name}."
                return self.check()
        self.draw()

    def next(self) -> None:
        """The next problem after the current one that has not passed."""
        at = self.problems.index(self.current)
        after = self.problems[at + 1 :] + self.problems[: at + 1]
        todo = (p for p in after if state(p, self.progress) != PASSED)
        self.go(next(todo, after[0]))

    def reset(self) -> None:
        """Back to git's starter, checked; the attempt goes to backups/."""
        starter = self.current.starter
        backup = self.root / STATE / "backups" / starter.relative_to(self.practice)
        stamp = time.strftime("%Y%m%d-%H%M%S")
        backup = backup.with_name(f"starter.py.bak-{stamp}")
        try:
            committed = original(self.current)
        except subprocess.CalledProcessError as error:
            why = error.stderr.decode().strip()
            self.message = f"Cannot reset: git has no starter here ({why})"
            return self.draw()
        backup.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(starter, backup)
        starter.write_bytes(committed)
        self.progress.pop(self.current.name, None)
        save_progress(self.root, self.progress)
        self.message = (
            f"Reset {starter.relative_to(self.root)}; your attempt is in {backup.relative_to(self.root)}"
        )
        self.check()

    def key(self, key: str) -> bool:
        """Act on a key; False to quit."""
        self.message = ""
        if key in ("q", ""):  # "": the terminal closed
            return False
        if key == "h":
            self.shown_hints += 1
            if self.shown_hints > len(self.hints):
                self.shown_hints = len(self.hints)
                self.message = "No more hints: the reference solution is at the bottom of the page."
        elif key in "rsl":
            if key == "r":
                self.reset()
            elif key == "s":
                self.next()
                self.check()
            else:
                listing = table(self.problems, self.progress, self.current)
                self.draw(f"{listing}\n\n{KEYS}")
            return True
        elif key.isprintable():
            self.message = f"{key!r}: not a key of make practice ({KEYS})"
        else:
            return True  # a part of an arrow key, say: nothing to do
        self.draw()
        return True

    def run(self) -> None:
        """Check the starter now and on every save; act on keys until q."""
        import watchfiles

        self.check()
        # every 0.1 s, saves or not, so that keys are read
        for saves in watchfiles.watch(self.practice, rust_timeout=100, yield_on_timeout=True):
            while select.select([sys.stdin], [], [], 0)[0]:
                key = os.read(sys.stdin.fileno(), 1).decode(errors="replace")
                if not self.key(key):
                    return
            starter = self.current.starter
            saved = any(Path(path) == starter for _, path in saves)
            if saved and contents(starter) != self.checked_text:
                self.message = ""
                self.check()


def recompute(practice: Path, limit: float) -> None:
    """The progress from the starters: untouched ones are not started, the
    others are checked."""
    worker, progress = Worker(practice, limit), {}
    try:
        for problem in plan(practice):
            if not untouched(problem):
                status = worker.check(problem.folder)["status"]
                progress[problem.name] = status
                print(f"  {status:12} {problem.name}", flush=True)
    finally:
        worker.stop()
    save_progress(practice.parent, progress)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--problem", help="start here (as make check's)")
    parser.add_argument("--recompute", action="store_true", help="progress from the starters")
    parser.add_argument("--limit", type=float, default=LIMIT, help="seconds")
    parser.add_argument("--practice", type=Path, default=PRACTICE)
    args = parser.parse_args(argv)
    practice = args.practice.resolve()
    try:
        folder = args.problem and find_problem(args.problem, practice)
    except ProblemNameError as error:
        print(error, file=sys.stderr)
        return 2
    if args.recompute:
        recompute(practice, args.limit)
    problems = plan(practice)
    start = next((p for p in problems if p.folder == folder), None)
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        print(table(problems, load_progress(practice.parent), start))
        return 0
    import termios
    import tty

    study = Study(practice, start, args.limit)
    saved = termios.tcgetattr(sys.stdin)
    tty.setcbreak(sys.stdin)  # one key at a time, not echoed
    try:
        study.run()
    except KeyboardInterrupt:
        pass
    finally:
        study.worker.stop()
        termios.tcsetattr(sys.stdin, termios.TCSADRAIN, saved)
    print()
    print(table(study.problems, study.progress))
    return 0


if __name__ == "__main__":
    sys.exit(main())
