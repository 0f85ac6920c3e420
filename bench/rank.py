"""rank: zambezi vs pandas and polars.

    python bench/rank.py [--rows 10000000] [--groups 1000] [--repeat 3]

Cases, on --rows rows:
(a) float64 with 1% NaN and about rows/10 distinct values, method average;
(b) the same, method dense, pct=True;
(c) int64 with 100 distinct values (long tie runs), method min;
(d) strings (10^4 distinct), method average;
(e) per group (--groups int64 keys) of (a), method average.

polars ranks nulls as missing (na_option "keep"), as here; for the floats
its input has nulls where pandas has NaN.  Prints the best time of
--repeat runs per case and engine, the ratios, the command and the machine
(nproc).  Measurements, not tests.
"""
import argparse
import os
import sys
import time

import numpy as np
import pandas as pd
import polars as pl

import zambezi as zb


def best(fn, repeat):
    t = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        t.append(time.perf_counter() - t0)
    return min(t)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=10_000_000)
    ap.add_argument("--groups", type=int, default=1000)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    n, rep = args.rows, args.repeat
    rng = np.random.default_rng(1)
    f = np.round(rng.normal(size=n) * 1000, 1)
    f[rng.random(n) < 0.01] = np.nan
    i = rng.integers(0, 100, size=n)
    words = np.array([f"w{k:05d}" for k in range(10_000)], dtype=object)
    s = words[rng.integers(0, len(words), size=n)]
    k = rng.integers(0, args.groups, size=n)

    pf, pi, ps = pd.Series(f), pd.Series(i), pd.Series(s, dtype="str")
    zf, zi, zs = zb.Series(f), zb.Series(i), zb.Series(ps)
    pdf, zdf = pd.DataFrame({"k": k, "v": f}), zb.DataFrame({"k": k, "v": f})
    lf = pl.Series(f, nan_to_null=True)
    li, ls = pl.Series(i), pl.Series(s.tolist())
    ldf = pl.DataFrame({"k": k, "v": lf})

    cases = [
        ("a: float64 average", lambda: zf.rank(), lambda: pf.rank(),
         lambda: lf.rank("average")),
        ("b: float64 dense pct", lambda: zf.rank(method="dense", pct=True),
         lambda: pf.rank(method="dense", pct=True),
         lambda: lf.rank("dense") / lf.rank("dense").max()),
        ("c: int64 min (100 values)", lambda: zi.rank(method="min"),
         lambda: pi.rank(method="min"), lambda: li.rank("min")),
        ("d: strings average", lambda: zs.rank(), lambda: ps.rank(),
         lambda: ls.rank("average")),
        (f"e: groupby({args.groups}) average", lambda: zdf.groupby("k")["v"].rank(),
         lambda: pdf.groupby("k")["v"].rank(),
         lambda: ldf.select(pl.col("v").rank("average").over("k"))),
    ]
    print(f"# python {' '.join(sys.argv)}  (nproc={os.cpu_count()}, "
          f"zambezi threads={zb.get_num_threads()}, rows={n})")
    print(f"{'case':32s} {'zambezi':>9s} {'pandas':>9s} {'polars':>9s} "
          f"{'pd/zb':>7s} {'pl/zb':>7s}")
    for name, fz, fp, fl in cases:
        tz, tp, tl = best(fz, rep), best(fp, rep), best(fl, rep)
        print(f"{name:32s} {tz:9.3f} {tp:9.3f} {tl:9.3f} {tp / tz:7.2f} {tl / tz:7.2f}")


if __name__ == "__main__":
    main()
