"""Run files that survive kills, timeouts and cancels (docs/design.md, "Failure, resumption,
reproducibility").

A run file is JSON Lines: a header line, then one object per explained instance. While a
command works it writes ``<out>.partial`` beside its declared output (snakemake deletes a
failed job's declared output, never the partial)::

    {"fxai_run": 1, "command": "xpg-explain", "fingerprint": "3f0c...",
     "code_version": "0.1.0+g1a2b3c4d5e6f", "settings": {...},
     "inputs": {"model": {"file": "...", "sha256": "..."}}, "instances": [3, 17, ...]}
    {"dataset": "iris", "instance": 3, "status": "done", ...}

The fingerprint is a digest of the command, the code version (:mod:`fxai.version`), the
settings that change a record and the checksums of the input files. A rerun keeps the
finished instances of a partial with the same fingerprint (a line cut by the kill is
dropped), discards a partial written under other settings or another code version (and
says which), and explains only the instances not yet written; without a
partial, an earlier complete output of the same settings is the starting point (a run
extended to more instances keeps the ones it has). When every
planned instance is written the partial is renamed onto the output. The header stays in the
output: :func:`read_run` skips it, and uses its instance list to refuse a half-finished file.

Progress is logged every ~10 s (instances done/total, explanations, elapsed, time left), so
``tail -f`` on a job's log shows it moving.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import signal
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from fxai.data.fetch import sha256_of
from fxai.errors import DataError, ModelError
from fxai.files import open_atomic
from fxai.version import code_version

LOG = logging.getLogger("fxai.run")
HEADER = "fxai_run"
FORMAT = 1
EVERY_S = 10.0


class RunFileError(DataError):
    """A run file that is not a complete, readable fxai run file (the message names it)."""


def partial_path(out: str | Path) -> Path:
    """``<out>.partial``: where a command writes until its run is complete."""
    out = Path(out)
    return out.with_name(out.name + ".partial")


def make_header(command: str, settings: dict[str, Any], inputs: dict[str, str | Path],
                instances: list[int] | None = None,
                about: dict[str, Any] | None = None) -> dict[str, Any]:
    """The header line: ``settings`` are the values that change a record, ``inputs`` the files
    (by role) whose checksums enter the fingerprint; ``instances`` the planned row ids;
    ``about``: facts of the inputs for the reader (e.g. what preparation filled), outside the
    fingerprint (the inputs' checksums cover them)."""
    files = {role: {"file": str(p), "sha256": sha256_of(p)} for role, p in inputs.items()}
    version = code_version()
    key = {"command": command, "code_version": version, "settings": settings,
           "inputs": {role: f["sha256"] for role, f in files.items()}}
    digest = hashlib.sha256(json.dumps(key, sort_keys=True).encode()).hexdigest()[:16]
    head = {HEADER: FORMAT, "command": command, "fingerprint": digest,
            "code_version": version, "settings": settings, "inputs": files}
    if instances is not None:
        head["instances"] = [int(i) for i in instances]
    if about:
        head["about"] = about
    return head


def _parse(path: Path, text: str) -> tuple[list[tuple[str, Any]], bool]:
    """``(raw line, object)`` pairs of a JSON Lines text and whether its last line was cut
    off (dropped); a bad line anywhere else is an error naming the file and line."""
    lines = text.split("\n")
    cut = bool(lines[-1])  # every complete line ends with a newline
    out = []
    for i, line in enumerate(lines[:-1]):
        if not line.strip():
            continue
        try:
            out.append((line, json.loads(line)))
        except ValueError:
            raise RunFileError(f"{path}:{i + 1}: not a JSON object; the run file is corrupt: "
                               "delete it and rerun its rule") from None
    return out, cut


def read_run(path: str | Path, complete: bool = True) -> tuple[dict, list[dict]]:
    """``(header, records)`` of a run file. With ``complete`` (what tables use) a file whose
    records do not cover its planned instances exactly is an error naming it
    (:func:`iter_records`); without, a cut-off last line is dropped."""
    path = Path(path)
    if complete:
        return _head(path)[0], list(iter_records(path))
    try:
        text = path.read_text()
    except OSError as err:
        raise RunFileError(f"{path}: cannot read the run file ({err})") from None
    lines, _ = _parse(path, text)
    if not lines or not is_header(lines[0][1]):
        raise _not_a_run_file(path)
    return lines[0][1], [obj for _, obj in lines[1:]]


def _not_a_run_file(path: Path) -> RunFileError:
    return RunFileError(f"{path}: no '{HEADER}' header line: not a run file of this fxai "
                        "(or an older one); delete it and rerun its rule")


def is_header(obj: Any) -> bool:
    return isinstance(obj, dict) and HEADER in obj


def parse_lines(path: str | Path) -> tuple[list, bool]:
    """The JSON values of a JSON Lines file and whether its last line was cut off (dropped);
    a bad line elsewhere is an error naming the file and line."""
    lines, cut = _parse(Path(path), Path(path).read_text())
    return [obj for _, obj in lines], cut


def incomplete(head: dict, recs: list[dict]) -> str:
    """What keeps ``recs`` from being the complete run ``head`` plans ('' when complete)."""
    if "instances" not in head:
        return ""
    plan = head["instances"]
    ids = [r.get("instance") for r in recs]
    if len(ids) == len(plan) and sorted(ids) == sorted(plan):
        return ""
    return f"{len(set(ids) & set(plan))} of {len(plan)} instances written"


def run_records(path: str | Path, command: str | None = None) -> list[dict]:
    """The records of a complete run file (an incomplete or foreign file is an error)."""
    return list(iter_records(path, command))


def _head(path: Path) -> tuple[dict, int]:
    """The header of a run file and its number of record lines; a cut-off last line or a
    missing header is an error naming the file."""
    try:
        with path.open() as fh:
            first = fh.readline()
            n, last = 0, first
            for line in fh:
                n += bool(line.strip())
                last = line
    except OSError as err:
        raise RunFileError(f"{path}: cannot read the run file ({err})") from None
    if last and not last.endswith("\n"):
        raise RunFileError(f"{path}: last line cut off; delete the file and rerun its rule")
    try:
        head = json.loads(first)
    except ValueError:
        head = None
    if not is_header(head):
        raise _not_a_run_file(path)
    return head, n


def stream_lines(path: str | Path) -> Iterator[tuple[int, Any]]:
    """``(line number, JSON value)`` of a JSON Lines file, one line at a time; a cut-off last
    line is left out (the caller may warn), a bad line elsewhere is an error naming it."""
    path = Path(path)
    with path.open() as fh:
        for i, line in enumerate(fh, start=1):
            if not line.endswith("\n") or not line.strip():
                continue  # a cut-off last line, or a blank one
            try:
                yield i, json.loads(line)
            except ValueError:
                raise RunFileError(f"{path}:{i}: not a JSON object; the run file is corrupt: "
                                   "delete it and rerun its rule") from None


def iter_records(path: str | Path, command: str | None = None) -> Iterator[dict]:
    """The records of a complete run file, one line at a time (tables: memory does not grow
    with the file). A first pass reads only the header and counts lines, so a half-finished
    file, or one written by another command than ``command`` (when given), is refused before
    any record is yielded; the planned instances are checked at the end (each exactly once)."""
    yield from iter_run(path, command)[1]


def header_of(path: str | Path, line: str, command: str | None = None) -> dict:
    """The header that the first ``line`` of the run file ``path`` holds, checked to be one
    of ``command`` when given; an error naming the file otherwise."""
    try:
        head = json.loads(line)
    except ValueError:
        head = None
    if not is_header(head):
        raise _not_a_run_file(Path(path))
    _check_command(Path(path), head, command)
    return head


def _check_command(path: Path, head: dict, command: str | None) -> None:
    if command is not None and head.get("command") != command:
        raise RunFileError(f"{path}: a run file of 'fxai {head.get('command')}', not of "
                           f"'fxai {command}'; pass the run files {command} writes")


def iter_run(path: str | Path, command: str | None = None) -> tuple[dict, Iterator[dict]]:
    """``(header, records)`` of a complete run file, the records as :func:`iter_records`
    yields them; a half-finished file (or one of another command) is refused at once."""
    path = Path(path)
    head, n = _head(path)
    if "instances" in head and n < len(head["instances"]):  # more: bad lines, found below
        raise RunFileError(f"{path}: incomplete run file, {n} of {len(head['instances'])} "
                           "instances written; rerun its rule (it resumes from the .partial file)")
    _check_command(path, head, command)
    return head, _records(path, head)


def _records(path: Path, head: dict) -> Iterator[dict]:
    ids = []
    for i, obj in stream_lines(path):
        if i > 1:
            ids.append(obj.get("instance") if isinstance(obj, dict) else None)
            yield obj
    missing = incomplete(head, [{"instance": i} for i in ids])
    if missing:
        raise RunFileError(f"{path}: incomplete run file, {missing}; rerun its rule "
                           "(it resumes from the .partial file)")


class Progress:
    """Logs ``label: done/total unit, explanations, elapsed, left`` every ``every`` seconds
    from a background thread (a long instance still shows the job alive) and at the end."""

    def __init__(self, label: str, total: int | None = None, unit: str = "instances",
                 resumed: int = 0, every: float = EVERY_S, log: logging.Logger = LOG) -> None:
        self.label, self.total, self.unit, self.every, self.log = label, total, unit, every, log
        self.resumed = self.done = resumed
        self.explanations = 0
        self._start = time.monotonic()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._tick, daemon=True)

    def line(self) -> str:
        el = time.monotonic() - self._start
        s = f"{self.label}: {self.done}"
        if self.total is not None:
            s += f"/{self.total}"
        s += f" {self.unit}"
        if self.resumed:
            s += f" ({self.resumed} resumed)"
        s += f", {self.explanations} explanations, {el:.0f} s elapsed"
        new = self.done - self.resumed
        if self.total is not None and 0 < new and self.done < self.total:
            s += f", ~{(self.total - self.done) * el / new:.0f} s left"
        return s

    def _tick(self) -> None:
        while not self._stop.wait(self.every):
            self.log.info("%s", self.line())

    def __enter__(self) -> Progress:
        self._start = time.monotonic()
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()
        self.log.info("%s%s", self.line(), " (stopped)" if exc[0] else "")


class Partial:
    """``<out>.partial``: the header line, then JSON lines appended and flushed."""

    def __init__(self, out: str | Path, header: dict, log: logging.Logger = LOG) -> None:
        self.out, self.path, self.header, self.log = Path(out), partial_path(out), header, log
        self._fh = None

    def previous(self) -> list[tuple[str, Any]]:
        """The lines a killed run of the same settings left in the partial (cut-off last line
        dropped), else those of an earlier complete output; a file of other settings, or one
        that cannot be read, is discarded (logged)."""
        src = next((p for p in (self.path, self.out) if p.exists()), None)
        if src is None:
            return []
        try:
            lines, cut = _parse(src, src.read_text())
        except (RunFileError, UnicodeDecodeError) as err:
            self.log.warning("%s: discarded, unreadable (%s)", src, err)
            return []
        head = lines[0][1] if lines and is_header(lines[0][1]) else {}
        if head.get("fingerprint") != self.header["fingerprint"]:
            now = self.header["code_version"]
            if head.get("code_version") != now:
                self.log.warning("%s: discarded, written by code version %s (now %s); the run "
                                 "restarts", src, head.get("code_version", "unknown"), now)
            else:
                self.log.warning("%s: discarded, written under other settings (fingerprint %s, "
                                 "now %s)", src, head.get("fingerprint"),
                                 self.header["fingerprint"])
            return []
        if cut:
            self.log.info("%s: dropped a line cut off by the interruption", src)
        return lines[1:]

    def open(self, keep: list[str]) -> None:
        """Start the partial afresh with the header and the ``keep`` lines (atomic), then
        open it for appending."""
        with open_atomic(self.path) as f:
            f.write("".join(ln + "\n" for ln in [json.dumps(self.header), *keep]))
        self._fh = self.path.open("a")

    def append(self, obj: Any) -> None:
        self._fh.write(json.dumps(obj) + "\n")
        self._fh.flush()

    def close(self) -> None:
        if self._fh is not None:
            self._fh.close()
            self._fh = None


class RunWriter:
    """Write a run file that resumes: ``todo`` lists the planned instances not yet written
    when the ``with`` block starts;
    :meth:`write` appends one record; leaving the ``with`` block with every instance written
    renames the partial onto the output (on an exception the partial stays, to resume)."""

    def __init__(self, out: str | Path, command: str, settings: dict[str, Any],
                 inputs: dict[str, str | Path], instances: list[int], label: str | None = None,
                 every: float = EVERY_S, log: logging.Logger = LOG,
                 about: dict[str, Any] | None = None) -> None:
        self.plan = [int(i) for i in instances]
        self.partial = Partial(out, make_header(command, settings, inputs, self.plan, about),
                               log)
        self.label = label or f"{command} {Path(out).name}"
        self.every, self.log = every, log
        self.todo: list[int] = []
        self._left: set[int] = set()
        self.progress: Progress | None = None
        self._on_term = None

    def __enter__(self) -> RunWriter:
        planned = set(self.plan)
        keep, seen = [], set()
        for line, rec in self.partial.previous():
            i = rec.get("instance") if isinstance(rec, dict) else None
            if i in planned and i not in seen:
                keep.append(line)
                seen.add(i)
        if seen:
            self.log.info("%s: resuming, %d of %d instances already written", self.label,
                          len(seen), len(self.plan))
        self.todo = [i for i in self.plan if i not in seen]
        self._left = set(self.todo)
        self.partial.open(keep)
        self.progress = Progress(self.label, len(self.plan), resumed=len(seen),
                                 every=self.every, log=self.log).__enter__()
        if threading.current_thread() is threading.main_thread():  # SIGTERM (scancel, SLURM
            self._on_term = signal.signal(signal.SIGTERM, _terminated)  # time limit) is logged
        return self

    def write(self, rec: dict, explanations: int = 0) -> None:
        """Append the record of one planned instance (``explanations``: for the progress)."""
        if rec.get("instance") not in self._left:
            raise ValueError(f"instance {rec.get('instance')!r} is not left to write")
        self.partial.append(rec)
        self._left.remove(rec["instance"])
        self.progress.done += 1
        self.progress.explanations += explanations

    def __exit__(self, exc_type, exc, tb) -> None:
        if self._on_term is not None:
            signal.signal(signal.SIGTERM, self._on_term)
        self.progress.__exit__(exc_type, exc, tb)
        self.partial.close()
        if exc_type is not None:
            self.log.error("%s: stopped by %s; finished instances are kept in %s and a rerun "
                           "resumes there", self.label, str(exc) or exc_type.__name__,
                           self.partial.path)
            return
        if self._left:
            raise RuntimeError(f"{self.partial.path}: {len(self._left)} planned instances were "
                               "not written")
        os.replace(self.partial.path, self.partial.out)
        self.log.info("%s: complete, wrote %s", self.label, self.partial.out)


def _terminated(signum: int, frame: object) -> None:
    raise SystemExit(f"{signal.Signals(signum).name} received")


def load_input(load, path: str | Path, what: str):
    """``load(path)``; any failure (missing, truncated or corrupt file) is a DataError naming
    the file (the command exits non-zero before anything is written)."""
    try:
        return load(path)
    except (DataError, ModelError):
        raise  # the loaders' own errors already name the file
    except Exception as err:
        raise DataError(f"{path}: cannot read the {what} ({type(err).__name__}: {err}); rerun "
                        "the rule that makes it") from err
