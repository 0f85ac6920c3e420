"""GPU sort and filter benchmark: zambezi's CUDA backend against CuPy.

    python3 bench/gpu_sort.py [--rows 100000000] [--reps 5] [--json out.json]

On the first GPU, with --rows random int64 values (full 64-bit range) and a
random bool mask (half true):
  * device-to-device copy bandwidth (CuPy, else PyTorch): the yardstick;
  * sort: zambezi Series.sort_values (the stable sort permutation, then a
    gather) and the permutation alone (argsort), CuPy's sort and argsort;
  * filter: zambezi's filter by the mask, CuPy's boolean indexing.
Every timing waits for the GPU to finish (zambezi's operations return when
their results are complete; CuPy's are followed by a device synchronize);
one warm-up run, then the median of --reps.  Prints a table (ms, rows/s,
GB/s of bytes each operation must read and write at least) and the
zambezi/CuPy time ratios; --json also writes every number to a file.  Needs
a GPU; exits with status 2 without one.
"""

import argparse
import functools
import json
import sys

import numpy as np

import gpu_reduce


# bench/ is on sys.path when a script here runs: one warm-up run, then the
# median of reps.
median_time = functools.partial(gpu_reduce.median_time, warmup=1)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=100_000_000)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--json", default=None, help="also write the results here")
    args = ap.parse_args(argv)

    import zambezi as zb

    if gpu_reduce.no_gpu(zb):
        return 2
    try:
        import cupy as cp
    except ImportError:
        cp = None
    torch = None
    if cp is None:
        try:
            import torch
        except ImportError:
            torch = None

    core = zb._core
    n = args.rows
    gpu_name = [d for d in zb.devices() if d.get("kind") == "cuda"][0].get("name", "?")
    rng = np.random.default_rng(0)
    host = rng.integers(np.iinfo(np.int64).min, np.iinfo(np.int64).max, n, dtype=np.int64)
    keep = rng.random(n) < 0.5
    kept = int(keep.sum())
    rows = []

    def record(lib, op, seconds, nbytes, note=""):
        rows.append({"library": lib, "op": op, "rows": n, "ms": seconds * 1e3,
                     "Grows/s": n / seconds / 1e9, "GB/s": nbytes / seconds / 1e9,
                     "note": note})

    # -- copy bandwidth: read n * 8 bytes and write them --------------------
    copy_bytes = 2 * host.nbytes
    if cp is not None:
        x = cp.asarray(host)
        y = cp.empty_like(x)

        def cp_copy():
            cp.copyto(y, x)
            cp.cuda.Device().synchronize()

        record("cupy", "d2d copy", median_time(cp_copy, args.reps), copy_bytes,
               "bytes read + written")
        del y
    elif torch is not None:
        tx = torch.from_numpy(host).cuda()
        ty = torch.empty_like(tx)

        def torch_copy():
            ty.copy_(tx)
            torch.cuda.synchronize()

        record("torch", "d2d copy", median_time(torch_copy, args.reps), copy_bytes,
               "bytes read + written")
        del tx, ty
    else:
        print("(neither CuPy nor PyTorch: no copy bandwidth measured)")

    # -- sort ---------------------------------------------------------------
    s = zb.Series(host).to("cuda")
    # lower bounds of the traffic: keys once in and out (sort); keys and
    # int64 positions in and out (argsort)
    record("zambezi", "sort_values", median_time(lambda: s.sort_values(), args.reps),
           2 * host.nbytes, "stable permutation + gather")
    record("zambezi", "argsort",
           median_time(lambda: core.sort_indices(s._col, True, False), args.reps),
           4 * host.nbytes)
    # sanity (the tests check exactly): non-decreasing, same wrapped sum and xor
    check = s.sort_values().to("cpu").to_numpy()
    u, h = check.view(np.uint64), host.view(np.uint64)
    sorted_ok = bool(len(check) == n and np.all(check[1:] >= check[:-1])
                     and u.sum(dtype=np.uint64) == h.sum(dtype=np.uint64)
                     and np.bitwise_xor.reduce(u) == np.bitwise_xor.reduce(h))
    del check, u, h
    if cp is not None:
        def cp_sort():
            cp.sort(x)
            cp.cuda.Device().synchronize()

        def cp_argsort():
            cp.argsort(x)
            cp.cuda.Device().synchronize()

        record("cupy", "sort_values", median_time(cp_sort, args.reps), 2 * host.nbytes)
        record("cupy", "argsort", median_time(cp_argsort, args.reps), 4 * host.nbytes)

    # -- filter -------------------------------------------------------------
    m = zb.Series(keep).to("cuda")
    filter_bytes = host.nbytes + n // 8 + kept * 8
    record("zambezi", "filter",
           median_time(lambda: core.filter(s._col, m._col), args.reps), filter_bytes,
           f"{kept / n:.0%} kept")
    filtered_ok = core.filter(s._col, m._col).length == kept
    del s, m
    if cp is not None:
        cm = cp.asarray(keep)

        def cp_filter():
            x[cm]
            cp.cuda.Device().synchronize()

        record("cupy", "filter", median_time(cp_filter, args.reps),
               host.nbytes + n + kept * 8, "bool mask as bytes")
        del cm, x
        cp.get_default_memory_pool().free_all_blocks()

    print(f"\nGPU sort / filter on {gpu_name}, {n:,} int64 rows, median of {args.reps}")
    print(f"{'library':<8} {'op':<12} {'ms':>9} {'Grows/s':>8} {'GB/s':>8}  note")
    for r in rows:
        print(f"{r['library']:<8} {r['op']:<12} {r['ms']:9.3f} {r['Grows/s']:8.3f} "
              f"{r['GB/s']:8.1f}  {r['note']}")
    by = {(r["library"], r["op"]): r for r in rows}
    ratios = {}
    for op in ("sort_values", "argsort", "filter"):
        z, c = by.get(("zambezi", op)), by.get(("cupy", op))
        if z and c:
            ratios[op] = z["ms"] / c["ms"]
    copy = by.get(("cupy", "d2d copy")) or by.get(("torch", "d2d copy"))
    if ratios:
        print("\n" + "\n".join(f"{op}: zambezi/cupy time {v:.2f}x" for op, v in ratios.items()))
    if copy:
        z = by[("zambezi", "filter")]
        print(f"filter at {z['GB/s'] / copy['GB/s']:.0%} of the copy bandwidth")
    print(f"checks: sort_values is sorted (same values): {sorted_ok}; filter kept "
          f"{kept} rows: {filtered_ok}")
    if args.json:
        with open(args.json, "w") as fh:
            json.dump({"gpu": gpu_name, "rows": n, "results": rows, "ratios": ratios,
                       "sorted_ok": sorted_ok, "filtered_ok": filtered_ok}, fh, indent=1)
    return 0 if sorted_ok and filtered_ok else 1


if __name__ == "__main__":
    sys.exit(main())
