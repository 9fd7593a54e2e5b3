"""One instance's work in a process of its own."""

from __future__ import annotations

import os
import pickle
import signal
from collections.abc import Callable


def in_own_process(fn: Callable[[], dict]) -> dict:
    """``fn()`` run in a forked child process (where ``os.fork`` exists), its result pickled
    back; an exception in the child is raised here. Each instance of a run file is then timed
    in a process of its own, as when a job runs one instance: the heap left by the earlier
    instances made the same enumeration up to ~15 % slower in CPU time (docs/benchmarks.md)."""
    if not hasattr(os, "fork"):
        return fn()
    r, w = os.pipe()
    # a SIGTERM during fork would be raised in fork's own hooks, which ignore exceptions:
    # held until the fork is done; then the parent stops as usual and the child just ends
    term = {signal.SIGTERM}
    signal.pthread_sigmask(signal.SIG_BLOCK, term)
    try:
        pid = os.fork()
    except BaseException:
        signal.pthread_sigmask(signal.SIG_UNBLOCK, term)
        raise
    if pid == 0:  # child: never returns into the parent's code
        code = 0
        try:
            os.close(r)  # with the parent gone, a write fails instead of waiting for ever
            signal.signal(signal.SIGTERM, signal.SIG_DFL)  # not the parent's run-file handler
            signal.pthread_sigmask(signal.SIG_UNBLOCK, term)
            try:
                data = pickle.dumps((True, fn()))
            except BaseException as e:  # noqa: BLE001 - passed to the parent, raised there
                code, data = 1, pickle.dumps((False, e))
            with os.fdopen(w, "wb") as fh:
                fh.write(data)
        finally:
            os._exit(code)
    os.close(w)
    try:
        with os.fdopen(r, "rb") as fh:
            signal.pthread_sigmask(signal.SIG_UNBLOCK, term)
            data = fh.read()
    except BaseException:  # e.g. SIGTERM: the instance goes with this job
        os.kill(pid, signal.SIGKILL)
        raise
    finally:
        _, status = os.waitpid(pid, 0)
    if not data:
        raise RuntimeError(f"the process running the instance ended without a result "
                           f"(wait status {status})")
    ok, value = pickle.loads(data)
    if not ok:
        raise value
    return value
