"""db-benchmark questions through Dask on a LocalCluster: the zambezi backend
(zambezi.dask) against Dask-on-pandas, same cluster, same Parquet files.

    python bench/dask_dbbench.py --rows 10000000 --workers 2 --threads 1 --parts 8

Data: bench/dbbench/gen.py's G1 table (k=100 groups, no missing values) and
J1 x / small / medium tables, written once as --parts Parquet files each
(strings as plain strings) under --dir.  Each backend reads them with
``dd.read_parquet`` (zambezi's own reader for the zambezi backend, pyarrow
for pandas), persists them on the workers (reading is not timed), then runs:

  groupby q1 sum v1 by id1             q2 sum v1 by id1, id2
          q3 sum v1, mean v3 by id3    q4 mean v1:v3 by id4
          q5 sum v1:v3 by id6
  join    q1 x.merge(small, on="id1")  q2 x.merge(medium, on="id2")

each computed to the client (group-bys with Dask's defaults: a tree
reduction, split_out=1; joins: small and medium are one partition, so Dask
broadcasts them).  Answers are compared (row counts and the sums of the
numeric columns within 1e-6 relative).  Reported per question: the best of
--runs wall times, and the workers' peak resident memory (ru_maxrss, MB: a
lifetime peak per worker process, so it grows over the run).  Each backend
gets a fresh cluster.
"""
import argparse
import os
import resource
import sys
import tempfile
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "dbbench"))

GROUPBY = {
    "q1": (["id1"], {"v1": "sum"}),
    "q2": (["id1", "id2"], {"v1": "sum"}),
    "q3": (["id3"], {"v1": "sum", "v3": "mean"}),
    "q4": (["id4"], {"v1": "mean", "v2": "mean", "v3": "mean"}),
    "q5": (["id6"], {"v1": "sum", "v2": "sum", "v3": "sum"}),
}
JOIN = {"q1": ("small", "id1"), "q2": ("medium", "id2")}


def write_data(rows, parts, where):
    import pyarrow.parquet as pq
    import gen

    out = {}
    tables = {"G1": gen.to_arrow(gen.groupby_data(rows, 100), strings="string")}
    for name, data in gen.join_data(rows).items():
        if name in ("x", "small", "medium"):
            tables[name] = gen.to_arrow(data, strings="string")
    for name, table in tables.items():
        d = os.path.join(where, name)
        os.makedirs(d, exist_ok=True)
        n = parts if len(table) >= parts * 1000 else 1
        step = -(-len(table) // n)
        for i in range(n):
            pq.write_table(table.slice(i * step, step), os.path.join(d, f"part{i:03d}.parquet"))
        out[name] = d
    return out


def _peak_mb():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _summary(df):
    """(rows, sums of the numeric columns) of a pandas frame."""
    num = df.select_dtypes("number")
    return len(df), {c: float(num[c].sum()) for c in num.columns}


def run_backend(backend, paths, workers, threads, runs):
    import dask
    import dask.dataframe as dd
    import distributed

    cluster = distributed.LocalCluster(n_workers=workers, threads_per_worker=threads,
                                       processes=True, dashboard_address=None,
                                       memory_limit=0)
    client = distributed.Client(cluster)
    results = {}
    try:
        if backend == "zambezi":
            import zambezi.dask
            zambezi.dask.set_worker_threads(client)
        with dask.config.set({"dataframe.backend": backend}):
            tables = {name: dd.read_parquet(path) for name, path in paths.items()}
        tables = {name: t.persist() for name, t in tables.items()}
        distributed.wait(list(tables.values()))

        def to_pandas(obj):
            return obj if not hasattr(obj, "to_pandas") else obj.to_pandas()

        questions = [("groupby", q, lambda by=by, agg=agg: tables["G1"].groupby(by).agg(agg))
                     for q, (by, agg) in GROUPBY.items()]
        questions += [("join", q, lambda side=side, on=on: tables["x"].merge(tables[side], on=on))
                      for q, (side, on) in JOIN.items()]
        for kind, q, make in questions:
            best, answer = float("inf"), None
            for _ in range(runs):
                t0 = time.perf_counter()
                answer = make().compute()
                best = min(best, time.perf_counter() - t0)
            peaks = client.run(_peak_mb)
            results[(kind, q)] = (best, max(peaks.values()), _summary(to_pandas(answer)))
            print(f"  {backend:8s} {kind:8s} {q}: {best:8.3f} s   worker peak "
                  f"{max(peaks.values()):8.0f} MB", flush=True)
    finally:
        client.close()
        cluster.close()
    return results


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rows", type=int, default=10_000_000)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--parts", type=int, default=8)
    ap.add_argument("--runs", type=int, default=2)
    ap.add_argument("--dir", default=None)
    args = ap.parse_args()
    where = args.dir or tempfile.mkdtemp(prefix="zb-dask-bench-")
    t0 = time.perf_counter()
    paths = write_data(args.rows, args.parts, where)
    print(f"data: {args.rows} rows in {where} ({time.perf_counter() - t0:.1f} s); "
          f"{args.workers} workers x {args.threads} threads", flush=True)
    res = {b: run_backend(b, paths, args.workers, args.threads, args.runs)
           for b in ("zambezi", "pandas")}
    print("\n| question | zambezi s | pandas s | speedup | zambezi peak MB | pandas peak MB | answers |")
    print("|---|---|---|---|---|---|---|")
    for key in res["zambezi"]:
        (tz, mz, sz), (tp, mp, sp) = res["zambezi"][key], res["pandas"][key]
        same = sz[0] == sp[0] and all(
            np.isclose(sz[1].get(c, np.nan), v, rtol=1e-6) for c, v in sp[1].items())
        print(f"| {key[0]} {key[1]} | {tz:.3f} | {tp:.3f} | {tp / tz:.2f}x | {mz:.0f} | {mp:.0f} "
              f"| {'equal' if same else 'DIFFER'} |")


if __name__ == "__main__":
    main()
