"""Whether a ``--dask`` address answers, asked before anything is sent to it.

dask.distributed waits 30 s by default for a scheduler that is not there, and
then fails with a timeout deep in its client; a user who mistyped the port
should hear so at once.  A TCP connection to the address is tried with a short
timeout: refused, unresolvable or silent, the sweep is refused (exit 2) with
the address.  Schemes other than ``tcp``/``tls`` (``inproc``, ``ucx``) are left
to dask.
"""

from __future__ import annotations

import socket
from urllib.parse import urlsplit

__all__ = ["CONNECT_SECONDS", "unreachable"]

#: How long the address may take to accept a connection (the command fails within it).
CONNECT_SECONDS = 5.0


def unreachable(address: str, timeout: float = CONNECT_SECONDS) -> str | None:
    """Why no Dask scheduler can be at ``address``, or None when it accepts connections."""
    parts = urlsplit(address if "://" in address else f"tcp://{address}")
    if parts.scheme not in ("tcp", "tls"):
        return None
    try:
        host, port = parts.hostname, parts.port
    except ValueError as e:  # a port that is no number
        return f"not a HOST:PORT address ({e})"
    if not host:
        return "not a HOST:PORT address (expected tcp://HOST:8786)"
    try:
        with socket.create_connection((host, port or 8786), timeout=timeout):
            return None
    except socket.gaierror as e:
        return f"no Dask scheduler: the host {host} is unknown ({e.strerror or e})"
    except TimeoutError:
        return f"no Dask scheduler answered within {timeout:g} s"
    except OSError as e:
        return f"no Dask scheduler answers ({e.strerror or e})"
