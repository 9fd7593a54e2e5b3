"""Errors of the data layer: one clear paragraph saying what failed and what to do."""


class DataError(ValueError):
    """A dataset file or registry entry is unusable (names the file or entry and the problem)."""


class FetchError(RuntimeError):
    """A raw file could not be obtained from the mirror or any URL (names what was tried)."""
