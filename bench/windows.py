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
  k``, which keep row order);
- ewm mean (span 20) and group-by ewm mean (pandas' ``s.ewm(span=20).mean()``
  and ``df.groupby("k")["v"].ewm(span=20).mean()``; polars' ``ewm_mean`` and
  ``ewm_mean(...).over("k")``; duckdb has no ewm);
- resample("1h").mean() of one row a second (pandas' ``s.resample("1h")``;
  polars' ``group_by_dynamic("t", every="1h")``; duckdb's ``time_bucket``,
  which leaves out empty bins -- there are none here).

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
    times = (np.datetime64("2024-01-01", "s") + np.arange(n).astype("timedelta64[s]")).astype(
        "datetime64[us]")
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
        rows.append(("ewm(span=20).mean", "zambezi", best(lambda: zs.ewm(span=20).mean(), rep)))
        rows.append(("groupby ewm(span=20).mean", "zambezi",
                     best(lambda: zdf.groupby("k")["v"].ewm(span=20).mean(), rep)))
        zt = zb.Series(v, index=zb.Index(times))
        rows.append(('resample("1h").mean', "zambezi",
                     best(lambda: zt.resample("1h").mean(), rep)))
    if "pandas" in engines:
        import pandas as pd

        ps = pd.Series(v)
        pdf = pd.DataFrame({"k": k, "v": v})
        for st in stats:
            rows.append((f"rolling({w}).{st}", "pandas",
                         best(lambda st=st: getattr(ps.rolling(w), st)(), rep)))
        rows.append((f"groupby rolling({w}).mean", "pandas",
                     best(lambda: pdf.groupby("k")["v"].rolling(w).mean(), rep)))
        rows.append(("ewm(span=20).mean", "pandas", best(lambda: ps.ewm(span=20).mean(), rep)))
        rows.append(("groupby ewm(span=20).mean", "pandas",
                     best(lambda: pdf.groupby("k")["v"].ewm(span=20).mean(), rep)))
        pt = pd.Series(v, index=pd.DatetimeIndex(times))
        rows.append(('resample("1h").mean', "pandas",
                     best(lambda: pt.resample("1h").mean(), rep)))
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
        rows.append(("ewm(span=20).mean", "polars", best(lambda: pls.ewm_mean(span=20), rep)))
        rows.append(("groupby ewm(span=20).mean", "polars",
                     best(lambda: pldf.select(pl.col("v").ewm_mean(span=20).over("k")), rep)))
        pldt = pl.DataFrame({"t": times, "v": pls})
        rows.append(('resample("1h").mean', "polars",
                     best(lambda: pldt.group_by_dynamic("t", every="1h").agg(pl.col("v").mean()),
                          rep)))
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
        con.register("ts", pa.table({"t": times, "v": pa.array(v, from_pandas=True)}))
        q2 = ("SELECT time_bucket(INTERVAL '1 hour', t) AS b, AVG(v) FROM ts GROUP BY b "
              "ORDER BY b")
        rows.append(('resample("1h").mean', "duckdb",
                     best(lambda: con.execute(q2).to_arrow_table(), rep)))

    base = {case: s for case, eng, s in rows if eng == "zambezi"}
    print(f"# {' '.join(sys.argv)}  (nproc={os.cpu_count()}, rows={n}, window={w}, "
          f"groups={args.groups})")
    print(f"{'case':28} {'engine':8} {'seconds':>9} {'vs zambezi':>10}")
    for case, eng, s in sorted(rows, key=lambda r: r[0]):
        ratio = f"{s / base[case]:.2f}x" if case in base else ""
        print(f"{case:28} {eng:8} {s:9.3f} {ratio:>10}")


if __name__ == "__main__":
    main()
