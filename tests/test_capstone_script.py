"""The capstone's training script as guide/capstone_resume.md tells a reader to run it:
`python -m snippets.capstone._train FOLDER` trains and prints its progress, stops at Ctrl-C, and
run again resumes from the folder's latest complete checkpoint. (The page's cell runs it with
`--step-by-step` and checks that mode itself.)"""

from __future__ import annotations

import os
import signal
import subprocess
import sys

from jaxbook import ROOT

COMMAND = [sys.executable, "-m", "snippets.capstone._train"]


def environment() -> dict[str, str]:
    env = {**os.environ, "JAX_PLATFORMS": "cpu", "JAX_NUM_CPU_DEVICES": "8", "PYTHONPATH": str(ROOT)}
    env.pop("XLA_FLAGS", None)
    return env


def test_the_script_stops_at_ctrl_c_and_resumes_from_the_latest_complete_checkpoint(tmp_path):
    folder = tmp_path / "run"
    first = subprocess.Popen(
        [*COMMAND, str(folder)],
        cwd=tmp_path,
        env=environment(),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        # as a terminal would: Ctrl-C sends SIGINT, which a background test runner may ignore
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    said = []
    for line in first.stdout:
        said.append(line.rstrip("\n"))
        if said[-1] == "step 13":
            first.send_signal(signal.SIGINT)
    assert first.wait(timeout=300) == 0, "\n".join(said)
    assert said[:2] == ["step 1", "step 2"], said
    assert said[9].startswith("step 10: mean loss of the last 10 steps "), said
    assert said[-1] == "stopped; run the same command again to resume", said
    assert "step 40" not in " ".join(said)
    assert sorted(p.name for p in folder.iterdir()) == ["1", "10"]

    second = subprocess.run(
        [*COMMAND, str(folder)], cwd=tmp_path, env=environment(), capture_output=True, text=True, timeout=300
    )
    lines = second.stdout.splitlines()
    assert second.returncode == 0, second.stdout + second.stderr
    assert lines[:2] == ["restored step 10", "step 11"], lines
    assert lines[-1].startswith("step 40: mean loss of the last 10 steps "), lines
    assert sorted(p.name for p in folder.iterdir()) == ["30", "40"]
