"""The engine's join of keys strictly increasing on both sides (merged,
src/cpu/merge_join.c) against the same keys with one pair swapped (so not
increasing: the hash join and a sort), and pandas' outer join of the same
two indexes (Index.join with indexers) in the same run; best of 7, ms.

    PYTHONPATH=<stage> python bench/merge_join.py [rows]

The left side has rows even numbers, the right rows / 2 multiples of 3.
"""

import sys
import time

import numpy as np
import pandas as pd

from zambezi import _core


def best(f, repeat=7):
    out = float("inf")
    for _ in range(repeat):
        t = time.perf_counter()
        f()
        out = min(out, time.perf_counter() - t)
    return out * 1e3


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 1_000_000
    left = np.arange(0, 2 * n, 2, dtype=np.int64)
    right = np.arange(0, n // 2, dtype=np.int64) * 3
    swapped = left.copy()
    swapped[[-1, -2]] = swapped[[-2, -1]]

    def table(v):
        return _core.table_from_columns([_core.column_from_buffer(v)], ["k"])

    tr = table(right)
    for name, keys in (("increasing (merge)", left), ("one pair swapped (hash + sort)",
                                                       swapped)):
        tl = table(keys)
        ms = best(lambda: _core.join_indices(tl, tr, [0], [0], "outer", True))
        print(f"zambezi outer join, {name}: {ms:.1f} ms")
    a, b = pd.Index(left), pd.Index(right)
    print(f"pandas Index.join(outer, indexers), increasing: "
          f"{best(lambda: a.join(b, how='outer', return_indexers=True)):.1f} ms")


if __name__ == "__main__":
    main()
