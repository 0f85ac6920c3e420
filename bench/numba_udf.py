"""User functions with engine="numba": zambezi vs pandas in the same run.

    python bench/numba_udf.py [--rows 1000000] [--repeat 3]

Cases (float64 data, 5% missing, 1000 groups):

- map: ``s.map(f)`` of a scalar function -- zambezi engine="numba" (a
  prange loop on every core), zambezi's Python path and pandas' (one
  Python call per value; pandas 3 has no numba engine for map);
- groupby agg: ``f(values, index)`` per group, engine="numba" in both;
- rolling apply: ``rolling(50).apply(f, raw=True, engine="numba")`` in both.

Each engine runs once first (Numba compiles then: not timed), then the
best of --repeat runs is printed with the ratio to zambezi's numba run.
Measurements, not tests.
"""
import argparse
import os
import time

import numpy as np


def best(fn, repeat):
    fn()  # compile
    t = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        t.append(time.perf_counter() - t0)
    return min(t)


def scalar(v):
    return v * v + 1.0 if v > 0 else -v


def group_spread(values, index):
    return np.nanmax(values) - np.nanmin(values)


def window_mean_abs(w):
    return np.nanmean(np.abs(w))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=1_000_000)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    import pandas as pd

    import zambezi as zb

    n, rep = args.rows, args.repeat
    rng = np.random.default_rng(1)
    v = rng.normal(size=n)
    v[rng.random(n) < 0.05] = np.nan
    pdf = pd.DataFrame({"k": rng.integers(0, 1000, n), "v": v})
    zdf = zb.DataFrame(pdf)
    rows = [
        ("map", "zambezi numba", best(lambda: zdf["v"].map(scalar, engine="numba"), rep)),
        ("map", "zambezi python", best(lambda: zdf["v"].map(scalar), 1)),
        ("map", "pandas python", best(lambda: pdf["v"].map(scalar), 1)),
        ("groupby agg", "zambezi numba",
         best(lambda: zdf.groupby("k")["v"].agg(group_spread, engine="numba"), rep)),
        ("groupby agg", "pandas numba",
         best(lambda: pdf.groupby("k")["v"].agg(group_spread, engine="numba"), rep)),
        ("rolling apply", "zambezi numba",
         best(lambda: zdf["v"].rolling(50).apply(window_mean_abs, raw=True, engine="numba"),
              rep)),
        ("rolling apply", "pandas numba",
         best(lambda: pdf["v"].rolling(50).apply(window_mean_abs, raw=True, engine="numba"),
              rep)),
    ]
    print(f"# bench/numba_udf.py --rows {n} --repeat {rep}  (nproc={os.cpu_count()})")
    print(f"{'case':<15}{'engine':<16}{'seconds':>9} {'vs zambezi numba':>17}")
    base = {}
    for case, eng, sec in rows:
        base.setdefault(case, sec)
        print(f"{case:<15}{eng:<16}{sec:>9.3f} {sec / base[case]:>16.2f}x")


if __name__ == "__main__":
    main()
