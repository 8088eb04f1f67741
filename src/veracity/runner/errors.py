"""The runner's own error, in a module of its own: the executors raise it, and so does the
Ray runner they import (lazily), which would otherwise import them back."""


class ExecutorError(Exception):
    """The executor cannot run the evaluation: Ray is not installed, there is no cluster at
    the address, or its workers were lost for good."""
