"""Parquet reading and writing: zambezi vs pyarrow, polars and duckdb in one process.

    python bench/parquet.py [--rows 10000000] [--dir /tmp/zb-parquet-bench] [--repeat 3] [--isolated]
                            [--write-only]

Writes the db-benchmark G1 group-by table (id1..id6, v1..v3: three string
and six numeric columns) once as Parquet twice -- by pyarrow (snappy, its
default) and by polars (zstd, its default) -- and reads each with every
engine into that engine's own table: all columns, then three (id1, v1,
v3).  Prints the best wall time of --repeat rounds (the engines take turns
in each round, so load from other processes falls on all of them alike)
and zambezi's speed-up over each peer, and the memory of zambezi's read:
"peak/decoded" is the engine allocator's high-water mark during the read
over the frame's bytes (1.0: nothing beyond the result), "RSS" the
process' peak resident set growth over the same bytes (with the mapped
file's pages).  Then each engine writes the same
table, held in its own memory, with snappy (every engine's default but
polars', which is given snappy too) and with zstd.  Measurements, not
tests.
"""
import argparse
import os
import time

import numpy as np

import zambezi as zb


def g1(n, k=100, seed=1):
    """The db-benchmark G1 table (the R generator's columns and ranges)."""
    import pyarrow as pa
    rng = np.random.default_rng(seed)
    ids = np.array([f"id{i:03d}" for i in range(1, k + 1)])
    nk = max(n // k, 1)
    return pa.table({
        "id1": ids[rng.integers(0, k, n)],
        "id2": ids[rng.integers(0, k, n)],
        "id3": np.char.add("id", np.char.zfill(rng.integers(1, nk + 1, n).astype(str), 10)),
        "id4": rng.integers(1, k + 1, n),
        "id5": rng.integers(1, k + 1, n),
        "id6": rng.integers(1, nk + 1, n),
        "v1": rng.integers(1, 6, n),
        "v2": rng.integers(1, 16, n),
        "v3": np.round(rng.uniform(0, 100, n), 6),
    })


def write_files(d, n):
    import pyarrow.parquet as pq
    import polars as pl
    os.makedirs(d, exist_ok=True)
    pa_path = os.path.join(d, f"g1_{n}_pyarrow_snappy.parquet")
    pl_path = os.path.join(d, f"g1_{n}_polars_zstd.parquet")
    if not (os.path.exists(pa_path) and os.path.exists(pl_path)):
        t = g1(n)
        pq.write_table(t, pa_path)
        pl.from_arrow(t).write_parquet(pl_path)
    return {"pyarrow/snappy": pa_path, "polars/zstd": pl_path}


def readers(columns):
    import duckdb
    import polars as pl
    import pyarrow.parquet as pq

    def duck(path):
        sel = "*" if columns is None else ", ".join(columns)
        return duckdb.sql(f"SELECT {sel} FROM read_parquet('{path}')").to_arrow_table()

    return {
        "zambezi": lambda p: zb.read_parquet(p, columns=columns),
        "pyarrow": lambda p: pq.read_table(p, columns=columns),
        "polars": lambda p: pl.read_parquet(p, columns=columns),
        "duckdb": duck,
    }


def writers(source, codec, only=None):
    """Each engine writes the G1 table it holds in memory (read beforehand,
    outside the timing) to path; only: that engine's table alone is read."""
    import duckdb
    import polars as pl
    import pyarrow.parquet as pq

    frame = zb.read_parquet(source) if only in (None, "zambezi") else None
    table = pq.read_table(source) if only in (None, "pyarrow", "duckdb") else None
    plf = pl.read_parquet(source) if only in (None, "polars") else None
    con = duckdb.connect()
    if only in (None, "duckdb"):
        con.register("g1", table)
        con.execute("CREATE TABLE g1_mem AS SELECT * FROM g1")

    def duck(path):
        con.execute(f"COPY g1_mem TO '{path}' (FORMAT parquet, COMPRESSION {codec})")

    return {
        "zambezi": lambda p: frame.to_parquet(p, compression=codec, index=False),
        "pyarrow": lambda p: pq.write_table(table, p, compression=codec),
        "polars": lambda p: plf.write_parquet(p, compression=codec),
        "duckdb": duck,
    }


def _rss_peak_reset():
    """Reset the kernel's peak-RSS mark (Linux: clear_refs 5); the RSS now."""
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
    except OSError:
        pass
    return _proc_status("VmRSS")


def _proc_status(key):
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith(key + ":"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


def read_memory(path, columns):
    """One zambezi read's memory against the frame it makes: (engine peak /
    decoded, RSS peak / decoded, decoded bytes).  Engine peak: the counting
    allocator's high-water mark above what it held before; RSS peak: the
    process' peak resident set above its size before (it includes the
    mapped file's pages that were touched)."""
    from zambezi import _core
    import gc

    gc.collect()
    base = _core.alloc_stats()["host_bytes"]
    _core.alloc_reset_peak()
    rss0 = _rss_peak_reset()
    frame = zb.read_parquet(path, columns=columns)
    peak = _core.alloc_stats()["host_peak_bytes"] - base
    rss = _proc_status("VmHWM") - rss0
    decoded = frame.nbytes
    del frame
    return peak / decoded, rss / decoded, decoded


def best_of(fns, path, repeat):
    times = {}
    for _ in range(repeat):
        for name, fn in fns.items():
            t0 = time.perf_counter()
            out = fn(path)
            dt = time.perf_counter() - t0
            del out
            times[name] = min(times.get(name, dt), dt)
    return times


def best_of_isolated(columns, path, repeat, codec=None, source=None):
    """best_of with each engine in a process of its own: in one process an
    engine's times depend on what the others' allocators hold (polars'
    three-column reads ranged 0.022-0.053 s between runs of best_of).
    With codec, each engine writes source's table to path instead."""
    import subprocess
    import sys
    times = {}
    for name in ["zambezi", "pyarrow", "polars", "duckdb"]:
        args = [sys.executable, os.path.abspath(__file__), "--one", name, "--path", path,
                "--repeat", str(repeat)]
        args += ["--codec", codec, "--source", source] if codec else \
            ["--columns", ",".join(columns or [])]
        out = subprocess.run(args, check=True, capture_output=True, text=True).stdout
        times[name] = float(out.split()[-1])
    return times


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=10_000_000)
    ap.add_argument("--dir", default="/tmp/zb-parquet-bench")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--write-only", action="store_true", help="skip the reads")
    ap.add_argument("--isolated", action="store_true",
                    help="time each engine's reads in a process of its own")
    ap.add_argument("--one", help=argparse.SUPPRESS)      # (--isolated's child process)
    ap.add_argument("--path", help=argparse.SUPPRESS)
    ap.add_argument("--columns", help=argparse.SUPPRESS)
    ap.add_argument("--codec", help=argparse.SUPPRESS)
    ap.add_argument("--source", help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.one:
        if a.codec:
            fn = writers(a.source, a.codec, only=a.one)[a.one]
        else:
            cols = a.columns.split(",") if a.columns else None
            fn = readers(cols)[a.one]
        print(best_of({a.one: fn}, a.path, a.repeat)[a.one])
        return
    files = write_files(a.dir, a.rows)
    print(f"G1 {a.rows:,} rows, {zb.get_num_threads()} threads; best of {a.repeat}")
    for label, path in ([] if a.write_only else files.items()):
        mb = os.path.getsize(path) / 1e6
        for what, cols in [("all columns", None), ("3 columns", ["id1", "v1", "v3"])]:
            t = best_of_isolated(cols, path, a.repeat) \
                if a.isolated else best_of(readers(cols), path, a.repeat)
            z = t["zambezi"]
            peers = ", ".join(f"{k} {v:.3f} s ({v / z:.2f}x)" for k, v in t.items()
                              if k != "zambezi")
            eng, rss, dec = read_memory(path, cols)
            print(f"{label:15s} {mb:7.1f} MB  {what:11s}  zambezi {z:.3f} s "
                  f"(peak/decoded {eng:.2f}, RSS {rss:.2f}, of {dec / 1e6:.0f} MB) | {peers}")
    out = os.path.join(a.dir, "written.parquet")
    for codec in ["snappy", "zstd"]:
        t = best_of_isolated(None, out, a.repeat, codec, files["pyarrow/snappy"]) \
            if a.isolated else best_of(writers(files["pyarrow/snappy"], codec), out, a.repeat)
        z = t["zambezi"]
        peers = ", ".join(f"{k} {v:.3f} s ({v / z:.2f}x)" for k, v in t.items()
                          if k != "zambezi")
        print(f"write {codec:9s}                          zambezi {z:.3f} s | {peers}")
    os.remove(out)


if __name__ == "__main__":
    main()
