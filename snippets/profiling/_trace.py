"""A profiler trace's file names as the page shows them, on any host."""

import socket


def shown_name(name: str) -> str:
    """``name``, with the host's name that starts it (if any) as <host>."""
    host = socket.gethostname()
    if name.startswith(f"{host}."):
        return "<host>" + name[len(host) :]
    return name
