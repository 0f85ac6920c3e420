"""Where converting a pandas-held frame to zambezi starts to pay: for each
size, the best time of a few common calls on pandas against the same call
on zambezi including the conversion (zambezi.from_pandas) and the result's
conversion back (to_pandas), as the accelerator pays them for a frame it
first sees in pandas.  ZAMBEZI_PANDAS_MIN_ROWS (default 1_000_000) comes from
this table: the size from which the zambezi column wins for most calls.

    python bench/accel/threshold.py [--repeat 5]

Measurements, not tests.
"""
import argparse
import time

import numpy as np
import pandas as pd

import zambezi as zb

CALLS = {
    "groupby-sum": (lambda d: d.groupby("k").v.sum(), lambda z: z.groupby("k").v.sum()),
    "filter": (lambda d: d[d.v > 0.5], lambda z: z[z.v > 0.5]),
    "sort": (lambda d: d.sort_values("v"), lambda z: z.sort_values("v")),
    "value_counts": (lambda d: d.s.value_counts(), lambda z: z.s.value_counts()),
}


def best(fn, repeat):
    ts = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        ts.append(time.perf_counter() - t0)
    return min(ts)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=5)
    a = ap.parse_args()
    rng = np.random.default_rng(0)
    print(f"{'rows':>9} " + " ".join(f"{c:>22}" for c in CALLS))
    print(f"{'':>9} " + " ".join(f"{'pandas / zambezi ms':>22}" for _ in CALLS))
    for n in (1_000, 10_000, 30_000, 100_000, 300_000, 1_000_000):
        df = pd.DataFrame({"k": rng.integers(0, 100, n), "v": rng.random(n),
                           "s": pd.array(rng.choice(["a", "b", "c"], n), dtype="str")})
        cells = []
        for name, (p, z) in CALLS.items():
            tp = best(lambda: p(df), a.repeat)
            tz = best(lambda: z(zb.from_pandas(df)).to_pandas(), a.repeat)
            cells.append(f"{tp * 1e3:>9.2f} / {tz * 1e3:<9.2f}{'*' if tz < tp else ' '}")
        print(f"{n:>9} " + " ".join(f"{c:>22}" for c in cells))
    print("* zambezi (with both conversions) is faster")


if __name__ == "__main__":
    main()
