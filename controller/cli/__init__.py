"""``table-controller``: one module per command group; ``main`` is the console script."""

from controller.cli.main import main

__all__ = ["main"]
