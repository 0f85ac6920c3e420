"""Window functions: zambezi vs pandas, polars and duckdb.

    python bench/windows.py [--rows 10000000] [--window 100] [--groups 100000] [--repeat 3]
                            [--only zambezi,pandas,polars,duckdb] [--cases SUBSTR,...] [--cpu]

Cases, on --rows float64 values with 1% missing (issue #22):

- cumsum, shift(1), diff(1), rank() (pandas' average rank; polars'
  ``rank("average")``; duckdb's ``RANK() OVER (ORDER BY v)``, the minimum
  rank, equal here because random floats have no ties; duckdb ranks the
  missing values last where the others leave them missing) -- and each per
  group with --groups random int keys (pandas' ``df.groupby("k")["v"]
  .cumsum()`` ...; polars' ``.over("k")``; duckdb's ``PARTITION BY k``);
- cumulative sum / shift / diff in duckdb: ``SUM(v) OVER (ORDER BY i ROWS
  UNBOUNDED PRECEDING)``, ``LAG(v)``, ``v - LAG(v)``;
- rolling mean / std / min / median over --window rows (pandas'
  ``s.rolling(w).mean()``; polars' ``rolling_mean(w)``; duckdb's
  ``AVG(x) OVER (ORDER BY i ROWS BETWEEN w-1 PRECEDING AND CURRENT ROW)``,
  ``MEDIAN`` for the median);
- group-by rolling mean (pandas' ``df.groupby("k")["v"].rolling(w).mean()``,
  whose result is ordered by group; polars' ``rolling_mean(w).over("k")``
  and duckdb's ``PARTITION BY k``, which keep row order);
- ewm mean (span 20) and group-by ewm mean (pandas' ``s.ewm(span=20).mean()``
  and ``df.groupby("k")["v"].ewm(span=20).mean()``; polars' ``ewm_mean`` and
  ``ewm_mean(...).over("k")``; duckdb has no ewm);
- resample("1h").sum() of one row a second (pandas' ``s.resample("1h")``;
  polars' ``group_by_dynamic("t", every="1h")``; duckdb's ``time_bucket``,
  which leaves out empty bins -- there are none here).

duckdb's results are materialized to Arrow.  Each peer gives the same
statistics; result shapes differ as noted (pandas and zambezi build the
(key, label) index of a grouped rolling / ewm result).

Engines take turns within each case (every repeat runs each engine once),
so a change in the machine's load hits them alike.  Prints the best time
of --repeat runs per case and engine and the ratio to zambezi.  With
--cpu, a second table: the process CPU time (all threads, user + system)
of the run with the best CPU time per case and engine -- steadier than
wall time on a machine others load, since waiting for a core is not
counted.

Memory bandwidth: a threaded numpy copy of the --rows float64 values (one
thread per core, each copying its slice: n * 8 bytes read and n * 8
written), best of --repeat.  The cumulative rows (cumsum, shift, diff)
also print the bytes they must move -- the values read and the float64
results written, n * 16 (diff reads its input once) -- per second, as a
share of that copy bandwidth.  Measurements, not tests.
"""
import argparse
import os
import sys
import threading
import time

import numpy as np


def timed(fn):
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


def timed_cpu(fn):
    """(wall seconds, process CPU seconds) of fn()."""
    t0, c0 = time.perf_counter(), time.process_time()
    fn()
    return time.perf_counter() - t0, time.process_time() - c0


def copy_bandwidth(v, repeat):
    """Bytes/s (read + written) of a copy of v by one thread per core."""
    dst = np.empty_like(v)
    parts = list(zip(np.array_split(dst, os.cpu_count()), np.array_split(v, os.cpu_count())))

    def run():
        ts = [threading.Thread(target=np.copyto, args=p) for p in parts]
        for t in ts:
            t.start()
        for t in ts:
            t.join()

    run()
    return 2 * v.nbytes / min(timed(run) for _ in range(repeat))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=10_000_000)
    ap.add_argument("--window", type=int, default=100)
    ap.add_argument("--groups", type=int, default=100_000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--only", default="zambezi,pandas,polars,duckdb")
    ap.add_argument("--cases", default="", help="only cases whose name contains one of these")
    ap.add_argument("--cpu", action="store_true", help="also print process CPU seconds")
    args = ap.parse_args()
    n, w, rep = args.rows, args.window, args.repeat
    engines = [e for e in ("zambezi", "pandas", "polars", "duckdb") if e in args.only.split(",")]
    rng = np.random.default_rng(1)
    v = rng.standard_normal(n) * 10 + 100
    v[rng.random(n) < 0.01] = np.nan
    k = rng.integers(0, args.groups, n)
    times = (np.datetime64("2024-01-01", "s") + np.arange(n).astype("timedelta64[s]")).astype(
        "datetime64[us]")
    stats = ["mean", "std", "min", "median"]
    cases = {}  # case -> {engine: callable}

    def add(case, engine, fn):
        cases.setdefault(case, {})[engine] = fn

    if "zambezi" in engines:
        import zambezi as zb

        zs = zb.Series(v)
        zdf = zb.DataFrame({"k": k, "v": v})
        zg = zdf.groupby("k")["v"]
        add("cumsum", "zambezi", zs.cumsum)
        add("shift(1)", "zambezi", zs.shift)
        add("diff(1)", "zambezi", zs.diff)
        add("rank", "zambezi", zs.rank)
        add("groupby cumsum", "zambezi", lambda: zdf.groupby("k")["v"].cumsum())
        add("groupby shift(1)", "zambezi", lambda: zdf.groupby("k")["v"].shift())
        add("groupby diff(1)", "zambezi", lambda: zdf.groupby("k")["v"].diff())
        add("groupby rank", "zambezi", lambda: zdf.groupby("k")["v"].rank())
        for st in stats:
            add(f"rolling({w}).{st}", "zambezi", lambda st=st: getattr(zs.rolling(w), st)())
        add(f"groupby rolling({w}).mean", "zambezi",
            lambda: zdf.groupby("k")["v"].rolling(w).mean())
        add("ewm(span=20).mean", "zambezi", lambda: zs.ewm(span=20).mean())
        add("groupby ewm(span=20).mean", "zambezi",
            lambda: zdf.groupby("k")["v"].ewm(span=20).mean())
        zt = zb.Series(v, index=zb.Index(times))
        add('resample("1h").sum', "zambezi", lambda: zt.resample("1h").sum())
        del zg
    if "pandas" in engines:
        import pandas as pd

        ps = pd.Series(v)
        pdf = pd.DataFrame({"k": k, "v": v})
        add("cumsum", "pandas", ps.cumsum)
        add("shift(1)", "pandas", ps.shift)
        add("diff(1)", "pandas", ps.diff)
        add("rank", "pandas", ps.rank)
        add("groupby cumsum", "pandas", lambda: pdf.groupby("k")["v"].cumsum())
        add("groupby shift(1)", "pandas", lambda: pdf.groupby("k")["v"].shift())
        add("groupby diff(1)", "pandas", lambda: pdf.groupby("k")["v"].diff())
        add("groupby rank", "pandas", lambda: pdf.groupby("k")["v"].rank())
        for st in stats:
            add(f"rolling({w}).{st}", "pandas", lambda st=st: getattr(ps.rolling(w), st)())
        add(f"groupby rolling({w}).mean", "pandas",
            lambda: pdf.groupby("k")["v"].rolling(w).mean())
        add("ewm(span=20).mean", "pandas", lambda: ps.ewm(span=20).mean())
        add("groupby ewm(span=20).mean", "pandas",
            lambda: pdf.groupby("k")["v"].ewm(span=20).mean())
        pt = pd.Series(v, index=pd.DatetimeIndex(times))
        add('resample("1h").sum', "pandas", lambda: pt.resample("1h").sum())
    if "polars" in engines:
        import polars as pl

        # NaN as null: polars' window functions skip nulls, not NaN
        pls = pl.Series("v", v, nan_to_null=True)
        pldf = pl.DataFrame({"k": k, "v": pls})
        c = pl.col("v")
        add("cumsum", "polars", pls.cum_sum)
        add("shift(1)", "polars", lambda: pls.shift(1))
        add("diff(1)", "polars", lambda: pls.diff(1))
        add("rank", "polars", lambda: pls.rank("average"))
        add("groupby cumsum", "polars", lambda: pldf.select(c.cum_sum().over("k")))
        add("groupby shift(1)", "polars", lambda: pldf.select(c.shift(1).over("k")))
        add("groupby diff(1)", "polars", lambda: pldf.select(c.diff(1).over("k")))
        add("groupby rank", "polars", lambda: pldf.select(c.rank("average").over("k")))
        fns = {"mean": pls.rolling_mean, "std": pls.rolling_std, "min": pls.rolling_min,
               "median": pls.rolling_median}
        for st in stats:
            add(f"rolling({w}).{st}", "polars", lambda st=st: fns[st](w))
        add(f"groupby rolling({w}).mean", "polars",
            lambda: pldf.select(c.rolling_mean(w).over("k")))
        add("ewm(span=20).mean", "polars", lambda: pls.ewm_mean(span=20))
        add("groupby ewm(span=20).mean", "polars",
            lambda: pldf.select(c.ewm_mean(span=20).over("k")))
        pldt = pl.DataFrame({"t": times, "v": pls})
        add('resample("1h").sum', "polars",
            lambda: pldt.group_by_dynamic("t", every="1h").agg(c.sum()))
    if "duckdb" in engines:
        import duckdb
        import pyarrow as pa

        con = duckdb.connect()
        con.register("t", pa.table({"i": np.arange(n), "k": k,
                                    "v": pa.array(v, from_pandas=True)}))
        con.register("ts", pa.table({"t": times, "v": pa.array(v, from_pandas=True)}))

        def sql(case, q):
            add(case, "duckdb", lambda: con.sql(q).to_arrow_table())

        frame = f"ROWS BETWEEN {w - 1} PRECEDING AND CURRENT ROW"
        sql("cumsum", "SELECT SUM(v) OVER (ORDER BY i ROWS UNBOUNDED PRECEDING) FROM t")
        sql("shift(1)", "SELECT LAG(v) OVER (ORDER BY i) FROM t")
        sql("diff(1)", "SELECT v - LAG(v) OVER (ORDER BY i) FROM t")
        sql("rank", "SELECT RANK() OVER (ORDER BY v) FROM t")
        sql("groupby cumsum",
            "SELECT SUM(v) OVER (PARTITION BY k ORDER BY i ROWS UNBOUNDED PRECEDING) FROM t")
        sql("groupby shift(1)", "SELECT LAG(v) OVER (PARTITION BY k ORDER BY i) FROM t")
        sql("groupby diff(1)", "SELECT v - LAG(v) OVER (PARTITION BY k ORDER BY i) FROM t")
        sql("groupby rank", "SELECT RANK() OVER (PARTITION BY k ORDER BY v) FROM t")
        fn = {"mean": "AVG", "std": "STDDEV_SAMP", "min": "MIN", "median": "MEDIAN"}
        for st in stats:
            sql(f"rolling({w}).{st}", f"SELECT {fn[st]}(v) OVER (ORDER BY i {frame}) FROM t")
        sql(f"groupby rolling({w}).mean",
            f"SELECT AVG(v) OVER (PARTITION BY k ORDER BY i {frame}) FROM t")
        sql('resample("1h").sum', "SELECT time_bucket(INTERVAL '1 hour', t) AS b, SUM(v) "
            "FROM ts GROUP BY b ORDER BY b")

    wanted = [s for s in args.cases.split(",") if s]
    best = {}  # (case, engine) -> seconds
    best_cpu = {}  # (case, engine) -> CPU seconds
    for case, by_engine in cases.items():
        if wanted and not any(s in case for s in wanted):
            continue
        for _ in range(rep):
            for eng in engines:
                if eng in by_engine:
                    t, cpu = timed_cpu(by_engine[eng])
                    best[case, eng] = min(best.get((case, eng), t), t)
                    best_cpu[case, eng] = min(best_cpu.get((case, eng), cpu), cpu)
    bw = copy_bandwidth(v, rep)

    print(f"# {' '.join(sys.argv)}  (nproc={os.cpu_count()}, rows={n}, window={w}, "
          f"groups={args.groups})")
    print(f"# copy bandwidth (numpy, {os.cpu_count()} threads, read + write): "
          f"{bw / 1e9:.2f} GB/s")
    print(f"{'case':28} " + " ".join(f"{e:>16}" for e in engines) + "   zambezi GB/s (share)")
    _table(cases, engines, best, n, bw)
    if args.cpu:
        print("# process CPU seconds (all threads), best of the runs")
        _table(cases, engines, best_cpu, n, None)


def _table(cases, engines, best, n, bw):
    for case in cases:
        if not any((case, e) in best for e in engines):
            continue
        z = best.get((case, "zambezi"))
        cells = []
        for e in engines:
            s = best.get((case, e))
            if s is None:
                cells.append(f"{'-':>16}")
            elif e == "zambezi" or z is None:
                cells.append(f"{s:16.3f}")
            else:
                cells.append(f"{s:9.3f} ({s / z:4.2f}x)")
        extra = ""
        if bw is not None and z is not None and case in ("cumsum", "shift(1)", "diff(1)"):
            gbs = 16 * n / z
            extra = f"   {gbs / 1e9:6.2f} ({gbs / bw:.0%})"
        print(f"{case:28} " + " ".join(cells) + extra)


if __name__ == "__main__":
    main()
