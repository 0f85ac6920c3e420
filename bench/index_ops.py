"""Index operations: alignment cost and label lookups, zambezi vs pandas and polars.

    python bench/index_ops.py [--rows 10000000] [--lookups 10000] [--repeat 3]

(a) ``s1 + s2`` for two Series with equal (not identical) indexes, against
    the positional engine operation (``_core.binary``) on the same columns:
    equal labels take the positional path, so the two should cost the same
    (plus one comparison of the labels, for an Index that is not a
    RangeIndex);
(b) ``set_index`` on a frame of --rows rows, then --lookups ``loc`` label
    lookups (one label each), with int and with str labels, zambezi vs
    pandas;
(c) ``s1 + s2`` with misaligned labels (the same labels shuffled, a tenth
    replaced): zambezi's outer join + take + add against pandas, and against
    polars, which has no index: its outer join on a key column, then the
    sum of the two value columns.

Prints the best time of --repeat runs per row, the command and the machine
(nproc).  Measurements, not tests.
"""
import argparse
import os
import sys
import time

import numpy as np

import zambezi as zb
from zambezi import _core


def best(fn, repeat):
    t = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        t.append(time.perf_counter() - t0)
    return min(t)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=10_000_000)
    ap.add_argument("--lookups", type=int, default=10_000)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    n, k, rep = args.rows, args.lookups, args.repeat
    rng = np.random.default_rng(1)
    rows = []  # (case, engine, seconds)

    # (a) equal indexes vs the positional engine op
    a, b = rng.normal(size=n), rng.normal(size=n)
    z1, z2 = zb.Series(a), zb.Series(b)                    # RangeIndexes, two objects
    rows.append(("a: s1 + s2, equal RangeIndex", "zambezi", best(lambda: z1 + z2, rep)))
    labels = np.arange(n, dtype=np.int64) * 3
    i1, i2 = zb.Series(a, index=labels), zb.Series(b, index=labels.copy())
    rows.append(("a: s1 + s2, equal Index (int64)", "zambezi", best(lambda: i1 + i2, rep)))
    ca, cb = z1._col, z2._col
    rows.append(("a: positional _core.binary", "zambezi",
                 best(lambda: _core.binary("add", ca, cb), rep)))

    # (b) set_index + k loc lookups, int and str labels
    import pandas as pd

    keys_int = rng.permutation(n).astype(np.int64)
    probe = rng.integers(0, n, k)
    fz = zb.DataFrame({"key": keys_int, "v": a})
    fp = pd.DataFrame({"key": keys_int, "v": a})
    probe_int = keys_int[probe].tolist()

    def z_lookups_int():
        d = fz.set_index("key")
        for label in probe_int:
            d.loc[label, "v"]

    def p_lookups_int():
        d = fp.set_index("key")
        for label in probe_int:
            d.loc[label, "v"]

    rows.append((f"b: set_index + {k} loc (int)", "zambezi", best(z_lookups_int, rep)))
    rows.append((f"b: set_index + {k} loc (int)", "pandas", best(p_lookups_int, rep)))
    keys_str = np.char.add("k", keys_int.astype(str)).astype(object)
    fzs = zb.DataFrame({"key": keys_str, "v": a})
    fps = pd.DataFrame({"key": pd.array(keys_str, dtype="str"), "v": a})
    probe_str = [keys_str[i] for i in probe]

    def z_lookups_str():
        d = fzs.set_index("key")
        for label in probe_str:
            d.loc[label, "v"]

    def p_lookups_str():
        d = fps.set_index("key")
        for label in probe_str:
            d.loc[label, "v"]

    rows.append((f"b: set_index + {k} loc (str)", "zambezi", best(z_lookups_str, rep)))
    rows.append((f"b: set_index + {k} loc (str)", "pandas", best(p_lookups_str, rep)))
    del fzs, fps, keys_str

    # (c) misaligned s1 + s2
    l1 = rng.permutation(n).astype(np.int64)
    l2 = rng.permutation(n).astype(np.int64)
    l2[rng.random(n) < 0.1] += n                            # a tenth only on one side
    m1, m2 = zb.Series(a, index=l1), zb.Series(b, index=l2)
    rows.append(("c: s1 + s2, misaligned", "zambezi", best(lambda: m1 + m2, rep)))
    p1, p2 = pd.Series(a, index=l1), pd.Series(b, index=l2)
    rows.append(("c: s1 + s2, misaligned", "pandas", best(lambda: p1 + p2, rep)))
    try:
        import polars as pl

        q1 = pl.DataFrame({"key": l1, "a": a})
        q2 = pl.DataFrame({"key": l2, "b": b})

        def polars_add():
            j = q1.join(q2, on="key", how="full", coalesce=True)
            return j.select(pl.col("key"), (pl.col("a") + pl.col("b")).alias("sum"))

        rows.append(("c: join on key + add (no index)", "polars", best(polars_add, rep)))
    except ImportError:  # pragma: no cover - polars is a benchmark peer only
        pass

    print(f"command: python {' '.join(sys.argv)}")
    print(f"machine: nproc={os.cpu_count()}, zambezi threads={zb.get_num_threads()}, "
          f"rows={n:,}, lookups={k:,}, best of {rep}")
    width = max(len(r[0]) for r in rows)
    print(f"{'case':<{width}}  {'engine':<8}  {'seconds':>9}")
    for case, engine, sec in rows:
        print(f"{case:<{width}}  {engine:<8}  {sec:>9.4f}")


if __name__ == "__main__":
    main()
