"""Group-by skew / kurt / sem and the diff of an unsigned column: zambezi
against pandas and polars in the same run, CPU seconds (best of 3, as
time.process_time counts every thread of this process).

    PYTHONPATH=<stage> python bench/group_moments.py [rows] [groups]
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


def cpu(f, repeat=3):
    best = float("inf")
    for _ in range(repeat):
        c = time.process_time()
        f()
        best = min(best, time.process_time() - c)
    return best


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 5_000_000
    g = int(sys.argv[2]) if len(sys.argv) > 2 else 100_000
    rng = np.random.default_rng(0)
    k, x = rng.integers(0, g, n), rng.standard_normal(n)
    pdf = pd.DataFrame({"k": k, "x": x})
    zdf = zb.DataFrame(pdf)
    rows = []
    for how in ("skew", "kurt", "sem"):
        row = [f"groupby {how} ({n:,} rows, {g:,} groups)",
               cpu(lambda: getattr(zdf.groupby("k")["x"], how)()),
               cpu(lambda: getattr(pdf.groupby("k")["x"], how)())]
        if pl is not None and how != "sem":
            pdl = pl.DataFrame({"k": k, "x": x})
            e = pl.col("x").skew(bias=False) if how == "skew" else \
                pl.col("x").kurtosis(bias=False)
            row.append(cpu(lambda: pdl.group_by("k").agg(e)))
        rows.append(row)
    u = rng.integers(0, 255, 2 * n).astype("uint8")
    row = [f"uint8 diff ({2 * n:,} rows)", cpu(lambda: zb.Series(u).diff()),
           cpu(lambda: pd.Series(u).diff())]
    if pl is not None:
        row.append(cpu(lambda: pl.Series(u).diff()))
    rows.append(row)
    print("| operation | zambezi s | pandas s | polars s |")
    print("|---|---:|---:|---:|")
    for r in rows:
        cells = [f"{v:.3f}" for v in r[1:]] + ["-"] * (4 - len(r))
        print(f"| {r[0]} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
