"""Plain string keys: zambezi alone on one thread, for comparing two builds.

    python bench/string_keys_builds.py make DIR          # write the inputs once
    PYTHONPATH=BUILD python bench/string_keys_builds.py time DIR dd,gb2m 5

`make` writes 10^7-row Arrow files of the keys of bench/string_keys.py
(dd: 10^6 distinct strings; gb2m: 2*10^6 and a float column; gb1e5:
10^5).  `time` reads them into memory (not mapped), runs drop_duplicates
(dd) or a group-by sum (gbK) with ZAMBEZI_NUM_THREADS=1 and prints the
least process CPU time of `repeat` runs after a warm-up.  Run it for the
builds in turn, several rounds: on a loaded machine single runs of the
same build differ by 10-15%.  Timings are measurements, not tests.
"""
import os
import sys
import time

os.environ.setdefault("ZAMBEZI_NUM_THREADS", "1")
import numpy as np
import pyarrow as pa
import pyarrow.feather as pf

SETS = {"dd": 1_000_000, "gb2m": 2_000_000, "gb1e5": 100_000}


def make(d):
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from string_keys import keys_pool
    os.makedirs(d, exist_ok=True)
    rng = np.random.default_rng(42)
    n = 10_000_000
    for name, k in SETS.items():
        pool = keys_pool(k, rng)
        t = pa.table({"k": pa.array(pool[rng.integers(0, k, n)], pa.large_string()),
                      "v": rng.random(n)})
        pf.write_feather(t, os.path.join(d, name + ".arrow"), compression="uncompressed")


def run(d, work, rep):
    import zambezi as zb
    out = []
    for w in work:
        z = zb.from_arrow(pf.read_table(os.path.join(d, w + ".arrow"), memory_map=False))
        if w == "dd":
            z = z[["k"]]
            f = lambda: z.drop_duplicates()
        else:
            f = lambda: z.groupby("k", sort=False).agg({"v": "sum"})
        f()
        best = float("inf")
        for _ in range(rep):
            t0 = time.process_time()
            f()
            best = min(best, time.process_time() - t0)
        out.append(f"{w}={best:.3f}")
    print(" ".join(out), flush=True)


if __name__ == "__main__":
    if sys.argv[1] == "make":
        make(sys.argv[2])
    else:
        run(sys.argv[2], sys.argv[3].split(","), int(sys.argv[4]) if len(sys.argv) > 4 else 5)
