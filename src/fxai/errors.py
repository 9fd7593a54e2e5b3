"""The errors whose message says all (the file or key, what failed, what to do): the CLI
prints them without a traceback. The bottom layer: every module may raise them."""

import contextlib


class DataError(ValueError):
    """A dataset file or registry entry is unusable (names the file or entry and the problem)."""


class FetchError(RuntimeError):
    """A raw file could not be obtained from the mirror or any URL (names what was tried)."""


class ModelError(ValueError):
    """A model file is missing, corrupt or of the wrong kind (names the file, says what to do)."""


class ModelKindError(ModelError):
    """A model file holds a model of a kind fxai does not read (names it and what fxai
    reads): a usage error, exit 2 in the CLI."""


class ScoreError(ValueError):
    """A user score that cannot be loaded or returned something other than one finite
    number per feature (the message names the score)."""


class NearTieError(ValueError):
    """Too many completions of an NBC instance tie (within float rounding) to check each one:
    the explanation cannot be decided exactly (the message says how many)."""


@contextlib.contextmanager
def interruptible():
    """Ctrl-C inside a SAT solver as the ``KeyboardInterrupt`` it is: PySAT's solvers catch
    SIGINT themselves and raise their own ``pysolvers.error`` ("Caught keyboard
    interrupt"), which would otherwise end a command with a traceback and exit 1."""
    try:
        yield
    except Exception as e:
        if type(e).__module__ == "pysolvers" and "keyboard interrupt" in str(e).lower():
            raise KeyboardInterrupt from None
        raise
