"""Feather reads of list columns by two zambezi builds side by side
(before/after a change), with pyarrow and polars, each engine in a fresh
process.

    python bench/ipc_nested_builds.py --old OLD_STAGE --new NEW_STAGE [--rows 1000000]
        [--dir /tmp/zb-nested-bench] [--repeat 7]

OLD_STAGE and NEW_STAGE hold a `zambezi` package (a build's stage/ of
scripts/dev-test.sh); each is run with its own libzambezi.so.  The file is
bench/nested_io.py's table (an int64 key, list<int64>, list<string>,
list<list<int64>>) written by pyarrow as uncompressed Feather (int32 List
offsets, 64K-row batches).  Each process reads all columns, then the
list<list<int64>> column alone: a warm-up, then the best wall and CPU time
(time.process_time: all threads) of --repeat reads.  pyarrow reads with
memory_map=True and keeps the batches as chunks.  Measurements, not tests.
"""
import argparse
import os
import subprocess
import sys

READ = r'''
import sys, time
engine, path, repeat = sys.argv[1], sys.argv[2], int(sys.argv[3])
if engine == "pyarrow":
    import pyarrow.feather as pf
    fn = lambda cols: pf.read_table(path, columns=cols, memory_map=True)
elif engine == "polars":
    import polars as pl
    fn = lambda cols: pl.read_ipc(path, columns=cols)
else:
    import zambezi as zb
    fn = lambda cols: zb.read_feather(path, columns=cols)
for cols in [None, ["lli"]]:
    fn(cols)
    bw = bc = float("inf")
    for _ in range(repeat):
        c0, t0 = time.process_time(), time.perf_counter()
        fn(cols)
        bc, bw = min(bc, time.process_time() - c0), min(bw, time.perf_counter() - t0)
    print(f"{bw:.4f}/{bc:.4f}", end=" ")
'''


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--old", required=True)
    ap.add_argument("--new", required=True)
    ap.add_argument("--rows", type=int, default=1_000_000)
    ap.add_argument("--dir", default="/tmp/zb-nested-bench")
    ap.add_argument("--repeat", type=int, default=7)
    a = ap.parse_args()
    sys.path.insert(0, os.path.dirname(__file__))
    sys.path.insert(0, a.new)  # nested_io imports zambezi
    import pyarrow.feather as pf
    from nested_io import make_table
    os.makedirs(a.dir, exist_ok=True)
    path = os.path.join(a.dir, f"lll{a.rows}.feather")
    if not os.path.exists(path):
        pf.write_feather(make_table(a.rows), path, compression="uncompressed")
    print(f"rows {a.rows:,}; best of {a.repeat}; wall/CPU seconds: all columns, lli alone")
    for e in ["old", "new", "pyarrow", "polars"]:
        stage = a.old if e == "old" else a.new
        env = dict(os.environ, PYTHONPATH=stage, LD_LIBRARY_PATH=os.path.join(stage, "zambezi"))
        o = subprocess.run([sys.executable, "-c", READ, e, path, str(a.repeat)], env=env,
                           capture_output=True, text=True)
        print(f"{e:8s} {o.stdout if o.returncode == 0 else o.stderr[-300:]}")


if __name__ == "__main__":
    main()
