"""The argument layer: one dtype-alias table (zambezi._dtypes) and one row /
column key parser (zambezi._indexing), side by side with pandas.

- Every spelling of a dtype gives the same zambezi dtype at every entry
  point that takes one: ``Series(data, dtype=)``, ``Series.astype``,
  ``DataFrame.astype``, ``read_csv(dtype=X)`` and ``read_csv(dtype={c: X})``.
  ``object`` means string everywhere, and a timestamp keeps its unit.
- ``df[key]``, ``s[key]`` and ``.iloc[key]`` select the same rows for a
  slice (any step), a boolean mask and (Series, iloc) a list of positions,
  and the same rows as pandas.  zambezi has no index yet and numbers every
  result from 0, so pandas' results are compared after
  ``reset_index(drop=True)``.
- The engine (``zambezi._core``) takes canonical dtype names only.
"""

import ast
import datetime
import io
import pathlib

import numpy as np
import pandas as pd
import pytest

import zambezi as zb
from zambezi import _core, _dtypes
from zambezi.errors import DTypeError, UnsupportedError

PACKAGE = pathlib.Path(zb.__file__).parent

# --------------------------------------------------------------------------
# dtype aliases
# --------------------------------------------------------------------------

# (canonical dtype, every spelling of it a user may write)
ALIASES = [
    ("int64", ["int64", "Int64", "int", int, np.int64, np.dtype("int64"), pd.Int64Dtype()]),
    ("int8", ["int8", "Int8", np.int8, pd.Int8Dtype()]),
    ("uint32", ["uint32", "UInt32", np.uint32, pd.UInt32Dtype()]),
    ("float64", ["float64", "Float64", "float", "double", float, np.float64,
                 pd.Float64Dtype()]),
    ("float32", ["float32", "Float32", np.float32, np.dtype("float32")]),
    ("bool", ["bool", "boolean", bool, np.bool_, pd.BooleanDtype()]),
    ("string", ["string", "str", "String", "object", "O", "utf8", "large_string", str, object,
                np.str_, np.dtype("O"), np.dtype("U"), pd.StringDtype()]),
    ("category", ["category", "categorical", pd.CategoricalDtype()]),
    ("date32", ["date32", "date", "date32[day]", np.dtype("datetime64[D]")]),
    ("timestamp[us]", ["timestamp", "timestamp[us]", "datetime64", "datetime64[us]",
                       "datetime", np.datetime64, np.dtype("datetime64[us]")]),
    ("timestamp[ns]", ["timestamp[ns]", "datetime64[ns]", np.dtype("datetime64[ns]")]),
    ("timestamp[ms]", ["timestamp[ms]", "datetime64[ms]", np.dtype("datetime64[ms]")]),
    ("timestamp[s]", ["timestamp[s]", "datetime64[s]", np.dtype("datetime64[s]")]),
    ("timestamp[ns, tz=UTC]", ["timestamp[ns, tz=UTC]", "datetime64[ns, UTC]",
                               pd.DatetimeTZDtype("ns", "UTC")]),
    ("timestamp[ms, tz=UTC]", ["timestamp[ms, tz=UTC]", "datetime64[ms, UTC]",
                               pd.DatetimeTZDtype("ms", "UTC")]),
]
CASES = [(canon, alias) for canon, aliases in ALIASES for alias in aliases]
IDS = [f"{canon}<-{alias!r}" for canon, alias in CASES]

T0 = datetime.datetime(2024, 3, 9, 14, 5, 30)
UTC = datetime.timezone.utc


def _kind(canon):
    return canon.split("[")[0].rstrip("0123456789")


# values for a column of each kind, and their CSV text
VALUES = {
    "int": [1, 2, 3], "uint": [1, 2, 3], "float": [0.5, 1.0, 2.25], "bool": [True, False, True],
    "string": ["a", "b", "a"], "category": ["a", "b", "a"],
    "date": [datetime.date(2024, 3, 9), datetime.date(2024, 1, 1), datetime.date(1999, 12, 31)],
    "timestamp": [T0, T0.replace(year=2020), T0.replace(microsecond=123000)],
}


def _values(canon):
    vals = VALUES[_kind(canon)]
    if "tz=" in canon:
        vals = [v.replace(tzinfo=UTC) for v in vals]
    return vals


def _csv_text(canon):
    vals = VALUES[_kind(canon)]
    return ("c\n" + "\n".join(str(v) for v in vals) + "\n").encode()


def _source(canon):
    """A Series that astype can turn into canon (a cast the engine has)."""
    kind = _kind(canon)
    if kind in ("int", "uint", "float", "bool", "string"):
        return zb.Series([1, 0, 1])
    if kind == "category":
        return zb.Series(["a", "b", "a"])
    if kind == "date":
        return zb.Series(VALUES["timestamp"])
    if "tz=" in canon:
        return zb.Series(pd.Series(VALUES["timestamp"]).dt.tz_localize("UTC"))
    return zb.Series(VALUES["timestamp"])


def test_the_table_knows_every_alias():
    for canon, alias in CASES:
        assert _dtypes.canonical(alias) == canon, alias


@pytest.mark.parametrize("canon,alias", CASES, ids=IDS)
def test_series_constructor(canon, alias):
    assert zb.Series(_values(canon), dtype=alias).dtype == canon


@pytest.mark.parametrize("canon,alias", CASES, ids=IDS)
def test_astype(canon, alias):
    s = _source(canon)
    assert s.astype(alias).dtype == canon
    df = zb.DataFrame({"c": s})
    assert df.astype(alias).dtypes.to_dict() == {"c": canon}
    assert df.astype({"c": alias}).dtypes.to_dict() == {"c": canon}


@pytest.mark.parametrize("canon,alias", CASES, ids=IDS)
def test_read_csv(canon, alias):
    text = _csv_text(canon)
    if "tz=" in canon:
        # the text has no zone: attaching one is a change of zone, refused
        # as astype refuses it (it used to drop the zone silently)
        with pytest.raises(UnsupportedError, match="timezone"):
            zb.read_csv(text, dtype={"c": alias})
        return
    assert zb.read_csv(text, dtype=alias).dtypes.to_dict() == {"c": canon}
    assert zb.read_csv(text, dtype={"c": alias}).dtypes.to_dict() == {"c": canon}
    with zb.read_csv(text, dtype={"c": alias}, chunksize=2) as reader:
        assert [chunk.dtypes.to_dict() for chunk in reader] == [{"c": canon}] * 2


@pytest.mark.parametrize("alias", ["int13", "Int65", "datetime64[fortnight]", "timestamp[ms,]",
                                   np.complex64, "timedelta64[fortnight]", "i8"])
def test_unknown_dtypes_raise_everywhere(alias):
    with pytest.raises(DTypeError, match="unknown dtype"):
        zb.Series([1], dtype=alias)
    with pytest.raises(DTypeError, match="unknown dtype"):
        zb.Series([1]).astype(alias)
    with pytest.raises(DTypeError, match="unknown dtype"):
        zb.read_csv(b"c\n1\n", dtype={"c": alias})


# -- side by side with pandas ------------------------------------------------

def _plain(values):
    """Python values for comparing (NaT / NaN / NA -> None; Timestamps ->
    datetimes)."""
    out = []
    for v in values:
        if v is None or v is pd.NA or v is pd.NaT or (isinstance(v, float) and np.isnan(v)):
            out.append(None)
        elif isinstance(v, pd.Timestamp):
            out.append(v.to_pydatetime())
        else:
            out.append(v)
    return out


@pytest.mark.parametrize("alias", ["object", "O", object, np.dtype("O")])
def test_object_means_string(alias):
    # pandas keeps text in an object column; zambezi in a string column.
    values = ["Maun", None, "Tete"]
    got = zb.Series(values, dtype=alias)
    want = pd.Series(values, dtype=alias)
    assert got.dtype == "string"
    assert got.to_list() == _plain(want.tolist())
    assert zb.Series(["x", "y"]).astype(alias).to_list() == \
        pd.Series(["x", "y"]).astype(alias).tolist()
    assert zb.Series([1, 22]).astype(alias).to_list() == ["1", "22"]
    text = "a,b\nLusaka,1\n,2\n"
    for dtype in (alias, {"a": alias, "b": alias}):
        got = zb.read_csv(text.encode(), dtype=dtype)
        want = pd.read_csv(io.StringIO(text), dtype=dtype)
        assert got.dtypes.to_dict() == {"a": "string", "b": "string"}
        assert {c: _plain(want[c].tolist()) for c in want} == got.to_dict("list")


def _in_unit(values, unit):
    """pandas' datetime64[unit] Series of datetimes (None: NaT), cut to the
    unit as numpy casts (pandas refuses a lossy astype)."""
    us = np.array([np.datetime64("NaT") if v is None else np.datetime64(v, "us")
                   for v in values], dtype="datetime64[us]")
    return pd.Series(us.astype(f"datetime64[{unit}]"))


@pytest.mark.parametrize("unit", ["s", "ms", "us", "ns"])
def test_timestamp_units_are_kept(unit):
    values = [T0.replace(microsecond=123456), None, T0]
    want = _in_unit(values, unit)
    for alias in (f"datetime64[{unit}]", np.dtype(f"datetime64[{unit}]")):
        for got in (zb.Series(values, dtype=alias),
                    zb.Series(values).astype(alias),
                    zb.DataFrame({"t": values}).astype({"t": alias})["t"]):
            assert got.dtype == f"timestamp[{unit}]"
            assert got.to_pandas().dtype == want.dtype
            assert _plain(got.to_pandas().tolist()) == _plain(want.tolist())
        # pandas refuses datetime dtypes in read_csv (parse_dates instead);
        # zambezi reads them, in the unit asked for
        text = "t,k\n2024-03-09 14:05:30.123456,1\n,2\n2024-03-09 14:05:30,3\n"
        parsed = pd.read_csv(io.StringIO(text), parse_dates=["t"], date_format="ISO8601")
        assert _plain(parsed["t"].tolist()) == values
        for dtype in (alias, {"t": alias}):
            if not isinstance(dtype, dict):
                dtype = {"t": dtype, "k": "int64"}
            got = zb.read_csv(text.encode(), dtype=dtype)["t"]
            assert got.dtype == f"timestamp[{unit}]"
            assert got.to_pandas().dtype == want.dtype
            assert _plain(got.to_pandas().tolist()) == _plain(want.tolist())


def test_pandas_nullable_aliases_match_pandas():
    for alias in ["Int8", "Int64", "UInt32", "Float32", "Float64", "boolean", "string"]:
        values = [1, None, 0] if alias != "string" else ["a", None, "b"]
        if alias == "boolean":
            values = [True, None, False]
        want = pd.Series(values, dtype=alias)
        got = zb.Series(values, dtype=alias)
        if alias.startswith(("Int", "UInt", "boolean")):
            assert got.to_pandas().dtype == want.dtype
        assert got.to_list() == _plain(want.tolist())


def test_the_engine_takes_canonical_names_only():
    col = zb.Series([1, 2])._col
    for name in ["Int64", "str", "object", "datetime64[ns]", "boolean", "int", "date"]:
        with pytest.raises(DTypeError, match="unknown dtype"):
            _core.cast(col, name)
        with pytest.raises(DTypeError, match="unknown dtype"):
            _core.column_from_sequence([1], dtype=name)
    assert _core.cast(col, "float32").dtype == "float32"
    assert _core.column_from_sequence([T0], dtype="timestamp[ms]").dtype == "timestamp[ms]"
    assert _core.column_from_sequence([T0], dtype="timestamp").dtype == "timestamp[us]"


# --------------------------------------------------------------------------
# row and column keys
# --------------------------------------------------------------------------

N = 11
PDF = pd.DataFrame({"a": np.arange(N) * 10, "b": [f"r{i}" for i in range(N)],
                    "c": np.linspace(0, 1, N)})
MASK = [i % 3 != 1 for i in range(N)]

SLICES = [slice(None, None, 2), slice(None, None, -1), slice(1, 7, 3), slice(-3, None),
          slice(None, -2), slice(8, 2, -2), slice(None, None, -3), slice(100, 200),
          slice(5, 5), slice(2, None, 4), slice(-1, -N - 5, -1), slice(0, N)]
MASKS = [("list", lambda: MASK), ("ndarray", lambda: np.array(MASK)),
         ("zb.Series", lambda: zb.Series(MASK)), ("pd.Series", lambda: pd.Series(MASK))]


def _frame():
    # made in each test, not kept at module level or in a fixture: the
    # session checks that no engine memory outlives the tests
    return zb.from_pandas(PDF)


def _same_frame(got, want):
    want = want.reset_index(drop=True)  # zambezi has no index: rows renumbered
    assert list(got.columns) == list(want.columns)
    assert got.to_dict("list") == {c: want[c].tolist() for c in want.columns}


def _same_series(got, want):
    assert got.to_list() == want.reset_index(drop=True).tolist()


@pytest.mark.parametrize("key", SLICES, ids=repr)
def test_slices_agree(key):
    df = _frame()
    want = PDF[key]
    _same_frame(df[key], want)
    _same_frame(df.iloc[key], PDF.iloc[key])
    _same_frame(df.iloc[key], want)
    s, ps = df["a"], PDF["a"]
    _same_series(s[key], ps.iloc[key])
    _same_series(s.iloc[key], ps.iloc[key])
    assert s[key].name == "a"


def test_step_one_slices_share_the_buffers():
    # a contiguous slice stays zero-copy; a step gathers
    df = _frame()
    assert df[2:5].nbytes <= df.nbytes
    assert df[::1].to_dict("list") == df.to_dict("list")


@pytest.mark.parametrize("name,make", MASKS, ids=[m[0] for m in MASKS])
def test_masks_agree(name, make):
    df = _frame()
    want = PDF[np.array(MASK)]
    _same_frame(df[make()], want)
    _same_frame(df.iloc[make() if name != "pd.Series" else MASK], want)
    _same_series(df["b"][make()], PDF["b"][np.array(MASK)])
    _same_series(df["b"].iloc[make() if name != "pd.Series" else MASK],
                 PDF["b"][np.array(MASK)])


@pytest.mark.parametrize("key", [[0, 3, 5], [10, 0, 0, 2], [], np.array([4, 1]), "series"],
                         ids=repr)
def test_positions_agree(key):
    df = _frame()
    pkey = [2, 7] if isinstance(key, str) else key
    if isinstance(key, str):
        key = zb.Series(pkey)
    want = PDF["c"].iloc[pkey]
    _same_series(df["c"][key], want)
    _same_series(df["c"].iloc[key], want)
    # pandas' s[list] looks labels up: with the default RangeIndex they are
    # the positions
    _same_series(df["c"][key], PDF["c"][pkey])
    _same_frame(df.iloc[key], PDF.iloc[pkey])


def test_negative_positions_count_from_the_end():
    df = _frame()
    _same_series(df["a"].iloc[[-1, 0, -N]], PDF["a"].iloc[[-1, 0, -N]])
    _same_frame(df.iloc[[-2]], PDF.iloc[[-2]])
    assert df["a"].iloc[-1] == PDF["a"].iloc[-1]
    # pandas 3: s[int] is a label; -1 is not one of a RangeIndex's labels
    with pytest.raises(KeyError):
        PDF["a"][-1]
    with pytest.raises(KeyError):
        df["a"][-1]


def test_one_row():
    df = _frame()
    for i in (0, 4, -1, np.int64(3), np.int32(-2)):
        assert df["b"].iloc[i] == PDF["b"].iloc[int(i)]
        if i >= 0:
            assert df["b"][i] == PDF["b"][int(i)]
        # the columns have no common dtype: a dict (pandas: an object Series)
        assert df.iloc[i] == {c: PDF[c].iloc[int(i)] for c in PDF.columns}
    for bad in (N, -N - 1):
        with pytest.raises(KeyError):
            df["a"][bad]
        with pytest.raises(IndexError, match="out of range"):
            df.iloc[bad]


def test_columns():
    df = _frame()
    assert df["b"].to_list() == PDF["b"].tolist()
    _same_frame(df[["c", "a"]], PDF[["c", "a"]])
    _same_series(df.iloc[1:3, 0], PDF.iloc[1:3, 0])
    _same_frame(df.iloc[[4, 1], [2, 0]], PDF.iloc[[4, 1], [2, 0]])
    assert df[[]].shape == (N, 0) or df[[]].shape == (0, 0)
    with pytest.raises(KeyError, match="nope"):
        df["nope"]
    with pytest.raises(KeyError, match="nope"):
        df[["a", "nope"]]


def test_keys_that_stay_refused():
    df = _frame()
    with pytest.raises(TypeError):
        df[1.5]
    with pytest.raises(TypeError):
        df[3]                           # pandas: a column label, not a row
    with pytest.raises(TypeError, match="boolean mask"):
        df[np.arange(N)]                # pandas: column labels
    with pytest.raises(KeyError):
        df["a"]["x"]                    # pandas 3: a label the index lacks
    with pytest.raises(ValueError, match="length mismatch"):
        df[[True, False]]


def test_a_null_in_a_mask_drops_the_row():
    df = _frame()
    m = zb.Series([True, None] + [True] * (N - 2))
    assert df[m]["a"].to_list() == df.iloc[m]["a"].to_list() == df["a"][m].to_list()
    assert len(df[m]) == N - 1


# --------------------------------------------------------------------------
# layout: where names live
# --------------------------------------------------------------------------

def test_public_names_stay_importable():
    import zambezi.io
    import zambezi.io.csv

    assert zb.read_csv is zambezi.io.read_csv is zambezi.io.csv.read_csv
    assert zambezi.io.to_csv is zambezi.io.csv.to_csv
    assert zambezi.io.CsvReader is zambezi.io.csv.CsvReader
    assert zb.concat([zb.Series([1]), zb.Series([2])]).to_list() == [1, 2]


def _function_imports(path):
    """(line, module) of each import inside a function of path."""
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for inner in ast.walk(node):
                if isinstance(inner, ast.ImportFrom) and inner.module:
                    found.append((inner.lineno, inner.module))
    return found


def test_methods_build_results_through_the_base_class():
    # Series and DataFrame are reached through zambezi._base's hooks
    # (_constructor, _constructor_sliced, _constructor_expanddim ...), not
    # imported inside functions.
    df = zb.DataFrame({"n": [1, 2]})
    bad = [f"{p.relative_to(PACKAGE)}:{line} imports {mod}"
           for p in sorted(PACKAGE.rglob("*.py"))
           for line, mod in _function_imports(p) if mod in ("zambezi.frame", "zambezi.series")]
    assert not bad, bad
    s = zb.Series([1, 2], name="n")
    assert s._constructor is zb.Series
    assert s._constructor_expanddim is zb.DataFrame
    assert df._constructor is zb.DataFrame and df._constructor_sliced is zb.Series


@pytest.mark.parametrize("call", [
    lambda d: d.drop_duplicates(ignore_index=1),
    lambda d: d.drop_duplicates(ignore_index="True"),
    lambda d: d.any(skipna=None),
    lambda d: d.all(skipna=1),
    lambda d: d["a"].any(skipna="no"),
    lambda d: d["a"].dropna(ignore_index=[]),
    lambda d: d.reset_index(allow_duplicates=0),
    lambda d: d.sum(skipna=None),
    lambda d: d.mean(skipna=1, axis=1),
    lambda d: d["a"].std(skipna=None),
    lambda d: d["a"].median(skipna=np.int64(1)),
    lambda d: d["a"].sem(skipna=None),
    lambda d: d.skew(skipna=None),
    lambda d: d["a"].kurt(skipna=None),
    lambda d: d["a"].min(skipna="yes"),
    lambda d: d.sort_values("a", ascending="False"),
    lambda d: d.sort_values("a", ascending=None),
    lambda d: d.sort_values("a", ascending=["x"]),
    lambda d: d["a"].sort_values(ascending=None),
    lambda d: d.sort_index(ascending="no"),
    lambda d: d["a"].sort_index(ascending=[None]),
])
def test_bool_arguments_refused_as_pandas_refuses(call):
    """Bool arguments pandas checks (validate_bool_kwarg) get pandas'
    ValueError, message and all; pandas is the oracle."""
    pdf = pd.DataFrame({"a": [1, 2, 1]})
    with pytest.raises(ValueError) as want:
        call(pdf)
    with pytest.raises(ValueError) as got:
        call(zb.from_pandas(pdf))
    assert str(got.value) == str(want.value)
    assert "expected type bool" in str(got.value)


def test_ascending_flags_as_pandas():
    # ints are flags too; a Series takes one flag (pandas' ValueError else)
    pdf = pd.DataFrame({"a": [3, 1, 2, 1], "b": [1, 2, 1, 0]})
    z = zb.from_pandas(pdf)
    for asc in (True, [0, 1], (True, False)):
        pd.testing.assert_frame_equal(z.sort_values(["a", "b"], ascending=asc).to_pandas(),
                           pdf.sort_values(["a", "b"], ascending=asc))
    for asc in ([1], (False,), 0, 1):
        assert z["a"].sort_values(ascending=asc).to_list() == \
            pdf["a"].sort_values(ascending=asc).to_list()
    with pytest.raises(ValueError, match="must be 1 for Series"):
        pdf["a"].sort_values(ascending=[True, False])
    with pytest.raises(ValueError, match="must be 1 for Series"):
        z["a"].sort_values(ascending=[True, False])


@pytest.mark.parametrize("call", [
    lambda s, d: s.rename({}, axis=5),
    lambda s, d: s.rename({2: 9}, errors="raise"),
    lambda s, d: s.rename({"a": 1, "q": 2}, errors="raise"),
    lambda s, d: d.drop(labels="a", index="b"),
    lambda s, d: d.drop(labels="a", columns="b"),
    lambda s, d: d.drop(axis=1),
    lambda s, d: d.drop(index="b", axis=1),
    lambda s, d: d.rename_axis(id, axis=0),
    lambda s, d: d.rename_axis({"x": "y"}),
    lambda s, d: s.drop(("a",)),
    lambda s, d: s.drop(("a", "b")),
])
def test_drop_and_rename_refuse_what_pandas_refuses(call):
    # each was accepted (and did something) or refused for another reason;
    # a tuple is one label to drop, as pandas'
    def objects(lib):
        return (lib.Series(range(3), index=list("abc")),
                lib.DataFrame({"a": [1, 2, 3], "b": [4, 5, 6]}, index=list("abc")))

    with pytest.raises((KeyError, ValueError)) as want:
        call(*objects(pd))
    with pytest.raises(want.type.__mro__[1] if want.type.__module__ != "builtins"
                       else want.type):
        call(*objects(zb))
    # what pandas accepts still works
    s, d = objects(zb)
    ps, pdf = objects(pd)
    assert s.rename({"a": "z"}, errors="raise").index.to_list() == \
        ps.rename({"a": "z"}, errors="raise").index.to_list()
    assert d.drop(index="b").index.to_list() == pdf.drop(index="b").index.to_list()
    assert d.drop(columns="b", axis=0).columns.to_list() == \
        pdf.drop(columns="b", axis=0).columns.to_list()
