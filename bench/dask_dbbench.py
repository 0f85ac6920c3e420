"""db-benchmark questions through Dask on a LocalCluster: the zambezi backend
(zambezi.dask) against Dask-on-pandas, same cluster, same Parquet files.

    python bench/dask_dbbench.py --rows 10000000 --workers 2 --threads 1 --parts 8

Data: bench/dbbench/gen.py's G1 table (k=100 groups, no missing values) and
J1 x / small / medium / big tables, written once as --parts Parquet files
each (strings as plain strings) under --dir (kept there for the next run).  Each backend reads them with
``dd.read_parquet`` (zambezi's own reader for the zambezi backend, pyarrow
for pandas), persists them on the workers (reading is not timed), then runs:

  groupby q1 sum v1 by id1             q6 median, std v3 by id4, id5 (p2p shuffle)
          q2 sum v1 by id1, id2        q7 max v1 - min v2 by id3
          q3 sum v1, mean v3 by id3    q8 largest two v3 by id6 (shuffle on id6,
          q4 mean v1:v3 by id4            then sort + head(2) per partition)
          q5 sum v1:v3 by id6          q9 r2 of v1, v2 by id2, id4 (grouped sums)
                                       q10 sum v3, count by id1:id6 (split_out=parts)
  join    q1 x.merge(small, on="id1")  q4 x.merge(medium, on="id5") (strings)
          q2 x.merge(medium, on="id2") q5 x.merge(big, on="id3") (hash shuffle)
          q3 x.merge(medium, how="left", on="id2")

Group-bys use Dask's defaults unless said (a tree reduction, split_out=1);
small and medium are one partition, so Dask broadcasts them.  Results of
~10^7 rows (group-by q8 and q10, every join) are reduced on the workers to
their row count and column sums; the others are computed to the client.
Answers are compared (row counts and the sums of the numeric columns within
1e-6 relative).  Reported per question: the best of
--runs wall times, and the workers' peak resident memory (VmHWM of
/proc/self/status, MB: a lifetime peak per worker process, so it grows over
the run).  Each backend
gets a fresh cluster.  --sync also times each question in the client
process (Dask's sync scheduler on tables persisted there), which shows
what the cluster adds to the same per-partition work.
"""
import argparse
import os
import sys
import tempfile
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "dbbench"))

IDS = ["id1", "id2", "id3", "id4", "id5", "id6"]


def _q7(g):
    a = g.groupby("id3").agg({"v1": "max", "v2": "min"})
    return (a["v1"] - a["v2"]).to_frame("range_v1_v2")


def _top2(part):
    return part.sort_values("v3", ascending=False).groupby("id6", sort=False).head(2)


def _q8(g):
    # largest two v3 by id6: the rows of a group meet in one partition
    # (a hash shuffle on id6), where the partition's own sort + head(2) runs
    x = g[["id6", "v3"]].dropna(subset=["v3"]).shuffle("id6")
    return x.map_partitions(_top2, meta=x._meta)


def _q9(g):
    # r2 = corr(v1, v2)^2 by id2, id4, from grouped sums (a tree reduction;
    # db-benchmark's Dask script calls DataFrame.corr per group through
    # apply); the 10^4-row sums go to the client and the formula runs there
    t = g[["id2", "id4", "v1", "v2"]].astype({"v1": "float64", "v2": "float64"})
    t = t.assign(aa=t.v1 * t.v1, bb=t.v2 * t.v2, ab=t.v1 * t.v2, n=t.v1 * 0.0 + 1.0)
    return t.groupby(["id2", "id4"]).sum()


def _r2(s):
    n = s["n"]
    cov = s["ab"] - s["v1"] * s["v2"] / n
    var1 = s["aa"] - s["v1"] ** 2 / n
    var2 = s["bb"] - s["v2"] ** 2 / n
    return (cov * cov / (var1 * var2)).to_frame("r2")


# question -> (make the Dask collection from the tables, value columns to
# check, reduce on the workers: True for results of ~10^7 rows, which are
# checked by their row count and column sums instead of travelling to the
# client, as db-benchmark checks them)
GROUPBY = {
    "q1": (lambda t: t["G1"].groupby("id1").agg({"v1": "sum"}), False),
    "q2": (lambda t: t["G1"].groupby(["id1", "id2"]).agg({"v1": "sum"}), False),
    "q3": (lambda t: t["G1"].groupby("id3").agg({"v1": "sum", "v3": "mean"}), False),
    "q4": (lambda t: t["G1"].groupby("id4").agg({"v1": "mean", "v2": "mean", "v3": "mean"}),
           False),
    "q5": (lambda t: t["G1"].groupby("id6").agg({"v1": "sum", "v2": "sum", "v3": "sum"}),
           False),
    "q6": (lambda t: t["G1"].groupby(["id4", "id5"]).v3.agg(["median", "std"],
                                                             shuffle_method="p2p"), False),
    "q7": (lambda t: _q7(t["G1"]), False),
    "q8": (lambda t: _q8(t["G1"]), True),
    "q9": (lambda t: _q9(t["G1"]), False),
    "q10": (lambda t: t["G1"].groupby(IDS).agg({"v3": "sum", "v1": "count"},
                                               split_out=t["G1"].npartitions), True),
}
JOIN = {
    "q1": (lambda t: t["x"].merge(t["small"], on="id1"), True),
    "q2": (lambda t: t["x"].merge(t["medium"], on="id2"), True),
    "q3": (lambda t: t["x"].merge(t["medium"], how="left", on="id2"), True),
    "q4": (lambda t: t["x"].merge(t["medium"], on="id5"), True),
    "q5": (lambda t: t["x"].merge(t["big"], on="id3"), True),
}


def write_data(rows, parts, where):
    import pyarrow.parquet as pq
    import gen

    out = {}
    tables = {"G1": gen.to_arrow(gen.groupby_data(rows, 100), strings="string")}
    for name, data in gen.join_data(rows).items():
        if name in ("x", "small", "medium", "big"):
            tables[name] = gen.to_arrow(data, strings="string")
    for name, table in tables.items():
        d = os.path.join(where, name)
        os.makedirs(d, exist_ok=True)
        n = parts if name in ("G1", "x", "big") else 1   # small, medium: broadcast
        step = -(-len(table) // n)
        for i in range(n):
            pq.write_table(table.slice(i * step, step), os.path.join(d, f"part{i:03d}.parquet"))
        out[name] = d
    return out


def _peak_mb():
    """The worker process's peak resident memory, MB (bench/peak.py)."""
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from peak import peak_mb

    return peak_mb()


def _summary(df):
    """(rows, sums of the numeric columns) of a pandas frame."""
    num = df.select_dtypes("number")
    return len(df), {c: float(num[c].sum()) for c in num.columns}


def _numeric(meta):
    return [c for c, t in dict(meta.dtypes).items() if str(t).startswith(("int", "uint", "float"))]


class _PartSummary:
    """One partition's row count and column sums, as a one-row pandas frame
    (the same for both backends)."""

    def __init__(self, cols):
        self.cols = cols

    def __dask_tokenize__(self):   # the same task names on every run
        return ("PartSummary", tuple(self.cols))

    def __repr__(self):            # (Dask names the tasks by it)
        return "part_summary"

    def __call__(self, part):
        import pandas as pd
        row = {"rows": [len(part)]}
        row.update({c: [float(part[c].sum())] for c in self.cols})
        return pd.DataFrame(row)


def _answer(dask, ans, reduce):
    """Run the question: (rows, {column: sum}) of its answer, computed on the
    workers when reduce is true (one pass over the answer: a summary row per
    partition, so that Dask's projection pushdown does not plan one join per
    summed column), else on the client."""
    if reduce:
        import pandas as pd
        cols = _numeric(ans._meta)
        f = _PartSummary(cols)
        meta = pd.DataFrame({"rows": pd.Series([], dtype="int64"),
                             **{c: pd.Series([], dtype="float64") for c in cols}})
        parts = ans.map_partitions(f, meta=meta, enforce_metadata=False).compute()
        parts = parts.to_pandas() if hasattr(parts, "to_pandas") else parts
        return int(parts["rows"].sum()), {c: float(parts[c].sum()) for c in cols}
    out = ans.compute()
    out = out.to_pandas() if hasattr(out, "to_pandas") else out
    if "ab" in out.columns:   # q9's sums -> r2
        out = _r2(out)
    return _summary(out)


def _best_sync(dask, make, local, reduce, runs):
    """Best of runs wall times of the question in this process (Dask's
    sync scheduler on the locally persisted tables, the engine's default
    threads): what the cluster adds to the same per-partition work."""
    best = float("inf")
    with dask.config.set(scheduler="sync"):
        for _ in range(runs):
            t0 = time.perf_counter()
            _answer(dask, make(local), reduce)
            best = min(best, time.perf_counter() - t0)
    return best


def run_backend(backend, paths, workers, threads, runs, only=None, sync=False):
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
        local = {name: t.persist(scheduler="sync") for name, t in tables.items()} if sync \
            else None
        tables = {name: t.persist() for name, t in tables.items()}
        distributed.wait(list(tables.values()))

        questions = [("groupby", q, make, red) for q, (make, red) in GROUPBY.items()]
        questions += [("join", q, make, red) for q, (make, red) in JOIN.items()]
        for kind, q, make, reduce in questions:
            if only and f"{kind}-{q}" not in only:
                continue
            best, answer = float("inf"), None
            try:
                for _ in range(runs):
                    t0 = time.perf_counter()
                    answer = _answer(dask, make(tables), reduce)
                    best = min(best, time.perf_counter() - t0)
            except Exception as e:   # report it, go on with the next question
                print(f"  {backend:8s} {kind:8s} {q}: FAILED {type(e).__name__}: "
                      f"{str(e).splitlines()[0][:200]}", flush=True)
                results[(kind, q)] = (float("nan"), float("nan"), None)
                continue
            peaks = client.run(_peak_mb)
            results[(kind, q)] = (best, max(peaks.values()), answer)
            one = f"   in one process {_best_sync(dask, make, local, reduce, runs):8.3f} s" \
                if sync else ""
            print(f"  {backend:8s} {kind:8s} {q}: {best:8.3f} s   worker peak "
                  f"{max(peaks.values()):8.0f} MB{one}", flush=True)
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
    ap.add_argument("--only", default="", help="comma-separated questions, e.g. groupby-q8,join-q5")
    ap.add_argument("--backends", default="zambezi,pandas")
    ap.add_argument("--sync", action="store_true",
                    help="also time each question in the client process (sync scheduler)")
    args = ap.parse_args()
    where = args.dir or tempfile.mkdtemp(prefix="zb-dask-bench-")
    t0 = time.perf_counter()
    done = os.path.join(where, f".written-{args.rows}-{args.parts}")
    if os.path.exists(done):   # the same data from an earlier run
        paths = {n: os.path.join(where, n) for n in ("G1", "x", "small", "medium", "big")}
    else:
        paths = write_data(args.rows, args.parts, where)
        open(done, "w").close()
    print(f"data: {args.rows} rows in {where} ({time.perf_counter() - t0:.1f} s); "
          f"{args.workers} workers x {args.threads} threads", flush=True)
    only = set(filter(None, args.only.split(",")))
    res = {b: run_backend(b, paths, args.workers, args.threads, args.runs, only, args.sync)
           for b in args.backends.split(",")}
    if len(res) < 2:
        return
    print("\n| question | zambezi s | pandas s | speedup | zambezi peak MB | pandas peak MB | answers |")
    print("|---|---|---|---|---|---|---|")
    for key in res["zambezi"]:
        (tz, mz, sz), (tp, mp, sp) = res["zambezi"][key], res["pandas"][key]
        same = sz is not None and sp is not None and sz[0] == sp[0] and all(
            np.isclose(sz[1].get(c, np.nan), v, rtol=1e-6) for c, v in sp[1].items())
        print(f"| {key[0]} {key[1]} | {tz:.3f} | {tp:.3f} | {tp / tz:.2f}x | {mz:.0f} | {mp:.0f} "
              f"| {'equal' if same else 'DIFFER'} |")


if __name__ == "__main__":
    main()
