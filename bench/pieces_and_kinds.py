"""The direct paths of this round, wall and CPU time, with the peers in the
same run:

    python bench/pieces_and_kinds.py [--rows 10000000] [--repeat 3]

- ``s.str.rsplit(" ", n=1).str[-1]`` and ``s.str.split(" ").str.len()``:
  zambezi's one-piece / piece-count kernels, zambezi building the lists
  first and then indexing or measuring them (the path before), polars
  (``str.split().list.last()`` / ``.list.len()``) and duckdb
  (``string_split(s, ' ')[-1]`` / ``len(string_split(s, ' '))``).  Rows of
  1-5 words (ASCII and non-ASCII), 5% null.
- ``map(f, engine="numba")`` of a function returning bool on floats, and of
  functions returning a float and a bool on an int64 column with 5% nulls:
  zambezi against the same function as a numpy expression and as a polars
  expression (pandas' own map is a Python loop: bench/numba_udf.py).

CPU time is time.process_time (every thread of the process, the peers'
pools included); best of --repeat after one untimed run (Numba compiles
there).  Ratio = peer / zambezi (above 1: zambezi ahead).  Run against a
stage of an older build (PYTHONPATH=.../stage) it times that build's
paths: the lists built for rsplit and len, the copying Numba path for
bool results and integer columns with nulls.  Measurements, not tests.
"""
import argparse
import time

import numpy as np


def best(fn, repeat):
    fn()
    bw = bc = float("inf")
    for _ in range(repeat):
        c0, w0 = time.process_time(), time.perf_counter()
        fn()
        bc = min(bc, time.process_time() - c0)
        bw = min(bw, time.perf_counter() - w0)
    return bw, bc


def words(n, seed=0):
    rng = np.random.default_rng(seed)
    vocab = np.array(["alpha", "b", "çé", "delta", "中文", "x1"])
    k = rng.integers(1, 6, n)
    idx = rng.integers(0, len(vocab), int(k.sum()))
    rows = [" ".join(x) for x in np.split(vocab[idx], np.cumsum(k)[:-1])]
    for i in np.flatnonzero(rng.random(n) < 0.05):
        rows[i] = None
    return rows


def is_big(v):
    return v > 3.0


def half(v):
    return v / 2.0 + 1.0


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=10_000_000)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    import duckdb
    import polars as pl

    import zambezi as zb
    from zambezi import _core, _lists

    n = args.rows
    data = words(n)
    s = zb.Series(data)
    df = pl.DataFrame({"s": data})
    con = duckdb.connect()
    con.register("t", df.to_arrow())

    # (a build before this round has no as_pandas_len: its str.len() was int64)
    as_len = getattr(_lists, "as_pandas_len", lambda c: c)

    def lists(op, k):
        return _core.regex_op(s._col, op, pat=" ", flags=32, n=k, as_list=True)

    rng = np.random.default_rng(1)
    iv = rng.integers(-100, 100, n)
    miss = rng.random(n) < 0.05
    zi = zb.Series(iv).where(zb.Series(~miss))  # int64 with nulls
    fv = rng.normal(0, 5, n)
    fv[miss] = np.nan
    zf = zb.Series(fv)
    ivf = np.where(miss, np.nan, iv.astype(np.float64))  # as pandas holds the int column
    pli = pl.Series(iv).set(pl.Series(miss), None)
    plf = pl.Series(fv).fill_nan(None)

    cases = [
        ("rsplit(' ', n=1).str[-1]", lambda: s.str.rsplit(" ", n=1).str[-1], [
            ("lists first", lambda: _lists.element(lists("rsplit", 1), -1)),
            ("polars", lambda: df.select(pl.col("s").str.split(" ").list.last())),
            ("duckdb", lambda: con.sql("select string_split(s, ' ')[-1] from t")
             .to_arrow_table())]),
        ("split(' ').str.len()", lambda: s.str.split(" ").str.len(), [
            ("lists first", lambda: as_len(_lists.lengths(lists("split", -1)))),
            ("polars", lambda: df.select(pl.col("s").str.split(" ").list.len())),
            ("duckdb", lambda: con.sql("select len(string_split(s, ' ')) from t")
             .to_arrow_table())]),
        ("map float -> bool", lambda: zf.map(is_big, engine="numba"), [
            ("numpy", lambda: fv > 3.0),
            ("polars", lambda: plf > 3.0)]),
        ("map int+nulls -> float", lambda: zi.map(half, engine="numba"), [
            ("numpy", lambda: ivf / 2.0 + 1.0),
            ("polars", lambda: pli / 2.0 + 1.0)]),
        ("map int+nulls -> bool", lambda: zi.map(is_big, engine="numba"), [
            ("numpy", lambda: ivf > 3.0),
            ("polars", lambda: pli > 3.0)]),
    ]
    print(f"rows {n}, best of {args.repeat}, wall / CPU seconds (ratio peer / zambezi)")
    for name, mine, peers in cases:
        bw, bc = best(mine, args.repeat)
        line = f"{name}: zambezi {bw:.3f} / {bc:.3f}"
        for label, fn in peers:
            w, c = best(fn, args.repeat)
            line += f" | {label} {w:.3f} / {c:.3f} ({w / bw:.2f}x / {c / bc:.2f}x)"
        print(line, flush=True)


if __name__ == "__main__":
    main()
