"""Arrow IPC reads by two zambezi builds side by side (before/after a
change), with pyarrow and polars, each read in a fresh process.

    python bench/ipc_builds.py --old OLD_STAGE --new NEW_STAGE [--rows 1000000]
        [--dir /tmp/zb-ipc-bench] [--rounds 3]

OLD_STAGE and NEW_STAGE are directories holding a `zambezi` package (a
build's stage/ of scripts/dev-test.sh).  The files: the db-benchmark G1
table (bench/parquet.py's generator, strings as large_string) as Feather
by pyarrow (lz4, 64K-row batches), the same uncompressed, the same as one
uncompressed batch (large_utf8, and utf8: int32 offsets), and by polars
(string views; uncompressed and zstd).  In each round every engine reads
every file in its own process (a warm-up read, then two timed ones); the
best wall time and the least CPU time (user + system, all threads) over
all rounds are printed.  On a loaded machine the CPU time is the fairer
comparison.  Measurements, not tests.
"""
import argparse
import json
import os
import subprocess
import sys

READ = r'''
import json, resource, sys, time
engine, path = sys.argv[1], sys.argv[2]
if engine in ("old", "new"):
    import zambezi as zb
    fn = lambda: zb.read_ipc(path)
elif engine == "pyarrow":
    import pyarrow.feather as pf
    fn = lambda: pf.read_table(path, memory_map=True)
else:
    import polars as pl
    fn = lambda: pl.read_ipc(path).shape
fn()
out = []
for _ in range(2):
    r0 = resource.getrusage(resource.RUSAGE_SELF)
    t0 = time.perf_counter()
    fn()
    t1 = time.perf_counter()
    r1 = resource.getrusage(resource.RUSAGE_SELF)
    out.append([t1 - t0, r1.ru_utime + r1.ru_stime - r0.ru_utime - r0.ru_stime])
print(json.dumps(out))
'''


def make_files(n, d, stage):
    sys.path.insert(0, stage)
    sys.path.insert(0, os.path.dirname(__file__))
    import polars as pl
    import pyarrow as pa
    import pyarrow.feather as pf
    from parquet import g1

    files = {"pyarrow feather lz4": f"{d}/g1_{n}.feather",
             "pyarrow feather uncompressed": f"{d}/g1_{n}_unc.feather",
             "pyarrow ipc 1 batch": f"{d}/g1_{n}_one.arrow",
             "pyarrow ipc 1 batch, utf8": f"{d}/g1_{n}_one_utf8.arrow",
             "polars ipc (views)": f"{d}/g1_{n}_pl.arrow",
             "polars ipc zstd": f"{d}/g1_{n}_pl_zstd.arrow"}
    if all(os.path.exists(p) for p in files.values()):
        return files
    os.makedirs(d, exist_ok=True)
    t = g1(n)
    pf.write_feather(t.combine_chunks(), files["pyarrow ipc 1 batch, utf8"],
                     compression="uncompressed", chunksize=n)
    t = pa.table({c: (t[c].cast(pa.large_string()) if pa.types.is_string(t[c].type) else t[c])
                  for c in t.column_names})
    pf.write_feather(t, files["pyarrow feather lz4"])
    pf.write_feather(t, files["pyarrow feather uncompressed"], compression="uncompressed")
    pf.write_feather(t.combine_chunks(), files["pyarrow ipc 1 batch"], compression="uncompressed",
                     chunksize=n)
    pl.from_arrow(t).write_ipc(files["polars ipc (views)"], compression="uncompressed")
    pl.from_arrow(t).write_ipc(files["polars ipc zstd"], compression="zstd")
    return files


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--old", required=True)
    ap.add_argument("--new", required=True)
    ap.add_argument("--rows", type=int, default=1_000_000)
    ap.add_argument("--dir", default="/tmp/zb-ipc-bench")
    ap.add_argument("--rounds", type=int, default=3)
    a = ap.parse_args()
    files = make_files(a.rows, a.dir, a.new)
    engines = ["old", "new", "pyarrow", "polars"]
    res = {}
    for _ in range(a.rounds):
        for what, path in files.items():
            for e in engines:
                stage = a.old if e == "old" else a.new
                # the stage's own libzambezi.so: _core's RUNPATH names the
                # build folder it was linked in, which may hold another build
                env = dict(os.environ, PYTHONPATH=stage,
                           LD_LIBRARY_PATH=os.path.join(stage, "zambezi"))
                o = subprocess.run([sys.executable, "-c", READ, e, path], env=env,
                                   capture_output=True, text=True)
                if o.returncode != 0:
                    print(f"{what} {e}: {o.stderr[-400:]}")
                    continue
                res.setdefault((what, e), []).extend(json.loads(o.stdout))
    print(f"rows {a.rows:,}; {a.rounds} rounds; wall / CPU seconds")
    print(f"{'read':30s} " + " ".join(f"{e:>15s}" for e in engines) + "  new vs old, pyarrow")
    for what in files:
        wall = {e: min((x[0] for x in res.get((what, e), [])), default=float("nan"))
                for e in engines}
        cpu = {e: min((x[1] for x in res.get((what, e), [])), default=float("nan"))
               for e in engines}
        print(f"{what:30s} " + " ".join(f"{wall[e]:7.3f}/{cpu[e]:7.3f}" for e in engines) +
              f"  x{wall['old'] / wall['new']:.2f}, x{wall['pyarrow'] / wall['new']:.2f}")


if __name__ == "__main__":
    main()
