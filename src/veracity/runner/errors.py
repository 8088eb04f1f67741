"""The runner's executors' names and its error, in a module of their own: the executors
raise it, and so does the Ray runner they import (lazily), which would otherwise import
them back; the run settings name an executor without loading the runner."""

from typing import Literal, get_args

Executor = Literal["local", "ray"]
EXECUTORS: tuple[Executor, ...] = get_args(Executor)


class ExecutorError(Exception):
    """The executor cannot run the evaluation: Ray is not installed, there is no cluster at
    the address, or its workers were lost for good."""
