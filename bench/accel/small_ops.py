"""Many tiny pandas operations (frames of 100 rows), as plain pandas code:
the accelerator must not make such scripts slower (goal: at least 0.9x plain
pandas).  Prints a checksum on stdout and, on stderr as JSON, the seconds
(wall clock) and the CPU seconds of the process (small_ops_cpu: steadier
than the wall clock on a loaded machine).

    python bench/accel/small_ops.py [rounds]
    python -m zambezi.pandas bench/accel/small_ops.py [rounds]
"""
import json
import sys
import time

import numpy as np
import pandas as pd

rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 300
rng = np.random.default_rng(0)
t0 = time.perf_counter()
c0 = time.process_time()
total = 0.0
for i in range(rounds):
    df = pd.DataFrame({"k": rng.integers(0, 5, 100), "v": rng.random(100),
                       "s": rng.choice(["a", "b", "c"], 100)})
    df["w"] = df.v * 2
    g = df.groupby("k").agg({"v": "sum", "w": "mean"})
    f = df[df.v > 0.5].sort_values("v")
    m = df.merge(g, left_on="k", right_index=True, suffixes=("", "_g"))
    total += float(g.v.sum()) + len(f) + float(m.w_g.sum()) + int(df.s.value_counts().iloc[0])
    total += float(df.loc[df.k == 1, "v"].sum()) + float(df.iloc[:10].v.mean())
elapsed = time.perf_counter() - t0
cpu = time.process_time() - c0
print(f"{total:.6f}")
print(json.dumps({"small_ops": elapsed, "small_ops_cpu": cpu}), file=sys.stderr)
