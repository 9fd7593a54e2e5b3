"""The client side of :mod:`fxai.forkserver`: hand a command to the server and wait for it.

Light on purpose (standard library only): it runs in every job before anything is imported.
The request is one message: an 8-byte length, then JSON ``{"argv", "cwd", "env"}``, with the
job's standard input, output and error attached (``SCM_RIGHTS``). Later messages from the
client are signals to pass on (``b"S"`` and the signal number); the server's one answer is
``b"X"`` and the child's wait status (4 bytes).
"""

from __future__ import annotations

import json
import os
import signal
import socket
import struct
import sys

#: the fork server's socket; set by ``python -m fxai.forkserver -- COMMAND`` for COMMAND
ENV = "FXAI_FORKSERVER"
FORWARDED = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP)


def request(argv: list[str]) -> bytes:
    body = json.dumps({"argv": argv, "cwd": os.getcwd(), "env": dict(os.environ)}).encode()
    return struct.pack("!Q", len(body)) + body


def run(path: str, argv: list[str]) -> int | None:
    """The exit code of ``fxai argv`` run by the server at ``path``; None (nothing run) when
    the server does not answer, so that the caller runs the command itself."""
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        sock.connect(path)
        socket.send_fds(sock, [request(argv)], [0, 1, 2])
    except OSError as e:
        sock.close()
        print(f"fxai: fork server {path} not answering ({e}); running here", file=sys.stderr)
        return None

    def forward(signum: int, frame: object) -> None:
        try:
            sock.sendall(b"S" + bytes([signum]))
        except OSError:
            pass

    for s in FORWARDED:
        signal.signal(s, forward)
    answer = b""
    while len(answer) < 5:
        chunk = sock.recv(5 - len(answer))
        if not chunk:
            print(f"fxai: fork server {path} closed the connection", file=sys.stderr)
            return 1
        answer += chunk
    sock.close()
    (status,) = struct.unpack("!i", answer[1:])
    code = os.waitstatus_to_exitcode(status)
    return code if code >= 0 else 128 - code  # killed by signal n: 128 + n, as a shell says
