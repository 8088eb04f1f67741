"""The command line: ``veracity run`` and friends."""

from veracity.cli.app import app, main

__all__ = ["app", "main"]
