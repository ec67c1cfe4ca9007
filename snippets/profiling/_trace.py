"""Helpers for the profiler-trace cells: the files a trace wrote, as the
page shows them on any host, the recording the page shows, and a
drawing of a trace's timeline."""

import socket
from pathlib import Path

import jax
import matplotlib.pyplot as plt


def shown_name(name: str) -> str:
    """``name``, with the host's name that starts it (if any) as <host>."""
    host = socket.gethostname()
    if name.startswith(f"{host}."):
        return "<host>" + name[len(host) :]
    return name


def trace_files(log_dir) -> list[str]:
    """The files a trace wrote under log_dir, sorted, as
    plugins/profile/<run>/<file>: the run's time stamp as <run>, the
    host's name as <host>."""
    shown = []
    for path in Path(log_dir).rglob("*"):
        if path.is_file():
            rel = path.relative_to(log_dir)
            shown.append(
                str(Path(*rel.parts[:2], "<run>", shown_name(rel.name)))
            )
    return sorted(shown)


def record_forward_steps(log_dir, forward, *args):
    """Trace three calls of the jitted forward(*args) into log_dir, each
    in a span named forward_step."""
    forward(*args).block_until_ready()  # compile before tracing
    with jax.profiler.trace(log_dir, create_perfetto_trace=True):
        for _ in range(3):
            # a named span in the timeline
            with jax.profiler.TraceAnnotation("forward_step"):
                forward(*args).block_until_ready()


def draw_timeline(steps, ops, gaps, t0):
    """A timeline of a trace's steps and operations (spans of the trace),
    each (start, end) of gaps shaded as the host's time; times in µs,
    drawn in ms from t0."""

    def ms(t):
        return (t - t0) / 1e3

    fig, ax = plt.subplots(figsize=(7, 2.4))
    for start, end in gaps:
        ax.axvspan(ms(start), ms(end), color="#f4c7c3", zorder=0)
        ax.text(
            ms((start + end) / 2),
            1.5,
            "gap: host",
            ha="center",
            color="#a50f15",
        )
    ax.broken_barh(
        [(ms(e["ts"]), e["dur"] / 1e3) for e in steps],
        (0.65, 0.6),
        facecolor="#1f77b4",
        edgecolor="white",
    )
    for i, e in enumerate(steps):
        ax.text(
            ms(e["ts"] + e["dur"] / 2),
            0.95,
            f"step {i + 1}",
            ha="center",
            va="center",
            color="white",
        )
    ax.broken_barh(
        [(ms(e["ts"]), e["dur"] / 1e3) for e in ops],
        (-0.3, 0.6),
        facecolor="#ff7f0e",
        edgecolor="white",
        linewidth=0.3,
    )
    ax.set_yticks([0.95, 0], ["forward_step", "operations"])
    ax.set_ylim(-0.5, 1.8)
    ax.set_xlabel("time since the first forward_step began [ms]")
    ax.spines[["top", "right", "left"]].set_visible(False)
    ax.tick_params(axis="y", length=0)
    fig.tight_layout()
    plt.show()
