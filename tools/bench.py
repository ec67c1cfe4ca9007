"""Build-time benchmark: ``make bench``. Prints figures and ratios; asserts nothing (machines are noisy).

- clean:   strict build of the whole site from nothing
- no-op:   the same build again, nothing changed
- touch:   the same build after touching one snippet (and how many pages were executed)
- floor:   every snippet run once in one warm Python process + a build with execution off
- ratio:   clean / floor (target <= 1.3), no-op (target <= 3 s), touch (target: 1 page executed)
"""
from __future__ import annotations

import contextlib
import io
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from jaxbook.build import strict_command  # noqa: E402

OUT = ROOT / "_build" / "bench"
TOUCHED = ROOT / "snippets" / "arrays" / "at_methods.py"


def timed_build(out: Path, *extra: str, strict: bool = True) -> tuple[float, int, str]:
    command = strict_command(ROOT, out, *extra)
    if not strict:  # without execution, MyST-NB warns that cells have no lexer: expected here
        command.remove("-W")
    start = time.perf_counter()
    result = subprocess.run(command, cwd=ROOT, capture_output=True, text=True)
    elapsed = time.perf_counter() - start
    if result.returncode:
        sys.exit(f"build failed:\n{result.stdout[-3000:]}\n{result.stderr[-3000:]}")
    return elapsed, result.stdout.count("Executing notebook"), result.stdout


def warm_snippets() -> tuple[float, int]:
    """Run every snippet once in this process (JAX imported once), as the floor of execution."""
    from jaxbook import runtime

    runtime.configure()
    os.environ["MPLBACKEND"] = "Agg"
    os.chdir(ROOT)
    import jax  # noqa: F401 - imported before timing starts: the warm process

    from jaxbook import snippet

    files = sorted(p for p in (ROOT / "snippets").rglob("*.py") if not p.name.startswith("_"))
    start = time.perf_counter()
    for path in files:
        with snippet.restored_state(), contextlib.redirect_stdout(io.StringIO()), \
                contextlib.redirect_stderr(io.StringIO()):
            snippet.execute(snippet.source_of(path), path, snippet.main_namespace(path))
        import matplotlib.pyplot as plt
        plt.close("all")
    return time.perf_counter() - start, len(files)


def main() -> None:
    shutil.rmtree(OUT, ignore_errors=True)
    clean, clean_pages, _ = timed_build(OUT)
    noop, noop_pages, _ = timed_build(OUT)
    TOUCHED.touch()
    touch, touch_pages, _ = timed_build(OUT)
    off_dir = OUT.with_name("bench-noexec")
    shutil.rmtree(off_dir, ignore_errors=True)
    no_exec, _, _ = timed_build(off_dir, "-D", "nb_execution_mode=off", strict=False)
    shutil.rmtree(off_dir, ignore_errors=True)
    snippets_time, count = warm_snippets()
    floor = snippets_time + no_exec
    print(f"machine: {os.cpu_count()} cores")
    print(f"clean build          {clean:7.1f} s   ({clean_pages} pages executed)")
    print(f"no-op rebuild        {noop:7.1f} s   ({noop_pages} pages executed; target <= 3 s)")
    print(f"touch one snippet    {touch:7.1f} s   ({touch_pages} page(s) executed; target 1) "
          f"[{TOUCHED.relative_to(ROOT)}]")
    print(f"floor                {floor:7.1f} s   = {count} snippets in one warm process "
          f"{snippets_time:.1f} s + build without execution {no_exec:.1f} s")
    print(f"ratio clean / floor  {clean / floor:7.2f}     (target <= 1.3)")


if __name__ == "__main__":
    main()
