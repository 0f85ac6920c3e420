"""DataFrame.corr / cov: zambezi against pandas and polars in the same
run, wall seconds (best of 5), and whether zambezi's matrix equals
pandas' bit for bit.

    PYTHONPATH=<stage> python bench/corr.py [rows] [columns]

Two frames: no missing value, and 1% NaN in the first column (pandas'
nancorr then tests every row of every pair).
"""

import sys
import time

import numpy as np
import pandas as pd

import zambezi as zb

try:
    import polars as pl
except ImportError:  # a peer, not a dependency
    pl = None


def best(f, repeat=5):
    out = float("inf")
    for _ in range(repeat):
        t = time.perf_counter()
        f()
        out = min(out, time.perf_counter() - t)
    return out


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 1_000_000
    k = int(sys.argv[2]) if len(sys.argv) > 2 else 10
    rng = np.random.default_rng(1)
    clean = pd.DataFrame({f"c{i}": rng.normal(size=n) for i in range(k)})
    holes = clean.copy()
    holes.loc[rng.random(n) < 0.01, "c0"] = np.nan
    print(f"{n:,} rows x {k} columns, {zb.get_num_threads()} zambezi threads")
    print("| frame | op | zambezi | pandas | polars | same bits as pandas |")
    print("|---|---|---:|---:|---:|---|")
    for name, pdf in (("no NaN", clean), ("1% NaN in one column", holes)):
        zdf = zb.DataFrame(pdf)
        for op in ("corr", "cov"):
            tz = best(lambda: getattr(zdf, op)())
            tp = best(lambda: getattr(pdf, op)())
            tl = "-"
            if pl is not None and op == "corr":
                ldf = pl.from_pandas(pdf)
                tl = f"{best(lambda: ldf.corr()):.3f}"   # polars: complete rows only
            same = np.array_equal(getattr(zdf, op)().to_pandas().to_numpy(),
                                  getattr(pdf, op)().to_numpy(), equal_nan=True)
            print(f"| {name} | {op} | {tz:.3f} | {tp:.3f} | {tl} | {same} |")


if __name__ == "__main__":
    main()
