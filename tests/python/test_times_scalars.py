"""Python objects in and out of timestamp and duration columns, against
pandas: every spelling of a missing time (pd.NaT, None, np.datetime64("NaT"))
mixed with datetimes and pd.Timestamps is null, with pandas' dtype, in
Series and DataFrame constructors; and the scalars read back (to_list,
iteration, to_dict, items, itertuples, iterrows, at/iat/iloc/loc, Index
labels) are pd.Timestamp / pd.Timedelta with zone and nanoseconds kept and
NaT where missing, as pandas gives them."""

import datetime as dt

import numpy as np
import pandas as pd
import pytest

import zambezi as zb

from pandas_compare import assert_frame_like, assert_series_like

UTC = dt.timezone.utc
BERLIN = pd.Timestamp("2024-01-01", tz="Europe/Berlin").tz

SPELLINGS = {
    "datetime+NaT": [dt.datetime(2024, 1, 1), pd.NaT],
    "NaT first": [pd.NaT, dt.datetime(2024, 1, 1, 12, 30)],
    "datetime+None": [dt.datetime(2024, 1, 1), None],
    "datetime+np NaT": [dt.datetime(2024, 1, 1), np.datetime64("NaT")],
    "Timestamp+NaT": [pd.Timestamp("2024-01-01 10:00"), pd.NaT, None],
    "ns Timestamp+NaT": [pd.Timestamp("2024-01-01 00:00:00.000000001"), pd.NaT],
    "ms Timestamp+NaT": [pd.Timestamp("2024-01-01 00:00:00.123").as_unit("ms"), pd.NaT],
    "units mixed": [pd.Timestamp("2024-01-01").as_unit("s"), dt.datetime(2024, 1, 2), pd.NaT],
    "aware+NaT": [pd.Timestamp("2024-01-01 10:00", tz="Europe/Berlin"), pd.NaT],
    "aware UTC+None+NaT": [dt.datetime(2024, 1, 1, tzinfo=UTC), None, pd.NaT],
    "NaT+np datetime64": [pd.NaT, np.datetime64("2024-01-01T10:00:00")],
    "np datetime64 units": [np.datetime64("2024-01-01"), np.datetime64("2024-01-01T10:00:00.001"),
                            np.datetime64("NaT", "s")],
    "np NaT only": [np.datetime64("NaT")],
    "np ns": [np.datetime64("2024-01-01T00:00:00.000000001"), None, np.datetime64("NaT", "s"),
              np.datetime64("1969-12-31T23:59:59.999999999")],
    "all NaT": [pd.NaT, pd.NaT],
    "None+NaT": [None, pd.NaT],
}


@pytest.mark.parametrize("name", SPELLINGS)
def test_missing_times_are_null_like_pandas(name):
    values = SPELLINGS[name]
    assert_series_like(zb.Series(values), pd.Series(values), name)
    assert_frame_like(zb.DataFrame({"t": values, "i": range(len(values))}),
                      pd.DataFrame({"t": values, "i": range(len(values))}), name)
    obj = np.array(values, dtype=object)
    assert_series_like(zb.Series(obj), pd.Series(obj), name)


def test_nat_with_explicit_dtype():
    got = zb.Series([pd.NaT, pd.Timestamp("2024-01-01 00:00:00.000000007")],
                    dtype="datetime64[ns]")
    exp = pd.Series([pd.NaT, pd.Timestamp("2024-01-01 00:00:00.000000007")],
                    dtype="datetime64[ns]")
    assert_series_like(got, exp)


def _frames():
    p = pd.DataFrame({
        "t": pd.to_datetime(["2024-03-31 01:30:00.000000001", None, "2024-10-27 12:00"],
                            format="ISO8601").tz_localize("Europe/Berlin"),
        "n": pd.to_datetime(["2024-01-01 00:00:00.000000005", "2024-06-01", None],
                            format="ISO8601"),
        "d": pd.to_timedelta([1, None, 86_400_000_000_123]),
        "x": [1, 2, 3]}, index=["a", "b", "c"])
    return zb.DataFrame(p), p


def _same(a, b):
    """Equal values; times of the same Python type (Timestamp zone and unit
    too)."""
    if not isinstance(b, (dt.datetime, dt.timedelta)) and b is not pd.NaT:
        assert a == b, (a, b)
        return
    assert type(a) is type(b), (a, b)
    if a is pd.NaT:
        assert b is pd.NaT
        return
    assert a == b, (a, b)
    if isinstance(a, pd.Timestamp):
        assert str(a.tz) == str(b.tz) and a.unit == b.unit, (a, b)


def _same_list(a, b):
    assert len(a) == len(b)
    for x, y in zip(a, b):
        _same(x, y)


@pytest.mark.parametrize("col", ["t", "n", "d"])
def test_series_scalars_like_pandas(col):
    z, p = _frames()
    zs, ps = z[col], p[col]
    _same_list(zs.to_list(), ps.to_list())
    _same_list(zs.tolist(), ps.tolist())
    _same_list(list(zs), list(ps))
    _same_list(list(zs.to_dict().values()), list(ps.to_dict().values()))
    _same_list([v for _, v in zs.items()], [v for _, v in ps.items()])
    for i in range(3):
        _same(zs.iloc[i], ps.iloc[i])
        _same(zs.iat[i], ps.iat[i])
    for label in "abc":
        _same(zs.loc[label], ps.loc[label])
        _same(zs.at[label], ps.at[label])


def test_frame_scalars_like_pandas():
    z, p = _frames()
    zd, pdict = z.to_dict(), p.to_dict()
    for col in pdict:
        _same_list(list(zd[col].values()), list(pdict[col].values()))
    for zr, pr in zip(z.to_dict("records"), p.to_dict("records")):
        _same_list(list(zr.values()), list(pr.values()))
    for zt, pt in zip(z.itertuples(), p.itertuples()):
        _same_list(list(zt), list(pt))
    for (zl, zrow), (pl, prow) in zip(z.iterrows(), p.iterrows()):
        assert zl == pl
        zvals = list(zrow.values()) if isinstance(zrow, dict) else zrow.to_list()
        _same_list(zvals, prow.to_list())
    for j, col in enumerate(p.columns):
        for i, label in enumerate(p.index):
            _same(z.iat[i, j], p.iat[i, j])
            _same(z.at[label, col], p.at[label, col])


def test_index_labels_like_pandas():
    z, p = _frames()
    _same_list(z.set_index("n").index.to_list(), p.set_index("n").index.to_list())
    _same_list(list(z.set_index("t").index), list(p.set_index("t").index))
    zk = list(z.set_index("n")["x"].to_dict())
    pk = list(p.set_index("n")["x"].to_dict())
    _same_list(zk, pk)


def test_python_functions_get_timestamps_like_pandas():
    z, p = _frames()
    for col in ("t", "n", "d"):
        assert z[col].map(repr).to_list() == p[col].map(repr).to_list()
        assert z[col].apply(repr).to_list() == p[col].apply(repr).to_list()
    row = lambda r: repr(r["t"]) + repr(r["d"])  # noqa: E731
    assert z.apply(row, axis=1).to_list() == p.apply(row, axis=1).to_list()
