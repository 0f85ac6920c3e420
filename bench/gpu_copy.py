"""Host<->GPU copy benchmark: zambezi's pinned, double-buffered staging
against plain pageable cudaMemcpy (ZAMBEZI_CUDA_STAGING=0), and CuPy's
copies from pageable numpy memory as the peer.

    python3 bench/gpu_copy.py [--mib 64,1024] [--reps 5] [--json out.json]

For each size, times ``Series.to("cuda")`` (host to device) and
``.to("cpu")`` (device to host) of a uint8 column, best of --reps after one
warm-up, in GB/s.  The unstaged numbers come from the same script run in a
child process with staging turned off (the setting is read once per
process).  Needs a GPU; exits with status 2 without one.
"""

import argparse
import json
import os
import subprocess
import sys
import time

import numpy as np

import gpu_reduce  # bench/ is on sys.path when a script here runs


def best(fn, reps):
    fn()
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def measure(sizes_mib, reps):
    import zambezi as zb

    out = {}
    for mib in sizes_mib:
        n = mib << 20
        s = zb.Series(np.random.default_rng(0).integers(0, 256, n, dtype=np.uint8))
        g = s.to("cuda")
        h2d = best(lambda: s.to("cuda"), reps)
        d2h = best(lambda: g.to("cpu"), reps)
        out[mib] = {"h2d_gbs": n / h2d / 1e9, "d2h_gbs": n / d2h / 1e9}
    return out


def cupy_measure(sizes_mib, reps):
    try:
        import cupy as cp
    except ImportError:
        return None
    out = {}
    for mib in sizes_mib:
        n = mib << 20
        host = np.random.default_rng(0).integers(0, 256, n, dtype=np.uint8)
        dev = cp.asarray(host)

        def h2d():
            cp.asarray(host)
            cp.cuda.Device().synchronize()

        out[mib] = {"h2d_gbs": n / best(h2d, reps) / 1e9,
                    "d2h_gbs": n / best(lambda: cp.asnumpy(dev), reps) / 1e9}
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mib", default="64,1024", help="sizes in MiB, comma-separated")
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--json", default=None)
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    sizes = [int(x) for x in args.mib.split(",")]

    import zambezi as zb

    if gpu_reduce.no_gpu(zb):
        return 2
    if args.child:
        print(json.dumps(measure(sizes, args.reps)))
        return 0
    staged = measure(sizes, args.reps)
    env = dict(os.environ, ZAMBEZI_CUDA_STAGING="0")
    child = subprocess.run([sys.executable, __file__, "--child", "--mib", args.mib, "--reps",
                            str(args.reps)], env=env, capture_output=True, text=True, check=True)
    plain = {int(k): v for k, v in json.loads(child.stdout.splitlines()[-1]).items()}
    peer = cupy_measure(sizes, args.reps)
    print(f"{'library':<28} {'MiB':>6} {'H2D GB/s':>9} {'D2H GB/s':>9}")
    rows = [("zambezi (pinned staging)", staged), ("zambezi (plain cudaMemcpy)", plain)]
    if peer is not None:
        rows.append(("cupy (pageable numpy)", peer))
    for name, res in rows:
        for mib in sizes:
            r = res[mib]
            print(f"{name:<28} {mib:>6} {r['h2d_gbs']:>9.1f} {r['d2h_gbs']:>9.1f}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"staged": staged, "plain": plain, "cupy": peer}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
