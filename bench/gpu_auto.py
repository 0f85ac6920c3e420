"""Where a GPU starts to pay: the measurement behind device="auto".

    python3 bench/gpu_auto.py [--max-rows 100000000] [--reps 5] [--json out.json]

For tables of 10^3 .. --max-rows rows (an int64 key, an int64 and a float64
column: 24 bytes a row) it times one small workload -- a filter, a derived
column, a sort of the filtered rows and three reductions -- on the CPU (all
threads, data already there) and on the first GPU *including* the copy of
the table to the GPU (what device="auto" decides about), and prints both,
their ratio, and the smallest table size from which the GPU was faster at
every larger size: the value for zb.set_auto_threshold / the
ZAMBEZI_AUTO_GPU_BYTES variable on that machine.  Operations the GPU
backend lacks run on the CPU (zb.profile() shows which), so the crossover
moves as the CUDA backend grows.  Needs a GPU; exits with status 2 without.
"""
import argparse
import functools
import json
import sys

import numpy as np

import gpu_reduce
import zambezi as zb

# bench/ is on sys.path when a script here runs: one warm-up run, then the
# median of reps.
median_time = functools.partial(gpu_reduce.median_time, warmup=1)


def workload(df):
    keep = df[df["x"] > 0.25]
    keep["y"] = keep["x"] * 2.0 + keep["i"]
    ordered = keep.sort_values("k")
    return (ordered["y"].sum(), ordered["i"].max(), ordered["x"].mean())


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--max-rows", type=int, default=100_000_000)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--json", default=None)
    args = ap.parse_args(argv)
    if not zb.cuda_available():
        print("no GPU: nothing to measure")
        return 2
    rng = np.random.default_rng(0)
    sizes = [n for n in (10**3, 10**4, 10**5, 10**6, 3 * 10**6, 10**7, 3 * 10**7, 10**8)
             if n <= args.max_rows]
    rows = []
    print(f"{'rows':>12}{'MiB':>9}{'cpu ms':>10}{'gpu+copy ms':>13}{'cpu/gpu':>9}")
    for n in sizes:
        df = zb.DataFrame({"k": rng.integers(0, 1000, n), "i": rng.integers(-100, 100, n),
                           "x": rng.random(n)})
        cpu = median_time(lambda: workload(df), args.reps)
        gpu = median_time(lambda: workload(df.to("cuda")), args.reps)
        a, b = workload(df), workload(df.to("cuda"))
        same = all(abs(p - q) <= 1e-9 * max(1.0, abs(p)) for p, q in zip(a, b))
        rows.append({"rows": n, "bytes": df.nbytes, "cpu_s": cpu, "gpu_s": gpu, "same": same})
        print(f"{n:>12,}{df.nbytes / 2**20:>9.1f}{cpu * 1e3:>10.2f}{gpu * 1e3:>13.2f}"
              f"{cpu / gpu:>8.2f}x{'' if same else '  ANSWERS DIFFER'}")
    threshold = None
    for r in reversed(rows):
        if r["gpu_s"] >= r["cpu_s"]:
            break
        threshold = r["bytes"]
    with zb.profile() as p:
        workload(zb.DataFrame({"k": [1, 2], "i": [1, 2], "x": [0.5, 0.7]}).to("cuda"))
    fell_back = sorted({r.op for r in p.records if r.fallback})
    print(f"GPU faster from {threshold / 2**20:.1f} MiB on" if threshold else
          "the GPU was not faster at any size measured")
    print(f"operations that fell back to the CPU: {', '.join(fell_back) or 'none'}")
    print(f"default threshold: {zb._device.AUTO_DEFAULT_BYTES / 2**20:.0f} MiB")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"sizes": rows, "threshold_bytes": threshold,
                       "fallbacks": fell_back}, f, indent=1)
    return 0 if all(r["same"] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
