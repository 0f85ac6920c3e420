"""zb.read_json on JSON lines small and odd enough to take every road
through the reader's sample of the first 1000 records: inputs of 0, 1 and
2 records (the sample reads them whole, and is their scan), keys and kinds
of value first seen after the sample or inside it, one record of many
keys, and errors inside the sample (line-numbered, grammar before values),
each against pandas.read_json on the same text."""

import io
import json

import pandas as pd
import pytest

import zambezi as zb
from conftest import alloc_bytes
from zambezi.errors import ParseError


@pytest.fixture(params=[1, 2])
def threads(request):
    old = zb.get_num_threads()
    zb.set_num_threads(request.param)
    yield request.param
    zb.set_num_threads(old)


def _none(v):
    return None if v is None or v is pd.NA or (isinstance(v, float) and v != v) else v


def _same_as_pandas(text):
    got = zb.read_json(text.encode(), lines=True)
    exp = pd.read_json(io.StringIO(text), lines=True, precise_float=True)
    assert got.shape == exp.shape
    assert list(got.columns) == list(exp.columns)
    for c in exp.columns:
        g = [_none(v) for v in got[c].to_list()]
        e = [_none(v) for v in exp[c].to_list()]
        if any(isinstance(v, str) for v in g) and not any(isinstance(v, str) for v in e):
            # pandas holds mixed values as Python objects (or numbers);
            # zambezi a column of their JSON text
            g = [v if v is None else json.loads(v) for v in g]
        elif any(isinstance(v, str) for v in e):
            # strings and numbers: zambezi a string column of the numbers'
            # text, pandas Python objects
            e = [v if v is None or isinstance(v, str) else json.dumps(v) for v in e]
        assert g == e, c
    return got


@pytest.mark.parametrize("text", [
    "",
    "\n",
    "  \n\r\n\n",
    '{"a": 1}',
    '{"a": 1}\n',
    '{"a": null}\n',
    '\n\n  {"a": "x", "b": 2.5}  \n\n',
    '{"a": 1, "b": "x"}\n{"a": 2, "b": "y"}\n',
    '{"a": 1}\n{"b": "x"}\n',                        # the second record's key is new
    '{"a": 1, "b": "x"}\n{"a": 2}\n',                # the second lacks a key
    '{"a": 1, "b": "x"}\n{"b": "y", "a": 2.5}\n',    # other order, int then float
    '{"a": true}\n{"a": false}',
    '{"a": [1, 2]}\n{"a": []}\n',
    '{"a": "1"}\n{"a": "2e3"}\n',                    # numbers in strings
    '{"a": 1, "a": 2}\n{"a": 3}\n',                  # a repeated key: the last wins
])
def test_read_json_zero_one_two_records_match_pandas(threads, text):
    _same_as_pandas(text)


@pytest.mark.parametrize("n", [3, 999, 1000, 1001, 2500])
@pytest.mark.parametrize("late", [
    '{{"a": {k}, "s": "v{k}", "z": "new"}}',        # a key the first records lack
    '{{"s": "v{k}", "a": {k}.25}}',                 # a float among ints, other order
    '{{"a": {k}, "s": {k}}}',                       # a number among strings
    '{{"a": [{k}], "s": "v{k}"}}',                  # an array among numbers: text
])
def test_read_json_keys_and_kinds_appearing_late_match_pandas(threads, n, late):
    # the late record in the sample's second half, just after it, and last
    lines = [f'{{"a": {k}, "s": "v{k}"}}' for k in range(n)]
    for at in sorted({n // 2 + 1, min(1000, n - 1), n - 1}):
        lines[at] = late.format(k=at)
    _same_as_pandas("\n".join(lines) + "\n")


@pytest.mark.parametrize("rows", [1, 2, 3])
def test_read_json_many_keys_few_records_match_pandas(threads, rows):
    # thousands of columns and a record or three: batches of one record
    ncols = 2000
    recs = []
    for r in range(rows):
        keep = range(r, ncols, r + 1)  # later records hold fewer keys
        recs.append("{" + ", ".join(f'"k{c}": {c * 10 + r}' for c in keep) + "}")
    got = _same_as_pandas("\n".join(recs) + "\n")
    assert got.shape == (rows, ncols)


@pytest.mark.parametrize("where", [0, 1, 17, 998])
@pytest.mark.parametrize("bad,what,col", [
    ('{"a": 1', "unterminated object", 8),
    ('{"a": tru}', "bad value", 7),
    ('{"a": 1} x', "extra data", 10),
    ('[1]', "not a JSON object", 1),
])
def test_read_json_errors_inside_the_sample_name_their_line(threads, where, bad, what, col):
    for n in (where + 1, where + 3, 1500):
        lines = [f'{{"a": {k}}}' for k in range(n)]
        lines[where] = bad
        before = alloc_bytes()
        with pytest.raises(ParseError) as e:
            zb.read_json(("\n".join(lines) + "\n").encode(), lines=True)
        msg = str(e.value)
        assert f"line {where + 1}, column {col}" in msg and what in msg, msg
        assert alloc_bytes() == before
        if bad != "[1]":  # pandas rejects the same text (a list it reads as a row)
            with pytest.raises(ValueError):
                pd.read_json(io.StringIO("\n".join(lines) + "\n"), lines=True)


@pytest.mark.parametrize("n", [12, 1500])
def test_read_json_grammar_error_in_the_sample_comes_before_a_value_error(threads, n):
    # invalid UTF-8 in a string (a value error) on line 3, a grammar error
    # on line 10: the grammar error is reported, as two passes report it
    lines = [f'{{"a": "{k}"}}' for k in range(n)]
    lines[2] = '{"a": "\xff"}'
    lines[9] = '{"a": "x" "y"}'
    data = b"\n".join(x.encode("latin-1") for x in lines) + b"\n"
    with pytest.raises(ParseError, match="line 10, column 11: expected ',' or '}'"):
        zb.read_json(data, lines=True)
    # and without it, the value error on line 3
    lines[9] = '{"a": "y"}'
    data = b"\n".join(x.encode("latin-1") for x in lines) + b"\n"
    with pytest.raises(ParseError, match="line 3, column 8: invalid UTF-8"):
        zb.read_json(data, lines=True)
