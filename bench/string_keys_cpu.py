"""Plain string keys, one thread each: CPU time of zambezi against duckdb
and polars.

    python bench/string_keys_cpu.py gb100000,dd,uniq,vc,merge [rows] [repeat]

ZAMBEZI_NUM_THREADS=1, duckdb's `SET threads=1` and POLARS_MAX_THREADS=1
(polars only with --polars, as it was added later), in one process, runs
interleaved, the least process CPU time (time.process_time) of `repeat`
runs after a warm-up.  On a shared machine, where wall-clock times of
parallel runs mislead, the ratio zambezi/duckdb of one run is the figure
to compare between builds.  Workloads (the keys of bench/string_keys.py):
  gbK    group-by sum on one string key of K distinct values (and, as
         zbcat, on the same keys as a categorical)
  dd     drop_duplicates of a string column of 10^6 distinct values
  uniq   unique of the same column;  vc  value_counts of it
  merge  inner join of `rows` rows on a 10^6-row table, string key
Timings are measurements, not tests.
"""
import os
import sys
import time

os.environ.setdefault("ZAMBEZI_NUM_THREADS", "1")
os.environ.setdefault("POLARS_MAX_THREADS", "1")
import duckdb
import numpy as np
import pandas as pd
import pyarrow as pa

import zambezi as zb

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from string_keys import keys_pool

with_polars = "--polars" in sys.argv
if with_polars:
    import polars as pl
    sys.argv.remove("--polars")
work = sys.argv[1].split(",")
n = int(sys.argv[2]) if len(sys.argv) > 2 else 10_000_000
rep = int(sys.argv[3]) if len(sys.argv) > 3 else 5
rng = np.random.default_rng(42)
con = duckdb.connect()
con.sql("SET threads=1")


def cpu(fn):
    t0 = time.process_time(); fn(); return time.process_time() - t0

for w in work:
    if w.startswith("gb"):
        k = int(w[2:])
        pool = keys_pool(k, rng)
        pdf = pd.DataFrame({"k": pool[rng.integers(0, k, n)], "v": rng.random(n)})
        z = zb.from_pandas(pdf)
        con.register("t", pa.Table.from_pandas(pdf, preserve_index=False))
        zc = zb.from_pandas(pdf.astype({"k": "category"}))
        runs = {"zb": lambda: z.groupby("k", sort=False).agg({"v": "sum"}),
                "duck": lambda: con.sql("select k, sum(v) from t group by k").to_arrow_table(),
                "zbcat": lambda: zc.groupby("k", sort=False, observed=True).agg({"v": "sum"})}
        if with_polars:
            pf = pl.from_pandas(pdf)
            runs["polars"] = lambda: pf.group_by("k").agg(pl.col("v").sum())
    elif w in ("dd", "uniq", "vc"):
        pool = keys_pool(1_000_000, rng)
        pdf = pd.DataFrame({"k": pool[rng.integers(0, len(pool), n)]})
        z = zb.from_pandas(pdf)
        con.register("t", pa.Table.from_pandas(pdf, preserve_index=False))
        if w == "dd":
            runs = {"zb": lambda: z.drop_duplicates(),
                    "duck": lambda: con.sql("select distinct k from t").to_arrow_table()}
        elif w == "uniq":
            runs = {"zb": lambda: z["k"].unique(),
                    "duck": lambda: con.sql("select distinct k from t").to_arrow_table()}
        else:
            runs = {"zb": lambda: z["k"].value_counts(),
                    "duck": lambda: con.sql("select k, count(*) c from t group by k order by c desc").to_arrow_table()}
        if with_polars:
            pf = pl.from_pandas(pdf)
            runs["polars"] = {"dd": lambda: pf.unique(maintain_order=True),
                              "uniq": lambda: pf["k"].unique(maintain_order=True),
                              "vc": lambda: pf["k"].value_counts(sort=True)}[w]
    elif w == "merge":
        pool = keys_pool(1_000_000, rng)
        big = pd.DataFrame({"k": pool[rng.integers(0, len(pool), n)], "v": rng.random(n)})
        small = pd.DataFrame({"k": pool, "w": rng.random(len(pool))})
        zb_big, zb_small = zb.from_pandas(big), zb.from_pandas(small)
        con.register("b", pa.Table.from_pandas(big, preserve_index=False))
        con.register("s", pa.Table.from_pandas(small, preserve_index=False))
        runs = {"zb": lambda: zb_big.merge(zb_small, on="k", how="inner"),
                "duck": lambda: con.sql("select b.k, b.v, s.w from b join s on b.k = s.k").to_arrow_table()}
        if with_polars:
            pb, ps = pl.from_pandas(big), pl.from_pandas(small)
            runs["polars"] = lambda: pb.join(ps, on="k", how="inner")
    best = {k: float("inf") for k in runs}
    for f in runs.values(): f()
    for _ in range(rep):
        for name, f in runs.items():
            best[name] = min(best[name], cpu(f))
    print(f"{w:8s} " + " ".join(f"{k}={v:.3f}" for k, v in best.items()) +
          f"  zb/duck={best['zb']/best['duck']:.3f}" +
          (f" zb/polars={best['zb']/best['polars']:.3f}" if "polars" in best else ""),
          flush=True)
