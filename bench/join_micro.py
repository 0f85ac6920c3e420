"""Inner join of 10^7 x 10^6 int64 keys (~90% of left rows match, unique right keys):
zambezi join_indices alone and DataFrame.merge (with a value column each side), at the given
thread counts, against pandas and polars.  Usage: python bench/join_micro.py [threads ...]"""
import time, numpy as np, zambezi as zb, sys
rng = np.random.default_rng(0)
nl, nr = 10**7, 10**6
lk = rng.integers(0, int(nr / 0.9), nl).astype(np.int64)
rk = rng.permutation(nr).astype(np.int64)
L = zb.DataFrame({"k": lk, "v1": rng.random(nl)})
R = zb.DataFrame({"k": rk, "v2": rng.random(nr)})
for t in [int(a) for a in sys.argv[1:]] or [1, 2]:
    zb.set_num_threads(t)
    best_i = best_m = 1e9
    for _ in range(3):
        t0 = time.perf_counter(); li, ri = zb._core.join_indices(L._table, R._table, [0], [0], "inner"); best_i = min(best_i, time.perf_counter() - t0)
        t0 = time.perf_counter(); out = L.merge(R, on="k"); best_m = min(best_m, time.perf_counter() - t0)
    print(f"threads={t}: join_indices {best_i*1e3:.0f} ms, merge (with columns) {best_m*1e3:.0f} ms, rows={len(out)}")
import pandas as pd, polars as pl
pl_, pr_ = pd.DataFrame({"k": lk, "v1": L["v1"].to_numpy()}), pd.DataFrame({"k": rk, "v2": R["v2"].to_numpy()})
t0 = time.perf_counter(); o = pl_.merge(pr_, on="k"); print(f"pandas merge {1e3*(time.perf_counter()-t0):.0f} ms rows={len(o)}")
a, b = pl.from_pandas(pl_), pl.from_pandas(pr_)
t0 = time.perf_counter(); o = a.join(b, on="k", maintain_order="left"); print(f"polars join (maintain_order=left) {1e3*(time.perf_counter()-t0):.0f} ms rows={len(o)}")
