"""Notebook calls made native in stops 52 and 53, zambezi against pandas in
the same run: wall seconds (best of 3) and whether the answers are equal
(dtypes aside).

    PYTHONPATH=<stage> python bench/notebook_calls.py [rows]

One frame of timestamps every 37 s, a text key of 1,000 values, floats
with 5% NaN, integer text; each call as a notebook writes it.
"""

import sys
import time

import numpy as np
import pandas as pd

import zambezi as zb


def best(f, repeat=3):
    out = float("inf")
    for _ in range(repeat):
        t = time.perf_counter()
        f()
        out = min(out, time.perf_counter() - t)
    return out


def same(a, b):
    a = a.to_pandas() if hasattr(a, "to_pandas") else a
    try:
        if isinstance(b, pd.DataFrame):
            pd.testing.assert_frame_equal(a, b, check_dtype=False, check_index_type=False,
                                          check_column_type=False, check_freq=False)
        elif isinstance(b, pd.Series):
            pd.testing.assert_series_equal(a, b, check_dtype=False, check_index_type=False,
                                           check_freq=False)
        elif isinstance(b, tuple):
            return all(same(x, y) for x, y in zip(a, b))
        else:
            np.testing.assert_array_equal(np.asarray(a), np.asarray(b))
        return True
    except AssertionError:
        return False


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 1_000_000
    rng = np.random.default_rng(7)
    pdf = pd.DataFrame({
        "x": rng.normal(size=n),
        "k": pd.array(np.char.add("key", rng.integers(0, 1000, n).astype(str)), dtype="str"),
        "t": pd.array(rng.integers(0, 10**6, n).astype(str), dtype="str")},
        index=pd.DatetimeIndex(np.datetime64("2024-01-01") +
                               np.arange(n) * np.timedelta64(37, "s"), name="ts"))
    pdf.loc[rng.random(n) < 0.05, "x"] = np.nan
    other = pdf[["x"]].iloc[::2] * 2
    zdf, zother = zb.from_pandas(pdf), zb.from_pandas(other)
    # other labels: every third row's time moved by 13 s (the two indexes
    # interleave, both sorted: the engine's merge join)
    moved = pdf["x"].iloc[::3]
    moved.index = moved.index + pd.Timedelta("13s")
    zmoved = zb.from_pandas(moved)
    probes = pd.DatetimeIndex(np.sort(rng.choice(pdf.index.values, 10_000)) +
                              np.timedelta64(5, "s"))
    when = pdf.index.to_series().reset_index(drop=True)
    zwhen = zb.from_pandas(when)
    calls = {
        "between_time('09:00', '17:00')": lambda m, d, o, w: d.between_time("09:00", "17:00"),
        "asfreq('10s', method='ffill')": lambda m, d, o, w: d[["x"]].asfreq("10s", method="ffill"),
        "combine_first (half the rows)": lambda m, d, o, w: d[["x"]].combine_first(o),
        "x + y (other time labels)": lambda m, d, o, w: d["x"] + (zmoved if m is zb else moved),
        "align(other time labels)":
            lambda m, d, o, w: d["x"].align(zmoved if m is zb else moved, join="inner"),
        "groupby(k).x.nlargest(3)": lambda m, d, o, w: d.groupby("k")["x"].nlargest(3),
        "groupby(k).x.ohlc()": lambda m, d, o, w: d.groupby("k")["x"].ohlc(),
        "groupby(k).x.quantile([.25, .75])":
            lambda m, d, o, w: d.groupby("k")["x"].quantile([0.25, 0.75]),
        "to_numeric(text)": lambda m, d, o, w: m.to_numeric(d["t"]),
        "factorize(k)": lambda m, d, o, w: m.factorize(d["k"]),
        "ts + DateOffset(months=1)": lambda m, d, o, w: w + pd.DateOffset(months=1),
        "ts + BDay(3)": lambda m, d, o, w: w + pd.offsets.BDay(3),
        "x.asof(10^4 times)": lambda m, d, o, w: d["x"].asof(probes),
        "ts.astype(str)": lambda m, d, o, w: w.astype(str),
        "sort_values(k, key=str.lower)":
            lambda m, d, o, w: d.sort_values("k", key=lambda c: c.str.lower(), kind="stable"),
    }
    print(f"{n:,} rows, {zb.get_num_threads()} zambezi threads")
    print("| call | zambezi (s) | pandas (s) | pandas / zambezi | equal |")
    print("|---|---:|---:|---:|---|")
    for name, f in calls.items():
        tz = best(lambda: f(zb, zdf, zother, zwhen))
        tp = best(lambda: f(pd, pdf, other, when))
        eq = same(f(zb, zdf, zother, zwhen), f(pd, pdf, other, when))
        print(f"| {name} | {tz:.3f} | {tp:.3f} | {tp / tz:.1f}x | {eq} |")


if __name__ == "__main__":
    main()
