"""The streaming reader of large run records (fxai.report.stream_json) against json.loads:
every element handed over once, in order, whatever the buffer size, the separators and the
shape of the elements (arrays whose text holds `],` inside an element, plain numbers)."""

from __future__ import annotations

import io
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fxai.report.stream_json import parse_object

ints = st.lists(st.integers(0, 999), max_size=6)
ELEMENTS = {
    "axps": ints,  # flat arrays: every `],` ends an element
    "events": st.tuples(st.floats(0, 600, allow_nan=False), st.sampled_from(["axp", "cxp"]),
                        ints).map(list),  # the inner array ends the element
    "nested": st.lists(ints, max_size=3),  # `],` inside an element
    "numbers": st.integers(-5, 5),  # no `],` at all
    "texts": st.text(alphabet="[],\" x", max_size=5),  # brackets inside strings
}
records = st.fixed_dictionaries(
    {"status": st.sampled_from(["done", "timeout"]), "n": st.integers(0, 10**6)},
    optional={name: st.lists(el, max_size=40) for name, el in ELEMENTS.items()})
DUMPS = [dict(), dict(separators=(",", ":")), dict(indent=1)]


@settings(max_examples=150, deadline=None)
@given(records, st.sampled_from(DUMPS), st.sampled_from([2, 5, 16, 64, 1 << 20]))
def test_streamed_elements_equal_json_loads(record, dump, chunk):
    text = json.dumps(record, **dump)
    seen = {name: [] for name in ELEMENTS}
    fields = parse_object(io.StringIO(text), {k: v.append for k, v in seen.items()},
                          chunk=chunk)
    whole = json.loads(text)
    for name in ELEMENTS:
        if name in whole:
            assert seen[name] == whole[name]
            assert fields[name] == len(whole[name])
        else:
            assert seen[name] == [] and name not in fields
    assert {k: v for k, v in fields.items() if k not in ELEMENTS} == {
        k: v for k, v in whole.items() if k not in ELEMENTS}


@pytest.mark.parametrize("text, message", [
    ('{"axps": [[1, 2], [3], }', "(?i)expect"),
    ('{"axps": [[1, 2], [3]]', "(?i)expect"),
    ('{"axps": [[1, 2], [3]]} x', "text after the JSON object"),
])
def test_broken_records_are_errors(text, message):
    with pytest.raises(ValueError, match=message):
        parse_object(io.StringIO(text), {"axps": lambda _: None}, chunk=4)
