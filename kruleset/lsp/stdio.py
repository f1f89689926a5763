"""The server built with its features, served on stdin/stdout."""

from __future__ import annotations

from .features import register
from .server import KrServer

__all__ = ["build", "run_stdio"]


def build() -> KrServer:
    """The server with its features registered."""
    server = KrServer()
    register(server)
    return server


def run_stdio() -> None:
    build().start_io()
