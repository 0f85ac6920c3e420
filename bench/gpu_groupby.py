"""GPU group-by benchmark: zambezi's CUDA backend against its CPU backend.

    python3 bench/gpu_groupby.py [--sum-rows 100000000] [--rows 1e8] [--k 100]
        [--reps 3] [--cpu-reps 1] [--skip-sum] [--skip-db] [--json out.json]

On the first GPU, with the data already in GPU memory (``DataFrame.to("cuda")``,
not timed) and the same data in host memory for the CPU backend (all its
threads):

  * group-by sum: --sum-rows rows of an int64 key (random order) and a
    float64 value, ``groupby(key).agg(v=("v", "sum"))``, with 100 groups and
    with 2**20 (about 10**6) groups: milliseconds and rows per second on each
    backend;
  * db-benchmark group-by q1-q10 (bench/dbbench: table G1 with --rows rows
    and --k groups, no missing values, id1..id3 as categoricals; the
    pandas-style questions of bench/dbbench/groupby.py, sort=False,
    dropna=False) on the GPU frame and on the host frame.

GPU timings: one warm-up run (timed as "run 1"), then the best of --reps;
every zambezi operation returns once its GPU work is done.  CPU timings: the
best of --cpu-reps runs.  Every GPU answer is compared with the CPU answer:
the sums exactly in their keys and within 1e-9 of the sum of |v|; the
db-benchmark answers by bench/dbbench's summaries (row count, sum of each
numeric column within 0.5%, non-missing count of the others).  Each GPU
question also runs once inside zb.profile(), and the operations that fell
back to the CPU (those the GPU backend declines, e.g. median) are listed.
Prints a table; --json also writes every number to a file.  Exits with 1 when
an answer differs, 2 without a GPU.
"""

import argparse
import json
import os
import sys
import time

import numpy as np

import gpu_reduce  # bench/ is on sys.path when a script here runs

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "dbbench"))


def best_time(fn, reps):
    """(seconds of the first run, best of the next reps (or the first), the
    last answer)."""
    t0 = time.perf_counter()
    ans = fn()
    first = time.perf_counter() - t0
    best = None
    for _ in range(reps):
        ans = None
        t0 = time.perf_counter()
        ans = fn()
        t = time.perf_counter() - t0
        best = t if best is None else min(best, t)
    return first, (first if best is None else best), ans


def sum_bench(zb, n, groups, reps, cpu_reps, device):
    """groupby(k).agg(v=("v", "sum")) over n rows with `groups` groups."""
    core = zb._core
    rng = np.random.default_rng(groups)
    keys = rng.integers(0, groups, n, dtype=np.int64)
    vals = rng.uniform(-100.0, 100.0, n)
    host = zb.DataFrame({"k": keys, "v": vals})
    del keys
    dev = host.to(device)
    spec = [("sum", 1, -1, 1, 0.5, False, "v")]

    def run(df):
        return zb.DataFrame._wrap(core.groupby(df._table, [0], True, True, spec))

    g_first, g_best, g_ans = best_time(lambda: run(dev), reps)
    c_first, c_best, c_ans = best_time(lambda: run(host), max(cpu_reps - 1, 0))
    g, c = g_ans.to("cpu").to_arrow(), c_ans.to_arrow()
    ok = g.num_rows == c.num_rows and g["k"].equals(c["k"])
    if ok:
        scale = zb.DataFrame({"k": host["k"], "a": np.abs(vals)}).groupby("k").agg(
            a=("a", "sum")).to_arrow()["a"].to_numpy()
        gv, cv = g["v"].to_numpy(), c["v"].to_numpy()
        ok = bool(np.all(np.abs(gv - cv) <= 1e-9 * scale + 1e-300))
    del dev, host, g_ans, c_ans, vals
    return {"bench": "sum", "rows": n, "groups": groups, "gpu_first_ms": g_first * 1e3,
            "gpu_ms": g_best * 1e3, "gpu_Grows_s": n / g_best / 1e9,
            "cpu_ms": c_best * 1e3, "cpu_Grows_s": n / c_best / 1e9,
            "speedup": c_best / g_best, "answer_ok": ok}


def db_bench(zb, rows, k, reps, cpu_reps, device, log):
    """db-benchmark q1-q10 on the GPU frame and on the host frame."""
    import common
    import gen
    import groupby

    t0 = time.perf_counter()
    data = gen.groupby_data(rows, k, 0, False)
    table = gen.to_arrow(data, "category")
    del data
    host = zb.DataFrame(table)
    del table
    dev = host.to(device)
    log(f"G1 {rows:,} rows, k={k}: generated and loaded in {time.perf_counter() - t0:.1f} s")
    impl = groupby.zambezi_impl()
    out = []
    for q in groupby.QUESTIONS:
        fn = impl[q]
        row = {"bench": "db", "question": q, "title": groupby.TITLES[q], "rows": rows}
        try:
            with zb.profile() as p:
                fn(dev)
            row["gpu_fallbacks"] = sorted({r.op for r in p.records if r.fallback})
            g_first, g_best, g_ans = best_time(lambda: fn(dev), reps)
            g_sum = common.summarize(g_ans.to("cpu"))
            del g_ans
            c_first, c_best, c_ans = best_time(lambda: fn(host), max(cpu_reps - 1, 0))
            c_sum = common.summarize(c_ans)
            del c_ans
            row.update(gpu_first_ms=g_first * 1e3, gpu_ms=g_best * 1e3, cpu_ms=c_best * 1e3,
                       speedup=c_best / g_best)
            diff = common.compare(g_sum, c_sum)
            row["answer_ok"] = diff == ""
            row["check"] = diff or "same"
        except Exception as ex:  # report and go on with the other questions
            row["answer_ok"] = False
            row["check"] = f"error: {type(ex).__name__}: {ex}"[:300]
        log(f"  {q}: {row.get('gpu_ms', float('nan')):.1f} ms GPU, "
            f"{row.get('cpu_ms', float('nan')):.1f} ms CPU, {row['check']}")
        out.append(row)
    del dev, host
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sum-rows", type=float, default=1e8)
    ap.add_argument("--rows", type=float, default=1e8, help="db-benchmark G1 rows")
    ap.add_argument("--k", type=int, default=100, help="db-benchmark groups (K)")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--cpu-reps", type=int, default=1)
    ap.add_argument("--skip-sum", action="store_true")
    ap.add_argument("--skip-db", action="store_true")
    ap.add_argument("--device", default="cuda",
                    help="where the 'GPU' side runs ('cpu': a dry run of the script)")
    ap.add_argument("--json", default=None, help="also write the results here")
    args = ap.parse_args(argv)

    import zambezi as zb

    if args.device != "cpu" and gpu_reduce.no_gpu(zb):
        return 2
    gpus = [d for d in zb.devices() if d.get("kind") == "cuda"]
    gpu_name = gpus[0].get("name", "?") if gpus else args.device
    results = []
    if not args.skip_sum:
        for groups in (100, 1 << 20):
            r = sum_bench(zb, int(args.sum_rows), groups, args.reps, args.cpu_reps,
                          args.device)
            print(f"  group-by sum with {groups:,} groups: {r['gpu_ms']:.2f} ms GPU "
                  f"({r['gpu_Grows_s']:.2f} G rows/s), {r['cpu_ms']:.1f} ms CPU, "
                  f"answer {'same' if r['answer_ok'] else 'DIFFERS'}")
            results.append(r)
    if not args.skip_db:
        results += db_bench(zb, int(args.rows), args.k, args.reps, args.cpu_reps, args.device,
                            print)

    print(f"\nGPU group-by on {gpu_name} (data on the device) vs zambezi's CPU backend "
          f"({os.cpu_count()} CPUs); GPU: best of {args.reps} after a first run; "
          f"CPU: best of {max(args.cpu_reps, 1)}")
    print(f"{'bench':<30} {'rows':>11} {'GPU ms':>9} {'G rows/s':>8} {'CPU ms':>10} "
          f"{'CPU/GPU':>8}  answer")
    for r in results:
        label = (f"sum, {r['groups']:,} groups" if r["bench"] == "sum"
                 else f"{r['question']} {r['title']}")[:30]
        if "gpu_ms" not in r:
            print(f"{label:<30} {r['rows']:>11,} {'-':>9} {'-':>8} {'-':>10} {'-':>8}  "
                  f"{r['check']}")
            continue
        note = "same" if r["answer_ok"] else "DIFFERS: " + r.get("check", "")
        if r.get("gpu_fallbacks"):
            note += f" (CPU fallback: {', '.join(r['gpu_fallbacks'])})"
        print(f"{label:<30} {r['rows']:>11,} {r['gpu_ms']:9.2f} "
              f"{r['rows'] / r['gpu_ms'] / 1e6:8.2f} {r['cpu_ms']:10.1f} "
              f"{r['speedup']:7.1f}x  {note}")
    db = [r for r in results if r["bench"] == "db" and "gpu_ms" in r]
    if db:
        g, c = sum(r["gpu_ms"] for r in db), sum(r["cpu_ms"] for r in db)
        print(f"db-benchmark q1-q10 total: GPU {g:.1f} ms, CPU {c:.1f} ms, {c / g:.1f}x")
    ok = all(r["answer_ok"] for r in results)
    print(f"answers: {'all the same as the CPU' if ok else 'SOME DIFFER'}")
    if args.json:
        with open(args.json, "w") as fh:
            json.dump({"gpu": gpu_name, "cpus": os.cpu_count(), "reps": args.reps,
                       "cpu_reps": args.cpu_reps, "results": results}, fh, indent=1)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
