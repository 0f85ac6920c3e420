"""GPU reduction benchmark: zambezi's CUDA reductions against CuPy's.

    python3 bench/gpu_reduce.py [--rows 100000000] [--reps 10] [--json out.json]

Puts float64 (and int32) columns of --rows values on the first GPU, times
sum / mean / min / max through zambezi and the same reductions through CuPy
(each result brought back to the host, so both include the synchronisation
and the tiny device-to-host copy), three warm-up runs then the median of
--reps, and prints a table with the time and the bandwidth (bytes of values
read per second; validity bitmaps not counted).  Also times zambezi on a
float64 column with 10% nulls.  Needs a GPU; exits with status 2 without one.
"""

import argparse
import json
import statistics
import sys
import time

import numpy as np


def no_gpu(zb):
    """True (after saying why) when zambezi sees no usable GPU; the GPU
    benchmarks then exit with status 2."""
    if zb._core.cuda_device_count() > 0:
        return False
    print("no usable GPU:", zb._core.cuda_unavailable_reason())
    return True


def median_time(fn, reps, warmup=3):
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=100_000_000)
    ap.add_argument("--reps", type=int, default=10)
    ap.add_argument("--json", default=None, help="also write the results here")
    args = ap.parse_args(argv)

    import zambezi as zb

    if no_gpu(zb):
        return 2
    try:
        import cupy as cp
    except ImportError:
        cp = None

    n = args.rows
    rng = np.random.default_rng(0)
    gpu_name = [d for d in zb.devices() if d.get("kind") == "cuda"][0].get("name", "?")
    rows = []

    def record(lib, dtype, op, seconds, nbytes, value):
        rows.append(
            {
                "library": lib,
                "dtype": dtype,
                "op": op,
                "rows": n,
                "ms": seconds * 1e3,
                "GB/s": nbytes / seconds / 1e9,
                "value": float(value),
            }
        )

    cases = [
        ("float64", rng.random(n)),
        ("int32", rng.integers(-1000, 1000, n, dtype=np.int32)),
    ]
    for dtype, host in cases:
        s = zb.Series(host).to("cuda")
        for op in ("sum", "mean", "min", "max"):
            f = getattr(s, op)
            record("zambezi", dtype, op, median_time(f, args.reps), host.nbytes, f())
        del s
        if cp is not None:
            x = cp.asarray(host)
            for op in ("sum", "mean", "min", "max"):
                f = getattr(x, op)
                record("cupy", dtype, op, median_time(lambda: float(f()), args.reps),
                       host.nbytes, float(f()))
            del x
            cp.get_default_memory_pool().free_all_blocks()

    # with nulls: a validity bitmap on the GPU too
    host = rng.random(n)
    try:
        import pyarrow as pa

        s = zb.Series(pa.array(host, mask=rng.random(n) < 0.1)).to("cuda")
        for op in ("sum", "mean"):
            f = getattr(s, op)
            record("zambezi", "float64+nulls", op, median_time(f, args.reps), host.nbytes, f())
        del s
    except Exception as e:  # noqa: BLE001 -- optional case
        print("(skipped the nulls case:", e, ")")

    print(f"\nGPU reductions on {gpu_name}, {n:,} rows, median of {args.reps}")
    print(f"{'library':<9} {'dtype':<14} {'op':<5} {'ms':>9} {'GB/s':>8}  value")
    for r in rows:
        print(f"{r['library']:<9} {r['dtype']:<14} {r['op']:<5} {r['ms']:9.3f} "
              f"{r['GB/s']:8.1f}  {r['value']:.10g}")
    by = {(r["library"], r["dtype"], r["op"]): r for r in rows}
    ratios = []
    for (lib, dtype, op), r in by.items():
        c = by.get(("cupy", dtype, op))
        if lib == "zambezi" and c is not None:
            ratios.append(f"{dtype} {op}: zambezi/cupy time {r['ms'] / c['ms']:.2f}x")
    if ratios:
        print("\n" + "\n".join(ratios))
    if args.json:
        with open(args.json, "w") as fh:
            json.dump({"gpu": gpu_name, "results": rows}, fh, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
