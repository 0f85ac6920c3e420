"""Window functions: zambezi vs pandas, polars and duckdb.

    python bench/windows.py [--rows 10000000] [--window 100] [--groups 100000] [--repeat 3]
                            [--only zambezi,pandas,polars,duckdb]

Cases, on --rows float64 values with 1% missing:

- rolling mean / std / min / median over --window rows (pandas'
  ``s.rolling(w).mean()``; polars' ``rolling_mean(w)``; duckdb's
  ``AVG(x) OVER (ORDER BY i ROWS BETWEEN w-1 PRECEDING AND CURRENT ROW)``,
  ``MEDIAN`` for the median);
- group-by rolling mean with --groups random int keys (pandas'
  ``df.groupby("k")["v"].rolling(w).mean()``, whose result is ordered by
  group; polars' ``rolling_mean(w).over("k")`` and duckdb's ``PARTITION BY
  k``, which keep row order).

Each peer gives the same statistics; result shapes differ as noted (pandas
and zambezi build the (key, label) index of a grouped result).  Other window
functions (cumulative, rank, ...) may add rows here.  Prints the best time
of --repeat runs per case and engine, the ratio to zambezi, the command and
the machine (nproc).  Measurements, not tests.
"""
import argparse
import os
import sys
import time

import numpy as np


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
    ap.add_argument("--window", type=int, default=100)
    ap.add_argument("--groups", type=int, default=100_000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--only", default="zambezi,pandas,polars,duckdb")
    args = ap.parse_args()
    n, w, rep = args.rows, args.window, args.repeat
    engines = set(args.only.split(","))
    rng = np.random.default_rng(1)
    v = rng.standard_normal(n) * 10 + 100
    v[rng.random(n) < 0.01] = np.nan
    k = rng.integers(0, args.groups, n)
    stats = ["mean", "std", "min", "median"]
    rows = []  # (case, engine, seconds)

    if "zambezi" in engines:
        import zambezi as zb

        zs = zb.Series(v)
        zdf = zb.DataFrame({"k": k, "v": v})
        for st in stats:
            rows.append((f"rolling({w}).{st}", "zambezi",
                         best(lambda st=st: getattr(zs.rolling(w), st)(), rep)))
        rows.append((f"groupby rolling({w}).mean", "zambezi",
                     best(lambda: zdf.groupby("k")["v"].rolling(w).mean(), rep)))
    if "pandas" in engines:
        import pandas as pd

        ps = pd.Series(v)
        pdf = pd.DataFrame({"k": k, "v": v})
        for st in stats:
            rows.append((f"rolling({w}).{st}", "pandas",
                         best(lambda st=st: getattr(ps.rolling(w), st)(), rep)))
        rows.append((f"groupby rolling({w}).mean", "pandas",
                     best(lambda: pdf.groupby("k")["v"].rolling(w).mean(), rep)))
    if "polars" in engines:
        import polars as pl

        # NaN as null: polars' rolling functions skip nulls, not NaN
        pls = pl.Series("v", v, nan_to_null=True)
        pldf = pl.DataFrame({"k": k, "v": pls})
        fns = {"mean": pls.rolling_mean, "std": pls.rolling_std, "min": pls.rolling_min,
               "median": pls.rolling_median}
        for st in stats:
            rows.append((f"rolling({w}).{st}", "polars",
                         best(lambda st=st: fns[st](w), rep)))
        rows.append((f"groupby rolling({w}).mean", "polars",
                     best(lambda: pldf.select(pl.col("v").rolling_mean(w).over("k")), rep)))
    if "duckdb" in engines:
        import duckdb
        import pyarrow as pa

        con = duckdb.connect()
        con.register("t", pa.table({"i": np.arange(n), "k": k,
                                    "v": pa.array(v, from_pandas=True)}))
        frame = f"ROWS BETWEEN {w - 1} PRECEDING AND CURRENT ROW"
        sql = {"mean": "AVG", "std": "STDDEV_SAMP", "min": "MIN", "median": "MEDIAN"}
        for st in stats:
            q = f"SELECT {sql[st]}(v) OVER (ORDER BY i {frame}) FROM t"
            rows.append((f"rolling({w}).{st}", "duckdb",
                         best(lambda q=q: con.execute(q).to_arrow_table(), rep)))
        q = f"SELECT AVG(v) OVER (PARTITION BY k ORDER BY i {frame}) FROM t"
        rows.append((f"groupby rolling({w}).mean", "duckdb",
                     best(lambda: con.execute(q).to_arrow_table(), rep)))

    base = {case: s for case, eng, s in rows if eng == "zambezi"}
    print(f"# {' '.join(sys.argv)}  (nproc={os.cpu_count()}, rows={n}, window={w}, "
          f"groups={args.groups})")
    print(f"{'case':28} {'engine':8} {'seconds':>9} {'vs zambezi':>10}")
    for case, eng, s in sorted(rows, key=lambda r: r[0]):
        ratio = f"{s / base[case]:.2f}x" if case in base else ""
        print(f"{case:28} {eng:8} {s:9.3f} {ratio:>10}")


if __name__ == "__main__":
    main()
