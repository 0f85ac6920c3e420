"""to_json of list columns (list<T> and lists of lists) against pandas'
text byte for byte: pandas writes its object column of the same Python
lists, zambezi its list column, both with orient="records" (JSON lines and
one array), force_ascii on and off, double_precision, ISO and epoch
dates; random data with null lists, empty lists, null elements, floats of
every magnitude, and strings with escapes and non-ASCII text."""

import io
import json
import random

import numpy as np
import pandas as pd
import pytest

import zambezi as zb
from zambezi.errors import UnsupportedError

# pandas warns that to_json's default epoch dates will become ISO ones
pytestmark = pytest.mark.filterwarnings("ignore:'epoch' date format is deprecated")

_TEXTS = ["", "a", "héllo", "naïve ✓", "emoji 😀 ok", 'quote " in', "back\\slash",
          "slash / x", "tab\tnew\nline\r", "ctl \x01\x1f", "\u2028sep", "日本語"]


def _lists(r, n, make, null_rate=0.15, elem_null=0.1, max_len=5):
    """n random lists of make(r) values: None rows, empty lists, None elements."""
    out = []
    for _ in range(n):
        if r.random() < null_rate:
            out.append(None)
            continue
        out.append([None if r.random() < elem_null else make(r)
                    for _ in range(r.randrange(max_len + 1))])
    return out


def _float(r):
    return r.choice([r.gauss(0, 1) * 10.0 ** r.randrange(-17, 22), float(r.randrange(-5, 5)),
                     1 / 3, -0.0, 0.5, 2.5])


def _frame(n, seed):
    r = random.Random(seed)
    data = {
        "f": _lists(r, n, _float),
        "i": _lists(r, n, lambda r: r.randrange(-10**15, 10**15)),
        "s": _lists(r, n, lambda r: r.choice(_TEXTS)),
        "b": _lists(r, n, lambda r: r.random() < 0.5),
        "ll": _lists(r, n, lambda r: [r.randrange(-9, 9) for _ in range(r.randrange(3))]),
        "ls": _lists(r, n, lambda r: [r.choice(_TEXTS) for _ in range(r.randrange(3))]),
        "x": [r.randrange(100) for _ in range(n)],
    }
    return data


def _check(data, **kw):
    z = zb.DataFrame(data)
    p = pd.DataFrame({k: pd.Series(v, dtype=object) if isinstance(v[0] if v else None, list)
                      or any(isinstance(e, list) for e in v) else v for k, v in data.items()})
    got = z.to_json(orient="records", **kw)
    exp = p.to_json(orient="records", **kw)
    assert got == exp


@pytest.mark.parametrize("kw", [
    {"lines": True},
    {"lines": False},
    {"lines": True, "force_ascii": False},
    {"lines": True, "double_precision": 3},
    {"lines": False, "double_precision": 15, "force_ascii": False},
])
@pytest.mark.parametrize("seed", [1, 2])
def test_list_columns_to_json_match_pandas(kw, seed):
    data = _frame(300, seed)
    z = zb.DataFrame(data)
    assert z["f"].dtype == "list<float64>" and z["ll"].dtype == "list<list<int64>>"
    _check(data, **kw)


def test_list_to_json_edge_rows():
    # all-null, all-empty, one long list, and a slice that starts mid-column
    n = 50
    data = {"a": [None] * n, "e": [[] for _ in range(n)],
            "f": [[float(k) / 7 for k in range(1000)]] + [[np.inf, -np.inf]] * (n - 1)}
    z = zb.DataFrame({"a": zb.Series(data["a"], dtype="list<int64>"), "e": data["e"],
                      "f": data["f"]})
    p = pd.DataFrame({k: pd.Series(v, dtype=object) for k, v in data.items()})
    for lines in (True, False):
        assert z.to_json(orient="records", lines=lines) == \
            p.to_json(orient="records", lines=lines)
        assert z.iloc[7:31].to_json(orient="records", lines=lines) == \
            p.iloc[7:31].to_json(orient="records", lines=lines)


def test_list_of_timestamps_to_json_matches_pandas():
    ts = [[pd.Timestamp("2020-01-01 00:00:01.5"), None], None, [],
          [pd.Timestamp("1969-12-31 23:59:59.001")]]
    z = zb.DataFrame({"t": zb.Series(ts, dtype="list<timestamp[ns]>")})
    p = pd.DataFrame({"t": pd.Series(ts, dtype=object)})
    for kw in ({"date_format": "epoch"}, {"date_format": "iso"},
               {"date_format": "epoch", "date_unit": "us"}):
        assert z.to_json(orient="records", lines=True, **kw) == \
            p.to_json(orient="records", lines=True, **kw)


def test_list_to_json_unsupported_elements_are_named():
    import pyarrow as pa
    z = zb.DataFrame({"d": zb.Series(pa.array([[1, None]], pa.large_list(pa.duration("s"))))})
    assert z.to_json(orient="records", lines=True) == '{"d":[1000,null]}\n' 
    with pytest.raises(UnsupportedError, match="'d' holds durations"):
        z.to_json(orient="records", date_format="iso")


def _norm(v):
    """Lists element by element, numbers as floats (pandas keeps 1 and 2.5
    apart in one list, zambezi's list<float64> holds 1.0)."""
    if isinstance(v, list):
        return [_norm(e) for e in v]
    if isinstance(v, bool) or v is None or isinstance(v, str):
        return v
    return float(v)


@pytest.mark.parametrize("lines", [True, False])
@pytest.mark.parametrize("seed", [3, 4])
def test_read_json_arrays_as_list_columns_match_pandas(lines, seed):
    # what to_json wrote reads back as list columns; pandas' object column of
    # Python lists is the oracle
    data = _frame(200, seed)
    text = zb.DataFrame(data).to_json(orient="records", lines=lines)
    got = zb.read_json(text.encode(), lines=lines)
    exp = pd.read_json(io.StringIO(text), lines=lines, orient="records", precise_float=True)
    assert got.dtypes.to_dict() == {"f": "list<float64>", "i": "list<int64>", "s": "list<string>",
                          "b": "list<bool>", "ll": "list<list<int64>>",
                          "ls": "list<list<string>>", "x": "int64"}
    for c in data:
        assert _norm(got[c].to_list()) == _norm(exp[c].to_list()), c
    # and the lists are the ones written (floats to double_precision=10)
    for c in ("i", "s", "b", "ll", "ls"):
        assert got[c].to_list() == data[c], c


def test_read_json_pretty_printed_arrays():
    # one array of records written with indent: the inner arrays span lines
    recs = [{"ll": [[1, 2], [], None], "s": ["a\nb", None]}, {"ll": None, "s": []},
            {"ll": [[3]], "s": ["é"]}]
    text = json.dumps(recs, indent=2)
    got = zb.read_json(text.encode(), lines=False)
    exp = pd.read_json(io.StringIO(text), lines=False)
    assert got.dtypes.to_dict() == {"ll": "list<list<int64>>", "s": "list<string>"}
    for c in ("ll", "s"):
        assert got[c].to_list() == [None if not isinstance(v, list) else v
                                    for v in exp[c].to_list()] == [r[c] for r in recs]


def test_read_json_arrays_that_stay_text():
    # objects inside, mixed kinds, and a column mixing arrays with scalars
    # stay JSON text (pandas holds Python objects no list dtype can)
    text = ('{"o": [{"k": 1}], "m": [1, "a"], "x": [1], "n": [[1], [{"k": 2}]]}\n'
            '{"o": [], "m": [true], "x": 5, "n": null}\n')
    got = zb.read_json(text.encode(), lines=True)
    exp = pd.read_json(io.StringIO(text), lines=True)
    for c in ("o", "m", "x", "n"):
        assert got[c].dtype == "string", c
        assert [None if v is None else json.loads(v) for v in got[c].to_list()] == \
            [v if isinstance(v, (list, dict)) or not pd.isna(v) else None
             for v in exp[c].to_list()], c
