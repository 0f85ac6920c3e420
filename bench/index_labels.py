"""What carrying row labels through selections costs: filters, sorts and
takes on a frame with the default RangeIndex and with a string or int
index, with the labels gathered lazily (zambezi's way: the selection is
remembered and the labels gathered on first use) against gathering them
eagerly with the data (one engine call on data + index columns).

    python bench/index_labels.py [--rows 10000000] [--repeat 3]

For each case it prints the best of --repeat rounds: the selection alone
(labels never looked at), the selection plus reading the labels, and the
eager variant, with pandas' time for the same selection.  Timings are
measurements, not tests.
"""
import argparse
import os
import platform
import time

import numpy as np

import zambezi as zb
from zambezi import _core, _indexing


def best_of(fn, repeat):
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def eager(df, rows):
    """The selection with the labels gathered in the same engine call."""
    t = df._table
    levels = df.index._levels()
    cols = [t.column(i) for i in range(t.num_columns)] + levels
    names = list(t.names) + [f"__level_{i}" for i in range(len(levels))]
    out = rows.apply(_core.table_from_columns(cols, names))
    return [out.column(i) for i in range(out.num_columns)]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=10_000_000)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    n = args.rows
    rng = np.random.default_rng(0)
    data = {"a": rng.integers(0, 1000, n), "b": rng.normal(size=n)}
    frames = {
        "RangeIndex": zb.DataFrame(data),
        "int index": zb.DataFrame(data, index=rng.permutation(n)),
        "str index": zb.DataFrame(data, index=zb.Series(
            np.char.add("k", rng.integers(0, n, n).astype(str)).astype(object))),
    }
    try:
        import pandas as pd
    except ImportError:  # pragma: no cover
        pd = None
    print(f"# zambezi {zb.__version__}, {n:,} rows, {os.cpu_count()} cores, "
          f"{platform.machine()}; best of {args.repeat}")
    print(f"{'index':<11} {'operation':<10} {'lazy':>9} {'+labels':>9} {'eager':>9} "
          f"{'pandas':>9}")
    for label, df in frames.items():
        pdf = df.to_pandas() if pd is not None else None
        mask = df["a"] < 500
        order = df._sort_indices(["a"])
        cases = {
            "filter": (lambda d: d[mask], _indexing.filter_rows(mask._col),
                       (lambda p: p[p["a"] < 500]) if pdf is not None else None),
            "sort": (lambda d: d.sort_values("a"), _indexing.take_rows(order),
                     (lambda p: p.sort_values("a", kind="stable")) if pdf is not None
                     else None),
            "head": (lambda d: d.head(1000), _indexing.slice_rows(0, 1000),
                     (lambda p: p.head(1000)) if pdf is not None else None),
        }
        for op, (fn, rows, pfn) in cases.items():
            lazy = best_of(lambda: fn(df), args.repeat)
            with_labels = best_of(lambda: fn(df).index._levels(), args.repeat)
            ea = best_of(lambda: eager(df, rows), args.repeat)
            pt = best_of(lambda: pfn(pdf), args.repeat) if pfn else float("nan")
            print(f"{label:<11} {op:<10} {lazy * 1e3:8.1f}ms {with_labels * 1e3:8.1f}ms "
                  f"{ea * 1e3:8.1f}ms {pt * 1e3:8.1f}ms")


if __name__ == "__main__":
    main()
