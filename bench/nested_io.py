"""List columns in Parquet and Arrow IPC (Feather): zambezi vs pyarrow and
polars, reading and writing, in one process.

    python bench/nested_io.py [--rows 1000000] [--repeat 3] [--dir /tmp/zb-nested-bench]

The table: an int64 key, a list<int64> column, a list<string> column and
a list<list<int64>> column (0-5 elements a list, 10% null lists, 10% null
elements, at each level), written once per size with pyarrow (Parquet:
snappy, pyarrow's defaults; Feather: uncompressed, int32 List offsets).  Then
  - Parquet read: zb.read_parquet, pyarrow.parquet.read_table,
    polars.read_parquet;
  - Feather read: zb.read_feather, pyarrow.feather.read_table,
    polars.read_ipc; all columns, and the list<list<int64>> one alone;
  - Parquet write of the table read: DataFrame.to_parquet (snappy),
    pyarrow.parquet.write_table, polars' write_parquet (snappy).
Prints the best wall time of --repeat runs (and the best CPU time of this
process, all threads, in brackets) and zambezi's wall time over each peer's
(below 1: zambezi is faster).  The engines take turns in each round, so load
from other processes falls on all of them alike.  Measurements, not tests.
"""
import argparse
import os
import time

import numpy as np
import pyarrow as pa
import pyarrow.feather as pf
import pyarrow.parquet as pq

import zambezi as zb


def make_table(n, seed=0):
    rng = np.random.default_rng(seed)

    def lists(values, n=n):
        lens = rng.integers(0, 6, n)
        offs = np.concatenate([[0], np.cumsum(lens)]).astype(np.int32)
        child = values(int(offs[-1]))
        if isinstance(child, pa.ChunkedArray):
            child = child.combine_chunks()
        return pa.ListArray.from_arrays(pa.array(offs), child,
                                        mask=pa.array(rng.random(n) < 0.1))

    ints = lists(lambda m: pa.array(rng.integers(0, 10**6, m),
                                    mask=rng.random(m) < 0.1))
    words = np.array(["zambezi", "kariba", "victoria falls", "cahora bassa", "chobe", "é✓"])
    strs = lists(lambda m: pa.array(words[rng.integers(0, len(words), m)],
                                    mask=rng.random(m) < 0.1))
    nested = lists(lambda m: lists(lambda m2: pa.array(rng.integers(0, 10**6, m2),
                                                       mask=rng.random(m2) < 0.1), m))
    return pa.table({"k": pa.array(np.arange(n)), "li": ints, "ls": strs, "lli": nested})


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, nargs="+", default=[1_000_000])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--dir", default="/tmp/zb-nested-bench")
    a = ap.parse_args()
    try:
        import polars as pl
    except ImportError:
        pl = None
    os.makedirs(a.dir, exist_ok=True)
    for n in a.rows:
        pqp, ftp = (os.path.join(a.dir, f"ll{n}.parquet"),
                    os.path.join(a.dir, f"lll{n}.feather"))
        if not (os.path.exists(pqp) and os.path.exists(ftp)):
            t = make_table(n)
            pq.write_table(t, pqp)
            pf.write_feather(t, ftp, compression="uncompressed")
        zdf = zb.read_parquet(pqp)
        pat = pq.read_table(pqp)
        out = os.path.join(a.dir, "out.parquet")
        cases = {
            "parquet read": {"zambezi": lambda: zb.read_parquet(pqp),
                             "pyarrow": lambda: pq.read_table(pqp)},
            "feather read": {"zambezi": lambda: zb.read_feather(ftp),
                             "pyarrow": lambda: pf.read_table(ftp)},
            "feather lli": {"zambezi": lambda: zb.read_feather(ftp, columns=["lli"]),
                            "pyarrow": lambda: pf.read_table(ftp, columns=["lli"])},
            "parquet write": {"zambezi": lambda: zdf.to_parquet(out),
                              "pyarrow": lambda: pq.write_table(pat, out)},
        }
        if pl is not None:
            pldf = pl.read_parquet(pqp)
            cases["parquet read"]["polars"] = lambda: pl.read_parquet(pqp)
            cases["feather read"]["polars"] = lambda: pl.read_ipc(ftp)
            cases["feather lli"]["polars"] = lambda: pl.read_ipc(ftp, columns=["lli"])
            cases["parquet write"]["polars"] = lambda: pldf.write_parquet(out,
                                                                         compression="snappy")
        print(f"{n:,} rows: list<int64> + list<string> + list<list<int64>>")
        for what, engines in cases.items():
            best = {e: float("inf") for e in engines}
            cpu = {e: float("inf") for e in engines}
            for _ in range(a.repeat):
                for e, f in engines.items():
                    t0, c0 = time.perf_counter(), time.process_time()
                    f()
                    best[e] = min(best[e], time.perf_counter() - t0)
                    cpu[e] = min(cpu[e], time.process_time() - c0)
            z = best["zambezi"]
            peers = "  ".join(f"{e} {s:.3f}s [{cpu[e]:.3f}] (x{z / s:.2f})"
                              for e, s in best.items() if e != "zambezi")
            print(f"  {what:14s} zambezi {z:.3f}s [{cpu['zambezi']:.3f}]  {peers}")


if __name__ == "__main__":
    main()
