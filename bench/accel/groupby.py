"""db-benchmark group-by q1-q10 written as plain pandas code, as the
benchmark's pandas solution writes them (read_csv, then groupby(...).agg
with as_index=False, sort=False, observed=True, dropna=False; q8 sorts and
takes head(2) per group, q9 applies a Python function per group).

    python bench/accel/groupby.py G1.csv                      # plain pandas
    python -m zambezi.pandas bench/accel/groupby.py G1.csv    # accelerated

Prints each answer's shape and column sums (rounded to 9 significant
digits: floating-point sums may differ in the last bits) on stdout, and the
seconds of the read and of each question (best of --repeat) and the
process's peak resident memory (peak_mb) on stderr as JSON.
bench/accel/run.py runs both ways and compares.
"""
import json
import os
import sys
import time

import pandas as pd

path = sys.argv[1]
repeat = int(sys.argv[2]) if len(sys.argv) > 2 else 2
times = {}
t0 = time.perf_counter()
x = pd.read_csv(path)
times["read_csv"] = time.perf_counter() - t0

QUESTIONS = {
    "q1": lambda: x.groupby("id1", as_index=False, sort=False, observed=True,
                            dropna=False).agg({"v1": "sum"}),
    "q2": lambda: x.groupby(["id1", "id2"], as_index=False, sort=False, observed=True,
                            dropna=False).agg({"v1": "sum"}),
    "q3": lambda: x.groupby("id3", as_index=False, sort=False, observed=True,
                            dropna=False).agg({"v1": "sum", "v3": "mean"}),
    "q4": lambda: x.groupby("id4", as_index=False, sort=False, observed=True,
                            dropna=False).agg({"v1": "mean", "v2": "mean", "v3": "mean"}),
    "q5": lambda: x.groupby("id6", as_index=False, sort=False, observed=True,
                            dropna=False).agg({"v1": "sum", "v2": "sum", "v3": "sum"}),
    "q6": lambda: x.groupby(["id4", "id5"], as_index=False, sort=False, observed=True,
                            dropna=False).agg({"v3": ["median", "std"]}),
    "q7": lambda: x.groupby("id3", as_index=False, sort=False, observed=True,
                            dropna=False).agg({"v1": "max", "v2": "min"}).assign(
                                range_v1_v2=lambda x: x["v1"] - x["v2"])[["id3", "range_v1_v2"]],
    "q8": lambda: x[~x["v3"].isna()][["id6", "v3"]].sort_values(
        "v3", ascending=False).groupby("id6", as_index=False, sort=False, observed=True,
                                        dropna=False).head(2),
    "q9": lambda: x[["id2", "id4", "v1", "v2"]].groupby(
        ["id2", "id4"], as_index=False, sort=False, observed=True, dropna=False).apply(
            lambda x: pd.Series({"r2": x.corr()["v1"]["v2"] ** 2}), include_groups=False),
    "q10": lambda: x.groupby(["id1", "id2", "id3", "id4", "id5", "id6"], as_index=False,
                             sort=False, observed=True, dropna=False).agg(
                                 {"v3": "sum", "v1": "size"}),
}
for q, run in QUESTIONS.items():
    best = None
    for _ in range(repeat):
        t0 = time.perf_counter()
        ans = run()
        sums = [float(ans[c].sum()) for c in ans.columns
                if str(c[0] if isinstance(c, tuple) else c).startswith(("v", "r"))]
        t = time.perf_counter() - t0
        best = t if best is None else min(best, t)
    times[q] = best
    # rows in first-appearance order: q8's ties in v3 may come in either order
    print(q, ans.shape, [f"{s:.9g}" for s in sums], list(ans.columns))
    if q != "q8":
        print(ans.head(3).to_string())
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from peak import peak_mb  # noqa: E402

times["peak_mb"] = peak_mb()
print(json.dumps(times), file=sys.stderr)
