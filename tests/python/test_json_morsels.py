"""JSON lines across many morsels and threads: DataFrame.to_json against
pandas' text byte for byte when the table spans several morsels (written
by several workers, each in its turn, to every kind of target), and
zb.read_json against pandas.read_json on inputs whose records change
shape between chunks (keys missing, reordered, added late)."""

import functools
import gzip
import io
import json
import random
import threading

import numpy as np
import pandas as pd
import pytest

import zambezi as zb
from conftest import alloc_bytes
from zambezi.errors import ParseError

pytestmark = pytest.mark.filterwarnings("ignore:'epoch' date format is deprecated")

_TEXTS = ["", "a", "héllo", "naïve ✓", "emoji 😀 ok", 'quote " in', "back\\slash",
          "slash / x", "tab\tnew\nline\r", "ctl \x01\x1f", "\u2028sep", "日本語"]


@functools.lru_cache(maxsize=None)
def _frame(n, seed):
    rng = np.random.default_rng(seed)
    r = random.Random(seed)
    f = rng.standard_normal(n) * 10.0 ** rng.integers(-6, 18, n)
    f[rng.random(n) < 0.05] = np.nan
    f[rng.random(n) < 0.01] = np.inf
    ts = rng.integers(-10**17, 10**17, n).astype("datetime64[ns]")
    return pd.DataFrame({
        "id": np.arange(n),
        "i": pd.array([None if r.random() < 0.1 else int(v)
                       for v in rng.integers(-10**15, 10**15, n)], dtype="Int64"),
        "f": f,
        "f32": (rng.standard_normal(n) * 1000).astype("float32"),
        "b": rng.random(n) < 0.5,
        "s": pd.array([None if r.random() < 0.1 else r.choice(_TEXTS) + str(k)
                       for k in range(n)], dtype="str"),
        "c": pd.Categorical([r.choice(["x", "ü/", None]) for _ in range(n)]),
        "t": pd.Series(ts).where(rng.random(n) < 0.9),
        "u8": rng.integers(0, 255, n).astype("uint8"),
    })


@pytest.fixture(params=[1, 2, 3])
def threads(request):
    old = zb.get_num_threads()
    zb.set_num_threads(request.param)
    yield request.param
    zb.set_num_threads(old)


@pytest.mark.parametrize("kw", [{}, {"lines": False}, {"force_ascii": False}])
def test_to_json_many_morsels_matches_pandas(tmp_path, threads, kw):
    # morsels of 16384 rows: 40,003 rows are two full ones and a partial one
    src = _frame(40_003, 1)
    lines = kw.get("lines", True)
    opts = {k: v for k, v in kw.items() if k != "lines"}
    exp = src.to_json(orient="records", lines=lines, date_format="epoch", **opts)
    df = zb.DataFrame(src)
    rec = dict(orient="records", lines=lines, **opts)
    assert df.to_json(**rec) == exp
    p = tmp_path / "o.json"
    df.to_json(p, **rec)
    assert p.read_text(encoding="utf-8") == exp
    buf = io.StringIO()
    df.to_json(buf, **rec)
    assert buf.getvalue() == exp
    if lines:
        g = tmp_path / "o.jsonl.gz"
        df.to_json(g, **rec)
        assert gzip.decompress(g.read_bytes()).decode() == exp


class _FailingOffMain(io.RawIOBase):
    """A binary file whose first write from a thread other than the main
    one raises OSError (the writer calls it from pool workers too)."""

    def __init__(self):
        self.data = []
        self.failed = False

    def writable(self):
        return True

    def write(self, b):
        if threading.current_thread() is not threading.main_thread():
            self.failed = True
            raise OSError(28, "No space left on device (test)")
        self.data.append(bytes(b))
        return len(b)


def test_to_json_write_error_on_a_worker_is_raised(threads):
    # the target's exception must reach the caller as itself (not as an
    # interrupt) when it is raised on a worker thread
    src = _frame(40_003, 1)
    exp = src.to_json(orient="records", lines=True, date_format="epoch")
    df = zb.DataFrame(src)
    for _ in range(10):
        f = _FailingOffMain()
        try:
            df.to_json(f, orient="records", lines=True)
        except OSError as e:
            assert "No space left on device" in str(e)
            assert f.failed
            text = b"".join(f.data).decode()
            assert text == exp[:len(text)]  # whole rows, in order, before the failure
            return
        assert threads == 1 or not f.failed
        assert b"".join(f.data).decode() == exp
        if threads == 1:
            return
    pytest.skip("no write ran on a worker thread (a busy machine)")


# -- read_json: the one pass (the first 1000 records give the columns) and
# its way back to two passes when later records do not fit them.

_PAD = "p" * 600  # 1500 padded records make ~1 MB: several chunks


def _regular(n, fmt):
    return "".join(fmt.format(k=k) + "\n" for k in range(n))


def _pandas_read(text):
    return pd.read_json(io.StringIO(text), lines=True, precise_float=True)


@pytest.mark.parametrize("late", [
    '{{"a": {k}, "pad": "{pad}", "new": "x{k}"}}',      # a key the sample lacks
    '{{"a": [{k}, 1], "pad": "{pad}"}}',                 # numbers, then an array: text
    '{{"a": {k}, "pad": "{pad}", "b": {k}}}',            # a bool column meets a number
    '{{"pad": "{pad}", "a": {k}.5}}',                    # other key order, a float
])
@pytest.mark.parametrize("where", [1200, 2900])
def test_read_json_late_records_that_do_not_fit_the_sample(threads, late, where):
    fmt = '{{"a": {k}, "pad": "{pad}", "b": true}}'
    lines = [fmt.format(k=k, pad=_PAD) for k in range(3000)]
    lines[where] = late.format(k=where, pad=_PAD)
    text = "\n".join(lines) + "\n"
    got = zb.read_json(text.encode(), lines=True).to_pandas()
    exp = _pandas_read(text)
    assert list(got.columns) == list(exp.columns)
    for c in exp.columns:
        g = [_none(v) for v in got[c].to_list()]
        e = [_none(v) for v in exp[c].to_list()]
        if any(isinstance(v, str) for v in g) and not any(isinstance(v, str) for v in e):
            # pandas holds the mixed values as Python objects (or numbers);
            # zambezi a column of their JSON text
            g = [v if v is None else json.loads(v) for v in g]
        assert g == e, c


def _none(v):
    return None if v is None or v is pd.NA or (isinstance(v, float) and v != v) else v


def test_read_json_one_pass_lists_and_nulls(threads):
    # a column of arrays only becomes a list column; one null in the sample
    # then numbers; strings that read as numbers
    lines = [f'{{"l": [{k}, {k + 1}], "n": null, "s": "{k}", "pad": "{_PAD}"}}'
             for k in range(3000)]
    for k in range(1000, 3000, 7):
        lines[k] = f'{{"l": [], "n": {k}, "s": "{k}", "pad": "{_PAD}"}}'
    text = "\n".join(lines) + "\n"
    got = zb.read_json(text.encode(), lines=True)
    exp = _pandas_read(text)
    assert got["l"].to_list() == exp["l"].to_list()
    assert got["n"].to_list() == [None if v != v else int(v) for v in exp["n"].to_list()]
    assert got["s"].to_list() == exp["s"].to_list()


_BAD = [
    ('{"a": 1', "unterminated object", 8),
    ('{"a": "x\\q"}', "bad escape", 9),
    ('{"a": "\\ud800"}', "surrogate", 8),
    ('[1, 2]', "not a JSON object", 1),
    ('{"a": tru}', "bad value", 7),
    ('{"a": 01}', "expected ',' or '}'", 8),
    ('{"a": 1} {"b": 2}', "extra data", 10),
    ('{"a": [1, 2}', "expected ',' or ']'", 12),
    ('{"\xc3": 1}', "invalid UTF-8 in a key", 2),
    ('{"a": "\xff"}', "invalid UTF-8", 8),
]


@pytest.mark.parametrize("bad,what,col", _BAD)
@pytest.mark.parametrize("where", [1100, 1490])
def test_read_json_one_pass_errors_name_their_line(threads, bad, what, col, where):
    lines = [f'{{"a": "{k}", "pad": "{_PAD}"}}' for k in range(1500)]
    lines[where] = bad
    data = ("\n".join(lines) + "\n").encode("utf-8", "surrogateescape") \
        if "\xff" not in bad and "\xc3" not in bad else \
        b"\n".join(x.encode("latin-1") for x in lines) + b"\n"
    before = alloc_bytes()
    with pytest.raises(ParseError) as e:
        zb.read_json(data, lines=True)
    msg = str(e.value)
    assert f"line {where + 1}, column {col}" in msg and what in msg, msg
    assert alloc_bytes() == before


def test_read_json_grammar_error_comes_before_an_earlier_value_error(threads):
    # two passes report the input's grammar first: so does the one pass
    # (a batch later: records are parsed 4096 at a time before the builder
    # sees their values)
    lines = [f'{{"a": "{k}"}}' for k in range(9000)]
    lines[1200] = '{"a": "\xff"}'
    lines[8000] = '{"a": tru}'
    data = b"\n".join(x.encode("latin-1") for x in lines) + b"\n"
    with pytest.raises(ParseError, match="line 8001, column 7: bad value"):
        zb.read_json(data, lines=True)


def test_read_json_keys_prefixes_escapes_and_order(threads):
    # keys matched on their raw text where the previous record had them:
    # prefixes of each other, escaped spellings of plain keys, keys whose
    # text holds escapes, other orders
    recs = ['{"ab": 1, "a": 2, "a\\"b": 3, "é": 4}',
            '{"a": 5, "ab": 6, "a\\"b": 7, "\\u00e9": 8}',
            '{"\\u0061": 9, "a\\u0062": 10, "a\\"b": 11, "é": 12}',
            '{"ab": 13, "a": 14, "a\\"b": 15, "é": 16}']
    text = "\n".join(recs[k % 4] for k in range(3000)) + "\n"
    got = zb.read_json(text.encode(), lines=True)
    exp = _pandas_read(text)
    assert list(got.columns) == list(exp.columns) == ["ab", "a", 'a"b', "é"]
    for c in exp.columns:
        assert got[c].to_list() == exp[c].to_list(), c
    # a raw key that reads like the text of an escaped one is not that key
    bad = "\n".join(['{"a\\"b": 1}'] * 1200 + ['{"a"b": 2}']) + "\n"
    with pytest.raises(ParseError, match="line 1201, column 5: expected ':' after a key"):
        zb.read_json(bad.encode(), lines=True)


def test_read_json_one_pass_sparse_and_repeated_keys(threads):
    # records that lack keys (nulls) or repeat one (the last value wins, as
    # pandas' json parser keeps it) still read in one pass, as pandas reads
    # them
    rng = np.random.default_rng(5)
    lines = []
    for k in range(4000):
        parts = [f'"id": {k}']
        if rng.random() < 0.7:
            parts.append(f'"x": {int(rng.integers(-50, 50))}')
        if rng.random() < 0.5:
            parts.append(f'"s": "w{int(rng.integers(0, 9))}"')
        if rng.random() < 0.05:
            parts.append('"id": -1')
        parts.append(f'"pad": "{_PAD[:100]}"')
        rng.shuffle(parts)
        lines.append("{" + ", ".join(parts) + "}")
    text = "\n".join(lines) + "\n"
    got = zb.read_json(text.encode(), lines=True)
    exp = _pandas_read(text)
    assert sorted(got.columns) == sorted(exp.columns)
    for c in exp.columns:
        assert [_none(v) for v in got[c].to_list()] == [_none(v) for v in exp[c].to_list()], c
