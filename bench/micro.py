"""Micro-benchmarks of everyday column operations: zambezi vs pandas, polars
and duckdb in one process, on the same generated data.

    python bench/micro.py [--rows 10000000] [--repeat 3] [--bw-rows N] [--json out.json]

For each operation it prints the best time of --repeat rounds per engine
(each round runs every engine once, in turn, so a slow spell of the
machine falls on all of them),
rows/s, zambezi's speed-up over each peer, and for scans the fraction of
this machine's memory bandwidth that zambezi reached (bandwidth measured by
this script: several threads summing disjoint slices of a large array with
numpy, which releases the GIL).  Peers that are not installed are skipped.
At --rows 10^7 a column (80 MB) partly stays in cache between repeats, so
scans there can exceed the memory bandwidth; the script therefore also runs
the reductions on one float64 column of --bw-rows rows (default 2^27, 1 GiB)
and reports those against the bandwidth (0 skips it).
Timings are measurements, not tests: nothing here fails on a slow result.
"""
import argparse
import json
import os
import platform
import sys
import threading
import time

import numpy as np

import zambezi as zb


def best_of(fn, repeat):
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def best_interleaved(runs, repeat, errors):
    """Best time of each engine's callable over `repeat` rounds, every round
    running each engine once in turn, so that a slow spell of a shared
    machine falls on all engines alike.  An engine that raises is shown as
    missing (its error kept in errors[name + "_error"]), not hidden."""
    best = {}
    for name, fn in runs.items():  # warm-up, and weed out failures
        try:
            fn()
            best[name] = float("inf")
        except Exception as e:
            errors[name + "_error"] = f"{type(e).__name__}: {e}"[:80]
    for _ in range(repeat):
        for name in best:
            t0 = time.perf_counter()
            runs[name]()
            best[name] = min(best[name], time.perf_counter() - t0)
    return {name: best.get(name) for name in runs}


def read_bandwidth(threads, nbytes=1 << 30, repeat=5):
    """Bytes/s read by `threads` threads each summing its own slice."""
    a = np.ones(nbytes // 8)
    parts = np.array_split(a, threads)

    def run():
        ts = [threading.Thread(target=np.sum, args=(p,)) for p in parts]
        for t in ts:
            t.start()
        for t in ts:
            t.join()

    run()
    return a.nbytes / best_of(run, repeat)


def make_data(rows, seed):
    rng = np.random.default_rng(seed)
    ints = rng.integers(-10**9, 10**9, rows, dtype=np.int64)
    floats = rng.normal(100.0, 30.0, rows)
    floats[rng.random(rows) < 0.05] = np.nan  # 5% missing
    keys = rng.integers(0, 1000, rows)
    words = np.array([f"key{k:04d}" for k in range(1000)], dtype=object)[keys]
    return {"i": ints, "f": floats, "k": keys.astype(np.int64), "s": words}


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=10_000_000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--bw-rows", type=int, default=1 << 27)
    ap.add_argument("--ops", help="only operations whose name contains this")
    ap.add_argument("--json")
    args = ap.parse_args(argv)
    n, rep = args.rows, args.repeat
    threads = zb.get_num_threads()
    print(f"zambezi {zb.__version__}, {n:,} rows, {threads} threads, "
          f"{platform.processor() or platform.machine()}, Python {platform.python_version()}")
    bw = read_bandwidth(threads)
    print(f"measured read bandwidth ({threads} threads, numpy): {bw / 1e9:.1f} GB/s")
    data = make_data(n, args.seed)
    df = zb.DataFrame(data)
    engines = {"zambezi": df}
    try:
        import pandas as pd
        engines["pandas"] = pd.DataFrame({k: (v if v.dtype != object else v.astype(str))
                                          for k, v in data.items()})
    except ImportError:
        pass
    try:
        import polars as pl
        engines["polars"] = pl.DataFrame({k: (v if v.dtype != object else v.astype(str))
                                          for k, v in data.items()}, nan_to_null=True)
    except ImportError:
        pl = None
    try:
        import duckdb
        con = duckdb.connect()
        con.register("t", engines.get("pandas"))
        con.execute("create table d as select * from t")
        con.unregister("t")
        engines["duckdb"] = con
    except Exception:
        duckdb = None

    # operation -> {engine: callable}; bytes scanned (for bandwidth) or None
    def zb_ops():
        return {
            "sum int64": (lambda: df["i"].sum(), 8 * n),
            "mean float64": (lambda: df["f"].mean(), 8 * n),
            "min float64": (lambda: df["f"].min(), 8 * n),
            "max int64": (lambda: df["i"].max(), 8 * n),
            "count float64": (lambda: df["f"].count(), 8 * n),
            "std float64": (lambda: df["f"].std(), 8 * n),
            "filter i > 0": (lambda: df[df["i"] > 0], None),
            "sort int64": (lambda: df["i"].sort_values(), None),
            "sort float64": (lambda: df["f"].sort_values(), None),
            "sort string": (lambda: df["s"].sort_values(), None),
            "value_counts int64": (lambda: df["k"].value_counts(), None),
        }

    ops = zb_ops()
    if args.ops:
        ops = {k: v for k, v in ops.items() if args.ops in k}
    peers = {}
    if "pandas" in engines:
        p = engines["pandas"]
        peers["pandas"] = {
            "sum int64": lambda: p["i"].sum(), "mean float64": lambda: p["f"].mean(),
            "min float64": lambda: p["f"].min(), "max int64": lambda: p["i"].max(),
            "count float64": lambda: p["f"].count(), "std float64": lambda: p["f"].std(),
            "filter i > 0": lambda: p[p["i"] > 0],
            "sort int64": lambda: p["i"].sort_values(kind="stable"),
            "sort float64": lambda: p["f"].sort_values(kind="stable"),
            "sort string": lambda: p["s"].sort_values(kind="stable"),
            "value_counts int64": lambda: p["k"].value_counts()}
    if pl is not None:
        q = engines["polars"]
        peers["polars"] = {
            "sum int64": lambda: q["i"].sum(), "mean float64": lambda: q["f"].mean(),
            "min float64": lambda: q["f"].min(), "max int64": lambda: q["i"].max(),
            "count float64": lambda: q["f"].count(), "std float64": lambda: q["f"].std(),
            "filter i > 0": lambda: q.filter(pl.col("i") > 0),
            "sort int64": lambda: q["i"].sort(), "sort float64": lambda: q["f"].sort(),
            "sort string": lambda: q["s"].sort(),
            "value_counts int64": lambda: q["k"].value_counts(sort=True)}
    if duckdb is not None:
        c = engines["duckdb"]

        def sql(s):
            def run():
                r = c.sql(s)
                # duckdb >= 2 names it to_arrow_table; older versions arrow
                return r.to_arrow_table() if hasattr(r, "to_arrow_table") else r.arrow()
            return run
        peers["duckdb"] = {
            "sum int64": sql("select sum(i) from d"), "mean float64": sql("select avg(f) from d"),
            "min float64": sql("select min(f) from d"), "max int64": sql("select max(i) from d"),
            "count float64": sql("select count(f) from d"),
            "std float64": sql("select stddev_samp(f) from d"),
            "filter i > 0": sql("select * from d where i > 0"),
            "sort int64": sql("select i from d order by i"),
            "sort float64": sql("select f from d order by f"),
            "sort string": sql("select s from d order by s"),
            "value_counts int64": sql("select k, count(*) c from d group by k order by c desc")}

    names = ["zambezi"] + list(peers)
    header = f"{'operation':<20}" + "".join(f"{e + ' ms':>13}" for e in names) + \
        f"{'Mrows/s':>10}" + "".join(f"{'vs ' + e:>11}" for e in peers) + f"{'% of bw':>9}"
    print(header)
    print("-" * len(header))
    results = []
    for op, (fn, nbytes) in ops.items():
        row = {"operation": op}
        runs = {"zambezi": fn}
        runs.update({e: table[op] for e, table in peers.items()})
        row.update(best_interleaved(runs, rep, row))
        t = row["zambezi"]
        cells = "".join(f"{row[e] * 1e3:>13.1f}" if row.get(e) else f"{'n/a':>13}"
                        for e in names)
        rate = f"{n / t / 1e6:>10.0f}" if t else f"{'n/a':>10}"
        ratios = "".join(f"{row[e] / t:>10.2f}x" if t and row.get(e) else f"{'n/a':>11}"
                         for e in peers)
        frac = f"{nbytes / t / bw * 100:>8.0f}%" if t and nbytes else f"{'':>9}"
        print(f"{op:<20}{cells}{rate}{ratios}{frac}")
        results.append(row)
    print("ratios are peer time / zambezi time: above 1 means zambezi is faster")
    big = bandwidth_bound(args.bw_rows, rep, bw) if args.bw_rows > 0 else []
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"rows": n, "threads": threads, "read_bandwidth": bw,
                       "results": results, "bandwidth_bound": big}, f, indent=1)


def bandwidth_bound(rows, rep, bw):
    """The reductions over one float64 column too large for any cache."""
    col = zb.Series(np.random.default_rng(7).normal(0.0, 1.0, rows))
    nbytes = rows * 8
    print(f"\nreductions over {rows:,} float64 rows ({nbytes / 2**30:.2f} GiB; no nulls)")
    print(f"{'operation':<12}{'ms':>9}{'GB/s':>8}{'% of bw':>9}")
    out = []
    for name in ("sum", "mean", "min", "max", "std", "var"):
        fn = getattr(col, name)
        fn()
        t = best_of(fn, rep)
        print(f"{name:<12}{t * 1e3:>9.1f}{nbytes / t / 1e9:>8.1f}{nbytes / t / bw * 100:>8.0f}%")
        out.append({"operation": name, "seconds": t, "bytes": nbytes})
    return out


if __name__ == "__main__":
    sys.exit(main())
