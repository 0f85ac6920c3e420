"""JSON lines: zambezi vs pandas, polars and duckdb, reading and writing, in
one process.

    python bench/json_lines.py [--rows 1000000 10000000] [--dir /tmp/zb-json-bench]
                         [--repeat 2] [--pandas-max 2000000]

Writes a JSON lines file per size once (kept in --dir for later runs): the
db-benchmark G1 columns (id1..id3 strings, id4..id6 and v1, v2 integers, v3
a float) plus a string with escapes and non-ASCII text, then
  - reads it with zb.read_json, pandas.read_json(lines=True),
    polars.read_ndjson and duckdb's read_json (format='newline_delimited'),
    each into its own typed table;
  - writes the table back with DataFrame.to_json (zambezi, pandas:
    orient="records", lines=True) and polars' write_ndjson and duckdb's
    COPY ... (FORMAT json).
pandas is skipped above --pandas-max rows (it needs minutes and several
times the file's size in memory there).  Prints the best time of --repeat
runs, MB/s and zambezi's speed-up over each peer.  The engines take turns in
each round, so load from other processes falls on all of them alike.
Measurements, not tests.
"""
import argparse
import os
import sys
import time

import numpy as np

import zambezi as zb


def write_file(path, n, k=100, seed=1, chunk=500_000):
    """The G1 columns plus a text column, as JSON lines (written with zambezi
    in pieces, so making the file stays cheap)."""
    rng = np.random.default_rng(seed)
    ids = np.array([f"id{i:03d}" for i in range(1, k + 1)])
    words = np.array(["zambezi", "victoria \"falls\"", "kariba\\dam", "cahora bassa",
                      "mosi-oa-tunya", "smoke that thunders", "chobe/okavango", "lusaka ✓"])
    nk = max(n // k, 1)
    tmp = path + ".part"
    with open(tmp, "wb") as f:
        for s in range(0, n, chunk):
            m = min(chunk, n - s)
            df = zb.DataFrame({
                "id1": ids[rng.integers(0, k, m)],
                "id2": ids[rng.integers(0, k, m)],
                "id3": np.char.add("id", np.char.zfill(rng.integers(1, nk + 1, m).astype(str),
                                                       10)),
                "id4": rng.integers(1, k + 1, m),
                "id5": rng.integers(1, k + 1, m),
                "id6": rng.integers(1, nk + 1, m),
                "v1": rng.integers(1, 6, m),
                "v2": rng.integers(1, 16, m),
                "v3": np.round(rng.uniform(0, 100, m), 6),
                "txt": words[rng.integers(0, len(words), m)],
            })
            df.to_json(f, orient="records", lines=True)
    os.replace(tmp, path)


def readers(path, pandas_ok):
    out = {"zambezi": lambda: zb.read_json(path, lines=True)}
    if pandas_ok:
        import pandas as pd

        out["pandas"] = lambda: pd.read_json(path, lines=True)
    try:
        import polars as pl

        out["polars"] = lambda: pl.read_ndjson(path)
    except ImportError:
        pass
    try:
        import duckdb

        out["duckdb"] = lambda: duckdb.sql(
            f"select * from read_json('{path}', format='newline_delimited')").arrow().read_all()
    except ImportError:
        pass
    return out


def writers(tables, out_path):
    out = {"zambezi": lambda: tables["zambezi"].to_json(out_path, orient="records", lines=True)}
    if "pandas" in tables:
        out["pandas"] = lambda: tables["pandas"].to_json(out_path, orient="records", lines=True)
    if "polars" in tables:
        out["polars"] = lambda: tables["polars"].write_ndjson(out_path)
    if "duckdb" in tables:
        import duckdb

        arrow = tables["duckdb"]

        def duck():
            con = duckdb.connect()
            con.register("t", arrow)
            con.execute(f"copy t to '{out_path}' (format json)")
            con.close()
        out["duckdb"] = duck
    return out


def timed_rounds(fns, repeat):
    """Best wall time and best CPU time (this process, all threads) of each
    engine over `repeat` rounds."""
    best = {k: float("inf") for k in fns}
    cpu = {k: float("inf") for k in fns}
    results = {}
    for _ in range(repeat):
        for name, fn in fns.items():  # engines take turns within a round
            c0 = time.process_time()
            t0 = time.perf_counter()
            results[name] = fn()
            best[name] = min(best[name], time.perf_counter() - t0)
            cpu[name] = min(cpu[name], time.process_time() - c0)
    return (best, cpu), results


def report(what, times, mb):
    best, cpu = times
    z, zc = best["zambezi"], cpu["zambezi"]
    for name, t in best.items():
        ratio = "" if name == "zambezi" else \
            f"   zambezi {t / z:5.2f}x faster (CPU time {cpu[name] / zc:5.2f}x)"
        print(f"  {what:5s} {name:8s} {t:8.3f} s  {mb / t:8.1f} MB/s  CPU {cpu[name]:7.3f} s{ratio}")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rows", type=int, nargs="+", default=[1_000_000, 10_000_000])
    ap.add_argument("--dir", default="/tmp/zb-json-bench")
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--pandas-max", type=int, default=2_000_000)
    a = ap.parse_args(argv)
    os.makedirs(a.dir, exist_ok=True)
    print(f"{len(os.sched_getaffinity(0))} cores, python {sys.version.split()[0]}")
    for n in a.rows:
        path = os.path.join(a.dir, f"g1_{n}.jsonl")
        if not os.path.exists(path):
            write_file(path, n)
        mb = os.path.getsize(path) / 1e6
        print(f"{n:,} rows, {mb:.0f} MB")
        best, tables = timed_rounds(readers(path, n <= a.pandas_max), a.repeat)
        report("read", best, mb)
        best, _ = timed_rounds(writers(tables, os.path.join(a.dir, "out.jsonl")), a.repeat)
        report("write", best, mb)


if __name__ == "__main__":
    main()
