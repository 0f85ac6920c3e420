"""Group-by float aggregations by group count: time, and digits against pandas.

    python bench/groupby_float.py [rows] [repeat]

zambezi's float sums, means, variances and products follow pandas' own
order (its Kahan loop in row order; np.add.reduceat when the rows lie by
group and the column has no NaN).  This times them at 10^7 rows of
two-decimal prices (1% NaN, random keys; and sorted keys without NaN) for 4 ... 10^5 groups, an integer
sum alongside as the control, best of `repeat`, and counts the groups whose
sum differs from pandas' (expected: 0).  Timings are measurements, not tests.
"""
import sys
import time

import numpy as np
import pandas as pd

import zambezi as zb


def best(f, repeat):
    f()
    ts = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        f()
        ts.append(time.perf_counter() - t0)
    return min(ts)


def main():
    n = int(float(sys.argv[1])) if len(sys.argv) > 1 else 10**7
    repeat = int(sys.argv[2]) if len(sys.argv) > 2 else 15
    rng = np.random.default_rng(7)
    v = (rng.normal(size=n) * 100).round(2)  # prices: sums whose last bits vary
    v_nan = v.copy()
    v_nan[rng.random(n) < 0.01] = np.nan
    iv = rng.integers(1, 100, n)
    print(f"rows {n:,}, threads {zb.get_num_threads()}, best of {repeat}, milliseconds")
    print(f"{'keys':>8} {'groups':>7} {'sum':>7} {'mean+sum+max':>13} {'std':>7} "
          f"{'int sum':>8} {'sum digits != pandas':>21}")
    for layout in ("random", "sorted"):
        for G in (4, 100, 10**4, 10**5):
            k = rng.integers(0, G, n)
            vals = v_nan
            if layout == "sorted":
                k, vals = np.sort(k), v
            z = zb.DataFrame({"k": k, "v": vals, "i": iv})
            g = z.groupby("k")
            t = [best(lambda: g["v"].sum(), repeat),
                 best(lambda: g.agg({"v": ["sum", "mean", "max"]}), repeat),
                 best(lambda: g["v"].std(), repeat),
                 best(lambda: g["i"].sum(), repeat)]
            a = pd.Series(vals).groupby(k).sum().to_numpy()
            b = np.asarray(g["v"].sum().to_pandas().to_numpy(), dtype=float)
            print(f"{layout:>8} {G:>7} " + " ".join(f"{x * 1000:7.1f}" for x in t[:1])
                  + f" {t[1] * 1000:13.1f} {t[2] * 1000:7.1f} {t[3] * 1000:8.1f}"
                  + f" {int((a != b).sum()):>21}", flush=True)


if __name__ == "__main__":
    main()
