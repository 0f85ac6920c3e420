"""Interchange tests: pandas, pyarrow, polars, duckdb and numpy as oracles.

  * a pandas DataFrame holding every dtype zambezi maps (nullable ints and
    uints, float32/64 with NaN, boolean, strings with None, category, date
    objects, datetime64[ns], datetime64[us, UTC], a non-UTC timezone) comes
    back from zambezi unchanged (pd.testing.assert_frame_equal), whole and
    sliced;
  * a pyarrow table with every zambezi-native type, with nulls, comes back
    equal (whole, sliced at odd offsets, and from several chunks); pa.string()
    and non-int32 dictionary indices import and equal the input after a cast;
  * polars and duckdb read a zambezi frame through the Arrow C stream and
    agree with pandas;
  * numpy gets zero-copy read-only views that keep the data alive.
"""

import datetime as dt
import gc

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest

import zambezi as zb


INT_TYPES = ["Int8", "Int16", "Int32", "Int64", "UInt8", "UInt16", "UInt32", "UInt64"]


def _ints(rng, dtype, n):
    info = np.iinfo(dtype)
    return rng.integers(info.min, info.max, size=n, dtype=dtype, endpoint=True)


def make_pandas(n=40, seed=0):
    rng = np.random.default_rng(seed)
    null = rng.random(n) < 0.25
    null[0] = True
    null[-1] = False
    cols = {}
    for t in INT_TYPES:
        cols[t.lower()] = pd.array(_ints(rng, t.lower(), n), dtype=t)
        cols[t.lower()][null] = pd.NA
    f32 = rng.standard_normal(n).astype(np.float32)
    f32[null] = np.nan
    cols["float32"] = f32
    f64 = rng.standard_normal(n) * 1e6
    f64[null] = np.nan
    cols["float64"] = f64
    cols["boolean"] = pd.arrays.BooleanArray(rng.random(n) < 0.5, null.copy())
    words = np.array(["alpha", "beta", "", "ünïcödé ✓", "a much longer string value"],
                     dtype=object)
    strings = words[rng.integers(0, len(words), n)]
    strings[null] = None
    cols["string"] = pd.Series(list(strings))  # pandas' default string dtype
    codes = rng.integers(-1, 3, n)
    cols["category"] = pd.Categorical.from_codes(codes, categories=["x", "y", "z"])
    days = rng.integers(-20000, 20000, n)
    dates = np.empty(n, dtype=object)
    dates[:] = [dt.date(1970, 1, 1) + dt.timedelta(days=int(d)) for d in days]
    dates[null] = None
    cols["date"] = pd.Series(dates, dtype=object)
    ns = rng.integers(-(2**62), 2**62, n).astype("datetime64[ns]")
    ns[null] = np.datetime64("NaT")
    cols["ts_ns"] = ns
    us = rng.integers(-(2**50), 2**50, n).astype("datetime64[us]")
    us[null] = np.datetime64("NaT")
    cols["ts_us_utc"] = pd.Series(us).dt.tz_localize("UTC")
    ms = rng.integers(0, 2**40, n).astype("datetime64[ms]")
    cols["ts_ms_ny"] = pd.Series(ms).dt.tz_localize("UTC").dt.tz_convert("America/New_York")
    return pd.DataFrame(cols)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_pandas_round_trip_every_dtype(seed):
    pdf = make_pandas(seed=seed)
    df = zb.from_pandas(pdf)
    assert df.shape == pdf.shape
    assert df.dtypes["int8"] == "int8"
    assert df.dtypes["uint64"] == "uint64"
    assert df.dtypes["string"] == "string"
    assert df.dtypes["category"] == "category"
    assert df.dtypes["date"] == "date32"
    assert df.dtypes["ts_ns"] == "timestamp[ns]"
    assert df.dtypes["ts_us_utc"] == "timestamp[us, tz=UTC]"
    assert df.dtypes["ts_ms_ny"] == "timestamp[ms, tz=America/New_York]"
    # nulls counted where pandas has them
    for name in pdf.columns:
        assert df[name].null_count == int(pdf[name].isna().sum()), name
    back = df.to_pandas()
    pd.testing.assert_frame_equal(back, pdf)
    # zambezi.DataFrame(pandas) is the same conversion
    pd.testing.assert_frame_equal(zb.DataFrame(pdf).to_pandas(), pdf)


@pytest.mark.parametrize("start,stop", [(0, 0), (3, 17), (7, 40), (13, 14)])
def test_pandas_round_trip_of_slices(start, stop):
    pdf = make_pandas(seed=5)
    df = zb.from_pandas(pdf)[start:stop]
    expected = pdf.iloc[start:stop]  # the slice keeps its row labels
    # a slice without nulls in a nullable int/bool column comes back as numpy
    for name in expected.columns:
        dtype = str(expected[name].dtype)
        if dtype in INT_TYPES + ["boolean"] and not expected[name].isna().any():
            expected[name] = expected[name].astype(dtype.lower().replace("boolean", "bool"))
    pd.testing.assert_frame_equal(df.to_pandas(), expected)


def test_pandas_numpy_dtypes_without_nulls_stay_numpy():
    pdf = pd.DataFrame({
        "i8": np.arange(5, dtype=np.int8), "u32": np.arange(5, dtype=np.uint32),
        "b": np.array([True, False, True, True, False]), "f": np.linspace(0, 1, 5),
    })
    back = zb.from_pandas(pdf).to_pandas()
    pd.testing.assert_frame_equal(back, pdf)
    assert back["b"].dtype == np.bool_


def test_pandas_categorical_of_integers_round_trips():
    pdf = pd.DataFrame({"c": pd.Categorical([2, 0, 1, 0])})
    pd.testing.assert_frame_equal(zb.from_pandas(pdf).to_pandas(), pdf)


def make_arrow(n=37, seed=0):
    rng = np.random.default_rng(seed)
    valid = rng.random(n) >= 0.3
    if n >= 2:
        valid[:2] = [False, True]
    mask = ~valid
    arrays, names = [], []

    def add(name, values, type_):
        arrays.append(pa.array(values, type=type_, mask=mask))
        names.append(name)

    for t in ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"]:
        add(t, _ints(rng, t, n), getattr(pa, t)())
    add("float32", rng.standard_normal(n).astype(np.float32), pa.float32())
    add("float64", rng.standard_normal(n), pa.float64())
    add("bool", rng.random(n) < 0.5, pa.bool_())
    words = np.array(["a", "bb", "", "ccc✓", "dddd dddd"], dtype=object)
    add("large_string", words[rng.integers(0, 5, n)], pa.large_string())
    dict_values = pa.array(["red", "green", "blue"], type=pa.large_string())
    idx = pa.array(rng.integers(0, 3, n).astype(np.int32), mask=mask)
    arrays.append(pa.DictionaryArray.from_arrays(idx, dict_values))
    names.append("dictionary")
    add("date32", rng.integers(-30000, 30000, n).astype(np.int32), pa.date32())
    for unit in ["s", "ms", "us", "ns"]:
        for tz in [None, "UTC", "Asia/Tokyo"]:
            values = rng.integers(-(2**40), 2**40, n)
            add(f"ts_{unit}_{tz}", values, pa.timestamp(unit, tz=tz))
    return pa.table(arrays, names=names)


@pytest.mark.parametrize("seed", [0, 1])
def test_arrow_round_trip_every_native_type(seed):
    t = make_arrow(seed=seed)
    df = zb.from_arrow(t)
    assert list(df.columns) == t.column_names
    assert df.dtypes["dictionary"] == "category"
    assert df.dtypes["ts_ns_Asia/Tokyo"] == "timestamp[ns, tz=Asia/Tokyo]"
    back = df.to_arrow()
    assert back.schema.equals(t.schema), (back.schema, t.schema)
    assert back.equals(t)
    for name in t.column_names:
        assert df[name].null_count == t[name].null_count, name
    # zambezi.DataFrame(pyarrow) and pa.table(zambezi) go through the same C paths
    assert pa.table(zb.DataFrame(t)).equals(t)


@pytest.mark.parametrize("start,length", [(0, 0), (1, 9), (3, 20), (17, 20), (36, 1)])
def test_arrow_round_trip_of_slices(start, length):
    t = make_arrow(seed=3)
    # slice in Arrow (imported arrays carry offsets) ...
    assert zb.from_arrow(t.slice(start, length)).to_arrow().equals(t.slice(start, length))
    # ... and in zambezi (exported arrays carry offsets)
    assert zb.from_arrow(t)[start:start + length].to_arrow().equals(t.slice(start, length))


def test_arrow_multi_chunk_table():
    parts = [make_arrow(n, seed) for n, seed in [(5, 1), (0, 2), (33, 3), (9, 4)]]
    t = pa.concat_tables(parts)
    assert t.column(0).num_chunks == 4
    df = zb.from_arrow(t)
    assert len(df) == t.num_rows
    assert df.to_arrow().equals(t)
    assert df["int64"].sum() == pa.compute.sum(t["int64"]).as_py()


def test_arrow_string_and_small_dictionary_indices_import():
    t = pa.table({
        "s": pa.array(["x", None, "", "ÿ", "long string here"], type=pa.string()),
        "d8": pa.array(["p", "q", None, "p", "q"]).dictionary_encode().cast(
            pa.dictionary(pa.int8(), pa.string())),
    })
    df = zb.from_arrow(t)
    assert df.dtypes.to_dict() == {"s": "string", "d8": "category"}
    target = pa.schema([("s", pa.large_string()),
                        ("d8", pa.dictionary(pa.int32(), pa.large_string()))])
    assert df.to_arrow().equals(t.cast(target))


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("index_type", [pa.int8(), pa.int32(), pa.uint16()])
def test_arrow_dictionary_repeating_strings_is_folded(seed, index_type):
    # Arrow lets a dictionary repeat a string; every zambezi operation must
    # treat the repeats as one category (the decoded strings are the oracle)
    rng = np.random.default_rng(seed)
    words = np.array(["p", "q", "", "é", "rr"], dtype=object)
    dictionary = pa.array(words[rng.integers(0, len(words), size=12)])
    n = 400
    codes = pa.array(rng.integers(0, len(dictionary), size=n), type=index_type,
                     mask=rng.random(n) < 0.1)
    arr = pa.DictionaryArray.from_arrays(codes, dictionary)
    t = pa.table({"k": arr, "v": pa.array(rng.integers(0, 100, size=n))})
    start = int(rng.integers(0, 9))  # a sliced import: codes at an offset
    t = t.slice(start, n - 2 * start)
    df = zb.from_arrow(t)
    decoded = t["k"].cast(pa.large_string()).to_pylist()
    assert df["k"].to_list() == decoded
    # the dictionary holds each string once, in order of first appearance
    seen = list(dict.fromkeys(dictionary.to_pylist()))
    got = df.to_arrow()["k"].combine_chunks()
    assert got.dictionary.to_pylist() == seen
    assert got.cast(pa.large_string()).to_pylist() == decoded
    pdf = pd.DataFrame({"k": pd.Series(decoded, dtype=object), "v": t["v"].to_pylist()})
    exp = pdf.groupby("k", sort=False)["v"].sum()
    res = df.groupby("k", sort=False)["v"].sum().to_pandas()
    assert res.index.astype(object).tolist() == exp.index.tolist()
    assert res.tolist() == exp.tolist()
    assert df["k"].nunique() == pdf["k"].nunique()
    m = df.merge(df, on="k")  # null keys match each other, as in pandas
    assert len(m) == len(pdf.merge(pdf, on="k"))
    # equal strings are equal categories in a sort: ties keep row order
    exp_order = sorted(range(len(decoded)),
                       key=lambda i: (decoded[i] is None,
                                      seen.index(decoded[i]) if decoded[i] is not None else 0))
    assert df["k"].argsort().to_list() == exp_order


def test_arrow_dictionary_null_rows_may_hold_any_index():
    """Arrow leaves a null row's dictionary index unchecked (any value, here
    far outside the dictionary); every operation must read the same as with
    index 0 there -- decoding once read the offset of such an index."""
    n = 5000
    rng = np.random.default_rng(3)
    idx = rng.integers(0, 3, n).astype(np.int32)
    mask = rng.random(n) < 0.2
    wild = idx.copy()
    wild[mask] = rng.choice([2**30, -(2**30), 2**31 - 1, -1, 3], int(mask.sum())).astype(np.int32)
    words = pa.array(["a", "bb", "ccc"])

    def frame(codes):
        arr = pa.DictionaryArray.from_arrays(pa.array(codes, mask=mask), words)
        return zb.from_arrow(pa.table({"c": arr, "v": np.arange(n)}))

    bad, good = frame(wild), frame(idx)
    assert bad["c"].astype("string").to_list() == good["c"].astype("string").to_list()
    assert bad["c"].to_list() == good["c"].to_list()
    pd.testing.assert_frame_equal(bad.groupby("c", dropna=False).sum().to_pandas(),
                                  good.groupby("c", dropna=False).sum().to_pandas())
    assert bad.sort_values(["c", "v"])["v"].to_list() == good.sort_values(["c", "v"])["v"].to_list()
    assert (bad["c"] == "bb").to_list() == (good["c"] == "bb").to_list()
    assert bad["c"].str.upper().to_list() == good["c"].str.upper().to_list()
    assert len(bad.merge(bad, on="c")) == len(good.merge(good, on="c"))


def test_record_batch_and_plain_array():
    t = make_arrow(seed=7)
    batch = t.to_batches()[0]
    assert zb.from_arrow(batch).to_arrow().equals(t)
    with pytest.raises(ValueError, match="single"):
        zb.from_arrow(pa.array([1, 2, 3]))
    s = zb.Series(pa.array([1, None, 3], type=pa.int16()), name="x")
    assert s.dtype == "int16" and s.to_list() == [1, None, 3]
    assert pa.array(s).equals(pa.array([1, None, 3], type=pa.int16()))


def test_series_arrow_export_is_named():
    s = zb.Series([1.5, None, 2.5], name="v")
    arr = pa.array(s)
    assert arr.equals(pa.array([1.5, None, 2.5]))
    field = pa.field(s)
    assert field.name == "v"


def _frame_for_peers():
    rng = np.random.default_rng(11)
    n = 2000
    i = rng.integers(-1000, 1000, n)
    f = rng.standard_normal(n)
    f[rng.random(n) < 0.1] = np.nan
    words = np.array(["a", "b", "c", None], dtype=object)
    return pd.DataFrame({
        "i": i,
        "f": f,
        "s": pd.Series(list(words[rng.integers(0, 4, n)])),
        "b": rng.random(n) < 0.5,
    })


def test_polars_reads_zambezi():
    pl = pytest.importorskip("polars")
    pdf = _frame_for_peers()
    df = zb.from_pandas(pdf)
    for pldf in (pl.DataFrame(df), pl.from_arrow(df.to_arrow())):
        assert pldf.shape == pdf.shape
        assert pldf["i"].sum() == pdf["i"].sum()
        assert pldf["f"].null_count() == pdf["f"].isna().sum()
        assert abs(pldf["f"].sum() - pdf["f"].sum()) <= 1e-9 * pdf["f"].abs().sum()
        assert pldf["s"].to_list() == [None if v is None or v != v else v for v in pdf["s"]]
        assert pldf["b"].to_list() == pdf["b"].tolist()
    # and back: polars -> zambezi (polars exports strings as string_view,
    # which from_arrow casts to large_string through pyarrow)
    back = zb.from_arrow(pl.DataFrame(df))
    assert back.dtypes.to_dict() == df.dtypes.to_dict()
    assert zb.from_arrow(pl.DataFrame(df).to_arrow()).to_arrow().equals(df.to_arrow())
    assert back["i"].to_list() == pdf["i"].tolist()
    assert back["s"].null_count == pdf["s"].isna().sum()


def test_duckdb_reads_zambezi():
    duckdb = pytest.importorskip("duckdb")
    pdf = _frame_for_peers()
    zbdf = zb.from_pandas(pdf)  # noqa: F841 - found by duckdb's replacement scan
    expected = pdf.groupby("s", dropna=False).agg(n=("i", "size"), total=("i", "sum"))
    got = duckdb.sql(
        "select s, count(*) as n, sum(i) as total, sum(f) as fs, count(f) as fc "
        "from zbdf group by s order by s nulls last").fetchall()
    assert len(got) == len(expected)
    for s, n, total, fs, fc in got:
        key = s if s is not None else np.nan
        row = expected.loc[key] if s is not None else expected[expected.index.isna()].iloc[0]
        assert n == row["n"] and total == row["total"]
        sel = pdf["s"].isna() if s is None else pdf["s"] == s
        assert fc == pdf.loc[sel, "f"].count()
        assert abs(fs - pdf.loc[sel, "f"].sum()) <= 1e-9 * pdf.loc[sel, "f"].abs().sum()
    rel = duckdb.from_arrow(zbdf)
    assert rel.aggregate("sum(i)").fetchall()[0][0] == pdf["i"].sum()
    # duckdb -> zambezi through __arrow_c_stream__ / arrow
    res = duckdb.sql("select i * 2 as j, s from zbdf")
    back = zb.from_arrow(res.arrow())
    assert back["j"].sum() == 2 * pdf["i"].sum()
    del res, rel, back


def test_numpy_views_are_zero_copy_and_keep_data_alive():
    base = np.arange(100_000, dtype=np.int64) * 3
    df = zb.DataFrame({"a": base, "f": base.astype(np.float32)})
    a = df["a"].to_numpy()
    f = df["f"].to_numpy()
    assert a.dtype == np.int64 and f.dtype == np.float32
    assert not a.flags.writeable
    with pytest.raises(ValueError):
        a[0] = 1
    assert not np.shares_memory(a, base)  # the engine copied the input once
    # two views of one column share memory: nothing is copied on the way out
    assert np.shares_memory(a, df["a"].to_numpy())
    # slices are views too
    sl = df[10:20]["a"].to_numpy()
    assert np.shares_memory(sl, a) and sl.tolist() == base[10:20].tolist()
    del df
    gc.collect()
    np.testing.assert_array_equal(a, base)  # still valid: the view holds the buffer
    np.testing.assert_array_equal(f, base.astype(np.float32))


def test_numpy_conversions_with_nulls():
    s = zb.Series([1, None, 3], name="x")
    out = s.to_numpy()
    assert out.dtype == np.float64 and np.isnan(out[1]) and out[2] == 3
    b = zb.Series([True, None, False]).to_numpy()
    assert b.dtype == object and b.tolist() == [True, None, False]
    st = zb.Series(["a", None]).to_numpy()
    assert st.dtype == object and st[0] == "a" and st[1] is np.nan  # pandas 3's str dtype
    ts = zb.Series(np.array(["2020-01-01", "NaT"], dtype="datetime64[ms]"))
    assert ts.dtype == "timestamp[ms]"
    out = ts.to_numpy()
    assert out.dtype == np.dtype("datetime64[ms]") and np.isnat(out[1])
    d = zb.Series([dt.date(2021, 3, 4), dt.date(1900, 1, 1)]).to_numpy()
    assert d.dtype == np.dtype("datetime64[D]")
    assert d.tolist() == [dt.date(2021, 3, 4), dt.date(1900, 1, 1)]
    np.testing.assert_array_equal(np.asarray(zb.Series(np.arange(4))), np.arange(4))


def test_to_numpy_gives_missing_text_as_pandas():
    # pandas 3's str dtype, a Categorical and the lists of str.split give
    # NaN for a missing value in to_numpy's object array
    p = pd.DataFrame({"s": ["a", None, "c"], "x": [1.0, 2.0, None]})
    z = zb.DataFrame(p)
    for got, exp in [(z["s"].to_numpy(), p["s"].to_numpy()),
                     (z["s"].astype("category").to_numpy(), p["s"].astype("category").to_numpy()),
                     (z["s"].str.split().to_numpy(), p["s"].str.split().to_numpy()),
                     (z.to_numpy(), p.to_numpy()), (z.values, p.values)]:
        assert got.dtype == exp.dtype
        assert pd.isna(got).tolist() == pd.isna(exp).tolist()
        assert [type(v) for v in got.ravel()] == [type(v) for v in exp.ravel()]
    assert pd.DataFrame(z.to_numpy()).equals(pd.DataFrame(p.to_numpy()))


def test_numpy_strided_and_masked_buffers():
    base = np.arange(20, dtype=np.int32)
    s = zb.Series(base[::3])
    assert s.to_list() == base[::3].tolist()
    mask = np.zeros(7, dtype=bool)
    mask[[1, 5]] = True
    col = zb._core.column_from_buffer(base[::3], mask=mask, name="m")
    assert col.to_pylist() == [None if m else int(v) for v, m in zip(base[::3], mask)]
    for dtype in ["int8", "int16", "uint16", "uint32", "uint64", "float32", "bool"]:
        arr = (np.arange(9) % 4).astype(dtype)
        assert zb.Series(arr).dtype == dtype
        assert zb.Series(arr).to_list() == arr.tolist()


def test_numpy_functions_on_a_series_answer_as_on_pandas():
    from pandas_compare import assert_series_like

    rng = np.random.default_rng(4)
    values = rng.random(500) * 10
    values[rng.random(500) < 0.1] = np.nan
    labels = [f"r{i}" for i in range(500)]
    p = pd.Series(values, index=labels, name="x")
    s = zb.Series(p)
    for f in (np.mean, np.sum, np.min, np.max, np.median, np.argmax, np.argmin):
        assert np.isclose(f(s), f(p), equal_nan=True), f.__name__
    assert np.isclose(np.std(s), np.std(p)) and np.isclose(np.var(s, ddof=1), np.var(p, ddof=1))
    for uf in (np.log, np.sqrt, np.exp, np.floor):
        assert_series_like(uf(s), uf(p), uf.__name__, rtol=1e-12)
    frac, whole = np.modf(s)
    assert_series_like(whole, np.modf(p)[1], "modf")
    with pytest.raises(zb.errors.UnsupportedError):
        np.sum(s, out=np.empty(()))


def test_column_labels_other_than_text_keep_their_type():
    # labels pandas holds as numbers, timestamps or a RangeIndex come back
    # as they were (zambezi keeps its own text names for the table)
    for pdf in (pd.DataFrame({0: [1], 1: [2]}), pd.DataFrame([[1, 2]]),
                pd.DataFrame({1.5: [1]}), pd.DataFrame({pd.Timestamp("2020-01-01"): [1]})):
        got = zb.DataFrame(pdf)
        pd.testing.assert_index_equal(got.to_pandas().columns, pdf.columns)
        pd.testing.assert_index_equal((got + 1).to_pandas().columns, pdf.columns)
        assert got[pdf.columns[0]].to_list() == pdf[pdf.columns[0]].to_list()
    for s in (pd.Series([3, 1]), pd.Series([3, 1], name=7)):
        pd.testing.assert_index_equal(zb.Series(s).to_frame().to_pandas().columns,
                                      s.to_frame().columns)
