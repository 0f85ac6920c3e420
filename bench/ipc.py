"""Arrow IPC / Feather v2 reading and writing: zambezi vs pyarrow.feather and
polars in one process.

    python bench/ipc.py [--rows 10000000] [--dir /tmp/zb-ipc-bench] [--repeat 3] [--no-write]

Writes the db-benchmark G1 table (bench/parquet.py's generator: three
string and six numeric columns) as Feather v2 with pyarrow (lz4, its
default, 64K-row batches), as uncompressed IPC files with pyarrow (one
batch; 64K-row batches, with 10% nulls in a string and a numeric column)
and as IPC files with polars (uncompressed and zstd), then reads each with
every engine into its own table; pyarrow also into pandas (read_feather),
and "copy" is numpy copying the file's mapped bytes into fresh memory on
one thread: the floor a reader that copies must pay for on that thread.  Then each engine writes the
table, held in its own memory, uncompressed, lz4 and zstd.  pyarrow's
read_table and polars keep the record batches as chunks (and views as
views); zambezi decompresses (or copies) every batch straight into one
contiguous column, rebasing and checking string offsets and converting
views on the way, so a one-batch uncompressed file is zambezi's only
zero-copy case.  Prints the
best wall time of --repeat rounds (engines take turns in each round) and
zambezi's speed-up over each peer, then (reads) the least CPU time of the
process (time.process_time: every thread) under it: on a loaded machine
the fairer comparison.  Measurements, not tests.
"""
import argparse
import os
import sys
import time

sys.path.insert(0, os.path.dirname(__file__))

import zambezi as zb  # noqa: E402
from parquet import g1  # noqa: E402


CPU = {}  # the least CPU time (time.process_time: all threads) of each best() call, by label


def best(fn, repeat, label=None):
    out, cpu = [], []
    for _ in range(repeat):
        c0 = time.process_time()
        t0 = time.perf_counter()
        fn()
        out.append(time.perf_counter() - t0)
        cpu.append(time.process_time() - c0)
    if label is not None:
        CPU[label] = min(cpu)
    return min(out)


def with_nulls(t):
    import numpy as np
    import pyarrow as pa
    import pyarrow.compute as pc
    mask = pa.array(np.random.default_rng(7).random(t.num_rows) < 0.1)
    for c in ["id1", "v1"]:
        i = t.column_names.index(c)
        t = t.set_column(i, c, pc.if_else(mask, pa.scalar(None, t[c].type), t[c]))
    return t


def copy_floor(path):
    import mmap
    import numpy as np
    with open(path, "rb") as f, mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as m:
        a = np.frombuffer(m, np.uint8)
        b = a.copy()
        del a, b


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=10_000_000)
    ap.add_argument("--dir", default="/tmp/zb-ipc-bench")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--no-write", action="store_true", help="time the reads only")
    a = ap.parse_args()
    import polars as pl
    import pyarrow as pa
    import pyarrow.feather as pf

    os.makedirs(a.dir, exist_ok=True)
    n = a.rows
    t = g1(n)
    # strings as pandas 3 and zambezi hold them, in one chunk (or the
    # "1 batch" file gets a batch per chunk)
    t = pa.table({c: (t[c].cast(pa.large_string()) if pa.types.is_string(t[c].type) else t[c])
                  for c in t.column_names}).combine_chunks()
    files = {
        "pyarrow feather lz4": (os.path.join(a.dir, f"g1_{n}.feather"),
                                lambda p: pf.write_feather(t, p)),
        "pyarrow ipc 1 batch": (os.path.join(a.dir, f"g1_{n}_one.arrow"),
                                lambda p: pf.write_feather(t, p, compression="uncompressed",
                                                           chunksize=n)),
        "pyarrow ipc 64K, nulls": (os.path.join(a.dir, f"g1_{n}_nulls.arrow"),
                                   lambda p: pf.write_feather(with_nulls(t), p,
                                                              compression="uncompressed",
                                                              chunksize=65536)),
        "polars ipc": (os.path.join(a.dir, f"g1_{n}_pl.arrow"),
                       lambda p: pl.from_arrow(t).write_ipc(p, compression="uncompressed")),
        "polars ipc zstd": (os.path.join(a.dir, f"g1_{n}_pl_zstd.arrow"),
                            lambda p: pl.from_arrow(t).write_ipc(p, compression="zstd")),
    }
    for path, make in files.values():
        if not os.path.exists(path):
            make(path)
    print(f"rows {n:,}; best of {a.repeat}; cores {os.cpu_count()}")
    print(f"{'read':28s} {'zambezi':>9s} {'pyarrow':>9s} {'pa>pandas':>9s} {'polars':>9s} "
          f"{'copy':>9s}  speed-up")
    for what, (path, _) in files.items():
        tz = best(lambda: zb.read_ipc(path), a.repeat, "zb")
        tp = best(lambda: pf.read_table(path, memory_map=True), a.repeat, "pa")
        td = best(lambda: pf.read_feather(path), a.repeat, "pd")
        tl = best(lambda: pl.read_ipc(path).shape, a.repeat, "pl")
        tc = best(lambda: copy_floor(path), a.repeat, "copy")
        print(f"{what:28s} {tz:9.3f} {tp:9.3f} {td:9.3f} {tl:9.3f} {tc:9.3f}  "
              f"x{tp / tz:.2f} vs pyarrow, x{td / tz:.2f} vs pyarrow>pandas, "
              f"x{tl / tz:.2f} vs polars")
        print(f"{'  CPU s':28s} " + " ".join(f"{CPU[k]:9.3f}" for k in
                                            ["zb", "pa", "pd", "pl", "copy"]))
    if a.no_write:
        return
    # every engine writes from its own memory (not from pages of a mapped file)
    zdf = zb.from_arrow(t)
    pldf = pl.from_arrow(t)
    out = os.path.join(a.dir, "w")
    print(f"{'write':28s} {'zambezi':>9s} {'pyarrow':>9s} {'polars':>9s}  speed-up")
    for codec in ["uncompressed", "lz4", "zstd"]:
        tz = best(lambda: zdf.to_feather(out + ".zb", compression=codec), a.repeat)
        tp = best(lambda: pf.write_feather(t, out + ".pa", compression=codec), a.repeat)
        tl = best(lambda: pldf.write_ipc(out + ".pl", compression=codec), a.repeat)
        print(f"{codec:28s} {tz:9.3f} {tp:9.3f} {tl:9.3f}  x{tp / tz:.2f} vs pyarrow, "
              f"x{tl / tz:.2f} vs polars")


if __name__ == "__main__":
    main()
