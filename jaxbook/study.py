"""Study the practice problems in one terminal: ``make practice [PROBLEM=masked-mean]``.

The problems come in the study plan's order: the toctree of ``practice/index.md`` lists the
sections, each section's toctree its problems (:func:`plan`). The current problem's starter is
checked on every save (watchfiles), by a worker process that imported JAX once and runs
``make check``'s code (:func:`jaxbook.practice.run`) for each check, so a re-check costs the tests
only. A check that runs longer than ``--limit`` seconds is stopped: the worker is killed and
started again. Keys: ``h`` the page's next hint, ``r`` reset the starter (the attempt is kept in
``.study/backups/``), ``s`` skip, ``l`` list all problems, ``q`` quit; a problem that passes
moves the plan on to the next one.

Progress (passed or attempted; not started otherwise) is kept in ``.study/progress.json``, which
git ignores; ``--recompute`` rebuilds it from the starters (untouched ones, equal to git's, are not
started; the others are checked). Without a terminal (CI, a pipe) the progress table is printed
and the program exits.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import queue
import re
import select
import shutil
import signal
import subprocess
import sys
import textwrap
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from jaxbook import ROOT, layout, pages

PRACTICE = ROOT / "practice"
STATE = ".study"  # beside practice/: progress.json, backups/, the worker's logs (git ignores it)
PASSED, ATTEMPTED, NOT_STARTED = "passed", "attempted", "not started"
LIMIT = 120  # seconds a check may run before the worker is stopped
HINT = "Hint"  # a page's hints are its ``{dropdown} Hint: ...`` blocks
KEYS = "h hint · r reset · s skip · l list · q quit"
CLEAR = "\x1b[H\x1b[2J"
IMPL = re.compile(r"\n *impl=<module .*>,")  # a failing example's argument the learner knows: the starter


@dataclass(frozen=True)
class Problem:
    folder: Path  # practice/<section>/<problem>/, with starter.py
    page: Path  # its statement, practice/<section>/<problem>.md

    @property
    def name(self) -> str:
        """``arrays/masked-mean``: what PROBLEM= accepts."""
        return f"{self.folder.parent.name}/{self.folder.name.replace('_', '-')}"

    @property
    def starter(self) -> Path:
        return self.folder / "starter.py"

    def title(self) -> str:
        """The page's first heading."""
        lines = self.page.read_text(encoding="utf-8").splitlines()
        return next((line[2:].strip() for line in lines if line.startswith("# ")), self.name)


def plan(practice: Path = PRACTICE) -> list[Problem]:
    """Every problem, in the study plan's order: the toctrees of practice/index.md and its sections."""
    found = []
    for section in pages.read(practice / "index.md").children():
        for page in pages.read(section).children():
            folder = page.with_suffix("")
            if (folder / "starter.py").is_file():
                found.append(Problem(folder, page))
    return found


def hints(page: Path) -> list[tuple[str, str]]:
    """The page's hints as (title, text), in page order: its ``{dropdown} Hint: ...`` blocks, read
    with MyST's parser, as the page renders them."""
    tokens = pages._parser().parse(page.read_text(encoding="utf-8"))
    found = []
    for token in tokens:
        directive, _, title = token.info.partition(" ")
        if token.type == "fence" and directive == "{dropdown}" and title.startswith(HINT):
            found.append((title.strip(), token.content.strip()))
    return found


def links(problem: Problem, root: Path) -> list[str]:
    """Where its page is: the built page, and its address on the hosted book (conf.py's base URL
    when one is set)."""
    page = problem.page.relative_to(root).with_suffix(".html").as_posix()
    base = os.environ.get("READTHEDOCS_CANONICAL_URL") or os.environ.get("JAXBOOK_BASE_URL")
    hosted = f"{base.rstrip('/')}/{page}" if base else f"<the book's address>/{page}"
    return [f"page:   {layout.HTML.as_posix()}/{page} (after make html)", f"online: {hosted}"]


# --- progress ----------------------------------------------------------------------------------


def progress_file(root: Path) -> Path:
    return root / STATE / "progress.json"


def load_progress(root: Path) -> dict[str, str]:
    """{problem name: PASSED or ATTEMPTED}; a problem not in it is not started."""
    path = progress_file(root)
    try:
        return json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}
    except json.JSONDecodeError as error:
        raise SystemExit(
            f"{path}: not the progress make practice writes ({error}); RECOMPUTE=1 rebuilds it"
        ) from None


def save_progress(root: Path, progress: dict[str, str]) -> None:
    path = progress_file(root)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(progress, indent=1, sort_keys=True) + "\n", encoding="utf-8")


def original(problem: Problem) -> bytes:
    """The starter as git has it (what ``r`` restores)."""
    done = subprocess.run(
        ["git", "show", "HEAD:./starter.py"], cwd=problem.folder, capture_output=True, check=True
    )
    return done.stdout


def contents(path: Path) -> bytes | None:
    """The file's bytes; None while it is missing (an editor replacing it)."""
    try:
        return path.read_bytes()
    except FileNotFoundError:
        return None


def untouched(problem: Problem) -> bool:
    """The starter is git's: the problem is not started, whatever its check says."""
    try:
        return contents(problem.starter) == original(problem)
    except subprocess.CalledProcessError:  # not in git: every starter counts as an attempt
        return False


def state(problem: Problem, progress: dict[str, str]) -> str:
    return progress.get(problem.name, NOT_STARTED)


def counts(problems: list[Problem], progress: dict[str, str]) -> str:
    """``3 passed, 1 attempted, 31 not started (of 35)``."""
    found = {s: sum(state(p, progress) == s for p in problems) for s in (PASSED, ATTEMPTED, NOT_STARTED)}
    return f"{', '.join(f'{n} {s}' for s, n in found.items())} (of {len(problems)})"


def table(problems: list[Problem], progress: dict[str, str], current: Problem | None = None) -> str:
    """The progress table: a count, then one line per problem in plan order."""
    lines = [f"Study plan: {counts(problems, progress)}"]
    for p in problems:
        mark = ">" if p == current else " "
        lines.append(f"{mark} {state(p, progress):12} {p.name:40} {p.title()}")
    return "\n".join(lines)


# --- the warm worker -----------------------------------------------------------------------------


def checked(folder: Path, practice: Path) -> dict:
    """Check ``folder``'s starter in this process (``make check``'s code) and describe the result:
    status, the import error, each requirement's state, the smallest failing examples, the verdict."""
    from jaxbook.practice import SOLVED, report, run

    shown = (folder / "starter.py").relative_to(practice.parent).as_posix()
    code, summary, error = run(folder, "starter", practice)
    if summary is None:
        return {"status": ATTEMPTED, "error": f"{shown} does not import, so no test can run:\n\n{error}"}
    with contextlib.redirect_stdout(io.StringIO()) as printed:
        verdict = report(summary, code, shown)
    requirements = []
    for number, sentence in summary.requirements.items():
        outcomes = [summary.outcomes.get(t) for t, numbers in summary.checks.items() if number in numbers]
        passed = sum(o == "passed" for o in outcomes)
        mark = f"{'PASS' if passed == len(outcomes) else 'FAIL'} {passed}/{len(outcomes)}"
        requirements.append((number, mark if outcomes else "no test", sentence))
    return {
        "status": PASSED if verdict == SOLVED else ATTEMPTED,
        "requirements": requirements,
        "examples": {t: IMPL.sub("", e) for t, e in summary.examples.items() if e},
        "collect_errors": summary.collect_errors,
        "verdict": printed.getvalue().strip().splitlines()[-1],
    }


def serve(practice: Path) -> None:
    """The worker: import JAX once, then answer each request line (a problem folder) on stdin with
    a line of JSON on stdout; what pytest prints goes to .study/last-check.log."""
    from jaxbook import runtime

    runtime.configure(compilation_cache=ROOT / runtime.TEST_COMPILATION_CACHE)
    import hypothesis  # noqa: F401  (imported once here, not by the first check)
    import jax.numpy as jnp
    import pytest  # noqa: F401

    jnp.zeros(1).block_until_ready()  # starts the CPU backend
    answers = os.fdopen(os.dup(1), "w")
    answers.write("ready\n")
    answers.flush()
    log = practice.parent / STATE / "last-check.log"
    for line in sys.stdin:
        with open(log, "w") as out:
            os.dup2(out.fileno(), 1)
            result = checked(Path(line.strip()), practice)
            sys.stdout.flush()
        answers.write(json.dumps(result) + "\n")
        answers.flush()


class Worker:
    """A warm worker process; a check that runs past ``limit`` seconds kills it and starts another."""

    def __init__(self, practice: Path, limit: float):
        self.practice, self.limit, self.process = practice, limit, None

    def start(self) -> None:
        state_dir = self.practice.parent / STATE
        state_dir.mkdir(exist_ok=True)
        with open(state_dir / "worker.log", "a") as log:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "jaxbook.study", "--worker", "--practice", str(self.practice)],
                cwd=ROOT,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=log,
                text=True,
                start_new_session=True,  # its own process group: stopped as a whole
            )
        self.ready = False

    def stop(self) -> None:
        if self.process is None:
            return
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait()
        self.process.stdin.close()
        self.process.stdout.close()
        self.process = None

    def _line(self, timeout: float) -> str | None:
        """The worker's next line: "" when it ended, None when it gave none within ``timeout`` seconds."""
        ready, _, _ = select.select([self.process.stdout], [], [], timeout)
        return self.process.stdout.readline() if ready else None

    def check(self, folder: Path) -> dict:
        if self.process is None or self.process.poll() is not None:
            self.start()
        if not self.ready:
            self.ready = self._line(LIMIT) == "ready\n"  # the start, with JAX's import, once
        if not self.ready:
            self.stop()
            log = (self.practice.parent / STATE / "worker.log").relative_to(self.practice.parent)
            return {"status": ATTEMPTED, "error": f"The checker did not start: see {log}."}
        self.process.stdin.write(f"{folder}\n")
        self.process.stdin.flush()
        answer = self._line(self.limit)
        if answer == "":
            self.stop()
            log = (self.practice.parent / STATE / "worker.log").relative_to(self.practice.parent)
            return {"status": ATTEMPTED, "error": f"The checker ended during the check: see {log}."}
        if answer is None:
            self.stop()
            return {
                "status": ATTEMPTED,
                "error": f"Stopped: the check did not finish within {self.limit:g} s (a loop that never "
                "ends?). The checker was restarted; fix the starter and save again.",
            }
        return json.loads(answer)


# --- the terminal ----------------------------------------------------------------------------------


def screen(study: Study) -> str:
    """What the terminal shows: progress, the current problem, its last check, hints, keys."""
    p, width = study.current, shutil.get_terminal_size().columns
    lines = [
        f"Study plan: {counts(study.problems, study.progress)}",
        f"Problem {study.problems.index(p) + 1} of {len(study.problems)}: {p.name} ({state(p, study.progress)})",
        "",
        p.title(),
        *(f"  {link}" for link in links(p, study.root)),
        f"  edit:   {p.starter.relative_to(study.root)} (checked on every save)",
        "",
    ]
    result = study.result or {}
    if result.get("error"):
        lines += [result["error"].rstrip(), ""]
    elif result:
        lines += ["Requirements (PASS when every test that checks it passes; tests passed / tests):"]
        for number, shown, sentence in result["requirements"]:
            lines += textwrap.wrap(
                f"{number}. {sentence}",
                width - 2,
                initial_indent=f"  {shown:8}  ",
                subsequent_indent=" " * 15,
            )
        for test, example in result["examples"].items():
            lines += ["", f"Smallest failing example of {test}:", textwrap.indent(example, "  ")]
        if result["collect_errors"]:
            lines += ["", "The tests could not be collected."]
        lines += ["", result["verdict"], f"(pytest's report of each test: {STATE}/last-check.log)", ""]
    else:
        lines += ["Checking...", ""]
    for number, (title, text) in enumerate(study.hints[: study.shown_hints], 1):
        lines += [f"{title} ({number}/{len(study.hints)})", textwrap.indent(text, "  "), ""]
    if study.message:
        lines += [study.message, ""]
    lines.append(KEYS)
    return "\n".join(lines)


class Study:
    """The study loop's state: the plan, the progress, the current problem and its last check."""

    def __init__(self, practice: Path, start: Problem | None, limit: float):
        self.practice, self.root = practice, practice.parent
        self.problems = plan(practice)
        self.progress = load_progress(self.root)
        todo = [p for p in self.problems if state(p, self.progress) != PASSED]
        self.worker = Worker(practice, limit)
        self.events: queue.Queue = queue.Queue()
        self.message = ""
        self.go(start or (todo or self.problems)[0])

    def go(self, problem: Problem) -> None:
        self.current, self.result, self.shown_hints = problem, None, 0
        self.hints = hints(problem.page)

    def draw(self, text: str | None = None) -> None:
        sys.stdout.write(CLEAR + (text or screen(self)) + "\n")
        sys.stdout.flush()

    def check(self) -> None:
        """Check the current starter, record the progress, and move on when it passes."""
        self.result, self.checked = None, contents(self.current.starter)
        self.draw()
        self.result = self.worker.check(self.current.folder)
        self.progress[self.current.name] = self.result["status"]
        if untouched(self.current) and self.result["status"] != PASSED:
            del self.progress[self.current.name]
        save_progress(self.root, self.progress)
        if self.result["status"] == PASSED:
            solved = self.current
            if all(state(p, self.progress) == PASSED for p in self.problems):
                self.message = f"Solved {solved.name}: every problem of the plan passes. Well done!"
            else:
                self.next()
                self.message = f"Solved {solved.name}! Next in the plan: {self.current.name}."
                self.check()
                return
        self.draw()

    def next(self) -> None:
        """The next problem in the plan that has not passed (after the current one)."""
        at = self.problems.index(self.current)
        after = self.problems[at + 1 :] + self.problems[: at + 1]
        self.go(next((p for p in after if state(p, self.progress) != PASSED), after[0]))

    def reset(self) -> None:
        """Back to git's starter, checked; the attempt is kept in .study/backups/."""
        backup = self.root / STATE / "backups" / self.current.starter.relative_to(self.practice)
        backup = backup.with_name(f"starter.py.bak-{time.strftime('%Y%m%d-%H%M%S')}")
        try:
            committed = original(self.current)
        except subprocess.CalledProcessError as error:
            self.message = f"Cannot reset: git has no starter here ({error.stderr.decode().strip()})"
            self.draw()
            return
        backup.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(self.current.starter, backup)
        self.current.starter.write_bytes(committed)
        self.progress.pop(self.current.name, None)
        save_progress(self.root, self.progress)
        self.message = f"Reset {self.current.starter.relative_to(self.root)}; your attempt is in {backup.relative_to(self.root)}"
        self.check()

    def key(self, key: str) -> bool:
        """Act on a key; False to quit."""
        self.message = ""
        if key == "q":
            return False
        if key == "h":
            self.shown_hints += 1
            if self.shown_hints > len(self.hints):
                self.shown_hints = len(self.hints)
                self.message = "No more hints: the reference solution is at the bottom of the page."
        elif key == "r":
            self.reset()
            return True
        elif key == "s":
            self.next()
            self.check()
            return True
        elif key == "l":
            self.draw(table(self.problems, self.progress, self.current) + "\n\n" + KEYS)
            return True
        elif key.isprintable():
            self.message = f"{key!r}: not a key of make practice ({KEYS})"
        else:
            return True  # a part of an arrow key, say: nothing to do
        self.draw()
        return True

    def watch(self, stop: threading.Event) -> None:
        """Post every save of a starter (the loop acts on the current one's)."""
        import watchfiles

        only_starters = lambda change, path: Path(path).name == "starter.py"  # noqa: E731
        for changes in watchfiles.watch(self.practice, watch_filter=only_starters, stop_event=stop):
            for _, path in changes:
                self.events.put(("saved", Path(path)))

    def read_keys(self) -> None:
        while key := os.read(sys.stdin.fileno(), 1):
            self.events.put(("key", key.decode(errors="replace")))

    def run(self) -> None:
        stop = threading.Event()
        threading.Thread(target=self.watch, args=(stop,), daemon=True).start()
        threading.Thread(target=self.read_keys, daemon=True).start()
        try:
            self.check()
            while True:
                try:
                    kind, value = self.events.get(timeout=0.5)
                except queue.Empty:
                    continue
                if kind == "key" and not self.key(value):
                    break
                if kind == "saved" and value == self.current.starter and contents(value) != self.checked:
                    self.message = ""
                    self.check()
        finally:
            stop.set()
            self.worker.stop()


def recompute(practice: Path, limit: float) -> dict[str, str]:
    """The progress, from the starters: an untouched one is not started, the others are checked."""
    worker, progress = Worker(practice, limit), {}
    try:
        for problem in plan(practice):
            if not untouched(problem):
                progress[problem.name] = worker.check(problem.folder)["status"]
                print(f"  {progress[problem.name]:12} {problem.name}", flush=True)
    finally:
        worker.stop()
    save_progress(practice.parent, progress)
    return progress


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--problem", help="start at this problem (as make check's PROBLEM=)")
    parser.add_argument("--recompute", action="store_true", help="rebuild the progress from the starters")
    parser.add_argument("--limit", type=float, default=LIMIT, help="seconds a check may run")
    parser.add_argument("--practice", type=Path, default=PRACTICE, help=argparse.SUPPRESS)
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    practice = args.practice.resolve()
    if args.worker:
        serve(practice)
        return 0
    from jaxbook.practice import ProblemNameError, find_problem

    try:
        folder = find_problem(args.problem, practice) if args.problem else None
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
    study = Study(practice, start, args.limit)
    import termios
    import tty

    saved = termios.tcgetattr(sys.stdin)
    tty.setcbreak(sys.stdin)  # one key at a time, not echoed
    try:
        study.run()
    except KeyboardInterrupt:
        pass
    finally:
        termios.tcsetattr(sys.stdin, termios.TCSADRAIN, saved)
    print()
    print(table(study.problems, study.progress))
    return 0


if __name__ == "__main__":
    sys.exit(main())
