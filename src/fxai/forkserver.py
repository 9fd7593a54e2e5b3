"""A fork server for a local workflow run: Python and the numerical libraries imported once.

    python -m fxai.forkserver -- snakemake --cores 2 ...      (what `make run` does)

Most jobs of the default profile do less work than starting Python and importing numpy, pandas,
scipy and scikit-learn (about 1.2 s of CPU a job, docs/benchmarks.md). This module imports them
once, loads fxai's compiled code once (:func:`warm_up`), listens on a Unix socket, and runs
COMMAND with ``FXAI_FORKSERVER`` set to that socket; every ``fxai`` command of COMMAND's jobs
then hands its arguments, working directory, environment and standard streams to the server
(:mod:`fxai.forkclient`), which forks a child that runs the command as a fresh process would:
its own CPU time, usage line, signals (the job's SIGTERM or SIGINT is passed on; a job killed
outright closes its connection and the child is killed) and exit status, which the job exits
with. The server stops when COMMAND ends and exits with COMMAND's status.

Without ``FXAI_FORKSERVER`` (a cluster's compute nodes, the tests), or when the server does not
answer, each command runs in its own process as before. Linux only (``os.pidfd_open``).
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import selectors
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import time
import traceback
from pathlib import Path

from fxai import cli, forkclient

#: imported once by the server (what the workflow's commands import; a missing one is skipped)
PRELOAD = ("numpy", "pandas", "scipy.stats", "scipy.optimize", "sklearn.model_selection",
           "sklearn.tree", "sklearn.ensemble", "sklearn.naive_bayes", "sklearn.datasets",
           "joblib", "xgboost", "lightgbm", "numba", "matplotlib", "shap", "lime.lime_tabular",
           "Orange.data", "Orange.classification")


def _read_request(conn: socket.socket) -> tuple[dict, list[int]]:
    data, fds, _, _ = socket.recv_fds(conn, 1 << 16, 3)
    if len(data) < 8 or len(fds) != 3:
        for fd in fds:
            os.close(fd)
        raise ValueError("not a request")
    (size,) = struct.unpack("!Q", data[:8])
    body = data[8:]
    while len(body) < size:
        chunk = conn.recv(size - len(body))
        if not chunk:
            raise ValueError("request cut short")
        body += chunk
    return json.loads(body), fds


def _child(req: dict, fds: list[int], inherited: list[socket.socket]) -> None:
    """In the forked child: become the job's process and run its command; never returns."""
    code = 1
    try:
        for s in inherited:
            s.close()
        for target, fd in enumerate(fds):
            os.dup2(fd, target)
            os.close(fd)
        signal.signal(signal.SIGINT, signal.default_int_handler)
        for s in (signal.SIGTERM, signal.SIGHUP, signal.SIGCHLD):
            signal.signal(s, signal.SIG_DFL)
        os.chdir(req["cwd"])
        os.environ.clear()
        os.environ.update(req["env"])
        os.environ.pop(forkclient.ENV, None)  # its own subprocesses start as usual
        sys.argv = ["fxai", *req["argv"]]
        code = cli.main_here(req["argv"])
    except SystemExit as e:
        code = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
        if not isinstance(e.code, int | None):
            print(e.code, file=sys.stderr)
    except BaseException:  # noqa: BLE001 - printed as a fresh process would
        traceback.print_exc()
    finally:
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        finally:
            os._exit(code)


class Server:
    """Accepts requests on ``path`` and forks a child per request (single-threaded)."""

    def __init__(self, path: str) -> None:
        self.listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.listener.bind(path)
        self.listener.listen(64)
        self.sel = selectors.DefaultSelector()
        self.sel.register(self.listener, selectors.EVENT_READ, ("accept", None))
        self.clients: dict[int, tuple[socket.socket, int]] = {}  # pid -> conn, pidfd

    def _accept(self) -> None:
        conn, _ = self.listener.accept()
        try:
            req, fds = _read_request(conn)
        except (OSError, ValueError):
            conn.close()
            return
        sys.stdout.flush()
        sys.stderr.flush()
        pid = os.fork()
        if pid == 0:
            _child(req, fds, [self.listener, conn, *(c for c, _ in self.clients.values())])
        for fd in fds:
            os.close(fd)
        pidfd = os.pidfd_open(pid)
        self.clients[pid] = (conn, pidfd)
        self.sel.register(conn, selectors.EVENT_READ, ("client", pid))
        self.sel.register(pidfd, selectors.EVENT_READ, ("exit", pid))

    def _from_client(self, pid: int) -> None:
        conn, _ = self.clients[pid]
        try:
            msg = conn.recv(64)
        except OSError:
            msg = b""
        if not msg:  # the job died: its command goes with it
            os.kill(pid, signal.SIGKILL)
            self.sel.unregister(conn)
            return
        for i in range(0, len(msg) - 1, 2):
            if msg[i:i + 1] == b"S":
                os.kill(pid, msg[i + 1])

    def _exited(self, pid: int) -> None:
        conn, pidfd = self.clients.pop(pid)
        _, status = os.waitpid(pid, 0)
        self.sel.unregister(pidfd)
        os.close(pidfd)
        try:
            self.sel.unregister(conn)
        except KeyError:
            pass
        try:
            conn.sendall(b"X" + struct.pack("!i", status))
        except OSError:
            pass
        conn.close()

    def serve_while(self, proc: subprocess.Popen) -> int:
        """Serve until ``proc`` ends (and its commands' children with it); its exit code."""
        pidfd = os.pidfd_open(proc.pid)
        self.sel.register(pidfd, selectors.EVENT_READ, ("done", None))
        while True:
            for key, _ in self.sel.select():
                kind, pid = key.data
                if kind == "accept":
                    self._accept()
                elif kind == "client":
                    self._from_client(pid)
                elif kind == "exit":
                    self._exited(pid)
                else:
                    for child in list(self.clients):
                        os.kill(child, signal.SIGKILL)
                        self._exited(child)
                    return proc.wait()


def preload() -> None:
    for name in PRELOAD:
        try:
            importlib.import_module(name)
        except ImportError:
            pass


def warm_up() -> None:
    """Load fxai's compiled code (numba) once, for every job: the oracles', the naive Bayes
    enumeration's, MARCO's known sets' and the score checker's (each job loaded it from the
    on-disk cache, 0.3-0.6 s a part; the first jobs after installation compiled it, 23 s
    here on a fresh clone, twice when two ran side by side)."""
    from fxai import oracles
    from fxai.explain import known, linear
    from fxai.verify import warmup

    t0 = time.process_time()
    for part in (oracles.warm_up, linear.warm_up, known.warm_up, warmup.warm_up):
        part()
    if (spent := time.process_time() - t0) > 5:  # compiled: the first run after installation
        print(f"fxai: compiled code (numba) built in {spent:.0f} s of CPU, once after "
              "installation", file=sys.stderr, flush=True)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m fxai.forkserver", description=__doc__.split(
        "\n\n")[0])
    p.add_argument("command", nargs=argparse.REMAINDER, help="-- COMMAND [ARG ...]")
    args = p.parse_args(argv)
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        p.error("no command to run (python -m fxai.forkserver -- COMMAND ...)")
    if not hasattr(os, "pidfd_open"):  # not Linux: the command's jobs start Python each
        return subprocess.call(command)
    with tempfile.TemporaryDirectory(prefix="fxai-forkserver-") as tmp:
        path = str(Path(tmp) / "socket")
        server = Server(path)
        preload()
        warm_up()
        proc = subprocess.Popen(command, env={**os.environ, forkclient.ENV: path})
        signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C reaches COMMAND, which stops
        code = server.serve_while(proc)
        return code if code >= 0 else 128 - code  # killed by signal n: 128 + n


if __name__ == "__main__":
    sys.exit(main())
