"""sort_values by one column under plain pandas and under the accelerator:
equal keys come in pandas' order (numpy's argsort, kind="quicksort"), which
zambezi reproduces with one argsort when the key has ties.

    python bench/accel/sort_ties.py [rows]                    # plain pandas
    python -m zambezi.pandas bench/accel/sort_ties.py [rows]  # accelerated

Prints the best of 3 wall-clock seconds of each sort.  Timings are
measurements, not tests.
"""
import sys
import time

import numpy as np
import pandas as pd

n = int(sys.argv[1]) if len(sys.argv) > 1 else 10_000_000
rng = np.random.default_rng(0)
df = pd.DataFrame({"k": rng.integers(0, 1000, n), "f": rng.random(n), "v": np.arange(n)})


def best(f, rounds=3):
    times = []
    for _ in range(rounds):
        t0 = time.perf_counter()
        f()
        times.append(time.perf_counter() - t0)
    return min(times)


df.sort_values("f")   # warm-up (the accelerator converts the frame once)
print(f"sort_values int key with ties: {best(lambda: df.sort_values('k')):.3f} s")
print(f"sort_values float key, no ties: {best(lambda: df.sort_values('f')):.3f} s")
print(f"sort_values int key, kind=stable: "
      f"{best(lambda: df.sort_values('k', kind='stable')):.3f} s")
