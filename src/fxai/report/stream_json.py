"""Read one large JSON object from a file without holding it: the elements of chosen array
fields are handed to callbacks one by one, every other field is returned as usual.

>>> import io
>>> seen = []
>>> parse_object(io.StringIO('{"a": 1, "big": [[1, 2], [3]], "b": "x"}'),
...              {"big": seen.append}, chunk=4)
{'a': 1, 'big': 2, 'b': 'x'}
>>> seen
[[1, 2], [3]]

Memory is the text of one element or field plus a read buffer (``chunk`` characters), so a
record of hundreds of MB is read in a few MB. The elements in the buffer are decoded together
by the standard library's JSON decoder: the text up to the buffer's last ``],`` is decoded as
one list, which succeeds exactly when that text ends between two elements (a cut inside an
element leaves a bracket or string open); otherwise, and for an array whose elements are not
arrays, one element at a time (``raw_decode``).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator, Mapping
from typing import Any, TextIO

_WS = re.compile(r"\s*")
_DECODER = json.JSONDecoder()


class _Buffer:
    def __init__(self, fh: TextIO, chunk: int) -> None:
        self.fh, self.chunk, self.buf, self.pos, self.eof = fh, chunk, "", 0, False

    def fill(self, size: int) -> bool:
        """Append up to ``size`` more characters; False at the end of the file."""
        more = self.fh.read(size)
        if not more:
            self.eof = True
            return False
        self.buf = self.buf[self.pos:] + more
        self.pos = 0
        return True

    def elements(self) -> list | None:
        """The whole elements of the array being read that the buffer holds up to its last
        ``],`` (after reading more when less than half a chunk is left), or up to the one
        before (the last may close the array itself); [] when no such text decodes, None
        when the buffer holds no ``],`` (one element is longer than the buffer)."""
        if len(self.buf) - self.pos < self.chunk // 2 and not self.eof:
            self.fill(self.chunk)
        end = len(self.buf)
        for _ in range(2):
            end = self.buf.rfind("],", self.pos, end)
            if end <= self.pos:
                return None
            try:
                items = json.loads("[" + self.buf[self.pos:end + 1] + "]")
            except json.JSONDecodeError:
                continue
            self.pos = end + 1
            return items
        return []

    def peek(self) -> str:
        """The next non-space character ('' at the end of the file)."""
        while True:
            self.pos = _WS.match(self.buf, self.pos).end()
            if self.pos < len(self.buf) or not self.fill(self.chunk):
                return self.buf[self.pos:self.pos + 1]

    def take(self, char: str) -> None:
        if self.peek() != char:
            got = self.buf[self.pos:self.pos + 20] or "end of file"
            raise ValueError(f"expected {char!r} at {got!r}")
        self.pos += 1

    def value(self) -> Any:
        """The next complete JSON value (more text is read until it is whole)."""
        size = self.chunk
        while True:
            self.peek()
            try:
                value, end = _DECODER.raw_decode(self.buf, self.pos)
            except json.JSONDecodeError:
                if self.fill(size):
                    size *= 2  # a large value: read faster than one chunk at a time
                    continue
                raise
            if end == len(self.buf) and not self.eof and self.fill(size):
                continue  # a number may go on in the next chunk: decode again
            self.pos = end
            return value


def parse_object(fh: TextIO, arrays: Mapping[str, Callable[[Any], None]],
                 chunk: int = 1 << 20, out: dict | None = None) -> dict:
    """The fields of the JSON object in ``fh`` except those named in ``arrays``, whose
    elements (when the field is an array) go one by one to ``arrays[name]``; such a field
    is returned as its number of elements. The fields are put into ``out`` (when given) as
    they are read, so a callback can see the fields before its own."""
    b = _Buffer(fh, chunk)
    out = _fields(b, arrays, {} if out is None else out)
    if b.peek():
        raise ValueError(f"text after the JSON object: {b.buf[b.pos:b.pos + 20]!r}")
    return out


def parse_objects(fh: TextIO, start: Callable[[], tuple[Mapping[str, Callable[[Any], None]],
                                                        dict]],
                  chunk: int = 1 << 20) -> Iterator[dict]:
    """Each JSON object of ``fh`` in turn (JSON Lines, or objects one after another), read as
    :func:`parse_object` reads one; ``start()`` gives each object its ``(arrays, out)``.

    >>> import io
    >>> seen = []
    >>> text = '{"n": 1, "big": [[1]]}\\n{"n": 2, "big": []}\\n'
    >>> list(parse_objects(io.StringIO(text), lambda: ({"big": seen.append}, {})))
    [{'n': 1, 'big': 1}, {'n': 2, 'big': 0}]
    """
    b = _Buffer(fh, chunk)
    while b.peek():
        arrays, out = start()
        yield _fields(b, arrays, out)


def _fields(b: _Buffer, arrays: Mapping[str, Callable[[Any], None]], out: dict) -> dict:
    b.take("{")
    if b.peek() == "}":
        b.take("}")
        return out
    while True:
        key = b.value()
        if not isinstance(key, str):
            raise ValueError(f"expected a field name, got {key!r}")
        b.take(":")
        if key in arrays and b.peek() == "[":
            b.take("[")
            out[key] = 0
            if b.peek() == "]":
                b.take("]")
            else:
                batches = True  # until a batch fails to decode: the elements are not arrays
                while True:
                    items = b.elements() if batches else None
                    if not items:
                        batches = batches and items is None
                        items = [b.value()]
                    for item in items:
                        arrays[key](item)
                    out[key] += len(items)
                    if b.peek() == "]":
                        b.take("]")
                        break
                    b.take(",")
        else:
            out[key] = b.value()
        if b.peek() == "}":
            b.take("}")
            break
        b.take(",")
    return out
