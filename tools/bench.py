"""Build-time benchmark: ``make bench`` (add ``BENCH="--setup --test"`` for the slow figures).

Prints every figure with its target, so the gap shows at a glance; asserts nothing (machines are
noisy: the load average is printed with the figures).

- clean:   strict build of the whole site from nothing (pages executed)
- no-op:   the same build again, nothing changed
- touch:   a snippet, the helper it imports and its page touched, content unchanged
- edit:    one snippet edited: only the pages that load it are executed
- floor:   every snippet run once in one warm Python process + a build with execution off
- ratio:   clean / floor
- set-up:  ``--setup``: a fresh .venv from requirements.lock (tools/bootstrap.sh, in a scratch copy)
- test:    ``--test``: wall time of the whole test suite (``make test`` without the set-up), from
           nothing built, as CI runs it (everything in _build but the bench's own builds is removed
           first; the browser tests need Chromium, which this installs as make test does), and
           where the workers' time went, file by file (pytest's JUnit report), and where the
           machine's CPU went, by kind of process (browser, kernels, Sphinx, pytest; from /proc);
           then the suite again, nothing changed (every test skipped as unchanged since it passed,
           tests/pass_cache.py), and after editing one snippet (its page rebuilt, the tests that read
           it re-checked), whose target is the bench's own rebuild of that edit plus 45 s
- wrong:   lines of the kept wrong practice solutions (every file in a wrong/ folder of practice/)

Each timed figure also shows the CPU the whole machine spent meanwhile (busy core-seconds, from
/proc/stat): on a machine whose cores are all busy, only less work makes it faster.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from jaxbook import ROOT, pages
from jaxbook.build import strict_command

OUT = ROOT / "_build" / "bench"
#: The suite's JUnit report (--test): each test's setup + call + teardown time.
JUNIT = OUT / "tests.xml"
EDITED = ROOT / "snippets" / "arrays" / "at_methods.py"
TOUCHED = [
    ROOT / "snippets" / "training" / "init_params.py",
    ROOT / "snippets" / "training" / "_model.py",
    ROOT / "guide" / "training.md",
]
missing = [p.relative_to(ROOT).as_posix() for p in [EDITED, *TOUCHED] if not p.is_file()]
if missing:
    raise SystemExit(f"bench: files it edits or touches are gone, update tools/bench.py: {missing}")
EXECUTED = re.compile(r"^jaxbook: executed (\S+?)\.md ", re.M)


def busy_seconds() -> float | None:
    """Core-seconds the machine has been busy since boot (Linux), or None."""
    try:
        fields = [int(f) for f in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    except (OSError, ValueError):
        return None
    return (sum(fields) - fields[3] - fields[4]) / os.sysconf("SC_CLK_TCK")  # minus idle, iowait


CPU: dict[str, float] = {}  # figure -> busy core-seconds of the machine while it ran


@contextlib.contextmanager
def machine_cpu(name: str):
    """Record in CPU[name] the core-seconds the machine is busy during the block (if it can tell)."""
    busy = busy_seconds()
    yield
    if busy is not None:
        CPU[name] = busy_seconds() - busy


def cores(name: str, seconds: float) -> str:
    """``name``'s CPU: busy core-seconds, and how many cores that kept busy on average."""
    if name not in CPU:
        return ""
    return f"; {CPU[name]:.0f} core-s ({CPU[name] / seconds:.2f} cores busy)"


def timed_build(out: Path, store: Path | None = None) -> tuple[float, list[str]]:
    """Seconds, and the pages executed: ``make html`` into ``out``, with the execution store in
    ``store`` (default: ``out/store``, the bench's own)."""
    command = [sys.executable, "-m", "jaxbook.build", "--out", str(out)]
    env = {**os.environ, "JAXBOOK_STORE": str(store or out / "store")}
    start = time.perf_counter()
    result = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, env=env)
    elapsed = time.perf_counter() - start
    if result.returncode:
        sys.exit(f"build failed:\n{result.stdout[-3000:]}\n{result.stderr[-3000:]}")
    return elapsed, EXECUTED.findall(result.stdout)


def pages_loading(snippet: Path) -> int:
    """How many pages load ``snippet`` (what an edit of it must execute)."""
    return sum(snippet.resolve() in pages.read(page).snippets() for page in pages.book_pages(ROOT))


def warm_snippets() -> tuple[float, int]:
    """Run every snippet once in this process (JAX imported once), as the floor of execution."""
    from jaxbook import runtime

    runtime.configure()
    os.environ["MPLBACKEND"] = "Agg"
    os.chdir(ROOT)
    import jax  # noqa: F401 - imported before timing starts: the warm process

    from jaxbook import snippet

    files = pages.snippet_files(ROOT)
    start = time.perf_counter()
    for path in files:
        with (
            snippet.restored_state(),
            contextlib.redirect_stdout(io.StringIO()),
            contextlib.redirect_stderr(io.StringIO()),
        ):
            snippet.execute(snippet.source_of(path), path, snippet.main_namespace(path))
        import matplotlib.pyplot as plt

        plt.close("all")
    return time.perf_counter() - start, len(files)


def setup_time() -> float:
    """A fresh environment from the lock, as a new clone gets it (in a scratch copy)."""
    with tempfile.TemporaryDirectory(prefix="jaxbook-setup-") as scratch:
        copy = Path(scratch)
        (copy / "tools").mkdir()
        for name in (
            "tools/bootstrap.sh",
            "requirements.lock",
            "tools/uv-requirements.txt",
            ".python-version",
        ):
            if (ROOT / name).is_file():
                shutil.copy(ROOT / name, copy / name)
        start = time.perf_counter()
        subprocess.run(["bash", "tools/bootstrap.sh"], cwd=copy, check=True)
        return time.perf_counter() - start


def tally(rows) -> list[tuple[str, float, int]]:
    """(key, seconds, rows) per key of the (key, seconds) ``rows``, most seconds first."""
    seconds: dict[str, float] = {}
    count: dict[str, int] = {}
    for key, spent in rows:
        seconds[key] = seconds.get(key, 0.0) + spent
        count[key] = count.get(key, 0) + 1
    return sorted(((k, seconds[k], count[k]) for k in seconds), key=lambda row: -row[1])


def process_kind(argv: list[str], cwd: str) -> str:
    """What a process of the suite is, from its command line and its working folder (in the
    repository: the site's build; elsewhere: a throwaway book of a test)."""
    line = " ".join(argv)
    here = cwd == str(ROOT) or cwd.startswith(f"{ROOT}/")
    pytest = "-m pytest" in line or "exec(eval(sys.stdin.readline()))" in line  # or xdist's worker
    if "chromium" in line or Path(argv[0]).name == "node":
        return "browser: Chromium, Playwright's driver"
    if "jaxbook.kernel" in line:
        return "book kernels: the site's build" if here else "book kernels: test books"
    if "ipykernel_launcher" in line:
        return "reader notebooks' kernels"
    if "sphinx" in line:
        return "Sphinx: the site's build" if here else "Sphinx: test books"
    if pytest and any(arg.startswith("--impl=") for arg in argv):
        return "practice runs: starters, wrong solutions"
    if pytest:
        return "pytest: controller, workers, other runs"
    return "other processes"


class ProcessCPU:
    """CPU time of every process alive while the block runs, by :func:`process_kind` (Linux's
    /proc, sampled every ``interval`` s: a process shorter than that may be missed, and what it
    used counts as "not attributed")."""

    def __init__(self, interval: float = 0.2):
        self.interval, self.seen, self.kinds, self.kernel_threads = interval, {}, {}, set()
        self.tick = os.sysconf("SC_CLK_TCK")

    def sample(self, before: bool = False) -> None:
        for pid in os.listdir("/proc"):
            if not pid.isdigit() or pid in self.kernel_threads:
                continue
            try:
                with open(f"/proc/{pid}/stat", "rb") as file:
                    stat = file.read().rsplit(b")", 1)[1].split()
                key, used = (pid, stat[19]), int(stat[11]) + int(stat[12])
                if key not in self.seen:
                    with open(f"/proc/{pid}/cmdline", "rb") as file:
                        argv = file.read().decode(errors="replace").split("\0")
                    if argv == [""]:  # a kernel thread, or a process that just ended
                        if int(stat[6]) & 0x00200000:  # PF_KTHREAD: the OS's, never read again
                            self.kernel_threads.add(pid)
                        continue
                    self.kinds[key] = (
                        "the bench itself (this sampler)"
                        if int(pid) == os.getpid()
                        else process_kind(argv, os.readlink(f"/proc/{pid}/cwd"))
                    )
                    self.seen[key] = [used if before else 0, used]
            except (OSError, IndexError, ValueError):  # gone meanwhile, or not ours to read
                continue
            self.seen[key][1] = used

    def __enter__(self):
        import threading

        self.sample(before=True)
        self.done = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()
        return self

    def _run(self):
        while not self.done.wait(self.interval):
            self.sample()

    def __exit__(self, *exc):
        self.done.set()
        self.thread.join()

    def by_kind(self) -> list[tuple[str, float, int]]:
        """(kind, core-seconds, processes), most CPU first."""
        return tally(
            (self.kinds[key], (end - start) / self.tick)
            for key, (start, end) in self.seen.items()
            if end > start
        )


PROCESSES = ProcessCPU()  # --test: the suite's processes


def print_process_kinds(busy: float | None) -> None:
    rows = PROCESSES.by_kind()
    attributed = sum(seconds for _, seconds, _ in rows)
    total = busy if busy is not None else attributed
    print(f"\nmake test by kind of process: {total:.0f} busy core-s on the machine")
    for kind, seconds, processes in rows:
        print(f"  {kind:42} {seconds:7.1f} core-s {100 * seconds / total:4.0f} %   {processes} processes")
    if busy is not None:
        print(f"  {'not attributed (short processes, the OS)':42} {busy - attributed:7.1f} core-s")


def suite(*options: str) -> float:
    """Wall time of ``make test`` (as CI runs it); exits if a test fails (the figure would not be
    that of the suite)."""
    start = time.perf_counter()
    env = {k: v for k, v in os.environ.items() if k != "JAXBOOK_RECHECK"}
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", *options], cwd=ROOT, env={**env, "CI": "1"}
    )
    elapsed = time.perf_counter() - start
    if result.returncode:
        sys.exit(f"bench: the test suite failed (exit {result.returncode}); no figure for it")
    return elapsed


def test_times() -> tuple[float, float, float]:
    """Wall times of the whole suite: from nothing built (a fresh clone), again with nothing
    changed, and after :data:`EDITED` is edited (restored afterwards)."""
    subprocess.run(["bash", "tools/install_browser.sh"], cwd=ROOT, check=True)
    for path in (ROOT / "_build").iterdir():  # a fresh clone has no _build (the bench's own aside)
        if path != OUT:
            shutil.rmtree(path) if path.is_dir() else path.unlink()
    with machine_cpu("test"), PROCESSES:
        clean = suite(f"--junitxml={JUNIT}")
    again = suite()
    original = EDITED.read_text(encoding="utf-8")
    try:
        EDITED.write_text(original + "# edited by tools/bench.py\n", encoding="utf-8")
        edited = suite()
    finally:
        EDITED.write_text(original, encoding="utf-8")
    return clean, again, edited


def wrong_lines() -> int:
    """Lines of every kept wrong practice solution (whatever its form: module or patch)."""
    files = [p for p in (ROOT / "practice").rglob("*") if p.is_file() and "wrong" in p.parent.parts]
    return sum(len(p.read_text(encoding="utf-8").splitlines()) for p in files if "__pycache__" not in p.parts)


def test_parts(junit: Path) -> list[tuple[str, float, int]]:
    """(part, worker-seconds, tests) of the suite, most time first: a part is a test file of
    tests/, or practice/ (every problem's own tests)."""
    import xml.etree.ElementTree as ElementTree

    def part(case) -> str:
        module = case.get("classname", "").split(".")
        return "practice/" if module[0] == "practice" else "/".join(module) + ".py"

    return tally(
        (part(case), float(case.get("time", 0))) for case in ElementTree.parse(junit).iter("testcase")
    )


def print_test_parts(junit: Path, wall: float) -> None:
    parts = test_parts(junit)
    total = sum(seconds for _, seconds, _ in parts)
    print(
        f"\nmake test by file: {total:.0f} worker-s in {wall:.0f} s (setup + call + teardown of "
        "each test; the site's build runs beside them)"
    )
    for part, seconds, tests in parts:
        if seconds >= 0.01 * total:
            print(f"  {part:42} {seconds:7.1f} s {100 * seconds / total:4.0f} %   {tests} tests")
    rest = [row for row in parts if row[1] < 0.01 * total]
    if rest:
        print(f"  {len(rest)} other files {sum(row[1] for row in rest):37.1f} s")


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--setup", action="store_true", help="time a fresh set-up from the lock")
    parser.add_argument("--test", action="store_true", help="time the whole test suite")
    args = parser.parse_args(argv)
    load_before = os.getloadavg()

    shutil.rmtree(OUT, ignore_errors=True)
    with machine_cpu("clean"):
        clean, clean_pages = timed_build(OUT)
    noop, noop_pages = timed_build(OUT)
    for path in TOUCHED:
        path.touch()
    touch, touch_pages = timed_build(OUT)
    original = EDITED.read_text(encoding="utf-8")
    try:
        EDITED.write_text(original + "# edited by tools/bench.py\n", encoding="utf-8")
        edit, edit_pages = timed_build(OUT)
    finally:
        EDITED.write_text(original, encoding="utf-8")
    off_dir = OUT.with_name("bench-noexec")
    shutil.rmtree(off_dir, ignore_errors=True)
    no_exec, _ = timed_build(off_dir, store=OUT / "store")  # every result in the store: no execution
    shutil.rmtree(off_dir, ignore_errors=True)
    setup = setup_time() if args.setup else None
    tests, again, edited = test_times() if args.test else (None, None, None)
    snippets_time, count = warm_snippets()
    floor = snippets_time + no_exec

    rows = [
        (
            "clean build",
            f"{clean:7.1f} s",
            f"{len(clean_pages)} pages executed" + cores("clean", clean),
            f"<= floor ({floor:.1f} s)",
        ),
        ("no-op rebuild", f"{noop:7.1f} s", f"{len(noop_pages)} pages executed", "<= 3 s"),
        (
            "touch, unchanged",
            f"{touch:7.1f} s",
            f"{len(touch_pages)} pages executed",
            "0 pages  [" + ", ".join(p.relative_to(ROOT).as_posix() for p in TOUCHED) + "]",
        ),
        (
            "edit one snippet",
            f"{edit:7.1f} s",
            f"{len(edit_pages)} pages executed",
            f"{pages_loading(EDITED)} (the pages loading {EDITED.relative_to(ROOT).as_posix()})",
        ),
        (
            "serial floor",
            f"{floor:7.1f} s",
            f"{count} snippets warm {snippets_time:.1f} s + no-exec build {no_exec:.1f} s",
            "-",
        ),
        ("clean / floor", f"{clean / floor:7.2f}  ", "", "<= 0.7"),
        ("fresh set-up", f"{setup:7.1f} s" if setup is not None else "    (--setup)", "", "measured, cut"),
        (
            "make test",
            f"{tests:7.1f} s" if tests is not None else "    (--test)",
            f"{tests / clean:.2f} x clean" + cores("test", tests) if tests is not None else "",
            "<= 4.5 x clean",
        ),
        (
            "make test again",
            f"{again:7.1f} s" if again is not None else "    (--test)",
            "nothing changed",
            "<= 30 s",
        ),
        (
            "make test, edit",
            f"{edited:7.1f} s" if edited is not None else "    (--test)",
            f"{EDITED.relative_to(ROOT).as_posix()} edited",
            f"<= {edit + 45:.0f} s (its rebuild, {edit:.1f} s, + 45 s)",
        ),
        ("wrong solutions", f"{wrong_lines():7d}  ", "lines in practice/**/wrong/", "<= 2000"),
    ]
    print(
        f"machine: {os.cpu_count()} cores; load average {load_before[0]:.1f} before, "
        f"{os.getloadavg()[0]:.1f} after; sphinx {' '.join(strict_command()[5:7])}"
    )
    print(f"{'figure':18} {'value':>10}   {'detail':56} target")
    for name, value, detail, target in rows:
        print(f"{name:18} {value:>10}   {detail:56} {target}")
    if tests is not None:
        print_test_parts(JUNIT, tests)
        print_process_kinds(CPU.get("test"))


if __name__ == "__main__":
    main(sys.argv[1:])
