"""Robust wall-clock comparisons: repeated, interleaved, median."""

import statistics
import time

import jax


def median_seconds(calls, repeats=15):
    """{name: call()} -> {name: median seconds of one call}.

    The calls take turns, round after round, so a busy machine slows all of
    them alike; each call is waited for (jax.block_until_ready) before the
    clock is read; and a few interrupted rounds do not move the median.
    """
    seconds = {name: [] for name in calls}
    for _ in range(repeats):
        for name, call in calls.items():
            start = time.perf_counter()
            jax.block_until_ready(call())
            seconds[name].append(time.perf_counter() - start)
    return {name: statistics.median(s) for name, s in seconds.items()}


def fastest_seconds(call, repeats=21):
    """Seconds of the fastest of `repeats` calls of call(), each waited for:
    what the call itself costs, without the time a busy machine kept it
    waiting for a processor."""
    seconds = []
    for _ in range(repeats):
        start = time.perf_counter()
        jax.block_until_ready(call())
        seconds.append(time.perf_counter() - start)
    return min(seconds)
